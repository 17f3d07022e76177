// The JSON contract CI users read (docs/json.md). Written by explicit
// functions, never by macros on domain types, straight to the output through
// json_out::Writer (no document tree). Keys are snake_case with units.
#include <cmath>

#include "gpu_advise/fit_report.hpp"
#include "gpu_advise/render.hpp"
#include "gpu_advise/units.hpp"
#include "gpu_advise/words.hpp"
#include "render/json_writer.hpp"

namespace gpu_advise {

namespace {

std::string_view objective_kind_name(PlanObjective::Kind kind) {
  switch (kind) {
    case PlanObjective::Kind::run: return "run";
    case PlanObjective::Kind::hour: return "hour";
    case PlanObjective::Kind::month: return "month";
    case PlanObjective::Kind::million_tokens: return "million_output_tokens";
  }
  return "run";
}

}  // namespace

namespace {

using json_out::Writer;

// Six significant digits: enough for any decision, stable across builds.
double round6(double value) {
  if (value == 0 || !std::isfinite(value)) {
    return value;
  }
  const double magnitude = std::pow(10.0, 5 - static_cast<int>(std::floor(std::log10(std::abs(value)))));
  return std::round(value * magnitude) / magnitude;
}

double gb(double bytes) { return round6(bytes / bytes_per_gb); }

void range_json(Writer& w, const Range& r) {
  w.begin_object();
  w.field("low", round6(r.low));
  w.field("typical", round6(r.typical));
  w.field("high", round6(r.high));
  w.end_object();
}

void range_field(Writer& w, std::string_view name, const Range& r) {
  w.key(name);
  range_json(w, r);
}

void optional_range(Writer& w, std::string_view name, const std::optional<Range>& r) {
  w.key(name);
  if (r) {
    range_json(w, *r);
  } else {
    w.null();
  }
}

// A string field that is null when empty.
void text_or_null(Writer& w, std::string_view name, const std::string& text) {
  w.key(name);
  if (text.empty()) {
    w.null();
  } else {
    w.string(text);
  }
}

// One optimizer step at the typical efficiency: seconds and where they go.
void step_json(Writer& w, const TrainingStep& s) {
  w.object("step", [&] {
    w.field("seconds", round6(s.seconds()));
    w.field("compute_s", round6(s.compute));
    w.field("model_parallel_s", round6(s.tensor));
    w.field("pipeline_bubble_s", round6(s.bubble));
    w.field("data_parallel_s", round6(s.data));
    w.field("offload_s", round6(s.offload));
    w.field("micro_batches", s.micro_batches);
    w.field("interleave", s.interleave);
    w.field("schedule", s.schedule ? std::optional(std::string(to_string(*s.schedule))) : std::nullopt);
    w.field("tokens", s.tokens);
  });
}

void catalog_json(Writer& w, const CatalogInfo& info) {
  w.object("catalog", [&] {
    w.field("version", info.version);
    w.field("updated", info.updated);
    const ExchangeRate& rate = info.exchange_rate;
    w.object_or_null("exchange_rate", rate.cny_per_usd > 0, [&] {
      w.field("cny_per_usd", rate.cny_per_usd);
      w.field("date", rate.date);
      w.field("source", rate.source);
    });
  });
}

void gpu_ref(Writer& w, const GpuSpec& gpu) {
  w.object("gpu", [&] {
    w.field("id", gpu.id);
    w.field("name", gpu.name);
    w.field("vendor", to_string(gpu.vendor));
    w.field("confidence", to_string(gpu.confidence));
  });
}

// The defaults taken from GPU_ADVISE_* or the config file (docs/configuration.md).
void configured_json(Writer& w, const std::vector<ConfiguredDefault>& configured) {
  w.array("configured", [&] {
    for (const auto& d : configured) {
      w.begin_object();
      w.field("key", d.key);
      w.field("value", d.value);
      w.field("origin", d.origin);
      w.end_object();
    }
  });
}

// The --price-file files a request's prices came from.
void price_files_json(Writer& w, const std::vector<PriceFileSummary>& files) {
  w.array("price_files", [&] {
    for (const auto& f : files) {
      w.begin_object();
      w.field("file", f.file);
      w.field("format", to_string(f.format));
      w.field("provider", f.provider);
      w.field("date", f.date);
      w.field("quotes", f.quotes);
      std::vector<std::string> cards;
      for (const auto& card : f.cards) {
        cards.push_back(card.gpu_id);
      }
      w.field("cards", cards);
      w.end_object();
    }
  });
}

// One calibration: its card, stack or engine, factors and leave-one-out
// errors; with `measured`, every measurement's figures.
void calibration_json(Writer& w, const Calibration& c, bool measured) {
  w.begin_object();
  w.field("kind", to_string(c.kind));
  w.field("gpu", c.gpu);
  w.field(c.kind == CalibrationKind::training ? "stack" : "engine", c.key);
  w.field("file", c.file.empty() ? std::nullopt : std::optional(c.file));
  w.field("created", c.created);
  w.field("newest", c.newest.empty() ? std::nullopt : std::optional(c.newest));
  w.field("measurements", c.measurements);
  w.object("speed", [&] {
    w.field("factor", round6(c.speed.factor));
    w.field("fitted_on", c.speed.fitted_on);
    w.field("applied", c.speed.applied);
    w.field("model_median_error", c.speed.model_error ? std::optional(round6(*c.speed.model_error)) : std::nullopt);
    w.field("left_out_median_error",
            c.speed.median_error ? std::optional(round6(*c.speed.median_error)) : std::nullopt);
    w.field("left_out_max_error", c.speed.max_error ? std::optional(round6(*c.speed.max_error)) : std::nullopt);
    w.field("band_low", c.speed.band_low ? std::optional(round6(*c.speed.band_low)) : std::nullopt);
    w.field("band_high", c.speed.band_high ? std::optional(round6(*c.speed.band_high)) : std::nullopt);
  });
  if (c.kind == CalibrationKind::training) {
    w.object("memory", [&] {
      w.field("scale", round6(c.memory.scale));
      w.field("offset_gib", round6(c.memory.offset_gib));
      w.field("fitted_on", c.memory.fitted_on);
      w.field("applied", c.memory.applied);
      w.field("model_median_error", c.memory.model_error ? std::optional(round6(*c.memory.model_error)) : std::nullopt);
      w.field("left_out_median_error",
              c.memory.median_error ? std::optional(round6(*c.memory.median_error)) : std::nullopt);
      w.field("left_out_max_error", c.memory.max_error ? std::optional(round6(*c.memory.max_error)) : std::nullopt);
    });
  }
  if (measured) {
    w.array("measured", [&] {
      for (const auto& p : c.provenance) {
        w.begin_object();
        w.field("origin", p.origin);
        w.field("id", p.id);
        w.field("flags", p.what);
        w.field("source", p.source);
        w.field("date", p.date);
        const bool refused = p.refused != CalibrationProvenance::Refusal::none;
        w.field("refused", refused ? std::optional(to_string(p.refused)) : std::nullopt);
        const bool bound = (p.refused == CalibrationProvenance::Refusal::below_bound ||
                            p.refused == CalibrationProvenance::Refusal::above_bound);
        w.field("bound_share", bound ? std::optional(round6(p.bound_share)) : std::nullopt);
        w.field("bound_tokens_per_s", bound ? std::optional(round6(p.bound_tokens_per_s)) : std::nullopt);
        w.array("figures", [&] {
          for (const auto& f : p.figures) {
            w.begin_object();
            w.field("metric", f.metric);
            w.field("measured", round6(f.measured));
            w.field("before", round6(f.before));
            w.field("after", round6(f.after));
            w.field("left_out", f.left_out ? std::optional(round6(*f.left_out)) : std::nullopt);
            w.end_object();
          }
        });
        w.end_object();
      }
    });
  }
  w.end_object();
}

void request_json(Writer& w, const Request& r) {
  w.object("request", [&] {
    w.field("params", r.params);
    w.field("params_text", format_parameter_count(r.params));
    w.field("active_params", r.active_params);
    text_or_null(w, "model", r.model_id);
    text_or_null(w, "model_config", r.model_config);
    w.field("task", to_string(r.task));
    w.field("budget", to_string(r.budget));
    w.field("budget_usd", r.budget_usd);
    w.field("region", to_string(r.region));
    w.field("ecosystem", r.ecosystem ? to_string(*r.ecosystem) : std::string_view("any"));
    w.field("explain", r.explain);
    configured_json(w, r.configured);
    w.field("gpus", r.gpu_ids);
    w.field("compare", r.compare);
    w.field("count", r.count);
    w.field("top", r.top);
    w.field("max_gpus", r.max_gpus);
    w.field("mode", to_string(r.mode));
    w.field("currency", to_string(r.currency));
    w.array("prices", [&] {
      for (const auto& p : r.prices) {
        w.begin_object();
        w.field("gpu", p.gpu_id);
        w.field("usd_per_gpu_hour", p.usd_per_gpu_hour);
        w.end_object();
      }
    });
    w.field("spot", r.spot);
    w.field("market", r.market ? std::optional(to_string(*r.market)) : std::nullopt);
    w.field("quotes_since", r.quotes_since);
    price_files_json(w, r.price_files);
    w.array("calibrations", [&] {
      for (const auto& c : r.calibrations) {
        calibration_json(w, c, false);
      }
    });
    if (is_training(r.task)) {
      w.field("seq_len", r.seq_len);
      w.field("micro_batch", r.micro_batch);
      w.field("global_batch", r.global_batch);
      w.field("zero_stage", r.zero_stage);
      w.field("tensor_parallel", r.tensor_parallel);
      w.field("pipeline_parallel", r.pipeline_parallel);
      w.field("data_parallel", r.data_parallel);
      w.field("context_parallel", r.context_parallel);
      w.field("expert_parallel", r.expert_parallel);
      w.field("pipeline_schedule",
              r.pipeline_schedule ? std::optional(std::string(to_string(*r.pipeline_schedule))) : std::nullopt);
      w.field("recompute", to_string(r.effective_recompute()));
      w.field("training_tokens", r.training_tokens());
      w.field("epochs", r.epochs);
      w.field("fp8", r.fp8_training);
      w.field("deadline_hours", r.deadline_hours);
      w.field("optimizer", to_string(r.optimizer));
      w.field("offload", to_string(r.offload));
      w.field("stack", to_string(r.effective_stack()));
      w.field("loss", to_string(r.effective_loss()));
      w.field("optimizer_in_backward", r.optimizer_in_backward);
      w.field("goodput", r.goodput_stated ? std::optional(r.goodput) : std::nullopt);
      if (r.task == Task::lora || r.task == Task::qlora) {
        w.field("lora_rank", r.lora_rank);
        w.array("lora_targets", [&] {
          for (const auto target : r.lora_targets) {
            w.string(to_string(target));
          }
        });
      }
    } else {
      w.field("precision", to_string(r.precision));
      w.field("kv_precision", to_string(r.kv_precision));
      w.field("context", r.context);
      w.field("prompt_tokens", r.prompt_tokens());
      w.field("output_tokens", r.effective_output_tokens());
      w.field("concurrency", r.concurrency);
      w.field("copies", r.copies);
      w.field("expert_parallel", r.expert_parallel);
      w.field("engine", r.engine ? to_string(*r.engine) : std::string_view("auto"));
      w.field("max_batch", r.max_batch);
      w.field("max_batched_tokens", r.max_batched_tokens);
      w.object("tpot_ms", [&] {
        w.field("target", r.tpot_target_ms);
        w.field("stated", r.tpot_stated);
      });
      w.object("ttft_ms", [&] {
        w.field("target", r.ttft_target_ms);
        w.field("stated", r.ttft_stated);
      });
      w.field("request_rate", r.request_rate);
    }
    if (r.mode == CostMode::buy) {
      w.object("ownership", [&] {
        w.field("condition", to_string(r.ownership.condition));
        w.field("years", r.ownership.years);
        w.field("utilisation", r.ownership.utilisation);
        w.field("usd_per_kwh",
                r.ownership.usd_per_kwh ? std::optional(round6(*r.ownership.usd_per_kwh)) : std::nullopt);
      });
    }
  });
}

std::string_view source_name(ModelSource source) {
  switch (source) {
    case ModelSource::inferred: return "inferred";
    case ModelSource::preset: return "preset";
    case ModelSource::config_json: return "config_json";
  }
  return "?";
}

// The model's members, in an object the caller opened (presets add theirs).
void model_members(Writer& w, const ModelShape& m) {
  text_or_null(w, "id", m.id);
  w.field("name", m.name);
  w.field("source", source_name(m.source));
  w.field("basis", m.basis);
  w.field("inferred", m.inferred);
  w.field("params", m.params);
  w.field("active_params", m.active_params);
  w.field("layers", m.layers);
  w.field("hidden", m.hidden);
  w.field("heads", m.heads);
  w.field("kv_heads", m.kv_heads);
  w.field("head_dim", m.head_dim);
  w.field("ffn", m.ffn);
  w.field("vocab", m.vocab);
  w.field("tied_embeddings", m.tied_embeddings);
  w.field("max_context", m.max_context > 0 ? std::optional(m.max_context) : std::nullopt);
  w.field("scaled_context", m.scaled_context > 0 ? std::optional(m.scaled_context) : std::nullopt);
  w.object_or_null("moe", m.moe.has_value(), [&] {
    w.field("experts", m.moe->experts);
    w.field("experts_per_token", m.moe->experts_per_token);
    w.field("expert_ffn", m.moe->expert_ffn);
    w.field("shared_experts", m.moe->shared_experts);
    w.field("dense_layers", m.moe->dense_layers);
  });
  w.object_or_null("mla", m.mla.has_value(), [&] {
    w.field("kv_lora_rank", m.mla->kv_lora_rank);
    w.field("q_lora_rank", m.mla->q_lora_rank);
    w.field("qk_rope_head_dim", m.mla->qk_rope_head_dim);
    w.field("qk_nope_head_dim", m.mla->qk_nope_head_dim);
    w.field("v_head_dim", m.mla->v_head_dim);
  });
  w.object_or_null("linear_attention", m.linear_attention.has_value(), [&] {
    w.field("layers", m.linear_attention->layers);
    w.field("key_heads", m.linear_attention->key_heads);
    w.field("value_heads", m.linear_attention->value_heads);
    w.field("key_head_dim", m.linear_attention->key_head_dim);
    w.field("value_head_dim", m.linear_attention->value_head_dim);
    w.field("conv_kernel", m.linear_attention->conv_kernel);
    w.field("gated_attention", m.linear_attention->gated_attention);
  });
  w.object_or_null("sliding_window", m.sliding_window.has_value(), [&] {
    w.field("size", m.sliding_window->size);
    w.field("layers", m.sliding_window->layers);
  });
}

bool is_training_layout(const Estimate& e) { return e.training.has_value(); }

void findings_json(Writer& w, const std::vector<Finding>& findings, bool all, Language language) {
  w.array("rules", [&] {
    for (const auto& f : findings) {
      if (!f.fired && !all) {
        continue;
      }
      w.begin_object();
      w.field("id", f.rule_id);
      w.field("effect", to_string(f.effect));
      w.field("fired", f.fired);
      w.field("message", f.fired ? std::optional(f.message_in(language)) : std::nullopt);
      w.end_object();
    }
  });
}

// A rejection reason for scripts: its kind and numbers beside the sentence.
void reason_json(Writer& w, const RejectReason& reason, const Request& request, Language language) {
  struct Facts {
    Writer& w;
    void operator()(const Shortfall& why) const {
      auto gib = [](double value) { return round6(gib_to_gb(value)); };
      switch (why.kind) {
        case Shortfall::Kind::deadline:
          w.field("kind", "deadline");
          w.field("deadline_hours", round6(why.deadline_hours));
          w.field("count", why.count);
          w.field("hours_at_count", round6(why.hours_at_count));
          w.field("max_gpus", why.max_gpus);
          return;
        case Shortfall::Kind::latency:
          w.field("kind", "latency");
          w.field("target", why.latency_tpot ? "tpot" : "ttft");
          w.field("target_ms", round6(why.target_ms));
          w.field("best_ms", round6(why.best_ms));
          w.field("count", why.count);
          w.field("max_gpus", why.max_gpus);
          return;
        case Shortfall::Kind::rate:
          w.field("kind", "rate");
          w.field("request_rate", round6(why.request_rate));
          w.field("requests_per_s", round6(why.requests_per_s));
          w.field("count", why.count);
          w.field("max_gpus", why.max_gpus);
          return;
        case Shortfall::Kind::too_many_gpus:
          w.field("kind", "max_gpus");
          w.field("max_gpus", why.max_gpus);
          w.field("count", why.count);
          w.field("needed_gb", gib(why.need_gib));
          w.field("usable_gb", gib(why.usable_gib));
          return;
        case Shortfall::Kind::no_shape:
          w.field("kind", "max_gpus");
          w.field("max_gpus", why.max_gpus);
          w.field("smallest_offered", why.count);
          return;
        case Shortfall::Kind::no_fp8:
        case Shortfall::Kind::no_fp4:
        case Shortfall::Kind::no_fp4_kv: w.field("kind", "precision"); return;
        case Shortfall::Kind::no_engine:
          w.field("kind", "engine");
          w.field("engine", to_string(why.engine));
          w.field("software", to_string(why.stack));
          return;
        case Shortfall::Kind::activations:
          w.field("kind", "memory");
          w.field("needed_gb", gib(why.fixed_gib));
          w.field("usable_gb", gib(why.usable_gib));
          return;
        case Shortfall::Kind::count_too_small:
        case Shortfall::Kind::none: break;
      }
      w.field("kind", "memory");
      w.field("count", why.count);
      w.field("needed_gb", gib(why.need_gib));
      w.field("usable_gb", gib(why.usable_gib));
    }
    void operator()(const NotSelected&) const { w.field("kind", "not_selected"); }
    void operator()(const RuleRejection& rule) const {
      w.field("kind", "rule");
      w.field("rule_id", rule.rule_id);
    }
    void operator()(const NoPriceForBudget& budget) const {
      w.field("kind", "budget");
      w.field("cost_usd", nullptr);
      w.field("cap_usd", round6(budget.budget_usd));
    }
    void operator()(const OverBudget& over) const {
      const char* basis = over.cost == OverBudget::Cost::cards ? "cards"
                          : over.cost == OverBudget::Cost::run ? "run"
                                                               : "month";
      w.field("kind", "budget");
      w.field("cost_usd", round6(over.cost_usd));
      w.field("cap_usd", round6(over.budget_usd));
      w.field("basis", basis);
    }
    void operator()(const OtherEcosystem& other) const {
      w.field("kind", "ecosystem");
      w.field("software", to_string(other.stack));
      w.field("asked", to_string(other.asked));
    }
    void operator()(const PcieSpread& spread) const {
      w.field("kind", "pcie_spread");
      w.field("gpus", spread.gpus);
      w.field("servers", spread.servers);
    }
    void operator()(const LargerThanBest& larger) const {
      w.field("kind", "larger_than_best");
      w.field("count", larger.count);
      w.field("best_count", larger.best_count);
    }
  };
  w.begin_object();
  std::visit(Facts{w}, reason);
  w.field("message", describe(reason, request, language));
  w.end_object();
}

// The same figures in the request's currency (cost_usd stays in USD).
void cost_json(Writer& w, const Estimate& e, const Request& request) {
  const bool cny = request.currency == Currency::cny && request.exchange_rate.cny_per_usd > 0;
  const double per_usd = cny ? request.exchange_rate.cny_per_usd : 1.0;
  auto in_currency = [&](std::string_view name, const std::optional<Range>& range) {
    optional_range(
        w, name,
        range ? std::optional<Range>(Range{range->low * per_usd, range->typical * per_usd, range->high * per_usd})
              : std::nullopt);
  };
  w.object("cost", [&] {
    w.field("currency", cny ? "cny" : "usd");
    in_currency("rent_per_gpu_hour", e.cost.rent_usd_per_gpu_hour);
    in_currency("rent", e.cost.rent_usd);
    in_currency("purchase", e.cost.purchase_usd);
    in_currency("buy", e.cost.buy_usd);
    w.field("energy", e.cost.energy_usd ? std::optional(round6(*e.cost.energy_usd * per_usd)) : std::nullopt);
    in_currency("per_million_tokens", e.cost.usd_per_million_tokens);
    w.field("offer_per_hour",
            e.cost.offer ? std::optional(round6(e.cost.offer->usd_per_hour * per_usd)) : std::nullopt);
    const auto& own = e.cost.ownership;
    w.object_or_null("ownership", own.has_value(), [&] {
      auto money = [&](double usd) { return round6(usd * per_usd); };
      in_currency("per_gpu_hour_used", own->usd_per_gpu_hour_used());
      w.field("rent_per_gpu_hour",
              own->rent_usd_per_gpu_hour ? std::optional(money(*own->rent_usd_per_gpu_hour)) : std::nullopt);
      in_currency("servers", own->servers_usd);
      in_currency("network", own->network_usd);
      w.field("total", money(own->typical.total_usd));
      w.field("running_per_month", money(own->typical.running_usd_per_month));
      in_currency("per_kwh", own->usd_per_kwh);
    });
  });
}

// Owning the plan's servers, in USD (docs/methodology.md §6.2).
void ownership_json(Writer& w, const CostEstimate& c) {
  w.field("ownership_gap", to_string(c.ownership_gap));
  const auto& own = c.ownership;
  w.object_or_null("ownership", own.has_value(), [&] {
    w.field("condition", to_string(own->condition));
    w.field("servers", own->servers);
    w.field("gpus_per_server", own->gpus_per_server);
    w.field("gpus", own->gpus);
    w.field("whole_server", own->whole_server);
    optional_range(w, "servers_price", own->servers_usd);
    optional_range(w, "network", own->network_usd);
    w.field("max_kw", round6(own->max_kw));
    w.field("years", own->years);
    w.field("utilisation", own->utilisation);
    optional_range(w, "usd_per_kwh", own->usd_per_kwh);
    optional_range(w, "pue", own->pue);
    optional_range(w, "colocation_per_kw_month", own->colocation_usd_per_kw_month);
    const OwnershipResult& t = own->typical;
    w.object("terms", [&] {
      w.field("depreciation", round6(t.depreciation_usd));
      w.field("residual", round6(t.residual_usd));
      w.field("power", round6(t.power_usd));
      w.field("colocation", round6(t.colocation_usd));
      w.field("operations", round6(t.operations_usd));
      w.field("total", round6(t.total_usd));
      w.field("running_per_month", round6(t.running_usd_per_month));
    });
    optional_range(w, "per_gpu_hour_used", own->usd_per_gpu_hour_used());
    w.field("rent_per_gpu_hour",
            own->rent_usd_per_gpu_hour ? std::optional(round6(*own->rent_usd_per_gpu_hour)) : std::nullopt);
    w.field("rent_term_months", own->rent_term_months);
    w.field("rent_term_quotes", own->rent_term_quotes);
    auto maybe = [](const std::optional<double>& v) { return v ? std::optional(round6(*v)) : std::nullopt; };
    w.object("break_even_utilisation", [&] {
      w.field("low", maybe(own->low.break_even_utilisation));
      w.field("typical", maybe(t.break_even_utilisation));
      w.field("high", maybe(own->high.break_even_utilisation));
    });
    w.field("months_to_break_even", maybe(t.months_to_break_even));
    w.field("verdict", own->owning_cheaper ? std::optional<std::string_view>(*own->owning_cheaper ? "own" : "rent")
                                           : std::nullopt);
    w.array("by_utilisation", [&] {
      for (std::size_t i = 0; i < own->usd_per_gpu_hour_by_utilisation.size(); ++i) {
        w.begin_object();
        w.field("utilisation", static_cast<double>(i + 1) / 10.0);
        w.field("per_gpu_hour_used", round6(own->usd_per_gpu_hour_by_utilisation[i]));
        w.end_object();
      }
    });
  });
}

void training_json(Writer& w, const Estimate& e) {
  w.object_or_null("training", e.training.has_value(), [&] {
    const auto& t = *e.training;
    w.field("tokens", t.tokens);
    w.field("flops", round6(t.flops));
    w.field("precision", t.fp8 ? "fp8" : "bf16");
    w.field("peak_tflops", t.peak_tflops);
    w.field("hardware_flops", round6(t.hardware_flops));
    range_field(w, "mfu", t.mfu);
    range_field(w, "tokens_per_s_per_gpu", t.tokens_per_s_per_gpu);
    step_json(w, t.step);
    range_field(w, "gpu_hours", t.gpu_hours);
    range_field(w, "wall_hours", t.wall_hours);
    w.field("goodput", round6(t.goodput));
    if (t.checkpointing) {
      const TrainingEstimate::Checkpointing& c = *t.checkpointing;
      w.object("checkpointing", [&] {
        w.field("checkpoint_gb", gb(c.bytes));
        w.field("write_hours", round6(c.write_hours));
        w.field("interval_hours", round6(c.interval_hours));
        w.field("interruptions", round6(c.interruptions));
        w.field("restart_hours", round6(c.restart_hours));
      });
    } else {
      w.field("checkpointing", nullptr);
    }
    range_field(w, "offload_hours", t.offload_hours);
    w.field("job_overhead_hours", round6(t.job_overhead_hours));
  });
}

void inference_json(Writer& w, const Estimate& e) {
  w.object_or_null("inference", e.inference.has_value(), [&] {
    const auto& inf = *e.inference;
    w.field("operating_point", to_string(inf.point));
    w.field("concurrency", inf.concurrency);
    w.field("replicas", inf.replicas);
    w.field("context", inf.context);
    w.field("prompt_tokens", inf.prompt_tokens);
    w.field("output_tokens", inf.output_tokens);
    w.field("tpot_target_ms", inf.tpot_target_ms);
    w.field("ttft_target_ms", inf.ttft_target_ms);
    w.field("request_rate", inf.request_rate);
    range_field(w, "tokens_per_s", inf.tokens_per_s);
    range_field(w, "user_tokens_per_s", inf.user_tokens_per_s);
    range_field(w, "requests_per_s", inf.requests_per_s);
    range_field(w, "ttft_ms", inf.ttft_ms);
    range_field(w, "tpot_ms", inf.tpot_ms);
    w.field("min_tpot_ms", round6(inf.min_tpot_ms));
    w.field("max_concurrency", inf.max_concurrency);
    w.field("max_concurrency_limit", to_string(inf.max_limit));
    range_field(w, "max_tokens_per_s", inf.max_tokens_per_s);
    w.object_or_null("queue", inf.queue.has_value(), [&] {
      w.field("stable", inf.queue->stable);
      w.field("utilisation", round6(inf.queue->utilisation));
      w.field("wait_probability", round6(inf.queue->wait_probability));
      w.field("ttft_p50_ms", inf.queue->stable ? std::optional<double>(round6(inf.queue->ttft_p50_ms)) : std::nullopt);
      w.field("ttft_p90_ms", inf.queue->stable ? std::optional<double>(round6(inf.queue->ttft_p90_ms)) : std::nullopt);
    });
    w.object_or_null("disaggregated", inf.disaggregated.has_value(), [&] {
      const auto& d = *inf.disaggregated;
      w.field("prefill_copies", d.prefill_copies);
      w.field("decode_copies", d.decode_copies);
      w.field("decode_batch", d.decode_batch);
      w.field("requests_per_s", round6(d.requests_per_s));
      w.field("colocated_requests_per_s", round6(d.colocated_rps));
      w.field("kv_transfer_ms", round6(d.kv_transfer_ms));
    });
    w.object("engine", [&] {
      w.field("id", to_string(inf.engine));
      w.field("name", engine_profile(inf.engine).name);
      w.field("max_batch", inf.max_batch);
      w.field("max_batched_tokens", inf.max_batched_tokens);
      w.field("memory_fraction", round6(inf.memory_fraction));
      w.field("memory_of", inf.memory_of_free ? "free" : "card");
      w.field("speed", round6(inf.engine_speed));
      w.field("fp8_gemm_share", round6(inf.engine_fp8_share));
      w.field("moe_share", round6(inf.engine_moe_share));
    });
  });
}

void recommendation_json(Writer& w, const Recommendation& r, const Request& request, Language language) {
  const bool explain = request.explain;
  const Estimate& e = r.estimate;
  w.begin_object();
  w.field("rank", r.rank);
  gpu_ref(w, r.gpu);
  w.field("count", e.count);
  w.field("nodes", e.nodes);
  w.object("layout", [&] {
    w.field("tensor_parallel", e.layout.tensor);
    w.field("pipeline_parallel", e.layout.pipeline);
    w.field("data_parallel", e.layout.data);
    w.field("expert_parallel", e.layout.expert);
    w.field("context_parallel", e.layout.context);
    w.field("zero_stage", is_training_layout(e) ? std::optional(e.layout.zero_stage) : std::nullopt);
    w.field("description", describe(e.layout, request.task, language));
  });
  w.object("memory_gb", [&] {
    w.field("per_gpu", gb(e.per_gpu.total()));
    w.field("capacity_per_gpu", gb(e.capacity_bytes));
    w.field("usable_per_gpu", gb(e.usable_bytes));
    w.field("host_per_gpu", gb(e.per_gpu.host));
    w.field("host_per_server", gb(e.host_bytes_per_server));
    w.object("breakdown", [&] {
      w.field("weights", gb(e.per_gpu.weights));
      w.field("gradients", gb(e.per_gpu.gradients));
      w.field("optimizer", gb(e.per_gpu.optimizer));
      w.field("activations", gb(e.per_gpu.activations));
      w.field("kv_cache", gb(e.per_gpu.kv_cache));
      w.field("reserve", gb(e.per_gpu.reserve));
      w.field("released", gb(e.per_gpu.released));
      w.field("calibration", gb(e.per_gpu.calibration));
      w.field("peak_phase", to_string(e.per_gpu.phase));
    });
  });
  w.field("headroom", round6(e.headroom()));
  w.field("tight", e.tight());
  w.field("calibration", e.calibration ? std::optional(*e.calibration) : std::nullopt);
  const Sizing& z = e.sizing;
  w.object("sizing", [&] {
    w.field("needed", z.needed);
    w.field("smallest_offered", z.smallest);
    w.field("stop", to_string(z.stop));
    w.field("next", z.next > 0 ? std::optional(z.next) : std::nullopt);
    w.field("next_cut", z.stop == Sizing::Stop::small_cut || z.stop == Sizing::Stop::cost
                            ? std::optional(round6(z.next_cut))
                            : std::nullopt);
    w.field("cut", round6(z.cut));
    w.field("description", describe_sizing(e, request.budget, language));
  });
  training_json(w, e);
  inference_json(w, e);
  w.object("cost_usd", [&] {
    optional_range(w, "rent_per_gpu_hour", e.cost.rent_usd_per_gpu_hour);
    w.field("price_basis", to_string(e.cost.price_basis));
    const auto& offer = e.cost.offer;
    w.object_or_null("offer", offer.has_value(), [&] {
      w.field("provider", offer->provider);
      w.field("location", offer->location);
      w.field("instance_type", offer->instance_type);
      w.field("gpus_per_instance", offer->gpus_per_instance);
      w.field("instances", offer->instances);
      w.field("paid_gpus", offer->paid_gpus);
      w.field("kind", to_string(offer->kind));
      w.field("per_gpu_hour", round6(offer->usd_per_gpu_hour));
      w.field("per_hour", round6(offer->usd_per_hour));
      w.field("date", offer->date);
      w.field("source", offer->source);
      w.field("origin", offer->origin);
    });
    w.field("spot", e.cost.spot);
    w.field("spot_missing", e.cost.spot_missing);
    w.field("lease_rates_only", e.cost.lease_rates_only);
    w.field("rent_quotes", e.cost.rent_quotes);
    const bool from_catalog = e.cost.price_basis == PriceBasis::catalog_quotes && e.cost.rent_usd_per_gpu_hour;
    w.field("rent_tier", from_catalog ? std::optional(to_string(e.cost.rent_tier)) : std::nullopt);
    w.field("rent_quotes_newest", from_catalog ? std::optional(e.cost.rent_newest) : std::nullopt);
    w.field("market_missing", e.cost.market_missing);
    w.field("quotes_too_old", e.cost.quotes_too_old);
    w.field("no_instance_for_gpus", e.cost.no_instance_for_gpus);
    optional_range(w, "rent", e.cost.rent_usd);
    w.field("rent_overhead",
            e.cost.rent_overhead_usd ? std::optional(round6(*e.cost.rent_overhead_usd)) : std::nullopt);
    w.field("rent_basis", e.training ? "whole run" : "per hour of serving");
    optional_range(w, "purchase", e.cost.purchase_usd);
    optional_range(w, "buy", e.cost.buy_usd);
    w.field("buy_basis", e.training ? "cost of ownership of the GPUs bought for the run's wall time"
                                    : "cost of ownership per month");
    w.field("energy", e.cost.energy_usd ? std::optional(round6(*e.cost.energy_usd)) : std::nullopt);
    optional_range(w, "per_million_tokens", e.cost.usd_per_million_tokens);
    ownership_json(w, e.cost);
  });
  cost_json(w, e, request);
  w.object("objective", [&] {  // what the plan is chosen on (docs/methodology.md "How a plan is chosen")
    w.field("kind", objective_kind_name(r.objective.kind));
    w.field("usd", r.objective.usd ? std::optional(round6(*r.objective.usd)) : std::nullopt);
    w.field("time", round6(r.objective.time));
    w.field("time_unit", r.estimate.training ? "hours" : "ms_per_token");
    w.field("vs_best", r.objective.vs_best ? std::optional(round6(*r.objective.vs_best)) : std::nullopt);
    w.field("plans_considered", r.plans_considered);
    w.object_or_null("assumed", r.objective.assumed.has_value(), [&] {
      w.field("usd_per_gpu_hour", round6(r.objective.assumed->usd_per_gpu_hour));
      w.field("usd", round6(r.objective.assumed->usd));
      w.field("rank", r.objective.assumed->rank);
    });
  });
  w.array("plans_tried", [&] {  // every candidate plan of the card, smallest first
    for (const PlanTried& t : r.tried) {
      w.begin_object();
      w.field("count", t.count);
      w.field("usd", t.usd ? std::optional(round6(*t.usd)) : std::nullopt);
      w.field("time", round6(t.time));
      w.field("kept", t.kept);
      w.field("taken", t.taken);
      w.field("removed", t.removed);
      w.end_object();
    }
  });
  w.array("constraints", [&] {  // the hard constraints it was checked against, all met
    for (const Constraint c : r.constraints) {
      w.string(to_string(c));
    }
  });
  w.array("rationale", [&] {
    for (const auto& sentence : gpu_advise::rationale(request, r, language)) {
      w.string(sentence.text);
    }
  });
  w.field("notes", notes(r, language));
  findings_json(w, r.findings, explain, language);
  w.end_object();
}

// `typical_of`: the quotes a quote's typical is taken from (the card's own,
// for a price file's quotes as for the catalog's).
void quotes_json(Writer& w, std::string_view name, const std::vector<PriceQuote>& list, bool purchase,
                 std::string_view since, const std::vector<PriceQuote>& typical_of) {
  w.array(name, [&] {
    for (const auto& q : list) {
      w.begin_object();
      w.field("low_usd", q.low_usd);
      w.field("high_usd", q.high_usd);
      w.field("provider", q.provider);
      w.object("quoted", [&] {
        w.field("currency", to_string(q.quoted_in));
        w.field("low", q.low_quoted);
        w.field("high", q.high_quoted);
      });
      if (purchase) {
        w.field("condition", to_string(q.condition));
      } else {
        w.field("kind", to_string(q.kind));
        w.field("tier", to_string(q.tier));
        w.field("term_months", q.term_months);
        w.field("recent", dated_since(q.date, since));
        w.field("over_twice_typical", over_twice_typical(q, typical_of, since));
        w.field("instance_type", q.instance_type);
        w.field("gpus_per_instance", q.gpus_per_instance);
        w.field("location", q.location);
        w.field("origin", q.origin);
      }
      w.field("region", to_string(q.region));
      w.field("date", q.date);
      w.field("source", q.source);
      w.end_object();
    }
  });
}

void gpu_full_json(Writer& w, const GpuSpec& g, std::string_view since) {
  w.begin_object();
  w.field("id", g.id);
  w.field("name", g.name);
  w.field("aliases", g.aliases);
  w.field("vendor", to_string(g.vendor));
  w.field("architecture", to_string(g.architecture));
  w.field("chip", g.chip);
  w.field("release_year", g.release_year);
  text_or_null(w, "launched", g.launched);
  w.field("form_factor", to_string(g.form_factor));
  w.object("memory", [&] {
    w.field("size_gb", g.memory.size_gb);
    w.field("capacity_gib", g.memory.capacity_gib);
    w.field("type", g.memory.type);
    w.field("bandwidth_gb_per_s", g.memory.bandwidth_gb_per_s);
  });
  w.object("compute", [&] {
    w.field("fp64_tflops", g.compute.fp64_tflops);
    w.field("tf32_tflops", g.compute.tf32_tflops);
    w.field("bf16_tflops", g.compute.has_bf16 ? std::optional(g.compute.bf16_tflops) : std::nullopt);
    w.field("fp16_tflops", g.compute.fp16_tflops);
    w.field("fp8_tflops", g.compute.fp8_tflops);
    w.field("fp4_tflops", g.compute.fp4_tflops);
    w.field("int8_tops", g.compute.int8_tops);
  });
  w.object("interconnect", [&] {
    w.field("name", g.interconnect.name);
    w.field("bandwidth_gb_per_s", g.interconnect.bandwidth_gb_per_s);
    w.field("domain_size", g.interconnect.domain_size);
  });
  w.object("node", [&] {
    w.field("gpus_per_node", g.node.gpus_per_node);
    w.field("scale_out_gbps_per_gpu", g.node.scale_out_gbps_per_gpu);
    w.field("scale_out_fabric", g.node.scale_out_fabric);
    w.field("rent_shapes", g.node.rent_shapes);
  });
  w.field("pcie_gen", g.pcie_gen);
  w.field("tdp_w", g.tdp_w);
  w.field("software", to_string(g.software));
  w.object("availability", [&] {
    for (const auto& entry : g.availability) {
      // Not a structured binding: clang 14 cannot capture one in a lambda.
      const Region region = entry.first;
      const Availability& a = entry.second;
      w.object(to_string(region), [&] {
        w.field("status", to_string(a.status));
        w.field("since", a.since);
        w.field("verified", a.verified);
        w.field("note", a.note);
        w.field("new_supply", to_string(a.new_supply));
        w.field("new_supply_since", a.new_supply_since);
        w.field("banned_since", a.banned_since);
        w.field("licensed_shipments_since", a.licensed_shipments_since);
        w.field("unconfirmed", a.unconfirmed);
        w.field("legal_stock", g.legal_stock_in(region));
        w.object_or_null("importer", a.importer.has_value(), [&] {
          w.field("stance", to_string(a.importer->stance));
          w.field("since", a.importer->since);
          w.field("verified", a.importer->verified);
          w.field("note", a.importer->note);
        });
      });
    }
  });
  w.object("prices", [&] {
    quotes_json(w, "rent_usd_per_gpu_hour", g.rent_usd_per_gpu_hour, false, since, g.rent_usd_per_gpu_hour);
    const auto rent = rent_price(g.rent_usd_per_gpu_hour, Region::global, std::nullopt, since);
    optional_range(w, "rent_usd_per_gpu_hour_range", rent ? std::optional<Range>(rent->range) : std::nullopt);
    w.field("quotes_since", since);
    w.object("rent_tiers", [&] {
      for (const Region region : {Region::global, Region::cn}) {
        const auto typical = rent_price(g.rent_usd_per_gpu_hour, region, std::nullopt, since);
        w.object(to_string(region), [&] {
          w.field("typical_tier", typical ? std::optional(to_string(typical->tier)) : std::nullopt);
          w.array("tiers", [&] {
            for (const RentPrice& tier : rent_tiers(g.rent_usd_per_gpu_hour, region, since)) {
              w.begin_object();
              w.field("tier", to_string(tier.tier));
              w.field("quotes", tier.quotes);
              optional_range(w, "usd_per_gpu_hour", tier.range);
              w.field("newest", tier.newest);
              w.end_object();
            }
          });
        });
      }
    });
    quotes_json(w, "purchase_usd_per_card", g.purchase_usd_per_card, true, since, g.purchase_usd_per_card);
    optional_range(w, "purchase_usd_per_card_range", price_range(g.purchase_usd_per_card, Region::global));
  });
  w.field("confidence", to_string(g.confidence));
  w.object("field_confidence", [&] {
    for (const auto& [path, level] : g.field_confidence) {
      w.field(path, to_string(level));
    }
  });
  w.field("sources", g.sources);
  w.field("notes", g.notes);
  w.end_object();
}

// A whole document: `body` writes the members of its top-level object.
// Invalid UTF-8 (only from a file name or other bytes the loaders do not
// check) is written as U+FFFD, so rendering never throws.
template <typename Body>
std::string document(JsonStyle style, Body&& body, std::size_t reserve = 4096) {
  std::string out;
  out.reserve(reserve);
  Writer w(out, style == JsonStyle::pretty);
  w.begin_object();
  w.field("schema_version", json_schema_version);
  body(w);
  w.end_object();
  out += '\n';
  return out;
}

void way_out_json(Writer& w, const WayOut& way, const Request& request, Language language) {
  w.begin_object();
  w.field("kind", way.task != request.task ? "lighter_task" : !way.drops.empty() ? "relax" : "lever");
  w.field("task", to_string(way.task));
  w.object("gpu", [&] {
    w.field("id", way.gpu_id);
    w.field("name", way.gpu_name);
  });
  w.field("count", way.count);
  w.field("rent_usd_per_hour", way.rent_usd_per_hour);
  w.field("run_usd", way.run_usd);
  w.field("drops", way.drops);
  w.field("sets", way.sets);
  w.array("changes", [&] {
    for (const auto& c : way.changes) {
      w.begin_object();
      w.field("lever", c.lever);
      w.field("from", c.from);
      text_or_null(w, "to", c.to);
      w.end_object();
    }
  });
  w.field("wall_hours", way.wall_hours);
  w.field("message", describe(way, request, language));
  w.end_object();
}

void neighbour_json(Writer& w, std::string_view name, const std::optional<Report::Neighbour>& n) {
  w.object_or_null(name, n.has_value(), [&] {
    w.field("gpu_name", n->gpu_name);
    w.field("count", n->count);
    w.field("kind", objective_kind_name(n->kind));
    w.field("usd", round6(n->usd));
    w.field("time", round6(n->time));
    w.field("vs_best_usd", round6(n->vs_best_usd));
    w.field("vs_best_time", round6(n->vs_best_time));
  });
}

}  // namespace

std::string render_batch_error(std::size_t line, const std::string& message) {
  return document(
      JsonStyle::line,
      [&](Writer& w) {
        w.field("line", line);
        w.field("status", 2);
        w.field("error", message);
      },
      256);
}

std::string render_json(const Report& report, Language language, JsonStyle style) {
  const Request& request = report.request;
  // About 5 KB a card listed: one allocation for most documents.
  const std::size_t reserve = 8192 + 5120 * (report.recommendations.size() + report.rejected.size() / 4);
  return document(
      style,
      [&](Writer& w) {
        if (report.batch_line) {
          w.field("line", *report.batch_line);
        }
        w.object("tool", [&] {
          w.field("name", "gpu-advise");
          w.field("version", report.tool_version);
        });
        w.field("language", to_string(language));
        catalog_json(w, report.catalog);
        request_json(w, request);
        w.key("model");
        w.begin_object();
        model_members(w, report.model);
        w.end_object();
        w.field("outcome", report.anything_fits() ? "recommended" : "nothing_fits");
        w.array("recommendations", [&] {
          for (const auto& r : report.recommendations) {
            recommendation_json(w, r, request, language);
          }
        });
        w.field("omitted", report.omitted);
        w.array("rejected", [&] {
          for (const auto& r : report.rejected) {
            w.begin_object();
            gpu_ref(w, r.gpu);
            w.array("reasons", [&] {
              for (const auto& reason : r.reasons) {
                reason_json(w, reason, request, language);
              }
            });
            findings_json(w, r.findings, request.explain, language);
            w.end_object();
          }
        });
        w.array("ways_out", [&] {
          for (const auto& way : report.ways_out) {
            way_out_json(w, way, request, language);
          }
        });
        w.field("best_priced", report.best_priced);
        w.object("neighbours", [&] {
          neighbour_json(w, "cheapest", report.cheapest);
          neighbour_json(w, "faster", report.faster);
        });
        w.field("larger_plans", report.larger_plans);
        w.array("frontier", [&] {
          for (const auto& n : report.frontier) {
            w.begin_object();
            w.field("gpu_name", n.gpu_name);
            w.field("count", n.count);
            w.field("kind", objective_kind_name(n.kind));
            w.field("usd", round6(n.usd));
            w.field("time", round6(n.time));
            w.field("vs_best_usd", round6(n.vs_best_usd));
            w.field("vs_best_time", round6(n.vs_best_time));
            w.end_object();
          }
        });
        w.object_or_null("heavier_task", report.heavier_task.has_value(), [&] {
          const auto& h = *report.heavier_task;
          w.field("task", to_string(h.task));
          w.field("gpu_name", h.gpu_name);
          w.field("count", h.count);
          w.field("usd", round6(h.usd));
          w.field("wall_hours", round6(h.time));
        });
        w.field("assumptions", assumptions(request, report.model, best_of(report), language));
        w.array("warnings", [&] {
          for (const auto& rule : report.unmatched_rules) {
            w.string(describe(rule, language));
          }
        });
      },
      reserve);
}

std::string render_json_compact(const Report& report, Language language, JsonStyle style) {
  const Request& request = report.request;
  return document(
      style,
      [&](Writer& w) {
        if (report.batch_line) {
          w.field("line", *report.batch_line);
        }
        w.field("compact", true);
        w.field("language", to_string(language));
        w.field("catalog_version", report.catalog.version);
        w.object("request", [&] {
          text_or_null(w, "model", request.model_id);
          w.field("params", request.params);
          w.field("active_params", request.active_params);
          w.field("task", to_string(request.task));
          w.field("budget", to_string(request.budget));
          w.field("budget_usd", request.budget_usd);
          w.field("region", to_string(request.region));
          w.field("mode", to_string(request.mode));
        });
        w.field("outcome", report.anything_fits() ? "recommended" : "nothing_fits");
        const Recommendation* top = report.recommendations.empty() ? nullptr : &report.recommendations.front();
        w.object_or_null("top", top != nullptr, [&] {
          const Estimate& e = top->estimate;
          gpu_ref(w, top->gpu);
          w.field("count", e.count);
          w.field("nodes", e.nodes);
          w.object("layout", [&] {
            w.field("tensor_parallel", e.layout.tensor);
            w.field("pipeline_parallel", e.layout.pipeline);
            w.field("data_parallel", e.layout.data);
            w.field("expert_parallel", e.layout.expert);
            w.field("context_parallel", e.layout.context);
            w.field("zero_stage", is_training_layout(e) ? std::optional(e.layout.zero_stage) : std::nullopt);
          });
          w.field("memory_per_gpu_gb", gb(e.per_gpu.total()));
          w.field("headroom", round6(e.headroom()));
          w.object_or_null("training", e.training.has_value(), [&] {
            range_field(w, "wall_hours", e.training->wall_hours);
            range_field(w, "gpu_hours", e.training->gpu_hours);
            range_field(w, "tokens_per_s_per_gpu", e.training->tokens_per_s_per_gpu);
            range_field(w, "mfu", e.training->mfu);
          });
          w.object_or_null("inference", e.inference.has_value(), [&] {
            w.field("concurrency", e.inference->concurrency);
            w.field("replicas", e.inference->replicas);
            range_field(w, "tokens_per_s", e.inference->tokens_per_s);
            range_field(w, "ttft_ms", e.inference->ttft_ms);
            range_field(w, "tpot_ms", e.inference->tpot_ms);
          });
          cost_json(w, e, request);
          w.object_or_null("offer", e.cost.offer.has_value(), [&] {  // a price file's: where it is rented
            w.field("provider", e.cost.offer->provider);
            w.field("location", e.cost.offer->location);
            w.field("instance_type", e.cost.offer->instance_type);
            w.field("instances", e.cost.offer->instances);
            w.field("kind", to_string(e.cost.offer->kind));
          });
          w.field("objective_usd", top->objective.usd ? std::optional(round6(*top->objective.usd)) : std::nullopt);
        });
        w.field("alternatives", report.recommendations.size() + report.omitted - (top != nullptr ? 1 : 0));
        w.field("rejected", report.rejected.size());
        w.field("ways_out", report.ways_out.size());
      },
      1024);
}

std::string render_catalog_list_json(const Catalog& catalog) {
  return document(
      JsonStyle::pretty,
      [&](Writer& w) {
        catalog_json(w, catalog.info());
        const std::string since = months_before(catalog.info().updated, 12);
        w.array("gpus", [&] {
          for (const auto& gpu : catalog.gpus()) {
            gpu_full_json(w, gpu, since);
          }
        });
      },
      1 << 18);
}

std::string render_models_json(const ModelCatalog& models) {
  return document(
      JsonStyle::pretty,
      [&](Writer& w) {
        w.array("models", [&] {
          for (const auto& m : models.models()) {
            w.begin_object();
            model_members(w, m);
            w.field("aliases", m.aliases);
            w.field("sources", m.sources);
            w.end_object();
          }
        });
      },
      1 << 16);
}

std::string render_gpu_json(const GpuSpec& gpu, const CatalogInfo& info, const std::vector<PriceQuote>& imported) {
  const std::string since = months_before(info.updated, 12);
  return document(JsonStyle::pretty, [&](Writer& w) {
    w.key("gpu");
    gpu_full_json(w, gpu, since);
    quotes_json(w, "price_file_quotes", imported, false, since, gpu.rent_usd_per_gpu_hour);
  });
}

std::string render_calibration_json(std::span<const Calibration> calibrations) {
  return document(JsonStyle::pretty, [&](Writer& w) {
    w.field("kind", "calibration");
    w.array("calibrations", [&] {
      for (const auto& c : calibrations) {
        calibration_json(w, c, true);
      }
    });
  });
}

std::string render_prices_json(const PriceBook& book) {
  return document(JsonStyle::pretty, [&](Writer& w) {
    w.field("kind", "prices");
    w.array("files", [&] {
      for (const auto& f : book.files) {
        w.begin_object();
        w.field("file", f.file);
        w.field("format", to_string(f.format));
        w.field("provider", f.provider);
        w.field("date", f.date);
        w.field("rows", f.rows);
        w.field("quotes", f.quotes);
        w.array("cards", [&] {
          for (const auto& card : f.cards) {
            w.begin_object();
            w.field("id", card.gpu_id);
            w.field("quotes", card.quotes);
            w.field("low_usd_per_gpu_hour", round6(card.low_usd));
            w.field("high_usd_per_gpu_hour", round6(card.high_usd));
            w.field("over_twice_typical", card.over_twice_typical);
            w.field("flagged_usd_per_gpu_hour",
                    card.over_twice_typical ? std::optional(round6(card.flagged_usd)) : std::nullopt);
            w.field("flagged_market",
                    card.over_twice_typical ? std::optional(to_string(card.flagged_region)) : std::nullopt);
            w.field("catalog_typical_usd_per_gpu_hour",
                    card.over_twice_typical ? std::optional(round6(card.catalog_typical_usd)) : std::nullopt);
            w.field("shapes", card.shapes);
            w.field("names", card.names);
            w.field("more_names", card.more_names);
            w.end_object();
          }
        });
        w.array("unknown", [&] {
          for (const auto& unknown : f.unknown) {
            w.begin_object();
            w.field("name", unknown.name);
            w.field("rows", unknown.rows);
            w.end_object();
          }
        });
        w.field("unknown_names", f.unknown_names);
        w.field("unknown_rows", f.unknown_rows);
        w.field("cpu_rows", f.cpu_rows);
        w.field("fractional_rows", f.fractional_rows);
        w.field("unpriced_rows", f.unpriced_rows);
        w.end_object();
      }
    });
  });
}

std::string render_fit_json(const FitReport& report, Language language) {
  return document(JsonStyle::pretty, [&](Writer& w) {
    w.field("kind", "fit");
    w.object("tool", [&] {
      w.field("name", "gpu-advise");
      w.field("version", report.tool_version);
    });
    w.field("language", to_string(language));
    catalog_json(w, report.catalog);
    w.field("outcome", report.anything_fits() ? "fits" : "nothing_fits");
    w.array("tasks", [&] {
      for (const auto& task : report.request.tasks) {
        w.string(to_string(task.task));
      }
    });
    w.field("models_skipped", report.request.models_skipped);
    const auto request_of = [&](Task task) -> const Request& {
      for (const auto& r : report.request.tasks) {
        if (r.task == task) {
          return r;
        }
      }
      return report.request.tasks.front();
    };
    w.array("fleets", [&] {
      for (const auto& fleet : report.fleets) {
        w.begin_object();
        gpu_ref(w, fleet.gpu);
        w.field("count", fleet.fleet.count);
        w.array("rows", [&] {
          for (const auto& row : fleet.rows) {
            const Request& request = request_of(row.task);
            w.begin_object();
            w.key("model");
            w.begin_object();
            model_members(w, row.model);
            w.end_object();
            w.field("task", to_string(row.task));
            w.field("fits", row.plan.has_value());
            w.field("copies", row.copies);
            w.field("fleet_tokens_per_s", round6(row.fleet_tokens_per_s));
            w.key("plan");
            if (row.plan) {
              recommendation_json(w, *row.plan, request, language);
            } else {
              w.null();
            }
            w.array("reasons", [&] {
              if (row.rejection) {
                for (const auto& reason : row.rejection->reasons) {
                  reason_json(w, reason, request, language);
                }
              }
            });
            w.end_object();
          }
        });
        w.array("largest", [&] {
          for (const auto& largest : fleet.largest) {
            w.begin_object();
            w.field("task", to_string(largest.task));
            w.field("params", largest.params > 0 ? std::optional<double>(largest.params) : std::nullopt);
            w.field("params_text", largest.params > 0 ? format_parameter_count(largest.params) : std::string());
            w.field("at_sweep_limit", largest.params >= fit_sweep_max_params);
            w.end_object();
          }
        });
        w.end_object();
      }
    });
    configured_json(w, report.request.tasks.front().configured);
  });
}

}  // namespace gpu_advise
