// Calibrating on the user's own measurements (docs/calibration.md): each
// measured run sized with the model as it stands, then per card and training
// stack (or serving engine) a speed factor and a memory correction fitted by
// least squares, with each measurement's error before and after, and
// predicted from the others alone (leave-one-out). Pure: the records are read
// in load/measurements.cpp, the result written in load/calibration_file.cpp.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gpu_advise/calibration.hpp"
#include "gpu_advise/gpu.hpp"
#include "gpu_advise/model.hpp"
#include "gpu_advise/request.hpp"

namespace gpu_advise {

// One measured run, as a record states it (docs/calibration.md, "Records").
struct Measurement {
  CalibrationKind kind = CalibrationKind::training;
  std::string origin;  // FILE:LINE of the record
  std::string file;    // the record's file and line, apart
  int line = 0;
  std::string id;            // optional name
  std::string source;        // optional: where the figures come from
  std::string date;          // optional: YYYY-MM-DD
  std::string gpu;           // catalog id (resolved from an id or alias)
  int count = 1;             // GPUs of the run
  std::string model;         // preset id, or empty
  std::string model_config;  // a config.json path (resolved against the record file's folder), or empty

  // Training.
  Task task = Task::full;
  int seq_len = 0;
  int micro_batch = 1;
  Recompute recompute = Recompute::none;
  Optimizer optimizer = Optimizer::adamw;
  std::optional<Stack> stack;  // unset: the task's default stack
  std::optional<int> lora_rank;
  std::vector<LoraTarget> lora_targets;  // empty: the default (all)
  std::optional<int> tp;
  std::optional<int> pp;
  std::optional<int> cp;
  std::optional<int> zero_stage;
  std::optional<int> global_batch;  // unset: one micro-batch a data-parallel rank
  bool fp8 = false;
  bool optimizer_in_backward = false;
  std::optional<double> peak_memory_gib;  // per GPU, torch.cuda.max_memory_allocated
  std::optional<double> tokens_per_s;     // the whole group of `count` GPUs

  // Serving.
  InferencePrecision precision = InferencePrecision::bf16;
  std::optional<KvPrecision> kv_precision;
  std::optional<ServingEngine> engine;  // unset: each card's vLLM build
  int concurrency = 0;
  int context = 0;
  int output_tokens = 0;
  std::optional<double> output_tokens_per_s;  // all `count` GPUs
  std::optional<double> ttft_ms;
  std::optional<double> tpot_ms;

  // The training stack or serving engine the calibration is kept under.
  [[nodiscard]] std::string key() const;
};

// A measurement with the model and card it names.
struct MeasuredRun {
  Measurement measurement;
  ModelShape model;
  GpuSpec gpu;
};

// A serving figure under this share of both the card's roofline (its weights
// and KV cache read at the bandwidth, or its products at the peak, whichever
// is slower) and the model's slow corner is refused, not fitted: a
// framework's overhead, not the card (eager Hugging Face decoding reaches 6%
// of the roofline; engines at load 40-90%). One above the roofline (a dense
// model) is no measurement of the card either.
inline constexpr double serving_bound_share_min = 0.25;
inline constexpr double serving_bound_share_max = 1.05;

// The calibrations of every card and stack (or engine) the runs measure, in
// the order they first appear; `created` is today's date. A run gpu-advise
// cannot size (no plan of its count: memory, precision, engine) is a located
// DataError; a serving figure far below the weight-read bound is refused, in
// its group's provenance (a group with every run refused has no factors).
[[nodiscard]] std::vector<Calibration> calibrate(std::span<const MeasuredRun> runs, const std::string& created);

// The command-line flags that size a measurement as gpu-advise would:
// "--model llama-3.1-8b --task lora --gpu h200-sxm --count 1 ...".
[[nodiscard]] std::string measurement_flags(const Measurement& m);

}  // namespace gpu_advise
