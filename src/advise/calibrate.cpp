// Calibrating on measured runs (docs/calibration.md): each run sized at its
// stated count and layout, then per card and stack (or engine) the speed
// factor that minimises the squared log error of the predicted speeds, and the
// memory correction that minimises the squared error of the predicted peaks,
// each with its leave-one-out error.
#include "gpu_advise/calibrate.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "estimate/parts.hpp"
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
  const int model_parallel = m.tp.value_or(1) * m.pp.value_or(1) * m.cp.value_or(1);
  r.global_batch = m.global_batch.value_or(m.micro_batch * std::max(1, m.count / std::max(1, model_parallel)));
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
  r.tpot_target_ms.reset();
  r.ttft_target_ms.reset();
  return r;
}

// The layout a training run is sized at: the one it states, else the one
// gpu-advise would choose at its count, else pure data parallelism.
Layout training_layout(const Request& r, const MeasuredRun& run) {
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
  return Layout{1, 1, m.count, m.zero_stage.value_or(3), recompute};
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

double training_speed(const Sized& s, double factor) {
  Request r = s.request;
  r.calibrations = {speed_only(s, factor)};
  std::vector<EstimateNote> notes;
  const TrainingEstimate t = sizing::training_time(r, s.run->model, s.run->gpu, s.layout, notes);
  return t.tokens_per_s_per_gpu.typical * s.layout.gpus();
}

// Weight and KV-cache bytes a decode step reads, per GPU, over the card's
// bandwidth: the fastest a step of this batch can be.
double bound_tokens_per_s(const Sized& s, const Estimate& e) {
  const Measurement& m = s.run->measurement;
  const double kv_value = m.kv_precision.value_or(KvPrecision::bf16) == KvPrecision::bf16 ? 2.0 : 1.0;
  const double held = static_cast<double>(m.context) - m.output_tokens / 2.0;
  const double kv = s.run->model.kv_bytes(held * m.concurrency, kv_value) / std::max(1, e.layout.model_parallel());
  const double seconds = (e.per_gpu.weights + kv) / (s.run->gpu.memory.bandwidth_gb_per_s * 1e9);
  return seconds > 0 ? m.concurrency * std::max(1, e.layout.data) / seconds : 0.0;
}

Sized size_serving(const MeasuredRun& run) {
  Sized s;
  s.run = &run;
  s.request = serving_request(run.measurement, run.model);
  const Estimate e = estimate(s.request, run.model, run.gpu);
  if (!e.fits || !e.inference) {
    s.refused = CalibrationProvenance::Refusal::no_plan;
    return s;
  }
  s.layout = e.layout;
  s.speed = e.inference->tokens_per_s.typical;
  s.tpot_ms = e.inference->tpot_ms.typical;
  s.ttft_ms = e.inference->ttft_ms.typical;
  const Measurement& m = run.measurement;
  const double measured = m.output_tokens_per_s.value_or(m.tpot_ms ? m.concurrency * 1000.0 / *m.tpot_ms : 0.0);
  const double bound = bound_tokens_per_s(s, e);
  const double least = m.concurrency >= 8 ? serving_bound_share_min : serving_bound_share_min_small;
  if (measured > 0 && bound > 0 && measured < least * bound) {
    s.refused = CalibrationProvenance::Refusal::below_bound;
    s.bound_share = measured / bound;
    s.bound = bound;
  }
  return s;
}

Sized size_training(const MeasuredRun& run) {
  Sized s;
  s.run = &run;
  s.request = training_request(run.measurement, run.model);
  s.layout = training_layout(s.request, run);
  s.speed = training_speed(s, 1.0);
  const MemoryBreakdown memory = memory_per_gpu(s.request, run.model, s.layout);
  s.memory_gib = (memory.total() - memory.reserve) / bytes_per_gib;
  s.weights_gib = memory.weights / bytes_per_gib;
  return s;
}

// ---- the fits ----

// The factor in [min_factor, max_factor] minimising `loss`, by golden-section
// search on its logarithm (the loss is a sum of squared log errors, unimodal
// in the factor).
template <typename Loss>
double minimise(Loss&& loss) {
  const double golden = (std::sqrt(5.0) - 1.0) / 2.0;
  double a = std::log(min_factor);
  double b = std::log(max_factor);
  double c = b - golden * (b - a);
  double d = a + golden * (b - a);
  double fc = loss(std::exp(c));
  double fd = loss(std::exp(d));
  for (int i = 0; i < 60 && b - a > 1e-6; ++i) {
    if (fc < fd) {
      b = d;
      d = c;
      fd = fc;
      c = b - golden * (b - a);
      fc = loss(std::exp(c));
    } else {
      a = c;
      c = d;
      fc = fd;
      d = a + golden * (b - a);
      fd = loss(std::exp(d));
    }
  }
  return std::exp((a + b) / 2.0);
}

// Serving: the log ratios of measured over predicted speed a run gives
// (throughput as is, latencies inverted); each is exact in the factor.
std::vector<double> serving_log_ratios(const Sized& s) {
  const Measurement& m = s.run->measurement;
  std::vector<double> out;
  if (m.output_tokens_per_s && s.speed > 0) {
    out.push_back(std::log(*m.output_tokens_per_s / s.speed));
  }
  if (m.tpot_ms && s.tpot_ms > 0) {
    out.push_back(std::log(s.tpot_ms / *m.tpot_ms));
  }
  if (m.ttft_ms && s.ttft_ms > 0) {
    out.push_back(std::log(s.ttft_ms / *m.ttft_ms));
  }
  return out;
}

bool has_speed(const Sized& s) {
  const Measurement& m = s.run->measurement;
  return s.refused == CalibrationProvenance::Refusal::none &&
         (m.kind == CalibrationKind::training ? m.tokens_per_s.has_value()
                                              : (m.output_tokens_per_s || m.tpot_ms || m.ttft_ms));
}

// The speed factor fitted on `fit` (indices into `sized`).
double fit_speed(const std::vector<Sized>& sized, const std::vector<std::size_t>& fit) {
  if (fit.empty()) {
    return 1.0;
  }
  if (sized[fit.front()].run->measurement.kind == CalibrationKind::serving) {
    double sum = 0;
    int n = 0;
    for (const std::size_t i : fit) {
      for (const double r : serving_log_ratios(sized[i])) {
        sum += r;
        ++n;
      }
    }
    return n > 0 ? std::exp(sum / n) : 1.0;
  }
  return minimise([&](double factor) {
    double loss = 0;
    for (const std::size_t i : fit) {
      const double r = std::log(*sized[i].run->measurement.tokens_per_s / training_speed(sized[i], factor));
      loss += r * r;
    }
    return loss;
  });
}

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
  c.speed.factor = fit_speed(sized, fit);
  std::vector<double> errors;
  std::vector<double> model_errors;
  std::vector<double> log_ratios;  // measured speed over the left-out prediction
  for (std::size_t k = 0; k < fit.size(); ++k) {
    const Sized& s = sized[fit[k]];
    const SpeedFigure figure = speed_figure(s);
    CalibrationFigure out{figure.metric, figure.measured, figure.before, predicted(s, figure, c.speed.factor), {}};
    model_errors.push_back(relative_error(figure.before, figure.measured));
    if (fit.size() >= 2) {
      std::vector<std::size_t> others = fit;
      others.erase(others.begin() + static_cast<std::ptrdiff_t>(k));
      out.left_out = predicted(s, figure, fit_speed(sized, others));
      errors.push_back(relative_error(*out.left_out, figure.measured));
      const double ratio = figure.latency ? *out.left_out / figure.measured : figure.measured / *out.left_out;
      log_ratios.push_back(std::log(ratio));
    }
    provenance[static_cast<std::size_t>(std::find(group.begin(), group.end(), fit[k]) - group.begin())]
        .figures.push_back(out);
  }
  if (!model_errors.empty()) {
    c.speed.model_error = median(model_errors);
  }
  if (!errors.empty()) {
    c.speed.median_error = median(errors);
    c.speed.max_error = *std::max_element(errors.begin(), errors.end());
    if (*c.speed.median_error >= *c.speed.model_error) {
      c.speed.applied = false;  // the measurements predict each other no better than the model does
      c.speed.factor = 1.0;
      for (const std::size_t i : fit) {
        auto& figure = provenance[static_cast<std::size_t>(std::find(group.begin(), group.end(), i) - group.begin())]
                           .figures.back();
        figure.after = figure.before;
      }
      return;
    }
  }
  if (fit.size() >= 3) {
    c.speed.band_low = std::exp(std::min(0.0, *std::min_element(log_ratios.begin(), log_ratios.end())));
    c.speed.band_high = std::exp(std::max(0.0, *std::max_element(log_ratios.begin(), log_ratios.end())));
  }
}

// A memory correction: measured = scale x predicted + offset, never below
// the weights (as sizing::memory_on applies it).
struct MemoryFit {
  double scale = 1.0;
  double offset = 0;
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
  const double through_origin = pp > 0 ? std::clamp(pm / pp, min_memory_scale, max_memory_scale) : 1.0;
  if (form == MemoryForm::scale) {
    return {through_origin, 0.0};
  }
  const double scale = sxx > 0 ? sxy / sxx : 1.0;
  if (scale < min_memory_scale || scale > max_memory_scale) {
    return {through_origin, 0.0};
  }
  return {scale, mm - scale * mp};
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
  if (!left_out.empty() && median_error(left_out, measured) >= *c.memory.model_error) {
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
                          measurement_flags(m),
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
  const std::pair<const char*, std::optional<int>> layout[] = {
      {"--tp", m.tp}, {"--pp", m.pp}, {"--cp", m.cp}, {"--zero", m.zero_stage}, {"--global-batch", m.global_batch}};
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
  for (const MeasuredRun& run : runs) {
    sized.push_back(run.measurement.kind == CalibrationKind::training ? size_training(run) : size_serving(run));
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
