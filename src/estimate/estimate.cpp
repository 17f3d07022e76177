#include "gpu_advise/estimate.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpu_advise/units.hpp"

namespace gpu_advise {

std::span<const EnumName<PriceBasis>> names(PriceBasis) {
  static constexpr EnumName<PriceBasis> table[] = {{PriceBasis::catalog_quotes, "catalog quotes"},
                                                   {PriceBasis::user_price, "--price"}};
  return table;
}

namespace {

Range scale(const Range& r, double factor) { return {r.low * factor, r.typical * factor, r.high * factor}; }
Range multiply(const Range& a, const Range& b) { return {a.low * b.low, a.typical * b.typical, a.high * b.high}; }

// ---- parallel efficiency (docs/methodology.md §4) ----
//
// The architectures' MFU ranges come from large, well-tuned multi-node runs
// that already pay for tensor, pipeline and data parallelism on 600-900 GB/s
// NVLink. Only departures from that norm cost more: a slower scale-up link
// under tensor parallelism, and several GPUs with no NVLink between them.

constexpr double norm_link_gb_per_s = 600.0;  // A100 NVLink 3, the calibration runs' fabric

double tensor_parallel_factor(int tp, double link_gb_per_s) {
  if (tp <= 1) {
    return 1.0;
  }
  const double loss = tp <= 2 ? 0.03 : tp <= 4 ? 0.06 : 0.10;  // share of step time in TP collectives at the norm
  const double slowdown = std::max(0.0, norm_link_gb_per_s / std::max(link_gb_per_s, 1.0) - 1.0);
  return std::max(0.5, 1.0 - loss * slowdown);
}

struct ScaleOut {
  double factor = 1.0;
  std::optional<EstimateNote> note;
};

ScaleOut scale_out(const GpuSpec& gpu, int count) {
  const int domain = gpu.interconnect.domain_size;
  if (count <= 1 || count <= domain) {
    return {};
  }
  if (domain < 2) {
    return {0.70, EstimateNote{EstimateNote::Kind::pcie_scale_out, count, 0}};
  }
  if (domain == 2) {
    return {0.75, EstimateNote{EstimateNote::Kind::pair_scale_out, count, 0}};
  }
  return {1.0, EstimateNote{EstimateNote::Kind::multi_node, count, (count + domain - 1) / domain}};
}

// Decode reaches less of the peak bandwidth with quantised weights: the
// kernels dequantise as they read (gpt-fast int8/int4 on A100, docs/validation.md).
double decode_precision_factor(InferencePrecision precision) {
  switch (precision) {
    case InferencePrecision::bf16:
    case InferencePrecision::fp8: return 1.0;
    case InferencePrecision::int8: return 0.95;
    case InferencePrecision::int4: return 0.70;
  }
  return 1.0;
}

// ---- memory ----

double reserve_bytes(Task task) {
  return (is_training(task) ? constants::training_reserve_gib : constants::inference_reserve_gib) * bytes_per_gib;
}

// Activations per GPU for one micro-batch (Korthikanti et al., arXiv 2205.05198):
// per layer 34*s*b*h bytes with flash attention / selective recompute, plus
// 5*a*s^2*b bytes of attention scores without; sequence parallelism divides by
// t. 1F1B keeps p micro-batches in flight on the first stage, each of L/p
// layers: L layers' worth. Full recompute keeps only each layer's input.
double training_activations(const Request& request, const ModelShape& model, const Layout& layout) {
  const double s = request.seq_len;
  const double b = request.micro_batch;
  const double h = model.hidden;
  const double t = layout.tensor;
  const double sbh = s * b * h;
  const Recompute recompute = layout.recompute.value_or(request.effective_recompute());
  double per_layer = 0;
  switch (recompute) {
    case Recompute::none: per_layer = sbh * (34.0 + 5.0 * model.heads * s / h) / t; break;
    case Recompute::selective: per_layer = 34.0 * sbh / t; break;
    case Recompute::full: per_layer = 2.0 * sbh / t; break;
  }
  double total = per_layer * model.layers;
  if (recompute == Recompute::full) {
    total += 34.0 * sbh / t;  // one layer rebuilt during backward
  }
  total += 4.0 * s * b * model.vocab / t;  // FP32 logits, vocabulary-parallel
  return total;
}

}  // namespace

double weight_bytes(const Request& request, const ModelShape& model) {
  double block_bytes = 2.0;
  switch (request.precision) {
    case InferencePrecision::bf16: return 2.0 * model.params;
    case InferencePrecision::fp8: return 1.0 * model.params;
    case InferencePrecision::int8: block_bytes = constants::bytes_int8_weight; break;
    case InferencePrecision::int4: block_bytes = constants::bytes_int4_weight; break;
  }
  // Weight-only quantisation (GPTQ, AWQ) leaves the embeddings and LM head in BF16.
  const double embeddings = std::min(model.embedding_params(), model.params);
  return block_bytes * (model.params - embeddings) + 2.0 * embeddings;
}

std::optional<double> plan_cost_usd(const Request& request, const Estimate& estimate) {
  if (request.mode == CostMode::buy) {
    return estimate.cost.purchase_usd ? std::optional<double>(estimate.cost.purchase_usd->typical) : std::nullopt;
  }
  if (!estimate.cost.rent_usd) {
    return std::nullopt;
  }
  return estimate.training ? estimate.cost.rent_usd->typical : estimate.cost.rent_usd->typical * 730.0;
}

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

MemoryBreakdown memory_per_gpu(const Request& request, const ModelShape& model, const Layout& layout) {
  const double params = model.params;
  const double t = layout.tensor;
  const double p = layout.pipeline;
  const double d = layout.data;
  MemoryBreakdown m;
  m.reserve = reserve_bytes(request.task);
  switch (request.task) {
    case Task::pretrain:
    case Task::full: {
      // Mixed-precision AdamW: BF16 weights 2 + BF16 gradients 2 + FP32 master,
      // m and v 12 bytes per parameter (ZeRO, arXiv 1910.02054), split by TP x PP
      // and sharded over DP by the ZeRO stage.
      const double shard = params / (t * p);
      const int z = layout.zero_stage;
      const TrainingBytes bytes = training_bytes(request.optimizer);
      m.weights = bytes.weights * shard / (z >= 3 ? d : 1.0);
      m.gradients = bytes.gradients * shard / (z >= 2 ? d : 1.0);
      m.optimizer = bytes.optimizer * shard / (z >= 1 ? d : 1.0);
      if (z >= 3 && d > 1) {
        m.weights += 2.0 * 2.0 * model.params_per_layer() / t;  // two layers gathered: current + prefetch
      }
      m.activations = training_activations(request, model, layout);
      break;
    }
    case Task::lora:
    case Task::qlora: {
      std::vector<int> targets;
      for (const LoraTarget target : request.lora_targets) {
        targets.push_back(static_cast<int>(target));
      }
      const double adapters = model.lora_params(request.lora_rank, targets);
      double base_bytes_per_param = 2.0;  // frozen BF16 base
      double base = 2.0 * params;
      if (request.task == Task::qlora) {
        // NF4 with double quantisation for the blocks, BF16 embeddings and LM
        // head (Dettmers et al., arXiv 2305.14314).
        const double embeddings = std::min(model.embedding_params(), params);
        base_bytes_per_param = constants::bytes_nf4_with_double_quant;
        base = base_bytes_per_param * (params - embeddings) + 2.0 * embeddings;
      }
      // Adapters train in FP32 with mixed-precision AdamW (PEFT's default):
      // 4 + 4 + 8 bytes; pure BF16 halves that; 8-bit Adam stores 2 bytes of moments.
      const TrainingBytes adapter_bytes = request.optimizer == Optimizer::adamw_bf16   ? TrainingBytes{2, 2, 4}
                                          : request.optimizer == Optimizer::adamw_8bit ? TrainingBytes{4, 4, 2}
                                                                                       : TrainingBytes{4, 4, 8};
      // FSDP (ZeRO-3) shards the frozen base and the adapter states over the
      // GPUs and gathers two layers at a time; plain data parallelism replicates them.
      const bool sharded = layout.zero_stage >= 3 && d > 1;
      const double shards = sharded ? d : 1.0;
      m.weights = (base + adapter_bytes.weights * adapters) / shards;
      if (sharded) {
        m.weights += 2.0 * base_bytes_per_param * model.params_per_layer();
      }
      m.gradients = adapter_bytes.gradients * adapters / shards;
      m.optimizer = adapter_bytes.optimizer * adapters / shards;
      m.activations = training_activations(request, model, layout);
      break;
    }
    case Task::inference: {
      m.weights = weight_bytes(request, model) / (t * p);
      // KV heads split across tensor-parallel ranks up to g; MLA's latent is
      // not split by heads. Pipeline stages each hold their layers' cache.
      const double kv_split = (model.mla ? 1.0 : std::min(t, static_cast<double>(std::max(model.kv_heads, 1)))) * p;
      const double kv_value_bytes = request.kv_precision == KvPrecision::fp8 ? 1.0 : 2.0;
      m.kv_cache = model.kv_bytes(request.context, kv_value_bytes) * request.concurrency / kv_split;
      break;
    }
  }
  return m;
}

namespace {

// ---- layouts ----

std::vector<int> powers_of_two_up_to(int limit) {
  std::vector<int> out;
  for (int v = 1; v <= limit; v *= 2) {
    out.push_back(v);
  }
  return out;
}

struct Candidate {
  Layout layout;
  MemoryBreakdown memory;
  double efficiency = 0;
};

// How good a layout is: its MFU factor, then (for ties) less model parallelism
// and a lower ZeRO stage, which move less data.
double layout_efficiency(const GpuSpec& gpu, const Layout& layout, Task task) {
  double factor = tensor_parallel_factor(layout.tensor, gpu.interconnect.bandwidth_gb_per_s);
  // training_mfu is calibrated on runs with selective recompute; full recompute
  // repeats the forward pass (fine_tune_mfu already assumes it).
  if ((task == Task::pretrain || task == Task::full) && layout.recompute == Recompute::full) {
    factor *= constants::full_recompute_factor;
  }
  return factor;
}

double layout_preference(const GpuSpec& gpu, const Layout& layout, Task task) {
  return layout_efficiency(gpu, layout, task) - 1e-3 * (layout.tensor * layout.pipeline) - 1e-4 * layout.zero_stage;
}

std::vector<Layout> parallel_layouts(const Request& request, const ModelShape& model, const GpuSpec& gpu, int count);

// Every layout of `count` GPUs the request allows on this card. Training
// without --recompute tries the task's norm first, then full recompute.
std::vector<Layout> layouts_for(const Request& request, const ModelShape& model, const GpuSpec& gpu, int count) {
  std::vector<Layout> base = parallel_layouts(request, model, gpu, count);
  if (!is_training(request.task)) {
    return base;
  }
  std::vector<Recompute> modes{request.effective_recompute()};
  if (!request.recompute && request.effective_recompute() != Recompute::full) {
    modes.push_back(Recompute::full);
  }
  std::vector<Layout> out;
  for (const Recompute mode : modes) {
    for (Layout layout : base) {
      layout.recompute = mode;
      out.push_back(layout);
    }
  }
  return out;
}

std::vector<Layout> parallel_layouts(const Request& request, const ModelShape& model, const GpuSpec& gpu, int count) {
  std::vector<Layout> out;
  const int domain = std::max(1, gpu.interconnect.domain_size);
  if (request.task == Task::inference) {
    // Tensor parallel inside the scale-up domain (over PCIe for cards without
    // one, up to 8), pipeline across domains.
    const int tp_limit = domain >= 2 ? domain : 8;
    const int tp = std::min(count, tp_limit);
    if (count % tp == 0) {
      out.push_back(Layout{tp, count / tp, 1, 0, std::nullopt});
    }
    return out;
  }
  if (request.task == Task::lora || request.task == Task::qlora) {
    const std::vector<int> stages = request.zero_stage ? std::vector<int>{*request.zero_stage} : std::vector<int>{0, 3};
    for (const int z : stages) {
      out.push_back(Layout{1, 1, count, count == 1 ? 0 : z, std::nullopt});
    }
    return out;
  }
  const std::vector<int> stages = request.zero_stage ? std::vector<int>{*request.zero_stage} : std::vector<int>{1, 3};
  for (const int tp : powers_of_two_up_to(std::min({domain, count, 8}))) {
    if (model.heads % tp != 0) {
      continue;
    }
    for (const int pp : powers_of_two_up_to(std::min(count / tp, model.layers))) {
      if (count % (tp * pp) != 0) {
        continue;
      }
      const int dp = count / (tp * pp);
      for (const int z : stages) {
        if (!request.zero_stage && tp * pp > 1 && z == 3) {
          continue;  // with model parallelism the distributed optimizer (ZeRO-1) is the norm
        }
        out.push_back(Layout{tp, pp, dp, dp == 1 ? std::min(z, request.zero_stage.value_or(0)) : z, std::nullopt});
      }
    }
  }
  return out;
}

std::optional<Candidate> best_fitting(const Request& request, const ModelShape& model, const GpuSpec& gpu, int count,
                                      double usable, MemoryBreakdown* smallest) {
  std::optional<Candidate> best;
  for (const Layout& layout : layouts_for(request, model, gpu, count)) {
    const MemoryBreakdown memory = memory_per_gpu(request, model, layout);
    if (smallest != nullptr && (smallest->total() == 0 || memory.total() < smallest->total())) {
      *smallest = memory;
    }
    if (memory.total() > usable) {
      continue;
    }
    const double efficiency = layout_preference(gpu, layout, request.task);
    if (!best || efficiency > best->efficiency + 1e-12) {
      best = Candidate{layout, memory, efficiency};
    }
  }
  return best;
}

// The parallel layouts of a full-training job, without their data-parallel
// size: tensor x pipeline x ZeRO stage x recompute.
std::vector<Layout> training_families(const Request& request, const ModelShape& model, const GpuSpec& gpu) {
  const int domain = std::max(1, gpu.interconnect.domain_size);
  const std::vector<int> stages = request.zero_stage ? std::vector<int>{*request.zero_stage} : std::vector<int>{1, 3};
  std::vector<Recompute> modes{request.effective_recompute()};
  if (!request.recompute && request.effective_recompute() != Recompute::full) {
    modes.push_back(Recompute::full);
  }
  std::vector<Layout> out;
  for (const int tp : powers_of_two_up_to(std::min({domain, request.max_gpus, 8}))) {
    if (model.heads % tp != 0) {
      continue;
    }
    for (const int pp : powers_of_two_up_to(std::min(request.max_gpus / tp, model.layers))) {
      for (const int z : stages) {
        if (!request.zero_stage && tp * pp > 1 && z == 3) {
          continue;  // with model parallelism the distributed optimizer (ZeRO-1) is the norm
        }
        for (const Recompute mode : modes) {
          out.push_back(Layout{tp, pp, 0, z, mode});
        }
      }
    }
  }
  return out;
}

// The counts a family can use, in order: multiples of its model-parallel size
// among 1, 2, 4, 8, 16, 24, ... up to max_gpus.
class FamilyCounts {
 public:
  FamilyCounts(int unit, int max_gpus) : m_step(std::max(8, unit)) {
    for (int n = unit; n <= 4 && n <= max_gpus; n *= 2) {
      m_small.push_back(n);
    }
    m_size = m_small.size() + static_cast<std::size_t>(max_gpus >= m_step ? max_gpus / m_step : 0);
  }
  [[nodiscard]] std::size_t size() const { return m_size; }
  [[nodiscard]] int operator[](std::size_t k) const {
    return k < m_small.size() ? m_small[k] : m_step * static_cast<int>(k - m_small.size() + 1);
  }

 private:
  int m_step;
  std::vector<int> m_small;
  std::size_t m_size = 0;
};

// ---- time and throughput ----

TrainingEstimate training_time(const Request& request, const ModelShape& model, const GpuSpec& gpu,
                               const Layout& layout, const ScaleOut& out, std::vector<EstimateNote>& notes) {
  TrainingEstimate t;
  t.tokens = request.training_tokens();
  // 6*N_active*D plus attention 12*L*(a*d_h)*s per token (PaLM, arXiv 2204.02311 app. B).
  const double per_token = 6.0 * model.active_params + model.attention_training_flops_per_token(request.seq_len);
  t.flops = per_token * t.tokens;
  Range mfu = gpu.efficiency.training_mfu;
  if (request.task == Task::lora || request.task == Task::qlora) {
    t.flops *= 2.0 / 3.0;  // no weight gradients for the frozen base
    mfu = gpu.efficiency.fine_tune_mfu;
    if (request.task == Task::qlora) {
      t.flops *= constants::qlora_slowdown;  // dequantisation, counted as extra work
    }
  }
  t.peak_tflops = gpu.compute.bf16_tflops;
  if (request.fp8_training) {
    if (gpu.compute.fp8_tflops) {
      t.fp8 = true;
      t.peak_tflops = *gpu.compute.fp8_tflops;
      mfu = scale(mfu, constants::fp8_mfu_factor);
    } else {
      notes.push_back(EstimateNote{EstimateNote::Kind::fp8_fallback, 0, 0});
    }
  }
  t.mfu = scale(mfu, layout_efficiency(gpu, layout, request.task) * out.factor);
  auto hours = [&](double m) { return t.flops / (t.peak_tflops * 1e12 * m) / 3600.0; };
  t.gpu_hours = {hours(t.mfu.high), hours(t.mfu.typical), hours(t.mfu.low)};
  t.wall_hours = scale(t.gpu_hours, 1.0 / layout.gpus());
  return t;
}

double inference_peak_tflops(const Request& request, const GpuSpec& gpu) {
  if (request.precision == InferencePrecision::fp8 && gpu.compute.fp8_tflops) {
    return *gpu.compute.fp8_tflops;
  }
  return gpu.compute.bf16_tflops;  // weight-only INT8/INT4 compute in BF16
}

// Seconds per decode step for `batch` sequences, at bandwidth efficiency `eta`.
double decode_step_s(const Request& request, const ModelShape& model, const GpuSpec& gpu, const Layout& layout,
                     const MemoryBreakdown& memory, double batch, double eta) {
  const double kv_value_bytes = request.kv_precision == KvPrecision::fp8 ? 1.0 : 2.0;
  // Average tokens in a sequence's cache while it decodes: the prompt plus half the output.
  const double average_tokens = request.prompt_tokens() + request.effective_output_tokens() / 2.0;
  const double kv_split =
      (model.mla ? 1.0 : std::min<double>(layout.tensor, std::max(model.kv_heads, 1))) * layout.pipeline;
  const double kv_read = model.kv_bytes(average_tokens, kv_value_bytes) * batch / kv_split;
  const double memory_s = (memory.weights + kv_read) /
                          (gpu.memory.bandwidth_gb_per_s * 1e9 * eta * decode_precision_factor(request.precision));
  const double compute_s = 2.0 * model.active_params * batch /
                           (static_cast<double>(layout.gpus()) * inference_peak_tflops(request, gpu) * 1e12 *
                            gpu.efficiency.prefill_compute.typical);
  // Two all-reduces per layer under tensor parallelism: latency-bound at small batch.
  const double allreduce_s = gpu.interconnect.domain_size >= 2 ? 8e-6 : 25e-6;
  const double comm_s = layout.tensor > 1 ? 2.0 * model.layers / layout.pipeline * allreduce_s : 0.0;
  // Pipeline stages run one after another for a token.
  return layout.pipeline * (std::max(memory_s, compute_s) + comm_s);
}

InferenceEstimate inference_performance(const Request& request, const ModelShape& model, const GpuSpec& gpu,
                                        const Layout& layout, const MemoryBreakdown& memory, double usable) {
  InferenceEstimate inf;
  inf.concurrency = request.concurrency;
  inf.context = request.context;
  inf.prompt_tokens = request.prompt_tokens();
  inf.output_tokens = request.effective_output_tokens();
  const double per_sequence = memory.kv_cache / std::max(request.concurrency, 1);
  const double free_bytes = usable - memory.weights - memory.reserve;
  inf.max_concurrency = per_sequence > 0 ? static_cast<int>(std::floor(free_bytes / per_sequence)) : 0;
  inf.max_concurrency = std::max(inf.max_concurrency, request.concurrency);

  const Range& eta = gpu.efficiency.decode_bandwidth;
  auto throughput = [&](double batch) {
    const double slow = decode_step_s(request, model, gpu, layout, memory, batch, eta.low);
    const double typical = decode_step_s(request, model, gpu, layout, memory, batch, eta.typical);
    const double fast = decode_step_s(request, model, gpu, layout, memory, batch, eta.high);
    return std::pair<Range, Range>{Range{batch / slow, batch / typical, batch / fast},
                                   Range{fast * 1e3, typical * 1e3, slow * 1e3}};
  };
  std::tie(inf.tokens_per_s, inf.tpot_ms) = throughput(request.concurrency);
  inf.max_tokens_per_s = throughput(inf.max_concurrency).first;

  // Prefill of one prompt: 2*N_active FLOPs per token plus causal attention
  // 2*L*(a*d_h)*prompt^2, compute-bound over the tensor-parallel group.
  const double prompt = request.prompt_tokens();
  const double width =
      model.mla ? static_cast<double>(model.heads) * (model.mla->qk_nope_head_dim + model.mla->qk_rope_head_dim)
                : static_cast<double>(model.heads) * model.head_dim;
  const double flops = 2.0 * model.active_params * prompt + 2.0 * model.layers * width * prompt * prompt;
  const double peak = inference_peak_tflops(request, gpu) * 1e12 * layout.tensor;
  const double read_s = memory.weights * layout.pipeline / (gpu.memory.bandwidth_gb_per_s * 1e9 * eta.typical);
  const Range& c = gpu.efficiency.prefill_compute;
  auto ttft = [&](double efficiency) { return std::max(flops / (peak * efficiency), read_s) * 1e3; };
  inf.ttft_ms = {ttft(c.high), ttft(c.typical), ttft(c.low)};
  return inf;
}

// ---- cost ----

std::optional<Range> rent_price(const Request& request, const GpuSpec& gpu, PriceBasis& basis) {
  for (const auto& override_price : request.prices) {
    if (override_price.gpu_id == gpu.id) {
      basis = PriceBasis::user_price;
      const double usd = override_price.usd_per_gpu_hour;
      return Range{usd, usd, usd};
    }
  }
  basis = PriceBasis::catalog_quotes;
  return price_range(gpu.rent_usd_per_gpu_hour, request.region);
}

void add_costs(const Request& request, const GpuSpec& gpu, Estimate& e) {
  CostEstimate& c = e.cost;
  c.rent_usd_per_gpu_hour = rent_price(request, gpu, c.price_basis);
  const double n = e.count;
  if (const auto purchase = price_range(gpu.purchase_usd_per_card, request.region)) {
    c.purchase_usd = scale(*purchase, n);
  }
  const OwnershipCosts& own = request.ownership;
  // Energy: TDP x utilisation x PUE x hours x $/kWh.
  const double kw = gpu.tdp_w.value_or(0) * n * own.utilisation * own.pue / 1000.0;
  const double amortisation_hours = own.amortisation_years * 8760.0;
  constexpr double hours_per_month = 730.0;

  if (e.training) {
    const Range& wall = e.training->wall_hours;
    if (c.rent_usd_per_gpu_hour) {
      c.rent_usd = multiply(e.training->gpu_hours, *c.rent_usd_per_gpu_hour);
    }
    if (c.purchase_usd && gpu.tdp_w) {
      c.energy_usd = kw * wall.typical * own.usd_per_kwh;
      c.buy_usd = Range{c.purchase_usd->low * wall.low / amortisation_hours + kw * wall.low * own.usd_per_kwh,
                        c.purchase_usd->typical * wall.typical / amortisation_hours + *c.energy_usd,
                        c.purchase_usd->high * wall.high / amortisation_hours + kw * wall.high * own.usd_per_kwh};
    }
    return;
  }
  if (!e.inference) {
    return;
  }
  const Range& tps = e.inference->tokens_per_s;
  auto per_million = [&](const Range& per_hour) {
    return Range{per_hour.low / (tps.high * 3600.0) * 1e6, per_hour.typical / (tps.typical * 3600.0) * 1e6,
                 per_hour.high / (tps.low * 3600.0) * 1e6};
  };
  std::optional<Range> rent_per_hour;
  std::optional<Range> own_per_hour;
  if (c.rent_usd_per_gpu_hour) {
    rent_per_hour = scale(*c.rent_usd_per_gpu_hour, n);
    c.rent_usd = rent_per_hour;
  }
  if (c.purchase_usd && gpu.tdp_w) {
    c.energy_usd = kw * hours_per_month * own.usd_per_kwh;
    const double energy_per_hour = kw * own.usd_per_kwh;
    own_per_hour = Range{c.purchase_usd->low / amortisation_hours + energy_per_hour,
                         c.purchase_usd->typical / amortisation_hours + energy_per_hour,
                         c.purchase_usd->high / amortisation_hours + energy_per_hour};
    c.buy_usd = scale(*own_per_hour, hours_per_month);
  }
  const auto& basis = request.mode == CostMode::rent ? rent_per_hour : own_per_hour;
  if (basis) {
    c.usd_per_million_tokens = per_million(*basis);
  }
}

}  // namespace

Estimate estimate(const Request& request, const ModelShape& model, const GpuSpec& gpu) {
  Estimate e;
  e.capacity_bytes = gpu.memory.capacity_gib * bytes_per_gib;
  e.usable_bytes = e.capacity_bytes * constants::usable_memory_fraction;
  const double usable_gib = e.usable_bytes / bytes_per_gib;

  if (request.task == Task::inference && request.precision == InferencePrecision::fp8 && !gpu.compute.fp8_tflops) {
    e.why_not.kind = Shortfall::Kind::no_fp8;
    return e;
  }

  // The smallest count that fits (and meets the deadline). Fitting and
  // finishing in time only get easier with more GPUs, so the search doubles
  // through the candidate counts, then bisects.
  const std::vector<int> counts = request.count ? std::vector<int>{*request.count} : candidate_counts(request.max_gpus);
  const std::optional<double> deadline = request.effective_deadline_hours();
  struct Probe {
    std::optional<Candidate> candidate;
    MemoryBreakdown smallest;
    std::optional<TrainingEstimate> too_slow;
  };
  auto probe = [&](int n) {
    Probe result;
    result.candidate = best_fitting(request, model, gpu, n, e.usable_bytes, &result.smallest);
    if (result.candidate && deadline && is_training(request.task)) {
      std::vector<EstimateNote> scratch;
      const TrainingEstimate t =
          training_time(request, model, gpu, result.candidate->layout, scale_out(gpu, n), scratch);
      if (t.wall_hours.typical > *deadline) {
        result.too_slow = t;
        result.candidate.reset();
      }
    }
    return result;
  };
  std::optional<Candidate> chosen;
  Probe last;
  int last_count = 0;
  const bool full_training = request.task == Task::pretrain || request.task == Task::full;
  if (full_training && !request.count) {
    // Per family (TP x PP x ZeRO x recompute) memory falls and speed rises with
    // the data-parallel size, so each family bisects to its smallest count; the
    // smallest over the families wins, then the better layout.
    auto check = [&](const Layout& family, int n, Probe* out_probe) {
      Layout layout = family;
      layout.data = n / (family.tensor * family.pipeline);
      if (layout.data == 1) {
        layout.zero_stage = std::min(layout.zero_stage, request.zero_stage.value_or(0));
      }
      const MemoryBreakdown memory = memory_per_gpu(request, model, layout);
      if (out_probe != nullptr && (out_probe->smallest.total() == 0 || memory.total() < out_probe->smallest.total())) {
        out_probe->smallest = memory;
      }
      if (memory.total() > e.usable_bytes) {
        return std::optional<Candidate>{};
      }
      if (deadline) {
        std::vector<EstimateNote> scratch;
        const TrainingEstimate t = training_time(request, model, gpu, layout, scale_out(gpu, n), scratch);
        if (t.wall_hours.typical > *deadline) {
          if (out_probe != nullptr &&
              (!out_probe->too_slow || t.wall_hours.typical < out_probe->too_slow->wall_hours.typical)) {
            out_probe->too_slow = t;
          }
          return std::optional<Candidate>{};
        }
      }
      return std::optional<Candidate>{Candidate{layout, memory, layout_preference(gpu, layout, request.task)}};
    };
    int best_count = 0;
    for (const Layout& family : training_families(request, model, gpu)) {
      const FamilyCounts family_counts(family.tensor * family.pipeline, request.max_gpus);
      if (family_counts.size() == 0) {
        continue;
      }
      std::size_t high = family_counts.size() - 1;
      if (!check(family, family_counts[high], &last)) {
        last_count = family_counts[high];
        continue;
      }
      std::size_t low = 0;
      while (low < high) {
        const std::size_t middle = low + (high - low) / 2;
        if (check(family, family_counts[middle], nullptr)) {
          high = middle;
        } else {
          low = middle + 1;
        }
      }
      const int n = family_counts[high];
      const auto candidate = check(family, n, nullptr);
      if (!chosen || n < best_count || (n == best_count && candidate->efficiency > chosen->efficiency)) {
        chosen = candidate;
        best_count = n;
      }
    }
    e.count = best_count;
  } else if (!counts.empty()) {
    std::size_t low = 0;  // counts[low - 1] is known to fail (or low == 0)
    std::size_t high = counts.size();
    std::size_t step = 1;
    std::size_t index = 0;
    while (index < counts.size()) {  // gallop
      Probe p = probe(counts[index]);
      if (p.candidate) {
        high = index;
        break;
      }
      last = p;
      last_count = counts[index];
      low = index + 1;
      index += step;
      step *= 2;
    }
    if (high == counts.size() && low < counts.size()) {
      Probe p = probe(counts.back());  // the largest allowed: the last chance, and the reason if it fails
      if (p.candidate) {
        high = counts.size() - 1;
      } else {
        last = p;
        last_count = counts.back();
      }
    }
    if (high < counts.size()) {
      while (low < high) {  // bisect: counts[high] works
        const std::size_t middle = low + (high - low) / 2;
        if (probe(counts[middle]).candidate) {
          high = middle;
        } else {
          low = middle + 1;
        }
      }
      chosen = probe(counts[high]).candidate;
      e.count = counts[high];
    }
  }
  MemoryBreakdown smallest = last.smallest;
  const std::optional<TrainingEstimate> missed_deadline = last.too_slow;
  const int missed_count = last_count;

  if (!chosen) {
    Shortfall& why = e.why_not;
    why.need_gib = smallest.total() / bytes_per_gib;
    why.usable_gib = usable_gib;
    why.fixed_gib = (smallest.activations + smallest.kv_cache + smallest.reserve) / bytes_per_gib;
    why.max_gpus = request.count.value_or(request.max_gpus);
    why.count = request.count.value_or(counts.empty() ? 0 : counts.back());
    if (missed_deadline) {
      why.kind = Shortfall::Kind::deadline;
      why.count = missed_count;
      why.deadline_hours = deadline.value_or(0);
      why.hours_at_count = missed_deadline->wall_hours.typical;
    } else if (request.count) {
      why.kind = Shortfall::Kind::count_too_small;
    } else if (why.fixed_gib > usable_gib) {
      why.kind = Shortfall::Kind::activations;
    } else {
      why.kind = Shortfall::Kind::too_many_gpus;
    }
    e.per_gpu = smallest;
    return e;
  }

  e.fits = true;
  e.layout = chosen->layout;
  e.per_gpu = chosen->memory;
  e.nodes = (e.count + constants::gpus_per_node - 1) / constants::gpus_per_node;
  if (is_training(request.task)) {
    const ScaleOut out = scale_out(gpu, e.count);
    if (out.note) {
      e.notes.push_back(*out.note);
    }
    e.training = training_time(request, model, gpu, e.layout, out, e.notes);
  } else {
    e.inference = inference_performance(request, model, gpu, e.layout, e.per_gpu, e.usable_bytes);
    if (e.layout.tensor > 1 && gpu.interconnect.domain_size < 2) {
      e.notes.push_back(EstimateNote{EstimateNote::Kind::tp_over_pcie, e.layout.tensor, 0});
    }
  }
  add_costs(request, gpu, e);
  return e;
}

}  // namespace gpu_advise
