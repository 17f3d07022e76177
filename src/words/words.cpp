#include "gpu_advise/words.hpp"

#include <fmt/format.h>

#include "core/quantity_format.hpp"
#include "gpu_advise/text.hpp"
#include "gpu_advise/units.hpp"

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
  if (task == Task::inference && layout.wide_expert()) {
    return say(language, Phrase::layout_wide_expert, layout.data, layout.expert);
  }
  if (task == Task::inference) {
    // One model copy: tensor (and pipeline) parallel, experts spread; then its copies.
    std::string group = layout.tensor * layout.pipeline == 1 ? say(language, Phrase::layout_one)
                        : layout.pipeline == 1               ? say(language, Phrase::layout_tp, layout.tensor)
                                               : say(language, Phrase::layout_tp_pp, layout.tensor, layout.pipeline);
    if (layout.expert > 1) {
      group = say(language, Phrase::layout_expert, group, layout.expert);
    }
    return layout.data > 1 ? say(language, Phrase::layout_copies, layout.data, group) : group;
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
  if (layout.context > 1) {
    parts.push_back(fmt::format("CP {}", layout.context));
  }
  if (layout.data > 1) {
    parts.push_back(fmt::format("DP {}", layout.data));
  }
  if (layout.expert > 1) {
    parts.push_back(fmt::format("EP {}", layout.expert));
  }
  const bool zh = language == Language::zh;
  std::string out = text::join(parts, zh ? " × " : " x ");
  if (layout.data > 1) {
    out += (zh ? "，" : ", ") + fmt::format("ZeRO-{}", layout.zero_stage);
  }
  if (layout.recompute == Recompute::full && task == Task::pretrain) {
    out += say(language, Phrase::layout_full_recompute);
  }
  return out;
}

namespace {
// A software stack's name; Chinese output drops the English "software" some carry.
std::string stack_name(SoftwareStack stack, Language language) {
  std::string name(display_name(stack));
  constexpr std::string_view suffix = " software";
  if (language == Language::zh && name.ends_with(suffix)) {
    name.resize(name.size() - suffix.size());
  }
  return name;
}
}  // namespace

std::string describe(const Shortfall& why, Language language) {
  switch (why.kind) {
    case Shortfall::Kind::none: return {};
    case Shortfall::Kind::no_fp8: return say(language, Phrase::why_no_fp8);
    case Shortfall::Kind::no_fp4: return say(language, Phrase::why_no_fp4);
    case Shortfall::Kind::no_fp4_kv: return say(language, Phrase::why_no_fp4_kv);
    case Shortfall::Kind::no_engine: {
      const EngineProfile& engine = engine_profile(why.engine);
      std::vector<std::string> stacks;
      for (const auto& stack : engine.stacks) {
        if (stack) {
          stacks.push_back(stack_name(*stack, language));
        }
      }
      return say(language, Phrase::why_no_engine, engine.name, stack_name(why.stack, language),
                 text::join(stacks, language == Language::zh ? "、" : ", "));
    }
    case Shortfall::Kind::deadline:
      return say(language, Phrase::why_deadline, say_duration(language, why.deadline_hours), why.max_gpus, why.count,
                 say_duration(language, why.hours_at_count));
    case Shortfall::Kind::latency:
      return say(language, why.latency_tpot ? Phrase::why_tpot : Phrase::why_ttft, format::number(why.target_ms),
                 why.max_gpus, why.count, format::number(why.best_ms));
    case Shortfall::Kind::rate:
      if (why.queue_p90_ms > 0) {
        return say(language, Phrase::why_rate_queue, format::number(why.request_rate), format::number(why.target_ms),
                   why.max_gpus, why.count, format::number(why.queue_p90_ms));
      }
      return say(language, Phrase::why_rate, format::number(why.request_rate), why.max_gpus, why.count,
                 format::number(why.requests_per_s));
    case Shortfall::Kind::count_too_small:
      return say(language, Phrase::why_count, why.count, why.need_gib, why.usable_gib);
    case Shortfall::Kind::activations:
      return say(language, why.serving ? Phrase::why_serving_fixed : Phrase::why_activations, why.fixed_gib,
                 why.usable_gib);
    case Shortfall::Kind::too_many_gpus:
      return say(language, Phrase::why_too_many, why.max_gpus, why.need_gib, why.count, why.usable_gib);
    case Shortfall::Kind::no_shape: return say(language, Phrase::why_no_shape, why.count, why.max_gpus);
  }
  return {};
}

std::string describe(const EstimateNote& note, Language language) {
  switch (note.kind) {
    case EstimateNote::Kind::pcie_scale_out:
    case EstimateNote::Kind::pair_scale_out: {
      std::string line = say(
          language,
          note.kind == EstimateNote::Kind::pcie_scale_out ? Phrase::note_pcie_scale_out : Phrase::note_pair_scale_out,
          note.gpus);
      if (note.nodes > 1) {
        line += say(language, Phrase::note_servers, note.nodes);
        if (note.scale_out_gbps_per_gpu > 0) {
          line += say(language, Phrase::note_scale_out, format::number(note.scale_out_gbps_per_gpu));
        }
      }
      return line;
    }
    case EstimateNote::Kind::multi_node: {
      const Phrase what = note.crossing == EstimateNote::Crossing::pipeline ? Phrase::crossing_pipeline
                          : note.crossing == EstimateNote::Crossing::data_and_pipeline
                              ? Phrase::crossing_data_and_pipeline
                          : note.crossing == EstimateNote::Crossing::experts ? Phrase::crossing_experts
                                                                             : Phrase::crossing_data;
      std::string line = say(language, Phrase::note_multi_node, note.gpus, note.nodes, say(language, what));
      if (note.scale_out_gbps_per_gpu > 0) {
        line += say(language, Phrase::note_scale_out, format::number(note.scale_out_gbps_per_gpu));
      }
      return line;
    }
    case EstimateNote::Kind::fp8_fallback: return say(language, Phrase::note_fp8_fallback);
    case EstimateNote::Kind::batch_grown: return say(language, Phrase::note_batch_grown, note.batch, note.gpus);
    case EstimateNote::Kind::tp_over_pcie: return say(language, Phrase::note_tp_over_pcie, note.gpus);
    case EstimateNote::Kind::not_on_offer:
      return note.offered > 0 ? say(language, Phrase::note_not_on_offer, note.gpus, note.offered)
                              : say(language, Phrase::note_not_on_offer_none, note.gpus);
  }
  return {};
}

std::string describe(const WayOut& way, const Request& request, Language language) {
  const format::MoneyUnit unit = format::money_unit(request);
  std::string condition =
      way.drops.empty() ? std::string() : say(language, Phrase::way_out_without, text::join(way.drops, " / "));
  if (!way.sets.empty()) {
    condition += say(language, Phrase::way_out_with, text::join(way.sets, " "));
  }
  const std::string price = way.run_usd ? say(language, Phrase::way_out_run, format::money(*way.run_usd, unit))
                            : way.rent_usd_per_hour
                                ? say(language, Phrase::way_out_price, format::money(*way.rent_usd_per_hour, unit))
                                : "";
  const std::string time =
      way.wall_hours ? say(language, Phrase::way_out_time, say_duration(language, *way.wall_hours)) : "";
  return say(language, Phrase::way_out, describe(way.task, language), way.count, way.gpu_name, condition, price, time);
}

std::string describe(const RejectReason& reason, const Request& request, Language language) {
  struct Say {
    Language language;
    format::MoneyUnit unit;
    std::string operator()(const Shortfall& why) const { return describe(why, language); }
    std::string operator()(const NotSelected&) const { return say(language, Phrase::not_selected); }
    std::string operator()(const RuleRejection& rule) const {
      const auto it = rule.message.find(language);
      const std::string& message = it != rule.message.end()           ? it->second
                                   : rule.message.count(Language::en) ? rule.message.at(Language::en)
                                                                      : rule.rule_id;
      return say(language, Phrase::rule_reason, message, rule.rule_id);
    }
    std::string operator()(const NoPriceForBudget& budget) const {
      return say(language, budget.mode == CostMode::buy ? Phrase::budget_no_price_buy : Phrase::budget_no_price_rent,
                 format::money(budget.budget_usd, unit));
    }
    std::string operator()(const OverBudget& over) const {
      const Phrase what = over.cost == OverBudget::Cost::cards ? Phrase::budget_over_cards
                          : over.cost == OverBudget::Cost::run ? Phrase::budget_over_run
                                                               : Phrase::budget_over_month;
      return say(language, what, format::money(over.cost_usd, unit), format::money(over.budget_usd, unit));
    }
    std::string operator()(const OtherEcosystem& other) const {
      return say(language, Phrase::other_ecosystem, display_name(other.stack), display_name(other.asked),
                 to_string(other.asked));
    }
    std::string operator()(const PcieSpread& spread) const {
      return say(language, Phrase::pcie_spread, spread.gpus, spread.servers);
    }
    std::string operator()(const LargerThanBest& larger) const {
      return say(language, Phrase::larger_than_best, larger.count, larger.best_count);
    }
  };
  return std::visit(Say{language, format::money_unit(request)}, reason);
}

std::string describe(const UnmatchedRule& rule, Language language) {
  return say(language, Phrase::unmatched_rule, rule.rule_id, rule.origin);
}

std::string_view indefinite_article(std::string_view word) {
  if (word.empty()) {
    return "a";
  }
  const char first = word.front();
  if (first >= '0' && first <= '9') {
    // Eight, eighteen, eighty, eight hundred, eight thousand: every number
    // that starts with an 8 starts with a vowel sound.
    if (first == '8') {
      return "an";
    }
    // Eleven and eighteen, alone or as the thousands, millions, ... (11,000;
    // 18M is said "eighteen"): a leading 11 or 18 in a group of two digits.
    std::size_t digits = 0;
    for (const char c : word) {
      if (c >= '0' && c <= '9') {
        ++digits;
      } else if (c != ',') {
        break;
      }
    }
    const bool eleven_or_eighteen = word.starts_with("11") || word.starts_with("18");
    return digits % 3 == 2 && eleven_or_eighteen ? "an" : "a";
  }
  return std::string_view("aeiouAEIOU").find(first) != std::string_view::npos ? "an" : "a";
}

std::string model_label(const ModelShape& model, Language language) {
  if (model.source != ModelSource::inferred) {
    return model.name;
  }
  const std::string params = format_parameter_count(model.params);
  return model.active_params != model.params
             ? say(language, Phrase::model_inferred_moe, indefinite_article(params), params,
                   format_parameter_count(model.active_params))
             : say(language, Phrase::model_inferred, indefinite_article(params), params);
}

namespace {

// The stacks' own names, the same in every language (PEFT where it trains
// adapters).
const char* stack_name(Stack stack, Task task) {
  const bool adapters = task == Task::lora || task == Task::qlora;
  switch (stack) {
    case Stack::hf: return adapters ? "Hugging Face Transformers + PEFT" : "Hugging Face Transformers";
    case Stack::torchtune: return "torchtune";
    case Stack::unsloth: return "Unsloth";
    case Stack::litgpt: return "LitGPT";
    case Stack::torchtitan: return "torchtitan";
    case Stack::megatron: return "Megatron-Core";
    case Stack::deepspeed: return adapters ? "DeepSpeed + Transformers + PEFT" : "DeepSpeed + Transformers";
  }
  return "";
}

// The training stack and how it computes the loss.
void add_stack(const Request& request, Language language, std::vector<std::string>& out) {
  out.push_back(say(language, Phrase::assume_stack, stack_name(request.effective_stack(), request.task)));
  switch (request.effective_loss()) {
    case Loss::full: out.push_back(say(language, Phrase::assume_loss_full)); break;
    case Loss::chunked: out.push_back(say(language, Phrase::assume_loss_chunked)); break;
    case Loss::fused: out.push_back(say(language, Phrase::assume_loss_fused)); break;
  }
}

// A tight plan: serving runs out of room for sequences, training out of memory.
std::string tight_sentence(const Estimate& e, Language language) {
  if (e.inference) {
    return say(language, Phrase::tight_serving, e.inference->max_concurrency, e.inference->context);
  }
  return say(language, Phrase::tight_plan);
}

std::string describe_memory(const Request& request, const MemoryBreakdown& m, Language language) {
  if (request.task == Task::inference) {
    return say(language, Phrase::memory_inference, format::gib(m.weights), format::gib(m.kv_cache),
               format::gib(m.activations));
  }
  std::string parts =
      request.task == Task::lora || request.task == Task::qlora
          ? say(language, Phrase::memory_adapters, format::gib(m.weights), format::gib(m.gradients + m.optimizer),
                format::gib(m.activations), format::gib(m.reserve))
          : say(language, Phrase::memory_full, format::gib(m.weights), format::gib(m.gradients),
                format::gib(m.optimizer), format::gib(m.activations), format::gib(m.reserve));
  if (m.released > 0 && m.phase == MemoryPhase::forward) {
    parts += say(language, Phrase::memory_peak_forward, format::gib(m.released));
  } else if (m.released > 0 && m.phase == MemoryPhase::optimizer_step) {
    parts += say(language, Phrase::memory_peak_step, format::gib(m.released));
  }
  if (m.calibration != 0) {  // --calibration: the measured peaks' correction
    parts +=
        say(language, Phrase::memory_calibrated, m.calibration < 0 ? "-" : "+", format::gib(std::abs(m.calibration)));
  }
  return parts;
}

// A pipeline schedule's name, as its papers and frameworks write it.
const char* schedule_name(PipelineSchedule schedule, Language language) {
  switch (schedule) {
    case PipelineSchedule::one_f_one_b: return "1F1B";
    case PipelineSchedule::interleaved: return language == Language::zh ? "交错式 1F1B" : "interleaved 1F1B";
    case PipelineSchedule::dualpipe: return "DualPipe";
  }
  return "";
}

// Where one training step's time goes: its parts that take any of it.
std::string step_sentence(const TrainingStep& step, Language language) {
  std::vector<std::string> parts;
  const std::pair<Phrase, double> shares[] = {{Phrase::step_compute, step.compute},
                                              {Phrase::step_tensor, step.tensor},
                                              {Phrase::step_bubble, step.bubble},
                                              {Phrase::step_data, step.data},
                                              {Phrase::step_offload, step.offload}};
  for (const auto& [phrase, seconds] : shares) {
    if (seconds <= 0.005 * step.seconds()) {
      continue;
    }
    parts.push_back(phrase == Phrase::step_bubble && step.schedule
                        ? say(language, Phrase::step_bubble_schedule, 100.0 * step.share(seconds),
                              schedule_name(*step.schedule, language))
                        : say(language, phrase, 100.0 * step.share(seconds)));
  }
  // Three significant digits, never an exponent: "2.33", "62.5", "1040".
  const double seconds = step.seconds();
  const std::string said = seconds >= 100 ? fmt::format("{:.0f}", seconds) : fmt::format("{:.3g}", seconds);
  return say(language, Phrase::training_step, format_parameter_count(step.tokens), step.micro_batches, said,
             text::join(parts, language == Language::zh ? "，" : ", "));
}

}  // namespace

std::string describe_verdict(const Request& request, const OwnershipCost& own, std::string_view gpu_name,
                             Language language) {
  const format::MoneyUnit unit = format::money_unit(request);
  const std::string used = own.condition == Condition::used ? say(language, Phrase::condition_used) : "";
  const double percent = 100.0 * own.utilisation;
  const std::string owned = format::money(own.typical.usd_per_gpu_hour_used, unit);
  if (!own.rent_usd_per_gpu_hour) {
    return say(language, Phrase::verdict_no_rent, percent, own.gpus, gpu_name, used, owned);
  }
  const std::string rent = format::money(*own.rent_usd_per_gpu_hour, unit);
  const auto& even = own.typical.break_even_utilisation;
  std::string line =
      !even ? say(language, Phrase::verdict_never, percent, own.gpus, gpu_name, used, owned, rent)
            : say(language, own.owning_cheaper.value_or(false) ? Phrase::verdict_buy : Phrase::verdict_rent, percent,
                  own.gpus, gpu_name, used, owned, rent, 100.0 * *even);
  if (own.rent_term_months > 0) {
    line += say(language, Phrase::verdict_term, own.rent_term_months, own.rent_term_quotes, format::number(own.years));
  } else if (own.term_sought && own.rent_usd_per_gpu_hour) {
    line += say(language, Phrase::verdict_no_term, format::number(own.years), describe(own.rent_tier, language));
  }
  if (const auto& months = own.typical.months_to_break_even; months && own.owning_cheaper.value_or(false)) {
    // Beyond the years kept, the rent saved alone does not repay the purchase: the resale value does the rest.
    line += *months <= own.years * 12 ? say(language, Phrase::verdict_payback, format::number(std::round(*months)))
                                      : say(language, Phrase::verdict_payback_late, format::number(std::round(*months)),
                                            format::number(own.years));
  }
  return line;
}

namespace {

// What a plan's rent per GPU-hour is: your --price, a price file's offer, or
// the median of the catalog's quotes of one market tier, with their spread.
std::string rent_basis(const CostEstimate& c, const Request& request, Language language) {
  if (c.price_basis == PriceBasis::user_price) {
    return say(language, Phrase::your_price);
  }
  if (c.offer) {
    return describe(*c.offer, request, language);
  }
  const format::MoneyUnit unit = format::money_unit(request);
  const Range& price = *c.rent_usd_per_gpu_hour;
  const std::string tier = describe(c.rent_tier, language);
  std::string where = c.rent_quotes == 1 ? say(language, Phrase::rent_basis_one, tier)
                                         : say(language, Phrase::rent_basis_median, c.rent_quotes, tier);
  if (price.low != price.high) {
    where += say(language, Phrase::rent_basis_span, format::money(price.low, unit), format::money(price.high, unit));
  }
  return where;
}

std::vector<std::string> facts_of(const Request& request, const Recommendation& option, Language language) {
  const bool cheapest = option.cheapest;
  const bool fastest = option.fastest;
  const Estimate& e = option.estimate;
  std::vector<std::string> lines;
  lines.push_back(say(language, Phrase::fits_on, e.count, format::number(option.gpu.memory.capacity_gib),
                      describe(e.layout, request.task, language), format::gib(e.per_gpu.total()),
                      format::gib(e.usable_bytes), 100.0 * e.headroom(),
                      describe_memory(request, e.per_gpu, language)));
  if (e.tight()) {
    lines.push_back(tight_sentence(e, language));
  }
  if (e.training) {
    const auto& t = *e.training;
    const std::string wall = say(language, Phrase::range, say_duration(language, t.wall_hours.typical),
                                 say_duration(language, t.wall_hours.low), say_duration(language, t.wall_hours.high));
    lines.push_back(say(language, Phrase::training_time, wall, format::number(t.gpu_hours.typical),
                        format_parameter_count(t.tokens), 100.0 * t.mfu.typical, t.fp8 ? "FP8" : "BF16",
                        format::number(t.peak_tflops)));
    lines.push_back(step_sentence(t.step, language));
    if (e.per_gpu.host > 0) {
      lines.push_back(say(language, Phrase::offload_host, to_string(request.offload), format::gib(e.per_gpu.host),
                          format::gib(e.host_bytes_per_server), say_duration(language, t.offload_hours.typical)));
    }
    if (!t.checkpointing) {
      if (t.goodput < 1) {
        lines.push_back(say(language, Phrase::goodput_applied, 100.0 * t.goodput));
      }
    } else if (t.wall_hours.typical > 24.0 && t.checkpointing->interruptions >= 1) {
      // a run over a day that expects interruptions: its checkpoints and their cost
      const TrainingEstimate::Checkpointing& c = *t.checkpointing;
      lines.push_back(say(language, Phrase::goodput_derived, format::number(c.bytes / 1e9),
                          say_duration(language, c.interval_hours), say_duration(language, c.write_hours),
                          c.interruptions, say_duration(language, c.restart_hours), 100.0 * t.goodput));
    }
  }
  if (e.inference) {
    const auto& inf = *e.inference;
    lines.push_back(say(language, Phrase::inference_speed, inf.tokens_per_s.typical, inf.running(), inf.tpot_ms.typical,
                        inf.user_tokens_per_s.typical, inf.ttft_ms.typical));
    if (inf.point == InferenceEstimate::Point::knee) {
      lines.push_back(say(language, Phrase::inference_point_knee, inf.min_tpot_ms));
    } else if (inf.point == InferenceEstimate::Point::targets) {
      std::vector<std::string> targets;
      if (inf.tpot_target_ms) {
        targets.push_back(say(language, Phrase::assume_target_tpot, format::number(*inf.tpot_target_ms)));
      }
      if (inf.ttft_target_ms) {
        targets.push_back(say(language, Phrase::assume_target_ttft, format::number(*inf.ttft_target_ms)));
      }
      if (!targets.empty()) {
        lines.push_back(say(language, Phrase::inference_point_targets,
                            text::join(targets, language == Language::zh ? "、" : " and ")));
      }
    }
    if (inf.disaggregated) {
      const auto& d = *inf.disaggregated;
      lines.push_back(say(language, Phrase::inference_disaggregated, d.prefill_copies, d.decode_copies, d.decode_batch,
                          format::number(d.kv_transfer_ms), format::number(d.requests_per_s),
                          format::number(d.colocated_rps)));
    }
    if (inf.request_rate) {
      lines.push_back(e.layout.wide_expert()
                          ? say(language, Phrase::inference_groups, e.layout.model_copies(), e.layout.expert,
                                inf.requests_per_s.typical, format::number(*inf.request_rate))
                          : say(language, Phrase::inference_replicas, inf.replicas, e.layout.tensor * e.layout.pipeline,
                                inf.requests_per_s.typical, format::number(*inf.request_rate)));
      if (inf.queue && inf.queue->stable) {
        lines.push_back(say(language, Phrase::inference_queue, format::number(*inf.request_rate),
                            100.0 * inf.queue->utilisation, 100.0 * inf.queue->wait_probability,
                            format::number(inf.queue->ttft_p50_ms), format::number(inf.queue->ttft_p90_ms)));
      }
    }
    const std::string limit = inf.max_limit == InferenceEstimate::Limit::memory ? say(language, Phrase::limit_memory)
                              : inf.max_limit == InferenceEstimate::Limit::max_batch
                                  ? say(language, Phrase::limit_max_batch)
                                  : say(language, Phrase::limit_batched_tokens, inf.max_batched_tokens);
    lines.push_back(say(language, Phrase::inference_max_load, inf.max_concurrency, inf.context, limit,
                        inf.max_tokens_per_s.typical));
  }
  const auto& c = e.cost;
  const format::MoneyUnit unit = format::money_unit(request);
  if (request.mode == CostMode::buy) {
    if (const auto& own = c.ownership) {
      const std::string used = own->condition == Condition::used ? say(language, Phrase::condition_used) : "";
      const std::string price = format::money(c.purchase_usd->typical, unit);
      std::string line =
          own->servers == 1 ? say(language, Phrase::buy_server, own->gpus, option.gpu.name, used, price)
                            : say(language, Phrase::buy_servers, own->gpus, option.gpu.name, used, own->servers, price);
      if (own->servers > 1) {
        line += say(language, Phrase::buy_network, format::money(own->network_usd.typical, unit));
      }
      line += say(language, own->whole_server ? Phrase::buy_whole_price : Phrase::buy_parts_price);
      if (c.buy_usd) {
        line +=
            say(language, e.training ? Phrase::buy_run : Phrase::buy_month, format::money(c.buy_usd->typical, unit));
      }
      if (c.usd_per_million_tokens) {
        line += say(language, Phrase::buy_per_m, format::money(c.usd_per_million_tokens->typical, unit));
      }
      lines.push_back(line);
      lines.push_back(describe_verdict(request, *own, option.gpu.name, language));
    } else {
      lines.push_back(say(language, c.ownership_gap == OwnershipGap::no_used_price  ? Phrase::no_used_price
                                    : c.ownership_gap == OwnershipGap::no_new_price ? Phrase::no_new_price
                                    : c.ownership_gap == OwnershipGap::no_power     ? Phrase::no_power_price
                                                                                    : Phrase::no_purchase_price));
    }
  } else if (c.rent_usd_per_gpu_hour) {
    const auto& price = *c.rent_usd_per_gpu_hour;
    const std::string where = rent_basis(c, request, language);
    const std::string leases =
        (c.lease_rates_only ? say(language, Phrase::lease_rates_only) : std::string()) +
        // A price file without spot prices rents on demand; the catalog falls back to the typical.
        (c.market_missing
             ? say(language, Phrase::market_missing, describe(request.market.value_or(PriceTier::spot), language))
         : c.spot_missing ? say(language, Phrase::spot_missing)
                          : std::string()) +
        (c.offer ? describe_idle(*c.offer, e.count, language) : std::string());
    if (e.training && c.rent_usd) {
      lines.push_back(say(language, Phrase::rent_run, format::money(c.rent_usd->typical, unit),
                          format::money(price.typical, unit), where,
                          format::money(c.rent_overhead_usd.value_or(0), unit)) +
                      leases);
    } else if (c.rent_usd && c.usd_per_million_tokens) {
      lines.push_back(say(language, Phrase::rent_serving, format::money(c.rent_usd->typical, unit), e.count, where,
                          format::money(c.usd_per_million_tokens->typical, unit)) +
                      leases);
    }
  } else if (c.no_instance_for_gpus > 0) {
    lines.push_back(say(language, Phrase::no_rent_instance, c.no_instance_for_gpus));
  } else if (c.market_missing && request.market) {
    lines.push_back(say(language, Phrase::market_unpriced, describe(*request.market, language)));
  } else if (c.quotes_too_old) {
    lines.push_back(say(language, Phrase::quotes_too_old));
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

}  // namespace

std::string describe(PriceTier tier, Language language) {
  switch (tier) {
    case PriceTier::specialist: return say(language, Phrase::tier_specialist);
    case PriceTier::hyperscaler: return say(language, Phrase::tier_hyperscaler);
    case PriceTier::marketplace: return say(language, Phrase::tier_marketplace);
    case PriceTier::survey: return say(language, Phrase::tier_survey);
    case PriceTier::serverless: return say(language, Phrase::tier_serverless);
    case PriceTier::spot: return say(language, Phrase::tier_spot);
    case PriceTier::term: return say(language, Phrase::tier_term);
    case PriceTier::china_cloud: return say(language, Phrase::tier_china_cloud);
    case PriceTier::china_lease: return say(language, Phrase::tier_china_lease);
  }
  return {};
}

std::string describe(PriceKind kind, Language language) {
  switch (kind) {
    case PriceKind::on_demand: return say(language, Phrase::kind_on_demand);
    case PriceKind::spot: return say(language, Phrase::kind_spot);
    case PriceKind::reserved: return say(language, Phrase::kind_reserved);
    case PriceKind::serverless: return say(language, Phrase::kind_serverless);
    case PriceKind::market_range: return say(language, Phrase::kind_market_range);
  }
  return {};
}

std::string describe(EffectKind effect, Language language) {
  switch (effect) {
    case EffectKind::reject: return say(language, Phrase::effect_reject);
    case EffectKind::note: return say(language, Phrase::effect_note);
    case EffectKind::warning: return say(language, Phrase::effect_warning);
  }
  return {};
}

std::string describe(SoftwareStack stack, Language language) {
  switch (stack) {
    case SoftwareStack::gaudi: return say(language, Phrase::value_software_gaudi);
    case SoftwareStack::xpu: return say(language, Phrase::value_software_xpu);
    case SoftwareStack::cuda:
    case SoftwareStack::rocm:
    case SoftwareStack::cann:
    case SoftwareStack::neuware:
    case SoftwareStack::dtk: break;
  }
  return std::string(display_name(stack));  // a product's name: "CUDA", "ROCm", "Hygon DTK"
}

std::string catalog_word(AvailabilityStatus status, Language language) {
  switch (status) {
    case AvailabilityStatus::available: return say(language, Phrase::value_available);
    case AvailabilityStatus::licence_required: return say(language, Phrase::value_licence_required);
    case AvailabilityStatus::case_by_case: return say(language, Phrase::value_case_by_case);
    case AvailabilityStatus::restricted: return say(language, Phrase::value_restricted);
    case AvailabilityStatus::banned: return say(language, Phrase::value_banned);
    case AvailabilityStatus::not_offered: return say(language, Phrase::value_not_offered);
  }
  return {};
}

std::string catalog_word(Stance stance, Language language) {
  switch (stance) {
    case Stance::encouraged: return say(language, Phrase::value_stance_encouraged);
    case Stance::neutral: return say(language, Phrase::value_stance_neutral);
    case Stance::discouraged: return say(language, Phrase::value_stance_discouraged);
    case Stance::blocked: return say(language, Phrase::value_stance_blocked);
  }
  return {};
}

std::string catalog_word(Confidence confidence, Language language) {
  switch (confidence) {
    case Confidence::datasheet: return say(language, Phrase::value_confidence_datasheet);
    case Confidence::secondary: return say(language, Phrase::value_confidence_secondary);
    case Confidence::estimate: return say(language, Phrase::value_confidence_estimate);
  }
  return {};
}

std::string catalog_word(PriceKind kind, Language language) {
  switch (kind) {
    case PriceKind::on_demand: return say(language, Phrase::value_kind_on_demand);
    case PriceKind::spot: return say(language, Phrase::value_kind_spot);
    case PriceKind::reserved: return say(language, Phrase::value_kind_reserved);
    case PriceKind::serverless: return say(language, Phrase::value_kind_serverless);
    case PriceKind::market_range: return say(language, Phrase::value_kind_market_range);
  }
  return {};
}

std::string catalog_word(Condition condition, Language language) {
  return say(language, condition == Condition::used ? Phrase::condition_used_word : Phrase::condition_new_word);
}

std::string catalog_word(FormFactor form, Language language) {
  switch (form) {
    case FormFactor::sxm: return say(language, Phrase::value_form_sxm);
    case FormFactor::pcie: return say(language, Phrase::value_form_pcie);
    case FormFactor::oam: return say(language, Phrase::value_form_oam);
    case FormFactor::module: return say(language, Phrase::value_form_module);
  }
  return {};
}

std::string catalog_word(Region region, Language language) {
  return say(language, region == Region::cn ? Phrase::value_region_cn : Phrase::value_region_global);
}

std::string source_text(std::string_view text, Language language) {
  return text.empty() ? std::string() : say(language, Phrase::list_source_text, text);
}

std::string offer_units(const RentOffer& offer, Language language) {
  return offer.gpus_per_instance > 0 ? say(language, Phrase::offer_instances, offer.instances, offer.instance_type)
                                     : say(language, Phrase::offer_gpus, offer.paid_gpus);
}

std::string describe(const RentOffer& offer, const Request& request, Language language) {
  const format::MoneyUnit unit = format::money_unit(request);
  std::string line =
      say(language, Phrase::offer_where, offer_units(offer, language), offer.provider, offer.location,
          format::money(offer.usd_per_hour, unit), describe(offer.kind, language), offer.origin, offer.date);
  return line;
}

std::string describe_idle(const RentOffer& offer, int count, Language language) {
  return offer.paid_gpus > count ? say(language, Phrase::offer_idle, offer.paid_gpus - count, offer.paid_gpus)
                                 : std::string();
}

namespace {

// The memory margin and how the Best is chosen: two assumptions every request
// states. Serving states the engine's share as the Best's card runs it.
void add_margin_and_choice(const Request& request, const InferenceEstimate* best, Language language,
                           std::vector<std::string>& out) {
  const MemoryPolicy memory = memory_policy(request);
  if (request.task == Task::inference) {
    const ServingEngine engine = best ? best->engine : request.engine.value_or(ServingEngine::vllm);
    const std::string_view name = engine_profile(engine).name;
    const bool of_free = best ? best->memory_of_free : engine_profile(engine).fraction_of_free;
    const double share = best ? best->memory_fraction : of_free ? memory.free_fraction : memory.usable_fraction;
    out.push_back(say(language, of_free ? Phrase::assume_serving_memory_free : Phrase::assume_serving_memory,
                      100.0 * share, name));
  } else {
    out.push_back(
        say(language, Phrase::assume_memory, 100.0 * memory.usable_fraction, format::number(memory.reserve_gib)));
  }
  out.push_back(request.budget == BudgetTier::low
                    ? say(language, Phrase::assume_choice_low)
                    : say(language, Phrase::assume_choice, 100.0 * tier_premium(request.budget)));
}

// The layout degrees the user fixed (--tp --pp --dp --cp --ep), and the
// layout the search chose around them.
void add_fixed_layout(const Request& request, const Recommendation* best, Language language,
                      std::vector<std::string>& out) {
  std::vector<std::string> given;
  for (const auto& [flag, value] :
       {std::pair{"--tp", request.tensor_parallel}, std::pair{"--pp", request.pipeline_parallel},
        std::pair{"--dp", request.data_parallel}, std::pair{"--cp", request.context_parallel},
        std::pair{"--ep", request.expert_parallel}}) {
    if (value) {
      given.push_back(fmt::format("{} {}", flag, *value));
    }
  }
  if (!given.empty()) {
    out.push_back(best ? say(language, Phrase::assume_layout_fixed, text::join(given, " "),
                             describe(best->estimate.layout, request.task, language))
                       : say(language, Phrase::assume_layout_fixed_only, text::join(given, " ")));
  }
}

// The engine, its scheduler and its speed, as the Best's card runs them.
void add_engine(const Request& request, const ModelShape& model, const GpuSpec* card, const InferenceEstimate* best,
                Language language, std::vector<std::string>& out) {
  const ServingEngine engine = best ? best->engine : request.engine.value_or(ServingEngine::vllm);
  const EngineProfile& profile = engine_profile(engine);
  out.push_back(
      say(language, request.engine ? Phrase::assume_engine_stated : Phrase::assume_engine_default, profile.name));
  if (!best || !card) {
    return;
  }
  const bool set = request.max_batch || request.max_batched_tokens;
  out.push_back(say(language, Phrase::assume_scheduler, best->max_batch, best->max_batched_tokens,
                    say(language, set                                                  ? Phrase::scheduler_set
                                  : !request.tpot_target_ms && !request.ttft_target_ms ? Phrase::scheduler_offline
                                                                                       : Phrase::scheduler_server)));
  const std::string stack = stack_name(card->software, language);
  out.push_back(best->engine_speed != 1.0 ? say(language, Phrase::assume_engine_speed, profile.name, stack,
                                                format::number(best->engine_speed))
                                          : say(language, Phrase::assume_engine_unfitted, profile.name, stack));
  if (request.precision == InferencePrecision::fp8) {
    out.push_back(say(language,
                      best->engine_fp8_fitted ? Phrase::assume_engine_fp8_fitted : Phrase::assume_engine_fp8_default,
                      profile.name, stack, format::number(best->engine_fp8_share)));
  }
  if (model.moe) {
    out.push_back(say(language,
                      best->engine_moe_fitted ? Phrase::assume_engine_moe_fitted : Phrase::assume_engine_moe_default,
                      profile.name, stack, format::number(best->engine_moe_share)));
  }
}

}  // namespace

namespace {

// GPU_ADVISE_REGION, config.yaml: said first, since no flag shows them.
void add_configured(const Request& request, Language language, std::vector<std::string>& out) {
  if (request.configured.empty()) {
    return;
  }
  std::vector<std::string> items;
  for (const auto& d : request.configured) {
    items.push_back(say(language, Phrase::configured_item, d.key, d.value, d.origin));
  }
  out.push_back(
      say(language, Phrase::assumption_configured, text::join(items, say(language, Phrase::fit_list_separator))));
}

}  // namespace

// --calibration: each calibration this request's kind and stack (or engine)
// uses, then those it does not.
std::vector<std::string> calibration_notes(const Request& request, Language language, bool unused) {
  std::vector<std::string> out;
  if (request.calibrations.empty()) {
    return out;
  }
  const bool training = is_training(request.task);
  const std::string key(training ? to_string(request.effective_stack())
                                 : to_string(request.engine.value_or(ServingEngine::vllm)));
  const CalibrationKind kind = training ? CalibrationKind::training : CalibrationKind::serving;
  for (const Calibration& c : request.calibrations) {
    const std::string file = text::printable(c.file);
    if (c.kind != kind || c.key != key) {
      if (!unused) {
        continue;
      }
      out.push_back(say(
          language, Phrase::assume_calibration_unused, c.gpu, c.key,
          say(language, c.kind == CalibrationKind::training ? Phrase::calib_kind_training : Phrase::calib_kind_serving),
          say(language, training ? Phrase::calib_kind_training : Phrase::calib_kind_serving) + " " + key));
      continue;
    }
    const std::string newest = c.newest.empty() ? std::string() : say(language, Phrase::calib_newest, c.newest);
    auto error = [&](const std::optional<double>& median) {
      return median ? say(language, Phrase::assume_calibration_error, fmt::format("{:.0f}", 100.0 * *median))
                    : std::string();
    };
    std::string speed = say(
        language, Phrase::assume_calibration_speed_modelled,
        say(language, c.speed.fitted_on == 0 ? Phrase::calib_reason_not_measured : Phrase::calib_reason_not_applied));
    if (c.speed.fitted_on > 0 && c.speed.applied) {
      speed = say(language, Phrase::assume_calibration_speed, fmt::format("{:.3f}", c.speed.factor)) +
              error(c.speed.median_error);
    }
    std::string memory;
    if (c.kind == CalibrationKind::training && c.memory.fitted_on > 0) {
      memory = c.memory.applied
                   ? say(language, Phrase::assume_calibration_memory, fmt::format("{:.2f}", c.memory.scale),
                         fmt::format("{} {:.1f}", c.memory.offset_gib < 0 ? '-' : '+', std::abs(c.memory.offset_gib))) +
                         error(c.memory.median_error)
                   : say(language, Phrase::assume_calibration_memory_modelled);
    }
    out.push_back(say(
        language, Phrase::assume_calibration, c.gpu, c.key,
        say(language, c.measurements == 1 ? Phrase::calib_one_measurement : Phrase::calib_measurements, c.measurements),
        newest, file, speed, memory));
  }
  out.push_back(say(language, Phrase::assume_calibration_rest));
  return out;
}

std::vector<std::string> assumptions(const Request& request, const ModelShape& model, const Recommendation* best,
                                     Language language) {
  const InferenceEstimate* serving = best && best->estimate.inference ? &*best->estimate.inference : nullptr;
  std::vector<std::string> out;
  add_configured(request, language, out);
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
      out.push_back(
          say(language, request.tokens ? Phrase::assume_finetune_tokens : Phrase::assume_finetune_tokens_default,
              format_parameter_count(request.training_tokens()),
              format_parameter_count(request.tokens.value_or(request.fine_tune_tokens)), format::number(request.epochs),
              request.epochs == 1 ? "" : "s"));  // English's plural; Chinese has no use for it
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
      std::string line = say(language, Phrase::assume_lora, request.lora_rank,
                             text::join(targets, language == Language::zh ? "、" : ", "), to_string(request.optimizer));
      if (request.task == Task::qlora) {
        line += say(language, Phrase::assume_qlora_base);
      }
      out.push_back(line);
    }
    add_stack(request, language, out);
    if (request.offload != Offload::none) {
      out.push_back(say(language, Phrase::assume_offload, to_string(request.offload)));
    }
    add_fixed_layout(request, best, language, out);
    if (request.optimizer_in_backward) {
      out.push_back(say(language, Phrase::assume_optimizer_in_backward));
    }
    if (request.goodput_stated) {
      out.push_back(say(language, Phrase::assume_goodput, 100.0 * request.goodput));
    } else if (best && best->estimate.training && best->estimate.training->wall_hours.typical > 24.0) {
      out.push_back(say(language, Phrase::assume_goodput_derived));  // a run over a day: the lost time it derives
    }
    if (request.deadline_hours) {
      out.push_back(say(language, Phrase::assume_deadline_given, say_duration(language, *request.deadline_hours)));
    } else if (const auto deadline = request.effective_deadline_hours()) {
      out.push_back(say(language, Phrase::assume_deadline_default, say_duration(language, *deadline)));
    }
  } else {
    if (model.max_context > 0 && request.context > model.max_context) {  // flags.cpp allowed it: scaled_context
      out.push_back(say(language, Phrase::assume_scaled_context, request.context, model.name, model.max_context,
                        model.scaled_context));
    }
    out.push_back(say(language, Phrase::assume_inference, text::to_upper(to_string(request.precision)),
                      text::to_upper(to_string(request.kv_precision)), request.context, request.prompt_tokens(),
                      request.effective_output_tokens()));
    if (request.concurrency) {
      out.push_back(say(language, Phrase::assume_concurrency, *request.concurrency));
    }
    std::vector<std::string> targets;
    if (request.tpot_target_ms) {
      targets.push_back(say(language, Phrase::assume_target_tpot, format::number(*request.tpot_target_ms)));
    }
    if (request.ttft_target_ms) {
      targets.push_back(say(language, Phrase::assume_target_ttft, format::number(*request.ttft_target_ms)));
    }
    if (!request.concurrency && !targets.empty()) {
      const bool stated = request.tpot_stated || request.ttft_stated;
      out.push_back(say(language, stated ? Phrase::assume_targets_stated : Phrase::assume_targets_default,
                        text::join(targets, language == Language::zh ? "、" : " and ")));
    }
    if (request.request_rate) {
      out.push_back(say(language, Phrase::assume_request_rate, format::number(*request.request_rate)));
    }
    add_engine(request, model, best ? &best->gpu : nullptr, serving, language, out);
  }
  add_margin_and_choice(request, serving, language, out);
  for (auto& line : calibration_notes(request, language, true)) {
    out.push_back(std::move(line));
  }
  if (request.mode == CostMode::rent) {
    out.push_back(say(language, request.price_files.empty() ? Phrase::assume_rent : Phrase::assume_rent_files));
    for (const auto& file : request.price_files) {
      const std::string format = say(language, file.format == PriceFileFormat::skypilot ? Phrase::price_format_skypilot
                                                                                        : Phrase::price_format_quotes);
      const std::string provider =
          file.provider.empty() ? say(language, Phrase::price_file_providers_per_row) : file.provider;
      std::vector<std::string> cards;
      for (const auto& card : file.cards) {
        cards.push_back(card.gpu_id);
      }
      out.push_back(cards.empty()
                        ? say(language, Phrase::assume_price_file_none, file.file, format, provider, file.date)
                        : say(language, Phrase::assume_price_file, file.file, format, provider, file.date,
                              text::join(cards, say(language, Phrase::fit_list_separator))));
    }
    if (request.spot || request.market) {
      const bool spot = !request.market || *request.market == PriceTier::spot;
      out.push_back(spot ? say(language, Phrase::assume_spot)
                         : say(language, Phrase::assume_market, describe(*request.market, language)));
    }
  } else {
    const auto& own = request.ownership;
    const format::MoneyUnit unit = format::money_unit(request);
    const RegionalOwnership& where = regional_ownership(request.region, request.exchange_rate);
    auto usd = [&](const OwnershipFigure& f) { return in_usd(f, request.exchange_rate).typical; };
    const double kwh = own.usd_per_kwh.value_or(usd(where.power_per_kwh));
    out.push_back(
        say(language, Phrase::assume_buy,
            say(language, own.condition == Condition::used ? Phrase::condition_used_word : Phrase::condition_new_word),
            format::number(own.years), 100.0 * own.utilisation, format::money(kwh, unit),
            say(language, own.usd_per_kwh ? Phrase::assume_power_stated : Phrase::assume_power_region),
            format::number(where.pue.value.typical), format::money(usd(where.colocation_per_kw_month), unit),
            100.0 * ownership_data().operations_per_year.value.typical));
  }
  if (format::money_unit(request).currency == Currency::cny) {
    const ExchangeRate& rate = request.exchange_rate;
    out.push_back(say(language, Phrase::assume_currency, format::number(rate.cny_per_usd), rate.date));
  }
  return out;
}

// When nothing fits: the cheapest card (and count) for each lighter task.

namespace {
std::string rule_line(const Finding& f, Language language) {
  return say(language, f.effect == EffectKind::warning ? Phrase::warning_line : Phrase::rule_line, f.rule_id,
             f.message_in(language));
}

}  // namespace

namespace {

std::string objective_money(PlanObjective::Kind kind, double usd, const Request& request, Language language) {
  std::string money = format::money(usd, format::money_unit(request));
  switch (kind) {
    case PlanObjective::Kind::run: return say(language, Phrase::objective_run, money);
    case PlanObjective::Kind::hour: return say(language, Phrase::objective_hour, money);
    case PlanObjective::Kind::month: return say(language, Phrase::objective_month, money);
    case PlanObjective::Kind::million_tokens: return say(language, Phrase::objective_million, money);
  }
  return money;
}

}  // namespace

std::string describe_objective(const Recommendation& r, const Request& request, bool best, Language language) {
  const PlanObjective& o = r.objective;
  if (!o.usd) {
    if (o.assumed) {
      const format::MoneyUnit unit = format::money_unit(request);
      return say(language, Phrase::objective_assumed, format::money(o.assumed->usd_per_gpu_hour, unit),
                 objective_money(o.kind, o.assumed->usd, request, language), o.assumed->rank, r.gpu.id);
    }
    return say(language, Phrase::objective_unpriced, r.gpu.id);
  }
  const std::string money = objective_money(o.kind, *o.usd, request, language);
  if (best) {
    return say(language, Phrase::objective_best, money);
  }
  return o.vs_best ? say(language, Phrase::objective_vs_best, money, *o.vs_best) : money;
}

std::string describe_tried(const Recommendation& r, const Request& request, Language language) {
  std::vector<std::string> parts;
  for (const PlanTried& t : r.tried) {
    if (!t.kept) {
      parts.push_back(say(language, Phrase::plan_tried_removed, t.count, text::join(t.removed, ", ")));
      continue;
    }
    const std::string time =
        r.estimate.training ? say_duration(language, t.time) : say(language, Phrase::plan_tried_ms, t.time);
    const std::string money =
        t.usd ? format::money(*t.usd, format::money_unit(request)) : say(language, Phrase::no_price);
    parts.push_back(say(language, Phrase::plan_tried, t.count, time, money) +
                    (t.taken ? say(language, Phrase::plan_tried_taken) : std::string()));
  }
  return say(language, Phrase::plans_tried, text::join(parts, language == Language::zh ? "；" : "; "));
}

std::string describe_frontier(const Report& report, Language language) {
  std::vector<std::string> parts;
  for (const auto& n : report.frontier) {
    const std::string time = n.kind == PlanObjective::Kind::run ? say_duration(language, n.time)
                                                                : say(language, Phrase::plan_tried_ms, n.time);
    parts.push_back(say(language, Phrase::frontier_point, n.count, n.gpu_name, time,
                        format::money(n.usd, format::money_unit(report.request)), n.vs_best_usd));
  }
  return say(language, Phrase::frontier, text::join(parts, language == Language::zh ? "；" : "; "));
}

std::string vs_best_cell(const PlanObjective& objective, Language language) {
  return objective.vs_best ? say(language, Phrase::vs_best_cell, *objective.vs_best) : std::string("-");
}

namespace {

// "about 3.5 h and $111 for the run (100M tokens)", "about 348 tokens/s for 8
// concurrent sequences at $7.90/hour", or the cards' price when buying.
std::string plan_in_brief(const Request& request, const Recommendation& pick, Language language) {
  const Estimate& e = pick.estimate;
  const format::MoneyUnit unit = format::money_unit(request);
  const auto& cost = request.mode == CostMode::rent ? e.cost.rent_usd : e.cost.buy_usd;
  const std::string money = cost ? format::money(cost->typical, unit) : say(language, Phrase::no_price);
  std::string out;
  if (e.training) {
    out = say(language, Phrase::brief_training, say_duration(language, e.training->wall_hours.typical), money,
              format_parameter_count(e.training->tokens));
  } else if (e.inference) {
    out = say(language, request.mode == CostMode::rent ? Phrase::brief_serving_rent : Phrase::brief_serving_own,
              e.inference->tokens_per_s.typical, e.inference->running(), e.inference->user_tokens_per_s.typical, money);
  }
  if (request.mode == CostMode::buy && e.cost.purchase_usd) {
    out += say(language, Phrase::brief_cards, format::money(e.cost.purchase_usd->typical, unit));
  }
  return out;
}

// The one thing most likely to go wrong with a pick, or nullopt.
std::optional<std::string> main_risk(const Recommendation& pick, Language language) {
  for (const auto& f : pick.findings) {
    if (f.fired && f.effect == EffectKind::warning) {
      return f.message_in(language);
    }
  }
  if (pick.estimate.tight()) {
    return tight_sentence(pick.estimate, language);
  }
  if (!pick.estimate.notes.empty()) {
    return describe(pick.estimate.notes.front(), language);
  }
  return std::nullopt;  // notes inform; they are not risks
}

}  // namespace

std::string client_summary(const Report& report, Language language) {
  const Request& request = report.request;
  if (!report.anything_fits()) {
    if (report.ways_out.empty()) {
      return say(language, Phrase::brief_nothing);
    }
    return say(language, Phrase::brief_nothing_way_out, describe(report.ways_out.front(), request, language));
  }
  if (report.recommendations.empty()) {
    return {};
  }
  const Recommendation& best = report.recommendations.front();
  const auto& offer = best.estimate.cost.offer;
  std::string out =
      request.mode == CostMode::rent && offer
          ? say(language, Phrase::brief_rent_offer, best.estimate.count, best.gpu.name,
                plan_in_brief(request, best, language), offer_units(*offer, language), offer->provider, offer->location)
          : say(language, request.mode == CostMode::rent ? Phrase::brief_rent : Phrase::brief_buy, best.estimate.count,
                best.gpu.name, plan_in_brief(request, best, language));
  if (report.recommendations.size() > 1) {
    const Recommendation& next = report.recommendations[1];
    out += say(language, Phrase::brief_alternative, next.estimate.count, next.gpu.name,
               plan_in_brief(request, next, language));
  }
  if (const auto risk = main_risk(best, language)) {
    out += say(language, Phrase::brief_risk, *risk);
  } else if (best.estimate.training) {
    const Range& w = best.estimate.training->wall_hours;
    out += say(language, Phrase::brief_no_risk, say_duration(language, w.low), say_duration(language, w.high));
  }
  return out;
}

std::string describe_sizing(const Estimate& e, BudgetTier budget, Language language) {
  const Sizing& z = e.sizing;
  std::string line;
  switch (z.stop) {
    case Sizing::Stop::fixed: return {};
    case Sizing::Stop::cost_first: line = say(language, Phrase::sizing_cost_first, e.count); break;
    case Sizing::Stop::cap: line = say(language, Phrase::sizing_cap, e.count); break;
    default: {
      // Only speed first and balanced grow a plan.
      const std::string tier =
          say(language, budget == BudgetTier::high ? Phrase::sizing_tier_high : Phrase::sizing_tier_medium);
      line = e.count > z.smallest ? say(language, Phrase::sizing_grew, tier, e.count, z.smallest, 100.0 * z.cut)
                                  : say(language, Phrase::sizing_kept, tier, e.count);
      break;
    }
  }
  if (z.smallest > z.needed && z.needed > 0) {
    line += say(language, Phrase::sizing_offer, z.needed, z.smallest);
  }
  switch (z.stop) {
    case Sizing::Stop::short_run:
      line += say(language, Phrase::sizing_stop_short_run, say_duration(language, z.run_hours_threshold));
      break;
    case Sizing::Stop::small_cut:
      line += say(language, Phrase::sizing_stop_small_cut, z.next, 100.0 * z.next_cut);
      break;
    case Sizing::Stop::node: line += say(language, Phrase::sizing_stop_node, z.next); break;
    case Sizing::Stop::batch: line += say(language, Phrase::sizing_stop_batch, z.next, z.batch_sequences); break;
    case Sizing::Stop::offer: line += say(language, Phrase::sizing_stop_offer); break;
    case Sizing::Stop::cost:
      line += say(language, Phrase::sizing_stop_cost, z.next, 100.0 * z.next_cut, 100.0 * z.next_extra_cost);
      break;
    default: break;
  }
  return line;
}

std::vector<std::string> headline_notes(const Report& report, Language language) {
  std::vector<std::string> out;
  const Request& request = report.request;
  if (report.cheapest) {
    const auto& c = *report.cheapest;
    out.push_back(say(language, Phrase::neighbour_cheapest, c.count, c.gpu_name,
                      objective_money(c.kind, c.usd, request, language), c.vs_best_time));
  }
  if (report.faster && report.faster->time > 0) {
    const auto& f = *report.faster;
    out.push_back(say(language, Phrase::neighbour_faster, 1.0 / f.vs_best_time, 100.0 * (f.vs_best_usd - 1.0), f.count,
                      f.gpu_name, objective_money(f.kind, f.usd, request, language)));
  }
  if (const auto& hint = report.heavier_task) {
    out.push_back(say(language, Phrase::heavier_task_hint, describe(hint->task, language), hint->count, hint->gpu_name,
                      objective_money(PlanObjective::Kind::run, hint->usd, request, language),
                      say_duration(language, hint->time), to_string(hint->task)));
  }
  if (!report.best_priced && report.anything_fits()) {
    out.push_back(say(language, Phrase::no_priced_plan));
  }
  if (report.larger_plans > 0) {
    out.push_back(say(language, Phrase::larger_plans, report.larger_plans));
  }
  if (report.unpriced > 0 && report.best_priced) {
    out.push_back(say(language, Phrase::unpriced_count, report.unpriced, report.feasible));
  }
  return out;
}

std::vector<std::string> notes(const Recommendation& pick, Language language) {
  std::vector<std::string> out;
  for (const auto& note : pick.estimate.notes) {
    out.push_back(describe(note, language));
  }
  return out;
}

std::vector<Sentence> rationale(const Request& request, const Recommendation& pick, Language language) {
  std::vector<Sentence> out;
  for (auto& line : facts_of(request, pick, language)) {
    out.push_back({std::move(line), false});
  }
  if (auto sized = describe_sizing(pick.estimate, request.budget, language); !sized.empty()) {
    out.push_back({std::move(sized), false});
  }
  for (auto& note : notes(pick, language)) {
    out.push_back({std::move(note), false});
  }
  for (const auto& f : pick.findings) {
    if (f.fired && f.effect != EffectKind::reject) {
      out.push_back({rule_line(f, language), f.effect == EffectKind::warning});
    }
  }
  return out;
}

std::vector<std::string> reasons(const Rejection& rejection, const Request& request, Language language) {
  std::vector<std::string> out;
  for (const auto& reason : rejection.reasons) {
    out.push_back(describe(reason, request, language));
  }
  return out;
}

}  // namespace gpu_advise
