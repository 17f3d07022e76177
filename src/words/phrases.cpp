#include "gpu_advise/wording.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <iterator>
#include <string>

#include "gpu_advise/text.hpp"

namespace gpu_advise {

std::span<const EnumName<Language>> names(Language) {
  static constexpr EnumName<Language> table[] = {{Language::en, "en"}, {Language::zh, "zh"}};
  return table;
}

Language language_from_environment() {
  for (const char* variable : {"LC_ALL", "LC_MESSAGES", "LANG"}) {
    const char* value = std::getenv(variable);
    if (value != nullptr && value[0] != '\0') {
      return text::to_lower(value).rfind("zh", 0) == 0 ? Language::zh : Language::en;
    }
  }
  return Language::en;
}

namespace {

struct Entry {
  Phrase id;
  std::string_view en;
  std::string_view zh;
};

// clang-format off
constexpr Entry entries[] = {
  {Phrase::header, "gpu-advise {}: {} of {}, budget {}, {}", "gpu-advise {}：{}{}，预算{}，{}"},
  {Phrase::header_budget_amount, "up to {}", "上限 {}"},
  {Phrase::renting, "renting", "租用"},
  {Phrase::buying, "buying", "购买"},
  {Phrase::model_inferred, "a {} model", " {} 参数模型"},
  {Phrase::model_inferred_moe, "a {} MoE model, {} active", " {} 参数 MoE 模型（激活 {}）"},
  {Phrase::best, "Best: {} x {}", "推荐：{} × {}"},
  {Phrase::best_rent, ", rent about {}/GPU-hour", "，租金约每卡时 {}"},
  {Phrase::best_buy, ", cards about {} to buy", "，购卡约 {}"},
  {Phrase::best_training_time, "; about {}", "；约 {}"},
  {Phrase::best_training_cost, " and {} for the run", "，整次训练约 {}"},
  {Phrase::best_basis_quotes, " (median of dated quotes)", "（有日期报价的中位数）"},
  {Phrase::best_basis_leases, " (lease rates; short rentals cost more)", "（租约价；短租更贵）"},
  {Phrase::best_basis_user, " (your --price)", "（你的 --price）"},
  {Phrase::best_tokens, " of {} tokens", "（{} tokens）"},
  {Phrase::best_tokens_default, " of {} tokens (the default; set --tokens)", "（{} tokens，默认值，可用 --tokens 设置）"},
  {Phrase::best_concurrency, " for {} concurrent sequences of {} tokens", "（{} 路并发，每路 {} tokens）"},
  {Phrase::best_inference, "; about {:.0f} tokens/s ({:.0f} per user, {:.0f} ms per token)",
   "；约 {:.0f} tokens/秒（每用户 {:.0f}，每 token {:.0f} 毫秒）"},
  {Phrase::best_inference_cost, " at {} per million", "，每百万 tokens {}"},
  {Phrase::best_memory, "; needs {} GiB per GPU of {} GiB", "；每卡需 {} GiB（共 {} GiB）"},
  {Phrase::more_fit, "({} more cards fit; --top limits the list)", "（另有 {} 张卡可行；--top 限制了列表）"},
  {Phrase::nothing_fits, "Nothing fits: no card in the catalog can run this workload as asked.",
   "没有可行方案：目录中没有卡能按要求运行此任务。"},
  {Phrase::nothing_fits_selected, "Nothing fits: none of the cards chosen with --gpu can run this workload as asked.",
   "没有可行方案：--gpu 选中的卡都无法按要求运行此任务。"},
  {Phrase::ways_out, "Ways out:", "替代方案："},
  {Phrase::way_out, "{} fits on {} x {}{}{}{}", "{}：{} × {} 可行{}{}{}"},
  {Phrase::way_out_without, " without {}", "（去掉 {}）"},
  {Phrase::way_out_with, " with {}", "（改用 {}）"},
  {Phrase::way_out_price, ", rent about {}/hour", "，租金约每小时 {}"},
  {Phrase::way_out_time, ", about {}", "，约 {}"},
  {Phrase::way_out_run, ", rent about {} for the run", "，整次训练租金约 {}"},
  {Phrase::rejected, "Rejected ({}):", "未入选（{}）："},
  {Phrase::warnings, "Warnings:", "警告："},
  {Phrase::assumptions, "Assumptions:", "假设："},
  {Phrase::footer, "Catalog {} (updated {}). Estimates, not measurements: see docs/methodology.md.",
   "目录版本 {}（更新于 {}）。以上为估算而非实测：见 docs/methodology.md。"},
  {Phrase::why, "Why #{} {} (score {}):", "为什么是 #{} {}（得分 {}）："},
  {Phrase::rule_evaluation, "Rule evaluation (every rule, every card considered):", "规则判定（每条规则、每张参与比较的卡）："},
  {Phrase::rule_fired, "fired", "触发"},
  {Phrase::rule_rejected, "rejected", "未入选"},
  {Phrase::col_gpu, "GPU", "GPU"},
  {Phrase::col_count, "Count", "数量"},
  {Phrase::col_memory, "GiB/GPU (need/have)", "每卡 GiB（需/有）"},
  {Phrase::col_headroom, "Headroom", "余量"},
  {Phrase::headroom_cell, "{:.0f}%", "{:.0f}%"},
  {Phrase::headroom_tight_cell, "{:.0f}% tight", "{:.0f}% 偏紧"},
  {Phrase::tight_plan,
   "tight: under 5% of usable memory is left, so a longer sequence, framework buffers or fragmentation can run it out "
   "of memory; leave room or add a card",
   "偏紧：可用显存剩余不足 5%，更长的序列、框架缓冲或内存碎片都可能导致显存不足；请留出余量或增加一张卡"},
  {Phrase::displaced_oversized,
   "{0} scored higher but would leave {1:.0f}% of its memory idle; this right-sized plan costs less and takes at "
   "most 1.5 times as long",
   "{0} 得分更高，但会有 {1:.0f}% 的显存闲置；本方案规格合适、成本更低，耗时不超过其 1.5 倍"},
  {Phrase::displaced_tight,
   "{0} scored higher but leaves only {1:.0f}% of its memory free; this plan costs within 10% of it with more room",
   "{0} 得分更高，但只剩 {1:.0f}% 的显存；本方案成本相差不到 10%，余量更充足"},
  {Phrase::col_time, "Time", "时间"},
  {Phrase::col_throughput, "Throughput", "吞吐"},
  {Phrase::col_rent_run, "Rent (run)", "租金（整次）"},
  {Phrase::col_rent_per_m, "Rent per M tok", "每百万 tokens 租金"},
  {Phrase::col_own_run, "Own (run)", "自有成本（整次）"},
  {Phrase::col_own_per_m, "Own per M tok", "每百万 tokens 自有成本"},
  {Phrase::col_score, "Score", "得分"},
  {Phrase::col_reason, "Reason", "原因"},
  {Phrase::no_price, "no price", "无报价"},
  {Phrase::tokens_per_s_cell, "{:.0f} tok/s", "{:.0f} tokens/秒"},
  {Phrase::per_m_cell, "{}/M tok", "{}/百万 tokens"},
  {Phrase::score_parts, "{:.0f} = cost {:.0f} + speed {:.0f} + headroom {:.0f} + ecosystem {:.0f}",
   "{:.0f} = 成本 {:.0f} + 速度 {:.0f} + 余量 {:.0f} + 生态 {:.0f}"},
  {Phrase::score_parts_unpriced,
   "{:.0f} = cost {:.0f} (no price: the median of the priced cards) + speed {:.0f} + headroom {:.0f} + ecosystem "
   "{:.0f}",
   "{:.0f} = 成本 {:.0f}（无报价：取有报价各卡的中位数）+ 速度 {:.0f} + 余量 {:.0f} + 生态 {:.0f}"},
  {Phrase::unpriced_count,
   "{} of the {} cards that fit have no price for this mode and region: their cost part is the median of the priced "
   "cards', neither best nor worst",
   "在可行的 {1} 张卡中有 {0} 张没有此方式与地区的报价：其成本分取有报价各卡的中位数，不算最好也不算最差"},
  {Phrase::assume_scores,
   "scores compare the cards that fit in this run (100 on a part is the best of them), so they change with the set",
   "评分在本次可行的卡之间比较（某一项 100 分即其中最好），卡的集合不同分数也会不同"},
  {Phrase::score_rules, " {} rules {:.0f}", " {} 规则 {:.0f}"},
  {Phrase::task_pretrain, "pretraining", "预训练"},
  {Phrase::task_full, "full fine-tune", "全参数微调"},
  {Phrase::task_lora, "LoRA fine-tune", "LoRA 微调"},
  {Phrase::task_qlora, "QLoRA fine-tune", "QLoRA 微调"},
  {Phrase::task_inference, "inference", "推理"},
  {Phrase::tier_low, "low", "低"},
  {Phrase::tier_medium, "medium", "中"},
  {Phrase::tier_high, "high", "高"},
  {Phrase::fits_on, "fits on {} x {} GiB as {}: needs {} GiB per GPU of {} GiB usable ({:.0f}% headroom); {}",
   "{} × {} GiB 可容纳，采用{}：每卡需 {} GiB，可用 {} GiB（余量 {:.0f}%）；{}"},
  {Phrase::memory_inference, "weights {}, KV cache {}, reserve {}", "权重 {}，KV 缓存 {}，预留 {}"},
  {Phrase::memory_adapters, "frozen base and adapters {}, adapter gradients and optimizer {}, activations {}, reserve {}",
   "冻结底座与适配器 {}，适配器梯度与优化器 {}，激活 {}，预留 {}"},
  {Phrase::memory_full, "weights {}, gradients {}, optimizer {}, activations {}, reserve {}",
   "权重 {}，梯度 {}，优化器状态 {}，激活 {}，预留 {}"},
  {Phrase::training_time, "about {0} wall time, {1} GPU-hours, for {2} tokens at {3:.0f}% MFU of {5} dense {4} TFLOPS",
   "墙钟时间约 {}，{} 卡时，训练 {} tokens，MFU {:.0f}%（{} 稠密 {} TFLOPS）"},
  {Phrase::range, "{} (range {} to {})", "{}（范围 {} 至 {}）"},
  {Phrase::inference_speed,
   "about {:.0f} output tokens/s for {} concurrent sequences ({:.0f} ms per token, first token in {:.0f} ms); up to "
   "{} sequences of {} tokens fit, about {:.0f} tokens/s",
   "{1} 路并发约 {0:.0f} 输出 tokens/秒（每 token {2:.0f} 毫秒，首 token {3:.0f} 毫秒）；最多可容纳 {4} 路 {5} tokens 的序列，约 {6:.0f} tokens/秒"},
  {Phrase::buy_cards, "buy the cards for about {}", "购卡约 {}"},
  {Phrase::buy_run, "; amortised cards and power for the run about {}", "；按折旧和电费计，整次训练约 {}"},
  {Phrase::buy_month, "; amortised cards and power about {} per month", "；按折旧和电费计，每月约 {}"},
  {Phrase::buy_per_m, ", {} per million output tokens", "，每百万输出 tokens {}"},
  {Phrase::no_purchase_price, "no sourced purchase price in the catalog: its cost part is the median of the priced cards'",
   "目录中没有有来源的购卡价格：成本分取有报价各卡的中位数"},
  {Phrase::rent_run, "rent about {} for the run at {}/GPU-hour ({})", "租用整次训练约 {}，每卡时 {}（{}）"},
  {Phrase::rent_serving, "rent {}/hour for {} GPU(s) ({}), about {} per million output tokens",
   "租金每小时 {}（{} 卡，{}），每百万输出 tokens 约 {}"},
  {Phrase::your_price, "your --price", "你的 --price"},
  {Phrase::one_quote, "one quote", "单一报价"},
  {Phrase::lease_rates_only, "; the only quotes here are monthly or longer leases, so a short rental costs more",
   "；此地区只有按月或更长期的租约报价，短期租用会更贵"},
  {Phrase::quotes, "quotes {} to {}", "报价 {} 至 {}"},
  {Phrase::no_rent_price,
   "no sourced rental price in the catalog: its cost part is the median of the priced cards' (give one with --price "
   "ID=PRICE)",
   "目录中没有有来源的租用报价：成本分取有报价各卡的中位数（可用 --price 型号=价格 指定）"},
  {Phrase::cheapest_fastest, "cheapest and fastest of the cards that fit", "可行方案中最便宜且最快"},
  {Phrase::cheapest, "cheapest of the cards that fit", "可行方案中最便宜"},
  {Phrase::fastest, "fastest of the cards that fit", "可行方案中最快"},
  {Phrase::rule_line, "rule {}{}: {}", "规则 {}{}：{}"},
  {Phrase::warning_line, "warning {}{}: {}", "警告 {}{}：{}"},
  {Phrase::layout_one, "1 GPU", "单卡"},
  {Phrase::layout_tp, "tensor parallel {}", "张量并行 {}"},
  {Phrase::layout_tp_pp, "tensor parallel {} x pipeline parallel {}", "张量并行 {} × 流水线并行 {}"},
  {Phrase::layout_fsdp, "FSDP over {} GPUs, frozen base sharded", "FSDP（{} 卡，冻结底座分片）"},
  {Phrase::layout_ddp, "data parallel over {} GPUs, base replicated", "数据并行（{} 卡，底座复制）"},
  {Phrase::layout_full_recompute, ", full recompute", "，全量重计算"},
  {Phrase::note_pcie_scale_out, "no NVLink: {} GPUs exchange gradients over PCIe and the network",
   "无 NVLink：{} 张卡经 PCIe 和网络交换梯度"},
  {Phrase::note_pair_scale_out, "NVLink joins pairs only: {} GPUs exchange gradients over PCIe and the network",
   "NVLink 只连接成对的卡：{} 张卡经 PCIe 和网络交换梯度"},
  {Phrase::note_multi_node, "{} GPUs span {} nodes: {} crosses the inter-node network",
   "{} 张卡分布在 {} 台服务器上：{}经节点间网络"},
  {Phrase::crossing_data, "data-parallel gradient traffic", "数据并行的梯度流量"},
  {Phrase::crossing_pipeline, "pipeline-parallel activation traffic", "流水线并行的激活流量"},
  {Phrase::crossing_data_and_pipeline, "pipeline-parallel activation and data-parallel gradient traffic",
   "流水线并行的激活流量和数据并行的梯度流量"},
  {Phrase::note_scale_out, "; the card's typical network gives about {} Gb/s per GPU",
   "；该卡的典型网络约为每卡 {} Gb/s"},
  {Phrase::note_not_on_offer,
   "{0} GPUs is not a shape this card is rented or sold in: the next on offer is {1}, so expect to pay for {1}",
   "此卡不按 {0} 张出租或出售：最接近的规格是 {1} 张，预计要按 {1} 张付费"},
  {Phrase::note_not_on_offer_none, "{} GPUs is not a shape this card is rented or sold in",
   "此卡不按 {} 张出租或出售"},
  {Phrase::note_servers, " in {} servers", "，分布在 {} 台服务器上"},
  {Phrase::note_fp8_fallback, "no FP8 on this card: trains in BF16", "此卡不支持 FP8：以 BF16 训练"},
  {Phrase::note_tp_over_pcie, "no NVLink: tensor parallel {} runs its all-reduces over PCIe",
   "无 NVLink：张量并行 {} 的 all-reduce 走 PCIe"},
  {Phrase::why_no_fp8, "no FP8 support on this card (--precision fp8 needs Hopper, Ada, Blackwell, CDNA 3 or Gaudi 3)",
   "此卡不支持 FP8（--precision fp8 需要 Hopper、Ada、Blackwell、CDNA 3 或 Gaudi 3 架构）"},
  {Phrase::why_deadline, "cannot finish within {} with up to {} GPUs (at {} GPUs: about {})",
   "最多 {1} 张卡也无法在 {0} 内完成（{2} 张卡约需 {3}）"},
  {Phrase::why_count, "with --count {} it needs {:.1f} GiB per GPU at best; the card has {:.1f} GiB usable",
   "--count {} 时每卡至少需 {:.1f} GiB，此卡可用 {:.1f} GiB"},
  {Phrase::why_activations,
   "activations, KV cache and runtime reserve alone need {:.1f} GiB per GPU, more than the {:.1f} GiB usable",
   "仅激活、KV 缓存和运行时预留每卡就需 {:.1f} GiB，超过可用的 {:.1f} GiB"},
  {Phrase::why_too_many, "needs more than {} GPUs ({:.1f} GiB per GPU at {}; {:.1f} GiB usable)",
   "需要超过 {0} 张卡（{2} 张时每卡 {1:.1f} GiB；可用 {3:.1f} GiB）"},
  {Phrase::why_no_shape, "offered only in {} GPUs or more (the smallest shape rented or sold), above --max-gpus {}",
   "最少以 {} 张卡为单位租用或出售，超过 --max-gpus {}"},
  {Phrase::sizing_grew, "{}: {} GPUs instead of the {} of the smallest plan on offer cut the time by {:.0f}%",
   "{}：用 {} 张卡而非最小可行方案的 {} 张，时间缩短 {:.0f}%"},
  {Phrase::sizing_kept, "{}: the smallest plan on offer, {} GPUs", "{}：最小可行方案，{} 张卡"},
  {Phrase::sizing_offer, "; {} would fit, but the card is rented or sold as {}", "；{} 张即可放下，但此卡按 {} 张起租或出售"},
  {Phrase::sizing_stop_short_run, "; more stop paying: the run takes under {}", "；再加卡不划算：训练已不足 {}"},
  {Phrase::sizing_stop_small_cut, "; more stop paying: {} GPUs would cut the time by only {:.0f}%",
   "；再加卡不划算：{} 张卡只能再缩短 {:.0f}%"},
  {Phrase::sizing_stop_node, "; {} GPUs would leave the server (a network between servers)",
   "；{} 张卡将超出单台服务器（需要服务器间网络）"},
  {Phrase::sizing_stop_batch, "; {} GPUs would need more data-parallel ranks than the {} sequences of a step",
   "；{} 张卡所需的数据并行数超过每步的 {} 条序列"},
  {Phrase::sizing_stop_offer, "; no larger count on offer within --max-gpus", "；--max-gpus 以内没有更大的规格"},
  {Phrase::sizing_stop_cost, "; {} GPUs would cost more than 10% more", "；{} 张卡的成本会高出 10% 以上"},
  {Phrase::sizing_stop_once, "; balanced takes one step at most", "；均衡档最多加倍一次"},
  {Phrase::sizing_cost_first, "cost first: the fewest GPUs on offer that fit ({})", "成本优先：能放下的最少卡数（{} 张）"},
  {Phrase::sizing_cap, "a --budget amount keeps the fewest GPUs on offer that fit ({})",
   "指定预算金额时取能放下的最少卡数（{} 张）"},
  {Phrase::sizing_tier_high, "speed first", "速度优先"},
  {Phrase::sizing_tier_medium, "balanced", "均衡"},
  {Phrase::cheaper_below, "Cheapest: {} x {} at {} ranks #{} because of: {}", "最便宜的方案：{} × {}，{}，排第 {} 位，原因：{}"},
  {Phrase::cheaper_below_plain, "Cheapest: {} x {} at {} ranks #{}", "最便宜的方案：{} × {}，{}，排第 {} 位"},
  {Phrase::cheaper_headroom, "less memory headroom", "显存余量更少"},
  {Phrase::cheaper_software, "{}, not CUDA", "{} 而非 CUDA"},
  {Phrase::cheaper_estimated, "its figures are estimates", "规格数据为估计值"},
  {Phrase::cheaper_rules, "rules {}", "规则 {}"},
  {Phrase::cheaper_slower, "slower", "更慢"},
  {Phrase::brief_rent, "Rent {} x {}: {}.", "建议租用 {} × {}：{}。"},
  {Phrase::brief_buy, "Buy {} x {}: {}.", "建议购买 {} × {}：{}。"},
  {Phrase::brief_training, "about {} and {} for the run of {} tokens", "约 {}，整次训练 {}（{} tokens）"},
  {Phrase::brief_serving_rent, "about {:.0f} tokens/s for {} concurrent sequences at {} per hour",
   "并发 {1} 条序列时约 {0:.0f} tokens/s，每小时 {2}"},
  {Phrase::brief_serving_own, "about {:.0f} tokens/s for {} concurrent sequences at {} per month to own",
   "并发 {1} 条序列时约 {0:.0f} tokens/s，自有每月 {2}"},
  {Phrase::brief_cards, ", {} for the cards", "，购卡 {}"},
  {Phrase::brief_alternative, " The main alternative: {} x {}, {}.", "主要备选：{} × {}，{}。"},
  {Phrase::brief_risk, " Main risk: {}.", "主要风险：{}。"},
  {Phrase::brief_no_risk, " No rule raised a risk; the time may run from {} to {}.",
   "规则未提出风险；时间可能在 {} 到 {} 之间。"},
  {Phrase::brief_nothing, "Nothing fits as asked, and no way out was found.", "按当前要求没有可行方案，也没有找到替代办法。"},
  {Phrase::brief_nothing_way_out, "Nothing fits as asked. The first way out: {}.", "按当前要求没有可行方案。首选替代办法：{}。"},
  {Phrase::section_why_not, "Why not these cards", "为何不选这些卡"},
  {Phrase::not_selected, "not selected by --gpu", "未被 --gpu 选中"},
  {Phrase::not_selected_cards, "{} other cards: not selected by --gpu", "其余 {} 张卡：未被 --gpu 选中"},
  {Phrase::rule_reason, "{} (rule {})", "{}（规则 {}）"},
  {Phrase::unmatched_rule, "rule {} ({}) matched no card in this request", "规则 {}（{}）在本次请求中没有匹配任何卡"},
  {Phrase::budget_no_price_rent, "no sourced rental price to check against the {} budget",
   "没有有来源的租用价格，无法核对 {} 的预算"},
  {Phrase::budget_no_price_buy, "no sourced purchase price to check against the {} budget",
   "没有有来源的购卡价格，无法核对 {} 的预算"},
  {Phrase::budget_over_cards, "the cards cost about {}, over the {} budget", "购卡约 {}，超出 {} 的预算"},
  {Phrase::budget_over_run, "the run costs about {}, over the {} budget", "整次训练约 {}，超出 {} 的预算"},
  {Phrase::budget_over_month, "a month of serving costs about {}, over the {} budget", "一个月服务约 {}，超出 {} 的预算"},
  {Phrase::assume_inferred,
   "model shape inferred from {}, its depth scaled to the requested size ({} layers, hidden {}, {} KV heads, "
   "vocabulary {}); --model or --model-config give the real shape",
   "模型结构按 {} 推断，层数按所需规模缩放（{} 层，隐藏维度 {}，KV 头 {} 个，词表 {}）；--model 或 --model-config "
   "可给出真实结构"},
  {Phrase::assume_preset, "model: {} preset ({} parameters, {} layers, hidden {}, {} KV heads)",
   "模型：预设 {}（{} 参数，{} 层，隐藏维度 {}，KV 头 {} 个）"},
  {Phrase::assume_preset_moe, "model: {} preset ({} parameters, {} active, {} layers, hidden {}, {} KV heads)",
   "模型：预设 {}（{} 参数，激活 {}，{} 层，隐藏维度 {}，KV 头 {} 个）"},
  {Phrase::assume_config, "model: {} ({} parameters computed from the config)", "模型：{}（由配置文件计算得 {} 参数）"},
  {Phrase::assume_training_precision_bf16, "BF16 weights and compute; dense (non-sparse) peak TFLOPS",
   "BF16 权重与计算；按稠密（非稀疏）峰值 TFLOPS 计"},
  {Phrase::assume_training_precision_fp8, "FP8 matmuls where the card has them, BF16 elsewhere; dense peak TFLOPS",
   "支持 FP8 的卡用 FP8 矩阵乘，其余用 BF16；按稠密峰值 TFLOPS 计"},
  {Phrase::assume_sequence, "sequence length {}, micro-batch {} per GPU, {}, flash attention",
   "序列长度 {}，每卡微批次 {}，{}，使用 flash attention"},
  {Phrase::recompute_full, "full activation recompute", "全量激活重计算"},
  {Phrase::recompute_selective, "selective recompute", "选择性重计算"},
  {Phrase::recompute_none, "no activation recompute", "不做激活重计算"},
  {Phrase::assume_pretrain_tokens_given, "training tokens: {} (--tokens)", "训练 tokens：{}（--tokens）"},
  {Phrase::assume_pretrain_tokens_default, "training tokens: {} (20 per parameter, Chinchilla)",
   "训练 tokens：{}（每参数 20 个，Chinchilla）"},
  {Phrase::assume_finetune_tokens, "training tokens: {} ({} x {} epochs)", "训练 tokens：{}（{} × {} 轮）"},
  {Phrase::assume_finetune_tokens_default,
   "training tokens: {} ({} x {} epochs; a stated default dataset size, set it with --tokens)",
   "训练 tokens：{}（{} × {} 轮；默认数据量，可用 --tokens 设定）"},
  {Phrase::assume_model_states,
   "{}: {} bytes per parameter of model states, split by TP x PP and sharded by ZeRO over data parallel",
   "{}：模型状态每参数 {} 字节，按 TP × PP 切分，并由 ZeRO 在数据并行上分片"},
  {Phrase::assume_lora, "LoRA rank {} on {} of every block; {} on adapters only",
   "LoRA 秩 {}，作用于每层的 {}；仅适配器使用 {}"},
  {Phrase::assume_qlora_base, "; NF4 base with double quantisation", "；底座为双重量化的 NF4"},
  {Phrase::assume_deadline_given, "deadline: {} of wall time (--deadline); the cluster is sized to meet it",
   "期限：墙钟时间 {}（--deadline）；按此确定集群规模"},
  {Phrase::assume_deadline_default, "the cluster is sized to finish in about {} (set --deadline to change it)",
   "集群规模按约 {} 完成来确定（可用 --deadline 修改）"},
  {Phrase::assume_inference, "{} weights, {} KV cache; {} concurrent sequences of {} tokens ({} prompt + {} output)",
   "{} 权重，{} KV 缓存；{} 路并发，每路 {} tokens（输入 {} + 输出 {}）"},
  {Phrase::assume_memory, "{:.0f}% of each card's memory is usable; {} GiB per GPU reserved for the runtime",
   "每张卡 {:.0f}% 的显存可用；每卡为运行时预留 {} GiB"},
  {Phrase::assume_rent, "cost: renting, at indicative quotes from the catalog (each with its provider and date)",
   "成本：按租用计，采用目录中的参考报价（均注明来源与日期）"},
  {Phrase::assume_buy,
   "cost: buying the cards (catalog purchase quotes), amortised over {} years, power at TDP x {:.0f}% x PUE {} at "
   "{}/kWh; servers, networking and hosting not included",
   "成本：按购卡计（目录购卡报价），{} 年折旧，电费按 TDP × {:.0f}% × PUE {}、每千瓦时 {} 计；不含服务器、网络和托管"},
  {Phrase::report_title, "GPU recommendation: {} of {}", "GPU 选型建议：{}{}"},
  {Phrase::report_generated_by, "Prepared with gpu-advise {} and catalog {} (updated {}). Estimates, not measurements.",
   "由 gpu-advise {} 与目录 {}（更新于 {}）生成。以上为估算而非实测。"},
  {Phrase::section_summary, "Summary", "摘要"},
  {Phrase::section_recommendation, "Recommendation", "推荐方案"},
  {Phrase::section_comparison, "Comparison", "方案对比"},
  {Phrase::section_charts, "Charts", "图表"},
  {Phrase::section_memory, "Memory per GPU", "每卡显存构成"},
  {Phrase::section_risks, "Risks and notes", "风险与说明"},
  {Phrase::section_rejected, "Cards not recommended", "未推荐的卡"},
  {Phrase::section_assumptions, "Assumptions", "假设"},
  {Phrase::section_sources, "Sources of the catalog figures used", "所用目录数据的来源"},
  {Phrase::label_model, "Model", "模型"},
  {Phrase::label_task, "Task", "任务"},
  {Phrase::label_budget, "Budget", "预算"},
  {Phrase::label_region, "Region", "地区"},
  {Phrase::label_mode, "Mode", "方式"},
  {Phrase::label_workload, "Workload", "工作负载"},
  {Phrase::region_global, "global", "全球"},
  {Phrase::region_cn, "China", "中国"},
  {Phrase::col_layout, "Layout", "并行布局"},
  {Phrase::col_time_range, "Time (low - high)", "时间（低 - 高）"},
  {Phrase::col_throughput_range, "Tokens/s (low - high)", "tokens/秒（低 - 高）"},
  {Phrase::col_cost_range, "Cost (low - high)", "成本（低 - 高）"},
  {Phrase::col_weights, "Weights", "权重"},
  {Phrase::col_gradients, "Gradients", "梯度"},
  {Phrase::col_optimizer, "Optimizer", "优化器"},
  {Phrase::col_activations, "Activations", "激活"},
  {Phrase::col_kv_cache, "KV cache", "KV 缓存"},
  {Phrase::col_reserve, "Reserve", "预留"},
  {Phrase::col_total, "Total", "合计"},
  {Phrase::col_capacity, "Capacity", "容量"},
  {Phrase::chart_cost_time, "Cost of the run against wall time (typical, with low-high ranges)",
   "整次成本与墙钟时间（典型值及低-高范围）"},
  {Phrase::chart_cost_throughput, "Cost per hour against output throughput (typical, with low-high ranges)",
   "每小时成本与输出吞吐（典型值及低-高范围）"},
  {Phrase::chart_memory, "Memory per GPU against usable capacity (GiB)", "每卡显存需求与可用容量（GiB）"},
  {Phrase::axis_time, "wall time, hours (log scale)", "墙钟时间，小时（对数坐标）"},
  {Phrase::axis_throughput, "output tokens/s (log scale)", "输出 tokens/秒（对数坐标）"},
  {Phrase::axis_cost_run, "cost of the run, {} (log scale)", "整次成本，{}（对数坐标）"},
  {Phrase::axis_cost_hour, "cost per hour, {} (log scale)", "每小时成本，{}（对数坐标）"},
  {Phrase::currency_usd, "USD", "美元"},
  {Phrase::currency_cny, "CNY", "人民币"},
  {Phrase::assume_currency, "money in CNY at {0} CNY per USD ({1}, the catalog's rate); catalog quotes are listed as quoted",
   "金额以人民币计，汇率 1 美元 = {0} 元（{1}，目录所载汇率）；目录报价按原币种列出"},
  {Phrase::axis_memory, "GiB per GPU", "每卡 GiB"},
  {Phrase::legend_usable, "usable", "可用"},
  {Phrase::no_risks, "No rule raised a risk or a note for the recommended cards.", "规则未对推荐的卡提出风险或说明。"},
  {Phrase::label_confidence, "confidence", "置信度"},
  {Phrase::label_sources, "sources", "来源"},
  {Phrase::label_rent_quotes, "rent quotes", "租用报价"},
  {Phrase::label_purchase_quotes, "purchase quotes", "购卡报价"},
  {Phrase::none_found, "none", "无"},
  {Phrase::list_name, "Name", "名称"},
  {Phrase::list_memory, "Memory", "显存"},
  {Phrase::list_scale_up, "Scale-up", "互联"},
  {Phrase::list_china, "China", "中国"},
  {Phrase::list_rent_h, "Rent $/h", "租金 $/卡时"},
  {Phrase::list_confidence, "Confidence", "置信度"},
  {Phrase::list_pcie_only, "PCIe only", "仅 PCIe"},
  {Phrase::list_effect, "Effect", "效果"},
  {Phrase::list_points, "Points", "分值"},
  {Phrase::list_origin, "Origin", "来源"},
  {Phrase::list_params, "Params", "参数"},
  {Phrase::list_active, "Active", "激活"},
  {Phrase::list_layers, "Layers", "层数"},
  {Phrase::list_hidden, "Hidden", "隐藏维度"},
  {Phrase::list_kv_heads, "KV heads", "KV 头"},
  {Phrase::list_context, "Context", "上下文"},
  {Phrase::list_attention, "Attention", "注意力"},
  {Phrase::list_vendor, "vendor", "厂商"},
  {Phrase::list_architecture, "architecture", "架构"},
  {Phrase::list_release_year, "release year", "发布年份"},
  {Phrase::list_launched, "launched", "上市"},
  {Phrase::list_node, "node and network", "节点与网络"},
  {Phrase::list_gpus_per_node, "GPUs per node", "每节点卡数"},
  {Phrase::list_scale_out, "scale-out per GPU", "每卡跨节点带宽"},
  {Phrase::list_rent_shapes, "rented as", "租用规格"},
  {Phrase::list_form_factor, "form factor", "形态"},
  {Phrase::list_aliases, "aliases", "别名"},
  {Phrase::list_memory_section, "memory\n", "显存\n"},
  {Phrase::list_size_label, "size (label)", "容量（标称）"},
  {Phrase::list_usable_capacity, "usable capacity", "实际容量"},
  {Phrase::list_bandwidth, "bandwidth", "带宽"},
  {Phrase::list_dense_compute_no_sparsity, "dense compute (no sparsity)\n", "稠密算力（不含稀疏）\n"},
  {Phrase::list_scale_up_section, "scale-up\n", "扩展互联\n"},
  {Phrase::list_interconnect, "interconnect", "互联"},
  {Phrase::list_bandwidth_per_gpu, "bandwidth per GPU", "每卡带宽"},
  {Phrase::list_domain, "domain", "互联域"},
  {Phrase::list_software, "software", "软件栈"},
  {Phrase::list_availability, "availability\n", "供应状态\n"},
  {Phrase::list_prices_indicative, "prices (indicative)\n", "价格（参考）\n"},
  {Phrase::list_confidence_field, "confidence", "置信度"},
  {Phrase::list_sources, "sources:\n", "来源：\n"},
  {Phrase::list_notes, "notes", "说明"},
  {Phrase::compare_fits, "Fits", "是否可行"},
  {Phrase::compare_no, "no: ", "否："},
  {Phrase::compare_gpu_hours, "GPU-hours", "卡时"},
  {Phrase::compare_ttft_tpot_ms, "TTFT / TPOT (ms)", "首 token / 每 token（毫秒）"},
  {Phrase::compare_max_concurrency, "Max concurrency", "最大并发"},
  {Phrase::compare_rent, "Rent", "租金"},
  {Phrase::compare_buy_cards, "Buy (cards)", "购卡"},
  {Phrase::header_region_cn, ", China", "，中国"},
  {Phrase::effect_reject, "reject", "淘汰"},
  {Phrase::effect_score, "score", "加减分"},
  {Phrase::effect_note, "note", "说明"},
  {Phrase::effect_warning, "warning", "警告"},
  {Phrase::reason_colon, ":", "："},
  {Phrase::reason_separator, "; ", "；"},
  {Phrase::section_side_by_side, "Side by side", "并列对比"},
  {Phrase::list_catalog_intro, "{} cards, catalog {} (updated {}). TFLOPS are dense; scale-up bandwidth is per GPU, bidirectional.\n\n", "共 {} 张卡，目录版本 {}（更新于 {}）。TFLOPS 为稠密算力；互联带宽为每卡双向。\n\n"},
  {Phrase::list_rules_intro, "{} rules. Profiles (cost / speed / headroom / ecosystem):", "共 {} 条规则。评分档位（成本 / 速度 / 余量 / 生态）："},
  {Phrase::list_sliding_window, ", window {0} on {1} layers", "，{1} 层滑动窗口 {0}"},
  {Phrase::list_models_intro, "{} model presets (use with --model ID; values from each model's config.json).\n\n", "共 {} 个模型预设（用 --model ID 指定；数值来自各模型的 config.json）。\n\n"},
  {Phrase::value_available, "available", "可供货"},
  {Phrase::value_licence_required, "licence_required", "需美国出口许可"},
  {Phrase::value_case_by_case, "case_by_case", "美国逐案审批出口许可"},
  {Phrase::value_restricted, "restricted", "受限"},
  {Phrase::value_banned, "banned", "禁售"},
  {Phrase::value_not_offered, "not_offered", "不在此地区销售"},
  {Phrase::value_discontinued, "discontinued", "已停产、不再有新卡"},
  {Phrase::value_stance_encouraged, "encouraged", "鼓励采用"},
  {Phrase::value_stance_neutral, "neutral", "无明确立场"},
  {Phrase::value_stance_discouraged, "discouraged", "不鼓励采购"},
  {Phrase::value_stance_blocked, "blocked", "禁止采购"},
  {Phrase::value_verified, "verified {}", "核实于 {}"},
  {Phrase::value_since, "since {}", "自 {} 起"},
  {Phrase::value_date_not_recorded, "date not recorded", "日期未记录"},
  {Phrase::value_since_verified, "since {}, verified {}", "自 {} 起，核实于 {}"},
  {Phrase::value_yes, "yes", "是"},
  {Phrase::value_no, "no", "否"},
  {Phrase::value_not_applicable, "n/a", "不适用"},
  {Phrase::unit_minutes, "{:.0f} min", "{:.0f} 分钟"},
  {Phrase::unit_hours, "{:.1f} h", "{:.1f} 小时"},
  {Phrase::unit_days, "{:.1f} days", "{:.1f} 天"},
  {Phrase::unit_years, "{:.1f} years", "{:.1f} 年"},
  {Phrase::unit_per_hour, "{}/hour", "每小时 {}"},
  {Phrase::unit_per_gpu_hour, "{}/GPU-hour", "每卡时 {}"},
};
// clang-format on

// Every phrase has exactly one entry, in both languages: checked when this
// file compiles, so a phrase added to the enum and not to the table stops the build.
constexpr bool every_phrase_once() {
  constexpr auto count = static_cast<std::size_t>(Phrase::count_);
  for (std::size_t id = 0; id < count; ++id) {
    int found = 0;
    for (const auto& entry : entries) {
      if (static_cast<std::size_t>(entry.id) == id) {
        ++found;
        if (entry.en.empty() || entry.zh.empty()) {
          return false;
        }
      }
    }
    if (found != 1) {
      return false;
    }
  }
  return std::size(entries) == count;
}
static_assert(every_phrase_once(), "every Phrase needs exactly one entry with English and Chinese text");

}  // namespace

std::string_view phrase(Language language, Phrase id) {
  for (const auto& entry : entries) {
    if (entry.id == id) {
      return language == Language::zh ? entry.zh : entry.en;
    }
  }
  return "?";
}

std::string say_duration(Language language, double hours) {
  if (hours >= 2 * 8760) {
    return say(language, Phrase::unit_years, hours / 8760.0);
  }
  if (hours >= 48) {
    return say(language, Phrase::unit_days, hours / 24.0);
  }
  if (hours >= 1) {
    return say(language, Phrase::unit_hours, hours);
  }
  return say(language, Phrase::unit_minutes, hours * 60.0);
}

bool is_closing_punctuation(std::string_view character) {
  static constexpr std::string_view closing[] = {"，", "。", "；", "：", "）", "、", "！", "？", "」", "》"};
  return std::find(std::begin(closing), std::end(closing), character) != std::end(closing);
}

}  // namespace gpu_advise
