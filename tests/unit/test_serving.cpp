// The serving model (docs/methodology.md §5): each step pays for its share of
// prefill and for attention over the context held, tensor parallelism pays a
// latency and a bandwidth term, MoE reads the experts its tokens go to, the
// scheduler caps the batch, and the operating point meets the targets.
#include <catch2/catch.hpp>

#include <algorithm>
#include <utility>
#include <vector>

#include "estimate/parts.hpp"
#include "gpu_advise/catalog.hpp"
#include "gpu_advise/estimate.hpp"
#include "gpu_advise/model.hpp"
#include "gpu_fixture.hpp"

using namespace gpu_advise;

namespace {

// A serving request with the operating point fixed, no targets: the model alone.
Request serving(double params, int count, int concurrency, int prompt, int output) {
  Request r = test::request(params, Task::inference);
  r.count = count;
  r.concurrency = concurrency;
  r.context = prompt + output;
  r.output_tokens = output;
  r.tpot_target_ms.reset();
  r.ttft_target_ms.reset();
  return r;
}

InferenceEstimate served(const Request& r, const ModelShape& model, const GpuSpec& gpu) {
  const Estimate e = estimate(r, model, gpu);
  REQUIRE(e.fits);
  REQUIRE(e.inference);
  return *e.inference;
}

}  // namespace

TEST_CASE("each step pays for its prompts' prefill", "[serving]") {
  const GpuSpec gpu = test::card("g80", 80, 3350, 989, 8, 2.0);
  const ModelShape model = infer_shape(8e9);
  // 32 running sequences of 128 output tokens: a 2048-token prompt adds 512
  // prefill tokens to every step; a 128-token prompt adds 32.
  const InferenceEstimate long_prompt = served(serving(8e9, 1, 32, 2048, 128), model, gpu);
  const InferenceEstimate short_prompt = served(serving(8e9, 1, 32, 128, 128), model, gpu);
  CHECK(long_prompt.tpot_ms.typical > 1.5 * short_prompt.tpot_ms.typical);
  CHECK(long_prompt.tokens_per_s.typical < short_prompt.tokens_per_s.typical / 1.5);
  CHECK(long_prompt.ttft_ms.typical > 2 * short_prompt.ttft_ms.typical);
}

TEST_CASE("attention reads the context held, so time per token grows with it", "[serving]") {
  const GpuSpec gpu = test::card("g80", 80, 3350, 989, 8, 2.0);
  const ModelShape model = infer_shape(8e9);
  const InferenceEstimate shorter = served(serving(8e9, 1, 16, 768, 256), model, gpu);
  const InferenceEstimate longer = served(serving(8e9, 1, 16, 16128, 256), model, gpu);
  CHECK(longer.tpot_ms.typical > 1.3 * shorter.tpot_ms.typical);
}

TEST_CASE("tensor parallelism pays a bandwidth term that grows with the batch", "[serving]") {
  GpuSpec fast = test::card("fast", 80, 3350, 989, 8, 2.0);
  fast.interconnect.bandwidth_gb_per_s = 900;
  GpuSpec slow = fast;
  slow.interconnect.bandwidth_gb_per_s = 50;
  const ModelShape model = infer_shape(70e9);
  const double one_fast = served(serving(70e9, 8, 1, 128, 128), model, fast).tpot_ms.typical;
  const double one_slow = served(serving(70e9, 8, 1, 128, 128), model, slow).tpot_ms.typical;
  const double many_fast = served(serving(70e9, 8, 128, 1024, 128), model, fast).tpot_ms.typical;
  const double many_slow = served(serving(70e9, 8, 128, 1024, 128), model, slow).tpot_ms.typical;
  CHECK(one_slow / one_fast < 1.1);  // one sequence: the all-reduces are latency-bound
  CHECK(many_slow / many_fast > 1.3);
}

TEST_CASE("MoE decode reads only the experts its tokens are routed to", "[serving]") {
  const GpuSpec gpu = test::card("g192", 192, 5300, 1300, 8, 2.0);
  const ModelCatalog models = load_embedded_models();
  const ModelShape& mixtral = models.resolve("mixtral-8x7b");
  const ModelShape dense = infer_shape(mixtral.params);
  // One sequence routes each token to 2 of 8 experts: about a third of the
  // weights are read, against all of a dense model of the same size.
  const double moe = served(serving(mixtral.params, 1, 1, 128, 128), mixtral, gpu).tpot_ms.typical;
  const double full = served(serving(dense.params, 1, 1, 128, 128), dense, gpu).tpot_ms.typical;
  CHECK(moe < 0.6 * full);
  // At a large batch every expert is read: the advantage narrows.
  const double moe_many = served(serving(mixtral.params, 1, 128, 128, 128), mixtral, gpu).tpot_ms.typical;
  const double full_many = served(serving(dense.params, 1, 128, 128, 128), dense, gpu).tpot_ms.typical;
  CHECK(moe_many / full_many > moe / full);
  // Spread over a tensor-parallel group, the experts are expert-parallel.
  Request spread = serving(mixtral.params, 4, 8, 128, 128);
  CHECK(sizing::serving_layouts(spread, mixtral, gpu, 4).front().expert == 4);
}

TEST_CASE("the scheduler's limits cap the largest batch", "[serving]") {
  const GpuSpec gpu = test::card("g141", 141, 4800, 989, 8, 2.0);
  const ModelShape model = infer_shape(8e9);
  Request r = serving(8e9, 1, 1, 2048, 128);
  r.max_batch = 256;  // as stated (vLLM's default below 70 GiB)
  InferenceEstimate inf = served(r, model, gpu);
  // 2048 / 128: every running sequence brings 17 tokens a step; 8192 / 17 = 481,
  // above the 256 running sequences allowed.
  CHECK(inf.max_concurrency == 256);
  CHECK(inf.max_limit == InferenceEstimate::Limit::max_batch);
  r.max_batched_tokens = 2048;  // vLLM's server default on A100-class cards
  inf = served(r, model, gpu);
  CHECK(inf.max_concurrency == 2048 / 17);
  CHECK(inf.max_limit == InferenceEstimate::Limit::batched_tokens);
  r.max_batched_tokens = 65536;
  r.max_batch = 4096;
  r.context = 32768;  // now memory binds
  r.output_tokens = 1024;
  inf = served(r, model, gpu);
  CHECK(inf.max_limit == InferenceEstimate::Limit::memory);
  CHECK(inf.max_tokens_per_s.typical > inf.tokens_per_s.typical);
}

TEST_CASE("the operating point is the most sequences that fit and meet the targets", "[serving]") {
  const GpuSpec gpu = test::card("g80", 80, 3350, 989, 8, 2.0);
  const ModelShape model = infer_shape(8e9);
  Request r = test::request(8e9, Task::inference);
  r.count = 1;
  r.tpot_target_ms = 20.0;
  r.tpot_stated = true;
  const InferenceEstimate point = served(r, model, gpu);
  CHECK(point.point == InferenceEstimate::Point::targets);
  CHECK(point.tpot_ms.typical <= 20.0);
  CHECK(point.ttft_ms.typical <= 2000.0);
  REQUIRE(point.concurrency < point.max_concurrency);
  Request more = r;
  more.concurrency = point.concurrency + 1;
  more.tpot_target_ms.reset();
  CHECK(served(more, model, gpu).tpot_ms.typical > 20.0);
  // A stated target the card cannot reach at one sequence rejects it.
  r.tpot_target_ms = 2.0;
  const Estimate missed = estimate(r, model, gpu);
  CHECK_FALSE(missed.fits);
  CHECK(missed.why_not.kind == Shortfall::Kind::latency);
  CHECK(missed.why_not.latency_tpot);
  CHECK(missed.why_not.target_ms == 2.0);
  CHECK(missed.why_not.best_ms > 2.0);
  // The default target, unmet, relaxes to the knee instead.
  Request knee = test::request(8e9, Task::inference);
  knee.count = 1;
  knee.tpot_target_ms = 2.0;  // as if the default were 2 ms
  const InferenceEstimate relaxed = served(knee, model, gpu);
  CHECK(relaxed.point == InferenceEstimate::Point::knee);
  CHECK(relaxed.tpot_ms.typical <= 1.25 * relaxed.min_tpot_ms + 1e-9);
}

TEST_CASE("replicas are added to serve the request rate", "[serving]") {
  const GpuSpec gpu = test::card("g80", 80, 3350, 989, 8, 2.0);
  const ModelShape model = infer_shape(8e9);
  Request r = test::request(8e9, Task::inference);
  r.request_rate = 40.0;
  const Estimate e = estimate(r, model, gpu);
  REQUIRE(e.fits);
  REQUIRE(e.inference);
  CHECK(e.inference->requests_per_s.typical >= 40.0);
  CHECK(e.inference->replicas == e.layout.data);
  CHECK(e.count == e.layout.tensor * e.layout.pipeline * e.layout.data);
  CHECK(e.inference->tokens_per_s.typical ==
        Approx(e.inference->user_tokens_per_s.typical * e.inference->concurrency * e.inference->replicas));
  // Half the rate needs no more GPUs.
  Request half = r;
  half.request_rate = 20.0;
  CHECK(estimate(half, model, gpu).count <= e.count);
}

TEST_CASE("pipeline stages add a hop, never an absurd cost", "[serving]") {
  GpuSpec gpu = test::card("g80", 80, 3350, 989, 8, 2.0);
  gpu.compute.fp8_tflops = 1979;
  const ModelShape model = infer_shape(405e9);
  // 405B in FP8 on one server (TP 8) and on two (TP 8 x PP 2): the stages run
  // one after another, each with half the weights, plus a hop between them.
  Request one = serving(405e9, 8, 1, 128, 128);
  one.precision = InferencePrecision::fp8;
  Request two = one;
  two.count = 16;
  const Estimate e8 = estimate(one, model, gpu);
  const Estimate e16 = estimate(two, model, gpu);
  REQUIRE(e8.fits);
  REQUIRE(e16.fits);
  // At 16 GPUs two copies of TP 8 serve more than one copy over both
  // servers, and are chosen; the one copy is what this test times.
  CHECK(e16.layout.data == 2);
  const Layout stages = sizing::serving_layouts(two, model, gpu, 16).front();
  CHECK(stages.pipeline == 2);
  const auto piped =
      sizing::serve(two, model, gpu, stages, memory_per_gpu(two, model, stages), e16.usable_bytes, false);
  REQUIRE(piped.estimate);
  const double ratio = piped.estimate->tpot_ms.typical / e8.inference->tpot_ms.typical;
  CHECK(ratio > 0.9);
  CHECK(ratio < 1.5);
}

TEST_CASE("a rate no count on offer can serve is its own reason", "[serving]") {
  const GpuSpec gpu = test::card("g80", 80, 3350, 989, 8, 2.0);
  const ModelShape model = infer_shape(8e9);
  Request r = test::request(8e9, Task::inference);
  r.request_rate = 1e5;
  r.max_gpus = 16;
  const Estimate e = estimate(r, model, gpu);
  CHECK_FALSE(e.fits);
  CHECK(e.why_not.kind == Shortfall::Kind::rate);
  CHECK(e.why_not.request_rate == 1e5);
  CHECK(e.why_not.requests_per_s > 0);
  CHECK(e.why_not.requests_per_s < 1e5);
}

TEST_CASE("queueing at a rate: Erlang C waits, p50 and p90 first tokens, copies kept below the p90 target",
          "[serving]") {
  InferenceEstimate inf;
  inf.concurrency = 1;
  inf.max_concurrency = 1;
  inf.replicas = 1;
  inf.output_tokens = 100;
  inf.tpot_ms = {10, 10, 10};
  inf.ttft_ms = {0, 0, 0};  // one request's service: 100 x 10 ms = 1 s
  // M/M/1 at half load: half the requests wait, P(wait > t) = 0.5 exp(-(1 - 0.5) t).
  Queueing q = sizing::queueing(0.5, inf);
  CHECK(q.stable);
  CHECK(q.utilisation == Approx(0.5));
  CHECK(q.wait_probability == Approx(0.5));
  CHECK(q.ttft_p50_ms == Approx(0.0).margin(1e-9));
  CHECK(q.ttft_p90_ms == Approx(1000.0 * std::log(0.5 / 0.1) / 0.5));
  // More servers at the same load per server wait less (the pooling of many sequences).
  inf.concurrency = 100;
  inf.max_concurrency = 100;
  q = sizing::queueing(50, inf);
  CHECK(q.utilisation == Approx(0.5));
  CHECK(q.wait_probability < 1e-6);
  CHECK(q.ttft_p90_ms == Approx(0.0).margin(1e-6));
  // At or past capacity the queue grows without bound.
  CHECK_FALSE(sizing::queueing(100, inf).stable);
  // Two copies halve each one's rate.
  inf.replicas = 2;
  CHECK(sizing::queueing(100, inf).utilisation == Approx(0.5));
}

TEST_CASE("a request rate is served with the p90 first token within its target", "[serving]") {
  const GpuSpec gpu = test::card("g80", 80, 3350, 989, 8, 2.0);
  const ModelShape model = infer_shape(8e9);
  Request r = serving(8e9, 1, 1, 3584, 512);
  r.count.reset();
  r.concurrency.reset();
  r.tpot_target_ms = 50;
  r.ttft_target_ms = 2000;
  r.request_rate = 20;
  const Estimate e = estimate(r, model, gpu);
  REQUIRE(e.inference);
  REQUIRE(e.inference->queue);
  CHECK(e.inference->queue->stable);
  CHECK(e.inference->queue->ttft_p90_ms <= *e.inference->ttft_target_ms);
  CHECK(e.inference->queue->ttft_p50_ms <= e.inference->queue->ttft_p90_ms);
  CHECK(e.inference->requests_per_s.typical >= 20);
}

TEST_CASE("wide expert parallelism: experts over servers, attention data parallel, its all-to-all as DeepEP measures",
          "[serving]") {
  const Catalog catalog = load_embedded_catalog();
  const ModelCatalog models = load_embedded_models();
  const ModelShape& v3 = models.resolve("deepseek-v3");
  const GpuSpec& h800 = catalog.resolve("h800-sxm");
  Request r = serving(v3.params, 16, 64, 1000, 1000);
  r.precision = InferencePrecision::fp8;
  // The layouts of 16 GPUs hold one expert group of 16, and groups of 8, 4
  // and 2 (the sizes that divide both the GPUs and the 256 experts).
  const std::vector<Layout> layouts = sizing::serving_layouts(r, v3, h800, 16);
  for (const int group : {16, 8, 4, 2}) {
    CAPTURE(group);
    CHECK(std::any_of(layouts.begin(), layouts.end(),
                      [&](const Layout& l) { return l.wide_expert() && l.expert == group && l.data == 16; }));
  }
  // 24 GPUs: groups of 8 (one a server) and of 2 and 4, not 3, 6, 12 or 24 (256 experts).
  for (const Layout& l : sizing::serving_layouts(r, v3, h800, 24)) {
    if (l.wide_expert()) {
      CHECK(256 % l.expert == 0);
    }
  }
  const auto wide = std::find_if(layouts.begin(), layouts.end(), [](const Layout& l) { return l.expert == 16; });
  REQUIRE(wide != layouts.end());
  CHECK(wide->wide_expert());
  CHECK(wide->tensor == 1);
  CHECK(wide->data == 16);
  // Each GPU holds the attention and shared weights whole and 1/16 of the routed experts.
  const MemoryBreakdown memory = memory_per_gpu(r, v3, *wide);
  const double whole = weight_bytes(r, v3);
  const double routed = routed_weight_bytes(r, v3);
  CHECK(memory.weights == Approx(whole - routed + routed / 16));
  // A dense model has no such layout.
  const ModelShape dense = infer_shape(70e9);
  for (const Layout& l : sizing::serving_layouts(r, dense, h800, 16)) {
    CHECK_FALSE(l.wide_expert());
  }
  // DeepEP's low-latency kernels (deepseek-ai/DeepEP README: H800, CX7 400 Gb/s,
  // 128 tokens a GPU, hidden 7168, top-8, FP8 dispatch, BF16 combine):
  // dispatch + combine of one layer, microseconds, for EP 16 to 256.
  const std::pair<int, double> deepep[] = {
      {16, 118 + 195}, {32, 155 + 273}, {64, 173 + 314}, {128, 192 + 369}, {256, 194 + 360}};
  for (const auto& [ep, us] : deepep) {
    Layout l{1, 1, ep, 0, std::nullopt};
    l.expert = ep;
    const sizing::ExpertAllToAll a2a(r, v3, h800, l);
    INFO("EP " << ep);
    CHECK(a2a.layer_s(128) * 1e6 == Approx(us).epsilon(0.25));
  }
  // On 16 H100s, DeepSeek-V3 in FP8 serves more as one expert group than as
  // tensor parallel 8 x pipeline parallel 2, and no prefill/decode split is made of it.
  Request plan = serving(v3.params, 16, 0, 1000, 1000);
  plan.concurrency.reset();
  plan.precision = InferencePrecision::fp8;
  plan.kv_precision = KvPrecision::fp8;
  const Estimate e = estimate(plan, v3, catalog.resolve("h100-sxm5"));
  REQUIRE(e.inference);
  CHECK(e.layout.wide_expert());
  CHECK_FALSE(e.inference->disaggregated);
}

TEST_CASE("a linear-attention state splits over its value heads, the KV cache over the KV heads", "[serving]") {
  // Qwen3-Next: 2 KV heads, 32 linear value heads. At TP 8 the KV cache is
  // split 2 ways (each KV head whole on 4 ranks), the state 8 ways.
  const ModelCatalog models = load_embedded_models();
  const ModelShape& m = models.resolve("qwen3-next-80b-a3b");
  const Request r = test::request(80e9, Task::inference);
  Layout tp8;
  tp8.tensor = 8;
  const double tokens = 4096;
  const double kv = m.kv_bytes(tokens, 2.0);
  const double state = m.linear_state_bytes(2.0);
  CHECK(sizing::cache_bytes_per_gpu(r, m, tp8, tokens) == Approx(kv / 2.0 + state / 8.0));
  CHECK(sizing::cache_bytes_per_gpu(r, m, Layout{}, tokens) == Approx(kv + state));
}
