// Published measurements that gpu-advise's estimates are checked against
// (docs/validation.md). Each case states every condition of the published run;
// the estimate is computed with exactly those conditions. Sources are in
// docs/validation.md; the research notes behind them list the quotes.
#pragma once

#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpu_advise/catalog.hpp"
#include "gpu_advise/estimate.hpp"
#include "gpu_advise/model.hpp"
#include "gpu_advise/units.hpp"

namespace gpu_advise::validation {

enum class Metric {
  gpu_hours,       // training: typical GPU-hours; the published figure must lie in [low, high]
  peak_memory_gb,  // fine-tuning: memory per GPU less the runtime reserve (what torch.cuda.max_memory_allocated sees),
                   // GB
  kv_bytes,        // serving: KV-cache bytes for the stated tokens (exact arithmetic)
  tokens_per_s,    // decode: typical output tokens/s; the published figure must lie in [low, high]
};

struct Case {
  std::string id;
  std::string kind;        // "training", "fine-tune memory", "serving memory", "decode"
  std::string conditions;  // what the published run did, as the estimate is set up
  std::string source;
  double published = 0;        // in the unit of the metric (GB for memory, bytes for KV)
  std::string published_text;  // as the source states it
  Metric metric = Metric::gpu_hours;
  double tolerance = 0;  // relative
  std::string model;     // preset id, or empty for `params`
  double params = 0;     // inferred shape when `model` is empty
  std::string gpu;       // catalog id
  std::function<void(Request&)> setup;
  double kv_tokens = 0;  // kv_bytes cases
};

struct Result {
  const Case* c = nullptr;
  double estimate = 0;
  std::optional<Range> range;
  double error = 0;  // (estimate - published) / published
  bool within_tolerance = false;
  bool inside_range = true;
};

inline std::vector<Case> cases() {
  constexpr double gib = 1073741824.0;
  std::vector<Case> list;
  auto training = [&](std::string id, std::string model, double params, std::string gpu, double tokens, int seq,
                      int count, double published, std::string text, std::string conditions, std::string source,
                      bool fp8 = false) {
    Case c;
    c.id = std::move(id);
    c.kind = "training";
    c.model = std::move(model);
    c.params = params;
    c.gpu = std::move(gpu);
    c.metric = Metric::gpu_hours;
    c.tolerance = 0.30;
    c.published = published;
    c.published_text = std::move(text);
    c.conditions = std::move(conditions);
    c.source = std::move(source);
    c.setup = [=](Request& r) {
      r.task = Task::pretrain;
      r.tokens = tokens;
      r.seq_len = seq;
      r.count = count;
      r.max_gpus = count;
      r.fp8_training = fp8;
    };
    list.push_back(c);
  };
  // ---- training GPU-hours (±30%) ----
  training("llama2-7b-pretrain-a100", "llama-2-7b", 0, "a100-80gb-sxm4", 2e12, 4096, 2048, 184320, "184,320 GPU-hours",
           "Llama 2 7B, 2.0T tokens, seq 4096, BF16, A100-80GB",
           "Llama 2 model card (meta-llama/llama-models models/llama2/MODEL_CARD.md); arXiv 2307.09288 table 52");
  training("llama2-13b-pretrain-a100", "llama-2-13b", 0, "a100-80gb-sxm4", 2e12, 4096, 2048, 368640,
           "368,640 GPU-hours", "Llama 2 13B, 2.0T tokens, seq 4096, BF16, A100-80GB", "Llama 2 model card");
  training("llama2-70b-pretrain-a100", "llama-2-70b", 0, "a100-80gb-sxm4", 2e12, 4096, 2048, 1720320,
           "1,720,320 GPU-hours", "Llama 2 70B (GQA), 2.0T tokens, seq 4096, BF16, A100-80GB", "Llama 2 model card");
  training("llama1-65b-pretrain-a100", "", 65.2e9, "a100-80gb-sxm4", 1.4e12, 2048, 2048, 1022362, "1,022,362 GPU-hours",
           "LLaMA 65.2B (shape inferred), 1.4T tokens, seq 2048, 2048 x A100-80GB",
           "LLaMA paper, arXiv 2302.13971, table 15 and section 2.4");
  training("llama1-7b-pretrain-a100", "", 6.7e9, "a100-80gb-sxm4", 1e12, 2048, 2048, 82432, "82,432 GPU-hours",
           "LLaMA 6.7B (shape inferred), 1.0T tokens, seq 2048, A100-80GB", "LLaMA paper, arXiv 2302.13971, table 15");
  training("bloom-176b-pretrain-a100", "", 176.247e9, "a100-80gb-sxm4", 366e9, 2048, 384, 1082990,
           "1,082,990 GPU-hours", "BLOOM 176B (shape inferred), 366B tokens, seq 2048, 384 x A100-80GB",
           "BLOOM paper, arXiv 2211.05100, section 3.4.1; arXiv 2211.02001 table 1");
  training("llama31-405b-pretrain-h100", "llama-3.1-405b", 0, "h100-sxm5", 15e12, 8192, 16384, 30.84e6,
           "30.84M GPU-hours", "Llama 3.1 405B, ~15T tokens, seq 8192, BF16, 16,384 x H100-80GB",
           "Llama 3.1 model card (meta-llama/llama-models models/llama3_1/MODEL_CARD.md)");
  training("deepseek-v3-pretrain-h800", "deepseek-v3", 0, "h800-sxm", 14.8e12, 4096, 2048, 2.664e6,
           "2,664K H800 GPU-hours (pre-training)",
           "DeepSeek-V3, 671B total / 37B active (MLA), 14.8T tokens, FP8 mixed precision, 2048 x H800",
           "DeepSeek-V3 technical report, arXiv 2412.19437, table 1", true);
  training("llama31-70b-pretrain-h100", "llama-3.1-70b", 0, "h100-sxm5", 15e12, 8192, 8192, 7.0e6, "7.0M GPU-hours",
           "Llama 3.1 70B, ~15T tokens, seq 8192, BF16, H100-80GB (card's total may include later stages)",
           "Llama 3.1 model card");
  training("falcon-180b-pretrain-a100", "", 180e9, "a100-40gb-sxm4", 3.5e12, 2048, 4096, 7.0e6, "~7,000,000 GPU-hours",
           "Falcon 180B (shape inferred), 3.5T tokens, up to 4096 x A100-40GB",
           "Hugging Face blog 'Spread Your Wings: Falcon 180B is here' (2023-09)");
  training("mpt-7b-pretrain-a100", "", 6.7e9, "a100-40gb-sxm4", 1e12, 2048, 440, 100320,
           "440 x A100-40GB for about 9.5 days (= 100,320 GPU-hours)",
           "MPT-7B (shape inferred), 1T tokens, seq 2048, 440 x A100-40GB", "mosaicml/mpt-7b model card");

  // ---- fine-tuning peak memory (±15%) ----
  auto memory = [&](std::string id, std::string model, std::string gpu, double published_gb, std::string text,
                    std::string conditions, std::string source, std::function<void(Request&)> setup) {
    Case c;
    c.id = std::move(id);
    c.kind = "fine-tune memory";
    c.model = std::move(model);
    c.gpu = std::move(gpu);
    c.metric = Metric::peak_memory_gb;
    c.tolerance = 0.15;
    c.published = published_gb;
    c.published_text = std::move(text);
    c.conditions = std::move(conditions);
    c.source = std::move(source);
    c.setup = std::move(setup);
    list.push_back(c);
  };
  memory("llama2-7b-lora-litgpt", "llama-2-7b", "a100-40gb-sxm4", 19.77, "19.77 GB",
         "LoRA r32 on q,v; micro-batch 2, seq <= 512; bf16-true, AdamW; no checkpointing (SDPA); 1 GPU",
         "Lightning-AI/litgpt config_hub/finetune/README.md", [](Request& r) {
           r.task = Task::lora;
           r.lora_rank = 32;
           r.lora_targets = {LoraTarget::q, LoraTarget::v};
           r.micro_batch = 2;
           r.seq_len = 512;
           r.recompute = Recompute::selective;
           r.optimizer = Optimizer::adamw_bf16;
           r.count = 1;
         });
  memory("llama3-8b-lora-litgpt", "llama-3.1-8b", "a100-40gb-sxm4", 19.73, "19.73 GB",
         "Llama 3 8B (same shape as 3.1 8B), LoRA r32 on q,v; micro-batch 1, seq <= 512; bf16-true; no checkpointing",
         "Lightning-AI/litgpt config_hub/finetune/README.md", [](Request& r) {
           r.task = Task::lora;
           r.lora_rank = 32;
           r.lora_targets = {LoraTarget::q, LoraTarget::v};
           r.micro_batch = 1;
           r.seq_len = 512;
           r.recompute = Recompute::selective;
           r.optimizer = Optimizer::adamw_bf16;
           r.count = 1;
         });
  memory("llama31-70b-lora-torchtune", "llama-3.1-70b", "a100-80gb-sxm4", 27.6 * gib / 1e9, "27.6 GiB per GPU",
         "LoRA r16 on q,v,o,gate,up,down; FSDP over 8 x A100-80GB; batch 2, packed seq 2048; activation "
         "checkpointing; pure BF16 AdamW",
         "pytorch/torchtune README, Llama 3.1 memory table (2024-09)", [](Request& r) {
           r.task = Task::lora;
           r.lora_rank = 16;
           r.lora_targets = {LoraTarget::q,    LoraTarget::v,  LoraTarget::o,
                             LoraTarget::gate, LoraTarget::up, LoraTarget::down};
           r.micro_batch = 2;
           r.seq_len = 2048;
           r.recompute = Recompute::full;
           r.optimizer = Optimizer::adamw_bf16;
           r.count = 8;
           r.zero_stage = 3;
         });

  // ---- serving memory: KV cache (exact, ±1%) ----
  auto kv = [&](std::string id, std::string model, double tokens, double published, std::string text,
                std::string conditions, std::string source) {
    Case c;
    c.id = std::move(id);
    c.kind = "serving memory";
    c.model = std::move(model);
    c.gpu = "a100-80gb-sxm4";
    c.metric = Metric::kv_bytes;
    c.tolerance = 0.01;
    c.published = published;
    c.published_text = std::move(text);
    c.conditions = std::move(conditions);
    c.source = std::move(source);
    c.kv_tokens = tokens;
    c.setup = [](Request& r) { r.task = Task::inference; };
    list.push_back(c);
  };
  kv("opt13b-kv-per-token", "opt-13b", 1, 800.0 * 1024, "800 KB per token",
     "OPT-13B (40 layers, hidden 5120, MHA), FP16 KV cache", "vLLM paper, arXiv 2309.06180, section 3");
  kv("llama31-8b-kv-1k", "llama-3.1-8b", 1024, 0.125 * gib, "0.125 GiB per 1k tokens",
     "Llama 3.1 8B (GQA, 8 KV heads), FP16 KV cache, 1024 tokens", "Hugging Face blog llama31.md (2024-07)");
  kv("llama31-70b-kv-128k", "llama-3.1-70b", 128000, 39.06 * gib, "39.06 GiB at 128k tokens",
     "Llama 3.1 70B (GQA, 8 KV heads), FP16 KV cache, 128,000 tokens", "Hugging Face blog llama31.md (2024-07)");

  // ---- decode throughput at small batch (±35%) ----
  auto decode = [&](std::string id, std::string model, std::string gpu, double published, std::string text,
                    std::string conditions, std::string source, std::function<void(Request&)> setup) {
    Case c;
    c.id = std::move(id);
    c.kind = "decode";
    c.model = std::move(model);
    c.gpu = std::move(gpu);
    c.metric = Metric::tokens_per_s;
    c.tolerance = 0.35;
    c.published = published;
    c.published_text = std::move(text);
    c.conditions = std::move(conditions);
    c.source = std::move(source);
    c.setup = std::move(setup);
    list.push_back(c);
  };
  auto single = [](int count, InferencePrecision precision, int prompt, int output, int batch = 1) {
    return [=](Request& r) {
      r.task = Task::inference;
      r.count = count;
      r.precision = precision;
      r.concurrency = batch;
      r.output_tokens = output;
      r.context = prompt + output;
    };
  };
  decode("llama2-7b-bs1-gptfast", "llama-2-7b", "a100-80gb-sxm4", 104.9, "104.9 tokens/s",
         "BF16, batch 1, 5-token prompt, 200 new tokens, 1 x A100-80GB (330 W cap)", "pytorch-labs/gpt-fast README",
         single(1, InferencePrecision::bf16, 5, 200));
  decode("llama2-7b-bs1-lmdeploy", "llama-2-7b", "a100-80gb-sxm4", 100.02, "100.02 output tokens/s",
         "FP16, batch 1, 1-token prompt, 128 output, 1 x A100-80GB", "InternLM/lmdeploy docs/en/benchmark/a100_fp16.md",
         single(1, InferencePrecision::bf16, 1, 128));
  decode("llama2-13b-bs1-lmdeploy", "llama-2-13b", "a100-80gb-sxm4", 57.49, "57.49 output tokens/s",
         "FP16, batch 1, 1-token prompt, 128 output, 1 x A100-80GB", "InternLM/lmdeploy docs/en/benchmark/a100_fp16.md",
         single(1, InferencePrecision::bf16, 1, 128));
  decode("llama2-70b-tp4-bs1-lmdeploy", "llama-2-70b", "a100-80gb-sxm4", 33.94, "33.94 output tokens/s",
         "FP16, tensor parallel 4, batch 1, 1-token prompt, 128 output, 4 x A100-80GB",
         "InternLM/lmdeploy docs/en/benchmark/a100_fp16.md", single(4, InferencePrecision::bf16, 1, 128));
  decode("llama2-70b-tp8-bs1-gptfast", "llama-2-70b", "a100-80gb-sxm4", 62.50, "62.50 tokens/s",
         "BF16, tensor parallel 8, batch 1, 5-token prompt, 8 x A100-80GB (330 W cap)", "pytorch-labs/gpt-fast README",
         single(8, InferencePrecision::bf16, 5, 200));
  decode("llama2-70b-int8-bs1-gptfast", "llama-2-70b", "a100-80gb-sxm4", 19.13, "19.13 tokens/s",
         "INT8 weight-only, batch 1, 5-token prompt, 1 x A100-80GB", "pytorch-labs/gpt-fast README",
         single(1, InferencePrecision::int8, 5, 200));
  decode("llama2-7b-int4-bs1-gptfast", "llama-2-7b", "a100-80gb-sxm4", 196.80, "196.80 tokens/s",
         "INT4 weight-only (group 32), batch 1, 5-token prompt, 1 x A100-80GB", "pytorch-labs/gpt-fast README",
         single(1, InferencePrecision::int4, 5, 200));
  decode("llama2-7b-bs16-lmdeploy", "llama-2-7b", "a100-80gb-sxm4", 1272.47, "1272.47 output tokens/s",
         "FP16, batch 16, 128-token prompt, 128 output (prefill included in the figure), 1 x A100-80GB",
         "InternLM/lmdeploy docs/en/benchmark/a100_fp16.md", single(1, InferencePrecision::bf16, 128, 128, 16));
  return list;
}

// OPT-13B is not a preset; its shape from the vLLM paper / its config.json.
inline ModelShape opt_13b() {
  ModelShape m;
  m.id = "opt-13b";
  m.name = m.basis = "OPT-13B";
  m.source = ModelSource::preset;
  m.layers = 40;
  m.hidden = 5120;
  m.heads = 40;
  m.kv_heads = 40;
  m.head_dim = 128;
  m.ffn = 20480;
  m.vocab = 50272;
  m.params = m.active_params = 12.85e9;
  return m;
}

inline Result evaluate(const Case& c, const Catalog& catalog, const ModelCatalog& models) {
  Result result;
  result.c = &c;
  const ModelShape model = c.model == "opt-13b" ? opt_13b()
                           : c.model.empty()    ? infer_shape(c.params)
                                                : models.resolve(c.model);
  Request request;
  request.params = model.params;
  c.setup(request);
  const GpuSpec& gpu = catalog.resolve(c.gpu);
  switch (c.metric) {
    case Metric::kv_bytes: result.estimate = model.kv_bytes(c.kv_tokens, 2.0); break;
    case Metric::gpu_hours: {
      const Estimate e = estimate(request, model, gpu);
      if (e.training) {
        result.estimate = e.training->gpu_hours.typical;
        result.range = e.training->gpu_hours;
      }
      break;
    }
    case Metric::peak_memory_gb: {
      const Estimate e = estimate(request, model, gpu);
      result.estimate = (e.per_gpu.total() - e.per_gpu.reserve) / 1e9;
      break;
    }
    case Metric::tokens_per_s: {
      const Estimate e = estimate(request, model, gpu);
      if (e.inference) {
        result.estimate = e.inference->tokens_per_s.typical;
        result.range = e.inference->tokens_per_s;
      }
      break;
    }
  }
  result.error = (result.estimate - c.published) / c.published;
  result.within_tolerance = std::abs(result.error) <= c.tolerance;
  if (result.range) {
    result.inside_range = result.range->low <= c.published && c.published <= result.range->high;
  }
  return result;
}

inline std::string format_value(double value, Metric metric) {
  switch (metric) {
    case Metric::gpu_hours:
      return value >= 1e6 ? fmt::format("{:.2f}M GPU-h", value / 1e6) : fmt::format("{:.0f}k GPU-h", value / 1e3);
    case Metric::peak_memory_gb: return fmt::format("{:.1f} GB", value);
    case Metric::kv_bytes:
      return value >= 1e8 ? fmt::format("{:.3f} GiB", value / 1073741824.0) : fmt::format("{:.0f} KiB", value / 1024.0);
    case Metric::tokens_per_s: return fmt::format("{:.1f} tok/s", value);
  }
  return "?";
}

// The table of docs/validation.md, between its markers.
inline std::string report_table(const Catalog& catalog, const ModelCatalog& models) {
  std::string out =
      "| case | kind | conditions | published | estimate (low - high) | error | tolerance | source |\n"
      "| --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const Case& c : cases()) {
    const Result r = evaluate(c, catalog, models);
    std::string estimate = format_value(r.estimate, c.metric);
    if (r.range) {
      estimate +=
          fmt::format(" ({} - {})", format_value(r.range->low, c.metric), format_value(r.range->high, c.metric));
    }
    out += fmt::format("| {} | {} | {} | {} | {} | {:+.0f}% | ±{:.0f}% | {} |\n", c.id, c.kind, c.conditions,
                       c.published_text, estimate, 100.0 * r.error, 100.0 * c.tolerance, c.source);
  }
  return out;
}

}  // namespace gpu_advise::validation
