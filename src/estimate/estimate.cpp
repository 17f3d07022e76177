// One workload on one card, put together: the count search, then time or
// throughput and cost for the plan found, or why nothing fits.
#include "gpu_advise/estimate.hpp"

#include <algorithm>

#include "estimate/parts.hpp"
#include "gpu_advise/units.hpp"

namespace gpu_advise {

using namespace sizing;

namespace {

// Why no count fits, from what the search saw last.
Shortfall shortfall(const Request& request, const SearchResult& found, double usable_gib) {
  Shortfall why;
  const MemoryBreakdown& smallest = found.smallest;
  why.need_gib = smallest.total() / bytes_per_gib;
  why.usable_gib = usable_gib;
  why.fixed_gib = (smallest.activations + smallest.kv_cache + smallest.reserve) / bytes_per_gib;
  why.max_gpus = request.count.value_or(request.max_gpus);
  if (request.count) {
    why.count = *request.count;
  } else {
    const std::vector<int> counts = candidate_counts(request.max_gpus);
    why.count = counts.empty() ? 0 : counts.back();
  }
  if (found.missed) {
    why.kind = Shortfall::Kind::deadline;
    why.count = found.last_count;
    why.deadline_hours = request.effective_deadline_hours().value_or(0);
    why.hours_at_count = found.missed->wall_hours.typical;
  } else if (request.count) {
    why.kind = Shortfall::Kind::count_too_small;
  } else if (why.fixed_gib > usable_gib) {
    why.kind = Shortfall::Kind::activations;
  } else {
    why.kind = Shortfall::Kind::too_many_gpus;
  }
  return why;
}

}  // namespace

Estimate estimate(const Request& request, const ModelShape& model, const GpuSpec& gpu) {
  Estimate e;
  e.capacity_bytes = gpu.memory.capacity_gib * bytes_per_gib;
  e.usable_bytes = e.capacity_bytes * memory_policy(request.task).usable_fraction;

  if (request.task == Task::inference && request.precision == InferencePrecision::fp8 && !gpu.compute.fp8_tflops) {
    e.why_not.kind = Shortfall::Kind::no_fp8;
    return e;
  }

  const SearchResult found = search_count(request, model, gpu, e.usable_bytes);
  if (!found.chosen) {
    e.why_not = shortfall(request, found, e.usable_bytes / bytes_per_gib);
    e.per_gpu = found.smallest;
    return e;
  }

  e.fits = true;
  e.count = found.count;
  e.layout = found.chosen->layout;
  e.per_gpu = found.chosen->memory;
  e.nodes = (e.count + gpus_per_node - 1) / gpus_per_node;
  if (is_training(request.task)) {
    const ScaleOut out = scale_out(gpu, e.count);
    if (out.note) {
      EstimateNote note = *out.note;
      if (note.kind == EstimateNote::Kind::multi_node) {
        // Tensor parallelism stays inside the domain; pipeline stages cross
        // domains when one model copy is bigger than a domain; data-parallel
        // copies cross whenever there are several.
        const int domain = std::max(1, gpu.interconnect.domain_size);
        const bool pipeline_crosses = e.layout.tensor * e.layout.pipeline > domain;
        const bool data_crosses = e.layout.data > 1;
        note.crossing = pipeline_crosses && data_crosses ? EstimateNote::Crossing::data_and_pipeline
                        : pipeline_crosses               ? EstimateNote::Crossing::pipeline
                                                         : EstimateNote::Crossing::data_parallel;
        note.scale_out_gbps_per_gpu = gpu.node.scale_out_gbps_per_gpu;
      }
      e.notes.push_back(note);
    }
    e.training = training_time(request, model, gpu, e.layout, out, e.notes);
  } else {
    e.inference = inference_performance(request, model, gpu, e.layout, e.per_gpu, e.usable_bytes);
    if (e.layout.tensor > 1 && gpu.interconnect.domain_size < 2) {
      e.notes.push_back(EstimateNote{EstimateNote::Kind::tp_over_pcie, e.layout.tensor, 0});
    }
  }
  add_costs(request, gpu, e);
  return e;
}

}  // namespace gpu_advise
