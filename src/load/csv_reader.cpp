// A small RFC 4180 reader (csv_reader.hpp): quoted fields, CRLF or LF, an
// optional byte order mark, located problems, bounded fields and columns.
#include "load/csv_reader.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "gpu_advise/text.hpp"

namespace gpu_advise::csv {

namespace {

constexpr std::string_view byte_order_mark = "\xEF\xBB\xBF";
// How much of a stray or oversized value a message quotes.
constexpr std::size_t kept_for_message = 2 * text::excerpt_bytes;

}  // namespace

Reader::Reader(std::string_view text) : m_text(text) {
  if (m_text.substr(0, byte_order_mark.size()) == byte_order_mark) {
    m_pos = byte_order_mark.size();
  }
}

bool Reader::at_record_end() const noexcept {
  if (at_end()) {
    return true;
  }
  const char c = peek();
  return c == '\n' || (c == '\r' && m_pos + 1 < m_text.size() && m_text[m_pos + 1] == '\n');
}

void Reader::advance() noexcept { advance_to(m_pos + 1); }

void Reader::advance_to(std::size_t end) noexcept {
  for (; m_pos < end; ++m_pos) {
    const auto c = static_cast<unsigned char>(m_text[m_pos]);
    if (c == '\n') {
      ++m_line;
      m_column = 1;
    } else if ((c & 0xC0U) != 0x80U) {
      ++m_column;
    }
  }
}

std::size_t Reader::field_end() const noexcept {
  const std::size_t stop = std::min(m_text.find_first_of(",\n", m_pos), m_text.size());
  const bool crlf = stop < m_text.size() && m_text[stop] == '\n' && stop > m_pos && m_text[stop - 1] == '\r';
  return crlf ? stop - 1 : stop;
}

void Reader::skip_record_end() noexcept {
  if (!at_end() && peek() == '\r') {
    advance();
  }
  if (!at_end() && peek() == '\n') {
    advance();
  }
}

// Skips one line holding nothing but spaces, tabs and carriage returns.
bool Reader::skip_blank_line() noexcept {
  std::size_t i = m_pos;
  while (i < m_text.size() && (m_text[i] == ' ' || m_text[i] == '\t' || m_text[i] == '\r')) {
    ++i;
  }
  if (i < m_text.size() && m_text[i] != '\n') {
    return false;
  }
  while (m_pos < i) {
    advance();
  }
  if (!at_end()) {
    advance();  // the '\n'
  }
  return true;
}

std::size_t Reader::lines_left() const noexcept {
  const std::string_view rest = m_text.substr(std::min(m_pos, m_text.size()));
  return static_cast<std::size_t>(std::count(rest.begin(), rest.end(), '\n')) + 1;
}

Reader::Status Reader::next(Record& record, Problem& problem) {
  record.fields.clear();
  while (!at_end() && skip_blank_line()) {
  }
  if (at_end()) {
    return Status::end;
  }
  record.line = m_line;
  bool bad = false;
  const auto fail = [&](int line, int column, std::string message) {
    if (!bad) {
      bad = true;
      problem = Problem{line, column, std::move(message)};
    }
  };
  for (;;) {
    Field field;
    field.line = m_line;
    field.column = m_column;
    std::size_t field_bytes = 0;  // all of it, kept or not
    // Appends text[from, to) to the field, up to the limit; the reader moves on to `to`.
    const auto take = [&](std::size_t from, std::size_t to) {
      const std::size_t room = max_field_bytes - field.value.size();
      field_bytes += to - from;
      field.value.append(m_text.substr(from, std::min(to - from, room)));
      advance_to(to);
    };
    if (!at_end() && peek() == '"') {
      advance();
      bool closed = false;
      while (!at_end()) {
        const std::size_t quote = m_text.find('"', m_pos);
        if (quote == std::string_view::npos) {
          take(m_pos, m_text.size());
          break;
        }
        take(m_pos, quote);
        advance();  // the quote
        if (!at_end() && peek() == '"') {
          take(m_pos, m_pos + 1);
          continue;
        }
        closed = true;
        break;
      }
      if (!closed) {
        fail(field.line, field.column,
             fmt::format("the quoted field that starts here is never closed (it runs to the end of the file): "
                         "end it with '\"' and write a quote inside it as \"\" ('{}')",
                         text::excerpt(field.value)));
        return Status::bad;
      }
      if (!at_record_end() && peek() != ',') {
        const int line = m_line;
        const int column = m_column;
        const std::size_t stop = field_end();
        const std::string_view stray = m_text.substr(m_pos, std::min(stop - m_pos, kept_for_message));
        fail(line, column,
             fmt::format("'{}' follows the closing quote of a quoted field; a quoted field ends at its closing "
                         "quote (write a quote inside it as \"\")",
                         text::excerpt(stray)));
        advance_to(stop);
      }
    } else {
      const std::size_t stop = field_end();
      if (const std::size_t cr = m_text.substr(0, stop).find('\r', m_pos); cr != std::string_view::npos) {
        take(m_pos, cr);
        fail(m_line, m_column,
             "a carriage return (CR) that does not end a line: the file's lines seem to end in CR alone (classic "
             "Mac OS); save it with LF or CRLF line endings, or quote a field that holds a CR");
        take(m_pos, stop);
      }
      const std::size_t quote = m_text.substr(0, stop).find('"', m_pos);
      if (quote != std::string_view::npos) {
        take(m_pos, quote);
        const int quote_line = m_line;
        const int quote_column = m_column;
        take(m_pos, stop);
        fail(quote_line, quote_column,
             fmt::format("a quote inside the unquoted field '{}'; quote the whole field (\"...\") and write each "
                         "quote inside it as \"\"",
                         text::excerpt(field.value)));
      } else {
        take(m_pos, stop);
      }
    }
    if (field_bytes > max_field_bytes) {
      std::string start = text::excerpt(field.value, text::excerpt_bytes / 2);  // "abc... (65536 bytes)"
      if (const std::size_t cut = start.rfind("... ("); cut != std::string::npos) {
        start.erase(cut + 3);  // "abc...": the size is said below
      }
      fail(field.line, field.column,
           fmt::format("the field that starts here ('{}') is {} bytes, over the limit of {} bytes", start, field_bytes,
                       max_field_bytes));
    }
    if (record.fields.size() < max_columns) {
      record.fields.push_back(std::move(field));
    } else {
      fail(field.line, field.column, fmt::format("the record has more than {} fields", max_columns));
    }
    if (!at_end() && peek() == ',') {
      advance();
      continue;
    }
    skip_record_end();
    return bad ? Status::bad : Status::record;
  }
}

}  // namespace gpu_advise::csv
