#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "errors_fixture.hpp"
#include "gpu_advise/catalog.hpp"
#include "gpu_advise/error.hpp"
#include "gpu_advise/model.hpp"
#include "gpu_advise/rules.hpp"
#include "gpu_fixture.hpp"

using namespace gpu_advise;

namespace {

const std::string header = "schema_version: 1\nrules:\n";

std::string rule(const std::string& when, const std::string& effect = "{type: note}",
                 const std::string& message = "\"hello\"") {
  return header + "  - id: r1\n    when: " + when + "\n    effect: " + effect + "\n    message:\n      en: " + message +
         "\n";
}

std::string errors(const std::string& yaml) {
  return test::data_errors([&] { (void)parse_rules(yaml, "rules.yaml", RulesRole::overlay); });
}

struct World {
  Request request = test::request(70e9, Task::lora);
  GpuSpec gpu = test::card("g80", 80, 2000, 312, 8, 2.0);
  Estimate estimate;
  World() {
    gpu.architecture = Architecture::ampere;
    gpu.availability[Region::cn] = Availability{AvailabilityStatus::banned, "2026-01", "2022-09", "rule"};
    gpu.availability[Region::global] = Availability{AvailabilityStatus::available, "2026-05", "", ""};
    estimate.fits = true;
    estimate.count = 4;
    estimate.usable_bytes = 100;
    estimate.per_gpu.weights = 40;
  }
  Facts facts() const { return Facts{&request, &gpu, &estimate}; }
};

bool fires(const std::string& when, const World& world) {
  const RuleSet rules = parse_rules(rule(when), "rules.yaml", RulesRole::overlay);
  return evaluate(rules, world.facts()).front().fired;
}

}  // namespace

TEST_CASE("conditions compare the request, the card and the estimate", "[rules]") {
  const World w;
  CHECK(fires("{field: task, is: lora}", w));
  CHECK_FALSE(fires("{field: task, is: full}", w));
  CHECK(fires("{field: task, in: [full, lora]}", w));
  CHECK(fires("{field: task, not_in: [full, pretrain]}", w));
  CHECK(fires("{field: params_b, between: [7, 70]}", w));
  CHECK(fires("{field: params_b, at_least: 70}", w));
  CHECK_FALSE(fires("{field: params_b, above: 70}", w));
  CHECK(fires("{field: architecture, is: AMPERE}", w));  // words ignore case
  CHECK(fires("{field: gpus, is: 4}", w));
  CHECK(fires("{field: headroom, at_least: 0.6}", w));
  CHECK(fires("{field: training, is: true}", w));
  CHECK(fires("{field: availability, is: available}", w));  // global by default
}

TEST_CASE("all, any and not combine conditions", "[rules]") {
  const World w;
  CHECK(fires("{all: [{field: task, is: lora}, {field: gpus, at_least: 2}]}", w));
  CHECK_FALSE(fires("{all: [{field: task, is: lora}, {field: gpus, above: 8}]}", w));
  CHECK(fires("{any: [{field: task, is: full}, {field: gpus, above: 2}]}", w));
  CHECK(fires("{not: {field: task, is: full}}", w));
}

TEST_CASE("fields that do not apply match nothing, and exists tests for them", "[rules]") {
  World w;
  CHECK_FALSE(fires("{field: budget_usd, at_least: 0}", w));
  CHECK(fires("{field: budget_usd, exists: false}", w));
  w.request.budget_usd = 50000;
  CHECK(fires("{field: budget_usd, exists: true}", w));
  w.estimate.fits = false;
  CHECK_FALSE(fires("{field: gpus, at_least: 1}", w));
  CHECK(fires("{not: {field: gpus, at_least: 1}}", w));  // not of an absent field is true
}

TEST_CASE("availability follows the request's region", "[rules]") {
  World w;
  w.request.region = Region::cn;
  CHECK(fires("{field: availability, is: banned}", w));
  const RuleSet rules = parse_rules(
      rule("{field: availability, is: banned}", "{type: reject}", "\"{availability} ({availability_dates})\""),
      "rules.yaml", RulesRole::overlay);
  const auto findings = evaluate(rules, w.facts());
  CHECK(findings.front().message_in(Language::en) == "banned (since 2022-09, verified 2026-01)");
}

TEST_CASE("messages fill placeholders in the chosen language", "[rules]") {
  const World w;
  const std::string yaml =
      header +
      "  - id: r1\n    when: {field: task, is: lora}\n    effect: {type: note}\n"
      "    message:\n      en: \"{params} on {gpus} x {gpu}\"\n      zh: \"{params} 用 {gpus} 张 {gpu}\"\n";
  const RuleSet rules = parse_rules(yaml, "rules.yaml", RulesRole::overlay);
  const auto findings = evaluate(rules, w.facts());
  CHECK(findings.front().message_in(Language::en) == "70B on 4 x g80");
  CHECK(findings.front().message_in(Language::zh) == "70B 用 4 张 g80");
}

TEST_CASE("rule files are checked at load time with located errors", "[rules]") {
  CHECK_THAT(errors(rule("{field: tsk, is: lora}")),
             Catch::Contains("rules.yaml:4:19: rules[0].when.field: unknown field 'tsk'; did you mean 'task'?"));
  CHECK_THAT(errors(rule("{field: task, equals: lora}")),
             Catch::Contains("unknown operator 'equals'") && Catch::Contains("expected is, is_not"));
  CHECK_THAT(errors(rule("{field: task, is: lorra}")),
             Catch::Contains("'lorra' is not a value of task") && Catch::Contains("did you mean 'lora'?"));
  CHECK_THAT(errors(rule("{field: architecture, at_least: 3}")), Catch::Contains("is not a number field"));
  CHECK_THAT(errors(rule("{field: params_b, at_least: big}")), Catch::Contains("expected a number, found 'big'"));
  CHECK_THAT(errors(rule("{field: params_b, between: [70, 7]}")), Catch::Contains("low <= high"));
  CHECK_THAT(errors(rule("{field: task, is: lora, in: [full]}")), Catch::Contains("exactly one operator"));
  CHECK_THAT(
      errors(rule("{alll: [{field: task, is: lora}]}")),
      Catch::Contains("when.alll: unknown operator 'alll'") && Catch::Contains("when.field: required key is missing"));
  CHECK_THAT(errors(rule("{field: task, is: lora}", "{type: boost}")),
             Catch::Contains("'boost' is not valid; expected reject, note or warning"));
  // Rules never weigh the choice: points and score effects are located errors that say what to do.
  CHECK_THAT(errors(rule("{field: task, is: lora}", "{type: score, points: 10}")),
             Catch::Contains("rules.yaml:5:20: rules[0].effect.type: 'score' is no longer an effect") &&
                 Catch::Contains("name them with --gpu") &&
                 Catch::Contains("rules[0].effect.points: points are no longer read"));
  CHECK_THAT(errors(rule("{field: task, is: lora}", "{type: warning, points: -5}")),
             Catch::Contains("points are no longer read"));
  CHECK_THAT(errors(rule("{field: task, is: lora}", "{type: note}", "\"{parms} here\"")),
             Catch::Contains("unknown placeholder '{parms}'; did you mean '{params}'?"));
  const std::string twice = rule("{field: task, is: lora}") +
                            "  - id: r1\n    when: {field: task, is: full}\n"
                            "    effect: {type: note}\n    message: {en: \"x\"}\n";
  CHECK_THAT(errors(twice), Catch::Contains("duplicate rule id 'r1'"));
  CHECK_THAT(errors("schema_version: 1\nprofiles:\n  low: {cost: 0.5, speed: 0.4, headroom: 0.2, risk: 0.2}\n"),
             Catch::Contains("profiles: is no longer read"));
  CHECK_THAT(errors("schema_version: 1\necosystem:\n  software: {cuda: 1.0}\n"),
             Catch::Contains("ecosystem: is no longer read") && Catch::Contains("--ecosystem"));
}

TEST_CASE("an overlay replaces rules by id and adds new ones", "[rules]") {
  RuleSet base = load_embedded_rules();
  const std::size_t count = base.rules().size();
  base.merge(parse_rules(header + "  - id: finetune-80gb-ampere\n    when: {field: task, is: lora}\n"
                                  "    effect: {type: warning}\n    message: {en: \"replaced\"}\n"
                                  "  - id: my-new-rule\n    when: {field: task, is: lora}\n"
                                  "    effect: {type: note}\n    message: {en: \"new\"}\n",
                         "mine.yaml", RulesRole::overlay));
  CHECK(base.rules().size() == count + 1);
  const auto it = std::find_if(base.rules().begin(), base.rules().end(),
                               [](const Rule& r) { return r.id == "finetune-80gb-ampere"; });
  REQUIRE(it != base.rules().end());
  CHECK(it->effect == EffectKind::warning);
  CHECK(it->origin == "mine.yaml:3");
}

TEST_CASE("the embedded rules load and every rule has both languages", "[rules]") {
  const RuleSet rules = load_embedded_rules();
  CHECK(rules.rules().size() >= 15);
  for (const auto& r : rules.rules()) {
    CAPTURE(r.id);
    CHECK(r.message.count(Language::en) == 1);
    CHECK(r.message.count(Language::zh) == 1);
  }
}

TEST_CASE("docs/rules.md documents every field", "[rules][docs]") {
  std::ifstream in(GPU_ADVISE_SOURCE_DIR "/docs/rules.md");
  REQUIRE(in);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string doc = buffer.str();
  for (const auto& field : rule_fields()) {
    const std::string name(field.name);
    CAPTURE(name);
    CHECK(doc.find("| `" + name + "` |") != std::string::npos);
  }
  const RuleSet rules = load_embedded_rules();
  for (const auto& rule : rules.rules()) {
    CAPTURE(rule.id);
    CHECK(doc.find(fmt::format("`{}`", rule.id)) != std::string::npos);
  }
}

TEST_CASE("the dated China record: legal stock, new supply, the importer and the status's age", "[rules]") {
  World w;
  w.request.region = Region::cn;
  Availability cn{AvailabilityStatus::case_by_case, "2025-11", "2026-01-15", ""};
  cn.banned_since = "2022-10-07";
  w.gpu.availability[Region::cn] = cn;
  // Launched in the month of the ban: after it, so no legal stock.
  w.gpu.launched = "2022-10";
  CHECK(fires("{field: legal_stock, is: false}", w));
  w.gpu.launched = "2022-09";
  CHECK(fires("{field: legal_stock, is: true}", w));
  // Licensed shipments make stock legal whatever the launch.
  w.gpu.launched = "2024-04";
  CHECK(fires("{field: legal_stock, is: false}", w));
  w.gpu.availability[Region::cn].licensed_shipments_since = "2026-08";
  CHECK(fires("{field: legal_stock, is: true}", w));
  CHECK(fires("{field: licensed_shipments, is: true}", w));
  // New supply and the importer's stance.
  w.gpu.availability[Region::cn].new_supply = Supply::discontinued;
  CHECK(fires("{field: new_supply, is: discontinued}", w));
  CHECK_FALSE(fires("{field: importer_stance, exists: true}", w));
  w.gpu.availability[Region::cn].importer = ImporterStance{Stance::discouraged, "2025-08", "2025-11", "note"};
  CHECK(fires("{field: importer_stance, is: discouraged}", w));
  // The status's age, from its verification to the catalog's date.
  Facts facts = w.facts();
  facts.catalog_updated = "2026-11-29";
  const RuleSet rules = parse_rules(rule("{field: status_age_months, above: 6}"), "rules.yaml", RulesRole::overlay);
  CHECK(evaluate(rules, facts).front().fired);  // 2025-11 -> 2026-11: 12 months
  w.gpu.availability[Region::cn].verified = "2026-08";
  facts = w.facts();
  facts.catalog_updated = "2026-11-29";
  CHECK_FALSE(evaluate(rules, facts).front().fired);
  CHECK(months_between("2025-11", "2026-11-29") == 12);
  CHECK(months_between("2026", "2026-03") == 2);
  CHECK_FALSE(months_between("soon", "2026-03").has_value());
}

namespace {

// For a grid of requests and every card: evaluating with the rules the request
// rules out skipped gives the findings evaluating them all gives. Returns how
// many (request, rule) pairs were ruled out.
std::size_t check_prefilter(const RuleSet& rules) {
  const Catalog catalog = load_embedded_catalog();
  std::size_t ruled_out = 0;
  std::size_t compared = 0;
  for (const Task task : {Task::lora, Task::qlora, Task::full, Task::pretrain, Task::inference}) {
    for (const double params : {8e9, 70e9}) {
      for (const Region region : {Region::global, Region::cn}) {
        for (const CostMode mode : {CostMode::rent, CostMode::buy}) {
          for (const BudgetTier budget : {BudgetTier::low, BudgetTier::medium, BudgetTier::high}) {
            Request request = test::request(params, task);
            request.region = region;
            request.mode = mode;
            request.budget = budget;
            const ModelShape model = infer_shape(params);
            const std::vector<bool> may_fire = rules_that_may_fire(rules, request);
            REQUIRE(may_fire.size() == rules.rules().size());
            ruled_out += static_cast<std::size_t>(std::count(may_fire.begin(), may_fire.end(), false));
            for (const auto& gpu : catalog.gpus()) {
              const Estimate e = estimate(request, model, gpu);
              const Facts facts{&request, &gpu, &e, catalog.info().updated};
              const auto all = evaluate(rules, facts);
              const auto skipped = evaluate(rules, facts, may_fire);
              REQUIRE(all.size() == skipped.size());
              // One assertion per (request, card), naming every rule that
              // differs: 1.5 million Catch assertions took 37 s under ASan.
              std::string differs;
              bool rejected = false;
              for (std::size_t i = 0; i < all.size(); ++i) {
                const bool same = all[i].fired == skipped[i].fired && all[i].message == skipped[i].message;
                const bool ruled_out_but_fires = all[i].fired && !may_fire[i];
                if (!same || ruled_out_but_fires) {
                  differs += all[i].rule_id + (same ? " (fires but was ruled out) " : " (findings differ) ");
                }
                rejected = rejected || (all[i].fired && all[i].effect == EffectKind::reject);
              }
              CAPTURE(gpu.id, to_string(task), to_string(region), to_string(mode), params);
              CHECK(differs.empty());
              CHECK(rejected_by_rules(rules, facts) == rejected);
              ++compared;
            }
          }
        }
      }
    }
  }
  CHECK(compared > 5000);
  return ruled_out;
}

}  // namespace

TEST_CASE("rules: what the request alone decides is decided once per request, with the same findings",
          "[rules][exhaustive]") {
  CHECK(check_prefilter(load_embedded_rules()) > 0);  // the test can fail: some rules are decided by the request
  // Conditions the shipped rules do not use: not, not-any, exists, between,
  // and a request field beside a card field under every combination.
  const RuleSet overlay = parse_rules(header + R"(
  - id: t-not
    when: {not: {field: region, is: cn}}
    effect: {type: note}
    message: {en: "not cn {gpu}"}
  - id: t-not-any
    when: {not: {any: [{field: task, is: lora}, {field: vendor, is: nvidia}]}}
    effect: {type: warning}
    message: {en: "w"}
  - id: t-exists
    when: {all: [{field: budget_usd, exists: false}, {field: vendor, is: amd}]}
    effect: {type: note}
    message: {en: "e"}
  - id: t-between
    when: {field: params_b, between: [1, 10]}
    effect: {type: note}
    message: {en: "b"}
  - id: t-reject
    when: {not: {all: [{field: mode, is: rent}, {not: {field: vendor, is: nvidia}}]}}
    effect: {type: reject}
    message: {en: "r"}
  - id: t-any-request
    when: {any: [{field: region, is: cn}, {field: mode, is: buy}]}
    effect: {type: warning}
    message: {en: "s"}
)",
                                      "overlay.yaml", RulesRole::overlay);
  RuleSet rules = load_embedded_rules();
  rules.merge(overlay);
  CHECK(check_prefilter(rules) > 0);
}

TEST_CASE("rules: fields marked per request read neither the card nor the estimate", "[rules]") {
  for (const Task task : {Task::lora, Task::pretrain, Task::inference}) {
    const Request request = test::request(70e9, task);
    const Facts request_only{&request, nullptr, nullptr, {}};
    std::size_t marked = 0;
    for (std::size_t i = 0; i < rule_fields().size(); ++i) {
      if (rule_fields()[i].per_request) {
        (void)field_value(static_cast<int>(i), request_only);  // would dereference a null card
        ++marked;
      }
    }
    CHECK(marked == 15);
  }
}
