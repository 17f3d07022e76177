#include "gpu_advise/cli.hpp"

#include <exception>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "gpu_advise/advisor.hpp"
#include "gpu_advise/catalog.hpp"
#include "gpu_advise/error.hpp"
#include "gpu_advise/render.hpp"
#include "gpu_advise/request.hpp"
#include "gpu_advise/text.hpp"
#include "gpu_advise/units.hpp"
#include "gpu_advise_version.hpp"

namespace gpu_advise::cli {

namespace {

constexpr std::int64_t max_count = 100000;
constexpr std::int64_t max_top = 10000;

constexpr const char* footer = R"(Examples:
  gpu-advise --params 70B --task lora --budget low
  gpu-advise --params 8B --task inference --budget medium --top 5
  gpu-advise --params 405B --task pretrain --budget high --format json --output plan.json
  gpu-advise --params 70B --task qlora --gpu a100-80gb-sxm4 --gpu l40s
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

// Raw flag values, exactly as typed; validated in to_request().
struct Flags {
  std::string params;
  std::string task;
  std::string budget = "medium";
  std::vector<std::string> gpus;
  std::string count;
  std::string top;
  std::string format = "text";
  std::string output;
  std::vector<std::string> catalogs;
  std::string show_id;
  std::string validate_file;
};

OutputFormat parse_format(const std::string& raw) {
  if (const auto format = enum_from_string<OutputFormat>(text::to_lower(raw))) {
    return *format;
  }
  std::string message = fmt::format("--format: '{}' is not a format; expected text or json", raw);
  if (const auto suggestion = text::did_you_mean(raw, {"text", "json"})) {
    message += fmt::format("; did you mean '{}'?", *suggestion);
  }
  throw UsageError(message);
}

int parse_int_flag(const std::string& raw, std::string_view flag, std::int64_t max) {
  try {
    return static_cast<int>(parse_positive_integer(raw, max));
  } catch (const QuantityError& e) {
    throw UsageError(fmt::format("{}: {}", flag, e.what()));
  }
}

Request to_request(const Flags& flags, const Catalog& catalog) {
  Request request;
  if (flags.params.empty()) {
    throw UsageError("--params is required: the model's parameter count, e.g. --params 70B");
  }
  try {
    request.params = parse_parameter_count(flags.params);
  } catch (const QuantityError& e) {
    throw UsageError(fmt::format("--params: {}", e.what()));
  }
  if (flags.task.empty()) {
    throw UsageError("--task is required: pretrain, full, lora, qlora or inference");
  }
  request.task = parse_task(flags.task, "--task");
  request.budget = parse_budget(flags.budget, "--budget");
  for (const auto& query : flags.gpus) {
    try {
      const std::string& id = catalog.resolve(query).id;
      if (std::find(request.gpu_ids.begin(), request.gpu_ids.end(), id) == request.gpu_ids.end()) {
        request.gpu_ids.push_back(id);
      }
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("--gpu: {}", e.what()));
    }
  }
  if (!flags.count.empty()) {
    request.count = parse_int_flag(flags.count, "--count", max_count);
  }
  if (!flags.top.empty()) {
    request.top = parse_int_flag(flags.top, "--top", max_top);
  }
  return request;
}

void emit(const Flags& flags, const std::string& content, std::ostream& out) {
  if (flags.output.empty()) {
    out << content;
  } else {
    write_file_atomically(flags.output, content);
  }
}

void print_error(std::ostream& err, const std::string& message) { err << "gpu-advise: error: " << message << "\n"; }

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

int run_checked(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  Flags flags;
  CLI::App app{"gpu-advise: which accelerators to rent or buy for a large-language-model workload, how many, "
               "how long, what it costs, and why.",
               "gpu-advise"};
  app.footer(footer);
  app.set_version_flag("--version", std::string("gpu-advise ") + version::string);
  app.require_subcommand(0, 1);

  app.add_option("--params", flags.params, "Total parameters of the model: 70B, 7b, 1.5T, 405e9")
      ->group("Workload")->type_name("COUNT");
  app.add_option("--task", flags.task, "pretrain | full | lora | qlora | inference (aliases: sft, finetune, serve)")
      ->group("Workload")->type_name("TASK");
  app.add_option("--budget", flags.budget, "Scoring profile: low (cost first), medium (balanced), high (speed first)")
      ->group("Workload")->type_name("TIER")->default_str("medium");
  app.add_option("--gpu", flags.gpus, "Only consider this card (id or alias; repeat for several)")
      ->group("Selection")->type_name("ID")->allow_extra_args(false);
  app.add_option("--count", flags.count, "Fix the number of cards instead of finding the smallest that fits")
      ->group("Selection")->type_name("N");
  app.add_option("--top", flags.top, "List at most N recommendations")->group("Selection")->type_name("N");
  app.add_option("--format", flags.format, "text | json")->group("Output")->type_name("FORMAT")->default_str("text");
  app.add_option("--output", flags.output, "Write the result to FILE (atomically) instead of stdout")
      ->group("Output")->type_name("FILE");
  app.add_option("--catalog", flags.catalogs, "Add or override cards from a catalog FILE (repeatable)")
      ->group("Data")->type_name("FILE")->allow_extra_args(false);

  auto* recommend = app.add_subcommand("recommend", "Rank the cards for a workload (the default command)");
  recommend->fallthrough();
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

  const OutputFormat format = parse_format(flags.format);

  if (validate_cmd->parsed()) {
    const Catalog checked = load_catalog_file(flags.validate_file, CatalogRole::overlay);
    out << fmt::format("{}: ok, {} cards\n", flags.validate_file, checked.size());
    return static_cast<int>(ExitCode::ok);
  }

  const Catalog catalog = load_catalog(flags.catalogs);
  if (list_cmd->parsed()) {
    emit(flags, format == OutputFormat::json ? render_catalog_list_json(catalog) : render_catalog_list_text(catalog),
         out);
    return static_cast<int>(ExitCode::ok);
  }
  if (show_cmd->parsed()) {
    const GpuSpec& gpu = catalog.resolve(flags.show_id);
    emit(flags, format == OutputFormat::json ? render_gpu_json(gpu) : render_gpu_text(gpu), out);
    return static_cast<int>(ExitCode::ok);
  }

  const Request request = to_request(flags, catalog);
  const Report report = advise(request, catalog);
  emit(flags, format == OutputFormat::json ? render_json(report) : render_text(report), out);
  return static_cast<int>(report.anything_fits() ? ExitCode::ok : ExitCode::nothing_fits);
}

}  // namespace

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  try {
    return run_checked(argc, argv, out, err);
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

}  // namespace gpu_advise::cli
