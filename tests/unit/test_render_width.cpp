// Terminal output fits the width it is given: every line of recommend,
// compare and the listings, at 60, 80 and 100 columns, in both languages,
// with and without colour; card names and ids whole; no style left open at
// a line's end.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "gpu_advise/advisor.hpp"
#include "gpu_advise/phrases.hpp"
#include "gpu_advise/render.hpp"
#include "render/text_table.hpp"

using namespace gpu_advise;

namespace {

constexpr int widths[] = {60, 80, 100};

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    lines.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) {
      break;
    }
    start = end + 1;
  }
  return lines;
}

std::string strip_ansi(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\x1b' && i + 1 < text.size() && text[i + 1] == '[') {
      i = text.find('m', i);
      if (i == std::string::npos) {
        break;
      }
      continue;
    }
    out += text[i];
  }
  return out;
}

// Every line within `width` display columns once the ANSI codes are gone; a
// style opened on a line is closed before its newline (no line starts with a
// reset, none ends inside a style).
void check_fits(const std::string& text, int width) {
  CAPTURE(width);
  for (const auto& line : split_lines(text)) {
    const std::string plain = strip_ansi(line);
    CAPTURE(plain);
    CHECK(render::display_width(plain) <= static_cast<std::size_t>(width));
    CHECK(line.rfind("\x1b[0m", 0) == std::string::npos);
    const auto last_code = line.rfind("\x1b[");
    if (last_code != std::string::npos) {
      CHECK(line.compare(last_code, 4, "\x1b[0m") == 0);
    }
  }
}

Report report_for(const Request& r) {
  return advise(r, infer_shape(r.params), load_embedded_catalog(), load_embedded_rules());
}

Request request(double params, Task task) {
  Request r;
  r.params = params;
  r.task = task;
  return r;
}

std::string rendered(const Report& report, Language l, bool color, int width) {
  return render_text(report, l, TextStyle{color, width});
}

}  // namespace

TEST_CASE("recommend output fits the terminal width", "[render][text][width]") {
  std::vector<Request> requests;
  for (const Task task : {Task::lora, Task::full, Task::inference, Task::qlora, Task::pretrain}) {
    requests.push_back(request(task == Task::pretrain ? 8e9 : 70e9, task));
  }
  Request explained = request(8e9, Task::inference);
  explained.explain = true;
  requests.push_back(explained);
  Request everything = request(70e9, Task::lora);
  everything.explain_all = true;
  everything.explain = true;
  requests.push_back(everything);
  Request nothing = request(1e14, Task::full);
  nothing.max_gpus = 8;
  requests.push_back(nothing);
  for (const auto& r : requests) {
    const Report report = report_for(r);
    for (const Language l : {Language::en, Language::zh}) {
      for (const bool color : {false, true}) {
        for (const int width : widths) {
          CAPTURE(static_cast<int>(r.task), r.params, l == Language::zh, color, r.explain);
          const std::string text = rendered(report, l, color, width);
          check_fits(text, width);
          const std::string plain = strip_ansi(text);
          for (const auto& rec : report.recommendations) {
            CAPTURE(rec.gpu.name);
            CHECK(plain.find(rec.gpu.name) != std::string::npos);
          }
        }
      }
    }
  }
}

TEST_CASE("explain shows the rules that fired, and every rule only with explain_all", "[render][text][width]") {
  Request r = request(70e9, Task::lora);
  r.explain = true;
  const Report fired = report_for(r);
  r.explain_all = true;
  const Report all = report_for(r);
  const std::string some = rendered(fired, Language::en, false, 100);
  const std::string every = rendered(all, Language::en, false, 100);
  CHECK(split_lines(some).size() * 2 < split_lines(every).size());
  CHECK(some.find("\n    -  ") == std::string::npos);  // a rule that did not fire
  CHECK(every.find("\n    -  ") != std::string::npos);
  CHECK_THAT(some, Catch::Contains(std::string(phrase(Language::en, Phrase::rule_fired))));
}

TEST_CASE("compare fits the width, and a rejected card's reasons follow the table", "[render][text][width]") {
  Request r = request(70e9, Task::full);
  r.max_gpus = 8;
  r.compare = {"a100-80gb-sxm4", "h100-sxm5", "rtx-4090"};
  r.gpu_ids = r.compare;
  const Report report = report_for(r);
  REQUIRE(std::any_of(report.rejected.begin(), report.rejected.end(),
                      [](const Rejection& x) { return x.gpu.id == "rtx-4090"; }));
  Request lora = request(70e9, Task::lora);
  lora.compare = {"a100-80gb-sxm4", "h100-sxm5", "rtx-4090"};
  lora.gpu_ids = lora.compare;
  const Report fitting = report_for(lora);
  for (const Report* rep : {&report, &fitting}) {
    for (const Language l : {Language::en, Language::zh}) {
      for (const bool color : {false, true}) {
        for (const int width : widths) {
          CAPTURE(l == Language::zh, color, width);
          const std::string text = rendered(*rep, l, color, width);
          check_fits(text, width);
          const std::string plain = strip_ansi(text);
          for (const auto& rec : rep->recommendations) {
            CHECK(plain.find(rec.gpu.name) != std::string::npos);
          }
          for (const auto& rej : rep->rejected) {
            CHECK(plain.find(rej.gpu.name) != std::string::npos);
          }
        }
      }
    }
  }
  const std::string text = rendered(report, Language::en, false, 80);
  const auto cell = text.find(std::string(phrase(Language::en, Phrase::compare_no_see_below)));
  REQUIRE(cell != std::string::npos);
  const auto reason = text.find("\nGeForce RTX 4090");
  CHECK(reason > cell);
  const std::string zh = rendered(report, Language::zh, false, 80);
  CHECK_THAT(zh, Catch::Contains(std::string(phrase(Language::zh, Phrase::compare_no_see_below))));
}

TEST_CASE("the listings fit the terminal width", "[render][listings][width]") {
  const Catalog catalog = load_embedded_catalog();
  const ModelCatalog models = load_embedded_models();
  const RuleSet rules = load_embedded_rules();
  for (const Language l : {Language::en, Language::zh}) {
    for (const int width : widths) {
      CAPTURE(l == Language::zh, width);
      const TextStyle style{false, width};
      const std::string list = render_catalog_list_text(catalog, l, style);
      check_fits(list, width);
      for (const auto& g : catalog.gpus()) {
        CHECK_THAT(list, Catch::Contains(g.id) && Catch::Contains(g.name));
      }
      const std::string presets = render_models_text(models, l, style);
      check_fits(presets, width);
      for (const auto& m : models.models()) {
        CHECK_THAT(presets, Catch::Contains(m.id) && Catch::Contains(m.name));
      }
      const std::string rule_list = render_rules_text(rules, l, style);
      check_fits(rule_list, width);
      for (const auto& rule : rules.rules()) {
        CHECK_THAT(rule_list, Catch::Contains(rule.id));
      }
      for (const auto& g : catalog.gpus()) {
        check_fits(render_gpu_text(g, catalog.info(), l, style), width);
      }
    }
  }
}

TEST_CASE("a table too wide moves its least important columns, never cutting a kept one", "[render][table][width]") {
  render::Table table({{"ID", 9, render::Align::left, render::Overflow::keep},
                       {"Name", 5},
                       {"Score", 1, render::Align::right, render::Overflow::drop},
                       {"Notes", 2, render::Align::left, render::Overflow::stack, true}});
  table.add_row({"a-very-long-card-id", "A Very Long Card Name 80GB", "97", "a free-text note that is long"});
  table.add_row({"b", "显存很大的卡", "5", "短"});
  const std::string wide = table.to_string();
  CHECK(wide.find("a-very-long-card-id  A Very Long Card Name 80GB") != std::string::npos);
  for (const std::size_t width : {30u, 40u, 50u, 60u}) {
    CAPTURE(width);
    const std::string text = table.to_string("", width);
    check_fits(text, static_cast<int>(width));
    CHECK_THAT(text, Catch::Contains("a-very-long-card-id") && Catch::Contains("A Very Long Card Name 80GB") &&
                         Catch::Contains("显存很大的卡"));
  }
  CHECK(table.fits("", 200));
  CHECK_FALSE(table.fits("", 40));
}
