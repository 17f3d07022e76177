// The pipeline: for each card, its candidate plans, the rules on each, the
// plans that meet every constraint; then the choice on the cost-time frontier
// (choose.cpp), and ways out when nothing fits. Facts only: the
// words are the renderers' (words.hpp).
#include "gpu_advise/advisor.hpp"

#include <algorithm>
#include <functional>
#include <map>

#include <fmt/format.h>

#include "core/quantity_format.hpp"
#include "estimate/parts.hpp"
#include "gpu_advise/choose.hpp"
#include "gpu_advise_version.hpp"

namespace gpu_advise {

namespace {

// Priced before unpriced; then the cheaper per hour (unpriced: fewer GPUs);
// then by id, so the choice does not follow the catalog's order.
bool cheaper(const WayOut& a, const WayOut& b) {
  if (a.rent_usd_per_hour.has_value() != b.rent_usd_per_hour.has_value()) {
    return a.rent_usd_per_hour.has_value();
  }
  const double cost_a = a.rent_usd_per_hour.value_or(a.count);
  const double cost_b = b.rent_usd_per_hour.value_or(b.count);
  if (cost_a != cost_b) {
    return cost_a < cost_b;
  }
  return a.gpu_id < b.gpu_id;
}

// A plan a rule would reject is no way out.
bool rule_rejects(const RuleSet& rules, const Request& request, const GpuSpec& gpu, const Estimate& e,
                  std::string_view catalog_updated) {
  return rejected_by_rules(rules, Facts{&request, &gpu, &e, catalog_updated});
}

// One setting a way out moves: its flag name (as in WayOut::Change), the
// value asked for and the one tried.
struct Lever {
  std::string name;
  std::string from;
  std::string to;
  std::function<void(Request&)> apply;
};

// The single levers worth trying for this request, each on the cards and
// count asked for: memory (optimizer, ZeRO, recompute; precision, KV cache,
// concurrency, context), then where a rule may stand in the way (region,
// mode).
std::vector<Lever> levers_for(const Request& request) {
  std::vector<Lever> out;
  if (request.task == Task::full || request.task == Task::pretrain) {
    for (const Optimizer optimizer : {Optimizer::adamw_bf16, Optimizer::adamw_8bit, Optimizer::adamw_8bit_bf16}) {
      if (request.optimizer != optimizer) {
        out.push_back({"optimizer", std::string(to_string(request.optimizer)), std::string(to_string(optimizer)),
                       [optimizer](Request& r) { r.optimizer = optimizer; }});
      }
    }
  }
  if ((request.task == Task::full || request.task == Task::pretrain) && !request.optimizer_in_backward) {
    out.push_back({"optimizer_in_backward", "off", "on", [](Request& r) { r.optimizer_in_backward = true; }});
  }
  // A larger global batch lets more data-parallel ranks (and pipelines with
  // enough micro-batches) take a deadline that the batch caps.
  if ((request.task == Task::full || request.task == Task::pretrain) && !request.optimizer_in_backward) {
    const int batch = request.effective_global_batch();
    const int larger = 4 * batch;
    if (batch <= 4194304) {  // --global-batch takes up to 16,777,216
      out.push_back({"global_batch", std::to_string(batch), std::to_string(larger),
                     [larger](Request& r) { r.global_batch = larger; }});
    }
  }
  // A stack that frees its gradients after each step holds them beside the
  // activations only while it accumulates: one micro-batch a step frees
  // the larger of the two before the other peaks (methodology §2).
  if ((request.task == Task::full || request.task == Task::pretrain) && !request.optimizer_in_backward &&
      !sizing::stack_profile(request.effective_stack()).persistent_gradients &&
      request.effective_global_batch() > request.micro_batch) {
    out.push_back({"global_batch", std::to_string(request.effective_global_batch()),
                   std::to_string(request.micro_batch), [](Request& r) { r.global_batch = r.micro_batch; }});
  }
  // A stack that runs data parallelism only: one that splits the model too.
  if ((request.task == Task::full || request.task == Task::pretrain) &&
      !sizing::stack_profile(request.effective_stack()).pipeline_parallel) {
    out.push_back({"stack", std::string(to_string(request.effective_stack())), "megatron",
                   [](Request& r) { r.stack = Stack::megatron; }});
  }
  if ((request.task == Task::full || request.task == Task::pretrain) && request.offload == Offload::none) {
    out.push_back({"offload", "none", "optimizer", [](Request& r) { r.offload = Offload::optimizer; }});
  }
  if (is_training(request.task) && request.zero_stage && *request.zero_stage < 3) {
    out.push_back({"zero", std::to_string(*request.zero_stage), "3", [](Request& r) { r.zero_stage = 3; }});
  }
  if (is_training(request.task) && request.recompute && *request.recompute != Recompute::full) {
    out.push_back({"recompute", std::string(to_string(*request.recompute)), "full",
                   [](Request& r) { r.recompute = Recompute::full; }});
  }
  if (request.task == Task::inference) {
    for (const InferencePrecision precision : {InferencePrecision::int8, InferencePrecision::int4}) {
      if (static_cast<int>(request.precision) < static_cast<int>(precision)) {
        out.push_back({"precision", std::string(to_string(request.precision)), std::string(to_string(precision)),
                       [precision](Request& r) { r.precision = precision; }});
      }
    }
    if (request.kv_precision != KvPrecision::fp8) {
      out.push_back({"kv_precision", std::string(to_string(request.kv_precision)), "fp8",
                     [](Request& r) { r.kv_precision = KvPrecision::fp8; }});
    }
    // A stated engine that does not run on the cards asked: each card's vLLM build.
    if (request.engine && *request.engine != ServingEngine::vllm) {
      out.push_back({"engine", std::string(to_string(*request.engine)), "auto", [](Request& r) { r.engine.reset(); }});
    }
    if (request.concurrency && *request.concurrency > 1) {
      const int fewer = std::max(1, *request.concurrency / 4);
      out.push_back({"concurrency", std::to_string(*request.concurrency), std::to_string(fewer),
                     [fewer](Request& r) { r.concurrency = fewer; }});
    }
    // A stated latency target, doubled.
    if (request.tpot_stated && request.tpot_target_ms) {
      const double looser = 2.0 * *request.tpot_target_ms;
      out.push_back({"tpot_ms", format::number(*request.tpot_target_ms), format::number(looser),
                     [looser](Request& r) { r.tpot_target_ms = looser; }});
    }
    if (request.ttft_stated && request.ttft_target_ms) {
      const double looser = 2.0 * *request.ttft_target_ms;
      out.push_back({"ttft_ms", format::number(*request.ttft_target_ms), format::number(looser),
                     [looser](Request& r) { r.ttft_target_ms = looser; }});
    }
    if (request.context > 2048) {
      const int shorter = request.context / 2;
      out.push_back({"context", std::to_string(request.context), std::to_string(shorter),
                     [shorter](Request& r) { r.context = shorter; }});
    }
  }
  if (request.region == Region::global) {
    out.push_back({"region", "global", "cn", [](Request& r) { r.region = Region::cn; }});
  }
  if (request.mode == CostMode::buy) {
    out.push_back({"mode", "buy", "rent", [](Request& r) { r.mode = CostMode::rent; }});
  }
  return out;
}

void record(WayOut& way, const Lever& lever) {
  std::string flag = lever.name;
  std::replace(flag.begin(), flag.end(), '_', '-');
  // A switch is set by its name alone.
  way.sets.push_back(lever.from == "off" && lever.to == "on" ? fmt::format("--{}", flag)
                                                             : fmt::format("--{} {}", flag, lever.to));
  way.changes.push_back({lever.name, lever.from, lever.to});
}

// The alternatives tried when nothing fits, first those that keep the user's
// cards and count and move one lever, or two when no single one does; then
// dropping --deadline, --count or both; then lighter tasks. A way out that a
// rule would reject is not offered.
std::vector<WayOut> ways_out(const Request& request, const ModelShape& model, const std::vector<const GpuSpec*>& gpus,
                             const RuleSet& rules, std::string_view catalog_updated) {
  std::vector<WayOut> out;
  // The cheapest plan per hour among the cards that fit the alternative.
  auto best_for = [&](const Request& alternative) -> std::optional<WayOut> {
    std::optional<WayOut> best;
    for (const auto* gpu : gpus) {
      const Estimate e = estimate(alternative, model, *gpu);
      if (!e.fits || rule_rejects(rules, alternative, *gpu, e, catalog_updated)) {
        continue;
      }
      const auto price = e.cost.rent_usd_per_gpu_hour;
      WayOut way;
      way.task = alternative.task;
      way.gpu_id = gpu->id;
      way.gpu_name = gpu->name;
      way.count = e.count;
      way.rent_usd_per_hour = e.cost.offer ? std::optional<double>(e.cost.offer->usd_per_hour)
                              : price      ? std::optional<double>(price->typical * e.count)
                                           : std::nullopt;
      way.wall_hours = e.training ? std::optional<double>(e.training->wall_hours.typical) : std::nullopt;
      way.run_usd = e.training && e.cost.rent_usd ? std::optional<double>(e.cost.rent_usd->typical) : std::nullopt;
      if (!best || cheaper(way, *best)) {
        best = std::move(way);
      }
    }
    return best;
  };
  const std::vector<Lever> levers = levers_for(request);
  bool single = false;
  for (const Lever& lever : levers) {
    Request alternative = request;
    lever.apply(alternative);
    if (auto way = best_for(alternative)) {
      record(*way, lever);
      out.push_back(std::move(*way));
      single = true;
    }
  }
  if (!single) {  // two levers together, where neither alone is enough
    for (std::size_t i = 0; i < levers.size(); ++i) {
      for (std::size_t j = i + 1; j < levers.size(); ++j) {
        // The optimizer in the backward pass takes no accumulated global batch (flags.cpp).
        const bool clash = (levers[i].name == "optimizer_in_backward" && levers[j].name == "global_batch") ||
                           (levers[i].name == "global_batch" && levers[j].name == "optimizer_in_backward");
        if (levers[i].name == levers[j].name || clash) {
          continue;
        }
        Request alternative = request;
        levers[i].apply(alternative);
        levers[j].apply(alternative);
        if (auto way = best_for(alternative)) {
          record(*way, levers[i]);
          record(*way, levers[j]);
          out.push_back(std::move(*way));
        }
      }
    }
  }
  // Relax what the user fixed: the deadline alone (keeping --count), --count
  // alone, then both.
  auto relax = [&](bool count, bool deadline) {
    Request relaxed = request;
    if (count) {
      relaxed.count.reset();
    }
    if (deadline) {
      relaxed.deadline_hours.reset();
      relaxed.pretrain_default_deadline_hours.reset();  // sized to memory alone
    }
    auto way = best_for(relaxed);
    if (!way) {
      return false;
    }
    if (count) {
      way->drops.push_back("--count");
      way->changes.push_back({"count", std::to_string(*request.count), ""});
    }
    if (deadline) {
      way->drops.push_back("--deadline");
      way->changes.push_back({"deadline", fmt::format("{}h", *request.deadline_hours), ""});
    }
    out.push_back(std::move(*way));
    return true;
  };
  bool relaxed = false;
  if (request.deadline_hours) {
    relaxed = relax(false, true);
  }
  if (request.count && !relaxed) {
    relaxed = relax(true, false);
  }
  if (request.count && request.deadline_hours && !relaxed) {
    relax(true, true);
  }
  std::vector<Task> lighter;
  switch (request.task) {
    case Task::full: lighter = {Task::lora, Task::qlora}; break;
    case Task::lora: lighter = {Task::qlora}; break;
    default: break;
  }
  for (const Task task : lighter) {
    // On the cards asked for when they suffice; else without --count.
    Request alternative = request;
    alternative.task = task;
    // Adapter plans are data parallel: the model-parallel degrees fixed for
    // the full fine-tune do not carry over.
    std::vector<std::string> dropped;
    for (auto [degree, flag] :
         {std::pair{&Request::tensor_parallel, "--tp"}, std::pair{&Request::pipeline_parallel, "--pp"},
          std::pair{&Request::context_parallel, "--cp"}, std::pair{&Request::expert_parallel, "--ep"}}) {
      if (alternative.*degree) {
        alternative.*degree = std::nullopt;
        dropped.emplace_back(flag);
      }
    }
    if (!dropped.empty() && alternative.data_parallel) {
      alternative.count.reset();  // it came from the degrees
    }
    auto way = best_for(alternative);
    if (way) {
      way->drops.insert(way->drops.end(), dropped.begin(), dropped.end());
    }
    if (!way && request.count) {
      alternative.count.reset();
      way = best_for(alternative);
      if (way) {
        way->drops.push_back("--count");
        way->changes.push_back({"count", std::to_string(*request.count), ""});
      }
    }
    if (way) {
      way->changes.insert(way->changes.begin(),
                          {"task", std::string(to_string(request.task)), std::string(to_string(task))});
      out.push_back(*way);
    }
  }
  return out;
}

// Counts the rules that fired (for the --rules files' rules that matched nothing).
void count_fired(const std::vector<Finding>& findings, std::map<std::string, int>& fired_count) {
  for (const auto& f : findings) {
    if (f.fired) {
      ++fired_count[f.rule_id];
    }
  }
}

// Fired rules first, in file order; the rest after (for --explain).
void order_findings(std::vector<Finding>& findings) {
  std::stable_partition(findings.begin(), findings.end(), [](const Finding& f) { return f.fired; });
}

// A budget amount the plan would break, or cannot be checked against.
std::optional<RejectReason> over_budget(const Request& request, const Estimate& e) {
  if (!request.budget_usd) {
    return std::nullopt;
  }
  const auto cost = budget_cost_usd(request, e);
  if (!cost) {
    return NoPriceForBudget{request.mode, *request.budget_usd};
  }
  if (*cost > *request.budget_usd) {
    const OverBudget::Cost what = request.mode == CostMode::buy ? OverBudget::Cost::cards
                                  : e.training                  ? OverBudget::Cost::run
                                                                : OverBudget::Cost::month;
    return OverBudget{what, *cost, *request.budget_usd};
  }
  return std::nullopt;
}

// A card without a scale-up link (PCIe cards, NVLink pairs) runs one sharded
// group over at most two servers: beyond, every step's collectives cross the
// scale-out network (docs/methodology.md §7).
std::optional<PcieSpread> pcie_spread(const GpuSpec& gpu, const Estimate& e) {
  if (gpu.interconnect.domain_size > 2) {
    return std::nullopt;
  }
  const int group = sharded_group(e.layout, e.training.has_value());
  const int node = std::max(1, gpu.node.gpus_per_node);
  const int servers = (group + node - 1) / node;
  return servers > 2 ? std::optional<PcieSpread>(PcieSpread{group, servers}) : std::nullopt;
}

// The constraint a reason says a plan failed, as a kind for --explain and scripts.
std::string_view constraint_kind(const RejectReason& reason) {
  struct Kind {
    std::string_view operator()(const Shortfall& s) const {
      switch (s.kind) {
        case Shortfall::Kind::deadline: return "deadline";
        case Shortfall::Kind::latency: return "latency";
        case Shortfall::Kind::rate: return "rate";
        case Shortfall::Kind::no_shape: return "max_gpus";
        case Shortfall::Kind::no_fp8:
        case Shortfall::Kind::no_fp4:
        case Shortfall::Kind::no_fp4_kv: return "precision";
        case Shortfall::Kind::no_engine: return "engine";
        default: return "memory";
      }
    }
    std::string_view operator()(const NotSelected&) const { return "not_selected"; }
    std::string_view operator()(const RuleRejection&) const { return "rule"; }
    std::string_view operator()(const NoPriceForBudget&) const { return "budget"; }
    std::string_view operator()(const OverBudget&) const { return "budget"; }
    std::string_view operator()(const LargerThanBest&) const { return "larger_than_best"; }
    std::string_view operator()(const OtherEcosystem&) const { return "ecosystem"; }
    std::string_view operator()(const PcieSpread&) const { return "pcie_spread"; }
  };
  return std::visit(Kind{}, reason);
}

constexpr std::size_t why_not_cards = 5;
constexpr std::size_t hint_cards = 5;  // the QLoRA hint tries LoRA on this many of the cheapest cards listed

// The rejected cards a client would ask about: the ones that fit but a rule or
// the budget ruled out first, then the largest of those that did not fit.
std::vector<std::size_t> closest_rejected(const std::vector<Rejection>& rejected) {
  auto has = [](const Rejection& r, auto kind) {
    return std::any_of(r.reasons.begin(), r.reasons.end(),
                       [&](const RejectReason& reason) { return std::holds_alternative<decltype(kind)>(reason); });
  };
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < rejected.size(); ++i) {
    if (!has(rejected[i], NotSelected{})) {
      out.push_back(i);
    }
  }
  std::stable_sort(out.begin(), out.end(), [&](std::size_t a, std::size_t b) {
    const bool fits_a = !has(rejected[a], Shortfall{});
    const bool fits_b = !has(rejected[b], Shortfall{});
    if (fits_a != fits_b) {
      return fits_a;
    }
    return rejected[a].gpu.memory.capacity_gib > rejected[b].gpu.memory.capacity_gib;
  });
  if (out.size() > why_not_cards) {
    out.resize(why_not_cards);
  }
  return out;
}

}  // namespace

Report advise(const Request& request, const ModelShape& model, const Catalog& catalog, const RuleSet& rules) {
  Report report;
  report.tool_version = version::string;
  report.catalog = catalog.info();
  report.request = request;
  report.model = model;

  std::vector<CardPlans> cards;
  std::vector<const GpuSpec*> considered;
  std::map<std::string, int> fired_count;
  const std::vector<bool> may_fire = rules_that_may_fire(rules, request);  // decided once, not per card
  for (const auto& gpu : catalog.gpus()) {
    const bool selected = request.gpu_ids.empty() ||
                          std::find(request.gpu_ids.begin(), request.gpu_ids.end(), gpu.id) != request.gpu_ids.end();
    if (!selected) {
      if (request.compare.empty()) {  // a comparison shows only the cards it compares
        report.rejected.push_back({gpu, {NotSelected{}}, {}});
      }
      continue;
    }
    if (request.ecosystem && gpu.software != *request.ecosystem) {
      report.rejected.push_back({gpu, {OtherEcosystem{gpu.software, *request.ecosystem}}, {}});
      continue;
    }
    considered.push_back(&gpu);
    // Each candidate plan meets the constraints or is dropped: it fits, no
    // rule rejects it, it keeps within a --budget amount. When none is left,
    // the card is rejected with the smallest plan's reasons.
    CardPlans card{&gpu, {}, {}};
    std::vector<Estimate> candidates = plans(request, report.model, gpu);
    // What removes a plan, without the rules' messages: those are rendered
    // once, for the plan a row shows, or for the card when every plan is out.
    auto removed_by = [&](const Estimate& e, bool with_rules) {
      std::vector<RejectReason> reasons;
      if (!e.fits) {
        reasons.emplace_back(e.why_not);
        return reasons;
      }
      if (with_rules && rejected_by_rules(rules, Facts{&request, &gpu, &e, catalog.info().updated})) {
        reasons.emplace_back(RuleRejection{});
      }
      if (auto cap = over_budget(request, e)) {
        reasons.push_back(*cap);
      }
      if (auto spread = pcie_spread(gpu, e)) {
        reasons.emplace_back(*spread);
      }
      return reasons;
    };
    for (Estimate& e : candidates) {
      const std::vector<RejectReason> reasons = removed_by(e, true);
      if (e.fits) {
        PlanTried tried{e.count, objective_usd(request, e), plan_time(e), reasons.empty(), false, {}};
        for (const auto& reason : reasons) {
          tried.removed.emplace_back(constraint_kind(reason));
        }
        card.tried.push_back(std::move(tried));
      }
      if (reasons.empty()) {
        card.plans.push_back(e);
      }
    }
    if (card.plans.empty()) {
      // Rejected with the smallest plan's reasons and every rule's verdict on it.
      const Estimate& first = candidates.front();
      std::vector<Finding> findings = evaluate(rules, Facts{&request, &gpu, &first, catalog.info().updated}, may_fire);
      order_findings(findings);
      std::vector<RejectReason> reasons;  // what does not fit, then the rules, then the rest
      if (!first.fits) {
        reasons.emplace_back(first.why_not);
      }
      for (const auto& f : findings) {
        if (f.fired && f.effect == EffectKind::reject) {
          reasons.emplace_back(RuleRejection{f.rule_id, f.message});
        }
      }
      if (first.fits) {
        for (auto& reason : removed_by(first, false)) {
          reasons.push_back(std::move(reason));
        }
      }
      count_fired(findings, fired_count);
      report.rejected.push_back({gpu, std::move(reasons), std::move(findings)});
      continue;
    }
    cards.push_back(std::move(card));
  }

  // Every rule's verdict on the plan a row shows (fired ones first).
  auto findings_of = [&](const GpuSpec& gpu, const Estimate& e) {
    std::vector<Finding> findings = evaluate(rules, Facts{&request, &gpu, &e, catalog.info().updated}, may_fire);
    order_findings(findings);
    count_fired(findings, fired_count);
    return findings;
  };
  Choice choice = choose(std::move(cards), request, findings_of);
  std::vector<Recommendation>& options = choice.rows;
  report.best_priced = choice.best_priced;
  report.frontier = std::move(choice.frontier);
  report.cheapest = std::move(choice.cheapest);
  report.faster = std::move(choice.faster);
  report.larger_plans = choice.larger.size();
  for (auto& larger : choice.larger) {
    report.rejected.push_back(std::move(larger));
  }
  report.feasible = options.size();
  report.unpriced = static_cast<std::size_t>(
      std::count_if(options.begin(), options.end(), [](const Recommendation& o) { return !o.objective.usd; }));
  // Cut to --top: the plans past it are counted (omitted), not carried.
  if (request.top && options.size() > static_cast<std::size_t>(*request.top)) {
    report.omitted = options.size() - static_cast<std::size_t>(*request.top);
    options.resize(static_cast<std::size_t>(*request.top));
  }
  report.recommendations = std::move(options);
  // QLoRA trades speed for memory: when plain LoRA on one of the cheapest
  // cards listed is cheaper and no slower, say so (a second pass on those
  // cards only; LoRA never recurses).
  if (request.task == Task::qlora && report.best_priced && request.compare.empty()) {
    Request heavier = request;
    heavier.task = Task::lora;
    heavier.ways_out = false;
    heavier.top.reset();
    heavier.gpu_ids.clear();
    for (const auto& r : report.recommendations) {
      if (r.objective.usd && heavier.gpu_ids.size() < hint_cards) {
        heavier.gpu_ids.push_back(r.gpu.id);
      }
    }
    const Report lora = advise(heavier, model, catalog, rules);
    const Recommendation& mine = report.recommendations.front();
    if (lora.best_priced) {
      const Recommendation& theirs = lora.recommendations.front();
      if (*theirs.objective.usd <= *mine.objective.usd && theirs.objective.time <= mine.objective.time) {
        report.heavier_task = Report::TaskHint{Task::lora, theirs.gpu.name, theirs.estimate.count,
                                               *theirs.objective.usd, theirs.objective.time};
      }
    }
  }
  report.why_not = closest_rejected(report.rejected);
  if (!report.anything_fits() && request.ways_out) {
    report.ways_out = ways_out(request, report.model, considered, rules, catalog.info().updated);
  }
  for (const auto& rule : rules.rules()) {
    if (rule.from_user && fired_count[rule.id] == 0) {
      report.unmatched_rules.push_back({rule.id, rule.origin});
    }
  }
  return report;
}

}  // namespace gpu_advise
