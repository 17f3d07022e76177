// Serving engines (docs/methodology.md §5, "Engines"): where each runs, its
// scheduler's defaults as its own code or documentation sets them, and its
// speed against the step model, fitted on that engine's own published figures
// only (docs/validation.md).
#include <algorithm>
#include <array>

#include "estimate/parts.hpp"
#include "gpu_advise/units.hpp"

namespace gpu_advise {

std::span<const EnumName<ServingEngine>> names(ServingEngine) {
  static constexpr EnumName<ServingEngine> table[] = {{ServingEngine::vllm, "vllm"},
                                                      {ServingEngine::sglang, "sglang"},
                                                      {ServingEngine::trtllm, "trtllm"},
                                                      {ServingEngine::mindie, "mindie"},
                                                      {ServingEngine::lmdeploy, "lmdeploy"}};
  return table;
}

namespace {

using Stack = SoftwareStack;

// vLLM V1's defaults (vllm/engine/arg_utils.py, EngineArgs.get_batch_defaults,
// v0.8 onwards): on cards of 70 GiB or more other than the A100, 1024 running
// sequences, and 8192 tokens a step for the server (16384 for the offline LLM
// class); elsewhere 256 sequences and 2048 tokens (8192 offline).
// gpu_memory_utilization 0.9 of the whole card. Every stack in the catalog
// has a vLLM build: upstream for CUDA and ROCm, vLLM-Ascend for CANN, the
// vendors' plugins for Gaudi, Kunlun XPU, Cambricon Neuware and Hygon DTK.
constexpr EngineProfile vllm{
    ServingEngine::vllm,
    "vLLM",
    {Stack::cuda, Stack::rocm, Stack::cann, Stack::gaudi, Stack::xpu, Stack::neuware, Stack::dtk},
    {1024, 8192},
    {1024, 16384},
    {256, 2048},
    {256, 8192},
    0.90,
    false,
    "vllm/engine/arg_utils.py (get_batch_defaults, v0.8+); docs.vllm.ai engine arguments"};
// SGLang: chunked_prefill_size 8192; mem_fraction_static 0.88 of the card
// (one GPU; it lowers the share as TP grows); running requests bounded by the
// request pool it sizes from memory, at most 4096 (python/sglang/srt/server_args.py,
// model_executor/model_runner.py).
constexpr EngineProfile sglang{ServingEngine::sglang,
                               "SGLang",
                               {Stack::cuda, Stack::rocm},
                               {4096, 8192},
                               {4096, 8192},
                               {4096, 8192},
                               {4096, 8192},
                               0.88,
                               false,
                               "docs.sglang.io server arguments; python/sglang/srt/server_args.py"};
// TensorRT-LLM (PyTorch backend, trtllm-serve): max_batch_size 2048,
// max_num_tokens 8192; trtllm-bench's throughput runs 4096 sequences (the
// perf overview's "Max Runtime Batch Size"). KvCacheConfig's
// free_gpu_memory_fraction 0.9 of the memory left after the weights and
// buffers (0.95 in the perf overview's runs, stated per case).
constexpr EngineProfile trtllm{ServingEngine::trtllm,
                               "TensorRT-LLM",
                               {Stack::cuda},
                               {2048, 8192},
                               {4096, 8192},
                               {2048, 8192},
                               {4096, 8192},
                               0.90,
                               true,
                               "nvidia.github.io/TensorRT-LLM trtllm-serve and LLM API reference; "
                               "docs/source/performance/perf-overview.md"};
// MindIE Service (config.json BackendConfig.ScheduleConfig): maxBatchSize
// 200, maxPrefillTokens 8192; npuMemSize -1 gives the KV cache a share of the
// memory left after the weights (0.8 taken: the documented default ratio is
// not stated in the sources at hand; confidence: estimate).
constexpr EngineProfile mindie{ServingEngine::mindie,
                               "MindIE",
                               {Stack::cann},
                               {200, 8192},
                               {200, 8192},
                               {200, 8192},
                               {200, 8192},
                               0.80,
                               true,
                               "hiascend.com MindIE Service configuration parameters (config.json)"};
// LMDeploy TurboMind: max_batch_size by device name (lmdeploy/utils.py,
// get_max_batch_size: 1024 on H100, H800, H200 and L20Y, 384 on A100 and
// A800, 128 elsewhere, matched within the device's name; sizing::on_card
// applies it to the catalog's ids), max_prefill_token_num
// 8192, cache_max_entry_count 0.8 of the free memory (lmdeploy/messages.py).
constexpr EngineProfile lmdeploy{ServingEngine::lmdeploy,
                                 "LMDeploy",
                                 {Stack::cuda, Stack::cann},
                                 {128, 8192},
                                 {128, 8192},
                                 {128, 8192},
                                 {128, 8192},
                                 0.80,
                                 true,
                                 "InternLM/lmdeploy lmdeploy/utils.py (get_max_batch_size), lmdeploy/messages.py"};

// LMDeploy's table of device names.
int lmdeploy_max_batch(const GpuSpec& gpu) {
  for (const std::string_view name : {"h100", "h800", "h200", "l20y"}) {
    if (gpu.id.find(name) != std::string::npos) {  // LMDeploy matches within the device's name
      return 1024;
    }
  }
  return gpu.id.find("a100") != std::string::npos || gpu.id.find("a800") != std::string::npos ? 384 : 128;
}

constexpr std::array<const EngineProfile*, 5> profiles{&vllm, &sglang, &trtllm, &mindie, &lmdeploy};

// Each engine's step time against the step model: a factor on its speed per
// software stack, fitted on that engine's fitting cases alone (docs/validation.md,
// "Engines"): exp(median log(published / modelled)). And the share of their
// doubled peak its FP8 matrix products reach, relative to BF16's share of
// theirs: the value at which the median error of its FP8 fitting cases is
// zero, the speed refitted after it; and likewise the share of a dense
// product's efficiency its MoE layers' routed experts reach, on its MoE
// fitting cases. Only an engine with at least three fitting cases on a stack
// gets a speed (none is set on one case), and an FP8 or MoE share only with
// at least three such fitting cases and three others (else it and the speed
// are not told apart); the others run at the step model's speed, 1, and at
// training's shares: sizing::fp8_mfu_factor (Transformer Engine's FP8) and
// sizing::moe_kernel_factor (MoE layers).
struct Speed {
  ServingEngine engine;
  Stack stack;
  double factor;
  double fp8_share;
  double moe_share;
};
constexpr Speed speeds[] = {
    // 25 fitting cases, 10 of them FP8 when the FP8 share was fitted, 7 MoE:
    // TensorRT-LLM's perf overviews
    {ServingEngine::trtllm, Stack::cuda, 1.09, 0.89, 0.20},
    // 3 fitting cases, all FP8: vLLM's ROCm builds on MI300X and MI325X
    {ServingEngine::vllm, Stack::rocm, 1.12, sizing::fp8_mfu_factor, sizing::moe_kernel_factor},
};

const Speed* fitted(ServingEngine engine, SoftwareStack stack) {
  for (const Speed& s : speeds) {
    if (s.engine == engine && s.stack == stack) {
      return &s;
    }
  }
  return nullptr;
}

}  // namespace

const EngineProfile& engine_profile(ServingEngine engine) {
  for (const EngineProfile* p : profiles) {
    if (p->engine == engine) {
      return *p;
    }
  }
  return vllm;
}

bool runs_on(const EngineProfile& profile, SoftwareStack stack) {
  return std::find(profile.stacks.begin(), profile.stacks.end(), stack) != profile.stacks.end();
}

double engine_speed(ServingEngine engine, SoftwareStack stack) {
  const Speed* s = fitted(engine, stack);
  return s ? s->factor : 1.0;
}

double engine_fp8_share(ServingEngine engine, SoftwareStack stack) {
  const Speed* s = fitted(engine, stack);
  return s ? s->fp8_share : sizing::fp8_mfu_factor;
}

double engine_moe_share(ServingEngine engine, SoftwareStack stack) {
  const Speed* s = fitted(engine, stack);
  return s ? s->moe_share : sizing::moe_kernel_factor;
}

namespace sizing {

bool offline(const Request& request) { return !request.tpot_target_ms && !request.ttft_target_ms; }

Request on_card(const Request& request, const GpuSpec& gpu) {
  if (request.task != Task::inference) {
    return request;
  }
  Request r = request;
  const EngineProfile& profile = engine_profile(request.engine.value_or(ServingEngine::vllm));
  r.engine = profile.engine;
  // vLLM's test: at least 70 GiB and not an A100 (its device-name check).
  const bool large = gpu.memory.capacity_gib >= 70.0 && !gpu.id.starts_with("a100");
  const EngineProfile::Limits limits = large ? (offline(request) ? profile.large_offline : profile.large_server)
                                             : (offline(request) ? profile.small_offline : profile.small_server);
  if (!r.max_batch) {
    r.max_batch = profile.engine == ServingEngine::lmdeploy ? lmdeploy_max_batch(gpu) : limits.max_batch;
    // --concurrency above the default: the engine is run with that many.
    r.max_batch = std::max(*r.max_batch, r.concurrency.value_or(0));
  }
  if (!r.max_batched_tokens) {
    r.max_batched_tokens = limits.max_batched_tokens;
  }
  if (!r.serving_memory_fraction) {
    r.serving_memory_fraction = profile.memory_fraction;
  }
  return r;
}

}  // namespace sizing

}  // namespace gpu_advise
