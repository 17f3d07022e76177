#include <catch2/catch.hpp>

#include <cmath>

#include "gpu_advise/estimate.hpp"
#include "gpu_advise/units.hpp"
#include "gpu_fixture.hpp"

using namespace gpu_advise;

using test::request;

TEST_CASE("GPU counts are 1, 2, 4, 8 then whole nodes", "[estimate]") {
  CHECK(candidate_counts(20) == std::vector<int>{1, 2, 4, 8, 16});
  CHECK(candidate_counts(3) == std::vector<int>{1, 2});
}

TEST_CASE("full fine-tune model states are 16 bytes per parameter, sharded", "[estimate]") {
  // ZeRO paper (arXiv 1910.02054): 2 + 2 + 12 bytes per parameter.
  const Request r = request(7e9, Task::full);
  const ModelShape shape = infer_shape(r.params);
  const MemoryBreakdown one = memory_per_gpu(r, shape, 1);
  CHECK(one.weights == Approx(14e9));
  CHECK(one.gradients == Approx(14e9));
  CHECK(one.optimizer == Approx(84e9));
  const MemoryBreakdown eight = memory_per_gpu(r, shape, 8);
  CHECK(eight.optimizer == Approx(84e9 / 8));
  CHECK(eight.activations == Approx(one.activations));  // each rank runs its own micro-batch
}

TEST_CASE("LoRA keeps a frozen BF16 base and trains only the adapters", "[estimate]") {
  const Request r = request(7e9, Task::lora);
  const ModelShape shape = infer_shape(r.params);
  const MemoryBreakdown m = memory_per_gpu(r, shape, 1);
  const double adapters = shape.lora_params(16);
  CHECK(m.weights == Approx(2 * 7e9 + 4 * adapters));
  CHECK(m.gradients == Approx(4 * adapters));
  CHECK(m.optimizer == Approx(8 * adapters));
}

TEST_CASE("QLoRA stores the base in about half a byte per parameter", "[estimate]") {
  const Request lora = request(70e9, Task::lora);
  Request qlora = lora;
  qlora.task = Task::qlora;
  const ModelShape shape = infer_shape(70e9);
  const double lora_base = memory_per_gpu(lora, shape, 1).weights;
  const double qlora_base = memory_per_gpu(qlora, shape, 1).weights;
  // 70B: 140 GB in BF16; NF4 with double quantisation ~0.52 bytes/param for the
  // blocks plus BF16 embeddings lands near 40 GB.
  CHECK(lora_base / 1e9 == Approx(141).epsilon(0.02));
  CHECK(qlora_base / 1e9 == Approx(40).epsilon(0.1));
}

TEST_CASE("inference memory is weights plus the KV cache at the context served", "[estimate]") {
  Request r = request(70e9, Task::inference);
  r.context = 4096;
  r.concurrency = 8;
  const ModelShape shape = infer_shape(70e9);
  const MemoryBreakdown one = memory_per_gpu(r, shape, 1);
  CHECK(one.weights == Approx(140e9));
  CHECK(one.kv_cache == Approx(2.0 * shape.layers * 8 * 128 * 2 * 4096 * 8));
  // KV heads split across tensor-parallel ranks, up to the number of KV heads.
  CHECK(memory_per_gpu(r, shape, 4).kv_cache == Approx(one.kv_cache / 4));
  CHECK(memory_per_gpu(r, shape, 16).kv_cache == Approx(one.kv_cache / 8));
}

TEST_CASE("the estimate takes the smallest count that fits", "[estimate]") {
  const GpuSpec gpu = test::card("g80", 80, 2000, 312, 8, 2.0);
  const Request r = request(70e9, Task::lora);
  const ModelShape shape = infer_shape(70e9);
  const Estimate e = estimate(r, shape, gpu);
  REQUIRE(e.fits);
  CHECK(e.per_gpu.total() <= e.usable_bytes);
  const auto counts = candidate_counts(r.max_gpus);
  const auto at = std::find(counts.begin(), counts.end(), e.count);
  REQUIRE(at != counts.end());
  if (at != counts.begin()) {
    CHECK(memory_per_gpu(r, shape, *(at - 1)).total() > e.usable_bytes);
  }
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
  CHECK_THAT(e.why_not, Catch::Contains("--count 2") && Catch::Contains("GiB per GPU"));
}

TEST_CASE("training time is FLOPs over dense peak times MFU", "[estimate]") {
  const GpuSpec gpu = test::card("g80", 80, 2000, 312, 8, 2.0);
  Request r = request(7e9, Task::pretrain);
  const ModelShape shape = infer_shape(7e9);
  const Estimate e = estimate(r, shape, gpu);
  REQUIRE(e.training);
  const double per_token = 6 * 7e9 + 12.0 * shape.layers * shape.heads * shape.head_dim * r.seq_len;
  CHECK(e.training->flops == Approx(per_token * 140e9));
  CHECK(e.training->gpu_hours.typical ==
        Approx(e.training->flops / (312e12 * e.training->mfu.typical) / 3600));
  CHECK(e.training->gpu_hours.low < e.training->gpu_hours.typical);
  CHECK(e.training->gpu_hours.typical < e.training->gpu_hours.high);
  REQUIRE(e.cost.rent_usd);
  CHECK(e.cost.rent_usd->typical == Approx(e.training->gpu_hours.typical * 2.0));
}

TEST_CASE("decode throughput is bound by memory bandwidth at small batch", "[estimate]") {
  const GpuSpec gpu = test::card("g80", 80, 2000, 312, 8, 2.0);
  Request r = request(8e9, Task::inference);
  r.concurrency = 1;
  const Estimate e = estimate(r, infer_shape(8e9), gpu);
  REQUIRE(e.inference);
  const double bytes = e.per_gpu.weights + e.per_gpu.kv_cache;
  CHECK(e.inference->tokens_per_s.typical == Approx(2000e9 * 0.72 / bytes));
  CHECK(e.cost.usd_per_million_tokens->typical ==
        Approx(2.0 / (e.inference->tokens_per_s.typical * 3600) * 1e6));
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
          CHECK_FALSE(e.why_not.empty());
          continue;
        }
        CHECK(e.count >= 1);
        if (e.training) {
          CHECK(std::isfinite(e.training->wall_hours.high));
          CHECK(e.training->wall_hours.low > 0);
        }
        if (e.inference) {
          CHECK(std::isfinite(e.inference->tokens_per_s.low));
          CHECK(e.inference->tokens_per_s.low > 0);
        }
      }
    }
  }
}
