// The single input of every renderer: the request, the model, the ranked
// recommendations with their estimates and reasons, and the rejected cards.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpu_advise/catalog.hpp"
#include "gpu_advise/estimate.hpp"
#include "gpu_advise/gpu.hpp"
#include "gpu_advise/model.hpp"
#include "gpu_advise/request.hpp"
#include "gpu_advise/rules.hpp"

namespace gpu_advise {

// Each part is 0..1 before weighting; total is 0..100.
struct ScoreBreakdown {
  double cost = 0;      // cheapest plan = 1
  double speed = 0;     // fastest plan = 1
  double headroom = 0;  // memory left: 25% or more = 1
  double risk = 0;      // ecosystem and supply: 1 = CUDA with datasheet figures
  double cost_weight = 0;
  double speed_weight = 0;
  double headroom_weight = 0;
  double risk_weight = 0;
  double rules = 0;  // points from the rules that fired
  double total = 0;  // 100 x weighted parts + rules
  bool cost_known = true;
};

struct Recommendation {
  int rank = 0;
  GpuSpec gpu;
  Estimate estimate;
  ScoreBreakdown score;
  std::string layout_text;         // the layout in words ("tensor parallel 4")
  std::vector<std::string> notes;  // the estimate's caveats in words
  std::vector<std::string> rationale;
  std::vector<Finding> findings;  // every rule's verdict on this card (fired ones first)
};

struct Rejection {
  GpuSpec gpu;
  std::vector<std::string> reasons;
  std::vector<Finding> findings;
};

// A lighter task or a larger count that would fit, when nothing does.
struct WayOut {
  Task task = Task::inference;
  std::string gpu_id;
  std::string gpu_name;
  int count = 0;
  std::optional<double> rent_usd_per_hour;  // count x typical rent
  std::vector<std::string> drops;           // the flags this way out drops ("--count", "--deadline")
  std::optional<double> wall_hours;         // training: typical wall time on this way out
};

struct Report {
  Language language = Language::en;  // of every sentence below
  std::string tool_version;
  CatalogInfo catalog;
  Request request;
  ModelShape model;
  std::string model_label;                      // the model for people: "Llama 3.1 70B", "a 70B model"
  std::vector<Recommendation> recommendations;  // best first, cut to --top
  std::size_t omitted = 0;                      // feasible cards cut by --top
  std::vector<Rejection> rejected;
  std::vector<WayOut> ways_out;
  std::vector<std::string> assumptions;
  std::optional<int> batch_line;      // batch: the input line this report answers
  std::vector<std::string> warnings;  // about the run as a whole (a rule file's rule that matched no card)

  [[nodiscard]] bool anything_fits() const { return !recommendations.empty() || omitted > 0; }
};

}  // namespace gpu_advise
