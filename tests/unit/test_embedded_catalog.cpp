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
  CHECK(card("a100-80gb-sxm4").availability_in(Region::cn)->status == AvailabilityStatus::banned);
  CHECK(card("h100-sxm5").availability_in(Region::cn)->status == AvailabilityStatus::banned);
  CHECK(card("a800-80gb-sxm").availability_in(Region::cn)->status == AvailabilityStatus::banned);
  CHECK(card("b200").availability_in(Region::cn)->status == AvailabilityStatus::banned);
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
