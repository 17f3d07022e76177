// Lines from a stream in bounded memory: the batch command's reader.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace gpu_advise::cli {

class LineReader {
 public:
  // A line longer than this is reported, not kept.
  static constexpr std::size_t max_line_bytes = std::size_t{1} << 20;  // 1 MiB
  // A line still without a newline after this many bytes ends the input: it
  // cannot be JSON Lines, and endless input must end. A line holding a NUL
  // byte (binary data) ends the input sooner: after max_line_bytes.
  static constexpr std::size_t max_unbroken_bytes = std::size_t{1} << 30;  // 1 GiB
  static constexpr std::size_t buffer_bytes = std::size_t{64} << 10;

  // Fills `into` with up to `size` bytes; returns the count, 0 at the end, or
  // a negative number with errno set.
  using Source = std::function<long(char* into, std::size_t size)>;

  enum class Result {
    line,        // `line` holds the next line, without its newline
    too_long,    // the next line was longer than max_line_bytes; skipped, `line` is empty
    binary,      // the next line holds a NUL byte (nul_offset()); skipped, `line` is empty
    unbroken,    // no newline within max_unbroken_bytes, or within max_line_bytes of binary data: stop reading
    read_error,  // the source failed; error() is its errno
    end,         // no more input
  };

  explicit LineReader(Source source) : m_source(std::move(source)), m_buffer(buffer_bytes) {}

  Result next(std::string& line);
  // The length in bytes of the line just returned (also of one too long to keep).
  [[nodiscard]] std::size_t length() const noexcept { return m_length; }
  [[nodiscard]] int error() const noexcept { return m_error; }
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  // The input offset of the first NUL byte of the line just returned, or npos.
  [[nodiscard]] std::size_t nul_offset() const noexcept { return m_nul_offset; }

 private:
  Source m_source;
  std::vector<char> m_buffer;
  std::size_t m_begin = 0;
  std::size_t m_end = 0;
  bool m_eof = false;
  std::size_t m_length = 0;
  std::size_t m_offset = 0;  // bytes consumed so far
  std::size_t m_nul_offset = npos;
  int m_error = 0;
};

}  // namespace gpu_advise::cli
