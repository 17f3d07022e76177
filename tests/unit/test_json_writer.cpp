// The streaming JSON writer writes what nlohmann-json's dump() writes for the
// same document: every output document relies on it to keep its bytes.
#include <cstring>
#include <limits>
#include <random>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "render/json_writer.hpp"

namespace {

using ordered = nlohmann::ordered_json;
using gpu_advise::json_out::Writer;

std::string nlohmann_dump(const ordered& document, bool pretty) {
  return document.dump(pretty ? 2 : -1, ' ', false, ordered::error_handler_t::replace);
}

// Writes `document` through the Writer, member by member.
void stream(Writer& w, const ordered& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::object:
      w.begin_object();
      for (const auto& [key, member] : value.items()) {
        w.key(key);
        stream(w, member);
      }
      w.end_object();
      return;
    case nlohmann::json::value_t::array:
      w.begin_array();
      for (const auto& item : value) {
        stream(w, item);
      }
      w.end_array();
      return;
    case nlohmann::json::value_t::string: w.string(value.get_ref<const std::string&>()); return;
    case nlohmann::json::value_t::boolean: w.boolean(value.get<bool>()); return;
    case nlohmann::json::value_t::number_integer: w.integer(value.get<std::int64_t>()); return;
    case nlohmann::json::value_t::number_unsigned: w.unsigned_integer(value.get<std::uint64_t>()); return;
    case nlohmann::json::value_t::number_float: w.number(value.get<double>()); return;
    default: w.null(); return;
  }
}

std::string streamed(const ordered& document, bool pretty) {
  std::string out;
  Writer w(out, pretty);
  stream(w, document);
  return out;
}

std::string random_text(std::mt19937_64& rng) {
  static const char* pieces[] = {"a",
                                 "Z",
                                 " ",
                                 "\"",
                                 "\\",
                                 "\n",
                                 "\t",
                                 "\r",
                                 "\b",
                                 "\f",
                                 "\x01",
                                 "\x1f",
                                 "\x7f",
                                 "é",
                                 "人民币",
                                 "€",
                                 "😀",
                                 "\xff",
                                 "\xc0\x80",
                                 "\xed\xa0\x80",
                                 "\xe4\xb8",
                                 "/",
                                 "\xf4\x90\x80\x80"};
  std::string text;
  const auto n = rng() % 6;
  for (std::uint64_t i = 0; i < n; ++i) {
    text += pieces[rng() % std::size(pieces)];
  }
  return text;
}

double random_double(std::mt19937_64& rng) {
  switch (rng() % 4) {
    case 0: {  // any finite bit pattern
      double d = 0;
      do {
        const std::uint64_t bits = rng();
        std::memcpy(&d, &bits, sizeof d);
      } while (!std::isfinite(d));
      return d;
    }
    case 1: return static_cast<double>(static_cast<std::int64_t>(rng() % 2000000) - 1000000);  // integral
    case 2: return std::ldexp(static_cast<double>(rng() % 1000000), static_cast<int>(rng() % 80) - 40);
    default: return static_cast<double>(rng() % 100000) / 1000.0;  // rounded figures like round6's
  }
}

ordered random_value(std::mt19937_64& rng, int depth) {
  const auto kind = rng() % (depth > 4 ? 6 : 8);
  switch (kind) {
    case 0: return nullptr;
    case 1: return rng() % 2 == 0;
    case 2: return static_cast<std::int64_t>(rng());
    case 3: return rng();
    case 4: return random_double(rng);
    case 5: return random_text(rng);
    case 6: {
      ordered array = ordered::array();
      const auto n = rng() % 4;
      for (std::uint64_t i = 0; i < n; ++i) {
        array.push_back(random_value(rng, depth + 1));
      }
      return array;
    }
    default: {
      ordered object = ordered::object();
      const auto n = rng() % 4;
      for (std::uint64_t i = 0; i < n; ++i) {
        object[random_text(rng) + std::to_string(i)] = random_value(rng, depth + 1);
      }
      return object;
    }
  }
}

}  // namespace

TEST_CASE("json writer: random documents are written as nlohmann dumps them") {
  std::mt19937_64 rng(20261201);
  for (int i = 0; i < 3000; ++i) {
    const ordered document = random_value(rng, 0);
    INFO(nlohmann_dump(document, false));
    REQUIRE(streamed(document, false) == nlohmann_dump(document, false));
    REQUIRE(streamed(document, true) == nlohmann_dump(document, true));
  }
}

TEST_CASE("json writer: numbers at their edges") {
  const double doubles[] = {0.0,
                            -0.0,
                            1.0,
                            -1.5,
                            1e-5,
                            1e-4,
                            1e15,
                            1e16,
                            1e17,
                            70e9,
                            0.1 + 0.2,
                            5e-324,
                            std::numeric_limits<double>::max(),
                            std::numeric_limits<double>::min(),
                            std::numeric_limits<double>::infinity(),
                            std::numeric_limits<double>::quiet_NaN()};
  for (const double d : doubles) {
    const ordered document = ordered::array({d, static_cast<std::int64_t>(d < 0 ? -3 : 3)});
    CHECK(streamed(document, false) == nlohmann_dump(document, false));
  }
  const ordered ints =
      ordered::array({std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(),
                      std::numeric_limits<std::uint64_t>::max(), 0});
  CHECK(streamed(ints, true) == nlohmann_dump(ints, true));
}

TEST_CASE("json writer: value() picks the JSON type of each C++ type") {
  std::string out;
  Writer w(out, false);
  w.begin_object();
  w.field("flag", true);
  w.field("int", 3);
  w.field("size", std::size_t{4});
  w.field("real", 2.0);
  w.field("text", "x");
  w.field("none", std::optional<int>{});
  w.field("some", std::optional<double>{0.5});
  w.field("list", std::vector<std::string>{"a", "b"});
  w.field("empty", std::vector<int>{});
  w.object("nested", [&] { w.field("null", nullptr); });
  w.end_object();
  CHECK(out == R"({"flag":true,"int":3,"size":4,"real":2.0,"text":"x","none":null,"some":0.5,)"
               R"("list":["a","b"],"empty":[],"nested":{"null":null}})");
}

TEST_CASE("json writer: a byte to escape is found at every position of a long string") {
  // The writer skips plain text eight bytes at a time; each special byte must
  // be caught wherever it falls in or across those words.
  const std::string specials[] = {"\"", "\\", "\n", "\x01", "\x1f", "\x7f", "é", "\xff", "\xe4\xb8"};
  for (const auto& special : specials) {
    for (std::size_t at = 0; at < 24; ++at) {
      std::string text(24, 'a');
      text.replace(at, 1, special);
      const ordered document = ordered::array({text});
      CAPTURE(at, special);
      REQUIRE(streamed(document, false) == nlohmann_dump(document, false));
    }
  }
}
