// Memory per GPU for a layout: weights, gradients, optimizer states,
// activations, KV cache and the runtime reserve (docs/methodology.md §1-3).
#include <algorithm>

#include "estimate/parts.hpp"
#include "gpu_advise/units.hpp"

namespace gpu_advise {

using namespace sizing;

std::span<const EnumName<MemoryPhase>> names(MemoryPhase) {
  static constexpr EnumName<MemoryPhase> table[] = {{MemoryPhase::whole_step, "whole_step"},
                                                    {MemoryPhase::forward, "forward"},
                                                    {MemoryPhase::optimizer_step, "optimizer_step"}};
  return table;
}

namespace {

// The tensors one token keeps in one layer for the backward pass, in bytes
// (BF16), before tensor parallelism, with flash / SDPA attention (no s^2
// scores: every stack here uses it). The layer's parts (methodology §2,
// "Activations"; Korthikanti et al., arXiv 2205.05198, counted for a
// SwiGLU, grouped-query layer):
//   norms: each keeps its input (2h), eager RMSNorm its FP32 upcast and
//     normalised output as well (4h + 2h);
//   attention: the projections' input (2h), Q and K after the rotary
//     embedding and V (2q + 2k + 2v), the attention output (2o), copied once
//     more before the output projection in eager modules (2o);
//   MLP: its input (2h), gate, up, the activation and the product (8f), or
//     gate, up and product where one kernel rebuilds the activation (6f);
//     MoE: each routed and shared expert's copy of the token (2h) and MLP;
//   LoRA: each adapted layer's input again where the stack's LoRA path keeps
//     its own copy (PEFT, LitGPT's dropout).
double layer_bytes_per_token(const Request& request, const ModelShape& model, const StackProfile& stack, bool moe) {
  auto chosen = [&](LoraTarget t) {
    return std::find(request.lora_targets.begin(), request.lora_targets.end(), t) != request.lora_targets.end();
  };
  const double h = model.hidden;
  const double q = model.mla
                       ? static_cast<double>(model.heads) * (model.mla->qk_nope_head_dim + model.mla->qk_rope_head_dim)
                       : static_cast<double>(model.heads) * model.head_dim;
  // K, V and the attention output (MLA: heads x its own head dims).
  const double k = model.mla ? q : static_cast<double>(model.kv_heads) * model.head_dim;
  const double v = model.mla ? static_cast<double>(model.heads) * model.mla->v_head_dim : k;
  const double out = model.mla ? v : q;
  const double norm = stack.eager_layers ? 6.0 * h : 2.0 * h;
  const double attention = 2.0 * h + 2.0 * q + 2.0 * k + 2.0 * v + (stack.eager_layers ? 4.0 : 2.0) * out;
  auto mlp = [&](double f) { return 2.0 * h + (stack.fused_swiglu ? 6.0 : 8.0) * f; };
  double ffn = model.ffn;  // the down projections' input per token
  double copies = 1;       // the gate and up projections' inputs per token
  double mlp_bytes = mlp(ffn);
  if (moe) {
    const int experts = model.moe->experts_per_token + model.moe->shared_experts;
    ffn = static_cast<double>(model.moe->expert_ffn) * experts;
    copies = experts;
    mlp_bytes = experts * mlp(model.moe->expert_ffn);
  }
  double adapters = 0;
  if (request.task == Task::lora || request.task == Task::qlora) {
    const double inputs = (chosen(LoraTarget::q) ? h : 0) + (chosen(LoraTarget::k) ? h : 0) +
                          (chosen(LoraTarget::v) ? h : 0) + (chosen(LoraTarget::o) ? out : 0) +
                          (chosen(LoraTarget::gate) ? copies * h : 0) + (chosen(LoraTarget::up) ? copies * h : 0) +
                          (chosen(LoraTarget::down) ? ffn : 0);
    adapters = stack.adapter_input_bytes * inputs;
  }
  return 2.0 * norm + attention + mlp_bytes + adapters;
}

// Activations per GPU for one micro-batch: every layer's tensors without
// recompute (selective recompute of attention's core saves nothing more once
// flash attention keeps no scores); with full recompute each layer's input
// (2h; in host memory where the stack offloads it) and one layer rebuilt in
// the backward pass. Sequence parallelism divides by t, context parallelism
// holds s / c tokens; 1F1B keeps p micro-batches of L/p layers in flight on
// the first stage: L layers' worth.
double training_activations(const Request& request, const ModelShape& model, const Layout& layout) {
  const StackProfile& stack = stack_profile(request.effective_stack());
  const double s = static_cast<double>(request.seq_len) / layout.context;
  const double b = request.micro_batch;
  const double t = layout.tensor;
  const double tokens = s * b;
  const int moe_layers = model.moe ? model.layers - model.moe->dense_layers : 0;
  const double dense_layer = layer_bytes_per_token(request, model, stack, false);
  const double widest =
      model.moe ? std::max(dense_layer, layer_bytes_per_token(request, model, stack, true)) : dense_layer;
  const Recompute recompute = layout.recompute.value_or(request.effective_recompute());
  // DualPipe keeps p + 1 micro-batches in flight where 1F1B keeps p (arXiv
  // 2412.19437 table 2).
  const double in_flight = runs_dualpipe(request, layout) ? (layout.pipeline + 1.0) / layout.pipeline : 1.0;
  double total = 0;
  if (recompute == Recompute::full) {
    const double kept_layers = stack.offloaded_checkpoints ? 2.0 : model.layers;
    total = tokens * (2.0 * model.hidden * kept_layers + widest) / t;
  } else {
    const double all = dense_layer * (model.layers - moe_layers) +
                       (moe_layers > 0 ? layer_bytes_per_token(request, model, stack, true) * moe_layers : 0.0);
    total = tokens * all / t;
  }
  total *= in_flight;
  // The logits and the loss over the vocabulary, by how the stack computes
  // them (docs/methodology.md §2): BF16 logits, their FP32 copy and the FP32
  // log-softmax kept for backward (Hugging Face); BF16 logits and one FP32
  // chunk of eight (torchtune's, LitGPT's chunked loss); FP32 logits split
  // over the tensor-parallel ranks (Megatron-Core's fused cross-entropy).
  const double logits = s * b * model.vocab;
  switch (request.effective_loss()) {
    case Loss::full: total += (2.0 + 4.0 + 4.0) * logits / t; break;
    case Loss::chunked: total += (2.0 + 4.0 / loss_chunks) * logits / t; break;
    case Loss::fused: total += 4.0 * logits / t; break;
  }
  return total;
}

}  // namespace

namespace sizing {

double serving_workspace_bytes(const Request& request, const ModelShape& model, const Layout& layout) {
  // The engine profiles one forward pass at max_batched_tokens: the hidden
  // state and the MLP's gate and up projections in BF16 (split by tensor
  // parallelism), and FP32 logits for the sequences sampled.
  const double tokens = request.max_batched_tokens.value_or(8192);
  const double mlp = model.moe ? static_cast<double>(model.moe->expert_ffn) * model.moe->experts_per_token
                               : static_cast<double>(model.ffn);
  const double per_token = 2.0 * (2.0 * model.hidden + 2.0 * mlp / layout.tensor);
  // A step samples at most one token per running sequence, and has at most
  // max_batched_tokens of them.
  const double sampled = std::min(request.max_batch.value_or(256), request.max_batched_tokens.value_or(8192));
  return tokens * per_token + 4.0 * sampled * static_cast<double>(model.vocab);
}

}  // namespace sizing

// One margin each (docs/methodology.md §2). Training: the whole card, with
// 2 GiB a GPU for what the estimate does not allocate (the CUDA context, NCCL
// buffers, the allocator's slack); the estimate itself is within 10% of
// measured peaks, and a plan under 5% headroom is labelled tight. Serving: the
// engine's share of the card (vLLM's gpu_memory_utilization of 0.9, which
// already holds the runtime's own memory); an engine whose share is of the
// memory left free gets the whole card here and its share in the KV cache's
// room (sizing::serve).
MemoryPolicy memory_policy(const Request& request) {
  if (is_training(request.task)) {
    return {1.0, 2.0};
  }
  const EngineProfile& engine = engine_profile(request.engine.value_or(ServingEngine::vllm));
  const double share = request.serving_memory_fraction.value_or(engine.memory_fraction);
  return engine.fraction_of_free ? MemoryPolicy{1.0, 0.0, share} : MemoryPolicy{share, 0.0, 1.0};
}

namespace {

// Bytes per parameter of the transformer blocks at the precision.
double block_bytes(InferencePrecision precision) {
  switch (precision) {
    case InferencePrecision::bf16: return 2.0;
    case InferencePrecision::fp8: return 1.0;
    case InferencePrecision::int8: return bytes_int8_weight;
    case InferencePrecision::int4: return bytes_int4_weight;
    case InferencePrecision::fp4: return bytes_fp4_weight;
  }
  return 2.0;
}

// The peak over the step's phases (methodology §2, "Peak over phases"):
// where the gradients are made in the backward pass and freed after the
// optimizer step, and a step is one micro-batch, the activations (freed as
// the backward pass goes) and the gradients are never held together in full.
// Gradient accumulation keeps the first micro-batch's gradients beside the
// next one's activations, and a pipeline's 1F1B runs one micro-batch's
// backward beside the others' forwards; gradients bounded to one layer (the
// optimizer in the backward pass, or offloaded as they are made) live beside
// the activations still held.
void at_peak(MemoryBreakdown& m, const StackProfile& stack, const Request& request, const Layout& layout) {
  if (stack.persistent_gradients || request.optimizer_in_backward || request.offload == Offload::optimizer_params ||
      layout.pipeline > 1 || micro_batches_per_step(request, layout) > 1) {
    m.phase = MemoryPhase::whole_step;
    m.released = 0;
    return;
  }
  m.phase = m.activations >= m.gradients ? MemoryPhase::forward : MemoryPhase::optimizer_step;
  m.released = std::min(m.activations, m.gradients);
}

}  // namespace

double weight_bytes(const Request& request, const ModelShape& model) {
  // Quantised checkpoints (FP8 as llm-compressor and DeepSeek publish them,
  // GPTQ, AWQ) leave the embeddings and LM head in BF16.
  const double embeddings = std::min(model.embedding_params(), model.params);
  return block_bytes(request.precision) * (model.params - embeddings) + 2.0 * embeddings;
}

double routed_weight_bytes(const Request& request, const ModelShape& model) {
  return block_bytes(request.precision) * model.routed_expert_params();
}

MemoryBreakdown memory_per_gpu(const Request& request, const ModelShape& model, const Layout& layout) {
  const double params = model.params;
  const double t = layout.tensor;
  const double p = layout.pipeline;
  const double d = layout.data;
  MemoryBreakdown m;
  m.reserve = memory_policy(request).reserve_gib * bytes_per_gib;
  switch (request.task) {
    case Task::pretrain:
    case Task::full: {
      // Mixed-precision AdamW: BF16 weights 2 + BF16 gradients 2 + FP32 master,
      // m and v 12 bytes per parameter (ZeRO, arXiv 1910.02054), split by TP x PP
      // and sharded over DP by the ZeRO stage.
      const double shard = params / (t * p);
      const int z = layout.zero_stage;
      // ZeRO shards over every rank that holds the same layers: the data-
      // and context-parallel ones (Megatron's distributed optimizer, FSDP's mesh).
      const double ranks = static_cast<double>(layout.data) * layout.context;
      const StackProfile& stack = stack_profile(request.effective_stack());
      // FP32 parameters and gradients in place of BF16 ones beside the
      // optimizer's FP32 master copy: the same bytes, held elsewhere.
      const TrainingBytes bytes = trained_bytes(request);
      const bool fp32_params = bytes.weights > training_bytes(request.optimizer).weights;
      const double gathered = 2.0 * 2.0 * model.params_per_layer() / t;  // two layers: current + prefetch
      m.weights = bytes.weights * shard / (z >= 3 ? ranks : 1.0);
      m.gradients = bytes.gradients * shard / (z >= 2 ? ranks : 1.0);
      m.optimizer = bytes.optimizer * shard / (z >= 1 ? ranks : 1.0);
      // Expert parallelism: each rank holds 1/ep of the routed experts; where
      // ZeRO already shards a state over the ranks, it shards the experts too.
      if (layout.expert > 1) {
        const double spread = model.routed_expert_params() * (1.0 - 1.0 / layout.expert) / (t * p);
        m.weights -= z >= 3 ? 0.0 : bytes.weights * spread;
        m.gradients -= z >= 2 ? 0.0 : bytes.gradients * spread;
      }
      // DualPipe feeds micro-batches from both ends, each GPU holding the
      // layers of two stages (DeepSeek-V3, arXiv 2412.19437 table 2: "2x"
      // parameters) with their gradients and optimizer shards.
      if (runs_dualpipe(request, layout)) {
        m.weights *= 2.0;
        m.gradients *= 2.0;
        m.optimizer *= 2.0;
      }
      if (z >= 3 && ranks > 1) {
        m.weights += gathered;
      }
      // Optimizer in the backward pass (torchtune's optimizer_in_bwd): each
      // layer is updated as its gradients are made, so one layer's are held.
      if (request.optimizer_in_backward) {
        m.gradients = std::min(m.gradients, bytes.gradients * model.params_per_layer() / t);
      }
      // Offload (ZeRO-Offload, arXiv 2101.06840; ZeRO-Infinity, arXiv 2104.07857):
      // the optimizer states and master weights, and with the parameters also
      // the BF16 weights, live in host memory; the GPU holds the layers at work.
      if (request.offload != Offload::none) {
        m.host = m.optimizer;
        m.optimizer = 0;
      }
      if (request.offload == Offload::optimizer_params) {
        // The weights and the gradients too (FSDP's CPU offload, ZeRO-Infinity):
        // the GPU holds the layers at work and one layer's gradients.
        const double resident = bytes.weights * shard / (z >= 3 ? ranks : 1.0);
        const double layer_gradients = bytes.gradients * model.params_per_layer() / t;
        m.host += resident + std::max(0.0, m.gradients - layer_gradients);
        m.weights = gathered;
        m.gradients = std::min(m.gradients, layer_gradients);
      }
      m.activations = training_activations(request, model, layout);
      // Autocast's BF16 copies of the FP32 weights, kept from each layer's
      // forward to its backward (ZeRO-3 gathers two layers instead).
      if (fp32_params && !(z >= 3 && ranks > 1) && request.offload != Offload::optimizer_params) {
        const double input_embedding = model.tied_embeddings ? 0.0 : static_cast<double>(model.vocab) * model.hidden;
        m.activations += 2.0 * (model.params - input_embedding) / (t * p);
      }
      at_peak(m, stack, request, layout);
      break;
    }
    case Task::lora:
    case Task::qlora: {
      const double adapters = model.lora_params(request.lora_rank, request.lora_targets);
      const double base = frozen_base_bytes(request, model);
      const double base_bytes_per_param = request.task == Task::qlora ? bytes_nf4_with_double_quant : 2.0;
      // Adapters train in FP32 with mixed-precision AdamW (PEFT's default):
      // 4 + 4 + 8 bytes; pure BF16 halves that; 8-bit Adam stores 2 bytes of moments.
      const TrainingBytes adapter_bytes = trained_bytes(request);
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
      if (request.offload != Offload::none) {  // the adapters' states only: the base is frozen
        m.host = m.optimizer;
        m.optimizer = 0;
      }
      m.activations = training_activations(request, model, layout);
      at_peak(m, stack_profile(request.effective_stack()), request, layout);
      break;
    }
    case Task::inference: {
      m.weights = weight_bytes(request, model) / (t * p);
      if (layout.wide_expert()) {  // the routed experts over the group, the rest on every GPU
        m.weights -= routed_weight_bytes(request, model) * (1.0 - 1.0 / layout.expert);
      }
      // The cache for --concurrency sequences (one when the operating point is
      // still to be chosen), then the workspace of one full step.
      m.kv_cache = kv_bytes_per_sequence(request, model, layout) * request.concurrency.value_or(1);
      m.activations = serving_workspace_bytes(request, model, layout);
      break;
    }
  }
  return m;
}

}  // namespace gpu_advise
