// The report's document as one self-contained HTML file: inline CSS for
// screen and A4 print (a running footer with the title and page numbers), and
// the charts as inline SVG (log axes, ranges as bars, one marker per card).
#include <algorithm>
#include <array>
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

// Text as a CSS string's contents (inside <style>: no markup can close it).
std::string css_string(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '<': out += "\\3c "; break;
      case '>': out += "\\3e "; break;
      case '\n': out += "\\a "; break;
      default: out += c;
    }
  }
  return out;
}

constexpr const char* css = R"(
@page { size: A4; margin: 13mm 12mm 14mm;
  @bottom-right { content: counter(page) " / " counter(pages); font-size: 7.5pt; color: #6b7785; } }
* { box-sizing: border-box; }
body { font-family: "Noto Sans", "Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Microsoft YaHei",
       "Helvetica Neue", Arial, sans-serif; color: #1d2530; margin: 0 auto; max-width: 186mm; padding: 10mm 0;
       font-size: 10pt; line-height: 1.4; }
h1 { font-size: 18pt; line-height: 1.2; margin: 0 0 2mm; color: #0b3d62; border-bottom: 2px solid #0b3d62;
     padding-bottom: 2mm; }
h2 { font-size: 13pt; margin: 5.5mm 0 2mm; color: #0b3d62; break-after: avoid; break-inside: avoid; }
h3 { font-size: 10.5pt; margin: 3.5mm 0 1mm; break-after: avoid; }
h2.appendix { border-top: 1px solid #0b3d62; padding-top: 2mm; margin-top: 7mm; }
.kicker { display: block; font-size: 8pt; font-weight: 600; letter-spacing: 0.08em; text-transform: uppercase;
          color: #5b6776; }
p { margin: 1.5mm 0; }
p.strong { font-size: 11.5pt; font-weight: 600; background: #eef5fb; border-left: 4px solid #1f77b4;
           padding: 1.8mm 3mm; }
p.note { font-size: 8.5pt; color: #44515f; margin: 1mm 0; }
ul, ol { margin: 1mm 0 2.5mm; padding-left: 5mm; }
li { margin: 0.4mm 0; }
ol.sources { font-size: 7pt; line-height: 1.25; columns: 3; column-gap: 4mm; padding-left: 5.5mm; color: #2d3846;
             overflow-wrap: anywhere; }
ol.sources li { break-inside: avoid; margin: 0 0 0.3mm; }
table { border-collapse: collapse; width: 100%; margin: 1.5mm 0 2mm; font-size: 8pt; line-height: 1.3; }
th, td { border-bottom: 1px solid #d5dde6; padding: 0.9mm 1.4mm; text-align: left; vertical-align: top; }
th { background: #f1f5f9; font-weight: 600; }
td.num, th.num { text-align: right; white-space: nowrap; }
thead { display: table-header-group; }
tr { break-inside: avoid; }
table.sources { font-size: 7pt; line-height: 1.25; }
table.sources td { padding: 0.6mm 1.2mm; }
table.sources td:first-child { white-space: nowrap; }
dl { margin: 0; }
dl.meta { display: flex; flex-wrap: wrap; gap: 1mm 7mm; font-size: 9pt; color: #44515f; margin: 0 0 3mm; }
dl.meta div { display: flex; gap: 1.5mm; }
dl.meta dt { font-weight: 600; }
dd { margin: 0; }
.facts { border: 1px solid #d5dde6; border-radius: 1.5mm; padding: 1.2mm 3mm 1.5mm; margin: 2mm 0 1mm;
         break-inside: avoid; }
.facts-title { font-size: 7.5pt; font-weight: 600; letter-spacing: 0.06em; text-transform: uppercase; color: #5b6776; }
.facts dl { display: grid; grid-template-columns: repeat(auto-fit, minmax(28mm, 1fr)); gap: 0.5mm 4mm; }
.facts dt { font-size: 7.5pt; color: #5b6776; }
figure { margin: 2mm 0 4mm; break-inside: avoid; }
figcaption { font-size: 9pt; color: #44515f; margin-bottom: 1mm; font-weight: 600; }
svg text { font-family: inherit; fill: #1d2530; }
.legend { list-style: none; padding: 0; margin: 1mm 0 0; font-size: 8pt; display: flex; flex-wrap: wrap;
          gap: 0.8mm 5mm; }
ol.legend { display: grid; grid-template-columns: repeat(auto-fill, minmax(44mm, 1fr)); gap: 0.5mm 4mm; }
ol.legend li { margin: 0; display: flex; align-items: center; gap: 1.5mm; }
ol.legend b { min-width: 3.5mm; text-align: right; }
.dot { display: inline-block; width: 8pt; height: 8pt; border-radius: 2pt; margin-right: 1.5mm; vertical-align: -1pt; }
.dash { display: inline-block; width: 12pt; border-top: 1.5px dashed #1d2530; margin-right: 1.5mm; vertical-align: 3pt; }
.box { display: inline-block; width: 12pt; height: 8pt; border: 1px solid #7b8794; margin-right: 1.5mm; vertical-align: -1pt; }
td:nth-child(2) { min-width: 28mm; }
.footer { color: #5b6776; font-size: 8pt; margin-top: 5mm; border-top: 1px solid #d5dde6; padding-top: 1.5mm; }
@media print {
  body { max-width: none; padding: 0; font-size: 9pt; line-height: 1.33; }
  h1 { font-size: 16pt; }
  h2 { font-size: 12pt; margin-top: 4mm; }
  p.strong { font-size: 10.5pt; }
}
)";

// The memory parts' colours, in the order of the legend.
constexpr std::array<const char*, 6> palette = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"};
// One colour and one shape per card in the scatter chart: no two alike in
// either up to ten cards (Tableau 10, reordered so neighbours contrast).
constexpr std::array<const char*, 10> card_colors = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                                     "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
enum class Shape { circle, square, diamond, triangle_up, triangle_down, pentagon, hexagon, star, plus, cross };
constexpr std::array<Shape, 10> card_shapes = {
    Shape::circle,   Shape::square,  Shape::diamond, Shape::triangle_up, Shape::triangle_down,
    Shape::pentagon, Shape::hexagon, Shape::star,    Shape::plus,        Shape::cross};

std::string polygon(const std::vector<std::pair<double, double>>& points, double cx, double cy, double r,
                    const std::string& style) {
  std::string coords;
  for (const auto& [x, y] : points) {
    coords += fmt::format("{}{:.1f},{:.1f}", coords.empty() ? "" : " ", cx + x * r, cy + y * r);
  }
  return fmt::format(R"(<polygon points="{}" {}/>)", coords, style);
}

std::vector<std::pair<double, double>> regular(int corners, double inner, double turn) {
  std::vector<std::pair<double, double>> points;
  const double pi = std::acos(-1.0);
  const int n = inner > 0 ? corners * 2 : corners;
  for (int i = 0; i < n; ++i) {
    const double radius = inner > 0 && i % 2 == 1 ? inner : 1.0;
    const double angle = turn + 2 * pi * i / n;
    points.emplace_back(radius * std::sin(angle), -radius * std::cos(angle));
  }
  return points;
}

// A marker of `shape` centred on (cx, cy), about 2r across.
std::string marker(Shape shape, double cx, double cy, double r, const char* fill, bool emphasis) {
  const std::string style = fmt::format(R"(fill="{}" stroke="{}" stroke-width="{}")", fill,
                                        emphasis ? "#1d2530" : "#ffffff", emphasis ? 1.6 : 1.1);
  switch (shape) {
    case Shape::circle: return fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="{:.1f}" {}/>)", cx, cy, r, style);
    case Shape::square:
      return fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" {}/>)", cx - r * 0.85,
                         cy - r * 0.85, r * 1.7, r * 1.7, style);
    case Shape::diamond: return polygon({{0, -1.15}, {1.05, 0}, {0, 1.15}, {-1.05, 0}}, cx, cy, r, style);
    case Shape::triangle_up: return polygon({{0, -1.2}, {1.1, 0.8}, {-1.1, 0.8}}, cx, cy, r, style);
    case Shape::triangle_down: return polygon({{0, 1.2}, {1.1, -0.8}, {-1.1, -0.8}}, cx, cy, r, style);
    case Shape::pentagon: return polygon(regular(5, 0, 0), cx, cy, r * 1.05, style);
    case Shape::hexagon: return polygon(regular(6, 0, 0), cx, cy, r, style);
    case Shape::star: return polygon(regular(5, 0.5, 0), cx, cy, r * 1.3, style);
    case Shape::plus:
      return polygon({{-0.35, -1.1},
                      {0.35, -1.1},
                      {0.35, -0.35},
                      {1.1, -0.35},
                      {1.1, 0.35},
                      {0.35, 0.35},
                      {0.35, 1.1},
                      {-0.35, 1.1},
                      {-0.35, 0.35},
                      {-1.1, 0.35},
                      {-1.1, -0.35},
                      {-0.35, -0.35}},
                     cx, cy, r, style);
    case Shape::cross: return polygon(regular(4, 0.38, std::acos(-1.0) / 4), cx, cy, r * 1.3, style);
  }
  return {};
}

// A log axis between round values (1, 2 or 5 times a power of ten) with its
// ticks: 1-2-5 over a range of up to about three decades, powers of ten beyond.
struct LogAxis {
  double low = 1;
  double high = 10;
  std::vector<double> ticks;
  [[nodiscard]] double at(double value, double from, double to) const {
    const double v = std::log10(std::clamp(value, low, high));
    return from + (v - std::log10(low)) / (std::log10(high) - std::log10(low)) * (to - from);
  }
};

LogAxis log_axis(double minimum, double maximum) {
  constexpr std::array<double, 3> steps = {1, 2, 5};
  minimum = std::max(minimum, 1e-9);
  maximum = std::max(maximum, minimum);
  // The round values at and below the minimum, at and above the maximum.
  auto round_down = [&](double v) {
    const double decade = std::pow(10.0, std::floor(std::log10(v) + 1e-9));
    double best = decade;
    for (const double s : steps) {
      if (s * decade <= v * (1 + 1e-9)) {
        best = s * decade;
      }
    }
    return best;
  };
  auto round_up = [&](double v) {
    const double decade = std::pow(10.0, std::floor(std::log10(v) - 1e-9));
    for (const double s : steps) {
      if (s * decade >= v * (1 - 1e-9)) {
        return s * decade;
      }
    }
    return 10 * decade;
  };
  LogAxis axis{round_down(minimum), round_up(maximum), {}};
  if (axis.high / axis.low < 4) {  // too narrow to read: one step out on each side
    axis.low = round_down(axis.low * 0.99);
    axis.high = round_up(axis.high * 1.01);
  }
  const bool fine = std::log10(axis.high / axis.low) <= 3.2;
  for (double decade = std::pow(10.0, std::floor(std::log10(axis.low) + 1e-9)); decade <= axis.high * 1.0001;
       decade *= 10) {
    for (const double s : steps) {
      const double v = s * decade;
      if ((fine || s == 1) && v >= axis.low * 0.9999 && v <= axis.high * 1.0001) {
        axis.ticks.push_back(v);
      }
    }
  }
  return axis;
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

struct Box {
  double x0, y0, x1, y1;
  [[nodiscard]] double overlap(const Box& o) const {
    const double w = std::min(x1, o.x1) - std::max(x0, o.x0);
    const double h = std::min(y1, o.y1) - std::max(y0, o.y0);
    return w > 0 && h > 0 ? w * h : 0.0;
  }
};

// A chart's frame: the plot area, its grid lines and tick labels (already
// escaped), and the axis titles.
struct Frame {
  double W, H, left, right, top, bottom;
};
struct Tick {
  double at;          // px along its axis
  std::string label;  // HTML
};
std::string svg_frame(const Frame& f, const std::vector<Tick>& x_ticks, const std::vector<Tick>& y_ticks,
                      const std::string& x_label, const std::string& y_label) {
  std::string s =
      fmt::format(R"(<svg viewBox="0 0 {} {}" width="100%" role="img" xmlns="http://www.w3.org/2000/svg">)", f.W, f.H);
  s += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="#fbfcfe" stroke="#c9d3de"/>)", f.left, f.top,
                   f.W - f.left - f.right, f.H - f.top - f.bottom);
  for (const Tick& t : x_ticks) {
    s += fmt::format(R"(<line x1="{0:.1f}" y1="{1}" x2="{0:.1f}" y2="{2}" stroke="#e3e9f0"/>)", t.at, f.top,
                     f.H - f.bottom);
    s += fmt::format(R"(<text x="{:.1f}" y="{}" font-size="10" text-anchor="middle">{}</text>)", t.at,
                     f.H - f.bottom + 13, t.label);
  }
  for (const Tick& t : y_ticks) {
    s += fmt::format(R"(<line x1="{0}" y1="{1:.1f}" x2="{2}" y2="{1:.1f}" stroke="#e3e9f0"/>)", f.left, t.at,
                     f.W - f.right);
    s += fmt::format(R"(<text x="{}" y="{:.1f}" font-size="10" text-anchor="end">{}</text>)", f.left - 5, t.at + 3.5,
                     t.label);
  }
  s += fmt::format(R"(<text x="{}" y="{}" font-size="10.5" text-anchor="middle">{}</text>)",
                   (f.left + f.W - f.right) / 2, f.H - 10, html_escape(x_label));
  s += fmt::format(
      R"svg(<text x="13" y="{0}" font-size="10.5" text-anchor="middle" transform="rotate(-90 13 {0})">{1}</text>)svg",
      (f.top + f.H - f.bottom) / 2, html_escape(y_label));
  return s;
}

std::string svg_scatter(const Scatter& chart) {
  constexpr double W = 680, H = 280, left = 62, right = 14, top = 12, bottom = 44;
  double xmin = 1e300, xmax = 0, ymin = 1e300, ymax = 0;
  for (const auto& p : chart.points) {
    xmin = std::min({xmin, p.x.low, p.x.typical});
    xmax = std::max({xmax, p.x.high, p.x.typical});
    ymin = std::min({ymin, p.y.low, p.y.typical});
    ymax = std::max({ymax, p.y.high, p.y.typical});
  }
  const LogAxis x = log_axis(xmin, xmax);
  const LogAxis y = log_axis(ymin, ymax);
  auto px = [&](double v) { return x.at(v, left, W - right); };
  auto py = [&](double v) { return y.at(v, H - bottom, top); };
  std::vector<Tick> x_ticks;
  for (const double v : x.ticks) {
    x_ticks.push_back({px(v), tick_label(v)});
  }
  std::vector<Tick> y_ticks;
  for (const double v : y.ticks) {
    y_ticks.push_back({py(v), html_escape(chart.y_prefix) + tick_label(v)});
  }
  std::string s = svg_frame(Frame{W, H, left, right, top, bottom}, x_ticks, y_ticks, chart.x_label, chart.y_label);

  // Ranges first, under every marker; then the markers, the first plan on top.
  std::vector<Box> taken;
  for (std::size_t i = 0; i < chart.points.size(); ++i) {
    const auto& p = chart.points[i];
    const char* color = card_colors[i % card_colors.size()];
    const double cx = px(p.x.typical);
    const double cy = py(p.y.typical);
    s += fmt::format(
        R"(<path d="M{:.1f} {:.1f}H{:.1f}M{:.1f} {:.1f}V{:.1f}" stroke="{}" stroke-width="1.3" stroke-opacity="0.6"/>)",
        px(p.x.low), cy, px(p.x.high), cx, py(p.y.low), py(p.y.high), color);
    const double r = p.best ? 7 : 5.5;
    taken.push_back(Box{cx - r, cy - r, cx + r, cy + r});
  }
  for (std::size_t n = chart.points.size(); n-- > 0;) {
    const auto& p = chart.points[n];
    s += marker(card_shapes[n % card_shapes.size()], px(p.x.typical), py(p.y.typical), p.best ? 7 : 5.5,
                card_colors[n % card_colors.size()], p.best);
  }
  // Each marker's number beside it, where it overlaps the least of the other
  // markers, the numbers already placed and the frame (first free spot wins).
  const Box frame{left, top, W - right, H - bottom};
  for (std::size_t i = 0; i < chart.points.size(); ++i) {
    const auto& p = chart.points[i];
    const double cx = px(p.x.typical);
    const double cy = py(p.y.typical);
    const std::string text = std::to_string(p.rank);
    const double w = 6.4 * static_cast<double>(text.size()) + 1;
    const double h = 10;
    const double gap = (p.best ? 7 : 5.5) + 2;
    const std::array<std::pair<double, double>, 8> spots = {
        {{1, 0}, {-1, 0}, {0, -1}, {0, 1}, {1, -1}, {1, 1}, {-1, -1}, {-1, 1}}};
    Box best_box{};
    double best_cost = 1e300;
    for (const auto& [dx, dy] : spots) {
      const double bx = dx > 0 ? cx + gap : dx < 0 ? cx - gap - w : cx - w / 2;
      const double by = dy > 0 ? cy + gap : dy < 0 ? cy - gap - h : cy - h / 2;
      const Box box{bx, by, bx + w, by + h};
      double cost = 0;
      for (std::size_t k = 0; k < taken.size(); ++k) {
        cost += taken[k].overlap(box) * (k == i ? 0 : 1);
      }
      const double inside = frame.overlap(box);
      cost += (w * h - inside) * 4;  // outside the frame
      if (cost < best_cost - 1e-9) {
        best_cost = cost;
        best_box = box;
      }
      if (cost <= 0) {
        break;
      }
    }
    taken.push_back(best_box);
    s += fmt::format(
        R"(<text x="{:.1f}" y="{:.1f}" font-size="10" font-weight="700" text-anchor="middle" style="fill:{}">{}</text>)",
        (best_box.x0 + best_box.x1) / 2, best_box.y1 - 1.5, card_colors[i % card_colors.size()], text);
  }
  s += "</svg>\n<ol class=\"legend\">";
  for (std::size_t i = 0; i < chart.points.size(); ++i) {
    const auto& p = chart.points[i];
    s += fmt::format(
        R"(<li><svg width="11" height="11" viewBox="-7 -7 14 14" aria-hidden="true">{}</svg><b>{}</b>{}</li>)",
        marker(card_shapes[i % card_shapes.size()], 0, 0, 5.5, card_colors[i % card_colors.size()], p.best), p.rank,
        html_escape(p.label));
  }
  return s + "</ol>";
}

// A round step for a linear axis up to `maximum` with about `ticks` ticks.
double linear_step(double maximum, int ticks) {
  const double raw = maximum / ticks;
  const double decade = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double s : {1.0, 2.0, 2.5, 5.0}) {
    if (s * decade >= raw) {
      return s * decade;
    }
  }
  return 10 * decade;
}

// Lines on a linear 0-100% x axis and a linear y axis from 0; the first
// series in the first colour, a flat one dashed.
std::string svg_lines(const LineChart& chart) {
  constexpr double W = 680, H = 260, left = 62, right = 14, top = 12, bottom = 44;
  double ymax = 0;
  for (const auto& [label, values] : chart.series) {
    for (const double v : values) {
      ymax = std::max(ymax, v);
    }
  }
  const double step = linear_step(ymax > 0 ? ymax : 1, 5);
  const double top_value = std::ceil((ymax > 0 ? ymax : 1) / step) * step;
  auto px = [&](double v) { return left + v * (W - left - right); };
  auto py = [&](double v) { return H - bottom - v / top_value * (H - top - bottom); };
  std::vector<Tick> x_ticks;
  for (int i = 0; i <= 10; i += 2) {
    x_ticks.push_back({px(i / 10.0), fmt::format("{}%", i * 10)});
  }
  std::vector<Tick> y_ticks;
  for (double v = 0; v <= top_value + step / 2; v += step) {
    y_ticks.push_back({py(v), html_escape(chart.y_prefix) + tick_label(v)});
  }
  std::string s = svg_frame(Frame{W, H, left, right, top, bottom}, x_ticks, y_ticks, chart.x_label, chart.y_label);
  if (chart.mark) {
    s += fmt::format(R"(<line x1="{0:.1f}" y1="{1}" x2="{0:.1f}" y2="{2}" stroke="#555" stroke-dasharray="3 3"/>)",
                     px(*chart.mark), top, H - bottom);
  }
  std::string legend = "<div class=\"legend\">";
  for (std::size_t k = 0; k < chart.series.size(); ++k) {
    const std::string& label = chart.series[k].first;
    const std::vector<double>& values = chart.series[k].second;
    const char* color = card_colors[k % card_colors.size()];
    const bool flat = std::all_of(values.begin(), values.end(), [&](double v) { return v == values.front(); });
    std::string d;
    for (std::size_t i = 0; i < values.size() && i < chart.x.size(); ++i) {
      d += fmt::format("{}{:.1f} {:.1f}", i == 0 ? "M" : "L", px(chart.x[i]), py(values[i]));
    }
    s += fmt::format(R"(<path d="{}" fill="none" stroke="{}" stroke-width="2"{}/>)", d, color,
                     flat ? R"( stroke-dasharray="6 4")" : "");
    legend +=
        fmt::format(R"(<span><span class="dot" style="background:{}"></span>{}</span>)", color, html_escape(label));
  }
  return s + "</svg>\n" + legend + "</div>";
}

std::string svg_bars(const StackedBars& chart) {
  constexpr double W = 680, left = 180, right = 16, top = 6, row = 19;
  const double axis_h = chart.axis_label.empty() ? 16 : 30;
  const double plot_bottom = top + row * static_cast<double>(chart.bars.size());
  const double H = plot_bottom + axis_h;
  double maximum = 1;
  for (const auto& bar : chart.bars) {
    double sum = 0;
    for (const double v : bar.parts) {
      sum += v;
    }
    maximum = std::max({maximum, sum, bar.capacity});
  }
  maximum *= 1.08;  // room for the last bar's label
  const double step = linear_step(maximum, 6);
  maximum = std::ceil(maximum / step - 1e-9) * step;
  auto px = [&](double v) { return left + v / maximum * (W - left - right); };
  std::string s =
      fmt::format(R"(<svg viewBox="0 0 {} {:.0f}" width="100%" role="img" xmlns="http://www.w3.org/2000/svg">)", W, H);
  for (double v = 0; v <= maximum * 1.0001; v += step) {
    s += fmt::format(R"(<line x1="{0:.1f}" y1="{1}" x2="{0:.1f}" y2="{2:.1f}" stroke="#e3e9f0"/>)", px(v), top,
                     plot_bottom);
    s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-size="9.5" text-anchor="middle">{:g}</text>)", px(v),
                     plot_bottom + 12, v);
  }
  if (!chart.axis_label.empty()) {
    s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-size="10" text-anchor="middle">{}</text>)",
                     (left + W - right) / 2, plot_bottom + 26, html_escape(chart.axis_label));
  }
  double yy = top;
  for (const auto& bar : chart.bars) {
    s += fmt::format(R"(<text x="{}" y="{:.1f}" font-size="9.5" text-anchor="end">{}</text>)", left - 6, yy + 12.5,
                     html_escape(bar.label));
    double x0 = 0;
    for (std::size_t i = 0; i < bar.parts.size(); ++i) {
      if (bar.parts[i] <= 0) {
        continue;
      }
      s += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="14" fill="{}"/>)", px(x0), yy + 2.5,
                       px(x0 + bar.parts[i]) - px(x0), palette[i % palette.size()]);
      x0 += bar.parts[i];
    }
    s += fmt::format(
        R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{0:.1f}" y2="{2:.1f}" stroke="#1d2530" stroke-dasharray="3,2"/>)",
        px(bar.usable), yy + 1.5, yy + 18.5);
    // The total needed: after the bar when it fits before the usable line, else after the frame.
    const bool before_usable = px(bar.usable) - px(x0) > 38;
    s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-size="9" font-weight="600">{:.1f}</text>)",
                     (before_usable ? px(x0) : px(bar.capacity)) + 4, yy + 12.5, x0);
    s += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="14" fill="none" stroke="#7b8794"/>)", px(0),
                     yy + 2.5, px(bar.capacity) - px(0));
    yy += row;
  }
  s += "</svg>\n<div class=\"legend\">";
  for (std::size_t i = 0; i < chart.legend.size(); ++i) {
    s += fmt::format(R"(<span><span class="dot" style="background:{}"></span>{}</span>)", palette[i % palette.size()],
                     html_escape(chart.legend[i]));
  }
  s += fmt::format(R"(<span><span class="dash"></span>{}</span><span><span class="box"></span>{}</span>)",
                   html_escape(chart.usable_label), html_escape(chart.capacity_label));
  return s + "</div>";
}

std::string html_key_values(const KeyValues& facts) {
  std::string items;
  for (const auto& [label, value] : facts.items) {
    if (!value.empty()) {
      items += fmt::format("<div><dt>{}</dt><dd>{}</dd></div>", html_escape(label), html_escape(value));
    }
  }
  if (items.empty()) {
    return {};
  }
  if (facts.header) {
    return fmt::format("<dl class=\"meta\">{}</dl>\n", items);
  }
  const std::string title = facts.title.empty()
                                ? std::string()
                                : fmt::format("<div class=\"facts-title\">{}</div>", html_escape(facts.title));
  return fmt::format("<div class=\"facts\">{}<dl>{}</dl></div>\n", title, items);
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
      "content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n<style>{}"
      "@page {{ @bottom-left {{ content: \"{}\"; font-size: 7.5pt; color: #6b7785; }} }}\n</style>\n</head>\n<body>\n",
      language == Language::zh ? "zh-CN" : "en", html_escape(title), css, css_string(title));
  for (std::size_t i = 0; i < doc.size(); ++i) {
    const auto& block = doc[i];
    const bool last = i + 1 == doc.size();
    if (const auto* h = std::get_if<Heading>(&block)) {
      if (h->kicker.empty()) {
        out += fmt::format("<h{0}>{1}</h{0}>\n", h->level, html_escape(h->text));
      } else {
        out += fmt::format("<h{0} class=\"appendix\"><span class=\"kicker\">{1}</span>{2}</h{0}>\n", h->level,
                           html_escape(h->kicker), html_escape(h->text));
      }
    } else if (const auto* p = std::get_if<Paragraph>(&block)) {
      const char* cls = last ? " class=\"footer\"" : p->strong ? " class=\"strong\"" : p->note ? " class=\"note\"" : "";
      out += fmt::format("<p{}>{}</p>\n", cls, html_escape(p->text));
    } else if (const auto* b = std::get_if<Bullets>(&block)) {
      const char* tag = b->numbered ? "ol" : "ul";
      out += fmt::format("<{}{}>\n", tag, b->small ? " class=\"sources\"" : "");
      for (const auto& item : b->items) {
        out += "<li>" + html_escape(item) + "</li>\n";
      }
      out += fmt::format("</{}>\n", tag);
    } else if (const auto* t = std::get_if<TableBlock>(&block); t != nullptr && !t->charted) {
      auto cls = [&](std::size_t c) {
        return c < t->numeric.size() && t->numeric[c] ? std::string(" class=\"num\"") : std::string();
      };
      out += t->small ? "<table class=\"sources\">\n" : "<table>\n";
      const bool has_header = std::any_of(t->header.begin(), t->header.end(), [](const auto& c) { return !c.empty(); });
      if (has_header) {
        out += "<thead><tr>";
        for (std::size_t c = 0; c < t->header.size(); ++c) {
          out += fmt::format("<th{}>{}</th>", cls(c), html_escape(t->header[c]));
        }
        out += "</tr></thead>\n";
      }
      out += "<tbody>\n";
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
    } else if (const auto* lc = std::get_if<LineChart>(&block)) {
      out +=
          fmt::format("<figure><figcaption>{}</figcaption>\n{}\n</figure>\n", html_escape(lc->title), svg_lines(*lc));
    } else if (const auto* sb = std::get_if<StackedBars>(&block)) {
      out += fmt::format("<figure><figcaption>{}</figcaption>\n{}\n</figure>\n", html_escape(sb->title), svg_bars(*sb));
    } else if (const auto* f = std::get_if<KeyValues>(&block)) {
      out += html_key_values(*f);
    }
  }
  return out + "</body>\n</html>\n";
}

}  // namespace gpu_advise::document
