// Scenario rules: YAML conditions over the request, the card and its estimate,
// compiled and type-checked at load time, with effects (reject, note,
// warning) and messages in English and Chinese. A rule rejects a plan or says
// something about it; it never moves the choice (docs/methodology.md "How a
// plan is chosen"). data/rules.yaml is embedded; --rules FILE adds rules or
// replaces them by id. The language is documented in docs/rules.md.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "gpu_advise/estimate.hpp"
#include "gpu_advise/gpu.hpp"
#include "gpu_advise/language.hpp"
#include "gpu_advise/request.hpp"

namespace gpu_advise {

// What a rule can look at, for one card.
struct Facts {
  const Request* request = nullptr;
  const GpuSpec* gpu = nullptr;
  const Estimate* estimate = nullptr;
  std::string_view catalog_updated;  // the catalog's date, for the age of a status (empty: unknown)
};

// Whole months from `earlier` to `later` (YYYY, YYYY-MM or YYYY-MM-DD; a
// missing month counts as January); nullopt when either is not a date.
[[nodiscard]] std::optional<int> months_between(std::string_view earlier, std::string_view later);

// A field's value: a number, a word or a yes/no; absent when it does not apply
// (budget_usd without an amount, estimate fields of a card that does not fit).
using FieldValue = std::variant<double, std::string, bool>;

enum class FieldType { number, word, boolean };

struct FieldInfo {
  std::string_view name;
  FieldType type;
  std::string_view about;          // for docs/rules.md and error messages
  std::vector<std::string> words;  // the valid words of a word field (empty: any text)
  // Read from the request alone (no card, no estimate): a condition on it is
  // decided once per request, before any card is sized (rules_that_may_fire).
  bool per_request = false;
};

// Every field a condition or a message placeholder may use.
[[nodiscard]] const std::vector<FieldInfo>& rule_fields();
[[nodiscard]] std::optional<FieldValue> field_value(std::string_view field, const Facts& facts);
[[nodiscard]] std::optional<FieldValue> field_value(int field_index, const Facts& facts);

enum class Operator { is, is_not, in, not_in, at_least, at_most, above, below, between, exists };
[[nodiscard]] std::span<const EnumName<Operator>> names(Operator);

struct RuleCondition {
  enum class Kind { all, any, negate, compare };
  Kind kind = Kind::compare;
  std::vector<RuleCondition> children;  // all / any: the parts; negate: one
  std::string field;
  int field_index = -1;  // into rule_fields(), resolved at load time
  Operator op = Operator::is;
  std::vector<FieldValue> values;  // the operand(s), typed like the field

  [[nodiscard]] bool matches(const Facts& facts) const;
  // What the request alone decides: true or false when the request's fields
  // settle the condition whatever the card, nullopt when the card matters.
  // `request_only` has no card and no estimate.
  [[nodiscard]] std::optional<bool> decided_by_request(const Facts& request_only) const;
  friend bool operator==(const RuleCondition&, const RuleCondition&) = default;
};

enum class EffectKind { reject, note, warning };
[[nodiscard]] std::span<const EnumName<EffectKind>> names(EffectKind);

struct Rule {
  std::string id;
  RuleCondition when;
  EffectKind effect = EffectKind::note;
  std::map<Language, std::string> message;  // templates with {field} placeholders
  std::string origin;                       // FILE:LINE
  bool from_user = false;                   // from a --rules file rather than the embedded rules
  friend bool operator==(const Rule&, const Rule&) = default;
};

class RuleSet {
 public:
  RuleSet() = default;
  explicit RuleSet(std::vector<Rule> rules) : m_rules(std::move(rules)) {}
  [[nodiscard]] const std::vector<Rule>& rules() const noexcept { return m_rules; }
  // Rules with the same id are replaced in place, new ones appended.
  void merge(const RuleSet& overlay);
  friend bool operator==(const RuleSet&, const RuleSet&) = default;

 private:
  std::vector<Rule> m_rules;
};

// One rule's verdict on one card.
struct Finding {
  std::string rule_id;
  EffectKind effect = EffectKind::note;
  bool fired = false;
  std::map<Language, std::string> message;  // rendered in each language; empty when not fired

  // The message in `language` (English where the rule has no translation).
  [[nodiscard]] const std::string& message_in(Language language) const;
};

// Every rule's verdict on one card, each fired rule's message rendered in both languages.
[[nodiscard]] std::vector<Finding> evaluate(const RuleSet& rules, const Facts& facts);

// For each rule, whether it may fire on some card of this request: false
// where the request's own fields already rule it out (28 of the 38 shipped
// rules start with a condition on the task, region, mode, budget or size).
[[nodiscard]] std::vector<bool> rules_that_may_fire(const RuleSet& rules, const Request& request);
// evaluate(), skipping the rules `may_fire` rules out (a rule past its end
// may fire): the same findings.
[[nodiscard]] std::vector<Finding> evaluate(const RuleSet& rules, const Facts& facts,
                                            const std::vector<bool>& may_fire);
// Whether a rule rejects the card: evaluate() without the messages.
[[nodiscard]] bool rejected_by_rules(const RuleSet& rules, const Facts& facts);

// Fills {field} placeholders with the facts' values, formatted for people.
[[nodiscard]] std::string render_message(std::string_view text, const Facts& facts, Language language = Language::en);

enum class RulesRole { base, overlay };
[[nodiscard]] RuleSet parse_rules(std::string_view text, std::string_view source, RulesRole role);
[[nodiscard]] RuleSet load_embedded_rules();
// The embedded rules with each --rules file merged on top, in order.
[[nodiscard]] RuleSet load_rules(const std::vector<std::string>& overlay_files);

}  // namespace gpu_advise
