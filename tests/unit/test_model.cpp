#include <catch2/catch.hpp>

#include "gpu_advise/model.hpp"

using namespace gpu_advise;

namespace {
const ModelShape& reference(const std::string& basis) {
  for (const auto& shape : reference_shapes()) {
    if (shape.basis == basis) {
      return shape;
    }
  }
  FAIL("no reference shape " << basis);
  throw;
}
}  // namespace

TEST_CASE("reference shapes add up to their published parameter counts", "[model]") {
  // Published totals: Llama 2 7B 6,738,415,616 (HF safetensors metadata);
  // Llama 3.1 8B 8.03B; Llama 3.1 70B 70.6B; Llama 3.1 405B 405.9B (model cards).
  CHECK(reference("Llama 2 7B").shape_params() == Approx(6'738'415'616).epsilon(0.001));
  CHECK(reference("Llama 3.1 8B").shape_params() == Approx(8.03e9).epsilon(0.005));
  CHECK(reference("Mistral 7B").shape_params() == Approx(7.24e9).epsilon(0.005));
  CHECK(reference("Llama 3.1 70B").shape_params() == Approx(70.6e9).epsilon(0.005));
  CHECK(reference("Llama 3.1 405B").shape_params() == Approx(405.9e9).epsilon(0.005));
  CHECK(reference("Qwen2.5 72B").shape_params() == Approx(72.7e9).epsilon(0.005));
}

TEST_CASE("LoRA adapter size matches PEFT's count for Llama 2 7B at rank 16", "[model]") {
  // PEFT print_trainable_parameters() on Llama-2-7b, r=16, all seven projections:
  // "trainable params: 39,976,960".
  CHECK(reference("Llama 2 7B").lora_params(16) == Approx(39'976'960));
}

TEST_CASE("KV cache per token follows GQA", "[model]") {
  // Llama 3.1 70B: 80 layers x 8 KV heads x 128 dims x (K and V) x 2 bytes.
  CHECK(reference("Llama 3.1 70B").kv_bytes(1, 2.0) == Approx(2.0 * 80 * 8 * 128 * 2));
  // Llama 2 7B has no GQA: 32 KV heads, 0.5 MiB per token.
  CHECK(reference("Llama 2 7B").kv_bytes(1, 2.0) == Approx(524288));
}

TEST_CASE("a bare parameter count borrows the nearest family's shape", "[model]") {
  const ModelShape seventy = infer_shape(70e9);
  CHECK(seventy.inferred);
  CHECK(seventy.basis == "Llama 3.1 70B");
  CHECK(seventy.params == 70e9);
  CHECK(seventy.shape_params() == Approx(70e9).epsilon(0.02));
  CHECK(infer_shape(7e9).basis == "Mistral 7B");  // nearer in log scale than Llama 2 7B, and GQA like today's 7B models
  CHECK(infer_shape(1.5e12).layers > reference("Llama 3.1 405B").layers);
  const ModelShape tiny = infer_shape(1e6);
  CHECK(tiny.layers >= 1);
}

TEST_CASE("MLA caches the compressed latent, not per-head keys and values", "[model]") {
  ModelShape m = reference("Llama 3.1 70B");
  m.layers = 61;
  m.mla = MlaSpec{512, 1536, 64, 128, 128};
  // DeepSeek-V3: (512 + 64) values per layer and token (arXiv 2405.04434 §2.1).
  CHECK(m.kv_bytes(1000, 2.0) == Approx(61.0 * 576 * 2 * 1000));
}

TEST_CASE("sliding-window layers hold at most the window", "[model]") {
  ModelShape m = reference("Mistral 7B");
  const double full = m.kv_bytes(32768, 2.0);
  m.sliding_window = SlidingWindow{4096, m.layers};
  CHECK(m.kv_bytes(32768, 2.0) == Approx(full * 4096.0 / 32768.0));
  CHECK(m.kv_bytes(1000, 2.0) == Approx(reference("Mistral 7B").kv_bytes(1000, 2.0)));
  m.sliding_window = SlidingWindow{4096, m.layers / 2};
  CHECK(m.kv_bytes(32768, 2.0) == Approx(full * (0.5 + 0.5 * 4096.0 / 32768.0)));
}

TEST_CASE("mixture-of-experts counts every expert in total and the routed ones as active", "[model]") {
  // Mixtral 8x7B: 32 layers, hidden 4096, 32 heads, 8 KV heads, experts of width 14336,
  // 2 of 8 per token, vocabulary 32000 (config.json); published 46.7B total, 12.9B active.
  ModelShape m = reference("Mistral 7B");
  m.moe = MoeSpec{8, 2, 14336, 0, 0};
  CHECK(m.shape_params() == Approx(46.7e9).epsilon(0.01));
  CHECK(m.shape_active_params() == Approx(12.9e9).epsilon(0.01));
}

TEST_CASE("a MoE parameter count infers its attention from the active size", "[model]") {
  const ModelShape moe = infer_shape(235e9, 22e9);
  CHECK(moe.params == 235e9);
  CHECK(moe.active_params == 22e9);
  CHECK(moe.basis == "Qwen2.5 14B");
}
