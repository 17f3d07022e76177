// A plain-text table: columns sized to their widest cell, left or right
// aligned, and fitted to a width by wrapping free text and moving the least
// important columns out of the grid (onto lines under each row, or away).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace gpu_advise::render {

enum class Align { left, right };

// What happens to a column when the table does not fit its width.
enum class Overflow {
  keep,   // always in the grid (a card's id or name: never cut)
  stack,  // moved under its row, as "Title: value"
  drop,   // left out (a figure stated elsewhere, such as a score)
};

struct Column {
  // (The priority comes second so that {"title", Align::right} still means the pair of the older constructor.)
  Column(std::string title_, int priority_, Align align_ = Align::left, Overflow overflow_ = Overflow::stack,
         bool wraps_ = false, bool title_wraps_ = true)
      : title(std::move(title_)),
        align(align_),
        priority(priority_),
        overflow(overflow_),
        wraps(wraps_),
        title_wraps(title_wraps_ && overflow_ != Overflow::keep) {}
  std::string title;
  Align align = Align::left;
  // When the table is too wide, columns leave the grid lowest priority first
  // (the rightmost first among equals).
  int priority = 0;
  Overflow overflow = Overflow::stack;
  // Free text: its cells may break across lines (at spaces, or between wide
  // characters) to make room. Other cells are never broken or cut.
  bool wraps = false;
  // The title may break across lines at its spaces (never in a `keep` column).
  bool title_wraps = true;
};

class Table {
 public:
  // The first column stays in the grid; the others may move under their row,
  // the rightmost first.
  explicit Table(const std::vector<std::pair<std::string, Align>>& columns);
  explicit Table(std::vector<Column> columns) : m_columns(std::move(columns)) {}
  // A row; with `wraps`, its cells are free text that may break across lines
  // in any column that is not `keep`.
  void add_row(std::vector<std::string> cells, bool wraps = false) { m_rows.push_back({std::move(cells), wraps}); }
  // How a stacked cell is labelled: "Title" + separator + value (": " by default; the full-width colon in Chinese).
  void set_label_separator(std::string separator) { m_separator = std::move(separator); }
  // The table as text; with max_width > 0, every line fits max_width columns
  // (display width) as long as the `keep` columns fit: free-text cells wrap,
  // then the least important columns leave the grid.
  [[nodiscard]] std::string to_string(const std::string& indent = "", std::size_t max_width = 0) const;
  // Whether the table fits max_width with every column in the grid (free text may wrap).
  [[nodiscard]] bool fits(const std::string& indent, std::size_t max_width) const;

 private:
  struct Row {
    std::vector<std::string> cells;
    bool wraps = false;
  };
  struct Plan {
    std::vector<std::size_t> widths;
    std::vector<bool> in_grid;
    bool fits = false;
  };
  [[nodiscard]] Plan plan(const std::string& indent, std::size_t max_width, bool move_columns) const;
  [[nodiscard]] bool cell_wraps(const Row& row, std::size_t column) const;

  std::vector<Column> m_columns;
  std::vector<Row> m_rows;
  std::string m_separator = ": ";
};

// Display width of UTF-8 text (code points; East Asian wide characters count 2).
[[nodiscard]] std::size_t display_width(const std::string& text);
// The longest prefix of text (whole UTF-8 characters) no wider than width, with "…" when cut.
[[nodiscard]] std::string truncate(const std::string& text, std::size_t width);
// Text broken into lines: the first no wider than first_width, the others no
// wider than rest_width (0: the same). Breaks at spaces and between wide
// characters, never before closing punctuation; a word wider than a line is
// broken inside. No breaking when first_width is 0.
[[nodiscard]] std::vector<std::string> wrap(const std::string& text, std::size_t first_width,
                                            std::size_t rest_width = 0);
// Every line of text (split at "\n") wrapped to width, the continuation lines
// starting with `hang`; empty lines kept. No wrapping when width is 0.
[[nodiscard]] std::string wrap_lines(const std::string& text, std::size_t width, const std::string& hang = "");

}  // namespace gpu_advise::render
