// calibrate: fit each measured card and stack to the user's records, or check
// a calibration file; and the --calibration files of the other commands
// (docs/calibration.md).
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"
#include "gpu_advise/calibrate.hpp"
#include "gpu_advise/render.hpp"
#include "gpu_advise/text.hpp"
#include "gpu_advise_version.hpp"
#include "load/calibration_file.hpp"
#include "load/measurements.hpp"

namespace gpu_advise::cli {

namespace {

// Every file's records, the problems of all of them reported together.
std::vector<MeasuredRun> read_all(const std::vector<std::string>& files, const Catalog& catalog,
                                  const ModelCatalog& models) {
  std::vector<MeasuredRun> runs;
  std::vector<Diagnostic> problems;
  for (const auto& file : files) {
    try {
      std::vector<MeasuredRun> read = load_measurements(file, catalog, models);
      runs.insert(runs.end(), std::make_move_iterator(read.begin()), std::make_move_iterator(read.end()));
    } catch (const DataError& e) {
      problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }
  if (!problems.empty()) {
    throw DataError(std::move(problems));
  }
  if (runs.size() > max_measurements) {  // each is sized some 240 times: a bound on the time, too
    throw UsageError(
        fmt::format("calibrate: {} records in all; one run takes at most {}", runs.size(), max_measurements));
  }
  return runs;
}

std::string rendered(OutputFormat f, const TextStyle& style, const std::vector<Calibration>& calibrations,
                     Language language) {
  switch (f) {
    case OutputFormat::json: return render_calibration_json(calibrations);
    case OutputFormat::yaml: return write_calibration_file(calibrations, std::string("gpu-advise ") + version::string);
    default: return render_calibration_text(calibrations, language, style);
  }
}

// An --output that is one of the files read would replace the measurements
// with their own calibration.
void check_outputs_apart(const Session& session) {
  std::vector<std::string> inputs = session.flags.measurement_files;
  if (!session.flags.calibrate_check.empty()) {
    inputs.push_back(session.flags.calibrate_check);
  }
  for (const auto& place : session.output.places()) {
    for (const auto& input : inputs) {
      std::error_code ec;
      if (place.to_file() && std::filesystem::equivalent(place.name, input, ec)) {
        throw UsageError(
            fmt::format("calibrate: --output {} is the file it reads; write the calibration to another "
                        "file (FILE.yaml)",
                        text::printable(place.name)));
      }
    }
  }
}

}  // namespace

int run_calibrate(const Session& session) {
  check_outputs_apart(session);
  const Flags& flags = session.flags;
  std::vector<Calibration> calibrations;
  if (!flags.calibrate_check.empty()) {
    if (!flags.measurement_files.empty()) {
      throw UsageError("calibrate: --check FILE checks a calibration file; give it alone, without measurement files");
    }
    calibrations = load_calibration_file(flags.calibrate_check, session.base);
  } else {
    if (flags.measurement_files.empty()) {
      throw UsageError(
          "calibrate: name one or more measurement files (JSON Lines or CSV; docs/calibration.md), or --check FILE");
    }
    const ModelCatalog models = load_embedded_models();
    const std::vector<MeasuredRun> runs = read_all(flags.measurement_files, session.base, models);
    calibrations = calibrate(runs, report_date());
  }
  session.output.write(
      [&](OutputFormat f, const TextStyle& style) { return rendered(f, style, calibrations, session.language); });
  // With every result in files, the table still comes to the terminal.
  const auto& places = session.output.places();
  if (std::none_of(places.begin(), places.end(), [](const Destination& d) { return !d.to_file(); })) {
    session.output.stream() << render_calibration_text(calibrations, session.language, TextStyle{});
  }
  return static_cast<int>(ExitCode::ok);
}

std::vector<Calibration> read_calibrations(const std::vector<std::string>& files, const Catalog& base) {
  std::vector<Calibration> out;
  std::vector<Diagnostic> problems;
  for (const auto& file : files) {
    try {
      for (Calibration& c : load_calibration_file(file, base)) {
        const Calibration* earlier = find_calibration(out, c.kind, c.gpu, c.key);
        if (earlier != nullptr) {
          problems.push_back(Diagnostic{file, 0, 0, "",
                                        fmt::format("a second {} calibration of {} and {} (the first is in {})",
                                                    to_string(c.kind), c.gpu, c.key, earlier->file)});
          continue;
        }
        out.push_back(std::move(c));
      }
    } catch (const DataError& e) {
      problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }
  if (!problems.empty()) {
    throw DataError(std::move(problems));
  }
  return out;
}

}  // namespace gpu_advise::cli
