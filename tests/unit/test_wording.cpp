// Every phrase people read: present in both languages (a static check in
// wording.cpp), with the same placeholders, and formattable.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <fmt/args.h>

#include "gpu_advise/phrases.hpp"
#include "gpu_advise/text.hpp"
#include "gpu_advise/words.hpp"

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

// UTF-8 into code points (the table is valid UTF-8: the test above checks it).
std::u32string code_points(std::string_view text) {
  std::u32string out;
  for (std::size_t i = 0; i < text.size();) {
    const auto b0 = static_cast<unsigned char>(text[i]);
    const std::size_t length = b0 < 0x80 ? 1 : b0 < 0xE0 ? 2 : b0 < 0xF0 ? 3 : 4;
    char32_t cp = length == 1 ? b0 : length == 2 ? b0 & 0x1F : length == 3 ? b0 & 0x0F : b0 & 0x07;
    for (std::size_t k = 1; k < length && i + k < text.size(); ++k) {
      cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    }
    out.push_back(cp);
    i += length;
  }
  return out;
}

// CJK text: ideographs, CJK punctuation (U+3000-U+9FFF) and full-width forms
// (U+FF00-U+FFEF: （）：，；！？).
bool is_cjk(char32_t c) { return (c >= 0x3000 && c <= 0x9FFF) || (c >= 0xFF00 && c <= 0xFFEF); }

bool is_full_width_punctuation(char32_t c) {
  return std::u32string_view(U"，。；：（）、！？「」《》").find(c) != std::u32string_view::npos;
}

bool is_ascii_word(char32_t c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// What a reader would take for a typing slip in one phrase; empty when it
// reads clean. The policy, in both languages: no double space, no space
// before a line break, and brackets closed by their own kind ( '(' by ')',
// '（' by '）').
//
// Leading and trailing spaces are there on purpose only where a fragment is
// joined to text around it:
// - English: a fragment that continues the sentence before it starts with a
//   space (" of {} tokens", " (your --price)"), but never with one before
//   punctuation that hangs on the word before (" ,", " )"); a trailing space
//   only follows ':', ';' or ',', a label or separator that a value follows
//   ("no: ", "; ", ", ").
// - Chinese puts no space between sentences or fragments: a leading or
//   trailing space only separates a placeholder or Latin text from the
//   Chinese it is joined to (" {1} 参数模型" after "LoRA 微调"), never stands
//   next to Chinese text or punctuation.
//
// Chinese text also uses full-width punctuation: no half-width '(' or ')'
// next to CJK text, no half-width ',' ':' ';' '!' '?' right after CJK text, no
// space beside full-width punctuation ("70B ，") and none between two Chinese
// characters (words are not spaced). ASCII stays for numbers, units, ids,
// flags, code and formulas ("--price ID=PRICE", "{:.0f} = 成本 {:.0f} + ...").
std::vector<std::string> typography(std::string_view en, std::string_view zh) {
  std::vector<std::string> problems;
  for (const auto& [language, text] : {std::pair{"en", en}, std::pair{"zh", zh}}) {
    const std::string name = language;
    if (text.find("  ") != std::string_view::npos) {
      problems.push_back(name + ": a double space");
    }
    if (text.find(" \n") != std::string_view::npos) {
      problems.push_back(name + ": a space before a line break");
    }
    std::u32string open;
    for (const char32_t c : code_points(text)) {
      if (c == U'(' || c == U'（') {
        open.push_back(c);
      } else if (c == U')' || c == U'）') {
        const char32_t expected = c == U')' ? U'(' : U'（';
        if (open.empty() || open.back() != expected) {
          problems.push_back(name + ": a bracket closed by the other kind, or never opened");
        }
        if (!open.empty()) {
          open.pop_back();
        }
      }
    }
    if (!open.empty()) {
      problems.push_back(name + ": a bracket never closed");
    }
  }
  if (!en.empty()) {
    if (en.size() > 1 && en.front() == ' ' && std::string_view(",.;:)!?").find(en[1]) != std::string_view::npos) {
      problems.emplace_back("en: a leading space before punctuation");
    }
    if (en.back() == ' ' &&
        (en.size() < 2 || std::string_view(":;,").find(en[en.size() - 2]) == std::string_view::npos)) {
      problems.emplace_back("en: a trailing space after something other than ':', ';' or ','");
    }
  }
  const std::u32string z = code_points(zh);
  for (std::size_t i = 0; i < z.size(); ++i) {
    const char32_t c = z[i];
    const char32_t before = i > 0 ? z[i - 1] : 0;
    const char32_t after = i + 1 < z.size() ? z[i + 1] : 0;
    if ((c == U'(' || c == U')') && (is_cjk(before) || is_cjk(after))) {
      problems.emplace_back("zh: a half-width bracket next to Chinese text");
    }
    if (std::u32string_view(U",:;!?").find(c) != std::u32string_view::npos && is_cjk(before)) {
      problems.emplace_back("zh: half-width punctuation right after Chinese text");
    }
    if (c != U' ') {
      continue;
    }
    if (is_full_width_punctuation(before) || is_full_width_punctuation(after)) {
      problems.emplace_back("zh: a space beside full-width punctuation");
    } else if (is_cjk(before) && is_cjk(after)) {
      problems.emplace_back("zh: a space between two Chinese characters");
    }
    if (i == 0 && after != U'{' && !is_ascii_word(after)) {
      problems.emplace_back("zh: a leading space not before a placeholder or Latin text");
    }
    if (i + 1 == z.size() && before != U'}' && !is_ascii_word(before)) {
      problems.emplace_back("zh: a trailing space not after a placeholder or Latin text");
    }
  }
  return problems;
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

TEST_CASE("every phrase reads clean: spaces, brackets and Chinese punctuation", "[wording]") {
  for (std::size_t i = 0; i < static_cast<std::size_t>(Phrase::count_); ++i) {
    const auto id = static_cast<Phrase>(i);
    const std::string_view en = phrase(Language::en, id);
    const std::string_view zh = phrase(Language::zh, id);
    const std::vector<std::string> problems = typography(en, zh);
    CAPTURE(i, en, zh, problems);
    CHECK(problems.empty());
  }
}

TEST_CASE("the typography check catches each slip it is meant to", "[wording]") {
  // Clean: fragments joined to the text around them, ASCII for code and formulas.
  CHECK(typography(" of {} tokens", "（{} tokens）").empty());
  CHECK(typography("no: ", "否：").empty());
  CHECK(typography("{} {} model", " {1} 参数模型").empty());
  CHECK(typography(" {} rules {:.0f}", " {} 规则 {:.0f}").empty());
  CHECK(typography("x (--price ID=PRICE)", "成本 {:.0f}（无报价）+ 速度 {:.0f}（可用 --price ID=PRICE 指定）").empty());
  CHECK(typography("TP x PP (a, b)", "按 TP × PP 切分（a, b）").empty());
  // Slips.
  CHECK_FALSE(typography("ok", "预算(中等)").empty());   // half-width brackets by Chinese
  CHECK_FALSE(typography("ok", "预算（中等)").empty());  // '（' closed by ')'
  CHECK_FALSE(typography("(ok）", "预算").empty());      // '(' closed by '）'
  CHECK_FALSE(typography("ok", "预算（中等").empty());   // never closed
  CHECK_FALSE(typography("a  b", "预算").empty());       // double space, English
  CHECK_FALSE(typography("ok", "预算  中等").empty());   // double space, Chinese
  CHECK_FALSE(typography("ok", "预算: 中等").empty());   // half-width ':' after Chinese
  CHECK_FALSE(typography("ok", "预算,中等").empty());    // half-width ','
  CHECK_FALSE(typography("ok", "预算;中等").empty());    // half-width ';'
  CHECK_FALSE(typography("ok", "预算 中等").empty());    // a space between Chinese characters
  CHECK_FALSE(typography("ok", "{} ，预算").empty());    // a space before full-width punctuation
  CHECK_FALSE(typography("ok", " 预算").empty());        // a leading space before Chinese
  CHECK_FALSE(typography("ok", "预算 ").empty());        // a trailing space after Chinese
  CHECK_FALSE(typography("budget ", "预算").empty());    // a trailing space in English
  CHECK_FALSE(typography(" , budget", "预算").empty());  // a leading space before a comma
}

TEST_CASE("the indefinite article goes by how the word is said", "[wording]") {
  for (const std::string_view word : {"8B", "11B", "18B", "80B", "8x7B", "8.03B", "11.5B", "800M", "18,000", "MoE"}) {
    CAPTURE(word);
    CHECK(indefinite_article(word) == (word == "MoE" ? "a" : "an"));
  }
  for (const std::string_view word : {"70B", "1.5T", "110B", "180B", "1B", "7B", "405B", "1,100", "model"}) {
    CAPTURE(word);
    CHECK(indefinite_article(word) == "a");
  }
  CHECK(indefinite_article("inference") == "an");
  CHECK(indefinite_article("") == "a");
}

TEST_CASE("a model known by its size takes the right article", "[wording]") {
  ModelShape model;
  model.source = ModelSource::inferred;
  model.params = model.active_params = 8e9;
  CHECK(model_label(model, Language::en) == "an 8B model");
  CHECK(model_label(model, Language::zh) == " 8B 参数模型");
  model.params = model.active_params = 70e9;
  CHECK(model_label(model, Language::en) == "a 70B model");
  model.params = model.active_params = 1.5e12;
  CHECK(model_label(model, Language::en) == "a 1.5T model");
  model.params = 80e9;
  model.active_params = 11e9;
  CHECK(model_label(model, Language::en) == "an 80B MoE model, 11B active");
  CHECK(model_label(model, Language::zh) == " 80B 参数 MoE 模型（激活 11B）");
  model.source = ModelSource::preset;
  model.name = "Llama 3.1 8B";
  CHECK(model_label(model, Language::en) == "Llama 3.1 8B");
}
