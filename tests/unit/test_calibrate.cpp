// Calibrating on measured runs (docs/calibration.md): factors made from known
// ones are recovered, the leave-one-out predictions are the ones worked out by
// hand, a fit no better than the model is not applied, the calibration file
// reads back what was written, and a calibration changes the estimates of its
// card and stack and nothing else.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "estimate/parts.hpp"
#include "gpu_advise/calibrate.hpp"
#include "gpu_advise/catalog.hpp"
#include "gpu_advise/error.hpp"
#include "gpu_advise/estimate.hpp"
#include "gpu_advise/model.hpp"
#include "gpu_advise/units.hpp"
#include "load/calibration_file.hpp"
#include "load/measurements.hpp"

using namespace gpu_advise;

namespace {

// Records with made-up figures, one a line: the model's own figures come back
// as each measurement's `before`.
std::vector<MeasuredRun> training_runs(const Catalog& catalog, const ModelCatalog& models) {
  const std::string text =
      R"({"kind": "training", "id": "a", "gpu": "h200-sxm", "count": 1, "model": "llama-3.1-8b", "task": "lora", "seq_len": 4096, "micro_batch": 1, "recompute": "none", "optimizer": "adamw", "tokens_per_s": 1000, "peak_memory_gib": 60}
{"kind": "training", "id": "b", "gpu": "h200-sxm", "count": 1, "model": "llama-3.1-8b", "task": "lora", "seq_len": 2048, "micro_batch": 2, "recompute": "full", "optimizer": "adamw", "tokens_per_s": 1000, "peak_memory_gib": 60}
{"kind": "training", "id": "c", "gpu": "h200-sxm", "count": 1, "model": "llama-3.2-1b", "task": "full", "seq_len": 4096, "micro_batch": 1, "recompute": "none", "optimizer": "adamw", "stack": "hf", "tokens_per_s": 1000, "peak_memory_gib": 60}
{"kind": "training", "id": "d", "gpu": "h200-sxm", "count": 1, "model": "qwen2.5-7b", "task": "lora", "seq_len": 1024, "micro_batch": 4, "recompute": "selective", "optimizer": "adamw", "tokens_per_s": 1000, "peak_memory_gib": 60}
)";
  return parse_measurements(text, "runs.jsonl", catalog, models);
}

const CalibrationFigure& figure(const CalibrationProvenance& p, const std::string& metric) {
  for (const auto& f : p.figures) {
    if (f.metric == metric) {
      return f;
    }
  }
  FAIL("no figure " << metric);
  return p.figures.front();
}

}  // namespace

TEST_CASE("a speed factor and a memory correction made from known ones are recovered", "[calibrate]") {
  const Catalog catalog = load_embedded_catalog();
  const ModelCatalog models = load_embedded_models();
  std::vector<MeasuredRun> runs = training_runs(catalog, models);
  const std::vector<Calibration> first = calibrate(runs, "2026-12-07");
  REQUIRE(first.size() == 1);
  // Measured: the model's speed at 0.7 of its kernel efficiency (one GPU: the
  // step is all compute, so the speed scales with it), and 1.1 x its peak + 2 GiB.
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const CalibrationProvenance& p = first[0].provenance[i];
    runs[i].measurement.tokens_per_s = 0.7 * figure(p, "tokens_per_s").before;
    runs[i].measurement.peak_memory_gib = 1.1 * figure(p, "peak_memory_gib").before + 2.0;
  }
  const std::vector<Calibration> fitted = calibrate(runs, "2026-12-07");
  REQUIRE(fitted.size() == 1);
  const Calibration& c = fitted[0];
  CHECK(c.kind == CalibrationKind::training);
  CHECK(c.gpu == "h200-sxm");
  CHECK(c.key == "hf");
  CHECK(c.measurements == 4);
  CHECK(c.speed.factor == Approx(0.7).epsilon(1e-4));
  CHECK(c.speed.applied);
  CHECK(*c.speed.median_error < 1e-4);
  CHECK(*c.speed.model_error == Approx(1.0 / 0.7 - 1.0).epsilon(1e-6));
  CHECK(*c.speed.band_low == Approx(1.0).epsilon(1e-3));
  CHECK(*c.speed.band_high == Approx(1.0).epsilon(1e-3));
  CHECK(c.memory.scale == Approx(1.1).epsilon(1e-9));
  CHECK(c.memory.offset_gib == Approx(2.0).epsilon(1e-9));
  CHECK(*c.memory.median_error < 1e-9);
  for (const auto& p : c.provenance) {
    CHECK(figure(p, "tokens_per_s").after == Approx(figure(p, "tokens_per_s").measured).epsilon(1e-4));
    CHECK(figure(p, "peak_memory_gib").after == Approx(figure(p, "peak_memory_gib").measured));
  }
}

TEST_CASE("each measurement is predicted from the others alone, as worked out by hand", "[calibrate]") {
  const Catalog catalog = load_embedded_catalog();
  const ModelCatalog models = load_embedded_models();
  std::vector<MeasuredRun> runs = parse_measurements(
      R"({"kind": "serving", "gpu": "h100-sxm5", "count": 1, "model": "llama-3.1-8b", "precision": "bf16", "concurrency": 16, "context": 2048, "output_tokens": 512, "output_tokens_per_s": 2000}
{"kind": "serving", "gpu": "h100-sxm5", "count": 1, "model": "llama-3.1-8b", "precision": "bf16", "concurrency": 32, "context": 2048, "output_tokens": 512, "output_tokens_per_s": 3500}
{"kind": "serving", "gpu": "h100-sxm5", "count": 1, "model": "llama-3.1-8b", "precision": "bf16", "concurrency": 64, "context": 4096, "output_tokens": 1024, "tpot_ms": 20}
)",
      "serving.csv.jsonl", catalog, models);
  std::vector<Calibration> first = calibrate(runs, "2026-12-07");
  REQUIRE(first.size() == 1);
  // Measured at 0.7, 0.72 and 0.75 times the model's speed (the third as a TPOT).
  const double ratio[] = {0.7, 0.72, 0.75};
  std::vector<double> before;
  for (std::size_t i = 0; i < 3; ++i) {
    const CalibrationFigure& f = first[0].provenance[i].figures.at(0);
    before.push_back(f.before);
    if (i < 2) {
      runs[i].measurement.output_tokens_per_s = f.before * ratio[i];
    } else {
      runs[i].measurement.tpot_ms = f.before / ratio[i];
    }
  }
  const std::vector<Calibration> fitted = calibrate(runs, "2026-12-07");
  const Calibration& c = fitted.at(0);
  CHECK(c.key == "vllm");
  CHECK(c.speed.factor == Approx(std::cbrt(0.7 * 0.72 * 0.75)));
  // Left out: the geometric mean of the other two ratios.
  const double left_out[] = {std::sqrt(0.72 * 0.75), std::sqrt(0.7 * 0.75), std::sqrt(0.7 * 0.72)};
  std::vector<double> logs;
  for (std::size_t i = 0; i < 3; ++i) {
    const CalibrationFigure& f = c.provenance[i].figures.at(0);
    const double expected = i < 2 ? before[i] * left_out[i] : before[i] / left_out[i];
    CHECK(*f.left_out == Approx(expected));
    logs.push_back(std::log(ratio[i] / left_out[i]));
  }
  const std::vector<double> errors = {std::abs(left_out[0] - 0.7) / 0.7, std::abs(left_out[1] - 0.72) / 0.72,
                                      std::abs(1.0 / left_out[2] - 1.0 / 0.75) / (1.0 / 0.75)};
  CHECK(*c.speed.max_error == Approx(*std::max_element(errors.begin(), errors.end())));
  CHECK(*c.speed.band_low == Approx(std::exp(std::min(0.0, *std::min_element(logs.begin(), logs.end())))));
  CHECK(*c.speed.band_high == Approx(std::exp(*std::max_element(logs.begin(), logs.end()))));
}

TEST_CASE("a fit no better than the model on the left-out measurements is not applied", "[calibrate]") {
  const Catalog catalog = load_embedded_catalog();
  const ModelCatalog models = load_embedded_models();
  std::vector<MeasuredRun> runs = parse_measurements(
      R"({"kind": "serving", "gpu": "h100-sxm5", "count": 1, "model": "llama-3.1-8b", "precision": "bf16", "concurrency": 16, "context": 2048, "output_tokens": 512, "output_tokens_per_s": 2000}
{"kind": "serving", "gpu": "h100-sxm5", "count": 1, "model": "llama-3.1-8b", "precision": "bf16", "concurrency": 32, "context": 2048, "output_tokens": 512, "output_tokens_per_s": 3500}
)",
      "two.jsonl", catalog, models);
  const std::vector<Calibration> first = calibrate(runs, "2026-12-07");
  runs[0].measurement.output_tokens_per_s = first[0].provenance[0].figures[0].before * 0.8;
  runs[1].measurement.output_tokens_per_s = first[0].provenance[1].figures[0].before;
  const Calibration c = calibrate(runs, "2026-12-07").at(0);
  // The model is off by 25% on one and right on the other; each predicted
  // from the other is off by 25% and 20%.
  CHECK(*c.speed.model_error == Approx(0.125));
  CHECK(*c.speed.median_error == Approx(0.225));
  CHECK_FALSE(c.speed.applied);
  CHECK(c.speed.factor == 1.0);
  CHECK_FALSE(c.speed.band_low.has_value());
  for (const auto& p : c.provenance) {
    CHECK(p.figures[0].after == p.figures[0].before);
  }
}

TEST_CASE("a serving figure far below the card's roofline is refused, not fitted", "[calibrate]") {
  const Catalog catalog = load_embedded_catalog();
  const ModelCatalog models = load_embedded_models();
  // Eager Hugging Face decoding: 17 tokens/s at batch 1 for an 8B on an H200 (docs/validation.md).
  const std::vector<MeasuredRun> runs = parse_measurements(
      R"({"kind": "serving", "gpu": "h200-sxm", "count": 1, "model": "llama-3.1-8b", "precision": "bf16", "concurrency": 1, "context": 2047, "output_tokens": 2046, "output_tokens_per_s": 17})",
      "eager.jsonl", catalog, models);
  const Calibration c = calibrate(runs, "2026-12-07").at(0);
  CHECK(c.measurements == 0);
  CHECK(c.speed.fitted_on == 0);
  CHECK(c.speed.factor == 1.0);
  const CalibrationProvenance& p = c.provenance.at(0);
  CHECK(p.refused == CalibrationProvenance::Refusal::below_bound);
  CHECK(p.bound_share < 0.3);
  // About 16 GB read a step at 4.8 TB/s: some 300 tokens/s at batch 1.
  CHECK(p.bound_tokens_per_s == Approx(4800e9 / 16.06e9).epsilon(0.05));
}

TEST_CASE("a calibration changes the estimates of its card and stack, and nothing else", "[calibrate]") {
  const Catalog catalog = load_embedded_catalog();
  const ModelCatalog models = load_embedded_models();
  std::vector<MeasuredRun> runs = training_runs(catalog, models);
  const std::vector<Calibration> first = calibrate(runs, "2026-12-07");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    runs[i].measurement.tokens_per_s = 0.5 * first[0].provenance[i].figures[0].before;
    runs[i].measurement.peak_memory_gib =
        first[0].provenance[i].figures[1].before + 3.0 + 0.01 * static_cast<double>(i);
  }
  const std::vector<Calibration> calibration = calibrate(runs, "2026-12-07");
  const ModelShape& model = models.resolve("llama-3.1-8b");
  Request plain;
  plain.params = model.params;
  plain.task = Task::lora;
  plain.count = 1;
  Request calibrated = plain;
  calibrated.calibrations = calibration;

  const GpuSpec& h200 = catalog.resolve("h200-sxm");
  const Estimate before = estimate(plain, model, h200);
  const Estimate after = estimate(calibrated, model, h200);
  REQUIRE(after.calibration == std::optional<std::size_t>(0));
  CHECK_FALSE(before.calibration);
  CHECK(after.training->tokens_per_s_per_gpu.typical ==
        Approx(0.5 * before.training->tokens_per_s_per_gpu.typical).epsilon(1e-3));
  CHECK(after.per_gpu.calibration == Approx(3.0 * bytes_per_gib).epsilon(0.01));
  CHECK(after.per_gpu.total() == Approx(before.per_gpu.total() + after.per_gpu.calibration));
  // The band is the calibration's: its measurements predicted each other exactly.
  CHECK(after.training->tokens_per_s_per_gpu.low == Approx(after.training->tokens_per_s_per_gpu.typical));

  // Another card, another stack, serving: as modelled.
  const GpuSpec& h100 = catalog.resolve("h100-sxm5");
  const Estimate other_card = estimate(calibrated, model, h100);
  CHECK_FALSE(other_card.calibration);
  CHECK(other_card.training->tokens_per_s_per_gpu.typical ==
        estimate(plain, model, h100).training->tokens_per_s_per_gpu.typical);
  Request torchtune = calibrated;
  torchtune.stack = Stack::torchtune;
  Request torchtune_plain = plain;
  torchtune_plain.stack = Stack::torchtune;
  CHECK(estimate(torchtune, model, h200).per_gpu.total() == estimate(torchtune_plain, model, h200).per_gpu.total());
  Request serving = calibrated;
  serving.task = Task::inference;
  Request serving_plain = plain;
  serving_plain.task = Task::inference;
  const Estimate served = estimate(serving, model, h200);
  CHECK_FALSE(served.calibration);
  CHECK(served.inference->tokens_per_s.typical == estimate(serving_plain, model, h200).inference->tokens_per_s.typical);
}

TEST_CASE("the calibration file reads back what calibrate wrote, and its problems are located", "[calibrate]") {
  const Catalog catalog = load_embedded_catalog();
  const ModelCatalog models = load_embedded_models();
  const std::vector<Calibration> written = calibrate(training_runs(catalog, models), "2026-12-07");
  const std::string text = write_calibration_file(written, "gpu-advise test");
  const std::vector<Calibration> read = parse_calibration_file(text, "cal.yaml", catalog);
  REQUIRE(read.size() == 1);
  CHECK(read[0].file == "cal.yaml");
  CHECK(read[0].gpu == written[0].gpu);
  CHECK(read[0].key == written[0].key);
  CHECK(read[0].speed.factor == Approx(written[0].speed.factor).epsilon(1e-5));
  CHECK(read[0].speed.applied == written[0].speed.applied);
  CHECK(read[0].memory.offset_gib == Approx(written[0].memory.offset_gib).epsilon(1e-5));
  CHECK(read[0].provenance.size() == written[0].provenance.size());
  CHECK(read[0].provenance[2].what == written[0].provenance[2].what);
  CHECK(read[0].provenance[2].figures.size() == 2);

  std::string bad = text;
  bad.replace(bad.find("stack: hf"), 9, "stack: hff");
  try {
    (void)parse_calibration_file(bad, "cal.yaml", catalog);
    FAIL("a misspelt stack was accepted");
  } catch (const DataError& e) {
    REQUIRE(e.diagnostics().size() == 1);
    CHECK(e.diagnostics()[0].file == "cal.yaml");
    CHECK(e.diagnostics()[0].line == 9);
    CHECK_THAT(e.diagnostics()[0].message, Catch::Contains("hff"));
  }
}

TEST_CASE("records name models by preset or config.json (relative to their file), as JSON Lines or CSV",
          "[calibrate]") {
  const Catalog catalog = load_embedded_catalog();
  const ModelCatalog models = load_embedded_models();
  const std::string folder = std::string(GPU_ADVISE_TEST_DATA) + "/calibration/";
  const std::vector<MeasuredRun> runs = parse_measurements(
      "kind,gpu,count,model_config,task,seq_len,micro_batch,recompute,optimizer,lora_rank,lora_targets,tokens_per_s\n"
      "training,H200 SXM,1,../hf-configs/qwen2.5-7b.json,lora,2048,1,none,adamw,8,\"q,v\",4000\n",
      folder + "mine.csv", catalog, models);
  REQUIRE(runs.size() == 1);
  const Measurement& m = runs[0].measurement;
  CHECK(m.gpu == "h200-sxm");
  CHECK(m.origin == folder + "mine.csv:2");
  CHECK(runs[0].model.layers == 28);
  CHECK(m.lora_targets == std::vector<LoraTarget>{LoraTarget::q, LoraTarget::v});
  CHECK(m.key() == "hf");
  CHECK(measurement_flags(m) ==
        "--model-config ../hf-configs/qwen2.5-7b.json --gpu h200-sxm --count 1 --task lora --seq-len 2048 "
        "--micro-batch 1 --recompute none --optimizer adamw --stack hf --lora-rank 8 --lora-targets q,v");
}

TEST_CASE("a factor the measurements do not fix, or one beyond any stack, is not applied", "[calibrate]") {
  const Catalog catalog = load_embedded_catalog();
  const ModelCatalog models = load_embedded_models();
  // 64 A100s under ZeRO-3 with DeepSpeed: a step bound by its all-gathers,
  // measured 50 times slower than modelled.
  const std::vector<MeasuredRun> runs = parse_measurements(
      R"({"kind": "training", "gpu": "a100-80gb-sxm4", "count": 64, "zero_stage": 3, "tp": 1, "model": "llama-3.1-8b", "task": "full", "seq_len": 2048, "micro_batch": 1, "recompute": "full", "optimizer": "adamw", "stack": "deepspeed", "tokens_per_s": 1000}
{"kind": "training", "gpu": "h200-sxm", "count": 1, "model": "llama-3.2-1b", "task": "full", "seq_len": 2048, "micro_batch": 1, "recompute": "none", "optimizer": "adamw", "stack": "hf", "tokens_per_s": 1}
)",
      "odd.jsonl", catalog, models);
  for (const Calibration& c : calibrate(runs, "2026-12-07")) {
    INFO(c.gpu);
    CHECK_FALSE(c.speed.applied);
    CHECK(c.speed.factor == 1.0);
    CHECK(c.provenance[0].figures[0].after == c.provenance[0].figures[0].before);
  }

  // A calibration file edited to say so is not applied either.
  Calibration edited;
  edited.gpu = "h200-sxm";
  edited.key = "hf";
  edited.measurements = 3;
  edited.speed.factor = 2.0;
  edited.speed.fitted_on = 3;
  edited.speed.applied = false;
  edited.speed.band_low = 0.5;
  edited.speed.band_high = 2.0;
  const ModelShape& model = models.resolve("llama-3.1-8b");
  Request plain;
  plain.params = model.params;
  plain.task = Task::lora;
  plain.count = 1;
  Request with = plain;
  with.calibrations = {edited};
  const GpuSpec& h200 = catalog.resolve("h200-sxm");
  CHECK(estimate(with, model, h200).training->tokens_per_s_per_gpu.low ==
        estimate(plain, model, h200).training->tokens_per_s_per_gpu.low);
}

TEST_CASE("a serving figure above a dense model's roofline is refused", "[calibrate]") {
  const Catalog catalog = load_embedded_catalog();
  const ModelCatalog models = load_embedded_models();
  const std::vector<MeasuredRun> runs = parse_measurements(
      R"({"kind": "serving", "gpu": "h100-sxm5", "count": 1, "model": "llama-3.1-8b", "precision": "bf16", "concurrency": 1, "context": 2048, "output_tokens": 1024, "output_tokens_per_s": 1000})",
      "fast.jsonl", catalog, models);
  const Calibration c = calibrate(runs, "2026-12-07").at(0);
  CHECK(c.provenance.at(0).refused == CalibrationProvenance::Refusal::above_bound);
  CHECK(c.provenance.at(0).bound_share > 1.05);
  CHECK(c.speed.fitted_on == 0);
}

TEST_CASE("every published set's calibration reads back as it was written", "[calibrate]") {
  const Catalog catalog = load_embedded_catalog();
  const ModelCatalog models = load_embedded_models();
  for (const char* name : {"torchtitan-h100.jsonl", "torchtune-4090.jsonl", "litgpt-a10g.jsonl"}) {
    INFO(name);
    const std::vector<Calibration> written = calibrate(
        load_measurements(std::string(GPU_ADVISE_TEST_DATA) + "/calibration/" + name, catalog, models), "2026-12-07");
    const std::vector<Calibration> read =
        parse_calibration_file(write_calibration_file(written, "gpu-advise test"), "back.yaml", catalog);
    REQUIRE(read.size() == written.size());
    CHECK(read[0].speed.applied == written[0].speed.applied);
    CHECK(read[0].memory.applied == written[0].memory.applied);
    CHECK(read[0].speed.band_high.has_value() == written[0].speed.band_high.has_value());
    CHECK(read[0].provenance.size() == written[0].provenance.size());
  }
}
