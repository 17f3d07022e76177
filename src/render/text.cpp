// Terminal output: the answer first, the ranked table, the reasons for the top
// picks, the rejected cards and the assumptions.
#include <cmath>

#include <fmt/format.h>

#include "gpu_advise/render.hpp"
#include "gpu_advise/scoring.hpp"
#include "gpu_advise/text.hpp"
#include "gpu_advise/units.hpp"
#include "quantity_format.hpp"
#include "render/table.hpp"

namespace gpu_advise {

namespace {

using render::Align;
using render::Table;

constexpr std::size_t explained_picks = 3;

std::string workload_line(const Report& report) {
  const Request& r = report.request;
  return fmt::format("{} of {}, budget {}, {}", describe(r.task), report.model.name, to_string(r.budget),
                     r.mode == CostMode::rent ? "renting" : "buying");
}

std::string cost_of(const Estimate& e, CostMode mode) {
  const auto& run = mode == CostMode::rent ? e.cost.rent_usd : e.cost.buy_usd;
  if (e.training && run) {
    return format::money(run->typical);
  }
  if (e.cost.usd_per_million_tokens) {
    return format::money(e.cost.usd_per_million_tokens->typical) + "/M tok";
  }
  return "no price";
}

std::string time_cell(const Estimate& e) {
  if (e.training) {
    return format::duration(e.training->wall_hours.typical);
  }
  if (e.inference) {
    return fmt::format("{:.0f} tok/s", e.inference->tokens_per_s.typical);
  }
  return "-";
}

std::string score_parts(const ScoreBreakdown& s) {
  std::string text = fmt::format("{:.0f} = cost {:.0f} + speed {:.0f} + headroom {:.0f} + ecosystem {:.0f}", s.total,
                                 100 * s.cost_weight * s.cost, 100 * s.speed_weight * s.speed,
                                 100 * s.headroom_weight * s.headroom, 100 * s.risk_weight * s.risk);
  if (s.rules != 0) {
    text += fmt::format(" {} rules {:.0f}", s.rules > 0 ? "+" : "-", std::abs(s.rules));
  }
  return text;
}

std::string explain_findings(const std::vector<Finding>& findings) {
  std::string out;
  for (const auto& f : findings) {
    if (f.fired) {
      out += fmt::format("    fired  {:<34} {:<7} {:>4}  {}\n", f.rule_id, to_string(f.effect),
                         f.points == 0 ? std::string("") : fmt::format("{:+g}", f.points), f.message);
    } else {
      out += fmt::format("    -      {}\n", f.rule_id);
    }
  }
  return out;
}

std::string headline(const Report& report) {
  const Recommendation& best = report.recommendations.front();
  const Estimate& e = best.estimate;
  const CostMode mode = report.request.mode;
  std::string line = fmt::format("Best: {} x {}", e.count, best.gpu.name);
  if (mode == CostMode::rent && e.cost.rent_usd_per_gpu_hour) {
    line += fmt::format(", rent about {}/GPU-hour", format::money(e.cost.rent_usd_per_gpu_hour->typical));
  } else if (mode == CostMode::buy && e.cost.purchase_usd) {
    line += fmt::format(", cards about {} to buy", format::money(e.cost.purchase_usd->typical));
  }
  if (e.training) {
    line += fmt::format("; about {}", format::duration(e.training->wall_hours.typical));
    const auto& run = mode == CostMode::rent ? e.cost.rent_usd : e.cost.buy_usd;
    if (run) {
      line += fmt::format(" and {} for the run", format::money(run->typical));
    }
  } else if (e.inference) {
    line += fmt::format("; about {:.0f} tokens/s", e.inference->tokens_per_s.typical);
    if (e.cost.usd_per_million_tokens) {
      line += fmt::format(" at {} per million", format::money(e.cost.usd_per_million_tokens->typical));
    }
  }
  line += fmt::format("; needs {} GiB per GPU of {} GiB", format::gib(e.per_gpu.total()),
                      format::number(best.gpu.memory.capacity_gib));
  return line;
}

}  // namespace

std::string render_text(const Report& report) {
  std::string out;
  out += fmt::format("gpu-advise {}: {}\n\n", report.tool_version, workload_line(report));

  if (report.anything_fits()) {
    out += headline(report) + "\n\n";
    const bool training = is_training(report.request.task);
    Table table({{"#", Align::right},
                 {"GPU", Align::left},
                 {"Count", Align::right},
                 {"GiB/GPU (need/have)", Align::right},
                 {training ? "Time" : "Throughput", Align::right},
                 {report.request.mode == CostMode::rent ? (training ? "Rent (run)" : "Rent per M tok")
                                                         : (training ? "Own (run)" : "Own per M tok"),
                  Align::right},
                 {"Score", Align::right}});
    for (const auto& r : report.recommendations) {
      table.add_row({std::to_string(r.rank), r.gpu.name, std::to_string(r.estimate.count),
                     fmt::format("{} / {}", format::gib(r.estimate.per_gpu.total()),
                                 format::number(r.gpu.memory.capacity_gib)),
                     time_cell(r.estimate), cost_of(r.estimate, report.request.mode),
                     fmt::format("{:.0f}", r.score.total)});
    }
    out += table.to_string();
    if (report.omitted > 0) {
      out += fmt::format("({} more cards fit; --top limits the list)\n", report.omitted);
    }
    for (std::size_t i = 0; i < report.recommendations.size() && i < explained_picks; ++i) {
      const auto& r = report.recommendations[i];
      const auto& s = r.score;
      out += fmt::format("\nWhy #{} {} (score {}):\n", r.rank, r.gpu.name, score_parts(s));
      for (const auto& line : r.rationale) {
        out += fmt::format("  - {}\n", line);
      }
    }
  } else {
    out += report.request.gpu_ids.empty()
               ? "Nothing fits: no card in the catalog can run this workload as asked.\n"
               : "Nothing fits: none of the cards chosen with --gpu can run this workload as asked.\n";
    if (!report.ways_out.empty()) {
      out += "\nWays out:\n";
      for (const auto& w : report.ways_out) {
        std::string price;
        if (w.rent_usd_per_hour) {
          price = fmt::format(", rent about {}/hour", format::money(*w.rent_usd_per_hour));
        }
        std::string condition;
        if (!w.drops.empty()) {
          condition = fmt::format(" without {}", text::join(w.drops, " and "));
        }
        std::string time;
        if (w.wall_hours) {
          time = fmt::format(", about {}", format::duration(*w.wall_hours));
        }
        out += fmt::format("  - {} fits on {} x {}{}{}{}\n", describe(w.task), w.count, w.gpu_name, condition, price,
                           time);
      }
    }
  }

  if (!report.rejected.empty()) {
    out += fmt::format("\nRejected ({}):\n", report.rejected.size());
    Table table({{"GPU", Align::left}, {"Reason", Align::left}});
    for (const auto& r : report.rejected) {
      table.add_row({r.gpu.name, text::join(r.reasons, "; ")});
    }
    out += table.to_string("  ");
  }

  if (!report.warnings.empty()) {
    out += "\nWarnings:\n";
    for (const auto& w : report.warnings) {
      out += fmt::format("  - {}\n", w);
    }
  }

  if (report.request.explain) {
    out += "\nRule evaluation (every rule, every card considered):\n";
    for (const auto& r : report.recommendations) {
      out += fmt::format("  #{} {}: score {}\n", r.rank, r.gpu.name, score_parts(r.score));
      out += explain_findings(r.findings);
    }
    for (const auto& r : report.rejected) {
      if (r.findings.empty()) {
        continue;  // not considered (--gpu)
      }
      out += fmt::format("  rejected {}: {}\n", r.gpu.name, text::join(r.reasons, "; "));
      out += explain_findings(r.findings);
    }
  }

  out += "\nAssumptions:\n";
  for (const auto& a : report.assumptions) {
    out += fmt::format("  - {}\n", a);
  }
  out += fmt::format("\nCatalog {} (updated {}). Estimates, not measurements: see docs/methodology.md.\n",
                     report.catalog.version, report.catalog.updated);
  return out;
}

std::string render_catalog_list_text(const Catalog& catalog) {
  Table table({{"ID", Align::left},
               {"Name", Align::left},
               {"Memory", Align::right},
               {"GB/s", Align::right},
               {"BF16 TF", Align::right},
               {"FP8 TF", Align::right},
               {"Scale-up", Align::left},
               {"TDP W", Align::right},
               {"China", Align::left},
               {"Rent $/h", Align::right},
               {"Confidence", Align::left}});
  for (const auto& g : catalog.gpus()) {
    const auto* cn = g.availability_in(Region::cn);
    const auto rent = price_range(g.rent_usd_per_gpu_hour, Region::global);
    table.add_row({g.id, g.name, fmt::format("{} GB {}", format::number(g.memory.size_gb), g.memory.type),
                   format::number(g.memory.bandwidth_gb_per_s), format::number(g.compute.bf16_tflops),
                   g.compute.fp8_tflops ? format::number(*g.compute.fp8_tflops) : "-",
                   g.interconnect.domain_size > 1
                       ? fmt::format("{} GB/s x{}", format::number(g.interconnect.bandwidth_gb_per_s),
                                     g.interconnect.domain_size)
                       : "PCIe only",
                   g.tdp_w ? format::number(*g.tdp_w) : "?", cn ? std::string(to_string(cn->status)) : "?",
                   rent ? fmt::format("{:.2f}", rent->typical) : "-", std::string(to_string(g.confidence))});
  }
  return fmt::format("{} cards, catalog {} (updated {}). TFLOPS are dense; scale-up bandwidth is per GPU, "
                     "bidirectional.\n\n",
                     catalog.size(), catalog.info().version, catalog.info().updated) +
         table.to_string();
}

std::string render_rules_text(const RuleSet& rules) {
  std::string out = fmt::format("{} rules. Profiles (cost / speed / headroom / ecosystem):", rules.rules().size());
  for (const auto tier : {BudgetTier::low, BudgetTier::medium, BudgetTier::high}) {
    const auto w = rules.weights(tier);
    out += fmt::format(" {} {:g}/{:g}/{:g}/{:g};", to_string(tier), w.cost, w.speed, w.headroom, w.risk);
  }
  out += "\n\n";
  Table table({{"ID", Align::left}, {"Effect", Align::left}, {"Points", Align::right}, {"Origin", Align::left}});
  for (const auto& rule : rules.rules()) {
    table.add_row({rule.id, std::string(to_string(rule.effect)),
                   rule.points == 0 ? std::string("") : fmt::format("{:+g}", rule.points), rule.origin});
  }
  return out + table.to_string();
}

std::string render_models_text(const ModelCatalog& models) {
  Table table({{"ID", Align::left},
               {"Name", Align::left},
               {"Params", Align::right},
               {"Active", Align::right},
               {"Layers", Align::right},
               {"Hidden", Align::right},
               {"KV heads", Align::right},
               {"Context", Align::right},
               {"Attention", Align::left}});
  for (const auto& m : models.models()) {
    std::string attention = m.mla ? "MLA" : m.kv_heads < m.heads ? "GQA" : "MHA";
    if (m.sliding_window) {
      attention += fmt::format(", window {} on {} layers", m.sliding_window->size, m.sliding_window->layers);
    }
    table.add_row({m.id, m.name, format_parameter_count(m.params),
                   m.is_moe() ? format_parameter_count(m.active_params) : "-", std::to_string(m.layers),
                   std::to_string(m.hidden), std::to_string(m.kv_heads),
                   m.max_context > 0 ? std::to_string(m.max_context) : "?", attention});
  }
  return fmt::format("{} model presets (use with --model ID; values from each model's config.json).\n\n",
                     models.models().size()) +
         table.to_string();
}

std::string render_gpu_text(const GpuSpec& g) {
  std::string out;
  auto field = [&](std::string_view label, const std::string& value, std::string_view key_path = {}) {
    std::string confidence;
    if (!key_path.empty() && g.confidence_of(key_path) != g.confidence) {
      confidence = fmt::format("  [{}]", to_string(g.confidence_of(key_path)));
    }
    out += fmt::format("  {:<22} {}{}\n", label, value, confidence);
  };
  auto optional_number = [](const std::optional<double>& v, std::string_view unit) {
    return v ? fmt::format("{} {}", format::number(*v), unit) : std::string("not supported / not published");
  };
  out += fmt::format("{} ({})\n", g.name, g.id);
  field("vendor", std::string(display_name(g.vendor)));
  field("architecture", fmt::format("{}{}", display_name(g.architecture), g.chip.empty() ? "" : " (" + g.chip + ")"));
  field("release year", std::to_string(g.release_year), "release_year");
  field("form factor", std::string(to_string(g.form_factor)));
  if (!g.aliases.empty()) {
    field("aliases", text::join(g.aliases, ", "));
  }
  out += "memory\n";
  field("size (label)", fmt::format("{} GB {}", format::number(g.memory.size_gb), g.memory.type), "memory.size_gb");
  field("usable capacity", fmt::format("{} GiB ({:.1f} GB)", format::number(g.memory.capacity_gib), g.capacity_gb()),
        "memory.capacity_gib");
  field("bandwidth", fmt::format("{} GB/s", format::number(g.memory.bandwidth_gb_per_s)), "memory.bandwidth_gb_per_s");
  out += "dense compute (no sparsity)\n";
  field("FP64", optional_number(g.compute.fp64_tflops, "TFLOPS"), "compute.fp64_tflops");
  field("TF32", optional_number(g.compute.tf32_tflops, "TFLOPS"), "compute.tf32_tflops");
  field("BF16", optional_number(g.compute.bf16_tflops, "TFLOPS"), "compute.bf16_tflops");
  field("FP16", optional_number(g.compute.fp16_tflops, "TFLOPS"), "compute.fp16_tflops");
  field("FP8", optional_number(g.compute.fp8_tflops, "TFLOPS"), "compute.fp8_tflops");
  field("FP4", optional_number(g.compute.fp4_tflops, "TFLOPS"), "compute.fp4_tflops");
  field("INT8", optional_number(g.compute.int8_tops, "TOPS"), "compute.int8_tops");
  out += "scale-up\n";
  field("interconnect", g.interconnect.name, "interconnect.name");
  field("bandwidth per GPU", fmt::format("{} GB/s (bidirectional)", format::number(g.interconnect.bandwidth_gb_per_s)),
        "interconnect.bandwidth_gb_per_s");
  field("domain", fmt::format("{} GPUs", g.interconnect.domain_size), "interconnect.domain_size");
  field("PCIe", g.pcie_gen ? fmt::format("Gen{}", *g.pcie_gen) : "n/a", "pcie_gen");
  field("TDP", g.tdp_w ? fmt::format("{} W", format::number(*g.tdp_w)) : "not published", "tdp_w");
  field("software", std::string(display_name(g.software)));
  out += "availability\n";
  for (const auto& [region, a] : g.availability) {
    std::string value(to_string(a.status));
    if (!a.since.empty()) {
      value += fmt::format(" since {}", a.since);
    }
    value += fmt::format(" (verified {})", a.verified);
    if (!a.note.empty()) {
      value += ": " + a.note;
    }
    field(to_string(region), value, fmt::format("availability.{}", to_string(region)));
  }
  auto quotes = [&](std::string_view title, const std::vector<PriceQuote>& list, bool purchase) {
    if (list.empty()) {
      field(title, "no sourced quote");
      return;
    }
    for (const Region region : {Region::global, Region::cn}) {
      const auto range = price_range(list, region);
      if (range) {
        field(fmt::format("{} ({})", title, to_string(region)),
              fmt::format("{} typical ({} to {})", format::money(range->typical), format::money(range->low),
                          format::money(range->high)));
      }
    }
    for (const auto& q : list) {
      const std::string amount = q.low_usd == q.high_usd
                                     ? format::money(q.low_usd)
                                     : fmt::format("{}-{}", format::money(q.low_usd), format::money(q.high_usd));
      out += fmt::format("    {} {}{}, {} ({}; {})\n", amount,
                         purchase ? std::string(to_string(q.condition)) : std::string(to_string(q.kind)),
                         q.region == Region::global ? "" : fmt::format(" [{}]", to_string(q.region)), q.provider,
                         q.date, q.source);
    }
  };
  out += "prices (indicative)\n";
  quotes("rent per GPU-hour", g.rent_usd_per_gpu_hour, false);
  quotes("purchase per card", g.purchase_usd_per_card, true);
  out += fmt::format("confidence: {}\n", to_string(g.confidence));
  out += "sources:\n";
  for (const auto& s : g.sources) {
    out += fmt::format("  - {}\n", s);
  }
  if (!g.notes.empty()) {
    out += fmt::format("notes: {}\n", g.notes);
  }
  return out;
}

}  // namespace gpu_advise
