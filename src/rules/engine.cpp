// The rule engine: conditions matched against one card's facts, messages
// rendered in both languages, rule sets merged.
#include <algorithm>

#include "gpu_advise/phrases.hpp"
#include "gpu_advise/rules.hpp"
#include "rules/fields.hpp"

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
  static constexpr EnumName<EffectKind> table[] = {
      {EffectKind::reject, "reject"}, {EffectKind::note, "note"}, {EffectKind::warning, "warning"}};
  return table;
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

std::optional<bool> RuleCondition::decided_by_request(const Facts& request_only) const {
  switch (kind) {
    case Kind::all: {
      bool all_true = true;
      for (const auto& c : children) {
        const auto verdict = c.decided_by_request(request_only);
        if (verdict == false) {
          return false;
        }
        all_true = all_true && verdict == true;
      }
      return all_true ? std::optional<bool>(true) : std::nullopt;
    }
    case Kind::any: {
      bool all_false = true;
      for (const auto& c : children) {
        const auto verdict = c.decided_by_request(request_only);
        if (verdict == true) {
          return true;
        }
        all_false = all_false && verdict == false;
      }
      return all_false ? std::optional<bool>(false) : std::nullopt;
    }
    case Kind::negate: {
      const auto verdict = children.front().decided_by_request(request_only);
      return verdict ? std::optional<bool>(!*verdict) : std::nullopt;
    }
    case Kind::compare: break;
  }
  const auto& fields = rule_fields();
  if (field_index < 0 || static_cast<std::size_t>(field_index) >= fields.size() ||
      !fields[static_cast<std::size_t>(field_index)].per_request) {
    return std::nullopt;
  }
  return matches(request_only);
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

void RuleSet::merge(const RuleSet& overlay) {
  for (const auto& rule : overlay.rules()) {
    const auto it = std::find_if(m_rules.begin(), m_rules.end(), [&](const Rule& r) { return r.id == rule.id; });
    if (it != m_rules.end()) {
      *it = rule;
    } else {
      m_rules.push_back(rule);
    }
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

std::vector<bool> rules_that_may_fire(const RuleSet& rules, const Request& request) {
  const Facts request_only{&request, nullptr, nullptr, {}};
  std::vector<bool> out;
  out.reserve(rules.rules().size());
  for (const auto& rule : rules.rules()) {
    out.push_back(rule.when.decided_by_request(request_only) != false);
  }
  return out;
}

bool rejected_by_rules(const RuleSet& rules, const Facts& facts) {
  return std::any_of(rules.rules().begin(), rules.rules().end(),
                     [&](const Rule& rule) { return rule.effect == EffectKind::reject && rule.when.matches(facts); });
}

std::vector<Finding> evaluate(const RuleSet& rules, const Facts& facts) {
  return evaluate(rules, facts, {});  // no rule ruled out
}

std::vector<Finding> evaluate(const RuleSet& rules, const Facts& facts, const std::vector<bool>& may_fire) {
  std::vector<Finding> out;
  out.reserve(rules.rules().size());
  for (std::size_t i = 0; i < rules.rules().size(); ++i) {
    const Rule& rule = rules.rules()[i];
    const bool fired = (i >= may_fire.size() || may_fire[i]) && rule.when.matches(facts);
    Finding finding{rule.id, rule.effect, fired, {}};
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

}  // namespace gpu_advise
