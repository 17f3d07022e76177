// Training time from the layout: one optimizer step's compute, tensor-parallel
// collectives, pipeline bubble, data-parallel traffic and offload stalls, per
// GPU; the run is its steps (docs/methodology.md §4).
#include <algorithm>
#include <cmath>

#include "estimate/parts.hpp"

namespace gpu_advise::sizing {

namespace {

// A ring collective's share of the data each GPU sends: (n - 1) / n.
double ring(int n) { return n > 1 ? (n - 1.0) / n : 0.0; }

// The FLOPs per token the GPUs compute beside the model's: the recomputed
// forward (all of it, or only attention's core for selective recompute).
double recompute_flops_per_token(Recompute mode, double forward_backward, double attention) {
  switch (mode) {
    case Recompute::full: return forward_backward / 3.0;
    case Recompute::selective: return attention / 3.0;
    case Recompute::none: return 0.0;
  }
  return 0.0;
}

// Bytes a second a GPU moves in a collective over `span` GPUs, one direction,
// at the link's full rate: the scale-up fabric inside its domain, PCIe inside
// one server, else the scale-out network (its Gb/s per GPU; PCIe when the
// catalog has none).
double link_bytes_per_s(const GpuSpec& gpu, int span) {
  const int domain = gpu.interconnect.domain_size;
  double gb_per_s = pcie_gb_per_s(gpu);
  if (domain >= 2 && span <= domain) {
    gb_per_s = gpu.interconnect.bandwidth_gb_per_s / 2.0;
  } else if (span > std::max(1, gpu.node.gpus_per_node) && gpu.node.scale_out_gbps_per_gpu > 0) {
    gb_per_s = std::min(gb_per_s, gpu.node.scale_out_gbps_per_gpu / 8.0);
  }
  return gb_per_s * 1e9;
}

}  // namespace

TrainingEstimate training_time(const Request& request, const ModelShape& model, const GpuSpec& gpu,
                               const Layout& layout, std::vector<EstimateNote>& notes) {
  TrainingEstimate t;
  t.tokens = request.training_tokens();
  const bool adapters = request.task == Task::lora || request.task == Task::qlora;
  const Recompute recompute = layout.recompute.value_or(request.effective_recompute());

  // 6·N_active·D plus attention 12·L·(a·d_h)·s per token (PaLM, arXiv
  // 2204.02311 app. B); LoRA skips the frozen weights' gradients (2·N).
  const double attention = model.attention_training_flops_per_token(request.seq_len);
  const double forward_backward = 6.0 * model.active_params + attention;
  const double model_per_token = adapters ? forward_backward * 2.0 / 3.0 : forward_backward;
  double hardware_per_token = model_per_token + recompute_flops_per_token(recompute, forward_backward, attention);
  if (request.task == Task::qlora) {
    hardware_per_token *= qlora_slowdown;  // dequantising the NF4 weights, counted as extra work
  }
  t.flops = model_per_token * t.tokens;
  t.hardware_flops = hardware_per_token * t.tokens;
  // Attention's score and value products run in BF16 (FlashAttention) even
  // when the linear layers run in FP8: their share of the work, at BF16's peak.
  const double attention_work =
      attention * (adapters ? 2.0 / 3.0 : 1.0) + (recompute == Recompute::none ? 0.0 : attention / 3.0);
  const double attention_share =
      attention_work / (model_per_token + recompute_flops_per_token(recompute, forward_backward, attention));

  // The kernels' efficiency: the catalog's MFU of its architecture, scaled to
  // what the kernels reach before communication and bubbles.
  Range efficiency =
      scale(adapters ? gpu.efficiency.fine_tune_mfu : gpu.efficiency.training_mfu, training_kernel_factor);
  t.peak_tflops = gpu.compute.bf16_tflops;
  if (request.fp8_training) {
    if (gpu.compute.fp8_tflops) {
      t.fp8 = true;
      t.peak_tflops = *gpu.compute.fp8_tflops;
      efficiency = scale(efficiency, fp8_training_factor);
    } else {
      notes.push_back(EstimateNote{EstimateNote::Kind::fp8_fallback, 0, 0});
    }
  }
  if (layout.context > 1) {
    efficiency = scale(efficiency, context_parallel_factor);  // the ring's KV exchange and uneven causal blocks
  }
  if (model.moe) {
    efficiency = scale(efficiency, moe_kernel_factor);
  }

  // One optimizer step: the global batch in micro-batches of --micro-batch
  // sequences on each data-parallel rank.
  TrainingStep& step = t.step;
  const int data = std::max(1, layout.data);
  const int gpus = layout.model_parallel() * data;
  const int micro = std::max(1, request.micro_batch);
  const double ranks_batch = static_cast<double>(data) * micro;  // sequences in one micro-batch, all ranks
  step.micro_batches = std::max(1, static_cast<int>(std::lround(request.effective_global_batch() / ranks_batch)));
  step.tokens = step.micro_batches * ranks_batch * request.seq_len;
  const double steps = t.tokens / step.tokens;
  const double attention_peak_tflops = t.fp8 ? gpu.compute.bf16_tflops / fp8_training_factor : t.peak_tflops;
  auto compute_s = [&](double kernel) {
    const double work = hardware_per_token * step.tokens / gpus;
    return work * ((1.0 - attention_share) / t.peak_tflops + attention_share / attention_peak_tflops) / (1e12 * kernel);
  };

  // Tensor parallelism: per layer and micro-batch two all-reduce-sized
  // collectives forward and two backward (Megatron with sequence
  // parallelism: all-gather + reduce-scatter), two more when the forward is
  // recomputed; not overlapped.
  const int stage_layers = (model.layers + layout.pipeline - 1) / layout.pipeline;
  const double micro_tokens = static_cast<double>(micro) * request.seq_len / layout.context;
  const int passes = recompute == Recompute::full ? 3 : 2;  // forward, backward and the recomputed forward
  auto tensor_s = [&](double link) {
    if (layout.tensor <= 1) {
      return 0.0;
    }
    const double activation_bytes = micro_tokens * model.hidden * 2.0;
    const bool scale_up = gpu.interconnect.domain_size >= std::max(2, layout.tensor);
    const double latency = scale_up ? link_latency_s : pcie_latency_s;
    const double one = 2.0 * ring(layout.tensor) * activation_bytes / (link * link_bytes_per_s(gpu, layout.tensor)) +
                       2.0 * (layout.tensor - 1) * latency;
    return step.micro_batches * stage_layers * 2.0 * passes * one;
  };
  // Expert parallelism (MoE): the experts spread over the data-parallel ranks
  // of one scale-up domain (Megatron-Bridge's recipes: EP 8 on 8-GPU
  // servers); each MoE layer sends its tokens' hidden states to their top-k
  // experts' GPUs and back, in every pass.
  const int shards = data * layout.context;
  const int domain_ranks = std::max(1, gpu.interconnect.domain_size / layout.tensor);
  const int expert_ranks = !model.moe          ? 1
                           : layout.expert > 1 ? std::min(layout.expert, model.moe->experts)
                                               : std::max(1, std::min({model.moe->experts, shards, domain_ranks}));
  auto expert_s = [&](double link) {
    if (!model.moe || expert_ranks <= 1) {
      return 0.0;
    }
    const int moe_layers = (model.layers - model.moe->dense_layers + layout.pipeline - 1) / layout.pipeline;
    const double bytes = micro_tokens * model.hidden * 2.0 * model.moe->experts_per_token * 2.0;
    const int span = expert_ranks * layout.tensor;
    return step.micro_batches * moe_layers * passes * ring(expert_ranks) * bytes / (link * link_bytes_per_s(gpu, span));
  };

  // Pipeline fill and drain: (p - 1) / (v·m) of the stage's work, with
  // interleaved stages of two layers each when there are micro-batches enough
  // (Megatron-Core and NeMo recipes: 70B PP 8 VP 5, 405B PP 8 VP 8).
  if (layout.pipeline > 1 && step.micro_batches >= layout.pipeline) {
    step.interleave = std::max(1, stage_layers / layers_per_virtual_stage);
  }
  // Stage to stage, the activations and their gradients are sent while the
  // next micro-batch computes (Megatron's overlapped p2p): not charged.
  auto bubble_s = [&](double work) {
    return layout.pipeline > 1 ? (layout.pipeline - 1.0) / (step.interleave * step.micro_batches) * work : 0.0;
  };

  // Data parallelism over the data and context ranks: gradients reduced and
  // weights gathered in BF16 once a step (ZeRO 0-2), or every
  // micro-batch's forward and backward (ZeRO-3, FSDP). Overlapped with one
  // micro-batch's compute (ZeRO 0-2) or all of it (ZeRO-3).
  double data_bytes = 0;
  if (shards > 1) {
    const double routed = model.routed_expert_params();
    const double held = (model.params - routed + routed / expert_ranks) / (layout.tensor * layout.pipeline);
    // ZeRO-3 gathers the weights as they are stored: a LoRA or QLoRA job's
    // frozen base as memory holds it (NF4 for QLoRA), full training's in BF16.
    const double gathered_bytes =
        adapters ? frozen_base_bytes(request, model) * held / model.params : param_gather_bytes * held;
    const double trained =
        adapters ? model.lora_params(request.lora_rank, request.lora_targets) / (layout.tensor * layout.pipeline)
                 : held;
    const double f = ring(shards);
    switch (layout.zero_stage) {
      case 0: data_bytes = 2.0 * f * grad_reduce_bytes * trained; break;
      case 1:
      case 2: data_bytes = f * (grad_reduce_bytes + param_gather_bytes) * trained; break;
      default: data_bytes = step.micro_batches * f * (2.0 * gathered_bytes + grad_reduce_bytes * trained); break;
    }
  }
  auto data_s = [&](double compute, double link) {
    const double window = layout.zero_stage >= 3 ? compute : compute / step.micro_batches;
    return std::max(0.0, data_bytes / (link * link_bytes_per_s(gpu, gpus)) - window);
  };

  // Offload: every optimizer step sends the GPU's gradients to the host and
  // takes its weights back over PCIe (and, with the parameters offloaded, the
  // weights for every micro-batch's forward and backward pass), and the host
  // runs the optimizer; counted without overlap (ZeRO-Offload overlaps some).
  auto offload_s = [&](double link, double host_gb_per_s) {
    if (request.offload == Offload::none) {
      return 0.0;
    }
    const double trained = adapters ? model.lora_params(request.lora_rank, request.lora_targets) : model.params;
    const double partition = trained / gpus;
    double pcie_bytes = 4.0 * partition;  // BF16 gradients down, BF16 weights up
    if (request.offload == Offload::optimizer_params) {
      // the weights in for every micro-batch's forward and backward pass
      pcie_bytes += step.micro_batches * 2.0 * 2.0 * partition;
    }
    const double per_server = partition * std::min(gpus, std::max(1, gpu.node.gpus_per_node));
    return pcie_bytes / (pcie_gb_per_s(gpu) * link * 1e9) +
           per_server * host_adam_bytes_per_param / (host_gb_per_s * 1e9);
  };

  // The step at a kernel efficiency and host bandwidth, widened by the step
  // model's own error on the band's corners.
  auto step_at = [&](double kernel, double link, double host_gb_per_s) {
    TrainingStep s = step;
    s.compute = compute_s(kernel);
    s.tensor = tensor_s(link) + expert_s(link);
    s.bubble = bubble_s(s.compute + s.tensor);
    s.data = data_s(s.compute, link);
    s.offload = offload_s(link, host_gb_per_s);
    return s;
  };
  const Range& link = training_link_efficiency;
  const TrainingStep fast = step_at(efficiency.high, link.high, host_memory_gb_per_s.high);
  const TrainingStep slow = step_at(efficiency.low, link.low, host_memory_gb_per_s.low);
  step = step_at(efficiency.typical, link.typical, host_memory_gb_per_s.typical);
  const Range seconds{fast.seconds() * training_model_error.low, step.seconds() * training_model_error.typical,
                      slow.seconds() * training_model_error.high};

  t.wall_hours = scale(seconds, steps / 3600.0);
  t.gpu_hours = scale(t.wall_hours, gpus);
  t.offload_hours = Range{steps * fast.offload / 3600.0, steps * step.offload / 3600.0, steps * slow.offload / 3600.0};
  t.tokens_per_s_per_gpu = {step.tokens / (seconds.high * gpus), step.tokens / (seconds.typical * gpus),
                            step.tokens / (seconds.low * gpus)};
  auto mfu = [&](double hours) { return t.flops / (hours * 3600.0 * t.peak_tflops * 1e12); };
  t.mfu = {mfu(t.gpu_hours.high), mfu(t.gpu_hours.typical), mfu(t.gpu_hours.low)};

  // Long runs lose time to restarts, checkpoints and evaluation: pretraining
  // (or any run given --goodput) takes wall time / goodput.
  if (request.task == Task::pretrain || request.goodput_stated) {
    t.goodput = request.goodput;
    t.wall_hours = scale(t.wall_hours, 1.0 / t.goodput);
  }
  return t;
}

}  // namespace gpu_advise::sizing
