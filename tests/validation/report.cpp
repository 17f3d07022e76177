// Prints the validation tables, or rewrites them in place in docs/validation.md:
//   validation_report                      (print)
//   validation_report --update FILE        (replace each table between its markers)
#include <fstream>
#include <iostream>
#include <sstream>

#include "calibration_cases.hpp"
#include "cases.hpp"

namespace {

bool replace_between(std::string& doc, const std::string& name, const std::string& table) {
  const std::string begin = "<!-- " + name + ":begin -->\n";
  const std::string end = "<!-- " + name + ":end -->";
  const auto from = doc.find(begin);
  const auto to = doc.find(end);
  if (from == std::string::npos || to == std::string::npos) {
    return false;
  }
  doc.replace(from + begin.size(), to - from - begin.size(), table);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gpu_advise;
  const Catalog catalog = load_embedded_catalog();
  const ModelCatalog models = load_embedded_models();
  const std::string table = validation::report_table(catalog, models);
  const std::string summary = validation::serving_summary(catalog, models);
  const std::string training = validation::training_summary(catalog, models);
  const std::string engines = validation::engine_summary(catalog, models);
  const std::string memory = validation::memory_summary(catalog, models);
  const std::string stacks = validation::stack_summary(catalog, models);
  const std::string calibration = validation::calibration_summary(catalog, models);
  if (argc == 3 && std::string(argv[1]) == "--update") {
    std::ifstream in(argv[2]);
    std::stringstream buffer;
    buffer << in.rdbuf();
    std::string doc = buffer.str();
    if (!replace_between(doc, "validation-table", table) || !replace_between(doc, "serving-summary", summary) ||
        !replace_between(doc, "training-summary", training) || !replace_between(doc, "engine-summary", engines) ||
        !replace_between(doc, "memory-summary", memory) || !replace_between(doc, "stack-summary", stacks) ||
        !replace_between(doc, "calibration-summary", calibration)) {
      std::cerr << "markers not found in " << argv[2] << "\n";
      return 2;
    }
    std::ofstream(argv[2]) << doc;
    return 0;
  }
  std::cout << table << "\n"
            << summary << "\n"
            << engines << "\n"
            << training << "\n"
            << memory << "\n"
            << stacks << "\n"
            << calibration;
  return 0;
}
