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

TEST_CASE("bash completion offers exactly the flags of the flag table", "[flags]") {
  const std::string bash = slurp(GPU_ADVISE_SOURCE_DIR "/scripts/gpu-advise.bash");
  std::smatch list;
  REQUIRE(std::regex_search(bash, list,
                            std::regex(R"re(\$cur == -\* \]\]; then\s*COMPREPLY=\(\$\(compgen -W "([^"]*)")re")));
  std::set<std::string> offered = flags_in(list[1].str());
  CHECK(offered.count("--help") == 1);
  CHECK(offered.count("--version") == 1);
  offered.erase("--help");
  offered.erase("--version");
  CHECK(offered == table_flags());
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
