// Parses catalog YAML (data/gpus.yaml at build time, --catalog files at run time) strictly: unknown keys,
// bad enum values, wrong types, missing or out-of-range values and duplicate
// ids are all reported, located, before failing.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "gpu_advise/catalog.hpp"
#include "gpu_advise/error.hpp"
#include "gpu_advise/prices.hpp"
#include "load/catalog_names.hpp"
#include "load/catalog_prices.hpp"
#include "load/files.hpp"
#include "load/yaml_reader.hpp"

namespace gpu_advise {

namespace {

using yaml::Bounds;
using yaml::Lines;
using yaml::MapReader;
using yaml::Presence;

constexpr int supported_schema_version = 1;

// Physical plausibility limits: far above any card of today, so a typo of
// orders of magnitude (or a sparse-for-dense mix-up by 1000x) is caught.
constexpr Bounds memory_gb_bounds{1, 4096, true};
constexpr Bounds bandwidth_bounds{10, 100000, true};
constexpr Bounds tflops_bounds{0.01, 100000, true};
constexpr Bounds interconnect_bounds{1, 100000, true};
constexpr Bounds tdp_bounds{10, 5000, true};
constexpr Bounds rent_bounds{min_rent_usd_per_gpu_hour, max_rent_usd_per_gpu_hour, true};
constexpr Bounds purchase_bounds{50, 10000000, true};
constexpr Bounds exchange_rate_bounds{0.5, 50, true};
constexpr Bounds scale_out_bounds{0.1, 100000, true};

bool valid_id(std::string_view id) {
  return !id.empty() && std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
  });
}

class CatalogParser {
 public:
  CatalogParser(std::string_view source, CatalogRole role, const Catalog* base)
      : m_diagnostics(std::string(source)), m_role(role), m_base(base) {}

  Catalog parse(std::string_view text) {
    const YAML::Node document = yaml::parse(text, m_diagnostics);
    if (!m_diagnostics.empty()) {
      m_diagnostics.throw_if_any();
    }
    if (!document.IsDefined() || document.IsNull()) {
      m_diagnostics.error(YAML::Mark::null_mark(), "", "the file is empty; expected schema_version and gpus");
      m_diagnostics.throw_if_any();
    }
    CatalogInfo info;
    info.origins.push_back(m_diagnostics.source());
    std::vector<GpuSpec> gpus;

    MapReader top(m_diagnostics, document, "");
    if (const auto version = top.integer("schema_version", Presence::required, 1, 1000)) {
      if (*version != supported_schema_version) {
        m_diagnostics.error(*top.node("schema_version", Presence::required), "schema_version",
                            fmt::format("version {} is not supported; this gpu-advise reads version {}", *version,
                                        supported_schema_version));
      }
    }
    if (const auto header =
            top.node("catalog", m_role == CatalogRole::base ? Presence::required : Presence::optional)) {
      MapReader catalog(m_diagnostics, *header, "catalog");
      info.version = catalog.string("version", Presence::required).value_or("");
      info.updated = date(catalog, "updated", Presence::required).value_or("");
      if (const auto rate_node = catalog.node("exchange_rate", Presence::optional);
          rate_node && m_role == CatalogRole::overlay) {
        m_diagnostics.error(*rate_node, "catalog.exchange_rate",
                            "an overlay cannot set the exchange rate: its cny prices are converted at the built-in "
                            "catalog's rate, so that every figure uses one rate");
      } else if (rate_node) {
        MapReader rate(m_diagnostics, *rate_node, catalog.child_path("exchange_rate"));
        info.exchange_rate.cny_per_usd =
            rate.number("cny_per_usd", Presence::required, exchange_rate_bounds).value_or(0);
        info.exchange_rate.date = date(rate, "date", Presence::required).value_or("");
        info.exchange_rate.source = rate.string("source", Presence::required).value_or("");
        rate.finish();
      }
      catalog.finish();
    }
    m_rate = info.exchange_rate.cny_per_usd;
    if (m_rate == 0 && m_base != nullptr) {
      m_rate = m_base->info().exchange_rate.cny_per_usd;  // an overlay's CNY quotes use the catalog's rate
    }
    if (const auto list = top.node("gpus", Presence::required)) {
      if (!list->IsSequence()) {
        m_diagnostics.error(*list, "gpus", "expected a list of cards");
      } else {
        std::size_t index = 0;
        for (const auto& item : *list) {
          gpus.push_back(card(item, fmt::format("gpus[{}]", index++)));
        }
        if (index == 0) {
          m_diagnostics.error(*list, "gpus", "the list is empty; a catalog needs at least one card");
        }
      }
    }
    std::map<Architecture, Efficiency> efficiency;
    if (const auto list =
            top.node("architectures", m_role == CatalogRole::base ? Presence::required : Presence::optional)) {
      efficiency = architectures(*list);
      if (m_role == CatalogRole::base) {
        for (const auto& name : enum_names<Architecture>()) {
          if (efficiency.count(*enum_from_string<Architecture>(name)) == 0) {
            m_diagnostics.error(*list, "architectures", fmt::format("no entry for architecture '{}'", name));
          }
        }
      }
    }
    top.finish();
    check_card_names(m_diagnostics, m_names, gpus, m_base);
    m_diagnostics.throw_if_any();
    return Catalog(std::move(info), std::move(gpus), std::move(efficiency));
  }

 private:
  std::optional<std::string> date(MapReader& map, std::string_view key, Presence presence) {
    return read_date(m_diagnostics, map, key, presence);
  }

  GpuSpec card(const YAML::Node& node, const std::string& path) {
    GpuSpec gpu;
    gpu.origin = m_diagnostics.source();
    MapReader map(m_diagnostics, node, path);
    if (!map.valid()) {
      return gpu;
    }
    if (auto id = map.string("id", Presence::required)) {
      if (!valid_id(*id)) {
        m_diagnostics.error(*map.node("id", Presence::required), map.child_path("id"),
                            fmt::format("'{}' is not a valid id; use lower-case letters, digits, '-' and '.'", *id));
      }
      gpu.id = std::move(*id);
      m_names.ids.push_back({gpu.id, map.child_path("id"), *map.node("id", Presence::required)});
    }
    gpu.aliases = map.string_list("aliases", Presence::optional).value_or(std::vector<std::string>{});
    if (const auto list = map.node("aliases", Presence::optional); list && list->IsSequence()) {
      std::size_t index = 0;
      for (const auto& item : *list) {
        if (item.IsScalar() && !item.Scalar().empty()) {
          m_names.aliases.push_back(
              {gpu.id, item.Scalar(), fmt::format("{}[{}]", map.child_path("aliases"), index), item});
        }
        ++index;
      }
    }
    gpu.vendor = map.enumeration<Vendor>("vendor", Presence::required).value_or(Vendor::nvidia);
    gpu.name = map.string("name", Presence::required).value_or("");
    gpu.architecture = map.enumeration<Architecture>("architecture", Presence::required).value_or(Architecture::ampere);
    gpu.chip = map.string("chip", Presence::optional).value_or("");
    gpu.release_year = static_cast<int>(map.integer("release_year", Presence::required, 1990, 2100).value_or(0));
    gpu.form_factor = map.enumeration<FormFactor>("form_factor", Presence::required).value_or(FormFactor::pcie);
    const Presence base_only = m_role == CatalogRole::base ? Presence::required : Presence::optional;
    gpu.launched = date(map, "launched", base_only).value_or("");
    if (const auto node_node = map.node("node", base_only)) {
      read_node(gpu, *node_node, map.child_path("node"));
    }

    if (const auto memory_node = map.node("memory", Presence::required)) {
      MapReader memory(m_diagnostics, *memory_node, map.child_path("memory"));
      gpu.memory.size_gb = memory.number("size_gb", Presence::required, memory_gb_bounds).value_or(0);
      gpu.memory.capacity_gib = memory.number("capacity_gib", Presence::required, memory_gb_bounds).value_or(0);
      gpu.memory.type = memory.string("type", Presence::required).value_or("");
      gpu.memory.bandwidth_gb_per_s =
          memory.number("bandwidth_gb_per_s", Presence::required, bandwidth_bounds).value_or(0);
      memory.finish();
      if (gpu.memory.size_gb > 0 && gpu.memory.capacity_gib > gpu.memory.size_gb * 1.1) {
        m_diagnostics.error(*memory.node("capacity_gib", Presence::required), memory.child_path("capacity_gib"),
                            fmt::format("{} GiB is more than the card's {} GB label allows; capacity_gib is what the "
                                        "runtime reports, in GiB",
                                        gpu.memory.capacity_gib, gpu.memory.size_gb));
      }
    }

    if (const auto compute_node = map.node("compute", Presence::required)) {
      MapReader compute(m_diagnostics, *compute_node, map.child_path("compute"));
      auto& c = gpu.compute;
      c.fp64_tflops = compute.number("fp64_tflops", Presence::optional, tflops_bounds);
      c.tf32_tflops = compute.number("tf32_tflops", Presence::optional, tflops_bounds);
      // A card without BF16 (Turing) omits bf16_tflops; its FP16 rate stands in.
      const auto bf16 = compute.number("bf16_tflops", Presence::optional, tflops_bounds);
      c.fp16_tflops = compute.number("fp16_tflops", Presence::optional, tflops_bounds);
      c.has_bf16 = bf16.has_value();
      c.bf16_tflops = bf16.value_or(c.fp16_tflops.value_or(0));
      if (!bf16 && !c.fp16_tflops) {
        m_diagnostics.error(*compute_node, map.child_path("compute"),
                            "give bf16_tflops, or fp16_tflops for a card without BF16");
      }
      c.fp8_tflops = compute.number("fp8_tflops", Presence::optional, tflops_bounds);
      c.fp4_tflops = compute.number("fp4_tflops", Presence::optional, tflops_bounds);
      c.int8_tops = compute.number("int8_tops", Presence::optional, tflops_bounds);
      compute.finish();
    }

    if (const auto link_node = map.node("interconnect", Presence::required)) {
      MapReader link(m_diagnostics, *link_node, map.child_path("interconnect"));
      gpu.interconnect.name = link.string("name", Presence::required).value_or("");
      gpu.interconnect.bandwidth_gb_per_s =
          link.number("bandwidth_gb_per_s", Presence::required, interconnect_bounds).value_or(0);
      gpu.interconnect.domain_size =
          static_cast<int>(link.integer("domain_size", Presence::required, 1, 100000).value_or(1));
      link.finish();
    }

    if (const auto pcie = map.integer("pcie_gen", Presence::optional, 1, 10)) {
      gpu.pcie_gen = static_cast<int>(*pcie);
    }
    gpu.tdp_w = map.number("tdp_w", Presence::optional, tdp_bounds);
    gpu.software = map.enumeration<SoftwareStack>("software", Presence::required).value_or(SoftwareStack::cuda);

    if (const auto availability_node = map.node("availability", Presence::required)) {
      read_availability(gpu, *availability_node, map.child_path("availability"));
    }
    if (const auto prices_node = map.node("prices", Presence::optional)) {
      MapReader prices(m_diagnostics, *prices_node, map.child_path("prices"));
      gpu.rent_usd_per_gpu_hour =
          read_quotes(m_diagnostics, prices, "rent_usd_per_gpu_hour", rent_bounds, false, m_rate, m_role);
      gpu.purchase_usd_per_card =
          read_quotes(m_diagnostics, prices, "purchase_usd_per_card", purchase_bounds, true, m_rate, m_role);
      prices.finish();
    }

    gpu.confidence = map.enumeration<Confidence>("confidence", Presence::required).value_or(Confidence::estimate);
    if (const auto field_node = map.node("field_confidence", Presence::optional)) {
      read_field_confidence(gpu, *field_node, map.child_path("field_confidence"));
    }
    gpu.sources = map.string_list("sources", Presence::required).value_or(std::vector<std::string>{});
    if (gpu.sources.empty() && map.node("sources", Presence::optional)) {
      m_diagnostics.error(*map.node("sources", Presence::optional), map.child_path("sources"),
                          "every card needs at least one source");
    }
    gpu.notes = map.string("notes", Presence::optional, Lines::many).value_or("");
    map.finish();
    if (m_base != nullptr) {
      // An overlay that replaces a card and leaves out its launch month or
      // node keeps the built-in card's (older overlay files have neither).
      for (const auto& built_in : m_base->gpus()) {
        if (built_in.id == gpu.id) {
          gpu.launched = gpu.launched.empty() ? built_in.launched : gpu.launched;
          gpu.node = map.node("node", Presence::optional) ? gpu.node : built_in.node;
        }
      }
    }
    if (m_role == CatalogRole::base) {
      check_supply_dates(gpu, map);
    }
    return gpu;
  }

  // A card cannot stop being made before it launched.
  void check_supply_dates(const GpuSpec& gpu, MapReader& map) {
    for (const auto& [region, a] : gpu.availability) {
      if (!a.new_supply_since.empty() && !gpu.launched.empty() &&
          a.new_supply_since.substr(0, std::min(a.new_supply_since.size(), gpu.launched.size())) <
              gpu.launched.substr(0, std::min(a.new_supply_since.size(), gpu.launched.size()))) {
        if (const auto node = map.node("launched", Presence::optional)) {
          m_diagnostics.error(*node, map.child_path("launched"),
                              fmt::format("launched {} is after new_supply_since {} ({}): one of the dates is wrong",
                                          gpu.launched, a.new_supply_since, to_string(region)));
        }
      }
    }
  }

  void read_node(GpuSpec& gpu, const YAML::Node& node, const std::string& path) {
    MapReader map(m_diagnostics, node, path);
    NodeSpec& n = gpu.node;
    n.gpus_per_node = static_cast<int>(map.integer("gpus_per_node", Presence::required, 1, 1024).value_or(8));
    n.scale_out_gbps_per_gpu = map.number("scale_out_gbps_per_gpu", Presence::required, scale_out_bounds).value_or(0);
    n.scale_out_fabric = map.string("scale_out_fabric", Presence::required).value_or("");
    if (const auto shapes = map.node("rent_shapes", Presence::required)) {
      const auto shapes_path = map.child_path("rent_shapes");
      if (!shapes->IsSequence() || shapes->size() == 0) {
        m_diagnostics.error(*shapes, shapes_path, "expected a list of GPU counts, such as [1, 2, 4, 8]");
      } else {
        std::size_t index = 0;
        for (const auto& item : *shapes) {
          const auto item_path = fmt::format("{}[{}]", shapes_path, index++);
          if (const auto count = yaml::read_number(m_diagnostics, item, item_path, Bounds{1, 100000, true})) {
            if (*count != static_cast<double>(static_cast<int>(*count))) {
              m_diagnostics.error(item, item_path, fmt::format("{} is not a whole number of GPUs", item.Scalar()));
            } else if (!n.rent_shapes.empty() && *count <= n.rent_shapes.back()) {
              m_diagnostics.error(item, item_path, "list the counts in increasing order, each once");
            } else {
              n.rent_shapes.push_back(static_cast<int>(*count));
            }
          }
        }
      }
    }
    map.finish();
  }

  void read_availability(GpuSpec& gpu, const YAML::Node& node, const std::string& path) {
    MapReader regions(m_diagnostics, node, path);
    for (const auto& [region, name] : {std::pair{Region::global, "global"}, std::pair{Region::cn, "cn"}}) {
      const auto region_node = regions.node(name, Presence::required);
      if (!region_node) {
        continue;
      }
      MapReader entry(m_diagnostics, *region_node, regions.child_path(name));
      Availability availability;
      availability.status =
          entry.enumeration<AvailabilityStatus>("status", Presence::required).value_or(AvailabilityStatus::available);
      availability.verified = date(entry, "verified", Presence::required).value_or("");
      // The built-in catalog dates every status; an overlay may leave it open.
      availability.since =
          date(entry, "since", m_role == CatalogRole::base ? Presence::required : Presence::optional).value_or("");
      availability.note = entry.string("note", Presence::optional).value_or("");
      availability.new_supply = entry.enumeration<Supply>("new_supply", Presence::optional).value_or(Supply::available);
      availability.new_supply_since = date(entry, "new_supply_since", Presence::optional).value_or("");
      const Presence ban_date = m_role == CatalogRole::base && availability.status == AvailabilityStatus::banned
                                    ? Presence::required
                                    : Presence::optional;
      availability.banned_since = date(entry, "banned_since", ban_date).value_or("");
      availability.licensed_shipments_since = date(entry, "licensed_shipments_since", Presence::optional).value_or("");
      if (const auto importer_node = entry.node("importer", Presence::optional)) {
        MapReader importer(m_diagnostics, *importer_node, entry.child_path("importer"));
        ImporterStance stance;
        stance.stance = importer.enumeration<Stance>("stance", Presence::required).value_or(Stance::neutral);
        stance.since = date(importer, "since", Presence::optional).value_or("");
        stance.verified = date(importer, "verified", Presence::required).value_or("");
        stance.note = importer.string("note", Presence::optional).value_or("");
        importer.finish();
        availability.importer = std::move(stance);
      }
      availability.unconfirmed = entry.string("unconfirmed", Presence::optional).value_or("");
      entry.finish();
      gpu.availability[region] = std::move(availability);
    }
    regions.finish();
  }

  void read_field_confidence(GpuSpec& gpu, const YAML::Node& node, const std::string& path) {
    if (!node.IsMap()) {
      m_diagnostics.error(node, path, "expected a mapping of key paths to datasheet, secondary or estimate");
      return;
    }
    const auto valid_paths = confidence_key_paths();
    const std::vector<std::string> valid(valid_paths.begin(), valid_paths.end());
    MapReader map(m_diagnostics, node, path);
    for (const auto& pair : node) {
      if (!pair.first.IsScalar()) {
        continue;  // reported by finish()
      }
      const std::string& key = pair.first.Scalar();
      if (std::find(valid.begin(), valid.end(), key) == valid.end()) {
        continue;  // left undeclared: finish() reports it with a did-you-mean
      }
      if (const auto level = map.enumeration<Confidence>(key, Presence::required)) {
        gpu.field_confidence[key] = *level;
      }
    }
    for (const auto& key : valid) {
      map.declare(key);
    }
    map.finish();
  }

  std::optional<Range> range(MapReader& map, std::string_view key, Bounds bounds) {
    const auto node = map.node(key, Presence::required);
    if (!node) {
      return std::nullopt;
    }
    MapReader r(m_diagnostics, *node, map.child_path(key));
    const auto low = r.number("low", Presence::required, bounds);
    const auto typical = r.number("typical", Presence::required, bounds);
    const auto high = r.number("high", Presence::required, bounds);
    r.finish();
    if (!low || !typical || !high) {
      return std::nullopt;
    }
    if (!(*low <= *typical && *typical <= *high)) {
      m_diagnostics.error(*node, map.child_path(key), "expected low <= typical <= high");
      return std::nullopt;
    }
    return Range{*low, *typical, *high};
  }

  std::map<Architecture, Efficiency> architectures(const YAML::Node& list) {
    std::map<Architecture, Efficiency> out;
    if (!list.IsSequence()) {
      m_diagnostics.error(list, "architectures", "expected a list of architecture entries");
      return out;
    }
    constexpr Bounds fraction{0.01, 1.0, true};
    std::size_t index = 0;
    for (const auto& item : list) {
      const auto path = fmt::format("architectures[{}]", index++);
      MapReader map(m_diagnostics, item, path);
      if (!map.valid()) {
        continue;
      }
      const auto architecture = map.enumeration<Architecture>("architecture", Presence::required);
      Efficiency e;
      e.training_mfu = range(map, "training_mfu", fraction).value_or(e.training_mfu);
      e.fine_tune_mfu = range(map, "fine_tune_mfu", fraction).value_or(e.fine_tune_mfu);
      e.decode_bandwidth = range(map, "decode_bandwidth_efficiency", fraction).value_or(e.decode_bandwidth);
      e.prefill_compute = range(map, "prefill_compute_efficiency", fraction).value_or(e.prefill_compute);
      e.sources = map.string_list("sources", Presence::required).value_or(std::vector<std::string>{});
      (void)map.string("notes", Presence::optional, Lines::many);
      map.finish();
      if (architecture) {
        if (out.count(*architecture) > 0) {
          m_diagnostics.error(item, path, fmt::format("duplicate entry for '{}'", to_string(*architecture)));
        }
        out[*architecture] = e;
      }
    }
    return out;
  }

  yaml::Diagnostics m_diagnostics;
  double m_rate = 0;  // CNY per USD for cny quotes
  CatalogRole m_role;
  const Catalog* m_base;  // the catalog an overlay goes on top of, if any
  CardNames m_names;      // where each id and alias is, for check_card_names()
};

}  // namespace

Catalog parse_catalog(std::string_view text, std::string_view source, CatalogRole role, const Catalog* base) {
  return CatalogParser(source, role, base).parse(text);
}

Catalog load_catalog_file(const std::filesystem::path& path, CatalogRole role, const Catalog* base) {
  return parse_catalog(read_data_file(path), text::printable(path.string()), role, base);
}

}  // namespace gpu_advise
