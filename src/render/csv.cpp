// CSV (RFC 4180) and TSV: the spreadsheet's view of a result, one row per
// card (per model and task for fit), with the stable columns of docs/csv.md.
// Numbers are plain (no thousands separators, units or currency signs);
// money is in the request's currency, named in its own column; an empty cell
// is a figure that does not apply.
#include <cmath>
#include <string_view>

#include <fmt/format.h>

#include "core/quantity_format.hpp"
#include "gpu_advise/fit_report.hpp"
#include "gpu_advise/render.hpp"
#include "gpu_advise/text.hpp"
#include "gpu_advise/words.hpp"

namespace gpu_advise {

namespace {

class Sheet {
 public:
  explicit Sheet(OutputFormat format) : m_tab(format == OutputFormat::tsv) {}

  void row(const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (i > 0) {
        m_out += m_tab ? '\t' : ',';
      }
      const std::string cell = inert(cells[i]);
      m_out += m_tab ? tsv_cell(cell) : csv_cell(cell);
    }
    m_out += m_tab ? "\n" : "\r\n";  // RFC 4180 ends records with CRLF
  }
  [[nodiscard]] std::string take() { return std::move(m_out); }

 private:
  static std::string csv_cell(const std::string& cell) {
    if (cell.find_first_of(",\"\r\n") == std::string::npos) {
      return cell;
    }
    std::string out = "\"";
    for (const char c : cell) {
      out += c == '"' ? std::string("\"\"") : std::string(1, c);
    }
    return out + "\"";
  }
  // A cell a spreadsheet would take for a formula (=, +, -, @, tab or CR
  // first: a provider, instance or card name from a file) gets a leading
  // apostrophe, which spreadsheets show as text and do not run (OWASP, "CSV
  // Injection"). A number stays a number: -0.5 is not a formula.
  static std::string inert(const std::string& cell) {
    if (cell.empty() || std::string_view("=+-@\t\r").find(cell.front()) == std::string_view::npos || is_number(cell)) {
      return cell;
    }
    return "'" + cell;
  }
  // A plain decimal, as plain() writes them, with an optional sign.
  static bool is_number(std::string_view cell) {
    if (!cell.empty() && (cell.front() == '-' || cell.front() == '+')) {
      cell.remove_prefix(1);
    }
    const std::size_t point = cell.find('.');
    const auto digits = [](std::string_view part) {
      return !part.empty() && part.find_first_not_of("0123456789") == std::string_view::npos;
    };
    return point == std::string_view::npos ? digits(cell)
                                           : digits(cell.substr(0, point)) && digits(cell.substr(point + 1));
  }
  // TSV cannot quote: a tab or line break inside a cell becomes a space.
  static std::string tsv_cell(std::string cell) {
    for (char& c : cell) {
      if (c == '\t' || c == '\n' || c == '\r') {
        c = ' ';
      }
    }
    return cell;
  }

  bool m_tab;
  std::string m_out;
};

// A plain number: at most four decimals, no exponent, no trailing zeros.
std::string plain(double value) {
  if (!std::isfinite(value)) {
    return {};
  }
  std::string s = fmt::format("{:.4f}", value);
  while (s.back() == '0') {
    s.pop_back();
  }
  if (s.back() == '.') {
    s.pop_back();
  }
  return s == "-0" ? "0" : s;
}
std::string plain(const std::optional<double>& value) { return value ? plain(*value) : std::string(); }
std::string plain_int(int value) { return std::to_string(value); }
constexpr double gib = 1024.0 * 1024.0 * 1024.0;

// "tp=2 pp=1 dp=4 zero=1": every degree, for a formula to split.
std::string layout_cell(const Layout& layout, Task task) {
  std::string out = fmt::format("tp={} pp={} dp={}", layout.tensor, layout.pipeline, layout.data);
  if (layout.expert > 1) {
    out += fmt::format(" ep={}", layout.expert);
  }
  if (layout.context > 1) {
    out += fmt::format(" cp={}", layout.context);
  }
  if (is_training(task)) {
    out += fmt::format(" zero={}", layout.zero_stage);
  }
  return out;
}

// The estimate's columns, shared by recommend, compare and fit.
const std::vector<std::string> plan_header = {"count",
                                              "nodes",
                                              "layout",
                                              "memory_gib_per_gpu",
                                              "capacity_gib",
                                              "headroom",
                                              "wall_hours_low",
                                              "wall_hours",
                                              "wall_hours_high",
                                              "tokens_per_s_low",
                                              "tokens_per_s",
                                              "tokens_per_s_high",
                                              "user_tokens_per_s",
                                              "tpot_ms",
                                              "ttft_ms",
                                              "concurrency",
                                              "replicas",
                                              "currency",
                                              "rent_per_gpu_hour",
                                              "run_cost",
                                              "cost_per_million_tokens",
                                              "purchase_cost"};

// Where a plan is rented (a price file's instance), after the reasons: the
// columns before them keep their places.
const std::vector<std::string> offer_header = {"price_basis",        "rent_provider",  "rent_location",
                                               "rent_instance_type", "rent_instances", "rent_per_hour"};

std::vector<std::string> plan_cells(const Estimate& e, const GpuSpec& gpu, const Request& request) {
  const format::MoneyUnit unit = format::money_unit(request);
  const auto money = [&](const std::optional<Range>& r) { return r ? plain(r->typical * unit.per_usd) : ""; };
  const auto& run = request.mode == CostMode::rent ? e.cost.rent_usd : e.cost.buy_usd;
  const TrainingEstimate* t = e.training ? &*e.training : nullptr;
  const InferenceEstimate* i = e.inference ? &*e.inference : nullptr;
  return {plain_int(e.count),
          plain_int(e.nodes),
          layout_cell(e.layout, request.task),
          plain(e.per_gpu.total() / gib),
          plain(gpu.memory.capacity_gib),
          plain(e.headroom()),
          t ? plain(t->wall_hours.low) : "",
          t ? plain(t->wall_hours.typical) : "",
          t ? plain(t->wall_hours.high) : "",
          i ? plain(i->tokens_per_s.low) : "",
          i ? plain(i->tokens_per_s.typical) : "",
          i ? plain(i->tokens_per_s.high) : "",
          i ? plain(i->user_tokens_per_s.typical) : "",
          i ? plain(i->tpot_ms.typical) : "",
          i ? plain(i->ttft_ms.typical) : "",
          i ? plain_int(i->concurrency) : "",
          i ? plain_int(i->replicas) : "",
          std::string(to_string(unit.currency)),
          money(e.cost.rent_usd_per_gpu_hour),
          t ? money(run) : "",
          money(e.cost.usd_per_million_tokens),
          money(e.cost.purchase_usd)};
}

std::vector<std::string> offer_cells(const Estimate& e, const Request& request) {
  const auto& offer = e.cost.offer;
  if (!offer) {
    return {std::string(to_string(e.cost.price_basis)), "", "", "", "", ""};
  }
  return {std::string(to_string(e.cost.price_basis)),
          offer->provider,
          offer->location,
          offer->instance_type,
          plain_int(offer->instances),
          plain(offer->usd_per_hour * format::money_unit(request).per_usd)};
}

std::vector<std::string> blank_plan() { return std::vector<std::string>(plan_header.size()); }

template <typename... Lists>
std::vector<std::string> joined(Lists&&... lists) {
  std::vector<std::string> out;
  (out.insert(out.end(), lists.begin(), lists.end()), ...);
  return out;
}

}  // namespace

std::string render_table(const Report& report, OutputFormat format, Language language) {
  Sheet sheet(format);
  sheet.row(joined(std::vector<std::string>{"status", "rank", "gpu_id", "gpu_name", "task", "mode", "region"},
                   plan_header, std::vector<std::string>{"vs_best", "reasons"}, offer_header));
  const Request& r = report.request;
  const std::vector<std::string> request_cells = {std::string(to_string(r.task)), std::string(to_string(r.mode)),
                                                  std::string(to_string(r.region))};
  for (const auto& pick : report.recommendations) {
    sheet.row(joined(std::vector<std::string>{"recommended", plain_int(pick.rank), pick.gpu.id, pick.gpu.name},
                     request_cells, plan_cells(pick.estimate, pick.gpu, r),
                     std::vector<std::string>{pick.objective.vs_best ? plain(*pick.objective.vs_best) : "", ""},
                     offer_cells(pick.estimate, r)));
  }
  for (const auto& rejection : report.rejected) {
    if (rejection.reasons.size() == 1 && std::holds_alternative<NotSelected>(rejection.reasons.front())) {
      continue;  // --gpu left it out: not an answer about it
    }
    sheet.row(joined(std::vector<std::string>{"rejected", "", rejection.gpu.id, rejection.gpu.name}, request_cells,
                     blank_plan(), std::vector<std::string>{"", text::join(reasons(rejection, r, language), "; ")},
                     std::vector<std::string>(offer_header.size())));
  }
  return sheet.take();
}

std::string render_catalog_list_table(const Catalog& catalog, OutputFormat format) {
  Sheet sheet(format);
  sheet.row({"id", "name", "vendor", "architecture", "memory_gb", "memory_gib", "memory_type", "bandwidth_gb_per_s",
             "bf16_tflops", "fp8_tflops", "scale_up_gb_per_s", "scale_up_domain", "tdp_w", "china", "rent_usd_low",
             "rent_usd_typical", "rent_usd_high", "confidence"});
  const std::string since = months_before(catalog.info().updated, 12);
  for (const auto& g : catalog.gpus()) {
    const auto* cn = g.availability_in(Region::cn);
    const auto price = rent_price(g.rent_usd_per_gpu_hour, Region::global, std::nullopt, since);
    const auto rent = price ? std::optional<Range>(price->range) : std::nullopt;
    sheet.row({g.id, g.name, std::string(to_string(g.vendor)), std::string(to_string(g.architecture)),
               plain(g.memory.size_gb), plain(g.memory.capacity_gib), g.memory.type, plain(g.memory.bandwidth_gb_per_s),
               g.compute.has_bf16 ? plain(g.compute.bf16_tflops) : "", plain(g.compute.fp8_tflops),
               plain(g.interconnect.bandwidth_gb_per_s), plain_int(g.interconnect.domain_size), plain(g.tdp_w),
               cn ? std::string(to_string(cn->status)) : "", rent ? plain(rent->low) : "",
               rent ? plain(rent->typical) : "", rent ? plain(rent->high) : "", std::string(to_string(g.confidence))});
  }
  return sheet.take();
}

std::string render_fit_table(const FitReport& report, OutputFormat format, Language language) {
  Sheet sheet(format);
  sheet.row(joined(std::vector<std::string>{"gpu_id", "gpu_name", "gpus", "model_id", "model_name", "params",
                                            "active_params", "task", "fits", "copies", "fleet_tokens_per_s"},
                   plan_header, std::vector<std::string>{"reasons"}));
  for (const auto& fleet : report.fleets) {
    for (const auto& row : fleet.rows) {
      const Request* request = nullptr;
      for (const auto& t : report.request.tasks) {
        if (t.task == row.task) {
          request = &t;
        }
      }
      const std::vector<std::string> head = {
          fleet.gpu.id,
          fleet.gpu.name,
          plain_int(fleet.fleet.count),
          row.model.id,
          row.model.name,
          plain(row.model.params),
          plain(row.model.active_params),
          std::string(to_string(row.task)),
          row.plan ? "yes" : "no",
          row.plan && row.plan->estimate.inference ? plain_int(row.copies) : "",
          row.plan && row.plan->estimate.inference ? plain(row.fleet_tokens_per_s) : ""};
      if (row.plan && request != nullptr) {
        sheet.row(joined(head, plan_cells(row.plan->estimate, fleet.gpu, *request), std::vector<std::string>{""}));
      } else {
        const std::string why = row.rejection && request != nullptr
                                    ? text::join(reasons(*row.rejection, *request, language), "; ")
                                    : std::string();
        sheet.row(joined(head, blank_plan(), std::vector<std::string>{why}));
      }
    }
  }
  return sheet.take();
}

}  // namespace gpu_advise
