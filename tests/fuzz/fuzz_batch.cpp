// One batch line (docs/json.md): any bytes get exactly one answer line, valid
// UTF-8 and valid JSON, numbered 1, whose status is 0 (recommended), 1
// (nothing fits) or 2 (an error object), and nothing escapes.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "cli/batch.hpp"
#include "cli/flags.hpp"
#include "gpu_advise/catalog.hpp"
#include "gpu_advise/language.hpp"
#include "gpu_advise/rules.hpp"
#include "gpu_advise/text.hpp"

namespace {

using nlohmann::json;

// Finds a "model_config" key however it is spelt ("model\u005fconfig" too):
// that key reads a file, and the fuzzer must not touch the file system. The
// SAX parser is iterative, so deep nesting costs no stack.
class ModelConfigKey final : public nlohmann::json_sax<json> {
 public:
  bool found = false;

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t& value) override {
    if (value == "model_config") {
      found = true;
      return false;  // stop here
    }
    return true;
  }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
};

bool names_model_config(std::string_view text) {
  if (text.find("model_config") != std::string_view::npos) {
    return true;
  }
  if (text.find("\\u") == std::string_view::npos) {
    return false;  // no escape, so no other spelling of the key
  }
  ModelConfigKey handler;
  (void)json::sax_parse(text.begin(), text.end(), &handler);
  return handler.found;
}

gpu_advise::cli::BatchContext& context() {
  using namespace gpu_advise;
  static const cli::Flags defaults{};
  static const Catalog catalog = load_embedded_catalog();
  static const RuleSet rules = load_embedded_rules();
  static cli::Presets presets;
  static cli::BatchContext batch{defaults, catalog, rules, presets, Language::en};
  return batch;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (names_model_config(text)) {
    return 0;
  }
  const gpu_advise::cli::BatchAnswer answer = gpu_advise::cli::answer_batch_line(text, 1, context());
  const std::string& out = answer.json_line;
  // Exactly one line: one '\n', at the end.
  if (out.empty() || out.back() != '\n' || out.find('\n') != out.size() - 1) {
    std::abort();
  }
  if (gpu_advise::text::invalid_utf8_at(out) != std::string_view::npos) {
    std::abort();
  }
  if (answer.status < 0 || answer.status > 2) {
    std::abort();
  }
  json parsed;
  try {
    parsed = json::parse(out);
  } catch (const json::exception&) {
    std::abort();
  }
  if (!parsed.is_object()) {
    std::abort();
  }
  const auto line = parsed.find("line");
  if (line == parsed.end() || !line->is_number_integer() || line->get<std::int64_t>() != 1) {
    std::abort();
  }
  const bool is_error = parsed.contains("error");
  if (is_error != (answer.status == 2)) {
    std::abort();
  }
  if (is_error) {
    // The error object: {"schema_version":1,"line":1,"status":2,"error":"..."}
    const auto status = parsed.find("status");
    if (status == parsed.end() || !status->is_number_integer() || status->get<std::int64_t>() != 2 ||
        !parsed["error"].is_string()) {
      std::abort();
    }
  } else {
    // A result: its outcome agrees with the status.
    const auto outcome = parsed.find("outcome");
    if (outcome == parsed.end() || !outcome->is_string() ||
        outcome->get<std::string>() != (answer.status == 0 ? "recommended" : "nothing_fits")) {
      std::abort();
    }
  }
  return 0;
}
