// The habits of tools people like (issue 17): short help, did-you-mean for
// commands, flags a command would ignore, short flags, several outputs,
// CSV and TSV, defaults from the environment and a config file, tables that
// fit the terminal, and the fit command.
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

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
  }
  return lines;
}

// Display width: code points, East Asian wide ones (U+1100 and up, roughly) as 2.
std::size_t width(const std::string& line) {
  std::size_t w = 0;
  for (std::size_t i = 0; i < line.size();) {
    const auto c = static_cast<unsigned char>(line[i]);
    const std::size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    w += n == 3 || n == 4 ? 2 : 1;
    i += n;
  }
  return w;
}

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A CSV record's fields (no quoted line breaks in these tests).
std::vector<std::string> csv_fields(const std::string& record) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < record.size(); ++i) {
    const char c = record[i];
    if (quoted) {
      if (c == '"' && i + 1 < record.size() && record[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else if (c != '\r') {
      fields.back() += c;
    }
  }
  return fields;
}

}  // namespace

TEST_CASE("run with nothing, gpu-advise prints a short usage and exits 2", "[cli][habits]") {
  const Result r = run({});
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::Contains("usage: gpu-advise"));
  CHECK_THAT(r.err, Catch::Contains("gpu-advise help"));
  CHECK(lines_of(r.err).size() < 12);
}

TEST_CASE("a misspelt command or subcommand gets a did-you-mean", "[cli][habits]") {
  const Result compair = run({"compair", "a100", "h100"});
  CHECK(compair.status == 2);
  CHECK_THAT(compair.err, Catch::Contains("'compair' is not a command"));
  CHECK_THAT(compair.err, Catch::Contains("did you mean 'compare'?"));
  const Result shwo = run({"catalog", "shwo"});
  CHECK(shwo.status == 2);
  CHECK_THAT(shwo.err, Catch::Contains("did you mean 'show'?"));
  const Result bare = run({"catalog"});
  CHECK(bare.status == 2);
  CHECK_THAT(bare.err, Catch::Contains("needs a subcommand: list, show or validate"));
  // A flag's value is not taken for a command.
  CHECK(run({"--task", "lora", "--params", "7B", "--top", "1"}).status == 0);
}

TEST_CASE("help shows each command's own options and examples", "[cli][habits]") {
  const Result top = run({"help"});
  CHECK(top.status == 0);
  CHECK_THAT(top.out, Catch::Contains("--params"));
  const Result compare = run({"help", "compare"});
  CHECK(compare.status == 0);
  CHECK_THAT(compare.out, Catch::Contains("gpu-advise compare a100-80gb-sxm4 h100-sxm5"));
  CHECK_THAT(compare.out, Catch::Contains("--seq-len"));  // the workload options are compare's too
  CHECK_THAT(compare.out, !Catch::Contains("x 2"));
  CHECK_THAT(compare.out, !Catch::Contains("gpu-advise models\n"));  // not the recommend examples
  CHECK_THAT(compare.out, !Catch::Contains("--top"));
  CHECK(run({"compare", "--help"}).out == compare.out);
  const Result models = run({"help", "models"});
  CHECK_THAT(models.out, !Catch::Contains("--params"));
  CHECK_THAT(run({"help", "fit"}).out, Catch::Contains("fit --gpu ascend-910b2 --count 8"));
  CHECK_THAT(run({"help", "catalog", "show"}).out, Catch::Contains("Card id or alias"));
  const Result typo = run({"help", "compair"});
  CHECK(typo.status == 2);
  CHECK_THAT(typo.err, Catch::Contains("did you mean 'compare'?"));
}

TEST_CASE("a flag the command would ignore is an error that names the command", "[cli][habits]") {
  const Result models = run({"models", "--params", "70B"});
  CHECK(models.status == 2);
  CHECK_THAT(models.err, Catch::Contains("--params does not apply to 'models'"));
  const Result before = run({"--params", "70B", "catalog", "list"});
  CHECK(before.status == 2);
  CHECK_THAT(before.err, Catch::Contains("does not apply to 'catalog list'"));
  const Result batch = run({"batch", "--format", "text"});
  CHECK(batch.status == 2);
  CHECK_THAT(batch.err, Catch::Contains("batch writes JSON Lines"));
  const Result batch_task = run({"batch", "--task", "lora"});
  CHECK(batch_task.status == 2);
  CHECK_THAT(batch_task.err, Catch::Contains("each line sets it, as \"task\""));
  CHECK(run({"compare", "a40", "l40s", "--gpu", "h100-sxm5", "--params", "7B", "--task", "inference"}).status == 2);
  CHECK(run({"catalog", "list", "--format", "markdown"}).status == 2);
  CHECK(run({"models", "--format", "csv"}).status == 2);
}

TEST_CASE("short flags are the long ones", "[cli][habits]") {
  const Result shorts = run({"-p", "70B", "-t", "lora", "-b", "low", "-g", "h100-sxm5", "-n", "8", "-f", "json"});
  const Result longs = run({"--params", "70B", "--task", "lora", "--budget", "low", "--gpu", "h100-sxm5", "--count",
                            "8", "--format", "json"});
  CHECK(shorts.status == 0);
  CHECK(shorts.out == longs.out);
}

TEST_CASE("output is repeatable, each file in its extension's format, - is stdout", "[cli][habits][output]") {
  const auto dir = scratch() / "outputs";
  std::filesystem::create_directories(dir);
  const Result r = run({"-p", "8B", "-t", "qlora", "--top", "3", "-o", (dir / "plan.json").string(), "-o",
                        (dir / "plan.md").string(), "-o", (dir / "plan.csv").string(), "-o", "-"});
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("Best:"));  // "-": the text, on stdout
  CHECK(nlohmann::json::parse(read(dir / "plan.json"))["schema_version"] == 5);
  CHECK_THAT(read(dir / "plan.md"), Catch::StartsWith("# "));
  CHECK_THAT(read(dir / "plan.csv"), Catch::StartsWith("status,rank,gpu_id,"));
  const Result forced = run({"-p", "8B", "-t", "qlora", "-f", "json", "-o", (dir / "other.md").string()});
  CHECK(forced.status == 0);
  CHECK_NOTHROW(nlohmann::json::parse(read(dir / "other.md")));  // --format says otherwise
  const Result twice = run({"-p", "8B", "-t", "qlora", "-o", "-", "-o", "-"});
  CHECK(twice.status == 2);
  CHECK_THAT(twice.err, Catch::Contains("named twice"));
  CHECK(!std::filesystem::exists("-"));
}

TEST_CASE("CSV and TSV have one row per card and stable columns", "[cli][habits][csv]") {
  const Result csv = run({"--params", "70B", "--task", "lora", "--format", "csv"});
  CHECK(csv.status == 0);
  const auto rows = lines_of(csv.out);
  REQUIRE(rows.size() > 10);
  CHECK(rows.front().back() == '\r');  // RFC 4180 records end in CRLF
  const auto header = csv_fields(rows.front());
  CHECK(header == std::vector<std::string>{"status",
                                           "rank",
                                           "gpu_id",
                                           "gpu_name",
                                           "task",
                                           "mode",
                                           "region",
                                           "count",
                                           "nodes",
                                           "layout",
                                           "memory_gib_per_gpu",
                                           "capacity_gib",
                                           "headroom",
                                           "wall_hours_low",
                                           "wall_hours",
                                           "wall_hours_high",
                                           "tokens_per_s_low",
                                           "tokens_per_s",
                                           "tokens_per_s_high",
                                           "user_tokens_per_s",
                                           "tpot_ms",
                                           "ttft_ms",
                                           "concurrency",
                                           "replicas",
                                           "currency",
                                           "rent_per_gpu_hour",
                                           "run_cost",
                                           "cost_per_million_tokens",
                                           "purchase_cost",
                                           "vs_best",
                                           "reasons",
                                           "price_basis",
                                           "rent_provider",
                                           "rent_location",
                                           "rent_instance_type",
                                           "rent_instances",
                                           "rent_per_hour"});
  const auto reasons_at = static_cast<std::size_t>(std::find(header.begin(), header.end(), "reasons") - header.begin());
  const auto json = nlohmann::json::parse(run({"--params", "70B", "--task", "lora", "--format", "json"}).out);
  CHECK(rows.size() == 1 + json["recommendations"].size() + json["rejected"].size());
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto fields = csv_fields(rows[i]);
    CAPTURE(rows[i]);
    REQUIRE(fields.size() == header.size());
    CHECK((fields[0] == "recommended" || fields[0] == "rejected"));
    if (fields[0] == "recommended") {
      CHECK(std::stod(fields[14]) > 0);                              // wall_hours: a plain number
      CHECK(fields[14].find_first_of(" h,$") == std::string::npos);  // no unit, no separator
    } else {
      CHECK(!fields[reasons_at].empty());  // the reason
    }
  }
  const Result tsv = run({"--params", "70B", "--task", "lora", "--format", "tsv"});
  CHECK_THAT(tsv.out, Catch::StartsWith("status\trank\tgpu_id\t"));
  CHECK(tsv.out.find('\r') == std::string::npos);
  const Result list = run({"catalog", "list", "-f", "csv"});
  CHECK(list.status == 0);
  const auto cards = nlohmann::json::parse(run({"catalog", "list", "--format", "json"}).out);
  CHECK(lines_of(list.out).size() == 1 + cards["gpus"].size());
  CHECK_THAT(list.out, Catch::StartsWith("id,name,vendor,architecture,memory_gb,"));
  const Result compare =
      run({"compare", "a100-80gb-sxm4", "h100-sxm5", "rtx-4090", "--params", "70B", "--task", "full", "-f", "csv"});
  CHECK(lines_of(compare.out).size() == 4);
}

TEST_CASE("defaults come from the environment and a config file, flags first", "[cli][habits][defaults]") {
  const auto doc = [](const Result& r) { return nlohmann::json::parse(r.out); };
  const std::vector<std::string> args = {"--params", "70B", "--task", "lora", "--format", "json", "--top", "1"};
  const Result env = run(args, "GPU_ADVISE_REGION=cn GPU_ADVISE_BUDGET=low");
  REQUIRE(env.status == 0);
  const auto request = doc(env)["request"];
  CHECK(request["region"] == "cn");
  CHECK(request["currency"] == "cny");  // as with --region cn
  CHECK(request["budget"] == "low");
  CHECK(request["configured"].size() == 2);
  CHECK(request["configured"][0]["origin"] == "GPU_ADVISE_REGION");
  CHECK_THAT(doc(env)["assumptions"][0].get<std::string>(), Catch::Contains("GPU_ADVISE_REGION"));
  std::vector<std::string> flagged = args;
  flagged.insert(flagged.end(), {"--region", "global"});
  const auto over = doc(run(flagged, "GPU_ADVISE_REGION=cn"))["request"];
  CHECK(over["region"] == "global");
  CHECK(over["configured"].empty());
  const Result bad = run(args, "GPU_ADVISE_REGION=china");
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, Catch::Contains("GPU_ADVISE_REGION: 'china' is not valid"));

  const auto config = scratch() / "config.yaml";
  {
    std::ofstream out(config);
    out << "region: cn\nlang: zh\n";
  }
  const Result file = run(args, "GPU_ADVISE_CONFIG=" + config.string());
  REQUIRE(file.status == 0);
  CHECK(doc(file)["language"] == "zh");
  CHECK(doc(file)["request"]["configured"][0]["origin"] == config.string() + ":1");
  // The environment beats the file.
  CHECK(doc(run(args, "GPU_ADVISE_CONFIG=" + config.string() + " GPU_ADVISE_REGION=global"))["request"]["region"] ==
        "global");
  // XDG_CONFIG_HOME is where the file is looked for.
  const auto xdg = scratch() / "xdg";
  std::filesystem::create_directories(xdg / "gpu-advise");
  std::filesystem::copy_file(config, xdg / "gpu-advise" / "config.yaml",
                             std::filesystem::copy_options::overwrite_existing);
  CHECK(doc(run(args, "-u GPU_ADVISE_CONFIG XDG_CONFIG_HOME=" + xdg.string()))["request"]["region"] == "cn");
  {
    std::ofstream out(config);
    out << "regoin: cn\nlang: cn\n";
  }
  const Result broken = run(args, "GPU_ADVISE_CONFIG=" + config.string());
  CHECK(broken.status == 2);
  CHECK_THAT(broken.err, Catch::Contains("config.yaml:1:1: regoin"));
  CHECK_THAT(broken.err, Catch::Contains("did you mean 'region'?"));
  CHECK_THAT(broken.err, Catch::Contains("config.yaml:2:"));
  // Batch lines take the defaults unless they set the key.
  const Result batch = harness::shell(
      "printf '{\"params\":\"7B\",\"task\":\"lora\",\"compact\":true}\\n"
      "{\"params\":\"7B\",\"task\":\"lora\",\"region\":\"global\",\"compact\":true}\\n' "
      "| GPU_ADVISE_REGION=cn \"$GA\" batch");
  const auto batch_lines = lines_of(batch.out);
  REQUIRE(batch_lines.size() == 2);
  CHECK(nlohmann::json::parse(batch_lines[0]).dump().find("\"cn\"") != std::string::npos);
}

TEST_CASE("every table fits 80 columns and keeps the card names whole", "[cli][habits][width]") {
  const std::vector<std::vector<std::string>> commands = {
      {"--params", "70B", "--task", "lora"},
      {"--params", "8B", "--task", "inference", "--region", "cn"},
      {"compare", "a100-80gb-sxm4", "h100-sxm5", "rtx-4090", "--params", "70B", "--task", "lora"},
      {"catalog", "list"},
      {"models"},
      {"fit", "--gpu", "ascend-910b2", "--count", "8", "--region", "cn"},
  };
  for (const auto& args : commands) {
    for (const char* lang : {"en", "zh"}) {
      std::vector<std::string> a = args;
      a.insert(a.end(), {"--lang", lang});
      const Result r = run(a, "COLUMNS=80");
      CAPTURE(args, lang);
      CHECK(r.status <= 1);
      for (const auto& line : lines_of(r.out)) {
        CAPTURE(line);
        CHECK(width(line) <= 80);
      }
    }
  }
  CHECK_THAT(run({"catalog", "list"}, "COLUMNS=60").out, Catch::Contains("GeForce RTX 4090 24GB"));
}

TEST_CASE("explain shows the rules that fired, explain=all every rule", "[cli][habits][explain]") {
  const std::vector<std::string> args = {"--params", "7B", "--task", "inference", "--top", "3"};
  std::vector<std::string> fired = args;
  fired.push_back("--explain");
  std::vector<std::string> all = args;
  all.push_back("--explain=all");
  const Result some = run(fired);
  const Result every = run(all);
  CHECK(some.status == 0);
  CHECK(every.status == 0);
  CHECK(lines_of(some.out).size() * 2 < lines_of(every.out).size());
  std::vector<std::string> bad = args;
  bad.push_back("--explain=most");
  CHECK(run(bad).status == 2);
}

TEST_CASE("fit says what the cards you have can train or serve, in every format", "[cli][fit]") {
  const std::vector<std::string> args = {"fit", "--gpu", "ascend-910b2", "--count", "8", "--region", "cn"};
  const Result text = run(args);
  REQUIRE(text.status == 0);
  CHECK_THAT(text.out, Catch::Contains("8 x Ascend 910B2 64GB"));
  CHECK_THAT(text.out, Catch::Contains("Largest model that fits"));
  CHECK_THAT(text.out, Catch::Contains("Llama 3.1 70B"));
  std::vector<std::string> json_args = args;
  json_args.insert(json_args.end(), {"--format", "json"});
  const auto doc = nlohmann::json::parse(run(json_args).out);
  CHECK(doc["kind"] == "fit");
  CHECK(doc["tasks"] == nlohmann::json({"full", "lora", "qlora", "inference"}));
  const auto& fleet = doc["fleets"][0];
  CHECK(fleet["count"] == 8);
  CHECK(fleet["rows"].size() == doc["tasks"].size() * (fleet["rows"].size() / 4));
  bool lora_70b = false;
  for (const auto& row : fleet["rows"]) {
    if (row["model"]["id"] == "llama-3.1-70b" && row["task"] == "lora") {
      lora_70b = row["fits"].get<bool>();
      CHECK(row["plan"]["count"] == 8);  // training runs on every card
    }
    if (row["task"] == "inference" && row["fits"].get<bool>()) {
      // Plans of the fleet's GPUs: copies / copies per plan x GPUs per plan.
      const int per_plan = row["plan"]["inference"]["replicas"].get<int>();
      CHECK(row["copies"].get<int>() / per_plan * row["plan"]["count"].get<int>() <= 8);
    }
    if (!row["fits"].get<bool>()) {
      CHECK(row["plan"].is_null());
      CHECK(!row["reasons"].empty());
    }
  }
  CHECK(lora_70b);
  for (const auto& largest : fleet["largest"]) {
    CHECK(largest["params"].get<double>() > 1e9);
  }
  for (const char* format : {"markdown", "html", "csv", "tsv"}) {
    std::vector<std::string> a = args;
    a.insert(a.end(), {"--format", format, "--lang", "zh"});
    const Result r = run(a);
    CAPTURE(format);
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("910B2"));
  }
  // A China-only card in hand fits outside China too: the rules about getting it stay silent.
  CHECK(run({"fit", "--gpu", "h20", "--task", "inference", "--model", "qwen2.5-7b"}).status == 0);
  // Mixed fleets: one count per card.
  const auto mixed = nlohmann::json::parse(
      run({"fit", "-g", "h100-sxm5", "-n", "8", "-g", "l40s", "-n", "2", "-t", "qlora", "-f", "json"}).out);
  CHECK(mixed["fleets"].size() == 2);
  CHECK(mixed["fleets"][1]["count"] == 2);
  CHECK(run({"fit", "--task", "lora"}).status == 2);
  CHECK(run({"fit", "-g", "h100-sxm5", "-g", "l40s", "-n", "8", "-n", "2", "-n", "1"}).status == 2);
  CHECK(run({"fit", "-g", "h100-sxm5", "--top", "3"}).status == 2);
  const Result nothing = run({"fit", "--gpu", "rtx-4090", "--model", "deepseek-v3", "--task", "full"});
  CHECK(nothing.status == 1);
}
