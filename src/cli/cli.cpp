#include "gpu_advise/cli.hpp"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <streambuf>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <filesystem>
#include <future>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "batch.hpp"
#include "defaults.hpp"
#include "fit_request.hpp"
#include "flags.hpp"
#include "gpu_advise/advisor.hpp"
#include "gpu_advise/catalog.hpp"
#include "gpu_advise/error.hpp"
#include "gpu_advise/fit.hpp"
#include "gpu_advise/model.hpp"
#include "gpu_advise/prices.hpp"
#include "gpu_advise/render.hpp"
#include "gpu_advise/request.hpp"
#include "gpu_advise/rules.hpp"
#include "gpu_advise/text.hpp"
#include "gpu_advise/units.hpp"
#include "gpu_advise/wording.hpp"
#include "gpu_advise_version.hpp"
#include "load/files.hpp"

namespace gpu_advise::cli {

namespace {

// Each command's examples: the first lines of its --help and of `gpu-advise help COMMAND`.
constexpr const char* recommend_examples = R"(Examples:
  gpu-advise --params 70B --task lora --budget low
  gpu-advise -p 8B -t inference -b medium --top 5
  gpu-advise --params 405B --task pretrain --budget high -o plan.json -o plan.md
  gpu-advise --params 70B --task qlora --gpu a100-80gb-sxm4 --gpu l40s
  gpu-advise --model llama-3.1-70b --task inference --precision fp8 --context 32768 --concurrency 32
  gpu-advise --model-config ./config.json --task full --seq-len 8192 --zero 3
  gpu-advise --model qwen2.5-72b --task pretrain --tokens 2T --deadline 30d --mode buy
  gpu-advise --params 70B --task inference --region cn --mode buy
  gpu-advise --params 8B --task inference --budget 5k --explain
  gpu-advise --params 70B --task lora --format csv > plans.csv

Tasks: pretrain, full (aliases: sft, finetune, fine-tune, full-ft), lora, qlora,
       inference (aliases: infer, serve, serving).
Parameter counts: 70B, 7b, 1.5T, 500M, 405e9 (K, M, B, T suffixes; 1M to 100T).
Defaults: GPU_ADVISE_REGION, GPU_ADVISE_LANG, GPU_ADVISE_CURRENCY, GPU_ADVISE_BUDGET,
  or the same keys in ~/.config/gpu-advise/config.yaml; flags win (docs/configuration.md).

Exit status:
  0  at least one card is recommended
  1  the request is valid but no card fits (the report, with ways out, is still printed)
  2  usage error or invalid data (message on stderr)

Commands: recommend (the default), compare, fit, batch, models, catalog, rules, help.
Documentation: README.md, docs/methodology.md (formulas), docs/catalog.md (data),
docs/json.md (the JSON contract), docs/csv.md (the CSV columns).)";

constexpr const char* compare_examples = R"(Examples:
  gpu-advise compare a100-80gb-sxm4 h100-sxm5 --params 70B --task lora
  gpu-advise compare h20 ascend-910b2 a800-80gb-sxm4 --model qwen2.5-72b --task inference --region cn
  gpu-advise compare l40s rtx-4090 --params 8B --task qlora --format csv

Exit status: 0 when at least one of the cards fits, 1 when none does, 2 for bad input.)";

constexpr const char* fit_examples = R"(Examples:
  gpu-advise fit --gpu ascend-910b2 --count 8 --region cn
  gpu-advise fit --gpu rtx-4090 --count 2 --task qlora
  gpu-advise fit --gpu h100-sxm5 --count 8 --model llama-3.1-70b
  gpu-advise fit --gpu a100-80gb-sxm4 --count 8 --gpu l40s --count 4 --format csv
  gpu-advise fit --gpu h20          (one card)

For each model preset (or the --params / --model given) and each task (or the
--task given): whether it fits on the cards, the layout, the time for the
default or given --tokens, the serving throughput at the latency targets, and
the largest model of each task that fits.

Exit status: 0 when something fits, 1 when nothing does, 2 for bad input.)";

constexpr const char* batch_examples = R"(Examples:
  gpu-advise batch requests.jsonl > results.jsonl
  printf '{"params":"70B","task":"lora"}\n{"model":"qwen2.5-72b","task":"inference"}\n' | gpu-advise batch --compact

Each line is a JSON object whose keys are the flags' names with '_' for '-'
("params", "task", "seq_len", "gpu": [...]); each result line is a JSON
document as `--format json` writes it, with "line" and "status" (docs/json.md).
Exit status: 0 when every line was answered, 2 when a line was bad (its error is its result line).)";

constexpr const char* models_examples = R"(Examples:
  gpu-advise models
  gpu-advise models --format json)";

constexpr const char* catalog_examples = R"(Examples:
  gpu-advise catalog list
  gpu-advise catalog list --format csv > cards.csv
  gpu-advise catalog show h100-sxm5
  gpu-advise catalog validate my-cards.yaml
  gpu-advise --params 70B --task full --catalog my-cards.yaml)";

constexpr const char* prices_examples = R"(Examples:
  mkdir -p lambda && curl -fsSLo lambda/vms.csv \
    https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v7/lambda/vms.csv
  gpu-advise prices lambda/vms.csv our-quotes.csv
  gpu-advise --params 70B --task lora --price-file lambda/vms.csv
  gpu-advise catalog show h100-sxm5 --price-file aws=aws-vms.csv)";

constexpr const char* rules_examples = R"(Examples:
  gpu-advise rules list
  gpu-advise rules validate my-rules.yaml
  gpu-advise --params 70B --task lora --rules my-rules.yaml)";

constexpr const char* short_usage = R"(usage: gpu-advise --params COUNT --task TASK [--budget low|medium|high] [options]
       gpu-advise compare|fit|batch|models|catalog|rules|help ...

  gpu-advise --params 70B --task lora --budget low     which cards to rent for a LoRA of a 70B model
  gpu-advise fit --gpu ascend-910b2 --count 8          what 8 cards you have can train or serve
  gpu-advise help                                      every option, with examples
)";

// The commands a user types, and under them the subcommands.
struct CommandWord {
  std::string_view word;
  std::vector<std::pair<std::string_view, Command>> subcommands;  // empty: a command of its own
  Command command = Command::recommend;
};

const std::vector<CommandWord>& command_words() {
  static const std::vector<CommandWord> words = {
      {"recommend", {}, Command::recommend},
      {"compare", {}, Command::compare},
      {"fit", {}, Command::fit},
      {"batch", {}, Command::batch},
      {"models", {}, Command::models},
      {"prices", {}, Command::prices},
      {"catalog",
       {{"list", Command::catalog_list}, {"show", Command::catalog_show}, {"validate", Command::catalog_validate}}},
      {"rules", {{"list", Command::rules_list}, {"validate", Command::rules_validate}}},
      {"help", {}, Command::help},
  };
  return words;
}

const FlagSpec* find_flag(std::string_view token) {
  for (const auto& spec : flag_table()) {
    if (spec.name == token || (!spec.short_name.empty() && spec.short_name == token)) {
      return &spec;
    }
  }
  return nullptr;
}

bool takes_value(const FlagSpec& spec) {
  return !std::holds_alternative<bool Flags::*>(spec.field);  // --explain takes its level only as --explain=all
}

// What the words of the command line name, found before CLI11 parses them, so
// that a misspelt command gets a did-you-mean (CLI11 would call it an
// unexpected argument) and a flag the command ignores is an error.
struct Scan {
  Command command = Command::recommend;
  std::vector<std::string> flags;  // the table's flags given, as typed (long or short)
  bool help = false;               // -h or --help
};

std::string unknown_word(std::string_view word, std::string_view where, const std::vector<std::string>& valid) {
  std::string message = fmt::format("'{}' is not a {}; expected {}", text::excerpt(word), where, text::join_or(valid));
  if (const auto suggestion = text::did_you_mean(word, valid)) {
    message += fmt::format("; did you mean '{}'?", *suggestion);
  }
  return message;
}

Scan scan(int argc, const char* const* argv) {
  Scan result;
  std::vector<std::string> words;
  bool positional_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (positional_only || arg.size() < 2 || arg[0] != '-') {
      words.emplace_back(arg);
      continue;
    }
    if (arg == "--") {
      positional_only = true;
      continue;
    }
    if (arg == "-h" || arg == "--help" || arg == "--help-all") {
      result.help = true;
      continue;
    }
    const std::string_view name = arg.substr(0, arg.find('='));
    const FlagSpec* spec = find_flag(name);
    if (spec == nullptr && arg[1] != '-' && arg.size() > 2) {
      spec = find_flag(arg.substr(0, 2));  // -p70B
      if (spec != nullptr) {
        result.flags.emplace_back(spec->short_name);
      }
      continue;
    }
    if (spec == nullptr) {
      if (arg == "--version") {
        continue;
      }
      // An unknown flag: said here, or its value would be taken for a command.
      std::vector<std::string> names;
      for (const auto& candidate : flag_table()) {
        names.emplace_back(candidate.name);
      }
      std::string message = fmt::format("unknown flag {}", text::excerpt(name));
      if (const auto suggestion = text::did_you_mean(name, names)) {
        message += fmt::format("; did you mean '{}'?", *suggestion);
      } else {
        message += "; run 'gpu-advise help' for the flags";
      }
      throw UsageError(message);
    }
    result.flags.emplace_back(name);
    if (takes_value(*spec) && name.size() == arg.size()) {
      ++i;  // its value, whatever it looks like
    }
  }
  if (words.empty()) {
    return result;
  }
  std::vector<std::string> names;
  for (const auto& word : command_words()) {
    names.emplace_back(word.word);
  }
  const auto top = std::find_if(command_words().begin(), command_words().end(),
                                [&](const CommandWord& w) { return w.word == words.front(); });
  if (top == command_words().end()) {
    if (words.front() != argv[1] && !text::did_you_mean(words.front(), names)) {
      // After flags, a stray word is more likely an extra value than a command.
      throw UsageError(
          fmt::format("argument not expected: {} (a value follows its flag, as in --params 70B; a "
                      "command comes first: {})",
                      text::excerpt(words.front()), text::join_or(names)));
    }
    throw UsageError(unknown_word(words.front(), "command", names));
  }
  result.command = top->command;
  if (!top->subcommands.empty()) {
    std::vector<std::string> subs;
    for (const auto& [word, command] : top->subcommands) {
      subs.emplace_back(word);
    }
    if (words.size() < 2) {
      if (result.help) {
        return result;  // `catalog --help`: CLI11 prints it
      }
      throw UsageError(fmt::format("'{}' needs a subcommand: {}", top->word, text::join_or(subs)));
    }
    const auto sub = std::find_if(top->subcommands.begin(), top->subcommands.end(),
                                  [&](const auto& pair) { return pair.first == words[1]; });
    if (sub == top->subcommands.end()) {
      throw UsageError(unknown_word(words[1], fmt::format("'{}' subcommand", top->word), subs));
    }
    result.command = sub->second;
  }
  return result;
}

// A flag the command would ignore is an error that says where it belongs.
void check_flags(const Scan& scan) {
  for (const auto& typed : scan.flags) {
    const FlagSpec& spec = *find_flag(typed);
    if (accepts(scan.command, spec)) {
      continue;
    }
    std::string message = fmt::format("{} does not apply to '{}'", typed, command_name(scan.command));
    if (scan.command == Command::batch && !spec.batch_key.empty()) {
      message += fmt::format(": each line sets it, as \"{}\"", spec.batch_key);
    } else if (scan.command == Command::compare && spec.name == "--gpu") {
      message += ": compare takes its cards as arguments (gpu-advise compare ID ID ...)";
    } else if (scan.command == Command::help) {
      message += ": run the command itself";
    }
    std::vector<std::string> takers;
    for (const Command command :
         {Command::recommend, Command::compare, Command::fit, Command::batch, Command::catalog_show}) {
      if (accepts(command, spec)) {
        takers.emplace_back(command_name(command));
      }
    }
    if (scan.command != Command::batch && scan.command != Command::compare && !takers.empty()) {
      message += fmt::format("; it is an option of {}", text::join_or(takers));
    }
    throw UsageError(message);
  }
}

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

// The standard descriptors that were closed when the process started.
struct Closed {
  std::vector<int> descriptors;
  [[nodiscard]] bool has(int fd) const {
    return std::find(descriptors.begin(), descriptors.end(), fd) != descriptors.end();
  }
};

// One place the result goes: a file (or device), or "-" for standard output.
struct Destination {
  std::string name;
  OutputFormat format = OutputFormat::text;
  [[nodiscard]] bool to_file() const { return name != "-"; }
};

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
  return std::nullopt;
}

// Every --output (standard output when none), each in --format or, without
// one, in the format of its extension (`otherwise` for any other: text, or
// batch's JSON).
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
  return result;
}

void emit(const Destination& destination, const std::string& content, std::ostream& out, const Closed& closed) {
  if (!destination.to_file() ||
      write_output(destination.name, content, closed.descriptors) == OutputKind::standard_output) {
    out << content;
  }
}

// Each destination gets the result in its format and style.
template <typename Render>
void emit_all(const std::vector<Destination>& destinations, const Flags& flags, Render&& render, std::ostream& out,
              const Closed& closed) {
  for (const auto& destination : destinations) {
    const TextStyle style{use_color(flags.color, destination.to_file()), text_width(destination.to_file())};
    emit(destination, render(destination.format, style), out, closed);
  }
}

// The formats a command writes; anything else is an error that says which.
void check_formats(Command command, const std::vector<Destination>& destinations) {
  const bool advice = command == Command::recommend || command == Command::compare || command == Command::fit;
  for (const auto& d : destinations) {
    const OutputFormat f = d.format;
    const bool table = f == OutputFormat::csv || f == OutputFormat::tsv;
    const bool plain = f == OutputFormat::text || f == OutputFormat::json;
    if (advice || (command == Command::batch && f == OutputFormat::json) ||
        (command == Command::rules_list && f == OutputFormat::text) ||
        (command == Command::catalog_list && (plain || table)) ||
        ((command == Command::models || command == Command::catalog_show || command == Command::prices) && plain)) {
      continue;
    }
    const std::string where = d.to_file() ? fmt::format(" (for {})", text::printable(d.name)) : std::string();
    if (command == Command::batch) {
      throw UsageError(fmt::format("batch writes JSON Lines; --format {}{} does not apply", to_string(f), where));
    }
    const std::string_view takes = command == Command::rules_list     ? "text"
                                   : command == Command::catalog_list ? "text, json, csv or tsv"
                                                                      : "text or json";
    throw UsageError(
        fmt::format("'{}' writes {}, not {}{}: markdown and html are reports of advice, csv and tsv "
                    "tables of it (recommend, compare, fit; csv also catalog list)",
                    command_name(command), takes, to_string(f), where));
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

// Rows a price file holds for accelerators the catalog does not know are not
// errors (a cloud's file lists every card it has), but are said once, on stderr.
void warn_unknown_accelerators(std::ostream& err, const PriceBook& book) {
  for (const auto& file : book.files) {
    if (file.unknown.empty()) {
      continue;
    }
    std::vector<std::string> names;
    std::size_t rows = 0;
    for (const auto& unknown : file.unknown) {
      names.push_back(fmt::format("{} ({} row{})", unknown.name, unknown.rows, unknown.rows == 1 ? "" : "s"));
      rows += unknown.rows;
    }
    err << text::printable(fmt::format("gpu-advise: warning: {}: {} row{} for accelerators the catalog does not know "
                                       "were skipped: {}",
                                       file.file, rows, rows == 1 ? "" : "s", text::join(names, ", ")))
        << "\n";
  }
}

template <typename Json, typename Text>
std::string json_or_text(OutputFormat format, Json&& json, Text&& text) {
  return format == OutputFormat::json ? json() : text();
}

// Standard output through write(2), keeping the errno of the first failure,
// so that a full disk, a closed descriptor or an I/O error is reported
// instead of lost (iostreams only say that something failed).
class StdoutBuffer : public std::streambuf {
 public:
  explicit StdoutBuffer(bool closed) : m_closed(closed) { setp(m_buffer, m_buffer + sizeof m_buffer); }
  StdoutBuffer(const StdoutBuffer&) = delete;
  StdoutBuffer& operator=(const StdoutBuffer&) = delete;
  ~StdoutBuffer() override { (void)drain(); }

  // The errno of the first failed write; 0 if every write succeeded.
  [[nodiscard]] int error() const noexcept { return m_error; }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) {
      return traits_type::eof();
    }
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain() noexcept {
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

  char m_buffer[65536];
  bool m_closed;
  int m_error = 0;
};

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

// CLI11's message for an unknown flag, with a did-you-mean from our own options.
std::string explain_extras(const CLI::ExtrasError& e) {
  std::vector<std::string> names;
  for (const auto& spec : flag_table()) {
    names.emplace_back(spec.name);
  }
  std::string message = e.what();
  const std::string text = message;
  const auto dash = text.find("--");
  if (dash != std::string::npos) {
    const auto end = text.find_first_of(" \n", dash);
    const std::string flag = text.substr(dash, end == std::string::npos ? std::string::npos : end - dash);
    if (const auto suggestion = text::did_you_mean(flag, names)) {
      message += fmt::format("; did you mean '{}'?", *suggestion);
    }
  }
  return message;
}

// The flags `command` takes, wired to `flags`: --help lists exactly these.
void add_flags(CLI::App& app, Command command, Flags& flags) {
  for (const auto& spec : flag_table()) {
    if (!accepts(command, spec)) {
      continue;
    }
    const std::string names =
        spec.short_name.empty() ? std::string(spec.name) : fmt::format("{},{}", spec.short_name, spec.name);
    CLI::Option* option = nullptr;
    if (spec.name == "--explain") {
      option = app.add_flag(names + "{fired}", flags.explain_level, spec.help);  // --explain or --explain=all
    } else if (spec.name == "--count" && command == Command::fit) {
      option = app.add_option(names, flags.fit_counts,
                              "How many of each --gpu you have (default 1; one per --gpu, "
                              "in order, or one for all)")
                   ->allow_extra_args(false);
    } else {
      struct Wire {
        CLI::App& app;
        Flags& flags;
        const FlagSpec& spec;
        const std::string& names;
        CLI::Option* operator()(std::string Flags::*field) const {
          return app.add_option(names, flags.*field, spec.help);
        }
        CLI::Option* operator()(std::vector<std::string> Flags::*field) const {
          return app.add_option(names, flags.*field, spec.help)->allow_extra_args(false);
        }
        CLI::Option* operator()(bool Flags::*field) const { return app.add_flag(names, flags.*field, spec.help); }
      };
      option = std::visit(Wire{app, flags, spec, names}, spec.field);
    }
    option->group(std::string(spec.group));
    if (!spec.type_name.empty()) {
      option->type_name(std::string(spec.type_name));
    }
    if (!spec.default_text.empty()) {
      option->default_str(spec.default_text);
    }
  }
}

CLI::App* add_command(CLI::App& parent, const char* name, const char* description, const char* examples,
                      Command command, Flags& flags) {
  CLI::App* app = parent.add_subcommand(name, description);
  app->footer(examples);
  app->fallthrough();
  add_flags(*app, command, flags);
  return app;
}

int run_checked(int argc, const char* const* argv, std::ostream& out, std::ostream& err, const Closed& closed) {
  if (argc <= 1) {
    err << short_usage;
    return static_cast<int>(ExitCode::bad_input);
  }
  const Scan scanned = scan(argc, argv);
  check_flags(scanned);

  Flags flags;
  CLI::App app{
      "gpu-advise: which accelerators to rent or buy for a large-language-model workload, how many, "
      "how long, what it costs, and why.",
      "gpu-advise"};
  app.footer(recommend_examples);
  app.set_version_flag("--version", std::string("gpu-advise ") + version::string);
  app.require_subcommand(0, 1);
  add_flags(app, Command::recommend, flags);

  add_command(app, "recommend", "Rank the cards for a workload (the default command)", recommend_examples,
              Command::recommend, flags);
  CLI::App* compare_cmd = add_command(app, "compare", "Compare chosen cards side by side for a workload",
                                      compare_examples, Command::compare, flags);
  compare_cmd->add_option("ids", flags.compare_ids, "Two or more card ids or aliases (see 'catalog list')")
      ->required()
      ->expected(1, 64)  // two or more, checked below: CLI11 would show "ID x 2", as if two were all
      ->type_name("ID ...");
  add_command(app, "fit", "What the cards you have can train or serve, and the largest model of each task",
              fit_examples, Command::fit, flags);
  CLI::App* batch_cmd = add_command(
      app, "batch", "Evaluate JSON Lines requests (one per line, fields named like the flags) into JSON Lines results",
      batch_examples, Command::batch, flags);
  batch_cmd->add_option("file", flags.batch_file, "Input file, or - (default) for standard input");
  add_command(app, "models", "List the model presets (--model NAME)", models_examples, Command::models, flags);
  add_command(app, "prices",
              "Check price files (SkyPilot catalogs, your quotes) and summarise the cards and prices they hold",
              prices_examples, Command::prices, flags)
      ->add_option("files", flags.prices_files, "Price files: FILE or PROVIDER=FILE (docs/prices.md)")
      ->required()
      ->expected(1, 256)
      ->type_name("FILE ...");
  CLI::App* rules_cmd = app.add_subcommand("rules", "List or validate scenario rules");
  rules_cmd->footer(rules_examples);
  rules_cmd->require_subcommand(1);
  rules_cmd->fallthrough();
  add_command(*rules_cmd, "list", "List the rules in force (embedded plus --rules files)", rules_examples,
              Command::rules_list, flags);
  add_command(*rules_cmd, "validate", "Check a rules file and report every problem", rules_examples,
              Command::rules_validate, flags)
      ->add_option("file", flags.rules_validate_file, "Rules file (same schema as data/rules.yaml)")
      ->required();
  CLI::App* catalog_cmd = app.add_subcommand("catalog", "List, show or validate accelerator catalogs");
  catalog_cmd->footer(catalog_examples);
  catalog_cmd->require_subcommand(1);
  catalog_cmd->fallthrough();
  add_command(*catalog_cmd, "list", "List every card in the catalog", catalog_examples, Command::catalog_list, flags);
  add_command(*catalog_cmd, "show", "Show one card with every figure, its confidence and sources", catalog_examples,
              Command::catalog_show, flags)
      ->add_option("id", flags.show_id, "Card id or alias")
      ->required();
  add_command(*catalog_cmd, "validate", "Check a catalog file and report every problem", catalog_examples,
              Command::catalog_validate, flags)
      ->add_option("file", flags.validate_file, "Catalog file (same schema as data/gpus.yaml)")
      ->required();
  add_command(app, "help", "Show the help of gpu-advise or of one command: gpu-advise help compare", "", Command::help,
              flags)
      ->add_option("command", flags.help_topic, "A command, and for catalog and rules a subcommand")
      ->expected(0, 2);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return static_cast<int>(ExitCode::ok);
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return static_cast<int>(ExitCode::ok);
  } catch (const CLI::CallForVersion& e) {
    out << e.what() << "\n";
    return static_cast<int>(ExitCode::ok);
  } catch (const CLI::ExtrasError& e) {
    print_error(err, explain_extras(e));
    err << "Run 'gpu-advise help' for usage.\n";
    return static_cast<int>(ExitCode::bad_input);
  } catch (const CLI::ParseError& e) {
    print_error(err, e.what());
    err << "Run 'gpu-advise help' for usage.\n";
    return static_cast<int>(ExitCode::bad_input);
  }

  const Command command = scanned.command;
  if (command == Command::help) {
    CLI::App* topic = &app;
    for (const auto& word : flags.help_topic) {
      std::vector<std::string> valid;
      for (const CLI::App* sub : topic->get_subcommands({})) {
        if (sub->get_name() != "help") {
          valid.push_back(sub->get_name());
        }
      }
      if (std::find(valid.begin(), valid.end(), word) == valid.end()) {
        throw UsageError(
            "help: " + unknown_word(word, topic == &app ? "command" : "'" + topic->get_name() + "' subcommand", valid));
      }
      topic = topic->get_subcommand(word);
    }
    // The formatter itself: App::help() would describe the command being run, `help`.
    std::string name = "gpu-advise";
    for (const auto& word : flags.help_topic) {
      name += " " + word;
    }
    out << topic->get_formatter()->make_help(topic, name, CLI::AppFormatMode::Normal);
    return static_cast<int>(ExitCode::ok);
  }
  flags.explain = !flags.explain_level.empty();
  if (flags.explain && flags.explain_level != "fired" && flags.explain_level != "all") {
    throw UsageError(
        fmt::format("--explain: '{}' is not valid; expected --explain (the rules that fired) or "
                    "--explain=all (every rule)",
                    text::excerpt(flags.explain_level)));
  }

  if (command == Command::catalog_validate || command == Command::rules_validate) {
    std::string verdict;
    if (command == Command::catalog_validate) {
      const Catalog base = load_embedded_catalog();
      const Catalog checked = load_catalog_file(flags.validate_file, CatalogRole::overlay, &base);
      verdict = fmt::format("{}: ok, {} cards\n", text::printable(flags.validate_file), checked.size());
    } else {
      const RuleSet checked =
          parse_rules(read_data_file(flags.rules_validate_file), flags.rules_validate_file, RulesRole::overlay);
      verdict = fmt::format("{}: ok, {} rules\n", text::printable(flags.rules_validate_file), checked.rules().size());
    }
    emit_all(
        destinations(flags, OutputFormat::text), flags, [&](OutputFormat, const TextStyle&) { return verdict; }, out,
        closed);
    return static_cast<int>(ExitCode::ok);
  }

  apply_configured_defaults(flags);
  const Language language =
      flags.lang.empty() ? language_from_environment() : parse_choice<Language>(flags.lang, "--lang");
  const std::vector<Destination> places =
      destinations(flags, command == Command::batch ? OutputFormat::json : OutputFormat::text);
  check_formats(command, places);
  const bool all_json =
      std::all_of(places.begin(), places.end(), [](const Destination& d) { return d.format == OutputFormat::json; });
  if (flags.compact && command != Command::batch && !all_json) {
    throw UsageError("--compact is a form of the JSON output: add --format json (batch always writes JSON)");
  }
  const bool any_report = std::any_of(places.begin(), places.end(), [](const Destination& d) {
    return d.format == OutputFormat::markdown || d.format == OutputFormat::html;
  });
  if ((!flags.prepared_for.empty() || !flags.prepared_by.empty()) && !any_report) {
    throw UsageError(
        "--prepared-for and --prepared-by head a Markdown or HTML report: add --format markdown or html, or an "
        "--output FILE.md or FILE.html");
  }

  // Every command loads the catalog and the rules, so a --catalog or --rules
  // file given is always checked. The shipped data is compiled in; only files
  // are parsed, side by side when both kinds are given (a thread costs more
  // than building the compiled rules).
  const bool parse_both = !flags.rules.empty() && !flags.catalogs.empty();
  auto rules_loading =
      std::async(parse_both ? std::launch::async : std::launch::deferred, [&] { return load_rules(flags.rules); });
  const Catalog base = load_catalog(flags.catalogs);
  const RuleSet rules = rules_loading.get();
  if (command == Command::prices) {
    const PriceBook book = load_price_files(flags.prices_files, base);
    emit_all(
        places, flags,
        [&](OutputFormat f, const TextStyle& style) {
          return json_or_text(
              f, [&] { return render_prices_json(book); },
              [&] { return render_prices_text(book, base, language, style); });
        },
        out, closed);
    return static_cast<int>(ExitCode::ok);
  }
  // --price-file: the files' quotes in place of the catalog's for the cards they cover.
  PriceBook book;
  std::optional<Catalog> priced;
  if (!flags.price_files.empty()) {
    book = load_price_files(flags.price_files, base);
    warn_unknown_accelerators(err, book);
    priced = with_prices(base, book);
    flags.priced_by = book.files;
  }
  const Catalog& catalog = priced ? *priced : base;
  switch (command) {
    case Command::rules_list:
      emit_all(
          places, flags,
          [&](OutputFormat, const TextStyle& style) { return render_rules_text(rules, language, style); }, out, closed);
      return static_cast<int>(ExitCode::ok);
    case Command::models: {
      const ModelCatalog models = load_embedded_models();
      emit_all(
          places, flags,
          [&](OutputFormat f, const TextStyle& style) {
            return json_or_text(
                f, [&] { return render_models_json(models); },
                [&] { return render_models_text(models, language, style); });
          },
          out, closed);
      return static_cast<int>(ExitCode::ok);
    }
    case Command::catalog_list:
      emit_all(
          places, flags,
          [&](OutputFormat f, const TextStyle& style) {
            if (f == OutputFormat::csv || f == OutputFormat::tsv) {
              return render_catalog_list_table(catalog, f);
            }
            return json_or_text(
                f, [&] { return render_catalog_list_json(catalog); },
                [&] { return render_catalog_list_text(catalog, language, style); });
          },
          out, closed);
      return static_cast<int>(ExitCode::ok);
    case Command::catalog_show: {  // the catalog's own quotes, and beside them the files'
      const GpuSpec& gpu = base.resolve(flags.show_id);
      const std::vector<PriceQuote> imported = book.quotes_for(gpu.id);
      emit_all(
          places, flags,
          [&](OutputFormat f, const TextStyle& style) {
            return json_or_text(
                f, [&] { return render_gpu_json(gpu, imported); },
                [&] { return render_gpu_text(gpu, catalog.info().exchange_rate, language, style, imported); });
          },
          out, closed);
      return static_cast<int>(ExitCode::ok);
    }
    default: break;
  }

  Presets presets;
  if (command == Command::batch) {
    BatchContext context{flags, catalog, rules, presets, language};
    return run_batch(flags, context, out, closed.has(STDIN_FILENO));
  }
  const ReportHeader header{report_date(), flags.prepared_for, flags.prepared_by};
  if (command == Command::fit) {
    const FitReport report = fit(to_fit_request(flags, catalog, presets), catalog, rules);
    emit_all(
        places, flags,
        [&](OutputFormat f, const TextStyle& style) {
          switch (f) {
            case OutputFormat::text: return render_fit_text(report, language, style);
            case OutputFormat::json: return render_fit_json(report, language);
            case OutputFormat::markdown: return render_fit_markdown(report, language, header);
            case OutputFormat::html: return render_fit_html(report, language, header);
            case OutputFormat::csv:
            case OutputFormat::tsv: return render_fit_table(report, f, language);
          }
          return std::string();
        },
        out, closed);
    return static_cast<int>(report.anything_fits() ? ExitCode::ok : ExitCode::nothing_fits);
  }

  Flags chosen = flags;
  if (command == Command::compare) {
    if (flags.compare_ids.size() < 2) {
      throw UsageError(
          "compare needs two or more cards: gpu-advise compare a100-80gb-sxm4 h100-sxm5 --params 70B "
          "--task lora");
    }
    chosen.gpus = flags.compare_ids;
  }
  const ModelShape model = resolve_model(chosen, presets);
  Request request = to_request(chosen, catalog, model);
  if (command == Command::compare) {
    request.compare = request.gpu_ids;
    if (request.compare.size() < 2) {
      throw UsageError("compare needs two or more different cards");
    }
  }
  const Report report = advise(request, model, catalog, rules);
  emit_all(
      places, flags,
      [&](OutputFormat f, const TextStyle& style) {
        switch (f) {
          case OutputFormat::text: return render_text(report, language, style);
          case OutputFormat::json:
            return flags.compact ? render_json_compact(report, language, JsonStyle::pretty)
                                 : render_json(report, language);
          case OutputFormat::markdown: return render_markdown(report, language, header);
          case OutputFormat::html: return render_html(report, language, header);
          case OutputFormat::csv:
          case OutputFormat::tsv: return render_table(report, f, language);
        }
        return std::string();
      },
      out, closed);
  return static_cast<int>(report.anything_fits() ? ExitCode::ok : ExitCode::nothing_fits);
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
