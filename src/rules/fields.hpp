// The rule fields' registry, shared by the engine and the rules loader; not
// public (rules.hpp has rule_fields() and field_value()).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gpu_advise/rules.hpp"

namespace gpu_advise {

// The index of a field in rule_fields(), or -1 when there is none by that name.
[[nodiscard]] int find_field(std::string_view name);
[[nodiscard]] std::vector<std::string> field_names();

// Equal values; words compare without case.
[[nodiscard]] bool equal(const FieldValue& a, const FieldValue& b);
// A field's value as a message shows it: money, percentages, translated words.
[[nodiscard]] std::string show(const FieldValue& value, std::string_view field, const Facts& facts, Language language);

}  // namespace gpu_advise
