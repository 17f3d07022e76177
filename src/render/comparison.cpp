#include "render/comparison.hpp"

#include <fmt/format.h>

#include "core/quantity_format.hpp"
#include "gpu_advise/phrases.hpp"
#include "gpu_advise/words.hpp"
#include "render/own_rent.hpp"

namespace gpu_advise::render {

namespace {
std::string money_range(const std::optional<Range>& r, format::MoneyUnit unit) {
  return r ? fmt::format("{} ({} - {})", format::money(r->typical, unit), format::money(r->low, unit),
                         format::money(r->high, unit))
           : std::string("-");
}
}  // namespace

Comparison comparison(const Report& report, Language l) {
  const Request& r = report.request;
  const format::MoneyUnit unit = format::money_unit(r);
  Comparison c;
  c.header.push_back("");
  std::vector<const Recommendation*> fitting;
  std::vector<const Rejection*> rejected;
  for (const auto& id : r.compare) {
    const Recommendation* rec = nullptr;
    const Rejection* rej = nullptr;
    for (const auto& x : report.recommendations) {
      rec = x.gpu.id == id ? &x : rec;
    }
    for (const auto& x : report.rejected) {
      rej = x.gpu.id == id ? &x : rej;
    }
    fitting.push_back(rec);
    rejected.push_back(rej);
    c.header.push_back(rec ? rec->gpu.name : rej ? rej->gpu.name : id);
  }
  auto row = [&](std::string label, auto value) {
    std::vector<std::string> cells{std::move(label)};
    for (std::size_t i = 0; i < r.compare.size(); ++i) {
      cells.push_back(fitting[i] ? value(*fitting[i]) : std::string("-"));
    }
    c.rows.push_back(std::move(cells));
  };
  std::vector<std::string> verdict{say(l, Phrase::compare_fits)};
  for (std::size_t i = 0; i < r.compare.size(); ++i) {
    verdict.push_back(fitting[i] ? fmt::format("#{}", fitting[i]->rank) : say(l, Phrase::compare_no_see_below));
  }
  c.rows.push_back(verdict);
  row(say(l, Phrase::col_score), [&](const Recommendation& x) { return vs_best_cell(x.objective, l); });
  row(say(l, Phrase::col_count), [](const Recommendation& x) { return std::to_string(x.estimate.count); });
  row(say(l, Phrase::col_layout), [&](const Recommendation& x) { return describe(x.estimate.layout, r.task, l); });
  c.prose.resize(c.rows.size(), false);
  c.prose.back() = true;
  row(say(l, Phrase::col_memory), [](const Recommendation& x) {
    return fmt::format("{} / {}", format::gib(x.estimate.per_gpu.total()), format::number(x.gpu.memory.capacity_gib));
  });
  if (is_training(r.task)) {
    row(say(l, Phrase::col_time_range), [&](const Recommendation& x) {
      const auto& w = x.estimate.training->wall_hours;
      return fmt::format("{} ({} - {})", say_duration(l, w.typical), say_duration(l, w.low), say_duration(l, w.high));
    });
    row(say(l, Phrase::compare_gpu_hours),
        [](const Recommendation& x) { return format::number(x.estimate.training->gpu_hours.typical); });
  } else {
    row(say(l, Phrase::col_throughput_range), [](const Recommendation& x) {
      const auto& t = x.estimate.inference->tokens_per_s;
      return fmt::format("{:.0f} ({:.0f} - {:.0f})", t.typical, t.low, t.high);
    });
    row(say(l, Phrase::compare_ttft_tpot_ms), [](const Recommendation& x) {
      return fmt::format("{:.0f} / {:.0f}", x.estimate.inference->ttft_ms.typical,
                         x.estimate.inference->tpot_ms.typical);
    });
    row(say(l, Phrase::compare_max_concurrency),
        [](const Recommendation& x) { return std::to_string(x.estimate.inference->max_concurrency); });
    row(say(l, Phrase::col_rent_per_m),
        [unit](const Recommendation& x) { return money_range(x.estimate.cost.usd_per_million_tokens, unit); });
  }
  row(say(l, Phrase::compare_rent),
      [unit](const Recommendation& x) { return money_range(x.estimate.cost.rent_usd, unit); });
  row(say(l, Phrase::compare_buy_cards),
      [unit](const Recommendation& x) { return money_range(x.estimate.cost.purchase_usd, unit); });
  if (r.mode == CostMode::buy) {  // own or rent, at the stated utilization
    row(say(l, Phrase::col_owned_gpu_hour), [unit](const Recommendation& x) {
      const auto& own = x.estimate.cost.ownership;
      return own ? format::money(own->typical.usd_per_gpu_hour_used, unit) : std::string("-");
    });
    row(say(l, Phrase::col_break_even), [l](const Recommendation& x) {
      const auto& own = x.estimate.cost.ownership;
      return own ? break_even_cell(*own, l) : std::string("-");
    });
  }
  c.prose.resize(c.rows.size(), false);
  for (std::size_t i = 0; i < r.compare.size(); ++i) {
    std::vector<std::string> lines;
    if (fitting[i]) {
      for (auto& sentence : rationale(r, *fitting[i], l)) {
        lines.push_back(std::move(sentence.text));
      }
    } else if (rejected[i]) {
      lines = reasons(*rejected[i], report.request, l);
      for (const auto& f : rejected[i]->findings) {
        if (f.fired && f.effect != EffectKind::reject) {
          lines.push_back(f.message_in(l));
        }
      }
    }
    c.notes.emplace_back(c.header[i + 1], lines);
  }
  return c;
}

}  // namespace gpu_advise::render
