#include "gpu_advise/model.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace gpu_advise {

double ModelShape::params_per_layer() const {
  const double h = hidden;
  const double q_out = static_cast<double>(heads) * head_dim;
  const double kv_out = static_cast<double>(kv_heads) * head_dim;
  const double attention = h * q_out + 2.0 * h * kv_out + q_out * h;
  const double mlp = 3.0 * h * ffn;
  return attention + mlp + 2.0 * h;
}

double ModelShape::embedding_params() const {
  return static_cast<double>(vocab) * hidden * (tied_embeddings ? 1.0 : 2.0);
}

double ModelShape::shape_params() const { return layers * params_per_layer() + embedding_params() + hidden; }

double ModelShape::kv_bytes_per_token(double bytes_per_value) const {
  return 2.0 * layers * kv_heads * head_dim * bytes_per_value;
}

double ModelShape::lora_params(int rank) const {
  // r * (d_in + d_out) per adapted matrix (Hu et al., arXiv 2106.09685).
  const double h = hidden;
  const double q_out = static_cast<double>(heads) * head_dim;
  const double kv_out = static_cast<double>(kv_heads) * head_dim;
  const double per_layer = (h + q_out) + 2.0 * (h + kv_out) + (q_out + h) + 3.0 * (h + ffn);
  return static_cast<double>(rank) * per_layer * layers;
}

std::span<const ModelShape> reference_shapes() {
  // Values from each model's Hugging Face config.json.
  //                 basis            inf   N  Nact  L    h     a    g   dh    ffn    V       tied
  static const std::array<ModelShape, 11> shapes = {{
      {"Llama 3.2 1B", false, 1.24e9, 1.24e9, 16, 2048, 32, 8, 64, 8192, 128256, true},
      {"Llama 3.2 3B", false, 3.21e9, 3.21e9, 28, 3072, 24, 8, 128, 8192, 128256, true},
      {"Llama 2 7B", false, 6.74e9, 6.74e9, 32, 4096, 32, 32, 128, 11008, 32000, false},
      {"Mistral 7B", false, 7.24e9, 7.24e9, 32, 4096, 32, 8, 128, 14336, 32000, false},
      {"Llama 3.1 8B", false, 8.03e9, 8.03e9, 32, 4096, 32, 8, 128, 14336, 128256, false},
      {"Llama 2 13B", false, 13.0e9, 13.0e9, 40, 5120, 40, 40, 128, 13824, 32000, false},
      {"Qwen2.5 14B", false, 14.8e9, 14.8e9, 48, 5120, 40, 8, 128, 13824, 152064, false},
      {"Qwen2.5 32B", false, 32.8e9, 32.8e9, 64, 5120, 40, 8, 128, 27648, 152064, false},
      {"Llama 3.1 70B", false, 70.6e9, 70.6e9, 80, 8192, 64, 8, 128, 28672, 128256, false},
      {"Qwen2.5 72B", false, 72.7e9, 72.7e9, 80, 8192, 64, 8, 128, 29568, 152064, false},
      {"Llama 3.1 405B", false, 405.9e9, 405.9e9, 126, 16384, 128, 8, 128, 53248, 128256, false},
  }};
  return shapes;
}

ModelShape infer_shape(double params) {
  const auto shapes = reference_shapes();
  const auto nearest = std::min_element(shapes.begin(), shapes.end(), [&](const ModelShape& a, const ModelShape& b) {
    return std::abs(std::log(params / a.params)) < std::abs(std::log(params / b.params));
  });
  ModelShape shape = *nearest;
  // Scale depth so the blocks carry what the embeddings leave.
  const double block_params = std::max(params - shape.embedding_params(), shape.params_per_layer());
  shape.layers = std::max(1, static_cast<int>(std::lround(block_params / shape.params_per_layer())));
  shape.basis = nearest->basis;
  shape.inferred = true;
  shape.params = params;
  shape.active_params = params;
  return shape;
}

}  // namespace gpu_advise
