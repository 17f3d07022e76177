// fit in words: the terminal's table of models against tasks, and the same
// as a Markdown or HTML document (the JSON is in json.cpp, CSV in csv.cpp).
#include <fmt/format.h>

#include "core/quantity_format.hpp"
#include "gpu_advise/fit_report.hpp"
#include "gpu_advise/phrases.hpp"
#include "gpu_advise/render.hpp"
#include "gpu_advise/text.hpp"
#include "gpu_advise/units.hpp"
#include "gpu_advise/words.hpp"
#include "render/document.hpp"
#include "render/text_table.hpp"

namespace gpu_advise {

namespace {

using render::Align;
using render::Column;
using render::Overflow;

std::string task_column(Task task, Language l) {
  switch (task) {
    case Task::pretrain: return say(l, Phrase::fit_col_pretrain);
    case Task::full: return say(l, Phrase::fit_col_full);
    case Task::lora: return say(l, Phrase::fit_col_lora);
    case Task::qlora: return say(l, Phrase::fit_col_qlora);
    case Task::inference: return say(l, Phrase::fit_col_inference);
  }
  return {};
}

std::string model_cell(const ModelShape& model, Language l) {
  return model.source == ModelSource::preset ? model.name : model_label(model, l);
}

// A row's cell: the training time on every card, or the fleet's serving
// throughput and copies; "no" when it does not fit. With the layout for a report.
std::string fit_cell(const FitRow& row, Language l, bool with_layout) {
  if (!row.plan) {
    return say(l, Phrase::fit_cell_no);
  }
  const Estimate& e = row.plan->estimate;
  std::string cell = e.training ? say_duration(l, e.training->wall_hours.typical)
                                : say(l, Phrase::fit_cell_serving, row.fleet_tokens_per_s, row.copies);
  if (with_layout) {
    cell += say(l, Phrase::fit_cell_layout, document::short_layout(e.layout, row.task, l));
  }
  return cell;
}

std::string largest_line(const FitFleet& fleet, Language l) {
  std::vector<std::string> items;
  for (const auto& largest : fleet.largest) {
    const std::string task = describe(largest.task, l);
    if (largest.params <= 0) {
      items.push_back(say(l, Phrase::fit_largest_none, task));
    } else if (largest.params >= fit_sweep_max_params) {
      items.push_back(say(l, Phrase::fit_largest_over, task, format_parameter_count(largest.params)));
    } else {
      items.push_back(say(l, Phrase::fit_largest_item, task, format_parameter_count(largest.params)));
    }
  }
  return say(l, Phrase::fit_largest, text::join(items, say(l, Phrase::fit_list_separator)));
}

std::string fleet_line(const FitFleet& fleet, Language l) {
  return say(l, Phrase::fit_fleet, fleet.fleet.count, fleet.gpu.name, format::number(fleet.gpu.memory.capacity_gib),
             format::number(fleet.gpu.memory.capacity_gib * fleet.fleet.count));
}

// The notes under the tables: what the figures mean, what was left out.
std::vector<std::string> fit_notes(const FitReport& report, Language l) {
  std::vector<std::string> out;
  for (const auto& task : report.request.tasks) {
    if (is_training(task.task)) {
      out.push_back(say(l, Phrase::fit_note_training, format_parameter_count(task.training_tokens())));
      break;
    }
  }
  for (const auto& task : report.request.tasks) {
    if (task.task == Task::inference) {
      out.push_back(say(l, Phrase::fit_note_serving, task.context, task.output_tokens));
      break;
    }
  }
  if (report.request.models_skipped > 0) {
    out.push_back(say(l, Phrase::fit_note_skipped, report.request.models_skipped));
  }
  if (report.request.find_largest) {
    out.push_back(say(l, Phrase::fit_note_largest));
  }
  // --calibration: said once, from the first task that uses one.
  for (const auto& task : report.request.tasks) {
    const std::vector<std::string> calibrated = calibration_notes(task, l, false);
    if (calibrated.size() > 1) {
      out.insert(out.end(), calibrated.begin(), calibrated.end());
      break;
    }
  }
  return out;
}

std::vector<std::string> task_header(const FitReport& report, Language l) {
  std::vector<std::string> header = {say(l, Phrase::fit_col_model), say(l, Phrase::fit_col_params)};
  for (const auto& task : report.request.tasks) {
    header.push_back(task_column(task.task, l));
  }
  return header;
}

// The fleet's rows grouped by model: one line per model, a cell per task.
template <typename Add>
void for_each_model(const FitReport& report, const FitFleet& fleet, Language l, bool with_layout, Add&& add) {
  const std::size_t tasks = report.request.tasks.size();
  for (std::size_t first = 0; first + tasks <= fleet.rows.size(); first += tasks) {
    const ModelShape& model = fleet.rows[first].model;
    std::vector<std::string> cells = {model_cell(model, l), format_parameter_count(model.params)};
    for (std::size_t k = 0; k < tasks; ++k) {
      cells.push_back(fit_cell(fleet.rows[first + k], l, with_layout));
    }
    add(std::move(cells));
  }
}

}  // namespace

std::string render_fit_text(const FitReport& report, Language l, const TextStyle& style) {
  const std::size_t width = static_cast<std::size_t>(std::max(style.width, 0));
  const auto bold = [&](const std::string& t) { return style.color ? fmt::format("\x1b[1m{}\x1b[0m", t) : t; };
  std::string out = bold(render::wrap_lines(say(l, Phrase::fit_header, report.tool_version), width)) + "\n";
  for (const auto& fleet : report.fleets) {
    out += "\n" + bold(render::wrap_lines(fleet_line(fleet, l), width)) + "\n";
    if (!fleet.largest.empty()) {
      out += render::wrap_lines(largest_line(fleet, l), width, "  ") + "\n";
    }
    out += "\n";
    std::vector<Column> columns = {{say(l, Phrase::fit_col_model), 99, Align::left, Overflow::keep},
                                   {say(l, Phrase::fit_col_params), 1, Align::right, Overflow::drop}};
    for (const auto& task : report.request.tasks) {
      columns.emplace_back(task_column(task.task, l), 50, Align::right, Overflow::stack);
    }
    render::Table table(std::move(columns));
    table.set_label_separator(say(l, Phrase::explain_label_text, "", ""));
    for_each_model(report, fleet, l, false, [&](std::vector<std::string> cells) { table.add_row(std::move(cells)); });
    out += table.to_string("", width);
  }
  out += "\n";
  for (const auto& note : fit_notes(report, l)) {
    out += render::wrap_lines(note, width, "  ") + "\n";
  }
  out += render::wrap_lines(say(l, Phrase::fit_note_formats), width) + "\n";
  out +=
      "\n" + render::wrap_lines(say(l, Phrase::footer, report.catalog.version, report.catalog.updated), width) + "\n";
  return out;
}

namespace {

std::vector<document::Block> fit_document(const FitReport& report, Language l, const ReportHeader& header) {
  std::vector<document::Block> doc;
  doc.push_back(document::Heading{1, say(l, Phrase::fit_title), ""});
  if (auto facts = document::header_block(header, l); !facts.items.empty()) {
    doc.push_back(std::move(facts));
  }
  for (const auto& fleet : report.fleets) {
    doc.push_back(document::Heading{2, fleet_line(fleet, l), ""});
    if (!fleet.largest.empty()) {
      doc.push_back(document::Paragraph{largest_line(fleet, l), true, false});
    }
    document::TableBlock table;
    table.header = task_header(report, l);
    table.numeric.assign(table.header.size(), true);
    table.numeric[0] = false;
    for_each_model(report, fleet, l, true,
                   [&](std::vector<std::string> cells) { table.rows.push_back(std::move(cells)); });
    doc.push_back(std::move(table));
    std::vector<Layout> layouts;
    for (const auto& row : fleet.rows) {
      if (row.plan) {
        layouts.push_back(row.plan->estimate.layout);
      }
    }
    const std::string key = document::layout_key(layouts, Task::lora, l);
    if (!key.empty()) {
      doc.push_back(document::Paragraph{key, false, true});
    }
  }
  document::Bullets notes;
  notes.items = fit_notes(report, l);
  doc.push_back(std::move(notes));
  doc.push_back(document::Paragraph{
      say(l, Phrase::report_generated_by, report.tool_version, report.catalog.version, report.catalog.updated), false,
      true});
  return doc;
}

}  // namespace

std::string render_fit_markdown(const FitReport& report, Language l, const ReportHeader& header) {
  return document::to_markdown(fit_document(report, l, header));
}

std::string render_fit_html(const FitReport& report, Language l, const ReportHeader& header) {
  return document::to_html(fit_document(report, l, header), l);
}

}  // namespace gpu_advise
