#include "gpu_advise/advisor.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpu_advise/scoring.hpp"
#include "quantity_format.hpp"
#include "gpu_advise/units.hpp"
#include "gpu_advise_version.hpp"

namespace gpu_advise {

namespace {

std::string tokens(double count) { return format_parameter_count(count); }

std::string describe_memory(const Request& request, const MemoryBreakdown& m) {
  if (request.task == Task::inference) {
    return fmt::format("weights {}, KV cache {}, reserve {}", format::gib(m.weights), format::gib(m.kv_cache), format::gib(m.reserve));
  }
  if (request.task == Task::lora || request.task == Task::qlora) {
    return fmt::format("frozen base and adapters {}, adapter gradients and optimizer {}, activations {}, reserve {}",
                       format::gib(m.weights), format::gib(m.gradients + m.optimizer), format::gib(m.activations), format::gib(m.reserve));
  }
  return fmt::format("weights {}, gradients {}, optimizer {}, activations {}, reserve {}", format::gib(m.weights),
                     format::gib(m.gradients), format::gib(m.optimizer), format::gib(m.activations), format::gib(m.reserve));
}

std::vector<std::string> rationale_for(const Request& request, const Recommendation& option, bool cheapest,
                                       bool fastest) {
  const Estimate& e = option.estimate;
  std::vector<std::string> lines;
  lines.push_back(fmt::format("fits on {} x {} GiB: needs {} GiB per GPU of {} GiB usable ({:.0f}% headroom); {}",
                              e.count, fmt::format("{:g}", option.gpu.memory.capacity_gib), format::gib(e.per_gpu.total()),
                              format::gib(e.usable_bytes), 100.0 * e.headroom(), describe_memory(request, e.per_gpu)));
  if (e.training) {
    const auto& t = *e.training;
    lines.push_back(fmt::format("about {} wall time ({:.0f} GPU-hours) for {} tokens at {:.0f}% MFU of {:g} dense "
                                "BF16 TFLOPS",
                                format::duration(t.wall_hours.typical), t.gpu_hours.typical, tokens(t.tokens),
                                100.0 * t.mfu.typical, option.gpu.compute.bf16_tflops));
  }
  if (e.inference) {
    const auto& inf = *e.inference;
    lines.push_back(fmt::format("about {:.0f} output tokens/s for {} concurrent sequences ({:.0f} ms per token), "
                                "decode bound by {:g} GB/s memory bandwidth",
                                inf.tokens_per_s.typical, inf.concurrency, inf.tpot_ms.typical,
                                option.gpu.memory.bandwidth_gb_per_s));
  }
  if (e.cost.rent_usd_per_gpu_hour) {
    const auto& price = *e.cost.rent_usd_per_gpu_hour;
    if (e.training && e.cost.rent_usd) {
      lines.push_back(fmt::format("rent about {} for the run at {}/GPU-hour (quotes {} to {})",
                                  format::money(e.cost.rent_usd->typical), format::money(price.typical), format::money(price.low),
                                  format::money(price.high)));
    } else if (e.cost.usd_per_million_tokens) {
      lines.push_back(fmt::format("rent {}/hour for {} GPU{}, about {} per million output tokens",
                                  format::money(e.cost.rent_usd->typical), e.count, e.count == 1 ? "" : "s",
                                  format::money(e.cost.usd_per_million_tokens->typical)));
    }
  } else {
    lines.push_back("no sourced rental price in the catalog: cost scores 0");
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
  if (option.gpu.confidence == Confidence::estimate) {
    lines.push_back("catalog figures for this card are estimates (no vendor datasheet found)");
  }
  return lines;
}

std::vector<std::string> assumptions_for(const Request& request, const ModelShape& model) {
  std::vector<std::string> out;
  if (model.inferred) {
    out.push_back(fmt::format("model shape inferred from {} ({} layers, hidden {}, {} KV heads, vocabulary {}); "
                              "give the real shape for a tighter estimate",
                              model.basis, model.layers, model.hidden, model.kv_heads, model.vocab));
  }
  out.push_back("precision: BF16 weights and compute; dense (non-sparse) peak TFLOPS");
  if (is_training(request.task)) {
    out.push_back(fmt::format("sequence length {}, micro-batch {} per GPU, full activation recompute, flash attention",
                              request.seq_len, request.micro_batch));
    if (request.task == Task::pretrain) {
      out.push_back(fmt::format("training tokens: {} per parameter = {} (Chinchilla)",
                                request.pretrain_tokens_per_param, tokens(request.training_tokens())));
    } else {
      out.push_back(fmt::format("training tokens: {} (dataset tokens x epochs; a stated default)",
                                tokens(request.training_tokens())));
    }
    if (request.task == Task::full || request.task == Task::pretrain) {
      out.push_back("mixed-precision AdamW: 16 bytes per parameter of model states, sharded with ZeRO-3 / FSDP");
    } else {
      out.push_back(fmt::format("LoRA rank {} on q, k, v, o, gate, up and down projections; AdamW on adapters only",
                                request.lora_rank));
    }
  } else {
    out.push_back(fmt::format("KV cache for {} concurrent sequences of {} tokens (BF16)", request.concurrency,
                              request.context));
  }
  out.push_back(fmt::format("{:.0f}% of each card's memory is usable; {} GiB per GPU reserved for the runtime",
                            100.0 * constants::usable_memory_fraction,
                            is_training(request.task) ? constants::training_reserve_gib
                                                      : constants::inference_reserve_gib));
  out.push_back("prices: indicative rental quotes from the catalog, each with its provider and date");
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
      const auto price = price_range(gpu->rent_usd_per_gpu_hour, Region::global);
      // Cheapest hourly cost; cards without a price sort after priced ones.
      const double cost = price ? price->typical * e.count : 1e12 * e.count;
      if (!best || cost < best_cost || (cost == best_cost && gpu->id < best->gpu_id)) {
        best = WayOut{alternative.task, gpu->id, gpu->name, e.count,
                      price ? std::optional<double>(price->typical * e.count) : std::nullopt};
        best_cost = cost;
      }
    }
    return best;
  };
  if (request.count) {
    Request relaxed = request;
    relaxed.count.reset();
    if (auto way = best_for(relaxed)) {
      out.push_back(*way);
    }
  }
  for (const Task task : lighter) {
    Request alternative = request;
    alternative.task = task;
    alternative.count.reset();
    if (auto way = best_for(alternative)) {
      out.push_back(*way);
    }
  }
  return out;
}

}  // namespace

Report advise(const Request& request, const Catalog& catalog) {
  Report report;
  report.tool_version = version::string;
  report.catalog = catalog.info();
  report.request = request;
  report.model = infer_shape(request.params);

  std::vector<Recommendation> options;
  std::vector<const GpuSpec*> considered;
  for (const auto& gpu : catalog.gpus()) {
    const bool selected = request.gpu_ids.empty() ||
                          std::find(request.gpu_ids.begin(), request.gpu_ids.end(), gpu.id) != request.gpu_ids.end();
    if (!selected) {
      report.rejected.push_back({gpu, {"not selected by --gpu"}});
      continue;
    }
    considered.push_back(&gpu);
    Estimate e = estimate(request, report.model, gpu);
    if (!e.fits) {
      report.rejected.push_back({gpu, {e.why_not}});
      continue;
    }
    options.push_back(Recommendation{0, gpu, std::move(e), {}, {}});
  }

  score_and_rank(options, request.budget);
  for (auto& option : options) {
    option.rationale = rationale_for(request, option, option.score.cost_known && option.score.cost >= 1.0,
                                     option.score.speed >= 1.0);
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
  return report;
}

}  // namespace gpu_advise
