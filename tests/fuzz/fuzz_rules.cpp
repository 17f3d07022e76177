// The rules loader and evaluator: any bytes either load or raise a DataError;
// loaded rules evaluate on a real card without crashing.
#include <cstdint>
#include <string_view>

#include "gpu_advise/catalog.hpp"
#include "gpu_advise/error.hpp"
#include "gpu_advise/estimate.hpp"
#include "gpu_advise/model.hpp"
#include "gpu_advise/rules.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpu_advise;
  static const Catalog catalog = load_embedded_catalog();
  static const Request request = [] {
    Request r;
    r.params = 70e9;
    r.task = Task::lora;
    return r;
  }();
  static const ModelShape model = infer_shape(70e9);
  static const Estimate estimate = gpu_advise::estimate(request, model, catalog.gpus().front());
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const RuleSet rules = parse_rules(text, "fuzz.yaml", RulesRole::overlay);
    (void)evaluate(rules, Facts{&request, &catalog.gpus().front(), &estimate});  // renders both languages
  } catch (const DataError&) {
  }
  return 0;
}
