// The report's document as one self-contained HTML file: inline CSS for
// screen and print, and the charts as inline SVG (log axes, ranges as bars).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "render/document.hpp"

namespace gpu_advise::document {

namespace {

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
    s += fmt::format(R"(<text x="{}" y="{:.1f}" font-size="10" text-anchor="end">{}{}</text>)", left - 6, py + 3,
                     html_escape(chart.y_prefix), tick_label(v));
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

}  // namespace

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

}  // namespace gpu_advise::document
