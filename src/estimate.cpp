#include "gpu_advise/estimate.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpu_advise/units.hpp"

namespace gpu_advise {

namespace {

// Model FLOPs utilisation, low / typical / high. Llama 2's published GPU-hours
// imply about 0.45 on A100 with attention FLOPs counted; Llama 3 405B reports
// 0.38-0.43 on H100. Fine-tunes run smaller batches and sit lower.
constexpr Range mfu_full_training{0.30, 0.42, 0.52};
constexpr Range mfu_adapter_training{0.25, 0.35, 0.45};
// Multipliers on MFU when the job leaves the scale-up domain.
constexpr double scale_out_factor = 0.85;  // several NVLink/HCCS nodes over InfiniBand/RoCE
constexpr double pcie_factor = 0.70;       // several GPUs with no NVLink between them
// Decode: share of peak memory bandwidth reached; prefill / large-batch
// share of peak compute.
constexpr Range decode_bandwidth_efficiency{0.60, 0.72, 0.85};
constexpr double decode_compute_efficiency = 0.50;

Range scale(const Range& r, double factor) { return {r.low * factor, r.typical * factor, r.high * factor}; }

// Activations per GPU for one micro-batch with full activation recompute
// (gradient checkpointing) and flash attention: the bf16 input of every layer
// is kept (2*s*b*h bytes per layer), one layer's working set is rebuilt during
// backward (34*s*b*h bytes, Korthikanti et al. arXiv 2205.05198 without the
// 5as/h attention term that flash attention removes), plus fp32 logits
// (4*s*b*V bytes).
double training_activations(const Request& request, const ModelShape& model) {
  const double sbh = static_cast<double>(request.seq_len) * request.micro_batch * model.hidden;
  const double checkpoints = 2.0 * sbh * model.layers;
  const double working_layer = 34.0 * sbh;
  const double logits = 4.0 * request.seq_len * request.micro_batch * static_cast<double>(model.vocab);
  return checkpoints + working_layer + logits;
}

std::string layout_for(const Request& request, const GpuSpec& gpu, int count) {
  if (count == 1) {
    return "1 GPU";
  }
  switch (request.task) {
    case Task::pretrain:
    case Task::full: return fmt::format("ZeRO-3 / FSDP data parallel over {} GPUs", count);
    case Task::lora:
    case Task::qlora: return fmt::format("frozen base sharded over {} GPUs (FSDP), adapters data parallel", count);
    case Task::inference: {
      const int domain = gpu.interconnect.domain_size;
      if (count <= domain || domain < 2) {
        return fmt::format("tensor parallel {}", count);
      }
      return fmt::format("tensor parallel {} x pipeline parallel {}", domain, (count + domain - 1) / domain);
    }
  }
  return {};
}

}  // namespace

std::vector<int> candidate_counts(int max_gpus) {
  std::vector<int> counts;
  for (int n : {1, 2, 4}) {
    if (n <= max_gpus) {
      counts.push_back(n);
    }
  }
  for (int n = constants::gpus_per_node; n <= max_gpus; n += constants::gpus_per_node) {
    counts.push_back(n);
  }
  return counts;
}

MemoryBreakdown memory_per_gpu(const Request& request, const ModelShape& model, int count) {
  const double n = count;
  const double params = request.params;
  MemoryBreakdown m;
  switch (request.task) {
    case Task::pretrain:
    case Task::full: {
      // Mixed-precision AdamW: bf16 weights 2 + bf16 gradients 2 + fp32 master,
      // m and v 12 bytes per parameter, fully sharded (ZeRO-3, arXiv 1910.02054).
      m.weights = 2.0 * params / n;
      m.gradients = 2.0 * params / n;
      m.optimizer = 12.0 * params / n;
      if (count > 1) {
        m.weights += 2.0 * 2.0 * model.params_per_layer();  // two layers gathered (current + prefetch)
      }
      m.activations = training_activations(request, model);
      m.reserve = constants::training_reserve_gib * bytes_per_gib;
      break;
    }
    case Task::lora:
    case Task::qlora: {
      const double adapters = model.lora_params(request.lora_rank);
      double base = 2.0 * params;  // frozen bf16 base
      if (request.task == Task::qlora) {
        // NF4 with double quantisation for the blocks, bf16 embeddings and LM
        // head (Dettmers et al., arXiv 2305.14314).
        const double embeddings = std::min(model.embedding_params(), params);
        base = constants::bytes_nf4_with_double_quant * (params - embeddings) + 2.0 * embeddings;
      }
      m.weights = (base + 4.0 * adapters) / n;
      m.gradients = 4.0 * adapters / n;
      m.optimizer = 8.0 * adapters / n;
      m.activations = training_activations(request, model);
      m.reserve = constants::training_reserve_gib * bytes_per_gib;
      break;
    }
    case Task::inference: {
      m.weights = 2.0 * params / n;  // bf16
      // KV heads split across tensor-parallel ranks; beyond g ranks they repeat.
      const double shards = std::min(n, static_cast<double>(std::max(model.kv_heads, 1)));
      m.kv_cache = model.kv_bytes_per_token(2.0) * request.context * request.concurrency / shards;
      m.reserve = constants::inference_reserve_gib * bytes_per_gib;
      break;
    }
  }
  return m;
}

Estimate estimate(const Request& request, const ModelShape& model, const GpuSpec& gpu) {
  Estimate e;
  e.capacity_bytes = gpu.memory.capacity_gib * bytes_per_gib;
  e.usable_bytes = e.capacity_bytes * constants::usable_memory_fraction;

  const std::vector<int> counts = request.count ? std::vector<int>{*request.count} : candidate_counts(request.max_gpus);
  for (const int n : counts) {
    e.count = n;
    e.per_gpu = memory_per_gpu(request, model, n);
    if (e.per_gpu.total() <= e.usable_bytes) {
      e.fits = true;
      break;
    }
  }
  if (!e.fits) {
    const double need_gib = e.per_gpu.total() / bytes_per_gib;
    const double usable_gib = e.usable_bytes / bytes_per_gib;
    if (request.count) {
      e.why_not = fmt::format("with --count {} it needs {:.1f} GiB per GPU; the card has {:.1f} GiB usable", e.count,
                              need_gib, usable_gib);
    } else if (e.per_gpu.activations + e.per_gpu.kv_cache + e.per_gpu.reserve > e.usable_bytes) {
      e.why_not = fmt::format(
          "activations, KV cache and runtime reserve alone need {:.1f} GiB per GPU, more than the {:.1f} GiB usable",
          (e.per_gpu.activations + e.per_gpu.kv_cache + e.per_gpu.reserve) / bytes_per_gib, usable_gib);
    } else {
      e.why_not = fmt::format("needs more than {} GPUs ({:.1f} GiB per GPU at {}; {:.1f} GiB usable)",
                              request.max_gpus, need_gib, e.count, usable_gib);
    }
    return e;
  }

  e.nodes = (e.count + constants::gpus_per_node - 1) / constants::gpus_per_node;
  e.layout = layout_for(request, gpu, e.count);
  const int domain = gpu.interconnect.domain_size;
  double scale_factor = 1.0;
  if (e.count > 1 && domain < 2) {
    scale_factor = pcie_factor;
    e.notes.push_back(fmt::format("no NVLink: {} GPUs exchange data over PCIe", e.count));
  } else if (e.count > domain) {
    scale_factor = domain <= 2 ? pcie_factor : scale_out_factor;
    e.notes.push_back(fmt::format("{} GPUs exceed the {}-GPU {} domain: traffic crosses slower links", e.count, domain,
                                  gpu.interconnect.name));
  }

  const auto price = price_range(gpu.rent_usd_per_gpu_hour, Region::global);
  e.cost.rent_usd_per_gpu_hour = price;
  if (const auto purchase = price_range(gpu.purchase_usd_per_card, Region::global)) {
    e.cost.purchase_usd = scale(*purchase, e.count);
  }
  const double peak_flops = gpu.compute.bf16_tflops * 1e12;

  if (is_training(request.task)) {
    TrainingEstimate t;
    t.tokens = request.training_tokens();
    // 6*N*D plus attention 12*L*(a*d_h)*s per token (PaLM, arXiv 2204.02311 app. B);
    // LoRA skips the frozen weights' gradient GEMMs: two thirds of that.
    const double per_token = 6.0 * request.params +
                             12.0 * model.layers * static_cast<double>(model.heads) * model.head_dim * request.seq_len;
    t.flops = per_token * t.tokens;
    Range mfu = mfu_full_training;
    if (request.task == Task::lora || request.task == Task::qlora) {
      t.flops *= 2.0 / 3.0;
      mfu = mfu_adapter_training;
      if (request.task == Task::qlora) {
        t.flops *= constants::qlora_slowdown;  // dequantisation work, counted as extra FLOPs
      }
    }
    t.mfu = scale(mfu, scale_factor);
    auto hours = [&](double m) { return t.flops / (peak_flops * m) / 3600.0; };
    t.gpu_hours = {hours(t.mfu.high), hours(t.mfu.typical), hours(t.mfu.low)};
    t.wall_hours = scale(t.gpu_hours, 1.0 / e.count);
    if (price) {
      e.cost.rent_usd = Range{t.gpu_hours.low * price->low, t.gpu_hours.typical * price->typical,
                              t.gpu_hours.high * price->high};
    }
    e.training = t;
  } else {
    InferenceEstimate inf;
    inf.concurrency = request.concurrency;
    inf.context = request.context;
    // Decode is bandwidth-bound at small batch: each step reads the weights and
    // the KV cache once; at large batch it becomes compute-bound.
    const double bytes_per_step = e.per_gpu.weights + e.per_gpu.kv_cache;
    const double compute_step =
        2.0 * request.params * request.concurrency / (e.count * peak_flops * decode_compute_efficiency);
    auto step_s = [&](double efficiency) {
      return std::max(bytes_per_step / (gpu.memory.bandwidth_gb_per_s * 1e9 * efficiency), compute_step);
    };
    const double slow = step_s(decode_bandwidth_efficiency.low);
    const double typical = step_s(decode_bandwidth_efficiency.typical);
    const double fast = step_s(decode_bandwidth_efficiency.high);
    inf.tokens_per_s = {request.concurrency / slow, request.concurrency / typical, request.concurrency / fast};
    inf.tpot_ms = {fast * 1e3, typical * 1e3, slow * 1e3};
    if (price) {
      const Range per_hour = scale(*price, e.count);
      e.cost.rent_usd = per_hour;
      e.cost.usd_per_million_tokens =
          Range{per_hour.low / (inf.tokens_per_s.high * 3600.0) * 1e6,
                per_hour.typical / (inf.tokens_per_s.typical * 3600.0) * 1e6,
                per_hour.high / (inf.tokens_per_s.low * 3600.0) * 1e6};
    }
    e.inference = inf;
  }
  return e;
}

}  // namespace gpu_advise
