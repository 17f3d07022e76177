// gpu-advise's command line, as a table of contents: read the command line
// (app.cpp), take the defaults (defaults.cpp), say where the result goes
// (output.cpp), load the data every command checks, and run the command
// (command_*.cpp, batch.cpp), inside the one `try` that turns every error into
// a message and exit status 2.
#include "gpu_advise/cli.hpp"

#include <unistd.h>

#include <cstring>
#include <exception>
#include <future>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "app.hpp"
#include "commands.hpp"
#include "defaults.hpp"
#include "examples.hpp"
#include "gpu_advise/error.hpp"
#include "load/files.hpp"

namespace gpu_advise::cli {

namespace {

using Entry = int (*)(const Session&);

Entry entry_of(Command command) {
  switch (command) {
    case Command::recommend:
    case Command::compare: return run_recommend;
    case Command::fit: return run_fit;
    case Command::batch: return run_batch_command;
    case Command::models: return run_models;
    case Command::catalog_list: return run_catalog_list;
    case Command::catalog_show: return run_catalog_show;
    case Command::rules_list: return run_rules_list;
    case Command::prices: return run_prices;
    case Command::calibrate: return run_calibrate;
    case Command::catalog_validate:  // run before the data is loaded
    case Command::rules_validate:
    case Command::help: break;  // answered by read_command_line
  }
  throw std::logic_error("no entry for this command");
}

int run_checked(int argc, const char* const* argv, std::ostream& out, std::ostream& err, const Closed& closed) {
  if (argc <= 1) {
    err << short_usage;
    return static_cast<int>(ExitCode::bad_input);
  }
  CommandLine line = read_command_line(argc, argv, out, err);
  if (line.answered) {
    return *line.answered;
  }
  const Command command = line.command;
  Flags& flags = line.flags;
  if (command == Command::catalog_validate || command == Command::rules_validate) {
    const Output output(destinations(flags, OutputFormat::text), flags.color, out, closed);
    return command == Command::catalog_validate ? run_catalog_validate(flags, output)
                                                : run_rules_validate(flags, output);
  }
  apply_configured_defaults(flags);
  const Language language =
      flags.lang.empty() ? language_from_environment() : parse_choice<Language>(flags.lang, "--lang");
  const Output output(destinations(flags, command == Command::batch ? OutputFormat::json : OutputFormat::text),
                      flags.color, out, closed);
  check_formats(command, flags, output.places());

  // Every command loads the catalog and the rules, so a --catalog or --rules
  // file given is always checked. The shipped data is compiled in; only files
  // are parsed, side by side when both kinds are given (a thread costs more
  // than building the compiled rules).
  const bool parse_both = !flags.rules.empty() && !flags.catalogs.empty();
  auto rules_loading =
      std::async(parse_both ? std::launch::async : std::launch::deferred, [&] { return load_rules(flags.rules); });
  const Catalog base = load_catalog(flags.catalogs);
  const RuleSet rules = rules_loading.get();
  // --price-file: the files' quotes in place of the catalog's for the cards they cover.
  PriceBook book;
  std::optional<Catalog> priced;
  if (!flags.price_files.empty()) {
    book = read_price_files(flags, base, err);
    priced = with_prices(base, book);
    flags.priced_by = book.files;
  }
  // --calibration: the fitted factors of the cards and stacks measured.
  if (!flags.calibration_files.empty() && accepts_calibration(command)) {
    flags.calibrated = read_calibrations(flags.calibration_files, base);
  }
  const Session session{command, flags, language, output, base, priced ? *priced : base, book, rules};
  return entry_of(command)(session);
}

int run_guarded(int argc, const char* const* argv, std::ostream& out, std::ostream& err, const Closed& closed) {
  try {
    return run_checked(argc, argv, out, err, closed);
  } catch (const DataError& e) {
    for (const auto& diagnostic : e.diagnostics()) {
      print_error(err, diagnostic.to_string());
    }
    if (e.diagnostics().size() > 1) {
      err << fmt::format("gpu-advise: {} problems found\n", e.diagnostics().size());
    }
  } catch (const UsageError& e) {
    print_error(err, e.what());
  } catch (const Error& e) {
    print_error(err, e.what());
  } catch (const std::bad_alloc&) {
    print_error(err, "out of memory");
  } catch (const std::exception& e) {
    print_error(err, fmt::format("internal error: {}", e.what()));
  }
  return static_cast<int>(ExitCode::bad_input);
}

}  // namespace

int run(int argc, const char* const* argv) {
  install_signal_cleanup();
  Closed closed;
  for (const int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) {
    if (reserve_if_closed(fd)) {
      closed.descriptors.push_back(fd);
    }
  }
  const bool stdout_closed = closed.has(STDOUT_FILENO);
  StdoutBuffer buffer(stdout_closed);
  std::ostream out(&buffer);
  const int status = run_guarded(argc, argv, out, std::cerr, closed);
  out.flush();
  if (buffer.error() == 0 || buffer.error() == EPIPE) {
    return status;  // a reader that stopped reading (`| head`) is not an error
  }
  print_error(std::cerr, fmt::format("cannot write standard output: {}", std::strerror(buffer.error())));
  return static_cast<int>(ExitCode::bad_input);
}

}  // namespace gpu_advise::cli
