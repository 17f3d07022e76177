// Prices from files (--price-file, `prices`, --spot) as a user runs them: a
// SkyPilot catalog file and a quotes file rank the plans and name where each
// is rented, in every format; bad rows are located errors.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness.hpp"

namespace {

using harness::Result;
using harness::run;
using harness::scratch;

std::string prices(const std::string& name) { return std::string(GPU_ADVISE_TEST_DATA) + "/prices/" + name; }

const std::string lambda = prices("lambda/vms.csv");
const std::string aws = prices("aws/vms.csv");
const std::string quotes = prices("quotes.csv");

// Text output in lines long enough that no sentence is wrapped.
Result wide(const std::vector<std::string>& args) { return run(args, "COLUMNS=1000"); }

// The recommendation for `id` in a JSON report.
nlohmann::json pick(const nlohmann::json& report, const std::string& id) {
  for (const auto& r : report["recommendations"]) {
    if (r["gpu"]["id"] == id) {
      return r;
    }
  }
  FAIL("no recommendation for " << id);
  return {};
}

}  // namespace

TEST_CASE("a SkyPilot file prices the cards it covers and names the instances", "[cli][prices]") {
  const Result text = wide({"--params", "70B", "--task", "lora", "--price-file", lambda, "--gpu", "h100-sxm5"});
  CHECK(text.status == 0);
  // The H100 SXM5 plan: 4 GPUs, Lambda's 4-GPU instance, its own price.
  CHECK_THAT(text.out, Catch::Contains("1 x gpu_4x_h100_sxm5 at lambda, us-east-1, $12.36/hour, on demand"));
  CHECK_THAT(text.out, Catch::Contains("(SkyPilot catalog, lambda, dated"));
  CHECK_THAT(text.err, Catch::Contains("warning:") && Catch::Contains("V100 (2 rows)"));

  const Result json = run({"--params", "70B", "--task", "lora", "--price-file", lambda, "--format", "json"});
  REQUIRE(json.status == 0);
  const auto report = nlohmann::json::parse(json.out);
  const auto h100 = pick(report, "h100-sxm5");
  const auto& offer = h100["cost_usd"]["offer"];
  CHECK(h100["cost_usd"]["price_basis"] == "price file");
  CHECK(offer["provider"] == "lambda");
  CHECK(offer["instance_type"] == "gpu_4x_h100_sxm5");
  CHECK(offer["instances"] == 1);
  CHECK(offer["paid_gpus"] == 4);
  CHECK(offer["per_hour"].get<double>() == Approx(12.36));
  CHECK(h100["cost_usd"]["rent_per_gpu_hour"]["typical"].get<double>() == Approx(3.09));
  // The run's rent is the instance's price for the wall time.
  const double hours = h100["training"]["wall_hours"]["typical"].get<double>() +
                       h100["training"]["job_overhead_hours"].get<double>();  // paid while it starts and saves too
  CHECK(h100["cost_usd"]["rent"]["typical"].get<double>() == Approx(12.36 * hours).epsilon(1e-4));
  // A card the file does not cover keeps the catalog's quotes.
  const auto mi300x = pick(report, "mi300x");
  CHECK(mi300x["cost_usd"]["price_basis"] == "catalog quotes");
  CHECK(mi300x["cost_usd"]["offer"].is_null());
  CHECK(report["request"]["price_files"][0]["provider"] == "lambda");
  CHECK(report["request"]["price_files"][0]["format"] == "skypilot");

  // The CSV names the instance too, after the columns that were there before.
  const Result csv =
      run({"--params", "70B", "--task", "lora", "--price-file", lambda, "--gpu", "h100-sxm5", "-f", "csv"});
  CHECK_THAT(csv.out, Catch::Contains(",price file,lambda,us-east-1,gpu_4x_h100_sxm5,1,12.36\r\n"));
  // And the reports say it in words.
  const Result md =
      wide({"--params", "70B", "--task", "lora", "--price-file", lambda, "--gpu", "h100-sxm5", "-f", "markdown"});
  CHECK_THAT(md.out, Catch::Contains("Rent 4 x H100 SXM5 80GB as 1 x gpu\\_4x\\_h100\\_sxm5 at lambda, us-east-1"));
}

TEST_CASE("the cheapest instance for the count wins, idle GPUs are paid for and said", "[cli][prices]") {
  // Lambda rents the A100 80GB as 8-GPU instances only: 4 cards cost one whole instance.
  const Result r = run({"--params", "70B", "--task", "lora", "--gpu", "a100-80gb-sxm4", "--count", "4", "--price-file",
                        lambda, "--format", "json"});
  REQUIRE(r.status == 0);
  const auto a100 = nlohmann::json::parse(r.out)["recommendations"][0];
  CHECK(a100["cost_usd"]["offer"]["paid_gpus"] == 8);
  CHECK(a100["cost_usd"]["offer"]["instance_type"] == "gpu_8x_a100_80gb_sxm4");
  const double hours =
      a100["training"]["wall_hours"]["typical"].get<double>() + a100["training"]["job_overhead_hours"].get<double>();
  CHECK(a100["cost_usd"]["rent"]["typical"].get<double>() == Approx(8 * 1.79 * hours).epsilon(1e-4));
  const Result text =
      wide({"--params", "70B", "--task", "lora", "--gpu", "a100-80gb-sxm4", "--count", "4", "--price-file", lambda});
  CHECK_THAT(text.out, Catch::Contains("4 of the 8 GPUs paid for stay idle"));
  // Eight H100 SXM5: Europe's 8-GPU instance is the cheapest of the three regions.
  const Result eight = run({"--params", "70B", "--task", "lora", "--gpu", "h100-sxm5", "--count", "8", "--price-file",
                            lambda, "--format", "json"});
  const auto offer = nlohmann::json::parse(eight.out)["recommendations"][0]["cost_usd"]["offer"];
  CHECK(offer["location"] == "europe-central-1");
  CHECK(offer["per_hour"].get<double>() == Approx(23.20));
}

TEST_CASE("the shapes in a file are the counts a card is rented in", "[cli][prices]") {
  // The catalog rents the H100 PCIe as 1, 2, 4 or 8; Lambda's file only as 1-GPU
  // instances. Eight serving copies of one GPU each are eight instances.
  const Result r = run({"--params", "3B", "--task", "inference", "--request-rate", "30", "--gpu", "h100-pcie",
                        "--price-file", lambda, "--format", "json"});
  REQUIRE(r.status == 0);
  const auto plan = nlohmann::json::parse(r.out)["recommendations"][0];
  REQUIRE(plan["count"].get<int>() > 1);
  CHECK(plan["layout"]["tensor_parallel"] == 1);
  CHECK(plan["cost_usd"]["offer"]["instances"] == plan["count"]);
  CHECK(plan["cost_usd"]["offer"]["gpus_per_instance"] == 1);
  CHECK(plan["cost_usd"]["no_instance_for_gpus"] == 0);
  // Lambda rents the A10 by the one-GPU instance, so copies of one GPU are as
  // many instances (the catalog's 4-GPU server is no bar).
  const Result a10 = run({"--params", "1B", "--task", "inference", "--request-rate", "20", "--gpu", "a10",
                          "--price-file", lambda, "--format", "json"});
  REQUIRE(a10.status == 0);
  const auto small = nlohmann::json::parse(a10.out)["recommendations"][0];
  CHECK(small["cost_usd"]["offer"]["instances"] == small["count"]);
}

TEST_CASE("a sharded group is never rented as separate smaller instances", "[cli][prices]") {
  // Issue 33: a 4-GPU FSDP 70B LoRA was "4 x gpu_1x_h100_pcie" with the time of
  // four GPUs in one server. FSDP (ZeRO-3) shards the model over every rank, so
  // the four must share a server: Lambda's 1-GPU instances do not price it.
  const Result r =
      run({"--params", "70B", "--task", "lora", "--gpu", "h100-pcie", "--price-file", lambda, "--format", "json"});
  REQUIRE(r.status == 0);
  const auto plan = nlohmann::json::parse(r.out)["recommendations"][0];
  REQUIRE(plan["layout"]["zero_stage"] == 3);
  CHECK(plan["cost_usd"]["offer"].is_null());
  CHECK(plan["cost_usd"]["rent"].is_null());
  CHECK(plan["cost_usd"]["no_instance_for_gpus"] == plan["count"]);
  const Result text = wide({"--params", "70B", "--task", "lora", "--gpu", "h100-pcie", "--price-file", lambda});
  CHECK_THAT(text.out, Catch::Contains("rents this card only in instances of fewer than 4 GPUs"));
  const Result zh =
      wide({"--params", "70B", "--task", "lora", "--gpu", "h100-pcie", "--price-file", lambda, "--lang", "zh"});
  CHECK_THAT(zh.out, Catch::Contains("价格文件中此卡只有少于 4 卡的实例"));
  // A serving copy of tensor parallel 2 is a sharded group of two: 1-GPU
  // instances do not hold it either.
  const Result tp = run({"--params", "8B", "--task", "inference", "--request-rate", "5", "--precision", "int8", "--gpu",
                         "a10", "--price-file", lambda, "--format", "json"});
  REQUIRE(tp.status == 0);
  const auto copies = nlohmann::json::parse(tp.out)["recommendations"][0];
  REQUIRE(copies["layout"]["tensor_parallel"] == 2);  // one A10 misses 50 ms per token
  CHECK(copies["cost_usd"]["offer"].is_null());
  CHECK(copies["cost_usd"]["no_instance_for_gpus"] == 2);
  // --copies fixes the split: 12 GPUs as 6 copies are 6 groups of 2.
  const Result six =
      run({"--params", "8B", "--task", "inference", "--request-rate", "5", "--precision", "int8", "--gpu", "a10",
           "--count", "12", "--copies", "6", "--price-file", lambda, "--format", "json"});
  REQUIRE(six.status == 0);
  const auto six_copies = nlohmann::json::parse(six.out)["recommendations"][0];
  CHECK(six_copies["layout"]["data_parallel"] == 6);
  CHECK(six_copies["layout"]["tensor_parallel"] == 2);
  CHECK(six_copies["cost_usd"]["no_instance_for_gpus"] == 2);
  // At 100 ms per token one A10 per copy meets the target: copies that fit the
  // 1-GPU instances are preferred to faster copies that would not (before:
  // 6 copies of tensor parallel 2, priced as twelve separate instances).
  // (No first-token target: with one, a 1-GPU copy's few sequences queue
  // past 2 s at p90 at this rate, and tensor parallel 2 needs fewer GPUs.)
  const Result looser =
      run({"--params", "8B", "--task", "inference", "--request-rate", "5", "--precision", "int8", "--tpot-ms", "100",
           "--ttft-ms", "none", "--gpu", "a10", "--price-file", lambda, "--format", "json"});
  REQUIRE(looser.status == 0);
  const auto rentable = nlohmann::json::parse(looser.out)["recommendations"][0];
  CHECK(rentable["layout"]["tensor_parallel"] == 1);
  CHECK(rentable["cost_usd"]["offer"]["instances"] == rentable["count"]);
  // Eight GPUs in one 8-GPU instance keep their FSDP group together.
  const Result eight = run({"--params", "70B", "--task", "lora", "--gpu", "h100-sxm5", "--count", "8", "--price-file",
                            lambda, "--format", "json"});
  CHECK(nlohmann::json::parse(eight.out)["recommendations"][0]["cost_usd"]["offer"]["gpus_per_instance"] == 8);
}

TEST_CASE("a quotes file prices a plan by the GPU, in its own currency and market", "[cli][prices]") {
  const Result r = wide({"--params", "70B", "--task", "lora", "--gpu", "h100-sxm5", "--price-file", quotes});
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("x one GPU at acme-cloud, us-east") && Catch::Contains("reserved"));
  CHECK_THAT(r.err, Catch::Contains("V100 (1 row)"));
  // A CNY quote prices the China market, and shows in CNY there.
  const Result cn =
      wide({"--params", "70B", "--task", "lora", "--region", "cn", "--gpu", "ascend-910b2", "--price-file", quotes});
  CHECK(cn.status == 0);
  CHECK_THAT(cn.out, Catch::Contains("¥12.00/GPU-hour") && Catch::Contains("at autodl, cn-east"));
  // Two files: both quote the H100 SXM5, and the cheaper for the count wins.
  const Result both = run({"--params", "70B", "--task", "lora", "--gpu", "h100-sxm5", "--price-file", lambda,
                           "--price-file", quotes, "--format", "json"});
  const auto report = nlohmann::json::parse(both.out);
  CHECK(report["recommendations"][0]["cost_usd"]["offer"]["provider"] == "acme-cloud");
  CHECK(report["request"]["price_files"].size() == 2);
}

TEST_CASE("spot prices rank the plans with --spot, and the cards without one say so", "[cli][prices]") {
  const Result r = run({"--model", "llama-3.1-8b", "--task", "inference", "--spot", "--gpu", "h100-sxm5", "--gpu",
                        "a100-80gb-sxm4", "--price-file", aws, "--price-file", lambda, "--format", "json"});
  REQUIRE(r.status == 0);
  const auto report = nlohmann::json::parse(r.out);
  const auto h100 = pick(report, "h100-sxm5");
  CHECK(h100["cost_usd"]["offer"]["kind"] == "spot");
  CHECK(h100["cost_usd"]["spot"] == true);
  CHECK(h100["cost_usd"]["offer"]["provider"] == "aws");
  CHECK(report["request"]["spot"] == true);
  // Without --spot the same files price it on demand.
  const Result on_demand = run({"--model", "llama-3.1-8b", "--task", "inference", "--gpu", "h100-sxm5", "--price-file",
                                aws, "--format", "json"});
  CHECK(nlohmann::json::parse(on_demand.out)["recommendations"][0]["cost_usd"]["offer"]["kind"] == "on_demand");
  // Lambda has no spot: priced on demand, flagged.
  const Result none =
      wide({"--model", "llama-3.1-8b", "--task", "inference", "--spot", "--gpu", "gh200", "--price-file", lambda});
  CHECK_THAT(none.out, Catch::Contains("no spot quote for this card, so on demand"));
  CHECK_THAT(none.out, Catch::Contains("spot prices where a card has them"));
}

TEST_CASE("bad price rows are located errors, and nothing is written", "[cli][prices][errors]") {
  const Result r = run({"--params", "70B", "--task", "lora", "--price-file", prices("bad/quotes.csv")});
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::Contains("bad/quotes.csv:2:11: price_per_gpu_hour: '-2' is not a positive price"));
  CHECK_THAT(r.err, Catch::Contains("bad/quotes.csv:6:1: card: 'A100' is ambiguous"));
  CHECK_THAT(r.err, Catch::Contains("5 problems found"));
  const Result vms = run({"prices", prices("bad/vms.csv")});
  CHECK(vms.status == 2);
  CHECK_THAT(vms.err, Catch::Contains("bad/vms.csv:2:38: Price: 'abc' is not a positive price"));
  const Result missing = run({"--params", "70B", "--task", "lora", "--price-file", prices("none/vms.csv")});
  CHECK(missing.status == 2);
  CHECK_THAT(missing.err, Catch::Contains("none/vms.csv"));
  // A SkyPilot file named without its provider's folder needs PROVIDER=FILE.
  const auto loose = scratch() / "vms.csv";
  std::filesystem::copy_file(lambda, loose, std::filesystem::copy_options::overwrite_existing);
  const Result unnamed = harness::shell("cd " + harness::quote(scratch().string()) + " && \"$GA\" prices vms.csv");
  CHECK(unnamed.status == 2);
  CHECK_THAT(unnamed.err, Catch::Contains("PROVIDER=FILE"));
  const Result named = run({"prices", "lambda-labs=" + loose.string(), "--format", "json"});
  CHECK(named.status == 0);
  CHECK(nlohmann::json::parse(named.out)["files"][0]["provider"] == "lambda-labs");
  // Flags where they do not apply.
  CHECK(run({"models", "--price-file", lambda}).status == 2);
  CHECK(run({"prices", lambda, "--spot"}).status == 2);
}

TEST_CASE("prices summarises files without a recommendation", "[cli][prices]") {
  const Result text = wide({"prices", lambda, quotes});
  CHECK(text.status == 0);
  CHECK_THAT(text.out, Catch::Contains("SkyPilot catalog, 19 rows, 15 quotes for 6 cards"));
  CHECK_THAT(text.out, Catch::Contains("h100-sxm5 (H100 SXM5 80GB)"));
  CHECK_THAT(text.out, Catch::Contains("not in the catalog, skipped (rows): V100 2"));
  CHECK_THAT(text.out, Catch::Contains("quotes file, 5 rows, 4 quotes for 3 cards"));
  const Result zh = run({"prices", lambda, "--lang", "zh"});
  CHECK_THAT(zh.out, Catch::Contains("SkyPilot 目录"));
  const Result json = run({"prices", aws, "--format", "json"});
  REQUIRE(json.status == 0);
  const auto doc = nlohmann::json::parse(json.out);
  CHECK(doc["kind"] == "prices");
  const auto& file = doc["files"][0];
  CHECK(file["provider"] == "aws");
  CHECK(file["cpu_rows"] == 1);
  bool h100 = false;
  for (const auto& card : file["cards"]) {
    if (card["id"] == "h100-sxm5") {
      h100 = true;
      CHECK(card["shapes"] == nlohmann::json::array({8}));
    }
  }
  CHECK(h100);
  CHECK(run({"prices"}).status == 2);
  CHECK(run({"prices", lambda, "--format", "markdown"}).status == 2);
}

TEST_CASE("catalog show lists a file's quotes beside the catalog's", "[cli][prices]") {
  const Result text = wide({"catalog", "show", "h100-sxm5", "--price-file", lambda});
  CHECK(text.status == 0);
  CHECK_THAT(text.out, Catch::Contains("rent quotes from price files (6), cheapest first"));
  CHECK_THAT(text.out, Catch::Contains("lambda europe-central-1, gpu_8x_h100_sxm5, 8 per instance"));
  CHECK_THAT(text.out, Catch::Contains("rent per GPU-hour (global)"));  // the catalog's own stay listed
  const Result json = run({"catalog", "show", "h100-sxm5", "--price-file", lambda, "--format", "json"});
  const auto doc = nlohmann::json::parse(json.out);
  CHECK(doc["price_file_quotes"].size() == 6);
  CHECK(doc["price_file_quotes"][0]["origin"].get<std::string>().find("vms.csv:") != std::string::npos);
  CHECK(!doc["gpu"]["prices"]["rent_usd_per_gpu_hour"].empty());
}

TEST_CASE("batch and fit take the price files of the command line", "[cli][prices]") {
  const auto requests = scratch() / "price-requests.jsonl";
  harness::spit(requests, R"({"params": "70B", "task": "lora", "gpu": ["h100-sxm5"]})"
                          "\n");
  const Result batch = run({"batch", requests.string(), "--price-file", lambda});
  REQUIRE(batch.status == 0);
  const auto line = nlohmann::json::parse(batch.out);
  CHECK(line["recommendations"][0]["cost_usd"]["offer"]["provider"] == "lambda");
  // --compact keeps where the top plan is rented.
  const Result compact = run({"batch", requests.string(), "--price-file", lambda, "--compact"});
  const auto top = nlohmann::json::parse(compact.out)["top"];
  CHECK(top["offer"]["provider"] == "lambda");
  CHECK(top["offer"]["instance_type"] == line["recommendations"][0]["cost_usd"]["offer"]["instance_type"]);
  CHECK(top["cost"]["offer_per_hour"].get<double>() > 0);
  const Result fit = run({"fit", "--gpu", "h100-sxm5", "--count", "8", "--params", "70B", "--task", "lora",
                          "--price-file", lambda, "--format", "json"});
  CHECK(fit.status == 0);
}

TEST_CASE("catalog show and prices show the market tiers and flag quotes far from the typical", "[cli][prices]") {
  // Issue 37: each tier's median and spread, the tier the typical is taken
  // from, and a quote over twice the typical flagged where quotes are listed.
  const Result show = wide({"catalog", "show", "h100-sxm5"});
  REQUIRE(show.status == 0);
  CHECK_THAT(show.out, Catch::Contains("typical: specialist-cloud on-demand"));
  CHECK_THAT(show.out, Catch::Contains("hyperscaler on-demand: $"));
  CHECK_THAT(show.out, Catch::Contains("term: $"));
  CHECK_THAT(show.out, Catch::Contains(" specialist, "));
  CHECK_THAT(show.out, Catch::Contains("term 36-month,"));
  // New and used purchase prices are never one median. By hand from data/gpus.yaml: new, two
  // $25k-30k quotes (2023 and 2026), midpoints $27.5k; used, eBay $14k and brokers $18k-22k
  // ($20k midpoint), median $17k.
  CHECK_THAT(show.out, Catch::Contains("purchase per card (new) (global) $28k typical") &&
                           Catch::Contains("purchase per card (used) (global) $17k typical ($14k to $22k)"));
  const Result azure = wide({"catalog", "show", "a100-80gb-pcie"});
  CHECK_THAT(azure.out,
             Catch::Contains("Azure Standard_NC24ads_A100_v4") && Catch::Contains("[over twice the typical"));
  const Result json = run({"catalog", "show", "h100-sxm5", "--format", "json"});
  REQUIRE(json.status == 0);
  const auto prices = nlohmann::json::parse(json.out)["gpu"]["prices"];
  CHECK(prices["rent_tiers"]["global"]["typical_tier"] == "specialist");
  CHECK(prices["quotes_since"] == "2025-12");
  CHECK(prices["rent_tiers"]["global"]["tiers"].size() >= 4);
  bool term = false;
  for (const auto& q : prices["rent_usd_per_gpu_hour"]) {
    term = term || (q["tier"] == "term" && q["term_months"] == 36);
  }
  CHECK(term);
  // A price file's quote above twice the catalog's typical is flagged.
  const Result file = wide({"prices", aws});
  CHECK_THAT(file.out,
             Catch::Contains("h100-sxm5: a quote of $12.29 per GPU-hour is over twice the catalog's typical"));
  const auto cards = nlohmann::json::parse(run({"prices", aws, "--format", "json"}).out)["files"][0]["cards"];
  bool flagged = false;
  for (const auto& card : cards) {
    flagged = flagged || (card["id"] == "h100-sxm5" && card["over_twice_typical"] == true &&
                          card["catalog_typical_usd_per_gpu_hour"].get<double>() > 0);
  }
  CHECK(flagged);
  // A card whose only quote is older than twelve months is not priced, and says why.
  const std::string old = std::string(GPU_ADVISE_TEST_DATA) + "/overlay_old_quote.yaml";
  const Result stale =
      wide({"--params", "8B", "--task", "lora", "--gpu", "my-old-card", "--catalog", old, "--format", "json"});
  REQUIRE(stale.status == 0);
  const auto cost = nlohmann::json::parse(stale.out)["recommendations"][0]["cost_usd"];
  CHECK(cost["quotes_too_old"] == true);
  CHECK(cost["rent_per_gpu_hour"].is_null());
  const Result stale_text = wide({"--params", "8B", "--task", "lora", "--gpu", "my-old-card", "--catalog", old});
  CHECK_THAT(stale_text.out, Catch::Contains("every rent quote for this card here is more than 12 months old"));
}

TEST_CASE("a file's quote is flagged against the typical of its own market, whatever the row order", "[cli][prices]") {
  // Issue 37 review: a China row first once set the market every row of the
  // card was compared in. Each quote now meets its own market's typical.
  const std::string header = "card,price_per_gpu_hour,currency,provider,region,date,kind,market\n";
  const std::string china = "h100-sxm5,14,cny,cn-cloud,cn-east,2026-11,on-demand,cn\n";
  const std::string global = "h100-sxm5,4.50,usd,us-cloud,us-east,2026-11,on-demand,global\n";
  const std::string dear = "h100-sxm5,9.00,usd,premium,us-east,2026-11,on-demand,global\n";
  for (const std::string& rows : {china + global, global + china}) {
    const auto file = scratch() / "mixed.csv";
    harness::spit(file, header + rows);
    const Result r = wide({"prices", file.string()});
    REQUIRE(r.status == 0);
    CHECK_THAT(r.out, !Catch::Contains("over twice"));
  }
  const auto file = scratch() / "dear.csv";
  harness::spit(file, header + china + dear);
  const Result r = wide({"prices", file.string()});
  CHECK_THAT(r.out, Catch::Contains("a quote of $9.00 per GPU-hour is over twice the catalog's typical $3.99 in market "
                                    "global"));
  const auto card =
      nlohmann::json::parse(run({"prices", file.string(), "--format", "json"}).out)["files"][0]["cards"][0];
  CHECK(card["flagged_market"] == "global");
  CHECK(card["flagged_usd_per_gpu_hour"] == 9.0);
  // A quotes file's spot and China rows carry their tiers.
  harness::spit(file, header + china + "h100-sxm5,1.20,usd,us-cloud,us-east,2026-11,spot,global\n");
  const auto show =
      nlohmann::json::parse(run({"catalog", "show", "h100-sxm5", "--price-file", file.string(), "--format", "json"})
                                .out)["price_file_quotes"];
  REQUIRE(show.size() == 2);
  CHECK(show[0]["tier"] == "china_cloud");
  CHECK(show[1]["tier"] == "spot");
}

TEST_CASE("spot asked with --market is --spot, a lease stays a lease, and the verdict names the rent it compares",
          "[cli][prices]") {
  const auto file = scratch() / "spot.csv";
  harness::spit(file,
                "card,price_per_gpu_hour,currency,provider,region,date,kind,market\n"
                "h100-sxm5,3.00,usd,acme,us-east,2026-11,on-demand,global\n"
                "h100-sxm5,1.00,usd,acme,us-east,2026-11,spot,global\n");
  auto rent = [&](const std::string& flag, const std::string& value) {
    std::vector<std::string> args = {"--params",     "8B",          "--task",   "lora", "--gpu", "h100-sxm5",
                                     "--price-file", file.string(), "--format", "json", flag};
    if (!value.empty()) {
      args.push_back(value);
    }
    const Result r = run(args);
    REQUIRE(r.status == 0);
    return nlohmann::json::parse(r.out)["recommendations"][0]["cost_usd"]["rent_per_gpu_hour"]["typical"].get<double>();
  };
  CHECK(rent("--spot", "") == Approx(1.0));
  CHECK(rent("--market", "spot") == Approx(1.0));
  // Ascend 910B3 in China is priced at leases; with --spot it still is, and says both.
  const Result lease = wide({"--params", "8B", "--task", "lora", "--gpu", "ascend-910b3", "--region", "cn", "--spot"});
  REQUIRE(lease.status == 0);
  CHECK_THAT(lease.out, Catch::Contains("(lease rates; short rentals cost more)") &&
                            Catch::Contains("no recent spot quote for this card, so at its typical price"));
  const Result own =
      wide({"--params", "8B", "--task", "lora", "--gpu", "ascend-910b3", "--region", "cn", "--mode", "buy"});
  CHECK_THAT(own.out, Catch::Contains("no term quote from 12 months up to 3 years for this card, so against its China "
                                      "lease rent"));
}
