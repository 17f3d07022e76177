// Rent prices from where they live: SkyPilot catalog files
// (catalogs/v7/<cloud>/vms.csv of skypilot-org/skypilot-catalog) and plain CSV
// files of one's own quotes, mapped onto the catalog's cards
// (docs/prices.md). Loading is at the edge; what the prices
// do to a plan is the estimator's (docs/methodology.md §6.1).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpu_advise/catalog.hpp"
#include "gpu_advise/gpu.hpp"

namespace gpu_advise {

enum class PriceFileFormat { skypilot, quotes };
[[nodiscard]] std::span<const EnumName<PriceFileFormat>> names(PriceFileFormat);  // "skypilot", "quotes"

// One --price-file as given: `PROVIDER=FILE` or `FILE`.
struct PriceFileArg {
  std::string file;
  std::string provider;  // empty: a SkyPilot file's folder name (.../lambda/vms.csv); a quotes file names its own
};
// Splits `PROVIDER=FILE`: the part before the first '=' is a provider when it
// is 1-64 of [A-Za-z0-9._-] (so ./a=b.csv is a file). Throws UsageError
// naming --price-file.
[[nodiscard]] PriceFileArg parse_price_file_arg(std::string_view text);

// The range of a rent in USD per GPU-hour, the catalog's and a price file's
// alike: far around any real quote, so a price in the wrong unit (per
// second, per month, in cents) or a stray exponent is refused, not used.
inline constexpr double min_rent_usd_per_gpu_hour = 0.01;
inline constexpr double max_rent_usd_per_gpu_hour = 1000;

// What one file held, for the Assumptions and the `prices` command.
struct PriceFileSummary {
  std::string file;  // as given, without PROVIDER=
  PriceFileFormat format = PriceFileFormat::skypilot;
  std::string provider;  // SkyPilot: the provider of every row; quotes: empty (each row names its own)
  // SkyPilot: the file's modification date (YYYY-MM-DD, UTC; not after
  // SOURCE_DATE_EPOCH when that is set); quotes: the newest row's date.
  std::string date;
  std::size_t rows = 0;    // data rows read
  std::size_t quotes = 0;  // quotes taken, after duplicates (AWS lists each zone) are dropped

  struct Card {
    std::string gpu_id;
    std::size_t quotes = 0;
    double low_usd = 0;  // the cheapest and dearest per GPU-hour, any kind
    double high_usd = 0;
    std::vector<int> shapes;         // GPUs per instance on offer, ascending; empty: rented by the GPU
    std::vector<std::string> names;  // the first accelerator names (and instance types) that mapped to it, for checking
    std::size_t more_names = 0;      // names past those kept (a file of every spelling stays a short summary)
    // The dearest quote here above twice the catalog's typical rent for the
    // card in that quote's market, that market and that typical (0: none).
    bool over_twice_typical = false;
    double flagged_usd = 0;
    Region flagged_region = Region::global;
    double catalog_typical_usd = 0;
  };
  std::vector<Card> cards;  // in order of first appearance

  struct Unknown {
    std::string name;  // as written in the file
    std::size_t rows = 0;
  };
  std::vector<Unknown> unknown;     // the first accelerators the catalog does not know (a warning, not an error)
  std::size_t unknown_names = 0;    // how many distinct such names, kept or not
  std::size_t unknown_rows = 0;     // and how many rows they had
  std::size_t cpu_rows = 0;         // rows without an accelerator (CPU instances): skipped
  std::size_t fractional_rows = 0;  // rows renting a share of one GPU: skipped
  std::size_t unpriced_rows = 0;    // rows with neither an on-demand nor a spot price: skipped
};

struct ImportedQuote {
  std::string gpu_id;
  PriceQuote quote;  // instance_type, gpus_per_instance, location and origin set
};

struct PriceBook {
  std::vector<ImportedQuote> quotes;  // every file's, in the order given
  std::vector<PriceFileSummary> files;

  [[nodiscard]] bool empty() const noexcept { return files.empty(); }
  // The quotes for one card, in file order.
  [[nodiscard]] std::vector<PriceQuote> quotes_for(std::string_view gpu_id) const;
};

// Parses one file's text; `source` names it in diagnostics, `date` is the
// SkyPilot file's date. The format is told by the header row. Throws DataError
// with every problem found (FILE:LINE: column: what was wrong), up to 50.
[[nodiscard]] PriceBook parse_price_file(std::string_view text, const PriceFileArg& arg, std::string_view date,
                                         const Catalog& catalog);

// Reads (with the data-file checks of docs/errors.md) and parses each file;
// every file's problems are reported together.
[[nodiscard]] PriceBook load_price_files(const std::vector<std::string>& args, const Catalog& catalog);

// The catalog with the book's quotes in place of its own rent quotes, for each
// card and market (Region) the book covers; the catalog's stay for the rest.
[[nodiscard]] Catalog with_prices(const Catalog& catalog, const PriceBook& book);

}  // namespace gpu_advise
