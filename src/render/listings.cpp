// The listings in text: the catalog ('list'), one card ('show'), the model
// presets ('models') and the rules ('rules').
#include <algorithm>

#include <fmt/format.h>

#include "core/quantity_format.hpp"
#include "gpu_advise/render.hpp"
#include "gpu_advise/text.hpp"
#include "gpu_advise/units.hpp"
#include "gpu_advise/words.hpp"
#include "render/text_table.hpp"

namespace gpu_advise {

using render::Align;
using render::Overflow;
using render::Table;

namespace {
std::size_t width_of(const TextStyle& style) { return static_cast<std::size_t>(std::max(style.width, 0)); }

// `catalog show` lists this many of a card's price-file quotes, cheapest first
// (`prices FILE` summarises them all).
constexpr std::size_t max_listed_imported_quotes = 12;

// A table for a listing: "Title: value" for the cells moved under their row.
Table listing_table(std::vector<render::Column> columns, Language l) {
  Table table(std::move(columns));
  table.set_label_separator(say(l, Phrase::explain_label_text, "", ""));
  return table;
}
}  // namespace

// Too wide: the confidence, TDP, China and scale-up move under their row
// first, the name last; the id stays.
std::string render_catalog_list_text(const Catalog& catalog, Language l, const TextStyle& style) {
  Table table = listing_table({{"ID", 99, Align::left, Overflow::keep},
                               {say(l, Phrase::list_name), 50},
                               {say(l, Phrase::list_memory), 9, Align::right},
                               {"GB/s", 7, Align::right},
                               {"BF16 TF", 8, Align::right},
                               {"FP8 TF", 6, Align::right},
                               {say(l, Phrase::list_scale_up), 4},
                               {"TDP W", 2, Align::right},
                               {say(l, Phrase::list_china), 3},
                               {say(l, Phrase::list_rent_h), 5, Align::right},
                               {say(l, Phrase::list_confidence), 1}},
                              l);
  for (const auto& g : catalog.gpus()) {
    const auto* cn = g.availability_in(Region::cn);
    const auto rent = price_range(g.rent_usd_per_gpu_hour, Region::global);
    table.add_row(
        {g.id, g.name, fmt::format("{} GB {}", format::number(g.memory.size_gb), g.memory.type),
         format::number(g.memory.bandwidth_gb_per_s), g.compute.has_bf16 ? format::number(g.compute.bf16_tflops) : "-",
         g.compute.fp8_tflops ? format::number(*g.compute.fp8_tflops) : "-",
         g.interconnect.domain_size > 1
             ? fmt::format("{} GB/s x{}", format::number(g.interconnect.bandwidth_gb_per_s), g.interconnect.domain_size)
             : say(l, Phrase::list_pcie_only),
         g.tdp_w ? format::number(*g.tdp_w) : "?", cn ? std::string(to_string(cn->status)) : "?",
         rent ? fmt::format("{:.2f}", rent->typical) : "-", std::string(to_string(g.confidence))});
  }
  return render::wrap_lines(
             say(l, Phrase::list_catalog_intro, catalog.size(), catalog.info().version, catalog.info().updated),
             width_of(style)) +
         table.to_string("", width_of(style));
}

std::string render_rules_text(const RuleSet& rules, Language l, const TextStyle& style) {
  std::string out = say(l, Phrase::list_rules_intro, rules.rules().size());
  for (const auto tier : {BudgetTier::low, BudgetTier::medium, BudgetTier::high}) {
    const auto w = rules.weights(tier);
    out += fmt::format(" {} {:g}/{:g}/{:g}/{:g};", to_string(tier), w.cost, w.speed, w.headroom, w.risk);
  }
  out = render::wrap_lines(out, width_of(style), "  ") + "\n\n";
  Table table = listing_table({{"ID", 9, Align::left, Overflow::keep},
                               {say(l, Phrase::list_effect), 5},
                               {say(l, Phrase::list_points), 4, Align::right},
                               {say(l, Phrase::list_origin), 1, Align::left, Overflow::stack, true}},
                              l);
  for (const auto& rule : rules.rules()) {
    table.add_row({rule.id, std::string(to_string(rule.effect)),
                   rule.points == 0 ? std::string("") : fmt::format("{:+g}", rule.points), rule.origin});
  }
  return out + table.to_string("", width_of(style));
}

std::string render_models_text(const ModelCatalog& models, Language l, const TextStyle& style) {
  Table table = listing_table({{"ID", 99, Align::left, Overflow::keep},
                               {say(l, Phrase::list_name), 50},
                               {say(l, Phrase::list_params), 9, Align::right},
                               {say(l, Phrase::list_active), 8, Align::right},
                               {say(l, Phrase::list_layers), 4, Align::right},
                               {say(l, Phrase::list_hidden), 3, Align::right},
                               {say(l, Phrase::list_kv_heads), 5, Align::right},
                               {say(l, Phrase::list_context), 6, Align::right},
                               {say(l, Phrase::list_attention), 2, Align::left, Overflow::stack, true}},
                              l);
  for (const auto& m : models.models()) {
    std::string attention = m.mla ? "MLA" : m.kv_heads < m.heads ? "GQA" : "MHA";
    if (m.sliding_window) {
      attention += say(l, Phrase::list_sliding_window, m.sliding_window->size, m.sliding_window->layers);
    }
    table.add_row({m.id, m.name, format_parameter_count(m.params),
                   m.is_moe() ? format_parameter_count(m.active_params) : "-", std::to_string(m.layers),
                   std::to_string(m.hidden), std::to_string(m.kv_heads),
                   m.max_context > 0 ? std::to_string(m.max_context) : "?", attention});
  }
  return render::wrap_lines(say(l, Phrase::list_models_intro, models.models().size()), width_of(style)) +
         table.to_string("", width_of(style));
}

std::string render_gpu_text(const GpuSpec& g, const ExchangeRate& rate, Language l, const TextStyle& style,
                            const std::vector<PriceQuote>& imported) {
  const std::size_t width = width_of(style);
  std::string out;
  // A line wrapped to the width, its continuation lines starting with `hang`.
  auto line = [&](const std::string& text, std::size_t hang) {
    out += render::wrap_lines(text, width, std::string(hang, ' ')) + "\n";
  };
  // A field's value continues under the value (under the label when the width is small).
  const std::size_t value_column = width == 0 || width >= 60 ? 25 : 4;
  auto field = [&](std::string_view label, const std::string& value, std::string_view key_path = {}) {
    std::string confidence;
    if (!key_path.empty() && g.confidence_of(key_path) != g.confidence) {
      confidence = fmt::format("  [{}]", to_string(g.confidence_of(key_path)));
    }
    line(fmt::format("  {:<22} {}{}", label, value, confidence), value_column);
  };
  auto optional_number = [](const std::optional<double>& v, std::string_view unit) {
    return v ? fmt::format("{} {}", format::number(*v), unit) : std::string("not supported / not published");
  };
  line(fmt::format("{} ({})", g.name, g.id), 2);
  field(say(l, Phrase::list_vendor), std::string(display_name(g.vendor)));
  field(say(l, Phrase::list_architecture),
        fmt::format("{}{}", display_name(g.architecture), g.chip.empty() ? "" : " (" + g.chip + ")"));
  field(say(l, Phrase::list_release_year), std::to_string(g.release_year), "release_year");
  if (!g.launched.empty()) {
    field(say(l, Phrase::list_launched), g.launched, "launched");
  }
  field(say(l, Phrase::list_form_factor), std::string(to_string(g.form_factor)));
  if (!g.aliases.empty()) {
    field(say(l, Phrase::list_aliases), text::join(g.aliases, ", "));
  }
  out += say(l, Phrase::list_memory_section);
  field(say(l, Phrase::list_size_label), fmt::format("{} GB {}", format::number(g.memory.size_gb), g.memory.type),
        "memory.size_gb");
  field(say(l, Phrase::list_usable_capacity),
        fmt::format("{} GiB ({:.1f} GB)", format::number(g.memory.capacity_gib), g.capacity_gb()),
        "memory.capacity_gib");
  field(say(l, Phrase::list_bandwidth), fmt::format("{} GB/s", format::number(g.memory.bandwidth_gb_per_s)),
        "memory.bandwidth_gb_per_s");
  out += say(l, Phrase::list_dense_compute_no_sparsity);
  field("FP64", optional_number(g.compute.fp64_tflops, "TFLOPS"), "compute.fp64_tflops");
  field("TF32", optional_number(g.compute.tf32_tflops, "TFLOPS"), "compute.tf32_tflops");
  field("BF16",
        optional_number(g.compute.has_bf16 ? std::optional<double>(g.compute.bf16_tflops) : std::nullopt, "TFLOPS"),
        "compute.bf16_tflops");
  field("FP16", optional_number(g.compute.fp16_tflops, "TFLOPS"), "compute.fp16_tflops");
  field("FP8", optional_number(g.compute.fp8_tflops, "TFLOPS"), "compute.fp8_tflops");
  field("FP4", optional_number(g.compute.fp4_tflops, "TFLOPS"), "compute.fp4_tflops");
  field("INT8", optional_number(g.compute.int8_tops, "TOPS"), "compute.int8_tops");
  out += say(l, Phrase::list_scale_up_section);
  field(say(l, Phrase::list_interconnect), g.interconnect.name, "interconnect.name");
  field(say(l, Phrase::list_bandwidth_per_gpu),
        fmt::format("{} GB/s (bidirectional)", format::number(g.interconnect.bandwidth_gb_per_s)),
        "interconnect.bandwidth_gb_per_s");
  field(say(l, Phrase::list_domain), fmt::format("{} GPUs", g.interconnect.domain_size), "interconnect.domain_size");
  field("PCIe", g.pcie_gen ? fmt::format("Gen{}", *g.pcie_gen) : "n/a", "pcie_gen");
  field("TDP", g.tdp_w ? fmt::format("{} W", format::number(*g.tdp_w)) : "not published", "tdp_w");
  field(say(l, Phrase::list_software), std::string(display_name(g.software)));
  out += say(l, Phrase::list_node) + "\n";
  field(say(l, Phrase::list_gpus_per_node), std::to_string(g.node.gpus_per_node), "node.gpus_per_node");
  field(say(l, Phrase::list_scale_out),
        g.node.scale_out_gbps_per_gpu > 0
            ? fmt::format("{} Gb/s, {}", format::number(g.node.scale_out_gbps_per_gpu), g.node.scale_out_fabric)
            : std::string("not given"),
        "node.scale_out_gbps_per_gpu");
  std::vector<std::string> shapes;
  for (const int shape : g.node.rent_shapes) {
    shapes.push_back(std::to_string(shape));
  }
  field(say(l, Phrase::list_rent_shapes), shapes.empty() ? std::string("-") : text::join(shapes, ", ") + " GPUs",
        "node.rent_shapes");
  out += say(l, Phrase::list_availability);
  for (const auto& [region, a] : g.availability) {
    std::string value(to_string(a.status));
    if (!a.since.empty()) {
      value += fmt::format(" since {}", a.since);
    }
    value += fmt::format(" (verified {})", a.verified);
    if (!a.note.empty()) {
      value += ": " + a.note;
    }
    field(to_string(region), value, fmt::format("availability.{}", to_string(region)));
    std::vector<std::string> facts;
    if (a.new_supply == Supply::discontinued) {
      facts.push_back(a.new_supply_since.empty() ? std::string("discontinued")
                                                 : fmt::format("discontinued since {}", a.new_supply_since));
    }
    if (!a.banned_since.empty()) {
      facts.push_back(fmt::format("exports banned from {}", a.banned_since));
    }
    if (!a.licensed_shipments_since.empty()) {
      facts.push_back(fmt::format("licensed shipments since {}", a.licensed_shipments_since));
    }
    facts.push_back(g.legal_stock_in(region) ? "legal stock: yes" : "legal stock: no");
    if (a.importer) {
      facts.push_back(fmt::format("importer {} (verified {}): {}", to_string(a.importer->stance), a.importer->verified,
                                  a.importer->note));
    }
    field("", text::join(facts, "; "));
  }
  auto quotes = [&](std::string_view title, const std::vector<PriceQuote>& list, bool purchase) {
    if (list.empty()) {
      field(title, "no sourced quote");
      return;
    }
    for (const Region region : {Region::global, Region::cn}) {
      const auto range = price_range(list, region);
      if (range) {
        // Chinese prices in CNY at the catalog's rate, the rest in USD.
        const format::MoneyUnit unit = region == Region::cn && rate.cny_per_usd > 0
                                           ? format::MoneyUnit{Currency::cny, rate.cny_per_usd}
                                           : format::MoneyUnit{};
        field(fmt::format("{} ({})", title, to_string(region)),
              fmt::format("{} typical ({} to {})", format::money(range->typical, unit), format::money(range->low, unit),
                          format::money(range->high, unit)));
      }
    }
    for (const auto& q : list) {
      const std::string amount = format::quoted_amount(q);
      line(fmt::format("    {} {}{}, {} ({}; {})", amount,
                       purchase ? std::string(to_string(q.condition)) : std::string(to_string(q.kind)),
                       q.region == Region::global ? "" : fmt::format(" [{}]", to_string(q.region)), q.provider, q.date,
                       q.source),
           6);
    }
  };
  out += say(l, Phrase::list_prices_indicative);
  quotes("rent per GPU-hour", g.rent_usd_per_gpu_hour, false);
  quotes("purchase per card", g.purchase_usd_per_card, true);
  if (!imported.empty()) {  // cheapest first: what a plan would be rented as
    out += "  " + say(l, Phrase::list_prices_from_files, imported.size()) + "\n";
    std::vector<const PriceQuote*> sorted;
    sorted.reserve(imported.size());
    for (const auto& q : imported) {
      sorted.push_back(&q);
    }
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const PriceQuote* a, const PriceQuote* b) { return a->low_usd < b->low_usd; });
    const std::size_t shown = std::min<std::size_t>(sorted.size(), max_listed_imported_quotes);
    for (std::size_t k = 0; k < shown; ++k) {
      const PriceQuote& q = *sorted[k];
      const std::string shape = q.gpus_per_instance > 0
                                    ? say(l, Phrase::list_imported_shape, q.instance_type, q.gpus_per_instance)
                                    : say(l, Phrase::list_imported_per_gpu);
      line("    " + say(l, Phrase::list_imported_quote, format::quoted_amount(q), describe(q.kind, l),
                        q.region == Region::global ? "" : fmt::format(" [{}]", to_string(q.region)), q.provider,
                        q.location, shape, q.date, q.origin),
           6);
    }
    if (sorted.size() > shown) {
      line("    " + say(l, Phrase::list_imported_more, sorted.size() - shown), 6);
    }
  }
  line(fmt::format("{}: {}", say(l, Phrase::list_confidence_field), to_string(g.confidence)), 2);
  out += say(l, Phrase::list_sources);
  for (const auto& s : g.sources) {
    line(fmt::format("  - {}", s), 4);
  }
  if (!g.notes.empty()) {
    line(fmt::format("{}: {}", say(l, Phrase::list_notes), g.notes), 2);
  }
  return out;
}

}  // namespace gpu_advise
