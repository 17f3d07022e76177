// The flag table is the one list of flags: the bash completion and the man
// page must name exactly its flags, and the batch keys follow it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "cli/flags.hpp"
#include "gpu_advise/advisor.hpp"
#include "gpu_advise/model.hpp"
#include "gpu_advise/rules.hpp"

using namespace gpu_advise;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::set<std::string> flags_in(const std::string& text) {
  std::set<std::string> out;
  const std::regex flag("--[a-z0-9][a-z0-9-]*");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), flag); it != std::sregex_iterator(); ++it) {
    out.insert(it->str());
  }
  return out;
}

std::set<std::string> table_flags() {
  std::set<std::string> out;
  for (const auto& spec : cli::flag_table()) {
    out.emplace(spec.name);
  }
  return out;
}

}  // namespace

TEST_CASE("the man page names exactly the flags of the flag table", "[flags]") {
  std::string man = slurp(GPU_ADVISE_SOURCE_DIR "/docs/gpu-advise.1");
  REQUIRE_FALSE(man.empty());
  man = std::regex_replace(man, std::regex(R"(\\-)"), "-");  // roff writes --flag as \-\-flag
  std::set<std::string> named = flags_in(man);
  named.erase("--help");
  named.erase("--version");
  CHECK(named == table_flags());
}

// The README's tables: every flag of the table is there with its short form,
// no flag is there that the program does not take, and a default the README
// states in a flag's row is the one --help states.
TEST_CASE("the README names exactly the flags of the flag table, with their defaults", "[flags]") {
  const std::string readme = slurp(GPU_ADVISE_SOURCE_DIR "/README.md");
  REQUIRE_FALSE(readme.empty());
  std::set<std::string> named = flags_in(readme);
  named.erase("--help");
  named.erase("--version");
  for (const char* tool : {"--preset", "--workflow", "--build", "--install", "--binary", "--update", "--all"}) {
    named.erase(tool);  // the build, golden-test and check-tidy.sh commands, not the program's
  }
  CHECK(named == table_flags());
  std::istringstream lines(readme);
  for (std::string line; std::getline(lines, line);) {
    for (const auto& spec : cli::flag_table()) {
      // The row of this flag: "| `--gpu ID` |" or "| `-g`, `--gpu ID` |" ("--output", not "--output-tokens").
      const std::string first_cell = line.substr(0, line.find(" |", 2));
      const bool row =
          line.rfind("| ", 0) == 0 && (first_cell.find("`" + std::string(spec.name) + "`") != std::string::npos ||
                                       first_cell.find("`" + std::string(spec.name) + " ") != std::string::npos);
      if (!row) {
        continue;
      }
      CAPTURE(line);
      if (!spec.short_name.empty()) {
        CHECK(line.find("`" + std::string(spec.short_name) + "`") != std::string::npos);
      }
      std::smatch said;
      std::smatch helped;
      const std::regex default_of(R"(\(default ([0-9][0-9.]*)\))");
      if (std::regex_search(line, said, default_of) && std::regex_search(spec.help, helped, default_of)) {
        CHECK(said[1] == helped[1]);
      }
    }
  }
}

TEST_CASE("bash completion offers exactly the flags of the flag table", "[flags]") {
  const std::string bash = slurp(GPU_ADVISE_SOURCE_DIR "/scripts/gpu-advise.bash");
  std::smatch list;
  REQUIRE(std::regex_search(bash, list, std::regex(R"re(local flags="([^"]*)")re")));
  // Every word of the list is a long flag (--seq-len) or a short one (-p).
  std::set<std::string> offered;
  std::set<std::string> offered_short;
  std::istringstream words(list[1].str());
  for (std::string word; words >> word;) {
    CAPTURE(word);
    if (std::regex_match(word, std::regex("--[a-z0-9][a-z0-9-]*"))) {
      CHECK(offered.insert(word).second);
    } else if (std::regex_match(word, std::regex("-[a-zA-Z0-9]"))) {
      CHECK(offered_short.insert(word).second);
    } else {
      FAIL_CHECK("not a flag");
    }
  }
  CHECK(offered.count("--help") == 1);
  CHECK(offered.count("--version") == 1);
  offered.erase("--help");
  offered.erase("--version");
  CHECK(offered == table_flags());
  std::set<std::string> table_short;
  for (const auto& spec : cli::flag_table()) {
    if (!spec.short_name.empty()) {
      table_short.emplace(spec.short_name);
    }
  }
  CHECK(offered_short == table_short);

  // The flags the script reads as taking no value: the table's yes/no flags.
  REQUIRE(std::regex_search(bash, list, std::regex(R"re(local switches="([^"]*)")re")));
  std::set<std::string> switches = flags_in(list[1].str());
  for (const auto& spec : cli::flag_table()) {
    CAPTURE(spec.name);
    if (spec.type_name.empty()) {
      CHECK(switches.count(std::string(spec.name)) == 1);
    }
  }
  switches.erase("--help");
  switches.erase("--version");
  for (const auto& name : switches) {
    CAPTURE(name);
    CHECK(table_flags().count(name) == 1);
  }
}

TEST_CASE("each flag is declared once, and batch keys are the flag names with '_'", "[flags]") {
  std::set<std::string> names;
  for (const auto& spec : cli::flag_table()) {
    CAPTURE(spec.name);
    CHECK(names.insert(std::string(spec.name)).second);
    CHECK_FALSE(spec.help.empty());
    if (!spec.batch_key.empty()) {
      std::string expected(spec.name.substr(2));
      std::replace(expected.begin(), expected.end(), '-', '_');
      CHECK(spec.batch_key == expected);
    }
  }
}

TEST_CASE("every way out moves levers that are flags of the table", "[flags]") {
  // Requests that fit nowhere, so that advise() searches the ways out: full
  // fine-tunes on too few cards (the optimizer, its offload, updates in the
  // backward pass), pretraining against a deadline the batch caps (a larger
  // global batch), and serving on too few cards (precision, KV cache,
  // concurrency, context).
  const Catalog catalog = load_embedded_catalog();
  const RuleSet rules = load_embedded_rules();
  const ModelCatalog models = load_embedded_models();
  std::vector<std::pair<Request, ModelShape>> cases;
  const auto on = [](Task task, double params, const char* gpu, std::optional<int> count) {
    Request r;
    r.task = task;
    r.params = params;
    r.gpu_ids = {gpu};
    r.count = count;
    return r;
  };
  cases.emplace_back(on(Task::full, 8e9, "rtx-4090", 1), infer_shape(8e9));
  Request full = on(Task::full, 13e9, "a100-80gb-sxm4", 2);
  full.recompute = Recompute::selective;
  full.zero_stage = 1;
  cases.emplace_back(full, infer_shape(13e9));
  const ModelShape& big = models.resolve("llama-3.1-405b");
  Request pretrain = on(Task::pretrain, big.params, "h100-sxm5", std::nullopt);
  pretrain.deadline_hours = 20 * 24;
  pretrain.mode = CostMode::buy;
  cases.emplace_back(pretrain, big);
  Request serve = on(Task::inference, 70e9, "l40s", 2);
  serve.concurrency = 64;
  cases.emplace_back(serve, infer_shape(70e9));

  std::set<std::string> keys;
  std::set<std::string> names = table_flags();
  for (const auto& spec : cli::flag_table()) {
    keys.insert(std::string(spec.batch_key));
  }
  std::set<std::string> levers;
  for (const auto& [request, model] : cases) {
    const Report report = advise(request, model, catalog, rules);
    CHECK_FALSE(report.anything_fits());
    for (const auto& way : report.ways_out) {
      for (const auto& change : way.changes) {
        CAPTURE(change.lever);
        CHECK(keys.count(change.lever) == 1);
        levers.insert(change.lever);
      }
      for (const auto& set : way.sets) {
        const std::string flag = set.substr(0, set.find(' '));
        CAPTURE(set);
        CHECK(names.count(flag) == 1);
      }
      for (const auto& drop : way.drops) {
        CAPTURE(drop);
        CHECK(names.count(drop) == 1);
      }
    }
  }
  CHECK(levers.size() >= 8);  // the checks above read real levers, not none
}
