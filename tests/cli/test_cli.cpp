// The binary, run as a user runs it: exit statuses, help, errors, data
// files, models and rules (compare and batch are test_commands.cpp, formats
// and languages test_output.cpp, the advice test_advice.cpp, hostile input
// test_hostile.cpp).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "harness.hpp"

namespace {

using harness::Result;
using harness::run;
using harness::scratch;
using harness::slurp;

const std::string data = GPU_ADVISE_TEST_DATA;

}  // namespace

TEST_CASE("the mission's example works as typed and exits 0", "[cli]") {
  const Result r = run({"--params", "70B", "--task", "lora", "--budget", "low"});
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  CHECK_THAT(r.out, Catch::StartsWith("gpu-advise ") && Catch::Contains("Best: ") && Catch::Contains("Why #1") &&
                        Catch::Contains("Assumptions:"));
  // Every card of the catalog appears, recommended or rejected.
  const auto catalog = nlohmann::json::parse(run({"catalog", "list", "--format", "json"}).out);
  for (const auto& gpu : catalog["gpus"]) {
    CHECK_THAT(r.out, Catch::Contains(gpu["name"].get<std::string>()));
  }
}

TEST_CASE("'recommend' is the explicit name of the default command", "[cli]") {
  const Result plain = run({"--params", "70B", "--task", "lora", "--budget", "low"});
  const Result named = run({"recommend", "--params", "70B", "--task", "lora", "--budget", "low"});
  CHECK(named.status == 0);
  CHECK(named.out == plain.out);
}

TEST_CASE("JSON lists every catalog card as a recommendation or a rejection", "[cli][json]") {
  const Result r = run({"--params", "70B", "--task", "lora", "--budget", "low", "--format", "json"});
  REQUIRE(r.status == 0);
  const auto doc = nlohmann::json::parse(r.out);
  const Result list = run({"catalog", "list", "--format", "json"});
  const auto catalog = nlohmann::json::parse(list.out);
  CHECK(doc["recommendations"].size() + doc["rejected"].size() == catalog["gpus"].size());
  CHECK(doc["schema_version"] == 5);
  CHECK(doc["request"]["params_text"] == "70B");
  CHECK(catalog["gpus"].size() >= 22);
}

TEST_CASE("help has worked examples and the exit-status table, --version prints the version", "[cli]") {
  const Result help = run({"--help"});
  CHECK(help.status == 0);
  CHECK_THAT(help.out, Catch::Contains("Examples:") && Catch::Contains("Exit status:") && Catch::Contains("--params") &&
                           Catch::Contains("sft"));
  const Result version = run({"--version"});
  CHECK(version.status == 0);
  CHECK_THAT(version.out, Catch::StartsWith("gpu-advise 0."));
}

TEST_CASE("bad flags exit 2 with a message that names the flag and what is valid", "[cli][errors]") {
  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  const auto c = GENERATE(values<Case>({
      {{"--params", "0", "--task", "lora"}, "--params: '0' is zero"},
      {{"--params", "-5B", "--task", "lora"}, "--params: '-5B' is negative"},
      {{"--params", "70Q", "--task", "lora"}, "unknown suffix 'Q'"},
      {{"--params", "nonsense", "--task", "lora"}, "--params: 'nonsense' is not a number"},
      {{"--params", "1e400", "--task", "lora"}, "too large"},
      {{"--task", "lora"}, "describe the model with --params"},
      {{"--params", "70B"}, "--task is required"},
      {{"--params", "70B", "--task", "lorra"}, "did you mean 'lora'?"},
      {{"--params", "70B", "--task", "lora", "--budget", "cheap"}, "--budget: 'cheap' is neither a budget tier"},
      {{"--params", "70B", "--task", "lora", "--budget", "-5k"}, "--budget: '-5k' is neither"},
      {{"--params", "70B", "--task", "lora", "--budget", "0usd"}, "--budget: '0usd' is neither"},
      {{"--params", "70B", "--task", "lora", "--rules", "/nonexistent.yaml"}, "cannot read: no such file"},
      {{"--params", "70B", "--task", "lora", "--format", "jsn"}, "did you mean 'json'?"},
      {{"--params", "70B", "--task", "lora", "--count", "0"}, "--count: '0' is zero"},
      {{"--params", "70B", "--task", "lora", "--count", "2.5"}, "--count: '2.5' is not a whole number"},
      {{"--params", "70B", "--task", "lora", "--top", "999999999999"}, "--top: '999999999999' is too large"},
      {{"--params", "70B", "--task", "lora", "--gpu", "h10"}, "--gpu: unknown GPU 'h10'"},
      {{"--params", "70B", "--task", "lora", "--gpu", "A100"}, "ambiguous"},
      {{"--params", "70B", "--task", "lora", "--task", "full"}, "--task"},
      {{"--parms", "70B", "--task", "lora"}, "did you mean '--params'?"},
      {{"catalog", "show", "h10"}, "unknown GPU 'h10'"},
      {{"catalog"}, "subcommand"},
      {{"--model", "llama-3.1-71b", "--task", "lora"}, "unknown model 'llama-3.1-71b'"},
      {{"--model", "lama-3.1-70b", "--task", "lora"}, "did you mean 'llama-3.1-70b'?"},
      {{"--params", "70B", "--model", "llama-3.1-70b", "--task", "lora"}, "only one of --params, --model"},
      {{"--model-config", "/nonexistent/config.json", "--task", "lora"}, "cannot read: no such file"},
      {{"--model", "llama-3.1-70b", "--active-params", "10B", "--task", "lora"}, "--active-params goes with --params"},
      {{"--params", "10B", "--active-params", "20B", "--task", "inference"}, "more than --params"},
      {{"--params", "70B", "--task", "full", "--zero", "4"}, "--zero: '4' is not a ZeRO stage"},
      {{"--params", "70B", "--task", "full", "--recompute", "partial"}, "--recompute: 'partial' is not valid"},
      {{"--params", "70B", "--task", "lora", "--lora-targets", "q,qq"}, "--lora-targets: 'qq' is not a layer"},
      {{"--params", "70B", "--task", "inference", "--precision", "fp2"}, "--precision: 'fp2' is not valid"},
      {{"--params", "70B", "--task", "pretrain", "--deadline", "30"}, "--deadline: '30' has no unit"},
      {{"--params", "70B", "--task", "pretrain", "--deadline", "-3d"}, "--deadline"},
      {{"--params", "70B", "--task", "inference", "--seq-len", "4096"},
       "--seq-len applies to training tasks, not inference"},
      {{"--params", "70B", "--task", "lora", "--context", "4096"}, "--context applies to inference"},
      {{"--params", "70B", "--task", "inference", "--lora-rank", "8"}, "--lora-rank applies to --task lora or qlora"},
      {{"--model", "llama-2-7b", "--task", "inference", "--context", "8192"}, "maximum context of 4096"},
      {{"--params", "70B", "--task", "lora", "--mode", "lease"}, "--mode: 'lease' is not valid"},
      {{"--params", "70B", "--task", "lora", "--price", "h100-sxm5"}, "is not ID=PRICE (per GPU-hour)"},
      {{"--params", "70B", "--task", "lora", "--price", "h100-sxm5=-1"}, "--price: '-1' is negative"},
      {{"--params", "70B", "--task", "lora", "--price", "h10=2"}, "--price: unknown GPU 'h10'"},
      {{"--params", "70B", "--task", "lora", "--price", "h100-sxm5=99999m"}, "--price: '99999m' is more than 100000"},
      {{"--params", "70B", "--task", "lora", "--price", "h100-sxm5=20k"}, "at most 10000 USD is accepted"},
      {{"--params", "70B", "--task", "lora", "--budget", "2000000m"},
       "--budget: '2000000m' is more than 1000000000000"},
      {{"--params", "70B", "--task", "lora", "--epochs", "0"}, "--epochs: '0' is zero"},
      {{"--params", "70B", "--task", "lora", "--tokens", "abc"}, "--tokens: 'abc' is not a number"},
  }));
  CAPTURE(c.args);
  const Result r = run(c.args);
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::StartsWith("gpu-advise: error: ") && Catch::Contains(c.expected));
}

TEST_CASE("nothing fitting is an answer: exit 1 with ways out", "[cli]") {
  const Result r = run({"--params", "70B", "--task", "full", "--gpu", "rtx-4090", "--count", "2"});
  CHECK(r.status == 1);
  CHECK_THAT(r.out, Catch::Contains("Nothing fits") && Catch::Contains("Ways out") && Catch::Contains("QLoRA"));
  const Result json =
      run({"--params", "70B", "--task", "full", "--gpu", "rtx-4090", "--count", "2", "--format", "json"});
  CHECK(json.status == 1);
  CHECK(nlohmann::json::parse(json.out)["outcome"] == "nothing_fits");
}

TEST_CASE("catalog list, show and validate", "[cli][catalog]") {
  const Result list = run({"catalog", "list"});
  CHECK(list.status == 0);
  for (const char* id : {"a100-80gb-sxm4", "h100-sxm5", "h20", "b200", "ascend-910b2", "mi300x", "rtx-4090"}) {
    CHECK_THAT(list.out, Catch::Contains(id));
  }
  const Result show = run({"catalog", "show", "NVIDIA H100 80GB HBM3"});
  CHECK(show.status == 0);
  CHECK_THAT(show.out, Catch::Contains("h100-sxm5") && Catch::Contains("3350 GB/s") && Catch::Contains("sources:"));
  const Result ok = run({"catalog", "validate", data + "/overlay.yaml"});
  CHECK(ok.status == 0);
  CHECK_THAT(ok.out, Catch::Contains("ok, 1 cards"));
}

TEST_CASE("a broken catalog file gives every located error and exits 2", "[cli][catalog]") {
  const std::string file = data + "/broken_catalog.yaml";
  const Result r = run({"catalog", "validate", file});
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::Contains(file + ":8:13: gpus[0].vendor: 'nvdia' is not valid"));
  CHECK_THAT(r.err, Catch::Contains("did you mean 'nvidia'?"));
  CHECK_THAT(r.err,
             Catch::Contains("gpus[0].memory.bandwith_gb_per_s: unknown key; did you mean 'bandwidth_gb_per_s'?"));
  CHECK_THAT(r.err, Catch::Contains("gpus[0].memory.size_gb: must not be negative"));
  CHECK_THAT(r.err, Catch::Contains("duplicate id 'broken-1'"));
  CHECK_THAT(r.err, Catch::Contains("problems found"));
  const Result used = run({"--params", "7B", "--task", "lora", "--catalog", file});
  CHECK(used.status == 2);
  CHECK(used.out.empty());
}

TEST_CASE("a --catalog file adds cards and overrides them by id", "[cli][catalog]") {
  const Result r = run({"--params", "7B", "--task", "inference", "--catalog", data + "/overlay.yaml", "--gpu",
                        "my-card", "--format", "json"});
  REQUIRE(r.status == 0);
  const auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["recommendations"][0]["gpu"]["id"] == "my-card");
  const Result missing = run({"--params", "7B", "--task", "lora", "--catalog", data + "/nope.yaml"});
  CHECK(missing.status == 2);
  CHECK_THAT(missing.err, Catch::Contains("nope.yaml: cannot read: no such file"));
}

TEST_CASE("an --output file is written and a directory refused", "[cli]") {
  const auto target = scratch() / "plan.json";
  std::filesystem::remove(target);
  const Result r = run({"--params", "8B", "--task", "inference", "--format", "json", "--output", target.string()});
  CHECK(r.status == 0);
  CHECK(r.out.empty());
  CHECK(nlohmann::json::parse(slurp(target))["request"]["task"] == "inference");
  const Result dir = run({"--params", "8B", "--task", "inference", "--output", scratch().string()});
  CHECK(dir.status == 2);
  CHECK_THAT(dir.err, Catch::Contains("is a directory"));
}

TEST_CASE("a model can be named, given as config.json, or given as a count", "[cli][models]") {
  const Result preset = run({"--model", "mixtral-8x7b", "--task", "inference", "--format", "json"});
  REQUIRE(preset.status == 0);
  const auto doc = nlohmann::json::parse(preset.out);
  CHECK(doc["model"]["id"] == "mixtral-8x7b");
  CHECK(doc["model"]["moe"]["experts"] == 8);
  const Result config =
      run({"--model-config", data + "/hf-configs/mixtral-8x7b.json", "--task", "inference", "--format", "json"});
  REQUIRE(config.status == 0);
  const auto imported = nlohmann::json::parse(config.out);
  CHECK(imported["model"]["source"] == "config_json");
  CHECK(imported["model"]["layers"] == doc["model"]["layers"]);
  CHECK(imported["recommendations"][0]["gpu"]["id"] == doc["recommendations"][0]["gpu"]["id"]);
  const Result moe = run({"--params", "47B", "--active-params", "13B", "--task", "inference", "--format", "json"});
  REQUIRE(moe.status == 0);
  CHECK(nlohmann::json::parse(moe.out)["model"]["active_params"] == 13e9);
  const Result list = run({"models"});
  CHECK(list.status == 0);
  CHECK_THAT(list.out, Catch::Contains("deepseek-v3") && Catch::Contains("MLA") && Catch::Contains("qwen3-235b-a22b"));
  CHECK(nlohmann::json::parse(run({"models", "--format", "json"}).out)["models"].size() >= 14);
}

TEST_CASE("inference reports throughput, latency and capacity, FP8 only on FP8 cards", "[cli][inference]") {
  const Result r = run({"--model", "llama-3.1-70b", "--task", "inference", "--precision", "fp8", "--context", "8192",
                        "--concurrency", "16", "--format", "json"});
  REQUIRE(r.status == 0);
  const auto doc = nlohmann::json::parse(r.out);
  const auto& inference = doc["recommendations"][0]["inference"];
  for (const char* key : {"tokens_per_s", "max_tokens_per_s", "ttft_ms", "tpot_ms"}) {
    CAPTURE(key);
    CHECK(inference[key]["low"] <= inference[key]["typical"]);
    CHECK(inference[key]["typical"] <= inference[key]["high"]);
  }
  CHECK(inference["max_concurrency"] >= 16);
  bool a100_rejected_for_fp8 = false;
  for (const auto& rejected : doc["rejected"]) {
    if (rejected["gpu"]["id"] == "a100-80gb-sxm4") {
      a100_rejected_for_fp8 = rejected["reasons"][0]["message"].get<std::string>().find("FP8") != std::string::npos;
    }
  }
  CHECK(a100_rejected_for_fp8);
}

TEST_CASE("training reports layout, time ranges, rent and buy costs", "[cli][training]") {
  const Result r = run({"--model", "qwen2.5-72b", "--task", "pretrain", "--tokens", "1T", "--deadline", "30d", "--mode",
                        "buy", "--gpu", "h100-sxm5", "--format", "json"});
  REQUIRE(r.status == 0);
  const auto doc = nlohmann::json::parse(r.out);
  const auto& best = doc["recommendations"][0];
  CHECK(best["training"]["wall_hours"]["typical"].get<double>() <= 30 * 24);
  CHECK(best["layout"]["tensor_parallel"].get<int>() * best["layout"]["pipeline_parallel"].get<int>() *
            best["layout"]["data_parallel"].get<int>() ==
        best["count"].get<int>());
  CHECK(best["cost_usd"]["purchase"]["typical"].get<double>() > 0);
  CHECK(best["cost_usd"]["buy"]["typical"].get<double>() > 0);
  CHECK(best["cost_usd"]["rent"]["typical"].get<double>() > 0);
  CHECK(doc["request"]["mode"] == "buy");
  const Result priced =
      run({"--params", "7B", "--task", "lora", "--gpu", "h100-sxm5", "--price", "h100-sxm5=1.00", "--format", "json"});
  const auto cost = nlohmann::json::parse(priced.out)["recommendations"][0]["cost_usd"];
  CHECK(cost["price_basis"] == "--price");
  CHECK(cost["rent_per_gpu_hour"]["typical"] == 1.0);
}

TEST_CASE("a deadline that cannot be met is a reason, not an error", "[cli][training]") {
  const Result r =
      run({"--params", "405B", "--task", "pretrain", "--deadline", "1h", "--max-gpus", "512", "--gpu", "h100-sxm5"});
  CHECK(r.status == 1);
  CHECK_THAT(r.out, Catch::Contains("cannot finish within 1.0 h"));
}

TEST_CASE("a rule added with --rules says its piece on the plans it matches but never moves the Best", "[cli][rules]") {
  const Result plain = run({"--params", "70B", "--task", "qlora", "--budget", "low", "--format", "json"});
  const Result house = run({"--params", "70B", "--task", "qlora", "--budget", "low", "--rules",
                            data + "/rules_prefer_l40s.yaml", "--format", "json"});
  REQUIRE(plain.status == 0);
  REQUIRE(house.status == 0);
  const auto before = nlohmann::json::parse(plain.out);
  const auto after = nlohmann::json::parse(house.out);
  CHECK(before["recommendations"][0]["gpu"]["id"] == after["recommendations"][0]["gpu"]["id"]);
  bool fired = false;
  for (const auto& rec : after["recommendations"]) {
    for (const auto& rule : rec["rules"]) {
      fired = fired || (rec["gpu"]["id"] == "l40s" && rule["id"] == "client-has-l40s" && rule["fired"] == true);
    }
  }
  CHECK(fired);
  // To prefer the client's cards, choose them.
  const Result chosen = run({"--params", "70B", "--task", "qlora", "--gpu", "l40s", "--format", "json"});
  CHECK(nlohmann::json::parse(chosen.out)["recommendations"][0]["gpu"]["id"] == "l40s");
}

TEST_CASE("a rule file with typos fails with every located error", "[cli][rules]") {
  const std::string file = data + "/rules_typo.yaml";
  const Result r = run({"--params", "70B", "--task", "lora", "--rules", file});
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::Contains(file + ":6:19: rules[0].when.all[0].field: unknown field 'archtecture'; did you "
                                           "mean 'architecture'?"));
  CHECK_THAT(r.err,
             Catch::Contains("'pretrian' is not a value of task") && Catch::Contains("did you mean 'pretrain'?"));
  CHECK_THAT(r.err, Catch::Contains("unknown placeholder '{feild}'; did you mean '{field}'?") ||
                        Catch::Contains("unknown placeholder '{feild}'"));
  const Result validate = run({"rules", "validate", file});
  CHECK(validate.status == 2);
  CHECK(run({"rules", "validate", data + "/rules_prefer_l40s.yaml"}).status == 0);
  const Result list = run({"rules", "list"});
  CHECK(list.status == 0);
  CHECK_THAT(list.out, Catch::Contains("cn-buy-export-controlled"));
}

TEST_CASE("buying in China rejects what cannot be bought in China, with dates", "[cli][rules]") {
  const Result r = run({"--params", "70B", "--task", "inference", "--region", "cn", "--mode", "buy"});
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("A800 80GB SXM: cannot be newly bought in China: banned (since 2023-10-17"));
  // The 2026-01-15 rule's case-by-case cards, with no licensed shipment, and the discontinued H20.
  CHECK_THAT(r.out, Catch::Contains("Instinct MI325X 256GB: cannot be bought new in China today"));
  CHECK_THAT(r.out, Catch::Contains("H20 96GB: no longer sold new in China (discontinued, since 2025-08)"));
  // Renting in China never lists a card with no legal stock there.
  const Result rent = run({"--params", "70B", "--task", "inference", "--region", "cn", "--format", "json"});
  REQUIRE(rent.status == 0);
  const auto doc = nlohmann::json::parse(rent.out);
  for (const auto& rec : doc["recommendations"]) {
    CAPTURE(rec["gpu"]["id"]);
    CHECK(rec["gpu"]["id"] != "b200");
    CHECK(rec["gpu"]["id"] != "h100-sxm5");
    CHECK(rec["cost"]["currency"] == "cny");
  }
  const Result bad = run({"--params", "70B", "--task", "inference", "--region", "china"});
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, Catch::Contains("--region: 'china' is not valid; expected global or cn"));
}

TEST_CASE("a budget amount caps the plan and --explain=all shows every rule", "[cli][rules]") {
  const Result capped = run({"--params", "7B", "--task", "inference", "--budget", "$600", "--format", "json"});
  REQUIRE(capped.status == 0);
  const auto doc = nlohmann::json::parse(capped.out);
  CHECK(doc["request"]["budget_usd"] == 600.0);
  for (const auto& rec : doc["recommendations"]) {
    CHECK(rec["cost_usd"]["rent"]["typical"].get<double>() * 730 <= 600.0);
  }
  const Result explained =
      run({"--params", "7B", "--task", "inference", "--budget", "low", "--explain=all", "--top", "2"});
  CHECK(explained.status == 0);
  CHECK_THAT(explained.out, Catch::Contains("Rule evaluation") && Catch::Contains("fired") &&
                                Catch::Contains("cn-buy-export-controlled"));
  // Bare --explain: the rules that fired, not the ones that did not.
  const Result fired = run({"--params", "7B", "--task", "inference", "--budget", "low", "--explain", "--top", "2"});
  CHECK_THAT(fired.out, Catch::Contains("fired small-model-serving") && !Catch::Contains("cn-buy-export-controlled"));
  const Result json = run({"--params", "7B", "--task", "inference", "--explain", "--format", "json", "--top", "1"});
  const auto evaluated = nlohmann::json::parse(json.out)["recommendations"][0]["rules"];
  CHECK(evaluated.size() >= 15);  // every rule, fired or not
  CHECK(evaluated[0].contains("fired"));
}

namespace {
std::vector<std::string> split(const std::string& text, const std::string& separator) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const auto at = text.find(separator, start);
    out.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) {
      return out;
    }
    start = at + separator.size();
  }
}

std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(' ');
  const auto last = s.find_last_not_of(' ');
  return first == std::string::npos ? std::string() : s.substr(first, last - first + 1);
}

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}
}  // namespace

TEST_CASE("every case of the bad-input corpus exits 2 with a clear message and no output", "[cli][errors][corpus]") {
  std::ifstream in(data + "/bad_inputs/cases.txt");
  REQUIRE(in);
  std::string line;
  int cases = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') {
      continue;
    }
    const auto fields = split(line, "|");
    REQUIRE(fields.size() == 3);
    const std::string name = trimmed(fields[0]);
    const auto keywords = split(trimmed(fields[1]), ";;");
    const auto out_file = scratch() / ("corpus-" + name + ".out");
    std::filesystem::remove(out_file);
    std::vector<std::string> args;
    for (const auto& word : split(trimmed(fields[2]), " ")) {
      if (!word.empty()) {
        // {sp}: a space; {empty}: an empty argument; {xff}: the byte 0xFF (not UTF-8).
        std::string arg = replaced(replaced(replaced(word, "{data}", data), "{out}", out_file.string()), "{sp}", " ");
        // {csi}: U+009B, the C1 control that starts a terminal escape sequence.
        arg = replaced(replaced(replaced(arg, "{empty}", ""), "{xff}", "\xff"), "{csi}", "\xc2\x9b");
        args.push_back(arg);
      }
    }
    if (std::find(args.begin(), args.end(), "--output") == args.end()) {
      args.insert(args.end(), {"--output", out_file.string()});
    }
    CAPTURE(name, args);
    const Result r = run(args);
    ++cases;
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    CHECK_FALSE(std::filesystem::exists(out_file));
    CHECK_THAT(r.err, Catch::StartsWith("gpu-advise: error: "));
    CHECK(harness::printable_text(r.err));  // valid UTF-8, no raw control characters
    for (const auto& keyword : keywords) {
      CHECK_THAT(r.err, Catch::Contains(trimmed(keyword)));
    }
    for (const char* crash :
         {"terminate called", "Aborted", "Segmentation", "AddressSanitizer", "runtime error:", "what():"}) {
      CHECK(r.err.find(crash) == std::string::npos);
    }
  }
  CHECK(cases >= 130);
}

TEST_CASE("a data file over the size limit is refused", "[cli][errors]") {
  const auto big = scratch() / "big.yaml";
  {
    std::ofstream out(big);
    out << "schema_version: 1\ngpus: []\n# " << std::string(std::size_t{17} * 1024 * 1024, 'x') << "\n";
  }
  const Result r = run({"--params", "70B", "--task", "lora", "--catalog", big.string()});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("over the limit") && Catch::Contains("16 MiB"));
  std::filesystem::remove(big);
}
