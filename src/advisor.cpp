#include "gpu_advise/advisor.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include <fmt/format.h>

#include "gpu_advise/scoring.hpp"
#include "gpu_advise/text.hpp"
#include "quantity_format.hpp"
#include "gpu_advise/units.hpp"
#include "gpu_advise_version.hpp"

namespace gpu_advise {

namespace {


std::string describe_memory(const Request& request, const MemoryBreakdown& m) {
  if (request.task == Task::inference) {
    return fmt::format("weights {}, KV cache {}, reserve {}", format::gib(m.weights), format::gib(m.kv_cache),
                       format::gib(m.reserve));
  }
  if (request.task == Task::lora || request.task == Task::qlora) {
    return fmt::format("frozen base and adapters {}, adapter gradients and optimizer {}, activations {}, reserve {}",
                       format::gib(m.weights), format::gib(m.gradients + m.optimizer), format::gib(m.activations),
                       format::gib(m.reserve));
  }
  return fmt::format("weights {}, gradients {}, optimizer {}, activations {}, reserve {}", format::gib(m.weights),
                     format::gib(m.gradients), format::gib(m.optimizer), format::gib(m.activations),
                     format::gib(m.reserve));
}

std::string range_text(const Range& r, const std::function<std::string(double)>& show) {
  return fmt::format("{} (range {} to {})", show(r.typical), show(r.low), show(r.high));
}

std::vector<std::string> rationale_for(const Request& request, const Recommendation& option, bool cheapest,
                                       bool fastest) {
  const Estimate& e = option.estimate;
  std::vector<std::string> lines;
  lines.push_back(fmt::format("fits on {} x {} GiB as {}: needs {} GiB per GPU of {} GiB usable ({:.0f}% headroom); {}",
                              e.count, format::number(option.gpu.memory.capacity_gib), e.layout_text,
                              format::gib(e.per_gpu.total()), format::gib(e.usable_bytes), 100.0 * e.headroom(),
                              describe_memory(request, e.per_gpu)));
  if (e.training) {
    const auto& t = *e.training;
    lines.push_back(fmt::format("about {} wall time, {} GPU-hours, for {} tokens at {:.0f}% MFU of {} dense {} TFLOPS",
                                range_text(t.wall_hours, format::duration),
                                format::number(t.gpu_hours.typical), format_parameter_count(t.tokens),
                                100.0 * t.mfu.typical, format::number(t.peak_tflops), t.fp8 ? "FP8" : "BF16"));
  }
  if (e.inference) {
    const auto& inf = *e.inference;
    lines.push_back(fmt::format(
        "about {:.0f} output tokens/s for {} concurrent sequences ({:.0f} ms per token, first token in {:.0f} ms); "
        "up to {} sequences of {} tokens fit, about {:.0f} tokens/s",
        inf.tokens_per_s.typical, inf.concurrency, inf.tpot_ms.typical, inf.ttft_ms.typical, inf.max_concurrency,
        inf.context, inf.max_tokens_per_s.typical));
  }
  const auto& c = e.cost;
  if (request.mode == CostMode::buy) {
    if (c.purchase_usd) {
      std::string line = fmt::format("buy the cards for about {}", format::money(c.purchase_usd->typical));
      if (c.buy_usd && e.training) {
        line += fmt::format("; amortised cards and power for the run about {}", format::money(c.buy_usd->typical));
      } else if (c.buy_usd) {
        line += fmt::format("; amortised cards and power about {} per month", format::money(c.buy_usd->typical));
      }
      if (c.usd_per_million_tokens) {
        line += fmt::format(", {} per million output tokens", format::money(c.usd_per_million_tokens->typical));
      }
      lines.push_back(line);
    } else {
      lines.push_back("no sourced purchase price in the catalog: cost scores 0");
    }
  } else if (c.rent_usd_per_gpu_hour) {
    const auto& price = *c.rent_usd_per_gpu_hour;
    const std::string where = c.price_basis == "--price" ? "your --price"
                              : price.low == price.high
                                  ? "one quote"
                                  : fmt::format("quotes {} to {}", format::money(price.low), format::money(price.high));
    if (e.training && c.rent_usd) {
      lines.push_back(fmt::format("rent about {} for the run at {}/GPU-hour ({})", format::money(c.rent_usd->typical),
                                  format::money(price.typical), where));
    } else if (c.rent_usd && c.usd_per_million_tokens) {
      lines.push_back(fmt::format("rent {}/hour for {} GPU{} ({}), about {} per million output tokens",
                                  format::money(c.rent_usd->typical), e.count, e.count == 1 ? "" : "s", where,
                                  format::money(c.usd_per_million_tokens->typical)));
    }
  } else {
    lines.push_back("no sourced rental price in the catalog: cost scores 0 (give one with --price ID=USD)");
  }
  if (cheapest && fastest) {
    lines.push_back("cheapest and fastest of the cards that fit");
  } else if (cheapest) {
    lines.push_back("cheapest of the cards that fit");
  } else if (fastest) {
    lines.push_back("fastest of the cards that fit");
  }
  for (const auto& note : e.notes) {
    lines.push_back(note);
  }
  return lines;
}

std::vector<std::string> assumptions_for(const Request& request, const ModelShape& model) {
  std::vector<std::string> out;
  switch (model.source) {
    case ModelSource::inferred:
      out.push_back(fmt::format("model shape inferred from {} ({} layers, hidden {}, {} KV heads, vocabulary {}); "
                                "--model or --model-config give the real shape",
                                model.basis, model.layers, model.hidden, model.kv_heads, model.vocab));
      break;
    case ModelSource::preset:
      out.push_back(fmt::format("model: {} preset ({} parameters{}, {} layers, hidden {}, {} KV heads)", model.name,
                                format_parameter_count(model.params),
                                model.is_moe() ? fmt::format(", {} active", format_parameter_count(model.active_params))
                                               : std::string(),
                                model.layers, model.hidden, model.kv_heads));
      break;
    case ModelSource::config_json:
      out.push_back(fmt::format("model: {} ({} parameters computed from the config)", model.name,
                                format_parameter_count(model.params)));
      break;
  }
  if (is_training(request.task)) {
    out.push_back(fmt::format("{} weights and compute; dense (non-sparse) peak TFLOPS",
                              request.fp8_training ? "FP8 matmuls where the card has them, BF16" : "BF16"));
    const char* recompute = request.effective_recompute() == Recompute::full        ? "full activation recompute"
                            : request.effective_recompute() == Recompute::selective ? "selective recompute"
                                                                                    : "no activation recompute";
    out.push_back(fmt::format("sequence length {}, micro-batch {} per GPU, {}, flash attention", request.seq_len,
                              request.micro_batch, recompute));
    if (request.task == Task::pretrain) {
      out.push_back(fmt::format("training tokens: {}{}", format_parameter_count(request.training_tokens()),
                                request.tokens ? " (--tokens)" : " (20 per parameter, Chinchilla)"));
    } else {
      out.push_back(fmt::format("training tokens: {} ({} x {} epoch{}{})",
                                format_parameter_count(request.training_tokens()),
                                format_parameter_count(request.tokens.value_or(request.fine_tune_tokens)),
                                format::number(request.epochs), request.epochs == 1 ? "" : "s",
                                request.tokens ? "" : "; a stated default dataset size, set it with --tokens"));
    }
    const TrainingBytes bytes = training_bytes(request.optimizer);
    if (request.task == Task::full || request.task == Task::pretrain) {
      out.push_back(fmt::format("{}: {} bytes per parameter of model states, split by TP x PP and sharded by ZeRO "
                                "over data parallel",
                                to_string(request.optimizer),
                                format::number(bytes.weights + bytes.gradients + bytes.optimizer)));
    } else {
      std::vector<std::string> targets;
      for (const auto target : request.lora_targets) {
        targets.emplace_back(to_string(target));
      }
      out.push_back(fmt::format("LoRA rank {} on {} of every block; {} on adapters only{}", request.lora_rank,
                                text::join(targets, ", "), to_string(request.optimizer),
                                request.task == Task::qlora ? "; NF4 base with double quantisation" : ""));
    }
    if (request.deadline_hours) {
      out.push_back(fmt::format("deadline: {} of wall time (--deadline); the cluster is sized to meet it",
                                format::duration(*request.deadline_hours)));
    } else if (const auto deadline = request.effective_deadline_hours()) {
      out.push_back(fmt::format("the cluster is sized to finish in about {} (set --deadline to change it)",
                                format::duration(*deadline)));
    }
  } else {
    out.push_back(fmt::format("{} weights, {} KV cache; {} concurrent sequences of {} tokens ({} prompt + {} output)",
                              text::to_upper(to_string(request.precision)), text::to_upper(to_string(request.kv_precision)),
                              request.concurrency, request.context, request.prompt_tokens(),
                              request.effective_output_tokens()));
  }
  out.push_back(fmt::format("{:.0f}% of each card's memory is usable; {} GiB per GPU reserved for the runtime",
                            100.0 * constants::usable_memory_fraction,
                            format::number(is_training(request.task) ? constants::training_reserve_gib
                                                                     : constants::inference_reserve_gib)));
  if (request.mode == CostMode::rent) {
    out.push_back("cost: renting, at indicative quotes from the catalog (each with its provider and date)");
  } else {
    const auto& own = request.ownership;
    out.push_back(fmt::format("cost: buying the cards (catalog purchase quotes), amortised over {} years, power at TDP "
                              "x {:.0f}% x PUE {} at ${}/kWh; servers, networking and hosting not included",
                              format::number(own.amortisation_years), 100.0 * own.utilisation,
                              format::number(own.pue), format::number(own.usd_per_kwh)));
  }
  return out;
}

// When nothing fits: the cheapest card (and count) for each lighter task.
std::vector<WayOut> ways_out(const Request& request, const ModelShape& model, const std::vector<const GpuSpec*>& gpus) {
  std::vector<Task> lighter;
  switch (request.task) {
    case Task::full: lighter = {Task::lora, Task::qlora}; break;
    case Task::lora: lighter = {Task::qlora}; break;
    default: break;
  }
  std::vector<WayOut> out;
  auto best_for = [&](const Request& alternative) -> std::optional<WayOut> {
    std::optional<WayOut> best;
    double best_cost = 0;
    for (const auto* gpu : gpus) {
      const Estimate e = estimate(alternative, model, *gpu);
      if (!e.fits) {
        continue;
      }
      const auto price = e.cost.rent_usd_per_gpu_hour;
      // Cheapest hourly cost; cards without a price sort after priced ones.
      const double cost = price ? price->typical * e.count : 1e12 * e.count;
      if (!best || cost < best_cost || (cost == best_cost && gpu->id < best->gpu_id)) {
        best = WayOut{alternative.task, gpu->id, gpu->name, e.count,
                      price ? std::optional<double>(price->typical * e.count) : std::nullopt, {},
                      e.training ? std::optional<double>(e.training->wall_hours.typical) : std::nullopt};
        best_cost = cost;
      }
    }
    return best;
  };
  if (request.count || request.deadline_hours) {
    Request relaxed = request;
    relaxed.count.reset();
    relaxed.deadline_hours.reset();
    relaxed.pretrain_default_deadline_hours = 1e12;
    if (auto way = best_for(relaxed)) {
      if (request.count) {
        way->drops.push_back("--count");
      }
      if (request.deadline_hours) {
        way->drops.push_back("--deadline");
      }
      out.push_back(*way);
    }
  }
  for (const Task task : lighter) {
    Request alternative = request;
    alternative.task = task;
    alternative.count.reset();
    if (auto way = best_for(alternative)) {
      if (request.count) {
        way->drops.push_back("--count");
      }
      out.push_back(*way);
    }
  }
  return out;
}

}  // namespace

namespace {

std::string rule_line(const Finding& f) {
  std::string points;
  if (f.points != 0) {
    points = fmt::format(" {:+g}", f.points);
  }
  const char* kind = f.effect == EffectKind::warning ? "warning" : "rule";
  return fmt::format("{} {}{}: {}", kind, f.rule_id, points, f.message);
}

// Fired rules first, in file order; the rest after (for --explain).
void order_findings(std::vector<Finding>& findings) {
  std::stable_partition(findings.begin(), findings.end(), [](const Finding& f) { return f.fired; });
}

std::optional<std::string> over_budget(const Request& request, const Estimate& e) {
  if (!request.budget_usd) {
    return std::nullopt;
  }
  const std::string what = request.mode == CostMode::buy ? "the cards cost"
                           : e.training                  ? "the run costs"
                                                         : "a month of serving costs";
  const auto cost = plan_cost_usd(request, e);
  if (!cost) {
    return fmt::format("no sourced {} price to check against the {} budget", request.mode == CostMode::buy ? "purchase" : "rental",
                       format::money(*request.budget_usd));
  }
  if (*cost > *request.budget_usd) {
    return fmt::format("{} about {}, over the {} budget", what, format::money(*cost), format::money(*request.budget_usd));
  }
  return std::nullopt;
}

}  // namespace

Report advise(const Request& request, const ModelShape& model, const Catalog& catalog, const RuleSet& rules,
              Language language) {
  Report report;
  report.tool_version = version::string;
  report.catalog = catalog.info();
  report.request = request;
  report.model = model;

  std::vector<Recommendation> options;
  std::vector<const GpuSpec*> considered;
  std::map<std::string, int> fired_count;
  for (const auto& gpu : catalog.gpus()) {
    const bool selected = request.gpu_ids.empty() ||
                          std::find(request.gpu_ids.begin(), request.gpu_ids.end(), gpu.id) != request.gpu_ids.end();
    if (!selected) {
      report.rejected.push_back({gpu, {"not selected by --gpu"}, {}});
      continue;
    }
    considered.push_back(&gpu);
    Estimate e = estimate(request, report.model, gpu);
    std::vector<Finding> findings = evaluate(rules, Facts{&request, &gpu, &e}, language);
    order_findings(findings);
    std::vector<std::string> reasons;
    if (!e.fits) {
      reasons.push_back(e.why_not);
    }
    double points = 0;
    for (const auto& f : findings) {
      if (!f.fired) {
        continue;
      }
      ++fired_count[f.rule_id];
      if (f.effect == EffectKind::reject) {
        reasons.push_back(fmt::format("{} (rule {})", f.message, f.rule_id));
      }
      points += f.points;
    }
    if (e.fits) {
      if (auto cap = over_budget(request, e)) {
        reasons.push_back(*cap);
      }
    }
    if (!reasons.empty()) {
      report.rejected.push_back({gpu, std::move(reasons), std::move(findings)});
      continue;
    }
    Recommendation option{0, gpu, std::move(e), {}, {}, std::move(findings)};
    option.score.rules = points;
    option.score.risk = rules.ecosystem().score(gpu);
    options.push_back(std::move(option));
  }

  score_and_rank(options, rules.weights(request.budget), request.mode,
                 is_training(request.task) && request.effective_deadline_hours().has_value() && !request.count);
  for (auto& option : options) {
    option.rationale = rationale_for(request, option, option.score.cost_known && option.score.cost >= 1.0,
                                     option.score.speed >= 1.0);
    for (const auto& f : option.findings) {
      if (f.fired && f.effect != EffectKind::reject) {
        option.rationale.push_back(rule_line(f));
      }
    }
  }
  if (request.top && options.size() > static_cast<std::size_t>(*request.top)) {
    report.omitted = options.size() - static_cast<std::size_t>(*request.top);
    options.resize(static_cast<std::size_t>(*request.top));
  }
  report.recommendations = std::move(options);
  if (!report.anything_fits()) {
    report.ways_out = ways_out(request, report.model, considered);
  }
  report.assumptions = assumptions_for(request, report.model);
  for (const auto& rule : rules.rules()) {
    const bool from_user = rule.origin.rfind("embedded:", 0) != 0;
    if (from_user && fired_count[rule.id] == 0) {
      report.warnings.push_back(
          fmt::format("rule {} ({}) matched no card in this request", rule.id, rule.origin));
    }
  }
  return report;
}

}  // namespace gpu_advise
