#include "load/calibration_file.hpp"

#include <map>
#include <optional>

#include <fmt/format.h>

#include "gpu_advise/estimate.hpp"
#include "load/files.hpp"
#include "load/yaml_reader.hpp"

namespace gpu_advise {

namespace {

using yaml::Bounds;
using yaml::MapReader;
using yaml::Presence;

const char* const figure_metrics[] = {"tokens_per_s", "peak_memory_gib", "output_tokens_per_s", "tpot_ms", "ttft_ms"};

// A YAML double-quoted scalar (JSON's escapes are YAML's).
std::string yaml_quoted(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\x{:02x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string number(double value) { return fmt::format("{:.9g}", value); }  // nine digits: figures to a token/s

void write_errors(std::string& out, bool applied, const std::optional<double>& model,
                  const std::optional<double>& median, const std::optional<double>& max) {
  if (!applied) {
    out += "      applied: false\n";
  }
  if (model) {
    out += fmt::format("      model_error: {}\n", number(*model));
  }
  if (median) {
    out += fmt::format("      median_error: {}\n", number(*median));
  }
  if (max) {
    out += fmt::format("      max_error: {}\n", number(*max));
  }
}

void write_one(std::string& out, const Calibration& c) {
  out += fmt::format("  - kind: {}\n    gpu: {}\n    {}: {}\n    created: {}\n", to_string(c.kind), c.gpu,
                     c.kind == CalibrationKind::training ? "stack" : "engine", c.key, yaml_quoted(c.created));
  if (!c.newest.empty()) {
    out += fmt::format("    newest: {}\n", yaml_quoted(c.newest));
  }
  out += fmt::format("    measurements: {}\n    speed:\n      factor: {}\n      fitted_on: {}\n", c.measurements,
                     number(c.speed.factor), c.speed.fitted_on);
  write_errors(out, c.speed.applied, c.speed.model_error, c.speed.median_error, c.speed.max_error);
  if (c.speed.band_low && c.speed.band_high) {
    out += fmt::format("      band: [{}, {}]\n", number(*c.speed.band_low), number(*c.speed.band_high));
  }
  if (c.kind == CalibrationKind::training) {
    out += fmt::format("    memory:\n      scale: {}\n      offset_gib: {}\n      fitted_on: {}\n",
                       number(c.memory.scale), number(c.memory.offset_gib), c.memory.fitted_on);
    write_errors(out, c.memory.applied, c.memory.model_error, c.memory.median_error, c.memory.max_error);
  }
  out += "    measured:\n";
  for (const auto& p : c.provenance) {
    out += fmt::format("      - origin: {}\n", yaml_quoted(p.origin));
    for (const auto& [key, value] : {std::pair{"id", &p.id}, std::pair{"flags", &p.what},
                                     std::pair{"source", &p.source}, std::pair{"date", &p.date}}) {
      if (!value->empty()) {
        out += fmt::format("        {}: {}\n", key, yaml_quoted(*value));
      }
    }
    if (p.refused != CalibrationProvenance::Refusal::none) {
      out += fmt::format("        refused: {}\n", to_string(p.refused));
    }
    if ((p.refused == CalibrationProvenance::Refusal::below_bound ||
         p.refused == CalibrationProvenance::Refusal::above_bound)) {
      out += fmt::format("        bound_share: {}\n        bound_tokens_per_s: {}\n", number(p.bound_share),
                         number(p.bound_tokens_per_s));
    }
    for (const auto& f : p.figures) {
      out += fmt::format("        {}: {{measured: {}, before: {}, after: {}", f.metric, number(f.measured),
                         number(f.before), number(f.after));
      out += f.left_out ? fmt::format(", left_out: {}}}\n", number(*f.left_out)) : std::string("}\n");
    }
  }
}

class CalibrationParser {
 public:
  CalibrationParser(const std::string& file, const Catalog& catalog)
      : m_diagnostics(file), m_file(file), m_catalog(catalog) {}

  std::vector<Calibration> parse(std::string_view text) {
    const YAML::Node document = yaml::parse(text, m_diagnostics);
    m_diagnostics.throw_if_any();
    if (!document.IsDefined() || document.IsNull()) {
      m_diagnostics.error(YAML::Mark::null_mark(), "", "the file is empty; expected version and calibrations");
      m_diagnostics.throw_if_any();
    }
    MapReader top(m_diagnostics, document, "");
    if (const auto version = top.integer("version", Presence::required, 1, 1000);
        version && *version != calibration_file_version) {
      m_diagnostics.error(document, "version",
                          fmt::format("version {} is not supported; expected {}", *version, calibration_file_version));
    }
    std::vector<Calibration> out;
    if (const auto list = top.node("calibrations", Presence::required)) {
      if (!list->IsSequence() || list->size() == 0) {
        m_diagnostics.error(*list, "calibrations", "expected a list of calibrations");
      } else {
        std::map<std::string, int> first;
        std::size_t index = 0;
        for (const auto& item : *list) {
          const std::string path = fmt::format("calibrations[{}]", index++);
          Calibration c = read_one(item, path);
          const std::string key = fmt::format("{} {} {}", to_string(c.kind), c.gpu, c.key);
          if (const auto [at, inserted] = first.emplace(key, yaml::line_of(item)); !inserted) {
            m_diagnostics.error(item, path,
                                fmt::format("a second {} calibration of {} and {} (first at line {})",
                                            to_string(c.kind), c.gpu, c.key, at->second));
          }
          out.push_back(std::move(c));
        }
      }
    }
    top.finish();
    m_diagnostics.throw_if_any();
    return out;
  }

 private:
  Calibration read_one(const YAML::Node& node, const std::string& path) {
    MapReader map(m_diagnostics, node, path);
    Calibration c;
    c.file = m_file;
    c.kind = map.enumeration<CalibrationKind>("kind", Presence::required).value_or(CalibrationKind::training);
    if (const auto gpu = map.string("gpu", Presence::required)) {
      const Catalog::Lookup found = m_catalog.find(*gpu);
      if (found.match != nullptr) {
        c.gpu = found.match->id;
      } else {
        m_diagnostics.error(
            *map.node("gpu", Presence::required), map.child_path("gpu"),
            fmt::format("'{}' is not a card of the catalog{}", *gpu,
                        found.suggestion ? fmt::format("; did you mean '{}'?", *found.suggestion) : std::string()));
      }
    }
    if (c.kind == CalibrationKind::training) {
      c.key = std::string(to_string(map.enumeration<Stack>("stack", Presence::required).value_or(Stack::hf)));
    } else {
      c.key = std::string(
          to_string(map.enumeration<ServingEngine>("engine", Presence::required).value_or(ServingEngine::vllm)));
    }
    c.created = map.string("created", Presence::required).value_or("");
    c.newest = map.string("newest", Presence::optional).value_or("");
    for (const auto* date : {&c.created, &c.newest}) {
      if (!date->empty() && (date->size() != 10 || !yaml::is_partial_date(*date))) {
        m_diagnostics.error(node, path, fmt::format("'{}' is not a date; expected YYYY-MM-DD", *date));
      }
    }
    c.measurements = static_cast<int>(map.integer("measurements", Presence::required, 0, 1'000'000).value_or(0));
    read_speed(map, c);
    if (c.kind == CalibrationKind::training) {
      read_memory(map, c);
    }
    read_measured(map, c);
    map.finish();
    return c;
  }

  // `applied: false` (a fit no better than the model, kept as modelled).
  bool read_applied(MapReader& map) {
    const auto raw = map.string("applied", Presence::optional);
    if (raw && *raw != "false" && *raw != "true") {
      m_diagnostics.error(*map.node("applied", Presence::optional), map.child_path("applied"),
                          "expected true or false");
    }
    return raw && *raw == "true";
  }

  void read_speed(MapReader& parent, Calibration& c) {
    const auto node = parent.node("speed", Presence::required);
    if (!node) {
      return;
    }
    MapReader map(m_diagnostics, *node, parent.child_path("speed"));
    c.speed.factor = map.number("factor", Presence::required, Bounds{0.02, 50.0, true}).value_or(1.0);
    c.speed.fitted_on = static_cast<int>(map.integer("fitted_on", Presence::required, 0, 1'000'000).value_or(0));
    c.speed.applied = !map.node("applied", Presence::optional) || read_applied(map);
    c.speed.model_error = map.number("model_error", Presence::optional, Bounds{0, 1e15, false});
    c.speed.median_error = map.number("median_error", Presence::optional, Bounds{0, 1e15, false});
    c.speed.max_error = map.number("max_error", Presence::optional, Bounds{0, 1e15, false});
    if (const auto band = map.node("band", Presence::optional)) {
      if (!band->IsSequence() || band->size() != 2) {
        m_diagnostics.error(*band, map.child_path("band"), "expected [low, high], low at most 1 and high at least 1");
      } else {
        const auto low = yaml::read_number(m_diagnostics, (*band)[0], map.child_path("band"), Bounds{0.01, 1.0, true});
        const auto high =
            yaml::read_number(m_diagnostics, (*band)[1], map.child_path("band"), Bounds{1.0, 100.0, true});
        if (low && high) {
          c.speed.band_low = low;
          c.speed.band_high = high;
        }
      }
    }
    map.finish();
  }

  void read_memory(MapReader& parent, Calibration& c) {
    const auto node = parent.node("memory", Presence::required);
    if (!node) {
      return;
    }
    MapReader map(m_diagnostics, *node, parent.child_path("memory"));
    c.memory.scale = map.number("scale", Presence::required, Bounds{0.5, 2.0, true}).value_or(1.0);
    c.memory.offset_gib = map.number("offset_gib", Presence::required, Bounds{-1e6, 1e6, false}).value_or(0);
    c.memory.fitted_on = static_cast<int>(map.integer("fitted_on", Presence::required, 0, 1'000'000).value_or(0));
    c.memory.applied = !map.node("applied", Presence::optional) || read_applied(map);
    c.memory.model_error = map.number("model_error", Presence::optional, Bounds{0, 1e15, false});
    c.memory.median_error = map.number("median_error", Presence::optional, Bounds{0, 1e15, false});
    c.memory.max_error = map.number("max_error", Presence::optional, Bounds{0, 1e15, false});
    map.finish();
  }

  void read_measured(MapReader& parent, Calibration& c) {
    const auto list = parent.node("measured", Presence::optional);
    if (!list) {
      return;
    }
    if (!list->IsSequence()) {
      m_diagnostics.error(*list, parent.child_path("measured"), "expected a list of the measurements fitted");
      return;
    }
    std::size_t index = 0;
    for (const auto& item : *list) {
      MapReader map(m_diagnostics, item, fmt::format("{}[{}]", parent.child_path("measured"), index++));
      CalibrationProvenance p;
      p.origin = map.string("origin", Presence::required).value_or("");
      p.id = map.string("id", Presence::optional).value_or("");
      p.what = map.string("flags", Presence::optional).value_or("");
      p.source = map.string("source", Presence::optional).value_or("");
      p.date = map.string("date", Presence::optional).value_or("");
      p.refused = map.enumeration<CalibrationProvenance::Refusal>("refused", Presence::optional)
                      .value_or(CalibrationProvenance::Refusal::none);
      if ((p.refused == CalibrationProvenance::Refusal::below_bound ||
           p.refused == CalibrationProvenance::Refusal::above_bound)) {
        p.bound_share = map.number("bound_share", Presence::required, Bounds{0, 1e15, false}).value_or(0);
        p.bound_tokens_per_s = map.number("bound_tokens_per_s", Presence::required).value_or(0);
      }
      for (const char* metric : figure_metrics) {
        if (const auto figure = map.node(metric, Presence::optional)) {
          MapReader f(m_diagnostics, *figure, map.child_path(metric));
          CalibrationFigure out;
          out.metric = metric;
          out.measured = f.number("measured", Presence::required).value_or(0);
          out.before = f.number("before", Presence::required).value_or(0);
          out.after = f.number("after", Presence::required).value_or(0);
          out.left_out = f.number("left_out", Presence::optional);
          f.finish();
          p.figures.push_back(out);
        }
      }
      map.finish();
      c.provenance.push_back(std::move(p));
    }
  }

  yaml::Diagnostics m_diagnostics;
  std::string m_file;
  const Catalog& m_catalog;
};

}  // namespace

std::string write_calibration_file(std::span<const Calibration> calibrations, std::string_view tool) {
  std::string out = fmt::format(
      "# gpu-advise calibration (docs/calibration.md), made by {} calibrate.\n"
      "# Use it with --calibration FILE; check an edited copy with gpu-advise calibrate --check FILE.\n"
      "# speed.factor multiplies the kernel efficiency (training) or the engine's speed (serving);\n"
      "# memory: the measured peak = scale x the model's peak less its reserve + offset_gib.\n"
      "version: {}\ncalibrations:\n",
      tool, calibration_file_version);
  for (const Calibration& c : calibrations) {
    write_one(out, c);
  }
  return out;
}

std::vector<Calibration> parse_calibration_file(std::string_view text, const std::string& file,
                                                const Catalog& catalog) {
  return CalibrationParser(file, catalog).parse(text);
}

std::vector<Calibration> load_calibration_file(const std::string& file, const Catalog& catalog) {
  return parse_calibration_file(read_data_file(file), file, catalog);
}

}  // namespace gpu_advise
