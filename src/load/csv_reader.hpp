// Private helper of the price-file loader: a small RFC 4180 reader. Fields are
// separated by ',', a field may be quoted ("..."), with "" for a quote and
// commas and line breaks inside; records end with LF or CRLF; a UTF-8 byte
// order mark at the start is skipped and blank lines are skipped. Each record
// and field carries the 1-based line (and column, in characters) where it
// starts, so the loader can locate what it finds wrong. A malformed record is
// reported, located, and reading goes on with the next one.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gpu_advise::csv {

inline constexpr std::size_t max_field_bytes = std::size_t{64} * 1024;
inline constexpr std::size_t max_columns = 1000;

struct Field {
  std::string value;  // quotes removed, "" made one quote; bytes as they were otherwise
  int line = 0;       // where the field starts (1-based)
  int column = 0;     // 1-based, in UTF-8 characters
};

struct Record {
  int line = 0;  // the line of the record's first character
  std::vector<Field> fields;
};

// What was wrong with a record, where (the place the problem starts).
struct Problem {
  int line = 0;
  int column = 0;
  std::string message;  // printable: a value is quoted through text::excerpt()
};

class Reader {
 public:
  explicit Reader(std::string_view text);

  enum class Status { record, bad, end };
  // The next record that is not a blank line. `record` is filled for
  // Status::record; for Status::bad, `problem` says what was wrong (the
  // record's fields are unreliable) and the next call goes on after it.
  Status next(Record& record, Problem& problem);
  // The line breaks after the reader's position: at most the records to come.
  [[nodiscard]] std::size_t lines_left() const noexcept;

 private:
  [[nodiscard]] bool at_end() const noexcept { return m_pos >= m_text.size(); }
  [[nodiscard]] char peek() const noexcept { return m_text[m_pos]; }
  [[nodiscard]] bool at_record_end() const noexcept;  // LF, CRLF or the end of the text
  void advance() noexcept;
  void advance_to(std::size_t end) noexcept;  // counting lines and columns
  // Where the unquoted text from here ends: the next ',', line end or the end.
  [[nodiscard]] std::size_t field_end() const noexcept;
  void skip_record_end() noexcept;
  bool skip_blank_line() noexcept;

  std::string_view m_text;
  std::size_t m_pos = 0;
  int m_line = 1;
  int m_column = 1;
};

}  // namespace gpu_advise::csv
