// The single input of every renderer: the request, the model, the ranked
// recommendations with their estimates and reasons, and the rejected cards.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <variant>
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
  double cost = 0;      // cheapest plan = 1; without a price, the median of the priced plans' (neutral)
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
  bool cheapest = false;          // the lowest known cost of the cards that fit
  bool fastest = false;           // the fastest of the cards that fit
  std::vector<Finding> findings;  // every rule's verdict on this card (fired ones first)
};

// Why a card is not recommended: facts, which words.hpp turns into sentences.
struct NotSelected {};  // --gpu named other cards
struct RuleRejection {  // a rule with a reject effect fired
  std::string rule_id;
  std::map<Language, std::string> message;
};
struct NoPriceForBudget {  // a budget amount, and no price to check it against
  CostMode mode = CostMode::rent;
  double budget_usd = 0;
};
struct OverBudget {  // the plan costs more than the budget amount
  enum class Cost { cards, run, month };
  Cost cost = Cost::run;
  double cost_usd = 0;
  double budget_usd = 0;
};
using RejectReason = std::variant<Shortfall, NotSelected, RuleRejection, NoPriceForBudget, OverBudget>;

struct Rejection {
  GpuSpec gpu;
  std::vector<RejectReason> reasons;
  std::vector<Finding> findings;
};

// A lighter task or a larger count that would fit, when nothing does.
struct WayOut {
  // One lever the way out moves, with its value before and after (strings as
  // typed on the command line; an empty `to` means the flag is dropped).
  struct Change {
    std::string lever;  // optimizer, zero, recompute, precision, kv_precision, concurrency, context, region, mode,
                        // offload, optimizer_in_backward, global_batch, tpot_ms, ttft_ms, count, deadline, task
    std::string from;
    std::string to;
  };
  Task task = Task::inference;
  std::string gpu_id;
  std::string gpu_name;
  int count = 0;
  std::optional<double> rent_usd_per_hour;  // count x typical rent
  std::vector<std::string> drops;           // the flags this way out drops ("--count", "--deadline")
  std::optional<double> wall_hours;         // training: typical wall time on this way out
  std::optional<double> run_usd;            // training: typical rent for the run
  std::vector<std::string> sets;            // the flag settings it changes ("--optimizer adamw-bf16", "--region cn")
  std::vector<Change> changes;              // every lever it moves, for scripts
};

// A rule from a --rules file that matched no card in this request.
struct UnmatchedRule {
  std::string rule_id;
  std::string origin;  // FILE:LINE
};

// Facts only: no sentence and no language. The renderers say them, in the
// language they are given, through words.hpp.
struct Report {
  std::string tool_version;
  CatalogInfo catalog;
  Request request;
  ModelShape model;
  std::vector<Recommendation> recommendations;  // best first, cut to --top
  std::size_t omitted = 0;                      // feasible cards cut by --top
  std::size_t feasible = 0;                     // cards that fit, before --top
  std::size_t unpriced = 0;                     // of those, cards with no price for the mode and region
  // A top-scoring plan that was set aside: tight (another within 10% of its
  // cost had more room) or oversized (a right-sized plan cost less and was
  // nearly as fast). The plan that leads instead is recommendations[0].
  struct Displaced {
    std::string gpu_name;
    double headroom = 0;
  };
  std::optional<Displaced> displaced_tight;
  std::optional<Displaced> displaced_oversized;
  // Cost first: the cheapest priced plan, when it ranks below the Best, and
  // what ranked it down (docs/methodology.md §7).
  struct CheaperBelow {
    std::string gpu_name;
    int count = 0;
    int rank = 0;
    double cost_usd = 0;                    // ranking_cost(): the run, or an hour (month, owning) of serving
    std::optional<SoftwareStack> software;  // not CUDA
    bool estimated_specs = false;           // catalog figures are estimates
    std::vector<std::string> rules;         // rules that took points off it
    bool slower = false;                    // slower than the Best
    bool less_headroom = false;             // less memory left than the Best
  };
  std::optional<CheaperBelow> cheaper_below;
  std::vector<Rejection> rejected;
  // The rejected cards a client would ask about (indices into `rejected`, at
  // most five): those that fit but a rule or the budget ruled out, then the
  // largest that did not fit; never the cards --gpu left out.
  std::vector<std::size_t> why_not;
  std::vector<WayOut> ways_out;
  std::optional<int> batch_line;               // batch: the input line this report answers
  std::vector<UnmatchedRule> unmatched_rules;  // about the run as a whole

  [[nodiscard]] bool anything_fits() const { return !recommendations.empty() || omitted > 0; }
};

}  // namespace gpu_advise
