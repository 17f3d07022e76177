// The sourced figures of owning servers: server prices (whole, or what the
// server adds to its cards), power, PUE, colocation, operations, resale value
// and the scale-out network. docs/research/ownership-costs.md gives every
// page behind them; docs/methodology.md §6.2 how they are used.
#include "gpu_advise/ownership.hpp"

namespace gpu_advise {

namespace {

constexpr Currency usd = Currency::usd;
constexpr Currency cny = Currency::cny;
constexpr Confidence secondary = Confidence::secondary;
constexpr Confidence estimate = Confidence::estimate;

constexpr ServerPrice servers[] = {
    // Whole servers, as bought.
    {"a100-80gb-sxm4",
     FormFactor::sxm,
     Condition::used,
     Region::global,
     true,
     {{60000, 95000, 140000},
      usd,
      "2026",
      "used 8 x A100 80GB SXM server: 8 x $8k-15k refurbished cards (mercatus-ai.com; computeforecast.com $4k-18k) "
      "plus a used host of $10k-20k; seed 001's 30-40% of the original price agrees",
      estimate},
     3.3},
    {"a100-80gb-sxm4",
     FormFactor::sxm,
     Condition::used,
     Region::cn,
     true,
     {{500000, 750000, 1000000},
      cny,
      "2026",
      "used 8 x A100 80GB server in China: the global figure at 6.66 CNY/USD, rounded; A100 stays scarce there",
      estimate},
     3.3},
    {"h100-sxm5",
     FormFactor::sxm,
     Condition::new_card,
     Region::global,
     true,
     {{220000, 270000, 330000},
      usd,
      "2024-08",
      "8 x H100 SXM server: DGX H100 about $270k (SemiAnalysis, 2023-05); Thinkmate HGX H100 $317k with 8 NICs "
      "(2024-08); H100 prices softer since",
      secondary},
     4.6},
    {"h100-sxm5",
     FormFactor::sxm,
     Condition::new_card,
     Region::cn,
     true,
     {{2000000, 2300000, 2700000},
      cny,
      "2024-07",
      "8 x H100 NVLink server in China, about 2.7M CNY (Huxiu, dealer quote, 2024-07), down about 10% since H200",
      estimate},
     4.6},
    {"ascend-910b3",
     FormFactor::module,
     Condition::new_card,
     Region::cn,
     true,
     {{1100000, 1300000, 1500000},
      cny,
      "2026-05",
      "8 x Ascend 910B3 server (Atlas 800T A2 class) 1.1M-1.5M CNY (ai-daily, 2026-05-24: "
      "wangcansunking/ai-daily 2026-05-24/huawei-ascend-910b-qwen3-coder-deploy); a 2026-08 bank tender's 910B "
      "training server at 2.12M CNY (CMIS) sits above it",
      estimate},
     4.0},
    {"ascend-910b4",
     FormFactor::module,
     Condition::new_card,
     Region::cn,
     true,
     {{900000, 1050000, 1200000},
      cny,
      "2026-05",
      "8 x Ascend 910B4 server 0.9M-1.2M CNY (ai-daily, 2026-05-24, as for the 910B3); a 2026-08 bank tender's "
      "910B inference server at 1.55M CNY (CMIS)",
      estimate},
     4.0},
    // What a server adds to its cards.
    {"",
     FormFactor::sxm,
     Condition::new_card,
     Region::global,
     false,
     {{30000, 50000, 80000},
      usd,
      "2023-05",
      "HGX 8-GPU host (CPUs, memory, NVMe, NVSwitch baseboard, power, chassis, margin): SemiAnalysis DGX H100 bill "
      "of materials $32k; DGX H100 $270k less 8 GPUs",
      secondary},
     4.6},
    {"",
     FormFactor::sxm,
     Condition::new_card,
     Region::cn,
     false,
     {{150000, 250000, 450000},
      cny,
      "2025",
      "8-GPU host in China: H20 server 1.2M-1.4M CNY (Reuters 2024-02, Huxiu 2024-07) less its 8-GPU module "
      "0.88M-1.05M CNY (Tencent Technology 2025)",
      estimate},
     4.6},
    {"",
     FormFactor::oam,
     Condition::new_card,
     Region::global,
     false,
     {{30000, 45000, 70000},
      usd,
      "2024-06",
      "OAM 8-accelerator host: the HGX host class; the UBB baseboard comes with the accelerators (Intel Gaudi 3 kit "
      "$125k, Computex 2024)",
      estimate},
     4.0},
    {"",
     FormFactor::module,
     Condition::new_card,
     Region::global,
     false,
     {{30000, 50000, 80000}, usd, "2023-05", "module servers (Atlas 800, GH200 nodes): the HGX host class", estimate},
     4.0},
    {"",
     FormFactor::pcie,
     Condition::new_card,
     Region::global,
     false,
     {{12000, 22000, 35000},
      usd,
      "2026",
      "8-slot PCIe GPU server without cards (2 CPUs, 1-2 TB memory, NVMe, power, 1-2 NICs): no price page found; "
      "the SemiAnalysis bill of materials less NVSwitch, 8 NICs and the larger supplies",
      estimate},
     2.0},
};

constexpr RegionalOwnership regions[] = {
    {Region::global,
     {{0.06, 0.09, 0.14},
      usd,
      "2025-04",
      "US industrial tariffs, EIA Electric Power Monthly table 5.6.A (Iowa 6.0, Pennsylvania 8.6, Illinois 9.8 "
      "cents/kWh; commercial 10-19)",
      secondary},
     {{150, 195, 250},
      usd,
      "2025",
      "wholesale colocation per kW-month, energy billed apart: CBRE North America $194.95 (2025), global $217.30 "
      "(Q1 2025)",
      secondary},
     {{1.15, 1.40, 1.60},
      usd,
      "2025-07",
      "Uptime Institute survey 2025: average PUE 1.54; hyperscale 1.1-1.2; liquid cooling 1.05-1.15",
      secondary}},
    {Region::cn,
     {{0.30, 0.45, 0.70},
      cny,
      "2025-11",
      "China data-centre power: west about 0.4 CNY/kWh with subsidy, east about 30% dearer (FT, 2025-11); Ningxia "
      "0.36 (China Daily)",
      secondary},
     {{200, 300, 500},
      cny,
      "2026",
      "China wholesale colocation about $40 per kW-month after halving in 2022-2023 (SemiAnalysis, via a summary); "
      "tier-1 retail higher",
      estimate},
     {{1.20, 1.30, 1.50},
      usd,
      "2025-07",
      "China: new large data centres PUE 1.3 or less, national average under 1.5 by 2025 (NDRC/MIIT 2024-07; MIIT "
      "2025-279)",
      secondary}},
};

constexpr OwnershipData data{
    servers,
    regions,
    {{15000, 35000, 55000},
     usd,
     "2026",
     "8 x 400G scale-out per server (NICs, switch ports, optics): InfiniBand NDR fat-tree bills (yobitel.com 2026; "
     "H100 Freakonomics spreadsheet 2024-08, $13.5k switches + $20.5k optics)",
     secondary},
    {{2000, 5000, 8000}, usd, "2026", "1-2 x 100-200G Ethernet per PCIe server: an estimate", estimate},
    {{0.65, 0.75, 0.85},
     usd,
     "2025-06",
     "8 x H100 servers training draw 76% of their 10.2 kW rating on average, 82% at peak (arXiv 2506.14551, "
     "2412.08602)",
     secondary},
    {{0.12, 0.20, 0.30},
     usd,
     "2026",
     "idle GPUs about 60-100 W each plus CPUs and fans: no measurement found",
     estimate},
    {{0.03, 0.06, 0.10},
     usd,
     "2006",
     "maintenance 4-8% of the price a year after the first (ICL, HPC centres); OEM 3-year support about 25%",
     estimate},
    {{0.23, 0.33, 0.42},
     usd,
     "2026-01",
     "H100 resale 25-35% of the price after 3 years, A100 20-25% (GPU Lease Rate Index); used H100 $15k-28k "
     "against $25k-40k new (computeforecast.com)",
     estimate},
};

}  // namespace

const OwnershipData& ownership_data() { return data; }

Range in_usd(const OwnershipFigure& figure, const ExchangeRate& rate) {
  if (figure.quoted_in != Currency::cny || rate.cny_per_usd <= 0) {
    return figure.value;
  }
  const double per = rate.cny_per_usd;
  return Range{figure.value.low / per, figure.value.typical / per, figure.value.high / per};
}

const RegionalOwnership& regional_ownership(Region region, const ExchangeRate& rate) {
  for (const RegionalOwnership& r : regions) {
    const bool convertible = rate.cny_per_usd > 0 || (r.power_per_kwh.quoted_in != Currency::cny &&
                                                      r.colocation_per_kw_month.quoted_in != Currency::cny);
    if (r.region == region && convertible) {
      return r;
    }
  }
  return regions[0];
}

}  // namespace gpu_advise
