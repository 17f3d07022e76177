// The advice as a practitioner reads it: money in the user's currency, the
// headline's assumptions, headroom, unpriced cards, and ways out that work.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness.hpp"

namespace {

using harness::Result;
using harness::run;

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
  const Result capped = run({"--params", "7B", "--task", "inference", "--budget", "3330cny", "--format", "json"});
  REQUIRE(capped.status == 0);
  CHECK(nlohmann::json::parse(capped.out)["request"]["budget_usd"].get<double>() == Approx(500.0).epsilon(1e-6));
  const Result bad = run({"--params", "7B", "--task", "inference", "--currency", "eur"});
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, Catch::Contains("--currency: 'eur' is not valid; expected usd or cny"));
}

TEST_CASE("the headline says what drives it, plans show their headroom, unpriced cards are not zeroed",
          "[cli][advice]") {
  const Result lora = run({"--params", "70B", "--task", "lora", "--budget", "low"});
  REQUIRE(lora.status == 0);
  CHECK_THAT(lora.out, Catch::Contains("(median of dated quotes)") && Catch::Contains("100M tokens (the default") &&
                           Catch::Contains("Headroom") && Catch::Contains("have no price for this mode and region"));
  const Result serve = run({"--params", "70B", "--task", "inference"});
  CHECK_THAT(serve.out, Catch::Contains("for 8 concurrent sequences of 4096 tokens"));
  // 70B full fine-tune on A100 80GB: 1% headroom, labelled tight.
  const Result tight = run({"--params", "70B", "--task", "full", "--gpu", "a100-80gb-sxm4"});
  REQUIRE(tight.status == 0);
  CHECK_THAT(tight.out, Catch::Contains("% tight") && Catch::Contains("tight: under 5% of usable memory is left"));
  // An unpriced card's cost part is neutral, never zero.
  const Result json = run({"--params", "70B", "--task", "lora", "--region", "cn", "--format", "json"});
  REQUIRE(json.status == 0);
  int unpriced = 0;
  const auto doc = nlohmann::json::parse(json.out);
  for (const auto& rec : doc["recommendations"]) {
    if (!rec["score"]["cost_known"].get<bool>()) {
      ++unpriced;
      CHECK(rec["score"]["cost"].get<double>() > 0);
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
