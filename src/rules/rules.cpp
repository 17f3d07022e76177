// The rule engine: field registry, condition compilation (with located,
// did-you-mean errors) and evaluation, message rendering, and rule files.
#include "gpu_advise/rules.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <set>

#include <fmt/format.h>

#include "core/quantity_format.hpp"
#include "gpu_advise/catalog.hpp"
#include "gpu_advise/error.hpp"
#include "gpu_advise/text.hpp"
#include "gpu_advise/units.hpp"
#include "load/embedded_data.hpp"
#include "load/files.hpp"
#include "load/yaml_reader.hpp"

namespace gpu_advise {

std::span<const EnumName<Operator>> names(Operator) {
  static constexpr EnumName<Operator> table[] = {
      {Operator::is, "is"},         {Operator::is_not, "is_not"},     {Operator::in, "in"},
      {Operator::not_in, "not_in"}, {Operator::at_least, "at_least"}, {Operator::at_most, "at_most"},
      {Operator::above, "above"},   {Operator::below, "below"},       {Operator::between, "between"},
      {Operator::exists, "exists"}};
  return table;
}

std::span<const EnumName<EffectKind>> names(EffectKind) {
  static constexpr EnumName<EffectKind> table[] = {{EffectKind::reject, "reject"},
                                                   {EffectKind::score, "score"},
                                                   {EffectKind::note, "note"},
                                                   {EffectKind::warning, "warning"}};
  return table;
}

namespace {

using Getter = std::function<std::optional<FieldValue>(const Facts&)>;

struct Field {
  FieldInfo info;
  Getter get;
};

template <typename E>
std::vector<std::string> words_of() {
  return enum_names<E>();
}

std::optional<FieldValue> number(double value) { return FieldValue{value}; }
std::optional<FieldValue> word(std::string_view value) { return FieldValue{std::string(value)}; }
std::optional<FieldValue> yes(bool value) { return FieldValue{value}; }

const Estimate* fitted(const Facts& f) { return (f.estimate != nullptr && f.estimate->fits) ? f.estimate : nullptr; }

const std::vector<Field>& registry() {
  static const std::vector<Field> fields = [] {
    std::vector<Field> v;
    auto add = [&](std::string_view name, FieldType type, std::string_view about, std::vector<std::string> words,
                   Getter get) {
      v.push_back(Field{FieldInfo{name, type, about, std::move(words)}, std::move(get)});
    };
    const auto N = FieldType::number;
    const auto W = FieldType::word;
    const auto B = FieldType::boolean;
    // ---- the request ----
    add("task", W, "pretrain, full, lora, qlora or inference", words_of<Task>(),
        [](const Facts& f) { return word(to_string(f.request->task)); });
    add("training", B, "true for pretrain, full, lora and qlora", {},
        [](const Facts& f) { return yes(is_training(f.request->task)); });
    add("params", N, "total parameters (70B = 70000000000)", {},
        [](const Facts& f) { return number(f.request->params); });
    add("params_b", N, "total parameters in billions", {},
        [](const Facts& f) { return number(f.request->params / 1e9); });
    add("active_params_b", N, "parameters active per token, in billions (MoE; = params_b for dense)", {},
        [](const Facts& f) { return number(f.request->active_params.value_or(f.request->params) / 1e9); });
    add("budget", W, "the budget tier: low, medium or high", words_of<BudgetTier>(),
        [](const Facts& f) { return word(to_string(f.request->budget)); });
    add("budget_usd", N, "the --budget amount in USD (absent when a tier was given)", {},
        [](const Facts& f) { return f.request->budget_usd ? number(*f.request->budget_usd) : std::nullopt; });
    add("region", W, "where the cards are bought or rented: global or cn", words_of<Region>(),
        [](const Facts& f) { return word(to_string(f.request->region)); });
    add("mode", W, "rent or buy", words_of<CostMode>(),
        [](const Facts& f) { return word(to_string(f.request->mode)); });
    add("precision", W, "inference weights (bf16, fp8, int8, int4); training: bf16 or fp8",
        {"bf16", "fp8", "int8", "int4"}, [](const Facts& f) {
          if (is_training(f.request->task)) {
            return word(f.request->fp8_training ? "fp8" : "bf16");
          }
          return word(to_string(f.request->precision));
        });
    add("context", N, "inference: tokens per sequence held in the KV cache", {},
        [](const Facts& f) { return f.request->task == Task::inference ? number(f.request->context) : std::nullopt; });
    add("concurrency", N, "inference: sequences served at once", {}, [](const Facts& f) {
      return f.request->task == Task::inference ? number(f.request->concurrency) : std::nullopt;
    });
    add("seq_len", N, "training: sequence length", {},
        [](const Facts& f) { return is_training(f.request->task) ? number(f.request->seq_len) : std::nullopt; });
    add("deadline_days", N, "the training deadline in days (absent without one)", {}, [](const Facts& f) {
      const auto hours = f.request->effective_deadline_hours();
      return hours && is_training(f.request->task) ? number(*hours / 24.0) : std::nullopt;
    });
    // ---- the card ----
    add("gpu", W, "the card's catalog id", {}, [](const Facts& f) { return word(f.gpu->id); });
    add("gpu_name", W, "the card's name", {}, [](const Facts& f) { return word(f.gpu->name); });
    add("vendor", W, "nvidia, amd, huawei or intel", words_of<Vendor>(),
        [](const Facts& f) { return word(to_string(f.gpu->vendor)); });
    add("architecture", W, "ampere, ada, hopper, blackwell, cdna3, davinci or gaudi", words_of<Architecture>(),
        [](const Facts& f) { return word(to_string(f.gpu->architecture)); });
    add("software", W, "cuda, rocm, cann or gaudi", words_of<SoftwareStack>(),
        [](const Facts& f) { return word(to_string(f.gpu->software)); });
    add("form_factor", W, "sxm, pcie, oam or module", words_of<FormFactor>(),
        [](const Facts& f) { return word(to_string(f.gpu->form_factor)); });
    add("memory_type", W, "HBM2e, HBM3, GDDR6, ... as in the catalog", {},
        [](const Facts& f) { return word(f.gpu->memory.type); });
    add("memory_kind", W, "hbm (stacked, datacenter) or gddr (graphics-class)", {"hbm", "gddr"},
        [](const Facts& f) { return word(text::to_lower(f.gpu->memory.type).rfind("gddr", 0) == 0 ? "gddr" : "hbm"); });
    add("memory_gb", N, "the card's memory as marketed (80 for an 80 GB card)", {},
        [](const Facts& f) { return number(f.gpu->memory.size_gb); });
    add("bandwidth_gb_per_s", N, "peak memory bandwidth, GB/s", {},
        [](const Facts& f) { return number(f.gpu->memory.bandwidth_gb_per_s); });
    add("bf16_tflops", N, "dense BF16 TFLOPS", {}, [](const Facts& f) { return number(f.gpu->compute.bf16_tflops); });
    add("fp8", B, "the card has FP8", {}, [](const Facts& f) { return yes(f.gpu->compute.fp8_tflops.has_value()); });
    add("fp4", B, "the card has FP4", {}, [](const Facts& f) { return yes(f.gpu->compute.fp4_tflops.has_value()); });
    add("interconnect_gb_per_s", N, "scale-up bandwidth per GPU, bidirectional, GB/s", {},
        [](const Facts& f) { return number(f.gpu->interconnect.bandwidth_gb_per_s); });
    add("interconnect", W, "the scale-up interconnect's name", {},
        [](const Facts& f) { return word(f.gpu->interconnect.name); });
    add("domain_size", N, "GPUs sharing the scale-up fabric (1 = none)", {},
        [](const Facts& f) { return number(f.gpu->interconnect.domain_size); });
    add("tdp_w", N, "board power, W", {},
        [](const Facts& f) { return f.gpu->tdp_w ? number(*f.gpu->tdp_w) : std::nullopt; });
    add("confidence", W, "the card's catalog confidence: datasheet, secondary or estimate", words_of<Confidence>(),
        [](const Facts& f) { return word(to_string(f.gpu->confidence)); });
    add("availability", W, "the card's status in the request's region", words_of<AvailabilityStatus>(),
        [](const Facts& f) -> std::optional<FieldValue> {
          const auto* a = f.gpu->availability_in(f.request->region);
          return a ? word(to_string(a->status)) : std::nullopt;
        });
    add("availability_since", W, "when that status began", {}, [](const Facts& f) -> std::optional<FieldValue> {
      const auto* a = f.gpu->availability_in(f.request->region);
      return a && !a->since.empty() ? word(a->since) : std::nullopt;
    });
    add("availability_verified", W, "when that status was last checked", {},
        [](const Facts& f) -> std::optional<FieldValue> {
          const auto* a = f.gpu->availability_in(f.request->region);
          return a ? word(a->verified) : std::nullopt;
        });
    add("availability_dates", W, "'since 2022-09, verified 2026-01' (or only the verification date)", {},
        [](const Facts& f) -> std::optional<FieldValue> {
          const auto* a = f.gpu->availability_in(f.request->region);
          if (a == nullptr) {
            return std::nullopt;
          }
          return word(a->since.empty() ? fmt::format("verified {}", a->verified)
                                       : fmt::format("since {}, verified {}", a->since, a->verified));
        });
    add("availability_note", W, "the catalog's note on that status", {},
        [](const Facts& f) -> std::optional<FieldValue> {
          const auto* a = f.gpu->availability_in(f.request->region);
          return a && !a->note.empty() ? word(a->note) : std::nullopt;
        });
    add("price_known", B, "the card has a sourced price for the mode and region", {}, [](const Facts& f) {
      if (f.estimate == nullptr) {
        return yes(false);
      }
      return yes(budget_cost_usd(*f.request, *f.estimate).has_value());
    });
    // ---- the estimate (absent when the card does not fit) ----
    add("fits", B, "the workload fits on this card", {},
        [](const Facts& f) { return yes(f.estimate != nullptr && f.estimate->fits); });
    add("gpus", N, "GPUs needed", {}, [](const Facts& f) {
      const auto* e = fitted(f);
      return e ? number(e->count) : std::nullopt;
    });
    add("nodes", N, "8-GPU servers needed", {}, [](const Facts& f) {
      const auto* e = fitted(f);
      return e ? number(e->nodes) : std::nullopt;
    });
    add("tensor_parallel", N, "tensor-parallel size of the layout", {}, [](const Facts& f) {
      const auto* e = fitted(f);
      return e ? number(e->layout.tensor) : std::nullopt;
    });
    add("pipeline_parallel", N, "pipeline-parallel size of the layout", {}, [](const Facts& f) {
      const auto* e = fitted(f);
      return e ? number(e->layout.pipeline) : std::nullopt;
    });
    add("headroom", N, "share of usable memory left unused, 0 to 1", {}, [](const Facts& f) {
      const auto* e = fitted(f);
      return e ? number(e->headroom()) : std::nullopt;
    });
    add("memory_per_gpu_gb", N, "memory needed per GPU, GB", {}, [](const Facts& f) {
      const auto* e = fitted(f);
      return e ? number(e->per_gpu.total() / 1e9) : std::nullopt;
    });
    add("wall_days", N, "training: typical wall time in days", {}, [](const Facts& f) {
      const auto* e = fitted(f);
      return e && e->training ? number(e->training->wall_hours.typical / 24.0) : std::nullopt;
    });
    add("tokens_per_s", N, "inference: typical output tokens/s at the concurrency asked", {}, [](const Facts& f) {
      const auto* e = fitted(f);
      return e && e->inference ? number(e->inference->tokens_per_s.typical) : std::nullopt;
    });
    add("cost_usd", N, "the plan's typical cost: a training run or a month of serving (rent), or the cards (buy)", {},
        [](const Facts& f) -> std::optional<FieldValue> {
          const auto* e = fitted(f);
          if (e == nullptr) {
            return std::nullopt;
          }
          const auto cost = budget_cost_usd(*f.request, *e);
          return cost ? number(*cost) : std::nullopt;
        });
    return v;
  }();
  return fields;
}

const Field* find_field(std::string_view name) {
  for (const auto& field : registry()) {
    if (field.info.name == name) {
      return &field;
    }
  }
  return nullptr;
}

std::vector<std::string> field_names() {
  std::vector<std::string> out;
  for (const auto& field : registry()) {
    out.emplace_back(field.info.name);
  }
  return out;
}

bool equal(const FieldValue& a, const FieldValue& b) {
  if (a.index() != b.index()) {
    return false;
  }
  if (const auto* s = std::get_if<std::string>(&a)) {
    return text::to_lower(*s) == text::to_lower(std::get<std::string>(b));
  }
  return a == b;
}

std::string show(const FieldValue& value, std::string_view field, const Facts& facts, Language language) {
  if (language == Language::zh) {
    if (field == "availability") {
      static const std::map<std::string, Phrase> words = {{"available", Phrase::value_available},
                                                          {"licence_required", Phrase::value_licence_required},
                                                          {"restricted", Phrase::value_restricted},
                                                          {"banned", Phrase::value_banned},
                                                          {"not_offered", Phrase::value_not_offered}};
      const auto it = words.find(std::get<std::string>(value));
      return it == words.end() ? std::get<std::string>(value) : say(language, it->second);
    }
    if (field == "availability_dates") {
      const auto* a = facts.gpu->availability_in(facts.request->region);
      return a->since.empty() ? say(language, Phrase::value_verified, a->verified)
                              : say(language, Phrase::value_since_verified, a->since, a->verified);
    }
    if (const auto* b = std::get_if<bool>(&value)) {
      return say(language, *b ? Phrase::value_yes : Phrase::value_no);
    }
  }
  if (const auto* d = std::get_if<double>(&value)) {
    if (field == "params") {
      return format_parameter_count(*d);
    }
    if (field == "cost_usd" || field == "budget_usd") {
      return format::money(*d);
    }
    if (field == "headroom") {
      return fmt::format("{:.0f}%", *d * 100.0);
    }
    return format::number(*d);
  }
  if (const auto* b = std::get_if<bool>(&value)) {
    return *b ? "yes" : "no";
  }
  return std::get<std::string>(value);
}

}  // namespace

const std::vector<FieldInfo>& rule_fields() {
  static const std::vector<FieldInfo> infos = [] {
    std::vector<FieldInfo> out;
    for (const auto& field : registry()) {
      out.push_back(field.info);
    }
    return out;
  }();
  return infos;
}

std::optional<FieldValue> field_value(std::string_view name, const Facts& facts) {
  const Field* field = find_field(name);
  return field ? field->get(facts) : std::nullopt;
}

std::optional<FieldValue> field_value(int field_index, const Facts& facts) {
  const auto& fields = registry();
  return field_index >= 0 && static_cast<std::size_t>(field_index) < fields.size()
             ? fields[static_cast<std::size_t>(field_index)].get(facts)
             : std::nullopt;
}

bool RuleCondition::matches(const Facts& facts) const {
  switch (kind) {
    case Kind::all:
      return std::all_of(children.begin(), children.end(), [&](const RuleCondition& c) { return c.matches(facts); });
    case Kind::any:
      return std::any_of(children.begin(), children.end(), [&](const RuleCondition& c) { return c.matches(facts); });
    case Kind::negate: return !children.front().matches(facts);
    case Kind::compare: break;
  }
  const auto value = field_index >= 0 ? field_value(field_index, facts) : field_value(field, facts);
  if (op == Operator::exists) {
    return value.has_value() == std::get<bool>(values.front());
  }
  if (!value) {
    return false;  // a field that does not apply matches nothing (use exists to test for it)
  }
  auto number_of = [](const FieldValue& v) { return std::get<double>(v); };
  switch (op) {
    case Operator::is: return equal(*value, values.front());
    case Operator::is_not: return !equal(*value, values.front());
    case Operator::in:
      return std::any_of(values.begin(), values.end(), [&](const FieldValue& v) { return equal(*value, v); });
    case Operator::not_in:
      return std::none_of(values.begin(), values.end(), [&](const FieldValue& v) { return equal(*value, v); });
    case Operator::at_least: return number_of(*value) >= number_of(values.front());
    case Operator::at_most: return number_of(*value) <= number_of(values.front());
    case Operator::above: return number_of(*value) > number_of(values.front());
    case Operator::below: return number_of(*value) < number_of(values.front());
    case Operator::between:
      return number_of(*value) >= number_of(values[0]) && number_of(*value) <= number_of(values[1]);
    case Operator::exists: break;
  }
  return false;
}

std::string render_message(std::string_view text, const Facts& facts, Language language) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '{') {
      const auto close = text.find('}', i);
      if (close != std::string_view::npos) {
        const std::string_view name = text.substr(i + 1, close - i - 1);
        const auto value = field_value(name, facts);
        out += value ? show(*value, name, facts, language) : say(language, Phrase::value_not_applicable);
        i = close + 1;
        continue;
      }
    }
    out += text[i++];
  }
  return out;
}

ScoreWeights RuleSet::weights(BudgetTier tier) const {
  const auto it = m_profiles.find(tier);
  if (it != m_profiles.end()) {
    return it->second;
  }
  return ScoreWeights{0.4, 0.4, 0.2, 0.0};
}

const EcosystemScores& RuleSet::ecosystem() const {
  static const EcosystemScores neutral;
  return m_ecosystem ? *m_ecosystem : neutral;
}

double EcosystemScores::score(const GpuSpec& gpu) const {
  const auto s = software.find(gpu.software);
  const auto c = confidence.find(gpu.confidence);
  return (s == software.end() ? 0.5 : s->second) * (c == confidence.end() ? 1.0 : c->second);
}

void RuleSet::merge(const RuleSet& overlay) {
  for (const auto& rule : overlay.rules()) {
    const auto it = std::find_if(m_rules.begin(), m_rules.end(), [&](const Rule& r) { return r.id == rule.id; });
    if (it != m_rules.end()) {
      *it = rule;
    } else {
      m_rules.push_back(rule);
    }
  }
  for (const auto& [tier, weights] : overlay.m_profiles) {
    m_profiles[tier] = weights;
  }
  if (overlay.m_ecosystem) {
    m_ecosystem = overlay.m_ecosystem;
  }
}

const std::string& Finding::message_in(Language language) const {
  static const std::string none;
  auto it = message.find(language);
  if (it == message.end()) {
    it = message.find(Language::en);
  }
  return it == message.end() ? none : it->second;
}

std::vector<Finding> evaluate(const RuleSet& rules, const Facts& facts) {
  std::vector<Finding> out;
  out.reserve(rules.rules().size());
  for (const auto& rule : rules.rules()) {
    Finding finding{rule.id, rule.effect, rule.points, rule.when.matches(facts), {}};
    if (finding.fired) {
      for (const Language language : {Language::en, Language::zh}) {
        auto it = rule.message.find(language);
        if (it == rule.message.end()) {
          it = rule.message.find(Language::en);
        }
        const bool translated = it != rule.message.end() && it->first == language;
        finding.message[language] = render_message(it == rule.message.end() ? rule.id : it->second, facts,
                                                   translated ? language : Language::en);
      }
    }
    out.push_back(std::move(finding));
  }
  return out;
}

// ---- loading ----

namespace {

using yaml::MapReader;
using yaml::Presence;

class RulesParser {
 public:
  RulesParser(std::string_view source, RulesRole role) : m_diagnostics(std::string(source)), m_role(role) {}

  RuleSet parse(std::string_view text) {
    const YAML::Node document = yaml::parse(text, m_diagnostics);
    m_diagnostics.throw_if_any();
    if (!document.IsDefined() || document.IsNull()) {
      m_diagnostics.error(YAML::Mark::null_mark(), "", "the file is empty; expected schema_version and rules");
      m_diagnostics.throw_if_any();
    }
    MapReader top(m_diagnostics, document, "");
    if (const auto version = top.integer("schema_version", Presence::required, 1, 1000); version && *version != 1) {
      m_diagnostics.error(document, "schema_version", fmt::format("version {} is not supported; expected 1", *version));
    }
    std::map<BudgetTier, ScoreWeights> profiles;
    if (const auto node = top.node("profiles", m_role == RulesRole::base ? Presence::required : Presence::optional)) {
      profiles = read_profiles(*node);
    }
    std::optional<EcosystemScores> ecosystem;
    if (const auto node = top.node("ecosystem", m_role == RulesRole::base ? Presence::required : Presence::optional)) {
      ecosystem = read_ecosystem(*node);
    }
    std::vector<Rule> rules;
    if (const auto list = top.node("rules", m_role == RulesRole::base ? Presence::required : Presence::optional)) {
      if (!list->IsSequence()) {
        m_diagnostics.error(*list, "rules", "expected a list of rules");
      } else {
        std::map<std::string, int> first_line;
        std::size_t index = 0;
        for (const auto& item : *list) {
          const auto path = fmt::format("rules[{}]", index++);
          Rule rule = read_rule(item, path);
          if (!rule.id.empty()) {
            const auto [it, inserted] = first_line.emplace(rule.id, yaml::line_of(item));
            if (!inserted) {
              m_diagnostics.error(
                  item, path + ".id",
                  fmt::format("duplicate rule id '{}' (first defined at line {})", rule.id, it->second));
            }
          }
          rules.push_back(std::move(rule));
        }
      }
    }
    top.finish();
    m_diagnostics.throw_if_any();
    return RuleSet(std::move(rules), std::move(profiles), std::move(ecosystem));
  }

 private:
  std::map<BudgetTier, ScoreWeights> read_profiles(const YAML::Node& node) {
    std::map<BudgetTier, ScoreWeights> out;
    MapReader map(m_diagnostics, node, "profiles");
    for (const auto& name : enum_names<BudgetTier>()) {
      const auto tier_node = map.node(name, m_role == RulesRole::base ? Presence::required : Presence::optional);
      if (!tier_node) {
        continue;
      }
      MapReader weights(m_diagnostics, *tier_node, map.child_path(name));
      const yaml::Bounds share{0, 1, false};
      ScoreWeights w;
      w.cost = weights.number("cost", Presence::required, share).value_or(0);
      w.speed = weights.number("speed", Presence::required, share).value_or(0);
      w.headroom = weights.number("headroom", Presence::required, share).value_or(0);
      w.risk = weights.number("risk", Presence::required, share).value_or(0);
      weights.finish();
      const double sum = w.cost + w.speed + w.headroom + w.risk;
      if (std::abs(sum - 1.0) > 1e-6) {
        m_diagnostics.error(*tier_node, map.child_path(name),
                            fmt::format("the weights add up to {:g}; they must add up to 1", sum));
      }
      out[*enum_from_string<BudgetTier>(name)] = w;
    }
    map.finish();
    return out;
  }

  EcosystemScores read_ecosystem(const YAML::Node& node) {
    EcosystemScores out;
    out.software.clear();
    out.confidence.clear();
    MapReader map(m_diagnostics, node, "ecosystem");
    const yaml::Bounds share{0, 1, false};
    if (const auto software = map.node("software", Presence::required)) {
      MapReader m(m_diagnostics, *software, "ecosystem.software");
      for (const auto& name : enum_names<SoftwareStack>()) {
        if (const auto value = m.number(name, Presence::required, share)) {
          out.software[*enum_from_string<SoftwareStack>(name)] = *value;
        }
      }
      m.finish();
    }
    if (const auto confidence = map.node("confidence", Presence::required)) {
      MapReader m(m_diagnostics, *confidence, "ecosystem.confidence");
      for (const auto& name : enum_names<Confidence>()) {
        if (const auto value = m.number(name, Presence::required, share)) {
          out.confidence[*enum_from_string<Confidence>(name)] = *value;
        }
      }
      m.finish();
    }
    (void)map.string_list("sources", Presence::optional);
    map.finish();
    return out;
  }

  Rule read_rule(const YAML::Node& node, const std::string& path) {
    Rule rule;
    MapReader map(m_diagnostics, node, path);
    if (!map.valid()) {
      return rule;
    }
    rule.origin = fmt::format("{}:{}", m_diagnostics.source(), yaml::line_of(node));
    rule.from_user = m_role == RulesRole::overlay;  // a --rules file, not data/rules.yaml
    rule.id = map.string("id", Presence::required).value_or("");
    if (const auto when = map.node("when", Presence::required)) {
      rule.when = read_condition(*when, map.child_path("when"));
    }
    if (const auto effect = map.node("effect", Presence::required)) {
      MapReader e(m_diagnostics, *effect, map.child_path("effect"));
      rule.effect = e.enumeration<EffectKind>("type", Presence::required).value_or(EffectKind::note);
      const auto points = e.node("points", rule.effect == EffectKind::score ? Presence::required : Presence::optional);
      if (points) {
        if (const auto value = read_signed(*points, e.child_path("points"))) {
          rule.points = *value;
          if (rule.effect == EffectKind::reject) {
            m_diagnostics.error(*points, e.child_path("points"), "a reject has no points");
          }
        }
      }
      e.finish();
    }
    if (const auto message = map.node("message", Presence::required)) {
      MapReader m(m_diagnostics, *message, map.child_path("message"));
      for (const auto& language : enum_names<Language>()) {
        if (auto text = m.string(language, language == "en" ? Presence::required : Presence::optional)) {
          check_placeholders(*text, *m.node(language, Presence::optional), m.child_path(language));
          rule.message[*enum_from_string<Language>(language)] = std::move(*text);
        }
      }
      m.finish();
    }
    (void)map.string("about", Presence::optional);
    map.finish();
    return rule;
  }

  // Points may be negative: -100 to +100.
  std::optional<double> read_signed(const YAML::Node& node, const std::string& path) {
    if (!node.IsScalar()) {
      m_diagnostics.error(node, path, "expected a number of points, such as 8 or -10");
      return std::nullopt;
    }
    std::string raw = node.Scalar();
    if (!raw.empty() && raw[0] == '+') {
      raw.erase(0, 1);
    }
    double value = 0;
    const auto [ptr, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), value);
    if (raw.empty() || ec != std::errc{} || ptr != raw.data() + raw.size() || !std::isfinite(value)) {
      m_diagnostics.error(node, path,
                          fmt::format("expected a number of points, such as 8 or -10, found '{}'", node.Scalar()));
      return std::nullopt;
    }
    if (std::abs(value) > 100) {
      m_diagnostics.error(node, path, fmt::format("{} is outside -100 to 100 points", node.Scalar()));
      return std::nullopt;
    }
    return value;
  }

  void check_placeholders(const std::string& text, const YAML::Node& node, const std::string& path) {
    const auto names = field_names();
    std::size_t at = 0;
    while ((at = text.find('{', at)) != std::string::npos) {
      const auto close = text.find('}', at);
      if (close == std::string::npos) {
        m_diagnostics.error(node, path, "a '{' without its '}'");
        return;
      }
      const std::string name = text.substr(at + 1, close - at - 1);
      if (find_field(name) == nullptr) {
        std::string message = fmt::format("unknown placeholder '{{{}}}'", name);
        if (const auto suggestion = text::did_you_mean(name, names)) {
          message += fmt::format("; did you mean '{{{}}}'?", *suggestion);
        }
        m_diagnostics.error(node, path, message);
      }
      at = close + 1;
    }
  }

  RuleCondition read_condition(const YAML::Node& node, const std::string& path) {
    RuleCondition c;
    if (!node.IsMap() || node.size() == 0) {
      m_diagnostics.error(node, path, "expected a condition: {field: NAME, OPERATOR: VALUE}, or all / any / not");
      return c;
    }
    MapReader map(m_diagnostics, node, path);
    for (const char* combinator : {"all", "any"}) {
      if (const auto list = map.node(combinator, Presence::optional)) {
        c.kind = std::string_view(combinator) == "all" ? RuleCondition::Kind::all : RuleCondition::Kind::any;
        if (!list->IsSequence() || list->size() == 0) {
          m_diagnostics.error(*list, map.child_path(combinator), "expected a non-empty list of conditions");
        } else {
          std::size_t index = 0;
          for (const auto& item : *list) {
            c.children.push_back(read_condition(item, fmt::format("{}.{}[{}]", path, combinator, index++)));
          }
        }
        finish_alone(map, node, path);
        return c;
      }
    }
    if (const auto inner = map.node("not", Presence::optional)) {
      c.kind = RuleCondition::Kind::negate;
      c.children.push_back(read_condition(*inner, map.child_path("not")));
      finish_alone(map, node, path);
      return c;
    }
    c.kind = RuleCondition::Kind::compare;
    const auto field_name = map.string("field", Presence::required);
    const Field* field = nullptr;
    if (field_name) {
      field = find_field(*field_name);
      if (field == nullptr) {
        std::string message = fmt::format("unknown field '{}'", *field_name);
        if (const auto suggestion = text::did_you_mean(*field_name, field_names())) {
          message += fmt::format("; did you mean '{}'?", *suggestion);
        }
        message += " (docs/rules.md lists the fields)";
        m_diagnostics.error(*map.node("field", Presence::required), map.child_path("field"), message);
      } else {
        c.field = *field_name;
        c.field_index = static_cast<int>(field - registry().data());
      }
    }
    // Exactly one operator besides `field`.
    std::vector<std::pair<std::string, YAML::Node>> operators;
    for (const auto& pair : node) {
      if (pair.first.IsScalar() && pair.first.Scalar() != "field") {
        operators.emplace_back(pair.first.Scalar(), pair.second);
      }
    }
    const auto operator_names = enum_names<Operator>();
    if (operators.size() != 1) {
      m_diagnostics.error(node, path,
                          operators.empty()
                              ? fmt::format("no operator; expected one of {}", text::join_or(operator_names))
                              : "give exactly one operator per condition; combine with all / any");
    }
    for (const auto& [name, value] : operators) {
      map.declare(name);
      const auto op = enum_from_string<Operator>(name);
      if (!op) {
        std::string message = fmt::format("unknown operator '{}'; expected {}", name, text::join_or(operator_names));
        if (const auto suggestion = text::did_you_mean(name, operator_names)) {
          message += fmt::format(" (did you mean '{}'?)", *suggestion);
        }
        m_diagnostics.error(value, fmt::format("{}.{}", path, name), message);
        continue;
      }
      c.op = *op;
      if (field != nullptr) {
        c.values = read_operands(*field, *op, value, fmt::format("{}.{}", path, name));
      }
    }
    map.finish();
    return c;
  }

  void finish_alone(MapReader& map, const YAML::Node& node, const std::string& path) {
    if (node.size() != 1) {
      m_diagnostics.error(node, path, "all, any and not stand alone in their condition");
    }
    for (const char* key : {"field", "all", "any", "not"}) {
      map.declare(key);
    }
  }

  std::vector<FieldValue> read_operands(const Field& field, Operator op, const YAML::Node& node,
                                        const std::string& path) {
    std::vector<FieldValue> out;
    const FieldType type = field.info.type;
    const bool numeric_op = op == Operator::at_least || op == Operator::at_most || op == Operator::above ||
                            op == Operator::below || op == Operator::between;
    if (op == Operator::exists) {
      if (!node.IsScalar() || (node.Scalar() != "true" && node.Scalar() != "false")) {
        m_diagnostics.error(node, path, "exists takes true or false");
        return {true};
      }
      return {node.Scalar() == "true"};
    }
    if (numeric_op && type != FieldType::number) {
      m_diagnostics.error(node, path,
                          fmt::format("'{}' is not a number field; use is, is_not, in or not_in", field.info.name));
      return out;
    }
    const bool list_op = op == Operator::in || op == Operator::not_in || op == Operator::between;
    std::vector<YAML::Node> items;
    if (list_op) {
      if (!node.IsSequence() || node.size() == 0) {
        m_diagnostics.error(node, path, fmt::format("{} takes a list", to_string(op)));
        return out;
      }
      if (op == Operator::between && node.size() != 2) {
        m_diagnostics.error(node, path, "between takes [low, high]");
        return out;
      }
      for (const auto& item : node) {
        items.push_back(item);
      }
    } else {
      items.push_back(node);
    }
    for (const auto& item : items) {
      if (!item.IsScalar()) {
        m_diagnostics.error(item, path, "expected a single value");
        continue;
      }
      const std::string& raw = item.Scalar();
      switch (type) {
        case FieldType::number: {
          const auto value = yaml::read_number(m_diagnostics, item, path, {0, 1e300, false});
          if (value) {
            out.emplace_back(*value);
          }
          break;
        }
        case FieldType::boolean:
          if (raw != "true" && raw != "false") {
            m_diagnostics.error(item, path, fmt::format("'{}' is a yes/no field: use true or false", field.info.name));
          } else {
            out.emplace_back(raw == "true");
          }
          break;
        case FieldType::word: {
          const auto& words = field.info.words;
          if (!words.empty() && std::find(words.begin(), words.end(), text::to_lower(raw)) == words.end()) {
            std::string message =
                fmt::format("'{}' is not a value of {}; expected {}", raw, field.info.name, text::join_or(words));
            if (const auto suggestion = text::did_you_mean(raw, words)) {
              message += fmt::format(" (did you mean '{}'?)", *suggestion);
            }
            m_diagnostics.error(item, path, message);
          } else {
            out.emplace_back(raw);
          }
          break;
        }
      }
    }
    if (op == Operator::between && out.size() == 2 && std::get<double>(out[0]) > std::get<double>(out[1])) {
      m_diagnostics.error(node, path, "between takes [low, high] with low <= high");
    }
    return out;
  }

  yaml::Diagnostics m_diagnostics;
  RulesRole m_role;
};

}  // namespace

RuleSet parse_rules(std::string_view text, std::string_view source, RulesRole role) {
  return RulesParser(source, role).parse(text);
}

RuleSet load_embedded_rules() {
  for (const auto& file : embedded::files()) {
    if (file.path == "data/rules.yaml") {
      return parse_rules(file.content, fmt::format("embedded:{}", file.path), RulesRole::base);
    }
  }
  throw Error("the embedded rules are missing from this build");
}

RuleSet load_rules(const std::vector<std::string>& overlay_files) {
  RuleSet rules = load_embedded_rules();
  std::vector<Diagnostic> problems;
  for (const auto& file : overlay_files) {
    try {
      rules.merge(parse_rules(read_data_file(file), file, RulesRole::overlay));
    } catch (const DataError& e) {
      problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }
  if (!problems.empty()) {
    throw DataError(std::move(problems));
  }
  return rules;
}

}  // namespace gpu_advise
