// Calibration on published measurements of one card and stack
// (docs/calibration.md, docs/validation.md "Calibration"): each set of records
// in tests/data/calibration calibrated, and the leave-one-out error set beside
// the model's own error on the same measurements.
#pragma once

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpu_advise/calibrate.hpp"
#include "gpu_advise/catalog.hpp"
#include "gpu_advise/model.hpp"
#include "load/measurements.hpp"

namespace gpu_advise::validation {

// The targets of issue 38: the left-out error of steps of one kind on one
// card and stack, below the model's own.
inline constexpr double calibrated_speed_target = 0.15;
inline constexpr double calibrated_memory_target = 0.10;

struct CalibrationSet {
  std::string name;
  std::string file;  // under tests/data/calibration
  std::function<bool(const Measurement&)> member;
  bool judged = true;  // steps of one kind: held to the targets
  std::string why_not_judged;
};

inline std::vector<CalibrationSet> calibration_sets() {
  auto all = [](const Measurement&) { return true; };
  auto task = [](Task t) { return [t](const Measurement& m) { return m.task == t; }; };
  return {
      {"torchtitan, H100: every run (8B-405B, 8K-256K tokens, selective and full recompute, BF16 and FP8, eager and "
       "compiled)",
       "torchtitan-h100.jsonl", all},
      {"torchtitan, H100: Llama 3.1 8B (8-128 GPUs, 8K-256K tokens)", "torchtitan-h100.jsonl",
       [](const Measurement& m) { return m.model == "llama-3.1-8b"; }},
      {"LitGPT, A10G: LoRA (Llama 3.2 1B to Mistral 7B)", "litgpt-a10g.jsonl", task(Task::lora)},
      {"LitGPT, A10G: QLoRA (Llama 3.2 1B to Gemma 2 9B)", "litgpt-a10g.jsonl", task(Task::qlora)},
      {"LitGPT, A10G: LoRA and QLoRA together", "litgpt-a10g.jsonl", all, false,
       "two kinds of step: QLoRA's peak includes loading the BF16 checkpoint"},
      {"torchtune, RTX 4090: full, LoRA and QLoRA of Llama 3.1 8B", "torchtune-4090.jsonl", all, false,
       "three kinds of step, one each"},
  };
}

struct CalibrationResult {
  const CalibrationSet* set = nullptr;
  Calibration calibration;
};

inline std::vector<CalibrationResult> calibration_results(const Catalog& catalog, const ModelCatalog& models) {
  static const std::vector<CalibrationSet> sets = calibration_sets();
  std::vector<CalibrationResult> out;
  for (const auto& set : sets) {
    std::vector<MeasuredRun> runs =
        load_measurements(std::string(GPU_ADVISE_SOURCE_DIR) + "/tests/data/calibration/" + set.file, catalog, models);
    runs.erase(
        std::remove_if(runs.begin(), runs.end(), [&](const MeasuredRun& r) { return !set.member(r.measurement); }),
        runs.end());
    std::vector<Calibration> fitted = calibrate(runs, "2026-12-07");
    out.push_back({&set, fitted.at(0)});
  }
  return out;
}

inline std::string calibration_summary(const Catalog& catalog, const ModelCatalog& models) {
  std::string out =
      "| set | figure | measurements | model's median error | left-out median error | left-out largest error | fit "
      "| judged |\n"
      "| --- | --- | --- | --- | --- | --- | --- | --- |\n";
  auto percent = [](const std::optional<double>& v) { return v ? fmt::format("{:.0f}%", 100.0 * *v) : "-"; };
  for (const auto& [set, c] : calibration_results(catalog, models)) {
    const std::string judged = set->judged ? "yes" : "no: " + set->why_not_judged;
    if (c.speed.fitted_on > 0) {
      out += fmt::format("| {} | speed | {} | {} | {} | {} | x{:.3f} the kernel efficiency{} | {} |\n", set->name,
                         c.speed.fitted_on, percent(c.speed.model_error), percent(c.speed.median_error),
                         percent(c.speed.max_error), c.speed.factor, c.speed.applied ? "" : " (not applied)", judged);
    }
    if (c.memory.fitted_on > 0) {
      out += fmt::format("| {} | peak memory | {} | {} | {} | {} | {:.3f} x + {:.2f} GiB{} | {} |\n", set->name,
                         c.memory.fitted_on, percent(c.memory.model_error), percent(c.memory.median_error),
                         percent(c.memory.max_error), c.memory.scale, c.memory.offset_gib,
                         c.memory.applied ? "" : " (not applied)", judged);
    }
  }
  return out;
}

}  // namespace gpu_advise::validation
