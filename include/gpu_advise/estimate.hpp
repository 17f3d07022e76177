// Sizing one workload on one card: memory per GPU, the number of GPUs and how
// they split the work, time or throughput, and cost, each uncertain figure as
// low / typical / high. Pure functions: no printing, no globals. Every
// formula and constant is in docs/methodology.md with its origin.
#pragma once

#include <algorithm>
#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpu_advise/gpu.hpp"
#include "gpu_advise/model.hpp"
#include "gpu_advise/ownership.hpp"
#include "gpu_advise/request.hpp"

namespace gpu_advise {

// Bytes per GPU.
// When a training step's memory peaks: every part held through the whole step
// (serving, and stacks whose gradient buffers persist), at the end of the
// forward pass (activations held, gradients not yet made), or in the
// optimizer step (activations freed, gradients and states held).
enum class MemoryPhase { whole_step, forward, optimizer_step };

struct MemoryBreakdown {
  double weights = 0;
  double gradients = 0;
  double optimizer = 0;
  double activations = 0;
  double kv_cache = 0;
  double reserve = 0;
  double host = 0;  // kept in host memory per GPU (--offload); not part of total()
  // --calibration (training): the measured peaks' correction, scale x (total - reserve) + offset - (total - reserve);
  // signed, part of total().
  double calibration = 0;
  // Training: the peak is the largest phase, not the sum of every part. A
  // stack that frees its gradients after each optimizer step holds the
  // activations in the forward pass and the gradients in the optimizer step,
  // never both: `released` is the smaller of the two, and `phase` the phase
  // the peak falls in.
  double released = 0;
  MemoryPhase phase = MemoryPhase::whole_step;

  [[nodiscard]] double total() const {
    return weights + gradients + optimizer + activations + kv_cache + reserve - released + calibration;
  }
};

// How `count` GPUs split the work: tensor x pipeline x data parallel.
struct Layout {
  int tensor = 1;
  int pipeline = 1;
  int data = 1;                        // serving: replicas
  int zero_stage = 0;                  // training only
  std::optional<Recompute> recompute;  // training: chosen when the request leaves it open
  int expert = 1;   // MoE: experts spread over this many GPUs (serving: of a replica; training: 1 = the default)
  int context = 1;  // training: context parallel, the sequence split over this many GPUs
  // The GPUs one model copy spans (data parallelism replicates it).
  [[nodiscard]] int model_parallel() const { return tensor * pipeline * context; }
  [[nodiscard]] int gpus() const { return model_parallel() * data; }
  // Serving only (a training layout's experts follow its own rules): a MoE
  // model with wide expert parallelism, the routed experts
  // spread over `expert` GPUs, each running its own requests' attention
  // (data-parallel attention: tensor 1, `data` GPUs, data / expert groups).
  [[nodiscard]] bool wide_expert() const { return expert > tensor * pipeline && tensor * pipeline == 1; }
  // Serving: the model copies (with wide expert parallelism, the groups).
  [[nodiscard]] int model_copies() const { return wide_expert() ? std::max(1, data / expert) : data; }
};

// Where one optimizer step's time goes on each GPU, in seconds, at the
// typical kernel efficiency (docs/methodology.md §4).
struct TrainingStep {
  double compute = 0;     // matrix products, attention and recompute at the kernel efficiency
  double tensor = 0;      // model-parallel traffic: TP collectives, MoE all-to-alls (DualPipe: the unhidden)
  double bubble = 0;      // pipeline fill and drain
  double data = 0;        // data-parallel and ZeRO collectives not hidden behind compute
  double offload = 0;     // --offload: PCIe transfers and the host's optimizer
  int micro_batches = 1;  // forward-backward passes per GPU per step (gradient accumulation)
  int interleave = 1;     // virtual pipeline stages per GPU (interleaved 1F1B)
  std::optional<PipelineSchedule>
      schedule;       // the pipeline's (1F1B where too few micro-batches interleave); none without
  double tokens = 0;  // tokens in one optimizer step, all GPUs

  [[nodiscard]] double seconds() const { return compute + tensor + bubble + data + offload; }
  // The share of the step one of its parts takes.
  [[nodiscard]] double share(double part) const { return seconds() > 0 ? part / seconds() : 0.0; }
};

struct TrainingEstimate {
  double tokens = 0;
  double flops = 0;           // model FLOPs (6ND + attention; two thirds for LoRA)
  double hardware_flops = 0;  // what the GPUs compute: with recompute and QLoRA's dequantisation
  bool fp8 = false;           // FP8 matmuls used
  Range mfu;                  // model FLOPs / (GPUs x peak x time), an outcome of the step model
  double peak_tflops = 0;
  TrainingStep step;
  Range tokens_per_s_per_gpu;
  Range gpu_hours;
  Range wall_hours;    // elapsed: compute, offload stalls, and lost time at the goodput
  double goodput = 1;  // the share of the wall time spent training (--goodput, or derived below)
  // How the goodput is derived (docs/methodology.md §4, "Goodput"); unset when
  // --goodput states it.
  struct Checkpointing {
    double bytes = 0;           // one checkpoint: the weights and optimizer states of every GPU
    double write_hours = 0;     // written by every server at once
    double interval_hours = 0;  // between checkpoints: the one that minimises lost time (Young/Daly)
    double interruptions = 0;   // expected over the run
    double restart_hours = 0;   // each interruption's detection, restart and reload
  };
  std::optional<Checkpointing> checkpointing;
  Range offload_hours;  // --offload: wall hours waiting on the host's optimizer and PCIe (0 without)
  // Held and paid for around the run, not in wall_hours: provisioning and the
  // image, loading the weights, saving the result (docs/methodology.md §6.1).
  double job_overhead_hours = 0;
};

// Serving at an operating point (docs/methodology.md §5): a continuous-batching
// engine in steady state, each step serving the running decodes plus their
// share of prefill. Figures are for the whole plan (every replica) unless said.
// Waiting at --request-rate (docs/methodology.md §5, "Queueing"), typical.
struct Queueing {
  bool stable = true;           // the rate is below what the copies serve
  double utilisation = 0;       // busy share of each copy's running sequences
  double wait_probability = 0;  // a request waits for a free sequence (Erlang C)
  double ttft_p50_ms = 0;       // time to the first token, waiting included
  double ttft_p90_ms = 0;
};

struct InferenceEstimate {
  // How the operating point was chosen.
  enum class Point {
    targets,      // the largest concurrency that fits and meets the latency targets
    knee,         // the interactive default cannot be met: where latency is within 25% of its floor
    concurrency,  // --concurrency
  };
  // What limits the largest batch.
  enum class Limit { memory, max_batch, batched_tokens };
  Point point = Point::targets;
  int concurrency = 0;  // running sequences per replica at the operating point
  int replicas = 1;     // copies of the model-parallel group (layout.data)
  int context = 0;
  int prompt_tokens = 0;
  int output_tokens = 0;
  int max_concurrency = 0;  // per replica: the largest batch memory and the scheduler allow
  Limit max_limit = Limit::memory;
  Range tokens_per_s;       // output tokens/s at the operating point, all replicas
  Range user_tokens_per_s;  // what each user sees: 1000 / TPOT
  Range requests_per_s;     // requests completed per second at the operating point, all replicas
  Range max_tokens_per_s;   // output tokens/s at max_concurrency, all replicas (what offline benchmarks measure)
  Range ttft_ms;            // time to first token at the operating point
  Range tpot_ms;            // time per output token per user at the operating point
  double min_tpot_ms = 0;   // typical, at one sequence: the fastest this plan serves a user
  std::optional<double> tpot_target_ms;  // the targets the point was chosen against
  std::optional<double> ttft_target_ms;
  std::optional<double> request_rate;  // --request-rate
  // The engine the figures assume and its scheduler (sizing::on_card): its
  // limits, the share of memory it takes (of the card, or of what the weights
  // leave free) and its speed against the step model.
  ServingEngine engine = ServingEngine::vllm;
  int max_batch = 0;
  int max_batched_tokens = 0;
  double memory_fraction = 0;
  bool memory_of_free = false;
  double engine_speed = 1.0;
  double engine_fp8_share = 0.70;  // its FP8 GEMMs' share of peak relative to BF16's (--precision fp8)
  bool engine_fp8_fitted = false;  // fitted on its own FP8 figures (else training's)
  double engine_moe_share = 0.60;  // its routed experts' share of a dense product's efficiency (MoE)
  bool engine_moe_fitted = false;  // fitted on its own MoE figures (else training's)
  std::optional<Queueing> queue;   // with --request-rate
  // Prefill and decode in separate pools of the plan's copies (xPyD), when
  // that serves more within the targets; the figures above are then the
  // split's (concurrency: each decode copy's batch).
  struct Disaggregated {
    int prefill_copies = 0;
    int decode_copies = 0;
    int decode_batch = 0;
    double requests_per_s = 0;  // typical
    double colocated_rps = 0;   // what the same copies serve, each prefilling and decoding
    double ttft_ms = 0;         // prefill step + KV transfer + one decode step
    double tpot_ms = 0;         // a decode-only step
    double kv_transfer_ms = 0;  // one prompt's KV cache from the prefill to the decode pool
  };
  std::optional<Disaggregated> disaggregated;
  // Copies decoding, and sequences decoding in the whole plan.
  [[nodiscard]] int decoding_copies() const { return disaggregated ? disaggregated->decode_copies : replicas; }
  [[nodiscard]] int running() const { return concurrency * decoding_copies(); }
};

[[nodiscard]] std::span<const EnumName<InferenceEstimate::Point>> names(InferenceEstimate::Point);  // "targets", ...
[[nodiscard]] std::span<const EnumName<InferenceEstimate::Limit>> names(InferenceEstimate::Limit);  // "memory", ...

// Where a rent price comes from.
enum class PriceBasis { catalog_quotes, user_price, price_file };
[[nodiscard]] std::span<const EnumName<MemoryPhase>> names(MemoryPhase);  // "whole_step", "forward", "optimizer_step"
[[nodiscard]] std::span<const EnumName<PriceBasis>> names(PriceBasis);    // "catalog quotes", "--price", "price file"

// Where and as what a plan is rented, when a price file prices the card: the
// cheapest quote in the market for the plan's count, in whole instances.
struct RentOffer {
  std::string provider;       // "lambda"
  std::string location;       // the provider's region, "us-east-1"
  std::string instance_type;  // "gpu_8x_h100_sxm5"; empty: rented by the GPU
  int gpus_per_instance = 0;  // 0: rented by the GPU
  int instances = 0;          // instances rented (the GPU count, by the GPU)
  int paid_gpus = 0;          // GPUs paid for: instances x GPUs per instance (at least the plan's count)
  PriceKind kind = PriceKind::on_demand;
  double usd_per_gpu_hour = 0;  // the quote
  double usd_per_hour = 0;      // the whole plan: paid GPUs x the quote
  std::string date;
  std::string source;  // the quote's source: "SkyPilot catalog FILE", or a quotes file's source column
  std::string origin;  // FILE:LINE of the quote
};

// Owning the plan's servers (docs/methodology.md §6.2): what is bought, and
// its cost against renting at the stated utilisation, on the cheap, typical
// and dear corners of the sourced figures.
struct OwnershipCost {
  Condition condition = Condition::new_card;
  int servers = 0;
  int gpus_per_server = 0;
  int gpus = 0;               // GPUs bought: whole servers of SXM/OAM/module cards, the plan's count of PCIe cards
  bool whole_server = false;  // priced as whole servers; else cards plus what the server adds
  Range servers_usd;          // the servers with their cards
  Range network_usd;          // scale-out network (more than one server)
  Range usd_per_kwh;
  Range pue;
  Range colocation_usd_per_kw_month;
  double max_kw = 0;  // the servers' maximum IT power
  double years = 0;
  double utilisation = 0;
  OwnershipResult low, typical, high;           // cheap, typical and dear corners
  std::optional<double> rent_usd_per_gpu_hour;  // the rent compared against: a term's, else the plan's typical
  int rent_term_months = 0;  // the term quotes' length compared against; 0: the plan's rent (no term quote)
  int rent_term_quotes = 0;  // how many term quotes of that length
  bool term_sought = false;  // compared against the catalog's rent, where a term quote would have been taken
  PriceTier rent_tier = PriceTier::specialist;  // the plan's rent tier, compared against without a term quote
  std::optional<bool> owning_cheaper;           // typical owned cost per busy GPU-hour below the rent
  // Typical cost per busy GPU-hour at 10%, 20%, ... 100% busy (the reports' chart).
  std::vector<double> usd_per_gpu_hour_by_utilisation;

  // The cost per busy GPU-hour on the three corners.
  [[nodiscard]] Range usd_per_gpu_hour_used() const {
    return Range{low.usd_per_gpu_hour_used, typical.usd_per_gpu_hour_used, high.usd_per_gpu_hour_used};
  }
};
// Why a card has no ownership price.
enum class OwnershipGap { none, no_purchase_price, no_new_price, no_used_price, no_power };
[[nodiscard]] std::span<const EnumName<OwnershipGap>> names(OwnershipGap);  // "none", "no_purchase_price", ...

struct CostEstimate {
  std::optional<Range> rent_usd_per_gpu_hour;
  PriceBasis price_basis = PriceBasis::catalog_quotes;
  std::optional<RentOffer> offer;               // price_file: the instance rented
  bool spot = false;                            // priced on spot quotes (--spot, where the card has one)
  bool spot_missing = false;                    // --spot, but no spot quote here: priced on demand
  bool lease_rates_only = false;                // the typical is made of leases (a month or longer): no on-demand quote
  PriceTier rent_tier = PriceTier::specialist;  // catalog quotes: the market tier the typical is the median of
  int rent_quotes = 0;                          // catalog quotes: how many recent quotes of that tier
  std::string rent_newest;                      // catalog quotes: the newest of their dates
  bool market_missing = false;                  // --market or --spot, no recent catalog quote of that tier: the typical
  bool quotes_too_old = false;                  // quotes here, every one older than twelve months: not priced
  int no_instance_for_gpus = 0;             // price file: no instance holds the plan's sharded group of this many GPUs
  std::optional<Range> rent_usd;            // training: the run; inference: per hour of serving
  std::optional<double> rent_overhead_usd;  // training: of rent_usd, typical, the job's start-up, loading and saving
  std::optional<Range> purchase_usd;        // capex: whole servers and their network (ownership)
  std::optional<Range> buy_usd;             // cost of ownership: training, the run's busy GPU-hours; inference, a month
  std::optional<OwnershipCost> ownership;
  OwnershipGap ownership_gap = OwnershipGap::none;
  std::optional<double> energy_usd;             // training: the run; inference: per month
  std::optional<Range> usd_per_million_tokens;  // inference, in the request's mode
};

// Why a card does not fit, with the figures to say so.
struct Shortfall {
  enum class Kind {
    none,
    no_fp8,
    no_fp4,
    no_engine,  // --engine does not run on the card's software stack (engine, stack)
    no_fp4_kv,  // --kv-precision fp4: TensorRT-LLM on a card with FP4 tensor cores only
    deadline,
    latency,
    rate,
    count_too_small,
    activations,
    too_many_gpus,
    no_shape
  };
  Kind kind = Kind::none;
  ServingEngine engine = ServingEngine::vllm;  // no_engine
  SoftwareStack stack = SoftwareStack::cuda;
  double need_gib = 0;  // per GPU at the best layout tried
  double usable_gib = 0;
  double fixed_gib = 0;  // activations + KV cache + reserve (activations)
  int count = 0;         // --count, or the count tried last; no_shape: the smallest on offer
  int max_gpus = 0;
  double deadline_hours = 0;
  double hours_at_count = 0;  // deadline: typical wall time at `count`
  // latency: the stated target missed and the best the card reaches at `count`
  // (at one sequence), in ms; which target (true: TPOT, false: TTFT).
  bool latency_tpot = true;
  double target_ms = 0;
  double best_ms = 0;
  // rate: --request-rate, and the requests/s the largest count tried serves.
  double request_rate = 0;
  double requests_per_s = 0;
  double queue_p90_ms = 0;  // rate: served on average, but the p90 first token (waiting included) misses target_ms
  bool serving = false;     // activations: the figures are a step's workspace and one sequence's cache
};

// A caveat of the estimate.
struct EstimateNote {
  enum class Kind { pcie_scale_out, pair_scale_out, multi_node, fp8_fallback, tp_over_pcie, not_on_offer, batch_grown };
  // What crosses the scale-out network of a multi-node plan.
  enum class Crossing { data_parallel, pipeline, data_and_pipeline, experts };
  Kind kind = Kind::pcie_scale_out;
  int gpus = 0;
  int nodes = 0;
  Crossing crossing = Crossing::data_parallel;  // multi_node
  double scale_out_gbps_per_gpu = 0;            // multi_node: the card's typical network, 0 = not known
  int offered = 0;                              // not_on_offer: the next count on offer (0: none)
  int batch = 0;                                // batch_grown: the global batch asked for, sequences (gpus: as run)
};

// How the plan's count was chosen by the budget tier (docs/methodology.md §7):
// from the fewest GPUs on offer that fit and meet the deadline, speed first
// doubles it up to the knee, balanced doubles it once when that costs little.
struct Sizing {
  // Why the count is not larger.
  enum class Stop {
    fixed,       // --count
    cost_first,  // --budget low keeps the smallest plan
    cap,         // a --budget amount keeps the smallest plan
    short_run,   // the run already takes under the tier's threshold
    small_cut,   // the next step would cut the time (per token, serving) by less than 30%
    node,        // the next step would leave the one server the plan fits in
    batch,       // the next step needs more data-parallel ranks than the global batch has sequences
    offer,       // no larger count on offer within --max-gpus
    cost,        // the next candidate costs more than the tier's premium for the time it saves
  };
  int needed = 0;    // the fewest GPUs that fit (and meet the deadline), in any count
  int smallest = 0;  // the fewest on offer (rent shapes, whole servers) that do
  Stop stop = Stop::fixed;
  int next = 0;                    // the count the next step would take (0: none on offer)
  double next_cut = 0;             // the share of the time (or time per token) that step would save
  double next_extra_cost = 0;      // cost: the share that step would add to the cost (per unit of work)
  double cut = 0;                  // the share saved from the smallest plan to this one
  double run_hours_threshold = 0;  // short_run: the run length under which the tier stops
  int batch_sequences = 0;         // batch: sequences in one optimizer step
};

// "fixed", "cost_first", "cap", "short_run", "small_cut", "node", "batch", "offer", "cost".
[[nodiscard]] std::span<const EnumName<Sizing::Stop>> names(Sizing::Stop);

struct Estimate {
  bool fits = false;
  int count = 0;  // GPUs
  int nodes = 0;  // servers of the card's gpus_per_node (1 for fewer)
  Layout layout;
  MemoryBreakdown per_gpu;           // bytes
  double host_bytes_per_server = 0;  // --offload: host memory one server needs for its GPUs' share
  double capacity_bytes = 0;         // what the card reports
  double usable_bytes = 0;           // capacity x usable fraction
  std::optional<TrainingEstimate> training;
  std::optional<InferenceEstimate> inference;
  CostEstimate cost;
  Sizing sizing;      // when fits
  Shortfall why_not;  // when !fits
  // The calibration its figures follow: an index into request.calibrations
  // (docs/calibration.md); none, as modelled.
  std::optional<std::size_t> calibration;
  std::vector<EstimateNote> notes;

  [[nodiscard]] double headroom() const { return usable_bytes > 0 ? 1.0 - per_gpu.total() / usable_bytes : 0.0; }
  // Under 5% of usable memory left: a longer sequence, a framework's own
  // buffers or fragmentation can push the plan out of memory.
  [[nodiscard]] bool tight() const { return fits && headroom() < 0.05; }
};

// A serving engine: the software stacks it runs on, its scheduler's defaults
// (running sequences and tokens a step, on cards of 70 GiB or more and below,
// for a server and for offline batch work) and the share of memory it takes
// (of the whole card, or of what the weights and buffers leave free).
struct EngineProfile {
  struct Limits {
    int max_batch = 0;
    int max_batched_tokens = 0;
  };
  ServingEngine engine = ServingEngine::vllm;
  std::string_view name;  // "vLLM"
  std::array<std::optional<SoftwareStack>, 8> stacks;
  Limits large_server;
  Limits large_offline;
  Limits small_server;
  Limits small_offline;
  double memory_fraction = 0.90;
  bool fraction_of_free = false;
  std::string_view source;
};
[[nodiscard]] std::span<const EnumName<ServingEngine>> names(ServingEngine);  // "vllm", "trtllm", ...
[[nodiscard]] const EngineProfile& engine_profile(ServingEngine engine);
[[nodiscard]] bool runs_on(const EngineProfile& profile, SoftwareStack stack);
// The engine's speed on a stack against the step model (1: as modelled).
[[nodiscard]] double engine_speed(ServingEngine engine, SoftwareStack stack);
// The share of their doubled peak the engine's FP8 matrix products reach on a
// stack, relative to the share BF16 ones reach of theirs.
[[nodiscard]] double engine_fp8_share(ServingEngine engine, SoftwareStack stack);
// The share of a dense product's efficiency its MoE layers' routed-expert
// products reach (grouped GEMMs, routing, token permutation).
[[nodiscard]] double engine_moe_share(ServingEngine engine, SoftwareStack stack);

// How much of a card's memory a plan may use: the share of capacity the
// runtime leaves usable, and a reserve per GPU for the CUDA context, NCCL
// buffers and fragmentation (docs/methodology.md).
struct MemoryPolicy {
  double usable_fraction = 0;
  double reserve_gib = 0;
  // Serving: the share of the memory the weights and workspace leave that
  // the KV cache may take (TensorRT-LLM's free_gpu_memory_fraction; 1 for an
  // engine whose share is of the whole card).
  double free_fraction = 1.0;
};
[[nodiscard]] MemoryPolicy memory_policy(const Request& request);

// The plan's cost that a --budget USD cap is checked against, typical:
// renting, the training run or a month (730 h) of serving; buying, the cards.
// nullopt without a price. (Ranking uses ranking_cost() in scoring.hpp; the
// table shows the run's cost or the cost per million tokens.)
[[nodiscard]] std::optional<double> budget_cost_usd(const Request& request, const Estimate& estimate);

// Memory per GPU for a layout.
[[nodiscard]] MemoryBreakdown memory_per_gpu(const Request& request, const ModelShape& model, const Layout& layout);

// Bytes per parameter of the weights at the request's inference precision.
[[nodiscard]] double weight_bytes(const Request& request, const ModelShape& model);
// Bytes of the routed experts' weights alone at that precision (0: dense).
[[nodiscard]] double routed_weight_bytes(const Request& request, const ModelShape& model);

// ---- the plans a card offers, and the one a budget tier takes ----
// (docs/methodology.md "How a plan is chosen")

// What a plan's unit of work costs in the request's mode, typical: training,
// the run; serving a --request-rate, an hour of it (buying: a month);
// serving, a million output tokens at the operating point. nullopt without a price.
[[nodiscard]] std::optional<double> objective_usd(const Request& request, const Estimate& estimate);
// objective_usd() as if the card were rented at `usd_per_gpu_hour` (typical).
[[nodiscard]] double objective_at_price(const Request& request, const Estimate& estimate, double usd_per_gpu_hour);
// The plan's time: training, wall hours; serving, ms per output token at one
// sequence (the fastest it serves a user).
[[nodiscard]] double plan_time(const Estimate& estimate);

// A plan on the cost-time plane; buying, its capex obeys the premium too.
struct PlanPoint {
  double cost = 0;
  double time = 0;
  std::optional<double> capex;
};
// The GPUs whose traffic is one sharded group: training under ZeRO-3/FSDP,
// every rank; otherwise, and serving, one model copy (tensor x pipeline x
// context; serving with wide expert parallelism, the expert group).
[[nodiscard]] int sharded_group(const Layout& layout, bool training);

// A plan as the tiers see it; unpriced, costed in GPU-hours (runs) or GPUs
// (serving), which compares plans of one card only.
[[nodiscard]] PlanPoint plan_point(const Request& request, const Estimate& estimate);
// What a tier pays per halving of the time, as a share of the cheapest
// plan's cost: low 0, medium 0.10, high 1.0.
[[nodiscard]] double tier_premium(BudgetTier tier);
// Whether `plan` costs at most (1 + premium) to the power of the halvings of
// time it saves over `cheapest` (and, buying, its capex too).
[[nodiscard]] bool within_premium(const PlanPoint& cheapest, const PlanPoint& plan, double premium);
// The fastest plan within the premium of the cheapest (the cheapest: least
// cost, then time). Never dominated: a plan cheaper and faster would be within
// the premium and faster. nullopt for no plans.
[[nodiscard]] std::optional<std::size_t> pick_for_tier(std::span<const PlanPoint> plans, double premium);

// The plans one card offers: the smallest count (and best layout) that fits
// and meets --deadline, or exactly --count, and larger counts worth
// considering, each doubling the last; a single plan that does not fit when
// none does.
[[nodiscard]] std::vector<Estimate> plans(const Request& request, const ModelShape& model, const GpuSpec& gpu);
// Of one card's plans, the index its budget tier takes.
[[nodiscard]] std::size_t tier_pick(const Request& request, const std::vector<Estimate>& plans);
// plans[index], with why no larger one was taken (Sizing).
[[nodiscard]] Estimate take_plan(const Request& request, const std::vector<Estimate>& plans, std::size_t index);
// The plan the request's budget tier takes on one card (time or throughput and cost).
[[nodiscard]] Estimate estimate(const Request& request, const ModelShape& model, const GpuSpec& gpu);

}  // namespace gpu_advise
