// Every phrase people read: present in both languages (a static check in
// wording.cpp), with the same placeholders, and formattable.
#include <catch2/catch.hpp>

#include <fmt/args.h>

#include "gpu_advise/text.hpp"
#include "gpu_advise/wording.hpp"

using namespace gpu_advise;

namespace {

// How many arguments a format string takes: automatic fields are counted,
// explicit ones ({1}) give their highest index plus one. "{{" is a brace.
std::size_t arguments(std::string_view format) {
  std::size_t automatic = 0;
  std::size_t explicit_max = 0;
  for (std::size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '{') {
      continue;
    }
    if (i + 1 < format.size() && format[i + 1] == '{') {
      ++i;
      continue;
    }
    if (i + 1 < format.size() && format[i + 1] >= '0' && format[i + 1] <= '9') {
      explicit_max = std::max(explicit_max, static_cast<std::size_t>(format[i + 1] - '0') + 1);
    } else {
      ++automatic;
    }
  }
  return std::max(automatic, explicit_max);
}

}  // namespace

TEST_CASE("every phrase formats in both languages with the same placeholders", "[wording]") {
  for (std::size_t i = 0; i < static_cast<std::size_t>(Phrase::count_); ++i) {
    const auto id = static_cast<Phrase>(i);
    const std::string_view en = phrase(Language::en, id);
    const std::string_view zh = phrase(Language::zh, id);
    CAPTURE(i, en, zh);
    CHECK(en != "?");
    CHECK(arguments(en) == arguments(zh));
    // Numbers fit every field the phrases use ({}, {:.0f}, {:+g}, ...).
    fmt::dynamic_format_arg_store<fmt::format_context> store;
    for (std::size_t k = 0; k < arguments(en); ++k) {
      store.push_back(12.5);
    }
    for (const std::string_view text : {en, zh}) {
      std::string formatted;
      REQUIRE_NOTHROW(formatted = fmt::vformat(text, store));
      CHECK(text::invalid_utf8_at(formatted) == std::string_view::npos);
    }
  }
}

TEST_CASE("durations are said in each language's units", "[wording]") {
  CHECK(say_duration(Language::en, 0.5) == "30 min");
  CHECK(say_duration(Language::zh, 0.5) == "30 分钟");
  CHECK(say_duration(Language::en, 100) == "4.2 days");
  CHECK(say_duration(Language::zh, 100) == "4.2 天");
}
