// The JSON contract CI users read (docs/json.md). Written by explicit
// functions, never by macros on domain types. Keys are snake_case with units.
#include <cmath>

#include <nlohmann/json.hpp>

#include "gpu_advise/render.hpp"
#include "gpu_advise/units.hpp"
#include "gpu_advise/words.hpp"

namespace gpu_advise {

namespace {

using nlohmann::json;
using ordered = nlohmann::ordered_json;

// Six significant digits: enough for any decision, stable across builds.
double round6(double value) {
  if (value == 0 || !std::isfinite(value)) {
    return value;
  }
  const double magnitude = std::pow(10.0, 5 - static_cast<int>(std::floor(std::log10(std::abs(value)))));
  return std::round(value * magnitude) / magnitude;
}

double gb(double bytes) { return round6(bytes / bytes_per_gb); }

ordered range_json(const Range& r) {
  return ordered{{"low", round6(r.low)}, {"typical", round6(r.typical)}, {"high", round6(r.high)}};
}

// One optimizer step at the typical efficiency: seconds and where they go.
ordered step_json(const TrainingStep& s) {
  return ordered{{"seconds", round6(s.seconds())},
                 {"compute_s", round6(s.compute)},
                 {"model_parallel_s", round6(s.tensor)},
                 {"pipeline_bubble_s", round6(s.bubble)},
                 {"data_parallel_s", round6(s.data)},
                 {"offload_s", round6(s.offload)},
                 {"micro_batches", s.micro_batches},
                 {"interleave", s.interleave},
                 {"tokens", s.tokens}};
}

ordered optional_range(const std::optional<Range>& r) { return r ? range_json(*r) : ordered(nullptr); }

ordered exchange_rate_json(const ExchangeRate& rate) {
  if (rate.cny_per_usd <= 0) {
    return nullptr;
  }
  return ordered{{"cny_per_usd", rate.cny_per_usd}, {"date", rate.date}, {"source", rate.source}};
}

ordered gpu_ref(const GpuSpec& gpu) {
  return ordered{
      {"id", gpu.id}, {"name", gpu.name}, {"vendor", to_string(gpu.vendor)}, {"confidence", to_string(gpu.confidence)}};
}

template <typename T>
ordered optional_value(const std::optional<T>& value) {
  return value ? ordered(*value) : ordered(nullptr);
}

ordered request_json(const Request& r) {
  ordered out;
  out["params"] = r.params;
  out["params_text"] = format_parameter_count(r.params);
  out["active_params"] = optional_value(r.active_params);
  out["model"] = r.model_id.empty() ? ordered(nullptr) : ordered(r.model_id);
  out["model_config"] = r.model_config.empty() ? ordered(nullptr) : ordered(r.model_config);
  out["task"] = to_string(r.task);
  out["budget"] = to_string(r.budget);
  out["budget_usd"] = optional_value(r.budget_usd);
  out["region"] = to_string(r.region);
  out["explain"] = r.explain;
  out["gpus"] = r.gpu_ids;
  out["compare"] = r.compare;
  out["count"] = optional_value(r.count);
  out["top"] = optional_value(r.top);
  out["max_gpus"] = r.max_gpus;
  out["mode"] = to_string(r.mode);
  out["currency"] = to_string(r.currency);
  ordered prices = ordered::array();
  for (const auto& p : r.prices) {
    prices.push_back(ordered{{"gpu", p.gpu_id}, {"usd_per_gpu_hour", p.usd_per_gpu_hour}});
  }
  out["prices"] = prices;
  if (is_training(r.task)) {
    out["seq_len"] = r.seq_len;
    out["micro_batch"] = r.micro_batch;
    out["global_batch"] = optional_value(r.global_batch);
    out["zero_stage"] = optional_value(r.zero_stage);
    out["recompute"] = to_string(r.effective_recompute());
    out["training_tokens"] = r.training_tokens();
    out["epochs"] = r.epochs;
    out["fp8"] = r.fp8_training;
    out["deadline_hours"] = optional_value(r.deadline_hours);
    out["optimizer"] = to_string(r.optimizer);
    out["offload"] = to_string(r.offload);
    out["loss"] = to_string(r.effective_loss());
    out["optimizer_in_backward"] = r.optimizer_in_backward;
    out["goodput"] = r.goodput;
    if (r.task == Task::lora || r.task == Task::qlora) {
      out["lora_rank"] = r.lora_rank;
      std::vector<std::string> targets;
      for (const auto target : r.lora_targets) {
        targets.emplace_back(to_string(target));
      }
      out["lora_targets"] = targets;
    }
  } else {
    out["precision"] = to_string(r.precision);
    out["kv_precision"] = to_string(r.kv_precision);
    out["context"] = r.context;
    out["prompt_tokens"] = r.prompt_tokens();
    out["output_tokens"] = r.effective_output_tokens();
    out["concurrency"] = optional_value(r.concurrency);
    out["max_batch"] = r.max_batch;
    out["max_batched_tokens"] = r.max_batched_tokens;
    out["tpot_ms"] = ordered{{"target", optional_value(r.tpot_target_ms)}, {"stated", r.tpot_stated}};
    out["ttft_ms"] = ordered{{"target", optional_value(r.ttft_target_ms)}, {"stated", r.ttft_stated}};
    out["request_rate"] = optional_value(r.request_rate);
  }
  if (r.mode == CostMode::buy) {
    out["ownership"] = ordered{{"amortisation_years", r.ownership.amortisation_years},
                               {"pue", r.ownership.pue},
                               {"usd_per_kwh", r.ownership.usd_per_kwh},
                               {"utilisation", r.ownership.utilisation}};
  }
  return out;
}

std::string_view source_name(ModelSource source) {
  switch (source) {
    case ModelSource::inferred: return "inferred";
    case ModelSource::preset: return "preset";
    case ModelSource::config_json: return "config_json";
  }
  return "?";
}

ordered model_json(const ModelShape& m) {
  ordered out{{"id", m.id.empty() ? ordered(nullptr) : ordered(m.id)},
              {"name", m.name},
              {"source", source_name(m.source)},
              {"basis", m.basis},
              {"inferred", m.inferred},
              {"params", m.params},
              {"active_params", m.active_params},
              {"layers", m.layers},
              {"hidden", m.hidden},
              {"heads", m.heads},
              {"kv_heads", m.kv_heads},
              {"head_dim", m.head_dim},
              {"ffn", m.ffn},
              {"vocab", m.vocab},
              {"tied_embeddings", m.tied_embeddings},
              {"max_context", m.max_context > 0 ? ordered(m.max_context) : ordered(nullptr)}};
  out["moe"] = m.moe ? ordered{{"experts", m.moe->experts},
                               {"experts_per_token", m.moe->experts_per_token},
                               {"expert_ffn", m.moe->expert_ffn},
                               {"shared_experts", m.moe->shared_experts},
                               {"dense_layers", m.moe->dense_layers}}
                     : ordered(nullptr);
  out["mla"] = m.mla ? ordered{{"kv_lora_rank", m.mla->kv_lora_rank},
                               {"q_lora_rank", m.mla->q_lora_rank},
                               {"qk_rope_head_dim", m.mla->qk_rope_head_dim},
                               {"qk_nope_head_dim", m.mla->qk_nope_head_dim},
                               {"v_head_dim", m.mla->v_head_dim}}
                     : ordered(nullptr);
  out["sliding_window"] = m.sliding_window
                              ? ordered{{"size", m.sliding_window->size}, {"layers", m.sliding_window->layers}}
                              : ordered(nullptr);
  return out;
}

bool is_training_layout(const Estimate& e) { return e.training.has_value(); }

ordered findings_json(const std::vector<Finding>& findings, bool all, Language language) {
  ordered out = ordered::array();
  for (const auto& f : findings) {
    if (!f.fired && !all) {
      continue;
    }
    ordered item{{"id", f.rule_id}, {"effect", to_string(f.effect)}, {"points", f.points}, {"fired", f.fired}};
    item["message"] = f.fired ? ordered(f.message_in(language)) : ordered(nullptr);
    out.push_back(item);
  }
  return out;
}

// A rejection reason for scripts: its kind and numbers beside the sentence.
ordered reason_json(const RejectReason& reason, const Request& request, Language language) {
  struct Facts {
    ordered operator()(const Shortfall& why) const {
      auto gib = [](double value) { return round6(gib_to_gb(value)); };
      switch (why.kind) {
        case Shortfall::Kind::deadline:
          return ordered{{"kind", "deadline"},
                         {"deadline_hours", round6(why.deadline_hours)},
                         {"count", why.count},
                         {"hours_at_count", round6(why.hours_at_count)},
                         {"max_gpus", why.max_gpus}};
        case Shortfall::Kind::latency:
          return ordered{{"kind", "latency"},
                         {"target", why.latency_tpot ? "tpot" : "ttft"},
                         {"target_ms", round6(why.target_ms)},
                         {"best_ms", round6(why.best_ms)},
                         {"count", why.count},
                         {"max_gpus", why.max_gpus}};
        case Shortfall::Kind::rate:
          return ordered{{"kind", "rate"},
                         {"request_rate", round6(why.request_rate)},
                         {"requests_per_s", round6(why.requests_per_s)},
                         {"count", why.count},
                         {"max_gpus", why.max_gpus}};
        case Shortfall::Kind::too_many_gpus:
          return ordered{{"kind", "max_gpus"},
                         {"max_gpus", why.max_gpus},
                         {"count", why.count},
                         {"needed_gb", gib(why.need_gib)},
                         {"usable_gb", gib(why.usable_gib)}};
        case Shortfall::Kind::no_shape:
          return ordered{{"kind", "max_gpus"}, {"max_gpus", why.max_gpus}, {"smallest_offered", why.count}};
        case Shortfall::Kind::no_fp8: return ordered{{"kind", "precision"}};
        case Shortfall::Kind::activations:
          return ordered{{"kind", "memory"}, {"needed_gb", gib(why.fixed_gib)}, {"usable_gb", gib(why.usable_gib)}};
        case Shortfall::Kind::count_too_small:
        case Shortfall::Kind::none: break;
      }
      return ordered{{"kind", "memory"},
                     {"count", why.count},
                     {"needed_gb", gib(why.need_gib)},
                     {"usable_gb", gib(why.usable_gib)}};
    }
    ordered operator()(const NotSelected&) const { return ordered{{"kind", "not_selected"}}; }
    ordered operator()(const RuleRejection& rule) const { return ordered{{"kind", "rule"}, {"rule_id", rule.rule_id}}; }
    ordered operator()(const NoPriceForBudget& budget) const {
      return ordered{{"kind", "budget"}, {"cost_usd", nullptr}, {"cap_usd", round6(budget.budget_usd)}};
    }
    ordered operator()(const OverBudget& over) const {
      const char* basis = over.cost == OverBudget::Cost::cards ? "cards"
                          : over.cost == OverBudget::Cost::run ? "run"
                                                               : "month";
      return ordered{{"kind", "budget"},
                     {"cost_usd", round6(over.cost_usd)},
                     {"cap_usd", round6(over.budget_usd)},
                     {"basis", basis}};
    }
  };
  ordered out = std::visit(Facts{}, reason);
  out["message"] = describe(reason, request, language);
  return out;
}

ordered recommendation_json(const Recommendation& r, const Request& request, Language language) {
  const bool explain = request.explain;
  const Estimate& e = r.estimate;
  ordered out;
  out["rank"] = r.rank;
  out["gpu"] = gpu_ref(r.gpu);
  out["count"] = e.count;
  out["nodes"] = e.nodes;
  out["layout"] = ordered{{"tensor_parallel", e.layout.tensor},
                          {"pipeline_parallel", e.layout.pipeline},
                          {"data_parallel", e.layout.data},
                          {"expert_parallel", e.layout.expert},
                          {"context_parallel", e.layout.context},
                          {"zero_stage", is_training_layout(e) ? ordered(e.layout.zero_stage) : ordered(nullptr)},
                          {"description", describe(e.layout, request.task, language)}};
  out["memory_gb"] = ordered{{"per_gpu", gb(e.per_gpu.total())},
                             {"capacity_per_gpu", gb(e.capacity_bytes)},
                             {"usable_per_gpu", gb(e.usable_bytes)},
                             {"host_per_gpu", gb(e.per_gpu.host)},
                             {"host_per_server", gb(e.host_bytes_per_server)},
                             {"breakdown", ordered{{"weights", gb(e.per_gpu.weights)},
                                                   {"gradients", gb(e.per_gpu.gradients)},
                                                   {"optimizer", gb(e.per_gpu.optimizer)},
                                                   {"activations", gb(e.per_gpu.activations)},
                                                   {"kv_cache", gb(e.per_gpu.kv_cache)},
                                                   {"reserve", gb(e.per_gpu.reserve)}}}};
  out["headroom"] = round6(e.headroom());
  out["tight"] = e.tight();
  const Sizing& z = e.sizing;
  out["sizing"] = ordered{
      {"needed", z.needed},
      {"smallest_offered", z.smallest},
      {"stop", to_string(z.stop)},
      {"next", z.next > 0 ? ordered(z.next) : ordered(nullptr)},
      {"next_cut", z.stop == Sizing::Stop::small_cut || z.stop == Sizing::Stop::cost ? ordered(round6(z.next_cut))
                                                                                     : ordered(nullptr)},
      {"cut", round6(z.cut)},
      {"description", describe_sizing(e, request.budget, language)}};
  if (e.training) {
    const auto& t = *e.training;
    out["training"] = ordered{{"tokens", t.tokens},
                              {"flops", round6(t.flops)},
                              {"precision", t.fp8 ? "fp8" : "bf16"},
                              {"peak_tflops", t.peak_tflops},
                              {"hardware_flops", round6(t.hardware_flops)},
                              {"mfu", range_json(t.mfu)},
                              {"tokens_per_s_per_gpu", range_json(t.tokens_per_s_per_gpu)},
                              {"step", step_json(t.step)},
                              {"gpu_hours", range_json(t.gpu_hours)},
                              {"wall_hours", range_json(t.wall_hours)},
                              {"goodput", t.goodput},
                              {"offload_hours", range_json(t.offload_hours)}};
  } else {
    out["training"] = nullptr;
  }
  if (e.inference) {
    const auto& inf = *e.inference;
    out["inference"] = ordered{{"operating_point", to_string(inf.point)},
                               {"concurrency", inf.concurrency},
                               {"replicas", inf.replicas},
                               {"context", inf.context},
                               {"prompt_tokens", inf.prompt_tokens},
                               {"output_tokens", inf.output_tokens},
                               {"tpot_target_ms", optional_value(inf.tpot_target_ms)},
                               {"ttft_target_ms", optional_value(inf.ttft_target_ms)},
                               {"request_rate", optional_value(inf.request_rate)},
                               {"tokens_per_s", range_json(inf.tokens_per_s)},
                               {"user_tokens_per_s", range_json(inf.user_tokens_per_s)},
                               {"requests_per_s", range_json(inf.requests_per_s)},
                               {"ttft_ms", range_json(inf.ttft_ms)},
                               {"tpot_ms", range_json(inf.tpot_ms)},
                               {"min_tpot_ms", round6(inf.min_tpot_ms)},
                               {"max_concurrency", inf.max_concurrency},
                               {"max_concurrency_limit", to_string(inf.max_limit)},
                               {"max_tokens_per_s", range_json(inf.max_tokens_per_s)}};
  } else {
    out["inference"] = nullptr;
  }
  out["cost_usd"] = ordered{
      {"rent_per_gpu_hour", optional_range(e.cost.rent_usd_per_gpu_hour)},
      {"price_basis", to_string(e.cost.price_basis)},
      {"lease_rates_only", e.cost.lease_rates_only},
      {"rent", optional_range(e.cost.rent_usd)},
      {"rent_basis", e.training ? "whole run" : "per hour of serving"},
      {"purchase", optional_range(e.cost.purchase_usd)},
      {"buy", optional_range(e.cost.buy_usd)},
      {"buy_basis", e.training ? "amortised cards and power for the run" : "amortised cards and power per month"},
      {"energy", e.cost.energy_usd ? ordered(round6(*e.cost.energy_usd)) : ordered(nullptr)},
      {"per_million_tokens", optional_range(e.cost.usd_per_million_tokens)}};
  // The same figures in the request's currency (cost_usd stays in USD).
  const double per_usd = request.currency == Currency::cny && request.exchange_rate.cny_per_usd > 0
                             ? request.exchange_rate.cny_per_usd
                             : 1.0;
  auto in_currency = [per_usd](const std::optional<Range>& range) {
    return range ? range_json(Range{range->low * per_usd, range->typical * per_usd, range->high * per_usd})
                 : ordered(nullptr);
  };
  out["cost"] =
      ordered{{"currency", request.currency == Currency::cny && request.exchange_rate.cny_per_usd > 0 ? "cny" : "usd"},
              {"rent_per_gpu_hour", in_currency(e.cost.rent_usd_per_gpu_hour)},
              {"rent", in_currency(e.cost.rent_usd)},
              {"purchase", in_currency(e.cost.purchase_usd)},
              {"buy", in_currency(e.cost.buy_usd)},
              {"energy", e.cost.energy_usd ? ordered(round6(*e.cost.energy_usd * per_usd)) : ordered(nullptr)},
              {"per_million_tokens", in_currency(e.cost.usd_per_million_tokens)}};
  out["score"] = ordered{{"total", round6(r.score.total)},
                         {"cost", round6(r.score.cost)},
                         {"speed", round6(r.score.speed)},
                         {"headroom", round6(r.score.headroom)},
                         {"ecosystem", round6(r.score.risk)},
                         {"rules", r.score.rules},
                         {"cost_known", r.score.cost_known},
                         {"weights", ordered{{"cost", r.score.cost_weight},
                                             {"speed", r.score.speed_weight},
                                             {"headroom", r.score.headroom_weight},
                                             {"ecosystem", r.score.risk_weight}}}};
  ordered rationale = ordered::array();
  for (const auto& sentence : gpu_advise::rationale(request, r, language)) {
    rationale.push_back(sentence.text);
  }
  out["rationale"] = rationale;
  out["notes"] = notes(r, language);
  out["rules"] = findings_json(r.findings, explain, language);
  return out;
}

ordered gpu_full_json(const GpuSpec& g) {
  ordered out;
  out["id"] = g.id;
  out["name"] = g.name;
  out["aliases"] = g.aliases;
  out["vendor"] = to_string(g.vendor);
  out["architecture"] = to_string(g.architecture);
  out["chip"] = g.chip;
  out["release_year"] = g.release_year;
  out["launched"] = g.launched.empty() ? ordered(nullptr) : ordered(g.launched);
  out["form_factor"] = to_string(g.form_factor);
  out["memory"] = ordered{{"size_gb", g.memory.size_gb},
                          {"capacity_gib", g.memory.capacity_gib},
                          {"type", g.memory.type},
                          {"bandwidth_gb_per_s", g.memory.bandwidth_gb_per_s}};
  out["compute"] = ordered{{"fp64_tflops", optional_value(g.compute.fp64_tflops)},
                           {"tf32_tflops", optional_value(g.compute.tf32_tflops)},
                           {"bf16_tflops", g.compute.has_bf16 ? ordered(g.compute.bf16_tflops) : ordered(nullptr)},
                           {"fp16_tflops", optional_value(g.compute.fp16_tflops)},
                           {"fp8_tflops", optional_value(g.compute.fp8_tflops)},
                           {"fp4_tflops", optional_value(g.compute.fp4_tflops)},
                           {"int8_tops", optional_value(g.compute.int8_tops)}};
  out["interconnect"] = ordered{{"name", g.interconnect.name},
                                {"bandwidth_gb_per_s", g.interconnect.bandwidth_gb_per_s},
                                {"domain_size", g.interconnect.domain_size}};
  out["node"] = ordered{{"gpus_per_node", g.node.gpus_per_node},
                        {"scale_out_gbps_per_gpu", g.node.scale_out_gbps_per_gpu},
                        {"scale_out_fabric", g.node.scale_out_fabric},
                        {"rent_shapes", g.node.rent_shapes}};
  out["pcie_gen"] = optional_value(g.pcie_gen);
  out["tdp_w"] = optional_value(g.tdp_w);
  out["software"] = to_string(g.software);
  ordered availability = ordered::object();
  for (const auto& [region, a] : g.availability) {
    ordered entry{{"status", to_string(a.status)},
                  {"since", a.since},
                  {"verified", a.verified},
                  {"note", a.note},
                  {"new_supply", to_string(a.new_supply)},
                  {"new_supply_since", a.new_supply_since},
                  {"banned_since", a.banned_since},
                  {"licensed_shipments_since", a.licensed_shipments_since},
                  {"legal_stock", g.legal_stock_in(region)}};
    entry["importer"] = a.importer ? ordered{{"stance", to_string(a.importer->stance)},
                                             {"since", a.importer->since},
                                             {"verified", a.importer->verified},
                                             {"note", a.importer->note}}
                                   : ordered(nullptr);
    availability[std::string(to_string(region))] = entry;
  }
  out["availability"] = availability;
  auto quotes = [](const std::vector<PriceQuote>& list, bool purchase) {
    ordered array = ordered::array();
    for (const auto& q : list) {
      ordered item{{"low_usd", q.low_usd}, {"high_usd", q.high_usd}, {"provider", q.provider}};
      item["quoted"] = ordered{{"currency", to_string(q.quoted_in)}, {"low", q.low_quoted}, {"high", q.high_quoted}};
      if (purchase) {
        item["condition"] = to_string(q.condition);
      } else {
        item["kind"] = to_string(q.kind);
      }
      item["region"] = to_string(q.region);
      item["date"] = q.date;
      item["source"] = q.source;
      array.push_back(item);
    }
    return array;
  };
  out["prices"] =
      ordered{{"rent_usd_per_gpu_hour", quotes(g.rent_usd_per_gpu_hour, false)},
              {"rent_usd_per_gpu_hour_range", optional_range(price_range(g.rent_usd_per_gpu_hour, Region::global))},
              {"purchase_usd_per_card", quotes(g.purchase_usd_per_card, true)},
              {"purchase_usd_per_card_range", optional_range(price_range(g.purchase_usd_per_card, Region::global))}};
  out["confidence"] = to_string(g.confidence);
  ordered fields = ordered::object();
  for (const auto& [path, level] : g.field_confidence) {
    fields[path] = to_string(level);
  }
  out["field_confidence"] = fields;
  out["sources"] = g.sources;
  out["notes"] = g.notes;
  return out;
}

// Invalid UTF-8 can only come from a file name or other bytes the loaders do
// not check; it is written as U+FFFD, so rendering never throws.
std::string dump(const ordered& document, JsonStyle style = JsonStyle::pretty) {
  return document.dump(style == JsonStyle::line ? -1 : 2, ' ', false, ordered::error_handler_t::replace) + "\n";
}

}  // namespace

std::string render_batch_error(std::size_t line, const std::string& message) {
  return dump(ordered{{"schema_version", json_schema_version}, {"line", line}, {"status", 2}, {"error", message}},
              JsonStyle::line);
}

std::string render_json(const Report& report, Language language, JsonStyle style) {
  ordered out;
  out["schema_version"] = json_schema_version;
  if (report.batch_line) {
    out["line"] = *report.batch_line;
  }
  out["tool"] = ordered{{"name", "gpu-advise"}, {"version", report.tool_version}};
  out["language"] = to_string(language);
  out["catalog"] = ordered{{"version", report.catalog.version},
                           {"updated", report.catalog.updated},
                           {"exchange_rate", exchange_rate_json(report.catalog.exchange_rate)}};
  out["request"] = request_json(report.request);
  out["model"] = model_json(report.model);
  out["outcome"] = report.anything_fits() ? "recommended" : "nothing_fits";
  ordered recommendations = ordered::array();
  for (const auto& r : report.recommendations) {
    recommendations.push_back(recommendation_json(r, report.request, language));
  }
  out["recommendations"] = recommendations;
  out["omitted"] = report.omitted;
  ordered rejected = ordered::array();
  for (const auto& r : report.rejected) {
    ordered reasons = ordered::array();
    for (const auto& reason : r.reasons) {
      reasons.push_back(reason_json(reason, report.request, language));
    }
    rejected.push_back(ordered{{"gpu", gpu_ref(r.gpu)},
                               {"reasons", reasons},
                               {"rules", findings_json(r.findings, report.request.explain, language)}});
  }
  out["rejected"] = rejected;
  ordered ways = ordered::array();
  for (const auto& w : report.ways_out) {
    ordered changes = ordered::array();
    for (const auto& c : w.changes) {
      changes.push_back(
          ordered{{"lever", c.lever}, {"from", c.from}, {"to", c.to.empty() ? ordered(nullptr) : ordered(c.to)}});
    }
    const char* kind = w.task != report.request.task ? "lighter_task" : !w.drops.empty() ? "relax" : "lever";
    ways.push_back(ordered{{"kind", kind},
                           {"task", to_string(w.task)},
                           {"gpu", ordered{{"id", w.gpu_id}, {"name", w.gpu_name}}},
                           {"count", w.count},
                           {"rent_usd_per_hour", optional_value(w.rent_usd_per_hour)},
                           {"run_usd", optional_value(w.run_usd)},
                           {"drops", w.drops},
                           {"sets", w.sets},
                           {"changes", changes},
                           {"wall_hours", optional_value(w.wall_hours)},
                           {"message", describe(w, report.request, language)}});
  }
  out["ways_out"] = ways;
  if (report.cheaper_below) {
    const auto& c = *report.cheaper_below;
    ordered why = ordered::array();
    if (c.software) {
      why.push_back("software");
    }
    if (c.estimated_specs) {
      why.push_back("estimated_specs");
    }
    if (!c.rules.empty()) {
      why.push_back("rules");
    }
    if (c.slower) {
      why.push_back("slower");
    }
    if (c.less_headroom) {
      why.push_back("headroom");
    }
    out["cheaper_below"] = ordered{{"gpu_name", c.gpu_name},
                                   {"count", c.count},
                                   {"rank", c.rank},
                                   {"cost_usd", round6(c.cost_usd)},
                                   {"software", c.software ? ordered(to_string(*c.software)) : ordered(nullptr)},
                                   {"rules", c.rules},
                                   {"ranked_down_by", why}};
  } else {
    out["cheaper_below"] = nullptr;
  }
  auto displaced = [](const std::optional<Report::Displaced>& d) {
    return d ? ordered{{"gpu_name", d->gpu_name}, {"headroom", round6(d->headroom)}} : ordered(nullptr);
  };
  out["displaced"] =
      ordered{{"tight", displaced(report.displaced_tight)}, {"oversized", displaced(report.displaced_oversized)}};
  out["assumptions"] = assumptions(report.request, report.model, language);
  ordered warnings = ordered::array();
  for (const auto& rule : report.unmatched_rules) {
    warnings.push_back(describe(rule, language));
  }
  out["warnings"] = warnings;
  return dump(out, style);
}

std::string render_catalog_list_json(const Catalog& catalog) {
  ordered out;
  out["schema_version"] = json_schema_version;
  out["catalog"] = ordered{{"version", catalog.info().version},
                           {"updated", catalog.info().updated},
                           {"exchange_rate", exchange_rate_json(catalog.info().exchange_rate)}};
  ordered gpus = ordered::array();
  for (const auto& gpu : catalog.gpus()) {
    gpus.push_back(gpu_full_json(gpu));
  }
  out["gpus"] = gpus;
  return dump(out);
}

std::string render_models_json(const ModelCatalog& models) {
  ordered out;
  out["schema_version"] = json_schema_version;
  ordered list = ordered::array();
  for (const auto& m : models.models()) {
    ordered item = model_json(m);
    item["aliases"] = m.aliases;
    item["sources"] = m.sources;
    list.push_back(item);
  }
  out["models"] = list;
  return dump(out);
}

std::string render_gpu_json(const GpuSpec& gpu) {
  ordered out;
  out["schema_version"] = json_schema_version;
  out["gpu"] = gpu_full_json(gpu);
  return dump(out);
}

}  // namespace gpu_advise
