#include "output.hpp"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "gpu_advise/error.hpp"
#include "gpu_advise/text.hpp"
#include "gpu_advise/units.hpp"
#include "load/files.hpp"

namespace gpu_advise::cli {

namespace {

// Colour: --color wins, then NO_COLOR, then CLICOLOR_FORCE, then a terminal
// that is not "dumb" (no-color.org; bixense.com/clicolors). Never in files.
bool use_color(const std::string& flag, bool to_file) {
  const std::string choice = text::to_lower(flag);
  if (choice != "auto" && choice != "always" && choice != "never") {
    throw UsageError(fmt::format("--color: '{}' is not valid; expected auto, always or never", flag));
  }
  if (choice == "always") {
    return true;
  }
  if (choice == "never" || to_file) {
    return false;
  }
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && no_color[0] != '\0') {
    return false;
  }
  const char* force = std::getenv("CLICOLOR_FORCE");
  if (force != nullptr && force[0] != '\0' && std::string(force) != "0") {
    return true;
  }
  const char* term = std::getenv("TERM");
  return ::isatty(STDOUT_FILENO) == 1 && !(term != nullptr && std::string(term) == "dumb");
}

// The terminal's width for wrapping prose: COLUMNS, else the terminal, else 100.
int text_width(bool to_file) {
  if (const char* columns = std::getenv("COLUMNS"); columns != nullptr) {
    try {
      return std::clamp(static_cast<int>(parse_positive_integer(columns, 1000)), 40, 1000);
    } catch (const QuantityError&) {
      // ignore a malformed COLUMNS
    }
  }
  if (!to_file && ::isatty(STDOUT_FILENO) == 1) {
    winsize size{};
    if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col >= 40) {
      return size.ws_col;
    }
  }
  return 100;
}

// The format a file's extension names: plan.json, plan.md, plan.html, plans.csv.
std::optional<OutputFormat> format_of(const std::string& name) {
  const std::string extension = text::to_lower(std::filesystem::path(name).extension().string());
  if (extension == ".txt") {
    return OutputFormat::text;
  }
  if (extension == ".json") {
    return OutputFormat::json;
  }
  if (extension == ".md" || extension == ".markdown") {
    return OutputFormat::markdown;
  }
  if (extension == ".html" || extension == ".htm") {
    return OutputFormat::html;
  }
  if (extension == ".csv") {
    return OutputFormat::csv;
  }
  if (extension == ".tsv" || extension == ".tab") {
    return OutputFormat::tsv;
  }
  if (extension == ".yaml" || extension == ".yml") {
    return OutputFormat::yaml;  // calibrate's calibration file
  }
  return std::nullopt;
}

}  // namespace

bool Closed::has(int fd) const { return std::find(descriptors.begin(), descriptors.end(), fd) != descriptors.end(); }

// A closed standard descriptor is taken by /dev/null, so no file the run opens
// lands on it (and is written to as if it were standard output). Returns
// whether it was closed.
bool reserve_if_closed(int fd) {
  if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) {
    return false;
  }
  const int opened = ::open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY);
  if (opened >= 0 && opened != fd) {
    ::dup2(opened, fd);
    ::close(opened);
  }
  return true;
}

std::vector<Destination> destinations(const Flags& flags, OutputFormat otherwise) {
  const std::optional<OutputFormat> stated =
      flags.format.empty() ? std::nullopt : std::optional<OutputFormat>(parse_format(flags.format));
  if (flags.outputs.empty()) {
    return {Destination{"-", stated.value_or(otherwise)}};
  }
  std::vector<Destination> result;
  for (const auto& name : flags.outputs) {
    if (std::any_of(result.begin(), result.end(), [&](const Destination& d) { return d.name == name; })) {
      throw UsageError(fmt::format("--output: '{}' is named twice", text::printable(name)));
    }
    result.push_back({name, stated ? *stated : format_of(name).value_or(otherwise)});
  }
  if (result.size() > max_outputs) {
    throw UsageError(
        fmt::format("--output is given {} times; one run writes at most {} outputs", result.size(), max_outputs));
  }
  return result;
}

void check_formats(Command command, const Flags& flags, const std::vector<Destination>& destinations) {
  const bool advice = command == Command::recommend || command == Command::compare || command == Command::fit;
  for (const auto& d : destinations) {
    const OutputFormat f = d.format;
    const bool table = f == OutputFormat::csv || f == OutputFormat::tsv;
    const bool plain = f == OutputFormat::text || f == OutputFormat::json;
    if (f == OutputFormat::yaml && command != Command::calibrate) {
      throw UsageError(fmt::format(
          "--format yaml{} is the calibration file that 'gpu-advise calibrate' writes, not "
          "an output of '{}'",
          d.to_file() ? fmt::format(" (for {})", text::printable(d.name)) : std::string(), command_name(command)));
    }
    if (advice || (command == Command::batch && f == OutputFormat::json) ||
        (command == Command::rules_list && f == OutputFormat::text) ||
        (command == Command::catalog_list && (plain || table)) ||
        ((command == Command::models || command == Command::catalog_show || command == Command::prices) && plain) ||
        (command == Command::calibrate && (plain || f == OutputFormat::yaml))) {
      continue;
    }
    const std::string where = d.to_file() ? fmt::format(" (for {})", text::printable(d.name)) : std::string();
    if (command == Command::batch) {
      throw UsageError(fmt::format("batch writes JSON Lines; --format {}{} does not apply", to_string(f), where));
    }
    const std::string_view takes = command == Command::rules_list     ? "text"
                                   : command == Command::catalog_list ? "text, json, csv or tsv"
                                   : command == Command::calibrate    ? "text, json or yaml"
                                                                      : "text or json";
    throw UsageError(
        fmt::format("'{}' writes {}, not {}{}: markdown and html are reports of advice, csv and tsv "
                    "tables of it (recommend, compare, fit; csv also catalog list)",
                    command_name(command), takes, to_string(f), where));
  }
  const bool all_json = std::all_of(destinations.begin(), destinations.end(),
                                    [](const Destination& d) { return d.format == OutputFormat::json; });
  if (flags.compact && command != Command::batch && !all_json) {
    throw UsageError("--compact is a form of the JSON output: add --format json (batch always writes JSON)");
  }
  const bool any_report = std::any_of(destinations.begin(), destinations.end(), [](const Destination& d) {
    return d.format == OutputFormat::markdown || d.format == OutputFormat::html;
  });
  if ((!flags.prepared_for.empty() || !flags.prepared_by.empty()) && !any_report) {
    throw UsageError(
        "--prepared-for and --prepared-by head a Markdown or HTML report: add --format markdown or html, or an "
        "--output FILE.md or FILE.html");
  }
}

TextStyle Output::style_for(const Destination& destination) const {
  return TextStyle{use_color(m_color, destination.to_file()), text_width(destination.to_file())};
}

// Every target made ready (files written to their temporaries), then the
// devices, descriptors and sockets written, then standard output, and last
// the files renamed into place: a failure before the renames replaces no file.
void Output::emit(const std::vector<std::string>& contents) const {
  std::vector<PendingOutput> pending;
  pending.reserve(m_places.size());
  for (std::size_t i = 0; i < m_places.size(); ++i) {
    pending.push_back(prepare_output(m_places[i].name, contents[i], m_closed.descriptors));
  }
  for (auto& output : pending) {
    if (output.kind() != OutputKind::replace && output.kind() != OutputKind::standard_output) {
      output.commit();
    }
  }
  for (std::size_t i = 0; i < pending.size(); ++i) {
    if (pending[i].kind() == OutputKind::standard_output) {
      m_out << contents[i];
    }
  }
  for (auto& output : pending) {
    if (output.kind() == OutputKind::replace) {
      output.commit();
    }
  }
}

// The day the report is dated: SOURCE_DATE_EPOCH (reproducible builds) or today, UTC.
std::string report_date() {
  std::time_t now = std::time(nullptr);
  if (const char* epoch = std::getenv("SOURCE_DATE_EPOCH"); epoch != nullptr && epoch[0] != '\0') {
    try {
      now = static_cast<std::time_t>(parse_positive_integer(epoch, 253402300799));  // up to 9999-12-31
    } catch (const QuantityError& e) {
      throw UsageError(fmt::format("SOURCE_DATE_EPOCH: {}", e.what()));
    }
  }
  std::tm day{};
  ::gmtime_r(&now, &day);
  return fmt::format("{:04}-{:02}-{:02}", day.tm_year + 1900, day.tm_mon + 1, day.tm_mday);
}

// Every message is printable UTF-8, whatever the input held.
void print_error(std::ostream& err, std::string_view message) {
  err << "gpu-advise: error: " << text::printable(message) << "\n";
}

StdoutBuffer::int_type StdoutBuffer::overflow(int_type c) {
  if (!drain()) {
    return traits_type::eof();
  }
  if (!traits_type::eq_int_type(c, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
  }
  return traits_type::not_eof(c);
}

bool StdoutBuffer::drain() noexcept {
  const char* data = pbase();
  std::size_t left = static_cast<std::size_t>(pptr() - pbase());
  setp(m_buffer, m_buffer + sizeof m_buffer);
  if (left == 0 || m_error != 0) {
    return m_error == 0;
  }
  if (m_closed) {
    m_error = EBADF;  // standard output was closed when the process started
    return false;
  }
  if (!write_all(STDOUT_FILENO, std::string_view(data, left))) {
    m_error = errno;
    return false;
  }
  return true;
}

}  // namespace gpu_advise::cli
