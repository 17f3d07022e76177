// The consultant's report, in Markdown and in one self-contained HTML file.
// Both are emitted from one document model (headings, paragraphs, lists,
// tables, charts), so they say the same thing; charts appear in HTML only.
#include <algorithm>
#include <cmath>
#include <variant>

#include <fmt/format.h>

#include "core/quantity_format.hpp"
#include "gpu_advise/render.hpp"
#include "gpu_advise/text.hpp"
#include "gpu_advise/units.hpp"
#include "gpu_advise/wording.hpp"
#include "gpu_advise/words.hpp"
#include "render/comparison.hpp"

namespace gpu_advise {

namespace {

constexpr std::size_t charted_cards = 10;  // cards shown in the charts and the memory table

struct Heading {
  int level;
  std::string text;
};
struct Paragraph {
  std::string text;
  bool strong = false;
};
struct Bullets {
  std::vector<std::string> items;
};
struct TableBlock {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> numeric;  // right-aligned columns
};
struct Point {
  int rank = 0;
  std::string label;
  Range x;
  Range y;
  bool best = false;
};
struct Scatter {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<Point> points;
};
struct Bar {
  std::string label;
  std::vector<double> parts;  // GiB, in the order of the legend
  double usable = 0;
  double capacity = 0;
};
struct StackedBars {
  std::string title;
  std::string usable_label;
  std::string capacity_label;
  std::vector<std::string> legend;
  std::vector<Bar> bars;
};
using Block = std::variant<Heading, Paragraph, Bullets, TableBlock, Scatter, StackedBars>;

std::string range_money(const std::optional<Range>& r) {
  if (!r) {
    return "-";
  }
  return fmt::format("{} ({} - {})", format::money(r->typical), format::money(r->low), format::money(r->high));
}

std::vector<Block> build(const Report& report, Language l) {
  const std::string model_name = model_label(report.model, l);
  const Request& r = report.request;
  const bool training = is_training(r.task);
  std::vector<Block> doc;
  const std::string model =
      l == Language::zh && report.model.source != ModelSource::inferred ? " " + model_name : model_name;
  doc.push_back(Heading{1, say(l, Phrase::report_title, describe(r.task, l), model)});

  // ---- summary
  doc.push_back(Heading{2, say(l, Phrase::section_summary)});
  std::string budget = describe(r.budget, l);
  if (r.budget_usd) {
    budget = say(l, Phrase::header_budget_amount, format::money(*r.budget_usd));
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
        ways.items.push_back(describe(w, l));
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
    Bullets why;
    for (auto& sentence : rationale(r, best, l)) {
      why.items.push_back(std::move(sentence.text));
    }
    doc.push_back(why);

    // ---- comparison
    doc.push_back(Heading{2, say(l, Phrase::section_comparison)});
    TableBlock table;
    table.header = {"#",
                    say(l, Phrase::col_gpu),
                    say(l, Phrase::col_count),
                    say(l, Phrase::col_layout),
                    say(l, Phrase::col_memory),
                    say(l, training ? Phrase::col_time_range : Phrase::col_throughput_range),
                    say(l, Phrase::col_cost_range),
                    say(l, Phrase::col_score)};
    table.numeric = {true, false, true, false, true, true, true, true};
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
           fmt::format("{} / {}", format::gib(e.per_gpu.total()), format::number(rec.gpu.memory.capacity_gib)), speed,
           range_money(cost), fmt::format("{:.0f}", rec.score.total)});
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
    scatter.y_label = say(l, training ? Phrase::axis_cost_run : Phrase::axis_cost_hour);
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
        scatter.points.push_back(Point{rec.rank, label, e.training->wall_hours, *cost, i == 0});
      } else if (cost && e.inference) {
        scatter.points.push_back(Point{rec.rank, label, e.inference->tokens_per_s, *cost, i == 0});
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

  // ---- rejected
  if (!report.rejected.empty()) {
    doc.push_back(Heading{2, say(l, Phrase::section_rejected)});
    TableBlock rejected{{say(l, Phrase::col_gpu), say(l, Phrase::col_reason)}, {}, {false, false}};
    for (const auto& rej : report.rejected) {
      rejected.rows.push_back({rej.gpu.name, text::join(reasons(rej, l), say(l, Phrase::reason_separator))});
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
        const std::string amount = q.low_usd == q.high_usd
                                       ? format::money(q.low_usd)
                                       : fmt::format("{}-{}", format::money(q.low_usd), format::money(q.high_usd));
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

// ---------------------------------------------------------------- Markdown

std::string md_escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '|' || c == '*' || c == '_' || c == '`' || c == '<' || c == '>' || c == '[' || c == ']') {
      out += '\\';
    }
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

std::string to_markdown(const std::vector<Block>& doc) {
  std::string out;
  for (const auto& block : doc) {
    if (const auto* h = std::get_if<Heading>(&block)) {
      out += std::string(static_cast<std::size_t>(h->level), '#') + " " + md_escape(h->text) + "\n\n";
    } else if (const auto* p = std::get_if<Paragraph>(&block)) {
      out += (p->strong ? "**" + md_escape(p->text) + "**" : md_escape(p->text)) + "\n\n";
    } else if (const auto* b = std::get_if<Bullets>(&block)) {
      for (const auto& item : b->items) {
        out += "- " + md_escape(item) + "\n";
      }
      out += "\n";
    } else if (const auto* t = std::get_if<TableBlock>(&block)) {
      out += "|";
      for (const auto& cell : t->header) {
        out += fmt::format(" {} |", md_escape(cell));
      }
      out += "\n|";
      for (std::size_t c = 0; c < t->header.size(); ++c) {
        out += (c < t->numeric.size() && t->numeric[c]) ? " ---: |" : " --- |";
      }
      out += "\n";
      for (const auto& row : t->rows) {
        out += "|";
        for (const auto& cell : row) {
          out += fmt::format(" {} |", md_escape(cell));
        }
        out += "\n";
      }
      out += "\n";
    }
    // Charts are HTML only; the tables carry the same figures.
  }
  return out;
}

// ---------------------------------------------------------------- HTML

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

constexpr const char* css = R"(
@page { size: A4; margin: 14mm 12mm; }
* { box-sizing: border-box; }
body { font-family: "Noto Sans", "Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Microsoft YaHei",
       "Helvetica Neue", Arial, sans-serif; color: #1d2530; margin: 0 auto; max-width: 186mm; padding: 10mm 0;
       font-size: 10.5pt; line-height: 1.45; }
h1 { font-size: 19pt; margin: 0 0 4mm; color: #0b3d62; border-bottom: 2px solid #0b3d62; padding-bottom: 2mm; }
h2 { font-size: 13.5pt; margin: 7mm 0 2.5mm; color: #0b3d62; break-after: avoid; }
h3 { font-size: 11pt; margin: 4mm 0 1.5mm; break-after: avoid; }
p.strong { font-size: 12pt; font-weight: 600; background: #eef5fb; border-left: 4px solid #1f77b4; padding: 2mm 3mm; }
ul { margin: 1mm 0 3mm; padding-left: 5mm; }
li { margin: 0.6mm 0; }
table { border-collapse: collapse; width: 100%; margin: 2mm 0 4mm; font-size: 9pt; break-inside: auto; }
th, td { border-bottom: 1px solid #d5dde6; padding: 1.2mm 1.6mm; text-align: left; vertical-align: top; }
th { background: #f1f5f9; font-weight: 600; }
td.num, th.num { text-align: right; white-space: nowrap; }
tr { break-inside: avoid; }
figure { margin: 3mm 0 5mm; break-inside: avoid; }
figcaption { font-size: 9.5pt; color: #44515f; margin-bottom: 1mm; font-weight: 600; }
svg text { font-family: inherit; fill: #1d2530; }
.legend { list-style: none; padding: 0; margin: 1mm 0 0; font-size: 8.5pt; display: flex; flex-wrap: wrap;
          gap: 1mm 5mm; }
ol.legend li { margin: 0; }
ol.legend li::before { content: counter(list-item) "  "; font-weight: 700; }
.dot { display: inline-block; width: 8pt; height: 8pt; border-radius: 2pt; margin-right: 1.5mm; vertical-align: -1pt; }
.dash { display: inline-block; width: 12pt; border-top: 1.5px dashed #1d2530; margin-right: 1.5mm; vertical-align: 3pt; }
.box { display: inline-block; width: 12pt; height: 8pt; border: 1px solid #7b8794; margin-right: 1.5mm; vertical-align: -1pt; }
td:nth-child(2) { min-width: 32mm; }
.footer { color: #5b6776; font-size: 8.5pt; margin-top: 8mm; border-top: 1px solid #d5dde6; padding-top: 2mm; }
)";

constexpr const char* palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"};

struct LogAxis {
  double low = 1;
  double high = 10;
  [[nodiscard]] double at(double value, double from, double to) const {
    const double v = std::log10(std::clamp(value, low, high));
    return from + (v - std::log10(low)) / (std::log10(high) - std::log10(low)) * (to - from);
  }
};

LogAxis log_axis(double minimum, double maximum) {
  double low = std::pow(10.0, std::floor(std::log10(std::max(minimum, 1e-9))));
  double high = std::pow(10.0, std::ceil(std::log10(std::max(maximum, 1e-9))));
  if (high <= low) {
    high = low * 10;
  }
  return {low, high};
}

std::string tick_label(double v) {
  if (v >= 1e6) {
    return fmt::format("{:g}M", v / 1e6);
  }
  if (v >= 1e3) {
    return fmt::format("{:g}k", v / 1e3);
  }
  return fmt::format("{:g}", v);
}

std::string svg_scatter(const Scatter& chart) {
  constexpr double W = 680, H = 330, left = 70, right = 20, top = 15, bottom = 50;
  double xmin = 1e300, xmax = 0, ymin = 1e300, ymax = 0;
  for (const auto& p : chart.points) {
    xmin = std::min(xmin, p.x.low);
    xmax = std::max(xmax, p.x.high);
    ymin = std::min(ymin, p.y.low);
    ymax = std::max(ymax, p.y.high);
  }
  const LogAxis x = log_axis(xmin, xmax);
  const LogAxis y = log_axis(ymin, ymax);
  std::string s =
      fmt::format(R"(<svg viewBox="0 0 {} {}" width="100%" role="img" xmlns="http://www.w3.org/2000/svg">)", W, H);
  s += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="#fbfcfe" stroke="#c9d3de"/>)", left, top,
                   W - left - right, H - top - bottom);
  for (double v = x.low; v <= x.high * 1.0001; v *= 10) {
    const double px = x.at(v, left, W - right);
    s += fmt::format(R"(<line x1="{0:.1f}" y1="{1}" x2="{0:.1f}" y2="{2}" stroke="#e3e9f0"/>)", px, top, H - bottom);
    s += fmt::format(R"(<text x="{:.1f}" y="{}" font-size="10" text-anchor="middle">{}</text>)", px, H - bottom + 14,
                     tick_label(v));
  }
  for (double v = y.low; v <= y.high * 1.0001; v *= 10) {
    const double py = y.at(v, H - bottom, top);
    s += fmt::format(R"(<line x1="{0}" y1="{1:.1f}" x2="{2}" y2="{1:.1f}" stroke="#e3e9f0"/>)", left, py, W - right);
    s += fmt::format(R"(<text x="{}" y="{:.1f}" font-size="10" text-anchor="end">${}</text>)", left - 6, py + 3,
                     tick_label(v));
  }
  s += fmt::format(R"(<text x="{}" y="{}" font-size="10.5" text-anchor="middle">{}</text>)", (left + W - right) / 2,
                   H - 12, html_escape(chart.x_label));
  s += fmt::format(
      R"svg(<text x="14" y="{}" font-size="10.5" text-anchor="middle" transform="rotate(-90 14 {})">{}</text>)svg",
      (top + H - bottom) / 2, (top + H - bottom) / 2, html_escape(chart.y_label));
  std::size_t index = 0;
  for (const auto& p : chart.points) {
    const char* color = palette[index++ % std::size(palette)];
    const double cx = x.at(p.x.typical, left, W - right);
    const double cy = y.at(p.y.typical, H - bottom, top);
    s += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}" stroke-width="1.2"/>)",
                     x.at(p.x.low, left, W - right), cy, x.at(p.x.high, left, W - right), cy, color);
    s += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}" stroke-width="1.2"/>)", cx,
                     y.at(p.y.low, H - bottom, top), cx, y.at(p.y.high, H - bottom, top), color);
    s += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="{}" fill="{}" stroke="#ffffff" stroke-width="1.5"/>)", cx,
                     cy, p.best ? 9 : 7.5, color);
    s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-size="9" font-weight="700" text-anchor="middle" )"
                     R"(style="fill:#ffffff">{}</text>)",
                     cx, cy + 3, p.rank);
  }
  s += "</svg>\n<ol class=\"legend\">";
  index = 0;
  for (const auto& p : chart.points) {
    s += fmt::format(R"(<li value="{}"><span class="dot" style="background:{}"></span>{}</li>)", p.rank,
                     palette[index++ % std::size(palette)], html_escape(p.label));
  }
  return s + "</ol>";
}

std::string svg_bars(const StackedBars& chart) {
  constexpr double W = 680, left = 190, right = 20, top = 10, row = 22, legend_h = 26;
  const double H = top + row * static_cast<double>(chart.bars.size()) + legend_h - 16;
  double maximum = 1;
  for (const auto& bar : chart.bars) {
    double sum = 0;
    for (const double v : bar.parts) {
      sum += v;
    }
    maximum = std::max({maximum, sum, bar.capacity});
  }
  auto px = [&](double v) { return left + v / maximum * (W - left - right); };
  std::string s =
      fmt::format(R"(<svg viewBox="0 0 {} {:.0f}" width="100%" role="img" xmlns="http://www.w3.org/2000/svg">)", W, H);
  double yy = top;
  for (const auto& bar : chart.bars) {
    s += fmt::format(R"(<text x="{}" y="{:.1f}" font-size="9.5" text-anchor="end">{}</text>)", left - 6, yy + 13,
                     html_escape(bar.label));
    double x0 = 0;
    for (std::size_t i = 0; i < bar.parts.size(); ++i) {
      if (bar.parts[i] <= 0) {
        continue;
      }
      s += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="15" fill="{}"/>)", px(x0), yy + 2,
                       px(x0 + bar.parts[i]) - px(x0), palette[i % std::size(palette)]);
      x0 += bar.parts[i];
    }
    s += fmt::format(
        R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{0:.1f}" y2="{2:.1f}" stroke="#1d2530" stroke-dasharray="3,2"/>)",
        px(bar.usable), yy, yy + 19);
    s += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="15" fill="none" stroke="#7b8794"/>)", px(0),
                     yy + 2, px(bar.capacity) - px(0));
    yy += row;
  }
  s += "</svg>\n<div class=\"legend\">";
  for (std::size_t i = 0; i < chart.legend.size(); ++i) {
    s += fmt::format(R"(<span><span class="dot" style="background:{}"></span>{}</span>)",
                     palette[i % std::size(palette)], html_escape(chart.legend[i]));
  }
  s += fmt::format(R"(<span><span class="dash"></span>{}</span><span><span class="box"></span>{}</span>)",
                   html_escape(chart.usable_label), html_escape(chart.capacity_label));
  return s + "</div>";
}

std::string to_html(const std::vector<Block>& doc, Language language) {
  std::string title;
  for (const auto& block : doc) {
    if (const auto* h = std::get_if<Heading>(&block); h != nullptr && h->level == 1) {
      title = h->text;
      break;
    }
  }
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"{}\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" "
      "content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n",
      language == Language::zh ? "zh-CN" : "en", html_escape(title), css);
  for (std::size_t i = 0; i < doc.size(); ++i) {
    const auto& block = doc[i];
    const bool last = i + 1 == doc.size();
    if (const auto* h = std::get_if<Heading>(&block)) {
      out += fmt::format("<h{0}>{1}</h{0}>\n", h->level, html_escape(h->text));
    } else if (const auto* p = std::get_if<Paragraph>(&block)) {
      out += fmt::format("<p{}>{}</p>\n", last ? " class=\"footer\"" : (p->strong ? " class=\"strong\"" : ""),
                         html_escape(p->text));
    } else if (const auto* b = std::get_if<Bullets>(&block)) {
      out += "<ul>\n";
      for (const auto& item : b->items) {
        out += "<li>" + html_escape(item) + "</li>\n";
      }
      out += "</ul>\n";
    } else if (const auto* t = std::get_if<TableBlock>(&block)) {
      auto cls = [&](std::size_t c) {
        return c < t->numeric.size() && t->numeric[c] ? std::string(" class=\"num\"") : std::string();
      };
      out += "<table>\n<thead><tr>";
      for (std::size_t c = 0; c < t->header.size(); ++c) {
        out += fmt::format("<th{}>{}</th>", cls(c), html_escape(t->header[c]));
      }
      out += "</tr></thead>\n<tbody>\n";
      for (const auto& row : t->rows) {
        out += "<tr>";
        for (std::size_t c = 0; c < row.size(); ++c) {
          out += fmt::format("<td{}>{}</td>", cls(c), html_escape(row[c]));
        }
        out += "</tr>\n";
      }
      out += "</tbody>\n</table>\n";
    } else if (const auto* sc = std::get_if<Scatter>(&block)) {
      out +=
          fmt::format("<figure><figcaption>{}</figcaption>\n{}\n</figure>\n", html_escape(sc->title), svg_scatter(*sc));
    } else if (const auto* sb = std::get_if<StackedBars>(&block)) {
      out += fmt::format("<figure><figcaption>{}</figcaption>\n{}\n</figure>\n", html_escape(sb->title), svg_bars(*sb));
    }
  }
  return out + "</body>\n</html>\n";
}

}  // namespace

std::string render_markdown(const Report& report, Language language) { return to_markdown(build(report, language)); }

std::string render_html(const Report& report, Language language) { return to_html(build(report, language), language); }

}  // namespace gpu_advise
