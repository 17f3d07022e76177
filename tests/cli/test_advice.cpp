// The advice as a practitioner reads it: money in the user's currency, the
// headline's assumptions, headroom, unpriced cards, and ways out that work.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness.hpp"

namespace {

using harness::Result;
using harness::run;

// The Best of a recommend that must succeed, as JSON.
nlohmann::json plan(std::vector<std::string> args) {
  args.insert(args.end(), {"--format", "json"});
  const Result r = run(args);
  REQUIRE(r.status == 0);
  return nlohmann::json::parse(r.out)["recommendations"][0];
}

}  // namespace

TEST_CASE("money is shown in CNY in China, in every format, and amounts take a currency", "[cli][currency]") {
  const std::vector<std::string> china{"--params", "70B", "--task", "lora", "--region", "cn", "--top", "5"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = china;
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args);
  };
  const Result text = with({});
  REQUIRE(text.status == 0);
  CHECK_THAT(text.out, Catch::Contains("\xc2\xa5") && !Catch::Contains("$") &&
                           Catch::Contains("money in CNY at 6.66 CNY per USD (2026-11"));
  for (const char* format : {"markdown", "html"}) {
    CAPTURE(format);
    const Result r = with({"--format", format});
    REQUIRE(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("\xc2\xa5") && Catch::Contains("CNY"));
  }
  const Result json = with({"--format", "json"});
  REQUIRE(json.status == 0);
  const auto doc = nlohmann::json::parse(json.out);
  CHECK(doc["request"]["currency"] == "cny");
  const double rate = doc["catalog"]["exchange_rate"]["cny_per_usd"].get<double>();
  CHECK(rate == Approx(6.66));
  for (const auto& rec : doc["recommendations"]) {
    CHECK(rec["cost"]["currency"] == "cny");
    if (!rec["cost_usd"]["rent"].is_null()) {
      CHECK(rec["cost"]["rent"]["typical"].get<double>() ==
            Approx(rec["cost_usd"]["rent"]["typical"].get<double>() * rate).epsilon(1e-4));
    }
  }
  // --currency usd in China, and an amount in CNY elsewhere.
  CHECK_THAT(with({"--currency", "usd"}).out, Catch::Contains("$") && !Catch::Contains("\xc2\xa5"));
  const Result capped = run({"--params", "7B", "--task", "inference", "--budget", "3996cny", "--format", "json"});
  REQUIRE(capped.status == 0);
  CHECK(nlohmann::json::parse(capped.out)["request"]["budget_usd"].get<double>() == Approx(600.0).epsilon(1e-6));
  const Result bad = run({"--params", "7B", "--task", "inference", "--currency", "eur"});
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, Catch::Contains("--currency: 'eur' is not valid; expected usd or cny"));
}

TEST_CASE("the headline says what drives it, plans show their headroom, unpriced cards are not zeroed",
          "[cli][advice]") {
  const Result lora = run({"--params", "70B", "--task", "lora", "--budget", "low"}, "COLUMNS=400");
  REQUIRE(lora.status == 0);
  CHECK_THAT(lora.out, Catch::Contains("dated specialist-cloud on-demand quote") &&
                           Catch::Contains("100M tokens (the default") && Catch::Contains("Headroom") &&
                           Catch::Contains("have no price for this mode and region"));
  // Serving: the operating point is the most sequences that meet the
  // interactive defaults, and the headline says how many and how fast per user.
  const Result serve_json = run({"--params", "70B", "--task", "inference", "--format", "json"});
  REQUIRE(serve_json.status == 0);
  const nlohmann::json serve_doc = nlohmann::json::parse(serve_json.out);
  const nlohmann::json& inf = serve_doc["recommendations"][0]["inference"];
  CHECK(inf["operating_point"] == "targets");
  CHECK(inf["tpot_ms"]["typical"].get<double>() <= 50.0);
  // The Markdown summary counts the sequences of every copy.
  const int sequences = inf["concurrency"].get<int>() * inf["replicas"].get<int>();
  CHECK(sequences > 8);
  const Result serve = run({"--params", "70B", "--task", "inference", "--format", "markdown"});
  CHECK_THAT(serve.out, Catch::Contains("for " + std::to_string(sequences) + " concurrent sequences") &&
                            Catch::Contains("tokens/s per user"));
  // 70B QLoRA at 2,048 tokens on one 48 GB card (the QLoRA paper's headline): it fits with the one
  // margin (the runtime reserve), at 2% headroom, labelled tight.
  const Result tight =
      run({"--params", "70B", "--task", "qlora", "--seq-len", "2048", "--gpu", "rtx-a6000", "--count", "1"});
  REQUIRE(tight.status == 0);
  CHECK_THAT(tight.out, Catch::Contains("47.6 / 48") && Catch::Contains("1% tight"));
  CHECK_THAT(tight.out, Catch::Contains("% tight") && Catch::Contains("tight: under 5% of usable memory is left"));
  // An unpriced card is never the Best: listed after the priced ones, with no cost relative to the Best.
  const Result json = run({"--params", "70B", "--task", "lora", "--region", "cn", "--format", "json"});
  REQUIRE(json.status == 0);
  int unpriced = 0;
  const auto doc = nlohmann::json::parse(json.out);
  CHECK(doc["best_priced"] == true);
  CHECK(doc["recommendations"][0]["objective"]["vs_best"] == 1.0);
  for (const auto& rec : doc["recommendations"]) {
    if (rec["objective"]["usd"].is_null()) {
      ++unpriced;
      CHECK(rec["objective"]["vs_best"].is_null());
    } else {
      CHECK(unpriced == 0);  // no priced plan after an unpriced one
    }
  }
  CHECK(unpriced > 0);
}

TEST_CASE("ways out keep the cards asked for and move one lever, and none would be rejected", "[cli][advice]") {
  // 70B full fine-tune on 8 x A100 80GB: pure-BF16 AdamW fits on those 8.
  const Result full = run({"--params", "70B", "--task", "full", "--gpu", "a100-80gb-sxm4", "--count", "8"});
  CHECK(full.status == 1);
  CHECK_THAT(full.out, Catch::Contains("fits on 8 x A100 80GB SXM4 with --optimizer adamw-bf16"));
  CHECK_THAT(full.out, Catch::Contains("LoRA fine-tune fits on 8 x A100 80GB SXM4"));  // not "on 4"
  // The A800 outside China: the way out is the region, not a task the rule rejects as well.
  const Result a800 = run({"--params", "70B", "--task", "qlora", "--gpu", "a800-80gb-sxm", "--format", "json"});
  CHECK(a800.status == 1);
  const auto doc = nlohmann::json::parse(a800.out);
  REQUIRE(doc["ways_out"].size() == 1);
  CHECK(doc["ways_out"][0]["sets"][0] == "--region cn");
}

TEST_CASE("ways out and rejections carry a kind, their numbers and the levers they move", "[cli][advice][json]") {
  const Result full =
      run({"--params", "70B", "--task", "full", "--gpu", "a100-80gb-sxm4", "--count", "8", "--format", "json"});
  CHECK(full.status == 1);
  const auto doc = nlohmann::json::parse(full.out);
  CHECK(doc["schema_version"] == 5);
  bool memory_reason = false;
  bool not_selected = false;
  for (const auto& rejected : doc["rejected"]) {
    for (const auto& reason : rejected["reasons"]) {
      if (reason["kind"] == "memory" && rejected["gpu"]["id"] == "a100-80gb-sxm4") {
        memory_reason = true;
        CHECK(reason["count"] == 8);
        CHECK(reason["needed_gb"].get<double>() > reason["usable_gb"].get<double>());
        CHECK(reason["usable_gb"].get<double>() == Approx(80 * 1.073741824).epsilon(0.01));  // the whole card
      }
      not_selected = not_selected || reason["kind"] == "not_selected";
      CHECK_FALSE(reason["message"].get<std::string>().empty());
    }
  }
  CHECK(memory_reason);
  CHECK(not_selected);
  const auto& first = doc["ways_out"][0];
  CHECK(first["kind"] == "lever");
  REQUIRE(first["changes"].size() == 1);
  CHECK(first["changes"][0]["lever"] == "optimizer");
  CHECK(first["changes"][0]["from"] == "adamw");
  CHECK(first["changes"][0]["to"] == "adamw-bf16");
  CHECK(first["count"] == 8);
  bool lighter = false;
  for (const auto& way : doc["ways_out"]) {
    if (way["kind"] == "lighter_task") {
      lighter = true;
      CHECK(way["changes"][0]["lever"] == "task");
      CHECK(way["changes"][0]["from"] == "full");
    }
  }
  CHECK(lighter);

  // A rule's rejection names the rule; a budget's names the cost and the cap.
  const Result cn = run({"--params", "70B", "--task", "lora", "--gpu", "h100-sxm5", "--region", "cn", "--mode", "buy",
                         "--format", "json"});
  const auto cn_doc = nlohmann::json::parse(cn.out);
  bool rule = false;
  for (const auto& rejected : cn_doc["rejected"]) {
    for (const auto& reason : rejected["reasons"]) {
      rule = rule || (reason["kind"] == "rule" && reason["rule_id"] == "cn-buy-no-licences");
    }
  }
  CHECK(rule);
  const Result capped =
      run({"--params", "70B", "--task", "lora", "--gpu", "h100-sxm5", "--budget", "50usd", "--format", "json"});
  CHECK(capped.status == 1);
  const auto capped_doc = nlohmann::json::parse(capped.out);
  nlohmann::json budget;
  for (const auto& rejected : capped_doc["rejected"]) {
    if (rejected["gpu"]["id"] == "h100-sxm5") {
      budget = rejected["reasons"][0];
    }
  }
  REQUIRE(budget.is_object());
  CHECK(budget["kind"] == "budget");
  CHECK(budget["cap_usd"] == 50);
  CHECK(budget["cost_usd"].get<double>() > 50);
  CHECK(budget["basis"] == "run");
}

TEST_CASE("the budget tier sizes the plan: speed first buys speed, cost first names the cheapest", "[cli][tiers]") {
  // 70B LoRA on H100: 4 at medium (a 7-hour run), 8 at high, stopping at the server's edge.
  const auto lora_medium = plan({"--params", "70B", "--task", "lora", "--gpu", "h100-sxm5"});
  const auto lora_high = plan({"--params", "70B", "--task", "lora", "--gpu", "h100-sxm5", "--budget", "high"});
  CHECK(lora_medium["count"] == 4);
  CHECK(lora_high["count"] == 8);
  CHECK(lora_high["sizing"]["stop"] == "node");
  CHECK(lora_high["sizing"]["next"] == 16);
  CHECK(lora_high["training"]["wall_hours"]["typical"].get<double>() <
        0.6 * lora_medium["training"]["wall_hours"]["typical"].get<double>());
  const Result text =
      run({"--params", "70B", "--task", "lora", "--gpu", "h100-sxm5", "--budget", "high", "--format", "markdown"});
  CHECK_THAT(text.out, Catch::Contains("speed first: 8 GPUs instead of the 4 of the smallest plan on offer cut the "
                                       "time by 50%; 16 GPUs would leave the server"));
  // 7B pretraining on 1T tokens on H100: the fewest GPUs that meet the 90-day
  // default at low, one doubling at medium, and speed first adds servers until
  // the run takes under a week.
  std::vector<std::string> pretrain{"--params", "7B", "--task", "pretrain", "--tokens", "1T", "--gpu", "h100-sxm5"};
  auto with = [&](const char* tier) {
    std::vector<std::string> args = pretrain;
    args.insert(args.end(), {"--budget", tier});
    return plan(args);
  };
  const auto pre_low = with("low");
  const auto pre_medium = with("medium");
  const auto pre_high = with("high");
  const int smallest = pre_low["count"].get<int>();
  CHECK(pre_low["training"]["wall_hours"]["typical"].get<double>() <= 90 * 24);
  std::vector<std::string> half = pretrain;
  half.insert(half.end(), {"--count", std::to_string(smallest / 2)});
  // Half as many (a fixed --count keeps no default deadline) would take longer than 90 days.
  CHECK(plan(half)["training"]["wall_hours"]["typical"].get<double>() > 90 * 24);
  // Balanced: more servers while each halving of the time costs at most 10% more.
  CHECK(pre_medium["count"].get<int>() > smallest);
  const double halvings = std::log2(pre_low["training"]["wall_hours"]["typical"].get<double>() /
                                    pre_medium["training"]["wall_hours"]["typical"].get<double>());
  CHECK(pre_medium["objective"]["usd"].get<double>() <=
        pre_low["objective"]["usd"].get<double>() * std::pow(1.1, halvings) * 1.0001);
  CHECK(pre_high["count"].get<int>() >= 8 * smallest);
  CHECK(pre_high["training"]["wall_hours"]["typical"].get<double>() < 168);
  CHECK(pre_high["sizing"]["stop"] == "short_run");
  // Cost first in China: the cheapest priced plan is the Best, and no cheaper one is named.
  const Result low =
      run({"--params", "70B", "--task", "lora", "--budget", "low", "--region", "cn", "--format", "json"});
  const auto low_doc = nlohmann::json::parse(low.out);
  CHECK(low_doc["neighbours"]["cheapest"].is_null());
  const double best_usd = low_doc["recommendations"][0]["objective"]["usd"].get<double>();
  for (const auto& rec : low_doc["recommendations"]) {
    if (!rec["objective"]["usd"].is_null()) {
      CHECK(best_usd <= rec["objective"]["usd"].get<double>());
    }
  }
}

TEST_CASE("counts follow the shapes providers rent and the servers sold", "[cli][tiers]") {
  // The H800 is rented as whole 8-GPU servers in China.
  const auto h800 = plan({"--params", "7B", "--task", "lora", "--gpu", "h800-sxm", "--region", "cn"});
  CHECK(h800["count"] == 8);
  CHECK(h800["sizing"]["needed"] == 1);
  CHECK(h800["sizing"]["smallest_offered"] == 8);
  CHECK_THAT(run({"--params", "7B", "--task", "lora", "--gpu", "h800-sxm", "--region", "cn"}).out,
             Catch::Contains("1 would fit, but the card is rented or sold as 8"));
  // A --count off the shapes is kept, and said to be off them.
  CHECK_THAT(run({"--params", "7B", "--task", "lora", "--gpu", "h800-sxm", "--region", "cn", "--count", "4", "--format",
                  "markdown"})
                 .out,
             Catch::Contains("4 GPUs is not a shape this card is rented or sold in: the next on offer is 8"));
  // Buying, an HGX card comes in whole servers; a PCIe card one at a time.
  CHECK(plan({"--params", "7B", "--task", "lora", "--gpu", "h100-sxm5", "--mode", "buy", "--budget", "low"})["count"] ==
        8);
  CHECK(plan({"--params", "7B", "--task", "lora", "--gpu", "h100-pcie", "--mode", "buy", "--budget", "low"})["count"] ==
        1);
  // A 384-card supernode is not offered for a job that needs 2.
  const Result cm = run({"--params", "70B", "--task", "lora", "--gpu", "ascend-910c-cm384", "--region", "cn"});
  CHECK(cm.status == 1);
  CHECK_THAT(cm.out, Catch::Contains("offered only as 384 GPUs or more"));
  // 16 x RTX 4090 span two servers: the note says so, with the network.
  const Result rtx = run({"--params", "13B", "--task", "full", "--gpu", "rtx-4090", "--count", "16"});
  CHECK_THAT(rtx.out, Catch::Contains("in 2 servers") && Catch::Contains("Gb/s per GPU"));
}

TEST_CASE("ways out try every lever, two together when one is not enough, and the mode a rule blocks",
          "[cli][advice]") {
  // 7B full fine-tune on one L40S with selective recompute: no single lever
  // fits (offloading the optimizer still leaves the gradients and the
  // activations), two together do: offload with the optimizer in the
  // backward pass, or offload with full recompute.
  const Result pair = run({"--params", "7B", "--task", "full", "--gpu", "l40s", "--count", "1", "--recompute",
                           "selective", "--format", "json"});
  CHECK(pair.status == 1);
  const auto pair_doc = nlohmann::json::parse(pair.out);
  const auto& first = pair_doc["ways_out"][0];
  CHECK(first["count"] == 1);
  REQUIRE(first["changes"].size() == 2);
  CHECK(first["run_usd"].get<double>() > 0);
  bool with_recompute = false;
  for (const auto& way : pair_doc["ways_out"]) {
    if (way["changes"].size() == 2 && way["changes"][1]["lever"] == "recompute") {
      with_recompute = way["changes"][1]["from"] == "selective" && way["changes"][1]["to"] == "full" &&
                       way["changes"][0]["lever"] == "offload";
    }
  }
  CHECK(with_recompute);
  // Buying an A100 in China is blocked by a rule; renting one is the way out.
  const Result buy =
      run({"--params", "7B", "--task", "lora", "--gpu", "a100-80gb-sxm4", "--region", "cn", "--mode", "buy"});
  CHECK(buy.status == 1);
  CHECK_THAT(buy.out, Catch::Contains("fits on 1 x A100 80GB SXM4 with --mode rent"));
  // 405B served on 8 x H100: INT8 weights fit on those 8.
  CHECK_THAT(run({"--params", "405B", "--task", "inference", "--gpu", "h100-sxm5", "--count", "8"}).out,
             Catch::Contains("inference fits on 8 x H100 SXM5 80GB with --precision int8"));
}

TEST_CASE("reports open with a summary a client can read alone, give reasons for three and say why not",
          "[cli][report]") {
  // The Best and the main alternative as the ranking puts them (read from the
  // JSON of the same request): the test checks the summary says them, not which they are.
  const auto ranked =
      nlohmann::json::parse(run({"--params", "70B", "--task", "lora", "--region", "cn", "--format", "json"}).out);
  REQUIRE(ranked["recommendations"].size() >= 2);
  auto plan_of = [&](std::size_t k, const char* times) {
    const auto& r = ranked["recommendations"][k];
    return std::to_string(r["count"].get<int>()) + times + r["gpu"]["name"].get<std::string>();
  };
  for (const char* format : {"markdown", "html"}) {
    CAPTURE(format);
    const Result r = run({"--params", "70B", "--task", "lora", "--region", "cn", "--format", format});
    REQUIRE(r.status == 0);
    const std::size_t summary = r.out.find("Summary");
    const std::size_t rent = r.out.find("Rent " + plan_of(0, " x ") + ": about ");
    REQUIRE(summary != std::string::npos);
    REQUIRE(rent != std::string::npos);
    CHECK(rent > summary);
    CHECK(rent < r.out.find("Workload"));  // before any table
    CHECK_THAT(r.out, Catch::Contains("The main alternative: " + plan_of(1, " x ")) && Catch::Contains("Main risk: "));
    CHECK_THAT(r.out, Catch::Contains("Why #2 ") && Catch::Contains("Why #3 "));
    CHECK_THAT(r.out, Catch::Contains("Why not these cards") && Catch::Contains("rule cn-rent-no-legal-stock"));
  }
  const Result zh =
      run({"--params", "70B", "--task", "lora", "--region", "cn", "--format", "markdown", "--lang", "zh"});
  CHECK_THAT(zh.out, Catch::Contains("建议租用 " + plan_of(0, " × ")) && Catch::Contains("主要备选") &&
                         Catch::Contains("为何不选这些卡"));
  // Nothing fits: the summary gives the first way out.
  const Result none =
      run({"--params", "70B", "--task", "full", "--gpu", "a100-80gb-sxm4", "--count", "8", "--format", "markdown"});
  CHECK_THAT(none.out, Catch::Contains("Nothing fits as asked. The first way out: full fine-tune fits on 8 x A100 80GB "
                                       "SXM4 with --optimizer adamw-bf16"));
}

TEST_CASE("a whole server for a one-card job is noted, and cost first keeps one card", "[cli][tiers]") {
  const Result r = run({"--params", "1B", "--task", "full", "--budget", "low", "--format", "json"});
  REQUIRE(r.status == 0);
  const auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["recommendations"][0]["count"] == 1);
  for (const auto& rec : doc["recommendations"]) {
    if (rec["sizing"]["smallest_offered"].get<int>() >= 4 * rec["sizing"]["needed"].get<int>()) {
      bool noted = false;
      for (const auto& rule : rec["rules"]) {
        noted = noted || rule["id"] == "offered-in-large-shapes";
      }
      CAPTURE(rec["gpu"]["id"]);
      CHECK(noted);
    }
  }
}

TEST_CASE("serving: the scheduler caps the batch, the headline gives per-user speed, slow plans are flagged",
          "[cli][serving]") {
  // vLLM on a 141 GB card: 1024 running sequences, 8192 tokens a step; 1024
  // tokens of context, 512 of them output: two tokens a step per sequence.
  const auto best = plan({"--params", "8B", "--task", "inference", "--gpu", "h200-sxm", "--context", "1024"});
  CHECK(best["inference"]["engine"]["id"] == "vllm");
  CHECK(best["inference"]["engine"]["max_batch"] == 1024);
  CHECK(best["inference"]["max_concurrency"] <= 1024);
  const auto short_requests = plan(
      {"--params", "8B", "--task", "inference", "--gpu", "h200-sxm", "--context", "256", "--output-tokens", "128"});
  CHECK(short_requests["inference"]["max_concurrency"] == 1024);  // memory would hold thousands
  CHECK(short_requests["inference"]["max_concurrency_limit"] == "max_batch");
  CHECK(plan({"--params", "8B", "--task", "inference", "--gpu", "h200-sxm", "--context", "1024", "--max-batch",
              "512"})["inference"]["max_concurrency"] == 512);
  const Result over = run({"--params", "8B", "--task", "inference", "--concurrency", "300", "--max-batch", "256"});
  CHECK(over.status == 2);
  CHECK_THAT(over.err, Catch::Contains("--concurrency 300 is more than --max-batch 256"));
  // 70B on 4 x A40: the weights read over 4 x 696 GB/s take well over 50 ms
  // a token, so the interactive default cannot be met: the point is the
  // latency knee, the plan is flagged, and the headline gives the per-user
  // figure of the plan's own JSON.
  const Result a40 =
      run({"--params", "70B", "--task", "inference", "--gpu", "a40", "--count", "4", "--format", "json"});
  REQUIRE(a40.status == 0);
  const nlohmann::json a40_doc = nlohmann::json::parse(a40.out);
  const nlohmann::json& a40_best = a40_doc["recommendations"][0];
  const double tpot = a40_best["inference"]["tpot_ms"]["typical"].get<double>();
  const double per_user = a40_best["inference"]["user_tokens_per_s"]["typical"].get<double>();
  CHECK(tpot > 50);
  CHECK(per_user == Approx(1000.0 / tpot).epsilon(1e-6));
  CHECK(a40_best["inference"]["operating_point"] == "knee");
  bool slow = false;
  for (const auto& rule : a40_best["rules"]) {
    slow = slow || (rule["id"] == "slow-for-interactive" && rule["effect"] == "warning");
  }
  CHECK(slow);
  const Result a40_text = run({"--params", "70B", "--task", "inference", "--gpu", "a40", "--count", "4"});
  CHECK_THAT(a40_text.out, Catch::Contains("(" + std::to_string(std::lround(per_user)) + " per") &&
                               Catch::Contains(std::to_string(std::lround(tpot)) + " ms per token)") &&
                               Catch::Contains("slow for interactive use: ") && Catch::Contains("the knee"));
  // Left to size itself, the A40 plan grows until it meets 50 ms a token.
  const auto a40_sized = plan({"--params", "70B", "--task", "inference", "--gpu", "a40"});
  CHECK(a40_sized["count"].get<int>() > 4);
  CHECK(a40_sized["inference"]["tpot_ms"]["typical"].get<double>() <= 50.0);
  CHECK(a40_sized["inference"]["operating_point"] == "targets");
  const auto h100 = plan({"--params", "8B", "--task", "inference", "--gpu", "h100-sxm5"});
  for (const auto& rule : h100["rules"]) {
    CHECK(rule["id"] != "slow-for-interactive");
  }
}

TEST_CASE("serving: latency targets and a request rate size the plan, and a target no layout meets rejects",
          "[cli][serving]") {
  // The case: Llama 3.1 70B at 40 ms a token and 5 requests/s.
  const Result sized = run({"--model", "llama-3.1-70b", "--task", "inference", "--tpot-ms", "40", "--request-rate", "5",
                            "--format", "json"});
  REQUIRE(sized.status == 0);
  const nlohmann::json doc = nlohmann::json::parse(sized.out);
  CHECK(doc["request"]["tpot_ms"]["target"] == 40.0);
  CHECK(doc["request"]["tpot_ms"]["stated"] == true);
  CHECK(doc["request"]["request_rate"] == 5.0);
  REQUIRE(doc["recommendations"].size() >= 5);
  for (const auto& rec : doc["recommendations"]) {
    const auto& inf = rec["inference"];
    CAPTURE(rec["gpu"]["id"]);
    CHECK(inf["tpot_ms"]["typical"].get<double>() <= 40.0);
    CHECK(inf["ttft_ms"]["typical"].get<double>() <= 2000.0);
    CHECK(inf["requests_per_s"]["typical"].get<double>() >= 5.0);
    CHECK(inf["replicas"] == rec["layout"]["data_parallel"]);
    CHECK(rec["count"].get<int>() == rec["layout"]["tensor_parallel"].get<int>() *
                                         rec["layout"]["pipeline_parallel"].get<int>() *
                                         rec["layout"]["data_parallel"].get<int>());
  }
  // Cards that cannot reach 40 ms on any layout are rejected as such.
  int latency = 0;
  for (const auto& rejected : doc["rejected"]) {
    const auto& reason = rejected["reasons"][0];
    if (reason["kind"] == "latency") {
      ++latency;
      CHECK(reason["target"] == "tpot");
      CHECK(reason["target_ms"] == 40.0);
      CHECK(reason["best_ms"].get<double>() > 40.0);
    }
  }
  CHECK(latency > 0);
  const Result text =
      run({"--model", "llama-3.1-70b", "--task", "inference", "--tpot-ms", "40", "--request-rate", "5"});
  CHECK_THAT(text.out, Catch::Contains(" per user, ") && Catch::Contains("requests/s") &&
                           Catch::Contains("cannot reach 40 ms per output token"));

  // One card, a target it cannot meet: nothing fits (exit 1), with ways out that do.
  const Result strict =
      run({"--params", "70B", "--task", "inference", "--gpu", "a40", "--tpot-ms", "20", "--format", "json"});
  CHECK(strict.status == 1);
  const nlohmann::json strict_doc = nlohmann::json::parse(strict.out);
  CHECK(strict_doc["recommendations"].empty());
  bool a40_latency = false;
  for (const auto& rejected : strict_doc["rejected"]) {
    a40_latency = a40_latency || (rejected["gpu"]["id"] == "a40" && rejected["reasons"][0]["kind"] == "latency");
  }
  CHECK(a40_latency);
  CHECK_FALSE(strict_doc["ways_out"].empty());

  // No targets: the operating point is the largest batch, as offline benchmarks run.
  const auto offline =
      plan({"--params", "8B", "--task", "inference", "--gpu", "h100-sxm5", "--tpot-ms", "none", "--ttft-ms", "none"});
  CHECK(offline["inference"]["concurrency"] == offline["inference"]["max_concurrency"]);
  CHECK(offline["inference"]["tpot_target_ms"].is_null());

  // Qwen2.5-72B in BF16 fits on two A100 80GB, as published (144.69 GB in all for Qwen-72B).
  const auto qwen = plan({"--model", "qwen2.5-72b", "--task", "inference", "--gpu", "a100-80gb-sxm4", "--count", "2"});
  CHECK(qwen["count"] == 2);
  CHECK(qwen["inference"]["concurrency"].get<int>() >= 1);

  // Bad values say what and where.
  for (const auto& [flag, value] : std::vector<std::pair<std::string, std::string>>{
           {"--tpot-ms", "fast"}, {"--tpot-ms", "0"}, {"--ttft-ms", "-5"}, {"--request-rate", "0"}}) {
    const Result bad = run({"--params", "8B", "--task", "inference", flag, value});
    CAPTURE(flag, value);
    CHECK(bad.status == 2);
    CHECK_THAT(bad.err, Catch::Contains(flag));
  }
}

TEST_CASE("training's memory savers fit what would not, and say what they cost", "[cli][offload]") {
  // 70B full fine-tune on 8 x A100 80GB with the optimizer on the host.
  const Result offload = run({"--params", "70B", "--task", "full", "--gpu", "a100-80gb-sxm4", "--count", "8",
                              "--offload", "optimizer", "--format", "json"});
  REQUIRE(offload.status == 0);
  const nlohmann::json doc = nlohmann::json::parse(offload.out);
  const nlohmann::json& best = doc["recommendations"][0];
  CHECK(doc["request"]["offload"] == "optimizer");
  CHECK(best["memory_gb"]["host_per_gpu"].get<double>() > 100);
  CHECK(best["memory_gb"]["host_per_server"].get<double>() > 800);
  CHECK(best["training"]["offload_hours"]["typical"].get<double>() > 0);
  const Result text =
      run({"--params", "70B", "--task", "full", "--gpu", "a100-80gb-sxm4", "--count", "8", "--offload", "optimizer"});
  CHECK_THAT(text.out, Catch::Contains("GiB per server of host memory"));
  // Llama 3.1 8B full fine-tune on one RTX 4090: nothing fits as asked, and
  // the ways out name the memory savers that make it fit.
  const Result plain =
      run({"--model", "llama-3.1-8b", "--task", "full", "--gpu", "rtx-4090", "--count", "1", "--format", "json"});
  CHECK(plain.status == 1);
  const nlohmann::json plain_doc = nlohmann::json::parse(plain.out);
  bool offers_offload = false;
  for (const auto& way : plain_doc["ways_out"]) {
    for (const auto& set : way["sets"]) {
      offers_offload = offers_offload || set == "--offload optimizer";
    }
  }
  CHECK(offers_offload);
  const Result saved = run({"--model", "llama-3.1-8b", "--task", "full", "--gpu", "rtx-4090", "--count", "1",
                            "--optimizer", "adamw-8bit-bf16", "--optimizer-in-backward", "--offload", "optimizer"});
  CHECK(saved.status == 0);
  const Result bad = run({"--params", "8B", "--task", "full", "--offload", "disk"});
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, Catch::Contains("--offload"));
  const Result bad_goodput = run({"--params", "8B", "--task", "pretrain", "--goodput", "1.5"});
  CHECK(bad_goodput.status == 2);
  CHECK_THAT(bad_goodput.err, Catch::Contains("--goodput"));
}

TEST_CASE("the stack sets what training keeps, and the peak is the largest phase", "[cli][training]") {
  // Issue 36: a full fine-tune of Llama 3.1 8B in mixed precision with
  // Transformers fits one H200 at 4K one micro-batch a step (measured peak
  // about 120 GiB): FP32 parameters, gradients and AdamW states are 16 bytes
  // a parameter in the optimizer step, after the forward's activations are
  // freed. Accumulating 128 sequences keeps the gradients beside the next
  // micro-batch's activations and autocast's copies: over the card, with
  // one micro-batch a step among the ways out.
  const Result accumulating = run({"--model", "llama-3.1-8b", "--task", "full", "--gpu", "h200-sxm", "--count", "1",
                                   "--seq-len", "4096", "--stack", "hf"});
  CHECK(accumulating.status == 1);
  CHECK_THAT(accumulating.out, Catch::Contains("with --global-batch 1"));
  const Result hf = run({"--model", "llama-3.1-8b", "--task", "full", "--gpu", "h200-sxm", "--count", "1", "--seq-len",
                         "4096", "--stack", "hf", "--global-batch", "1", "--format", "json"});
  REQUIRE(hf.status == 0);
  const auto doc = nlohmann::json::parse(hf.out);
  const auto& memory = doc["recommendations"][0]["memory_gb"];
  CHECK(memory["breakdown"]["peak_phase"] == "optimizer_step");
  CHECK(memory["breakdown"]["released"].get<double>() > 0);
  CHECK(memory["per_gpu"].get<double>() / 1.073741824 == Approx(121.7).margin(1.0));
  CHECK(doc["request"]["stack"] == "hf");
  // LoRA without recompute at 4K: within 15% of the 57 GiB measured.
  const Result lora = run({"--model", "llama-3.1-8b", "--task", "lora", "--gpu", "h200-sxm", "--count", "1",
                           "--seq-len", "4096", "--recompute", "none", "--lora-rank", "16", "--format", "json"});
  REQUIRE(lora.status == 0);
  const auto lora_doc = nlohmann::json::parse(lora.out);
  const auto& lora_memory = lora_doc["recommendations"][0]["memory_gb"];
  const double gib =
      (lora_memory["per_gpu"].get<double>() - lora_memory["breakdown"]["reserve"].get<double>()) / 1.073741824;
  CHECK(gib == Approx(57.0).epsilon(0.15));
  CHECK(lora_doc["request"]["stack"] == "hf");  // the LoRA default
  // The same job's text names the stack and the phase.
  const Result text = run({"--model", "llama-3.1-8b", "--task", "full", "--gpu", "h200-sxm", "--count", "1",
                           "--seq-len", "4096", "--stack", "hf", "--global-batch", "1", "--explain"});
  CHECK_THAT(text.out, Catch::Contains("the peak is the") && Catch::Contains("stack: Hugging Face Transformers"));
  const Result bad = run({"--params", "8B", "--task", "full", "--stack", "hface"});
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, Catch::Contains("--stack") && Catch::Contains("torchtitan"));
  // Transformers runs data parallelism only: no tensor parallelism asked of
  // it, none searched, and a stack that splits the model as the way out.
  const Result tp = run({"--params", "8B", "--task", "full", "--count", "8", "--stack", "hf", "--tp", "2"});
  CHECK(tp.status == 2);
  CHECK_THAT(tp.err, Catch::Contains("--tp 2") && Catch::Contains("--stack megatron"));
  const Result long_context =
      run({"--model", "llama-3.1-70b", "--task", "full", "--stack", "hf", "--seq-len", "131072", "--format", "json"});
  CHECK(long_context.status == 1);
  const auto ways = nlohmann::json::parse(long_context.out)["ways_out"];
  bool megatron = false;
  for (const auto& way : ways) {
    for (const auto& set : way["sets"]) {
      megatron = megatron || set == "--stack megatron";
    }
  }
  CHECK(megatron);
  const Result searched =
      run({"--model", "llama-3.1-70b", "--task", "full", "--gpu", "h100-sxm5", "--stack", "hf", "--format", "json"});
  REQUIRE(searched.status == 0);
  const auto layout = nlohmann::json::parse(searched.out)["recommendations"][0]["layout"];
  CHECK(layout["tensor_parallel"] == 1);
  CHECK(layout["pipeline_parallel"] == 1);
}

TEST_CASE("own or rent: a used 8 x A100 server and a new H100 server, with their break-even", "[cli][ownership]") {
  const Result used =
      run({"--params", "70B", "--task", "lora", "--mode", "buy", "--condition", "used", "--gpu", "a100-80gb-sxm4"});
  REQUIRE(used.status == 0);
  CHECK_THAT(used.out, Catch::Contains("buy 8 x A100 80GB SXM4 (used) in one server for about $95k"));
  CHECK_THAT(used.out, Catch::Contains("buy if busy more than"));
  CHECK_THAT(used.out, Catch::Contains("Own or rent at 50% utilization"));
  const auto doc = nlohmann::json::parse(run({"--params", "70B", "--task", "lora", "--mode", "buy", "--condition",
                                              "used", "--gpu", "a100-80gb-sxm4", "--format", "json"})
                                             .out);
  const auto& own = doc["recommendations"][0]["cost_usd"]["ownership"];
  CHECK(own["servers"] == 1);
  CHECK(own["gpus"] == 8);
  CHECK(own["whole_server"] == true);
  CHECK(own["condition"] == "used");
  const double even = own["break_even_utilisation"]["typical"];
  CHECK(even > 0);
  CHECK(even < 1);
  CHECK(own["by_utilisation"].size() == 10);
  CHECK(doc["request"]["ownership"]["condition"] == "used");

  const Result h100 = run({"--params", "70B", "--task", "lora", "--mode", "buy", "--gpu", "h100-sxm5"});
  REQUIRE(h100.status == 0);
  CHECK_THAT(h100.out, Catch::Contains("in one server for about $270k (the price of whole servers)"));
  CHECK_THAT(h100.out, Catch::Contains("busy more than"));

  // The A100 80GB SXM4 is sold used only: bought new it is not priced, and says what to do.
  const Result new_a100 = run({"--params", "70B", "--task", "lora", "--mode", "buy", "--gpu", "a100-80gb-sxm4"});
  CHECK_THAT(new_a100.out, Catch::Contains("try --condition used"));

  const Result busy = run({"--params", "70B", "--task", "lora", "--mode", "buy", "--condition", "used", "--gpu",
                           "a100-80gb-sxm4", "--utilization", "80%", "--years", "4", "--power-price", "0.15"});
  REQUIRE(busy.status == 0);
  CHECK_THAT(busy.out, Catch::Contains("at 80% utilization owning 8 x A100 80GB SXM4 (used)"));
  CHECK_THAT(busy.out, Catch::Contains("kept 4 years"));
  CHECK_THAT(busy.out, Catch::Contains("$0.15/kWh (--power-price)"));

  const Result cn = run({"--params", "70B", "--task", "lora", "--mode", "buy", "--condition", "used", "--gpu",
                         "a100-80gb-sxm4", "--region", "cn", "--lang", "zh"});
  REQUIRE(cn.status == 0);
  CHECK_THAT(cn.out, Catch::Contains("¥750k"));
  CHECK_THAT(cn.out, Catch::Contains("利用率 50% 时"));
}

TEST_CASE("own or rent: the owning flags are checked", "[cli][ownership]") {
  const std::vector<std::string> base = {"--params", "70B", "--task", "lora", "--mode", "buy"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args);
  };
  const Result renting = run({"--params", "70B", "--task", "lora", "--condition", "used"});
  CHECK(renting.status == 2);
  CHECK_THAT(renting.err, Catch::Contains("with --mode buy"));
  for (const auto& [flag, value] : std::vector<std::pair<std::string, std::string>>{{"--condition", "old"},
                                                                                    {"--years", "0.5"},
                                                                                    {"--years", "11"},
                                                                                    {"--utilization", "0"},
                                                                                    {"--utilization", "120%"},
                                                                                    {"--utilization", "half"},
                                                                                    {"--power-price", "cheap"},
                                                                                    {"--power-price", "-1"},
                                                                                    {"--power-price", "5"}}) {
    CAPTURE(flag, value);
    const Result bad = with({flag, value});
    CHECK(bad.status == 2);
    CHECK_THAT(bad.err, Catch::Contains(flag));
  }
}

TEST_CASE("serving: prefill and decode run apart when that serves more within the targets", "[cli][serving]") {
  // 16,000-token prompts, 200-token answers, 8 ms a token: a copy that both
  // prefills and decodes can run only a few sequences within the target.
  const std::vector<std::string> args = {
      "--model",   "llama-3.1-8b", "--task",          "inference", "--gpu",     "h100-sxm5", "--count",  "8",
      "--context", "16000",        "--output-tokens", "200",       "--tpot-ms", "8",         "--copies", "4"};
  const auto best = plan(args);
  const auto& split = best["inference"]["disaggregated"];
  REQUIRE(split.is_object());
  CHECK(split["prefill_copies"].get<int>() + split["decode_copies"].get<int>() == 4);
  CHECK(split["requests_per_s"].get<double>() > split["colocated_requests_per_s"].get<double>());
  CHECK(split["kv_transfer_ms"].get<double>() > 0);
  CHECK(best["inference"]["tpot_ms"]["typical"].get<double>() <= 8.0);
  CHECK(best["inference"]["concurrency"] == split["decode_batch"]);
  // Short prompts: serving both in every copy is better, and no split is shown.
  const auto chat = plan({"--model", "llama-3.1-8b", "--task", "inference", "--gpu", "h100-sxm5", "--count", "8",
                          "--context", "1024", "--output-tokens", "512"});
  CHECK(chat["inference"]["disaggregated"].is_null());
  const Result text = run(args);
  CHECK_THAT(text.out, Catch::Contains("prefill and decode run apart"));
}

TEST_CASE("serving: a request rate keeps the p90 first token within a stated target, and says so when it cannot",
          "[cli][serving]") {
  // With --concurrency and no stated --ttft-ms, the default first-token
  // target does not reject a plan whose prefill alone is longer.
  const auto fixed = plan({"--model", "llama-3.1-70b", "--task", "inference", "--gpu", "a100-80gb-sxm4", "--context",
                           "32768", "--output-tokens", "512", "--concurrency", "16", "--request-rate", "0.5"});
  CHECK(fixed["inference"]["requests_per_s"]["typical"].get<double>() >= 0.5);
  // A stated target the queue cannot keep on the GPUs given: the reason names the p90, not the rate.
  const Result tight = run({"--model", "llama-3.1-8b", "--task", "inference", "--gpu", "h100-sxm5", "--count", "1",
                            "--request-rate", "3.8", "--ttft-ms", "250", "--tpot-ms", "none"});
  CHECK(tight.status == 1);
  CHECK_THAT(tight.out, Catch::Contains("serves 3.8 requests/s on average") && Catch::Contains("at p90"));
  // At 3 requests/s the same GPU keeps it.
  const auto kept = plan({"--model", "llama-3.1-8b", "--task", "inference", "--gpu", "h100-sxm5", "--count", "1",
                          "--request-rate", "3", "--ttft-ms", "250", "--tpot-ms", "none"});
  CHECK(kept["inference"]["queue"]["ttft_p90_ms"].get<double>() <= 250);
}

TEST_CASE("serving: an engine that does not run on the card is a reason, with a way out that works", "[cli][serving]") {
  const Result r = run(
      {"--model", "llama-3.1-70b", "--task", "inference", "--engine", "trtllm", "--gpu", "mi300x", "--format", "json"});
  REQUIRE(r.status == 1);
  const auto doc = nlohmann::json::parse(r.out);
  bool engine_reason = false;
  for (const auto& rejected : doc["rejected"]) {
    for (const auto& reason : rejected["reasons"]) {
      engine_reason = engine_reason || (reason["kind"] == "engine" && reason["software"] == "rocm");
    }
  }
  CHECK(engine_reason);
  bool way_out = false;
  for (const auto& w : doc["ways_out"]) {
    for (const auto& change : w["changes"]) {
      way_out = way_out || (change["lever"] == "engine" && change["to"] == "auto");
    }
  }
  CHECK(way_out);
}

TEST_CASE("serving: 8 x H200 serve Llama 2 70B as MLPerf runs it, laid out unasked, and 80% of it as a rate",
          "[cli][serving]") {
  // MLPerf Inference v5.1, Offline, Nebius: 34,812 output tokens/s (118.65
  // samples/s of 293 tokens) on OpenOrca, whose mean prompt is 222 tokens
  // (docs/validation.md). No latency bound: the tool chooses the layout.
  const std::vector<std::string> base = {
      "--model",  "llama-2-70b", "--task",      "inference", "--gpu",           "h200-sxm",
      "--count",  "8",           "--precision", "fp8",       "--kv-precision",  "fp8",
      "--engine", "trtllm",      "--context",   "515",       "--output-tokens", "293"};
  std::vector<std::string> args = base;
  args.insert(args.end(), {"--tpot-ms", "none", "--ttft-ms", "none"});
  const auto offline = plan(args);
  CHECK(offline["layout"]["data_parallel"] == 8);
  CHECK(offline["layout"]["tensor_parallel"] == 1);
  const double published = 34812.1;
  CHECK(std::abs(offline["inference"]["max_tokens_per_s"]["typical"].get<double>() / published - 1.0) <= 0.35);
  const auto& engine = offline["inference"]["engine"];
  CHECK(engine["id"] == "trtllm");
  CHECK(engine["fp8_gemm_share"].get<double>() > 0.70);  // fitted on TensorRT-LLM's own FP8 figures
  // 80% of the published figure as requests/s, the MLPerf Server limits as targets.
  std::vector<std::string> rate = base;
  rate.insert(rate.end(), {"--request-rate", "94.9", "--tpot-ms", "200", "--ttft-ms", "2000"});
  const auto served = plan(rate);
  CHECK(served["count"] == 8);
  CHECK(served["inference"]["requests_per_s"]["typical"].get<double>() >= 94.9);
  CHECK(served["inference"]["queue"]["ttft_p90_ms"].get<double>() <= 2000);
}

TEST_CASE("serving: a large MoE model spreads its experts across servers, or within copies with --ep 1",
          "[cli][serving]") {
  const std::vector<std::string> base = {
      "--model",     "deepseek-v3", "--task",         "inference", "--gpu",     "h100-sxm5", "--count",   "32",
      "--precision", "fp8",         "--kv-precision", "fp8",       "--tpot-ms", "none",      "--ttft-ms", "none"};
  const auto wide = plan(base);
  CHECK(wide["layout"]["tensor_parallel"] == 1);
  CHECK(wide["layout"]["data_parallel"] == 32);
  CHECK(wide["layout"]["expert_parallel"].get<int>() > 8);  // beyond one 8-GPU server
  CHECK_THAT(wide["layout"]["description"].get<std::string>(), Catch::Contains("attention data parallel"));
  std::vector<std::string> within = base;
  within.insert(within.end(), {"--ep", "1"});
  const auto copies = plan(within);
  CHECK(copies["layout"]["expert_parallel"] == copies["layout"]["tensor_parallel"]);
  CHECK_THAT(copies["layout"]["description"].get<std::string>(), !Catch::Contains("attention data parallel"));
  CHECK(wide["inference"]["max_tokens_per_s"]["typical"].get<double>() >
        copies["inference"]["max_tokens_per_s"]["typical"].get<double>());
  // --ep 32 fixes the group; the request says so.
  std::vector<std::string> fixed = base;
  fixed.insert(fixed.end(), {"--ep", "32", "--format", "json"});
  const Result r = run(fixed);
  REQUIRE(r.status == 0);
  const auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["request"]["expert_parallel"] == 32);
  CHECK(doc["recommendations"][0]["layout"]["expert_parallel"] == 32);
}

TEST_CASE("training: layout degrees the user fixes are kept, the rest searched, and the plan says which",
          "[cli][layout]") {
  // ZeRO tables are for pure data parallelism: 64 ranks, nothing else.
  const auto dp = plan({"--model", "llama-2-7b", "--task", "full", "--gpu", "a100-80gb-sxm4", "--tp", "1", "--pp", "1",
                        "--cp", "1", "--dp", "64"});
  CHECK(dp["count"] == 64);
  CHECK(dp["layout"]["data_parallel"] == 64);
  CHECK(dp["layout"]["tensor_parallel"] == 1);
  CHECK(dp["layout"]["pipeline_parallel"] == 1);
  // One degree given: the search keeps it and chooses the others.
  const auto tp = plan({"--model", "llama-3.1-70b", "--task", "pretrain", "--gpu", "h100-sxm5", "--count", "64", "--tp",
                        "4", "--tokens", "100B"});
  CHECK(tp["layout"]["tensor_parallel"] == 4);
  CHECK(tp["count"] == 64);
  // A degree the search never tries (its pipelines are powers of two) is kept.
  const auto pp = plan({"--model", "llama-3.1-70b", "--task", "pretrain", "--gpu", "h100-sxm5", "--count", "40", "--pp",
                        "5", "--tokens", "100B"});
  CHECK(pp["layout"]["pipeline_parallel"] == 5);
  CHECK(pp["count"] == 40);
  const auto dp_only = plan({"--model", "llama-3.1-70b", "--task", "full", "--gpu", "h100-sxm5", "--dp", "4"});
  CHECK(dp_only["layout"]["data_parallel"] == 4);
  // A MoE model's expert-parallel degree.
  const auto ep =
      plan({"--model", "mixtral-8x7b", "--task", "full", "--gpu", "h100-sxm5", "--count", "16", "--ep", "4"});
  CHECK(ep["layout"]["expert_parallel"] == 4);
  // LoRA: data parallel over the GPUs given.
  const auto lora = plan({"--model", "llama-3.1-8b", "--task", "lora", "--gpu", "h100-sxm5", "--dp", "8"});
  CHECK(lora["count"] == 8);
  CHECK(lora["layout"]["data_parallel"] == 8);
  // The Assumptions say what was given and what the search chose.
  const Result text = run({"--model", "llama-3.1-70b", "--task", "pretrain", "--gpu", "h100-sxm5", "--count", "64",
                           "--tp", "4", "--tokens", "100B"});
  CHECK_THAT(text.out, Catch::Contains("layout: --tp 4 as given; the plan around them: TP 4"));
  const Result json = run({"--model", "llama-3.1-70b", "--task", "pretrain", "--gpu", "h100-sxm5", "--count", "64",
                           "--tp", "4", "--tokens", "100B", "--format", "json"});
  const auto doc = nlohmann::json::parse(json.out);
  CHECK(doc["request"]["tensor_parallel"] == 4);
  CHECK(doc["request"]["pipeline_parallel"].is_null());
  // The lighter task offered as a way out drops the model-parallel degrees it cannot take.
  const Result none = run({"--model", "llama-3.1-70b", "--task", "full", "--gpu", "h100-sxm5", "--tp", "8", "--pp", "1",
                           "--cp", "1", "--dp", "1", "--format", "json"});
  REQUIRE(none.status == 1);
  bool lighter = false;
  const auto ways = nlohmann::json::parse(none.out);
  for (const auto& way : ways["ways_out"]) {
    for (const auto& change : way["changes"]) {
      if (change["lever"] == "task") {
        lighter = true;
        const Result taken = run(
            {"--model", "llama-3.1-70b", "--task", change["to"].get<std::string>(), "--gpu", "h100-sxm5", "--dp", "1"});
        CHECK(taken.status == 0);  // the way out works as offered
      }
    }
  }
  CHECK(lighter);
}

TEST_CASE("a rent from a single dated quote says so, in the text and in JSON", "[cli][prices]") {
  // Issue 37: H200 NVL's only rent quote (RunPod Secure, 2026-08) is its
  // typical; a card with several quotes says how many, and of which tier.
  const Result one = run({"--model", "llama-3.1-70b", "--task", "inference", "--gpu", "h200-nvl"}, "COLUMNS=400");
  REQUIRE(one.status == 0);
  CHECK_THAT(one.out, Catch::Contains("(its one dated specialist-cloud on-demand quote)"));
  const Result many = run({"--model", "llama-3.1-70b", "--task", "inference", "--gpu", "h100-sxm5"}, "COLUMNS=400");
  REQUIRE(many.status == 0);
  CHECK_THAT(many.out, Catch::Matches("(.|\\n)*\\(median of [0-9]+ dated specialist-cloud on-demand(.|\\n)*"));
  const Result json = run({"--model", "llama-3.1-70b", "--task", "inference", "--gpu", "h200-nvl", "--format", "json"});
  REQUIRE(json.status == 0);
  CHECK(nlohmann::json::parse(json.out)["recommendations"][0]["cost_usd"]["rent_quotes"] == 1);
}

TEST_CASE("rent is priced at one market tier: the typical by default, --market on request", "[cli][prices]") {
  // Issue 37: the typical is the specialist clouds' median for every card;
  // --market prices at another tier where the card has recent quotes there.
  const auto cost = [](const Result& r) { return nlohmann::json::parse(r.out)["recommendations"][0]["cost_usd"]; };
  const std::vector<std::string> h100 = {"--params", "8B", "--task", "lora", "--gpu", "h100-sxm5", "--format", "json"};
  const Result typical = run(h100);
  REQUIRE(typical.status == 0);
  CHECK(cost(typical)["rent_tier"] == "specialist");
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = h100;
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args);
  };
  const Result hyperscaler = with({"--market", "hyperscaler"});
  REQUIRE(hyperscaler.status == 0);
  CHECK(cost(hyperscaler)["rent_tier"] == "hyperscaler");
  CHECK(cost(hyperscaler)["rent_per_gpu_hour"]["typical"].get<double>() >
        2 * cost(typical)["rent_per_gpu_hour"]["typical"].get<double>() * 0.8);
  CHECK(nlohmann::json::parse(hyperscaler.out)["request"]["market"] == "hyperscaler");
  // A tier the card has no recent quote in: not priced at that tier, and it says so.
  const Result missing =
      run({"--params", "8B", "--task", "lora", "--gpu", "h200-nvl", "--market", "hyperscaler"}, "COLUMNS=400");
  REQUIRE(missing.status == 0);
  CHECK_THAT(missing.out, Catch::Contains("no recent hyperscaler on-demand quote for this card, so it is not priced"));
  const Result missing_json =
      run({"--params", "8B", "--task", "lora", "--gpu", "h200-nvl", "--market", "hyperscaler", "--format", "json"});
  CHECK(cost(missing_json)["market_missing"] == true);
  CHECK(cost(missing_json)["rent_per_gpu_hour"].is_null());
  const Result both = run({"--params", "8B", "--task", "lora", "--spot", "--market", "term"});
  CHECK(both.status == 2);
  CHECK_THAT(both.err, Catch::Contains("--spot is --market spot"));
  const Result bad = run({"--params", "8B", "--task", "lora", "--market", "boutique"});
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, Catch::Contains("--market: 'boutique' is not valid"));
}

TEST_CASE("owning is set against a term rent when one is quoted, and used H100, A100 and RTX 4090 are priced",
          "[cli][prices]") {
  // Issue 37: --years 3 compares against the 36-month term quotes; --years 1
  // against the 12-month ones; used servers of the three cards have prices.
  const auto own = [](const Result& r) {
    return nlohmann::json::parse(r.out)["recommendations"][0]["cost_usd"]["ownership"];
  };
  const Result three = run(
      {"--params", "8B", "--task", "lora", "--gpu", "h100-sxm5", "--mode", "buy", "--years", "3", "--format", "json"});
  REQUIRE(three.status == 0);
  CHECK(own(three)["rent_term_months"] == 36);
  CHECK(own(three)["rent_term_quotes"].get<int>() >= 3);
  const Result one = run(
      {"--params", "8B", "--task", "lora", "--gpu", "h100-sxm5", "--mode", "buy", "--years", "1", "--format", "json"});
  REQUIRE(one.status == 0);
  CHECK(own(one)["rent_term_months"] == 12);
  CHECK(own(one)["rent_per_gpu_hour"].get<double>() > own(three)["rent_per_gpu_hour"].get<double>());
  const Result text = run({"--params", "8B", "--task", "lora", "--gpu", "h100-sxm5", "--mode", "buy"}, "COLUMNS=400");
  CHECK_THAT(text.out, Catch::Contains("36-month term quotes"));
  for (const char* gpu : {"h100-sxm5", "a100-80gb-sxm4", "rtx-4090"}) {
    const Result used = run(
        {"--params", "8B", "--task", "lora", "--gpu", gpu, "--mode", "buy", "--condition", "used", "--format", "json"});
    REQUIRE(used.status == 0);
    CHECK(own(used)["condition"] == "used");
    CHECK(own(used)["servers_price"]["typical"].get<double>() > 0);
  }
}
