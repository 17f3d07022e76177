// fit's report: the user's cards against each model and task, and the largest
// model of each task that fits. The data types the renderers read (fit() is
// in fit.hpp, the advise stage).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gpu_advise/catalog.hpp"
#include "gpu_advise/gpu.hpp"
#include "gpu_advise/model.hpp"
#include "gpu_advise/report.hpp"
#include "gpu_advise/request.hpp"

namespace gpu_advise {

// Cards a user has: `count` of one card.
struct Fleet {
  std::string gpu_id;
  int count = 1;
};

struct FitRequest {
  // One request per task asked about, with every flag applied; fit() sets
  // the model, the card and the count of each row.
  std::vector<Request> tasks;
  std::vector<ModelShape> models;  // the presets, or the one model asked about
  std::vector<Fleet> fleets;
  bool find_largest = true;        // sweep model sizes for the largest that fits (models from --params shapes)
  std::size_t models_skipped = 0;  // presets left out: their context is shorter than the request's
};

// One model and task on one fleet. Training runs on every card of the fleet;
// serving places one copy on the fewest cards that hold it and meet the
// latency targets, and as many copies as the fleet has room for.
struct FitRow {
  ModelShape model;
  Task task = Task::inference;
  std::optional<Recommendation> plan;  // when it fits
  std::optional<Rejection> rejection;  // when it does not: why
  int copies = 0;                      // serving: model copies on the fleet
  double fleet_tokens_per_s = 0;       // serving: all copies together (typical)
};

// The largest dense model (a shape inferred from its size, as --params) of a
// task that fits on the fleet, to two significant figures; 0 when none does.
struct FitLargest {
  Task task = Task::inference;
  double params = 0;
  std::optional<Recommendation> plan;  // that model's plan
};

struct FitFleet {
  Fleet fleet;
  GpuSpec gpu;
  std::vector<FitRow> rows;  // models in request order, tasks within each model
  std::vector<FitLargest> largest;
};

struct FitReport {
  std::string tool_version;
  CatalogInfo catalog;
  FitRequest request;
  std::vector<FitFleet> fleets;

  [[nodiscard]] bool anything_fits() const;
};

// Bounds of the largest-model sweep.
inline constexpr double fit_sweep_min_params = 100e6;
inline constexpr double fit_sweep_max_params = 10e12;

}  // namespace gpu_advise
