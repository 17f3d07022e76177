// A small valid catalog in the real schema, for tests that edit one line of it.
#pragma once

#include <string>

namespace gpu_advise::test {

inline const std::string valid_catalog = R"(schema_version: 1
catalog:
  version: "test"
  updated: "2026-11-29"
gpus:
  - id: test-80
    aliases: ["T80", "Test"]
    vendor: nvidia
    name: "Test 80GB"
    architecture: hopper
    release_year: 2023
    form_factor: sxm
    memory:
      size_gb: 80
      capacity_gib: 80
      type: HBM3
      bandwidth_gb_per_s: 3000
    compute:
      bf16_tflops: 1000
      fp8_tflops: 2000
    interconnect:
      name: "NVLink"
      bandwidth_gb_per_s: 900
      domain_size: 8
    pcie_gen: 5
    tdp_w: 700
    software: cuda
    availability:
      global: {status: available, since: "2023-03", verified: "2026-05"}
      cn: {status: banned, since: "2022-09", verified: "2026-01", banned_since: "2022-10-07"}
    prices:
      rent_usd_per_gpu_hour:
        - {usd: 2.0, provider: "P1", tier: specialist, kind: on_demand, date: "2026-05", source: "s1"}
        - {usd: [1.0, 4.0], provider: "P2", tier: survey, kind: market_range, date: "2026-05", source: "s2"}
    confidence: datasheet
    field_confidence:
      tdp_w: estimate
    sources: ["datasheet"]
    launched: "2023-03"
    node: {gpus_per_node: 8, scale_out_gbps_per_gpu: 400, scale_out_fabric: "InfiniBand NDR", rent_shapes: [1, 8]}
  - id: test-24
    aliases: ["Test"]
    vendor: amd
    name: "Test 24GB"
    architecture: cdna3
    release_year: 2022
    form_factor: pcie
    memory: {size_gb: 24, capacity_gib: 24, type: GDDR6, bandwidth_gb_per_s: 1000}
    compute: {bf16_tflops: 150}
    interconnect: {name: "PCIe", bandwidth_gb_per_s: 64, domain_size: 1}
    software: rocm
    availability:
      global: {status: available, since: "2022", verified: "2026"}
      cn: {status: available, since: "2022", verified: "2026"}
    confidence: secondary
    sources: ["review"]
    launched: "2022-06"
    node: {gpus_per_node: 8, scale_out_gbps_per_gpu: 25, scale_out_fabric: "Ethernet", rent_shapes: [1, 2, 4, 8]}
architectures:
  - architecture: ampere
    training_mfu: {low: 0.3, typical: 0.4, high: 0.5}
    fine_tune_mfu: {low: 0.25, typical: 0.35, high: 0.45}
    decode_bandwidth_efficiency: {low: 0.6, typical: 0.72, high: 0.85}
    prefill_compute_efficiency: {low: 0.35, typical: 0.5, high: 0.65}
    sources: ["test"]
  - architecture: turing
    training_mfu: {low: 0.3, typical: 0.4, high: 0.5}
    fine_tune_mfu: {low: 0.25, typical: 0.35, high: 0.45}
    decode_bandwidth_efficiency: {low: 0.6, typical: 0.72, high: 0.85}
    prefill_compute_efficiency: {low: 0.35, typical: 0.5, high: 0.65}
    sources: ["test"]
  - architecture: cdna4
    training_mfu: {low: 0.3, typical: 0.4, high: 0.5}
    fine_tune_mfu: {low: 0.25, typical: 0.35, high: 0.45}
    decode_bandwidth_efficiency: {low: 0.6, typical: 0.72, high: 0.85}
    prefill_compute_efficiency: {low: 0.35, typical: 0.5, high: 0.65}
    sources: ["test"]
  - architecture: kunlun
    training_mfu: {low: 0.3, typical: 0.4, high: 0.5}
    fine_tune_mfu: {low: 0.25, typical: 0.35, high: 0.45}
    decode_bandwidth_efficiency: {low: 0.6, typical: 0.72, high: 0.85}
    prefill_compute_efficiency: {low: 0.35, typical: 0.5, high: 0.65}
    sources: ["test"]
  - architecture: dcu
    training_mfu: {low: 0.3, typical: 0.4, high: 0.5}
    fine_tune_mfu: {low: 0.25, typical: 0.35, high: 0.45}
    decode_bandwidth_efficiency: {low: 0.6, typical: 0.72, high: 0.85}
    prefill_compute_efficiency: {low: 0.35, typical: 0.5, high: 0.65}
    sources: ["test"]
  - architecture: ada
    training_mfu: {low: 0.3, typical: 0.4, high: 0.5}
    fine_tune_mfu: {low: 0.25, typical: 0.35, high: 0.45}
    decode_bandwidth_efficiency: {low: 0.6, typical: 0.72, high: 0.85}
    prefill_compute_efficiency: {low: 0.35, typical: 0.5, high: 0.65}
    sources: ["test"]
  - architecture: hopper
    training_mfu: {low: 0.3, typical: 0.4, high: 0.5}
    fine_tune_mfu: {low: 0.25, typical: 0.35, high: 0.45}
    decode_bandwidth_efficiency: {low: 0.6, typical: 0.72, high: 0.85}
    prefill_compute_efficiency: {low: 0.35, typical: 0.5, high: 0.65}
    sources: ["test"]
  - architecture: blackwell
    training_mfu: {low: 0.3, typical: 0.4, high: 0.5}
    fine_tune_mfu: {low: 0.25, typical: 0.35, high: 0.45}
    decode_bandwidth_efficiency: {low: 0.6, typical: 0.72, high: 0.85}
    prefill_compute_efficiency: {low: 0.35, typical: 0.5, high: 0.65}
    sources: ["test"]
  - architecture: cdna3
    training_mfu: {low: 0.3, typical: 0.4, high: 0.5}
    fine_tune_mfu: {low: 0.25, typical: 0.35, high: 0.45}
    decode_bandwidth_efficiency: {low: 0.6, typical: 0.72, high: 0.85}
    prefill_compute_efficiency: {low: 0.35, typical: 0.5, high: 0.65}
    sources: ["test"]
  - architecture: davinci
    training_mfu: {low: 0.3, typical: 0.4, high: 0.5}
    fine_tune_mfu: {low: 0.25, typical: 0.35, high: 0.45}
    decode_bandwidth_efficiency: {low: 0.6, typical: 0.72, high: 0.85}
    prefill_compute_efficiency: {low: 0.35, typical: 0.5, high: 0.65}
    sources: ["test"]
  - architecture: gaudi
    training_mfu: {low: 0.3, typical: 0.4, high: 0.5}
    fine_tune_mfu: {low: 0.25, typical: 0.35, high: 0.45}
    decode_bandwidth_efficiency: {low: 0.6, typical: 0.72, high: 0.85}
    prefill_compute_efficiency: {low: 0.35, typical: 0.5, high: 0.65}
    sources: ["test"]
)";

}  // namespace gpu_advise::test
