// Everything gpu-advise says to people, in English and Chinese: labels, the
// rationale's sentences, reasons, assumptions, units. Estimators return
// structured facts; this module turns them into words in one language.
#pragma once

#include <string>
#include <string_view>

#include <fmt/format.h>

#include "gpu_advise/gpu.hpp"

namespace gpu_advise {

enum class Language { en, zh };
[[nodiscard]] std::span<const EnumName<Language>> names(Language);

// en, or zh when LC_ALL, LC_MESSAGES or LANG (the first one set) starts with "zh".
[[nodiscard]] Language language_from_environment();

// Every phrase with a translation. The English text is the key's meaning.
enum class Phrase {
  // headline and sections
  header,
  header_budget_amount,
  renting,
  buying,
  model_inferred,
  model_inferred_moe,
  best,
  best_rent,
  best_buy,
  best_training_time,
  best_training_cost,
  best_inference,
  best_inference_cost,
  best_memory,
  more_fit,
  nothing_fits,
  nothing_fits_selected,
  ways_out,
  way_out,
  way_out_without,
  way_out_price,
  way_out_time,
  rejected,
  warnings,
  assumptions,
  footer,
  why,
  rule_evaluation,
  rule_fired,
  rule_rejected,
  // table
  col_gpu,
  col_count,
  col_memory,
  col_time,
  col_throughput,
  col_rent_run,
  col_rent_per_m,
  col_own_run,
  col_own_per_m,
  col_score,
  col_reason,
  no_price,
  tokens_per_s_cell,
  per_m_cell,
  // score parts
  score_parts,
  score_rules,
  // tasks and tiers
  task_pretrain,
  task_full,
  task_lora,
  task_qlora,
  task_inference,
  tier_low,
  tier_medium,
  tier_high,
  // rationale
  fits_on,
  memory_inference,
  memory_adapters,
  memory_full,
  training_time,
  range,
  inference_speed,
  buy_cards,
  buy_run,
  buy_month,
  buy_per_m,
  no_purchase_price,
  rent_run,
  rent_serving,
  your_price,
  one_quote,
  quotes,
  no_rent_price,
  cheapest_fastest,
  cheapest,
  fastest,
  rule_line,
  warning_line,
  // layouts
  layout_one,
  layout_tp,
  layout_tp_pp,
  layout_fsdp,
  layout_ddp,
  layout_full_recompute,
  // estimate notes
  note_pcie_scale_out,
  note_pair_scale_out,
  note_multi_node,
  note_fp8_fallback,
  note_tp_over_pcie,
  // shortfalls and other reasons
  why_no_fp8,
  why_deadline,
  why_count,
  why_activations,
  why_too_many,
  not_selected,
  rule_reason,
  unmatched_rule,
  budget_no_price_rent,
  budget_no_price_buy,
  budget_over_cards,
  budget_over_run,
  budget_over_month,
  // assumptions
  assume_inferred,
  assume_preset,
  assume_preset_moe,
  assume_config,
  assume_training_precision_bf16,
  assume_training_precision_fp8,
  assume_sequence,
  recompute_full,
  recompute_selective,
  recompute_none,
  assume_pretrain_tokens_given,
  assume_pretrain_tokens_default,
  assume_finetune_tokens,
  assume_finetune_tokens_default,
  assume_model_states,
  assume_lora,
  assume_qlora_base,
  assume_deadline_given,
  assume_deadline_default,
  assume_inference,
  assume_memory,
  assume_rent,
  assume_buy,
  // consultant report
  report_title,
  report_generated_by,
  section_summary,
  section_recommendation,
  section_comparison,
  section_charts,
  section_memory,
  section_risks,
  section_rejected,
  section_assumptions,
  section_sources,
  label_model,
  label_task,
  label_budget,
  label_region,
  label_mode,
  label_workload,
  region_global,
  region_cn,
  col_layout,
  col_time_range,
  col_throughput_range,
  col_cost_range,
  col_weights,
  col_gradients,
  col_optimizer,
  col_activations,
  col_kv_cache,
  col_reserve,
  col_total,
  col_capacity,
  chart_cost_time,
  chart_cost_throughput,
  chart_memory,
  axis_time,
  axis_throughput,
  axis_cost_run,
  axis_cost_hour,
  axis_memory,
  legend_usable,
  no_risks,
  label_confidence,
  label_sources,
  label_rent_quotes,
  label_purchase_quotes,
  none_found,
  // units
  unit_minutes,
  unit_hours,
  unit_days,
  unit_years,
  unit_per_hour,
  unit_per_gpu_hour,
};

// The phrase's format string (fmt syntax) in `language`.
[[nodiscard]] std::string_view phrase(Language language, Phrase id);

// fmt::format of the phrase.
template <typename... Args>
[[nodiscard]] std::string say(Language language, Phrase id, Args&&... args) {
  return fmt::format(fmt::runtime(phrase(language, id)), std::forward<Args>(args)...);
}

// "45 min" / "45 分钟", "12.5 h" / "12.5 小时", "8.2 days" / "8.2 天", "3.1 years" / "3.1 年".
[[nodiscard]] std::string say_duration(Language language, double hours);

}  // namespace gpu_advise
