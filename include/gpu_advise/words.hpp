// Facts into sentences, in one language: the only place the advice is put
// into words (the phrases themselves are in phrases.hpp's table). The
// renderers call these; the pipeline (advise()) never does.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gpu_advise/estimate.hpp"
#include "gpu_advise/model.hpp"
#include "gpu_advise/phrases.hpp"
#include "gpu_advise/report.hpp"
#include "gpu_advise/request.hpp"

namespace gpu_advise {

[[nodiscard]] std::string describe(Task task, Language language);
[[nodiscard]] std::string describe(BudgetTier tier, Language language);
[[nodiscard]] std::string describe(const Layout& layout, Task task, Language language);
[[nodiscard]] std::string describe(const Shortfall& why, Language language);
[[nodiscard]] std::string describe(const EstimateNote& note, Language language);
// One way out of "nothing fits": task, count and card, the flags it drops, price and time.
[[nodiscard]] std::string describe(const WayOut& way, const Request& request, Language language);
[[nodiscard]] std::string describe(const RejectReason& reason, const Request& request, Language language);
[[nodiscard]] std::string describe(const UnmatchedRule& rule, Language language);

// "on demand", "spot", "reserved".
[[nodiscard]] std::string describe(PriceKind kind, Language language);
// "specialist-cloud on-demand", "hyperscaler on-demand", ..., "China lease".
[[nodiscard]] std::string describe(PriceTier tier, Language language);

// A rule's effect: "reject", "score", "note", "warning" ("淘汰", "加减分", ...).
[[nodiscard]] std::string describe(EffectKind effect, Language language);
// The software stack by name, as `catalog show` gives it: "CUDA", "ROCm",
// "Gaudi software" ("Gaudi 软件栈").
[[nodiscard]] std::string describe(SoftwareStack stack, Language language);

// A catalog value as the listings (`catalog list`, `catalog show`) show it: in
// English the catalog's own word ("case_by_case", "on_demand", "secondary",
// "sxm", "cn"), in Chinese its meaning ("美国逐案审批出口许可", "按需", ...).
[[nodiscard]] std::string catalog_word(AvailabilityStatus status, Language language);
[[nodiscard]] std::string catalog_word(Stance stance, Language language);
[[nodiscard]] std::string catalog_word(Confidence confidence, Language language);
[[nodiscard]] std::string catalog_word(PriceKind kind, Language language);
[[nodiscard]] std::string catalog_word(Condition condition, Language language);
[[nodiscard]] std::string catalog_word(FormFactor form, Language language);
[[nodiscard]] std::string catalog_word(Region region, Language language);

// Text quoted from the catalog's English sources (notes, source titles, a
// quote's provider): as is in English; in Chinese in “…”, so it reads as a
// quotation and not as a label left untranslated. Empty stays empty.
[[nodiscard]] std::string source_text(std::string_view text, Language language);

// What a price-file plan rents: "2 x gpu_8x_h100_sxm5", or "16 GPUs rented by the GPU".
[[nodiscard]] std::string offer_units(const RentOffer& offer, Language language);
// "2 x gpu_8x_h100_sxm5 at lambda, us-east-1, $47.84/hour, on demand; lambda/vms.csv:7, dated 2026-12-01".
[[nodiscard]] std::string describe(const RentOffer& offer, const Request& request, Language language);
// "; 6 of the 8 GPUs paid for stay idle" when the instances hold more GPUs than the plan uses; else empty.
[[nodiscard]] std::string describe_idle(const RentOffer& offer, int count, Language language);

// The model for people: "Llama 3.1 70B", "a 70B model", "an 8B model".
[[nodiscard]] std::string model_label(const ModelShape& model, Language language);
// Owning against renting, in one line: "at 50% utilization owning 8 x A100
// 80GB SXM (used) costs $1.31 per GPU-hour against $1.40 renting: buy if busy
// more than 46% of the time; ...".
[[nodiscard]] std::string describe_verdict(const Request& request, const OwnershipCost& own, std::string_view gpu_name,
                                           Language language);

// "a" or "an" before `word`, by how it is said: numbers by their English
// words ("an 8B", "an 11B", "an 18B", "an 80B", "an 8x7B"; "a 70B", "a 1.5T",
// "a 110B"), anything else by its first letter (a vowel takes "an").
[[nodiscard]] std::string_view indefinite_article(std::string_view word);

// One line of a pick's rationale; `warning` for a rule with a warning effect.
struct Sentence {
  std::string text;
  bool warning = false;
};

// Why a pick: memory and layout, time or speed, cost, cheapest/fastest, the
// estimate's caveats, then the lines of the rules that fired on it.
[[nodiscard]] std::vector<Sentence> rationale(const Request& request, const Recommendation& pick, Language language);

// What the plan is chosen on: "$111 for the run, 1.32x the Best's cost";
// for the Best, "$96 for the run: the Best"; unpriced, how to price it.
[[nodiscard]] std::string describe_objective(const Recommendation& plan, const Request& request, bool best,
                                             Language language);
// --explain: every plan the card offered, "plans: 4 GPUs, 7.3 h, $118 (taken);
// 8 GPUs, 3.7 h, $121; 16 GPUs: removed (rule)".
[[nodiscard]] std::string describe_tried(const Recommendation& plan, const Request& request, Language language);
// --explain: the priced plans on the cost-time frontier, cheapest first.
[[nodiscard]] std::string describe_frontier(const Report& report, Language language);
// The table's "vs Best" cell: "1.32x", or "-" without a price.
[[nodiscard]] std::string vs_best_cell(const PlanObjective& objective, Language language);

// A paragraph a client can read alone: what to rent or buy, for how long and
// at what cost, the main alternative and the main risk (or, when nothing
// fits, the first way out).
[[nodiscard]] std::string client_summary(const Report& report, Language language);

// How the budget tier sized a plan: "speed first: 8 GPUs instead of the 4
// that fit cut the time by 50%; 16 GPUs would leave the server"; empty for --count.
[[nodiscard]] std::string describe_sizing(const Estimate& estimate, BudgetTier budget, Language language);

// The lines under the headline: the Best's neighbours on the frontier (the
// cheapest plan, a faster one), no priced plan, the unpriced and the cut cards.
[[nodiscard]] std::vector<std::string> headline_notes(const Report& report, Language language);

// The estimate's caveats for a pick, in words.
[[nodiscard]] std::vector<std::string> notes(const Recommendation& pick, Language language);

// Why a card was rejected, one sentence a reason.
[[nodiscard]] std::vector<std::string> reasons(const Rejection& rejection, const Request& request, Language language);

// The defaults and inputs that drive the result.
// The Best (nullptr when nothing fits) gives serving's engine, scheduler and memory share as its card runs them.
// --calibration: each calibration the request's kind and training stack (or
// serving engine) uses, and with `unused` those it does not; then how the
// rest is estimated. Empty without calibrations.
[[nodiscard]] std::vector<std::string> calibration_notes(const Request& request, Language language, bool unused);
[[nodiscard]] std::vector<std::string> assumptions(const Request& request, const ModelShape& model,
                                                   const Recommendation* best, Language language);

}  // namespace gpu_advise
