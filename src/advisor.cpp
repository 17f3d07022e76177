#include "gpu_advise/advisor.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "gpu_advise/scoring.hpp"
#include "gpu_advise/text.hpp"
#include "gpu_advise/units.hpp"
#include "gpu_advise/wording.hpp"
#include "gpu_advise_version.hpp"
#include "quantity_format.hpp"

namespace gpu_advise {

std::string describe(Task task, Language language) {
  switch (task) {
    case Task::pretrain: return say(language, Phrase::task_pretrain);
    case Task::full: return say(language, Phrase::task_full);
    case Task::lora: return say(language, Phrase::task_lora);
    case Task::qlora: return say(language, Phrase::task_qlora);
    case Task::inference: return say(language, Phrase::task_inference);
  }
  return "?";
}

std::string describe(BudgetTier tier, Language language) {
  switch (tier) {
    case BudgetTier::low: return say(language, Phrase::tier_low);
    case BudgetTier::medium: return say(language, Phrase::tier_medium);
    case BudgetTier::high: return say(language, Phrase::tier_high);
  }
  return "?";
}

std::string describe(const Layout& layout, Task task, Language language) {
  if (layout.gpus() == 1) {
    return say(language, Phrase::layout_one);
  }
  if (task == Task::inference) {
    return layout.pipeline == 1 ? say(language, Phrase::layout_tp, layout.tensor)
                                : say(language, Phrase::layout_tp_pp, layout.tensor, layout.pipeline);
  }
  if (task == Task::lora || task == Task::qlora) {
    return say(language, layout.zero_stage >= 3 ? Phrase::layout_fsdp : Phrase::layout_ddp, layout.data);
  }
  std::vector<std::string> parts;
  if (layout.tensor > 1) {
    parts.push_back(fmt::format("TP {}", layout.tensor));
  }
  if (layout.pipeline > 1) {
    parts.push_back(fmt::format("PP {}", layout.pipeline));
  }
  if (layout.data > 1) {
    parts.push_back(fmt::format("DP {}", layout.data));
  }
  std::string out = text::join(parts, " x ");
  if (layout.data > 1) {
    out += fmt::format(", ZeRO-{}", layout.zero_stage);
  }
  if (layout.recompute == Recompute::full && task == Task::pretrain) {
    out += say(language, Phrase::layout_full_recompute);
  }
  return out;
}

std::string describe(const Shortfall& why, Language language) {
  switch (why.kind) {
    case Shortfall::Kind::none: return {};
    case Shortfall::Kind::no_fp8: return say(language, Phrase::why_no_fp8);
    case Shortfall::Kind::deadline:
      return say(language, Phrase::why_deadline, say_duration(language, why.deadline_hours), why.max_gpus, why.count,
                 say_duration(language, why.hours_at_count));
    case Shortfall::Kind::count_too_small:
      return say(language, Phrase::why_count, why.count, why.need_gib, why.usable_gib);
    case Shortfall::Kind::activations: return say(language, Phrase::why_activations, why.fixed_gib, why.usable_gib);
    case Shortfall::Kind::too_many_gpus:
      return say(language, Phrase::why_too_many, why.max_gpus, why.need_gib, why.count, why.usable_gib);
  }
  return {};
}

std::string describe(const EstimateNote& note, Language language) {
  switch (note.kind) {
    case EstimateNote::Kind::pcie_scale_out: return say(language, Phrase::note_pcie_scale_out, note.gpus);
    case EstimateNote::Kind::pair_scale_out: return say(language, Phrase::note_pair_scale_out, note.gpus);
    case EstimateNote::Kind::multi_node: return say(language, Phrase::note_multi_node, note.gpus, note.nodes);
    case EstimateNote::Kind::fp8_fallback: return say(language, Phrase::note_fp8_fallback);
    case EstimateNote::Kind::tp_over_pcie: return say(language, Phrase::note_tp_over_pcie, note.gpus);
  }
  return {};
}

std::string describe(const WayOut& way, Language language) {
  const std::string condition =
      way.drops.empty() ? std::string() : say(language, Phrase::way_out_without, text::join(way.drops, " / "));
  const std::string price =
      way.rent_usd_per_hour ? say(language, Phrase::way_out_price, format::money(*way.rent_usd_per_hour)) : "";
  const std::string time =
      way.wall_hours ? say(language, Phrase::way_out_time, say_duration(language, *way.wall_hours)) : "";
  return say(language, Phrase::way_out, describe(way.task, language), way.count, way.gpu_name, condition, price, time);
}

namespace {

std::string describe_memory(const Request& request, const MemoryBreakdown& m, Language language) {
  if (request.task == Task::inference) {
    return say(language, Phrase::memory_inference, format::gib(m.weights), format::gib(m.kv_cache),
               format::gib(m.reserve));
  }
  if (request.task == Task::lora || request.task == Task::qlora) {
    return say(language, Phrase::memory_adapters, format::gib(m.weights), format::gib(m.gradients + m.optimizer),
               format::gib(m.activations), format::gib(m.reserve));
  }
  return say(language, Phrase::memory_full, format::gib(m.weights), format::gib(m.gradients), format::gib(m.optimizer),
             format::gib(m.activations), format::gib(m.reserve));
}

std::vector<std::string> rationale_for(const Request& request, const Recommendation& option, bool cheapest,
                                       bool fastest, Language language) {
  const Estimate& e = option.estimate;
  std::vector<std::string> lines;
  lines.push_back(say(language, Phrase::fits_on, e.count, format::number(option.gpu.memory.capacity_gib),
                      option.layout_text, format::gib(e.per_gpu.total()), format::gib(e.usable_bytes),
                      100.0 * e.headroom(), describe_memory(request, e.per_gpu, language)));
  if (e.training) {
    const auto& t = *e.training;
    const std::string wall = say(language, Phrase::range, say_duration(language, t.wall_hours.typical),
                                 say_duration(language, t.wall_hours.low), say_duration(language, t.wall_hours.high));
    lines.push_back(say(language, Phrase::training_time, wall, format::number(t.gpu_hours.typical),
                        format_parameter_count(t.tokens), 100.0 * t.mfu.typical, t.fp8 ? "FP8" : "BF16",
                        format::number(t.peak_tflops)));
  }
  if (e.inference) {
    const auto& inf = *e.inference;
    lines.push_back(say(language, Phrase::inference_speed, inf.tokens_per_s.typical, inf.concurrency,
                        inf.tpot_ms.typical, inf.ttft_ms.typical, inf.max_concurrency, inf.context,
                        inf.max_tokens_per_s.typical));
  }
  const auto& c = e.cost;
  if (request.mode == CostMode::buy) {
    if (c.purchase_usd) {
      std::string line = say(language, Phrase::buy_cards, format::money(c.purchase_usd->typical));
      if (c.buy_usd) {
        line += say(language, e.training ? Phrase::buy_run : Phrase::buy_month, format::money(c.buy_usd->typical));
      }
      if (c.usd_per_million_tokens) {
        line += say(language, Phrase::buy_per_m, format::money(c.usd_per_million_tokens->typical));
      }
      lines.push_back(line);
    } else {
      lines.push_back(say(language, Phrase::no_purchase_price));
    }
  } else if (c.rent_usd_per_gpu_hour) {
    const auto& price = *c.rent_usd_per_gpu_hour;
    const std::string where = c.price_basis == PriceBasis::user_price ? say(language, Phrase::your_price)
                              : price.low == price.high
                                  ? say(language, Phrase::one_quote)
                                  : say(language, Phrase::quotes, format::money(price.low), format::money(price.high));
    if (e.training && c.rent_usd) {
      lines.push_back(
          say(language, Phrase::rent_run, format::money(c.rent_usd->typical), format::money(price.typical), where));
    } else if (c.rent_usd && c.usd_per_million_tokens) {
      lines.push_back(say(language, Phrase::rent_serving, format::money(c.rent_usd->typical), e.count, where,
                          format::money(c.usd_per_million_tokens->typical)));
    }
  } else {
    lines.push_back(say(language, Phrase::no_rent_price));
  }
  if (cheapest && fastest) {
    lines.push_back(say(language, Phrase::cheapest_fastest));
  } else if (cheapest) {
    lines.push_back(say(language, Phrase::cheapest));
  } else if (fastest) {
    lines.push_back(say(language, Phrase::fastest));
  }
  lines.insert(lines.end(), option.notes.begin(), option.notes.end());
  return lines;
}

std::string recompute_words(Recompute mode, Language language) {
  switch (mode) {
    case Recompute::full: return say(language, Phrase::recompute_full);
    case Recompute::selective: return say(language, Phrase::recompute_selective);
    case Recompute::none: return say(language, Phrase::recompute_none);
  }
  return {};
}

std::vector<std::string> assumptions_for(const Request& request, const ModelShape& model, Language language) {
  std::vector<std::string> out;
  switch (model.source) {
    case ModelSource::inferred:
      out.push_back(
          say(language, Phrase::assume_inferred, model.basis, model.layers, model.hidden, model.kv_heads, model.vocab));
      break;
    case ModelSource::preset:
      if (model.is_moe()) {
        out.push_back(say(language, Phrase::assume_preset_moe, model.name, format_parameter_count(model.params),
                          format_parameter_count(model.active_params), model.layers, model.hidden, model.kv_heads));
      } else {
        out.push_back(say(language, Phrase::assume_preset, model.name, format_parameter_count(model.params),
                          model.layers, model.hidden, model.kv_heads));
      }
      break;
    case ModelSource::config_json:
      out.push_back(say(language, Phrase::assume_config, model.name, format_parameter_count(model.params)));
      break;
  }
  if (is_training(request.task)) {
    out.push_back(say(language, request.fp8_training ? Phrase::assume_training_precision_fp8
                                                     : Phrase::assume_training_precision_bf16));
    out.push_back(say(language, Phrase::assume_sequence, request.seq_len, request.micro_batch,
                      recompute_words(request.effective_recompute(), language)));
    if (request.task == Task::pretrain) {
      out.push_back(say(language,
                        request.tokens ? Phrase::assume_pretrain_tokens_given : Phrase::assume_pretrain_tokens_default,
                        format_parameter_count(request.training_tokens())));
    } else {
      out.push_back(say(
          language, request.tokens ? Phrase::assume_finetune_tokens : Phrase::assume_finetune_tokens_default,
          format_parameter_count(request.training_tokens()),
          format_parameter_count(request.tokens.value_or(request.fine_tune_tokens)), format::number(request.epochs)));
    }
    const TrainingBytes bytes = training_bytes(request.optimizer);
    if (request.task == Task::full || request.task == Task::pretrain) {
      out.push_back(say(language, Phrase::assume_model_states, to_string(request.optimizer),
                        format::number(bytes.weights + bytes.gradients + bytes.optimizer)));
    } else {
      std::vector<std::string> targets;
      for (const auto target : request.lora_targets) {
        targets.emplace_back(to_string(target));
      }
      std::string line = say(language, Phrase::assume_lora, request.lora_rank, text::join(targets, ", "),
                             to_string(request.optimizer));
      if (request.task == Task::qlora) {
        line += say(language, Phrase::assume_qlora_base);
      }
      out.push_back(line);
    }
    if (request.deadline_hours) {
      out.push_back(say(language, Phrase::assume_deadline_given, say_duration(language, *request.deadline_hours)));
    } else if (const auto deadline = request.effective_deadline_hours()) {
      out.push_back(say(language, Phrase::assume_deadline_default, say_duration(language, *deadline)));
    }
  } else {
    out.push_back(say(language, Phrase::assume_inference, text::to_upper(to_string(request.precision)),
                      text::to_upper(to_string(request.kv_precision)), request.concurrency, request.context,
                      request.prompt_tokens(), request.effective_output_tokens()));
  }
  out.push_back(say(
      language, Phrase::assume_memory, 100.0 * constants::usable_memory_fraction,
      format::number(is_training(request.task) ? constants::training_reserve_gib : constants::inference_reserve_gib)));
  if (request.mode == CostMode::rent) {
    out.push_back(say(language, Phrase::assume_rent));
  } else {
    const auto& own = request.ownership;
    out.push_back(say(language, Phrase::assume_buy, format::number(own.amortisation_years), 100.0 * own.utilisation,
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
        best = WayOut{alternative.task,
                      gpu->id,
                      gpu->name,
                      e.count,
                      price ? std::optional<double>(price->typical * e.count) : std::nullopt,
                      {},
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

std::string rule_line(const Finding& f, Language language) {
  const std::string points = f.points != 0 ? fmt::format(" {:+g}", f.points) : std::string();
  return say(language, f.effect == EffectKind::warning ? Phrase::warning_line : Phrase::rule_line, f.rule_id, points,
             f.message);
}

// Fired rules first, in file order; the rest after (for --explain).
void order_findings(std::vector<Finding>& findings) {
  std::stable_partition(findings.begin(), findings.end(), [](const Finding& f) { return f.fired; });
}

std::optional<std::string> over_budget(const Request& request, const Estimate& e, Language language) {
  if (!request.budget_usd) {
    return std::nullopt;
  }
  const std::string budget = format::money(*request.budget_usd);
  const auto cost = plan_cost_usd(request, e);
  if (!cost) {
    return say(language, request.mode == CostMode::buy ? Phrase::budget_no_price_buy : Phrase::budget_no_price_rent,
               budget);
  }
  if (*cost > *request.budget_usd) {
    const Phrase what = request.mode == CostMode::buy ? Phrase::budget_over_cards
                        : e.training                  ? Phrase::budget_over_run
                                                      : Phrase::budget_over_month;
    return say(language, what, format::money(*cost), budget);
  }
  return std::nullopt;
}

std::string model_label(const ModelShape& model, Language language) {
  if (model.source != ModelSource::inferred) {
    return model.name;
  }
  return model.active_params != model.params
             ? say(language, Phrase::model_inferred_moe, format_parameter_count(model.params),
                   format_parameter_count(model.active_params))
             : say(language, Phrase::model_inferred, format_parameter_count(model.params));
}

}  // namespace

Report advise(const Request& request, const ModelShape& model, const Catalog& catalog, const RuleSet& rules,
              Language language) {
  Report report;
  report.language = language;
  report.tool_version = version::string;
  report.catalog = catalog.info();
  report.request = request;
  report.model = model;
  report.model_label = model_label(model, language);

  std::vector<Recommendation> options;
  std::vector<const GpuSpec*> considered;
  std::map<std::string, int> fired_count;
  for (const auto& gpu : catalog.gpus()) {
    const bool selected = request.gpu_ids.empty() ||
                          std::find(request.gpu_ids.begin(), request.gpu_ids.end(), gpu.id) != request.gpu_ids.end();
    if (!selected) {
      if (request.compare.empty()) {  // a comparison shows only the cards it compares
        report.rejected.push_back({gpu, {say(language, Phrase::not_selected)}, {}});
      }
      continue;
    }
    considered.push_back(&gpu);
    Estimate e = estimate(request, report.model, gpu);
    std::vector<Finding> findings = evaluate(rules, Facts{&request, &gpu, &e}, language);
    order_findings(findings);
    std::vector<std::string> reasons;
    if (!e.fits) {
      reasons.push_back(describe(e.why_not, language));
    }
    double points = 0;
    for (const auto& f : findings) {
      if (!f.fired) {
        continue;
      }
      ++fired_count[f.rule_id];
      if (f.effect == EffectKind::reject) {
        reasons.push_back(say(language, Phrase::rule_reason, f.message, f.rule_id));
      }
      points += f.points;
    }
    if (e.fits) {
      if (auto cap = over_budget(request, e, language)) {
        reasons.push_back(*cap);
      }
    }
    if (!reasons.empty()) {
      report.rejected.push_back({gpu, std::move(reasons), std::move(findings)});
      continue;
    }
    Recommendation option;
    option.gpu = gpu;
    option.estimate = std::move(e);
    option.findings = std::move(findings);
    option.layout_text = describe(option.estimate.layout, request.task, language);
    for (const auto& note : option.estimate.notes) {
      option.notes.push_back(describe(note, language));
    }
    option.score.rules = points;
    option.score.risk = rules.ecosystem().score(gpu);
    options.push_back(std::move(option));
  }

  score_and_rank(options, rules.weights(request.budget), request.mode,
                 is_training(request.task) && request.effective_deadline_hours().has_value() && !request.count);
  // Cut to --top before writing the rationale: nobody reads the rest.
  if (request.top && options.size() > static_cast<std::size_t>(*request.top)) {
    report.omitted = options.size() - static_cast<std::size_t>(*request.top);
    options.resize(static_cast<std::size_t>(*request.top));
  }
  for (auto& option : options) {
    option.rationale = rationale_for(request, option, option.score.cost_known && option.score.cost >= 1.0,
                                     option.score.speed >= 1.0, language);
    for (const auto& f : option.findings) {
      if (f.fired && f.effect != EffectKind::reject) {
        option.rationale.push_back(rule_line(f, language));
      }
    }
  }
  report.recommendations = std::move(options);
  if (!report.anything_fits()) {
    report.ways_out = ways_out(request, report.model, considered);
  }
  report.assumptions = assumptions_for(request, report.model, language);
  for (const auto& rule : rules.rules()) {
    const bool from_user = rule.origin.rfind("embedded:", 0) != 0;
    if (from_user && fired_count[rule.id] == 0) {
      report.warnings.push_back(fmt::format("rule {} ({}) matched no card in this request", rule.id, rule.origin));
    }
  }
  return report;
}

}  // namespace gpu_advise
