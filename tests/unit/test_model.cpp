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
  CHECK(reference("Llama 3.1 70B").kv_bytes_per_token(2.0) == Approx(2.0 * 80 * 8 * 128 * 2));
  // Llama 2 7B has no GQA: 32 KV heads, 0.5 MiB per token.
  CHECK(reference("Llama 2 7B").kv_bytes_per_token(2.0) == Approx(524288));
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
