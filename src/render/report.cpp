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

namespace gpu_advise {

namespace document {

namespace {

constexpr std::size_t charted_cards = 10;   // cards shown in the charts and the memory table
constexpr std::size_t explained_picks = 3;  // picks whose reasons are given

std::string range_money(const std::optional<Range>& r, format::MoneyUnit unit, Language l) {
  if (!r) {
    return say(l, Phrase::no_price);
  }
  return fmt::format("{} ({} - {})", format::money(r->typical, unit), format::money(r->low, unit),
                     format::money(r->high, unit));
}

}  // namespace

std::vector<Block> build(const Report& report, Language l) {
  const std::string model_name = model_label(report.model, l);
  const Request& r = report.request;
  const bool training = is_training(r.task);
  std::vector<Block> doc;
  const std::string model =
      l == Language::zh && report.model.source != ModelSource::inferred ? " " + model_name : model_name;
  doc.push_back(Heading{1, say(l, Phrase::report_title, describe(r.task, l), model)});

  // ---- summary: a paragraph a client can read alone, then the workload
  doc.push_back(Heading{2, say(l, Phrase::section_summary)});
  if (r.compare.empty()) {
    doc.push_back(Paragraph{client_summary(report, l)});
  }
  std::string budget = describe(r.budget, l);
  if (r.budget_usd) {
    budget = say(l, Phrase::header_budget_amount, format::money(*r.budget_usd, format::money_unit(r)));
  }
  doc.push_back(TableBlock{
      {say(l, Phrase::label_workload), ""},
      {{say(l, Phrase::label_model), model_name},
       {say(l, Phrase::label_task), describe(r.task, l)},
       {say(l, Phrase::label_budget), budget},
       {say(l, Phrase::label_region), say(l, r.region == Region::cn ? Phrase::region_cn : Phrase::region_global)},
       {say(l, Phrase::label_mode), say(l, r.mode == CostMode::rent ? Phrase::renting : Phrase::buying)}},
      {false, false}});
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
  if (!report.anything_fits()) {
    doc.push_back(Paragraph{say(l, r.gpu_ids.empty() ? Phrase::nothing_fits : Phrase::nothing_fits_selected), true});
    if (!report.ways_out.empty()) {
      Bullets ways;
      for (const auto& w : report.ways_out) {
        ways.items.push_back(describe(w, report.request, l));
      }
      doc.push_back(Heading{3, say(l, Phrase::ways_out)});
      doc.push_back(ways);
    }
  } else {
    // ---- the recommendation
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
    // The reasons for the runners-up, so a client sees why not them.
    for (std::size_t i = 1; i < report.recommendations.size() && i < explained_picks; ++i) {
      const auto& rec = report.recommendations[i];
      doc.push_back(Heading{3, say(l, Phrase::why, rec.rank, rec.gpu.name, describe(rec.score, l))});
      Bullets lines;
      for (auto& sentence : rationale(r, rec, l)) {
        lines.items.push_back(std::move(sentence.text));
      }
      doc.push_back(lines);
    }

    // ---- comparison
    doc.push_back(Heading{2, say(l, Phrase::section_comparison)});
    TableBlock table;
    table.header = {"#",
                    say(l, Phrase::col_gpu),
                    say(l, Phrase::col_count),
                    say(l, Phrase::col_layout),
                    say(l, Phrase::col_memory),
                    say(l, Phrase::col_headroom),
                    say(l, training ? Phrase::col_time_range : Phrase::col_throughput_range),
                    say(l, Phrase::col_cost_range),
                    say(l, Phrase::col_score)};
    table.numeric = {true, false, true, false, true, true, true, true, true};
    for (const auto& rec : report.recommendations) {
      const Estimate& e = rec.estimate;
      std::string speed = "-";
      if (e.training) {
        const auto& w = e.training->wall_hours;
        speed =
            fmt::format("{} ({} - {})", say_duration(l, w.typical), say_duration(l, w.low), say_duration(l, w.high));
      } else if (e.inference) {
        const auto& t = e.inference->tokens_per_s;
        speed = fmt::format("{:.0f} ({:.0f} - {:.0f})", t.typical, t.low, t.high);
      }
      const auto& cost = r.mode == CostMode::rent ? e.cost.rent_usd : e.cost.buy_usd;
      table.rows.push_back(
          {std::to_string(rec.rank), rec.gpu.name, std::to_string(e.count), describe(e.layout, r.task, l),
           fmt::format("{} / {}", format::gib(e.per_gpu.total()), format::number(rec.gpu.memory.capacity_gib)),
           say(l, e.tight() ? Phrase::headroom_tight_cell : Phrase::headroom_cell, 100.0 * e.headroom()), speed,
           range_money(cost, format::money_unit(r), l), fmt::format("{:.0f}", rec.score.total)});
    }
    doc.push_back(table);
    if (report.omitted > 0) {
      doc.push_back(Paragraph{say(l, Phrase::more_fit, report.omitted)});
    }

    // ---- charts (HTML only)
    const std::size_t shown = std::min(report.recommendations.size(), charted_cards);
    Scatter scatter;
    scatter.title = say(l, training ? Phrase::chart_cost_time : Phrase::chart_cost_throughput);
    scatter.x_label = say(l, training ? Phrase::axis_time : Phrase::axis_throughput);
    const format::MoneyUnit unit = format::money_unit(r);
    scatter.y_label = say(l, training ? Phrase::axis_cost_run : Phrase::axis_cost_hour,
                          say(l, unit.currency == Currency::cny ? Phrase::currency_cny : Phrase::currency_usd));
    scatter.y_prefix = format::currency_symbol(unit);
    // The chart's costs in the currency its axis names.
    auto in_currency = [unit](const Range& usd) {
      return Range{usd.low * unit.per_usd, usd.typical * unit.per_usd, usd.high * unit.per_usd};
    };
    StackedBars bars;
    bars.title = say(l, Phrase::chart_memory);
    bars.usable_label = say(l, Phrase::legend_usable);
    bars.capacity_label = say(l, Phrase::col_capacity);
    bars.legend = {say(l, Phrase::col_weights),     say(l, Phrase::col_gradients), say(l, Phrase::col_optimizer),
                   say(l, Phrase::col_activations), say(l, Phrase::col_kv_cache),  say(l, Phrase::col_reserve)};
    TableBlock memory;
    memory.header = {say(l, Phrase::col_gpu),       say(l, Phrase::col_weights),     say(l, Phrase::col_gradients),
                     say(l, Phrase::col_optimizer), say(l, Phrase::col_activations), say(l, Phrase::col_kv_cache),
                     say(l, Phrase::col_reserve),   say(l, Phrase::col_total),       say(l, Phrase::col_capacity)};
    memory.numeric = {false, true, true, true, true, true, true, true, true};
    for (std::size_t i = 0; i < shown; ++i) {
      const auto& rec = report.recommendations[i];
      const Estimate& e = rec.estimate;
      const auto& cost = r.mode == CostMode::rent ? e.cost.rent_usd : e.cost.buy_usd;
      const std::string label = fmt::format("{} x {}", e.count, rec.gpu.name);
      if (cost && e.training) {
        scatter.points.push_back(Point{rec.rank, label, e.training->wall_hours, in_currency(*cost), i == 0});
      } else if (cost && e.inference) {
        scatter.points.push_back(Point{rec.rank, label, e.inference->tokens_per_s, in_currency(*cost), i == 0});
      }
      const MemoryBreakdown& m = e.per_gpu;
      const std::vector<double> parts = {m.weights, m.gradients, m.optimizer, m.activations, m.kv_cache, m.reserve};
      Bar bar{label, {}, e.usable_bytes / bytes_per_gib, e.capacity_bytes / bytes_per_gib};
      std::vector<std::string> row{label};
      for (const double bytes : parts) {
        bar.parts.push_back(bytes / bytes_per_gib);
        row.push_back(format::gib(bytes));
      }
      row.push_back(format::gib(m.total()));
      row.push_back(format::number(rec.gpu.memory.capacity_gib));
      bars.bars.push_back(bar);
      memory.rows.push_back(row);
    }
    if (scatter.points.size() >= 2) {
      doc.push_back(Heading{2, say(l, Phrase::section_charts)});
      doc.push_back(scatter);
      doc.push_back(bars);
    }
    doc.push_back(Heading{2, say(l, Phrase::section_memory)});
    doc.push_back(memory);

    // ---- risks and rule notes
    doc.push_back(Heading{2, say(l, Phrase::section_risks)});
    Bullets risks;
    for (std::size_t i = 0; i < shown; ++i) {
      const auto& rec = report.recommendations[i];
      for (const auto& f : rec.findings) {
        if (f.fired && f.effect != EffectKind::score) {
          risks.items.push_back(fmt::format("{}: {}", rec.gpu.name, f.message_in(l)));
        }
      }
      for (const auto& note : notes(rec, l)) {
        risks.items.push_back(fmt::format("{}: {}", rec.gpu.name, note));
      }
    }
    if (risks.items.empty()) {
      doc.push_back(Paragraph{say(l, Phrase::no_risks)});
    } else {
      doc.push_back(risks);
    }
  }

  // ---- why not the cards a client would ask about
  if (!report.why_not.empty() && r.compare.empty()) {
    doc.push_back(Heading{2, say(l, Phrase::section_why_not)});
    Bullets why_not;
    for (const std::size_t i : report.why_not) {
      const Rejection& rej = report.rejected[i];
      why_not.items.push_back(fmt::format(
          "{}: {}", rej.gpu.name, text::join(reasons(rej, report.request, l), say(l, Phrase::reason_separator))));
    }
    doc.push_back(why_not);
  }

  // ---- rejected
  if (!report.rejected.empty()) {
    doc.push_back(Heading{2, say(l, Phrase::section_rejected)});
    TableBlock rejected{{say(l, Phrase::col_gpu), say(l, Phrase::col_reason)}, {}, {false, false}};
    for (const auto& rej : report.rejected) {
      rejected.rows.push_back(
          {rej.gpu.name, text::join(reasons(rej, report.request, l), say(l, Phrase::reason_separator))});
    }
    doc.push_back(rejected);
  }

  // ---- assumptions
  doc.push_back(Heading{2, say(l, Phrase::section_assumptions)});
  doc.push_back(Bullets{assumptions(r, report.model, l)});
  if (!report.unmatched_rules.empty()) {
    doc.push_back(Heading{3, say(l, Phrase::warnings)});
    Bullets warnings;
    for (const auto& rule : report.unmatched_rules) {
      warnings.items.push_back(describe(rule, l));
    }
    doc.push_back(warnings);
  }

  // ---- sources of every catalog figure used (the cards shown)
  doc.push_back(Heading{2, say(l, Phrase::section_sources)});
  const std::size_t shown = std::min(report.recommendations.size(), charted_cards);
  for (std::size_t i = 0; i < shown; ++i) {
    const GpuSpec& g = report.recommendations[i].gpu;
    doc.push_back(Heading{3, g.name});
    Bullets items;
    items.items.push_back(fmt::format("{}: {}", say(l, Phrase::label_confidence), to_string(g.confidence)));
    for (const auto& [path, level] : g.field_confidence) {
      items.items.push_back(fmt::format("{} ({}): {}", say(l, Phrase::label_confidence), path, to_string(level)));
    }
    for (const auto& source : g.sources) {
      items.items.push_back(fmt::format("{}: {}", say(l, Phrase::label_sources), source));
    }
    auto quotes = [&](Phrase label, const std::vector<PriceQuote>& list) {
      for (const auto& q : list) {
        const std::string amount = format::quoted_amount(q);
        items.items.push_back(fmt::format("{}: {} [{}], {}, {}; {}", say(l, label), amount, to_string(q.region),
                                          q.provider, q.date, q.source));
      }
    };
    quotes(Phrase::label_rent_quotes, g.rent_usd_per_gpu_hour);
    quotes(Phrase::label_purchase_quotes, g.purchase_usd_per_card);
    doc.push_back(items);
  }
  doc.push_back(Paragraph{
      say(l, Phrase::report_generated_by, report.tool_version, report.catalog.version, report.catalog.updated)});
  return doc;
}

}  // namespace document

std::string render_markdown(const Report& report, Language language) {
  return document::to_markdown(document::build(report, language));
}

std::string render_html(const Report& report, Language language) {
  return document::to_html(document::build(report, language), language);
}

}  // namespace gpu_advise
