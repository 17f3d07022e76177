#include "gpu_advise/model.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "gpu_advise/error.hpp"
#include "gpu_advise/text.hpp"
#include "gpu_advise/units.hpp"

namespace gpu_advise {

namespace {
double swiglu(double hidden, double width) { return 3.0 * hidden * width; }
}  // namespace

double ModelShape::attention_params_per_layer() const {
  const double h = hidden;
  if (mla) {
    const double qk = mla->qk_nope_head_dim + mla->qk_rope_head_dim;
    const double q = mla->q_lora_rank > 0 ? h * mla->q_lora_rank + mla->q_lora_rank * heads * qk : h * heads * qk;
    const double kv = h * (mla->kv_lora_rank + mla->qk_rope_head_dim) +
                      static_cast<double>(mla->kv_lora_rank) * heads * (mla->qk_nope_head_dim + mla->v_head_dim);
    const double o = static_cast<double>(heads) * mla->v_head_dim * h;
    return q + kv + o;
  }
  const double q_out = static_cast<double>(heads) * head_dim;
  const double kv_out = static_cast<double>(kv_heads) * head_dim;
  return h * q_out + 2.0 * h * kv_out + q_out * h;
}

double LinearAttention::params_per_layer(int hidden) const {
  const double h = hidden;
  const double qk = static_cast<double>(key_heads) * key_head_dim;
  const double v = static_cast<double>(value_heads) * value_head_dim;
  const double qkvz = h * (2.0 * qk + 2.0 * v);              // q, k, v and the output gate z
  const double ba = h * 2.0 * value_heads;                   // beta (write strength) and the decay input
  const double conv = (2.0 * qk + v) * conv_kernel;          // depthwise, over q, k and v
  const double decay = 2.0 * value_heads;                    // A_log and dt_bias
  return qkvz + ba + conv + decay + value_head_dim + v * h;  // + the gated output norm, out_proj
}

double LinearAttention::state_values_per_layer() const {
  const double recurrent = static_cast<double>(value_heads) * key_head_dim * value_head_dim;
  const double conv = (2.0 * key_heads * key_head_dim + static_cast<double>(value_heads) * value_head_dim) *
                      std::max(0, conv_kernel - 1);
  return recurrent + conv;
}

double ModelShape::params_per_layer() const {
  return attention_params_per_layer() + swiglu(hidden, ffn) + 2.0 * hidden;
}

double ModelShape::embedding_params() const {
  return static_cast<double>(vocab) * hidden * (tied_embeddings ? 1.0 : 2.0);
}

double ModelShape::shape_params() const {
  double total = embedding_params() + hidden + linear_attention_excess();
  if (!moe) {
    return total + layers * params_per_layer();
  }
  const int dense = std::min(moe->dense_layers, layers);
  const int sparse = layers - dense;
  const double experts = (moe->experts + moe->shared_experts) * swiglu(hidden, moe->expert_ffn) +
                         static_cast<double>(hidden) * moe->experts;  // + router
  total += dense * params_per_layer();
  total += sparse * (attention_params_per_layer() + experts + 2.0 * hidden);
  return total;
}

double ModelShape::linear_attention_excess() const {
  if (!linear_attention) {
    return 0;
  }
  const double gate =
      linear_attention->gated_attention ? attention_layers() * static_cast<double>(hidden) * heads * head_dim : 0.0;
  return linear_attention->layers * (linear_attention->params_per_layer(hidden) - attention_params_per_layer()) + gate;
}

double ModelShape::shape_active_params() const {
  if (!moe) {
    return shape_params();
  }
  const int dense = std::min(moe->dense_layers, layers);
  const int sparse = layers - dense;
  const double active_mlp = (moe->experts_per_token + moe->shared_experts) * swiglu(hidden, moe->expert_ffn) +
                            static_cast<double>(hidden) * moe->experts;  // the router runs for every token
  return embedding_params() + hidden + linear_attention_excess() + dense * params_per_layer() +
         sparse * (attention_params_per_layer() + active_mlp + 2.0 * hidden);
}

double ModelShape::routed_expert_params() const {
  if (!moe) {
    return 0;
  }
  const int sparse = layers - std::min(moe->dense_layers, layers);
  return sparse * moe->experts * swiglu(hidden, moe->expert_ffn);
}

double ModelShape::kv_bytes(double tokens, double bytes_per_value) const {
  if (mla) {
    // The compressed latent and the shared RoPE key, once per layer (vLLM and
    // SGLang cache MLA this way; DeepSeek-V2 paper, arXiv 2405.04434, §2.1).
    return static_cast<double>(layers) * (mla->kv_lora_rank + mla->qk_rope_head_dim) * bytes_per_value * tokens;
  }
  const int cached = attention_layers();
  const double per_layer_token = 2.0 * kv_heads * head_dim * bytes_per_value;
  int windowed = 0;
  double window_tokens = tokens;
  if (sliding_window && sliding_window->size > 0) {
    windowed = std::clamp(sliding_window->layers, 0, cached);
    window_tokens = std::min(tokens, static_cast<double>(sliding_window->size));
  }
  return per_layer_token * ((cached - windowed) * tokens + windowed * window_tokens);
}

double ModelShape::linear_state_bytes(double bytes_per_value) const {
  // Engines keep the recurrent state in BF16 or FP32 whatever the KV cache's
  // precision: never below 2 bytes a value.
  return linear_attention
             ? linear_attention->layers * linear_attention->state_values_per_layer() * std::max(bytes_per_value, 2.0)
             : 0.0;
}

double ModelShape::lora_params(int rank, std::span<const LoraTarget> targets) const {
  // r * (d_in + d_out) per adapted matrix (Hu et al., arXiv 2106.09685).
  auto chosen = [&](LoraTarget target) { return std::find(targets.begin(), targets.end(), target) != targets.end(); };
  const double h = hidden;
  const double r = rank;
  double attention = 0;
  if (mla) {
    // q: down and up projections (or one), k and v: the shared latent down and
    // up projections, counted under k and v; o as usual.
    const double qk = mla->qk_nope_head_dim + mla->qk_rope_head_dim;
    if (chosen(LoraTarget::q)) {
      attention += mla->q_lora_rank > 0 ? (h + mla->q_lora_rank) + (mla->q_lora_rank + heads * qk) : h + heads * qk;
    }
    if (chosen(LoraTarget::k)) {
      attention += h + mla->kv_lora_rank + mla->qk_rope_head_dim;
    }
    if (chosen(LoraTarget::v)) {
      attention += mla->kv_lora_rank + static_cast<double>(heads) * (mla->qk_nope_head_dim + mla->v_head_dim);
    }
    if (chosen(LoraTarget::o)) {
      attention += static_cast<double>(heads) * mla->v_head_dim + h;
    }
  } else {
    const double q_out = static_cast<double>(heads) * head_dim;
    const double kv_out = static_cast<double>(kv_heads) * head_dim;
    attention = (chosen(LoraTarget::q) ? h + q_out : 0) + (chosen(LoraTarget::k) ? h + kv_out : 0) +
                (chosen(LoraTarget::v) ? h + kv_out : 0) + (chosen(LoraTarget::o) ? q_out + h : 0);
  }
  const int mlp_matrices =
      (chosen(LoraTarget::gate) ? 1 : 0) + (chosen(LoraTarget::up) ? 1 : 0) + (chosen(LoraTarget::down) ? 1 : 0);
  const double dense_mlp = mlp_matrices * (h + ffn);
  if (!moe) {
    return r * layers * (attention + dense_mlp);
  }
  const int dense = std::min(moe->dense_layers, layers);
  const int sparse = layers - dense;
  const double expert_mlp = (moe->experts + moe->shared_experts) * mlp_matrices * (h + moe->expert_ffn);
  return r * (dense * (attention + dense_mlp) + sparse * (attention + expert_mlp));
}

double ModelShape::attention_training_flops_per_token(double seq_len) const {
  const double width = mla ? static_cast<double>(heads) * (mla->qk_nope_head_dim + mla->qk_rope_head_dim)
                           : static_cast<double>(heads) * head_dim;
  return 12.0 * attention_layers() * width * seq_len;  // linear-attention layers: linear in seq_len, in the 6N
}

std::span<const ModelShape> reference_shapes() {
  // Values from each model's Hugging Face config.json.
  static const std::vector<ModelShape> shapes = [] {
    struct Row {
      const char* basis;
      double params;
      int layers, hidden, heads, kv_heads, head_dim, ffn, vocab;
      bool tied;
    };
    constexpr Row rows[] = {
        {"Llama 3.2 1B", 1.24e9, 16, 2048, 32, 8, 64, 8192, 128256, true},
        {"Llama 3.2 3B", 3.21e9, 28, 3072, 24, 8, 128, 8192, 128256, true},
        {"Llama 2 7B", 6.74e9, 32, 4096, 32, 32, 128, 11008, 32000, false},
        {"Mistral 7B", 7.24e9, 32, 4096, 32, 8, 128, 14336, 32000, false},
        {"Llama 3.1 8B", 8.03e9, 32, 4096, 32, 8, 128, 14336, 128256, false},
        {"Llama 2 13B", 13.0e9, 40, 5120, 40, 40, 128, 13824, 32000, false},
        {"Qwen2.5 14B", 14.8e9, 48, 5120, 40, 8, 128, 13824, 152064, false},
        {"Qwen2.5 32B", 32.8e9, 64, 5120, 40, 8, 128, 27648, 152064, false},
        {"Llama 3.1 70B", 70.6e9, 80, 8192, 64, 8, 128, 28672, 128256, false},
        {"Qwen2.5 72B", 72.7e9, 80, 8192, 64, 8, 128, 29568, 152064, false},
        {"Llama 3.1 405B", 405.9e9, 126, 16384, 128, 8, 128, 53248, 128256, false},
    };
    std::vector<ModelShape> out;
    for (const Row& row : rows) {
      ModelShape m;
      m.name = m.basis = row.basis;
      m.params = m.active_params = row.params;
      m.layers = row.layers;
      m.hidden = row.hidden;
      m.heads = row.heads;
      m.kv_heads = row.kv_heads;
      m.head_dim = row.head_dim;
      m.ffn = row.ffn;
      m.vocab = row.vocab;
      m.tied_embeddings = row.tied;
      out.push_back(m);
    }
    return out;
  }();
  return shapes;
}

ModelShape infer_shape(double params, std::optional<double> active_params) {
  const auto shapes = reference_shapes();
  // MoE: the attention and KV cache follow the active size more closely than the total.
  const double target = active_params.value_or(params);
  const auto nearest = std::min_element(shapes.begin(), shapes.end(), [&](const ModelShape& a, const ModelShape& b) {
    return std::abs(std::log(target / a.params)) < std::abs(std::log(target / b.params));
  });
  ModelShape shape = *nearest;
  // Scale depth so the blocks carry what the embeddings leave.
  const double block_params = std::max(target - shape.embedding_params(), shape.params_per_layer());
  shape.layers = std::max(1, static_cast<int>(std::lround(block_params / shape.params_per_layer())));
  shape.basis = nearest->basis;
  shape.source = ModelSource::inferred;
  shape.inferred = true;
  shape.params = params;
  shape.active_params = active_params.value_or(params);
  shape.name = active_params ? fmt::format("{} MoE model, {} active", format_parameter_count(params),
                                           format_parameter_count(*active_params))
                             : fmt::format("{} model", format_parameter_count(params));
  return shape;
}

const ModelShape& ModelCatalog::resolve(std::string_view query) const {
  std::string key = text::normalise_name(query);
  std::vector<std::string> names;
  for (const auto& model : m_models) {
    names.push_back(model.id);
    if (text::normalise_name(model.id) == key) {
      return model;
    }
    for (const auto& alias : model.aliases) {
      if (text::normalise_name(alias) == key) {
        return model;
      }
    }
  }
  // "org/Model-Name": try the part after the organisation.
  if (const auto slash = query.rfind('/'); slash != std::string_view::npos) {
    return resolve(query.substr(slash + 1));
  }
  std::string message = fmt::format("unknown model '{}'", text::excerpt(query));
  if (const auto suggestion = text::did_you_mean(text::to_lower(query), names)) {
    message += fmt::format("; did you mean '{}'?", *suggestion);
  }
  message += " ('gpu-advise models' lists the presets; --params or --model-config describe any other model)";
  throw UsageError(message);
}

}  // namespace gpu_advise
