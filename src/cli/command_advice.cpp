// recommend (the default command), compare and fit: the advice, in every format.
#include <string>

#include "commands.hpp"
#include "fit_request.hpp"
#include "gpu_advise/advisor.hpp"
#include "gpu_advise/error.hpp"
#include "gpu_advise/fit.hpp"
#include "gpu_advise/render.hpp"

namespace gpu_advise::cli {

namespace {

// compare's cards are its arguments, in the place of --gpu.
Flags with_compared_cards(const Flags& flags) {
  if (flags.compare_ids.size() < 2) {
    throw UsageError(
        "compare needs two or more cards: gpu-advise compare a100-80gb-sxm4 h100-sxm5 --params 70B "
        "--task lora");
  }
  Flags chosen = flags;
  chosen.gpus = flags.compare_ids;
  return chosen;
}

ExitCode exit_code(bool anything_fits) { return anything_fits ? ExitCode::ok : ExitCode::nothing_fits; }

}  // namespace

int run_recommend(const Session& session) {
  const ReportHeader header{report_date(), session.flags.prepared_for, session.flags.prepared_by};
  const bool compare = session.command == Command::compare;
  const Flags chosen = compare ? with_compared_cards(session.flags) : session.flags;
  Presets presets;
  const ModelShape model = resolve_model(chosen, presets);
  Request request = to_request(chosen, session.catalog, model);
  if (compare) {
    request.compare = request.gpu_ids;
    if (request.compare.size() < 2) {
      throw UsageError("compare needs two or more different cards");
    }
  }
  const Report report = advise(request, model, session.catalog, session.rules);
  const Language language = session.language;
  session.output.write([&](OutputFormat f, const TextStyle& style) {
    switch (f) {
      case OutputFormat::text: return render_text(report, language, style);
      case OutputFormat::json:
        return session.flags.compact ? render_json_compact(report, language, JsonStyle::pretty)
                                     : render_json(report, language);
      case OutputFormat::markdown: return render_markdown(report, language, header);
      case OutputFormat::html: return render_html(report, language, header);
      case OutputFormat::csv:
      case OutputFormat::tsv: return render_table(report, f, language);
      case OutputFormat::yaml: break;  // refused by check_formats
    }
    return std::string();
  });
  return static_cast<int>(exit_code(report.anything_fits()));
}

int run_fit(const Session& session) {
  Presets presets;
  const ReportHeader header{report_date(), session.flags.prepared_for, session.flags.prepared_by};
  const FitReport report = fit(to_fit_request(session.flags, session.catalog, presets), session.catalog, session.rules);
  const Language language = session.language;
  session.output.write([&](OutputFormat f, const TextStyle& style) {
    switch (f) {
      case OutputFormat::text: return render_fit_text(report, language, style);
      case OutputFormat::json: return render_fit_json(report, language);
      case OutputFormat::markdown: return render_fit_markdown(report, language, header);
      case OutputFormat::html: return render_fit_html(report, language, header);
      case OutputFormat::csv:
      case OutputFormat::tsv: return render_fit_table(report, f, language);
      case OutputFormat::yaml: break;  // refused by check_formats
    }
    return std::string();
  });
  return static_cast<int>(exit_code(report.anything_fits()));
}

}  // namespace gpu_advise::cli
