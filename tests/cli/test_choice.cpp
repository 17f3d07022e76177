// Issue 33's examples, tried as a new user would: each choice an expert would
// sign (docs/methodology.md §7). The properties over many requests are in
// tests/unit/test_choose.cpp.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness.hpp"

namespace {

using harness::Result;
using harness::run;

nlohmann::json doc(std::vector<std::string> args) {
  args.insert(args.end(), {"--format", "json"});
  const Result r = run(args);
  REQUIRE(r.status == 0);
  return nlohmann::json::parse(r.out);
}

const nlohmann::json& best(const nlohmann::json& d) { return d["recommendations"][0]; }

}  // namespace

TEST_CASE("a request rate takes ceil(rate / one copy's rate) copies, copies over servers included", "[cli][choice]") {
  // Kimi K2 at 1 request/s on H100 was 496 GPUs (31 copies serving 13.5 req/s), then 912.
  const auto kimi = doc({"--model", "kimi-k2", "--task", "inference", "--request-rate", "1", "--gpu", "h100-sxm5"});
  const auto& k = best(kimi);
  CHECK(k["count"].get<int>() <= 256);
  CHECK(k["inference"]["requests_per_s"]["typical"].get<double>() >= 1.0);
  // One copy: the experts over one group of GPUs with data-parallel
  // attention, which serves more than the rate on fewer GPUs than tensor x
  // pipeline copies (--ep 1: 96 GPUs, 3 copies of TP 8 x PP 4).
  CHECK(k["layout"]["tensor_parallel"] == 1);
  CHECK(k["layout"]["expert_parallel"] == k["count"]);
  const std::vector<std::string> within = {"--model", "kimi-k2", "--task",    "inference", "--request-rate",
                                           "1",       "--gpu",   "h100-sxm5", "--ep",      "1"};
  const auto within_doc = doc(within);
  const auto& w = best(within_doc);
  CHECK(w["count"].get<int>() > k["count"].get<int>());
  CHECK(w["inference"]["requests_per_s"]["typical"].get<double>() < 2.0);  // copies serve under twice the rate
  // Llama 3.1 405B at 0.2 requests/s: was 496 GPUs.
  const auto llama =
      doc({"--model", "llama-3.1-405b", "--task", "inference", "--request-rate", "0.2", "--gpu", "h100-sxm5"});
  CHECK(best(llama)["count"].get<int>() <= 64);
  // Sized on copies serving both phases (split into prefill and decode pools,
  // the same GPUs may serve more).
  const auto& served = best(llama)["inference"];
  CHECK((served["disaggregated"].is_null() ? served["requests_per_s"]["typical"]
                                           : served["disaggregated"]["colocated_requests_per_s"])
            .get<double>() < 0.4);
}

TEST_CASE("the Best is priced: unpriced racks and new cards are listed after, with how to price them",
          "[cli][choice]") {
  for (const auto& args : std::vector<std::vector<std::string>>{{"--params", "70B", "--task", "full"},
                                                                {"--model", "deepseek-v3", "--task", "lora"},
                                                                {"--model", "mixtral-8x7b", "--task", "inference"}}) {
    CAPTURE(args);
    const auto d = doc(args);
    REQUIRE(d["best_priced"] == true);
    CHECK_FALSE(best(d)["objective"]["usd"].is_null());
  }
  const Result text = run({"--params", "70B", "--task", "full", "--explain"}, "COLUMNS=1000");
  CHECK_THAT(text.out, Catch::Contains("no price, never the Best: at ") && Catch::Contains("(the median of the priced "
                                                                                           "plans) it would be"));
  const auto full = doc({"--params", "70B", "--task", "full"});
  for (const auto& rec : full["recommendations"]) {
    if (rec["objective"]["usd"].is_null()) {
      CHECK(rec["objective"]["assumed"]["rank"].get<int>() >= 1);
      CHECK(rec["objective"]["assumed"]["usd"].get<double>() > 0);
    }
  }
}

TEST_CASE("a short job is not a whole server for minutes at cost first: the job's overhead is paid", "[cli][choice]") {
  // 3B LoRA: 8 x MI325X finishes in minutes, but start-up, loading and saving
  // are paid on all eight; one card is cheaper.
  const auto low = doc({"--params", "3B", "--task", "lora", "--budget", "low"});
  CHECK(best(low)["count"] == 1);
  for (const auto& rec : low["recommendations"]) {
    if (!rec["cost_usd"]["rent"].is_null()) {
      CHECK(rec["cost_usd"]["rent_overhead"].get<double>() > 0);
      CHECK(rec["training"]["job_overhead_hours"].get<double>() >= 1.0 / 6.0);
    }
  }
}

TEST_CASE("serving is chosen on cost per million output tokens, not per hour", "[cli][choice]") {
  // Mixtral was 4 x A40 at $22 per million tokens for one user.
  const auto d = doc({"--model", "mixtral-8x7b", "--task", "inference", "--budget", "low"});
  const auto& b = best(d);
  CHECK(b["objective"]["kind"] == "million_output_tokens");
  CHECK(b["objective"]["usd"].get<double>() < 2.0);
  for (const auto& rec : d["recommendations"]) {
    if (!rec["objective"]["usd"].is_null()) {
      CHECK(b["objective"]["usd"].get<double>() <= rec["objective"]["usd"].get<double>());
    }
  }
}

TEST_CASE("cost first is the cheapest plan, whatever a rule says about a card", "[cli][choice]") {
  // The '80 GB Ampere' rule added 10 points to A100 plans; now it is a note.
  const auto d = doc({"--params", "13B", "--task", "full", "--budget", "low"});
  const double usd = best(d)["objective"]["usd"].get<double>();
  for (const auto& rec : d["recommendations"]) {
    if (!rec["objective"]["usd"].is_null()) {
      CHECK(usd <= rec["objective"]["usd"].get<double>());
    }
  }
}

TEST_CASE("buying, balanced does not double the servers of a run that meets its deadline", "[cli][choice]") {
  std::vector<std::string> args{"--params", "405B", "--task", "pretrain", "--mode", "buy", "--gpu", "b200"};
  auto with = [&](const char* tier) {
    std::vector<std::string> a = args;
    a.insert(a.end(), {"--budget", tier});
    return best(doc(a));
  };
  const auto low = with("low");
  const auto medium = with("medium");
  CHECK(medium["count"] == low["count"]);
  CHECK(medium["cost_usd"]["purchase"]["typical"].get<double>() <=
        1.1 * low["cost_usd"]["purchase"]["typical"].get<double>());
}

TEST_CASE("fit serves with the copy size that gives the most tokens/s", "[cli][choice]") {
  // Qwen3-32B on 16 A100: 16 single copies gave 336 tokens/s, 2 copies of TP 8 give about 3,200.
  const Result r = run({"fit", "--gpu", "a100-80gb-sxm4", "--count", "16", "--model", "qwen3-32b", "--task",
                        "inference", "--format", "json"});
  REQUIRE(r.status == 0);
  const auto d = nlohmann::json::parse(r.out);
  const auto& row = d["fleets"][0]["rows"][0];
  CHECK(row["fleet_tokens_per_s"].get<double>() > 2000);
  CHECK(row["copies"].get<int>() < 16);
}

TEST_CASE("lists stay sane: no plan of many times the Best's GPUs, no copy over three PCIe servers", "[cli][choice]") {
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"--params", "70B", "--task", "lora", "--budget", "low"},
                                             {"--params", "405B", "--task", "pretrain"},
                                             {"--params", "7B", "--task", "inference"}}) {
    CAPTURE(args);
    const auto d = doc(args);
    const int best_count = best(d)["count"].get<int>();
    for (const auto& rec : d["recommendations"]) {
      CHECK(rec["count"].get<int>() <= 8 * best_count);
    }
  }
  const auto lora = doc({"--params", "70B", "--task", "lora", "--budget", "low"});
  bool spread = false;
  for (const auto& rejected : lora["rejected"]) {
    spread = spread || rejected["reasons"][0]["kind"] == "pcie_spread";
  }
  CHECK(spread);  // 24 x L4 sharded over three servers is out, with the reason
}

TEST_CASE("a given count is split into the model copies that serve the most, or as --copies says", "[cli][choice]") {
  // Issue 35: 8 x H200, Llama 2 70B in FP8, no latency bound, was always one
  // copy over all eight GPUs; the engines' own runs use several copies.
  const std::vector<std::string> base = {
      "--model",     "llama-2-70b", "--task",    "inference", "--gpu",     "h200-sxm", "--count",  "8",
      "--precision", "fp8",         "--tpot-ms", "none",      "--ttft-ms", "none",     "--format", "json"};
  const auto tokens_per_s = [](const nlohmann::json& d) {
    return best(d)["inference"]["tokens_per_s"]["typical"].get<double>();
  };
  const Result chosen = run(base);
  REQUIRE(chosen.status == 0);
  const auto split = nlohmann::json::parse(chosen.out);
  CHECK(best(split)["layout"]["data_parallel"].get<int>() > 1);
  CHECK(split["request"]["copies"].is_null());
  std::vector<std::string> one_copy = base;
  one_copy.insert(one_copy.end(), {"--copies", "1"});
  const Result one = run(one_copy);
  REQUIRE(one.status == 0);
  const auto single = nlohmann::json::parse(one.out);
  CHECK(best(single)["layout"]["data_parallel"] == 1);
  CHECK(best(single)["layout"]["tensor_parallel"] == 8);
  CHECK(single["request"]["copies"] == 1);
  CHECK(tokens_per_s(split) > 1.2 * tokens_per_s(single));
  // Copies that do not divide the count are a usage error.
  std::vector<std::string> three = base;
  three.insert(three.end(), {"--copies", "3"});
  const Result bad = run(three);
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, Catch::Contains("--copies 3 does not divide --count 8"));
}

TEST_CASE("a context past the model's window is served where its authors document rope scaling, else refused",
          "[cli][choice]") {
  // Issue 35: Qwen3-32B at 128k, which its authors serve with YaRN, was refused.
  const Result yarn = run({"--model", "qwen3-32b", "--task", "inference", "--context", "131072", "--gpu", "h100-sxm5"});
  REQUIRE(yarn.status == 0);
  CHECK_THAT(yarn.out, Catch::Contains("past Qwen3 32B's native 40960") && Catch::Contains("YaRN"));
  const Result zh =
      run({"--model", "qwen3-32b", "--task", "inference", "--context", "131072", "--gpu", "h100-sxm5", "--lang", "zh"});
  REQUIRE(zh.status == 0);
  CHECK_THAT(zh.out, Catch::Contains("RoPE 缩放（YaRN）"));
  const Result beyond = run({"--model", "qwen3-32b", "--task", "inference", "--context", "200000"});
  CHECK(beyond.status == 2);
  CHECK_THAT(beyond.err, Catch::Contains("40960 natively, 131072 with the rope scaling (YaRN)"));
  const Result none = run({"--model", "llama-2-70b", "--task", "inference", "--context", "8192"});
  CHECK(none.status == 2);
  CHECK_THAT(none.err, Catch::Contains("documents no rope scaling past it") && Catch::Contains("--model-config"));
  // Training stays within the native window.
  const Result train = run({"--model", "qwen3-32b", "--task", "lora", "--seq-len", "65536"});
  CHECK(train.status == 2);
  CHECK_THAT(train.err, Catch::Contains("maximum context of 40960"));
}

TEST_CASE("FP4 weights are served on cards with FP4 tensor cores and refused on others with the reason",
          "[cli][choice]") {
  // Issue 35: Blackwell serving results are FP4; FP8 on a B200 was the only choice.
  const Result b200 = run({"--model", "llama-3.1-70b", "--task", "inference", "--gpu", "b200", "--count", "8",
                           "--precision", "fp4", "--format", "json"});
  REQUIRE(b200.status == 0);
  const auto doc = nlohmann::json::parse(b200.out);
  CHECK(doc["request"]["precision"] == "fp4");
  CHECK(best(doc)["gpu"]["id"] == "b200");
  const Result text = run({"--model", "llama-3.1-70b", "--task", "inference", "--gpu", "b200", "--precision", "fp4"});
  CHECK_THAT(text.out, Catch::Contains("FP4 weights"));
  const Result hopper =
      run({"--model", "llama-3.1-70b", "--task", "inference", "--gpu", "h100-sxm5", "--precision", "fp4"});
  CHECK(hopper.status == 1);
  CHECK_THAT(hopper.out, Catch::Contains("no FP4 tensor cores on this card"));
}
