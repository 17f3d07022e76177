// The estimator's parts, shared by its files and by the tests; not part of
// the public interface (include/gpu_advise/estimate.hpp is). One file per
// job: memory.cpp, layouts.cpp, count_search.cpp, training_time.cpp,
// inference.cpp, cost.cpp; estimate.cpp puts them together.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <vector>

#include "gpu_advise/estimate.hpp"

namespace gpu_advise::sizing {

// Constants with their origin in docs/methodology.md.
inline constexpr double bytes_nf4_with_double_quant = 0.516;  // 4 + 0.127 bits (QLoRA paper)
inline constexpr double bytes_int8_weight = 1.02;             // int8 + per-channel scales
inline constexpr double bytes_int4_weight = 0.5625;           // 4 bits + FP16 scale and zero per 128 (AWQ/GPTQ)
// NVFP4: 4 bits + an FP8 (E4M3) scale per 16 values (NVIDIA, "Introducing NVFP4"); MXFP4's
// 8-bit scale per 32 is 4.25 bits: the larger is taken.
inline constexpr double bytes_fp4_weight = 0.5625;
inline constexpr double qlora_slowdown = 1.39;  // vs LoRA on the same card
// FP8 (and FP4) matrix products' share of their peak relative to BF16's share
// of theirs: training's Transformer Engine figure (§4), which serving takes for
// FP4 and for an engine with no fitted FP8 share of its own (engines.cpp).
inline constexpr double fp8_mfu_factor = 0.70;
// The training step model (training_time.cpp; docs/methodology.md §4).
// Kernel efficiency = the catalog's MFU of the architecture x this factor,
// fitted on the fitting set of docs/validation.md's training cases.
inline constexpr double training_kernel_factor = 1.45;
// FP8 training: kernel efficiency against the FP8 peak relative to BF16's
// against BF16's (fitted; Transformer Engine reaches it, torchao's Float8 less).
inline constexpr double fp8_training_factor = 1.0;
inline constexpr double grad_reduce_bytes = 2.0;   // gradients reduced in BF16 (Megatron-Core, llm-foundry defaults)
inline constexpr double param_gather_bytes = 2.0;  // weights gathered in BF16
// NCCL bus bandwidth as a share of the link's, one direction, on the slow /
// typical / fast corners of a training step (the typical is link_efficiency).
inline constexpr Range training_link_efficiency{0.60, 0.75, 0.85};
// MoE layers: grouped expert GEMMs, routing and token permutation reach this
// share of a dense layer's kernel efficiency (fitted; docs/validation.md).
inline constexpr double moe_kernel_factor = 0.6;
inline constexpr int layers_per_virtual_stage = 2;  // interleaved pipeline chunks (NeMo's recipes)
// The step model's own error, as factors on the band's fast and slow step
// times: the narrowest that holds 85% of the fitting set's published figures.
inline constexpr Range training_model_error{0.95, 1.0, 1.10};
// Context parallelism: tried from 32K-token sequences, down to 8K tokens a GPU,
// at x0.85 the MFU (Llama 3 405B: 380 TFLOPS a GPU at 128K with CP 16
// against 430 at 8K without, x0.88; NeMo's CP series 0.70-0.79).
inline constexpr int context_parallel_from_tokens = 32768;
inline constexpr int context_parallel_min_tokens = 8192;
inline constexpr double context_parallel_factor = 0.85;
inline constexpr double hours_per_month = 730.0;
// Goodput (training_time.cpp; docs/methodology.md §4): interruptions per
// GPU-hour from Llama 3 405B's pretraining (arXiv 2407.21783 §3.3.4: 419
// unexpected interruptions in 54 days on 16,384 GPUs); checkpoints written at
// 1 GB/s a server (its Tectonic storage sustains 2 TB/s for about 2,000
// servers, §3.3.1); each interruption's detection, restart and reload: 15
// minutes (PyTorch's default 10-minute collective timeout, then a restart).
inline constexpr double interruptions_per_gpu_hour = 419.0 / (54.0 * 24.0 * 16384.0);
inline constexpr double checkpoint_gb_per_s_per_server = 1.0;
inline constexpr double restart_hours = 0.25;
inline constexpr double loss_chunks = 8;  // torchtune's CEWithChunkedOutputLoss: 8 chunks
// Offload: the host's optimizer step reads and writes the FP32 master, m and
// v and the gradient, and writes the BF16 weights, about 30 bytes a parameter,
// at the host's memory bandwidth (GB/s per server: low / typical / high).
inline constexpr double host_adam_bytes_per_param = 30.0;
inline constexpr Range host_memory_gb_per_s{50.0, 100.0, 200.0};

// Bytes of the frozen base of a LoRA or QLoRA job: BF16, or for QLoRA NF4 with
// double quantisation for the blocks and BF16 embeddings and LM head
// (Dettmers et al., arXiv 2305.14314).
[[nodiscard]] inline double frozen_base_bytes(const Request& request, const ModelShape& model) {
  if (request.task != Task::qlora) {
    return 2.0 * model.params;
  }
  const double embeddings = std::min(model.embedding_params(), model.params);
  return bytes_nf4_with_double_quant * (model.params - embeddings) + 2.0 * embeddings;
}

[[nodiscard]] inline Range scale(const Range& r, double factor) {
  return {r.low * factor, r.typical * factor, r.high * factor};
}
[[nodiscard]] inline Range multiply(const Range& a, const Range& b) {
  return {a.low * b.low, a.typical * b.typical, a.high * b.high};
}

// ---- stacks (stacks.cpp) ----

// What a training stack does that the estimate reads (docs/methodology.md §2,
// "Stacks"): how its layers keep activations, when its gradients exist, its
// mixed-precision parameters, and its kernels' speed.
struct StackProfile {
  Stack stack = Stack::megatron;
  // Modules as written in eager PyTorch (Hugging Face, torchtune, LitGPT,
  // torchtitan): RMSNorm upcasts its input to FP32 and keeps it, and the
  // attention output is copied before its projection.
  bool eager_layers = false;
  // SwiGLU as one kernel that keeps the gate and up projections and rebuilds
  // the activation in the backward pass (Megatron's bias_swiglu_fusion, Unsloth).
  bool fused_swiglu = false;
  // Bytes per element of each adapted layer's input that the LoRA path keeps
  // beside the base layer's: PEFT casts it to the adapters' FP32 and autocast
  // back to a BF16 copy (2); LitGPT's adapter dropout keeps a mask and its output (3).
  double adapter_input_bytes = 0;
  // Gradient buffers that live through the whole step (Megatron's and
  // DeepSpeed's contiguous buffers); otherwise gradients are made in the
  // backward pass and freed after the optimizer step (zero_grad(set_to_none)).
  bool persistent_gradients = false;
  // Mixed precision keeps FP32 parameters and gradients and computes on BF16
  // copies (torch.autocast, FSDP2's MixedPrecisionPolicy) rather than BF16
  // parameters beside an FP32 master copy in the optimizer.
  bool fp32_params = false;
  // Recompute's checkpointed layer inputs kept in host memory (Unsloth).
  bool offloaded_checkpoints = false;
  // Kernel efficiency relative to the common fit (docs/validation.md).
  double speed = 1.0;
  // The model parallelism the stack runs for full training (data
  // parallelism, with DDP, FSDP or ZeRO, every stack does).
  bool tensor_parallel = true;
  bool pipeline_parallel = true;
  bool context_parallel = true;
};

[[nodiscard]] const StackProfile& stack_profile(Stack stack);

// --calibration (docs/calibration.md): the calibration a plan on `gpu` follows,
// training's by the request's stack, serving's by its engine; nullptr: none.
[[nodiscard]] const Calibration* training_calibration(const Request& request, const GpuSpec& gpu);
[[nodiscard]] const Calibration* serving_calibration(const Request& request, const GpuSpec& gpu);
// The index of the calibration a plan follows in request.calibrations.
[[nodiscard]] std::optional<std::size_t> calibration_index(const Request& request, const GpuSpec& gpu);
// Memory per GPU on a card: memory_per_gpu(), and for training the card and
// stack's calibrated correction of the measured peak.
[[nodiscard]] MemoryBreakdown memory_on(const Request& request, const ModelShape& model, const GpuSpec& gpu,
                                        const Layout& layout);

// Bytes per trained parameter as the request's stack holds them: weights,
// gradients and optimizer states (FP32 parameters and gradients in place of
// BF16 ones beside an FP32 master copy where the stack keeps them so), or for
// LoRA and QLoRA the adapters' (PEFT trains them in FP32: 4 + 4 + 8 with
// mixed-precision AdamW).
[[nodiscard]] TrainingBytes trained_bytes(const Request& request);

// Micro-batches each data-parallel rank runs in one optimizer step: the
// global batch over the ranks' micro-batches, one with the optimizer in the
// backward pass (docs/methodology.md §4).
[[nodiscard]] int micro_batches_per_step(const Request& request, const Layout& layout);
// DualPipe runs where it is asked for on an even pipeline whose ranks each
// have at least two micro-batches a stage, fed from both ends
// (deepseek-ai/DualPipe asserts num_chunks >= 2 x ranks); else the pipeline
// runs 1F1B.
[[nodiscard]] bool runs_dualpipe(const Request& request, const Layout& layout);

// ---- layouts (layouts.cpp) ----

// A layout that fits, with its memory and how much it is preferred.
struct Candidate {
  Layout layout;
  MemoryBreakdown memory;
  double preference = 0;
  std::optional<InferenceEstimate> serving;  // serving: the figures at the operating point
};

// What the plan says about spreading `count` GPUs beyond the card's
// scale-up domain (its cost is in the training step model).
[[nodiscard]] std::optional<EstimateNote> scale_out_note(const GpuSpec& gpu, int count);

// How much a training layout is preferred: its tokens/s per GPU, less 1% a
// doubling of model parallelism (a simpler layout wins a near tie), then a
// lower ZeRO stage.
[[nodiscard]] double layout_preference(const Layout& layout, const TrainingEstimate& time);

// The model-parallel shapes of a full-training job on this card, without their
// data-parallel size (data == 0) or recompute: tensor x pipeline x ZeRO stage,
// tensor x pipeline at most `limit` GPUs.
[[nodiscard]] std::vector<Layout> model_parallel_shapes(const Request& request, const ModelShape& model,
                                                        const GpuSpec& gpu, int limit);
// The recompute modes to try: the request's, or its task's norm then full.
[[nodiscard]] std::vector<Recompute> recompute_modes(const Request& request);
// The most data-parallel ranks a layout of `stages` pipeline stages takes:
// every rank needs a micro-batch of the global batch, and a pipeline at least
// as many micro-batches as stages (global batch / micro-batch / stages, at
// least 1). Beyond it the batch would have to grow, or the bubble does.
[[nodiscard]] inline int data_parallel_limit(const Request& request, int stages) {
  const int fed = request.pipeline_schedule == PipelineSchedule::dualpipe && stages > 1 ? 2 * stages : stages;
  return std::max(1, request.effective_global_batch() / (std::max(1, request.micro_batch) * std::max(1, fed)));
}
// A shape given its data-parallel size: n / (tensor x pipeline) GPUs.
[[nodiscard]] Layout with_count(const Request& request, const Layout& shape, int n);
// The layout has the data-parallel and expert-parallel degrees the user fixed (--dp, --ep).
[[nodiscard]] bool as_fixed(const Request& request, const Layout& layout);

// Every layout of `count` GPUs the request allows on this card.
[[nodiscard]] std::vector<Layout> layouts_for(const Request& request, const ModelShape& model, const GpuSpec& gpu,
                                              int count);
// The full-training families the count search bisects: every shape up to
// max_gpus, times the recompute modes.
[[nodiscard]] std::vector<Layout> training_families(const Request& request, const ModelShape& model,
                                                    const GpuSpec& gpu);

// ---- serving (inference.cpp; docs/methodology.md §5) ----

// Offline batch work: no latency target, so the engine runs its largest batch.
[[nodiscard]] bool offline(const Request& request);
// The request as the card's engine runs it (engines.cpp): the engine (the
// card's vLLM build by default) and its scheduler limits and memory share
// wherever the request left them unstated. Training requests pass unchanged.
[[nodiscard]] Request on_card(const Request& request, const GpuSpec& gpu);

inline constexpr double kv_block_tokens = 16;    // vLLM's default block_size: the cache is allocated in blocks
inline constexpr double link_latency_s = 8e-6;   // one small all-reduce over NVLink, HCCS or Infinity Fabric
inline constexpr double pcie_latency_s = 25e-6;  // the same over PCIe
// One all-to-all's fixed cost across servers over RDMA (DeepEP's low-latency
// kernels dispatch in tens of microseconds; docs/methodology.md §5).
inline constexpr double network_latency_s = 30e-6;
inline constexpr double link_efficiency = 0.75;  // NCCL bus bandwidth as a share of the link's, one direction
// PCIe x16, one direction, GB/s: 16 / 32 / 64 for generations 3 / 4 / 5 (gen 4 when unknown).
[[nodiscard]] inline double pcie_gb_per_s(const GpuSpec& gpu) {
  return 16.0 * std::pow(2.0, std::max(gpu.pcie_gen.value_or(4), 3) - 3);
}
// Bytes of one cached K or V value at --kv-precision.
[[nodiscard]] inline double kv_value_bytes(const Request& request) {
  // NVFP4: 4-bit values and one FP8 scale per 16 (0.5 + 1/16 bytes).
  switch (request.kv_precision) {
    case KvPrecision::bf16: return 2.0;
    case KvPrecision::fp8: return 1.0;
    case KvPrecision::fp4: return bytes_fp4_weight;
  }
  return 2.0;
}
inline constexpr double knee_factor = 1.25;  // the knee: latency within 25% of its one-sequence floor
// Per step: scheduling, sampling and launching a CUDA graph, fitted on the
// serving cases of docs/validation.md.
inline constexpr Range serving_step_overhead_s{0.00033, 0.0010, 0.0020};
// How a matrix product's memory and compute times combine: their p-norm.
inline constexpr double gemm_overlap_norm = 1.25;
// The step model's own error, as factors on the band's fast and slow step
// times: the narrowest that holds 85% of the fitting set's published figures.
inline constexpr Range serving_model_error{0.80, 1.0, 1.0};

// Waiting at a request rate: each copy an M/M/c queue whose servers are its
// running sequences and whose service is one request's time in the batch
// (TTFT + output x TPOT), Erlang C; p50 and p90 of the time to the first token.
[[nodiscard]] Queueing queueing(double rate, const InferenceEstimate& inf);
// The first-token target the p90 is held to: a stated --ttft-ms, else the
// operating point's (relaxed to the knee when the default cannot be met);
// none with --concurrency and no stated target.
[[nodiscard]] std::optional<double> p90_target_ms(const Request& request, const InferenceEstimate& inf);

// Tensor-parallel ranks (and pipeline stages) the KV cache is split over.
[[nodiscard]] double kv_split(const ModelShape& model, const Layout& layout);
// One sequence's KV cache over `tokens` and its linear-attention state, per GPU
// of the layout (each split over the heads that hold it, and the stages).
[[nodiscard]] double cache_bytes_per_gpu(const Request& request, const ModelShape& model, const Layout& layout,
                                         double tokens);
// Wide expert parallelism's all-to-all (docs/methodology.md §5): each MoE
// layer dispatches a GPU's tokens to their k experts (in FP8 where the
// weights are FP8 or FP4, as DeepEP does; else BF16) and combines the outputs
// in BF16, the share bound for GPUs of its scale-up domain over that fabric,
// for the rest of its server over PCIe and the rest over the network, at once.
class ExpertAllToAll {
 public:
  ExpertAllToAll() = default;
  // Serving: over the layout's `expert` GPUs, side by side.
  ExpertAllToAll(const Request& request, const ModelShape& model, const GpuSpec& gpu, const Layout& layout);
  // Over `peers` GPUs `stride` apart (training: the expert-parallel ranks, one
  // tensor-parallel group apart), dispatching `dispatch_bytes` a value.
  ExpertAllToAll(const ModelShape& model, const GpuSpec& gpu, int peers, int stride, double dispatch_bytes);
  // One MoE layer's dispatch and combine of `tokens` from one GPU, seconds,
  // the links at `link_scale` x the serving model's efficiency.
  [[nodiscard]] double layer_s(double tokens, double link_scale = 1.0) const;
  // Every MoE layer's, for a step of `tokens`.
  [[nodiscard]] double step_s(double tokens) const { return m_moe_layers * layer_s(tokens); }

 private:
  double m_bytes_per_token = 0;  // dispatch and combine, per token, all k experts
  double m_near = 0;             // shares of them bound inside the domain, the server, and beyond it
  double m_server = 0;
  double m_far = 0;
  double m_near_bytes_per_s = 1;
  double m_server_bytes_per_s = 1;
  double m_far_bytes_per_s = 1;
  double m_latency_s = 0;  // per all-to-all
  int m_moe_layers = 0;
};

// One sequence's KV cache at --context tokens, in whole blocks, per GPU.
[[nodiscard]] double kv_bytes_per_sequence(const Request& request, const ModelShape& model, const Layout& layout);
// Activation workspace of one step at the scheduler's token limit, per GPU.
[[nodiscard]] double serving_workspace_bytes(const Request& request, const ModelShape& model, const Layout& layout);

// A serving layout tried: its estimate at the operating point, or why not.
struct ServingResult {
  bool fits = false;           // at least one sequence (or --concurrency) fits beside the weights
  bool missed = false;         // a latency target cannot be met
  bool short_of_rate = false;  // the plan serves fewer requests/s than --request-rate, or queues past the target
  double queue_p90_ms = 0;     // short_of_rate by the queue: the p90 first token and its target
  double queue_target_ms = 0;
  bool latency_tpot = true;  // missed: which target
  double target_ms = 0;
  double best_ms = 0;
  std::optional<InferenceEstimate> estimate;
};
// The operating point of `layout` and its figures. With relax_default_targets
// an unstated (default) target that cannot be met relaxes to the knee.
[[nodiscard]] ServingResult serve(const Request& request, const ModelShape& model, const GpuSpec& gpu,
                                  const Layout& layout, const MemoryBreakdown& memory, double usable,
                                  bool relax_default_targets);
// The layouts of `count` GPUs for serving: one model-parallel group and, with
// --count or --request-rate, the copies of every smaller group that divides
// the count (the probe keeps the one that serves the most); with --copies
// only that many copies.
[[nodiscard]] std::vector<Layout> serving_layouts(const Request& request, const ModelShape& model, const GpuSpec& gpu,
                                                  int count);

// ---- the count search (count_search.cpp) ----

// The GPU counts a plan may use, in increasing order (docs/methodology.md §5):
// a list of small counts, then every multiple of `step` above the last of
// them, up to `max`. Held as a rule, not a list: --max-gpus may be 65,536.
class CountLadder {
 public:
  CountLadder() = default;
  CountLadder(std::vector<int> small, int step, int max);
  // Renting: the shapes providers rent the card in, then whole multiples of
  // the largest (or of a node, when larger). Buying: whole servers, and 1, 2
  // or 4 of a PCIe card (a workstation). A fixed --count: that count alone.
  static CountLadder for_request(const Request& request, const GpuSpec& gpu);
  // The counts a model-parallel group of `unit` GPUs divides.
  [[nodiscard]] CountLadder multiples_of(int unit) const;
  [[nodiscard]] std::size_t size() const { return m_small.size() + m_extra; }
  [[nodiscard]] bool empty() const { return size() == 0; }
  [[nodiscard]] int operator[](std::size_t k) const {
    return k < m_small.size() ? m_small[k] : m_step * (m_first + static_cast<int>(k - m_small.size()));
  }
  [[nodiscard]] int front() const { return (*this)[0]; }
  [[nodiscard]] int back() const { return (*this)[size() - 1]; }
  // The smallest count on the ladder at least `n`, if any.
  [[nodiscard]] std::optional<int> at_least(int n) const;

 private:
  std::vector<int> m_small;
  int m_step = 0;   // 0: nothing after m_small
  int m_first = 0;  // the first multiple of m_step on the ladder, in steps
  std::size_t m_extra = 0;
  int m_above = 0;  // the multiples start above this count
  int m_max = 0;
};

// What the search found: the smallest count that fits and meets the deadline,
// with its best layout; or, when none does, what the last count tried needed.
struct SearchResult {
  std::optional<Candidate> chosen;
  int count = 0;
  MemoryBreakdown smallest;                // the least memory of the layouts tried at the last failing count
  std::optional<TrainingEstimate> missed;  // a layout that fit but missed the deadline, when that was the blocker
  std::optional<ServingResult> latency;    // serving: the closest miss of a latency target, when that was the blocker
  int latency_count = 0;                   // the count of that closest miss
  std::optional<double> rate_served;       // serving: requests/s the last count served, short of --request-rate
  // serving: the rate is served but the queue's p90 first token (ms) misses its target (ms).
  std::optional<std::pair<double, double>> queue_miss;
  int last_count = 0;  // the last failing count tried
};
[[nodiscard]] SearchResult search_count(const Request& request, const ModelShape& model, const GpuSpec& gpu,
                                        double usable_bytes);

// ---- the plan and the budget tier (estimate.cpp, tiers.cpp) ----

// The plan at the fewest GPUs on offer that fit and meet the deadline (or at
// --count), with its time or throughput and cost; sizing not yet filled in.
[[nodiscard]] Estimate plan_at_smallest(const Request& request, const ModelShape& model, const GpuSpec& gpu);
// The fewest GPUs that would fit and meet the deadline if any count could be
// rented (1, 2, 4, then whole nodes): what the workload needs, whatever is on offer.
[[nodiscard]] int needed_count(const Request& request, const ModelShape& model, const GpuSpec& gpu, int smallest);
// Sizing's first facts on the smallest plan: the count needed and on offer;
// with --count, the fixed stop and a note when the count is not on offer.
void first_sizing(const Request& request, const ModelShape& model, const GpuSpec& gpu, Estimate& e);
// The smallest plan and the larger ones worth considering on this card, each
// doubling the count (tiers.cpp); the last says why there is no larger one.
[[nodiscard]] std::vector<Estimate> candidate_plans(const Request& request, const ModelShape& model, const GpuSpec& gpu,
                                                    Estimate smallest);
// Records why the tier stopped at `chosen` when a larger candidate (`next`) was on offer.
void mark_stop(const Request& request, Estimate& chosen, const Estimate* next);

// ---- time, throughput and cost ----

[[nodiscard]] TrainingEstimate training_time(const Request& request, const ModelShape& model, const GpuSpec& gpu,
                                             const Layout& layout, std::vector<EstimateNote>& notes);

void add_costs(const Request& request, const GpuSpec& gpu, Estimate& e);
// Owning `count` cards: whole servers, the network, and the cost of ownership
// against the rent already in `c` (docs/methodology.md §6.2).
void add_ownership(const Request& request, const GpuSpec& gpu, CostEstimate& c, int count);

// The rent quotes a plan may take in the request's market: a price file's
// when one covers the card there (on spot quotes with --spot where there are
// any, else the others), else none (the catalog's quotes price it as a range).
[[nodiscard]] std::vector<const PriceQuote*> file_quotes(const Request& request, const GpuSpec& gpu);
// The GPU counts the card is rented in: with price-file quotes in the market
// that are all instances, their shapes and the counts up to a server that
// whole instances of one shape make (1, 2, 4, the server); else the catalog's.
[[nodiscard]] std::vector<int> rent_shapes(const Request& request, const GpuSpec& gpu);
// The GPUs of a plan that must share one server: its sharded group (training
// under ZeRO-3/FSDP: every rank; otherwise, and serving, one model copy's
// tensor x pipeline x context GPUs), at most a server. Data-parallel replicas
// and serving copies may sit on separate instances; a sharded group's
// collectives are timed on the server's scale-up link (docs/methodology.md §6.1).
[[nodiscard]] int gpus_together(const Layout& layout, bool training, const GpuSpec& gpu);
// The most GPUs one rented instance holds, when the request's price file
// rents the card in the market only as instances; 0 when any group can be
// rented together (no price file there, a quote by the GPU, or --price).
[[nodiscard]] int largest_instance(const Request& request, const GpuSpec& gpu);
// The cheapest of `quotes` for `count` GPUs, in whole instances (fewer GPUs
// paid for, then the earlier quote, on a tie), among the quotes rented by the
// GPU or in instances of at least `together` GPUs; nullopt when none is.
[[nodiscard]] std::optional<RentOffer> cheapest_offer(const std::vector<const PriceQuote*>& quotes, int count,
                                                      int together = 1);

}  // namespace gpu_advise::sizing
