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
  const std::string since = months_before(catalog.info().updated, 12);
  for (const auto& g : catalog.gpus()) {
    const auto* cn = g.availability_in(Region::cn);
    const auto rent = rent_price(g.rent_usd_per_gpu_hour, Region::global, std::nullopt, since);
    table.add_row(
        {g.id, g.name, fmt::format("{} GB {}", format::number(g.memory.size_gb), g.memory.type),
         format::number(g.memory.bandwidth_gb_per_s), g.compute.has_bf16 ? format::number(g.compute.bf16_tflops) : "-",
         g.compute.fp8_tflops ? format::number(*g.compute.fp8_tflops) : "-",
         g.interconnect.domain_size > 1
             ? fmt::format("{} GB/s x{}", format::number(g.interconnect.bandwidth_gb_per_s), g.interconnect.domain_size)
             : say(l, Phrase::list_pcie_only),
         g.tdp_w ? format::number(*g.tdp_w) : "?", cn ? catalog_word(cn->status, l) : "?",
         rent ? fmt::format("{:.2f}", rent->range.typical) : "-", catalog_word(g.confidence, l)});
  }
  return render::wrap_lines(
             say(l, Phrase::list_catalog_intro, catalog.size(), catalog.info().version, catalog.info().updated),
             width_of(style)) +
         table.to_string("", width_of(style));
}

std::string render_rules_text(const RuleSet& rules, Language l, const TextStyle& style) {
  std::string out =
      render::wrap_lines(say(l, Phrase::list_rules_intro, rules.rules().size()), width_of(style), "  ") + "\n\n";
  Table table = listing_table({{"ID", 9, Align::left, Overflow::keep},
                               {say(l, Phrase::list_effect), 5},
                               {say(l, Phrase::list_origin), 1, Align::left, Overflow::stack, true}},
                              l);
  for (const auto& rule : rules.rules()) {
    table.add_row({rule.id, describe(rule.effect, l), rule.origin});
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
    if (m.linear_attention) {
      attention += say(l, Phrase::list_linear_attention, m.linear_attention->layers);
    }
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

namespace {

// `catalog show`, a section at a time: lines wrapped to the width, fields as
// "  label                  value  [confidence]".
struct CardText {
  const GpuSpec& g;
  Language l;
  std::size_t width;
  std::string out;

  // A line wrapped to the width, its continuation lines starting with `hang`.
  void line(const std::string& text, std::size_t hang) {
    out += render::wrap_lines(text, width, std::string(hang, ' ')) + "\n";
  }
  // A field's value continues under the value (under the label when the width
  // is small); a figure less sure than the card as a whole says so.
  void field(std::string_view label, const std::string& value, std::string_view key_path = {}) {
    const std::size_t value_column = width == 0 || width >= 60 ? 25 : 4;
    std::string confidence;
    if (!key_path.empty() && g.confidence_of(key_path) != g.confidence) {
      confidence = "  " + say(l, Phrase::list_field_confidence, catalog_word(g.confidence_of(key_path), l));
    }
    line(fmt::format("  {:<22} {}{}", label, value, confidence), value_column);
  }
  void heading(Phrase title) { out += say(l, title); }
};

void card_identity(CardText& c) {
  const GpuSpec& g = c.g;
  const Language l = c.l;
  c.line(fmt::format("{} ({})", g.name, g.id), 2);
  c.field(say(l, Phrase::list_vendor), std::string(display_name(g.vendor)));
  const std::string architecture(display_name(g.architecture));
  c.field(say(l, Phrase::list_architecture),
          g.chip.empty() ? architecture : say(l, Phrase::list_parenthesis, architecture, source_text(g.chip, l)));
  c.field(say(l, Phrase::list_release_year), std::to_string(g.release_year), "release_year");
  if (!g.launched.empty()) {
    c.field(say(l, Phrase::list_launched), g.launched, "launched");
  }
  c.field(say(l, Phrase::list_form_factor), catalog_word(g.form_factor, l));
  if (!g.aliases.empty()) {
    c.field(say(l, Phrase::list_aliases), text::join(g.aliases, say(l, Phrase::list_item_separator)));
  }
}

void card_memory(CardText& c) {
  const GpuSpec& g = c.g;
  const Language l = c.l;
  c.heading(Phrase::list_memory_section);
  c.field(say(l, Phrase::list_size_label), fmt::format("{} GB {}", format::number(g.memory.size_gb), g.memory.type),
          "memory.size_gb");
  c.field(say(l, Phrase::list_usable_capacity),
          fmt::format("{} GiB ({:.1f} GB)", format::number(g.memory.capacity_gib), g.capacity_gb()),
          "memory.capacity_gib");
  c.field(say(l, Phrase::list_bandwidth), fmt::format("{} GB/s", format::number(g.memory.bandwidth_gb_per_s)),
          "memory.bandwidth_gb_per_s");
}

void card_compute(CardText& c) {
  const GpuSpec& g = c.g;
  auto optional_number = [&](const std::optional<double>& v, std::string_view unit) {
    return v ? fmt::format("{} {}", format::number(*v), unit) : say(c.l, Phrase::list_not_supported);
  };
  c.heading(Phrase::list_dense_compute_no_sparsity);
  c.field("FP64", optional_number(g.compute.fp64_tflops, "TFLOPS"), "compute.fp64_tflops");
  c.field("TF32", optional_number(g.compute.tf32_tflops, "TFLOPS"), "compute.tf32_tflops");
  c.field("BF16",
          optional_number(g.compute.has_bf16 ? std::optional<double>(g.compute.bf16_tflops) : std::nullopt, "TFLOPS"),
          "compute.bf16_tflops");
  c.field("FP16", optional_number(g.compute.fp16_tflops, "TFLOPS"), "compute.fp16_tflops");
  c.field("FP8", optional_number(g.compute.fp8_tflops, "TFLOPS"), "compute.fp8_tflops");
  c.field("FP4", optional_number(g.compute.fp4_tflops, "TFLOPS"), "compute.fp4_tflops");
  c.field("INT8", optional_number(g.compute.int8_tops, "TOPS"), "compute.int8_tops");
}

void card_scale_up(CardText& c) {
  const GpuSpec& g = c.g;
  const Language l = c.l;
  c.heading(Phrase::list_scale_up_section);
  c.field(say(l, Phrase::list_interconnect), source_text(g.interconnect.name, l), "interconnect.name");
  c.field(say(l, Phrase::list_bandwidth_per_gpu),
          say(l, Phrase::list_bidirectional, format::number(g.interconnect.bandwidth_gb_per_s)),
          "interconnect.bandwidth_gb_per_s");
  c.field(say(l, Phrase::list_domain), say(l, Phrase::list_gpus, g.interconnect.domain_size),
          "interconnect.domain_size");
  c.field("PCIe", g.pcie_gen ? fmt::format("Gen{}", *g.pcie_gen) : say(l, Phrase::value_not_applicable), "pcie_gen");
  c.field("TDP", g.tdp_w ? fmt::format("{} W", format::number(*g.tdp_w)) : say(l, Phrase::list_not_published), "tdp_w");
  c.field(say(l, Phrase::list_software), describe(g.software, l));
}

void card_node(CardText& c) {
  const GpuSpec& g = c.g;
  const Language l = c.l;
  c.out += say(l, Phrase::list_node) + "\n";
  c.field(say(l, Phrase::list_gpus_per_node), std::to_string(g.node.gpus_per_node), "node.gpus_per_node");
  c.field(say(l, Phrase::list_scale_out),
          g.node.scale_out_gbps_per_gpu > 0
              ? say(l, Phrase::list_scale_out_value, format::number(g.node.scale_out_gbps_per_gpu),
                    source_text(g.node.scale_out_fabric, l))
              : say(l, Phrase::list_not_given),
          "node.scale_out_gbps_per_gpu");
  std::vector<std::string> shapes;
  for (const int shape : g.node.rent_shapes) {
    shapes.push_back(std::to_string(shape));
  }
  c.field(say(l, Phrase::list_rent_shapes),
          shapes.empty() ? std::string("-")
                         : say(l, Phrase::list_gpus, text::join(shapes, say(l, Phrase::list_item_separator))),
          "node.rent_shapes");
}

// One region: its status, dates and note, then the facts the rules use.
void card_availability(CardText& c, Region region, const Availability& a) {
  const Language l = c.l;
  std::string value = catalog_word(a.status, l);
  if (!a.since.empty()) {
    value += say(l, Phrase::list_since, a.since);
  }
  value += say(l, Phrase::list_verified, a.verified);
  if (!a.note.empty()) {
    value += say(l, Phrase::reason_colon) + source_text(a.note, l);
  }
  c.field(catalog_word(region, l), value, fmt::format("availability.{}", to_string(region)));
  std::vector<std::string> facts;
  if (a.new_supply == Supply::discontinued) {
    facts.push_back(a.new_supply_since.empty() ? say(l, Phrase::list_discontinued)
                                               : say(l, Phrase::list_discontinued_since, a.new_supply_since));
  }
  if (!a.banned_since.empty()) {
    facts.push_back(say(l, Phrase::list_exports_banned, a.banned_since));
  }
  if (!a.licensed_shipments_since.empty()) {
    facts.push_back(say(l, Phrase::list_licensed_shipments, a.licensed_shipments_since));
  }
  if (!a.unconfirmed.empty()) {
    facts.push_back(say(l, Phrase::list_unconfirmed, source_text(a.unconfirmed, l)));
  }
  facts.push_back(
      say(l, Phrase::list_legal_stock, say(l, c.g.legal_stock_in(region) ? Phrase::value_yes : Phrase::value_no)));
  if (a.importer) {
    facts.push_back(say(l, Phrase::list_importer, catalog_word(a.importer->stance, l), a.importer->verified,
                        source_text(a.importer->note, l)));
  }
  c.field("", text::join(facts, say(l, Phrase::reason_separator)));
}

// " [cn]" after a quote outside the global market; nothing for a global one.
std::string region_tag(Region region, Language l) {
  return region == Region::global ? std::string() : say(l, Phrase::list_region_tag, catalog_word(region, l));
}

// A rent quote's market tier as the listings show it: the catalog's word in
// English, its meaning in Chinese; a term's length after it.
std::string tier_word(const PriceQuote& q, Language l) {
  std::string word = l == Language::en ? std::string(to_string(q.tier)) : describe(q.tier, l);
  if (q.term_months > 0) {
    word += say(l, Phrase::list_term_months, q.term_months);
  }
  return word;
}

// The catalog's rent quotes: per region the typical and each market tier
// (Chinese prices in CNY at the catalog's rate, the rest in USD), then each
// quote with its tier and source, flagged when far above the typical or too
// old to count.
void card_rent_quotes(CardText& c, const CatalogInfo& info, const std::vector<PriceQuote>& list) {
  const Language l = c.l;
  const std::string title = say(l, Phrase::list_rent_per_gpu_hour);
  if (list.empty()) {
    c.field(title, say(l, Phrase::list_no_sourced_quote));
    return;
  }
  const ExchangeRate& rate = info.exchange_rate;
  const std::string since = months_before(info.updated, 12);
  for (const Region region : {Region::global, Region::cn}) {
    const format::MoneyUnit unit = region == Region::cn && rate.cny_per_usd > 0
                                       ? format::MoneyUnit{Currency::cny, rate.cny_per_usd}
                                       : format::MoneyUnit{};
    const auto typical = rent_price(list, region, std::nullopt, since);
    if (!typical) {
      continue;
    }
    c.field(say(l, Phrase::list_parenthesis, title, catalog_word(region, l)),
            say(l, Phrase::list_typical_range, format::money(typical->range.typical, unit),
                format::money(typical->range.low, unit), format::money(typical->range.high, unit)) +
                say(l, Phrase::list_typical_tier, describe(typical->tier, l)));
    for (const RentPrice& tier : rent_tiers(list, region, since)) {
      const std::string name = describe(tier.tier, l);
      c.line(
          "    " + (tier.quotes == 1
                        ? say(l, Phrase::list_tier_one, name, format::money(tier.range.typical, unit), tier.newest)
                        : say(l, Phrase::list_tier, name, format::money(tier.range.typical, unit), tier.quotes,
                              format::money(tier.range.low, unit), format::money(tier.range.high, unit), tier.newest)),
          6);
    }
  }
  c.line("  " + say(l, Phrase::list_quotes_heading), 4);
  for (const auto& q : list) {
    std::string flags;
    if (!dated_since(q.date, since)) {
      flags = say(l, Phrase::list_quote_stale);
    } else if (over_twice_typical(q, list, since)) {
      const format::MoneyUnit unit = q.quoted_in == Currency::cny && rate.cny_per_usd > 0
                                         ? format::MoneyUnit{Currency::cny, rate.cny_per_usd}
                                         : format::MoneyUnit{};
      flags = say(l, Phrase::list_quote_flag,
                  format::money(rent_price(list, q.region, std::nullopt, since)->range.typical, unit));
    }
    c.line("    " +
               say(l, Phrase::list_quote, format::quoted_amount(q), tier_word(q, l), region_tag(q.region, l),
                   source_text(q.provider, l), q.date, source_text(q.source, l)) +
               flags,
           6);
  }
}

// The catalog's purchase quotes: the range per market and condition (new and
// used are never one median), then each quote with its source.
void card_purchase_quotes(CardText& c, const ExchangeRate& rate, const std::vector<PriceQuote>& list) {
  const Language l = c.l;
  const std::string title = say(l, Phrase::list_purchase_per_card);
  if (list.empty()) {
    c.field(title, say(l, Phrase::list_no_sourced_quote));
    return;
  }
  for (const Region region : {Region::global, Region::cn}) {
    for (const Condition condition : {Condition::new_card, Condition::used}) {
      std::vector<PriceQuote> same;
      std::copy_if(list.begin(), list.end(), std::back_inserter(same),
                   [&](const PriceQuote& q) { return q.condition == condition; });
      if (const auto range = price_range(same, region)) {
        const format::MoneyUnit unit = region == Region::cn && rate.cny_per_usd > 0
                                           ? format::MoneyUnit{Currency::cny, rate.cny_per_usd}
                                           : format::MoneyUnit{};
        c.field(say(l, Phrase::list_parenthesis, say(l, Phrase::list_parenthesis, title, catalog_word(condition, l)),
                    catalog_word(region, l)),
                say(l, Phrase::list_typical_range, format::money(range->typical, unit), format::money(range->low, unit),
                    format::money(range->high, unit)));
      }
    }
  }
  for (const auto& q : list) {
    c.line("    " + say(l, Phrase::list_quote, format::quoted_amount(q), catalog_word(q.condition, l),
                        region_tag(q.region, l), source_text(q.provider, l), q.date, source_text(q.source, l)),
           6);
  }
}

// The price files' quotes for the card, cheapest first: what a plan would be rented as.
void card_imported_quotes(CardText& c, const std::vector<PriceQuote>& imported) {
  const Language l = c.l;
  c.out += "  " + say(l, Phrase::list_prices_from_files, imported.size()) + "\n";
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
    c.line("    " + say(l, Phrase::list_imported_quote, format::quoted_amount(q), describe(q.kind, l),
                        region_tag(q.region, l), q.provider, q.location, shape, q.date, q.origin),
           6);
  }
  if (sorted.size() > shown) {
    c.line("    " + say(l, Phrase::list_imported_more, sorted.size() - shown), 6);
  }
}

void card_sources(CardText& c) {
  const GpuSpec& g = c.g;
  const Language l = c.l;
  c.line(say(l, Phrase::explain_label_text, say(l, Phrase::list_confidence_field), catalog_word(g.confidence, l)), 2);
  c.heading(Phrase::list_sources);
  for (const auto& s : g.sources) {
    c.line("  - " + source_text(s, l), 4);
  }
  if (!g.notes.empty()) {
    c.line(say(l, Phrase::explain_label_text, say(l, Phrase::list_notes), source_text(g.notes, l)), 2);
  }
}

}  // namespace

std::string render_gpu_text(const GpuSpec& g, const CatalogInfo& info, Language l, const TextStyle& style,
                            const std::vector<PriceQuote>& imported) {
  CardText c{g, l, width_of(style), {}};
  card_identity(c);
  card_memory(c);
  card_compute(c);
  card_scale_up(c);
  card_node(c);
  c.heading(Phrase::list_availability);
  for (const auto& [region, a] : g.availability) {
    card_availability(c, region, a);
  }
  c.heading(Phrase::list_prices_indicative);
  card_rent_quotes(c, info, g.rent_usd_per_gpu_hour);
  card_purchase_quotes(c, info.exchange_rate, g.purchase_usd_per_card);
  if (!imported.empty()) {
    card_imported_quotes(c, imported);
  }
  card_sources(c);
  return c.out;
}

}  // namespace gpu_advise
