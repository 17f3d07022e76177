// Hand-built cards and requests for tests, independent of the shipped catalog.
#pragma once

#include "gpu_advise/gpu.hpp"
#include "gpu_advise/request.hpp"

namespace gpu_advise::test {

inline GpuSpec card(const std::string& id, double capacity_gib, double bandwidth, double bf16, int domain,
                    std::optional<double> rent) {
  GpuSpec g;
  g.id = id;
  g.name = id;
  g.memory.size_gb = capacity_gib;
  g.memory.capacity_gib = capacity_gib;
  g.memory.bandwidth_gb_per_s = bandwidth;
  g.compute.bf16_tflops = bf16;
  g.interconnect = {"link", domain > 1 ? 600.0 : 64.0, domain};
  if (rent) {
    g.rent_usd_per_gpu_hour.push_back(
        PriceQuote{*rent, *rent, "p", PriceKind::on_demand, Condition::new_card, Region::global, "2026", "s"});
  }
  return g;
}

inline Request request(double params, Task task) {
  Request r;
  r.params = params;
  r.task = task;
  return r;
}

}  // namespace gpu_advise::test
