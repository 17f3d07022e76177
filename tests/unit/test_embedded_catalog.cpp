// The shipped catalog: it loads cleanly, holds the required cards, and its key
// figures match the vendor datasheets (cited in data/gpus.yaml and
// ../shared/reference/gpu-specs.md). These numbers are typed from the
// datasheets, not copied from the program's output.
#include <catch2/catch.hpp>

#include <set>

#include "gpu_advise/catalog.hpp"

using namespace gpu_advise;

namespace {
const Catalog& shipped() {
  static const Catalog catalog = load_embedded_catalog();
  return catalog;
}
const GpuSpec& card(const std::string& id) {
  for (const auto& g : shipped().gpus()) {
    if (g.id == id) {
      return g;
    }
  }
  FAIL("card " << id << " is missing");
  throw;
}
}  // namespace

TEST_CASE("the embedded catalog loads with no diagnostics", "[catalog][data]") {
  REQUIRE_NOTHROW(load_embedded_catalog());
  CHECK(shipped().info().version.size() > 0);
  CHECK(shipped().info().updated.size() == 10);
}

TEST_CASE("the embedded catalog holds every required card", "[catalog][data]") {
  const auto id = GENERATE(as<std::string>{}, "a100-40gb-sxm4", "a100-80gb-sxm4", "a100-40gb-pcie", "a100-80gb-pcie",
                           "a800-80gb-sxm", "a800-80gb-pcie", "a40", "h100-sxm5", "h100-pcie", "h100-nvl", "h800-sxm",
                           "h20", "h200-sxm", "b200", "ascend-910b1", "ascend-910b2", "ascend-910b3", "ascend-910b4",
                           "l20", "l40s", "rtx-4090", "mi300x");
  CAPTURE(id);
  const GpuSpec& g = card(id);
  CHECK_FALSE(g.sources.empty());
  CHECK(g.availability_in(Region::global) != nullptr);
  CHECK(g.availability_in(Region::cn) != nullptr);
  CHECK(g.memory.capacity_gib <= g.memory.size_gb * 1.0);
  CHECK(g.memory.capacity_gib >= g.memory.size_gb * 0.9);
}

TEST_CASE("every card has sources and ids are unique", "[catalog][data]") {
  std::set<std::string> ids;
  for (const auto& g : shipped().gpus()) {
    CAPTURE(g.id);
    CHECK(ids.insert(g.id).second);
    CHECK_FALSE(g.sources.empty());
    CHECK(g.compute.bf16_tflops > 0);
    for (const auto& quote : g.rent_usd_per_gpu_hour) {
      CHECK_FALSE(quote.source.empty());
      CHECK_FALSE(quote.date.empty());
    }
  }
}

TEST_CASE("key figures match the datasheets (dense TFLOPS, bidirectional NVLink)", "[catalog][data]") {
  struct Pin {
    const char* id;
    double memory_gb;
    double bandwidth_gb_per_s;
    double bf16_tflops;
    double link_gb_per_s;
    int domain;
  };
  const auto pin = GENERATE(values<Pin>({
      // NVIDIA A100 datasheet: 312 dense BF16 (624 with sparsity), NVLink 3 600 GB/s.
      {"a100-40gb-sxm4", 40, 1555, 312, 600, 8},
      {"a100-80gb-sxm4", 80, 2039, 312, 600, 8},
      {"a100-80gb-pcie", 80, 1935, 312, 600, 2},
      // A800: A100 silicon with NVLink cut to 400 GB/s (not "raised to 600").
      {"a800-80gb-sxm", 80, 2039, 312, 400, 8},
      // A40 datasheet: 48 GB GDDR6, 696 GB/s, 149.7 dense BF16.
      {"a40", 48, 696, 149.7, 112.5, 2},
      // H100 SXM5: 80 GB HBM3, 3.35 TB/s (not "35 TB/s"), 989 dense BF16, NVLink 4 900 GB/s.
      {"h100-sxm5", 80, 3350, 989.4, 900, 8},
      {"h100-pcie", 80, 2000, 756, 600, 2},
      {"h100-nvl", 94, 3900, 835.5, 600, 2},
      // H800: H100 compute with NVLink cut to 400 GB/s.
      {"h800-sxm", 80, 3350, 989.4, 400, 8},
      // H20: 96 GB HBM3, 4.0 TB/s, 148 dense BF16, NVLink 900 GB/s.
      {"h20", 96, 4000, 148, 900, 8},
      {"h200-sxm", 141, 4800, 989.4, 900, 8},
      // B200 (HGX): 180 GB, 7.7 TB/s memory, NVLink 5 1.8 TB/s (not "8 TB/s"), 2.25 PF dense BF16.
      {"b200", 180, 7700, 2250, 1800, 8},
      {"l40s", 48, 864, 362, 64, 1},
      {"l20", 48, 864, 119.5, 64, 1},
      {"rtx-4090", 24, 1008, 165.2, 64, 1},
      // MI300X: 192 GB HBM3, 5.3 TB/s, 1307.4 dense BF16, 896 GB/s Infinity Fabric.
      {"mi300x", 192, 5300, 1307.4, 896, 8},
  }));
  CAPTURE(pin.id);
  const GpuSpec& g = card(pin.id);
  CHECK(g.memory.size_gb == Approx(pin.memory_gb));
  CHECK(g.memory.bandwidth_gb_per_s == Approx(pin.bandwidth_gb_per_s));
  CHECK(g.compute.bf16_tflops == Approx(pin.bf16_tflops).epsilon(0.002));
  CHECK(g.interconnect.bandwidth_gb_per_s == Approx(pin.link_gb_per_s));
  CHECK(g.interconnect.domain_size == pin.domain);
}

TEST_CASE("FP8 only where the silicon has it", "[catalog][data]") {
  for (const char* id : {"a100-80gb-sxm4", "a800-80gb-sxm", "a40", "ascend-910b2"}) {
    CAPTURE(id);
    CHECK_FALSE(card(id).compute.fp8_tflops.has_value());
  }
  CHECK(card("h100-sxm5").compute.fp8_tflops == Approx(1978.9));
  CHECK(card("h20").compute.fp8_tflops == Approx(296));
  CHECK(card("b200").compute.fp4_tflops == Approx(9000));
}

TEST_CASE("China availability follows the export-control record", "[catalog][data]") {
  // The 2026-01-15 BIS rule (91 FR 1684): case-by-case review for H200 and less
  // advanced chips (TPP < 21,000, DRAM < 6,500 GB/s) sold in the US; it names MI325X.
  for (const char* id : {"a100-80gb-sxm4", "h100-sxm5", "h200-sxm", "mi325x", "mi300x", "l40s", "gaudi3"}) {
    CAPTURE(id);
    CHECK(card(id).availability_in(Region::cn)->status == AvailabilityStatus::case_by_case);
    CHECK(card(id).availability_in(Region::cn)->since == "2026-01-15");
  }
  // Above the thresholds, or not sold in the US: still banned.
  for (const char* id : {"b200", "b300", "gb200-nvl72", "mi355x", "h800-sxm"}) {
    CAPTURE(id);
    CHECK(card(id).availability_in(Region::cn)->status == AvailabilityStatus::banned);
  }
  // H20: production halted in Aug 2025, Beijing told buyers off it.
  CHECK(card("h20").availability_in(Region::cn)->new_supply == Supply::discontinued);
  CHECK(card("h20").availability_in(Region::cn)->new_supply_since == "2025-08");
  CHECK(card("h20").availability_in(Region::cn)->importer->stance == Stance::discouraged);
  // Legal rental stock: launched before the ban, or licensed shipments.
  CHECK(card("a100-80gb-sxm4").legal_stock_in(Region::cn));
  CHECK(card("h20").legal_stock_in(Region::cn));
  CHECK(card("h200-sxm").legal_stock_in(Region::cn));         // licensed shipments from 2026-08
  CHECK_FALSE(card("h100-sxm5").legal_stock_in(Region::cn));  // launched in the month of the Oct 2022 rule
  CHECK_FALSE(card("b200").legal_stock_in(Region::cn));
  CHECK_FALSE(card("mi300x").legal_stock_in(Region::cn));
  CHECK(card("ascend-910b2").availability_in(Region::cn)->importer->stance == Stance::encouraged);
  CHECK(card("a800-80gb-sxm").availability_in(Region::cn)->status == AvailabilityStatus::banned);
  CHECK(card("h20").availability_in(Region::cn)->status == AvailabilityStatus::licence_required);
  CHECK(card("l20").availability_in(Region::cn)->status == AvailabilityStatus::available);
  CHECK(card("ascend-910b2").availability_in(Region::cn)->status == AvailabilityStatus::available);
  CHECK(card("a800-80gb-sxm").availability_in(Region::global)->status == AvailabilityStatus::not_offered);
}

TEST_CASE("family aliases resolve or report ambiguity", "[catalog][data]") {
  CHECK(shipped().find("NVIDIA H100 80GB HBM3").match != nullptr);
  CHECK(shipped().find("A100").candidates.size() >= 2);
  CHECK(shipped().find("910B").candidates.size() >= 4);
  CHECK(shipped().find("b200").match->id == "b200");
}

TEST_CASE("the figures the 2026-12 audit corrected are pinned to their sources", "[catalog][data]") {
  // Huawei-co-authored CloudMatrix384 paper, arXiv 2506.12708: 752 dense BF16/FP16 per 910C package.
  CHECK(card("ascend-910c").compute.bf16_tflops == Approx(752));
  CHECK(card("ascend-910c").compute.fp16_tflops == Approx(752));
  // The standard Atlas 800 A3 server holds 8 packages; 384 is the CloudMatrix384 supernode only.
  CHECK(card("ascend-910c").interconnect.domain_size == 8);
  CHECK(card("ascend-910c-cm384").interconnect.domain_size == 384);
  // HGX B200 table: TF32 18 PF sparse per 8 GPUs -> 1,125 dense, as B300.
  CHECK(card("b200").compute.tf32_tflops == Approx(1125));
  // H20 141GB: the H200's 141 GB HBM3e stack (140.4 GiB in nvidia-smi), 500 W boards (aiconfigurator h20_3e.yaml).
  CHECK(card("h20-141gb").memory.capacity_gib == Approx(140.4));
  CHECK(card("h20-141gb").tdp_w == Approx(500));
  // HGX B300: 105 PF dense FP4 / 8.
  CHECK(card("b300").compute.fp4_tflops == Approx(13125));
  // Issue 37: B300 and GB300 INT8 from one source (Verda: 0.15 and 0.165 POPS dense), not two conventions.
  CHECK(card("b300").compute.int8_tops == Approx(150));
  CHECK(card("gb300-nvl72").compute.int8_tops == Approx(165));
  // NVL72: one 72-GPU NVLink domain, 4 GPUs per compute tray.
  CHECK(card("gb200-nvl72").interconnect.domain_size == 72);
  CHECK(card("gb200-nvl72").node.gpus_per_node == 4);
  // T4 has no BF16 and no FP8.
  CHECK_FALSE(card("t4").compute.has_bf16);
  CHECK_FALSE(card("t4").compute.fp8_tflops.has_value());
}

TEST_CASE("every card has a launch date, node facts, and dated China prices in CNY where quoted", "[catalog][data]") {
  const Catalog& catalog = shipped();
  CHECK(catalog.info().exchange_rate.cny_per_usd > 5);
  CHECK(catalog.size() >= 45);
  for (const auto& g : catalog.gpus()) {
    CAPTURE(g.id);
    CHECK(g.launched.size() == 7);  // YYYY-MM
    CHECK(g.node.gpus_per_node >= 1);
    CHECK(g.node.scale_out_gbps_per_gpu > 0);
    CHECK_FALSE(g.node.rent_shapes.empty());
    for (const auto* list : {&g.rent_usd_per_gpu_hour, &g.purchase_usd_per_card}) {
      for (const auto& q : *list) {
        CHECK(q.date.size() >= 4);
        if (q.quoted_in == Currency::cny) {
          CHECK(q.region == Region::cn);
          CHECK(q.low_usd == Approx(q.low_quoted / catalog.info().exchange_rate.cny_per_usd));
        }
      }
    }
  }
  for (const char* id : {"l4", "a10g", "a10", "t4", "rtx-4090d", "rtx-5090", "rtx-pro-6000-blackwell", "gb200-nvl72",
                         "gb300-nvl72", "mi355x", "mi308x", "gh200", "rtx-a6000", "rtx-6000-ada", "l40", "ascend-950pr",
                         "kunlun-p800", "hygon-k100-ai"}) {
    CAPTURE(id);
    CHECK(catalog.find(id).match != nullptr);
  }
}

TEST_CASE("no status or typical rent is older than six months at the catalog's date without saying so",
          "[catalog][data][staleness]") {
  // Issue 37: staleness is caught here, not by users. A status verified, or a
  // typical rent whose newest quote is dated, before the six months up to
  // catalog.updated needs a fresher source, or an `unconfirmed` note that
  // says what was looked for; a note on a recent entry is dropped.
  const std::string& date = shipped().info().updated;
  REQUIRE(date.size() == 10);
  for (const auto& g : shipped().gpus()) {
    for (const auto& [region, a] : g.availability) {
      const auto stale = stale_facts(g, region, date);
      INFO(g.id << " " << to_string(region) << ": verified " << a.verified << ", stale: " << stale.size()
                << (stale.empty() ? "" : " (" + std::string(stale.front()) + ")") << ", unconfirmed '" << a.unconfirmed
                << "'");
      CHECK(stale.empty() == a.unconfirmed.empty());
    }
  }
  // The check can fail: a status verified a year before, or a rent last quoted then.
  GpuSpec old = card("h100-sxm5");
  old.availability[Region::global].verified = "2025-11";
  CHECK(stale_facts(old, Region::global, date) == std::vector<std::string_view>{"status"});
  for (auto& q : old.rent_usd_per_gpu_hour) {
    q.date = "2026-01";
  }
  CHECK(stale_facts(old, Region::global, date) == std::vector<std::string_view>{"status", "rent"});
  for (auto& q : old.rent_usd_per_gpu_hour) {
    q.date = "2024-06";  // every quote over a year old: no typical at all, the worst case
  }
  CHECK(stale_facts(old, Region::global, date) == std::vector<std::string_view>{"status", "rent"});
  CHECK(stale_facts(card("h100-sxm5"), Region::global, date).empty());
}
