#include "render/json_writer.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "gpu_advise/text.hpp"

namespace gpu_advise::json_out {

namespace {

// Whether any of the eight bytes of `word` is below 0x20, a '"', a '\\' or
// 0x80 and above (the classic SWAR tests: a byte is zero where it matched).
constexpr bool needs_attention(std::uint64_t word) {
  constexpr std::uint64_t ones = 0x0101010101010101ULL;
  constexpr std::uint64_t highs = 0x8080808080808080ULL;
  const auto zero_byte = [](std::uint64_t v) { return (v - ones) & ~v & highs; };
  const std::uint64_t below_space = (word - ones * 0x20) & ~word & highs;
  return ((word & highs) | below_space | zero_byte(word ^ (ones * '"')) | zero_byte(word ^ (ones * '\\'))) != 0;
}

static_assert(!needs_attention(0x6162636465666768ULL));
static_assert(needs_attention(0x6162632265666768ULL));   // '"'
static_assert(needs_attention(0x616263645c666768ULL));   // '\\'
static_assert(needs_attention(0x616263640a666768ULL));   // '\n'
static_assert(needs_attention(0x61626364e4666768ULL));   // a UTF-8 lead byte
static_assert(!needs_attention(0x7e7e202020202020ULL));  // '~' and spaces

}  // namespace

void Writer::newline_and_indent() {
  out_ += '\n';
  out_.append(2 * depth_, ' ');
}

void Writer::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (depth_ == 0) {
    return;
  }
  if (!empty_[depth_ - 1]) {
    out_ += ',';
  }
  empty_[depth_ - 1] = false;
  if (pretty_) {
    newline_and_indent();
  }
}

void Writer::key(std::string_view name) {
  before_value();
  quoted(name);
  out_ += pretty_ ? ": " : ":";
  after_key_ = true;
}

void Writer::open(char bracket) {
  before_value();
  if (depth_ == max_depth) {
    throw std::logic_error("json_out::Writer: nested too deep");
  }
  out_ += bracket;
  empty_[depth_++] = true;
}

void Writer::close(char bracket) {
  const bool empty = empty_[--depth_];
  if (pretty_ && !empty) {
    newline_and_indent();
  }
  out_ += bracket;
}

void Writer::begin_object() { open('{'); }
void Writer::end_object() { close('}'); }
void Writer::begin_array() { open('['); }
void Writer::end_array() { close(']'); }

void Writer::null() {
  before_value();
  out_ += "null";
}

void Writer::boolean(bool value) {
  before_value();
  out_ += value ? "true" : "false";
}

void Writer::number(double value) {
  before_value();
  if (!std::isfinite(value)) {
    out_ += "null";
    return;
  }
  std::array<char, 64> buffer{};
  const char* end = nlohmann::detail::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  out_.append(buffer.data(), static_cast<std::size_t>(end - buffer.data()));
}

void Writer::integer(std::int64_t value) {
  before_value();
  std::array<char, 24> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  out_.append(buffer.data(), static_cast<std::size_t>(result.ptr - buffer.data()));
}

void Writer::unsigned_integer(std::uint64_t value) {
  before_value();
  std::array<char, 24> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  out_.append(buffer.data(), static_cast<std::size_t>(result.ptr - buffer.data()));
}

void Writer::string(std::string_view value) {
  before_value();
  quoted(value);
}

void Writer::quoted(std::string_view value) {
  static constexpr char hex[] = "0123456789abcdef";
  const std::size_t mark = out_.size();
  out_ += '"';
  const auto* data = reinterpret_cast<const unsigned char*>(value.data());
  const std::size_t size = value.size();
  std::size_t run = 0;  // start of the bytes copied as they are
  std::size_t i = 0;
  while (i < size) {
    // Eight plain bytes at a time (no control, quote, backslash or non-ASCII
    // byte): most of a document's text.
    while (i + 8 <= size) {
      std::uint64_t word = 0;
      std::memcpy(&word, data + i, sizeof word);
      if (!needs_attention(word)) {
        i += 8;
      } else {
        break;
      }
    }
    if (i >= size) {
      break;
    }
    const unsigned char c = data[i];
    if (c >= 0x80) {
      // Multi-byte sequences are copied as they are once they are well formed.
      const std::size_t length = text::utf8_sequence(value, i);
      if (length == 0) {
        // Rare (a file name's bytes): nlohmann's own replacement, byte for byte.
        out_.resize(mark);
        out_ += nlohmann::json(std::string(value)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        return;
      }
      i += length;
      continue;
    }
    if (c >= 0x20 && c != '"' && c != '\\') {
      ++i;
      continue;
    }
    out_.append(value.data() + run, i - run);
    run = ++i;
    switch (c) {
      case '"': out_ += "\\\""; break;
      case '\\': out_ += "\\\\"; break;
      case '\b': out_ += "\\b"; break;
      case '\t': out_ += "\\t"; break;
      case '\n': out_ += "\\n"; break;
      case '\f': out_ += "\\f"; break;
      case '\r': out_ += "\\r"; break;
      default:
        out_ += "\\u00";
        out_ += hex[c >> 4];
        out_ += hex[c & 0xF];
    }
  }
  out_.append(value.data() + run, size - run);
  out_ += '"';
}

}  // namespace gpu_advise::json_out
