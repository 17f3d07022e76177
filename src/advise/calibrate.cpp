// Calibrating on measured runs (docs/calibration.md): each run sized at its
// stated count and layout, then per card and stack (or engine) the speed
// factor that minimises the squared log error of the predicted speeds, and the
// memory correction that minimises the squared error of the predicted peaks,
// each with its leave-one-out error.
#include "gpu_advise/calibrate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "estimate/parts.hpp"
#include "gpu_advise/error.hpp"
#include "gpu_advise/estimate.hpp"
#include "gpu_advise/units.hpp"

namespace gpu_advise {

namespace {

// The speed factors searched: far beyond any stack's measured spread.
constexpr double min_factor = 0.02;
constexpr double max_factor = 50.0;
// The memory scale a fit may take; beyond it the offset alone is kept.
constexpr double min_memory_scale = 0.5;
constexpr double max_memory_scale = 2.0;

// A run sized: the request that states it, its layout (training), and what
// the model gives before calibration.
struct Sized {
  const MeasuredRun* run = nullptr;
  Request request;
  Layout layout;
  CalibrationProvenance::Refusal refused = CalibrationProvenance::Refusal::none;
  double bound_share = 0;
  double bound = 0;
  // Before calibration: training, tokens/s of the group and the peak in GiB;
  // serving, output tokens/s, TPOT and TTFT.
  double speed = 0;
  double memory_gib = 0;
  double weights_gib = 0;  // the least a corrected peak may be (sizing::memory_on)
  double tpot_ms = 0;
  double ttft_ms = 0;
};

Request training_request(const Measurement& m, const ModelShape& model) {
  Request r;
  r.params = model.params;
  r.model_id = m.model;
  r.task = m.task;
  r.seq_len = m.seq_len;
  r.micro_batch = m.micro_batch;
  r.recompute = m.recompute;
  r.optimizer = m.optimizer;
  r.stack = m.stack;
  if (m.lora_rank) {
    r.lora_rank = *m.lora_rank;
  }
  if (!m.lora_targets.empty()) {
    r.lora_targets = m.lora_targets;
  }
  r.tensor_parallel = m.tp;
  r.pipeline_parallel = m.pp;
  r.context_parallel = m.cp;
  r.zero_stage = m.zero_stage;
  r.fp8_training = m.fp8;
  r.optimizer_in_backward = m.optimizer_in_backward;
  r.count = m.count;
  r.max_gpus = m.count;
  r.tokens = 1e9;  // tokens/s does not depend on the run's length
  r.goodput = 1.0;
  r.goodput_stated = true;
  r.pretrain_default_deadline_hours.reset();
  const int model_parallel = m.tp.value_or(1) * m.pp.value_or(1) * m.cp.value_or(1);  // divides count (checked)
  const std::int64_t one_each = std::int64_t{m.micro_batch} * std::max(1, m.count / std::max(1, model_parallel));
  r.global_batch = m.global_batch.value_or(static_cast<int>(std::min<std::int64_t>(one_each, 100'000'000)));
  return r;
}

Request serving_request(const Measurement& m, const ModelShape& model) {
  Request r;
  r.params = model.params;
  r.model_id = m.model;
  r.task = Task::inference;
  r.precision = m.precision;
  r.kv_precision = m.kv_precision.value_or(KvPrecision::bf16);
  r.engine = m.engine;
  r.concurrency = m.concurrency;
  r.context = m.context;
  r.output_tokens = m.output_tokens;
  r.count = m.count;
  r.max_gpus = m.count;
  r.copies = 1;  // one model copy over the GPUs measured
  if (model.is_moe()) {
    r.expert_parallel = 1;  // the experts with the tensor-parallel group: each sequence counted once
  }
  r.tpot_target_ms.reset();
  r.ttft_target_ms.reset();
  return r;
}

// The layout a training run is sized at: the one it states, else the one
// gpu-advise would choose at its count (whatever the card's memory: the run
// ran); none when it has none.
std::optional<Layout> training_layout(const Request& r, const MeasuredRun& run) {
  const Measurement& m = run.measurement;
  const Recompute recompute = m.recompute;
  if (m.count == 1 || m.tp || m.pp || m.cp) {
    const int tp = m.tp.value_or(1);
    const int pp = m.pp.value_or(1);
    const int cp = m.cp.value_or(1);
    const int data = std::max(1, m.count / (tp * pp * cp));
    Layout layout{tp, pp, data, m.zero_stage.value_or(data > 1 && tp * pp == 1 ? 3 : (data > 1 ? 1 : 0)), recompute};
    layout.context = cp;
    return layout;
  }
  GpuSpec roomy = run.gpu;  // the run ran: size it whatever the model says of its memory
  roomy.memory.capacity_gib *= 16;
  const Estimate e = estimate(r, run.model, roomy);
  if (e.fits) {
    return e.layout;
  }
  return std::nullopt;
}

// A calibration holding only a speed factor, to size a run at it.
Calibration speed_only(const Sized& s, double factor) {
  Calibration c;
  c.kind = s.run->measurement.kind;
  c.gpu = s.run->gpu.id;
  c.key = s.run->measurement.key();
  c.speed.factor = factor;
  return c;
}

TrainingEstimate training_at(const Sized& s, double factor) {
  Request r = s.request;
  r.calibrations = {speed_only(s, factor)};
  std::vector<EstimateNote> notes;
  return sizing::training_time(r, s.run->model, s.run->gpu, s.layout, notes);
}

double training_speed(const Sized& s, double factor) {
  return training_at(s, factor).tokens_per_s_per_gpu.typical * s.layout.gpus();
}

// A training record's figures against what its card can do: faster than
// the peak computes, a peak over the card's memory or under the weights it
// holds is no measurement of this card as recorded.
void check_training_figures(const Sized& s, const MemoryBreakdown& memory, std::vector<Diagnostic>& problems) {
  const Measurement& m = s.run->measurement;
  const GpuSpec& gpu = s.run->gpu;
  if (m.tokens_per_s) {
    const TrainingEstimate t = training_at(s, 1.0);
    const double flops_per_token = t.tokens > 0 ? t.flops / t.tokens : 0.0;
    const double share = flops_per_token * *m.tokens_per_s / (s.layout.gpus() * t.peak_tflops * 1e12);
    if (share > 1.0) {
      problems.push_back(
          Diagnostic{m.file, m.line, 1, "tokens_per_s",
                     fmt::format("{} tokens/s is {:.0f}% of what {} x {} compute at their peak ({:.0f} "
                                 "TFLOPS each): check the unit (the whole group, tokens a second), the "
                                 "count and the card",
                                 *m.tokens_per_s, 100.0 * share, s.layout.gpus(), gpu.id, t.peak_tflops)});
    }
  }
  if (m.peak_memory_gib && *m.peak_memory_gib > gpu.memory.capacity_gib) {
    problems.push_back(Diagnostic{m.file, m.line, 1, "peak_memory_gib",
                                  fmt::format("{} GiB is more than {} holds ({} GiB): check the unit (GiB a GPU) "
                                              "and the card",
                                              *m.peak_memory_gib, gpu.id, gpu.memory.capacity_gib)});
  } else if (m.peak_memory_gib && *m.peak_memory_gib * bytes_per_gib < memory.weights) {
    problems.push_back(Diagnostic{
        m.file, m.line, 1, "peak_memory_gib",
        fmt::format("{} GiB is less than the weights alone take a GPU ({:.1f} GiB): check the unit (GiB a GPU), the "
                    "count, the layout and the task",
                    *m.peak_memory_gib, memory.weights / bytes_per_gib)});
  }
}

// The roofline of a steady-state step, per GPU: the weights and the batch's
// KV cache read once at the card's bandwidth, or the step's matrix products
// (its decodes and its share of prefill, 2 FLOPs a parameter and token) at
// the card's peak at that precision, whichever takes longer. Output tokens/s
// can be no more than the batch over that, for every copy.
double bound_tokens_per_s(const Sized& s, const Estimate& e) {
  const Measurement& m = s.run->measurement;
  const GpuSpec& gpu = s.run->gpu;
  const KvPrecision kv_precision = m.kv_precision.value_or(KvPrecision::bf16);
  const double kv_value = kv_precision == KvPrecision::bf16 ? 2.0 : kv_precision == KvPrecision::fp8 ? 1.0 : 0.5;
  const double held = static_cast<double>(m.context) - m.output_tokens / 2.0;
  const double parallel = std::max(1, e.layout.model_parallel());
  const double kv = s.run->model.kv_bytes(held * m.concurrency, kv_value) / parallel;
  const double read_s = (e.per_gpu.weights + kv) / (gpu.memory.bandwidth_gb_per_s * 1e9);
  double peak = gpu.compute.bf16_tflops;
  if (m.precision == InferencePrecision::fp8 && gpu.compute.fp8_tflops) {
    peak = *gpu.compute.fp8_tflops;
  } else if (m.precision == InferencePrecision::fp4 && gpu.compute.fp4_tflops) {
    peak = *gpu.compute.fp4_tflops;
  } else if (m.precision == InferencePrecision::int8 && gpu.compute.int8_tops) {
    peak = std::max(peak, *gpu.compute.int8_tops);  // W8A8 may run its products in INT8: the higher ceiling
  }
  const double tokens = m.concurrency * (1.0 + (m.context - m.output_tokens) / static_cast<double>(m.output_tokens));
  const double compute_s = 2.0 * s.run->model.active_params * tokens / parallel / (peak * 1e12);
  const double seconds = std::max(read_s, compute_s);
  return seconds > 0 ? m.concurrency * std::max(1, e.layout.model_copies()) / seconds : 0.0;
}

// Why gpu-advise has no plan for a serving record, for its located error.
std::string no_plan(const Measurement& m, const GpuSpec& gpu, const Shortfall& why) {
  switch (why.kind) {
    case Shortfall::Kind::no_fp8: return fmt::format("precision fp8: {} has no FP8", gpu.id);
    case Shortfall::Kind::no_fp4: return fmt::format("precision fp4: {} has no FP4", gpu.id);
    case Shortfall::Kind::no_fp4_kv: return "kv_precision fp4 is TensorRT-LLM's, on cards with FP4";
    case Shortfall::Kind::no_engine:
      return fmt::format("engine {}: it does not run on {}'s software stack", to_string(why.engine), gpu.id);
    case Shortfall::Kind::activations:
    case Shortfall::Kind::count_too_small:
    case Shortfall::Kind::too_many_gpus:
      return fmt::format(
          "{} sequences of {} tokens do not fit {} x {} as gpu-advise sizes them ({:.1f} GiB a GPU "
          "needed, {:.1f} usable)",
          m.concurrency, m.context, m.count, gpu.id, why.need_gib, why.usable_gib);
    default: break;
  }
  return fmt::format("gpu-advise has no plan of {} x {} for it", m.count, gpu.id);
}

Sized size_serving(const MeasuredRun& run, std::vector<Diagnostic>& problems) {
  Sized s;
  s.run = &run;
  s.request = serving_request(run.measurement, run.model);
  GpuSpec roomy = run.gpu;  // the run ran: size it whatever the model says of its memory
  roomy.memory.capacity_gib *= 16;
  const Estimate e = estimate(s.request, run.model, roomy);
  if (!e.fits || !e.inference) {
    s.refused = CalibrationProvenance::Refusal::no_plan;
    const Measurement& m = run.measurement;
    problems.push_back(Diagnostic{m.file, m.line, 1, "", "cannot be sized: " + no_plan(m, run.gpu, e.why_not)});
    return s;
  }
  s.layout = e.layout;
  s.speed = e.inference->tokens_per_s.typical;
  s.tpot_ms = e.inference->tpot_ms.typical;
  s.ttft_ms = e.inference->ttft_ms.typical;
  const Measurement& m = run.measurement;
  const double measured = m.output_tokens_per_s.value_or(m.tpot_ms ? m.concurrency * 1000.0 / *m.tpot_ms : 0.0);
  const double bound = bound_tokens_per_s(s, e);
  // Above the roofline is no measurement of this card (a dense model reads
  // every weight a step; a MoE model fewer, so its bound is not a ceiling).
  // Far below both the roofline and the model's slow corner (which carries
  // each step's fixed costs) is a framework's overhead, not the card.
  const bool above = !run.model.is_moe() && measured > serving_bound_share_max * bound;
  const double floor = serving_bound_share_min * std::min(bound, e.inference->tokens_per_s.low);
  if (measured > 0 && bound > 0 && (measured < floor || above)) {
    s.refused = above ? CalibrationProvenance::Refusal::above_bound : CalibrationProvenance::Refusal::below_bound;
    s.bound_share = measured / bound;
    s.bound = bound;
  }
  return s;
}

Sized size_training(const MeasuredRun& run, std::vector<Diagnostic>& problems) {
  Sized s;
  s.run = &run;
  s.request = training_request(run.measurement, run.model);
  const std::optional<Layout> layout = training_layout(s.request, run);
  if (!layout) {
    const Measurement& m = run.measurement;
    s.refused = CalibrationProvenance::Refusal::no_plan;
    problems.push_back(Diagnostic{m.file, m.line, 1, "count",
                                  fmt::format("cannot be sized: gpu-advise has no layout of {} x {} for it; give the "
                                              "layout it ran (tp, pp, cp, zero_stage)",
                                              m.count, run.gpu.id)});
    return s;
  }
  s.layout = *layout;
  s.speed = training_speed(s, 1.0);
  const MemoryBreakdown memory = memory_per_gpu(s.request, run.model, s.layout);
  s.memory_gib = (memory.total() - memory.reserve) / bytes_per_gib;
  s.weights_gib = memory.weights / bytes_per_gib;
  check_training_figures(s, memory, problems);
  return s;
}

// ---- the fits ----

// The speed factors a fit may take, as ln f on an even grid from min_factor
// to max_factor (steps of 3.3%); the least-squares factor is the grid's best,
// refined by the parabola through it and its neighbours.
constexpr int grid_points = 241;

double grid_log_factor(int j) {
  const double a = std::log(min_factor);
  const double b = std::log(max_factor);
  return a + (b - a) * j / (grid_points - 1);
}

// A fitted factor, or none: the loss is flat in it (a run whose step does not
// depend on its kernels, such as one bound by communication) or least at a
// bound of the search (the measurements disagree with the model by more than
// any stack does). Either way it is not applied.
struct Factor {
  double value = 1.0;
  bool identified = true;
};

// The least of a loss on the grid: ties go to the factor nearest 1.
Factor least_on_grid(const std::vector<double>& loss) {
  int best = 0;
  double low = loss[0];
  double high = loss[0];
  for (int j = 1; j < grid_points; ++j) {
    const auto at = static_cast<std::size_t>(j);
    high = std::max(high, loss[at]);
    const double tie = 1e-12 * (1.0 + std::abs(low));
    if (loss[at] < low - tie ||
        (loss[at] <= low + tie && std::abs(grid_log_factor(j)) < std::abs(grid_log_factor(best)))) {
      best = j;
      low = std::min(low, loss[at]);
    }
  }
  if (high - low <= 1e-9 * (1.0 + low) || best == 0 || best == grid_points - 1) {
    return {1.0, false};
  }
  const auto at = static_cast<std::size_t>(best);
  // The edge of a plateau (the efficiency capped at the peak): not a minimum.
  const double tie = 1e-12 * (1.0 + std::abs(low));
  if (std::abs(loss[at + 1] - loss[at]) <= tie || std::abs(loss[at - 1] - loss[at]) <= tie) {
    return {1.0, false};
  }
  const double left = loss[at - 1];
  const double mid = loss[at];
  const double right = loss[at + 1];
  const double curve = left - 2.0 * mid + right;
  const double step = grid_log_factor(1) - grid_log_factor(0);
  const double shift = curve > 0 ? std::clamp(0.5 * (left - right) / curve, -1.0, 1.0) : 0.0;
  return {std::exp(grid_log_factor(best) + shift * step), true};
}

// Serving: the mean log ratio of measured over predicted speed a run gives
// (throughput as is, latencies inverted: each is exact in the factor, and a
// run weighs one whatever the figures it states).
double serving_log_ratio(const Sized& s) {
  const Measurement& m = s.run->measurement;
  double sum = 0;
  int n = 0;
  auto add = [&](double ratio) {
    sum += std::log(ratio);
    ++n;
  };
  if (m.output_tokens_per_s && s.speed > 0) {
    add(*m.output_tokens_per_s / s.speed);
  }
  if (m.tpot_ms && s.tpot_ms > 0) {
    add(s.tpot_ms / *m.tpot_ms);
  }
  if (m.ttft_ms && s.ttft_ms > 0) {
    add(s.ttft_ms / *m.ttft_ms);
  }
  return n > 0 ? sum / n : 0.0;
}

bool has_speed(const Sized& s) {
  const Measurement& m = s.run->measurement;
  return s.refused == CalibrationProvenance::Refusal::none &&
         (m.kind == CalibrationKind::training ? m.tokens_per_s.has_value()
                                              : (m.output_tokens_per_s || m.tpot_ms || m.ttft_ms));
}

// The speed fits of a group: on all its runs, and on all but each one. Each
// training run is sized once at every grid factor, so leaving one out is a
// subtraction, not a new search.
class SpeedFits {
 public:
  SpeedFits(const std::vector<Sized>& sized, const std::vector<std::size_t>& fit) : m_fit(fit) {
    m_serving = !fit.empty() && sized[fit.front()].run->measurement.kind == CalibrationKind::serving;
    m_total.assign(static_cast<std::size_t>(grid_points), 0.0);
    for (const std::size_t i : fit) {
      if (m_serving) {
        m_ratios.push_back(serving_log_ratio(sized[i]));
        m_sum += m_ratios.back();
        continue;
      }
      std::vector<double> errors(static_cast<std::size_t>(grid_points));
      const double measured = std::log(*sized[i].run->measurement.tokens_per_s);
      for (int j = 0; j < grid_points; ++j) {
        const double r = measured - std::log(training_speed(sized[i], std::exp(grid_log_factor(j))));
        errors[static_cast<std::size_t>(j)] = r * r;
        m_total[static_cast<std::size_t>(j)] += r * r;
      }
      m_errors.push_back(std::move(errors));
    }
  }

  // Fitted without the k-th run (k = npos: on all of them).
  [[nodiscard]] Factor without(std::size_t k = std::string::npos) const {
    const std::size_t n = m_fit.size() - (k == std::string::npos ? 0 : 1);
    if (n == 0) {
      return {1.0, false};
    }
    if (m_serving) {
      const double mean = (m_sum - (k == std::string::npos ? 0.0 : m_ratios[k])) / static_cast<double>(n);
      const bool inside = mean > std::log(min_factor) && mean < std::log(max_factor);
      return inside ? Factor{std::exp(mean), true} : Factor{1.0, false};
    }
    std::vector<double> loss = m_total;
    if (k != std::string::npos) {
      for (std::size_t j = 0; j < loss.size(); ++j) {
        loss[j] -= m_errors[k][j];
      }
    }
    return least_on_grid(loss);
  }

 private:
  const std::vector<std::size_t>& m_fit;
  bool m_serving = false;
  std::vector<double> m_total;                // training: the loss of all runs at each grid factor
  std::vector<std::vector<double>> m_errors;  // training: each run's squared log error at each grid factor
  std::vector<double> m_ratios;               // serving: each run's mean log ratio
  double m_sum = 0;
};

// A run's predicted speed figure at a factor: training tokens/s (re-sized),
// serving output tokens/s (or the TPOT's, or the TTFT's, whichever it has).
struct SpeedFigure {
  std::string metric;
  double measured = 0;
  double before = 0;
  bool latency = false;
};

SpeedFigure speed_figure(const Sized& s) {
  const Measurement& m = s.run->measurement;
  if (m.kind == CalibrationKind::training) {
    return {"tokens_per_s", *m.tokens_per_s, s.speed, false};
  }
  if (m.output_tokens_per_s) {
    return {"output_tokens_per_s", *m.output_tokens_per_s, s.speed, false};
  }
  if (m.tpot_ms) {
    return {"tpot_ms", *m.tpot_ms, s.tpot_ms, true};
  }
  return {"ttft_ms", *m.ttft_ms, s.ttft_ms, true};
}

double predicted(const Sized& s, const SpeedFigure& figure, double factor) {
  if (s.run->measurement.kind == CalibrationKind::training) {
    return training_speed(s, factor);
  }
  return figure.latency ? figure.before / factor : figure.before * factor;
}

double relative_error(double estimate, double measured) { return std::abs(estimate - measured) / measured; }

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

// Fits the speed of a group, fills its figures, and the calibration's speed.
void calibrate_speed(std::vector<Sized>& sized, const std::vector<std::size_t>& group, Calibration& c,
                     std::vector<CalibrationProvenance>& provenance) {
  std::vector<std::size_t> fit;
  for (const std::size_t i : group) {
    if (has_speed(sized[i])) {
      fit.push_back(i);
    }
  }
  c.speed.fitted_on = static_cast<int>(fit.size());
  const SpeedFits fits(sized, fit);
  const Factor all = fits.without();
  c.speed.factor = all.value;
  std::vector<double> errors;
  std::vector<double> model_errors;
  std::vector<double> log_ratios;  // measured speed over the left-out prediction
  std::vector<CalibrationFigure*> figures;
  for (std::size_t k = 0; k < fit.size(); ++k) {
    const Sized& s = sized[fit[k]];
    const SpeedFigure figure = speed_figure(s);
    CalibrationFigure out{figure.metric, figure.measured, figure.before, predicted(s, figure, c.speed.factor), {}};
    model_errors.push_back(relative_error(figure.before, figure.measured));
    if (fit.size() >= 2) {
      out.left_out = predicted(s, figure, fits.without(k).value);
      errors.push_back(relative_error(*out.left_out, figure.measured));
      const double ratio = figure.latency ? *out.left_out / figure.measured : figure.measured / *out.left_out;
      log_ratios.push_back(std::log(ratio));
    }
    auto& kept = provenance[static_cast<std::size_t>(std::find(group.begin(), group.end(), fit[k]) - group.begin())];
    kept.figures.push_back(out);
    figures.push_back(&kept.figures.back());
  }
  if (!model_errors.empty()) {
    c.speed.model_error = median(model_errors);
  }
  if (!errors.empty()) {
    c.speed.median_error = median(errors);
    c.speed.max_error = *std::max_element(errors.begin(), errors.end());
  }
  // Not applied: the factor is not identified, or the measurements predict
  // each other no better than the model does.
  if (!fit.empty() && (!all.identified || (c.speed.median_error && *c.speed.median_error >= *c.speed.model_error))) {
    c.speed.applied = false;
    c.speed.factor = 1.0;
    for (CalibrationFigure* figure : figures) {
      figure->after = figure->before;
    }
    return;
  }
  if (fit.size() >= 3) {
    c.speed.band_low = std::max(0.01, std::exp(std::min(0.0, *std::min_element(log_ratios.begin(), log_ratios.end()))));
    c.speed.band_high =
        std::min(100.0, std::exp(std::max(0.0, *std::max_element(log_ratios.begin(), log_ratios.end()))));
  }
}

// A memory correction: measured = scale x predicted + offset, never below
// the weights (as sizing::memory_on applies it).
struct MemoryFit {
  double scale = 1.0;
  double offset = 0;
  bool clamped = false;  // the peaks call for a scale beyond 0.5-2: not applied
  [[nodiscard]] double operator()(double predicted, double weights) const {
    return std::max(scale * predicted + offset, weights);
  }
};

// The forms a memory correction may take: a scale alone (the default, and
// with one peak the only one), an offset alone, or both.
enum class MemoryForm { scale, offset, both };

MemoryFit fit_memory(const std::vector<double>& predicted, const std::vector<double>& measured, MemoryForm form) {
  const double n = static_cast<double>(predicted.size());
  const double mp = std::accumulate(predicted.begin(), predicted.end(), 0.0) / n;
  const double mm = std::accumulate(measured.begin(), measured.end(), 0.0) / n;
  if (form == MemoryForm::offset) {
    return {1.0, mm - mp};
  }
  double sxy = 0;
  double sxx = 0;
  double pm = 0;
  double pp = 0;
  for (std::size_t i = 0; i < predicted.size(); ++i) {
    sxy += (predicted[i] - mp) * (measured[i] - mm);
    sxx += (predicted[i] - mp) * (predicted[i] - mp);
    pm += predicted[i] * measured[i];
    pp += predicted[i] * predicted[i];
  }
  const double ratio = pp > 0 ? pm / pp : 1.0;
  const MemoryFit through_origin{std::clamp(ratio, min_memory_scale, max_memory_scale), 0.0,
                                 ratio < min_memory_scale || ratio > max_memory_scale};
  if (form == MemoryForm::scale) {
    return through_origin;
  }
  const double scale = sxx > 0 ? sxy / sxx : 1.0;
  if (scale < min_memory_scale || scale > max_memory_scale) {
    return through_origin;
  }
  return {scale, mm - scale * mp, false};
}

// Each measured peak predicted from the others with the fit's form.
std::vector<double> memory_left_out(const std::vector<double>& predicted, const std::vector<double>& measured,
                                    const std::vector<double>& weights, MemoryForm form) {
  std::vector<double> out;
  for (std::size_t k = 0; k < predicted.size(); ++k) {
    std::vector<double> p = predicted;
    std::vector<double> m = measured;
    p.erase(p.begin() + static_cast<std::ptrdiff_t>(k));
    m.erase(m.begin() + static_cast<std::ptrdiff_t>(k));
    out.push_back(fit_memory(p, m, form)(predicted[k], weights[k]));
  }
  return out;
}

double median_error(const std::vector<double>& estimates, const std::vector<double>& measured) {
  std::vector<double> errors;
  for (std::size_t i = 0; i < estimates.size(); ++i) {
    errors.push_back(relative_error(estimates[i], measured[i]));
  }
  return median(errors);
}

// Fits a group's memory in the form whose left-out predictions are best: a
// scale alone, an offset alone (two or more peaks) or both (three or more).
void calibrate_memory(const std::vector<Sized>& sized, const std::vector<std::size_t>& group, Calibration& c,
                      std::vector<CalibrationProvenance>& provenance) {
  std::vector<std::size_t> fit;
  std::vector<double> predicted;
  std::vector<double> measured;
  std::vector<double> weights;
  for (const std::size_t i : group) {
    if (sized[i].refused == CalibrationProvenance::Refusal::none && sized[i].run->measurement.peak_memory_gib) {
      fit.push_back(i);
      predicted.push_back(sized[i].memory_gib);
      measured.push_back(*sized[i].run->measurement.peak_memory_gib);
      weights.push_back(sized[i].weights_gib);
    }
  }
  c.memory.fitted_on = static_cast<int>(fit.size());
  if (fit.empty()) {
    return;
  }
  MemoryForm form = MemoryForm::scale;
  std::vector<double> left_out;
  if (fit.size() >= 2) {
    left_out = memory_left_out(predicted, measured, weights, form);
    for (const MemoryForm other : {MemoryForm::offset, MemoryForm::both}) {
      if (other == MemoryForm::both && fit.size() < 3) {
        continue;
      }
      std::vector<double> candidate = memory_left_out(predicted, measured, weights, other);
      if (median_error(candidate, measured) < median_error(left_out, measured)) {
        form = other;
        left_out = std::move(candidate);
      }
    }
  }
  const MemoryFit f = fit_memory(predicted, measured, form);
  c.memory.scale = f.scale;
  c.memory.offset_gib = f.offset;
  c.memory.model_error = median_error(predicted, measured);
  if (f.clamped || (!left_out.empty() && median_error(left_out, measured) >= *c.memory.model_error)) {
    c.memory.applied = false;  // no better than the model: as modelled
    c.memory.scale = 1.0;
    c.memory.offset_gib = 0;
  }
  const MemoryFit kept{c.memory.scale, c.memory.offset_gib};
  std::vector<double> errors;
  for (std::size_t k = 0; k < fit.size(); ++k) {
    CalibrationFigure out{"peak_memory_gib", measured[k], predicted[k], kept(predicted[k], weights[k]), {}};
    if (!left_out.empty()) {
      out.left_out = left_out[k];
      errors.push_back(relative_error(left_out[k], measured[k]));
    }
    provenance[static_cast<std::size_t>(std::find(group.begin(), group.end(), fit[k]) - group.begin())]
        .figures.push_back(out);
  }
  if (!errors.empty()) {
    c.memory.median_error = median(errors);
    c.memory.max_error = *std::max_element(errors.begin(), errors.end());
  }
}

// The flags that size a run as calibrate sized it: its own, and what it left
// to the sizing (a training layout chosen at its count; serving one copy, a
// MoE model's experts with its tensor-parallel group).
std::string sized_flags(const Sized& s) {
  const Measurement& m = s.run->measurement;
  std::string out = measurement_flags(m);
  if (m.kind == CalibrationKind::serving) {
    if (m.count > 1) {
      out += s.run->model.is_moe() ? " --copies 1 --ep 1" : " --copies 1";
    }
    return out;
  }
  if (m.count > 1 && !m.tp && !m.pp && !m.cp) {
    out += fmt::format(" --tp {} --pp {} --cp {} --dp {}", s.layout.tensor, s.layout.pipeline, s.layout.context,
                       s.layout.data);
    if (!m.zero_stage) {
      out += fmt::format(" --zero {}", s.layout.zero_stage);
    }
  }
  return out;
}

Calibration calibrate_group(std::vector<Sized>& sized, const std::vector<std::size_t>& group,
                            const std::string& created) {
  const Measurement& first = sized[group.front()].run->measurement;
  Calibration c;
  c.kind = first.kind;
  c.gpu = sized[group.front()].run->gpu.id;
  c.key = first.key();
  c.created = created;
  std::vector<CalibrationProvenance> provenance;
  for (const std::size_t i : group) {
    const Measurement& m = sized[i].run->measurement;
    provenance.push_back({m.origin,
                          m.id,
                          sized_flags(sized[i]),
                          m.source,
                          m.date,
                          {},
                          sized[i].refused,
                          sized[i].bound_share,
                          sized[i].bound});
    if (sized[i].refused == CalibrationProvenance::Refusal::none) {
      ++c.measurements;
      c.newest = std::max(c.newest, m.date);
    }
  }
  calibrate_speed(sized, group, c, provenance);
  if (c.kind == CalibrationKind::training) {
    calibrate_memory(sized, group, c, provenance);
  }
  c.provenance = std::move(provenance);
  return c;
}

}  // namespace

std::string Measurement::key() const {
  if (kind == CalibrationKind::training) {
    Request r;
    r.task = task;
    r.stack = stack;
    return std::string(to_string(r.effective_stack()));
  }
  return std::string(to_string(engine.value_or(ServingEngine::vllm)));
}

std::string measurement_flags(const Measurement& m) {
  std::string out = m.model.empty() ? fmt::format("--model-config {}", m.model_config) : "--model " + m.model;
  out += fmt::format(" --gpu {} --count {}", m.gpu, m.count);
  if (m.kind == CalibrationKind::serving) {
    out += fmt::format(" --task inference --precision {} --concurrency {} --context {} --output-tokens {}",
                       to_string(m.precision), m.concurrency, m.context, m.output_tokens);
    if (m.kv_precision) {
      out += fmt::format(" --kv-precision {}", to_string(*m.kv_precision));
    }
    if (m.engine) {
      out += fmt::format(" --engine {}", to_string(*m.engine));
    }
    return out;
  }
  out +=
      fmt::format(" --task {} --seq-len {} --micro-batch {} --recompute {} --optimizer {} --stack {}",
                  to_string(m.task), m.seq_len, m.micro_batch, to_string(m.recompute), to_string(m.optimizer), m.key());
  if (m.lora_rank) {
    out += fmt::format(" --lora-rank {}", *m.lora_rank);
  }
  // --optimizer-in-backward runs one micro-batch a step: no --global-batch beside it.
  const std::optional<int> global_batch = m.optimizer_in_backward ? std::nullopt : m.global_batch;
  const std::pair<const char*, std::optional<int>> layout[] = {
      {"--tp", m.tp}, {"--pp", m.pp}, {"--cp", m.cp}, {"--zero", m.zero_stage}, {"--global-batch", global_batch}};
  for (const auto& [flag, value] : layout) {
    if (value) {
      out += fmt::format(" {} {}", flag, *value);
    }
  }
  if (m.fp8) {
    out += " --fp8";
  }
  if (m.optimizer_in_backward) {
    out += " --optimizer-in-backward";
  }
  if (!m.lora_targets.empty() && m.lora_targets.size() < std::size(all_lora_targets)) {
    std::vector<std::string> names;
    for (const LoraTarget t : m.lora_targets) {
      names.emplace_back(to_string(t));
    }
    out += " --lora-targets " + fmt::format("{}", fmt::join(names, ","));
  }
  return out;
}

std::vector<Calibration> calibrate(std::span<const MeasuredRun> runs, const std::string& created) {
  std::vector<Sized> sized;
  sized.reserve(runs.size());
  std::vector<Diagnostic> problems;
  for (const MeasuredRun& run : runs) {
    sized.push_back(run.measurement.kind == CalibrationKind::training ? size_training(run, problems)
                                                                      : size_serving(run, problems));
  }
  if (!problems.empty()) {
    throw DataError(std::move(problems));
  }
  // Groups by card and stack (or engine), in the order they first appear.
  std::vector<std::tuple<CalibrationKind, std::string, std::string>> keys;
  std::vector<std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < sized.size(); ++i) {
    const auto key = std::make_tuple(runs[i].measurement.kind, runs[i].gpu.id, runs[i].measurement.key());
    const auto at = std::find(keys.begin(), keys.end(), key);
    if (at == keys.end()) {
      keys.push_back(key);
      groups.push_back({i});
    } else {
      groups[static_cast<std::size_t>(at - keys.begin())].push_back(i);
    }
  }
  std::vector<Calibration> out;
  out.reserve(groups.size());
  for (const auto& group : groups) {
    out.push_back(calibrate_group(sized, group, created));
  }
  return out;
}

}  // namespace gpu_advise
