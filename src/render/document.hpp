// The consultant's report as a document: headings, paragraphs, lists, tables
// and charts, built once from the Report (client_report.cpp) and written as Markdown
// (markdown.cpp) or as one self-contained HTML file (html.cpp), so both say
// the same thing; charts appear in HTML only.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "gpu_advise/gpu.hpp"
#include "gpu_advise/language.hpp"
#include "gpu_advise/render.hpp"
#include "gpu_advise/report.hpp"

namespace gpu_advise::document {

struct Heading {
  int level;
  std::string text;
  std::string kicker;  // a small label above it ("Appendix"): the back matter starts here
};
struct Paragraph {
  std::string text;
  bool strong = false;
  bool note = false;  // small print: under a table, a chart or a heading
};
struct Bullets {
  std::vector<std::string> items;
  bool numbered = false;  // 1., 2., ...: a list the text refers to by number
  bool small = false;     // small print in columns (the list of sources)
};
struct TableBlock {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> numeric;  // right-aligned columns
  bool small = false;         // small print (the appendix)
  bool charted = false;       // the figures of the chart just before it: HTML shows the chart, Markdown the table
};
// Labels and their values: the workload, or (header) the block the report
// opens with: its date, for whom and by whom. No header row; an empty value
// is not shown.
struct KeyValues {
  std::string title;  // may be empty
  std::vector<std::pair<std::string, std::string>> items;
  std::string colon = ": ";  // after a label in Markdown (the language's colon)
  bool header = false;
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
  std::string axis_label;  // under the GiB axis; empty: no axis label
  std::vector<std::string> legend;
  std::vector<Bar> bars;
};
// Lines over a linear 0-100% axis (cost against utilization): each series a
// value per x; a flat series is a reference (the rent). `mark` draws a
// dashed line at an x (the break-even).
struct LineChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::string y_prefix;
  std::vector<double> x;  // 0-1
  std::vector<std::pair<std::string, std::vector<double>>> series;
  std::optional<double> mark;
};
using Block = std::variant<Heading, Paragraph, Bullets, TableBlock, Scatter, StackedBars, KeyValues, LineChart>;

// The report's document in `language`: every figure and sentence in place,
// opening with the header's block when it has anything to say.
[[nodiscard]] std::vector<Block> build(const Report& report, Language language);
[[nodiscard]] std::vector<Block> build(const Report& report, Language language, const ReportHeader& header);
// The dated block a client's document opens with (after its title): the
// header's non-empty fields, labelled in `language`; no items when all are empty.
[[nodiscard]] KeyValues header_block(const ReportHeader& header, Language language);
// A plan's layout in the fewest words, for a table cell: "TP2 × PP4 × DP8,
// ZeRO-1" (narrow no-break spaces around the "×"), "FSDP4", "1 GPU"
// (describe(Layout) gives the sentence).
[[nodiscard]] std::string short_layout(const Layout& layout, Task task, Language language);
// The key to the abbreviations short_layout used in `layouts` ("TP tensor
// parallel; DP data parallel"); empty when there are none.
[[nodiscard]] std::string layout_key(const std::vector<Layout>& layouts, Task task, Language language);
// A catalog key path ("memory.capacity_gib") in words ("memory capacity").
[[nodiscard]] std::string field_name(std::string_view key_path, Language language);
// Every block in order. HTML: the first level-1 heading is the page title and
// the last paragraph the footer; each printed page carries the title and its
// number.
[[nodiscard]] std::string to_markdown(const std::vector<Block>& doc);
[[nodiscard]] std::string to_html(const std::vector<Block>& doc, Language language);

}  // namespace gpu_advise::document
