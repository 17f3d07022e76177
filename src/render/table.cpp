#include "render/table.hpp"

#include <algorithm>

namespace gpu_advise::render {

namespace {
bool is_wide(char32_t c) {
  return (c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0xA4CF) || (c >= 0xAC00 && c <= 0xD7A3) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF00 && c <= 0xFF60) ||
         (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x20000 && c <= 0x3FFFD);
}
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
    const auto byte = static_cast<unsigned char>(text[i]);
    const std::size_t length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1;
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

std::string Table::to_string(const std::string& indent, std::size_t max_width) const {
  std::vector<std::size_t> widths;
  for (const auto& [title, align] : m_columns) {
    widths.push_back(display_width(title));
  }
  for (const auto& row : m_rows) {
    for (std::size_t c = 0; c < row.size() && c < widths.size(); ++c) {
      widths[c] = std::max(widths[c], display_width(row[c]));
    }
  }
  if (max_width > 0) {
    std::size_t total = display_width(indent) + 2 * (widths.size() - 1);
    for (const auto w : widths) {
      total += w;
    }
    std::size_t widest = widths.size();
    for (std::size_t c = 0; c < widths.size(); ++c) {
      if (m_columns[c].second == Align::left && (widest == widths.size() || widths[c] > widths[widest])) {
        widest = c;
      }
    }
    if (total > max_width && widest < widths.size()) {
      const std::size_t excess = total - max_width;
      widths[widest] = std::max<std::size_t>(8, widths[widest] > excess ? widths[widest] - excess : 8);
    }
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out = indent;
    for (std::size_t c = 0; c < m_columns.size(); ++c) {
      const std::string cell = truncate(c < cells.size() ? cells[c] : "", widths[c]);
      const std::string pad(widths[c] - display_width(cell), ' ');
      const bool last = c + 1 == m_columns.size();
      if (m_columns[c].second == Align::right) {
        out += pad + cell;
      } else {
        out += cell + (last ? "" : pad);
      }
      if (!last) {
        out += "  ";
      }
    }
    while (!out.empty() && out.back() == ' ') {
      out.pop_back();
    }
    return out + "\n";
  };
  std::vector<std::string> titles;
  for (const auto& [title, align] : m_columns) {
    titles.push_back(title);
  }
  std::string out = line(titles);
  for (const auto& row : m_rows) {
    out += line(row);
  }
  return out;
}

}  // namespace gpu_advise::render
