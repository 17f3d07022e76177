// The shape of a transformer: what memory and compute estimates need beyond a
// parameter count. Three ways in: a bare parameter count (shape inferred from
// the nearest published model), a preset (data/models.yaml) or a Hugging Face
// config.json. Dense, mixture-of-experts, MLA and sliding-window models.
#pragma once

#include <algorithm>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpu_advise {

struct MoeSpec {
  int experts = 0;            // routed experts per MoE layer
  int experts_per_token = 0;  // routed experts active per token
  int expert_ffn = 0;         // width of one expert's SwiGLU MLP
  int shared_experts = 0;     // always-active experts (DeepSeek)
  int dense_layers = 0;       // leading layers with a dense MLP of width `ffn`
  friend bool operator==(const MoeSpec&, const MoeSpec&) = default;
};

// DeepSeek V2/V3 multi-head latent attention.
struct MlaSpec {
  int kv_lora_rank = 0;
  int q_lora_rank = 0;  // 0 = queries not compressed
  int qk_rope_head_dim = 0;
  int qk_nope_head_dim = 0;
  int v_head_dim = 0;
  friend bool operator==(const MlaSpec&, const MlaSpec&) = default;
};

struct SlidingWindow {
  int size = 0;    // tokens each windowed layer attends to
  int layers = 0;  // how many layers use the window
  friend bool operator==(const SlidingWindow&, const SlidingWindow&) = default;
};

// Linear-attention layers (Qwen3-Next's Gated DeltaNet, arXiv 2412.06464):
// each holds a fixed recurrent state per sequence instead of a KV cache.
struct LinearAttention {
  int layers = 0;          // how many of the model's layers are linear attention
  int key_heads = 0;       // linear_num_key_heads
  int value_heads = 0;     // linear_num_value_heads
  int key_head_dim = 0;    // linear_key_head_dim
  int value_head_dim = 0;  // linear_value_head_dim
  int conv_kernel = 0;     // linear_conv_kernel_dim (a short causal convolution over q, k, v)
  // The hybrid's softmax layers gate their output: q_proj also yields the
  // gate, heads x head_dim more outputs (Qwen3-Next's gated attention).
  bool gated_attention = false;
  friend bool operator==(const LinearAttention&, const LinearAttention&) = default;

  // Parameters of one such layer: the q, k, v and gate projections, the
  // beta and decay projections, the convolution, decay terms, the output
  // norm and projection.
  [[nodiscard]] double params_per_layer(int hidden) const;
  // The state one sequence holds in one layer, in values: the recurrent
  // state (value heads x key dim x value dim) and the convolution's window.
  [[nodiscard]] double state_values_per_layer() const;
};

enum class ModelSource { inferred, preset, config_json };

// The linear layers of a block that LoRA can adapt.
enum class LoraTarget { q, k, v, o, gate, up, down };
inline constexpr LoraTarget all_lora_targets[] = {LoraTarget::q,    LoraTarget::k,  LoraTarget::v,   LoraTarget::o,
                                                  LoraTarget::gate, LoraTarget::up, LoraTarget::down};

struct ModelShape {
  std::string id;                    // preset id, or empty
  std::vector<std::string> aliases;  // presets: other names (Hugging Face repos)
  std::vector<std::string> sources;  // presets: where the values come from
  std::string name;                  // display name: "Llama 3.1 70B", or "70B model (shape of Llama 3.1 70B)"
  std::string basis;                 // the published model whose shape this is, or was inferred from
  ModelSource source = ModelSource::inferred;
  bool inferred = false;     // true when only a parameter count was given
  double params = 0;         // total parameters
  double active_params = 0;  // per token (== params for dense models)
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;
  int head_dim = 0;
  int ffn = 0;  // dense MLP width (SwiGLU: three matrices)
  int vocab = 0;
  bool tied_embeddings = false;
  int max_context = 0;  // 0 = unknown
  // The context the model's authors document with rope scaling (YaRN): a
  // preset's scaled_context, or config.json's rope_scaling factor times its
  // original window; 0 = none. A --context up to it is served, and said so.
  int scaled_context = 0;
  std::optional<MoeSpec> moe;
  std::optional<MlaSpec> mla;
  std::optional<SlidingWindow> sliding_window;
  std::optional<LinearAttention> linear_attention;
  friend bool operator==(const ModelShape&, const ModelShape&) = default;

  // Layers with softmax attention and a KV cache: all but the linear ones.
  [[nodiscard]] int attention_layers() const {
    return linear_attention ? std::max(0, layers - linear_attention->layers) : layers;
  }

  [[nodiscard]] bool is_moe() const { return moe.has_value(); }
  // Attention parameters of one layer (MLA-aware).
  [[nodiscard]] double attention_params_per_layer() const;
  // Parameters of one dense transformer block (attention + SwiGLU MLP of `ffn` + 2 norms).
  [[nodiscard]] double params_per_layer() const;
  // Embedding (and untied LM head) parameters.
  [[nodiscard]] double embedding_params() const;
  // Parameters this shape adds up to (MoE: all experts).
  [[nodiscard]] double shape_params() const;
  // What the linear-attention layers add over softmax attention layers, and
  // the attention layers' output gate (0 without linear attention).
  [[nodiscard]] double linear_attention_excess() const;
  // Parameters active per token by the shape (MoE: routed-per-token + shared experts).
  [[nodiscard]] double shape_active_params() const;
  // Parameters of the routed experts, all layers (0 for dense models): the
  // part of the weights a decode step reads only where its tokens are routed.
  [[nodiscard]] double routed_expert_params() const;
  // The linear-attention layers' state for one sequence, whatever its tokens,
  // at `bytes_per_value` but never below BF16's 2 (0 without such layers).
  [[nodiscard]] double linear_state_bytes(double bytes_per_value) const;
  // KV-cache bytes for one sequence holding `tokens` tokens, at `bytes_per_value`
  // (2 for BF16, 1 for FP8): 2 * g * d_h per layer and token; MLA caches the
  // compressed latent (kv_lora_rank + qk_rope_head_dim); windowed layers hold
  // at most the window.
  [[nodiscard]] double kv_bytes(double tokens, double bytes_per_value) const;
  // LoRA adapter parameters at rank r on the chosen linear layers of every
  // block (MoE: every expert). Default: all seven.
  [[nodiscard]] double lora_params(int rank, std::span<const LoraTarget> targets = all_lora_targets) const;
  // Attention score FLOPs per token, forward + backward, at sequence length s:
  // 12 * L * (heads * head_dim) * s (PaLM, arXiv 2204.02311 app. B).
  [[nodiscard]] double attention_training_flops_per_token(double seq_len) const;
};

// Published shapes of well-known dense models, for inferring a shape from a count.
[[nodiscard]] std::span<const ModelShape> reference_shapes();

// A shape for a dense model of `params` parameters: the nearest reference shape
// (in log scale) with its layer count scaled so the total matches; marked inferred.
// With `active_params` (MoE), compute uses the active count.
[[nodiscard]] ModelShape infer_shape(double params, std::optional<double> active_params = std::nullopt);

// The presets of data/models.yaml.
class ModelCatalog {
 public:
  ModelCatalog() = default;
  explicit ModelCatalog(std::vector<ModelShape> models) : m_models(std::move(models)) {}
  [[nodiscard]] const std::vector<ModelShape>& models() const noexcept { return m_models; }
  // By id or alias, ignoring case, spaces, '-' and '_' (a '/' repo prefix is
  // allowed: "meta-llama/Llama-3.1-70B"). Throws UsageError with a did-you-mean.
  [[nodiscard]] const ModelShape& resolve(std::string_view query) const;
  friend bool operator==(const ModelCatalog&, const ModelCatalog&) = default;

 private:
  std::vector<ModelShape> m_models;
};

// Parses models YAML (the schema of data/models.yaml). Throws DataError.
[[nodiscard]] ModelCatalog parse_models(std::string_view text, std::string_view source);
[[nodiscard]] ModelCatalog load_embedded_models();

// Reads a Hugging Face config.json (Llama, Qwen2/3, Mistral, Mixtral, Qwen3-MoE,
// DeepSeek V2/V3, Gemma 2). Missing, null or mistyped fields are located
// errors (DataError). The parameter count is computed from the shape.
[[nodiscard]] ModelShape parse_hf_config(std::string_view json_text, std::string_view source);
[[nodiscard]] ModelShape load_hf_config(const std::filesystem::path& path);

}  // namespace gpu_advise
