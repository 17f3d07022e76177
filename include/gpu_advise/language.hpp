// The language people read gpu-advise in. Its own header, so that what only
// carries a language (a request, a rule's message, the defaults) does not
// depend on the phrase table and recompile with each phrase added.
#pragma once

#include <span>

#include "gpu_advise/enum_names.hpp"

namespace gpu_advise {

enum class Language { en, zh };
[[nodiscard]] std::span<const EnumName<Language>> names(Language);

// en, or zh when LC_ALL, LC_MESSAGES or LANG (the first one set) starts with "zh".
[[nodiscard]] Language language_from_environment();

}  // namespace gpu_advise
