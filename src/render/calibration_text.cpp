// `calibrate` in text: for each card and stack (or engine) its factors and
// left-out errors, then every measurement's figures as measured, as modelled
// before and after calibration, and predicted from the others alone.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/quantity_format.hpp"
#include "gpu_advise/render.hpp"
#include "gpu_advise/text.hpp"
#include "gpu_advise/words.hpp"
#include "render/text_table.hpp"

namespace gpu_advise {

using render::Align;
using render::Table;

namespace {

std::string percent(double share) { return fmt::format("{:.0f}", 100.0 * share); }

// A figure and its error against the measured one: "53,472 (+16%)".
std::string against(double value, double measured) {
  return fmt::format("{} ({:+.0f}%)", format::number(value), 100.0 * (value - measured) / measured);
}

Phrase metric_phrase(const std::string& metric) {
  if (metric == "peak_memory_gib") {
    return Phrase::calib_metric_memory;
  }
  if (metric == "output_tokens_per_s") {
    return Phrase::calib_metric_output;
  }
  if (metric == "tpot_ms") {
    return Phrase::calib_metric_tpot;
  }
  if (metric == "ttft_ms") {
    return Phrase::calib_metric_ttft;
  }
  return Phrase::calib_metric_tokens;
}

template <typename Line>
void speed_lines(const Calibration& c, Language l, Line&& line);
template <typename Line>
void memory_lines(const Calibration& c, Language l, Line&& line);

std::string summary(const Calibration& c, Language l, std::size_t width) {
  std::string out;
  const std::string newest = c.newest.empty() ? std::string() : say(l, Phrase::calib_newest, c.newest);
  out +=
      render::wrap_lines(
          say(l, c.kind == CalibrationKind::training ? Phrase::calib_heading_training : Phrase::calib_heading_serving,
              c.gpu, c.key,
              say(l, c.measurements == 1 ? Phrase::calib_one_measurement : Phrase::calib_measurements, c.measurements),
              newest),
          width, "  ") +
      "\n";
  auto line = [&](const std::string& text) { out += render::wrap_lines("  " + text, width, "    ") + "\n"; };
  if (!c.file.empty()) {
    line(say(l, Phrase::calib_made, text::printable(c.file), c.created));
  }
  if (c.speed.fitted_on == 0) {
    line(say(l, Phrase::calib_speed_none));
  } else {
    speed_lines(c, l, line);
  }
  memory_lines(c, l, line);
  return out;
}

// A fit's left-out error against the model's own, and whether it is applied.
template <typename Fit, typename Line>
void error_lines(const Fit& fit, Language l, Line&& line) {
  if (!fit.median_error || !fit.max_error) {
    line("  " + say(l, fit.applied ? Phrase::calib_no_error : Phrase::calib_not_identified));
    return;
  }
  line("  " + say(l, Phrase::calib_error, percent(*fit.median_error), percent(*fit.max_error)));
  if (fit.model_error) {
    line("  " + say(l, fit.applied ? Phrase::calib_model_error : Phrase::calib_not_applied, percent(*fit.model_error)));
  }
}

template <typename Line>
void speed_lines(const Calibration& c, Language l, Line&& line) {
  line(say(l, c.kind == CalibrationKind::training ? Phrase::calib_speed_training : Phrase::calib_speed_serving,
           fmt::format("{:.3f}", c.speed.factor)));
  error_lines(c.speed, l, line);
  if (c.speed.applied && c.speed.band_low && c.speed.band_high) {
    line("  " + say(l, Phrase::calib_band, fmt::format("{:.2f}", *c.speed.band_low),
                    fmt::format("{:.2f}", *c.speed.band_high)));
  } else if (c.speed.applied) {
    line("  " + say(l, Phrase::calib_band_global));
  }
}

template <typename Line>
void memory_lines(const Calibration& c, Language l, Line&& line) {
  if (c.kind == CalibrationKind::training) {
    if (c.memory.fitted_on == 0) {
      line(say(l, Phrase::calib_memory_none));
    } else {
      line(say(l, Phrase::calib_memory, fmt::format("{:.3f}", c.memory.scale),
               fmt::format("{} {:.2f}", c.memory.offset_gib < 0 ? '-' : '+', std::abs(c.memory.offset_gib))));
      error_lines(c.memory, l, line);
    }
  }
}

std::string measurements(const Calibration& c, Language l, std::size_t width) {
  Table table({{say(l, Phrase::calib_col_measurement), 99, Align::left, render::Overflow::keep},
               {say(l, Phrase::calib_col_figure), 9},
               {say(l, Phrase::calib_col_measured), 8, Align::right},
               {say(l, Phrase::calib_col_before), 7, Align::right},
               {say(l, Phrase::calib_col_after), 6, Align::right},
               {say(l, Phrase::calib_col_left_out), 5, Align::right}});
  std::string refused;
  bool rows = false;
  for (const auto& p : c.provenance) {
    const std::string name = text::printable(p.id.empty() ? p.origin : p.id);
    for (const auto& f : p.figures) {
      rows = true;
      table.add_row({name, say(l, metric_phrase(f.metric)), format::number(f.measured), against(f.before, f.measured),
                     against(f.after, f.measured), f.left_out ? against(*f.left_out, f.measured) : "-"});
    }
    if (p.refused == CalibrationProvenance::Refusal::no_plan) {
      refused += render::wrap_lines("  " + say(l, Phrase::calib_refused_plan, name), width, "    ") + "\n";
    } else if (p.refused != CalibrationProvenance::Refusal::none) {
      const Phrase phrase = p.refused == CalibrationProvenance::Refusal::below_bound ? Phrase::calib_refused_bound
                                                                                     : Phrase::calib_refused_above;
      refused +=
          render::wrap_lines("  " + say(l, phrase, name, percent(p.bound_share), format::number(p.bound_tokens_per_s)),
                             width, "    ") +
          "\n";
    }
  }
  return (rows ? table.to_string("  ", width) : std::string()) + refused;
}

}  // namespace

std::string render_calibration_text(std::span<const Calibration> calibrations, Language l, const TextStyle& style) {
  const std::size_t width = static_cast<std::size_t>(std::max(style.width, 0));
  std::string out;
  for (const Calibration& c : calibrations) {
    if (!out.empty()) {
      out += "\n";
    }
    out += summary(c, l, width);
    out += measurements(c, l, width);
  }
  return out;
}

}  // namespace gpu_advise
