// Training's memory savers (docs/methodology.md §2, §4): offload to host
// memory, the optimizer in the backward pass, 8-bit states without a master,
// and the goodput of long runs.
#include <catch2/catch.hpp>
#include <cmath>

#include "estimate/parts.hpp"
#include "gpu_advise/catalog.hpp"
#include "gpu_advise/estimate.hpp"
#include "gpu_advise/model.hpp"
#include "gpu_advise/units.hpp"
#include "gpu_fixture.hpp"

using namespace gpu_advise;

TEST_CASE("offload moves the optimizer states, and with the parameters the weights, to host memory",
          "[estimate][offload]") {
  const ModelShape model = infer_shape(70e9);
  Request r = test::request(70e9, Task::full);
  const Layout eight{1, 1, 8, 3, Recompute::full};
  const MemoryBreakdown on_gpu = memory_per_gpu(r, model, eight);
  CHECK(on_gpu.optimizer == Approx(12.0 * 70e9 / 8));
  CHECK(on_gpu.host == 0);
  r.offload = Offload::optimizer;
  const MemoryBreakdown optimizer = memory_per_gpu(r, model, eight);
  CHECK(optimizer.optimizer == 0);
  CHECK(optimizer.host == Approx(on_gpu.optimizer));
  CHECK(optimizer.weights == Approx(on_gpu.weights));
  r.offload = Offload::optimizer_params;
  const MemoryBreakdown both = memory_per_gpu(r, model, eight);
  CHECK(both.weights < on_gpu.weights / 2);  // the two layers at work
  CHECK(both.gradients == Approx(2.0 * model.params_per_layer()));
  CHECK(both.host == Approx(on_gpu.optimizer + 2.0 * 70e9 / 8 + on_gpu.gradients - both.gradients));
  CHECK(both.total() < optimizer.total());
}

TEST_CASE("the optimizer in the backward pass holds one layer's gradients", "[estimate][offload]") {
  const ModelShape model = infer_shape(8e9);
  Request r = test::request(8e9, Task::full);
  const Layout one{1, 1, 1, 0, Recompute::full};
  const double all = memory_per_gpu(r, model, one).gradients;
  r.optimizer_in_backward = true;
  const double layer = memory_per_gpu(r, model, one).gradients;
  CHECK(all == Approx(2.0 * 8e9));
  CHECK(layer == Approx(2.0 * model.params_per_layer()));
}

TEST_CASE("8-bit states on BF16 weights keep no master copy", "[estimate][offload]") {
  CHECK(training_bytes(Optimizer::adamw_8bit_bf16).optimizer == 2);
  CHECK(training_bytes(Optimizer::adamw_8bit).optimizer == 6);
  CHECK(enum_from_string<Optimizer>("adamw-8bit-bf16") == Optimizer::adamw_8bit_bf16);
  CHECK(enum_from_string<Offload>("optimizer+params") == Offload::optimizer_params);
}

TEST_CASE("offload costs PCIe and host time, and says how much host memory it needs", "[estimate][offload]") {
  const Catalog catalog = load_embedded_catalog();
  const GpuSpec& a100 = catalog.resolve("a100-80gb-sxm4");
  // The same 13B layout on 8 x A100 with the states on the GPU and on the host.
  const ModelShape model = infer_shape(13e9);
  Request r = test::request(13e9, Task::full);
  r.count = 8;
  r.zero_stage = 3;
  const Estimate plain = estimate(r, model, a100);
  r.offload = Offload::optimizer;
  const Estimate offloaded = estimate(r, model, a100);
  REQUIRE(plain.fits);
  REQUIRE(offloaded.fits);
  REQUIRE(offloaded.training);
  CHECK(offloaded.per_gpu.total() < plain.per_gpu.total());
  CHECK(offloaded.training->offload_hours.typical > 0);
  CHECK(offloaded.training->offload_hours.low < offloaded.training->offload_hours.high);
  // The stalls add to the time training runs (before the goodput's lost time).
  CHECK(
      offloaded.training->wall_hours.typical * offloaded.training->goodput ==
      Approx(plain.training->wall_hours.typical * plain.training->goodput + offloaded.training->offload_hours.typical));
  // The case: 70B on 8 x A100 fits only with the states on the host,
  // 12 bytes a parameter of FP32 master, m and v: 105 GB per GPU, 840 GB a server.
  Request big = test::request(70e9, Task::full);
  big.count = 8;
  CHECK_FALSE(estimate(big, infer_shape(70e9), a100).fits);
  big.offload = Offload::optimizer;
  const Estimate seventy = estimate(big, infer_shape(70e9), a100);
  REQUIRE(seventy.fits);
  CHECK(seventy.per_gpu.host / 1e9 == Approx(105).epsilon(0.01));
  CHECK(seventy.host_bytes_per_server / 1e9 == Approx(840).epsilon(0.01));
}

TEST_CASE("a run's wall time allows for interruptions and checkpoints at a derived goodput", "[estimate][goodput]") {
  const GpuSpec gpu = test::card("g80", 80, 2000, 312, 8, 2.0);
  const ModelShape model = infer_shape(7e9);
  Request r = test::request(7e9, Task::pretrain);
  r.count = 64;
  r.tokens = 1e12;
  const Estimate pre = estimate(r, model, gpu);
  REQUIRE(pre.training);
  REQUIRE(pre.training->checkpointing);
  const TrainingEstimate::Checkpointing& c = *pre.training->checkpointing;
  // One checkpoint: BF16 weights and FP32 master, m and v, 14 bytes a
  // parameter, written by the 8 servers at 1 GB/s each.
  CHECK(c.bytes == Approx(14 * model.params));
  CHECK(c.write_hours == Approx(14 * model.params / 8e9 / 3600));
  // Young/Daly: every sqrt(2 x write x MTBF), MTBF = 1 / (rate x GPUs).
  const double mtbf = 1.0 / (sizing::interruptions_per_gpu_hour * 64);
  CHECK(c.interval_hours == Approx(std::sqrt(2 * c.write_hours * mtbf)));
  const double compute_hours = pre.training->gpu_hours.typical / 64;  // GPU-hours stay the compute
  CHECK(c.interruptions == Approx(compute_hours / mtbf));
  // The checkpoints before the last, which is the result saved with the job's overhead.
  const double lost = (std::ceil(compute_hours / c.interval_hours) - 1) * c.write_hours +
                      c.interruptions * (c.interval_hours / 2 + c.restart_hours);
  CHECK(pre.training->goodput == Approx(compute_hours / (compute_hours + lost)));
  CHECK(pre.training->goodput > 0.95);  // 64 GPUs are interrupted about every 33 days
  CHECK(pre.training->wall_hours.typical == Approx(compute_hours / pre.training->goodput));
  // A larger cluster is interrupted more often: lower goodput.
  r.count = 4096;
  CHECK(estimate(r, model, gpu).training->goodput < pre.training->goodput);
  // --goodput states it instead.
  r.count = 64;
  r.goodput = 0.5;
  r.goodput_stated = true;
  const Estimate stated = estimate(r, model, gpu);
  CHECK_FALSE(stated.training->checkpointing);
  CHECK(stated.training->wall_hours.typical == Approx(compute_hours / 0.5));
  // A short fine-tune loses almost nothing: no checkpoint before its final save.
  Request ft = test::request(7e9, Task::full);
  ft.count = 8;
  const Estimate short_run = estimate(ft, model, gpu);
  CHECK(short_run.training->goodput > 0.999);
}

TEST_CASE("context parallelism splits a long sequence over GPUs", "[estimate][context]") {
  const Catalog catalog = load_embedded_catalog();
  const GpuSpec& h100 = catalog.resolve("h100-sxm5");
  const ModelCatalog models = load_embedded_models();
  const ModelShape& model = models.resolve("llama-3.1-405b");
  // Llama 3 405B's 128K stage ran on 16,384 H100 as TP 8 x CP 16 x PP 16 x DP 8
  // (Llama 3 paper, table 4): without context parallelism it does not fit.
  Request r = test::request(model.params, Task::pretrain);
  r.seq_len = 131072;
  r.global_batch = 128;  // the paper's 16M tokens a step: 8 micro-batches for each of 16 stages
  r.count = 16384;
  r.tokens = 800e9;
  const Estimate e = estimate(r, model, h100);
  REQUIRE(e.fits);
  CHECK(e.layout.context > 1);
  CHECK(e.layout.gpus() == 16384);
  CHECK(e.layout.data * e.layout.context * e.layout.tensor * e.layout.pipeline == 16384);
  // Activations split with the sequence; ZeRO shards over the data and context ranks.
  Layout split{8, 16, 8, 1, Recompute::full};
  split.context = 16;
  Layout whole = split;
  whole.context = 1;
  whole.data = 128;
  const MemoryBreakdown with_cp = memory_per_gpu(r, model, split);
  const MemoryBreakdown without = memory_per_gpu(r, model, whole);
  CHECK(with_cp.activations == Approx(without.activations / 16).epsilon(0.01));
  CHECK(with_cp.optimizer == Approx(without.optimizer));
  // Short sequences never use it.
  Request short_seq = r;
  short_seq.seq_len = 8192;
  CHECK(estimate(short_seq, model, h100).layout.context == 1);
}

TEST_CASE("the loss's logits memory follows the stack: full, chunked or fused", "[estimate][memory]") {
  const ModelShape model = infer_shape(8e9);
  Request r = test::request(8e9, Task::lora);
  r.seq_len = 8192;
  const Layout one{1, 1, 1, 0, Recompute::full};
  CHECK(r.effective_loss() == Loss::full);  // Hugging Face + PEFT, the LoRA default
  const double full = memory_per_gpu(r, model, one).activations;
  r.loss = Loss::chunked;
  const double chunked = memory_per_gpu(r, model, one).activations;
  r.loss = Loss::fused;
  const double fused = memory_per_gpu(r, model, one).activations;
  const double logits = 8192.0 * model.vocab;
  CHECK(full - chunked == Approx((10.0 - 2.5) * logits));
  CHECK(full - fused == Approx((10.0 - 4.0) * logits));
  r.loss.reset();
  r.task = Task::pretrain;
  CHECK(r.effective_loss() == Loss::fused);  // Megatron-Core, torchtitan
}
