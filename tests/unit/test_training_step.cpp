// The training step model (docs/methodology.md §4): compute at the kernel
// efficiency, tensor-parallel collectives, the pipeline bubble, data-parallel
// traffic, recompute, and the layout search that picks the fastest.
#include <catch2/catch.hpp>

#include <set>

#include "estimate/parts.hpp"
#include "gpu_advise/catalog.hpp"
#include "gpu_advise/estimate.hpp"
#include "gpu_advise/model.hpp"
#include "gpu_fixture.hpp"

using namespace gpu_advise;
using sizing::training_time;

namespace {

TrainingEstimate time_of(const Request& r, const ModelShape& model, const GpuSpec& gpu, const Layout& layout) {
  std::vector<EstimateNote> notes;
  return training_time(r, model, gpu, layout, notes);
}

GpuSpec server_card() {
  GpuSpec g = test::card("g80", 80, 2000, 1000, 8, 2.0);
  g.node.gpus_per_node = 8;
  g.node.scale_out_gbps_per_gpu = 400;
  return g;
}

}  // namespace

TEST_CASE("on one GPU the step is its compute: MFU is the kernel efficiency less recompute", "[estimate][step]") {
  const GpuSpec gpu = server_card();
  const ModelShape model = infer_shape(1e9);
  Request r = test::request(1e9, Task::pretrain);
  const Layout one{1, 1, 1, 0, Recompute::selective};
  const TrainingEstimate t = time_of(r, model, gpu, one);
  const double kernel = gpu.efficiency.training_mfu.typical * sizing::training_kernel_factor *
                        sizing::stack_profile(Stack::megatron).speed;  // the pretraining default
  CHECK(t.step.tensor == 0);
  CHECK(t.step.bubble == 0);
  CHECK(t.step.data == 0);
  CHECK(t.mfu.typical == Approx(kernel * t.flops / t.hardware_flops));
  CHECK(t.gpu_hours.typical == Approx(t.hardware_flops / (1000e12 * kernel) / 3600));
  // Full recompute repeats the forward: a third more work, at 6N + attention.
  Layout full = one;
  full.recompute = Recompute::full;
  CHECK(time_of(r, model, gpu, full).hardware_flops == Approx(t.flops * 4.0 / 3.0));
  CHECK(time_of(r, model, gpu, full).gpu_hours.typical > t.gpu_hours.typical * 1.2);
}

TEST_CASE("LoRA counts the recomputed forward and QLoRA its dequantisation", "[estimate][step]") {
  const GpuSpec gpu = server_card();
  const ModelShape model = infer_shape(8e9);
  Request r = test::request(8e9, Task::lora);
  const Layout one{1, 1, 1, 0, Recompute::full};
  const TrainingEstimate lora = time_of(r, model, gpu, one);
  const double forward_backward = 6.0 * model.active_params + model.attention_training_flops_per_token(r.seq_len);
  CHECK(lora.flops == Approx(forward_backward * 2.0 / 3.0 * lora.tokens));
  CHECK(lora.hardware_flops == Approx(forward_backward * lora.tokens));  // 4N + the 2N forward again
  r.task = Task::qlora;
  const TrainingEstimate qlora = time_of(r, model, gpu, one);
  CHECK(qlora.hardware_flops == Approx(lora.hardware_flops * sizing::qlora_slowdown));
  CHECK(qlora.gpu_hours.typical > lora.gpu_hours.typical * 1.3);
}

TEST_CASE("tensor parallelism costs more over PCIe than over NVLink", "[estimate][step]") {
  const ModelShape model = infer_shape(70e9);
  Request r = test::request(70e9, Task::pretrain);
  const Layout tp8{8, 1, 1, 1, Recompute::full};
  const GpuSpec nvlink = server_card();
  GpuSpec pcie = server_card();
  pcie.interconnect = {"PCIe", 64, 1};
  const TrainingEstimate fast = time_of(r, model, nvlink, tp8);
  const TrainingEstimate slow = time_of(r, model, pcie, tp8);
  CHECK(fast.step.tensor > 0);
  CHECK(fast.step.tensor < fast.step.compute);
  CHECK(slow.step.tensor > 5 * fast.step.tensor);
  CHECK(slow.mfu.typical < fast.mfu.typical);
}

TEST_CASE("the pipeline bubble is (p - 1) / (v m) of the work and shrinks with micro-batches", "[estimate][step]") {
  const GpuSpec gpu = server_card();
  const ModelShape model = infer_shape(70e9);
  Request r = test::request(70e9, Task::pretrain);
  r.seq_len = 4096;
  r.global_batch = 16;  // 16 micro-batches on one pipeline
  const Layout pp4{1, 4, 1, 1, Recompute::full};
  const TrainingEstimate t = time_of(r, model, gpu, pp4);
  CHECK(t.step.micro_batches == 16);
  CHECK(t.step.interleave == std::max(1, (model.layers + 3) / 4 / 2));
  CHECK(t.step.bubble == Approx(3.0 / (t.step.interleave * 16) * (t.step.compute + t.step.tensor)));
  r.global_batch = 2;  // fewer micro-batches than stages: no interleaving, a large bubble
  const TrainingEstimate few = time_of(r, model, gpu, pp4);
  CHECK(few.step.interleave == 1);
  CHECK(few.step.bubble == Approx(1.5 * (few.step.compute + few.step.tensor)));
}

TEST_CASE("ZeRO-3 across servers waits on the network when compute cannot hide it", "[estimate][step]") {
  const ModelShape model = infer_shape(70e9);
  Request r = test::request(70e9, Task::pretrain);
  r.seq_len = 2048;
  r.micro_batch = 16;  // enough work per gather to hide it on a 400 Gb/s network
  r.global_batch = 1024;
  const Layout zero3{1, 1, 64, 3, Recompute::full};
  GpuSpec fast_network = server_card();
  GpuSpec slow_network = server_card();
  slow_network.node.scale_out_gbps_per_gpu = 25;
  const TrainingEstimate fast = time_of(r, model, fast_network, zero3);
  const TrainingEstimate slow = time_of(r, model, slow_network, zero3);
  CHECK(fast.step.data == 0);  // hidden behind the forward and backward
  CHECK(slow.step.data > 0);
  // 70B weights gathered twice and gradients reduced, in BF16, per micro-batch, over 25 Gb/s.
  const double bytes = 63.0 / 64.0 * (2 * sizing::param_gather_bytes + sizing::grad_reduce_bytes) * model.params;
  const double link = 25.0 / 8 * 1e9 * sizing::training_link_efficiency.typical;
  CHECK(slow.step.data == Approx(bytes / link - slow.step.compute));
}

TEST_CASE("the layout search picks the fastest layout that fits at a count", "[estimate][step]") {
  const GpuSpec gpu = server_card();
  const ModelShape model = infer_shape(13e9);
  Request r = test::request(13e9, Task::pretrain);
  r.count = 8;
  r.max_gpus = 8;
  const Estimate e = estimate(r, model, gpu);
  REQUIRE(e.training);
  const double usable = e.usable_bytes;
  for (const Layout& layout : sizing::layouts_for(r, model, gpu, 8)) {
    if (memory_per_gpu(r, model, layout).total() <= usable) {
      CAPTURE(layout.tensor, layout.pipeline, layout.zero_stage);
      CHECK(time_of(r, model, gpu, layout).tokens_per_s_per_gpu.typical <=
            e.training->tokens_per_s_per_gpu.typical * (1 + 1e-9));
    }
  }
}

TEST_CASE("a pipeline's counts stop where its stages would run short of micro-batches", "[estimate][step][search]") {
  // More data-parallel ranks than global batch / (micro-batch x stages) leave
  // each stage fewer micro-batches than stages: the bubble jumps and time rises
  // with the count, so the family bisection stops there and a fixed --count
  // leaves those layouts out too.
  const GpuSpec gpu = server_card();
  const ModelShape model = infer_shape(405e9);
  Request r = test::request(405e9, Task::pretrain);
  r.seq_len = 8192;
  r.global_batch = 2048;
  r.max_gpus = 16384;
  r.tokens = 15e12;
  for (const int n : {4096, 8192, 16384}) {
    for (const Layout& layout : sizing::layouts_for(r, model, gpu, n)) {
      if (layout.pipeline > 1) {
        CAPTURE(n, layout.tensor, layout.pipeline, layout.data);
        CHECK(layout.data * layout.pipeline <= 2048);
      }
    }
  }
  r.deadline_hours = 4000;
  const Estimate found = estimate(r, model, gpu);
  REQUIRE(found.fits);
  REQUIRE(found.training);
  CHECK(found.training->wall_hours.typical <= 4000);
  Request fixed = r;
  for (int n = 8; n < found.count; n += 8 * std::max(1, found.count / 8 / 64)) {  // a sample of smaller counts
    fixed.count = n;
    CAPTURE(n, found.count);
    CHECK_FALSE(estimate(fixed, model, gpu).fits);
  }
}

TEST_CASE("expert parallelism spreads a MoE model's experts in memory and in the step", "[estimate][step][moe]") {
  const GpuSpec gpu = server_card();
  const ModelShape model = load_embedded_models().resolve("qwen3-30b-a3b");
  REQUIRE(model.moe);
  Request r = test::request(model.params, Task::pretrain);
  Layout replicated{1, 1, 8, 1, Recompute::selective};
  Layout spread = replicated;
  spread.expert = 8;
  const MemoryBreakdown all = memory_per_gpu(r, model, replicated);
  const MemoryBreakdown eighth = memory_per_gpu(r, model, spread);
  CHECK(all.weights - eighth.weights == Approx(2.0 * model.routed_expert_params() * 7.0 / 8.0));
  CHECK(all.gradients - eighth.gradients == Approx(2.0 * model.routed_expert_params() * 7.0 / 8.0));
  CHECK(eighth.optimizer == Approx(all.optimizer));  // ZeRO-1 already shards it over the ranks
  // The all-to-all is charged; the search's layouts spread the experts over the server.
  CHECK(time_of(r, model, gpu, spread).step.tensor > 0);
  for (const Layout& layout : sizing::layouts_for(r, model, gpu, 8)) {
    CHECK(layout.expert == std::min(8 / layout.tensor, layout.data * layout.context));
  }
}

TEST_CASE("a stated 1F1B does not interleave, and DualPipe's bubble is (p/2 - 1) 2F of the m 3F a stage computes",
          "[estimate][step]") {
  const GpuSpec gpu = server_card();
  const ModelShape model = infer_shape(70e9);
  Request r = test::request(70e9, Task::pretrain);
  r.seq_len = 4096;
  r.global_batch = 16;
  const Layout pp4{1, 4, 1, 1, Recompute::full};
  CHECK(time_of(r, model, gpu, pp4).step.schedule == PipelineSchedule::interleaved);
  r.pipeline_schedule = PipelineSchedule::one_f_one_b;
  const TrainingEstimate plain = time_of(r, model, gpu, pp4);
  CHECK(plain.step.interleave == 1);
  CHECK(plain.step.schedule == PipelineSchedule::one_f_one_b);
  CHECK(plain.step.bubble == Approx(3.0 / 16 * (plain.step.compute + plain.step.tensor)));
  r.pipeline_schedule = PipelineSchedule::dualpipe;
  const TrainingEstimate dual = time_of(r, model, gpu, pp4);
  CHECK(dual.step.schedule == PipelineSchedule::dualpipe);
  CHECK(dual.step.bubble == Approx((4 / 2.0 - 1.0) * 2.0 / (3.0 * 16) * (dual.step.compute + dual.step.tensor)));
  CHECK(dual.step.bubble < plain.step.bubble / 4);
  // Without a pipeline there is no schedule to name.
  CHECK_FALSE(time_of(r, model, gpu, Layout{1, 1, 1, 1, Recompute::full}).step.schedule);
}

TEST_CASE("the expert all-to-all crosses the network beyond a server, and DualPipe hides it behind compute",
          "[estimate][step]") {
  const GpuSpec gpu = server_card();
  const ModelShape model = load_embedded_models().resolve("deepseek-v3");
  Request r = test::request(model.params, Task::pretrain);
  r.seq_len = 4096;
  r.global_batch = 8192;  // 64 micro-batches a rank: DualPipe needs 2 x 16
  Layout layout{1, 16, 128, 1, Recompute::full};
  layout.expert = 8;  // one server: 7 of 8 shares over NVLink
  const TrainingEstimate server = time_of(r, model, gpu, layout);
  layout.expert = 64;  // eight servers: 56 of 64 shares over 400 Gb/s
  const TrainingEstimate wide = time_of(r, model, gpu, layout);
  CHECK(wide.step.tensor > 3 * server.step.tensor);
  // ZeRO-1 reduces and gathers each expert's gradients over the 128 / e ranks
  // holding it, fewer as e grows: none at e = 128 (on a slow network, so that
  // a micro-batch's compute cannot hide the traffic).
  GpuSpec slow = gpu;
  slow.node.scale_out_gbps_per_gpu = 1;
  const Layout spread[] = {Layout{1, 16, 128, 1, Recompute::full, 8, 1}, Layout{1, 16, 128, 1, Recompute::full, 64, 1},
                           Layout{1, 16, 128, 1, Recompute::full, 128, 1}};
  CHECK(time_of(r, model, slow, spread[2]).step.data < time_of(r, model, slow, spread[1]).step.data);
  CHECK(time_of(r, model, slow, spread[1]).step.data < time_of(r, model, slow, spread[0]).step.data);
  // At e = 128 only the dense weights cross the ring: as a model without the
  // routed experts would (the window, one micro-batch's compute, is small on
  // this network).
  ModelShape dense = model;
  dense.params = model.params - model.routed_expert_params();
  dense.moe.reset();
  CHECK(time_of(r, model, slow, spread[2]).step.data ==
        Approx(time_of(r, dense, slow, Layout{1, 16, 128, 1, Recompute::full}).step.data).epsilon(0.02));
  layout.expert = 64;
  r.pipeline_schedule = PipelineSchedule::dualpipe;
  const TrainingEstimate dual = time_of(r, model, gpu, layout);
  CHECK(dual.step.schedule == PipelineSchedule::dualpipe);
  CHECK(dual.step.compute == Approx(wide.step.compute));
  CHECK(dual.step.tensor == Approx(std::max(0.0, wide.step.tensor - wide.step.compute)));
  CHECK(dual.gpu_hours.typical < wide.gpu_hours.typical * 0.8);
  // Too few micro-batches to feed both ends: the pipeline runs 1F1B.
  r.global_batch = 1024;
  CHECK(time_of(r, model, gpu, layout).step.schedule == PipelineSchedule::one_f_one_b);
}

TEST_CASE("DualPipe holds two stages' layers and one more micro-batch in flight", "[estimate][memory]") {
  const ModelShape model = infer_shape(70e9);
  Request r = test::request(70e9, Task::pretrain);
  r.seq_len = 4096;
  const Layout pp8{1, 8, 4, 1, Recompute::selective};
  const MemoryBreakdown plain = memory_per_gpu(r, model, pp8);
  r.pipeline_schedule = PipelineSchedule::dualpipe;
  const MemoryBreakdown dual = memory_per_gpu(r, model, pp8);
  CHECK(dual.weights == Approx(2 * plain.weights));
  CHECK(dual.gradients == Approx(2 * plain.gradients));
  CHECK(dual.optimizer == Approx(2 * plain.optimizer));
  CHECK(dual.activations > plain.activations);
  CHECK(dual.activations < plain.activations * 9.0 / 8.0 + 1.0);
}

TEST_CASE(
    "a MoE model's training layouts spread the experts over one server or 2, 4, 8 ... times as many where it helps",
    "[estimate][layout]") {
  const GpuSpec gpu = server_card();
  const ModelShape model = load_embedded_models().resolve("deepseek-v3");
  Request r = test::request(model.params, Task::pretrain);
  std::set<int> experts;
  for (const Layout& shape : sizing::model_parallel_shapes(r, model, gpu, 2048)) {
    experts.insert(shape.expert);
  }
  CHECK(experts.count(8) == 1);
  CHECK(experts.count(64) == 1);
  // Wider while the spread before left the experts' weights and gradients
  // over a quarter of the card: 2.6 TB / 128 = 20 GB is not over 20 GiB.
  CHECK(experts.count(256) == 0);
  // A pipeline of 8 stages holds 327 GB of them a GPU: EP 8 leaves 41 GB, so
  // EP 16 is tried; it leaves 20 GB, so nothing wider.
  std::set<int> staged;
  for (const Layout& shape : sizing::model_parallel_shapes(r, model, gpu, 2048)) {
    if (shape.tensor == 1 && shape.pipeline == 8 && shape.context == 1) {
      staged.insert(shape.expert);
    }
  }
  CHECK(staged == std::set<int>{8, 16});
  // Under DualPipe, which hides the all-to-all, every spread up to the experts.
  Request dual = r;
  dual.pipeline_schedule = PipelineSchedule::dualpipe;
  std::set<int> spreads;
  for (const Layout& shape : sizing::model_parallel_shapes(dual, model, gpu, 2048)) {
    spreads.insert(shape.expert);
  }
  CHECK(spreads.count(256) == 1);
  // On a 72-GPU domain the first spread is the largest that divides 256: 64.
  GpuSpec nvl72 = gpu;
  nvl72.interconnect.domain_size = 72;
  for (const Layout& shape : sizing::model_parallel_shapes(r, model, nvl72, 2048)) {
    CHECK(model.moe->experts % shape.expert == 0);
  }
  // DualPipe: no odd pipeline, and pipelines still tried.
  r.pipeline_schedule = PipelineSchedule::dualpipe;
  int pipelines = 0;
  for (const Layout& shape : sizing::model_parallel_shapes(r, model, gpu, 2048)) {
    CHECK((shape.pipeline == 1 || shape.pipeline % 2 == 0));
    pipelines += shape.pipeline > 1 ? 1 : 0;
  }
  CHECK(pipelines > 0);
  // At a count, the spread divides the data-parallel ranks: 288 ranks take 32 of 64.
  Layout shape{1, 4, 0, 1, std::nullopt};
  shape.expert = 64;
  CHECK(sizing::with_count(r, shape, 4 * 288).expert == 32);
}
