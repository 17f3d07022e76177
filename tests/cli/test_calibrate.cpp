// Calibrating on one's own measurements as a user does it (docs/calibration.md):
// calibrate prints each measurement before, after and left out, writes the
// calibration file and checks it; --calibration (or its default) changes the
// plans of the card and stack measured and says so, in every format.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness.hpp"

namespace {

using harness::Result;
using harness::run;

std::string data(const std::string& name) { return std::string(GPU_ADVISE_TEST_DATA) + "/" + name; }

const std::string torchtitan = data("calibration/torchtitan-h100.jsonl");
const std::string litgpt = data("calibration/litgpt-a10g.jsonl");

// A calibration file made from the torchtitan records, once per test process.
std::string torchtitan_calibration() {
  static const std::string path = [] {
    std::string file = (harness::scratch() / "torchtitan-h100.yaml").string();
    const Result r = run({"calibrate", torchtitan, "-o", file});
    REQUIRE(r.status == 0);
    return file;
  }();
  return path;
}

const std::vector<std::string> pretrain = {"--model",    "llama-3.1-70b", "--task",   "pretrain", "--stack",
                                           "torchtitan", "--tokens",      "100B",     "--gpu",    "h100-sxm5",
                                           "--gpu",      "h200-sxm",      "--format", "json"};

nlohmann::json plan(const nlohmann::json& report, const std::string& id) {
  for (const auto& r : report["recommendations"]) {
    if (r["gpu"]["id"] == id) {
      return r;
    }
  }
  FAIL("no plan of " << id);
  return {};
}

}  // namespace

TEST_CASE("calibrate shows each measurement before, after and left out, and the fit's errors", "[cli][calibrate]") {
  const Result r = run({"calibrate", torchtitan}, "COLUMNS=400");
  REQUIRE(r.status == 0);
  CHECK(r.err.empty());
  CHECK_THAT(r.out, Catch::Contains("Training on h100-sxm5 with torchtitan: fitted on 15 measurements, the newest "
                                    "dated 2024-12-26"));
  // The layout of the table; the figures themselves are docs/validation.md's, held to their targets there.
  CHECK_THAT(r.out,
             Catch::Matches("[\\s\\S]*\n  speed: x0\\.[0-9]{3} the modelled kernel efficiency\n    left-out error: "
                            "median [0-9]+%, largest [0-9]+%\n    the model's own median error on these "
                            "measurements: [0-9]+%\n[\\s\\S]*"));
  // Each measurement: its id, the figure, as measured (the record's 46,096), and the three predictions with their
  // errors.
  CHECK_THAT(r.out, Catch::Matches("[\\s\\S]*\n  tt-h100-8b-fsdp8 +tokens/s +46096 +[0-9]+ \\([-+][0-9]+%\\) +[0-9]+ "
                                   "\\([-+][0-9]+%\\) +[0-9]+ \\([-+][0-9]+%\\)\n[\\s\\S]*"));

  const Result zh = run({"calibrate", litgpt, "--lang", "zh"}, "COLUMNS=400");
  REQUIRE(zh.status == 0);
  CHECK_THAT(zh.out, Catch::Contains("训练 a10g（litgpt）：基于 11 次测量拟合"));
  CHECK_THAT(zh.out, Catch::Contains("速度：无实测，按模型估算"));

  const Result json = run({"calibrate", torchtitan, litgpt, "--format", "json"});
  REQUIRE(json.status == 0);
  const auto doc = nlohmann::json::parse(json.out);
  CHECK(doc["kind"] == "calibration");
  REQUIRE(doc["calibrations"].size() == 2);
  const auto& first = doc["calibrations"][0];
  CHECK(first["stack"] == "torchtitan");
  CHECK(first["speed"]["applied"] == true);
  CHECK(first["measured"].size() == 15);
  CHECK(first["measured"][0]["figures"][0]["metric"] == "tokens_per_s");
  CHECK(first["measured"][0]["flags"].get<std::string>().rfind("--model llama-3.1-8b --gpu h100-sxm5 --count 8", 0) ==
        0);
  CHECK(doc["calibrations"][1]["memory"]["fitted_on"] == 11);
}

TEST_CASE("calibrate -o writes the calibration file, shows the table, and --check reads it back", "[cli][calibrate]") {
  const auto dir = harness::folder("calibrate-output");
  const std::string file = (dir / "h100.yaml").string();
  const Result r = run({"calibrate", torchtitan, "-o", file});
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("fitted on 15 measurements"));
  const std::string yaml = harness::slurp(file);
  CHECK_THAT(yaml, Catch::StartsWith("# gpu-advise calibration"));
  CHECK_THAT(yaml, Catch::Contains("    stack: torchtitan\n"));
  CHECK_THAT(yaml, Catch::Contains("origin: \"" + torchtitan + ":1\""));

  const Result check = run({"calibrate", "--check", file});
  REQUIRE(check.status == 0);
  CHECK_THAT(check.out, Catch::Contains("calibration " + file + ", made "));

  // An edit that breaks it is a located error.
  std::string edited = yaml;
  edited.replace(edited.find("      factor: "), 14, "      factor: -");
  harness::spit(dir / "edited.yaml", edited);
  const Result bad = run({"calibrate", "--check", (dir / "edited.yaml").string()});
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, Catch::Contains("edited.yaml:14:15:"));
  CHECK_THAT(bad.err, Catch::Contains("calibrations[0].speed.factor"));
}

TEST_CASE("a calibration file changes the plans of the card and stack measured, and says so", "[cli][calibrate]") {
  std::vector<std::string> args = pretrain;
  const Result plain = run(args);
  args.insert(args.end(), {"--calibration", torchtitan_calibration()});
  const Result calibrated = run(args);
  REQUIRE(plain.status == 0);
  REQUIRE(calibrated.status == 0);
  const auto before = nlohmann::json::parse(plain.out);
  const auto after = nlohmann::json::parse(calibrated.out);
  REQUIRE(after["request"]["calibrations"].size() == 1);
  CHECK(after["request"]["calibrations"][0]["gpu"] == "h100-sxm5");
  CHECK(after["request"]["calibrations"][0]["file"] == torchtitan_calibration());
  CHECK(plan(after, "h100-sxm5")["calibration"] == 0);
  // torchtitan's records measure speed only: memory as modelled.
  CHECK(plan(after, "h100-sxm5")["memory_gb"] == plan(before, "h100-sxm5")["memory_gb"]);
  CHECK(plan(after, "h100-sxm5")["training"]["tokens_per_s_per_gpu"]["typical"] !=
        plan(before, "h100-sxm5")["training"]["tokens_per_s_per_gpu"]["typical"]);
  // The H200 was not measured: as modelled.
  CHECK(plan(after, "h200-sxm")["calibration"].is_null());
  CHECK(plan(after, "h200-sxm")["training"] == plan(before, "h200-sxm")["training"]);
  CHECK(plan(after, "h200-sxm")["memory_gb"] == plan(before, "h200-sxm")["memory_gb"]);
  bool said = false;
  for (const auto& line : after["assumptions"]) {
    said = said || line.get<std::string>().rfind("calibrated: h100-sxm5 with torchtitan (15 measurements", 0) == 0;
  }
  CHECK(said);

  // Another stack: the calibration is loaded, not used, and the output says why.
  const Result hf = run(
      {"--model", "llama-3.1-8b", "--task", "lora", "--gpu", "h100-sxm5", "--calibration", torchtitan_calibration()},
      "COLUMNS=400");
  REQUIRE(hf.status == 0);
  CHECK_THAT(hf.out, Catch::Contains("not used: the calibration of h100-sxm5 with torchtitan (training) does not "
                                     "match this request's training hf"));

  // Memory: LitGPT's peaks on an A10G, in the report's memory table and its sentences.
  const std::string litgpt_file = (harness::folder("calibration-litgpt") / "a10g.yaml").string();
  REQUIRE(run({"calibrate", litgpt, "-o", litgpt_file}).status == 0);
  const std::vector<std::string> lora = {"--model", "llama-3.1-8b", "--task",         "lora", "--gpu",     "a10g",
                                         "--stack", "litgpt",       "--lora-targets", "q,v",  "--seq-len", "512"};
  std::vector<std::string> with = lora;
  with.insert(with.end(), {"--calibration", litgpt_file, "--format", "markdown"});
  const Result report = run(with);
  REQUIRE(report.status == 0);
  CHECK_THAT(report.out, Catch::Contains("| Calibration |"));
  CHECK_THAT(report.out, Catch::Contains("calibrated: a10g with litgpt (11 measurements"));
  with.back() = "text";
  CHECK_THAT(run(with, "COLUMNS=400").out, Catch::Contains("from the calibration on measured peaks"));
}

TEST_CASE("the calibration's default comes from GPU_ADVISE_CALIBRATION or the config file", "[cli][calibrate]") {
  const std::string file = torchtitan_calibration();
  std::vector<std::string> args = pretrain;
  const Result env = run(args, "GPU_ADVISE_CALIBRATION=" + harness::quote(file));
  REQUIRE(env.status == 0);
  const auto doc = nlohmann::json::parse(env.out);
  CHECK(doc["request"]["calibrations"].size() == 1);
  CHECK(doc["request"]["configured"][0]["key"] == "calibration");
  CHECK(doc["request"]["configured"][0]["origin"] == "GPU_ADVISE_CALIBRATION");

  // The config file's path is relative to the config file.
  const auto dir = harness::folder("calibration-config");
  std::filesystem::copy_file(file, dir / "mine.yaml");
  harness::spit(dir / "config.yaml", "calibration: mine.yaml\n");
  const Result config = run(args, "GPU_ADVISE_CONFIG=" + harness::quote((dir / "config.yaml").string()));
  REQUIRE(config.status == 0);
  CHECK(nlohmann::json::parse(config.out)["request"]["calibrations"][0]["file"] == (dir / "mine.yaml").string());

  // A flag wins: none of the default's calibrations.
  args.insert(args.end(), {"--calibration", data("bad_inputs/no-such.yaml")});
  const Result flag = run(args, "GPU_ADVISE_CALIBRATION=" + harness::quote(file));
  CHECK(flag.status == 2);
  CHECK_THAT(flag.err, Catch::Contains("no-such.yaml"));

  // Batch lines take the run's calibration.
  const Result batch = harness::shell(
      "echo '{\"model\": \"llama-3.1-70b\", \"task\": \"pretrain\", \"stack\": \"torchtitan\", "
      "\"tokens\": \"100B\", \"gpu\": \"h100-sxm5\"}' | \"$GA\" batch --calibration " +
      harness::quote(file));
  REQUIRE(batch.status == 0);
  CHECK(nlohmann::json::parse(batch.out)["recommendations"][0]["calibration"] == 0);
}
