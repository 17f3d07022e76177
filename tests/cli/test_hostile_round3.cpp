// The third round of hostile input (issue 34), what the bad-input corpus
// cannot express: several outputs at once, signals during a write, price files
// at the size limit, spreadsheet formulas in CSV cells, and the user's
// defaults (config.yaml, GPU_ADVISE_*). Each test failed on the binary before
// the round (GPU_ADVISE_TEST_BIN runs them against another build).
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness.hpp"

namespace fs = std::filesystem;
using harness::folder;
using harness::no_leftovers;
using harness::quote;
using harness::Result;
using harness::run;
using harness::shell;
using harness::slurp;
using harness::spit;

namespace {

const std::string data = GPU_ADVISE_TEST_DATA;

// "$GA" and a small, fast request, then the rest.
std::string request(const std::string& rest) { return "\"$GA\" --params 7B --task lora --top 1 " + rest; }

// The catalog overlay of the HTML test with the card renamed.
std::string card_named(const std::string& name) {
  std::string text = slurp(data + "/overlay_html.yaml");
  const std::string line = "    name: \"<b>evil</b> & \\\"quoted\\\" 'card'\"";
  const auto at = text.find(line);
  REQUIRE(at != std::string::npos);
  return text.replace(at, line.size(), "    name: \"" + name + "\"");
}

}  // namespace

TEST_CASE("several outputs: a later target that fails leaves every earlier one as it was", "[cli][output]") {
  const fs::path dir = folder("all-or-nothing");
  spit(dir / "keep.csv", "old\n");
  fs::create_directory(dir / "a-folder");
  fs::create_symlink("loop", dir / "loop");  // points at itself
  for (const std::string later : {"no/such/dir/x.json", "a-folder", "loop", "''"}) {
    CAPTURE(later);
    const Result r = shell("cd " + quote(dir.string()) + " && " + request("-o keep.csv -o plan.md -o " + later));
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::StartsWith("gpu-advise: error: --output"));
    CHECK(slurp(dir / "keep.csv") == "old\n");
    CHECK_FALSE(fs::exists(dir / "plan.md"));
    CHECK(no_leftovers(dir));
  }
  // All good: every one written.
  const Result ok = shell("cd " + quote(dir.string()) + " && " + request("-o keep.csv -o plan.md -o plan.json"));
  CHECK(ok.status == 0);
  CHECK(slurp(dir / "keep.csv").rfind("status,rank,", 0) == 0);
  CHECK(nlohmann::json::parse(slurp(dir / "plan.json"))["schema_version"] == 5);
  CHECK(no_leftovers(dir));
}

TEST_CASE("several outputs: at most 64", "[cli][output]") {
  const fs::path dir = folder("many-outputs");
  std::string outputs;
  for (int i = 0; i < 65; ++i) {
    outputs += " -o " + std::to_string(i) + ".json";
  }
  const Result r = shell("cd " + quote(dir.string()) + " && " + request(outputs));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--output") && Catch::Contains("64"));
  CHECK(fs::is_empty(dir));
}

TEST_CASE("signals: a file-size limit is the documented error, and leaves no temporary", "[cli][output]") {
  const fs::path dir = folder("ulimit");
  // 1 KiB: less than any JSON report.
  const Result r = shell("cd " + quote(dir.string()) + " && ulimit -f 1 && " + request("--format json -o big.json"));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--output: cannot write 'big.json': File too large"));
  CHECK_FALSE(fs::exists(dir / "big.json"));
  CHECK(no_leftovers(dir));
}

TEST_CASE("signals: SIGTERM while an output waits removes every temporary and writes no file", "[cli][output]") {
  const fs::path dir = folder("sigterm");
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
  // Nobody reads the FIFO: the tool waits to open it with keep.json's
  // temporary made, until the signal comes.
  const Result r = shell("cd " + quote(dir.string()) + " && { " + request("-o keep.json -o fifo") +
                         " & pid=$!; for i in $(seq 50); do ls -a | grep -q '^.gpu-advise-' && break; sleep 0.1; "
                         "done; ls -a | grep -c '^.gpu-advise-'; kill -TERM $pid; wait $pid; echo status=$?; }");
  CHECK_THAT(r.out, Catch::StartsWith("1\n"));  // the temporary existed while it waited
  CHECK_THAT(r.out, Catch::Contains("status=143"));
  CHECK_FALSE(fs::exists(dir / "keep.json"));
  CHECK(no_leftovers(dir));
}

TEST_CASE("price files: distinct unknown names give one short warning with a count", "[cli][prices]") {
  const fs::path dir = folder("unknown-names") / "aws";
  fs::create_directories(dir);
  std::string text = "InstanceType,AcceleratorName,AcceleratorCount,Price\n";
  for (int i = 0; i < 5000; ++i) {
    text += "i" + std::to_string(i) + ",X" + std::to_string(i) + ",8,98\n";
  }
  text += "p5.48xlarge,H100,8,98.32\n";
  spit(dir / "vms.csv", text);
  const Result r = run({"--params", "7B", "--task", "lora", "--top", "1", "--price-file", (dir / "vms.csv").string()});
  CHECK(r.status == 0);
  CHECK(r.err.size() < 1000);
  CHECK_THAT(r.err, Catch::Contains("5000 rows for 5000 accelerator names") &&
                        Catch::Contains("and 4980 more names (4980 rows)"));
  const Result listed = run({"prices", (dir / "vms.csv").string(), "--format", "json"});
  REQUIRE(listed.status == 0);
  const auto file = nlohmann::json::parse(listed.out)["files"][0];
  CHECK(file["unknown"].size() == 20);
  CHECK(file.value("unknown_names", 0) == 5000);
  CHECK(file.value("unknown_rows", 0) == 5000);
}

TEST_CASE("CSV and TSV: a cell that starts a formula is written as text, numbers stay numbers", "[cli][csv]") {
  const fs::path dir = folder("formula");
  spit(dir / "cards.yaml", card_named("=HYPERLINK(\\\"http://x\\\",\\\"y\\\")"));
  spit(dir / "quotes.csv",
       "card,price_per_gpu_hour,currency,provider,region,date,kind\n"
       "h100-sxm5,2.10,usd,@SUM(1+1),-cmd,2026-11,on_demand\n");
  const Result list = run({"catalog", "list", "--catalog", (dir / "cards.yaml").string(), "--format", "csv"});
  REQUIRE(list.status == 0);
  CHECK_THAT(list.out, Catch::Contains(",\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\","));
  CHECK(list.out.find(",=HYPERLINK") == std::string::npos);
  const Result tsv = run({"--params", "7B", "--task", "lora", "--gpu", "h100-sxm5", "--price-file",
                          (dir / "quotes.csv").string(), "--format", "tsv"});
  REQUIRE(tsv.status == 0);
  CHECK_THAT(tsv.out, Catch::Contains("\t'@SUM(1+1)\t'-cmd\t"));
  CHECK(tsv.out.find("\t@SUM") == std::string::npos);
  CHECK(tsv.out.find("\t'-0") == std::string::npos);  // no number was touched
  CHECK(tsv.out.find("\t'1") == std::string::npos);
}

TEST_CASE("config: a second document is refused, like a catalog's", "[cli][config]") {
  const fs::path dir = folder("config-documents");
  spit(dir / "config.yaml", "lang: zh\n---\nnot_a_key: [1, 2]\n");
  const Result r =
      run({"--params", "7B", "--task", "lora"}, "GPU_ADVISE_CONFIG=" + quote((dir / "config.yaml").string()));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("config.yaml:2:1: a second YAML document starts here ('---')"));
}

TEST_CASE("config: the default path and GPU_ADVISE_CONFIG are treated alike", "[cli][config]") {
  const fs::path home = folder("config-default");
  fs::create_directories(home / "gpu-advise");
  fs::create_symlink("config.yaml", home / "gpu-advise" / "config.yaml");  // a loop
  const std::string env = "-u GPU_ADVISE_CONFIG XDG_CONFIG_HOME=" + quote(home.string());
  const Result loop = run({"--params", "7B", "--task", "lora"}, env);
  CHECK(loop.status == 2);
  CHECK_THAT(loop.err, Catch::Contains("gpu-advise/config.yaml"));
  const Result named = run({"--params", "7B", "--task", "lora"},
                           "GPU_ADVISE_CONFIG=" + quote((home / "gpu-advise" / "config.yaml").string()));
  CHECK(named.status == 2);
  // Nothing there at all: no config, no error.
  fs::remove(home / "gpu-advise" / "config.yaml");
  CHECK(run({"--params", "7B", "--task", "lora", "--top", "1"}, env).status == 0);
}

TEST_CASE(
    "config: a file that reports size 0 is read to its end and words in any case are taken as the flags take them",
    "[cli][config]") {
  // A pipe reports size 0 (so do /proc files): its defaults must apply.
  const Result piped =
      shell("GPU_ADVISE_CONFIG=<(printf 'currency: CNY\\nregion: Global\\n') " + request("--format json"));
  REQUIRE(piped.status == 0);
  const auto json = nlohmann::json::parse(piped.out);
  CHECK(json["request"]["currency"] == "cny");
  const Result colonless = shell("GPU_ADVISE_CONFIG=<(printf 'region cn\\n') " + request(""));
  CHECK(colonless.status == 2);
  CHECK_THAT(colonless.err, Catch::Contains("'region cn' is not a default: write each as key: value"));
}
