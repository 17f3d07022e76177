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

// The work of one token, in FLOPs.
struct TokenWork {
  double model = 0;            // the model's: 6·N_active + attention (two thirds of it for adapters)
  double hardware = 0;         // the GPUs': with the recomputed forward and QLoRA's dequantising
  double attention_share = 0;  // attention's share of the GPUs' work (before QLoRA's), run at BF16's peak
};

// Decides what a token costs: 6·N_active·D plus attention 12·L·(a·d_h)·s per
// token (PaLM, arXiv 2204.02311 app. B); LoRA skips the frozen weights'
// gradients (2·N).
TokenWork token_work(const Request& request, const ModelShape& model, bool adapters, Recompute recompute) {
  TokenWork work;
  const double attention = model.attention_training_flops_per_token(request.seq_len);
  const double forward_backward = 6.0 * model.active_params + attention;
  work.model = adapters ? forward_backward * 2.0 / 3.0 : forward_backward;
  work.hardware = work.model + recompute_flops_per_token(recompute, forward_backward, attention);
  if (request.task == Task::qlora) {
    work.hardware *= qlora_slowdown;  // dequantising the NF4 weights, counted as extra work
  }
  // Attention's score and value products run in BF16 (FlashAttention) even
  // when the linear layers run in FP8: their share of the work, at BF16's peak.
  const double attention_work =
      attention * (adapters ? 2.0 / 3.0 : 1.0) + (recompute == Recompute::none ? 0.0 : attention / 3.0);
  work.attention_share =
      attention_work / (work.model + recompute_flops_per_token(recompute, forward_backward, attention));
  return work;
}

// The kernels' efficiency band and the peak it is against.
struct Kernels {
  Range efficiency;
  double peak_tflops = 0;
  bool fp8 = false;  // FP8 matmuls used
};

// Decides the kernels' efficiency: the catalog's MFU of its architecture,
// scaled to what the kernels reach before communication and bubbles, against
// FP8's peak with --fp8-training where the card has one (else a note says so).
Kernels kernels_of(const Request& request, const ModelShape& model, const GpuSpec& gpu, const Layout& layout,
                   bool adapters, std::vector<EstimateNote>& notes) {
  Kernels k;
  k.efficiency = scale(adapters ? gpu.efficiency.fine_tune_mfu : gpu.efficiency.training_mfu,
                       training_kernel_factor * stack_profile(request.effective_stack()).speed);
  k.peak_tflops = gpu.compute.bf16_tflops;
  if (request.fp8_training) {
    if (gpu.compute.fp8_tflops) {
      k.fp8 = true;
      k.peak_tflops = *gpu.compute.fp8_tflops;
      k.efficiency = scale(k.efficiency, fp8_training_factor);
    } else {
      notes.push_back(EstimateNote{EstimateNote::Kind::fp8_fallback, 0, 0});
    }
  }
  if (layout.context > 1) {
    k.efficiency = scale(k.efficiency, context_parallel_factor);  // the ring's KV exchange and uneven causal blocks
  }
  if (model.moe) {
    k.efficiency = scale(k.efficiency, moe_kernel_factor);
  }
  // --calibration: the card and stack's measured speed.
  if (const Calibration* c = training_calibration(request, gpu); c != nullptr && c->speed.applied) {
    k.efficiency = scale(k.efficiency, c->speed.factor);
    // A share of the peak: a factor fitted far from the model cannot take it past the peak.
    k.efficiency =
        Range{std::min(k.efficiency.low, 1.0), std::min(k.efficiency.typical, 1.0), std::min(k.efficiency.high, 1.0)};
  }
  return k;
}

// One optimizer step of a job on a layout: what each of its parts reads,
// derived once.
struct StepModel {
  const Request& request;
  const ModelShape& model;
  const GpuSpec& gpu;
  const Layout& layout;
  bool adapters = false;  // LoRA or QLoRA
  Recompute recompute = Recompute::none;
  TokenWork work;
  Kernels kernels;
  double attention_peak_tflops = 0;  // attention's: BF16's when the linear layers run in FP8
  int data = 1;                      // data-parallel ranks
  int gpus = 1;
  int micro = 1;            // sequences in one micro-batch, one rank
  int stage_layers = 0;     // layers in one pipeline stage
  double micro_tokens = 0;  // tokens of one micro-batch on one context-parallel rank
  int passes = 2;           // forward, backward and the recomputed forward
  int shards = 1;           // data-parallel and context-parallel ranks
  int expert_ranks = 1;     // the ranks a MoE layer's experts spread over
  PipelineSchedule schedule = PipelineSchedule::interleaved;
  double data_bytes = 0;  // data-parallel traffic of one step, per GPU
  TrainingStep step;      // its micro-batches, tokens and interleave; its times zero
};

// The experts' spread (MoE): the layout's expert parallelism, at most the
// experts (1: every rank holds them all, as memory counts them).
int expert_spread(const ModelShape& model, const Layout& layout) {
  return model.moe ? std::max(1, std::min(layout.expert, model.moe->experts)) : 1;
}

// Decides the step's data-parallel traffic over the data and context ranks:
// gradients reduced and weights gathered in BF16 once a step (ZeRO 0-2), or
// every micro-batch's forward and backward (ZeRO-3, FSDP). A MoE model's
// routed experts are each held by one of every `e` expert-parallel ranks: they
// are reduced and gathered over the d/e ranks that hold the same experts
// (Megatron-Core's expert data parallelism), none where e = d.
double data_parallel_bytes(const StepModel& m) {
  if (m.shards <= 1) {
    return 0;
  }
  const Request& request = m.request;
  const ModelShape& model = m.model;
  const Layout& layout = m.layout;
  const double split = static_cast<double>(layout.tensor) * layout.pipeline;
  const double routed = model.routed_expert_params() / split;
  const double dense = model.params / split - routed;
  const double experts_held = routed / m.expert_ranks;
  // ZeRO-3 gathers the weights as they are stored: a LoRA or QLoRA job's
  // frozen base as memory holds it (NF4 for QLoRA), full training's in BF16.
  const double stored = m.adapters ? frozen_base_bytes(request, model) / model.params : param_gather_bytes;
  const double trained = m.adapters ? model.lora_params(request.lora_rank, request.lora_targets) / split : 0.0;
  // Bytes a parameter crosses the ring once a step, trained and frozen.
  auto volume = [&](double trained_params, double gathered_params, double ranks) {
    const double f = ring(static_cast<int>(std::lround(ranks)));
    switch (layout.zero_stage) {
      case 0: return 2.0 * f * grad_reduce_bytes * trained_params;
      case 1:
      case 2: return f * (grad_reduce_bytes + param_gather_bytes) * trained_params;
      default: return m.step.micro_batches * f * (2.0 * stored * gathered_params + grad_reduce_bytes * trained_params);
    }
  };
  if (m.adapters) {
    return volume(trained, dense + experts_held, m.shards);
  }
  return volume(dense, dense, m.shards) +
         volume(experts_held, experts_held, std::max(1.0, static_cast<double>(m.shards) / m.expert_ranks));
}

// Decides the step's shape: the global batch in micro-batches of
// --micro-batch sequences on each data-parallel rank, and the terms every
// part of the step reads (a note when FP8 training falls back to BF16).
StepModel step_model(const Request& request, const ModelShape& model, const GpuSpec& gpu, const Layout& layout,
                     std::vector<EstimateNote>& notes) {
  StepModel m{request, model, gpu, layout};
  m.adapters = request.task == Task::lora || request.task == Task::qlora;
  m.recompute = layout.recompute.value_or(request.effective_recompute());
  m.work = token_work(request, model, m.adapters, m.recompute);
  m.kernels = kernels_of(request, model, gpu, layout, m.adapters, notes);
  m.attention_peak_tflops = m.kernels.fp8 ? gpu.compute.bf16_tflops / fp8_training_factor : m.kernels.peak_tflops;
  m.data = std::max(1, layout.data);
  m.gpus = layout.model_parallel() * m.data;
  m.micro = std::max(1, request.micro_batch);
  const double ranks_batch = static_cast<double>(m.data) * m.micro;  // sequences in one micro-batch, all ranks
  // The optimizer in the backward pass updates the weights after every
  // micro-batch: no accumulation, the step is one micro-batch a rank
  // (torchtune's optimizer_in_bwd; methodology §2).
  m.step.micro_batches = micro_batches_per_step(request, layout);
  m.step.tokens = m.step.micro_batches * ranks_batch * request.seq_len;
  m.stage_layers = (model.layers + layout.pipeline - 1) / layout.pipeline;
  m.micro_tokens = static_cast<double>(m.micro) * request.seq_len / layout.context;
  m.passes = m.recompute == Recompute::full ? 3 : 2;
  m.shards = m.data * layout.context;
  m.expert_ranks = expert_spread(model, layout);
  // The schedule: DualPipe where it runs, plain 1F1B where it was asked for
  // and cannot (too few micro-batches, an odd pipeline).
  m.schedule = request.pipeline_schedule.value_or(PipelineSchedule::interleaved);
  if (m.schedule == PipelineSchedule::dualpipe && !runs_dualpipe(request, layout)) {
    m.schedule = PipelineSchedule::one_f_one_b;
  }
  // Interleaved: chunks of two layers each when there are micro-batches
  // enough (Megatron-Core and NeMo recipes: 70B PP 8 VP 5, 405B PP 8 VP 8);
  // the step reports 1F1B where a stage is too short to split.
  if (m.schedule == PipelineSchedule::interleaved && layout.pipeline > 1 && m.step.micro_batches >= layout.pipeline) {
    m.step.interleave = std::max(1, m.stage_layers / layers_per_virtual_stage);
  }
  if (layout.pipeline > 1) {
    m.step.schedule = m.schedule == PipelineSchedule::interleaved && m.step.interleave == 1
                          ? PipelineSchedule::one_f_one_b
                          : m.schedule;
  }
  m.data_bytes = data_parallel_bytes(m);
  return m;
}

// The matrix products, attention and recompute at a kernel efficiency.
double compute_s(const StepModel& m, double kernel) {
  const double work = m.work.hardware * m.step.tokens / m.gpus;
  const double share = m.work.attention_share;
  return work * ((1.0 - share) / m.kernels.peak_tflops + share / m.attention_peak_tflops) / (1e12 * kernel);
}

// Tensor parallelism: per layer and micro-batch two all-reduce-sized
// collectives forward and two backward (Megatron with sequence parallelism:
// all-gather + reduce-scatter), two more when the forward is recomputed; not
// overlapped.
double tensor_s(const StepModel& m, double link) {
  const Layout& layout = m.layout;
  if (layout.tensor <= 1) {
    return 0.0;
  }
  const double activation_bytes = m.micro_tokens * m.model.hidden * 2.0;
  const bool scale_up = m.gpu.interconnect.domain_size >= std::max(2, layout.tensor);
  const double latency = scale_up ? link_latency_s : pcie_latency_s;
  const double one = 2.0 * ring(layout.tensor) * activation_bytes / (link * link_bytes_per_s(m.gpu, layout.tensor)) +
                     2.0 * (layout.tensor - 1) * latency;
  return m.step.micro_batches * m.stage_layers * 2.0 * m.passes * one;
}

// Expert parallelism (MoE): each MoE layer of the stage dispatches its
// tokens' hidden states to their top-k experts' GPUs and combines the outputs
// in every pass, over the scale-up domain, the server and the network at once
// (the serving model's all-to-all, §5). In BF16 (Megatron-Core's alltoall
// dispatcher casts to FP8 after it); DeepSeek-V3's FP8 training dispatches
// in FP8 (arXiv 2412.19437 §3.3.2), taken with its DualPipe schedule.
double expert_s(const StepModel& m, double link) {
  const ModelShape& model = m.model;
  if (!model.moe || m.expert_ranks <= 1) {
    return 0.0;
  }
  const int moe_layers = (model.layers - model.moe->dense_layers + m.layout.pipeline - 1) / m.layout.pipeline;
  const ExpertAllToAll forward(model, m.gpu, m.expert_ranks, m.layout.tensor,
                               m.kernels.fp8 && m.schedule == PipelineSchedule::dualpipe ? 1.0 : 2.0);
  const ExpertAllToAll backward(model, m.gpu, m.expert_ranks, m.layout.tensor, 2.0);
  const double scale = link / link_efficiency;  // the band's corner against the serving model's links
  const double one = (m.passes - 1) * forward.layer_s(m.micro_tokens, scale) + backward.layer_s(m.micro_tokens, scale);
  return m.step.micro_batches * moe_layers * one;
}

// Pipeline fill and drain: (p - 1) / (v·m) of the stage's work for 1F1B and
// its interleaved form; DualPipe's (p/2 - 1)(F&B + B - 3W) (DeepSeek-V3,
// arXiv 2412.19437 table 2) with B = 2F and W = B/2 is (p/2 - 1)·2F of the
// m·3F a stage computes. Stage to stage, the activations and their gradients
// are sent while the next micro-batch computes (Megatron's overlapped p2p):
// not charged.
double bubble_s(const StepModel& m, double work) {
  const int pipeline = m.layout.pipeline;
  if (pipeline <= 1) {
    return 0.0;
  }
  if (m.schedule == PipelineSchedule::dualpipe) {
    return std::max(0.0, pipeline / 2.0 - 1.0) * 2.0 / (3.0 * m.step.micro_batches) * work;
  }
  return (pipeline - 1.0) / (m.step.interleave * m.step.micro_batches) * work;
}

// The data-parallel traffic not hidden: overlapped with one micro-batch's
// compute (ZeRO 0-2) or all of it (ZeRO-3).
double data_s(const StepModel& m, double compute, double link) {
  const double window = m.layout.zero_stage >= 3 ? compute : compute / m.step.micro_batches;
  return std::max(0.0, m.data_bytes / (link * link_bytes_per_s(m.gpu, m.gpus)) - window);
}

// Offload: every optimizer step sends the GPU's gradients to the host and
// takes its weights back over PCIe (and, with the parameters offloaded, the
// weights for every micro-batch's forward and backward pass), and the host
// runs the optimizer; counted without overlap (ZeRO-Offload overlaps some).
double offload_s(const StepModel& m, double link, double host_gb_per_s) {
  const Request& request = m.request;
  if (request.offload == Offload::none) {
    return 0.0;
  }
  const double trained = m.adapters ? m.model.lora_params(request.lora_rank, request.lora_targets) : m.model.params;
  const double partition = trained / m.gpus;
  double pcie_bytes = 4.0 * partition;  // BF16 gradients down, BF16 weights up
  if (request.offload == Offload::optimizer_params) {
    // the weights in for every micro-batch's forward and backward pass
    pcie_bytes += m.step.micro_batches * 2.0 * 2.0 * partition;
  }
  const double per_server = partition * std::min(m.gpus, std::max(1, m.gpu.node.gpus_per_node));
  return pcie_bytes / (pcie_gb_per_s(m.gpu) * link * 1e9) +
         per_server * host_adam_bytes_per_param / (host_gb_per_s * 1e9);
}

// The step at a kernel efficiency, link efficiency and host bandwidth.
TrainingStep step_at(const StepModel& m, double kernel, double link, double host_gb_per_s) {
  TrainingStep s = m.step;
  s.compute = compute_s(m, kernel);
  // DualPipe runs one chunk's all-to-all beside another chunk's compute: only
  // what the compute cannot cover waits.
  const double experts = expert_s(m, link);
  s.tensor =
      tensor_s(m, link) + (m.schedule == PipelineSchedule::dualpipe ? std::max(0.0, experts - s.compute) : experts);
  s.bubble = bubble_s(m, s.compute + s.tensor);
  s.data = data_s(m, s.compute, link);
  s.offload = offload_s(m, link, host_gb_per_s);
  return s;
}

// Decides the run's figures from its steps on the band's corners: the wall
// and GPU-hours, the offload stalls, tokens/s per GPU and the MFU.
void run_figures(TrainingEstimate& t, const TrainingStep& fast, const TrainingStep& slow, const Range& seconds,
                 double steps, int gpus) {
  const TrainingStep& step = t.step;
  t.wall_hours = scale(seconds, steps / 3600.0);
  t.gpu_hours = scale(t.wall_hours, gpus);
  t.offload_hours = Range{steps * fast.offload / 3600.0, steps * step.offload / 3600.0, steps * slow.offload / 3600.0};
  t.tokens_per_s_per_gpu = {step.tokens / (seconds.high * gpus), step.tokens / (seconds.typical * gpus),
                            step.tokens / (seconds.low * gpus)};
  auto mfu = [&](double hours) { return t.flops / (hours * 3600.0 * t.peak_tflops * 1e12); };
  t.mfu = {mfu(t.gpu_hours.high), mfu(t.gpu_hours.typical), mfu(t.gpu_hours.low)};
}

// The time a run of `hours` loses: writing a checkpoint every interval, and
// at each interruption its restart and half an interval of work done again.
// The last checkpoint, the result, is saved with the job's overhead (cost.cpp).
double lost_hours(const TrainingEstimate::Checkpointing& c, double hours) {
  return std::max(0.0, std::ceil(hours / c.interval_hours - 1e-9) - 1.0) * c.write_hours +
         c.interruptions * (c.interval_hours / 2.0 + c.restart_hours);
}

// Decides the checkpoints (Young, 1974; Daly, 2006): one holds the weights
// and optimizer states (for LoRA, the adapters'), written by every server at
// once; the run of `gpus` GPUs is interrupted on average every
// 1 / (rate x gpus) hours, and checkpointing every sqrt(2 x write x MTBF)
// (at most once over the run) minimises the time lost.
TrainingEstimate::Checkpointing checkpointing(const Request& request, const ModelShape& model, const GpuSpec& gpu,
                                              int gpus, double hours) {
  TrainingEstimate::Checkpointing c;
  const bool adapters = request.task == Task::lora || request.task == Task::qlora;
  const TrainingBytes bytes = trained_bytes(request);
  const double trained = adapters ? model.lora_params(request.lora_rank, request.lora_targets) : model.params;
  c.bytes = trained * (bytes.weights + bytes.optimizer);
  const int servers = (gpus + std::max(1, gpu.node.gpus_per_node) - 1) / std::max(1, gpu.node.gpus_per_node);
  c.write_hours = c.bytes / (servers * checkpoint_gb_per_s_per_server * 1e9) / 3600.0;
  c.restart_hours = restart_hours;
  const double mtbf = 1.0 / (interruptions_per_gpu_hour * gpus);
  c.interval_hours = std::min(std::sqrt(2.0 * c.write_hours * mtbf), hours);
  c.interruptions = hours / mtbf;
  return c;
}

}  // namespace

TrainingEstimate training_time(const Request& request, const ModelShape& model, const GpuSpec& gpu,
                               const Layout& layout, std::vector<EstimateNote>& notes) {
  const StepModel m = step_model(request, model, gpu, layout, notes);
  TrainingEstimate t;
  t.tokens = request.training_tokens();
  t.flops = m.work.model * t.tokens;
  t.hardware_flops = m.work.hardware * t.tokens;
  t.fp8 = m.kernels.fp8;
  t.peak_tflops = m.kernels.peak_tflops;
  const double steps = t.tokens / m.step.tokens;

  // The step at the band's corners of kernel efficiency, link efficiency and
  // host bandwidth, widened by the step model's own error.
  const Range& kernel = m.kernels.efficiency;
  const Range& link = training_link_efficiency;
  t.step = step_at(m, kernel.typical, link.typical, host_memory_gb_per_s.typical);
  TrainingStep fast = step_at(m, kernel.high, link.high, host_memory_gb_per_s.high);
  TrainingStep slow = step_at(m, kernel.low, link.low, host_memory_gb_per_s.low);
  Range seconds{fast.seconds() * training_model_error.low, t.step.seconds() * training_model_error.typical,
                slow.seconds() * training_model_error.high};
  // Calibrated on three or more measurements: the band is theirs, the
  // leave-one-out extremes of measured over predicted speed.
  const Calibration* calibrated = training_calibration(request, gpu);
  if (calibrated != nullptr && calibrated->speed.applied && calibrated->speed.band_low && calibrated->speed.band_high) {
    fast = slow = t.step;
    seconds = Range{t.step.seconds() / *calibrated->speed.band_high, t.step.seconds(),
                    t.step.seconds() / *calibrated->speed.band_low};
  }
  run_figures(t, fast, slow, seconds, steps, m.gpus);

  // A run loses time to interruptions and checkpoints: wall time / goodput,
  // stated (--goodput) or derived from the run's size and length.
  if (request.goodput_stated) {
    t.goodput = request.goodput;
  } else {
    t.checkpointing = checkpointing(request, model, gpu, m.gpus, t.wall_hours.typical);
    const double lost = lost_hours(*t.checkpointing, t.wall_hours.typical);
    t.goodput = t.wall_hours.typical / (t.wall_hours.typical + lost);
  }
  t.wall_hours = scale(t.wall_hours, 1.0 / t.goodput);
  return t;
}

}  // namespace gpu_advise::sizing
