// The shape of a transformer: what memory and compute estimates need beyond a
// parameter count (layers, hidden size, KV heads, vocabulary).
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace gpu_advise {

struct ModelShape {
  std::string basis;   // the published model whose shape this is, or was inferred from
  bool inferred = false;  // true when only a parameter count was given
  double params = 0;   // total parameters (the requested figure when inferred)
  double active_params = 0;  // per token (== params for dense models)
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;
  int head_dim = 0;
  int ffn = 0;         // MLP intermediate size (SwiGLU: three matrices)
  int vocab = 0;
  bool tied_embeddings = false;

  // Parameters of one transformer block (attention + SwiGLU MLP + 2 norms).
  [[nodiscard]] double params_per_layer() const;
  // Embedding (and untied LM head) parameters.
  [[nodiscard]] double embedding_params() const;
  // Parameters this shape adds up to.
  [[nodiscard]] double shape_params() const;
  // KV-cache bytes per token at `bytes_per_value` (2 for bf16): 2 * L * g * d_h * bytes.
  [[nodiscard]] double kv_bytes_per_token(double bytes_per_value) const;
  // LoRA adapter parameters at rank r on q, k, v, o, gate, up and down.
  [[nodiscard]] double lora_params(int rank) const;
};

// Published shapes of well-known dense models (Llama 2/3, Qwen 2.5).
[[nodiscard]] std::span<const ModelShape> reference_shapes();

// A shape for a dense model of `params` parameters: the nearest reference shape
// (in log scale) with its layer count scaled so the total matches; marked inferred.
[[nodiscard]] ModelShape infer_shape(double params);

}  // namespace gpu_advise
