// The training stacks (--stack): what each keeps in memory and how fast its
// kernels run (docs/methodology.md §2, "Stacks", with the source of each
// property; the speeds are fitted in docs/validation.md).
#include <algorithm>
#include <cmath>

#include "estimate/parts.hpp"

namespace gpu_advise::sizing {

namespace {

// transformers' LlamaRMSNorm (hidden_states.to(torch.float32)), the SDPA
// output's .contiguous() before o_proj, PEFT's LoRA forward (x cast to the
// adapters' dtype, FP32 by autocast_adapter_dtype) and Trainer's
// zero_grad(set_to_none=True) under torch.autocast with FP32 parameters;
// data parallelism only (DDP, FSDP or DeepSpeed ZeRO through Accelerate).
constexpr StackProfile hf{.stack = Stack::hf,
                          .eager_layers = true,
                          .adapter_input_bytes = 2.0,
                          .fp32_params = true,
                          .tensor_parallel = false,
                          .pipeline_parallel = false,
                          .context_parallel = false};
// torchtune's RMSNorm (x.float()), its LoRALinear (the base layer's input,
// no copy), BF16 parameters (dtype: bf16 in its recipes); its distributed
// recipes run FSDP and tensor parallelism (tensor_parallel_dim).
constexpr StackProfile torchtune{
    .stack = Stack::torchtune, .eager_layers = true, .pipeline_parallel = false, .context_parallel = false};
// Unsloth's Triton RMSNorm and SwiGLU kernels, its LoRA kernels on the base
// layer's input, and its "unsloth" gradient checkpointing to host memory;
// one GPU or data parallelism.
constexpr StackProfile unsloth{.stack = Stack::unsloth,
                               .fused_swiglu = true,
                               .offloaded_checkpoints = true,
                               .tensor_parallel = false,
                               .pipeline_parallel = false,
                               .context_parallel = false};
// LitGPT's RMSNorm (x.float()) and LoRA with its configs' lora_dropout 0.05;
// FSDP over its devices.
constexpr StackProfile litgpt{.stack = Stack::litgpt,
                              .eager_layers = true,
                              .adapter_input_bytes = 3.0,
                              .tensor_parallel = false,
                              .pipeline_parallel = false,
                              .context_parallel = false};
// torchtitan's Llama modules in eager PyTorch under FSDP2 with FP32 sharded
// parameters and BF16 compute.
constexpr StackProfile torchtitan{.stack = Stack::torchtitan, .eager_layers = true, .fp32_params = true, .speed = 0.87};
// Megatron-Core with Transformer Engine: fused norms and SwiGLU, contiguous
// gradient buffers, BF16 parameters beside the distributed optimizer's FP32 copy.
constexpr StackProfile megatron{
    .stack = Stack::megatron, .fused_swiglu = true, .persistent_gradients = true, .speed = 1.03};
// DeepSpeed on a Hugging Face model: transformers' and PEFT's modules, BF16
// parameters with an FP32 master copy, contiguous gradient buffers; ZeRO
// data parallelism.
constexpr StackProfile deepspeed{.stack = Stack::deepspeed,
                                 .eager_layers = true,
                                 .adapter_input_bytes = 2.0,
                                 .persistent_gradients = true,
                                 .tensor_parallel = false,
                                 .pipeline_parallel = false,
                                 .context_parallel = false};

}  // namespace

const StackProfile& stack_profile(Stack stack) {
  switch (stack) {
    case Stack::hf: return hf;
    case Stack::torchtune: return torchtune;
    case Stack::unsloth: return unsloth;
    case Stack::litgpt: return litgpt;
    case Stack::torchtitan: return torchtitan;
    case Stack::megatron: return megatron;
    case Stack::deepspeed: return deepspeed;
  }
  return megatron;
}

TrainingBytes trained_bytes(const Request& request) {
  if (request.task == Task::lora || request.task == Task::qlora) {
    switch (request.optimizer) {
      case Optimizer::adamw_bf16: return {2, 2, 4};
      case Optimizer::adamw_8bit: return {4, 4, 2};
      case Optimizer::adamw_8bit_bf16: return {2, 2, 2};
      case Optimizer::adamw: return {4, 4, 8};
    }
    return {4, 4, 8};
  }
  const TrainingBytes bytes = training_bytes(request.optimizer);
  const bool master = request.optimizer == Optimizer::adamw || request.optimizer == Optimizer::adamw_8bit;
  if (stack_profile(request.effective_stack()).fp32_params && master) {
    return {bytes.weights + 2.0, bytes.gradients + 2.0, bytes.optimizer - 4.0};
  }
  return bytes;
}

int micro_batches_per_step(const Request& request, const Layout& layout) {
  if (request.optimizer_in_backward) {
    return 1;
  }
  const double ranks_batch = static_cast<double>(std::max(1, layout.data)) * std::max(1, request.micro_batch);
  return std::max(1, static_cast<int>(std::lround(request.effective_global_batch() / ranks_batch)));
}

bool runs_dualpipe(const Request& request, const Layout& layout) {
  return request.pipeline_schedule == PipelineSchedule::dualpipe && layout.pipeline >= 2 && layout.pipeline % 2 == 0 &&
         micro_batches_per_step(request, layout) >= 2 * layout.pipeline;
}

}  // namespace gpu_advise::sizing
