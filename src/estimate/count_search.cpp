// The number of GPUs: the smallest count that fits and meets the deadline,
// with its best layout (docs/methodology.md §5). Fitting and finishing in
// time only get easier with more GPUs, so the searches bisect; a test checks
// them against every count.
#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>

#include "estimate/parts.hpp"

namespace gpu_advise::sizing {

CountLadder::CountLadder(std::vector<int> small, int step, int max) : m_step(step), m_max(max) {
  m_above = small.empty() ? 0 : small.back();
  for (const int n : small) {
    if (n <= max) {
      m_small.push_back(n);
    }
  }
  if (m_step > 0) {
    m_first = m_above / m_step + 1;
    const int last = max / m_step;
    m_extra = last >= m_first ? static_cast<std::size_t>(last - m_first + 1) : 0;
  }
}

CountLadder CountLadder::for_request(const Request& request, const GpuSpec& gpu) {
  if (request.count) {
    return CountLadder({*request.count}, 0, *request.count);
  }
  const int node = std::max(1, gpu.node.gpus_per_node);
  // Renting, a price file's instance shapes are what can be rented.
  std::vector<int> shapes = request.mode == CostMode::rent ? rent_shapes(request, gpu) : gpu.node.rent_shapes;
  if (shapes.empty()) {
    for (const int n : {1, 2, 4}) {
      if (n < node) {
        shapes.push_back(n);
      }
    }
    shapes.push_back(node);
  }
  if (request.mode == CostMode::rent) {
    return CountLadder(shapes, std::max(shapes.back(), node), request.max_gpus);
  }
  if (gpu.form_factor == FormFactor::pcie) {
    std::vector<int> small;
    for (const int n : {1, 2, 4}) {
      if (n < node) {
        small.push_back(n);
      }
    }
    small.push_back(node);
    return CountLadder(small, node, request.max_gpus);
  }
  // A baseboard card comes in whole servers; a rack- or pod-scale system
  // (rented only whole) in whole systems.
  const int unit = std::max(node, shapes.back());
  return CountLadder({unit}, unit, request.max_gpus);
}

CountLadder CountLadder::multiples_of(int unit) const {
  CountLadder out;
  out.m_max = m_max;
  out.m_above = m_above;
  for (const int n : m_small) {
    if (n % unit == 0) {
      out.m_small.push_back(n);
    }
  }
  const long long step =
      m_step > 0 && unit > 0 ? std::lcm(static_cast<long long>(m_step), static_cast<long long>(unit)) : 0;
  if (step > 0 && step <= m_max) {  // a larger step has no count within max
    out.m_step = static_cast<int>(step);
    out.m_first = m_above / out.m_step + 1;
    const int last = m_max / out.m_step;
    out.m_extra = last >= out.m_first ? static_cast<std::size_t>(last - out.m_first + 1) : 0;
  }
  return out;
}

std::optional<int> CountLadder::at_least(int n) const {
  for (const int small : m_small) {
    if (small >= n) {
      return small;
    }
  }
  if (m_extra == 0) {
    return std::nullopt;
  }
  const int k = std::max(m_first, (n + m_step - 1) / m_step);
  if (k >= m_first + static_cast<int>(m_extra)) {
    return std::nullopt;
  }
  return k * m_step;
}

namespace {

// One count tried: the best layout that fits in memory and time, and what the
// attempt learnt when none does.
struct Probe {
  std::optional<Candidate> candidate;
  MemoryBreakdown smallest;
  std::optional<TrainingEstimate> too_slow;
  std::optional<ServingResult> latency;                 // serving: the closest miss of a latency target
  std::optional<double> rate_served;                    // serving: the most requests/s of layouts short of the rate
  std::optional<std::pair<double, double>> queue_miss;  // serving: the rate served, p90 first token over its target
};

// A training layout's time, computed once for its preference and its deadline.
TrainingEstimate time_layout(const Request& request, const ModelShape& model, const GpuSpec& gpu,
                             const Layout& layout) {
  std::vector<EstimateNote> scratch;
  return training_time(request, model, gpu, layout, scratch);
}

// Whether a fitting layout meets the deadline; the estimate when it does not.
std::optional<TrainingEstimate> misses_deadline(const TrainingEstimate& t, std::optional<double> deadline) {
  if (deadline && t.wall_hours.typical > *deadline) {
    return t;
  }
  return std::nullopt;
}

void keep_smallest(MemoryBreakdown& smallest, const MemoryBreakdown& memory) {
  if (smallest.total() == 0 || memory.total() < smallest.total()) {
    smallest = memory;
  }
}

// Serving at n GPUs: of the layouts that fit and meet the targets (and the
// request rate), the one that serves the most requests per second; first
// those whose model copy fits in one of the instances a price file rents
// (copies may sit on separate instances, a copy may not; cost.cpp).
Probe probe_serving(const Request& request, const ModelShape& model, const GpuSpec& gpu, int n, double usable,
                    bool relax) {
  Probe result;
  const int instance = largest_instance(request, gpu);
  auto rentable = [&](const Layout& layout) { return instance == 0 || gpus_together(layout, false, gpu) <= instance; };
  for (const Layout& layout : serving_layouts(request, model, gpu, n)) {
    const MemoryBreakdown memory = memory_on(request, model, gpu, layout);
    keep_smallest(result.smallest, memory);
    if (memory.total() > usable) {
      continue;
    }
    ServingResult served = serve(request, model, gpu, layout, memory, usable, relax);
    if (served.missed) {
      if (!result.latency || served.best_ms / served.target_ms < result.latency->best_ms / result.latency->target_ms) {
        result.latency = served;
      }
      continue;
    }
    if (!served.fits || !served.estimate) {
      continue;
    }
    if (served.short_of_rate) {
      result.rate_served = std::max(result.rate_served.value_or(0), served.estimate->requests_per_s.typical);
      if (served.queue_p90_ms > 0 && (!result.queue_miss || served.queue_p90_ms < result.queue_miss->first)) {
        result.queue_miss = std::pair{served.queue_p90_ms, served.queue_target_ms};
      }
      continue;
    }
    const double preference = served.estimate->requests_per_s.typical;
    const bool better =
        !result.candidate || rentable(layout) > rentable(result.candidate->layout) ||
        (rentable(layout) == rentable(result.candidate->layout) && preference > result.candidate->preference);
    if (better) {
      result.candidate = Candidate{layout, memory, preference, served.estimate};
    }
  }
  if (result.candidate) {
    result.latency.reset();
    result.rate_served.reset();
  } else if (result.rate_served) {
    result.latency.reset();  // some layout met the targets: the rate is the blocker
  }
  return result;
}

// Every layout of n GPUs: the most preferred of those that fit in memory and
// meet the deadline. The deadline is checked only on a layout that would be
// the best so far, so the answer is the same as filtering first.
Probe probe_count(const Request& request, const ModelShape& model, const GpuSpec& gpu, int n, double usable,
                  std::optional<double> deadline, bool relax) {
  if (request.task == Task::inference) {
    return probe_serving(request, model, gpu, n, usable, relax);
  }
  Probe result;
  for (const Layout& layout : layouts_for(request, model, gpu, n)) {
    const MemoryBreakdown memory = memory_on(request, model, gpu, layout);
    keep_smallest(result.smallest, memory);
    if (memory.total() > usable) {
      continue;
    }
    const TrainingEstimate t = time_layout(request, model, gpu, layout);
    const double preference = layout_preference(layout, t);
    if (result.candidate && preference <= result.candidate->preference + 1e-12) {
      continue;
    }
    if (auto slow = misses_deadline(t, deadline)) {
      if (!result.too_slow || slow->wall_hours.typical < result.too_slow->wall_hours.typical) {
        result.too_slow = slow;
      }
      continue;
    }
    result.candidate = Candidate{layout, memory, preference};
  }
  if (result.candidate) {
    result.too_slow.reset();
  }
  return result;
}

// One family's layout at n GPUs, if it fits in memory and time; `probe`, when
// given, collects the least memory and the fastest miss.
std::optional<Candidate> check_family(const Request& request, const ModelShape& model, const GpuSpec& gpu,
                                      const Layout& family, int n, double usable, std::optional<double> deadline,
                                      Probe* probe) {
  const Layout layout = with_count(request, family, n);
  if (!as_fixed(request, layout)) {
    return std::nullopt;
  }
  const MemoryBreakdown memory = memory_on(request, model, gpu, layout);
  if (probe != nullptr) {
    keep_smallest(probe->smallest, memory);
  }
  if (memory.total() > usable) {
    return std::nullopt;
  }
  const TrainingEstimate t = time_layout(request, model, gpu, layout);
  if (auto slow = misses_deadline(t, deadline)) {
    if (probe != nullptr && (!probe->too_slow || slow->wall_hours.typical < probe->too_slow->wall_hours.typical)) {
      probe->too_slow = slow;
    }
    return std::nullopt;
  }
  return Candidate{layout, memory, layout_preference(layout, t)};
}

// Full training without --count. Per family (TP x PP x ZeRO x recompute)
// memory falls and speed rises with the data-parallel size, so each family
// bisects to its smallest count; the smallest over the families wins, then
// the more preferred layout.
SearchResult search_families(const Request& request, const ModelShape& model, const GpuSpec& gpu, double usable,
                             std::optional<double> deadline) {
  const CountLadder ladder = CountLadder::for_request(request, gpu);
  SearchResult result;
  Probe last;
  for (const Layout& family : training_families(request, model, gpu)) {
    if (request.data_parallel) {  // --dp: one count per family, on offer or not
      const int n = family.model_parallel() * *request.data_parallel;
      if (n > request.max_gpus) {
        continue;
      }
      const auto candidate = check_family(request, model, gpu, family, n, usable, deadline, &last);
      if (candidate && (!result.chosen || n < result.count ||
                        (n == result.count && candidate->preference > result.chosen->preference))) {
        result.chosen = candidate;
        result.count = n;
      } else if (!candidate) {
        result.last_count = n;
      }
      continue;
    }
    const CountLadder counts = ladder.multiples_of(family.model_parallel());
    if (counts.empty()) {
      continue;
    }
    auto fits = [&](std::size_t k, Probe* probe) {
      return check_family(request, model, gpu, family, counts[k], usable, deadline, probe);
    };
    std::size_t high = counts.size() - 1;
    // Every data-parallel rank needs a micro-batch of the global batch, and a
    // pipeline as many micro-batches as stages to interleave and keep its
    // bubble small: beyond (global batch / micro-batch / stages) ranks the
    // batch would grow or the family only get slower (docs/methodology.md
    // §3), so its counts stop there, where time still falls with the count.
    // A family past the limit from its first count runs with the batch grown
    // (one micro-batch a rank), which the plan then says.
    const double cap = static_cast<double>(data_parallel_limit(request, family.pipeline)) * family.model_parallel();
    if (counts[0] <= cap) {
      std::size_t low = 0;
      while (low < high) {  // the last count at most the cap
        const std::size_t middle = low + (high - low + 1) / 2;
        if (counts[middle] <= cap) {
          low = middle;
        } else {
          high = middle - 1;
        }
      }
    }
    if (!fits(high, &last)) {
      result.last_count = counts[high];
      continue;
    }
    std::size_t low = 0;
    while (low < high) {
      const std::size_t middle = low + (high - low) / 2;
      if (fits(middle, nullptr)) {
        high = middle;
      } else {
        low = middle + 1;
      }
    }
    // Time is monotone in the count only up to rounding: the global batch
    // splits into lround(batch / ranks) micro-batches, so one rank more can
    // leave fewer micro-batches and a larger pipeline bubble. The counts just
    // below the bisection's are tried too.
    for (std::size_t below = high, tried = 0; below > 0 && tried < 8; --below, ++tried) {
      if (fits(below - 1, nullptr)) {
        high = below - 1;
      }
    }
    const int n = counts[high];
    const auto candidate = fits(high, nullptr);
    if (!result.chosen || n < result.count ||
        (n == result.count && candidate->preference > result.chosen->preference)) {
      result.chosen = candidate;
      result.count = n;
    }
  }
  result.smallest = last.smallest;
  result.missed = last.too_slow;
  return result;
}

// Every other task, or a fixed --count: gallop through the candidate counts
// to one that works, then bisect back to the smallest.
SearchResult search_counts(const Request& request, const ModelShape& model, const GpuSpec& gpu, double usable,
                           std::optional<double> deadline, bool relax) {
  const CountLadder counts = CountLadder::for_request(request, gpu);
  SearchResult result;
  Probe last;
  // Serving: the closest miss of a latency target over every count tried.
  auto closest = [](const ServingResult& r) { return r.best_ms / r.target_ms; };
  auto probe = [&](int n) {
    Probe p = probe_count(request, model, gpu, n, usable, deadline, relax);
    if (p.latency && (!result.latency || closest(*p.latency) < closest(*result.latency))) {
      result.latency = p.latency;
      result.latency_count = n;
    }
    return p;
  };
  std::size_t low = 0;  // counts[low - 1] is known to fail (or low == 0)
  std::size_t high = counts.size();
  std::size_t step = 1;
  std::size_t index = 0;
  while (index < counts.size()) {  // gallop
    Probe p = probe(counts[index]);
    if (p.candidate) {
      high = index;
      break;
    }
    last = p;
    result.last_count = counts[index];
    low = index + 1;
    index += step;
    step *= 2;
  }
  if (high == counts.size() && low < counts.size()) {
    Probe p = probe(counts.back());  // the largest allowed: the last chance, and the reason if it fails
    if (p.candidate) {
      high = counts.size() - 1;
    } else {
      last = p;
      result.last_count = counts.back();
    }
  }
  if (high < counts.size()) {
    while (low < high) {  // bisect: counts[high] works
      const std::size_t middle = low + (high - low) / 2;
      if (probe(counts[middle]).candidate) {
        high = middle;
      } else {
        low = middle + 1;
      }
    }
    result.chosen = probe(counts[high]).candidate;
    result.count = counts[high];
  }
  result.smallest = last.smallest;
  result.missed = last.too_slow;
  result.rate_served = result.chosen ? std::nullopt : last.rate_served;
  result.queue_miss = result.chosen ? std::nullopt : last.queue_miss;
  if (result.chosen || !last.latency) {  // the blocker only when the last count fit and missed
    result.latency.reset();
  }
  return result;
}

// Serving a request rate: one copy of each size on offer (whole servers in
// powers of two beyond one), at the targets,
// serves r requests/s, so the rate takes ceil(rate / r) copies; the copy size
// whose copies need the fewest GPUs wins (copies that span servers included).
// Copies are data-parallel, so the count need not be searched: bisecting it
// would not do, since a count serves the rate only when a good copy size
// divides it. Empty when no copy size serves the rate within --max-gpus.
std::optional<SearchResult> search_rate(const Request& request, const ModelShape& model, const GpuSpec& gpu,
                                        double usable, bool relax) {
  const CountLadder ladder = CountLadder::for_request(request, gpu);
  Request one = request;
  one.request_rate.reset();
  const double rate = *request.request_rate;
  std::optional<int> best;
  int best_group = 1;
  const int node = std::max(1, gpu.node.gpus_per_node);
  for (std::size_t k = 0; k < ladder.size(); ++k) {
    const int group = ladder[k];
    if (best && group >= *best) {
      break;
    }
    // Copies of a server or more come in powers of two servers (TP within a
    // server, PP over 2, 4, 8 ... of them): a few probes, not every count.
    if (group > node && (group % node != 0 || !std::has_single_bit(static_cast<unsigned>(group / node)))) {
      continue;
    }
    const Probe copy = probe_serving(one, model, gpu, group, usable, relax);
    if (!copy.candidate || !copy.candidate->serving || copy.candidate->serving->requests_per_s.typical <= 0) {
      continue;
    }
    double copies = std::ceil(rate / copy.candidate->serving->requests_per_s.typical);
    // More copies until each one's queue keeps the p90 first token within the
    // target (a bounded search: a copy at half load hardly waits).
    bool queued = false;
    if (const auto target = p90_target_ms(request, *copy.candidate->serving)) {
      queued = true;
      for (int more = 0; more < 64; ++more, ++copies) {
        const Queueing q = queueing(rate / copies, *copy.candidate->serving);  // each group's share of the rate
        if (q.stable && q.ttft_p90_ms <= *target) {
          queued = false;
          break;
        }
      }
    }
    if (queued) {  // no count of this copy size keeps the p90 within the target
      continue;
    }
    if (copies * group > request.max_gpus) {
      continue;
    }
    const auto n = ladder.multiples_of(group).at_least(static_cast<int>(copies) * group);
    if (n && (!best || *n < *best)) {
      best = n;
      best_group = group;
    }
  }
  if (!best) {
    return std::nullopt;
  }
  Probe chosen = probe_serving(request, model, gpu, *best, usable, relax);
  // Copies that split into prefill and decode pools may serve the rate on
  // fewer GPUs than one copy's colocated rate implies: a few smaller counts
  // of the same copy size, largest first, while they still serve it.
  const CountLadder multiples = ladder.multiples_of(best_group);
  for (std::size_t k = multiples.size(), tried = 0; k-- > 0 && tried < 8;) {
    const int n = multiples[k];
    if (n >= *best || n < 2 * best_group) {
      continue;
    }
    ++tried;
    Probe fewer = probe_serving(request, model, gpu, n, usable, relax);
    if (!fewer.candidate || !fewer.candidate->serving || !fewer.candidate->serving->disaggregated) {
      break;
    }
    best = n;
    chosen = fewer;
  }
  if (!chosen.candidate) {  // the copies meet the rate by construction; kept for safety
    return std::nullopt;
  }
  SearchResult result;
  result.chosen = chosen.candidate;
  result.count = *best;
  result.smallest = chosen.smallest;
  return result;
}

}  // namespace

SearchResult search_count(const Request& request, const ModelShape& model, const GpuSpec& gpu, double usable_bytes) {
  const std::optional<double> deadline = request.effective_deadline_hours();
  const bool full_training = request.task == Task::pretrain || request.task == Task::full;
  if (full_training && !request.count) {
    return search_families(request, model, gpu, usable_bytes, deadline);
  }
  if (request.task != Task::inference) {
    return search_counts(request, model, gpu, usable_bytes, deadline, false);
  }
  // Serving: the fewest GPUs that meet the latency targets, the interactive
  // defaults included; when no count meets a default, the fewest that fit,
  // at the knee.
  auto search = [&](bool relax) {
    if (request.request_rate && !request.count) {
      if (auto found = search_rate(request, model, gpu, usable_bytes, relax)) {
        return *found;
      }
    }
    return search_counts(request, model, gpu, usable_bytes, deadline, relax);  // the reason when none serves it
  };
  SearchResult strict = search(false);
  const bool defaults =
      (request.tpot_target_ms && !request.tpot_stated) || (request.ttft_target_ms && !request.ttft_stated);
  if (strict.chosen || !defaults) {
    return strict;
  }
  // Relaxed, a default target no longer blocks: what still does is the reason.
  return search(true);
}

}  // namespace gpu_advise::sizing
