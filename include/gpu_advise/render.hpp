// Renderers: one per format, each a pure function of its input. They format;
// they never compute estimates or make decisions.
#pragma once

#include <filesystem>
#include <string>

#include "gpu_advise/catalog.hpp"
#include "gpu_advise/model.hpp"
#include "gpu_advise/prices.hpp"
#include "gpu_advise/report.hpp"
#include "gpu_advise/rules.hpp"

namespace gpu_advise {

struct FitReport;  // fit_report.hpp

// yaml: calibrate's calibration file, and nothing else.
enum class OutputFormat { text, json, markdown, html, csv, tsv, yaml };
[[nodiscard]] std::span<const EnumName<OutputFormat>> names(OutputFormat);

// The version of the JSON documents below; bumped on any incompatible change.
inline constexpr int json_schema_version = 5;

// Terminal output: colour (ANSI) only when asked; prose wrapped to `width`
// columns (0: no wrapping).
struct TextStyle {
  bool color = false;
  int width = 0;
};
[[nodiscard]] std::string render_text(const Report& report, Language language = Language::en,
                                      const TextStyle& style = {});
// The block a client's report opens with: when it was prepared (YYYY-MM-DD;
// the CLI takes today, or SOURCE_DATE_EPOCH for reproducible output), for
// whom and by whom (--prepared-for, --prepared-by; empty: not shown).
struct ReportHeader {
  std::string date;
  std::string prepared_for;
  std::string prepared_by;
};
// A consultant's report: Markdown, and one self-contained HTML file (inline
// CSS and SVG charts, no scripts, A4 print).
[[nodiscard]] std::string render_markdown(const Report& report, Language language = Language::en,
                                          const ReportHeader& header = {});
[[nodiscard]] std::string render_html(const Report& report, Language language = Language::en,
                                      const ReportHeader& header = {});
enum class JsonStyle { pretty, line };
[[nodiscard]] std::string render_json(const Report& report, Language language = Language::en,
                                      JsonStyle style = JsonStyle::pretty);
// --compact: the top plan's key figures and no sentences, for sweeps
// (docs/json.md); the language only names itself.
[[nodiscard]] std::string render_json_compact(const Report& report, Language language = Language::en,
                                              JsonStyle style = JsonStyle::line);
// A batch line that could not be evaluated: {"schema_version", "line", "status": 2, "error"}.
[[nodiscard]] std::string render_batch_error(std::size_t line, const std::string& message);

// The listings' tables fit style.width columns (0: as wide as they need).
[[nodiscard]] std::string render_catalog_list_text(const Catalog& catalog, Language language = Language::en,
                                                   const TextStyle& style = {});
[[nodiscard]] std::string render_catalog_list_json(const Catalog& catalog);

// CSV (RFC 4180, CRLF) or TSV for `format`: one row per card (per model and
// task for fit) with the stable columns of docs/csv.md, numbers plain, money
// in the request's currency; reasons in `language`.
[[nodiscard]] std::string render_table(const Report& report, OutputFormat format, Language language = Language::en);
[[nodiscard]] std::string render_catalog_list_table(const Catalog& catalog, OutputFormat format);
[[nodiscard]] std::string render_fit_table(const FitReport& report, OutputFormat format,
                                           Language language = Language::en);

// fit: what the user's cards can train or serve.
[[nodiscard]] std::string render_fit_text(const FitReport& report, Language language = Language::en,
                                          const TextStyle& style = {});
[[nodiscard]] std::string render_fit_json(const FitReport& report, Language language = Language::en);
[[nodiscard]] std::string render_fit_markdown(const FitReport& report, Language language = Language::en,
                                              const ReportHeader& header = {});
[[nodiscard]] std::string render_fit_html(const FitReport& report, Language language = Language::en,
                                          const ReportHeader& header = {});
// Chinese price ranges are shown in CNY at the catalog's rate when it has one;
// rent is shown by market tier, of the quotes of the twelve months before the
// catalog's date. `imported`: the card's quotes from --price-file files,
// listed beside its own.
[[nodiscard]] std::string render_gpu_text(const GpuSpec& gpu, const CatalogInfo& info = {},
                                          Language language = Language::en, const TextStyle& style = {},
                                          const std::vector<PriceQuote>& imported = {});
[[nodiscard]] std::string render_gpu_json(const GpuSpec& gpu, const CatalogInfo& info = {},
                                          const std::vector<PriceQuote>& imported = {});
// `prices FILE...`: what each price file priced, and what it skipped.
[[nodiscard]] std::string render_prices_text(const PriceBook& book, const Catalog& catalog,
                                             Language language = Language::en, const TextStyle& style = {});
[[nodiscard]] std::string render_prices_json(const PriceBook& book);
// calibrate: each card and stack's fit, and every measurement before, after
// and left out (docs/calibration.md).
[[nodiscard]] std::string render_calibration_text(std::span<const Calibration> calibrations,
                                                  Language language = Language::en, const TextStyle& style = {});
[[nodiscard]] std::string render_calibration_json(std::span<const Calibration> calibrations);
[[nodiscard]] std::string render_models_text(const ModelCatalog& models, Language language = Language::en,
                                             const TextStyle& style = {});
[[nodiscard]] std::string render_rules_text(const RuleSet& rules, Language language = Language::en,
                                            const TextStyle& style = {});
[[nodiscard]] std::string render_models_json(const ModelCatalog& models);

}  // namespace gpu_advise
