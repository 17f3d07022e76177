// The consultant's report as a document (src/render/document.hpp), built from
// a Report made by hand: the dated header block, the compact comparison
// table, the charts' markers and the sources appendix; then what the Markdown
// and HTML writers make of them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <regex>
#include <set>
#include <string>

#include "gpu_advise/model.hpp"
#include "gpu_advise/phrases.hpp"
#include "gpu_advise/render.hpp"
#include "gpu_advise/text.hpp"
#include "gpu_fixture.hpp"
#include "render/document.hpp"

using namespace gpu_advise;
using namespace gpu_advise::document;

namespace {

constexpr double gib = 1024.0 * 1024.0 * 1024.0;

Recommendation pick(int rank, const std::string& id, double rent, double hours) {
  Recommendation r;
  r.rank = rank;
  r.gpu = test::card(id, 80, 3350, 989, 8, rent);
  r.gpu.name = id + " 80GB";
  r.gpu.rent_usd_per_gpu_hour.front().provider = "Acme Cloud (on demand)";
  r.gpu.sources = {"vendor.example/" + id + " (datasheet)", "shared.example/export-rule (applies to every card)"};
  r.gpu.field_confidence = {{"memory.capacity_gib", Confidence::estimate}, {"availability.cn", Confidence::secondary}};
  // A quote for the other region: not one the cost comes from.
  r.gpu.rent_usd_per_gpu_hour.push_back(PriceQuote{rent * 2, rent * 2, "cn-cloud (8-GPU server)", PriceKind::on_demand,
                                                   Condition::new_card, Region::cn, "2026", "cn.example/price"});
  Estimate& e = r.estimate;
  e.fits = true;
  e.count = 4;
  e.nodes = 1;
  e.layout = Layout{1, 1, 4, 3, Recompute::full};
  e.per_gpu.weights = 20 * gib;
  e.per_gpu.activations = 10 * gib;
  e.per_gpu.reserve = 2 * gib;
  e.capacity_bytes = 79.6 * gib;
  e.usable_bytes = 71.6 * gib;
  TrainingEstimate t;
  t.tokens = 1e8;
  t.flops = 4.2e19;
  t.mfu = {0.3, 0.4, 0.5};
  t.peak_tflops = 989;
  t.wall_hours = {hours * 0.8, hours, hours * 1.5};
  t.gpu_hours = {hours * 3.2, hours * 4, hours * 6};
  e.training = t;
  e.cost.rent_usd_per_gpu_hour = Range{rent * 0.8, rent, rent * 1.2};
  e.cost.rent_usd = Range{rent * hours * 3.2, rent * hours * 4, rent * hours * 6};
  r.objective = PlanObjective{PlanObjective::Kind::run, e.cost.rent_usd->typical, hours, 1.0 + 0.25 * (rank - 1)};
  return r;
}

// A LoRA job on `cards` cards that fit, each faster and dearer than the last.
Report report_of(std::size_t cards) {
  Report report;
  report.tool_version = "0.0.0-test";
  report.catalog = CatalogInfo{1, "test", "2026-12-01", {}};
  report.request = test::request(70e9, Task::lora);
  report.request.budget = BudgetTier::low;
  report.model = infer_shape(70e9);
  report.best_priced = cards > 0;
  for (std::size_t i = 0; i < cards; ++i) {
    const double k = static_cast<double>(i);
    report.recommendations.push_back(pick(static_cast<int>(i) + 1, "card" + std::to_string(i), 1.0 + k, 20.0 - k));
  }
  return report;
}

template <typename T>
std::vector<const T*> blocks_of(const std::vector<Block>& doc) {
  std::vector<const T*> out;
  for (const auto& block : doc) {
    if (const auto* b = std::get_if<T>(&block)) {
      out.push_back(b);
    }
  }
  return out;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) {
    ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("the report opens with its date, and whom it is for and by only when given", "[render][document]") {
  CHECK(header_block(ReportHeader{}, Language::en).items.empty());
  const KeyValues dated = header_block(ReportHeader{"2026-12-01", "", ""}, Language::en);
  REQUIRE(dated.items.size() == 1);
  CHECK(dated.header);
  CHECK(dated.items[0] == std::pair<std::string, std::string>{"Date", "2026-12-01"});
  const KeyValues all = header_block(ReportHeader{"2026-12-01", "Acme Labs", "J. Doe"}, Language::en);
  REQUIRE(all.items.size() == 3);
  CHECK(all.items[1].first == "Prepared for");
  CHECK(all.items[1].second == "Acme Labs");
  CHECK(all.items[2].first == "Prepared by");
  CHECK(header_block(ReportHeader{"2026-12-01", "Acme Labs", ""}, Language::zh).items[1].first == "委托方");

  const Report report = report_of(2);
  const auto doc = build(report, Language::en, ReportHeader{"2026-12-01", "Acme Labs", ""});
  REQUIRE(doc.size() > 2);
  REQUIRE(std::holds_alternative<Heading>(doc[0]));
  REQUIRE(std::holds_alternative<KeyValues>(doc[1]));  // right under the title
  CHECK(std::get<KeyValues>(doc[1]).items.size() == 2);
  // No header: no block (the old build() is the same document).
  const auto plain = build(report, Language::en);
  CHECK(std::none_of(plain.begin(), plain.end(), [](const Block& b) {
    const auto* f = std::get_if<KeyValues>(&b);
    return f != nullptr && f->header;
  }));

  const std::string md = render_markdown(report, Language::en, ReportHeader{"2026-12-01", "Acme Labs", "J. Doe"});
  CHECK_THAT(md, Catch::Contains("\n\nDate: 2026-12-01 · Prepared for: Acme Labs · Prepared by: J. Doe\n\n"));
  CHECK(md.find("Date:") < md.find("## Summary"));
  const std::string html = render_html(report, Language::en, ReportHeader{"2026-12-01", "", ""});
  CHECK_THAT(html, Catch::Contains("<dl class=\"meta\"><div><dt>Date</dt><dd>2026-12-01</dd></div></dl>"));
  CHECK(html.find("Prepared for") == std::string::npos);
  const std::string zh = render_markdown(report, Language::zh, ReportHeader{"2026-12-01", "甲公司", ""});
  CHECK_THAT(zh, Catch::Contains("日期：2026-12-01 · 委托方：甲公司"));
}

TEST_CASE("the workload is a list of facts, with no empty table header", "[render][document]") {
  const Report report = report_of(2);
  const std::string md = render_markdown(report, Language::en);
  CHECK(md.find("| Workload |") == std::string::npos);
  CHECK_THAT(md, Catch::Contains("**Workload**\n\n- Model: a 70B model\n- Task: LoRA fine-tune\n"));
  const std::string html = render_html(report, Language::en);
  CHECK(html.find("<th></th>") == std::string::npos);
  CHECK_THAT(html, Catch::Contains("<dt>Model</dt><dd>a 70B model</dd>"));
}

TEST_CASE("layouts are short in the table, with a key to what the letters mean", "[render][document]") {
  // "TP2 × PP4": narrow no-break spaces around the "×", so a cell breaks only after the comma.
  const Language en = Language::en;
  CHECK(short_layout(Layout{1, 1, 1, 0}, Task::lora, en) == "1 GPU");
  CHECK(short_layout(Layout{1, 1, 8, 0}, Task::lora, en) == "DP8");
  CHECK(short_layout(Layout{1, 1, 4, 3}, Task::qlora, en) == "FSDP4");
  CHECK(short_layout(Layout{2, 4, 8, 1}, Task::pretrain, en) == "TP2\u202f×\u202fPP4\u202f×\u202fDP8, ZeRO-1");
  CHECK(short_layout(Layout{8, 1, 1, 0}, Task::full, en) == "TP8");
  CHECK(short_layout(Layout{4, 1, 2, 0}, Task::inference, en) == "TP4\u202f×\u202fDP2");
  Layout moe{2, 1, 1, 0};
  moe.expert = 4;
  CHECK(short_layout(moe, Task::inference, en) == "TP2\u202f×\u202fEP4");
  CHECK(short_layout(Layout{1, 1, 1, 0}, Task::lora, Language::zh) == say(Language::zh, Phrase::layout_one));

  CHECK(layout_key({Layout{1, 1, 1, 0}}, Task::lora, en).empty());
  const std::string lora = layout_key({Layout{1, 1, 8, 0}, Layout{1, 1, 4, 3}}, Task::lora, en);
  CHECK(lora == "Layout: DP data parallel; FSDP data parallel with the model sharded.");
  const std::string pretrain = layout_key({Layout{2, 4, 8, 1}}, Task::pretrain, en);
  CHECK_THAT(pretrain, Catch::Contains("TP tensor parallel") && Catch::Contains("PP pipeline parallel") &&
                           Catch::Contains("DP data parallel") && Catch::Contains("ZeRO-n") &&
                           !Catch::Contains("FSDP") && !Catch::Contains("EP "));
}

TEST_CASE("the comparison table lists the first 8 plans and says how many more fit", "[render][document]") {
  const Report report = report_of(12);
  const auto doc = build(report, Language::en);
  const auto tables = blocks_of<TableBlock>(doc);
  const auto comparison = std::find_if(tables.begin(), tables.end(),
                                       [](const TableBlock* t) { return !t->header.empty() && t->header[0] == "#"; });
  REQUIRE(comparison != tables.end());
  CHECK((*comparison)->rows.size() == 8);
  CHECK((*comparison)->rows[0][3] == "FSDP4");  // the short layout
  const std::string md = render_markdown(report, Language::en);
  CHECK_THAT(md, Catch::Contains("4 more cards fit, not listed here"));
  CHECK_THAT(md, Catch::Contains("Layout: FSDP data parallel with the model sharded."));
  CHECK(md.find("card8 80GB") == std::string::npos);  // the ninth card is not shown anywhere
  // Eight or fewer: all of them, no "more" line.
  CHECK(render_markdown(report_of(8), Language::en).find("more cards fit") == std::string::npos);
}

TEST_CASE("the sources are an appendix: readable, each once, only the quotes used", "[render][document]") {
  const Report report = report_of(3);
  const auto doc = build(report, Language::en);
  // The appendix comes after the assumptions, and only the footer after it.
  std::size_t assumptions = 0, appendix = 0;
  for (std::size_t i = 0; i < doc.size(); ++i) {
    if (const auto* h = std::get_if<Heading>(&doc[i])) {
      if (h->text == say(Language::en, Phrase::section_assumptions)) {
        assumptions = i;
      }
      if (!h->kicker.empty()) {
        CHECK(h->kicker == "Appendix");
        CHECK(h->text == "Sources of the catalog figures used");
        appendix = i;
      }
    }
  }
  REQUIRE(appendix > assumptions);
  REQUIRE(assumptions > 0);
  const auto lists = blocks_of<Bullets>(doc);
  const auto numbered = std::find_if(lists.begin(), lists.end(), [](const Bullets* b) { return b->numbered; });
  REQUIRE(numbered != lists.end());
  const auto& sources = (*numbered)->items;
  // 3 cards' own pages, 1 shared source, 3 global quotes' sources (the same "s"): 5, each once.
  CHECK(sources.size() == 5);
  CHECK(std::set<std::string>(sources.begin(), sources.end()).size() == sources.size());
  CHECK(std::count(sources.begin(), sources.end(), "shared.example/export-rule") == 1);   // its notes dropped
  CHECK(std::find(sources.begin(), sources.end(), "cn.example/price") == sources.end());  // not this region's

  const std::string md = render_markdown(report, Language::en);
  const std::string back = md.substr(md.find("*Appendix*"));
  CHECK(md.find("memory.capacity_gib") == std::string::npos);
  CHECK(md.find("availability.cn") == std::string::npos);
  // The card's own sources and its quotes' by number, runs joined; the quotes by who quoted.
  CHECK_THAT(back, Catch::Contains("| card0 80GB (card0) | datasheet; secondary source: availability (China); "
                                   "estimate: memory capacity | $1.00: Acme | 1-3 |"));
  CHECK_THAT(back, Catch::Contains("| card1 80GB (card1) |") && Catch::Contains("| $2.00: Acme | 2-4 |"));
  CHECK_THAT(back, Catch::Contains("| $3.00: Acme | 2-3, 5 |"));
  CHECK_THAT(back, Catch::Contains("\n1. vendor.example/card0\n2. shared.example/export-rule\n3. s\n"));
  CHECK(count(md, "shared.example/export-rule") == 1);
  CHECK(md.find("cn-cloud") == std::string::npos);
  CHECK(md.rfind("Prepared with gpu-advise") > md.find("*Appendix*"));

  const std::string zh = render_markdown(report, Language::zh);
  CHECK_THAT(zh, Catch::Contains("官方规格；第三方来源：中国供应情况；估算：显存容量"));
  CHECK(field_name("memory.capacity_gib", Language::en) == "memory capacity");
  CHECK(field_name("compute.fp8_tflops", Language::en) == "FP8 compute");
  CHECK(field_name("availability.global", Language::zh) == "全球供应情况");
  CHECK(field_name("node.rent_shapes", Language::en) == "rental shapes");
  CHECK(field_name("some.new_field", Language::en) == "some.new_field");
  // Every key path the catalog may name has words.
  for (const auto path : confidence_key_paths()) {
    CAPTURE(path);
    CHECK(field_name(path, Language::en) != path);
    CHECK(field_name(path, Language::zh) != path);
  }
}

TEST_CASE("a source is listed by its address, once, in about a line", "[render][document]") {
  Report report = report_of(1);
  report.recommendations[0].gpu.sources = {
      "launched: vendor.example/card0 (launched 2024-10-10)", "vendor.example/card0 (datasheet, p. 3)",
      "node: estimate: the same platform as the other card; rented by the node at most providers, never alone",
      "算力直播报价汇总算力直播报价汇总算力直播报价汇总算力直播报价汇总"};
  const auto doc = build(report, Language::en);
  const auto lists = blocks_of<Bullets>(doc);
  const auto numbered = std::find_if(lists.begin(), lists.end(), [](const Bullets* b) { return b->numbered; });
  REQUIRE(numbered != lists.end());
  const auto& sources = (*numbered)->items;
  REQUIRE(sources.size() == 4);  // the two pages of vendor.example are one; the quote's "s"
  CHECK(sources[0] == "vendor.example/card0");
  CHECK(sources[1].size() <= 46);
  CHECK_THAT(sources[1], Catch::StartsWith("estimate: the same platform") && Catch::EndsWith("..."));
  CHECK_THAT(sources[2], Catch::StartsWith("算力直播") && Catch::EndsWith("..."));
  CHECK(text::invalid_utf8_at(sources[2]) == std::string_view::npos);  // cut between characters
}

TEST_CASE("each format shows the memory once: HTML as a chart, Markdown as its table", "[render][document]") {
  const std::string md = render_markdown(report_of(3), Language::en);
  CHECK(md.find("## Charts") == std::string::npos);  // a section of charts only: nothing in Markdown
  CHECK_THAT(md, Catch::Contains("## Memory per GPU\n\n| GPU | Weights | Gradients |"));
  CHECK_THAT(md, Catch::Contains("| 4 x card0 80GB | 20.0 | 0.0 | 0.0 | 10.0 | 0.0 | 2.0 | 32.0 | 80 |"));
  const std::string html = render_html(report_of(3), Language::en);
  CHECK_THAT(html, Catch::Contains("<h2>Charts</h2>") && Catch::Contains("<h2>Memory per GPU</h2>\n<figure>"));
  CHECK(html.find("<th class=\"num\">Weights</th>") == std::string::npos);
  CHECK_THAT(html, Catch::Contains(">32.0</text>"));  // the total beside each bar
  // One card: no chart to show it, so HTML keeps the table.
  CHECK_THAT(render_html(report_of(1), Language::en), Catch::Contains("<th class=\"num\">Weights</th>"));
}

TEST_CASE("the HTML charts give each card its own marker and number, and print on A4", "[render][document]") {
  const Report report = report_of(8);
  const std::string html = render_html(report, Language::en);
  CHECK_THAT(html, Catch::Contains("@page { size: A4;") && Catch::Contains("counter(pages)") &&
                       Catch::Contains("@media print"));
  // The scatter chart's legend: one entry per plan, no colour and no shape twice.
  const std::size_t legend = html.find("<ol class=\"legend\">");
  REQUIRE(legend != std::string::npos);
  const std::string items = html.substr(legend, html.find("</ol>", legend) - legend);
  std::set<std::string> colors, shapes;
  const std::regex entry(R"re(<li><svg[^>]*>(.*?)</svg>)re");
  const std::regex fill(R"re(fill="(#[0-9a-f]{6})")re");
  std::size_t entries = 0;
  for (auto it = std::sregex_iterator(items.begin(), items.end(), entry); it != std::sregex_iterator(); ++it) {
    ++entries;
    const std::string glyph = (*it)[1];
    std::smatch color;
    REQUIRE(std::regex_search(glyph, color, fill));
    colors.insert(color[1]);
    shapes.insert(std::regex_replace(glyph, fill, ""));  // the shape without its colour
  }
  CHECK(entries == 8);
  CHECK(colors.size() == 8);
  CHECK(shapes.size() == 8);
  CHECK_THAT(items, Catch::Contains("4 x card7 80GB"));
  // Each number placed once, beside its marker, inside the chart.
  const std::size_t svg = html.find("<svg viewBox");
  const std::string chart = html.substr(svg, html.find("</svg>", svg) - svg);
  CHECK(count(chart, "font-weight=\"700\" text-anchor=\"middle\" style=\"fill:") == 8);
  for (int rank = 1; rank <= 8; ++rank) {
    CAPTURE(rank);
    CHECK(chart.find(">" + std::to_string(rank) + "</text>") != std::string::npos);
  }
  // The axes: round log ticks and the labels.
  CHECK_THAT(chart, Catch::Contains(say(Language::en, Phrase::axis_time)));
  CHECK_THAT(html, Catch::Contains(say(Language::en, Phrase::axis_memory)));
  // The title runs in the page footer, escaped for CSS.
  CHECK_THAT(html, Catch::Contains("@bottom-left { content: \"GPU recommendation: LoRA fine-tune of a 70B model\""));
}

TEST_CASE("the scatter chart's numbers do not overlap each other", "[render][document]") {
  // Eight plans at nearly the same place: each number must find its own spot.
  Report report = report_of(8);
  for (auto& rec : report.recommendations) {
    rec.estimate.training->wall_hours = {9, 10, 11};
    rec.estimate.cost.rent_usd = Range{90, 100, 110};
  }
  report.recommendations[1].estimate.training->wall_hours = {40, 50, 60};  // a second place, for the axis
  const std::string html = render_html(report, Language::en);
  const std::size_t svg = html.find("<svg viewBox");
  const std::string chart = html.substr(svg, html.find("</svg>", svg) - svg);
  const std::regex label(R"re(<text x="([0-9.]+)" y="([0-9.]+)" font-size="10" font-weight="700")re");
  std::vector<std::pair<double, double>> at;
  for (auto it = std::sregex_iterator(chart.begin(), chart.end(), label); it != std::sregex_iterator(); ++it) {
    at.emplace_back(std::stod((*it)[1]), std::stod((*it)[2]));
  }
  REQUIRE(at.size() == 8);
  for (std::size_t i = 0; i < at.size(); ++i) {
    for (std::size_t j = i + 1; j < at.size(); ++j) {
      CAPTURE(i, j);
      const bool apart = std::abs(at[i].first - at[j].first) >= 7 || std::abs(at[i].second - at[j].second) >= 10;
      CHECK(apart);
    }
  }
}
