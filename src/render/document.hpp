// The consultant's report as a document: headings, paragraphs, lists, tables
// and charts, built once from the Report (report.cpp) and written as Markdown
// (markdown.cpp) or as one self-contained HTML file (html.cpp), so both say
// the same thing; charts appear in HTML only.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "gpu_advise/gpu.hpp"
#include "gpu_advise/report.hpp"
#include "gpu_advise/wording.hpp"

namespace gpu_advise::document {

struct Heading {
  int level;
  std::string text;
};
struct Paragraph {
  std::string text;
  bool strong = false;
};
struct Bullets {
  std::vector<std::string> items;
};
struct TableBlock {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> numeric;  // right-aligned columns
};
struct Point {
  int rank = 0;
  std::string label;
  Range x;
  Range y;
  bool best = false;
};
struct Scatter {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::string y_prefix;  // before each y tick: the currency symbol
  std::vector<Point> points;
};
struct Bar {
  std::string label;
  std::vector<double> parts;  // GiB, in the order of the legend
  double usable = 0;
  double capacity = 0;
};
struct StackedBars {
  std::string title;
  std::string usable_label;
  std::string capacity_label;
  std::vector<std::string> legend;
  std::vector<Bar> bars;
};
using Block = std::variant<Heading, Paragraph, Bullets, TableBlock, Scatter, StackedBars>;

// The report's document in `language`: every figure and sentence in place.
[[nodiscard]] std::vector<Block> build(const Report& report, Language language);
[[nodiscard]] std::string to_markdown(const std::vector<Block>& doc);
[[nodiscard]] std::string to_html(const std::vector<Block>& doc, Language language);

}  // namespace gpu_advise::document
