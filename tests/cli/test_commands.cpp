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
  // The 4090 does not fit: said in its cell, and why below the table, not hidden.
  CHECK_THAT(text.out, Catch::Contains("no (see below)") && Catch::Contains("with --count 16 it needs"));
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

namespace {

std::vector<nlohmann::json> json_lines(const std::string& text) {
  std::vector<nlohmann::json> lines;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);) {
    lines.push_back(nlohmann::json::parse(line));
  }
  return lines;
}

std::vector<std::string> text_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);) {
    lines.push_back(line);
  }
  return lines;
}

}  // namespace

TEST_CASE("batch: a repeated request is answered from the run's cache, byte for byte a fresh answer", "[cli][batch]") {
  const auto input = scratch() / "repeats.jsonl";
  const std::string lora = R"({"params": "70B", "task": "lora", "budget": "low"})";
  const std::string lora_reordered = R"({"budget":"low","task":"lora","params":"70B"})";
  const std::string serve = R"({"params": "8B", "task": "inference", "compact": true})";
  {
    std::ofstream out(input);
    out << lora << "\n" << serve << "\n" << lora_reordered << "\n" << serve << "\n" << lora << "\n";
  }
  const Result r = run({"batch", input.string()});
  REQUIRE(r.status == 0);
  const auto lines = text_lines(r.out);
  REQUIRE(lines.size() == 5);
  // Each answer as a batch of that one line writes it, with its own line number.
  auto alone = [](const std::string& request, int number) {
    const auto file = scratch() / "alone.jsonl";
    {
      std::ofstream out(file);
      out << request << "\n";
    }
    const Result one = run({"batch", file.string()});
    REQUIRE(one.status == 0);
    std::string expected = one.out.substr(0, one.out.size() - 1);  // without its newline
    const std::string first = "\"line\":1,";
    const auto at = expected.find(first);
    REQUIRE(at != std::string::npos);
    return expected.replace(at, first.size(), "\"line\":" + std::to_string(number) + ",");
  };
  CHECK(lines[0] == alone(lora, 1));
  CHECK(lines[1] == alone(serve, 2));
  CHECK(lines[2] == alone(lora, 3));
  CHECK(lines[3] == alone(serve, 4));
  CHECK(lines[4] == alone(lora, 5));
  // A request that differs in one field is not a repeat.
  const auto other = scratch() / "other.jsonl";
  {
    std::ofstream out(other);
    out << lora << "\n"
        << R"({"params": "70B", "task": "lora", "budget": "high"})"
        << "\n";
  }
  const auto two = json_lines(run({"batch", other.string()}).out);
  REQUIRE(two.size() == 2);
  CHECK(two[0]["request"]["budget"] == "low");
  CHECK(two[1]["request"]["budget"] == "high");
}

TEST_CASE("compact output: the top plan's figures are the full document's, with no sentences", "[cli][batch][json]") {
  for (const std::vector<std::string>& request :
       {std::vector<std::string>{"--params", "70B", "--task", "lora", "--budget", "low"},
        std::vector<std::string>{"--params", "8B", "--task", "inference"},
        std::vector<std::string>{"--params", "405B", "--task", "pretrain", "--budget", "high"},
        std::vector<std::string>{"--params", "1T", "--task", "full", "--max-gpus", "8"}}) {
    auto args = request;
    args.insert(args.end(), {"--format", "json"});
    const Result full_run = run(args);
    args.push_back("--compact");
    const Result compact_run = run(args);
    CAPTURE(args);
    REQUIRE(compact_run.status == full_run.status);
    const auto full = nlohmann::json::parse(full_run.out);
    const auto compact = nlohmann::json::parse(compact_run.out);
    CHECK(compact["compact"] == true);
    CHECK(compact["outcome"] == full["outcome"]);
    CHECK(compact["request"]["task"] == full["request"]["task"]);
    CHECK(compact["rejected"] == full["rejected"].size());
    CHECK(compact["ways_out"] == full["ways_out"].size());
    CHECK(compact["alternatives"] == full["recommendations"].size() + full["omitted"].get<std::size_t>() -
                                         (full["recommendations"].empty() ? 0 : 1));
    if (full["recommendations"].empty()) {
      CHECK(compact["top"].is_null());
      continue;
    }
    const auto& want = full["recommendations"][0];
    const auto& top = compact["top"];
    CHECK(top["gpu"] == want["gpu"]);
    CHECK(top["count"] == want["count"]);
    CHECK(top["nodes"] == want["nodes"]);
    CHECK(top["memory_per_gpu_gb"] == want["memory_gb"]["per_gpu"]);
    CHECK(top["cost"] == want["cost"]);
    CHECK(top["objective_usd"] == want["objective"]["usd"]);
    for (const auto& [key, value] : top["layout"].items()) {
      CHECK(value == want["layout"][key]);
    }
    if (want["training"].is_null()) {
      CHECK(top["training"].is_null());
      CHECK(top["inference"]["tokens_per_s"] == want["inference"]["tokens_per_s"]);
      CHECK(top["inference"]["tpot_ms"] == want["inference"]["tpot_ms"]);
    } else {
      CHECK(top["training"]["wall_hours"] == want["training"]["wall_hours"]);
      CHECK(top["training"]["mfu"] == want["training"]["mfu"]);
      CHECK(top["inference"].is_null());
    }
    CHECK(compact_run.out.size() * 20 < full_run.out.size());
  }
  const Result text = run({"--params", "70B", "--task", "lora", "--compact"});
  CHECK(text.status == 2);
  CHECK_THAT(text.err, Catch::Contains("--compact is a form of the JSON output"));
  const Result listing = run({"models", "--compact"});
  CHECK(listing.status == 2);
}

TEST_CASE("batch: answers reach a client that waits for each one before it writes the next", "[cli][batch]") {
  // Output goes out in blocks, but never held back while batch waits for input.
  const Result r = harness::shell(R"(
coproc ADVISE { "$GA" batch -; }
echo '{"params": "8B", "task": "inference", "compact": true}' >&"${ADVISE[1]}"
read -t 120 -r first <&"${ADVISE[0]}" || { echo "no first answer"; exit 1; }
echo '{"params": "13B", "task": "inference", "compact": true}' >&"${ADVISE[1]}"
read -t 120 -r second <&"${ADVISE[0]}" || { echo "no second answer"; exit 1; }
exec {ADVISE[1]}>&-
wait
printf '%s\n%s\n' "$first" "$second")");
  REQUIRE(r.status == 0);
  const auto lines = json_lines(r.out);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0]["line"] == 1);
  CHECK(lines[1]["line"] == 2);
  CHECK(lines[1]["request"]["params"] == 13e9);
}

TEST_CASE("batch: --compact on the command line applies to every line, and a config.json is read every time",
          "[cli][batch]") {
  const auto input = scratch() / "compact.jsonl";
  {
    std::ofstream out(input);
    out << R"({"params": "8B", "task": "inference"})"
        << "\n"
        << R"({"params": "8B", "task": "inference", "compact": false})"
        << "\n";
  }
  const auto lines = json_lines(run({"batch", "--compact", input.string()}).out);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0]["compact"] == true);
  CHECK(lines[1].contains("recommendations"));
  // The same line twice, the file changed in between: two different models.
  const auto config = scratch() / "config.json";
  std::filesystem::copy_file(GPU_ADVISE_TEST_DATA "/hf-configs/qwen2.5-7b.json", config,
                             std::filesystem::copy_options::overwrite_existing);
  const std::string line = R"({"model_config": ")" + config.string() + R"(", "task": "inference", "compact": true})";
  const Result r = harness::shell("coproc ADVISE { \"$GA\" batch -; }\necho '" + line +
                                  "' >&\"${ADVISE[1]}\"\nread -t 120 -r first <&\"${ADVISE[0]}\" || exit 1\ncp " +
                                  harness::quote(GPU_ADVISE_TEST_DATA "/hf-configs/llama-3.1-70b.json") + " " +
                                  harness::quote(config.string()) + "\necho '" + line +
                                  "' >&\"${ADVISE[1]}\"\nread -t 120 -r second <&\"${ADVISE[0]}\" || exit 1\n"
                                  "exec {ADVISE[1]}>&-\nwait\nprintf '%s\\n%s\\n' \"$first\" \"$second\"");
  REQUIRE(r.status == 0);
  const auto answers = json_lines(r.out);
  REQUIRE(answers.size() == 2);
  CHECK(answers[0]["request"]["params"].get<double>() < 10e9);
  CHECK(answers[1]["request"]["params"].get<double>() > 60e9);
}
