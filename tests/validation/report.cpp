// Prints the validation table, or rewrites it in place in docs/validation.md:
//   validation_report                      (print)
//   validation_report --update FILE        (replace the table between the markers)
#include <fstream>
#include <iostream>
#include <sstream>

#include "cases.hpp"

int main(int argc, char** argv) {
  using namespace gpu_advise;
  const std::string table = validation::report_table(load_embedded_catalog(), load_embedded_models());
  if (argc == 3 && std::string(argv[1]) == "--update") {
    std::ifstream in(argv[2]);
    std::stringstream buffer;
    buffer << in.rdbuf();
    std::string doc = buffer.str();
    const std::string begin = "<!-- validation-table:begin -->\n";
    const std::string end = "<!-- validation-table:end -->";
    const auto from = doc.find(begin);
    const auto to = doc.find(end);
    if (from == std::string::npos || to == std::string::npos) {
      std::cerr << "markers not found in " << argv[2] << "\n";
      return 2;
    }
    doc.replace(from + begin.size(), to - from - begin.size(), table);
    std::ofstream(argv[2]) << doc;
    return 0;
  }
  std::cout << table;
  return 0;
}
