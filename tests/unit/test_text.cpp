#include <catch2/catch.hpp>

#include "gpu_advise/text.hpp"

using namespace gpu_advise;

TEST_CASE("edit distance counts insertions, deletions and substitutions", "[text]") {
  CHECK(text::edit_distance("", "") == 0);
  CHECK(text::edit_distance("kitten", "sitting") == 3);
  CHECK(text::edit_distance("bandwidth", "bandwith") == 1);
}

TEST_CASE("did-you-mean offers only plausible typos", "[text]") {
  const std::vector<std::string> keys = {"memory", "compute", "interconnect", "availability"};
  CHECK(text::did_you_mean("memroy", keys) == std::optional<std::string>("memory"));
  CHECK(text::did_you_mean("Compute", keys) == std::optional<std::string>("compute"));
  CHECK_FALSE(text::did_you_mean("price", keys).has_value());
}

TEST_CASE("names normalise case, spaces, hyphens and underscores", "[text]") {
  CHECK(text::normalise_name("A100 80GB SXM4") == text::normalise_name("a100-80gb-sxm4"));
  CHECK(text::normalise_name("RTX_4090") == "rtx4090");
}

TEST_CASE("lists join with commas and a final 'or'", "[text]") {
  const std::vector<std::string> items = {"a", "b", "c"};
  CHECK(text::join_or(items) == "a, b or c");
  CHECK(text::join(items, "/") == "a/b/c");
}

TEST_CASE("UTF-8 is checked as RFC 3629 defines it", "[text][utf8]") {
  using text::invalid_utf8_at;
  constexpr auto npos = std::string_view::npos;
  CHECK(invalid_utf8_at("") == npos);
  CHECK(invalid_utf8_at("plain ASCII") == npos);
  CHECK(invalid_utf8_at("算力 H100 — ok") == npos);
  CHECK(invalid_utf8_at("\xF0\x9F\x9A\x80") == npos);  // U+1F680, four bytes
  CHECK(invalid_utf8_at("ab\xff") == 2);               // never valid
  CHECK(invalid_utf8_at("\xC0\x80") == 0);             // overlong NUL
  CHECK(invalid_utf8_at("\xE0\x80\xAF") == 0);         // overlong '/'
  CHECK(invalid_utf8_at("\xED\xA0\x80") == 0);         // a UTF-16 surrogate
  CHECK(invalid_utf8_at("\xF4\x90\x80\x80") == 0);     // above U+10FFFF
  CHECK(invalid_utf8_at("ok\xE7\xAE") == 2);           // cut short
  CHECK(invalid_utf8_at("\x80") == 0);                 // a lone continuation byte
}

TEST_CASE("printable() escapes what a terminal or a JSON writer would choke on", "[text][utf8]") {
  CHECK(text::printable("H100 算力") == "H100 算力");
  CHECK(text::printable("a\xff"
                        "b") == "a\\xFFb");
  CHECK(text::printable("\x1b[31mred\r\n") == "\\x1B[31mred\\x0D\\x0A");
  CHECK(text::printable("tab\tok") == "tab\tok");
  CHECK(text::printable("h100\xC2\x9B"
                        "2J") == "h100\\xC2\\x9B2J");  // C1 CSI
  CHECK(text::printable("abc\xE2\x80\xAE"
                        "cba") == "abc\\xE2\\x80\\xAEcba");            // right-to-left override
  CHECK(text::printable("\xE2\x81\xA6x") == "\\xE2\\x81\\xA6x");       // an isolate
  CHECK(text::printable("— “quotes” 中文 é") == "— “quotes” 中文 é");  // ordinary text stays
  CHECK(text::control_at("name\nnext") == std::string_view::npos);     // newlines are text in a file
  CHECK(text::control_at("ok\xC2\x85") == 2);
  CHECK(text::control_at("A\xE2\x80\xA8") == 1);
  CHECK(text::invalid_utf8_at(text::printable("\xC0\x80\xED\xA0\x80")) == std::string_view::npos);
}

TEST_CASE("excerpt() quotes a value in bounded space, cut on a character boundary", "[text][utf8]") {
  CHECK(text::excerpt("70B") == "70B");
  const std::string long_value(100000, 'x');
  const std::string cut = text::excerpt(long_value);
  CHECK(cut.size() < 120);
  CHECK_THAT(cut, Catch::EndsWith("... (100000 bytes)"));
  const std::string chinese = text::excerpt(std::string(200, 'a') + "算", 10);
  CHECK(chinese == "aaaaaaaaaa... (203 bytes)");
  const std::string boundary = text::excerpt("aaaaaaaa算算", 10);  // 8 + 3 > 10: the character is not split
  CHECK(boundary == "aaaaaaaa... (14 bytes)");
  CHECK(text::invalid_utf8_at(text::excerpt(std::string(50, '\xff'), 20)) == std::string_view::npos);
}
