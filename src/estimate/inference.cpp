// Serving: a continuous-batching engine in steady state (docs/methodology.md
// §5). Each step serves the running decodes plus their share of prefill; its
// time is the weights' matrix products, attention over the context held,
// tensor-parallel communication and a per-step overhead. The operating point
// is the largest batch that fits, the scheduler runs and the latency targets allow.
#include <algorithm>
#include <cmath>

#include "estimate/parts.hpp"

namespace gpu_advise {

std::span<const EnumName<InferenceEstimate::Point>> names(InferenceEstimate::Point) {
  using Point = InferenceEstimate::Point;
  static constexpr EnumName<Point> table[] = {
      {Point::targets, "targets"}, {Point::knee, "knee"}, {Point::concurrency, "concurrency"}};
  return table;
}

std::span<const EnumName<InferenceEstimate::Limit>> names(InferenceEstimate::Limit) {
  using Limit = InferenceEstimate::Limit;
  static constexpr EnumName<Limit> table[] = {
      {Limit::memory, "memory"}, {Limit::max_batch, "max_batch"}, {Limit::batched_tokens, "batched_tokens"}};
  return table;
}

}  // namespace gpu_advise

namespace gpu_advise::sizing {

namespace {

// Decode reaches less of the peak bandwidth with quantised weights: the
// kernels dequantise as they read (gpt-fast int8/int4 on A100, docs/validation.md).
double decode_precision_factor(InferencePrecision precision) {
  switch (precision) {
    case InferencePrecision::bf16:
    case InferencePrecision::fp8:
    case InferencePrecision::fp4: return 1.0;  // read natively by the tensor cores, no dequantising pass
    case InferencePrecision::int8: return 0.95;
    case InferencePrecision::int4: return 0.70;
  }
  return 1.0;
}

// The peak the matrix products run against: FP8 GEMMs reach a smaller share
// of their doubled peak, the engine's (fitted on its FP8 figures; else the
// factor training uses, docs/methodology.md §4 and §5).
double linear_peak_tflops(const Request& request, const GpuSpec& gpu) {
  const ServingEngine engine = request.engine.value_or(ServingEngine::vllm);
  if (request.precision == InferencePrecision::fp4 && gpu.compute.fp4_tflops) {
    // FP4 GEMMs taken to reach training's FP8 share of their peak (0.70),
    // for every engine (docs/methodology.md §5; TensorRT-LLM's FP4 rows check it).
    return std::max(*gpu.compute.fp4_tflops * fp8_mfu_factor, gpu.compute.bf16_tflops);
  }
  if (request.precision == InferencePrecision::fp8 && gpu.compute.fp8_tflops) {
    return std::max(*gpu.compute.fp8_tflops * engine_fp8_share(engine, gpu.software), gpu.compute.bf16_tflops);
  }
  return gpu.compute.bf16_tflops;  // weight-only INT8/INT4 compute in BF16
}

// One corner of the band: the efficiencies a step runs at.
struct Rates {
  double bandwidth = 0;  // share of peak memory bandwidth
  double compute = 0;    // share of dense peak
  double overhead_s = 0;
};

Rates corner(const GpuSpec& gpu, int k) {
  const Range& bw = gpu.efficiency.decode_bandwidth;
  const Range& c = gpu.efficiency.prefill_compute;
  switch (k) {
    case 0: return {bw.low, c.low, serving_step_overhead_s.high};
    case 1: return {bw.typical, c.typical, serving_step_overhead_s.typical};
    default: return {bw.high, c.high, serving_step_overhead_s.low};
  }
}

// The band of a serving plan's step times, as factors on the slow, typical
// and fast corners: the efficiencies' corners widened by the step model's own
// error on the fitting set (docs/validation.md); calibrated on three or more
// measurements, the typical widened by their leave-one-out extremes of
// measured over predicted speed.
struct Band {
  double widen[3] = {serving_model_error.high, 1.0, serving_model_error.low};
  bool measured = false;
};

Band serving_band(const Request& request, const GpuSpec& gpu) {
  Band band;
  const Calibration* c = serving_calibration(request, gpu);
  if (c != nullptr && c->speed.applied && c->speed.band_low && c->speed.band_high) {
    band.measured = true;
    band.widen[0] = 1.0 / *c->speed.band_low;
    band.widen[2] = 1.0 / *c->speed.band_high;
  }
  return band;
}

// The per-GPU work of one step, from the shapes; step times for any batch.
class StepModel {
 public:
  StepModel(const Request& request, const ModelShape& model, const GpuSpec& gpu, const Layout& layout,
            const MemoryBreakdown& memory)
      : m_model(model),
        m_gpu(gpu),
        m_tensor(layout.tensor),
        m_pipeline(layout.pipeline),
        m_gpus(static_cast<double>(layout.tensor) * layout.pipeline),
        m_prompt(request.prompt_tokens()),
        m_output(request.effective_output_tokens()),
        m_linear_peak(linear_peak_tflops(request, gpu) * 1e12),
        m_bandwidth(gpu.memory.bandwidth_gb_per_s * 1e9),
        m_precision_factor(decode_precision_factor(request.precision)),
        m_speed(engine_speed(request.engine.value_or(ServingEngine::vllm), gpu.software)) {
    if (const Calibration* c = serving_calibration(request, gpu); c != nullptr && c->speed.applied) {
      m_speed *= c->speed.factor;  // --calibration: the card and engine's measured speed
    }
    // Weights: the routed experts' share is read only where tokens go.
    const double shape = std::max(model.shape_params(), 1.0);
    m_expert_share = model.moe ? std::clamp(model.routed_expert_params() / shape, 0.0, 1.0) : 0.0;
    m_weights = memory.weights;
    if (layout.wide_expert() && model.moe) {
      // Wide expert parallelism: each GPU holds 1/E of the routed experts
      // and the rest whole; its experts take tokens from the group's E GPUs,
      // which dispatch them and combine the results over the fabric.
      const double routed = model.routed_expert_params() / layout.expert;
      m_expert_share = std::clamp(routed / std::max(shape - model.routed_expert_params() + routed, 1.0), 0.0, 1.0);
      m_expert_group = layout.expert;
      m_all_to_all = ExpertAllToAll(request, model, gpu, layout);
    }
    m_linear_params = std::max(model.active_params - model.embedding_params(), 0.0);
    m_moe_share = engine_moe_share(request.engine.value_or(ServingEngine::vllm), gpu.software);
    if (model.moe && model.moe->experts > 0) {
      m_routed_active =
          std::min(model.routed_expert_params() * model.moe->experts_per_token / model.moe->experts, m_linear_params);
    }
    // Attention width per query token and context token: QK^T and AV over the
    // heads; MLA decodes with the latent absorbed (2·kv_lora + rope per head)
    // and prefills expanded (nope + rope for QK, v for AV).
    if (model.mla) {
      const double heads = model.heads;
      m_decode_width = heads * (2.0 * model.mla->kv_lora_rank + model.mla->qk_rope_head_dim) / 2.0;
      m_prefill_width =
          heads * (model.mla->qk_nope_head_dim + model.mla->qk_rope_head_dim + model.mla->v_head_dim) / 2.0;
    } else {
      m_decode_width = m_prefill_width = static_cast<double>(model.heads) * model.head_dim;
    }
    m_kv_per_sequence = cache_bytes_per_gpu(request, model, layout, m_prompt + m_output / 2.0);
    // The collective's link: the scale-up fabric within its domain, else PCIe.
    const bool scale_up = gpu.interconnect.domain_size >= layout.tensor && gpu.interconnect.domain_size >= 2;
    m_link_latency_s = scale_up ? link_latency_s : pcie_latency_s;
    const double pcie = pcie_gb_per_s(gpu);
    m_link_bytes_per_s = (scale_up ? gpu.interconnect.bandwidth_gb_per_s / 2.0 : pcie) * 1e9 * link_efficiency;
    // Stage to stage: PCIe inside one server, the scale-out network (its Gb/s
    // per GPU, when known) when the model copy spans servers.
    const int server = std::max({1, gpu.node.gpus_per_node, gpu.interconnect.domain_size});
    const bool spans = layout.tensor * layout.pipeline > server;
    const double network_gb_per_s = gpu.node.scale_out_gbps_per_gpu > 0 ? gpu.node.scale_out_gbps_per_gpu / 8.0 : pcie;
    m_hop_bytes_per_s = (spans ? std::min(network_gb_per_s, pcie) : pcie) * 1e9 * link_efficiency;
  }

  // One steady-state step with `batch` running sequences: every one decodes a
  // token, and batch/output prompts (those that replace the finished) prefill.
  [[nodiscard]] double step_s(double batch, const Rates& r) const {
    const double prompts = batch / m_output;
    return (pipelined(batch + prompts * m_prompt, stage_s(batch, prompts, r)) + r.overhead_s) / m_speed;
  }
  // A decode-only step (a disaggregated decode pool: no prefill joins it).
  [[nodiscard]] double decode_step_s(double batch, const Rates& r) const {
    return (pipelined(batch, stage_s(batch, 0, r)) + r.overhead_s) / m_speed;
  }
  // A prefill-only step of `prompts` whole prompts (a disaggregated prefill pool).
  [[nodiscard]] double prefill_step_s(double prompts, const Rates& r) const {
    return (pipelined(prompts * m_prompt, stage_s(0, prompts, r)) + r.overhead_s) / m_speed;
  }
  // One prompt's prefill on its own.
  [[nodiscard]] double prefill_s(const Rates& r) const {
    return (pipelined(m_prompt, stage_s(0, 1, r)) + r.overhead_s) / m_speed;
  }

  // A token passes every pipeline stage in turn, and the activations of the
  // step's tokens hop from stage to stage over PCIe or the network.
  [[nodiscard]] double pipelined(double tokens, double stage) const {
    const double hop = pcie_latency_s + tokens * m_model.hidden * 2.0 / m_hop_bytes_per_s;
    return m_pipeline * stage + (m_pipeline - 1) * hop;
  }

  // Tokens in a steady-state step with `batch` running sequences.
  [[nodiscard]] double tokens_per_step(double batch) const { return batch * (1.0 + m_prompt / m_output); }

 private:
  // One pipeline stage's share: `decodes` sequences decoding a token and
  // `prompts` whole prompts prefilled.
  [[nodiscard]] double stage_s(double decodes, double prompts, const Rates& r) const {
    const double prefill_tokens = prompts * m_prompt;
    const double tokens = decodes + prefill_tokens;
    // Matrix products: the weights read once per step (MoE: the experts its
    // tokens are routed to), 2 FLOPs per parameter and token, logits for the
    // tokens sampled.
    double read = m_weights;
    if (m_expert_share > 0 && m_model.moe && m_model.moe->experts > 0) {
      const double k = static_cast<double>(m_model.moe->experts_per_token) / m_model.moe->experts;
      const double touched = 1.0 - std::pow(1.0 - std::clamp(k, 0.0, 1.0), tokens * m_expert_group);
      read = m_weights * (1.0 - m_expert_share + m_expert_share * touched);
    }
    const double sampled = decodes + prompts;
    // The routed experts' grouped products run at the engine's share of a
    // dense product's efficiency: their FLOPs count as more.
    const double linear_flops = (2.0 * (m_linear_params - m_routed_active + m_routed_active / m_moe_share) * tokens +
                                 2.0 * static_cast<double>(m_model.hidden) * m_model.vocab * sampled) /
                                m_gpus;
    // Between streaming the weights and running at full compute a product
    // reaches neither: the two times combine as a p-norm, not a maximum
    // (p fitted on the fitting set of docs/validation.md; p = infinity is the
    // plain roofline, p = 1 no overlap at all).
    const double read_s = read / (m_bandwidth * r.bandwidth * m_precision_factor);
    const double compute_s = linear_flops / (m_linear_peak * r.compute);
    const double p = gemm_overlap_norm;
    const double gemm_s = std::pow(std::pow(read_s, p) + std::pow(compute_s, p), 1.0 / p);
    // Attention: decodes over the average context held, prompts causally over themselves.
    const double context = m_prompt + m_output / 2.0;
    const double layers = m_model.attention_layers();  // linear-attention layers: in the linear FLOPs
    const double attention_flops = (4.0 * layers * m_decode_width * context * decodes +
                                    2.0 * layers * m_prefill_width * m_prompt * m_prompt * prompts) /
                                   m_gpus;
    const double kv_read = m_kv_per_sequence * decodes;
    const double attention_s = std::max(kv_read / (m_bandwidth * r.bandwidth),
                                        attention_flops / (m_gpu.compute.bf16_tflops * 1e12 * r.compute));
    // Tensor parallelism: two all-reduces of the step's activations per layer
    // (attention and MLP; under expert parallelism the experts' combine
    // moves the same volume), ring-style over the link.
    double comm_s = 0;
    if (m_tensor > 1) {
      const double bytes = tokens * m_model.hidden * 2.0;
      const double t = m_tensor;
      const double one = m_link_latency_s + 2.0 * (t - 1.0) / t * bytes / m_link_bytes_per_s;
      comm_s = 2.0 * layers / m_pipeline * one;
    }
    // Wide expert parallelism: each MoE layer's dispatch and combine, in
    // turn with the compute, as the engines run it by default (SGLang's
    // two-batch overlap and vLLM's dual-batch overlap, which hide part of it,
    // are options).
    if (m_expert_group > 1) {
      comm_s += m_all_to_all.step_s(tokens);
    }
    return gemm_s + attention_s + comm_s;
  }

  const ModelShape& m_model;
  const GpuSpec& m_gpu;
  int m_tensor = 1;
  int m_pipeline = 1;
  double m_gpus = 1;
  double m_prompt = 0;
  double m_output = 1;
  double m_linear_peak = 0;
  double m_bandwidth = 0;
  double m_precision_factor = 1;
  double m_speed = 1;
  double m_expert_share = 0;
  double m_weights = 0;
  double m_linear_params = 0;
  double m_routed_active = 0;  // of them, the routed experts' (MoE)
  double m_moe_share = 1;      // their products' share of a dense product's efficiency
  double m_decode_width = 0;
  double m_prefill_width = 0;
  double m_kv_per_sequence = 0;
  double m_link_latency_s = 0;
  double m_link_bytes_per_s = 1;
  double m_hop_bytes_per_s = 1;
  // Wide expert parallelism (1: none).
  double m_expert_group = 1;
  ExpertAllToAll m_all_to_all;
};

// The largest batch in [1, high] whose typical step meets `ok`, or 0.
template <class Ok>
int largest_batch(int high, Ok ok) {
  if (high < 1 || !ok(1)) {
    return 0;
  }
  int low = 1;  // ok(low)
  while (low < high) {
    const int middle = low + (high - low + 1) / 2;
    if (ok(middle)) {
      low = middle;
    } else {
      high = middle - 1;
    }
  }
  return low;
}

}  // namespace

Queueing queueing(double rate, const InferenceEstimate& inf) {
  Queueing q;
  // The engine admits requests until its scheduler or memory is full (the
  // largest batch); below that a request does not wait, it joins the batch.
  const int slots = std::max({1, inf.concurrency, inf.max_concurrency});
  const double tpot_s = inf.tpot_ms.typical / 1e3;
  const double first_s = inf.ttft_ms.typical / 1e3;
  // A request holds one of the copy's running sequences from admission to its last token.
  const double service_s = first_s + inf.output_tokens * tpot_s;
  const double lambda = rate / std::max(1, inf.decoding_copies());
  const double offered = lambda * service_s;
  q.utilisation = offered / slots;
  if (service_s <= 0 || q.utilisation >= 1.0) {
    q.stable = false;
    return q;
  }
  // Erlang C by the Erlang B recursion (stable for thousands of servers).
  double blocked = 1.0;
  for (int k = 1; k <= slots; ++k) {
    blocked = offered * blocked / (k + offered * blocked);
  }
  const double waits = blocked / (1.0 - q.utilisation * (1.0 - blocked));
  // P(wait > t) = waits · exp(-(slots/S - lambda) t).
  const double drain = slots / service_s - lambda;
  auto quantile_s = [&](double p) { return waits <= 1.0 - p ? 0.0 : std::log(waits / (1.0 - p)) / drain; };
  q.wait_probability = waits;
  q.ttft_p50_ms = inf.ttft_ms.typical + quantile_s(0.5) * 1e3;
  q.ttft_p90_ms = inf.ttft_ms.typical + quantile_s(0.9) * 1e3;
  return q;
}

std::optional<double> p90_target_ms(const Request& request, const InferenceEstimate& inf) {
  if (request.ttft_stated) {
    return request.ttft_target_ms;
  }
  return inf.point == InferenceEstimate::Point::concurrency ? std::nullopt : inf.ttft_target_ms;
}

double kv_split(const ModelShape& model, const Layout& layout) {
  // KV heads split across tensor-parallel ranks up to g; MLA's latent is not
  // split by heads. Pipeline stages each hold their layers' cache.
  const double t = layout.tensor;
  return (model.mla ? 1.0 : std::min(t, static_cast<double>(std::max(model.kv_heads, 1)))) * layout.pipeline;
}

double cache_bytes_per_gpu(const Request& request, const ModelShape& model, const Layout& layout, double tokens) {
  const double bytes = kv_value_bytes(request);
  // The linear layers' state splits by their value heads, not the KV heads.
  const double state_split = model.linear_attention
                                 ? std::min(static_cast<double>(layout.tensor),
                                            static_cast<double>(std::max(model.linear_attention->value_heads, 1))) *
                                       layout.pipeline
                                 : 1.0;
  return model.kv_bytes(tokens, bytes) / kv_split(model, layout) + model.linear_state_bytes(bytes) / state_split;
}

ExpertAllToAll::ExpertAllToAll(const Request& request, const ModelShape& model, const GpuSpec& gpu,
                               const Layout& layout)
    : ExpertAllToAll(
          model, gpu, layout.expert, 1,
          request.precision == InferencePrecision::fp8 || request.precision == InferencePrecision::fp4 ? 1.0 : 2.0) {}

ExpertAllToAll::ExpertAllToAll(const ModelShape& model, const GpuSpec& gpu, int peers, int stride,
                               double dispatch_bytes) {
  if (!model.moe || peers < 2) {
    return;
  }
  m_bytes_per_token = model.moe->experts_per_token * static_cast<double>(model.hidden) * (dispatch_bytes + 2.0);
  // Three rings of peers: the scale-up domain (NVLink, HCCS, Infinity
  // Fabric), the rest of the server over PCIe, and the network beyond it.
  const double e = peers;
  const int domain = std::max(1, gpu.interconnect.domain_size);
  // Peers `stride` apart: whole ones per domain and per server.
  const int step = std::max(1, stride);
  const int domain_peers = std::max(1, domain / step);
  const int server_peers = std::max(domain_peers, std::max({1, domain, gpu.node.gpus_per_node}) / step);
  const double linked = std::min(e, static_cast<double>(domain_peers));
  const double server = std::min(e, static_cast<double>(server_peers));
  m_near = (linked - 1.0) / e;
  m_server = (server - linked) / e;
  m_far = (e - server) / e;
  const double pcie = pcie_gb_per_s(gpu);
  const double network = gpu.node.scale_out_gbps_per_gpu > 0 ? gpu.node.scale_out_gbps_per_gpu / 8.0 : pcie;
  m_near_bytes_per_s = (domain >= 2 ? gpu.interconnect.bandwidth_gb_per_s / 2.0 : pcie) * 1e9 * link_efficiency;
  m_server_bytes_per_s = pcie * 1e9 * link_efficiency;
  m_far_bytes_per_s = std::min(network, pcie) * 1e9 * link_efficiency;
  m_latency_s = m_far > 0 ? network_latency_s : m_server > 0 ? pcie_latency_s : link_latency_s;
  m_moe_layers = std::max(0, model.layers - model.moe->dense_layers);
}

double ExpertAllToAll::layer_s(double tokens, double link_scale) const {
  if (m_moe_layers == 0) {
    return 0;
  }
  const double bytes = tokens * m_bytes_per_token / link_scale;
  return 2.0 * m_latency_s + std::max({bytes * m_near / m_near_bytes_per_s, bytes * m_server / m_server_bytes_per_s,
                                       bytes * m_far / m_far_bytes_per_s});
}

double kv_bytes_per_sequence(const Request& request, const ModelShape& model, const Layout& layout) {
  const double blocks = std::ceil(request.context / kv_block_tokens);
  return cache_bytes_per_gpu(request, model, layout, blocks * kv_block_tokens);
}

namespace {

// Prefill and decode in separate pools (docs/methodology.md §5,
// "Disaggregated prefill and decode"): of the layout's copies, x prefill
// prompts only and y = copies - x decode only, the KV cache of each prompt
// sent from one to the other. The split that serves the most requests/s
// within the targets, when it serves more than the copies serving both.
std::optional<InferenceEstimate::Disaggregated> best_split(const Request& request, const ModelShape& model,
                                                           const GpuSpec& gpu, const Layout& layout,
                                                           const StepModel& steps, const InferenceEstimate& inf,
                                                           double decode_room) {
  const int copies = std::max(1, layout.data);
  if (copies < 2 || request.concurrency || layout.wide_expert()) {  // an expert group's GPUs are not split
    return std::nullopt;
  }
  const Rates typical = corner(gpu, 1);
  const double prompt = inf.prompt_tokens;
  const double output = inf.output_tokens;
  // Prefill: as many whole prompts a step as the token limit takes.
  const double prompts = std::max(1.0, std::floor(request.max_batched_tokens.value_or(8192) / std::max(prompt, 1.0)));
  const double prefill_step = steps.prefill_step_s(prompts, typical);
  // The KV cache of one prompt crosses from a prefill copy to a decode copy:
  // over the scale-up link when both sit in one domain, else the network,
  // each GPU of the copy sending its share.
  // over the scale-up link when all the copies share one domain, PCIe inside
  // one server, else the network (no faster than PCIe), as a pipeline hop.
  const int group = std::max(1, layout.tensor * layout.pipeline);
  const int domain = std::max(1, gpu.interconnect.domain_size);
  const int server = std::max({1, gpu.node.gpus_per_node, domain});
  const double pcie = pcie_gb_per_s(gpu);
  const double network = gpu.node.scale_out_gbps_per_gpu > 0 ? gpu.node.scale_out_gbps_per_gpu / 8.0 : pcie;
  const double link_gb_per_s = domain >= 2 && group * copies <= domain ? gpu.interconnect.bandwidth_gb_per_s / 2.0
                               : group * copies <= server              ? pcie
                                                                       : std::min(network, pcie);
  const double kv_bytes = cache_bytes_per_gpu(request, model, layout, prompt);
  const double transfer_s = kv_bytes / (link_gb_per_s * 1e9 * link_efficiency) + link_latency_s;
  // Decode: the largest batch memory holds (the whole context's cache) within the TPOT target.
  const int largest = static_cast<int>(std::min<double>(decode_room, request.max_batch.value_or(256)));
  auto tpot_ms = [&](int b) { return steps.decode_step_s(b, typical) * 1e3; };
  const std::optional<double> tpot_target = inf.tpot_target_ms;
  const int batch = largest_batch(largest, [&](int b) { return !tpot_target || tpot_ms(b) <= *tpot_target; });
  if (batch < 1) {
    return std::nullopt;
  }
  const double ttft_ms = (prefill_step + transfer_s + steps.decode_step_s(batch, typical)) * 1e3;
  if (inf.ttft_target_ms && ttft_ms > *inf.ttft_target_ms) {
    return std::nullopt;
  }
  const double decode_rate = batch / (output * steps.decode_step_s(batch, typical));  // requests/s per copy
  const double prefill_rate = prompts / prefill_step;
  std::optional<InferenceEstimate::Disaggregated> best;
  for (int x = 1; x < copies; ++x) {
    const double served = std::min(x * prefill_rate, (copies - x) * decode_rate);
    if (!best || served > best->requests_per_s) {
      best = InferenceEstimate::Disaggregated{
          x, copies - x, batch, served, inf.requests_per_s.typical, ttft_ms, tpot_ms(batch), transfer_s * 1e3};
    }
  }
  if (!best || best->requests_per_s <= inf.requests_per_s.typical) {
    return std::nullopt;
  }
  return best;
}

// The plan's figures become the split's: its rate, its decode-only TPOT, its
// first token (prefill + KV transfer + a decode step), each copy's batch.
void adopt(const InferenceEstimate::Disaggregated& split, InferenceEstimate& inf) {
  const double ratio = split.requests_per_s / inf.requests_per_s.typical;
  inf.tokens_per_s = scale(inf.tokens_per_s, ratio);
  inf.requests_per_s = scale(inf.requests_per_s, ratio);
  const double tpot_ratio = split.tpot_ms / inf.tpot_ms.typical;
  inf.tpot_ms = scale(inf.tpot_ms, tpot_ratio);
  inf.user_tokens_per_s = scale(inf.user_tokens_per_s, 1.0 / tpot_ratio);
  inf.ttft_ms = scale(inf.ttft_ms, split.ttft_ms / inf.ttft_ms.typical);
  inf.concurrency = split.decode_batch;
  inf.disaggregated = split;
  // The largest batch a decode copy runs, and the plan's most at maximum load.
  inf.max_concurrency = std::max(inf.max_concurrency, split.decode_batch);
  inf.max_tokens_per_s = {std::max(inf.max_tokens_per_s.low, inf.tokens_per_s.low),
                          std::max(inf.max_tokens_per_s.typical, inf.tokens_per_s.typical),
                          std::max(inf.max_tokens_per_s.high, inf.tokens_per_s.high)};
}

}  // namespace

ServingResult serve(const Request& request, const ModelShape& model, const GpuSpec& gpu, const Layout& layout,
                    const MemoryBreakdown& memory, double usable, bool relax_default_targets) {
  ServingResult result;
  InferenceEstimate inf;
  inf.context = request.context;
  inf.prompt_tokens = request.prompt_tokens();
  inf.output_tokens = request.effective_output_tokens();
  inf.replicas = std::max(1, layout.data);
  inf.request_rate = request.request_rate;

  // The largest batch: what memory holds beside the weights and the
  // workspace, at most --max-batch sequences and max_batched_tokens a step.
  const StepModel steps(request, model, gpu, layout, memory);
  const double per_sequence = kv_bytes_per_sequence(request, model, layout);
  const MemoryPolicy policy = memory_policy(request);
  const double free_bytes = (usable - memory.weights - memory.activations - memory.reserve) * policy.free_fraction;
  const double by_memory = per_sequence > 0 ? std::floor(free_bytes / per_sequence) : 1e9;
  const int max_batch = request.max_batch.value_or(256);
  const int max_tokens = request.max_batched_tokens.value_or(8192);
  const double by_tokens = std::floor(max_tokens / steps.tokens_per_step(1.0));
  const double limit = std::min({by_memory, static_cast<double>(max_batch), std::max(by_tokens, 1.0)});
  inf.max_concurrency = static_cast<int>(std::max(limit, 0.0));
  inf.max_limit = limit == by_memory                        ? InferenceEstimate::Limit::memory
                  : limit == static_cast<double>(max_batch) ? InferenceEstimate::Limit::max_batch
                                                            : InferenceEstimate::Limit::batched_tokens;
  inf.engine = request.engine.value_or(ServingEngine::vllm);
  inf.max_batch = max_batch;
  inf.max_batched_tokens = max_tokens;
  inf.memory_of_free = policy.free_fraction < 1.0 || engine_profile(inf.engine).fraction_of_free;
  inf.memory_fraction = inf.memory_of_free ? policy.free_fraction : policy.usable_fraction;
  inf.engine_speed = engine_speed(inf.engine, gpu.software);
  inf.engine_fp8_share = engine_fp8_share(inf.engine, gpu.software);
  inf.engine_moe_share = engine_moe_share(inf.engine, gpu.software);
  inf.engine_moe_fitted = inf.engine_moe_share != moe_kernel_factor;
  inf.engine_fp8_fitted = inf.engine_fp8_share != fp8_mfu_factor;
  if (inf.max_concurrency < 1) {
    result.fits = false;
    return result;
  }
  result.fits = true;

  const Rates typical = corner(gpu, 1);
  auto tpot_ms = [&](double b) { return steps.step_s(b, typical) * 1e3; };
  auto ttft_ms = [&](double b) { return (steps.prefill_s(typical) + steps.step_s(b, typical)) * 1e3; };

  // The operating point.
  if (request.concurrency) {
    if (*request.concurrency > by_memory) {
      result.fits = false;
      return result;
    }
    // Above the token limit (--max-batch is checked at parse time) the engine
    // still runs the sequences asked, with longer prefill chunks.
    inf.max_concurrency = std::max(inf.max_concurrency, *request.concurrency);
    inf.point = InferenceEstimate::Point::concurrency;
    inf.concurrency = *request.concurrency;
  } else {
    inf.point = InferenceEstimate::Point::targets;
  }
  std::optional<double> tpot_target = request.tpot_target_ms;
  std::optional<double> ttft_target = request.ttft_target_ms;
  const double asked = inf.concurrency > 0 ? inf.concurrency : 1;
  // A target missed at the concurrency asked (or at one sequence): a stated
  // one rejects the layout, and so does a default one in a strict search
  // (which then tries more GPUs); otherwise a default target relaxes to the
  // knee, where latency is within 25% of its floor.
  auto miss = [&](bool tpot, double target, double best) {
    result.missed = true;
    result.latency_tpot = tpot;
    result.target_ms = target;
    result.best_ms = best;
    return result;
  };
  if (tpot_target && tpot_ms(asked) > *tpot_target) {
    if (request.tpot_stated || !relax_default_targets) {
      return miss(true, *tpot_target, tpot_ms(asked));
    }
    tpot_target = std::max(*tpot_target, knee_factor * tpot_ms(1));
  }
  if (ttft_target && ttft_ms(asked) > *ttft_target) {
    if (request.ttft_stated || !relax_default_targets) {
      return miss(false, *ttft_target, ttft_ms(asked));
    }
    ttft_target = std::max(*ttft_target, knee_factor * ttft_ms(1));
  }
  if (tpot_target != request.tpot_target_ms || ttft_target != request.ttft_target_ms) {
    if (inf.point == InferenceEstimate::Point::targets) {
      inf.point = InferenceEstimate::Point::knee;
    }
  }
  auto meets = [&](int b) {
    return (!tpot_target || tpot_ms(b) <= *tpot_target) && (!ttft_target || ttft_ms(b) <= *ttft_target);
  };
  if (inf.concurrency == 0) {
    inf.concurrency = std::max(1, largest_batch(inf.max_concurrency, meets));
  }
  // The targets the point was chosen against; with --concurrency, the ones
  // asked (a default one it misses is flagged by slow-for-interactive).
  const bool fixed = inf.point == InferenceEstimate::Point::concurrency;
  inf.tpot_target_ms = fixed ? request.tpot_target_ms : tpot_target;
  inf.ttft_target_ms = fixed ? request.ttft_target_ms : ttft_target;
  inf.min_tpot_ms = tpot_ms(1);

  // Figures at three corners: slow (low efficiencies, high overhead), typical, fast.
  const double replicas = inf.replicas;
  const Band band = serving_band(request, gpu);
  auto rates = [&](int k) { return corner(gpu, band.measured ? 1 : k); };
  auto at = [&](double b, int k) { return steps.step_s(b, rates(k)) * band.widen[k]; };
  const double b = inf.concurrency;
  const double slow = at(b, 0);
  const double mid = at(b, 1);
  const double fast = at(b, 2);
  inf.tpot_ms = {fast * 1e3, mid * 1e3, slow * 1e3};
  inf.user_tokens_per_s = {1.0 / slow, 1.0 / mid, 1.0 / fast};
  inf.tokens_per_s = scale(inf.user_tokens_per_s, b * replicas);
  inf.requests_per_s = scale(inf.tokens_per_s, 1.0 / inf.output_tokens);
  const double m = inf.max_concurrency;
  inf.max_tokens_per_s = {m * replicas / at(m, 0), m * replicas / at(m, 1), m * replicas / at(m, 2)};
  auto ttft = [&](int k) { return (steps.prefill_s(rates(k)) + steps.step_s(b, rates(k))) * band.widen[k] * 1e3; };
  inf.ttft_ms = {ttft(2), ttft(1), ttft(0)};

  // Disaggregated prefill and decode, where it serves more within the targets.
  if (auto split = best_split(request, model, gpu, layout, steps, inf, by_memory)) {
    adopt(*split, inf);
  }
  if (request.request_rate) {
    // Waiting for a free sequence at the rate (queueing, docs/methodology.md
    // §5): the copies must keep the p90 time to the first token within the
    // target, not only serve the rate on average.
    const Queueing q = queueing(*request.request_rate, inf);
    inf.queue = q;
    const std::optional<double> target = p90_target_ms(request, inf);
    if (!q.stable || inf.requests_per_s.typical < *request.request_rate) {
      result.short_of_rate = true;
    } else if (target && q.ttft_p90_ms > *target) {
      result.short_of_rate = true;
      result.queue_p90_ms = q.ttft_p90_ms;
      result.queue_target_ms = *target;
    }
  }
  result.estimate = inf;
  return result;
}

}  // namespace gpu_advise::sizing
