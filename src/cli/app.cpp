#include "app.hpp"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "examples.hpp"
#include "gpu_advise/error.hpp"
#include "gpu_advise/text.hpp"
#include "gpu_advise_version.hpp"
#include "output.hpp"

namespace gpu_advise::cli {

namespace {

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
      {"calibrate", {}, Command::calibrate},
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

// The flags of the table given, as typed; the other words (commands and
// arguments) into `words`. An unknown flag is said here, or its value would be
// taken for a command.
void scan_flags(int argc, const char* const* argv, Scan& result, std::vector<std::string>& words) {
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
}

// The command the first words name, with its subcommand.
void name_command(const std::vector<std::string>& words, std::string_view first_argument, Scan& result) {
  std::vector<std::string> names;
  for (const auto& word : command_words()) {
    names.emplace_back(word.word);
  }
  const auto top = std::find_if(command_words().begin(), command_words().end(),
                                [&](const CommandWord& w) { return w.word == words.front(); });
  if (top == command_words().end()) {
    if (words.front() != first_argument && !text::did_you_mean(words.front(), names)) {
      // After flags, a stray word is more likely an extra value than a command.
      throw UsageError(
          fmt::format("argument not expected: {} (a value follows its flag, as in --params 70B; a "
                      "command comes first: {})",
                      text::excerpt(words.front()), text::join_or(names)));
    }
    throw UsageError(unknown_word(words.front(), "command", names));
  }
  result.command = top->command;
  if (top->subcommands.empty()) {
    return;
  }
  std::vector<std::string> subs;
  for (const auto& [word, command] : top->subcommands) {
    subs.emplace_back(word);
  }
  if (words.size() < 2) {
    if (result.help) {
      return;  // `catalog --help`: CLI11 prints it
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

Scan scan(int argc, const char* const* argv) {
  Scan result;
  std::vector<std::string> words;
  scan_flags(argc, argv, result, words);
  if (!words.empty()) {
    name_command(words, argv[1], result);
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

// The app: the top level takes recommend's flags, each command its own;
// their footers are the examples.
void declare_commands(CLI::App& app, Flags& flags) {
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
  add_command(app, "calibrate",
              "Fit a card and stack's speed and memory to your measurements (bench/*.py records); write the "
              "calibration with -o FILE.yaml",
              calibrate_examples, Command::calibrate, flags)
      ->add_option("files", flags.measurement_files,
                   "Measurement records: JSON Lines, or CSV with the same columns (docs/calibration.md)")
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
}

// `gpu-advise help [COMMAND [SUBCOMMAND]]`: that command's help, as its --help prints it.
int answer_help(CLI::App& app, const Flags& flags, std::ostream& out) {
  CLI::App* topic = &app;
  for (const auto& word : flags.help_topic) {
    std::vector<std::string> valid;
    for (const CLI::App* sub : topic->get_subcommands({})) {
      if (sub->get_name() != "help") {
        valid.push_back(sub->get_name());
      }
    }
    if (std::find(valid.begin(), valid.end(), word) == valid.end()) {
      throw UsageError("help: " +
                       unknown_word(word, topic == &app ? "command" : "'" + topic->get_name() + "' subcommand", valid));
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

// --explain or --explain=all, nothing else.
void check_explain(Flags& flags) {
  flags.explain = !flags.explain_level.empty();
  if (flags.explain && flags.explain_level != "fired" && flags.explain_level != "all") {
    throw UsageError(
        fmt::format("--explain: '{}' is not valid; expected --explain (the rules that fired) or "
                    "--explain=all (every rule)",
                    text::excerpt(flags.explain_level)));
  }
}

}  // namespace

CommandLine read_command_line(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  const Scan scanned = scan(argc, argv);
  check_flags(scanned);
  CommandLine line;
  line.command = scanned.command;
  CLI::App app{
      "gpu-advise: which accelerators to rent or buy for a large-language-model workload, how many, "
      "how long, what it costs, and why.",
      "gpu-advise"};
  declare_commands(app, line.flags);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    line.answered = static_cast<int>(ExitCode::ok);
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    line.answered = static_cast<int>(ExitCode::ok);
  } catch (const CLI::CallForVersion& e) {
    out << e.what() << "\n";
    line.answered = static_cast<int>(ExitCode::ok);
  } catch (const CLI::ExtrasError& e) {
    print_error(err, explain_extras(e));
    err << "Run 'gpu-advise help' for usage.\n";
    line.answered = static_cast<int>(ExitCode::bad_input);
  } catch (const CLI::ParseError& e) {
    print_error(err, e.what());
    err << "Run 'gpu-advise help' for usage.\n";
    line.answered = static_cast<int>(ExitCode::bad_input);
  }
  if (line.answered) {
    return line;
  }
  if (line.command == Command::help) {
    line.answered = answer_help(app, line.flags, out);
    return line;
  }
  check_explain(line.flags);
  return line;
}

}  // namespace gpu_advise::cli
