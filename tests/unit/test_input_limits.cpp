// The readers' structure limits: JSON depth and duplicate keys, and the batch
// line reader's bounded memory.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "cli/line_reader.hpp"
#include "load/files.hpp"
#include "load/json_input.hpp"

using namespace gpu_advise;
using cli::LineReader;

namespace {

std::string nested(int depth) {
  return std::string(static_cast<std::size_t>(depth), '[') + std::string(static_cast<std::size_t>(depth), ']');
}

// A source that hands out `text` in pieces of at most `piece` bytes.
LineReader::Source pieces(const std::string& text, std::size_t piece) {
  auto offset = std::make_shared<std::size_t>(0);
  return [text, piece, offset](char* into, std::size_t size) {
    const std::size_t n = std::min({size, piece, text.size() - *offset});
    std::copy_n(text.data() + *offset, n, into);
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

TEST_CASE("a key repeated in one JSON object is refused, in different objects it is not", "[json][limits]") {
  CHECK_THROWS_WITH(json_input::parse(R"({"task": "lora", "task": "full"})"),
                    Catch::Contains("duplicate key \"task\""));
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

TEST_CASE("a NUL byte fails its line, binary data with no line break ends the input", "[batch][limits]") {
  LineReader mixed(pieces(std::string("{}\nab\0cd\n{}", 11), 4));
  std::string line;
  CHECK(mixed.next(line) == LineReader::Result::line);
  CHECK(mixed.next(line) == LineReader::Result::binary);
  CHECK(mixed.nul_offset() == 5);
  CHECK(line.empty());
  CHECK(mixed.next(line) == LineReader::Result::line);  // the line after it is read as usual
  CHECK(line == "{}");
  CHECK(mixed.nul_offset() == LineReader::npos);
  CHECK(mixed.next(line) == LineReader::Result::end);
  // /dev/zero: given up on within about 1 MiB, not 1 GiB.
  std::size_t served = 0;
  LineReader zeros([&](char* into, std::size_t size) {
    std::memset(into, 0, size);
    served += size;
    return static_cast<long>(size);
  });
  CHECK(zeros.next(line) == LineReader::Result::unbroken);
  CHECK(zeros.nul_offset() == 0);
  CHECK(served <= LineReader::max_line_bytes + 2 * LineReader::buffer_bytes);
  // Whether a NUL ends the input does not depend on where the reads split:
  // a long line whose NUL is the last byte of a read, its newline the next.
  const std::string edge = std::string(17 * LineReader::buffer_bytes - 1, 'a') + '\0' + "\n{}\n";
  LineReader split(pieces(edge, LineReader::buffer_bytes));
  CHECK(split.next(line) == LineReader::Result::binary);
  CHECK(split.next(line) == LineReader::Result::line);
  CHECK(line == "{}");
}

TEST_CASE("the line reader keeps a carriage return and reports a failing source", "[batch][limits]") {
  std::string line;
  LineReader crlf(pieces("{\"a\": 1}\r\nlast", 3));
  CHECK(crlf.next(line) == LineReader::Result::line);
  CHECK(line == "{\"a\": 1}\r");  // JSON allows the \r as trailing white space
  CHECK_NOTHROW(json_input::parse(line));
  CHECK(crlf.next(line) == LineReader::Result::line);
  CHECK(line == "last");
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

TEST_CASE("reads and writes wait on a non-blocking descriptor instead of failing", "[files][limits]") {
  int ends[2];
  REQUIRE(::pipe(ends) == 0);
  UniqueFd reading(ends[0]);
  UniqueFd writing(ends[1]);
  ::fcntl(reading.get(), F_SETFL, ::fcntl(reading.get(), F_GETFL) | O_NONBLOCK);
  ::fcntl(writing.get(), F_SETFL, ::fcntl(writing.get(), F_GETFL) | O_NONBLOCK);
  // More than a pipe holds (64 KiB), read by a slow reader: EAGAIN on both sides.
  const std::string sent(300000, 'w');
  std::string got;
  std::thread reader([&] {
    char buffer[4096];
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    for (long n; (n = read_some(reading.get(), buffer, sizeof buffer)) > 0;) {
      got.append(buffer, static_cast<std::size_t>(n));
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });
  CHECK(write_all(writing.get(), sent));
  (void)writing.close();
  reader.join();
  CHECK(got == sent);
}
