#include "gpu_advise/cli.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <future>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

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

namespace gpu_advise::cli {

namespace {

constexpr std::int64_t max_count = 100000;
constexpr std::int64_t max_top = 10000;

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

// Raw flag values, exactly as typed; validated in to_request().
struct Flags {
  std::string params;
  std::string active_params;
  std::string model;
  std::string model_config;
  std::string task;
  std::string budget = "medium";
  std::vector<std::string> gpus;
  std::string count;
  std::string top;
  std::string format = "text";
  std::string color = "auto";
  std::string lang;
  std::string output;
  std::vector<std::string> catalogs;
  std::vector<std::string> rules;
  std::string region;
  bool explain = false;
  std::string rules_validate_file;
  std::vector<std::string> compare_ids;
  std::string batch_file;
  std::string show_id;
  std::string validate_file;
  // sizing
  std::string seq_len;
  std::string micro_batch;
  std::string zero;
  std::string recompute;
  std::string lora_rank;
  std::string lora_targets;
  std::string optimizer;
  std::string tokens;
  std::string epochs;
  bool fp8 = false;
  std::string deadline;
  std::string precision;
  std::string kv_precision;
  std::string context;
  std::string output_tokens;
  std::string concurrency;
  std::string max_gpus;
  std::string mode;
  std::vector<std::string> prices;
};

template <typename E>
E parse_choice(const std::string& raw, std::string_view flag) {
  if (const auto value = enum_from_string<E>(text::to_lower(text::trim(raw)))) {
    return *value;
  }
  const auto valid = enum_names<E>();
  std::string message = fmt::format("{}: '{}' is not valid; expected {}", flag, raw, text::join_or(valid));
  if (const auto suggestion = text::did_you_mean(raw, valid)) {
    message += fmt::format("; did you mean '{}'?", *suggestion);
  }
  throw UsageError(message);
}

template <typename F>
auto wrap(std::string_view flag, F&& parse) {
  try {
    return parse();
  } catch (const QuantityError& e) {
    throw UsageError(fmt::format("{}: {}", flag, e.what()));
  }
}

OutputFormat parse_format(const std::string& raw) {
  const std::string folded = text::to_lower(raw);
  if (folded == "md") {
    return OutputFormat::markdown;
  }
  if (const auto format = enum_from_string<OutputFormat>(folded)) {
    return *format;
  }
  std::string message =
      fmt::format("--format: '{}' is not a format; expected text, json, markdown (or md) or html", raw);
  if (const auto suggestion = text::did_you_mean(raw, {"text", "json", "markdown", "html"})) {
    message += fmt::format("; did you mean '{}'?", *suggestion);
  }
  throw UsageError(message);
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

// The model the flags describe: exactly one of --params, --model, --model-config.
// The model presets, parsed only when a request names one.
class Presets {
 public:
  const ModelCatalog& get() {
    if (!m_models) {
      m_models = load_embedded_models();
    }
    return *m_models;
  }

 private:
  std::optional<ModelCatalog> m_models;
};

ModelShape resolve_model(const Flags& flags, Presets& presets) {
  const int given = !flags.params.empty() + !flags.model.empty() + !flags.model_config.empty();
  if (given == 0) {
    throw UsageError("describe the model with --params (e.g. 70B), --model (a preset, see 'gpu-advise models') or "
                     "--model-config (a Hugging Face config.json)");
  }
  if (given > 1) {
    throw UsageError("give only one of --params, --model and --model-config");
  }
  if (!flags.active_params.empty() && flags.params.empty()) {
    throw UsageError("--active-params goes with --params (presets and config.json already know their active size)");
  }
  if (!flags.model.empty()) {
    return presets.get().resolve(flags.model);
  }
  if (!flags.model_config.empty()) {
    return load_hf_config(flags.model_config);
  }
  const double params = wrap("--params", [&] { return parse_parameter_count(flags.params); });
  std::optional<double> active;
  if (!flags.active_params.empty()) {
    active = wrap("--active-params", [&] { return parse_parameter_count(flags.active_params); });
    if (*active > params) {
      throw UsageError(fmt::format("--active-params: {} is more than --params {}", flags.active_params, flags.params));
    }
  }
  return infer_shape(params, active);
}

Request to_request(const Flags& flags, const Catalog& catalog, const ModelShape& model) {
  Request request;
  request.params = model.params;
  request.model_id = model.id;
  request.model_config = flags.model_config;
  if (model.source == ModelSource::inferred && model.active_params != model.params) {
    request.active_params = model.active_params;
  }
  if (flags.task.empty()) {
    throw UsageError("--task is required: pretrain, full, lora, qlora or inference");
  }
  request.task = parse_task(flags.task, "--task");
  const BudgetChoice budget = parse_budget_choice(flags.budget, "--budget");
  request.budget = budget.tier;
  request.budget_usd = budget.usd;
  if (!flags.region.empty()) {
    request.region = parse_choice<Region>(flags.region, "--region");
  }
  request.explain = flags.explain;
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
  auto integer = [](const std::string& raw, std::string_view flag, std::int64_t max) {
    return wrap(flag, [&] { return static_cast<int>(parse_positive_integer(raw, max)); });
  };
  if (!flags.count.empty()) {
    request.count = integer(flags.count, "--count", max_count);
  }
  if (!flags.top.empty()) {
    request.top = integer(flags.top, "--top", max_top);
  }
  if (!flags.max_gpus.empty()) {
    request.max_gpus = integer(flags.max_gpus, "--max-gpus", 1'000'000);
  }
  if (request.count && *request.count > request.max_gpus) {
    request.max_gpus = *request.count;
  }

  // Training.
  if (!flags.seq_len.empty()) {
    request.seq_len = integer(flags.seq_len, "--seq-len", 10'000'000);
  }
  if (!flags.micro_batch.empty()) {
    request.micro_batch = integer(flags.micro_batch, "--micro-batch", 65536);
  }
  if (!flags.zero.empty()) {
    const std::string zero(text::trim(flags.zero));
    if (zero.size() != 1 || zero[0] < '0' || zero[0] > '3') {
      throw UsageError(fmt::format("--zero: '{}' is not a ZeRO stage; expected 0, 1, 2 or 3", flags.zero));
    }
    request.zero_stage = zero[0] - '0';
  }
  if (!flags.recompute.empty()) {
    request.recompute = parse_choice<Recompute>(flags.recompute, "--recompute");
  }
  if (!flags.lora_rank.empty()) {
    request.lora_rank = integer(flags.lora_rank, "--lora-rank", 65536);
  }
  if (!flags.lora_targets.empty()) {
    request.lora_targets = parse_lora_targets(flags.lora_targets, "--lora-targets");
  }
  if (!flags.optimizer.empty()) {
    request.optimizer = parse_choice<Optimizer>(flags.optimizer, "--optimizer");
  }
  if (!flags.tokens.empty()) {
    request.tokens = wrap("--tokens", [&] { return parse_parameter_count(flags.tokens); });
  }
  if (!flags.epochs.empty()) {
    request.epochs = wrap("--epochs", [&] { return parse_positive_number(flags.epochs, 10000); });
  }
  request.fp8_training = flags.fp8;
  if (!flags.deadline.empty()) {
    request.deadline_hours = wrap("--deadline", [&] { return parse_duration_hours(flags.deadline); });
  }

  // Inference.
  if (!flags.precision.empty()) {
    request.precision = parse_choice<InferencePrecision>(flags.precision, "--precision");
  }
  if (!flags.kv_precision.empty()) {
    request.kv_precision = parse_choice<KvPrecision>(flags.kv_precision, "--kv-precision");
  }
  if (!flags.context.empty()) {
    request.context = integer(flags.context, "--context", 100'000'000);
  }
  if (!flags.output_tokens.empty()) {
    request.output_tokens = integer(flags.output_tokens, "--output-tokens", 100'000'000);
  }
  if (!flags.concurrency.empty()) {
    request.concurrency = integer(flags.concurrency, "--concurrency", 1'000'000);
  }
  const int window = is_training(request.task) ? request.seq_len : request.context;
  if (model.max_context > 0 && window > model.max_context) {
    throw UsageError(fmt::format("{}: {} tokens is more than {}'s maximum context of {}",
                                 is_training(request.task) ? "--seq-len" : "--context", window, model.name,
                                 model.max_context));
  }
  const bool training_flags = !flags.seq_len.empty() || !flags.micro_batch.empty() || !flags.zero.empty() ||
                              !flags.recompute.empty() || !flags.tokens.empty() || !flags.epochs.empty() ||
                              flags.fp8 || !flags.deadline.empty();
  const bool inference_flags = !flags.precision.empty() || !flags.kv_precision.empty() || !flags.context.empty() ||
                               !flags.output_tokens.empty() || !flags.concurrency.empty();
  if (request.task == Task::inference && training_flags) {
    throw UsageError("--seq-len, --micro-batch, --zero, --recompute, --tokens, --epochs, --fp8 and --deadline apply "
                     "to training tasks, not inference");
  }
  if (is_training(request.task) && inference_flags) {
    throw UsageError("--precision, --kv-precision, --context, --output-tokens and --concurrency apply to inference; "
                     "for training use --seq-len and --micro-batch (and --fp8)");
  }
  if ((!flags.lora_rank.empty() || !flags.lora_targets.empty()) && request.task != Task::lora &&
      request.task != Task::qlora) {
    throw UsageError("--lora-rank and --lora-targets apply to --task lora or qlora");
  }
  if (!flags.optimizer.empty() && request.task == Task::inference) {
    throw UsageError("--optimizer applies to training tasks, not inference");
  }

  // Cost.
  if (!flags.mode.empty()) {
    request.mode = parse_choice<CostMode>(flags.mode, "--mode");
  }
  for (const auto& entry : flags.prices) {
    const auto equals = entry.find('=');
    if (equals == std::string::npos) {
      throw UsageError(fmt::format("--price: '{}' is not ID=USD_PER_GPU_HOUR, e.g. --price h100-sxm5=2.10", entry));
    }
    PriceOverride price;
    try {
      price.gpu_id = catalog.resolve(entry.substr(0, equals)).id;
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("--price: {}", e.what()));
    }
    price.usd_per_gpu_hour = wrap("--price", [&] { return parse_positive_number(entry.substr(equals + 1), 10000); });
    request.prices.push_back(price);
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

// One JSON Lines request into Flags: keys are the flags' names (with '_' for
// '-'); values are strings, numbers, booleans or, for repeatable flags, lists.
Flags flags_from_json(const nlohmann::json& line, const Flags& defaults) {
  if (!line.is_object()) {
    throw UsageError("expected a JSON object, such as {\"params\": \"70B\", \"task\": \"lora\"}");
  }
  Flags f;
  f.catalogs = defaults.catalogs;
  f.rules = defaults.rules;
  f.lang = defaults.lang;
  auto text = [](const nlohmann::json& value, const std::string& key) -> std::string {
    if (value.is_string()) {
      return value.get<std::string>();
    }
    if (value.is_number_integer()) {
      return std::to_string(value.get<std::int64_t>());
    }
    if (value.is_number_float()) {
      return fmt::format("{:.17g}", value.get<double>());
    }
    throw UsageError(fmt::format("\"{}\": expected a string or a number, found {}", key, value.dump()));
  };
  auto list = [&](const nlohmann::json& value, const std::string& key) {
    std::vector<std::string> out;
    if (value.is_array()) {
      for (const auto& item : value) {
        out.push_back(text(item, key));
      }
    } else {
      out.push_back(text(value, key));
    }
    return out;
  };
  const std::vector<std::pair<std::string, std::string*>> strings = {
      {"params", &f.params},           {"active_params", &f.active_params},
      {"model", &f.model},             {"model_config", &f.model_config},
      {"task", &f.task},               {"budget", &f.budget},
      {"count", &f.count},             {"top", &f.top},
      {"max_gpus", &f.max_gpus},       {"seq_len", &f.seq_len},
      {"micro_batch", &f.micro_batch}, {"zero", &f.zero},
      {"recompute", &f.recompute},     {"lora_rank", &f.lora_rank},
      {"lora_targets", &f.lora_targets}, {"optimizer", &f.optimizer},
      {"tokens", &f.tokens},           {"epochs", &f.epochs},
      {"deadline", &f.deadline},       {"precision", &f.precision},
      {"kv_precision", &f.kv_precision}, {"context", &f.context},
      {"output_tokens", &f.output_tokens}, {"concurrency", &f.concurrency},
      {"region", &f.region},           {"mode", &f.mode},
      {"lang", &f.lang}};
  std::vector<std::string> known = {"gpu", "price", "fp8", "explain"};
  for (const auto& [key, target] : strings) {
    known.push_back(key);
  }
  for (const auto& [key, value] : line.items()) {
    if (value.is_null()) {
      continue;
    }
    bool handled = false;
    for (const auto& [name, target] : strings) {
      if (name == key) {
        *target = text(value, key);
        handled = true;
      }
    }
    if (handled) {
      continue;
    }
    if (key == "gpu") {
      f.gpus = list(value, key);
    } else if (key == "price") {
      f.prices = list(value, key);
    } else if (key == "fp8" || key == "explain") {
      if (!value.is_boolean()) {
        throw UsageError(fmt::format("\"{}\": expected true or false, found {}", key, value.dump()));
      }
      (key == "fp8" ? f.fp8 : f.explain) = value.get<bool>();
    } else {
      std::string message = fmt::format("unknown field \"{}\"", key);
      if (const auto suggestion = text::did_you_mean(key, known)) {
        message += fmt::format("; did you mean \"{}\"?", *suggestion);
      }
      throw UsageError(message);
    }
  }
  if (f.budget.empty()) {
    f.budget = "medium";
  }
  return f;
}

// Streams JSON Lines: each request's result (the --format json document on one
// line, with its line number) or error object, flushed as it is written, so
// memory does not grow with the input.
int run_batch(const Flags& flags, const Catalog& catalog, const RuleSet& rules, Presets& presets, Language language,
              std::ostream& out) {
  std::ifstream file;
  std::istream* in = &std::cin;
  if (!flags.batch_file.empty() && flags.batch_file != "-") {
    (void)read_data_file(flags.batch_file);  // the same checks as every data file
    file.open(flags.batch_file);
    in = &file;
  }
  if (!flags.output.empty()) {
    throw UsageError("batch writes to standard output; redirect it instead of --output");
  }
  bool nothing_fits = false;
  bool invalid = false;
  std::string line;
  std::size_t number = 0;
  while (std::getline(*in, line)) {
    ++number;
    if (text::trim(line).empty()) {
      continue;
    }
    try {
      if (line.size() > 1024 * 1024) {
        throw UsageError("the line is longer than 1 MiB");
      }
      nlohmann::json request_json;
      try {
        request_json = nlohmann::json::parse(line);
      } catch (const nlohmann::json::exception& e) {
        throw UsageError(fmt::format("not valid JSON: {}", e.what()));
      }
      const Flags line_flags = flags_from_json(request_json, flags);
      const Language line_language =
          line_flags.lang.empty() ? language : parse_choice<Language>(line_flags.lang, "lang");
      const ModelShape model = resolve_model(line_flags, presets);
      const Request request = to_request(line_flags, catalog, model);
      Report report = advise(request, model, catalog, rules, line_language);
      report.batch_line = static_cast<int>(number);
      nothing_fits = nothing_fits || !report.anything_fits();
      out << render_json(report, JsonStyle::line);
    } catch (const DataError& e) {
      invalid = true;
      out << render_batch_error(number, e.what());
    } catch (const Error& e) {
      invalid = true;
      out << render_batch_error(number, e.what());
    }
    out.flush();
  }
  if (invalid) {
    return static_cast<int>(ExitCode::bad_input);
  }
  return static_cast<int>(nothing_fits ? ExitCode::nothing_fits : ExitCode::ok);
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
  app.add_option("--model", flags.model, "A model preset: llama-3.1-70b, qwen2.5-72b, deepseek-v3, ... (see 'models')")
      ->group("Workload")->type_name("NAME");
  app.add_option("--model-config", flags.model_config, "A Hugging Face config.json with the model's exact shape")
      ->group("Workload")->type_name("FILE");
  app.add_option("--active-params", flags.active_params, "With --params: parameters active per token (MoE)")
      ->group("Workload")->type_name("COUNT");
  app.add_option("--task", flags.task, "pretrain | full | lora | qlora | inference (aliases: sft, finetune, serve)")
      ->group("Workload")->type_name("TASK");
  app.add_option("--budget", flags.budget,
                 "low (cost first), medium (balanced), high (speed first), or a cap in USD: 50k, 50000usd, $1.2M")
      ->group("Workload")->type_name("TIER|USD")->default_str("medium");
  app.add_option("--region", flags.region, "Where the cards are bought or rented: global (default) or cn")
      ->group("Workload")->type_name("REGION");
  app.add_option("--seq-len", flags.seq_len, "Training sequence length (default 4096)")->group("Training")->type_name("N");
  app.add_option("--micro-batch", flags.micro_batch, "Sequences per GPU per step (default 1)")
      ->group("Training")->type_name("N");
  app.add_option("--zero", flags.zero, "ZeRO stage 0-3 (default: chosen per layout)")->group("Training")->type_name("STAGE");
  app.add_option("--recompute", flags.recompute,
                 "Activation recompute: full | selective | none (default full for fine-tuning, selective for pretraining)")
      ->group("Training")->type_name("MODE");
  app.add_option("--lora-rank", flags.lora_rank, "LoRA / QLoRA rank (default 16)")->group("Training")->type_name("R");
  app.add_option("--lora-targets", flags.lora_targets,
                 "Layers LoRA adapts: all (default) | attention | mlp | a list such as q,v")
      ->group("Training")->type_name("LAYERS");
  app.add_option("--optimizer", flags.optimizer,
                 "adamw (mixed precision, FP32 master; default) | adamw-bf16 (pure BF16) | adamw-8bit")
      ->group("Training")->type_name("OPT");
  app.add_option("--tokens", flags.tokens, "Training tokens per epoch: 2T, 100M (default: 20 per parameter for "
                 "pretraining, 100M for fine-tuning)")->group("Training")->type_name("COUNT");
  app.add_option("--epochs", flags.epochs, "Passes over the dataset (default 1)")->group("Training")->type_name("X");
  app.add_flag("--fp8", flags.fp8, "Train with FP8 matmuls on cards that have them")->group("Training");
  app.add_option("--deadline", flags.deadline, "Size the cluster to finish within: 36h, 30d, 2w (pretraining default: 90d)")
      ->group("Training")->type_name("TIME");
  app.add_option("--precision", flags.precision, "Inference weights: bf16 | fp8 | int8 | int4 (default bf16)")
      ->group("Inference")->type_name("P");
  app.add_option("--kv-precision", flags.kv_precision, "KV cache: bf16 | fp8 (default bf16)")
      ->group("Inference")->type_name("P");
  app.add_option("--context", flags.context, "Tokens per sequence held in the KV cache, prompt + output (default 4096)")
      ->group("Inference")->type_name("N");
  app.add_option("--output-tokens", flags.output_tokens, "Tokens generated per request (default 512)")
      ->group("Inference")->type_name("N");
  app.add_option("--concurrency", flags.concurrency, "Sequences served at once (default 8)")
      ->group("Inference")->type_name("N");
  app.add_option("--mode", flags.mode, "rent | buy (default rent)")->group("Cost")->type_name("MODE");
  app.add_option("--price", flags.prices, "Your rent price for a card, per GPU-hour: --price h100-sxm5=2.10 (repeatable)")
      ->group("Cost")->type_name("ID=USD")->allow_extra_args(false);
  app.add_option("--gpu", flags.gpus, "Only consider this card (id or alias; repeat for several)")
      ->group("Selection")->type_name("ID")->allow_extra_args(false);
  app.add_option("--count", flags.count, "Fix the number of cards instead of finding the smallest that fits")
      ->group("Selection")->type_name("N");
  app.add_option("--top", flags.top, "List at most N recommendations")->group("Selection")->type_name("N");
  app.add_option("--max-gpus", flags.max_gpus, "The largest cluster to consider (default 65536)")
      ->group("Selection")->type_name("N");
  app.add_option("--format", flags.format, "text | json | markdown | html")
      ->group("Output")->type_name("FORMAT")->default_str("text");
  app.add_option("--color", flags.color, "auto | always | never (auto honours NO_COLOR and CLICOLOR_FORCE)")
      ->group("Output")->type_name("WHEN")->default_str("auto");
  app.add_option("--lang", flags.lang, "en | zh (default from LC_ALL / LC_MESSAGES / LANG)")
      ->group("Output")->type_name("LANG");
  app.add_option("--output", flags.output, "Write the result to FILE (atomically) instead of stdout")
      ->group("Output")->type_name("FILE");
  app.add_option("--catalog", flags.catalogs, "Add or override cards from a catalog FILE (repeatable)")
      ->group("Data")->type_name("FILE")->allow_extra_args(false);
  app.add_option("--rules", flags.rules, "Add or override scenario rules from a rules FILE (repeatable)")
      ->group("Data")->type_name("FILE")->allow_extra_args(false);
  app.add_flag("--explain", flags.explain, "Show every rule's verdict on every card, and each score's parts")
      ->group("Output");

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

  const OutputFormat format = parse_format(flags.format);
  const Language language =
      flags.lang.empty() ? language_from_environment() : parse_choice<Language>(flags.lang, "--lang");
  if ((format == OutputFormat::markdown || format == OutputFormat::html) &&
      (models_cmd->parsed() || list_cmd->parsed() || show_cmd->parsed() || rules_list_cmd->parsed())) {
    throw UsageError("--format markdown and html are reports of a recommendation; listings take text or json");
  }

  if (validate_cmd->parsed()) {
    const Catalog checked = load_catalog_file(flags.validate_file, CatalogRole::overlay);
    out << fmt::format("{}: ok, {} cards\n", flags.validate_file, checked.size());
    return static_cast<int>(ExitCode::ok);
  }

  if (rules_validate_cmd->parsed()) {
    const RuleSet checked = parse_rules(read_data_file(flags.rules_validate_file), flags.rules_validate_file,
                                        RulesRole::overlay);
    out << fmt::format("{}: ok, {} rules\n", flags.rules_validate_file, checked.rules().size());
    return static_cast<int>(ExitCode::ok);
  }
  if (rules_list_cmd->parsed()) {
    emit(flags, render_rules_text(load_rules(flags.rules), language), out);
    return static_cast<int>(ExitCode::ok);
  }
  if (models_cmd->parsed()) {
    const ModelCatalog models = load_embedded_models();
    emit(flags, format == OutputFormat::json ? render_models_json(models) : render_models_text(models, language), out);
    return static_cast<int>(ExitCode::ok);
  }

  // The catalog and the rules are independent: parse them side by side.
  auto rules_loading = std::async(std::launch::async, [&] { return load_rules(flags.rules); });
  const Catalog catalog = load_catalog(flags.catalogs);
  if (list_cmd->parsed()) {
    emit(flags, format == OutputFormat::json ? render_catalog_list_json(catalog) : render_catalog_list_text(catalog, language),
         out);
    return static_cast<int>(ExitCode::ok);
  }
  if (show_cmd->parsed()) {
    const GpuSpec& gpu = catalog.resolve(flags.show_id);
    emit(flags, format == OutputFormat::json ? render_gpu_json(gpu) : render_gpu_text(gpu, language), out);
    return static_cast<int>(ExitCode::ok);
  }

  const RuleSet rules = rules_loading.get();
  Presets presets;
  if (batch_cmd->parsed()) {
    return run_batch(flags, catalog, rules, presets, language, out);
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
  const Report report = advise(request, model, catalog, rules, language);
  const bool to_file = !flags.output.empty();
  std::string rendered;
  switch (format) {
    case OutputFormat::text:
      rendered = render_text(report, TextStyle{use_color(flags.color, to_file), text_width(to_file)});
      break;
    case OutputFormat::json: rendered = render_json(report); break;
    case OutputFormat::markdown: rendered = render_markdown(report); break;
    case OutputFormat::html: rendered = render_html(report); break;
  }
  emit(flags, rendered, out);
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
