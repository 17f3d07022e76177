// Every phrase people read: present in both languages (a static check in
// wording.cpp), with the same placeholders, and formattable.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>

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

TEST_CASE("Chinese text in the sources is only in the words module", "[wording]") {
  // Every sentence is made in src/words/; a CJK character anywhere else in
  // src/ is a sentence made in the wrong place. UTF-8 of U+3000-U+9FFF
  // (CJK punctuation, kana, ideographs) and U+FF00-U+FFEF (full-width forms).
  auto has_cjk = [](const std::string& bytes) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i + 2 < bytes.size(); ++i) {
      const auto b0 = static_cast<unsigned char>(bytes[i]);
      const auto b1 = static_cast<unsigned char>(bytes[i + 1]);
      if ((b0 >= 0xE3 && b0 <= 0xE9) || (b0 == 0xEF && b1 >= 0xBC && b1 <= 0xBF)) {
        return i;
      }
    }
    return std::nullopt;
  };
  const std::filesystem::path src = std::filesystem::path(GPU_ADVISE_SOURCE_DIR) / "src";
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(src)) {
    if (!entry.is_regular_file()) {
      continue;
    }
    const auto relative = std::filesystem::relative(entry.path(), src).generic_string();
    if (relative.rfind("words/", 0) == 0) {
      continue;
    }
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CAPTURE(relative);
    CHECK_FALSE(has_cjk(bytes).has_value());
    ++files;
  }
  CHECK(files > 40);
}
