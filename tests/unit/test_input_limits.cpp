// The readers' structure limits: JSON depth and duplicate keys, and the batch
// line reader's bounded memory.
#include <catch2/catch.hpp>

#include <cerrno>
#include <cstring>
#include <string>

#include "cli/line_reader.hpp"
#include "json_input.hpp"

using namespace gpu_advise;
using cli::LineReader;

namespace {

std::string nested(int depth) { return std::string(static_cast<std::size_t>(depth), '[') + std::string(static_cast<std::size_t>(depth), ']'); }

// A source that hands out `text` in pieces of at most `piece` bytes.
LineReader::Source pieces(const std::string& text, std::size_t piece) {
  auto offset = std::make_shared<std::size_t>(0);
  return [text, piece, offset](char* into, std::size_t size) {
    const std::size_t n = std::min({size, piece, text.size() - *offset});
    std::memcpy(into, text.data() + *offset, n);
    *offset += n;
    return static_cast<long>(n);
  };
}

}  // namespace

TEST_CASE("JSON deeper than 64 levels is refused before it is built", "[json][limits]") {
  CHECK_NOTHROW(json_input::parse(nested(64)));
  CHECK_THROWS_WITH(json_input::parse(nested(65)), Catch::Contains("nested more than 64 levels"));
  CHECK_THROWS_WITH(json_input::parse("{\"a\": " + nested(400000) + "}"), Catch::Contains("nested more than 64"));
  CHECK_THROWS_AS(json_input::parse("{\"a\": " + std::string(1000000, '[')), json_input::Failure);
}

TEST_CASE("a key repeated in one JSON object is refused; in different objects it is not", "[json][limits]") {
  CHECK_THROWS_WITH(json_input::parse(R"({"task": "lora", "task": "full"})"), Catch::Contains("duplicate key \"task\""));
  CHECK_THROWS_WITH(json_input::parse(R"({"a": {"x": 1, "x": 2}})"), Catch::Contains("duplicate key \"x\""));
  CHECK_NOTHROW(json_input::parse(R"({"a": {"x": 1}, "b": {"x": 2}, "x": [{"x": 3}, {"x": 4}]})"));
}

TEST_CASE("JSON syntax errors are short, printable and located", "[json][limits]") {
  try {
    (void)json_input::parse("{\"a\": \"" + std::string(100000, 'y') + "\xff\"}");
    FAIL("expected a failure");
  } catch (const json_input::Failure& e) {
    CHECK(std::strlen(e.what()) < 400);
    CHECK_THAT(e.what(), Catch::Contains("UTF-8"));
    CHECK(e.byte() == 100007);
  }
  CHECK_THROWS_WITH(json_input::parse("1e70500000"), Catch::Contains("not valid JSON"));
}

TEST_CASE("values in messages: whole numbers exactly, strings cut, containers by kind", "[json][limits]") {
  using json_input::describe;
  CHECK(describe(nlohmann::json::parse("18446744073709551615")) == "18446744073709551615");
  CHECK(describe(nlohmann::json::parse("-1")) == "-1");
  CHECK(describe(nlohmann::json::parse("2.5")) == "2.5");
  CHECK(describe(nlohmann::json::parse("[[1],[2]]")) == "a list of 2 items");
  CHECK(describe(nlohmann::json::parse(R"({"a": 1})")) == "an object of 1 keys");
  CHECK(describe(nlohmann::json::parse("\"" + std::string(5000, 'z') + "\"")).size() < 120);
}

TEST_CASE("the line reader keeps lines up to 1 MiB and skips longer ones without holding them", "[batch][limits]") {
  const std::string big(LineReader::max_line_bytes + 10, 'x');
  LineReader reader(pieces("first\n" + big + "\nlast without newline", 1000));
  std::string line;
  REQUIRE(reader.next(line) == LineReader::Result::line);
  CHECK(line == "first");
  REQUIRE(reader.next(line) == LineReader::Result::too_long);
  CHECK(line.empty());
  CHECK(line.capacity() <= LineReader::max_line_bytes + LineReader::buffer_bytes);
  CHECK(reader.length() == big.size());
  REQUIRE(reader.next(line) == LineReader::Result::line);
  CHECK(line == "last without newline");
  CHECK(reader.next(line) == LineReader::Result::end);
  CHECK(reader.next(line) == LineReader::Result::end);
}

TEST_CASE("the line reader stops at a NUL byte and on a failing source", "[batch][limits]") {
  LineReader binary(pieces(std::string("{}\nab\0cd\n", 9), 4));
  std::string line;
  CHECK(binary.next(line) == LineReader::Result::line);
  CHECK(binary.next(line) == LineReader::Result::binary);
  CHECK(binary.offset() == 5);
  LineReader failing([](char*, std::size_t) {
    errno = EIO;
    return -1L;
  });
  CHECK(failing.next(line) == LineReader::Result::read_error);
  CHECK(failing.error() == EIO);
  LineReader empty(pieces("", 10));
  CHECK(empty.next(line) == LineReader::Result::end);
  LineReader blank(pieces("\n\n", 10));
  CHECK(blank.next(line) == LineReader::Result::line);
  CHECK(line.empty());
  CHECK(blank.next(line) == LineReader::Result::line);
  CHECK(blank.next(line) == LineReader::Result::end);
}
