#include "gpu_advise/language.hpp"

#include <cstdlib>

#include "gpu_advise/text.hpp"

namespace gpu_advise {

std::span<const EnumName<Language>> names(Language) {
  static constexpr EnumName<Language> table[] = {{Language::en, "en"}, {Language::zh, "zh"}};
  return table;
}

Language language_from_environment() {
  for (const char* variable : {"LC_ALL", "LC_MESSAGES", "LANG"}) {
    const char* value = std::getenv(variable);
    if (value != nullptr && value[0] != '\0') {
      return text::to_lower(value).rfind("zh", 0) == 0 ? Language::zh : Language::en;
    }
  }
  return Language::en;
}

}  // namespace gpu_advise
