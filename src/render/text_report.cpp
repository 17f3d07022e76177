// Terminal output of a Report: the answer first, the ranked table, the reasons
// for the top picks, the rejected cards and the assumptions. (The listings,
// 'list', 'show', 'models' and 'rules', are in listings.cpp.)
#include <algorithm>
#include <cmath>
#include <iterator>

#include <fmt/format.h>

#include "core/quantity_format.hpp"
#include "gpu_advise/phrases.hpp"
#include "gpu_advise/render.hpp"
#include "gpu_advise/text.hpp"
#include "gpu_advise/units.hpp"
#include "gpu_advise/words.hpp"
#include "render/comparison.hpp"
#include "render/own_rent.hpp"
#include "render/text_table.hpp"

namespace gpu_advise {

namespace {

using render::Align;
using render::Table;

constexpr std::size_t explained_picks = 3;

// ANSI styles, used only when colour is on. Each line is styled on its own:
// the style closes before the newline, so no line starts with a reset.
struct Paint {
  bool on = false;
  [[nodiscard]] std::string wrap(std::string_view code, const std::string& text) const {
    if (!on) {
      return text;
    }
    std::string out;
    std::size_t start = 0;
    while (start < text.size()) {
      const auto end = text.find('\n', start);
      const std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
      if (!line.empty()) {
        out += fmt::format("\x1b[{}m{}\x1b[0m", code, line);
      }
      if (end == std::string::npos) {
        break;
      }
      out += "\n";
      start = end + 1;
    }
    return out;
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
  // Chinese: a preset's Latin name is set off by a space from the task before it, not after.
  const std::string model = report.model.source != ModelSource::inferred && l == Language::zh ? " " + label : label;
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
    if (e.cost.offer) {  // where to rent it
      line += say(l, Phrase::best_basis_file, offer_units(*e.cost.offer, l), e.cost.offer->provider,
                  e.cost.offer->location);
    } else {
      const std::string tier = describe(e.cost.rent_tier, l);
      line += e.cost.price_basis == PriceBasis::user_price ? say(l, Phrase::best_basis_user)
              : e.cost.lease_rates_only                    ? say(l, Phrase::best_basis_leases)
              : e.cost.rent_quotes == 1                    ? say(l, Phrase::best_basis_one_quote, tier)
                                        : say(l, Phrase::best_basis_quotes, e.cost.rent_quotes, tier);
    }
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
    if (e.layout.wide_expert()) {  // each GPU its own requests' attention
      line += say(l, Phrase::best_ranks, inf.replicas, inf.concurrency, inf.context, inf.requests_per_s.typical);
    } else if (inf.replicas > 1 || inf.request_rate) {
      line += say(l, Phrase::best_replicas, inf.decoding_copies(), inf.concurrency, inf.context,
                  inf.requests_per_s.typical);
    } else {
      line += say(l, Phrase::best_concurrency, inf.concurrency, inf.context);
    }
  }
  line += say(l, Phrase::best_memory, format::gib(e.per_gpu.total()), format::number(best.gpu.memory.capacity_gib));
  return line;
}

// "  - text" wrapped to `width` columns with a hanging indent (no wrapping when width is 0).
std::string bullet(const std::string& text, std::size_t width, const std::string& indent = "  - ",
                   const std::string& hang = "    ") {
  const std::size_t first = render::display_width(indent);
  const std::size_t rest = render::display_width(hang);
  if (width == 0) {
    return indent + text + "\n";
  }
  const auto lines = render::wrap(text, width > first ? width - first : 1, width > rest ? width - rest : 1);
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    out += (i == 0 ? indent : hang) + lines[i] + "\n";
  }
  return out;
}

// What a card's --explain lines need not repeat: said above already.
enum class Said { nothing, rejections, everything };

// One card's rules for --explain: those that fired, with their message unless
// it is above already; with `all`, the rules that did not fire too, dimmed.
std::string explain_findings(const std::vector<Finding>& findings, Said said, bool all, const Paint& paint,
                             std::size_t width, Language l) {
  const std::string fired = say(l, Phrase::rule_fired);
  const std::string indent = "    ";
  std::string out;
  for (const auto& f : findings) {
    if (f.fired) {
      const std::string label = fmt::format("{} {} {}", fired, f.rule_id, describe(f.effect, l));
      const bool repeated = said == Said::everything || (said == Said::rejections && f.effect == EffectKind::reject);
      std::string text = bullet(repeated ? label : say(l, Phrase::explain_label_text, label, f.message_in(l)), width,
                                indent, "      ");
      out += text.replace(indent.size(), fired.size(), paint.bold(fired));
    } else if (all) {
      out += paint.dim(bullet("-  " + f.rule_id, width, indent, "       "));
    }
  }
  return out;
}

// "Title: value" in a stacked table cell.
std::string label_separator(Language l) { return say(l, Phrase::explain_label_text, "", ""); }

// The compare table, cards as columns: as many cards to a table as fit the
// width, the next ones in another table below (a figure is never cut); then
// each card's notes, a rejected card's reasons first.
std::string comparison_text(const Report& report, Language l, std::size_t width, const Paint& paint) {
  const render::Comparison c = render::comparison(report, l);
  auto table_of = [&](const std::vector<std::size_t>& cards) {
    std::vector<render::Column> columns{{c.header[0], 0, Align::left, render::Overflow::keep, true}};
    int priority = 0;
    for (const std::size_t card : cards) {
      columns.push_back({c.header[card + 1], priority--, Align::right, render::Overflow::stack, false, false});
    }
    Table table(std::move(columns));
    table.set_label_separator(label_separator(l));
    for (std::size_t r = 0; r < c.rows.size(); ++r) {
      std::vector<std::string> cells{c.rows[r][0]};
      for (const std::size_t card : cards) {
        cells.push_back(card + 1 < c.rows[r].size() ? c.rows[r][card + 1] : std::string());
      }
      table.add_row(std::move(cells), r < c.prose.size() && c.prose[r]);
    }
    return table;
  };
  std::vector<std::vector<std::size_t>> groups;
  std::vector<std::size_t> group;
  for (std::size_t card = 0; card + 1 < c.header.size(); ++card) {
    std::vector<std::size_t> more = group;
    more.push_back(card);
    if (group.empty() || width == 0 || table_of(more).fits("", width)) {
      group = std::move(more);
    } else {
      groups.push_back(std::move(group));
      group = {card};
    }
  }
  groups.push_back(std::move(group));
  std::string out;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    out += (g == 0 ? "" : "\n") + table_of(groups[g]).to_string("", width);
  }
  for (const auto& [name, lines] : c.notes) {
    out += "\n" + paint.bold(bullet(name, width, "", "  "));
    for (const auto& line : lines) {
      out += bullet(line, width);
    }
  }
  return out;
}

// A listed plan's line in --explain: its cost against the Best's unless its
// "Why" heading gave it, and whether its rules' messages are above already.
std::string explain_head(const Report& report, std::size_t i, bool why, bool above, Language l) {
  const auto& r = report.recommendations[i];
  std::string head = fmt::format("#{} {}", r.rank, r.gpu.name);
  if (!why) {
    head = say(l, Phrase::explain_label_text, head,
               describe_objective(r, report.request, i == 0 && report.best_priced, l));
  }
  const bool any_fired = std::any_of(r.findings.begin(), r.findings.end(), [](const Finding& f) { return f.fired; });
  return above && any_fired ? say(l, Phrase::explain_said_above, head) : head;
}

}  // namespace

std::string render_text(const Report& report, Language l, const TextStyle& style) {
  const Paint paint{style.color};
  const std::size_t width = static_cast<std::size_t>(std::max(style.width, 0));
  auto heading = [&](const std::string& text) { return paint.bold(bullet(text, width, "", "  ")); };
  const bool comparing = !report.request.compare.empty();
  std::string out = paint.bold(bullet(header_line(report, l), width, "", "")) + "\n";

  if (comparing) {
    out += comparison_text(report, l, width, paint);
  } else if (report.anything_fits()) {
    out += paint.good(bullet(headline(report, l), width, "", "  "));
    for (const auto& line : headline_notes(report, l)) {
      out += bullet(line, width, "", "  ");
    }
    out += "\n";
    const bool training = is_training(report.request.task);
    const bool rent = report.request.mode == CostMode::rent;
    using render::Overflow;
    // Too wide: the score (its parts are under "Why") and the headroom (the
    // memory says it) go first; then time, memory, cost and count move under
    // their row. The rank and the card stay.
    Table table({{"#", 9, Align::right, Overflow::keep},
                 {say(l, Phrase::col_gpu), 9, Align::left, Overflow::keep},
                 {say(l, Phrase::col_count), 8, Align::right},
                 {say(l, Phrase::col_memory), 6, Align::right},
                 {say(l, Phrase::col_headroom), 2, Align::right, Overflow::drop},
                 {say(l, training ? Phrase::col_time : Phrase::col_throughput), 5, Align::right},
                 {say(l, rent ? (training ? Phrase::col_rent_run : Phrase::col_rent_per_m)
                              : (training ? Phrase::col_own_run : Phrase::col_own_per_m)),
                  7, Align::right},
                 {say(l, Phrase::col_score), 1, Align::right, Overflow::drop}});
    table.set_label_separator(label_separator(l));
    for (const auto& r : report.recommendations) {
      table.add_row(
          {std::to_string(r.rank), r.gpu.name, std::to_string(r.estimate.count),
           fmt::format("{} / {}", format::gib(r.estimate.per_gpu.total()), format::number(r.gpu.memory.capacity_gib)),
           headroom_cell(r.estimate, l), time_cell(r.estimate, l),
           cost_cell(r.estimate, report.request.mode, format::money_unit(report.request), l),
           vs_best_cell(r.objective, l)});
    }
    out += table.to_string("", width);
    if (report.omitted > 0) {
      out += bullet(say(l, Phrase::more_fit, report.omitted), width, "", "");
    }
    if (const render::OwnRent own = render::own_rent(report, l); !own.rows.empty()) {
      out += "\n" + heading(own.title);
      // The card stays; the payback, then the break-even, move under their row first.
      std::vector<render::Column> columns;
      for (std::size_t c = 0; c < own.header.size(); ++c) {
        const bool card = c == 0;
        columns.emplace_back(own.header[c], card ? 9 : static_cast<int>(own.header.size() - c),
                             card ? Align::left : Align::right, card ? Overflow::keep : Overflow::stack);
      }
      Table own_table(std::move(columns));
      own_table.set_label_separator(label_separator(l));
      for (const auto& row : own.rows) {
        own_table.add_row(row);
      }
      out += own_table.to_string("", width);
    }
    for (std::size_t i = 0; i < report.recommendations.size() && i < explained_picks; ++i) {
      const auto& r = report.recommendations[i];
      out += "\n" + heading(say(l, Phrase::why, r.rank, r.gpu.name,
                                describe_objective(r, report.request, i == 0 && report.best_priced, l)));
      for (const auto& line : rationale(report.request, r, l)) {
        const std::string text = bullet(line.text, width);
        out += line.warning ? paint.warn(text) : text;
      }
    }
  } else {
    out += heading(say(l, report.request.gpu_ids.empty() ? Phrase::nothing_fits : Phrase::nothing_fits_selected));
    if (!report.ways_out.empty()) {
      out += "\n" + heading(say(l, Phrase::ways_out));
      for (const auto& w : report.ways_out) {
        out += bullet(describe(w, report.request, l), width);
      }
    }
  }

  if (!report.rejected.empty() && !comparing) {
    out += "\n" + heading(say(l, Phrase::rejected, report.rejected.size()));
    std::string lines;
    std::size_t not_selected = 0;  // cards left out by --gpu: one line for all of them
    for (const auto& r : report.rejected) {
      if (r.reasons.size() == 1 && std::holds_alternative<NotSelected>(r.reasons.front())) {
        ++not_selected;
        continue;
      }
      lines += bullet(fmt::format("{}{}{}", r.gpu.name, say(l, Phrase::reason_colon),
                                  text::join(reasons(r, report.request, l), say(l, Phrase::reason_separator))),
                      width);
    }
    if (not_selected > 0) {
      lines += bullet(say(l, Phrase::not_selected_cards, not_selected), width);
    }
    out += paint.dim(lines);
  }

  if (!report.unmatched_rules.empty()) {
    out += "\n" + heading(say(l, Phrase::warnings));
    for (const auto& rule : report.unmatched_rules) {
      out += paint.warn(bullet(describe(rule, l), width));
    }
  }

  if (report.request.explain || report.request.explain_all) {
    // What the sections above said already is not said again: a pick's
    // score is in its "Why" heading, the rules' messages in its reasons (or,
    // in a comparison, its notes), a rejected card's reasons in the list of
    // rejected cards.
    const bool all = report.request.explain_all;
    if (!report.frontier.empty()) {
      out += "\n" + bullet(describe_frontier(report, l), width, "", "  ");
    }
    out += "\n" + heading(say(l, all ? Phrase::rule_evaluation : Phrase::rule_evaluation_fired));
    for (std::size_t i = 0; i < report.recommendations.size(); ++i) {
      const auto& r = report.recommendations[i];
      const bool why = !comparing && i < explained_picks;
      const bool above = why || comparing;
      out += bullet(explain_head(report, i, why, above, l), width, "  ", "    ");
      out += bullet(describe_tried(r, report.request, l), width, "    ", "      ");
      out += explain_findings(r.findings, above ? Said::everything : Said::nothing, all, paint, width, l);
    }
    for (const auto& r : report.rejected) {
      if (r.findings.empty()) {
        continue;  // not considered (--gpu)
      }
      // A comparison's notes give every message; the list of rejected cards only the reasons.
      out += bullet(say(l, comparing ? Phrase::explain_said_above : Phrase::explain_reasons_above,
                        fmt::format("{} {}", say(l, Phrase::rule_rejected), r.gpu.name)),
                    width, "  ", "    ");
      out += explain_findings(r.findings, comparing ? Said::everything : Said::rejections, all, paint, width, l);
    }
  }

  out += "\n" + heading(say(l, Phrase::assumptions));
  for (const auto& a : assumptions(report.request, report.model, best_of(report), l)) {
    out += bullet(a, width);
  }
  out += "\n" + bullet(say(l, Phrase::footer, report.catalog.version, report.catalog.updated), width, "", "");
  return out;
}

}  // namespace gpu_advise
