#include "gpu_advise/cli.hpp"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <streambuf>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <future>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "batch.hpp"
#include "flags.hpp"
#include "gpu_advise/advisor.hpp"
#include "gpu_advise/catalog.hpp"
#include "gpu_advise/error.hpp"
#include "gpu_advise/model.hpp"
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

constexpr const char* footer = R"(Examples:
  gpu-advise --params 70B --task lora --budget low
  gpu-advise --params 8B --task inference --budget medium --top 5
  gpu-advise --params 405B --task pretrain --budget high --format json --output plan.json
  gpu-advise --params 70B --task qlora --gpu a100-80gb-sxm4 --gpu l40s
  gpu-advise --model llama-3.1-70b --task inference --precision fp8 --context 32768 --concurrency 32
  gpu-advise --model-config ./config.json --task full --seq-len 8192 --zero 3
  gpu-advise --model qwen2.5-72b --task pretrain --tokens 2T --deadline 30d --mode buy
  gpu-advise --params 70B --task inference --region cn --mode buy
  gpu-advise --params 8B --task inference --budget 5k --explain
  gpu-advise --params 70B --task lora --rules my-rules.yaml
  gpu-advise models
  gpu-advise catalog list
  gpu-advise catalog show h100-sxm5
  gpu-advise catalog validate my-cards.yaml
  gpu-advise --params 70B --task full --catalog my-cards.yaml

Tasks: pretrain, full (aliases: sft, finetune, fine-tune, full-ft), lora, qlora,
       inference (aliases: infer, serve, serving).
Parameter counts: 70B, 7b, 1.5T, 500M, 405e9 (K, M, B, T suffixes; 1M to 100T).

Exit status:
  0  at least one card is recommended
  1  the request is valid but no card fits (the report, with ways out, is still printed)
  2  usage error or invalid data (message on stderr)

Documentation: README.md, docs/methodology.md (formulas), docs/catalog.md (data),
docs/json.md (the JSON contract).)";

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

// Whether the result goes to a file (or device) rather than standard output.
bool to_file(const Flags& flags) { return flags.output_given && flags.output != "-"; }

// The standard descriptors that were closed when the process started.
struct Closed {
  std::vector<int> descriptors;
  [[nodiscard]] bool has(int fd) const {
    return std::find(descriptors.begin(), descriptors.end(), fd) != descriptors.end();
  }
};

void emit(const Flags& flags, const std::string& content, std::ostream& out, const Closed& closed) {
  if (!to_file(flags) || write_output(flags.output, content, closed.descriptors) == OutputKind::standard_output) {
    out << content;
  }
}

// Every message is printable UTF-8, whatever the input held.
void print_error(std::ostream& err, std::string_view message) {
  err << "gpu-advise: error: " << text::printable(message) << "\n";
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
std::string explain_extras(const CLI::ExtrasError& e, const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* level : {&app}) {
    for (const auto* option : level->get_options()) {
      for (const auto& name : option->get_lnames()) {
        names.push_back("--" + name);
      }
    }
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

int run_checked(int argc, const char* const* argv, std::ostream& out, std::ostream& err, const Closed& closed) {
  Flags flags;
  CLI::App app{
      "gpu-advise: which accelerators to rent or buy for a large-language-model workload, how many, "
      "how long, what it costs, and why.",
      "gpu-advise"};
  app.footer(footer);
  app.set_version_flag("--version", std::string("gpu-advise ") + version::string);
  app.require_subcommand(0, 1);

  for (const auto& spec : flag_table()) {
    struct Wire {
      CLI::App& app;
      Flags& flags;
      const FlagSpec& spec;
      CLI::Option* operator()(std::string Flags::*field) const {
        return app.add_option(std::string(spec.name), flags.*field, std::string(spec.help));
      }
      CLI::Option* operator()(std::vector<std::string> Flags::*field) const {
        return app.add_option(std::string(spec.name), flags.*field, std::string(spec.help))->allow_extra_args(false);
      }
      CLI::Option* operator()(bool Flags::*field) const {
        return app.add_flag(std::string(spec.name), flags.*field, std::string(spec.help));
      }
    };
    CLI::Option* option = std::visit(Wire{app, flags, spec}, spec.field);
    option->group(std::string(spec.group));
    if (!spec.type_name.empty()) {
      option->type_name(std::string(spec.type_name));
    }
    if (!spec.default_text.empty()) {
      option->default_str(std::string(spec.default_text));
    }
  }

  auto* recommend = app.add_subcommand("recommend", "Rank the cards for a workload (the default command)");
  recommend->fallthrough();
  auto* compare_cmd = app.add_subcommand("compare", "Compare chosen cards side by side for a workload");
  compare_cmd->add_option("ids", flags.compare_ids, "Two or more card ids or aliases")->required()->expected(2, 64);
  compare_cmd->fallthrough();
  auto* batch_cmd = app.add_subcommand(
      "batch", "Evaluate JSON Lines requests (one per line, fields named like the flags) into JSON Lines results");
  batch_cmd->add_option("file", flags.batch_file, "Input file, or - (default) for standard input");
  batch_cmd->fallthrough();
  auto* models_cmd = app.add_subcommand("models", "List the model presets (--model NAME)");
  models_cmd->fallthrough();
  auto* rules_cmd = app.add_subcommand("rules", "List or validate scenario rules");
  rules_cmd->require_subcommand(1);
  rules_cmd->fallthrough();
  auto* rules_list_cmd = rules_cmd->add_subcommand("list", "List the rules in force (embedded plus --rules files)");
  rules_list_cmd->fallthrough();
  auto* rules_validate_cmd = rules_cmd->add_subcommand("validate", "Check a rules file and report every problem");
  rules_validate_cmd->add_option("file", flags.rules_validate_file, "Rules file (same schema as data/rules.yaml)")
      ->required();
  auto* catalog_cmd = app.add_subcommand("catalog", "List, show or validate accelerator catalogs");
  catalog_cmd->require_subcommand(1);
  catalog_cmd->fallthrough();
  auto* list_cmd = catalog_cmd->add_subcommand("list", "List every card in the catalog");
  list_cmd->fallthrough();
  auto* show_cmd = catalog_cmd->add_subcommand("show", "Show one card with every figure, its confidence and sources");
  show_cmd->add_option("id", flags.show_id, "Card id or alias")->required();
  show_cmd->fallthrough();
  auto* validate_cmd = catalog_cmd->add_subcommand("validate", "Check a catalog file and report every problem");
  validate_cmd->add_option("file", flags.validate_file, "Catalog file (same schema as data/gpus.yaml)")->required();

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
    print_error(err, explain_extras(e, app));
    err << "Run 'gpu-advise --help' for usage.\n";
    return static_cast<int>(ExitCode::bad_input);
  } catch (const CLI::ParseError& e) {
    print_error(err, e.what());
    err << "Run 'gpu-advise --help' for usage.\n";
    return static_cast<int>(ExitCode::bad_input);
  }

  flags.output_given = app.count("--output") > 0;
  const OutputFormat format = parse_format(flags.format);
  const Language language =
      flags.lang.empty() ? language_from_environment() : parse_choice<Language>(flags.lang, "--lang");
  if ((format == OutputFormat::markdown || format == OutputFormat::html) &&
      (models_cmd->parsed() || list_cmd->parsed() || show_cmd->parsed() || rules_list_cmd->parsed())) {
    throw UsageError("--format markdown and html are reports of a recommendation; listings take text or json");
  }
  if (flags.compact && (models_cmd->parsed() || list_cmd->parsed() || show_cmd->parsed() || rules_list_cmd->parsed())) {
    throw UsageError("--compact shortens a recommendation's JSON; listings have no compact form");
  }
  if (flags.compact && format != OutputFormat::json && !batch_cmd->parsed()) {
    throw UsageError("--compact is a form of the JSON output: add --format json (batch always writes JSON)");
  }

  if (validate_cmd->parsed()) {
    const Catalog base = load_embedded_catalog();
    const Catalog checked = load_catalog_file(flags.validate_file, CatalogRole::overlay, &base);
    out << fmt::format("{}: ok, {} cards\n", text::printable(flags.validate_file), checked.size());
    return static_cast<int>(ExitCode::ok);
  }

  if (rules_validate_cmd->parsed()) {
    const RuleSet checked =
        parse_rules(read_data_file(flags.rules_validate_file), flags.rules_validate_file, RulesRole::overlay);
    out << fmt::format("{}: ok, {} rules\n", text::printable(flags.rules_validate_file), checked.rules().size());
    return static_cast<int>(ExitCode::ok);
  }
  // Every command loads the catalog and the rules, so a --catalog or --rules
  // file given is always checked. The shipped data is compiled in; only files
  // are parsed, side by side when both kinds are given (a thread costs more
  // than building the compiled rules).
  const bool parse_both = !flags.rules.empty() && !flags.catalogs.empty();
  auto rules_loading =
      std::async(parse_both ? std::launch::async : std::launch::deferred, [&] { return load_rules(flags.rules); });
  const Catalog catalog = load_catalog(flags.catalogs);
  const RuleSet rules = rules_loading.get();
  if (rules_list_cmd->parsed()) {
    emit(flags, render_rules_text(rules, language), out, closed);
    return static_cast<int>(ExitCode::ok);
  }
  if (models_cmd->parsed()) {
    const ModelCatalog models = load_embedded_models();
    emit(flags, format == OutputFormat::json ? render_models_json(models) : render_models_text(models, language), out,
         closed);
    return static_cast<int>(ExitCode::ok);
  }
  if (list_cmd->parsed()) {
    emit(flags,
         format == OutputFormat::json ? render_catalog_list_json(catalog) : render_catalog_list_text(catalog, language),
         out, closed);
    return static_cast<int>(ExitCode::ok);
  }
  if (show_cmd->parsed()) {
    const GpuSpec& gpu = catalog.resolve(flags.show_id);
    emit(flags,
         format == OutputFormat::json ? render_gpu_json(gpu)
                                      : render_gpu_text(gpu, catalog.info().exchange_rate, language),
         out, closed);
    return static_cast<int>(ExitCode::ok);
  }

  Presets presets;
  if (batch_cmd->parsed()) {
    BatchContext context{flags, catalog, rules, presets, language};
    return run_batch(flags, context, out, closed.has(STDIN_FILENO));
  }
  Flags chosen = flags;
  if (compare_cmd->parsed()) {
    if (!flags.gpus.empty()) {
      throw UsageError("compare takes its cards as arguments; --gpu does not apply");
    }
    chosen.gpus = flags.compare_ids;
  }
  const ModelShape model = resolve_model(chosen, presets);
  Request request = to_request(chosen, catalog, model);
  if (compare_cmd->parsed()) {
    request.compare = request.gpu_ids;
    if (request.compare.size() < 2) {
      throw UsageError("compare needs two or more different cards");
    }
  }
  const Report report = advise(request, model, catalog, rules);
  const bool to_file = cli::to_file(flags);
  std::string rendered;
  switch (format) {
    case OutputFormat::text:
      rendered = render_text(report, language, TextStyle{use_color(flags.color, to_file), text_width(to_file)});
      break;
    case OutputFormat::json:
      rendered =
          flags.compact ? render_json_compact(report, language, JsonStyle::pretty) : render_json(report, language);
      break;
    case OutputFormat::markdown: rendered = render_markdown(report, language); break;
    case OutputFormat::html: rendered = render_html(report, language); break;
  }
  emit(flags, rendered, out, closed);
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
