// Flags as typed, and what they become: the model they describe and the
// validated Request. Shared by the command line and batch lines.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "gpu_advise/catalog.hpp"
#include "gpu_advise/error.hpp"
#include "gpu_advise/model.hpp"
#include "gpu_advise/render.hpp"
#include "gpu_advise/request.hpp"
#include "gpu_advise/text.hpp"
#include "gpu_advise/units.hpp"

namespace gpu_advise::cli {

inline constexpr std::int64_t max_count = 100000;
inline constexpr std::int64_t max_top = 10000;
inline constexpr double max_price_usd_per_gpu_hour = 10000;
// --power-price: the dearest electricity accepted, per kWh (retail peaks are under 1 USD).
inline constexpr double max_power_usd_per_kwh = 2;

// Raw flag values, exactly as typed; validated in to_request().
struct Flags {
  std::string params;
  std::string active_params;
  std::string model;
  std::string model_config;
  std::string task;
  std::string budget;  // empty: the Request's default tier
  std::vector<std::string> gpus;
  std::string count;
  std::vector<std::string> fit_counts;  // fit: --count per --gpu
  std::string top;
  std::string format;  // empty: from each --output file's extension, else text
  std::string color = "auto";
  std::string lang;
  std::vector<std::string> outputs;  // --output, repeatable; "-" is standard output
  std::vector<std::string> catalogs;
  std::vector<std::string> rules;
  std::string region;
  std::string ecosystem;
  bool explain = false;
  std::string explain_level;  // --explain[=fired|all]: "fired" when given bare
  std::string prepared_for;   // the report's header (--prepared-for, --prepared-by)
  std::string prepared_by;
  bool compact = false;  // JSON: the top plan's key figures only (docs/json.md)
  std::string rules_validate_file;
  std::vector<std::string> compare_ids;
  std::string batch_file;
  std::string show_id;
  std::vector<std::string> help_topic;  // help [COMMAND [SUBCOMMAND]]
  std::string validate_file;
  std::vector<std::string> prices_files;       // prices FILE...
  std::vector<std::string> measurement_files;  // calibrate FILE...
  std::string calibrate_check;                 // calibrate --check FILE
  // sizing
  std::string seq_len;
  std::string micro_batch;
  std::string global_batch;
  std::string zero;
  std::string tensor_parallel;
  std::string pipeline_parallel;
  std::string data_parallel;
  std::string context_parallel;
  std::string recompute;
  std::string lora_rank;
  std::string lora_targets;
  std::string optimizer;
  std::string offload;
  std::string loss;
  std::string stack;
  std::string pipeline_schedule;
  bool optimizer_in_backward = false;
  std::string goodput;
  std::string tokens;
  std::string epochs;
  bool fp8 = false;
  std::string deadline;
  std::string precision;
  std::string kv_precision;
  std::string context;
  std::string output_tokens;
  std::string concurrency;
  std::string copies;
  std::string expert_parallel;
  std::string engine;
  std::string max_batch;
  std::string tpot_ms;
  std::string ttft_ms;
  std::string request_rate;
  std::string max_gpus;
  std::string mode;
  std::string currency;
  std::vector<std::string> prices;
  std::vector<std::string> price_files;  // --price-file, as typed (PROVIDER=FILE or FILE)
  bool spot = false;
  std::string market;
  std::string condition;
  std::string years;
  std::string utilization;
  std::string power_price;
  std::vector<std::string> calibration_files;  // --calibration, as typed
  // The --calibration files' calibrations, once read (the Request's).
  std::vector<Calibration> calibrated;
  // What the --price-file files priced, once read (stated in the assumptions).
  std::vector<PriceFileSummary> priced_by;
  // The defaults of the environment and config file these flags took
  // (defaults.hpp); a batch line that sets the key drops its entry.
  std::vector<ConfiguredDefault> configured;
};

// Where a flag applies: any task, training tasks, LoRA and QLoRA, or inference.
enum class FlagScope { any, training, lora, inference };

// The commands, each with the flags it takes (accepts()); recommend is also
// what a bare `gpu-advise --params ...` runs.
enum class Command {
  recommend,
  compare,
  fit,
  batch,
  models,
  catalog_list,
  catalog_show,
  catalog_validate,
  prices,
  calibrate,
  rules_list,
  rules_validate,
  help,
};
// "catalog list"
[[nodiscard]] std::string_view command_name(Command command);

// A set of commands: those a flag applies to.
class Commands {
 public:
  constexpr Commands(std::initializer_list<Command> commands) {
    for (const Command command : commands) {
      m_bits |= 1U << static_cast<unsigned>(command);
    }
  }
  [[nodiscard]] constexpr bool has(Command command) const { return (m_bits >> static_cast<unsigned>(command)) & 1U; }

 private:
  unsigned m_bits = 0;
};

// The advice commands: most flags describe the workload, so they take them.
inline constexpr Commands advice_commands{Command::recommend, Command::compare, Command::fit};

// What a request is made of, for the flags whose value depends on more than
// itself (a card id on the catalog, an amount on the currency).
struct RequestInputs {
  const Flags& flags;
  const Catalog& catalog;
  const ModelShape& model;
};

// How a flag's value becomes part of the Request, checked where the flag is
// declared (flag_values.hpp). Called once for each value: a repeatable
// flag's every value, a switch's "" when it is on.
using ApplyFlag = void (*)(std::string_view flag, const std::string& value, Request& request,
                           const RequestInputs& inputs);

// One flag, declared once: the CLI11 wiring, --help, the batch line keys,
// the value's parse and the scope errors all come from flag_table(); a test
// checks the bash completion and the man page list exactly these flags.
struct FlagSpec {
  std::string_view name;  // "--seq-len"
  std::variant<std::string Flags::*, std::vector<std::string> Flags::*, bool Flags::*> field;
  ApplyFlag apply;             // nullptr: not part of the Request (the model, output, data files)
  std::string_view group;      // the --help section
  std::string_view type_name;  // "N", "FILE"; empty for a yes/no flag
  std::string help;            // one line for --help; defaults in it come from Request{}
  std::string default_text;    // shown by --help as =VALUE; empty: none shown
  FlagScope scope = FlagScope::any;
  std::string_view batch_key;         // the key in a batch line ("seq_len"); empty: the command line only
  bool repeatable = false;            // --gpu A --gpu B
  std::string_view short_name;        // "-p"; empty: none
  Commands takers = advice_commands;  // the commands that take it (accepts())
};

[[nodiscard]] const std::vector<FlagSpec>& flag_table();

// Whether `command` takes the flag: a flag a command would ignore is an
// error, and each command's --help lists exactly the flags it takes.
[[nodiscard]] bool accepts(Command command, const FlagSpec& spec);
// Whether the command sizes plans, and so reads --calibration (or its default).
[[nodiscard]] bool accepts_calibration(Command command);

// Whether the flag was given (a non-empty value, a list, or true).
[[nodiscard]] bool given(const Flags& flags, const FlagSpec& spec);

template <typename E>
E parse_choice(const std::string& raw, std::string_view flag) {
  if (const auto value = enum_from_string<E>(text::to_lower(text::trim(raw)))) {
    return *value;
  }
  const auto valid = enum_names<E>();
  std::string message =
      fmt::format("{}: '{}' is not valid; expected {}", flag, text::excerpt(raw), text::join_or(valid));
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

[[nodiscard]] OutputFormat parse_format(const std::string& raw);

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

// The model the flags describe: exactly one of --params, --model, --model-config.
[[nodiscard]] ModelShape resolve_model(const Flags& flags, Presets& presets);

// The validated request; UsageError names the flag that is wrong.
[[nodiscard]] Request to_request(const Flags& flags, const Catalog& catalog, const ModelShape& model);

}  // namespace gpu_advise::cli
