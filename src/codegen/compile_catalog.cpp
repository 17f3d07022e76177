// Build-time tool: parses data/gpus.yaml with the run-time loader (so the
// build fails, with located diagnostics, on a catalog the program would
// reject) and writes the catalog out as C++ statements that rebuild it.
//
//   compile_catalog INPUT.yaml SOURCE-NAME OUTPUT.cpp
//
// Strings are written with octal escapes for anything outside printable ASCII,
// doubles in their shortest round-trip form and enums by value (name in a comment), so the compiled
// catalog equals the parsed one field for field (tests/unit/test_compiled_catalog.cpp).
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gpu_advise/catalog.hpp"
#include "gpu_advise/error.hpp"
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
    out += fmt::format("      PriceQuote{{{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}}},\n", number(q.low_usd),
                       number(q.high_usd), literal(q.provider), enumerator("PriceKind", q.kind),
                       enumerator("Condition", q.condition), enumerator("Region", q.region), literal(q.date),
                       literal(q.source), enumerator("Currency", q.quoted_in), number(q.low_quoted),
                       number(q.high_quoted));
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
    out << fmt::format("  g.availability[{}] = Availability{{{}, {}, {}, {}, {}, {}, {}, {}, {}}};\n",
                       enumerator("Region", region), enumerator("AvailabilityStatus", a.status), literal(a.verified),
                       literal(a.since), literal(a.note), enumerator("Supply", a.new_supply),
                       literal(a.new_supply_since), literal(a.banned_since), literal(a.licensed_shipments_since),
                       importer);
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
  out << fmt::format("// Generated by src/codegen/compile_catalog.cpp from {}. Do not edit.\n", input);
  out << "#include \"load/compiled_catalog.hpp\"\n\nnamespace gpu_advise::compiled {\nnamespace {\n\n";
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

Catalog relabel(const Catalog& parsed, const std::string& origin) {
  CatalogInfo info = parsed.info();
  info.origins = {origin};
  std::vector<GpuSpec> gpus = parsed.gpus();
  for (auto& gpu : gpus) {
    gpu.origin = origin;
  }
  return Catalog(std::move(info), std::move(gpus), parsed.efficiency());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: compile_catalog INPUT.yaml SOURCE-NAME OUTPUT.cpp\n";
    return 2;
  }
  const std::string input = argv[1];
  const std::string output = argv[3];
  try {
    // Parsed under its real path, so a build error points at the file to edit;
    // the cards are then labelled with the name the binary reports.
    const Catalog parsed = parse_catalog(read_data_file(input), input, CatalogRole::base);
    const Catalog catalog = relabel(parsed, argv[2]);
    const std::string temporary = output + ".tmp";
    {
      std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
      write_catalog(out, catalog, argv[2]);
      out.flush();
      if (!out) {
        std::cerr << "compile_catalog: cannot write " << temporary << "\n";
        return 1;
      }
    }
    if (std::rename(temporary.c_str(), output.c_str()) != 0) {
      std::cerr << "compile_catalog: cannot rename " << temporary << " to " << output << "\n";
      return 1;
    }
  } catch (const DataError& e) {
    std::cerr << input << " does not validate, so the build stops here:\n";
    for (const auto& diagnostic : e.diagnostics()) {
      std::cerr << "  " << diagnostic.to_string() << "\n";
    }
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "compile_catalog: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
