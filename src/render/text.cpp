// Terminal output of a Report: the answer first, the ranked table, the reasons
// for the top picks, the rejected cards and the assumptions. (The listings,
// 'list', 'show', 'models' and 'rules', are in listings.cpp.)
#include <algorithm>
#include <cmath>
#include <iterator>

#include <fmt/format.h>

#include "core/quantity_format.hpp"
#include "gpu_advise/render.hpp"
#include "gpu_advise/scoring.hpp"
#include "gpu_advise/text.hpp"
#include "gpu_advise/units.hpp"
#include "gpu_advise/wording.hpp"
#include "gpu_advise/words.hpp"
#include "render/comparison.hpp"
#include "render/table.hpp"

namespace gpu_advise {

namespace {

using render::Align;
using render::Table;

constexpr std::size_t explained_picks = 3;

// ANSI styles, used only when colour is on.
struct Paint {
  bool on = false;
  [[nodiscard]] std::string wrap(std::string_view code, const std::string& text) const {
    return on ? fmt::format("\x1b[{}m{}\x1b[0m", code, text) : text;
  }
  [[nodiscard]] std::string bold(const std::string& t) const { return wrap("1", t); }
  [[nodiscard]] std::string good(const std::string& t) const { return wrap("1;32", t); }
  [[nodiscard]] std::string warn(const std::string& t) const { return wrap("33", t); }
  [[nodiscard]] std::string dim(const std::string& t) const { return wrap("2", t); }
};

std::string header_line(const Report& report, Language l) {
  const Request& r = report.request;
  const std::string label = model_label(report.model, l);
  std::string budget = describe(r.budget, l);
  if (r.budget_usd) {
    budget = say(l, Phrase::header_budget_amount, format::money(*r.budget_usd, format::money_unit(r)));
  }
  const std::string model = report.model.source == ModelSource::inferred ? label
                            : l == Language::zh                          ? " " + label + " "
                                                                         : label;
  return say(l, Phrase::header, report.tool_version, describe(r.task, l), model, budget,
             say(l, r.mode == CostMode::rent ? Phrase::renting : Phrase::buying)) +
         (r.region == Region::cn ? say(l, Phrase::header_region_cn) : "");
}

std::string cost_cell(const Estimate& e, CostMode mode, format::MoneyUnit unit, Language l) {
  const auto& run = mode == CostMode::rent ? e.cost.rent_usd : e.cost.buy_usd;
  if (e.training && run) {
    return format::money(run->typical, unit);
  }
  if (e.cost.usd_per_million_tokens) {
    return say(l, Phrase::per_m_cell, format::money(e.cost.usd_per_million_tokens->typical, unit));
  }
  return say(l, Phrase::no_price);
}

std::string headroom_cell(const Estimate& e, Language l) {
  return say(l, e.tight() ? Phrase::headroom_tight_cell : Phrase::headroom_cell, 100.0 * e.headroom());
}

std::string time_cell(const Estimate& e, Language l) {
  if (e.training) {
    return say_duration(l, e.training->wall_hours.typical);
  }
  if (e.inference) {
    return say(l, Phrase::tokens_per_s_cell, e.inference->tokens_per_s.typical);
  }
  return "-";
}

std::string headline(const Report& report, Language l) {
  const Recommendation& best = report.recommendations.front();
  const Estimate& e = best.estimate;
  const CostMode mode = report.request.mode;
  const format::MoneyUnit unit = format::money_unit(report.request);
  std::string line = say(l, Phrase::best, e.count, best.gpu.name);
  if (mode == CostMode::rent && e.cost.rent_usd_per_gpu_hour) {
    line += say(l, Phrase::best_rent, format::money(e.cost.rent_usd_per_gpu_hour->typical, unit));
    line += say(l, e.cost.price_basis == PriceBasis::user_price ? Phrase::best_basis_user
                   : e.cost.lease_rates_only                    ? Phrase::best_basis_leases
                                                                : Phrase::best_basis_quotes);
  } else if (mode == CostMode::buy && e.cost.purchase_usd) {
    line += say(l, Phrase::best_buy, format::money(e.cost.purchase_usd->typical, unit));
  }
  if (e.training) {
    line += say(l, Phrase::best_training_time, say_duration(l, e.training->wall_hours.typical));
    const auto& run = mode == CostMode::rent ? e.cost.rent_usd : e.cost.buy_usd;
    if (run) {
      line += say(l, Phrase::best_training_cost, format::money(run->typical, unit));
    }
    line += say(l, report.request.tokens ? Phrase::best_tokens : Phrase::best_tokens_default,
                format_parameter_count(e.training->tokens));
  } else if (e.inference) {
    const InferenceEstimate& inf = *e.inference;
    line +=
        say(l, Phrase::best_inference, inf.tokens_per_s.typical, inf.user_tokens_per_s.typical, inf.tpot_ms.typical);
    if (e.cost.usd_per_million_tokens) {
      line += say(l, Phrase::best_inference_cost, format::money(e.cost.usd_per_million_tokens->typical, unit));
    }
    if (inf.replicas > 1 || inf.request_rate) {
      line += say(l, Phrase::best_replicas, inf.replicas, inf.concurrency, inf.context, inf.requests_per_s.typical);
    } else {
      line += say(l, Phrase::best_concurrency, inf.concurrency, inf.context);
    }
  }
  line += say(l, Phrase::best_memory, format::gib(e.per_gpu.total()), format::number(best.gpu.memory.capacity_gib));
  return line;
}

// Splits text into pieces that may not be broken: ASCII words (with their
// trailing space) and single wide characters.
std::vector<std::string> wrap_units(const std::string& text) {
  std::vector<std::string> units;
  std::string current;
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const std::size_t length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1;
    const std::string piece = text.substr(i, length);
    i += length;
    if (length >= 3) {  // CJK and other wide characters: break anywhere,
      // but never before closing punctuation (it stays with what it closes).
      const bool closes = is_closing_punctuation(piece);
      if (closes && current.empty() && !units.empty()) {
        units.back() += piece;
        continue;
      }
      if (closes) {
        current += piece;
        units.push_back(current);
        current.clear();
        continue;
      }
      if (!current.empty()) {
        units.push_back(current);
        current.clear();
      }
      units.push_back(piece);
    } else if (piece == " ") {
      current += piece;
      units.push_back(current);
      current.clear();
    } else {
      current += piece;
    }
  }
  if (!current.empty()) {
    units.push_back(current);
  }
  return units;
}

// "  - text" wrapped to `width` columns with a hanging indent (no wrapping when width is 0).
std::string bullet(const std::string& text, std::size_t width, const std::string& indent = "  - ",
                   const std::string& hang = "    ") {
  if (width == 0 || render::display_width(indent + text) <= width) {
    return indent + text + "\n";
  }
  std::string out = indent;
  std::size_t column = render::display_width(indent);
  bool line_has_text = false;
  for (const auto& unit : wrap_units(text)) {
    std::string piece = unit;
    const std::size_t w = render::display_width(piece);
    if (line_has_text && column + w > width) {
      while (!out.empty() && out.back() == ' ') {
        out.pop_back();
      }
      out += "\n" + hang;
      column = render::display_width(hang);
      while (!piece.empty() && piece.front() == ' ') {
        piece.erase(0, 1);
      }
    }
    out += piece;
    column += render::display_width(piece);
    line_has_text = true;
  }
  while (!out.empty() && out.back() == ' ') {
    out.pop_back();
  }
  return out + "\n";
}

std::string effect_word(EffectKind effect, Language l) {
  switch (effect) {
    case EffectKind::reject: return say(l, Phrase::effect_reject);
    case EffectKind::score: return say(l, Phrase::effect_score);
    case EffectKind::note: return say(l, Phrase::effect_note);
    case EffectKind::warning: return say(l, Phrase::effect_warning);
  }
  return {};
}

std::string explain_findings(const std::vector<Finding>& findings, const Paint& paint, Language l) {
  std::string out;
  for (const auto& f : findings) {
    if (f.fired) {
      const std::string points = f.points == 0 ? std::string() : fmt::format("{:+g}", f.points);
      out += fmt::format("    {} {} {} {}  {}\n", paint.bold(say(l, Phrase::rule_fired)), f.rule_id,
                         effect_word(f.effect, l), points, f.message_in(l));
    } else {
      out += paint.dim(fmt::format("    -  {}", f.rule_id)) + "\n";
    }
  }
  return out;
}

}  // namespace

std::string render_text(const Report& report, Language l, const TextStyle& style) {
  const Paint paint{style.color};
  const std::size_t width = static_cast<std::size_t>(std::max(style.width, 0));
  std::string out = paint.bold(bullet(header_line(report, l), width, "", "")) + "\n";

  if (!report.request.compare.empty()) {
    const render::Comparison c = render::comparison(report, l);
    std::vector<std::pair<std::string, Align>> columns;
    for (std::size_t i = 0; i < c.header.size(); ++i) {
      columns.emplace_back(c.header[i], i == 0 ? Align::left : Align::right);
    }
    Table table(columns);
    for (const auto& row : c.rows) {
      table.add_row(row);
    }
    out += table.to_string();  // every figure whole: a comparison is read across, not cut to fit
    for (const auto& [name, lines] : c.notes) {
      out += fmt::format("\n{}\n", paint.bold(name));
      for (const auto& line : lines) {
        out += bullet(line, width);
      }
    }
  } else if (report.anything_fits()) {
    out += paint.good(bullet(headline(report, l), width, "", "  "));
    for (const auto& line : headline_notes(report, l)) {
      out += bullet(line, width, "", "  ");
    }
    out += "\n";
    const bool training = is_training(report.request.task);
    const bool rent = report.request.mode == CostMode::rent;
    Table table({{"#", Align::right},
                 {say(l, Phrase::col_gpu), Align::left},
                 {say(l, Phrase::col_count), Align::right},
                 {say(l, Phrase::col_memory), Align::right},
                 {say(l, Phrase::col_headroom), Align::right},
                 {say(l, training ? Phrase::col_time : Phrase::col_throughput), Align::right},
                 {say(l, rent ? (training ? Phrase::col_rent_run : Phrase::col_rent_per_m)
                              : (training ? Phrase::col_own_run : Phrase::col_own_per_m)),
                  Align::right},
                 {say(l, Phrase::col_score), Align::right}});
    for (const auto& r : report.recommendations) {
      table.add_row(
          {std::to_string(r.rank), r.gpu.name, std::to_string(r.estimate.count),
           fmt::format("{} / {}", format::gib(r.estimate.per_gpu.total()), format::number(r.gpu.memory.capacity_gib)),
           headroom_cell(r.estimate, l), time_cell(r.estimate, l),
           cost_cell(r.estimate, report.request.mode, format::money_unit(report.request), l),
           fmt::format("{:.0f}", r.score.total)});
    }
    out += table.to_string("", width);
    if (report.omitted > 0) {
      out += say(l, Phrase::more_fit, report.omitted) + "\n";
    }
    for (std::size_t i = 0; i < report.recommendations.size() && i < explained_picks; ++i) {
      const auto& r = report.recommendations[i];
      out += "\n" + paint.bold(say(l, Phrase::why, r.rank, r.gpu.name, describe(r.score, l))) + "\n";
      for (const auto& line : rationale(report.request, r, l)) {
        const std::string text = bullet(line.text, width);
        out += line.warning ? paint.warn(text.substr(0, text.size() - 1)) + "\n" : text;
      }
    }
  } else {
    out += paint.bold(say(l, report.request.gpu_ids.empty() ? Phrase::nothing_fits : Phrase::nothing_fits_selected)) +
           "\n";
    if (!report.ways_out.empty()) {
      out += "\n" + paint.bold(say(l, Phrase::ways_out)) + "\n";
      for (const auto& w : report.ways_out) {
        out += bullet(describe(w, report.request, l), width);
      }
    }
  }

  if (!report.rejected.empty() && report.request.compare.empty()) {
    out += "\n" + paint.bold(say(l, Phrase::rejected, report.rejected.size())) + "\n";
    std::string lines;
    std::size_t not_selected = 0;  // cards left out by --gpu: one line for all of them
    for (const auto& r : report.rejected) {
      if (r.reasons.size() == 1 && std::holds_alternative<NotSelected>(r.reasons.front())) {
        ++not_selected;
        continue;
      }
      lines += bullet(fmt::format("{}{} {}", r.gpu.name, say(l, Phrase::reason_colon),
                                  text::join(reasons(r, report.request, l), say(l, Phrase::reason_separator))),
                      width);
    }
    if (not_selected > 0) {
      lines += bullet(say(l, Phrase::not_selected_cards, not_selected), width);
    }
    out += paint.on ? paint.dim(lines.substr(0, lines.size() - 1)) + "\n" : lines;
  }

  if (!report.unmatched_rules.empty()) {
    out += "\n" + paint.bold(say(l, Phrase::warnings)) + "\n";
    for (const auto& rule : report.unmatched_rules) {
      out += paint.warn(bullet(describe(rule, l), width));
    }
  }

  if (report.request.explain) {
    out += "\n" + paint.bold(say(l, Phrase::rule_evaluation)) + "\n";
    for (const auto& r : report.recommendations) {
      out += fmt::format("  #{} {}: {}\n", r.rank, r.gpu.name, describe(r.score, l));
      out += explain_findings(r.findings, paint, l);
    }
    for (const auto& r : report.rejected) {
      if (r.findings.empty()) {
        continue;  // not considered (--gpu)
      }
      out += fmt::format("  {} {}: {}\n", say(l, Phrase::rule_rejected), r.gpu.name,
                         text::join(reasons(r, report.request, l), "; "));
      out += explain_findings(r.findings, paint, l);
    }
  }

  out += fmt::format("\n{}\n", paint.bold(say(l, Phrase::assumptions)));
  for (const auto& a : assumptions(report.request, report.model, l)) {
    out += bullet(a, width);
  }
  out += "\n" + say(l, Phrase::footer, report.catalog.version, report.catalog.updated) + "\n";
  return out;
}

}  // namespace gpu_advise
