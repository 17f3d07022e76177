// Rule files: data/rules.yaml (embedded) and --rules overlays parsed into a
// RuleSet, every condition compiled and type-checked against the fields, with
// located, did-you-mean errors (docs/rules.md).
#include <charconv>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "gpu_advise/error.hpp"
#include "gpu_advise/rules.hpp"
#include "gpu_advise/text.hpp"
#include "load/yaml_reader.hpp"
#include "rules/fields.hpp"

namespace gpu_advise {

namespace {

using yaml::Lines;
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
    // Rules never weigh the choice (docs/methodology.md "How a plan is chosen").
    for (const char* gone : {"profiles", "ecosystem"}) {
      if (const auto node = top.node(gone, Presence::optional)) {
        m_diagnostics.error(*node, gone,
                            "is no longer read: plans are chosen on cost and time (the budget tier is a premium "
                            "per halving of the time), and --ecosystem chooses the software stacks; remove it");
      }
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
    return RuleSet(std::move(rules));
  }

 private:
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
      const auto type = e.node("type", Presence::optional);
      if (type && type->IsScalar() && type->Scalar() == "score") {
        m_diagnostics.error(*type, e.child_path("type"),
                            "'score' is no longer an effect: a rule rejects a plan or says something about it "
                            "(reject, warning, note) and never adds or subtracts points; to prefer cards, name them "
                            "with --gpu");
      } else {
        rule.effect = e.enumeration<EffectKind>("type", Presence::required).value_or(EffectKind::note);
      }
      if (const auto points = e.node("points", Presence::optional)) {
        m_diagnostics.error(*points, e.child_path("points"),
                            "points are no longer read: rules never add or subtract points; remove it");
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
    (void)map.string("about", Presence::optional, Lines::many);
    map.finish();
    return rule;
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
      if (find_field(name) < 0) {
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
    const FieldInfo* field = nullptr;
    if (field_name) {
      const int index = find_field(*field_name);
      if (index < 0) {
        std::string message = fmt::format("unknown field '{}'", *field_name);
        if (const auto suggestion = text::did_you_mean(*field_name, field_names())) {
          message += fmt::format("; did you mean '{}'?", *suggestion);
        }
        message += " (docs/rules.md lists the fields)";
        m_diagnostics.error(*map.node("field", Presence::required), map.child_path("field"), message);
      } else {
        c.field = *field_name;
        c.field_index = index;
        field = &rule_fields()[static_cast<std::size_t>(index)];
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

  // true or false as YAML's boolean: plain or tagged !!bool, never a quoted
  // or !!str-tagged string that reads "true" (a tag may not change a type).
  static std::optional<bool> yes_no(const YAML::Node& node) {
    if (!node.IsScalar() || (node.Tag() != "?" && node.Tag() != "tag:yaml.org,2002:bool") ||
        (node.Scalar() != "true" && node.Scalar() != "false")) {
      return std::nullopt;
    }
    return node.Scalar() == "true";
  }

  std::vector<FieldValue> read_operands(const FieldInfo& field, Operator op, const YAML::Node& node,
                                        const std::string& path) {
    std::vector<FieldValue> out;
    const FieldType type = field.type;
    const bool numeric_op = op == Operator::at_least || op == Operator::at_most || op == Operator::above ||
                            op == Operator::below || op == Operator::between;
    if (op == Operator::exists) {
      const auto value = yes_no(node);
      if (!value) {
        m_diagnostics.error(node, path, "exists takes true or false (plain, untagged)");
        return {true};
      }
      return {*value};
    }
    if (numeric_op && type != FieldType::number) {
      m_diagnostics.error(node, path,
                          fmt::format("'{}' is not a number field; use is, is_not, in or not_in", field.name));
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
          if (const auto value = yes_no(item)) {
            out.emplace_back(*value);
          } else {
            m_diagnostics.error(item, path,
                                fmt::format("'{}' is a yes/no field: use true or false, plain (not quoted, not "
                                            "tagged !!str)",
                                            field.name));
          }
          break;
        case FieldType::word: {
          const auto& words = field.words;
          if (!words.empty() && std::find(words.begin(), words.end(), text::to_lower(raw)) == words.end()) {
            std::string message =
                fmt::format("'{}' is not a value of {}; expected {}", raw, field.name, text::join_or(words));
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

}  // namespace gpu_advise
