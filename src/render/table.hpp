// A plain-text table: columns sized to their widest cell, left or right aligned.
#pragma once

#include <string>
#include <vector>

namespace gpu_advise::render {

enum class Align { left, right };

class Table {
 public:
  explicit Table(std::vector<std::pair<std::string, Align>> columns) : m_columns(std::move(columns)) {}
  void add_row(std::vector<std::string> cells) { m_rows.push_back(std::move(cells)); }
  // The table as text; with max_width > 0, the widest left-aligned column is
  // shortened (cells cut with "…") until the table fits.
  [[nodiscard]] std::string to_string(const std::string& indent = "", std::size_t max_width = 0) const;

 private:
  std::vector<std::pair<std::string, Align>> m_columns;
  std::vector<std::vector<std::string>> m_rows;
};

// Display width of UTF-8 text (code points; East Asian wide characters count 2).
[[nodiscard]] std::size_t display_width(const std::string& text);
// The longest prefix of text (whole UTF-8 characters) no wider than width, with "…" when cut.
[[nodiscard]] std::string truncate(const std::string& text, std::size_t width);

}  // namespace gpu_advise::render
