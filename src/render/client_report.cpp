// The consultant's report, in Markdown and in one self-contained HTML file:
// the Report's facts and words laid out as one document (document.hpp).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/quantity_format.hpp"
#include "gpu_advise/render.hpp"
#include "gpu_advise/text.hpp"
#include "gpu_advise/units.hpp"
#include "gpu_advise/words.hpp"
#include "render/comparison.hpp"
#include "render/document.hpp"
#include "render/own_rent.hpp"

namespace gpu_advise {

namespace document {

namespace {

constexpr std::size_t listed_cards = 8;     // rows of the comparison table; cards in the charts and the appendix
constexpr std::size_t explained_picks = 3;  // picks whose reasons are given

// The plans the report lists: the comparison's rows, the charts' points, the
// risks' cards and the appendix's cards.
std::size_t listed(const Report& report) { return std::min(report.recommendations.size(), listed_cards); }

std::string range_money(const std::optional<Range>& r, format::MoneyUnit unit, Language l) {
  if (!r) {
    return say(l, Phrase::no_price);
  }
  return fmt::format("{} ({} - {})", format::money(r->typical, unit), format::money(r->low, unit),
                     format::money(r->high, unit));
}

std::string say_confidence(Confidence level, Language l) {
  switch (level) {
    case Confidence::datasheet: return say(l, Phrase::confidence_datasheet);
    case Confidence::secondary: return say(l, Phrase::confidence_secondary);
    case Confidence::estimate: return say(l, Phrase::confidence_estimate);
  }
  return "?";
}

// "a, b, c": words in a list, joined as the language joins them.
std::string join_words(const std::vector<std::string>& words, Language l) {
  std::string out = words.empty() ? std::string() : words.front();
  for (std::size_t i = 1; i < words.size(); ++i) {
    out = say(l, Phrase::field_join, out, words[i]);
  }
  return out;
}

// "datasheet; secondary source: memory capacity, rental prices": the card's
// level, then the fields at another level, grouped by level.
std::string confidence_cell(const GpuSpec& g, Language l) {
  std::string out = say_confidence(g.confidence, l);
  for (const auto level : {Confidence::datasheet, Confidence::secondary, Confidence::estimate}) {
    std::vector<std::string> fields;
    for (const auto& [path, at] : g.field_confidence) {
      if (at == level && level != g.confidence) {
        fields.push_back(field_name(path, l));
      }
    }
    if (!fields.empty()) {
      out += say(l, Phrase::reason_separator) + say_confidence(level, l) + say(l, Phrase::fact_colon) +
             join_words(fields, l);
    }
  }
  return out;
}

// Who quoted, in a word: the provider's first word ("RunPod Secure Cloud":
// "RunPod"), none for a description ("provider averages across 11 providers").
std::string brand(const std::string& provider) {
  std::string word = provider.substr(0, provider.find(' '));
  while (!word.empty() && (word.back() == ':' || word.back() == ',')) {
    word.pop_back();
  }
  return word.empty() || (word.front() >= 'a' && word.front() <= 'z') ? std::string() : word;
}

// A source as the appendix lists it: its address, without the catalog's
// label of what it supports ("launched: ", "node: ") or its notes in
// brackets, and cut to fit about a line.
std::string brief_source(const std::string& source) {
  constexpr std::size_t longest = 46;
  std::string out = source.substr(0, source.find(" ("));
  for (const std::string_view label : {"launched: ", "node: ", "catalog: "}) {
    if (out.rfind(label, 0) == 0 && out.size() > label.size()) {
      out = out.substr(label.size());
    }
  }
  if (out.size() > longest) {
    const std::size_t space = out.rfind(' ', longest - 3);
    std::size_t cut = space == std::string::npos || space < longest / 2 ? longest - 3 : space;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) {
      --cut;  // not inside a UTF-8 character
    }
    out = out.substr(0, cut) + "...";
  }
  return out;
}

// "1-4, 7, 9": the numbers of a card's sources, runs joined.
std::string number_runs(std::vector<std::size_t> numbers) {
  std::sort(numbers.begin(), numbers.end());
  numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
  std::vector<std::string> runs;
  for (std::size_t i = 0; i < numbers.size();) {
    std::size_t j = i;
    while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1) {
      ++j;
    }
    runs.push_back(j == i ? std::to_string(numbers[i]) : fmt::format("{}-{}", numbers[i], numbers[j]));
    i = j + 1;
  }
  return text::join(runs, ", ");
}

// The appendix: for each card listed, the confidence of its figures, the
// quotes its cost comes from and its sources by number, then each source once.
void append_sources(std::vector<Block>& doc, const Report& report, Language l) {
  const Request& r = report.request;
  if (report.recommendations.empty()) {
    return;
  }
  doc.push_back(Heading{2, say(l, Phrase::section_sources), say(l, Phrase::appendix)});
  doc.push_back(Paragraph{say(l, Phrase::sources_intro), false, true});
  std::vector<std::string> sources;  // each once, numbered from 1 in order of first use
  auto number_of = [&](const std::string& source) {
    const auto found = std::find(sources.begin(), sources.end(), source);
    if (found != sources.end()) {
      return static_cast<std::size_t>(found - sources.begin()) + 1;
    }
    sources.push_back(source);
    return sources.size();
  };
  TableBlock cards;
  cards.header = {say(l, Phrase::col_gpu), say(l, Phrase::col_confidence),
                  say(l, r.mode == CostMode::rent ? Phrase::col_rent_quotes : Phrase::col_purchase_quotes),
                  say(l, Phrase::col_sources)};
  cards.numeric = {false, false, false, false};
  cards.small = true;
  const format::MoneyUnit unit = format::money_unit(r);
  for (std::size_t i = 0; i < listed(report); ++i) {
    const GpuSpec& g = report.recommendations[i].gpu;
    std::vector<std::size_t> numbers;
    for (const auto& source : g.sources) {
      numbers.push_back(number_of(brief_source(source)));
    }
    // The quotes the cost comes from (this mode, this region): their span and who quoted.
    std::optional<Range> span;
    std::vector<std::string> brands;
    for (const auto& q : r.mode == CostMode::rent ? g.rent_usd_per_gpu_hour : g.purchase_usd_per_card) {
      if (q.region != r.region) {
        continue;
      }
      span = span ? Range{std::min(span->low, q.low_usd), 0, std::max(span->high, q.high_usd)}
                  : Range{q.low_usd, 0, q.high_usd};
      if (const std::string b = brand(q.provider);
          !b.empty() && std::find(brands.begin(), brands.end(), b) == brands.end()) {
        brands.push_back(b);
      }
      if (!q.source.empty()) {
        numbers.push_back(number_of(brief_source(q.source)));
      }
    }
    std::string quotes = say(l, Phrase::none_found);
    if (span) {
      quotes = span->low == span->high
                   ? format::money(span->low, unit)
                   : fmt::format("{}-{}", format::money(span->low, unit), format::money(span->high, unit));
      if (!brands.empty()) {
        quotes += say(l, Phrase::fact_colon) + join_words(brands, l);
      }
    }
    cards.rows.push_back({fmt::format("{} ({})", g.name, g.id), confidence_cell(g, l), quotes,
                          numbers.empty() ? std::string("-") : number_runs(numbers)});
  }
  doc.push_back(cards);
  if (!sources.empty()) {
    doc.push_back(Heading{3, say(l, Phrase::sources_list)});
    doc.push_back(Bullets{sources, true, true});
  }
}

}  // namespace

KeyValues header_block(const ReportHeader& header, Language l) {
  KeyValues facts;
  facts.header = true;
  facts.colon = say(l, Phrase::fact_colon);
  for (const auto& [label, value] :
       {std::pair{Phrase::report_date, &header.date}, std::pair{Phrase::report_prepared_for, &header.prepared_for},
        std::pair{Phrase::report_prepared_by, &header.prepared_by}}) {
    if (!value->empty()) {
      facts.items.emplace_back(say(l, label), *value);
    }
  }
  return facts;
}

std::string short_layout(const Layout& layout, Task task, Language l) {
  if (layout.gpus() == 1) {
    return say(l, Phrase::layout_one);
  }
  if (task == Task::lora || task == Task::qlora) {
    return fmt::format("{}{}", layout.zero_stage >= 3 ? "FSDP" : "DP", layout.data);
  }
  std::vector<std::string> parts;
  for (const auto& [name, ways] :
       {std::pair{"TP", layout.tensor}, std::pair{"PP", layout.pipeline}, std::pair{"CP", layout.context},
        std::pair{"EP", layout.expert}, std::pair{"DP", layout.data}}) {
    if (ways > 1) {
      parts.push_back(fmt::format("{}{}", name, ways));
    }
  }
  std::string out = text::join(parts, "\u202f\u00d7\u202f");  // narrow no-break spaces: one line
  if (task != Task::inference && layout.data > 1 && layout.zero_stage > 0) {
    out += fmt::format(", ZeRO-{}", layout.zero_stage);
  }
  return out;
}

std::string layout_key(const std::vector<Layout>& layouts, Task task, Language l) {
  bool tp = false, pp = false, cp = false, ep = false, dp = false, fsdp = false, zero = false;
  for (const auto& layout : layouts) {
    if (layout.gpus() == 1) {
      continue;
    }
    if (task == Task::lora || task == Task::qlora) {
      (layout.zero_stage >= 3 ? fsdp : dp) = true;
      continue;
    }
    tp = tp || layout.tensor > 1;
    pp = pp || layout.pipeline > 1;
    cp = cp || layout.context > 1;
    ep = ep || layout.expert > 1;
    dp = dp || layout.data > 1;
    zero = zero || (task != Task::inference && layout.data > 1 && layout.zero_stage > 0);
  }
  std::vector<std::string> keys;
  for (const auto& [used, id] :
       {std::pair{tp, Phrase::key_tp}, std::pair{pp, Phrase::key_pp}, std::pair{cp, Phrase::key_cp},
        std::pair{ep, Phrase::key_ep}, std::pair{dp, Phrase::key_dp}, std::pair{fsdp, Phrase::key_fsdp},
        std::pair{zero, Phrase::key_zero}}) {
    if (used) {
      keys.push_back(say(l, id));
    }
  }
  return keys.empty() ? std::string() : say(l, Phrase::layout_key, text::join(keys, say(l, Phrase::reason_separator)));
}

std::string field_name(std::string_view path, Language l) {
  static constexpr std::pair<std::string_view, Phrase> fields[] = {
      {"memory.size_gb", Phrase::field_memory_size},
      {"memory.capacity_gib", Phrase::field_memory_capacity},
      {"memory.type", Phrase::field_memory_type},
      {"memory.bandwidth_gb_per_s", Phrase::field_memory_bandwidth},
      {"interconnect.name", Phrase::field_interconnect},
      {"interconnect.bandwidth_gb_per_s", Phrase::field_interconnect_bandwidth},
      {"interconnect.domain_size", Phrase::field_domain_size},
      {"pcie_gen", Phrase::field_pcie_gen},
      {"tdp_w", Phrase::field_tdp},
      {"release_year", Phrase::field_release_year},
      {"launched", Phrase::field_launched},
      {"node.gpus_per_node", Phrase::field_gpus_per_node},
      {"node.scale_out_gbps_per_gpu", Phrase::field_scale_out_bandwidth},
      {"node.scale_out_fabric", Phrase::field_scale_out_fabric},
      {"node.rent_shapes", Phrase::field_rent_shapes},
      {"prices.rent_usd_per_gpu_hour", Phrase::field_rent_prices},
      {"prices.purchase_usd_per_card", Phrase::field_purchase_prices}};
  for (const auto& [key, id] : fields) {
    if (key == path) {
      return say(l, id);
    }
  }
  static constexpr std::pair<std::string_view, std::string_view> compute[] = {
      {"compute.fp64_tflops", "FP64"}, {"compute.tf32_tflops", "TF32"}, {"compute.bf16_tflops", "BF16"},
      {"compute.fp16_tflops", "FP16"}, {"compute.fp8_tflops", "FP8"},   {"compute.fp4_tflops", "FP4"},
      {"compute.int8_tops", "INT8"}};
  for (const auto& [key, precision] : compute) {
    if (key == path) {
      return say(l, Phrase::field_compute, precision);
    }
  }
  if (path == "availability.global") {
    return say(l, Phrase::field_availability, say(l, Phrase::region_global));
  }
  if (path == "availability.cn") {
    return say(l, Phrase::field_availability, say(l, Phrase::region_cn));
  }
  return std::string(path);
}

std::vector<Block> build(const Report& report, Language l) { return build(report, l, ReportHeader{}); }

namespace {

// The title names the task and the model; the dated block follows when the
// header has anything to say.
void append_title(std::vector<Block>& doc, const Report& report, const ReportHeader& header, Language l) {
  const std::string model_name = model_label(report.model, l);
  const std::string model =
      l == Language::zh && report.model.source != ModelSource::inferred ? " " + model_name : model_name;
  doc.push_back(Heading{1, say(l, Phrase::report_title, describe(report.request.task, l), model)});
  if (KeyValues dated = header_block(header, l); !dated.items.empty()) {
    doc.push_back(std::move(dated));
  }
}

// The summary: a paragraph a client can read alone (not for a comparison,
// which shows its side-by-side table instead), then the workload.
void append_summary(std::vector<Block>& doc, const Report& report, Language l) {
  const Request& r = report.request;
  doc.push_back(Heading{2, say(l, Phrase::section_summary)});
  if (r.compare.empty()) {
    doc.push_back(Paragraph{client_summary(report, l)});
  }
  std::string budget = describe(r.budget, l);
  if (r.budget_usd) {
    budget = say(l, Phrase::header_budget_amount, format::money(*r.budget_usd, format::money_unit(r)));
  }
  KeyValues workload;
  workload.title = say(l, Phrase::label_workload);
  workload.colon = say(l, Phrase::fact_colon);
  workload.items = {
      {say(l, Phrase::label_model), model_label(report.model, l)},
      {say(l, Phrase::label_task), describe(r.task, l)},
      {say(l, Phrase::label_budget), budget},
      {say(l, Phrase::label_region), say(l, r.region == Region::cn ? Phrase::region_cn : Phrase::region_global)},
      {say(l, Phrase::label_mode), say(l, r.mode == CostMode::rent ? Phrase::renting : Phrase::buying)}};
  doc.push_back(workload);
  if (!r.compare.empty()) {
    const render::Comparison c = render::comparison(report, l);
    doc.push_back(Heading{2, say(l, Phrase::section_side_by_side)});
    TableBlock table{c.header, c.rows, std::vector<bool>(c.header.size(), false)};
    doc.push_back(table);
    for (const auto& [name, lines] : c.notes) {
      doc.push_back(Heading{3, name});
      doc.push_back(Bullets{lines});
    }
  }
}

// Nothing fits: says so (of the cards selected, when some were), and lists
// the ways out when any were found.
void append_nothing_fits(std::vector<Block>& doc, const Report& report, Language l) {
  const Request& r = report.request;
  doc.push_back(Paragraph{say(l, r.gpu_ids.empty() ? Phrase::nothing_fits : Phrase::nothing_fits_selected), true});
  if (!report.ways_out.empty()) {
    Bullets ways;
    for (const auto& w : report.ways_out) {
      ways.items.push_back(describe(w, report.request, l));
    }
    doc.push_back(Heading{3, say(l, Phrase::ways_out)});
    doc.push_back(ways);
  }
}

// The recommendation: the Best with its layout, the headline notes and its
// reasons, then the reasons of the runners-up up to explained_picks, so a
// client sees why not them.
void append_recommendation(std::vector<Block>& doc, const Report& report, Language l) {
  const Request& r = report.request;
  const auto& best = report.recommendations.front();
  doc.push_back(Heading{2, say(l, Phrase::section_recommendation)});
  doc.push_back(Paragraph{
      say(l, Phrase::best, best.estimate.count, best.gpu.name) + " — " + describe(best.estimate.layout, r.task, l),
      true});
  for (auto& line : headline_notes(report, l)) {
    doc.push_back(Paragraph{std::move(line)});
  }
  Bullets why;
  for (auto& sentence : rationale(r, best, l)) {
    why.items.push_back(std::move(sentence.text));
  }
  doc.push_back(why);
  for (std::size_t i = 1; i < report.recommendations.size() && i < explained_picks; ++i) {
    const auto& rec = report.recommendations[i];
    doc.push_back(Heading{3, say(l, Phrase::why, rec.rank, rec.gpu.name, describe_objective(rec, r, false, l))});
    Bullets lines;
    for (auto& sentence : rationale(r, rec, l)) {
      lines.items.push_back(std::move(sentence.text));
    }
    doc.push_back(lines);
  }
}

// The time (training) or throughput (serving) cell of a plan: typical (low - high).
std::string speed_cell(const Estimate& e, Language l) {
  if (e.training) {
    const auto& w = e.training->wall_hours;
    return fmt::format("{} ({} - {})", say_duration(l, w.typical), say_duration(l, w.low), say_duration(l, w.high));
  }
  if (e.inference) {
    const auto& t = e.inference->tokens_per_s;
    return fmt::format("{:.0f} ({:.0f} - {:.0f})", t.typical, t.low, t.high);
  }
  return "-";
}

// The comparison: the listed plans' rows with their layouts in short and the
// key to them, then how many more plans there are and how many more fit.
void append_comparison(std::vector<Block>& doc, const Report& report, Language l) {
  const Request& r = report.request;
  const std::size_t shown = listed(report);
  doc.push_back(Heading{2, say(l, Phrase::section_comparison)});
  TableBlock table;
  table.header = {"#",
                  say(l, Phrase::col_gpu),
                  say(l, Phrase::col_count),
                  say(l, Phrase::col_layout),
                  say(l, Phrase::col_memory),
                  say(l, Phrase::col_headroom),
                  say(l, is_training(r.task) ? Phrase::col_time_range : Phrase::col_throughput_range),
                  say(l, Phrase::col_cost_range),
                  say(l, Phrase::col_score)};
  table.numeric = {true, false, true, false, true, true, true, true, true};
  std::vector<Layout> layouts;
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& rec = report.recommendations[i];
    const Estimate& e = rec.estimate;
    const auto& cost = r.mode == CostMode::rent ? e.cost.rent_usd : e.cost.buy_usd;
    table.rows.push_back(
        {std::to_string(rec.rank), rec.gpu.name, std::to_string(e.count), short_layout(e.layout, r.task, l),
         fmt::format("{} / {}", format::gib(e.per_gpu.total()), format::number(rec.gpu.memory.capacity_gib)),
         say(l, e.tight() ? Phrase::headroom_tight_cell : Phrase::headroom_cell, 100.0 * e.headroom()),
         speed_cell(e, l), range_money(cost, format::money_unit(r), l), vs_best_cell(rec.objective, l)});
    layouts.push_back(e.layout);
  }
  doc.push_back(table);
  if (const std::string key = layout_key(layouts, r.task, l); !key.empty()) {
    doc.push_back(Paragraph{key, false, true});
  }
  if (report.recommendations.size() > shown) {
    doc.push_back(Paragraph{say(l, Phrase::report_more_rows, report.recommendations.size() - shown), false, true});
  }
  if (report.omitted > 0) {
    doc.push_back(Paragraph{say(l, Phrase::more_fit, report.omitted), false, true});
  }
}

// Own or rent (--mode buy): every listed card's table, then the top plan's
// cost against utilization as a chart and its figures.
void append_own_or_rent(std::vector<Block>& doc, const Report& report, Language l) {
  if (const render::OwnRent own = render::own_rent(report, l); !own.rows.empty()) {
    doc.push_back(Heading{3, own.title});
    doc.push_back(TableBlock{own.header, own.rows, {false, false, true, true, true, true, true}});
  }
  if (const auto curve = render::own_curve(report, l)) {
    doc.push_back(Heading{3, curve->title});
    LineChart chart{curve->chart_title, curve->x_label,     curve->y_label,
                    curve->y_prefix,    curve->utilisation, {{curve->own_label, curve->own}},
                    curve->break_even};
    if (curve->rent) {
      chart.series.emplace_back(curve->rent_label, std::vector<double>(curve->own.size(), *curve->rent));
    }
    doc.push_back(std::move(chart));
    TableBlock figures{curve->header, curve->rows, {true, true, true}};
    figures.charted = true;
    doc.push_back(std::move(figures));
  }
}

// A listed plan as the charts and the memory table name it: "8 x H100 SXM5".
std::string plan_label(const Recommendation& rec) { return fmt::format("{} x {}", rec.estimate.count, rec.gpu.name); }

// The cost chart: each listed plan with a price, its time (training) or
// throughput (serving) against its cost, per run, per hour to rent or per
// month to own (buy_usd's period), in the currency the axis names.
Scatter cost_scatter(const Report& report, Language l) {
  const Request& r = report.request;
  const bool training = is_training(r.task);
  const bool owned = r.mode == CostMode::buy;
  Scatter scatter;
  scatter.title = say(l, training ? Phrase::chart_cost_time
                         : owned  ? Phrase::chart_cost_month_throughput
                                  : Phrase::chart_cost_throughput);
  scatter.x_label = say(l, training ? Phrase::axis_time : Phrase::axis_throughput);
  const format::MoneyUnit unit = format::money_unit(r);
  scatter.y_label = say(l,
                        training ? Phrase::axis_cost_run
                        : owned  ? Phrase::axis_cost_month
                                 : Phrase::axis_cost_hour,
                        say(l, unit.currency == Currency::cny ? Phrase::currency_cny : Phrase::currency_usd));
  scatter.y_prefix = format::currency_symbol(unit);
  auto in_currency = [unit](const Range& usd) {
    return Range{usd.low * unit.per_usd, usd.typical * unit.per_usd, usd.high * unit.per_usd};
  };
  for (std::size_t i = 0; i < listed(report); ++i) {
    const auto& rec = report.recommendations[i];
    const Estimate& e = rec.estimate;
    const auto& cost = r.mode == CostMode::rent ? e.cost.rent_usd : e.cost.buy_usd;
    if (cost && e.training) {
      scatter.points.push_back(Point{rec.rank, plan_label(rec), e.training->wall_hours, in_currency(*cost), i == 0});
    } else if (cost && e.inference) {
      scatter.points.push_back(Point{rec.rank, plan_label(rec), e.inference->tokens_per_s, in_currency(*cost), i == 0});
    }
  }
  return scatter;
}

// The memory per GPU of each listed plan, part by part: a chart in HTML (two
// plans or more) and its table in Markdown, the same figures once.
void append_memory(std::vector<Block>& doc, const Report& report, Language l) {
  StackedBars bars;
  bars.title = say(l, Phrase::chart_memory);
  bars.usable_label = say(l, Phrase::legend_usable);
  bars.capacity_label = say(l, Phrase::col_capacity);
  bars.axis_label = say(l, Phrase::axis_memory);
  bars.legend = {say(l, Phrase::col_weights),     say(l, Phrase::col_gradients), say(l, Phrase::col_optimizer),
                 say(l, Phrase::col_activations), say(l, Phrase::col_kv_cache),  say(l, Phrase::col_reserve)};
  TableBlock memory;
  memory.header = {say(l, Phrase::col_gpu),       say(l, Phrase::col_weights),     say(l, Phrase::col_gradients),
                   say(l, Phrase::col_optimizer), say(l, Phrase::col_activations), say(l, Phrase::col_kv_cache),
                   say(l, Phrase::col_reserve),   say(l, Phrase::col_total),       say(l, Phrase::col_capacity)};
  memory.numeric = {false, true, true, true, true, true, true, true, true};
  // --calibration: the measured peaks' correction, a column of its own (signed, so not in the bars).
  bool calibrated = false;
  for (std::size_t i = 0; i < listed(report); ++i) {
    calibrated = calibrated || report.recommendations[i].estimate.per_gpu.calibration != 0;
  }
  if (calibrated) {
    memory.header.insert(memory.header.end() - 2, say(l, Phrase::col_calibration));
    memory.numeric.push_back(true);
  }
  for (std::size_t i = 0; i < listed(report); ++i) {
    const auto& rec = report.recommendations[i];
    const Estimate& e = rec.estimate;
    const std::string label = plan_label(rec);
    const MemoryBreakdown& m = e.per_gpu;
    const std::vector<double> parts = {m.weights, m.gradients, m.optimizer, m.activations, m.kv_cache, m.reserve};
    Bar bar{label, {}, e.usable_bytes / bytes_per_gib, e.capacity_bytes / bytes_per_gib};
    std::vector<std::string> row{label};
    for (const double bytes : parts) {
      bar.parts.push_back(bytes / bytes_per_gib);
      row.push_back(format::gib(bytes));
    }
    if (calibrated) {
      row.push_back((m.calibration < 0 ? "-" : "") + format::gib(std::abs(m.calibration)));
    }
    row.push_back(format::gib(m.total()));
    row.push_back(format::number(rec.gpu.memory.capacity_gib));
    bars.bars.push_back(bar);
    memory.rows.push_back(row);
  }
  doc.push_back(Heading{2, say(l, Phrase::section_memory)});
  if (bars.bars.size() >= 2) {
    doc.push_back(bars);
    memory.charted = true;
  }
  doc.push_back(memory);
}

// The risks: the listed plans' fired warnings and rejections (notes inform),
// and the estimates' notes; a line saying there are none when there are none.
void append_risks(std::vector<Block>& doc, const Report& report, Language l) {
  doc.push_back(Heading{2, say(l, Phrase::section_risks)});
  Bullets risks;
  for (std::size_t i = 0; i < listed(report); ++i) {
    const auto& rec = report.recommendations[i];
    for (const auto& f : rec.findings) {
      if (f.fired && f.effect != EffectKind::note) {
        risks.items.push_back(rec.gpu.name + say(l, Phrase::fact_colon) + f.message_in(l));
      }
    }
    for (const auto& note : notes(rec, l)) {
      risks.items.push_back(rec.gpu.name + say(l, Phrase::fact_colon) + note);
    }
  }
  if (risks.items.empty()) {
    doc.push_back(Paragraph{say(l, Phrase::no_risks)});
  } else {
    doc.push_back(risks);
  }
}

// Why not the cards a client would ask about (not in a comparison, which
// shows them); true when the section is there.
bool append_why_not(std::vector<Block>& doc, const Report& report, Language l) {
  if (report.why_not.empty() || !report.request.compare.empty()) {
    return false;
  }
  doc.push_back(Heading{2, say(l, Phrase::section_why_not)});
  Bullets lines;
  for (const std::size_t i : report.why_not) {
    const Rejection& rej = report.rejected[i];
    lines.items.push_back(rej.gpu.name + say(l, Phrase::fact_colon) +
                          text::join(reasons(rej, report.request, l), say(l, Phrase::reason_separator)));
  }
  doc.push_back(lines);
  return true;
}

// The other rejected cards with their reasons: those said under why-not
// (`why_not`) are said once.
void append_rejected(std::vector<Block>& doc, const Report& report, bool why_not, Language l) {
  TableBlock rejected{{say(l, Phrase::col_gpu), say(l, Phrase::col_reason)}, {}, {false, false}};
  for (std::size_t i = 0; i < report.rejected.size(); ++i) {
    if (why_not && std::find(report.why_not.begin(), report.why_not.end(), i) != report.why_not.end()) {
      continue;
    }
    const Rejection& rej = report.rejected[i];
    rejected.rows.push_back(
        {rej.gpu.name, text::join(reasons(rej, report.request, l), say(l, Phrase::reason_separator))});
  }
  if (!rejected.rows.empty()) {
    doc.push_back(Heading{2, say(l, Phrase::section_rejected)});
    doc.push_back(rejected);
  }
}

// The assumptions, then a warning for each --rules rule that matched nothing.
void append_assumptions(std::vector<Block>& doc, const Report& report, Language l) {
  doc.push_back(Heading{2, say(l, Phrase::section_assumptions)});
  doc.push_back(Bullets{assumptions(report.request, report.model, best_of(report), l)});
  if (!report.unmatched_rules.empty()) {
    doc.push_back(Heading{3, say(l, Phrase::warnings)});
    Bullets warnings;
    for (const auto& rule : report.unmatched_rules) {
      warnings.items.push_back(describe(rule, l));
    }
    doc.push_back(warnings);
  }
}

}  // namespace

// The sections in order: the summary; the recommendation, the comparison, own
// or rent, the charts, memory and risks when anything fits (else nothing
// fits and the ways out); the rejected cards; the assumptions; the appendix.
std::vector<Block> build(const Report& report, Language l, const ReportHeader& header) {
  std::vector<Block> doc;
  append_title(doc, report, header, l);
  append_summary(doc, report, l);
  if (!report.anything_fits()) {
    append_nothing_fits(doc, report, l);
  } else {
    append_recommendation(doc, report, l);
    append_comparison(doc, report, l);
    append_own_or_rent(doc, report, l);
    if (Scatter scatter = cost_scatter(report, l); scatter.points.size() >= 2) {
      doc.push_back(Heading{2, say(l, Phrase::section_charts)});  // HTML only
      doc.push_back(std::move(scatter));
    }
    append_memory(doc, report, l);
    append_risks(doc, report, l);
  }
  const bool why_not = append_why_not(doc, report, l);
  append_rejected(doc, report, why_not, l);
  append_assumptions(doc, report, l);
  append_sources(doc, report, l);  // the appendix: the sources of every catalog figure of the cards listed
  doc.push_back(Paragraph{
      say(l, Phrase::report_generated_by, report.tool_version, report.catalog.version, report.catalog.updated)});
  return doc;
}

}  // namespace document

std::string render_markdown(const Report& report, Language language, const ReportHeader& header) {
  return document::to_markdown(document::build(report, language, header));
}

std::string render_html(const Report& report, Language language, const ReportHeader& header) {
  return document::to_html(document::build(report, language, header), language);
}

}  // namespace gpu_advise
