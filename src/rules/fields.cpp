// The fields a rule can look at (request, card, estimate), their types and
// valid words, and how a value is shown in a message (docs/rules.md).
#include "rules/fields.hpp"

#include <cstdio>
#include <functional>

#include <fmt/format.h>

#include "core/quantity_format.hpp"
#include "gpu_advise/catalog.hpp"
#include "gpu_advise/phrases.hpp"
#include "gpu_advise/text.hpp"
#include "gpu_advise/units.hpp"

namespace gpu_advise {

namespace {

using Getter = std::function<std::optional<FieldValue>(const Facts&)>;

struct Field {
  FieldInfo info;
  Getter get;
};

template <typename E>
std::vector<std::string> words_of() {
  return enum_names<E>();
}

std::optional<FieldValue> number(double value) { return FieldValue{value}; }
std::optional<FieldValue> word(std::string_view value) { return FieldValue{std::string(value)}; }
std::optional<FieldValue> yes(bool value) { return FieldValue{value}; }

const Estimate* fitted(const Facts& f) { return (f.estimate != nullptr && f.estimate->fits) ? f.estimate : nullptr; }

const std::vector<Field>& registry() {
  static const std::vector<Field> fields = [] {
    std::vector<Field> v;
    auto add = [&](std::string_view name, FieldType type, std::string_view about, std::vector<std::string> words,
                   Getter get) {
      v.push_back(Field{FieldInfo{name, type, about, std::move(words)}, std::move(get)});
    };
    const auto N = FieldType::number;
    const auto W = FieldType::word;
    const auto B = FieldType::boolean;
    // ---- the request ----
    add("task", W, "pretrain, full, lora, qlora or inference", words_of<Task>(),
        [](const Facts& f) { return word(to_string(f.request->task)); });
    add("training", B, "true for pretrain, full, lora and qlora", {},
        [](const Facts& f) { return yes(is_training(f.request->task)); });
    add("params", N, "total parameters (70B = 70000000000)", {},
        [](const Facts& f) { return number(f.request->params); });
    add("params_b", N, "total parameters in billions", {},
        [](const Facts& f) { return number(f.request->params / 1e9); });
    add("active_params_b", N, "parameters active per token, in billions (MoE; = params_b for dense)", {},
        [](const Facts& f) { return number(f.request->active_params.value_or(f.request->params) / 1e9); });
    add("budget", W, "the budget tier: low, medium or high", words_of<BudgetTier>(),
        [](const Facts& f) { return word(to_string(f.request->budget)); });
    add("budget_usd", N, "the --budget amount in USD (absent when a tier was given)", {},
        [](const Facts& f) { return f.request->budget_usd ? number(*f.request->budget_usd) : std::nullopt; });
    add("region", W, "where the cards are bought or rented: global or cn", words_of<Region>(),
        [](const Facts& f) { return word(to_string(f.request->region)); });
    add("mode", W, "rent or buy", words_of<CostMode>(),
        [](const Facts& f) { return word(to_string(f.request->mode)); });
    add("condition", W, "buying: new, or used (--condition)", words_of<Condition>(),
        [](const Facts& f) { return word(to_string(f.request->ownership.condition)); });
    add("owned", B, "true when the user already has the cards (the fit command): rules about getting them do not apply",
        {}, [](const Facts& f) { return yes(f.request->owned); });
    add("precision", W, "inference weights (bf16, fp8, int8, int4); training: bf16 or fp8",
        {"bf16", "fp8", "int8", "int4"}, [](const Facts& f) {
          if (is_training(f.request->task)) {
            return word(f.request->fp8_training ? "fp8" : "bf16");
          }
          return word(to_string(f.request->precision));
        });
    add("context", N, "inference: tokens per sequence held in the KV cache", {},
        [](const Facts& f) { return f.request->task == Task::inference ? number(f.request->context) : std::nullopt; });
    add("concurrency", N, "inference: sequences served at once per replica (the operating point)", {},
        [](const Facts& f) -> std::optional<FieldValue> {
          const auto* e = fitted(f);
          if (e != nullptr && e->inference) {
            return number(e->inference->concurrency);
          }
          return f.request->task == Task::inference && f.request->concurrency ? number(*f.request->concurrency)
                                                                              : std::nullopt;
        });
    add("seq_len", N, "training: sequence length", {},
        [](const Facts& f) { return is_training(f.request->task) ? number(f.request->seq_len) : std::nullopt; });
    add("deadline_days", N, "the training deadline in days (absent without one)", {}, [](const Facts& f) {
      const auto hours = f.request->effective_deadline_hours();
      return hours && is_training(f.request->task) ? number(*hours / 24.0) : std::nullopt;
    });
    // ---- the card ----
    add("gpu", W, "the card's catalog id", {}, [](const Facts& f) { return word(f.gpu->id); });
    add("gpu_name", W, "the card's name", {}, [](const Facts& f) { return word(f.gpu->name); });
    add("vendor", W, "the card's vendor: nvidia, amd, huawei, intel, baidu, cambricon or hygon", words_of<Vendor>(),
        [](const Facts& f) { return word(to_string(f.gpu->vendor)); });
    add("architecture", W, "the card's architecture (turing, ampere, ada, hopper, blackwell, cdna3, cdna4, ...)",
        words_of<Architecture>(), [](const Facts& f) { return word(to_string(f.gpu->architecture)); });
    add("software", W, "the software stack: cuda, rocm, cann, gaudi, xpu, neuware or dtk", words_of<SoftwareStack>(),
        [](const Facts& f) { return word(to_string(f.gpu->software)); });
    add("form_factor", W, "sxm, pcie, oam or module", words_of<FormFactor>(),
        [](const Facts& f) { return word(to_string(f.gpu->form_factor)); });
    add("memory_type", W, "HBM2e, HBM3, GDDR6, ... as in the catalog", {},
        [](const Facts& f) { return word(f.gpu->memory.type); });
    add("memory_kind", W, "hbm (stacked, datacenter) or gddr (graphics-class)", {"hbm", "gddr"},
        [](const Facts& f) { return word(text::to_lower(f.gpu->memory.type).rfind("gddr", 0) == 0 ? "gddr" : "hbm"); });
    add("memory_gb", N, "the card's memory as marketed (80 for an 80 GB card)", {},
        [](const Facts& f) { return number(f.gpu->memory.size_gb); });
    add("bandwidth_gb_per_s", N, "peak memory bandwidth, GB/s", {},
        [](const Facts& f) { return number(f.gpu->memory.bandwidth_gb_per_s); });
    add("bf16_tflops", N, "dense BF16 TFLOPS", {}, [](const Facts& f) { return number(f.gpu->compute.bf16_tflops); });
    add("bf16", B, "the card has BF16 (T4 and older run FP16 mixed precision instead)", {},
        [](const Facts& f) { return yes(f.gpu->compute.has_bf16); });
    add("fp8", B, "the card has FP8", {}, [](const Facts& f) { return yes(f.gpu->compute.fp8_tflops.has_value()); });
    add("fp4", B, "the card has FP4", {}, [](const Facts& f) { return yes(f.gpu->compute.fp4_tflops.has_value()); });
    add("interconnect_gb_per_s", N, "scale-up bandwidth per GPU, bidirectional, GB/s", {},
        [](const Facts& f) { return number(f.gpu->interconnect.bandwidth_gb_per_s); });
    add("interconnect", W, "the scale-up interconnect's name", {},
        [](const Facts& f) { return word(f.gpu->interconnect.name); });
    add("domain_size", N, "GPUs sharing the scale-up fabric (1 = none)", {},
        [](const Facts& f) { return number(f.gpu->interconnect.domain_size); });
    add("tdp_w", N, "board power, W", {},
        [](const Facts& f) { return f.gpu->tdp_w ? number(*f.gpu->tdp_w) : std::nullopt; });
    add("confidence", W, "the card's catalog confidence: datasheet, secondary or estimate", words_of<Confidence>(),
        [](const Facts& f) { return word(to_string(f.gpu->confidence)); });
    add("availability", W, "the card's status in the request's region", words_of<AvailabilityStatus>(),
        [](const Facts& f) -> std::optional<FieldValue> {
          const auto* a = f.gpu->availability_in(f.request->region);
          return a ? word(to_string(a->status)) : std::nullopt;
        });
    add("availability_since", W, "when that status began", {}, [](const Facts& f) -> std::optional<FieldValue> {
      const auto* a = f.gpu->availability_in(f.request->region);
      return a && !a->since.empty() ? word(a->since) : std::nullopt;
    });
    add("availability_verified", W, "when that status was last checked", {},
        [](const Facts& f) -> std::optional<FieldValue> {
          const auto* a = f.gpu->availability_in(f.request->region);
          return a ? word(a->verified) : std::nullopt;
        });
    add("availability_dates", W, "'since 2022-09, verified 2026-01' (or only the verification date)", {},
        [](const Facts& f) -> std::optional<FieldValue> {
          const auto* a = f.gpu->availability_in(f.request->region);
          if (a == nullptr) {
            return std::nullopt;
          }
          return word(a->since.empty() ? fmt::format("verified {}", a->verified)
                                       : fmt::format("since {}, verified {}", a->since, a->verified));
        });
    add("availability_note", W, "the catalog's note on that status", {},
        [](const Facts& f) -> std::optional<FieldValue> {
          const auto* a = f.gpu->availability_in(f.request->region);
          return a && !a->note.empty() ? word(a->note) : std::nullopt;
        });
    add("launched", W, "when the card first shipped, YYYY-MM", {}, [](const Facts& f) -> std::optional<FieldValue> {
      return f.gpu->launched.empty() ? std::nullopt : word(f.gpu->launched);
    });
    add("new_supply", W, "whether new cards can still be bought in the region: available or discontinued",
        words_of<Supply>(), [](const Facts& f) -> std::optional<FieldValue> {
          const auto* a = f.gpu->availability_in(f.request->region);
          return a ? word(to_string(a->new_supply)) : std::nullopt;
        });
    add("new_supply_since", W, "when new supply ended (absent while it goes on, or when no date is recorded)", {},
        [](const Facts& f) -> std::optional<FieldValue> {
          const auto* a = f.gpu->availability_in(f.request->region);
          return a && !a->new_supply_since.empty() ? word(a->new_supply_since) : std::nullopt;
        });
    add("new_supply_dates", W, "'since 2025-08', or 'date not recorded', for a discontinued card", {},
        [](const Facts& f) -> std::optional<FieldValue> {
          const auto* a = f.gpu->availability_in(f.request->region);
          if (a == nullptr || a->new_supply != Supply::discontinued) {
            return std::nullopt;
          }
          return word(a->new_supply_since.empty() ? std::string("date not recorded")
                                                  : fmt::format("since {}", a->new_supply_since));
        });
    add("legal_stock", B,
        "units can be in the region legally (to rent): never banned there, launched before the ban, or licensed "
        "units shipped",
        {}, [](const Facts& f) { return yes(f.gpu->legal_stock_in(f.request->region)); });
    add("licensed_shipments", B, "licensed units of the card have shipped to the region", {},
        [](const Facts& f) -> std::optional<FieldValue> {
          const auto* a = f.gpu->availability_in(f.request->region);
          return a ? yes(!a->licensed_shipments_since.empty()) : std::nullopt;
        });
    add("banned_since", W, "when exports of the card to the region were first prohibited (absent if never)", {},
        [](const Facts& f) -> std::optional<FieldValue> {
          const auto* a = f.gpu->availability_in(f.request->region);
          return a && !a->banned_since.empty() ? word(a->banned_since) : std::nullopt;
        });
    add("importer_stance", W, "the importing government's stance in the region, where one is recorded",
        words_of<Stance>(), [](const Facts& f) -> std::optional<FieldValue> {
          const auto* a = f.gpu->availability_in(f.request->region);
          return a && a->importer ? word(to_string(a->importer->stance)) : std::nullopt;
        });
    add("importer_note", W, "the catalog's note on that stance", {}, [](const Facts& f) -> std::optional<FieldValue> {
      const auto* a = f.gpu->availability_in(f.request->region);
      return a && a->importer && !a->importer->note.empty() ? word(a->importer->note) : std::nullopt;
    });
    add("status_age_months", N, "months from the status's last verification to the catalog's date", {},
        [](const Facts& f) -> std::optional<FieldValue> {
          const auto* a = f.gpu->availability_in(f.request->region);
          if (a == nullptr || f.catalog_updated.empty()) {
            return std::nullopt;
          }
          const auto months = months_between(a->verified, f.catalog_updated);
          return months ? number(*months) : std::nullopt;
        });
    add("price_known", B, "the card has a sourced price for the mode and region", {}, [](const Facts& f) {
      if (f.estimate == nullptr) {
        return yes(false);
      }
      return yes(budget_cost_usd(*f.request, *f.estimate).has_value());
    });
    // ---- the estimate (absent when the card does not fit) ----
    add("fits", B, "the workload fits on this card", {},
        [](const Facts& f) { return yes(f.estimate != nullptr && f.estimate->fits); });
    add("gpus", N, "GPUs in the plan", {}, [](const Facts& f) {
      const auto* e = fitted(f);
      return e ? number(e->count) : std::nullopt;
    });
    add("gpus_needed", N, "the fewest GPUs that would fit (and meet the deadline) if any count could be rented", {},
        [](const Facts& f) {
          const auto* e = fitted(f);
          return e ? number(e->sizing.needed) : std::nullopt;
        });
    add("smallest_offered", N, "the fewest GPUs on offer (rent shapes, whole servers) that fit", {},
        [](const Facts& f) {
          const auto* e = fitted(f);
          return e ? number(e->sizing.smallest) : std::nullopt;
        });
    add("offer_excess", N, "smallest_offered / gpus_needed: how much larger the smallest plan on offer is", {},
        [](const Facts& f) {
          const auto* e = fitted(f);
          return e && e->sizing.needed > 0
                     ? number(static_cast<double>(e->sizing.smallest) / static_cast<double>(e->sizing.needed))
                     : std::nullopt;
        });
    add("nodes", N, "servers in the plan (of the card's gpus_per_node)", {}, [](const Facts& f) {
      const auto* e = fitted(f);
      return e ? number(e->nodes) : std::nullopt;
    });
    add("tensor_parallel", N, "tensor-parallel size of the layout", {}, [](const Facts& f) {
      const auto* e = fitted(f);
      return e ? number(e->layout.tensor) : std::nullopt;
    });
    add("pipeline_parallel", N, "pipeline-parallel size of the layout", {}, [](const Facts& f) {
      const auto* e = fitted(f);
      return e ? number(e->layout.pipeline) : std::nullopt;
    });
    add("headroom", N, "share of usable memory left unused, 0 to 1", {}, [](const Facts& f) {
      const auto* e = fitted(f);
      return e ? number(e->headroom()) : std::nullopt;
    });
    add("memory_per_gpu_gb", N, "memory needed per GPU, GB", {}, [](const Facts& f) {
      const auto* e = fitted(f);
      return e ? number(e->per_gpu.total() / 1e9) : std::nullopt;
    });
    add("wall_days", N, "training: typical wall time in days", {}, [](const Facts& f) {
      const auto* e = fitted(f);
      return e && e->training ? number(e->training->wall_hours.typical / 24.0) : std::nullopt;
    });
    add("tokens_per_s", N, "inference: typical output tokens/s at the operating point, all replicas", {},
        [](const Facts& f) {
          const auto* e = fitted(f);
          return e && e->inference ? number(e->inference->tokens_per_s.typical) : std::nullopt;
        });
    add("tpot_ms", N, "inference: typical time per output token for each sequence, ms", {}, [](const Facts& f) {
      const auto* e = fitted(f);
      return e && e->inference ? number(e->inference->tpot_ms.typical) : std::nullopt;
    });
    add("user_tokens_per_s", N, "inference: output tokens/s each user sees (1000 / tpot_ms)", {},
        [](const Facts& f) -> std::optional<FieldValue> {
          const auto* e = fitted(f);
          return e && e->inference ? number(e->inference->user_tokens_per_s.typical) : std::nullopt;
        });
    add("ttft_ms", N, "inference: typical time to first token at the operating point, ms", {}, [](const Facts& f) {
      const auto* e = fitted(f);
      return e && e->inference ? number(e->inference->ttft_ms.typical) : std::nullopt;
    });
    add("cost_usd", N, "the plan's typical cost: a training run or a month of serving (rent), or the cards (buy)", {},
        [](const Facts& f) -> std::optional<FieldValue> {
          const auto* e = fitted(f);
          if (e == nullptr) {
            return std::nullopt;
          }
          const auto cost = budget_cost_usd(*f.request, *e);
          return cost ? number(*cost) : std::nullopt;
        });
    // The fields read from the request alone: their getters touch neither the
    // card nor the estimate (test_rules.cpp calls each with neither).
    static constexpr std::string_view request_fields[] = {
        "task", "training",  "params", "params_b",  "active_params_b", "budget",  "budget_usd",   "region",
        "mode", "condition", "owned",  "precision", "context",         "seq_len", "deadline_days"};
    for (auto& field : v) {
      field.info.per_request =
          std::find(std::begin(request_fields), std::end(request_fields), field.info.name) != std::end(request_fields);
    }
    return v;
  }();
  return fields;
}

}  // namespace

std::optional<int> months_between(std::string_view earlier, std::string_view later) {
  auto parse = [](std::string_view date) -> std::optional<int> {
    int year = 0;
    int month = 1;
    if (date.size() < 4 || std::sscanf(std::string(date.substr(0, 4)).c_str(), "%4d", &year) != 1) {
      return std::nullopt;
    }
    if (date.size() >= 7 && std::sscanf(std::string(date.substr(5, 2)).c_str(), "%2d", &month) != 1) {
      return std::nullopt;
    }
    return year * 12 + (month - 1);
  };
  const auto a = parse(earlier);
  const auto b = parse(later);
  if (!a || !b) {
    return std::nullopt;
  }
  return *b - *a;
}

int find_field(std::string_view name) {
  const auto& fields = registry();
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].info.name == name) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

std::vector<std::string> field_names() {
  std::vector<std::string> out;
  for (const auto& field : registry()) {
    out.emplace_back(field.info.name);
  }
  return out;
}

bool equal(const FieldValue& a, const FieldValue& b) {
  if (a.index() != b.index()) {
    return false;
  }
  if (const auto* s = std::get_if<std::string>(&a)) {
    return text::to_lower(*s) == text::to_lower(std::get<std::string>(b));
  }
  return a == b;
}

std::string show(const FieldValue& value, std::string_view field, const Facts& facts, Language language) {
  if (language == Language::zh) {
    if (field == "availability" || field == "new_supply" || field == "importer_stance") {
      static const std::map<std::string, Phrase> words = {{"available", Phrase::value_available},
                                                          {"licence_required", Phrase::value_licence_required},
                                                          {"case_by_case", Phrase::value_case_by_case},
                                                          {"restricted", Phrase::value_restricted},
                                                          {"banned", Phrase::value_banned},
                                                          {"not_offered", Phrase::value_not_offered},
                                                          {"discontinued", Phrase::value_discontinued},
                                                          {"encouraged", Phrase::value_stance_encouraged},
                                                          {"neutral", Phrase::value_stance_neutral},
                                                          {"discouraged", Phrase::value_stance_discouraged},
                                                          {"blocked", Phrase::value_stance_blocked}};
      const auto it = words.find(std::get<std::string>(value));
      return it == words.end() ? std::get<std::string>(value) : say(language, it->second);
    }
    if (field == "new_supply_dates") {
      const auto* a = facts.gpu->availability_in(facts.request->region);
      return a->new_supply_since.empty() ? say(language, Phrase::value_date_not_recorded)
                                         : say(language, Phrase::value_since, a->new_supply_since);
    }
    if (field == "availability_dates") {
      const auto* a = facts.gpu->availability_in(facts.request->region);
      return a->since.empty() ? say(language, Phrase::value_verified, a->verified)
                              : say(language, Phrase::value_since_verified, a->since, a->verified);
    }
    if (const auto* b = std::get_if<bool>(&value)) {
      return say(language, *b ? Phrase::value_yes : Phrase::value_no);
    }
  }
  if (const auto* d = std::get_if<double>(&value)) {
    if (field == "params") {
      return format_parameter_count(*d);
    }
    if (field == "cost_usd" || field == "budget_usd") {
      return format::money(*d, format::money_unit(*facts.request));
    }
    if (field == "headroom") {
      return fmt::format("{:.0f}%", *d * 100.0);
    }
    return format::number(*d);
  }
  if (const auto* b = std::get_if<bool>(&value)) {
    return *b ? "yes" : "no";
  }
  return std::get<std::string>(value);
}

const std::vector<FieldInfo>& rule_fields() {
  static const std::vector<FieldInfo> infos = [] {
    std::vector<FieldInfo> out;
    for (const auto& field : registry()) {
      out.push_back(field.info);
    }
    return out;
  }();
  return infos;
}

std::optional<FieldValue> field_value(std::string_view name, const Facts& facts) {
  return field_value(find_field(name), facts);
}

std::optional<FieldValue> field_value(int field_index, const Facts& facts) {
  const auto& fields = registry();
  return field_index >= 0 && static_cast<std::size_t>(field_index) < fields.size()
             ? fields[static_cast<std::size_t>(field_index)].get(facts)
             : std::nullopt;
}

}  // namespace gpu_advise
