// One workload on one card, put together: the count search, then time or
// throughput and cost for the plan found, or why nothing fits.
#include "gpu_advise/estimate.hpp"

#include <algorithm>
#include <limits>

#include "estimate/parts.hpp"
#include "gpu_advise/units.hpp"

namespace gpu_advise {

using namespace sizing;

namespace {

// Why no count fits, from what the search saw last.
Shortfall shortfall(const Request& request, const GpuSpec& gpu, const SearchResult& found, double usable_gib) {
  Shortfall why;
  const MemoryBreakdown& smallest = found.smallest;
  why.need_gib = smallest.total() / bytes_per_gib;
  why.usable_gib = usable_gib;
  why.fixed_gib = (smallest.activations + smallest.kv_cache + smallest.reserve) / bytes_per_gib;
  why.max_gpus = request.count.value_or(request.max_gpus);
  why.serving = request.task == Task::inference;
  const CountLadder ladder = CountLadder::for_request(request, gpu);
  if (ladder.empty()) {  // the smallest shape on offer is above --max-gpus
    Request unbounded = request;
    unbounded.max_gpus = std::numeric_limits<int>::max() / 2;
    why.kind = Shortfall::Kind::no_shape;
    why.count = CountLadder::for_request(unbounded, gpu).front();
    return why;
  }
  why.count = ladder.back();
  if (found.rate_served && request.request_rate) {
    why.kind = Shortfall::Kind::rate;
    why.count = found.last_count;
    why.request_rate = *request.request_rate;
    why.requests_per_s = *found.rate_served;
    if (found.queue_miss) {
      why.queue_p90_ms = found.queue_miss->first;
      why.target_ms = found.queue_miss->second;
    }
  } else if (found.latency) {
    why.kind = Shortfall::Kind::latency;
    why.count = found.latency_count;
    why.latency_tpot = found.latency->latency_tpot;
    why.target_ms = found.latency->target_ms;
    why.best_ms = found.latency->best_ms;
  } else if (found.missed) {
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

// What crosses the network between servers, when the plan spans several:
// tensor parallelism stays inside the scale-up domain; pipeline stages cross
// when one model copy is bigger than a domain; data-parallel copies cross
// whenever there are several.
EstimateNote::Crossing crossing(const GpuSpec& gpu, const Layout& layout) {
  const int domain = std::max(1, gpu.interconnect.domain_size);
  const bool pipeline_crosses = layout.tensor * layout.pipeline > domain;
  const bool data_crosses = layout.data > 1;
  return pipeline_crosses && data_crosses ? EstimateNote::Crossing::data_and_pipeline
         : pipeline_crosses               ? EstimateNote::Crossing::pipeline
                                          : EstimateNote::Crossing::data_parallel;
}

// The time a rented job holds its GPUs beyond the training steps: start-up
// (allocation, boot, image: about 1-2 min on marketplaces, 5-15 min on AWS and
// 10-20 min on Google Cloud, io.net's 2026 comparison; 10 min taken), reading
// the BF16 weights and, for a full fine-tune or pretraining, writing them back,
// each at 1 GB/s from network storage (every server in parallel).
double job_overhead_hours(const Request& request, const ModelShape& model) {
  constexpr double start_up_hours = 10.0 / 60.0;
  constexpr double storage_bytes_per_s = 1e9;
  const double weights = 2.0 * model.params;
  const double saved = request.task == Task::full || request.task == Task::pretrain ? weights : 0.0;
  return start_up_hours + (weights + saved) / storage_bytes_per_s / 3600.0;
}

}  // namespace

namespace sizing {

Estimate plan_at_smallest(const Request& stated, const ModelShape& model, const GpuSpec& gpu) {
  const Request request = on_card(stated, gpu);
  Estimate e;
  e.capacity_bytes = gpu.memory.capacity_gib * bytes_per_gib;
  e.usable_bytes = e.capacity_bytes * memory_policy(request).usable_fraction;

  if (request.task == Task::inference && request.precision == InferencePrecision::fp8 && !gpu.compute.fp8_tflops) {
    e.why_not.kind = Shortfall::Kind::no_fp8;
    return e;
  }
  if (request.task == Task::inference && request.precision == InferencePrecision::fp4 && !gpu.compute.fp4_tflops) {
    e.why_not.kind = Shortfall::Kind::no_fp4;
    return e;
  }
  // An FP4 (NVFP4) KV cache: TensorRT-LLM's, on cards with FP4 tensor cores.
  if (request.task == Task::inference && request.kv_precision == KvPrecision::fp4 &&
      (!gpu.compute.fp4_tflops || request.engine != ServingEngine::trtllm)) {
    e.why_not.kind = Shortfall::Kind::no_fp4_kv;
    return e;
  }
  if (request.task == Task::inference && !runs_on(engine_profile(*request.engine), gpu.software)) {
    e.why_not.kind = Shortfall::Kind::no_engine;
    e.why_not.engine = *request.engine;
    e.why_not.stack = gpu.software;
    return e;
  }

  const SearchResult found = search_count(request, model, gpu, e.usable_bytes);
  if (!found.chosen) {
    e.why_not = shortfall(request, gpu, found, e.usable_bytes / bytes_per_gib);
    e.per_gpu = found.smallest;
    return e;
  }

  e.fits = true;
  e.calibration = calibration_index(request, gpu);
  e.count = found.count;
  e.layout = found.chosen->layout;
  e.per_gpu = found.chosen->memory;
  const int node = std::max(1, gpu.node.gpus_per_node);
  e.nodes = (e.count + node - 1) / node;
  e.host_bytes_per_server = e.per_gpu.host * std::min(e.count, node);
  if (is_training(request.task)) {
    if (auto scale_out = scale_out_note(gpu, e.count)) {
      EstimateNote note = *scale_out;
      if (note.kind == EstimateNote::Kind::multi_node) {
        note.crossing = crossing(gpu, e.layout);
        note.scale_out_gbps_per_gpu = gpu.node.scale_out_gbps_per_gpu;
      } else if (e.nodes > 1) {  // PCIe or paired cards in several servers
        note.nodes = e.nodes;
        note.scale_out_gbps_per_gpu = gpu.node.scale_out_gbps_per_gpu;
      }
      e.notes.push_back(note);
    }
    e.training = training_time(request, model, gpu, e.layout, e.notes);
    e.training->job_overhead_hours = job_overhead_hours(request, model);
    // More data-parallel ranks than the global batch feeds: the step runs one
    // micro-batch a rank, a larger batch than asked for.
    const double asked = static_cast<double>(request.effective_global_batch()) * request.seq_len;
    if (e.training->step.tokens > asked * 1.5) {
      EstimateNote grown{EstimateNote::Kind::batch_grown, 0, 0};
      grown.gpus = static_cast<int>(std::lround(e.training->step.tokens / request.seq_len));
      grown.batch = request.effective_global_batch();
      e.notes.push_back(grown);
    }
  } else {
    e.inference = found.chosen->serving;
    // The memory at the operating point: its sequences' cache.
    e.per_gpu.kv_cache = kv_bytes_per_sequence(request, model, e.layout) * e.inference->concurrency;
    if (e.layout.tensor > std::max(1, gpu.interconnect.domain_size)) {
      e.notes.push_back(EstimateNote{EstimateNote::Kind::tp_over_pcie, e.layout.tensor, 0});
    }
    // Servers with no scale-up link between them: what crosses is what one
    // model copy sends there, its pipeline stages (tensor parallelism stays
    // inside one server; copies of the model exchange nothing), or with wide
    // expert parallelism every MoE layer's all-to-all.
    const int span = std::max(node, gpu.interconnect.domain_size);
    const bool wide = e.layout.wide_expert();
    const int copy = wide ? e.layout.expert : e.layout.tensor * e.layout.pipeline;
    if (copy > span) {
      e.notes.push_back(EstimateNote{EstimateNote::Kind::multi_node, copy, (copy + span - 1) / span,
                                     wide ? EstimateNote::Crossing::experts : EstimateNote::Crossing::pipeline,
                                     gpu.node.scale_out_gbps_per_gpu});
    }
  }
  add_costs(request, gpu, e);
  return e;
}

int needed_count(const Request& stated, const ModelShape& model, const GpuSpec& gpu, int smallest) {
  const Request request = on_card(stated, gpu);
  if (smallest <= 1 || request.count) {
    return smallest;
  }
  // Rented in 1, 2, 4 and whole nodes (or no shapes recorded): what is on
  // offer is what the workload needs, and the search need not run again.
  const int node = std::max(1, gpu.node.gpus_per_node);
  std::vector<int> any_shape;
  for (const int n : {1, 2, 4}) {
    if (n < node) {
      any_shape.push_back(n);
    }
  }
  any_shape.push_back(node);
  const std::vector<int> shapes = rent_shapes(request, gpu);
  if (request.mode == CostMode::rent && (shapes.empty() || shapes == any_shape)) {
    return smallest;
  }
  // The same search over 1, 2, 4 and whole nodes, as if every count were
  // rented (without quotes, so no price file's shapes: the search is of fit alone).
  GpuSpec any_count = gpu;
  any_count.node.rent_shapes.clear();
  any_count.rent_usd_per_gpu_hour.clear();
  Request renting = request;
  renting.mode = CostMode::rent;
  const double usable = gpu.memory.capacity_gib * bytes_per_gib * memory_policy(request).usable_fraction;
  const SearchResult found = search_count(renting, model, any_count, usable);
  return found.chosen ? found.count : smallest;
}

void first_sizing(const Request& request, const ModelShape& model, const GpuSpec& gpu, Estimate& e) {
  e.sizing.smallest = e.count;
  e.sizing.needed = needed_count(request, model, gpu, e.count);
  if (request.count) {
    e.sizing.stop = Sizing::Stop::fixed;
    // A --count that is not a shape on offer is kept, and said to be one.
    Request open = request;
    open.count.reset();
    open.max_gpus = std::numeric_limits<int>::max() / 2;
    const auto offered = CountLadder::for_request(open, gpu).at_least(*request.count);
    if (offered != request.count) {
      EstimateNote note{EstimateNote::Kind::not_on_offer, *request.count, 0};
      note.offered = offered.value_or(0);
      e.notes.push_back(note);
    }
  }
}

}  // namespace sizing

}  // namespace gpu_advise
