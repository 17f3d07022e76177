#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "estimate/parts.hpp"
#include "gpu_advise/catalog.hpp"
#include "gpu_advise/estimate.hpp"
#include "gpu_advise/units.hpp"
#include "gpu_advise/words.hpp"
#include "gpu_fixture.hpp"

using namespace gpu_advise;
using sizing::CountLadder;

namespace {

// Cost first: the estimate is the smallest plan on offer, which the count
// search tests check; the tiers are tested on their own below.
Request request(double params, Task task) {
  Request r = test::request(params, task);
  r.budget = BudgetTier::low;
  return r;
}

std::vector<int> counts_of(const CountLadder& ladder) {
  std::vector<int> out;
  for (std::size_t k = 0; k < ladder.size(); ++k) {
    out.push_back(ladder[k]);
  }
  return out;
}

std::vector<int> counts_for(const Request& r, const GpuSpec& gpu) {
  return counts_of(CountLadder::for_request(r, gpu));
}

}  // namespace

TEST_CASE("renting, GPU counts follow the shapes providers rent, then whole nodes", "[estimate]") {
  GpuSpec gpu = test::card("g80", 80, 2000, 312, 8, 2.0);
  Request r = request(7e9, Task::lora);
  r.max_gpus = 20;
  CHECK(counts_for(r, gpu) == std::vector<int>{1, 2, 4, 8, 16});  // no shapes in the catalog: 1, 2, 4, a node
  r.max_gpus = 3;
  CHECK(counts_for(r, gpu) == std::vector<int>{1, 2});
  gpu.node.rent_shapes = {1, 8};  // MI300X: one card or a whole node
  r.max_gpus = 32;
  CHECK(counts_for(r, gpu) == std::vector<int>{1, 8, 16, 24, 32});
  gpu.node.rent_shapes = {4, 72};  // GB200 NVL72: a tray or the rack, then whole racks
  gpu.node.gpus_per_node = 4;
  r.max_gpus = 200;
  CHECK(counts_for(r, gpu) == std::vector<int>{4, 72, 144});
  gpu.node.rent_shapes = {8};
  gpu.node.gpus_per_node = 8;
  r.max_gpus = 4;
  CHECK(counts_for(r, gpu).empty());
  r.count = 4;  // a fixed --count is the user's
  CHECK(counts_for(r, gpu) == std::vector<int>{4});
}

TEST_CASE("buying, GPU counts are whole servers, or a workstation's 1, 2 or 4 PCIe cards", "[estimate]") {
  GpuSpec gpu = test::card("g80", 80, 2000, 312, 8, 2.0);
  gpu.node.rent_shapes = {1, 2, 4, 8};
  Request r = request(7e9, Task::lora);
  r.mode = CostMode::buy;
  r.max_gpus = 24;
  gpu.form_factor = FormFactor::sxm;
  CHECK(counts_for(r, gpu) == std::vector<int>{8, 16, 24});
  gpu.form_factor = FormFactor::pcie;
  CHECK(counts_for(r, gpu) == std::vector<int>{1, 2, 4, 8, 16, 24});
  gpu.form_factor = FormFactor::module;  // a rack-scale system is sold whole
  gpu.node.rent_shapes = {4, 72};
  gpu.node.gpus_per_node = 4;
  r.max_gpus = 150;
  CHECK(counts_for(r, gpu) == std::vector<int>{72, 144});
}

TEST_CASE("a model-parallel group takes the counts it divides, and at_least rounds up to a count on offer",
          "[estimate]") {
  GpuSpec gpu = test::card("g80", 80, 2000, 312, 8, 2.0);
  gpu.node.rent_shapes = {4, 72};
  gpu.node.gpus_per_node = 4;
  Request r = request(7e9, Task::full);
  r.max_gpus = 300;
  const CountLadder ladder = CountLadder::for_request(r, gpu);
  CHECK(counts_of(ladder.multiples_of(16)) == std::vector<int>{144, 288});
  CHECK(counts_of(ladder.multiples_of(4)) == std::vector<int>{4, 72, 144, 216, 288});
  CHECK(ladder.at_least(5) == 72);
  CHECK(ladder.at_least(73) == 144);
  CHECK(ladder.at_least(289) == std::nullopt);
  CHECK(ladder.at_least(1) == 4);
}

TEST_CASE("a card offered only above --max-gpus says so", "[estimate]") {
  GpuSpec gpu = test::card("g80", 80, 2000, 312, 8, 2.0);
  gpu.node.rent_shapes = {8};
  Request r = request(7e9, Task::lora);
  r.max_gpus = 4;
  const Estimate e = estimate(r, infer_shape(7e9), gpu);
  CHECK_FALSE(e.fits);
  CHECK(e.why_not.kind == Shortfall::Kind::no_shape);
  CHECK(e.why_not.count == 8);
  CHECK(describe(e.why_not, Language::en) ==
        "offered only in 8 GPUs or more (the smallest shape rented or sold), above --max-gpus 4");
}

TEST_CASE("full fine-tune model states are 16 bytes per parameter, sharded by the ZeRO stage", "[estimate]") {
  // ZeRO paper (arXiv 1910.02054): 2 + 2 + 12 bytes per parameter; stage 1 shards
  // the optimizer, stage 2 also the gradients, stage 3 also the weights.
  const Request r = request(7e9, Task::full);
  const ModelShape shape = infer_shape(r.params);
  const MemoryBreakdown one = memory_per_gpu(r, shape, Layout{1, 1, 1, 0});
  CHECK(one.weights == Approx(14e9));
  CHECK(one.gradients == Approx(14e9));
  CHECK(one.optimizer == Approx(84e9));
  const MemoryBreakdown z1 = memory_per_gpu(r, shape, Layout{1, 1, 8, 1});
  CHECK(z1.weights == Approx(14e9));
  CHECK(z1.gradients == Approx(14e9));
  CHECK(z1.optimizer == Approx(84e9 / 8));
  const MemoryBreakdown z2 = memory_per_gpu(r, shape, Layout{1, 1, 8, 2});
  CHECK(z2.gradients == Approx(14e9 / 8));
  const MemoryBreakdown z3 = memory_per_gpu(r, shape, Layout{1, 1, 8, 3});
  CHECK(z3.weights == Approx(14e9 / 8 + 4 * shape.params_per_layer()));
  CHECK(z3.activations == Approx(one.activations));  // each rank runs its own micro-batch
  const MemoryBreakdown tp = memory_per_gpu(r, shape, Layout{4, 2, 1, 0});
  CHECK(tp.optimizer == Approx(84e9 / 8));  // tensor x pipeline split the model 8 ways
}

TEST_CASE("activations follow the recompute mode and tensor parallelism", "[estimate]") {
  Request r = request(70e9, Task::pretrain);  // Megatron-Core: fused norms and SwiGLU
  const ModelShape shape = infer_shape(70e9);
  const double h = shape.hidden;
  const double q = static_cast<double>(shape.heads) * shape.head_dim;
  const double kv = static_cast<double>(shape.kv_heads) * shape.head_dim;
  const double tokens = 4096.0;
  // norms 2 x 2h, attention 2h + 2q + 4kv + 2q, MLP 2h + 6f
  const double layer = 4 * h + (2 * h + 4 * q + 4 * kv) + (2 * h + 6.0 * shape.ffn);
  const double logits = 4.0 * tokens * shape.vocab;
  r.recompute = Recompute::selective;  // flash attention keeps no scores: as much as none
  CHECK(memory_per_gpu(r, shape, Layout{}).activations == Approx(layer * tokens * shape.layers + logits));
  CHECK(memory_per_gpu(r, shape, Layout{8, 1, 1, 0}).activations ==
        Approx((layer * tokens * shape.layers + logits) / 8));
  r.recompute = Recompute::none;
  CHECK(memory_per_gpu(r, shape, Layout{}).activations == Approx(layer * tokens * shape.layers + logits));
  r.recompute = Recompute::full;  // layer inputs only, plus one layer rebuilt
  CHECK(memory_per_gpu(r, shape, Layout{}).activations ==
        Approx(2 * h * tokens * shape.layers + layer * tokens + logits));
  r.stack = Stack::unsloth;  // the layer inputs in host memory: two kept, and a fused but eager-free layer
  const double unsloth_layer = 4 * h + (2 * h + 4 * q + 4 * kv) + (2 * h + 6.0 * shape.ffn);
  CHECK(memory_per_gpu(r, shape, Layout{}).activations ==
        Approx(2 * h * tokens * 2 + unsloth_layer * tokens + (2.0 + 4.0 / 8) * tokens * shape.vocab));
}

TEST_CASE("each stack keeps what its modules keep", "[estimate]") {
  Request r = request(8e9, Task::lora);
  const ModelShape shape = infer_shape(8e9);
  const double h = shape.hidden;
  const double q = static_cast<double>(shape.heads) * shape.head_dim;
  const double kv = static_cast<double>(shape.kv_heads) * shape.head_dim;
  const double f = shape.ffn;
  r.seq_len = 4096;
  r.recompute = Recompute::none;
  r.stack = Stack::hf;  // FP32 norms, the attention output copied, PEFT's BF16 copy of every adapted input
  const double hf_layer = 2 * 6 * h + (2 * h + 4 * q + 4 * kv + 2 * q) + (2 * h + 8 * f) + 2 * (5 * h + q + f);
  const double hf_logits = 10.0 * 4096 * shape.vocab;
  CHECK(memory_per_gpu(r, shape, Layout{}).activations == Approx(hf_layer * 4096 * shape.layers + hf_logits));
  r.stack = Stack::torchtune;  // the same modules, the base layer's input shared with LoRA, a chunked loss
  const double tt_layer = 2 * 6 * h + (2 * h + 4 * q + 4 * kv + 2 * q) + (2 * h + 8 * f);
  CHECK(memory_per_gpu(r, shape, Layout{}).activations ==
        Approx(tt_layer * 4096 * shape.layers + (2.0 + 4.0 / 8) * 4096 * shape.vocab));
  r.loss = Loss::fused;  // --loss overrides the stack's
  CHECK(memory_per_gpu(r, shape, Layout{}).activations ==
        Approx(tt_layer * 4096 * shape.layers + 4.0 * 4096 * shape.vocab));
}

TEST_CASE("training memory peaks in its largest phase, not in the sum of its parts", "[estimate]") {
  Request r = request(8e9, Task::full);
  const ModelShape shape = infer_shape(8e9);
  r.seq_len = 4096;
  r.recompute = Recompute::full;
  r.stack = Stack::megatron;  // gradient buffers held through the step: every part at once
  const MemoryBreakdown megatron = memory_per_gpu(r, shape, Layout{});
  CHECK(megatron.phase == MemoryPhase::whole_step);
  CHECK(megatron.released == 0);
  CHECK(megatron.total() ==
        Approx(megatron.weights + megatron.gradients + megatron.optimizer + megatron.activations + megatron.reserve));
  r.stack = Stack::hf;  // FP32 parameters and gradients, autocast's BF16 copies, gradients freed each step
  const MemoryBreakdown accumulating = memory_per_gpu(r, shape, Layout{});  // 128 micro-batches a step
  CHECK(accumulating.released == 0);  // the first one's gradients beside the next one's activations
  r.global_batch = 1;                 // one micro-batch a step
  const MemoryBreakdown hf = memory_per_gpu(r, shape, Layout{});
  CHECK(hf.weights == Approx(4 * shape.params));
  CHECK(hf.gradients == Approx(4 * shape.params));
  CHECK(hf.optimizer == Approx(8 * shape.params));
  CHECK(hf.phase == MemoryPhase::optimizer_step);  // 16 bytes a parameter in the step, beyond the forward's 12 + acts
  CHECK(hf.released == Approx(hf.activations));
  CHECK(hf.total() == Approx(16 * shape.params + hf.reserve));
  r.recompute = Recompute::none;  // the forward's activations now outweigh the gradients
  const MemoryBreakdown eager = memory_per_gpu(r, shape, Layout{});
  CHECK(eager.phase == MemoryPhase::forward);
  CHECK(eager.released == Approx(eager.gradients));
  CHECK(memory_per_gpu(r, shape, Layout{1, 2, 1, 0}).released == 0);  // 1F1B: backward beside forwards
  r.optimizer_in_backward = true;  // one layer's gradients, beside the activations still held
  CHECK(memory_per_gpu(r, shape, Layout{}).released == 0);
}

TEST_CASE("LoRA keeps a frozen BF16 base and trains only the adapters", "[estimate]") {
  const Request r = request(7e9, Task::lora);
  const ModelShape shape = infer_shape(r.params);
  const MemoryBreakdown m = memory_per_gpu(r, shape, Layout{});
  const double adapters = shape.lora_params(16);
  CHECK(m.weights == Approx(2 * 7e9 + 4 * adapters));
  CHECK(m.gradients == Approx(4 * adapters));
  CHECK(m.optimizer == Approx(8 * adapters));
  // FSDP shards the base and gathers two BF16 layers at a time.
  CHECK(memory_per_gpu(r, shape, Layout{1, 1, 4, 3}).weights == Approx(m.weights / 4 + 4 * shape.params_per_layer()));
  CHECK(memory_per_gpu(r, shape, Layout{1, 1, 4, 0}).weights == Approx(m.weights));  // DDP
}

TEST_CASE("QLoRA stores the base in about half a byte per parameter", "[estimate]") {
  const Request lora = request(70e9, Task::lora);
  Request qlora = lora;
  qlora.task = Task::qlora;
  const ModelShape shape = infer_shape(70e9);
  const double lora_base = memory_per_gpu(lora, shape, Layout{}).weights;
  const double qlora_base = memory_per_gpu(qlora, shape, Layout{}).weights;
  // 70B: 140 GB in BF16; NF4 with double quantisation ~0.52 bytes/param for the
  // blocks plus BF16 embeddings lands near 40 GB.
  CHECK(lora_base / 1e9 == Approx(141).epsilon(0.02));
  CHECK(qlora_base / 1e9 == Approx(40).epsilon(0.1));
}

TEST_CASE("inference memory is weights at their precision plus the KV cache served", "[estimate]") {
  Request r = request(70e9, Task::inference);
  const ModelShape shape = infer_shape(70e9);
  // Before the operating point is chosen: one sequence's cache; --concurrency N: N.
  const MemoryBreakdown one = memory_per_gpu(r, shape, Layout{});
  CHECK(one.weights == Approx(140e9));
  const double per_sequence = 2.0 * shape.layers * 8 * 128 * 2 * 4096;
  CHECK(one.kv_cache == Approx(per_sequence));
  r.concurrency = 8;
  const MemoryBreakdown eight = memory_per_gpu(r, shape, Layout{});
  CHECK(eight.kv_cache == Approx(8 * per_sequence));
  CHECK(memory_per_gpu(r, shape, Layout{4, 1, 1, 0}).kv_cache == Approx(eight.kv_cache / 4));
  CHECK(memory_per_gpu(r, shape, Layout{8, 2, 1, 0}).kv_cache == Approx(eight.kv_cache / 16));
  // The cache is allocated in blocks of 16 tokens.
  r.context = 4097;
  CHECK(memory_per_gpu(r, shape, Layout{}).kv_cache == Approx(eight.kv_cache * 4112.0 / 4096.0));
  r.context = 4096;
  // One step's workspace at the scheduler's token limit, and no separate reserve:
  // one budget, 90% of the card.
  CHECK(eight.activations > 0.1e9);
  CHECK(eight.activations < 2e9);
  CHECK(eight.reserve == 0);
  // FP8 and weight-only INT4 checkpoints keep the embeddings and LM head in BF16.
  const double embeddings = shape.embedding_params();
  r.precision = InferencePrecision::fp8;
  r.kv_precision = KvPrecision::fp8;
  CHECK(memory_per_gpu(r, shape, Layout{}).weights == Approx((70e9 - embeddings) * 1.0 + 2 * embeddings));
  CHECK(memory_per_gpu(r, shape, Layout{}).kv_cache == Approx(eight.kv_cache / 2));
  r.precision = InferencePrecision::int4;
  // Weight-only INT4: 4 bits + a 16-bit scale and zero per 128.
  CHECK(memory_per_gpu(r, shape, Layout{}).weights == Approx((70e9 - embeddings) * 0.5625 + 2 * embeddings));
}

TEST_CASE("the estimate takes the smallest count that fits", "[estimate]") {
  const GpuSpec gpu = test::card("g80", 80, 2000, 312, 8, 2.0);
  for (const Task task : {Task::pretrain, Task::full, Task::lora, Task::qlora, Task::inference}) {
    CAPTURE(static_cast<int>(task));
    Request r = request(70e9, task);
    r.pretrain_default_deadline_hours.reset();  // size to memory alone
    r.tpot_target_ms.reset();                   // and serving to memory, not latency
    r.ttft_target_ms.reset();
    const ModelShape shape = infer_shape(70e9);
    const Estimate e = estimate(r, shape, gpu);
    REQUIRE(e.fits);
    CHECK(e.per_gpu.total() <= e.usable_bytes);
    CHECK(e.layout.gpus() == e.count);
    Request smaller = r;
    const auto counts = counts_for(r, gpu);
    const auto at = std::find(counts.begin(), counts.end(), e.count);
    REQUIRE(at != counts.end());
    if (at != counts.begin()) {
      smaller.count = *(at - 1);
      CHECK_FALSE(estimate(smaller, shape, gpu).fits);
    }
  }
}

TEST_CASE("tensor parallelism stays inside the scale-up domain", "[estimate]") {
  const ModelShape shape = infer_shape(70e9);
  const Estimate nvlink = estimate(request(70e9, Task::full), shape, test::card("g80", 80, 2000, 312, 8, 2.0));
  CHECK(nvlink.layout.tensor <= 8);
  const Estimate pcie = estimate(request(70e9, Task::full), shape, test::card("p48", 48, 900, 300, 1, 1.0));
  REQUIRE(pcie.fits);
  CHECK(pcie.layout.tensor == 1);
  CHECK_FALSE(pcie.notes.empty());
}

TEST_CASE("a 70B model: QLoRA fits on one 80 GB card, LoRA and full fine-tuning do not", "[estimate]") {
  const GpuSpec gpu = test::card("g80", 80, 2000, 312, 8, 2.0);
  const ModelShape shape = infer_shape(70e9);
  CHECK(estimate(request(70e9, Task::qlora), shape, gpu).count == 1);
  CHECK(estimate(request(70e9, Task::lora), shape, gpu).count > 1);
  CHECK(estimate(request(70e9, Task::full), shape, gpu).count >= 16);
}

TEST_CASE("a fixed count that is too small says so", "[estimate]") {
  const GpuSpec gpu = test::card("g24", 24, 1000, 165, 1, 0.5);
  Request r = request(70e9, Task::full);
  r.count = 2;
  const Estimate e = estimate(r, infer_shape(70e9), gpu);
  CHECK_FALSE(e.fits);
  CHECK(e.why_not.kind == Shortfall::Kind::count_too_small);
  CHECK_THAT(describe(e.why_not, Language::en), Catch::Contains("--count 2") && Catch::Contains("GiB per GPU"));
  CHECK_THAT(describe(e.why_not, Language::zh), Catch::Contains("--count 2") && Catch::Contains("每卡"));
}

TEST_CASE("FP4 inference needs FP4 tensor cores, and holds and reads about half of FP8's weights", "[estimate]") {
  Request r = request(70e9, Task::inference);
  r.precision = InferencePrecision::fp4;
  r.count = 1;
  r.concurrency = 1;
  GpuSpec hopper = test::card("h", 141, 4800, 989, 8, 2.0);
  hopper.compute.fp8_tflops = 1979;
  const ModelShape model = infer_shape(70e9);
  const Estimate refused = estimate(r, model, hopper);
  CHECK_FALSE(refused.fits);
  CHECK(refused.why_not.kind == Shortfall::Kind::no_fp4);
  GpuSpec blackwell = hopper;
  blackwell.compute.fp4_tflops = 9000;
  const Estimate fp4 = estimate(r, model, blackwell);
  REQUIRE(fp4.fits);
  Request eight = r;
  eight.precision = InferencePrecision::fp8;
  const Estimate fp8 = estimate(eight, model, blackwell);
  REQUIRE(fp8.fits);
  // NVFP4's 4.5 bits a weight against FP8's 8 (embeddings stay BF16 in both).
  const double ratio = fp4.per_gpu.weights / fp8.per_gpu.weights;
  CHECK(ratio > 0.5);
  CHECK(ratio < 0.6);
  // One sequence reads the weights every token: about as much faster.
  CHECK(fp4.inference->tpot_ms.typical < 0.7 * fp8.inference->tpot_ms.typical);
}

TEST_CASE("FP8 inference needs FP8 hardware", "[estimate]") {
  Request r = request(8e9, Task::inference);
  r.precision = InferencePrecision::fp8;
  GpuSpec ampere = test::card("a", 80, 2000, 312, 8, 2.0);
  const Estimate e = estimate(r, infer_shape(8e9), ampere);
  CHECK_FALSE(e.fits);
  CHECK(e.why_not.kind == Shortfall::Kind::no_fp8);
  ampere.compute.fp8_tflops = 624;
  CHECK(estimate(r, infer_shape(8e9), ampere).fits);
}

TEST_CASE("training time is FLOPs over dense peak times MFU", "[estimate]") {
  const GpuSpec gpu = test::card("g80", 80, 2000, 312, 8, 2.0);
  Request r = request(1e9, Task::pretrain);
  const ModelShape shape = infer_shape(1e9);
  const Estimate e = estimate(r, shape, gpu);
  REQUIRE(e.training);
  REQUIRE(e.count == 1);
  const double per_token = 6 * 1e9 + 12.0 * shape.layers * shape.heads * shape.head_dim * r.seq_len;
  CHECK(e.training->flops == Approx(per_token * 20e9));
  CHECK(e.training->gpu_hours.typical == Approx(e.training->flops / (312e12 * e.training->mfu.typical) / 3600));
  // One GPU: no communication, so MFU is the kernel efficiency less the recomputed work.
  CHECK(e.training->mfu.typical ==
        Approx(gpu.efficiency.training_mfu.typical * sizing::training_kernel_factor *
               sizing::stack_profile(Stack::megatron).speed * e.training->flops / e.training->hardware_flops));
  CHECK(e.training->gpu_hours.low < e.training->gpu_hours.typical);
  CHECK(e.training->gpu_hours.typical < e.training->gpu_hours.high);
  REQUIRE(e.cost.rent_usd);
  // Rent is paid for the wall time, restarts included (the derived goodput),
  // and for the job's start-up, loading and saving.
  CHECK(e.training->goodput < 1.0);
  CHECK(e.training->job_overhead_hours > 1.0 / 6.0);
  CHECK(e.cost.rent_usd->typical ==
        Approx((e.training->gpu_hours.typical / e.training->goodput + e.training->job_overhead_hours) * 2.0));
  CHECK(*e.cost.rent_overhead_usd == Approx(e.training->job_overhead_hours * 2.0));
}

TEST_CASE("tokens and epochs set the training tokens", "[estimate]") {
  Request r = request(7e9, Task::lora);
  r.tokens = 50e6;
  r.epochs = 3;
  CHECK(r.training_tokens() == Approx(150e6));
}

TEST_CASE("a deadline buys more GPUs", "[estimate]") {
  const GpuSpec gpu = test::card("g80", 80, 2000, 312, 8, 2.0);
  Request r = request(7e9, Task::pretrain);
  const ModelShape shape = infer_shape(7e9);
  const Estimate relaxed = estimate(r, shape, gpu);
  r.deadline_hours = relaxed.training->wall_hours.typical / 10;
  const Estimate rushed = estimate(r, shape, gpu);
  REQUIRE(rushed.fits);
  CHECK(rushed.count >= 10);
  CHECK(rushed.training->wall_hours.typical <= *r.deadline_hours);
  r.max_gpus = 4;
  const Estimate impossible = estimate(r, shape, gpu);
  CHECK_FALSE(impossible.fits);
  CHECK(impossible.why_not.kind == Shortfall::Kind::deadline);
  CHECK_THAT(describe(impossible.why_not, Language::en), Catch::Contains("cannot finish within"));
}

TEST_CASE("decode throughput is bound by memory bandwidth at small batch", "[estimate]") {
  const GpuSpec gpu = test::card("g80", 80, 2000, 312, 8, 2.0);
  Request r = request(8e9, Task::inference);
  r.concurrency = 1;
  const ModelShape shape = infer_shape(8e9);
  const Estimate e = estimate(r, shape, gpu);
  REQUIRE(e.inference);
  // One sequence: the step reads the weights and the cache at 72% of peak
  // bandwidth, plus the per-step overhead; compute and the prompt's share of
  // prefill (3584 / 512 tokens a step) add under 5%.
  const double kv = shape.kv_bytes(r.prompt_tokens() + r.effective_output_tokens() / 2.0, 2.0);
  const double step = (e.per_gpu.weights + kv) / (2000e9 * 0.72) + sizing::serving_step_overhead_s.typical;
  CHECK(e.inference->tokens_per_s.typical == Approx(1.0 / step).epsilon(0.05));
  CHECK(e.inference->tokens_per_s.typical < 1.0 / step);
  CHECK(e.inference->tpot_ms.typical == Approx(1000.0 / e.inference->tokens_per_s.typical));
  CHECK(e.inference->max_concurrency > 1);
  CHECK(e.inference->max_tokens_per_s.typical > e.inference->tokens_per_s.typical);
  CHECK(e.inference->ttft_ms.typical > 0);
  CHECK(e.cost.usd_per_million_tokens->typical == Approx(2.0 / (e.inference->tokens_per_s.typical * 3600) * 1e6));
}

TEST_CASE("a --price override replaces the catalog quotes", "[estimate]") {
  Request r = request(7e9, Task::inference);
  r.prices.push_back(PriceOverride{"g80", 0.5});
  const Estimate e = estimate(r, infer_shape(7e9), test::card("g80", 80, 2000, 312, 8, 2.0));
  CHECK(e.cost.rent_usd_per_gpu_hour->typical == 0.5);
  CHECK(e.cost.price_basis == PriceBasis::user_price);
}

TEST_CASE("no estimate is negative or NaN across sizes, tasks and cards", "[estimate][property]") {
  const std::vector<GpuSpec> gpus = {test::card("small", 24, 1000, 165, 1, 0.5),
                                     test::card("big", 192, 5300, 1307, 8, std::nullopt),
                                     test::card("pair", 48, 700, 150, 2, 1.0)};
  for (const double params : {1e6, 1e9, 7e9, 70e9, 405e9, 1.5e12, 1e14}) {
    for (const Task task : {Task::pretrain, Task::full, Task::lora, Task::qlora, Task::inference}) {
      for (const auto& gpu : gpus) {
        CAPTURE(params, static_cast<int>(task), gpu.id);
        const Estimate e = estimate(request(params, task), infer_shape(params), gpu);
        const MemoryBreakdown& m = e.per_gpu;
        for (const double v : {m.weights, m.gradients, m.optimizer, m.activations, m.kv_cache, m.reserve}) {
          CHECK(std::isfinite(v));
          CHECK(v >= 0);
        }
        if (!e.fits) {
          CHECK(e.why_not.kind != Shortfall::Kind::none);
          continue;
        }
        CHECK(e.count >= 1);
        CHECK(e.layout.gpus() == e.count);
        if (e.training) {
          const auto& t = *e.training;
          for (const double v : {t.wall_hours.low, t.wall_hours.typical, t.wall_hours.high}) {
            CHECK(std::isfinite(v));
            CHECK(v > 0);
          }
          CHECK(t.wall_hours.low <= t.wall_hours.typical);
          CHECK(t.wall_hours.typical <= t.wall_hours.high);
        }
        if (e.inference) {
          const auto& inf = *e.inference;
          for (const double v : {inf.tokens_per_s.low, inf.tokens_per_s.high, inf.ttft_ms.typical, inf.tpot_ms.typical,
                                 inf.max_tokens_per_s.typical}) {
            CHECK(std::isfinite(v));
            CHECK(v > 0);
          }
          CHECK(inf.tokens_per_s.low <= inf.tokens_per_s.high);
          CHECK(inf.max_concurrency >= inf.concurrency);
        }
        if (e.cost.rent_usd) {
          CHECK(e.cost.rent_usd->low <= e.cost.rent_usd->typical);
          CHECK(e.cost.rent_usd->typical <= e.cost.rent_usd->high);
        }
      }
    }
  }
}

TEST_CASE("no estimate is negative or NaN for any catalog card, model size and task", "[estimate][property]") {
  const Catalog catalog = load_embedded_catalog();
  for (const double params : {1e8, 3e9, 8e9, 34e9, 70e9, 180e9, 405e9, 1e12}) {
    for (const Task task : {Task::pretrain, Task::full, Task::lora, Task::qlora, Task::inference}) {
      for (const auto& gpu : catalog.gpus()) {
        CAPTURE(params, static_cast<int>(task), gpu.id);
        const Estimate e = estimate(request(params, task), infer_shape(params), gpu);
        CHECK(std::isfinite(e.per_gpu.total()));
        CHECK(e.per_gpu.total() >= 0);
        if (!e.fits) {
          CHECK(e.why_not.kind != Shortfall::Kind::none);
          continue;
        }
        CHECK(e.per_gpu.total() <= e.usable_bytes);
        if (e.training) {
          CHECK(std::isfinite(e.training->wall_hours.high));
          CHECK(e.training->wall_hours.low > 0);
        }
        if (e.inference) {
          CHECK(std::isfinite(e.inference->ttft_ms.high));
          CHECK(e.inference->tokens_per_s.low > 0);
        }
        for (const auto& cost : {e.cost.rent_usd, e.cost.buy_usd, e.cost.usd_per_million_tokens}) {
          if (cost) {
            CHECK(std::isfinite(cost->high));
            CHECK(cost->low >= 0);
            CHECK(cost->low <= cost->high);
          }
        }
      }
    }
  }
}

namespace {

// The count found fits when fixed with --count, and no smaller count of the
// ones considered does. Returns the number of smaller counts checked.
int check_against_every_count(const Request& r, const ModelShape& model, const GpuSpec& gpu, int found) {
  Request fixed = r;
  fixed.count = found;
  CHECK(estimate(fixed, model, gpu).fits);
  // Serving is sized to memory here; the latency targets have a test of their own.
  fixed.tpot_target_ms.reset();
  fixed.ttft_target_ms.reset();
  int checked = 0;
  for (const int n : counts_for(r, gpu)) {
    if (n >= found) {
      break;
    }
    fixed.count = n;
    CAPTURE(n);
    CHECK_FALSE(estimate(fixed, model, gpu).fits);
    ++checked;
  }
  return checked;
}

}  // namespace

TEST_CASE("the count search finds the smallest count that fits, checked against every count", "[estimate][search]") {
  // Brute force: for a sweep of requests on every card, no smaller count of the
  // ones considered fits, and the count chosen does (with --count fixed to it).
  const Catalog catalog = load_embedded_catalog();
  int checked = 0;
  for (const double params : {7e9, 70e9, 405e9}) {
    for (const Task task : {Task::full, Task::lora, Task::qlora, Task::inference}) {
      Request r = request(params, task);
      r.max_gpus = 64;
      r.tpot_target_ms.reset();
      r.ttft_target_ms.reset();
      const ModelShape model = infer_shape(params);
      for (const auto& gpu : catalog.gpus()) {
        const Estimate found = estimate(r, model, gpu);
        if (!found.fits) {
          continue;
        }
        CAPTURE(params, to_string(task), gpu.id, found.count);
        checked += check_against_every_count(r, model, gpu, found.count);
      }
    }
  }
  CHECK(checked > 100);
}

TEST_CASE("the pretraining count search meets the deadline with the fewest GPUs, checked against every count",
          "[estimate][search][exhaustive]") {
  // The family bisection (per tensor x pipeline x ZeRO x recompute) against
  // every count of the ones considered, with the deadline the binding limit.
  const Catalog catalog = load_embedded_catalog();
  int checked = 0;
  int deadline_bound = 0;
  for (const double params : {1e9, 7e9, 70e9}) {
    for (const double days : {30.0, 90.0, 365.0}) {
      Request r = request(params, Task::pretrain);
      r.max_gpus = 1024;
      r.deadline_hours = days * 24;
      const ModelShape model = infer_shape(params);
      for (const auto& gpu : catalog.gpus()) {
        const Estimate found = estimate(r, model, gpu);
        if (!found.fits) {
          continue;
        }
        CAPTURE(params, days, gpu.id, found.count);
        REQUIRE(found.training);
        CHECK(found.training->wall_hours.typical <= *r.deadline_hours);
        checked += check_against_every_count(r, model, gpu, found.count);
        Request memory_only = r;
        memory_only.deadline_hours.reset();
        memory_only.pretrain_default_deadline_hours.reset();
        if (estimate(memory_only, model, gpu).count < found.count) {
          ++deadline_bound;
        }
      }
    }
  }
  CHECK(checked > 1000);
  CHECK(deadline_bound > 20);  // the sweep exercises the deadline, not only memory
}

TEST_CASE("a multi-node plan says what crosses the network, only what does", "[estimate]") {
  const Catalog catalog = load_embedded_catalog();
  auto multi_node = [](const Estimate& e) {
    return std::find_if(e.notes.begin(), e.notes.end(),
                        [](const EstimateNote& n) { return n.kind == EstimateNote::Kind::multi_node; });
  };
  // 70B full fine-tune on A100 80GB: one copy of the model spans two nodes (TP 2 x PP 8), no data parallelism.
  const Estimate full = estimate(request(70e9, Task::full), infer_shape(70e9), *catalog.find("a100-80gb-sxm4").match);
  REQUIRE(full.fits);
  REQUIRE(full.layout.data == 1);
  const auto note = multi_node(full);
  REQUIRE(note != full.notes.end());
  CHECK(note->crossing == EstimateNote::Crossing::pipeline);
  CHECK(note->scale_out_gbps_per_gpu > 0);
  // 7B pretraining on H100 across nodes: whole copies per GPU, gradients cross.
  Request pretrain = request(7e9, Task::pretrain);
  pretrain.tokens = 1e12;
  const Estimate dp = estimate(pretrain, infer_shape(7e9), *catalog.find("h100-sxm5").match);
  REQUIRE(dp.fits);
  const auto dp_note = multi_node(dp);
  REQUIRE(dp_note != dp.notes.end());
  CHECK(dp_note->crossing != EstimateNote::Crossing::pipeline);
}

TEST_CASE("the budget tier sizes the plan: cost first the smallest, balanced one step, speed first to the knee",
          "[estimate][tiers]") {
  const Catalog catalog = load_embedded_catalog();
  const GpuSpec& h100 = catalog.resolve("h100-sxm5");
  auto sized = [&](double params, Task task, BudgetTier tier, std::optional<double> tokens = std::nullopt) {
    Request r = test::request(params, task);
    r.budget = tier;
    r.tokens = tokens;
    return estimate(r, infer_shape(params), h100);
  };
  // 70B LoRA: 4 fit; a 7-hour run is not worth a second step to a balanced
  // budget; speed first fills the server and stops at its edge.
  const Estimate lora_low = sized(70e9, Task::lora, BudgetTier::low);
  const Estimate lora_medium = sized(70e9, Task::lora, BudgetTier::medium);
  const Estimate lora_high = sized(70e9, Task::lora, BudgetTier::high);
  CHECK(lora_low.count == 4);
  CHECK(lora_low.sizing.stop == Sizing::Stop::cost_first);
  CHECK(lora_medium.count == 4);
  CHECK(lora_medium.sizing.stop == Sizing::Stop::short_run);
  CHECK(lora_high.count == 8);
  CHECK(lora_high.sizing.stop == Sizing::Stop::node);
  CHECK(lora_high.sizing.next == 16);
  CHECK(lora_high.sizing.cut == Approx(0.5).margin(0.05));
  REQUIRE(lora_high.training);
  CHECK(lora_high.training->wall_hours.typical < lora_medium.training->wall_hours.typical * 0.6);

  // 7B pretraining on 1T tokens, sized to the 90-day default: balanced adds
  // servers while each halving of the time costs at most 10% more, speed
  // first while the run takes over a week.
  const Estimate pre_low = sized(7e9, Task::pretrain, BudgetTier::low, 1e12);
  const Estimate pre_medium = sized(7e9, Task::pretrain, BudgetTier::medium, 1e12);
  const Estimate pre_high = sized(7e9, Task::pretrain, BudgetTier::high, 1e12);
  CHECK(pre_medium.count > pre_low.count);
  Request medium = test::request(7e9, Task::pretrain);
  medium.tokens = 1e12;
  CHECK(within_premium(plan_point(medium, pre_low), plan_point(medium, pre_medium), tier_premium(BudgetTier::medium)));
  CHECK(pre_high.count >= pre_medium.count);
  CHECK(pre_high.count >= 8 * pre_low.count);
  CHECK(pre_high.training->wall_hours.typical < 168.0);
  CHECK(pre_high.sizing.stop == Sizing::Stop::short_run);
  // More servers cost a little more: gradients cross the network (the step model's data-parallel term).
  CHECK(pre_high.cost.rent_usd->typical >= pre_low.cost.rent_usd->typical);
  CHECK(pre_high.cost.rent_usd->typical < 1.15 * pre_low.cost.rent_usd->typical);

  // Serving, on cost per million tokens at the operating point: balanced and
  // speed first add tensor parallelism while the fastest time per token (at one
  // sequence) falls by 30% and the cost per token keeps within their premium.
  const Estimate serve_low = sized(70e9, Task::inference, BudgetTier::low);
  const Estimate serve_medium = sized(70e9, Task::inference, BudgetTier::medium);
  const Estimate serve_high = sized(70e9, Task::inference, BudgetTier::high);
  CHECK(serve_low.count == serve_low.sizing.smallest);
  CHECK(serve_low.sizing.stop == Sizing::Stop::cost_first);
  Request serving = test::request(70e9, Task::inference);
  CHECK(within_premium(plan_point(serving, serve_low), plan_point(serving, serve_medium),
                       tier_premium(BudgetTier::medium)));
  CHECK(serve_high.count >= serve_medium.count);
  CHECK(serve_high.count <= 8);
  CHECK(serve_high.inference->min_tpot_ms <= serve_medium.inference->min_tpot_ms);
}

TEST_CASE("speed first stays within the global batch and stops at the largest count on offer", "[estimate][tiers]") {
  const GpuSpec gpu = test::card("g80", 80, 2000, 312, 8, 2.0);
  Request r = test::request(1e9, Task::pretrain);
  r.budget = BudgetTier::high;
  r.tokens = 2e12;    // a run of months at the smallest count, then steps while the run takes over a week
  r.micro_batch = 8;  // 1024 sequences a step: at most 128 data-parallel ranks of 8
  const Estimate e = estimate(r, infer_shape(1e9), gpu);
  REQUIRE(e.fits);
  REQUIRE(e.training);
  Request low = r;
  low.budget = BudgetTier::low;
  CHECK(e.sizing.smallest == estimate(low, infer_shape(1e9), gpu).count);
  // It stopped at the knee: under a week here, over a week at the step before.
  CHECK(e.sizing.stop == Sizing::Stop::short_run);
  CHECK(e.training->wall_hours.typical < 168);
  Request before = r;
  before.count = e.count / 2;
  CHECK(estimate(before, infer_shape(1e9), gpu).training->wall_hours.typical >= 168);
  // Past 128 ranks only model parallelism takes more GPUs: the batch is never outgrown.
  CHECK(e.count > 128);
  CHECK(e.layout.data * r.micro_batch <= 1024);
  CHECK(e.layout.model_parallel() * e.layout.data == e.count);
  CHECK(std::none_of(e.notes.begin(), e.notes.end(),
                     [](const EstimateNote& n) { return n.kind == EstimateNote::Kind::batch_grown; }));
  r.max_gpus = e.count / 2;  // nothing larger than the step before on offer
  CHECK(estimate(r, infer_shape(1e9), gpu).sizing.stop == Sizing::Stop::offer);
  r.count = 8;  // the user's count is kept
  const Estimate fixed = estimate(r, infer_shape(1e9), gpu);
  CHECK(fixed.count == 8);
  CHECK(fixed.sizing.stop == Sizing::Stop::fixed);
}

TEST_CASE("serving layouts: tensor parallelism divides the count and the heads and stays in one server", "[estimate]") {
  const GpuSpec nvlink = test::card("g80", 80, 2000, 312, 8, 2.0);
  ModelShape model = infer_shape(70e9);
  Request r = request(70e9, Task::inference);
  r.count = 5;  // no power of two divides 5: pipeline stages
  Estimate five = estimate(r, model, nvlink);
  CHECK(five.layout.tensor == 1);
  CHECK(five.layout.pipeline == 5);
  model.heads = 28;  // Qwen2.5-7B's 28 heads do not split 8 ways
  r.count = 8;
  const Estimate eight = estimate(r, model, nvlink);
  CHECK(eight.layout.tensor == 4);
  CHECK(eight.layout.pipeline * eight.layout.data == 2);  // two stages, or two copies where they serve more
  const Layout one_copy = sizing::serving_layouts(r, model, nvlink, 8).front();  // one copy over all 8
  CHECK(one_copy.tensor == 4);
  CHECK(one_copy.pipeline == 2);
  GpuSpec single = test::card("gh", 96, 4000, 990, 1, 4.0);  // one GPU a server, no scale-up link
  single.node.gpus_per_node = 1;
  r.count = 4;
  const Estimate modules = estimate(r, infer_shape(70e9), single);
  CHECK(modules.layout.tensor == 1);  // no tensor parallelism across servers
  REQUIRE_FALSE(modules.notes.empty());
  const auto crossing = std::find_if(modules.notes.begin(), modules.notes.end(),
                                     [](const EstimateNote& n) { return n.kind == EstimateNote::Kind::multi_node; });
  REQUIRE(crossing != modules.notes.end());
  CHECK(crossing->crossing == EstimateNote::Crossing::pipeline);
  CHECK(modules.layout.pipeline >= 2);
  CHECK(crossing->nodes == modules.layout.pipeline);  // a copy's stages, one server each
}

TEST_CASE("speed first treats one NVLink domain as one server", "[estimate][tiers]") {
  GpuSpec rack = test::card("rack", 186, 8000, 2500, 72, 10.0);
  rack.node.gpus_per_node = 4;
  rack.node.rent_shapes = {4, 72};
  Request r = test::request(405e9, Task::inference);
  r.budget = BudgetTier::high;
  const Estimate e = estimate(r, infer_shape(405e9), rack);
  REQUIRE(e.fits);
  CHECK(e.sizing.smallest == 72);  // 810 GB of weights do not fit in 4 trays
  CHECK(e.count == 72);            // within the rack's NVLink domain
  CHECK(e.sizing.stop == Sizing::Stop::node);
  CHECK(e.sizing.next == 144);
}

namespace {

// A rent quote as a price file gives it.
PriceQuote file_quote(double usd_per_gpu, int gpus, std::string instance, PriceKind kind = PriceKind::on_demand,
                      Region region = Region::global) {
  PriceQuote q;
  q.low_usd = q.high_usd = usd_per_gpu;
  q.kind = kind;
  q.region = region;
  q.provider = "cloud";
  q.instance_type = std::move(instance);
  q.gpus_per_instance = gpus;
  q.location = "zone-1";
  q.origin = "vms.csv:2";
  return q;
}

}  // namespace

TEST_CASE("a price file's cheapest offer for a count is in whole instances, idle GPUs paid for", "[estimate][prices]") {
  const PriceQuote one = file_quote(3.29, 1, "gpu_1x");
  const PriceQuote four = file_quote(3.09, 4, "gpu_4x");
  const PriceQuote eight = file_quote(2.99, 8, "gpu_8x");
  const std::vector<const PriceQuote*> all = {&one, &four, &eight};
  // 3 GPUs: three 1-GPU instances ($9.87/h) beat one 4-GPU instance ($12.36/h).
  auto offer = sizing::cheapest_offer(all, 3);
  REQUIRE(offer);
  CHECK(offer->instance_type == "gpu_1x");
  CHECK(offer->instances == 3);
  CHECK(offer->paid_gpus == 3);
  CHECK(offer->usd_per_hour == Approx(9.87));
  // 8 GPUs: one 8-GPU instance.
  offer = sizing::cheapest_offer(all, 8);
  CHECK(offer->instance_type == "gpu_8x");
  CHECK(offer->usd_per_hour == Approx(23.92));
  // 5 GPUs with 8-GPU instances only: one instance, 3 idle.
  offer = sizing::cheapest_offer({&eight}, 5);
  CHECK(offer->paid_gpus == 8);
  CHECK(offer->usd_per_hour == Approx(8 * 2.99));
  // A tie in price: fewer GPUs paid for wins.
  const PriceQuote per_gpu = file_quote(2.99, 0, "");
  offer = sizing::cheapest_offer({&eight, &per_gpu}, 8);
  CHECK(offer->instance_type == "gpu_8x");  // same price, same GPUs: the earlier quote
  offer = sizing::cheapest_offer({&eight, &per_gpu}, 4);
  CHECK(offer->instance_type.empty());  // by the GPU: 4 paid, not 8
  CHECK(offer->paid_gpus == 4);
  CHECK_FALSE(sizing::cheapest_offer({}, 4));
  // A sharded group of 4 (FSDP over 4, or a copy of tensor parallel 4) is
  // never split over 1-GPU instances: the 4-GPU instance, or none at all.
  offer = sizing::cheapest_offer(all, 4, 4);
  REQUIRE(offer);
  CHECK(offer->instance_type == "gpu_4x");
  offer = sizing::cheapest_offer(all, 3, 4);  // a group of 4 but 3 GPUs: still one instance of 4 or more
  CHECK(offer->instance_type == "gpu_4x");
  CHECK_FALSE(sizing::cheapest_offer({&one}, 4, 2));
  CHECK(sizing::cheapest_offer({&one, &per_gpu}, 4, 4)->instance_type.empty());  // by the GPU: any group
}

TEST_CASE("the GPUs a plan keeps in one server: the sharded group, at most a server", "[estimate][prices]") {
  const GpuSpec gpu = test::card("h", 80, 3350, 989, 8, std::nullopt);
  Layout l;
  l.data = 16;
  l.zero_stage = 3;  // FSDP over 16: a server's worth together, the rest over the network
  CHECK(sizing::gpus_together(l, true, gpu) == 8);
  l.data = 4;
  CHECK(sizing::gpus_together(l, true, gpu) == 4);
  l.zero_stage = 2;  // replicas: each GPU may sit apart
  CHECK(sizing::gpus_together(l, true, gpu) == 1);
  l.tensor = 2;  // a tensor-parallel pair is a group
  CHECK(sizing::gpus_together(l, true, gpu) == 2);
  l.tensor = 4;  // serving: one copy's GPUs, whatever the copies
  l.data = 3;
  CHECK(sizing::gpus_together(l, false, gpu) == 4);
}

TEST_CASE("a price file's shapes and kinds in the request's market are what a plan rents", "[estimate][prices]") {
  GpuSpec gpu = test::card("h", 80, 3350, 989, 8, std::nullopt);
  gpu.node.rent_shapes = {1, 2, 4, 8};
  gpu.rent_usd_per_gpu_hour = {file_quote(2.0, 8, "big"), file_quote(1.0, 8, "big-spot", PriceKind::spot),
                               file_quote(9.0, 2, "china", PriceKind::on_demand, Region::cn)};
  Request r;
  CHECK(sizing::rent_shapes(r, gpu) == std::vector<int>{8});
  CHECK(sizing::file_quotes(r, gpu).size() == 1);  // on demand only, without --spot
  r.spot = true;
  REQUIRE(sizing::file_quotes(r, gpu).size() == 1);
  CHECK(sizing::file_quotes(r, gpu).front()->kind == PriceKind::spot);
  r.region = Region::cn;  // no spot quote in China: on demand there, its own shape
  CHECK(sizing::file_quotes(r, gpu).front()->instance_type == "china");
  CHECK(sizing::rent_shapes(r, gpu) == std::vector<int>{2, 4, 8});  // 2-GPU instances, one to four of them
  // A quote by the GPU: any count the catalog rents it in.
  gpu.rent_usd_per_gpu_hour.push_back(file_quote(9.5, 0, "", PriceKind::on_demand, Region::cn));
  CHECK(sizing::rent_shapes(r, gpu) == std::vector<int>{1, 2, 4, 8});
  // The catalog's own quotes (no origin) have no shapes.
  GpuSpec plain = test::card("p", 80, 3350, 989, 8, 2.0);
  plain.node.rent_shapes = {1, 8};
  CHECK(sizing::rent_shapes(Request{}, plain) == std::vector<int>{1, 8});
  CHECK(sizing::file_quotes(Request{}, plain).empty());
}

TEST_CASE("an FP4 KV cache is TensorRT-LLM's on FP4 cards, and holds 0.5625 bytes a value", "[estimate]") {
  Request r = request(70e9, Task::inference);
  r.count = 1;
  r.kv_precision = KvPrecision::fp4;
  r.tpot_target_ms.reset();
  r.ttft_target_ms.reset();
  GpuSpec blackwell = test::card("b", 180, 8000, 2250, 8, 2.0);
  blackwell.compute.fp8_tflops = 4500;
  blackwell.compute.fp4_tflops = 9000;
  const ModelShape model = infer_shape(70e9);
  // vLLM (the default) has no FP4 cache; nor has a card without FP4.
  CHECK(estimate(r, model, blackwell).why_not.kind == Shortfall::Kind::no_fp4_kv);
  r.engine = ServingEngine::trtllm;
  GpuSpec hopper = blackwell;
  hopper.compute.fp4_tflops.reset();
  const Estimate refused = estimate(r, model, hopper);
  CHECK(refused.why_not.kind == Shortfall::Kind::no_fp4_kv);
  CHECK_THAT(describe(refused.why_not, Language::en), Catch::Contains("--engine trtllm"));
  const Estimate fp4 = estimate(r, model, blackwell);
  REQUIRE(fp4.fits);
  Request eight = r;
  eight.kv_precision = KvPrecision::fp8;
  const Estimate fp8 = estimate(eight, model, blackwell);
  REQUIRE(fp8.fits);
  // The same memory holds 1 / 0.5625 as many sequences.
  CHECK(fp4.inference->max_concurrency == Approx(fp8.inference->max_concurrency / 0.5625).epsilon(0.02));
}
