#include <catch2/catch.hpp>

#include "gpu_advise/units.hpp"

using namespace gpu_advise;

TEST_CASE("parameter counts accept suffixes, decimals and exponents", "[units]") {
  const auto [text, expected] = GENERATE(table<const char*, double>({
      {"70B", 70e9},
      {"7b", 7e9},
      {"1.5T", 1.5e12},
      {"405e9", 405e9},
      {"671B", 671e9},
      {"500M", 500e6},
      {"13000000000", 13e9},
      {" 8B ", 8e9},
      {"0.5B", 0.5e9},
      {"2000K", 2e6},
  }));
  CAPTURE(text);
  CHECK(parse_parameter_count(text) == Approx(expected));
}

TEST_CASE("parameter counts reject zero, negatives and nonsense with a reason", "[units]") {
  const auto [text, reason] = GENERATE(table<const char*, const char*>({
      {"0", "zero"},
      {"0B", "zero"},
      {"-5B", "negative"},
      {"70Q", "unknown suffix 'Q'"},
      {"", "empty"},
      {"   ", "empty"},
      {"abc", "not a number"},
      {"nan", "not a number"},
      {"inf", "not a number"},
      {"1e400", "too large"},
      {"200T", "too large"},
      {"7", "below the smallest"},
      {"B", "not a number"},
      {"7..0B", "not a number"},
      {"+7B", "sign"},
      {"0x10B", "not a number"},
      {"\xd9\xa7"
       "0B",
       "not a number"},  // Arabic-Indic digit seven
  }));
  CAPTURE(text);
  REQUIRE_THROWS_AS(parse_parameter_count(text), QuantityError);
  try {
    (void)parse_parameter_count(text);
  } catch (const QuantityError& e) {
    CHECK_THAT(e.what(), Catch::Contains(reason));
  }
}

TEST_CASE("positive integers are bounded and whole", "[units]") {
  CHECK(parse_positive_integer("8", 100) == 8);
  CHECK(parse_positive_integer(" 16 ", 100) == 16);
  CHECK_THROWS_WITH(parse_positive_integer("0", 100), Catch::Contains("zero"));
  CHECK_THROWS_WITH(parse_positive_integer("-1", 100), Catch::Contains("negative"));
  CHECK_THROWS_WITH(parse_positive_integer("2.5", 100), Catch::Contains("whole number"));
  CHECK_THROWS_WITH(parse_positive_integer("101", 100), Catch::Contains("too large"));
  CHECK_THROWS_WITH(parse_positive_integer("99999999999999999999999", 100), Catch::Contains("too large"));
}

TEST_CASE("parameter counts print compactly", "[units]") {
  CHECK(format_parameter_count(70e9) == "70B");
  CHECK(format_parameter_count(1.5e12) == "1.5T");
  CHECK(format_parameter_count(8.03e9) == "8.03B");
  CHECK(format_parameter_count(100e6) == "100M");
}

TEST_CASE("GB and GiB convert exactly", "[units]") {
  CHECK(gib_to_gb(80) == Approx(85.89934592));
  CHECK(gb_to_gib(gib_to_gb(141)) == Approx(141));
}
