// Build-time tool: parses the shipped data (data/gpus.yaml, data/rules.yaml,
// data/models.yaml) with the run-time loaders, so the build fails, with located
// diagnostics, on a file the program would reject, and writes each out as C++
// that rebuilds it: the binary starts with its data built instead of parsing
// YAML on every run (docs/performance.md).
//
//   compile_data catalog|rules|models INPUT.yaml SOURCE-NAME OUTPUT.cpp
//
// Strings are written with octal escapes for anything outside printable ASCII,
// doubles in their shortest round-trip form and enums by value (name in a
// comment), so the compiled data equals the parsed data field for field
// (tests/unit/test_compiled_data.cpp).
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gpu_advise/catalog.hpp"
#include "gpu_advise/error.hpp"
#include "gpu_advise/model.hpp"
#include "gpu_advise/rules.hpp"
#include "load/files.hpp"

namespace {

using namespace gpu_advise;

std::string literal(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20 || byte >= 0x7f || c == '?') {
      out += fmt::format("\\{:03o}", byte);  // at most three digits: never swallows what follows
    } else {
      out += c;
    }
  }
  return out + '"';
}

std::string number(double value) { return fmt::format("{}", value); }

// A double that stays a double where the type is not fixed (a FieldValue).
std::string double_literal(double value) {
  std::string text = number(value);
  if (text.find_first_of(".e") == std::string::npos) {
    text += ".0";
  }
  return text;
}

template <typename T>
std::string optional_number(const std::optional<T>& value) {
  return value ? fmt::format("{}", *value) : "std::nullopt";
}

template <typename E>
std::string enumerator(std::string_view type, E value) {
  return fmt::format("static_cast<{}>({}) /* {} */", type, static_cast<int>(value), to_string(value));
}

std::string range(const Range& r) {
  return fmt::format("Range{{{}, {}, {}}}", number(r.low), number(r.typical), number(r.high));
}

std::string strings(const std::vector<std::string>& list) {
  std::string out = "{";
  for (const auto& item : list) {
    out += literal(item) + ", ";
  }
  return out + "}";
}

std::string efficiency(const Efficiency& e) {
  return fmt::format("Efficiency{{{}, {}, {}, {}, {}}}", range(e.training_mfu), range(e.fine_tune_mfu),
                     range(e.decode_bandwidth), range(e.prefill_compute), strings(e.sources));
}

std::string quotes(const std::vector<PriceQuote>& list) {
  std::string out = "{\n";
  for (const auto& q : list) {
    // The catalog's own quotes: no instance, location or origin (those come from price files).
    out += fmt::format("      PriceQuote{{{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {{}}, 0, {{}}, {{}}, {}, {}}},\n",
                       number(q.low_usd), number(q.high_usd), literal(q.provider), enumerator("PriceKind", q.kind),
                       enumerator("Condition", q.condition), enumerator("Region", q.region), literal(q.date),
                       literal(q.source), enumerator("Currency", q.quoted_in), number(q.low_quoted),
                       number(q.high_quoted), enumerator("PriceTier", q.tier), q.term_months);
  }
  return out + "  }";
}

void write_card(std::ostream& out, std::size_t index, const GpuSpec& g) {
  out << fmt::format("GpuSpec card_{}() {{\n  GpuSpec g;\n", index);
  out << fmt::format("  g.id = {};\n  g.aliases = {};\n", literal(g.id), strings(g.aliases));
  out << fmt::format("  g.vendor = {};\n  g.name = {};\n", enumerator("Vendor", g.vendor), literal(g.name));
  out << fmt::format("  g.architecture = {};\n  g.chip = {};\n", enumerator("Architecture", g.architecture),
                     literal(g.chip));
  out << fmt::format("  g.release_year = {};\n  g.form_factor = {};\n", g.release_year,
                     enumerator("FormFactor", g.form_factor));
  out << fmt::format("  g.memory = MemorySpec{{{}, {}, {}, {}}};\n", number(g.memory.size_gb),
                     number(g.memory.capacity_gib), literal(g.memory.type), number(g.memory.bandwidth_gb_per_s));
  const ComputeSpec& c = g.compute;
  out << fmt::format("  g.compute = ComputeSpec{{{}, {}, {}, {}, {}, {}, {}, {}}};\n", optional_number(c.fp64_tflops),
                     optional_number(c.tf32_tflops), number(c.bf16_tflops), c.has_bf16, optional_number(c.fp16_tflops),
                     optional_number(c.fp8_tflops), optional_number(c.fp4_tflops), optional_number(c.int8_tops));
  out << fmt::format("  g.interconnect = InterconnectSpec{{{}, {}, {}}};\n", literal(g.interconnect.name),
                     number(g.interconnect.bandwidth_gb_per_s), g.interconnect.domain_size);
  out << fmt::format("  g.pcie_gen = {};\n  g.tdp_w = {};\n", optional_number(g.pcie_gen), optional_number(g.tdp_w));
  out << fmt::format("  g.software = {};\n", enumerator("SoftwareStack", g.software));
  out << fmt::format("  g.launched = {};\n", literal(g.launched));
  out << fmt::format("  g.node = NodeSpec{{{}, {}, {}, {{", g.node.gpus_per_node, number(g.node.scale_out_gbps_per_gpu),
                     literal(g.node.scale_out_fabric));
  for (const int shape : g.node.rent_shapes) {
    out << shape << ", ";
  }
  out << "}};\n";
  for (const auto& [region, a] : g.availability) {
    std::string importer = "std::nullopt";
    if (a.importer) {
      importer = fmt::format("ImporterStance{{{}, {}, {}, {}}}", enumerator("Stance", a.importer->stance),
                             literal(a.importer->since), literal(a.importer->verified), literal(a.importer->note));
    }
    out << fmt::format("  g.availability[{}] = Availability{{{}, {}, {}, {}, {}, {}, {}, {}, {}, {}}};\n",
                       enumerator("Region", region), enumerator("AvailabilityStatus", a.status), literal(a.verified),
                       literal(a.since), literal(a.note), enumerator("Supply", a.new_supply),
                       literal(a.new_supply_since), literal(a.banned_since), literal(a.licensed_shipments_since),
                       importer, literal(a.unconfirmed));
  }
  out << fmt::format("  g.rent_usd_per_gpu_hour = {};\n", quotes(g.rent_usd_per_gpu_hour));
  out << fmt::format("  g.purchase_usd_per_card = {};\n", quotes(g.purchase_usd_per_card));
  out << fmt::format("  g.confidence = {};\n", enumerator("Confidence", g.confidence));
  for (const auto& [path, confidence] : g.field_confidence) {
    out << fmt::format("  g.field_confidence[{}] = {};\n", literal(path), enumerator("Confidence", confidence));
  }
  out << fmt::format("  g.sources = {};\n  g.notes = {};\n", strings(g.sources), literal(g.notes));
  out << fmt::format("  g.efficiency = {};\n  g.origin = {};\n", efficiency(g.efficiency), literal(g.origin));
  out << "  return g;\n}\n\n";
}

void write_catalog(std::ostream& out, const Catalog& catalog, std::string_view input) {
  out << fmt::format("// Generated by src/codegen/compile_data.cpp from {}. Do not edit.\n", input);
  out << "#include \"load/compiled_data.hpp\"\n\nnamespace gpu_advise::compiled {\nnamespace {\n\n";
  for (std::size_t i = 0; i < catalog.gpus().size(); ++i) {
    write_card(out, i, catalog.gpus()[i]);
  }
  out << "}  // namespace\n\nCatalog catalog() {\n";
  const CatalogInfo& info = catalog.info();
  out << fmt::format("  CatalogInfo info{{{}, {}, {}, ExchangeRate{{{}, {}, {}}}, {}}};\n", info.schema_version,
                     literal(info.version), literal(info.updated), number(info.exchange_rate.cny_per_usd),
                     literal(info.exchange_rate.date), literal(info.exchange_rate.source), strings(info.origins));
  out << "  std::map<Architecture, Efficiency> efficiency;\n";
  for (const auto& [architecture, e] : catalog.efficiency()) {
    out << fmt::format("  efficiency[{}] = {};\n", enumerator("Architecture", architecture), efficiency(e));
  }
  out << fmt::format("  std::vector<GpuSpec> gpus;\n  gpus.reserve({});\n", catalog.gpus().size());
  for (std::size_t i = 0; i < catalog.gpus().size(); ++i) {
    out << fmt::format("  gpus.push_back(card_{}());\n", i);
  }
  out << "  return Catalog(std::move(info), std::move(gpus), std::move(efficiency));\n}\n\n"
         "}  // namespace gpu_advise::compiled\n";
}

// --- rules -------------------------------------------------------------------

std::string condition(const RuleCondition& c, int depth) {
  static constexpr std::string_view kinds[] = {"all", "any", "negate", "compare"};
  const std::string indent(static_cast<std::size_t>(2 * depth + 4), ' ');
  std::string out = fmt::format("RuleCondition{{\n{}.kind = static_cast<RuleCondition::Kind>({}) /* {} */,\n", indent,
                                static_cast<int>(c.kind), kinds[static_cast<std::size_t>(c.kind)]);
  if (!c.children.empty()) {
    out += indent + ".children = {";
    for (const auto& child : c.children) {
      out += condition(child, depth + 1) + ", ";
    }
    out += "},\n";
  }
  out += fmt::format("{}.field = {},\n{}.field_index = {},\n{}.op = {},\n{}.values = {{", indent, literal(c.field),
                     indent, c.field_index, indent, enumerator("Operator", c.op), indent);
  for (const auto& value : c.values) {
    if (const auto* n = std::get_if<double>(&value)) {
      out += fmt::format("FieldValue({}), ", double_literal(*n));
    } else if (const auto* text = std::get_if<std::string>(&value)) {
      out += fmt::format("FieldValue(std::string({})), ", literal(*text));
    } else {
      out += fmt::format("FieldValue({}), ", std::get<bool>(value));
    }
  }
  return out + "}}";
}

void write_rules(std::ostream& out, const RuleSet& rules, std::string_view input) {
  out << fmt::format("// Generated by src/codegen/compile_data.cpp from {}. Do not edit.\n", input);
  out << "#include \"load/compiled_data.hpp\"\n\nnamespace gpu_advise::compiled {\n\nRuleSet rules() {\n";
  out << fmt::format("  std::vector<Rule> list;\n  list.reserve({});\n", rules.rules().size());
  for (const Rule& r : rules.rules()) {
    out << fmt::format("  list.push_back(Rule{{\n    .id = {},\n    .when = {},\n    .effect = {},\n", literal(r.id),
                       condition(r.when, 1), enumerator("EffectKind", r.effect));
    out << "    .message = {";
    for (const auto& [language, text] : r.message) {
      out << fmt::format("{{{}, {}}}, ", enumerator("Language", language), literal(text));
    }
    out << fmt::format("}},\n    .origin = {},\n    .from_user = {}}});\n", literal(r.origin), r.from_user);
  }
  out << "  return RuleSet(std::move(list));\n}\n\n"
         "}  // namespace gpu_advise::compiled\n";
}

// --- model presets -----------------------------------------------------------

void write_models(std::ostream& out, const ModelCatalog& models, std::string_view input) {
  out << fmt::format("// Generated by src/codegen/compile_data.cpp from {}. Do not edit.\n", input);
  out << "#include \"load/compiled_data.hpp\"\n\nnamespace gpu_advise::compiled {\n\nModelCatalog models() {\n";
  out << fmt::format("  std::vector<ModelShape> list;\n  list.reserve({});\n", models.models().size());
  for (const ModelShape& m : models.models()) {
    out << fmt::format("  list.push_back(ModelShape{{\n    .id = {},\n    .aliases = {},\n    .sources = {},\n",
                       literal(m.id), strings(m.aliases), strings(m.sources));
    out << fmt::format("    .name = {},\n    .basis = {},\n    .source = {},\n    .inferred = {},\n", literal(m.name),
                       literal(m.basis), fmt::format("static_cast<ModelSource>({})", static_cast<int>(m.source)),
                       m.inferred);
    out << fmt::format("    .params = {},\n    .active_params = {},\n", number(m.params), number(m.active_params));
    out << fmt::format(
        "    .layers = {},\n    .hidden = {},\n    .heads = {},\n    .kv_heads = {},\n    .head_dim = {},\n"
        "    .ffn = {},\n    .vocab = {},\n    .tied_embeddings = {},\n    .max_context = {},\n"
        "    .scaled_context = {},\n",
        m.layers, m.hidden, m.heads, m.kv_heads, m.head_dim, m.ffn, m.vocab, m.tied_embeddings, m.max_context,
        m.scaled_context);
    out << "    .moe = "
        << (m.moe ? fmt::format("MoeSpec{{{}, {}, {}, {}, {}}}", m.moe->experts, m.moe->experts_per_token,
                                m.moe->expert_ffn, m.moe->shared_experts, m.moe->dense_layers)
                  : std::string("std::nullopt"))
        << ",\n";
    out << "    .mla = "
        << (m.mla ? fmt::format("MlaSpec{{{}, {}, {}, {}, {}}}", m.mla->kv_lora_rank, m.mla->q_lora_rank,
                                m.mla->qk_rope_head_dim, m.mla->qk_nope_head_dim, m.mla->v_head_dim)
                  : std::string("std::nullopt"))
        << ",\n";
    out << "    .sliding_window = "
        << (m.sliding_window ? fmt::format("SlidingWindow{{{}, {}}}", m.sliding_window->size, m.sliding_window->layers)
                             : std::string("std::nullopt"))
        << ",\n";
    out << "    .linear_attention = "
        << (m.linear_attention
                ? fmt::format("LinearAttention{{{}, {}, {}, {}, {}, {}, {}}}", m.linear_attention->layers,
                              m.linear_attention->key_heads, m.linear_attention->value_heads,
                              m.linear_attention->key_head_dim, m.linear_attention->value_head_dim,
                              m.linear_attention->conv_kernel, m.linear_attention->gated_attention)
                : std::string("std::nullopt"))
        << "});\n";
  }
  out << "  return ModelCatalog(std::move(list));\n}\n\n}  // namespace gpu_advise::compiled\n";
}

Catalog relabel(const Catalog& parsed, const std::string& origin) {
  CatalogInfo info = parsed.info();
  info.origins = {origin};
  std::vector<GpuSpec> gpus = parsed.gpus();
  for (auto& gpu : gpus) {
    gpu.origin = origin;
  }
  return Catalog(std::move(info), std::move(gpus), parsed.efficiency());
}

// The rules with their origins ("FILE:LINE") naming the embedded file, as the
// run-time loader would name it.
RuleSet relabel(const RuleSet& parsed, const std::string& input, const std::string& origin) {
  std::vector<Rule> rules = parsed.rules();
  for (auto& rule : rules) {
    rule.origin = origin + rule.origin.substr(input.size());
  }
  return RuleSet(std::move(rules));
}

// The generated source for `kind`, from `input` parsed under its real path (so
// a build error points at the file to edit), labelled with the name the binary
// reports (`source`).
std::string generate(std::string_view kind, const std::string& input, const std::string& source) {
  std::ostringstream out;
  const std::string text = read_data_file(input);
  if (kind == "catalog") {
    write_catalog(out, relabel(parse_catalog(text, input, CatalogRole::base), source), source);
  } else if (kind == "rules") {
    write_rules(out, relabel(parse_rules(text, input, RulesRole::base), input, source), source);
  } else {
    write_models(out, parse_models(text, input), source);  // a preset keeps no file name
  }
  return out.str();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string_view kind = argc > 1 ? argv[1] : "";
  if (argc != 5 || (kind != "catalog" && kind != "rules" && kind != "models")) {
    std::cerr << "usage: compile_data catalog|rules|models INPUT.yaml SOURCE-NAME OUTPUT.cpp\n";
    return 2;
  }
  const std::string input = argv[2];
  const std::string output = argv[4];
  try {
    const std::string generated = generate(kind, input, argv[3]);
    const std::string temporary = output + ".tmp";
    {
      std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
      out << generated;
      out.flush();
      if (!out) {
        std::cerr << "compile_data: cannot write " << temporary << "\n";
        return 1;
      }
    }
    if (std::rename(temporary.c_str(), output.c_str()) != 0) {
      std::cerr << "compile_data: cannot rename " << temporary << " to " << output << "\n";
      return 1;
    }
  } catch (const DataError& e) {
    std::cerr << input << " does not validate, so the build stops here:\n";
    for (const auto& diagnostic : e.diagnostics()) {
      std::cerr << "  " << diagnostic.to_string() << "\n";
    }
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "compile_data: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
