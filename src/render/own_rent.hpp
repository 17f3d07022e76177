// Own or rent, for the renderers of --mode buy: one row per listed card (what
// is bought, its price, the owned cost per busy GPU-hour against the rent, the
// break-even utilization and the payback), and for the top plan the owned
// cost at 10% to 100% busy. Shared by the text, Markdown and HTML renderers;
// every figure comes from the estimate (OwnershipCost).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpu_advise/language.hpp"
#include "gpu_advise/report.hpp"

namespace gpu_advise::render {

struct OwnRent {
  std::string title;  // "Own or rent at 50% utilization"
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;  // empty: no listed card is priced to own
};

// The top plan's owned cost per busy GPU-hour at 10%, 20%, ... 100% busy,
// against its rent: a table's cells and the chart's figures (in the currency).
struct OwnCurve {
  std::string title;
  std::string chart_title;
  std::string x_label;
  std::string y_label;
  std::string y_prefix;  // the currency symbol
  std::string own_label;
  std::string rent_label;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;  // utilization, owned, rent
  std::vector<double> utilisation;             // 0.1 ... 1.0
  std::vector<double> own;                     // in the currency
  std::optional<double> rent;                  // in the currency
  std::optional<double> break_even;            // typical, 0-1
};

[[nodiscard]] OwnRent own_rent(const Report& report, Language language);
// A table cell: the typical break-even ("32%"), "never", or "-" without a rent to compare.
[[nodiscard]] std::string break_even_cell(const OwnershipCost& own, Language language);
// nullopt: not buying, or the top plan is not priced to own.
[[nodiscard]] std::optional<OwnCurve> own_curve(const Report& report, Language language);

}  // namespace gpu_advise::render
