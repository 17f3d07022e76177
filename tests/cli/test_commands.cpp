// The other commands run as a user runs them: compare and batch.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness.hpp"

namespace {

using harness::Result;
using harness::run;
using harness::scratch;

}  // namespace

TEST_CASE("compare puts the chosen cards side by side in every format", "[cli][compare]") {
  const std::vector<std::string> args = {"compare", "a100-80gb-sxm4", "H100 SXM", "rtx-4090", "--params",
                                         "70B",     "--task",         "full",     "--count",  "16"};
  const Result text = run(args);
  CHECK(text.status == 0);
  const auto a100 = text.out.find("A100 80GB SXM4");
  const auto h100 = text.out.find("H100 SXM5 80GB");
  const auto rtx = text.out.find("GeForce RTX 4090 24GB");
  CHECK(a100 < h100);
  CHECK(h100 < rtx);
  CHECK_THAT(text.out, Catch::Contains("no: with --count 16"));  // the 4090 does not fit: said, not hidden
  std::vector<std::string> json_args = args;
  json_args.insert(json_args.end(), {"--format", "json"});
  const auto doc = nlohmann::json::parse(run(json_args).out);
  CHECK(doc["request"]["compare"] == nlohmann::json({"a100-80gb-sxm4", "h100-sxm5", "rtx-4090"}));
  CHECK(doc["recommendations"].size() + doc["rejected"].size() == 3);
  for (const char* format : {"markdown", "html"}) {
    std::vector<std::string> a = args;
    a.insert(a.end(), {"--format", format});
    const Result r = run(a);
    CAPTURE(format);
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("Side by side"));
  }
  const Result one = run({"compare", "a100-80gb-sxm4", "--params", "70B", "--task", "lora"});
  CHECK(one.status == 2);
  const Result same = run({"compare", "h100-sxm5", "NVIDIA H100 80GB HBM3", "--params", "70B", "--task", "lora"});
  CHECK(same.status == 2);
  CHECK_THAT(same.err, Catch::Contains("two or more different cards"));
  const Result gpu = run({"compare", "a40", "l40s", "--gpu", "h100-sxm5", "--params", "7B", "--task", "inference"});
  CHECK(gpu.status == 2);
}

TEST_CASE("batch answers each JSON line, reports bad lines and goes on", "[cli][batch]") {
  const auto input = scratch() / "batch.jsonl";
  {
    std::ofstream out(input);
    out << R"({"params": "70B", "task": "lora", "budget": "low", "top": 1})"
        << "\n"
        << R"({"params": 7000000000, "task": "inference", "gpu": ["l40s", "a40"]})"
        << "\n"
        << "not json\n"
        << R"({"params": "70B", "tsk": "lora"})"
        << "\n"
        << "\n"
        << R"({"params": "70B", "task": "full", "gpu": "rtx-4090", "count": 2})"
        << "\n"
        << R"({"model": "llama-3.1-8b", "task": "qlora", "lang": "zh", "top": 1})"
        << "\n";
  }
  const Result r = run({"batch", input.string()});
  CHECK(r.status == 2);  // some lines were invalid
  std::vector<nlohmann::json> lines;
  std::istringstream stream(r.out);
  for (std::string line; std::getline(stream, line);) {
    lines.push_back(nlohmann::json::parse(line));
  }
  REQUIRE(lines.size() == 6);  // the empty line is skipped
  CHECK(lines[0]["line"] == 1);
  CHECK(lines[0]["recommendations"].size() == 1);
  CHECK(lines[1]["request"]["gpus"].size() == 2);
  CHECK(lines[2]["line"] == 3);
  CHECK(lines[2]["status"] == 2);
  CHECK_THAT(lines[2]["error"].get<std::string>(), Catch::Contains("not valid JSON"));
  CHECK_THAT(lines[3]["error"].get<std::string>(), Catch::Contains("did you mean \"task\"?"));
  CHECK(lines[4]["line"] == 6);
  CHECK(lines[4]["outcome"] == "nothing_fits");
  CHECK(lines[5]["language"] == "zh");
  // From standard input, with only good lines: exit 1 when one has nothing fitting, else 0.
  const Result fine = run({"batch", "-"}, "");
  CHECK(fine.status == 0);
  CHECK(fine.out.empty());
}
