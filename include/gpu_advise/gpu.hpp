// One accelerator as the catalog describes it. Plain data: every figure carries
// its unit in its name, TFLOPS are dense (never the 2:4-sparse datasheet
// figure) and interconnect bandwidth is per GPU, bidirectional.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpu_advise/enum_names.hpp"

namespace gpu_advise {

enum class Vendor { nvidia, amd, huawei, intel, baidu, cambricon, hygon };
enum class Architecture { turing, ampere, ada, hopper, blackwell, cdna3, cdna4, davinci, gaudi, kunlun, dcu };
enum class FormFactor { sxm, pcie, oam, module };
enum class SoftwareStack { cuda, rocm, cann, gaudi, xpu, neuware, dtk };
enum class Confidence { datasheet, secondary, estimate };
enum class AvailabilityStatus { available, licence_required, case_by_case, restricted, banned, not_offered };
// Whether new cards can still be bought (from the vendor or its channel).
enum class Supply { available, discontinued };
// The importing government's stance on a card (China: Beijing's guidance).
enum class Stance { encouraged, neutral, discouraged, blocked };
enum class Currency { usd, cny };
enum class PriceKind { on_demand, spot, reserved, serverless, market_range };
// The tier of the market a rent quote belongs to (docs/catalog.md, "Market
// tiers"): who sells it (specialist clouds, hyperscalers, marketplaces,
// surveys of the market) for on-demand prices, else how it is billed
// (serverless, spot, a term), and in China a cloud's price or a lease.
enum class PriceTier { specialist, hyperscaler, marketplace, survey, serverless, spot, term, china_cloud, china_lease };
enum class Condition { new_card, used };
enum class Region { global, cn };
enum class Precision { fp64, tf32, bf16, fp16, fp8, fp4, int8 };

[[nodiscard]] std::span<const EnumName<Vendor>> names(Vendor);
[[nodiscard]] std::span<const EnumName<Architecture>> names(Architecture);
[[nodiscard]] std::span<const EnumName<FormFactor>> names(FormFactor);
[[nodiscard]] std::span<const EnumName<SoftwareStack>> names(SoftwareStack);
[[nodiscard]] std::span<const EnumName<Confidence>> names(Confidence);
[[nodiscard]] std::span<const EnumName<AvailabilityStatus>> names(AvailabilityStatus);
[[nodiscard]] std::span<const EnumName<Supply>> names(Supply);
[[nodiscard]] std::span<const EnumName<Stance>> names(Stance);
[[nodiscard]] std::span<const EnumName<Currency>> names(Currency);
[[nodiscard]] std::span<const EnumName<PriceKind>> names(PriceKind);
[[nodiscard]] std::span<const EnumName<PriceTier>> names(PriceTier);
[[nodiscard]] std::span<const EnumName<Condition>> names(Condition);
[[nodiscard]] std::span<const EnumName<Region>> names(Region);

// Human names for display ("NVIDIA", "Hopper").
[[nodiscard]] std::string_view display_name(Vendor vendor);
[[nodiscard]] std::string_view display_name(Architecture architecture);
[[nodiscard]] std::string_view display_name(SoftwareStack stack);

// A low / typical / high triple. Used for prices here and for every uncertain
// estimate elsewhere.
struct Range {
  double low = 0;
  double typical = 0;
  double high = 0;

  friend bool operator==(const Range&, const Range&) = default;
};

// The rate CNY quotes are converted at, and money shown in CNY.
struct ExchangeRate {
  double cny_per_usd = 0;  // 0: none given
  std::string date;        // YYYY-MM
  std::string source;

  friend bool operator==(const ExchangeRate&, const ExchangeRate&) = default;
};

struct MemorySpec {
  double size_gb = 0;             // the marketed label ("80 GB")
  double capacity_gib = 0;        // what the runtime reports (nvidia-smi MiB / 1024)
  std::string type;               // HBM3e, GDDR6, ...
  double bandwidth_gb_per_s = 0;  // peak, decimal GB/s

  friend bool operator==(const MemorySpec&, const MemorySpec&) = default;
};

// Dense peak throughput per precision; nullopt = the card has no such mode
// (or it is unknown, for fp64/tf32 on some parts).
struct ComputeSpec {
  std::optional<double> fp64_tflops;
  std::optional<double> tf32_tflops;
  double bf16_tflops = 0;  // without BF16 (T4): the FP16 rate, which mixed precision uses instead
  bool has_bf16 = true;
  std::optional<double> fp16_tflops;
  std::optional<double> fp8_tflops;
  std::optional<double> fp4_tflops;
  std::optional<double> int8_tops;

  friend bool operator==(const ComputeSpec&, const ComputeSpec&) = default;
};

struct InterconnectSpec {
  std::string name;
  double bandwidth_gb_per_s = 0;  // per GPU, bidirectional
  int domain_size = 1;            // GPUs sharing the scale-up fabric (1 = none)

  friend bool operator==(const InterconnectSpec&, const InterconnectSpec&) = default;
};

// The importing side's stance, dated.
struct ImporterStance {
  Stance stance = Stance::neutral;
  std::string since;     // optional
  std::string verified;  // YYYY-MM or YYYY-MM-DD
  std::string note;      // optional

  friend bool operator==(const ImporterStance&, const ImporterStance&) = default;
};

// A card's standing in one region, as dated facts (docs/catalog.md,
// "Availability"): the exporter's status, whether new cards are still made,
// when exports were first prohibited and when licensed units began to ship
// (which decide whether rental stock can be there legally), and the
// importer's stance.
struct Availability {
  AvailabilityStatus status = AvailabilityStatus::available;
  std::string verified;  // YYYY-MM or YYYY-MM-DD
  std::string since;     // optional
  std::string note;      // optional
  Supply new_supply = Supply::available;
  std::string new_supply_since;          // with new_supply: discontinued
  std::string banned_since;              // optional: exports to the region first prohibited
  std::string licensed_shipments_since;  // optional: licensed units began to ship
  std::optional<ImporterStance> importer;
  // What could not be re-confirmed within six months of the catalog's date,
  // and when it was looked for: the status's newest source, or the region's
  // newest rent quote, is older (docs/catalog.md, "Staleness"). Empty: both
  // are recent.
  std::string unconfirmed;

  friend bool operator==(const Availability&, const Availability&) = default;
};

struct PriceQuote {
  double low_usd = 0;
  double high_usd = 0;  // == low_usd for a single figure
  std::string provider;
  PriceKind kind = PriceKind::on_demand;
  Condition condition = Condition::new_card;  // purchases only
  Region region = Region::global;             // where the quote applies
  std::string date;
  std::string source;
  Currency quoted_in = Currency::usd;  // a CNY quote is converted to USD at the catalog's exchange rate
  double low_quoted = 0;               // as quoted, in quoted_in (0: the USD figures are as quoted)
  double high_quoted = 0;
  // A quote read from a price file (prices.hpp); empty or 0 for the catalog's own.
  std::string instance_type;               // "gpu_8x_h100_sxm5"; empty: rented by the GPU
  int gpus_per_instance = 0;               // GPUs in one instance; 0: rented by the GPU
  std::string location;                    // the provider's own region name, "us-east-1"
  std::string origin;                      // FILE:LINE the quote was read from
  PriceTier tier = PriceTier::specialist;  // rent quotes: its market tier (implied by kind and region, or stated)
  int term_months = 0;                     // a term's length (kind reserved); 0: not stated

  friend bool operator==(const PriceQuote&, const PriceQuote&) = default;
};

// How close a card's architecture gets to its peaks in practice, low /
// typical / high (data/gpus.yaml `architectures`; docs/methodology.md).
struct Efficiency {
  Range training_mfu{0.30, 0.40, 0.50};      // pretraining and full fine-tuning, model FLOPs / dense peak
  Range fine_tune_mfu{0.25, 0.35, 0.45};     // LoRA and QLoRA
  Range decode_bandwidth{0.60, 0.72, 0.85};  // share of peak memory bandwidth reached in decode
  Range prefill_compute{0.35, 0.50, 0.65};   // share of dense peak reached in prefill
  std::vector<std::string> sources;

  friend bool operator==(const Efficiency&, const Efficiency&) = default;
};

// The server the card is built into and the network between servers.
struct NodeSpec {
  int gpus_per_node = 8;              // GPUs in one server (one host)
  double scale_out_gbps_per_gpu = 0;  // typical scale-out NIC bandwidth per GPU, Gb/s, one direction
  std::string scale_out_fabric;       // "InfiniBand NDR", "25 GbE", ...
  std::vector<int> rent_shapes;       // the GPU counts providers rent it in

  friend bool operator==(const NodeSpec&, const NodeSpec&) = default;
};

struct GpuSpec {
  std::string id;
  std::vector<std::string> aliases;
  Vendor vendor = Vendor::nvidia;
  std::string name;
  Architecture architecture = Architecture::ampere;
  std::string chip;
  int release_year = 0;
  std::string launched;  // first shipment, YYYY-MM
  FormFactor form_factor = FormFactor::pcie;
  MemorySpec memory;
  ComputeSpec compute;
  InterconnectSpec interconnect;
  NodeSpec node;
  std::optional<int> pcie_gen;
  std::optional<double> tdp_w;
  SoftwareStack software = SoftwareStack::cuda;
  std::map<Region, Availability> availability;
  std::vector<PriceQuote> rent_usd_per_gpu_hour;
  std::vector<PriceQuote> purchase_usd_per_card;
  Confidence confidence = Confidence::datasheet;
  std::map<std::string, Confidence> field_confidence;  // key path -> confidence
  std::vector<std::string> sources;
  std::string notes;
  Efficiency efficiency;  // from its architecture's entry
  std::string origin;     // the file this card came from (embedded data/gpus.yaml or --catalog FILE)

  friend bool operator==(const GpuSpec&, const GpuSpec&) = default;

  // The confidence of one field: its override, else the card's.
  [[nodiscard]] Confidence confidence_of(std::string_view key_path) const;
  // Dense peak for a precision, if the card supports it.
  [[nodiscard]] std::optional<double> dense_tflops(Precision precision) const;
  [[nodiscard]] const Availability* availability_in(Region region) const;
  [[nodiscard]] double capacity_gb() const;
  // Whether units of this card can be in `region` legally (to rent): never
  // banned there, launched before the ban, or licensed units shipped.
  [[nodiscard]] bool legal_stock_in(Region region) const;
};

// Price range from the quotes: low = cheapest quote, high = dearest, typical =
// median of the on-demand quote midpoints (all quotes when there is no
// on-demand one). nullopt when there is no quote. Purchases use it; rent
// uses rent_price().
[[nodiscard]] std::optional<Range> price_range(const std::vector<PriceQuote>& quotes);
// The same over the quotes for `region` only: a China-only SKU has no global
// price, and a Chinese cloud's price does not stand for a global one.
[[nodiscard]] std::optional<Range> price_range(const std::vector<PriceQuote>& quotes, Region region);

// A rent price made of one tier's recent quotes (docs/methodology.md §6.1):
// the typical is the median of the midpoints of the tier's quotes dated no
// earlier than `since`; low and high span the region's recent quotes of every
// tier (or, for a tier asked for, that tier's).
struct RentPrice {
  Range range;
  PriceTier tier = PriceTier::specialist;  // the tier the typical is the median of
  int quotes = 0;                          // recent quotes in that tier
  std::string newest;                      // the newest of those quotes' dates
};
// The tier a quote's kind and region imply: spot, a term, serverless, or in
// China a cloud or a lease; nullopt for a global on-demand or market-range
// quote, whose seller decides.
[[nodiscard]] std::optional<PriceTier> implied_tier(PriceKind kind, Region region);
// The tiers the typical is taken from, the first that has a recent quote: the
// specialist clouds' on-demand prices, then hyperscalers', marketplaces',
// serverless and surveys; in China the clouds' prices, then leases.
[[nodiscard]] std::span<const PriceTier> typical_tiers(Region region);
// The month `months` before a YYYY-MM-DD (or YYYY-MM) date: ("2026-12-07",
// 12) -> "2025-12". Empty for a date without a month.
[[nodiscard]] std::string months_before(std::string_view date, int months);
// Whether a quote's date (YYYY, YYYY-MM or YYYY-MM-DD, read as its first
// day) falls in or after the month `since` (YYYY-MM; empty: every date does).
[[nodiscard]] bool dated_since(std::string_view date, std::string_view since);
// `asked`: that tier's quotes alone; nullopt where the card has none recent
// there. Without: the first of typical_tiers(region) with a recent quote;
// nullopt where the region has no recent quote.
[[nodiscard]] std::optional<RentPrice> rent_price(const std::vector<PriceQuote>& quotes, Region region,
                                                  std::optional<PriceTier> asked, std::string_view since);
// Every tier with a recent quote in the region, in the order of names(PriceTier).
[[nodiscard]] std::vector<RentPrice> rent_tiers(const std::vector<PriceQuote>& quotes, Region region,
                                                std::string_view since);

// Whether a quote is more than twice the typical rent of its region (from
// `quotes`, the card's own): flagged where quotes are listed, as a likely
// premium, a bundle or a transcription error.
[[nodiscard]] bool over_twice_typical(const PriceQuote& quote, const std::vector<PriceQuote>& quotes,
                                      std::string_view since);

// What of a card's standing in `region` is older than six months at the
// catalog's date (YYYY-MM-DD): "status" (its verified date), "rent" (the
// newest quote the typical rent is made of, or quotes with no recent typical
// at all); empty when both are recent.
// The catalog's `unconfirmed` note must say so exactly when this is not
// empty (tests/unit/test_embedded_catalog.cpp).
[[nodiscard]] std::vector<std::string_view> stale_facts(const GpuSpec& gpu, Region region,
                                                        std::string_view catalog_date);

// The key paths that field_confidence may name.
[[nodiscard]] std::span<const std::string_view> confidence_key_paths();

}  // namespace gpu_advise
