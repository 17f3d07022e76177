// The single input of every renderer: the request, the model, the ranked
// recommendations with their estimates and reasons, and the rejected cards.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "gpu_advise/catalog.hpp"
#include "gpu_advise/estimate.hpp"
#include "gpu_advise/gpu.hpp"
#include "gpu_advise/model.hpp"
#include "gpu_advise/request.hpp"
#include "gpu_advise/rules.hpp"

namespace gpu_advise {

// What a plan is chosen on (docs/methodology.md "How a plan is chosen"):
// its cost per unit of work in the request's mode, and its time.
struct PlanObjective {
  // The unit of work: a training run; an hour (renting) or a month (owning)
  // of serving a --request-rate; a million output tokens otherwise.
  enum class Kind { run, hour, month, million_tokens };
  Kind kind = Kind::run;
  std::optional<double> usd;      // typical; nullopt without a price
  double time = 0;                // training: wall hours; serving: ms per output token at one sequence
  std::optional<double> vs_best;  // usd over the Best's (both priced)
  // Renting an unpriced plan: where it would stand at an assumed price, the
  // median typical rent per GPU-hour of the priced plans listed.
  struct Assumed {
    double usd_per_gpu_hour = 0;
    double usd = 0;  // its objective at that price
    int rank = 0;    // its place among the priced plans at that price (1 = cheaper than the Best)
  };
  std::optional<Assumed> assumed;
};

// A hard constraint a plan was checked against (docs/methodology.md §7).
enum class Constraint {
  memory,       // fits with the one margin
  deadline,     // --deadline (or pretraining's default)
  latency,      // serving: the latency targets
  rate,         // serving: --request-rate
  instance,     // a price file's instances hold its sharded group
  rules,        // no rule rejects it
  budget,       // within a --budget amount
  ecosystem,    // of the --ecosystem asked for
  pcie_spread,  // a card without a scale-up link: a sharded group in at most two servers
};
[[nodiscard]] std::span<const EnumName<Constraint>> names(Constraint);  // "memory", "deadline", ...

// One candidate plan of a card, for --explain: kept (met every constraint)
// or removed by the constraints it failed (reasons below, as kinds).
struct PlanTried {
  int count = 0;
  std::optional<double> usd;  // its objective
  double time = 0;            // PlanObjective::time
  bool kept = false;
  bool taken = false;                // the plan the row shows
  std::vector<std::string> removed;  // the kinds of the constraints it failed ("memory", "rule", "budget", ...)
};

struct Recommendation {
  int rank = 0;
  GpuSpec gpu;
  Estimate estimate;
  PlanObjective objective;
  bool cheapest = false;                // the least cost per unit of work of the plans listed
  bool fastest = false;                 // the least time of the plans listed
  int plans_considered = 1;             // this card's candidate plans that met every constraint
  std::vector<Constraint> constraints;  // the constraints it was checked against and met
  std::vector<PlanTried> tried;         // every candidate plan of the card, smallest first
  std::vector<Finding> findings;        // every rule's verdict on this plan (fired ones first)
};

// Why a card is not recommended: facts, which words.hpp turns into sentences.
struct NotSelected {};  // --gpu named other cards
struct RuleRejection {  // a rule with a reject effect fired
  std::string rule_id;
  std::map<Language, std::string> message;
};
struct NoPriceForBudget {  // a budget amount, and no price to check it against
  CostMode mode = CostMode::rent;
  double budget_usd = 0;
};
struct OverBudget {  // the plan costs more than the budget amount
  enum class Cost { cards, run, month };
  Cost cost = Cost::run;
  double cost_usd = 0;
  double budget_usd = 0;
};
struct OtherEcosystem {  // --ecosystem asked for another software stack
  SoftwareStack stack = SoftwareStack::cuda;
  SoftwareStack asked = SoftwareStack::cuda;
};
struct PcieSpread {  // one sharded group over more than two servers of a card without a scale-up link
  int gpus = 0;
  int servers = 0;
};
struct LargerThanBest {  // without --gpu: the card's plan takes over 8 times the Best's GPUs
  int count = 0;
  int best_count = 0;
};
using RejectReason = std::variant<Shortfall, NotSelected, RuleRejection, NoPriceForBudget, OverBudget, LargerThanBest,
                                  OtherEcosystem, PcieSpread>;

struct Rejection {
  GpuSpec gpu;
  std::vector<RejectReason> reasons;
  std::vector<Finding> findings;
};

// A lighter task or a larger count that would fit, when nothing does.
struct WayOut {
  // One lever the way out moves, with its value before and after (strings as
  // typed on the command line; an empty `to` means the flag is dropped).
  struct Change {
    std::string lever;  // optimizer, zero, recompute, precision, kv_precision, concurrency, context, region, mode,
                        // offload, optimizer_in_backward, global_batch, tpot_ms, ttft_ms, count, deadline, task
    std::string from;
    std::string to;
  };
  Task task = Task::inference;
  std::string gpu_id;
  std::string gpu_name;
  int count = 0;
  std::optional<double> rent_usd_per_hour;  // count x typical rent
  std::vector<std::string> drops;           // the flags this way out drops ("--count", "--deadline")
  std::optional<double> wall_hours;         // training: typical wall time on this way out
  std::optional<double> run_usd;            // training: typical rent for the run
  std::vector<std::string> sets;            // the flag settings it changes ("--optimizer adamw-bf16", "--region cn")
  std::vector<Change> changes;              // every lever it moves, for scripts
};

// A rule from a --rules file that matched no card in this request.
struct UnmatchedRule {
  std::string rule_id;
  std::string origin;  // FILE:LINE
};

// Facts only: no sentence and no language. The renderers say them, in the
// language they are given, through words.hpp.
struct Report {
  std::string tool_version;
  CatalogInfo catalog;
  Request request;
  ModelShape model;
  std::vector<Recommendation> recommendations;  // best first, cut to --top
  std::size_t omitted = 0;                      // feasible cards cut by --top
  std::size_t feasible = 0;                     // cards that fit, before --top
  std::size_t unpriced = 0;                     // of those, cards with no price for the mode and region
  // The Best is the tier's point on the cost-time frontier of the priced
  // plans; false when no plan that fits is priced (the list is then by time).
  bool best_priced = false;
  // A neighbour of the Best on the frontier, for the headline.
  struct Neighbour {
    std::string gpu_name;
    int count = 0;
    PlanObjective::Kind kind = PlanObjective::Kind::run;
    double usd = 0;           // its objective
    double time = 0;          // its time (PlanObjective::time)
    double vs_best_usd = 0;   // its cost over the Best's
    double vs_best_time = 0;  // its time over the Best's
  };
  std::vector<Neighbour> frontier;    // the priced plans no other is both cheaper and faster than, cheapest first
  std::optional<Neighbour> cheapest;  // the cheapest priced plan, when the Best is not it
  std::optional<Neighbour> faster;    // the cheapest priced plan at least 1.2x as fast as the Best, if any
  std::size_t larger_plans = 0;       // plans cut for taking over 8 times the Best's GPUs (without --gpu)
  // A heavier task that fits and is both cheaper and no slower than this
  // request's Best (QLoRA asked, LoRA's Best beats it): its Best.
  struct TaskHint {
    Task task = Task::lora;
    std::string gpu_name;
    int count = 0;
    double usd = 0;
    double time = 0;
  };
  std::optional<TaskHint> heavier_task;
  std::vector<Rejection> rejected;
  // The rejected cards a client would ask about (indices into `rejected`, at
  // most five): those that fit but a rule or the budget ruled out, then the
  // largest that did not fit; never the cards --gpu left out.
  std::vector<std::size_t> why_not;
  std::vector<WayOut> ways_out;
  std::optional<int> batch_line;               // batch: the input line this report answers
  std::vector<UnmatchedRule> unmatched_rules;  // about the run as a whole

  [[nodiscard]] bool anything_fits() const { return !recommendations.empty() || omitted > 0; }
};

// The plan the report leads with, or nullptr when nothing fits.
[[nodiscard]] inline const Recommendation* best_of(const Report& report) {
  return report.recommendations.empty() ? nullptr : &report.recommendations.front();
}

}  // namespace gpu_advise
