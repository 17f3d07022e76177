// The binary, run as a user runs it: exit statuses, help, errors, formats.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace {

struct Result {
  int status = -1;
  std::string out;
  std::string err;
};

std::string quote(const std::string& arg) {
  std::string quoted = "'";
  for (const char c : arg) {
    quoted += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  }
  return quoted + "'";
}

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::filesystem::path scratch() {
  static const auto dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("gpu-advise-cli-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

Result run(const std::vector<std::string>& args, const std::string& env = "") {
  const auto out_file = scratch() / "stdout";
  const auto err_file = scratch() / "stderr";
  std::string command = env + " " + quote(GPU_ADVISE_BIN);
  for (const auto& arg : args) {
    command += " " + quote(arg);
  }
  command += " >" + quote(out_file.string()) + " 2>" + quote(err_file.string()) + " </dev/null";
  const int raw = std::system(command.c_str());
  Result r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  r.out = slurp(out_file);
  r.err = slurp(err_file);
  return r;
}

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
  CHECK(doc["schema_version"] == 1);
  CHECK(doc["request"]["params_text"] == "70B");
  CHECK(catalog["gpus"].size() >= 22);
}

TEST_CASE("help has worked examples and the exit-status table; --version prints the version", "[cli]") {
  const Result help = run({"--help"});
  CHECK(help.status == 0);
  CHECK_THAT(help.out, Catch::Contains("Examples:") && Catch::Contains("Exit status:") &&
                           Catch::Contains("--params") && Catch::Contains("sft"));
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
      {{"--params", "70B", "--task", "lora", "--budget", "cheap"}, "--budget: 'cheap' is not a budget tier"},
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
  const Result json = run({"--params", "70B", "--task", "full", "--gpu", "rtx-4090", "--count", "2", "--format", "json"});
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
  CHECK_THAT(r.err, Catch::Contains("gpus[0].memory.bandwith_gb_per_s: unknown key; did you mean 'bandwidth_gb_per_s'?"));
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
