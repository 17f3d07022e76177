#include "render/text_table.hpp"

#include <algorithm>

#include "gpu_advise/phrases.hpp"

namespace gpu_advise::render {

namespace {
bool is_wide(char32_t c) {
  return (c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0xA4CF) || (c >= 0xAC00 && c <= 0xD7A3) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF00 && c <= 0xFF60) ||
         (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x20000 && c <= 0x3FFFD);
}

std::size_t char_length(unsigned char byte) { return byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1; }

// The code point of one UTF-8 character.
char32_t code_point(const std::string& piece) {
  if (piece.empty()) {
    return 0;
  }
  const auto byte = static_cast<unsigned char>(piece[0]);
  char32_t c = byte >= 0xF0 ? byte & 0x07u : byte >= 0xE0 ? byte & 0x0Fu : byte >= 0xC0 ? byte & 0x1Fu : byte;
  for (std::size_t k = 1; k < piece.size(); ++k) {
    c = (c << 6) | (static_cast<unsigned char>(piece[k]) & 0x3Fu);
  }
  return c;
}

// Opening brackets and quotes (full-width parenthesis, corner and angle
// brackets, curly quotes): a line never ends with one.
bool is_opening_punctuation(const std::string& piece) {
  switch (code_point(piece)) {
    case 0xFF08:
    case 0x300C:
    case 0x300E:
    case 0x300A:
    case 0x3008:
    case 0x3010:
    case 0x201C:
    case 0x2018: return true;
    default: return false;
  }
}

// Splits text into pieces that may not be broken: ASCII words (with their
// trailing space) and single wide characters (with the closing punctuation
// that follows them, and the opening bracket before them).
std::vector<std::string> wrap_units(const std::string& text) {
  std::vector<std::string> units;
  std::string current;
  bool opened = false;  // current ends with an opening bracket
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = char_length(static_cast<unsigned char>(text[i]));
    const std::string piece = text.substr(i, length);
    i += length;
    if (is_opening_punctuation(piece)) {  // stays with what it opens
      if (!current.empty() && !opened) {
        units.push_back(current);
        current.clear();
      }
      current += piece;
      opened = true;
      continue;
    }
    const bool after_opening = opened;
    opened = false;
    if (length >= 3) {  // CJK and other wide characters: break anywhere,
      // but never before closing punctuation (it stays with what it closes).
      const bool closes = is_closing_punctuation(piece);
      if (after_opening && !closes) {
        current += piece;
        units.push_back(current);
        current.clear();
        continue;
      }
      if (closes && current.empty() && !units.empty()) {
        units.back() += piece;
        continue;
      }
      if (closes) {
        current += piece;
        units.push_back(current);
        current.clear();
        continue;
      }
      if (!current.empty()) {
        units.push_back(current);
        current.clear();
      }
      units.push_back(piece);
    } else if (piece == " ") {
      current += piece;
      units.push_back(current);
      current.clear();
    } else {
      current += piece;
    }
  }
  if (!current.empty()) {
    units.push_back(current);
  }
  return units;
}

void trim_right(std::string& text) {
  while (!text.empty() && text.back() == ' ') {
    text.pop_back();
  }
}

void trim_left(std::string& text) {
  const auto first = text.find_first_not_of(' ');
  text.erase(0, first == std::string::npos ? text.size() : first);
}

std::string trimmed_right(std::string text) {
  trim_right(text);
  return text;
}

// The longest prefix of text (whole characters, at least one) no wider than width.
std::size_t prefix_bytes(const std::string& text, std::size_t width) {
  std::size_t used = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t length = char_length(static_cast<unsigned char>(text[i]));
    const std::size_t w = display_width(text.substr(i, length));
    if (i > 0 && used + w > width) {
      break;
    }
    used += w;
    i += length;
  }
  return i;
}

// The widest piece a line of this text must hold when wrapped.
std::size_t longest_unit(const std::string& text) {
  std::size_t widest = 0;
  for (const auto& unit : wrap_units(text)) {
    widest = std::max(widest, display_width(trimmed_right(unit)));
  }
  return widest;
}

// A column title's words: split at spaces and before an opening bracket
// ("Rent (run)": "Rent", "(run)"), each with what came before it.
struct Word {
  std::string separator;
  std::string text;
};
std::vector<Word> title_words(const std::string& title) {
  std::vector<Word> words;
  std::string separator;
  std::string current;
  for (std::size_t i = 0; i < title.size();) {
    const std::size_t length = char_length(static_cast<unsigned char>(title[i]));
    const std::string piece = title.substr(i, length);
    i += length;
    if (piece == " ") {
      if (!current.empty()) {
        words.push_back({separator, current});
        current.clear();
      }
      separator = " ";
      continue;
    }
    if ((piece == "(" || is_opening_punctuation(piece)) && !current.empty()) {
      words.push_back({separator, current});
      current.clear();
      separator.clear();
    }
    current += piece;
  }
  if (!current.empty()) {
    words.push_back({separator, current});
  }
  return words;
}

std::size_t widest_word(const std::vector<Word>& words) {
  std::size_t widest = 0;
  for (const auto& w : words) {
    widest = std::max(widest, display_width(w.text));
  }
  return widest;
}

constexpr std::size_t shortest_title_line = 12;  // a title breaks between words if they are this narrow

// A title on as few lines of `width` as it takes, broken between words when
// they fit, else as any text.
std::vector<std::string> wrap_title(const std::string& title, std::size_t width) {
  const auto words = title_words(title);
  if (display_width(title) <= width || widest_word(words) > width) {
    return wrap(title, width);
  }
  std::vector<std::string> lines;
  std::string line;
  for (const auto& [separator, text] : words) {
    if (line.empty()) {
      line = text;
    } else if (display_width(line) + display_width(separator) + display_width(text) <= width) {
      line += separator + text;
    } else {
      lines.push_back(line);
      line = text;
    }
  }
  lines.push_back(line);
  return lines;
}

// The narrowest a title may be broken to.
std::size_t title_minimum(const std::string& title) {
  const std::size_t widest = widest_word(title_words(title));
  return widest <= shortest_title_line ? widest : longest_unit(title);
}

constexpr std::size_t gap = 2;              // between columns
constexpr std::size_t narrowest_wrap = 12;  // a free-text column is not wrapped narrower than this...
constexpr std::size_t longest_word = 20;    // ...or its longest word, up to this (longer words break)
const std::string stack_indent = "    ";    // a row's stacked cells, under it
}  // namespace

std::size_t display_width(const std::string& text) {
  std::size_t width = 0;
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    char32_t c = byte;
    std::size_t length = 1;
    if (byte >= 0xF0) {
      length = 4;
      c = byte & 0x07u;
    } else if (byte >= 0xE0) {
      length = 3;
      c = byte & 0x0Fu;
    } else if (byte >= 0xC0) {
      length = 2;
      c = byte & 0x1Fu;
    }
    for (std::size_t k = 1; k < length && i + k < text.size(); ++k) {
      c = (c << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3Fu);
    }
    width += is_wide(c) ? 2u : 1u;
    i += length;
  }
  return width;
}

std::string truncate(const std::string& text, std::size_t width) {
  if (display_width(text) <= width) {
    return text;
  }
  std::string out;
  std::size_t used = 0;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = char_length(static_cast<unsigned char>(text[i]));
    const std::string piece = text.substr(i, length);
    const std::size_t w = display_width(piece);
    if (used + w + 1 > width) {
      break;
    }
    out += piece;
    used += w;
    i += length;
  }
  return out + "…";
}

std::vector<std::string> wrap(const std::string& text, std::size_t first_width, std::size_t rest_width) {
  if (first_width == 0 || display_width(text) <= first_width) {
    return {text};
  }
  rest_width = rest_width == 0 ? first_width : rest_width;
  std::vector<std::string> lines;
  std::string current;
  std::size_t column = 0;
  std::size_t limit = first_width;
  auto end_line = [&] {
    trim_right(current);
    lines.push_back(current);
    current.clear();
    column = 0;
    limit = rest_width;
  };
  for (const auto& unit : wrap_units(text)) {
    std::string piece = unit;
    if (!current.empty() && column + display_width(trimmed_right(piece)) > limit) {
      end_line();
    }
    if (current.empty() && !lines.empty()) {
      trim_left(piece);  // a line's own indentation stays; a broken line's space goes
    }
    if (current.empty()) {
      // A word wider than a whole line: broken inside.
      while (display_width(trimmed_right(piece)) > limit) {
        const std::size_t bytes = prefix_bytes(piece, limit);
        current = piece.substr(0, bytes);
        piece.erase(0, bytes);
        end_line();
      }
    }
    current += piece;
    column += display_width(piece);
  }
  trim_right(current);
  if (!current.empty() || lines.empty()) {
    lines.push_back(current);
  }
  return lines;
}

std::string wrap_lines(const std::string& text, std::size_t width, const std::string& hang) {
  std::string out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto end = text.find('\n', start);
    const std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!line.empty()) {
      const std::size_t hang_width = display_width(hang);
      const auto pieces = wrap(line, width, width > hang_width ? width - hang_width : 1);
      for (std::size_t i = 0; i < pieces.size(); ++i) {
        out += (i == 0 ? "" : "\n" + hang) + pieces[i];
      }
    }
    if (end == std::string::npos) {
      break;
    }
    out += "\n";
    start = end + 1;
  }
  return out;
}

Table::Table(const std::vector<std::pair<std::string, Align>>& columns) {
  int priority = 0;
  for (const auto& [title, align] : columns) {
    m_columns.push_back(
        Column{title, priority--, align, m_columns.empty() ? Overflow::keep : Overflow::stack, false, false});
  }
}

bool Table::cell_wraps(const Row& row, std::size_t column) const {
  const Column& c = m_columns[column];
  return c.wraps || (row.wraps && c.overflow != Overflow::keep);
}

Table::Plan Table::plan(const std::string& indent, std::size_t max_width, bool move_columns) const {
  const std::size_t n = m_columns.size();
  std::vector<std::size_t> natural(n);
  std::vector<std::size_t> minimum(n);
  for (std::size_t c = 0; c < n; ++c) {
    const std::string& title = m_columns[c].title;
    natural[c] = display_width(title);
    minimum[c] = m_columns[c].title_wraps ? title_minimum(title) : natural[c];
  }
  for (const auto& row : m_rows) {
    for (std::size_t c = 0; c < n && c < row.cells.size(); ++c) {
      const std::size_t w = display_width(row.cells[c]);
      natural[c] = std::max(natural[c], w);
      minimum[c] = std::max(
          minimum[c], cell_wraps(row, c)
                          ? std::max(std::min(longest_unit(row.cells[c]), longest_word), std::min(w, narrowest_wrap))
                          : w);
    }
  }
  Plan p{natural, std::vector<bool>(n, true), false};
  if (max_width == 0) {
    p.fits = true;
    return p;
  }
  // The widths with the grid's columns, free text wrapped as little as will fit; whether it fits.
  auto try_fit = [&](const std::vector<bool>& in_grid, std::vector<std::size_t>& widths) {
    widths = natural;
    std::size_t total = display_width(indent);
    std::size_t shown = 0;
    for (std::size_t c = 0; c < n; ++c) {
      if (in_grid[c]) {
        total += natural[c] + (shown++ > 0 ? gap : 0);
      }
    }
    while (total > max_width) {
      std::size_t widest = n;
      for (std::size_t c = 0; c < n; ++c) {
        if (in_grid[c] && widths[c] > minimum[c] && (widest == n || widths[c] > widths[widest])) {
          widest = c;
        }
      }
      if (widest == n) {
        return false;
      }
      --widths[widest];
      --total;
    }
    return true;
  };
  std::vector<std::size_t> order;  // the order columns leave the grid in
  for (std::size_t c = 0; c < n; ++c) {
    if (m_columns[c].overflow != Overflow::keep) {
      order.push_back(c);
    }
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return m_columns[a].priority != m_columns[b].priority ? m_columns[a].priority < m_columns[b].priority : a > b;
  });
  std::size_t moved = 0;
  while (!(p.fits = try_fit(p.in_grid, p.widths)) && move_columns && moved < order.size()) {
    p.in_grid[order[moved++]] = false;
  }
  if (!p.fits) {
    return p;
  }
  // A column that left before a wider one may fit again, the most important
  // first, as long as none more important stays out.
  for (std::size_t k = moved; k-- > 0;) {
    std::vector<bool> again = p.in_grid;
    again[order[k]] = true;
    std::vector<std::size_t> widths;
    if (!try_fit(again, widths)) {
      break;
    }
    p.in_grid = again;
    p.widths = widths;
  }
  return p;
}

bool Table::fits(const std::string& indent, std::size_t max_width) const { return plan(indent, max_width, false).fits; }

std::string Table::to_string(const std::string& indent, std::size_t max_width) const {
  const Plan p = plan(indent, max_width, true);
  const std::size_t n = m_columns.size();
  std::size_t last = 0;  // the last column in the grid
  for (std::size_t c = 0; c < n; ++c) {
    last = p.in_grid[c] ? c : last;
  }
  struct Stacked {
    std::string label;  // "Title: ", or empty
    std::string value;
    bool wraps = false;
  };
  struct Laid {
    std::vector<std::vector<std::string>> cells;  // per column, its lines
    std::vector<Stacked> stacked;
  };
  // Every cell broken into its lines; the columns then as wide as their widest line.
  std::vector<Laid> laid;
  Laid titles{std::vector<std::vector<std::string>>(n), {}};
  for (std::size_t c = 0; c < n; ++c) {
    titles.cells[c] = m_columns[c].title_wraps && p.in_grid[c] ? wrap_title(m_columns[c].title, p.widths[c])
                                                               : std::vector<std::string>{m_columns[c].title};
  }
  laid.push_back(std::move(titles));
  for (const auto& row : m_rows) {
    Laid one{std::vector<std::vector<std::string>>(n), {}};
    for (std::size_t c = 0; c < n; ++c) {
      const std::string cell = c < row.cells.size() ? row.cells[c] : "";
      if (p.in_grid[c]) {
        one.cells[c] = cell_wraps(row, c) ? wrap(cell, p.widths[c]) : std::vector<std::string>{cell};
      } else if (m_columns[c].overflow == Overflow::stack && !cell.empty()) {
        one.stacked.push_back(
            {m_columns[c].title.empty() ? std::string() : m_columns[c].title + m_separator, cell, cell_wraps(row, c)});
      }
    }
    laid.push_back(std::move(one));
  }
  std::vector<std::size_t> widths(n, 0);
  for (const auto& one : laid) {
    for (std::size_t c = 0; c < n; ++c) {
      for (const auto& line : one.cells[c]) {
        widths[c] = std::max(widths[c], display_width(line));
      }
    }
  }
  const std::string under = indent + stack_indent;
  const std::size_t room =
      std::max<std::size_t>(max_width > display_width(under) ? max_width - display_width(under) : 0, narrowest_wrap);
  std::string out;
  for (const auto& one : laid) {
    std::size_t height = 1;
    for (const auto& cell : one.cells) {
      height = std::max(height, cell.size());
    }
    for (std::size_t i = 0; i < height; ++i) {
      std::string line = indent;
      for (std::size_t c = 0; c < n; ++c) {
        if (!p.in_grid[c]) {
          continue;
        }
        const std::string cell = i < one.cells[c].size() ? one.cells[c][i] : "";
        const std::size_t w = display_width(cell);
        const std::string pad(widths[c] > w ? widths[c] - w : 0, ' ');
        line += m_columns[c].align == Align::right ? pad + cell : cell + (c == last ? "" : pad);
        if (c != last) {
          line += std::string(gap, ' ');
        }
      }
      trim_right(line);
      out += line + "\n";
    }
    // The stacked cells, as many to a line as fit.
    std::string line;
    for (const auto& [label, value, wraps] : one.stacked) {
      const std::string piece = label + value;
      if (!line.empty() && display_width(line) + gap + display_width(piece) <= room) {
        line += std::string(gap, ' ') + piece;
        continue;
      }
      if (!line.empty()) {
        out += under + line + "\n";
      }
      if (!wraps && !label.empty() && display_width(piece) > room && display_width(value) <= room) {
        out += under + trimmed_right(label) + "\n";  // a figure or a name stays whole, on a line of its own
        line = value;
        continue;
      }
      auto pieces = wrap(piece, room);
      line = pieces.back();
      pieces.pop_back();
      for (const auto& whole : pieces) {
        out += under + whole + "\n";
      }
    }
    if (!line.empty()) {
      out += under + line + "\n";
    }
  }
  return out;
}

}  // namespace gpu_advise::render
