#include "load/measurements.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpu_advise/error.hpp"
#include "gpu_advise/estimate.hpp"
#include "gpu_advise/text.hpp"
#include "load/csv_reader.hpp"
#include "load/files.hpp"
#include "load/json_input.hpp"

namespace gpu_advise {

namespace {

// One value of a record, as JSON or a CSV cell gave it.
struct Value {
  enum class Kind { text, number, boolean } kind = Kind::text;
  std::string text;
  double number = 0;
  bool flag = false;
  int column = 0;
};

const std::vector<std::string>& common_keys() {
  static const std::vector<std::string> keys = {"kind", "id",    "source", "date",
                                                "gpu",  "count", "model",  "model_config"};
  return keys;
}

const std::vector<std::string>& training_keys() {
  static const std::vector<std::string> keys = {"task",
                                                "seq_len",
                                                "micro_batch",
                                                "recompute",
                                                "optimizer",
                                                "stack",
                                                "lora_rank",
                                                "lora_targets",
                                                "tp",
                                                "pp",
                                                "cp",
                                                "zero_stage",
                                                "global_batch",
                                                "fp8",
                                                "optimizer_in_backward",
                                                "peak_memory_gib",
                                                "tokens_per_s"};
  return keys;
}

const std::vector<std::string>& serving_keys() {
  static const std::vector<std::string> keys = {"precision",           "kv_precision", "engine",
                                                "concurrency",         "context",      "output_tokens",
                                                "output_tokens_per_s", "ttft_ms",      "tpot_ms"};
  return keys;
}

// Reads one record's values into a Measurement, each problem a diagnostic at
// the record's line (and the value's column, where known).
class RecordReader {
 public:
  // `json`: the values are JSON's, typed (a CSV cell is text, read as its key wants).
  RecordReader(const std::string& file, int line, std::map<std::string, Value> values, std::vector<Diagnostic>& out,
               bool json)
      : m_file(file), m_line(line), m_values(std::move(values)), m_out(out), m_json(json) {}

  void error(const std::string& key, std::string message) {
    const auto at = m_values.find(key);
    m_out.push_back(
        Diagnostic{m_file, m_line, at == m_values.end() ? 1 : std::max(1, at->second.column), key, std::move(message)});
  }
  [[nodiscard]] bool has(const std::string& key) const { return m_values.count(key) > 0; }

  // The key's value, or nullptr (a missing required key reported).
  const Value* find(const std::string& key, bool required) {
    const auto at = m_values.find(key);
    if (at != m_values.end()) {
      return &at->second;
    }
    if (required) {
      error(key, "missing; every record states it (docs/calibration.md)");
    }
    return nullptr;
  }

  std::optional<std::string> text(const std::string& key, bool required) {
    const Value* at = find(key, required);
    if (at == nullptr) {
      return std::nullopt;
    }
    if (at->kind != Value::Kind::text) {
      error(key, "expected text");
      return std::nullopt;
    }
    if (text::printable(at->text) != at->text || at->text.size() > 1000) {
      error(key, "expected one line of printable text, at most 1000 bytes");
      return std::nullopt;
    }
    return at->text;
  }

  // A number as JSON gives it, or a CSV cell's text read as one; `what`
  // names the kind in a message ("a number", "a whole number").
  std::optional<double> numeric(const std::string& key, bool required, std::string_view what) {
    const Value* at = find(key, required);
    if (at == nullptr) {
      return std::nullopt;
    }
    double value = at->number;
    if (at->kind == Value::Kind::text && m_json) {
      error(key, fmt::format("expected {}, not text ('{}'): write it without quotes", what, text::excerpt(at->text)));
      return std::nullopt;
    }
    if (at->kind == Value::Kind::text) {
      const std::string& s = at->text;
      const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
      if (ec != std::errc() || end != s.data() + s.size()) {
        error(key, fmt::format("'{}' is not {}", text::excerpt(s), what));
        return std::nullopt;
      }
    } else if (at->kind != Value::Kind::number) {
      error(key, fmt::format("expected {}", what));
      return std::nullopt;
    }
    return value;
  }

  // A measured figure: from 0.001 (less is no measurement: a wrong unit) to `max`.
  std::optional<double> number(const std::string& key, bool required, double max) {
    const auto value = numeric(key, required, "a number");
    if (value && (!std::isfinite(*value) || *value < 0.001 || *value > max)) {
      error(key, fmt::format("{} is out of range; expected a number from 0.001 to {}", *value, max));
      return std::nullopt;
    }
    return value;
  }

  std::optional<int> integer(const std::string& key, bool required, int min, int max) {
    const auto value = numeric(key, required, "a whole number");
    if (!value) {
      return std::nullopt;
    }
    if (*value != std::floor(*value) || *value < min || *value > max) {
      error(key, fmt::format("{} is out of range; expected a whole number from {} to {}", *value, min, max));
      return std::nullopt;
    }
    return static_cast<int>(*value);
  }

  std::optional<bool> boolean(const std::string& key) {
    const Value* at = find(key, false);
    if (at == nullptr) {
      return std::nullopt;
    }
    if (at->kind == Value::Kind::boolean) {
      return at->flag;
    }
    const std::string word = text::to_lower(at->text);
    if (at->kind == Value::Kind::text && !m_json && (word == "true" || word == "false")) {
      return word == "true";
    }
    error(key, "expected true or false");
    return std::nullopt;
  }

  template <typename E>
  std::optional<E> choice(const std::string& key, bool required) {
    const auto raw = text(key, required);
    if (!raw) {
      return std::nullopt;
    }
    if (auto value = enum_from_string<E>(text::to_lower(*raw))) {
      return value;
    }
    std::string message =
        fmt::format("'{}' is not valid; expected {}", text::excerpt(*raw), text::join_or(enum_names<E>()));
    if (const auto suggestion = text::did_you_mean(*raw, enum_names<E>())) {
      message += fmt::format("; did you mean '{}'?", *suggestion);
    }
    error(key, message);
    return std::nullopt;
  }

  // Reports every key outside `allowed`, with a did-you-mean.
  void only(const std::vector<std::string>& allowed, std::string_view kind) {
    for (const auto& [key, value] : m_values) {
      if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) {
        continue;
      }
      std::string message = fmt::format("unknown key in a {} record", kind);
      if (const auto suggestion = text::did_you_mean(key, allowed)) {
        message += fmt::format("; did you mean '{}'?", *suggestion);
      }
      error(text::excerpt(key), message);
    }
  }

 private:
  const std::string& m_file;
  int m_line;
  std::map<std::string, Value> m_values;
  std::vector<Diagnostic>& m_out;
  bool m_json = false;
};

bool valid_date(const std::string& date) {
  if (date.size() != 10 || date[4] != '-' || date[7] != '-') {
    return false;
  }
  for (const std::size_t i : {0UL, 1UL, 2UL, 3UL, 5UL, 6UL, 8UL, 9UL}) {
    if (date[i] < '0' || date[i] > '9') {
      return false;
    }
  }
  const int year = std::stoi(date.substr(0, 4));
  const int month = std::stoi(date.substr(5, 2));
  const int day = std::stoi(date.substr(8, 2));
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  const int days[] = {31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month >= 1 && month <= 12 && day >= 1 && day <= days[month - 1];
}

void read_training(RecordReader& r, Measurement& m) {
  m.task = r.choice<Task>("task", true).value_or(Task::full);
  if (m.task == Task::inference) {
    r.error("task", "'inference' is a serving record's: write \"kind\": \"serving\"");
  }
  m.seq_len = r.integer("seq_len", true, 1, 10'000'000).value_or(1);
  m.micro_batch = r.integer("micro_batch", true, 1, 65536).value_or(1);
  m.recompute = r.choice<Recompute>("recompute", true).value_or(Recompute::none);
  m.optimizer = r.choice<Optimizer>("optimizer", true).value_or(Optimizer::adamw);
  m.stack = r.choice<Stack>("stack", false);
  m.lora_rank = r.integer("lora_rank", false, 1, 65536);
  if (const auto targets = r.text("lora_targets", false)) {
    try {
      m.lora_targets = parse_lora_targets(*targets, "lora_targets");
    } catch (const UsageError& e) {
      r.error("lora_targets", std::string(e.what()).substr(std::string_view("lora_targets: ").size()));
    }
  }
  if ((m.lora_rank || !m.lora_targets.empty()) && m.task != Task::lora && m.task != Task::qlora) {
    r.error(m.lora_rank ? "lora_rank" : "lora_targets", "only a lora or qlora record has adapters");
  }
  m.tp = r.integer("tp", false, 1, 100000);
  m.pp = r.integer("pp", false, 1, 100000);
  m.cp = r.integer("cp", false, 1, 100000);
  m.zero_stage = r.integer("zero_stage", false, 0, 3);
  m.global_batch = r.integer("global_batch", false, 1, 100'000'000);
  m.fp8 = r.boolean("fp8").value_or(false);
  m.optimizer_in_backward = r.boolean("optimizer_in_backward").value_or(false);
  const std::int64_t model_parallel = std::int64_t{m.tp.value_or(1)} * m.pp.value_or(1) * m.cp.value_or(1);
  if (m.count % model_parallel != 0) {
    r.error("count", fmt::format("{} GPUs do not split into tp x pp x cp = {} (count must be a multiple)", m.count,
                                 model_parallel));
  }
  m.peak_memory_gib = r.number("peak_memory_gib", false, 100000);
  m.tokens_per_s = r.number("tokens_per_s", false, 1e12);
  if (!r.has("peak_memory_gib") && !r.has("tokens_per_s")) {
    r.error("tokens_per_s", "a training record measures tokens_per_s, peak_memory_gib or both; it has neither");
  }
  r.only(
      [] {
        std::vector<std::string> keys = common_keys();
        keys.insert(keys.end(), training_keys().begin(), training_keys().end());
        return keys;
      }(),
      "training");
}

void read_serving(RecordReader& r, Measurement& m) {
  m.precision = r.choice<InferencePrecision>("precision", true).value_or(InferencePrecision::bf16);
  m.kv_precision = r.choice<KvPrecision>("kv_precision", false);
  m.engine = r.choice<ServingEngine>("engine", false);
  m.concurrency = r.integer("concurrency", true, 1, 1'000'000).value_or(1);
  m.context = r.integer("context", true, 2, 10'000'000).value_or(2);
  m.output_tokens = r.integer("output_tokens", true, 1, 10'000'000).value_or(1);
  if (m.output_tokens >= m.context) {
    r.error("output_tokens", fmt::format("{} is not below the context ({}): a request's prompt is at least one token",
                                         m.output_tokens, m.context));
  }
  m.output_tokens_per_s = r.number("output_tokens_per_s", false, 1e12);
  m.ttft_ms = r.number("ttft_ms", false, 1e9);
  m.tpot_ms = r.number("tpot_ms", false, 1e9);
  if (!r.has("output_tokens_per_s") && !r.has("ttft_ms") && !r.has("tpot_ms")) {
    r.error("output_tokens_per_s",
            "a serving record measures output_tokens_per_s, tpot_ms or ttft_ms; it has none of them");
  }
  r.only(
      [] {
        std::vector<std::string> keys = common_keys();
        keys.insert(keys.end(), serving_keys().begin(), serving_keys().end());
        return keys;
      }(),
      "serving");
}

// A training record's layout against its model, as --tp, --pp and --cp are
// checked: a layout the model cannot run is a located problem, not a guess.
void check_layout(RecordReader& r, const MeasuredRun& run) {
  const Measurement& m = run.measurement;
  const ModelShape& model = run.model;
  const bool adapters = m.task == Task::lora || m.task == Task::qlora;
  for (const auto& [key, value] : {std::pair{"tp", m.tp}, std::pair{"pp", m.pp}, std::pair{"cp", m.cp}}) {
    if (adapters && value && *value > 1) {
      r.error(key, fmt::format("LoRA and QLoRA plans here are data parallel over every GPU: a run with {} {} "
                               "cannot be sized as it ran",
                               key, *value));
    }
  }
  if (m.tp && model.heads > 0 && model.heads % *m.tp != 0) {
    r.error("tp", fmt::format("{} does not divide {}'s {} attention heads", *m.tp, model.name, model.heads));
  }
  if (m.pp && *m.pp > model.layers) {
    r.error("pp", fmt::format("{} is more stages than {}'s {} layers", *m.pp, model.name, model.layers));
  }
  if (m.cp && m.seq_len % *m.cp != 0) {
    r.error("cp", fmt::format("{} does not divide seq_len {}", *m.cp, m.seq_len));
  }
}

// The card and model a record names, each a located problem when unknown.
void resolve(RecordReader& r, const std::string& file, const Catalog& catalog, const ModelCatalog& models,
             MeasuredRun& run, std::vector<Diagnostic>& out) {
  Measurement& m = run.measurement;
  if (!m.gpu.empty()) {
    try {
      run.gpu = catalog.resolve(m.gpu);
      m.gpu = run.gpu.id;
    } catch (const UsageError& e) {
      r.error("gpu", e.what());
    }
  }
  if (!m.model.empty()) {
    try {
      run.model = models.resolve(m.model);
      m.model = run.model.id;
    } catch (const UsageError& e) {
      r.error("model", e.what());
    }
  } else if (!m.model_config.empty()) {
    std::filesystem::path path(m.model_config);
    if (path.is_relative()) {
      path = std::filesystem::path(file).parent_path() / path;
    }
    try {
      run.model = load_hf_config(path);
    } catch (const DataError& e) {
      r.error("model_config", fmt::format("{} cannot be read as a model's config.json (below)", path.string()));
      out.insert(out.end(), e.diagnostics().begin(), e.diagnostics().end());
    } catch (const Error& e) {
      r.error("model_config", e.what());
    }
  }
}

std::optional<MeasuredRun> read_record(RecordReader& r, const std::string& file, int line, const Catalog& catalog,
                                       const ModelCatalog& models, std::vector<Diagnostic>& out) {
  const std::size_t before = out.size();
  MeasuredRun run;
  Measurement& m = run.measurement;
  m.origin = fmt::format("{}:{}", file, line);
  m.file = file;
  m.line = line;
  const auto kind = r.choice<CalibrationKind>("kind", true);
  if (!kind) {
    return std::nullopt;
  }
  m.kind = *kind;
  m.id = r.text("id", false).value_or("");
  m.source = r.text("source", false).value_or("");
  m.date = r.text("date", false).value_or("");
  if (!m.date.empty() && !valid_date(m.date)) {
    r.error("date", fmt::format("'{}' is not a date; expected YYYY-MM-DD", text::excerpt(m.date)));
  }
  m.gpu = r.text("gpu", true).value_or("");
  m.count = r.integer("count", true, 1, 100000).value_or(1);
  m.model = r.text("model", false).value_or("");
  m.model_config = r.text("model_config", false).value_or("");
  if (m.model.empty() == m.model_config.empty()) {
    r.error("model", "a record names its model by one of model (a preset) or model_config (a config.json path)");
  }
  if (m.kind == CalibrationKind::training) {
    read_training(r, m);
  } else {
    read_serving(r, m);
  }
  resolve(r, file, catalog, models, run, out);
  if (out.size() > before) {
    return std::nullopt;
  }
  if (m.kind == CalibrationKind::training) {
    check_layout(r, run);
  }
  if (out.size() > before) {
    return std::nullopt;
  }
  return run;
}

std::map<std::string, Value> json_values(const std::string& line_text, const std::string& file, int line,
                                         std::vector<Diagnostic>& out) {
  std::map<std::string, Value> values;
  nlohmann::json record;
  try {
    record = json_input::parse(line_text);
  } catch (const json_input::Failure& e) {
    const int column = e.byte() == std::string::npos ? 1 : static_cast<int>(e.byte()) + 1;
    out.push_back(Diagnostic{file, line, column, e.duplicate_key(), e.what()});
    return values;
  }
  if (!record.is_object()) {
    out.push_back(Diagnostic{file, line, 1, "", "expected one JSON object a line (JSON Lines)"});
    return values;
  }
  for (const auto& [key, value] : record.items()) {
    const auto at = line_text.find('"' + key + '"');
    const int column = at == std::string::npos ? 1 : static_cast<int>(at) + 1;
    if (value.is_string()) {
      values[key] = Value{Value::Kind::text, value.get<std::string>(), 0, false, column};
    } else if (value.is_number()) {
      values[key] = Value{Value::Kind::number, "", value.get<double>(), false, column};
    } else if (value.is_boolean()) {
      values[key] = Value{Value::Kind::boolean, "", 0, value.get<bool>(), column};
    } else {
      out.push_back(Diagnostic{
          file, line, column, text::excerpt(key),
          value.is_null() ? std::string("is null: leave the key out instead")
                          : fmt::format("expected text, a number or true/false, not {}", json_input::describe(value))});
    }
  }
  return values;
}

void check_id(const MeasuredRun& run, std::set<std::string>& ids, std::vector<Diagnostic>& out, const std::string& file,
              int line) {
  if (!run.measurement.id.empty() && !ids.insert(run.measurement.id).second) {
    out.push_back(Diagnostic{file, line, 1, "id", fmt::format("'{}' names an earlier record too", run.measurement.id)});
  }
}

std::vector<MeasuredRun> parse_json_lines(std::string_view text, const std::string& file, const Catalog& catalog,
                                          const ModelCatalog& models, std::vector<Diagnostic>& out) {
  std::vector<MeasuredRun> runs;
  std::set<std::string> ids;
  int line = 0;
  std::size_t start = 0;
  while (start < text.size() && out.size() < 50) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string line_text(text.substr(start, end - start));
    start = end + 1;
    ++line;
    if (!line_text.empty() && line_text.back() == '\r') {
      line_text.pop_back();
    }
    if (text::trim(line_text).empty()) {
      continue;
    }
    const std::size_t before = out.size();
    auto values = json_values(line_text, file, line, out);
    if (out.size() > before) {
      continue;
    }
    RecordReader reader(file, line, std::move(values), out, true);
    if (auto run = read_record(reader, file, line, catalog, models, out)) {
      check_id(*run, ids, out, file, line);
      runs.push_back(std::move(*run));
    }
    if (runs.size() > max_measurements) {
      out.push_back(Diagnostic{file, line, 1, "", fmt::format("more than {} records in one file", max_measurements)});
      break;
    }
  }
  return runs;
}

std::vector<MeasuredRun> parse_csv(std::string_view text, const std::string& file, const Catalog& catalog,
                                   const ModelCatalog& models, std::vector<Diagnostic>& out) {
  csv::Reader reader(text);
  csv::Record record;
  csv::Problem problem;
  std::vector<csv::Field> header;
  std::vector<MeasuredRun> runs;
  std::set<std::string> ids;
  for (auto status = reader.next(record, problem); status != csv::Reader::Status::end && out.size() < 50;
       status = reader.next(record, problem)) {
    if (status == csv::Reader::Status::bad) {
      out.push_back(Diagnostic{file, problem.line, problem.column, "", problem.message});
      continue;
    }
    if (header.empty()) {
      header = record.fields;
      for (std::size_t i = 0; i < header.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j) {
          if (header[j].value == header[i].value) {
            out.push_back(
                Diagnostic{file, header[i].line, header[i].column, text::excerpt(header[i].value),
                           fmt::format("a second column of that name (the first is column {})", header[j].column)});
          }
        }
      }
      continue;
    }
    if (record.fields.size() != header.size()) {
      out.push_back(Diagnostic{file, record.line, 1, "",
                               fmt::format("{} fields; the header names {}", record.fields.size(), header.size())});
      continue;
    }
    std::map<std::string, Value> values;
    for (std::size_t i = 0; i < header.size(); ++i) {
      const std::string cell(text::trim(record.fields[i].value));
      if (!cell.empty()) {  // an empty cell: the key is left out
        values[header[i].value] = Value{Value::Kind::text, cell, 0, false, record.fields[i].column};
      }
    }
    RecordReader row(file, record.line, std::move(values), out, false);
    if (auto run = read_record(row, file, record.line, catalog, models, out)) {
      check_id(*run, ids, out, file, record.line);
      runs.push_back(std::move(*run));
    }
    if (runs.size() > max_measurements) {
      out.push_back(Diagnostic{file, record.line, 1, "", fmt::format("more than {} records", max_measurements)});
      break;
    }
  }
  return runs;
}

}  // namespace

std::vector<MeasuredRun> parse_measurements(std::string_view text, const std::string& file, const Catalog& catalog,
                                            const ModelCatalog& models) {
  std::vector<Diagnostic> out;
  const bool csv = file.size() > 4 && text::to_lower(file.substr(file.size() - 4)) == ".csv";
  std::vector<MeasuredRun> runs =
      csv ? parse_csv(text, file, catalog, models, out) : parse_json_lines(text, file, catalog, models, out);
  if (!out.empty()) {
    throw DataError(std::move(out));
  }
  if (runs.empty()) {
    throw DataError({Diagnostic{file, 0, 0, "", "no measurement records (docs/calibration.md)"}});
  }
  return runs;
}

std::vector<MeasuredRun> load_measurements(const std::string& file, const Catalog& catalog,
                                           const ModelCatalog& models) {
  return parse_measurements(read_data_file(file), file, catalog, models);
}

}  // namespace gpu_advise
