// Imports a Hugging Face config.json: the exact shape of a dense, MoE, MLA or
// sliding-window model. Missing, null or mistyped fields are located errors.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpu_advise/catalog.hpp"
#include "gpu_advise/error.hpp"
#include "gpu_advise/model.hpp"
#include "gpu_advise/text.hpp"
#include "gpu_advise/units.hpp"
#include "load/files.hpp"
#include "load/json_input.hpp"

namespace gpu_advise {

namespace {

using nlohmann::json;

// nlohmann keeps no positions, so a key is located by its first occurrence in
// the text; config.json is flat, so that is the key itself.
std::pair<int, int> locate(std::string_view text, std::string_view key) {
  const auto at = text.find(fmt::format("\"{}\"", key));
  if (at == std::string_view::npos) {
    return {0, 0};
  }
  const auto before = text.substr(0, at);
  const int line = static_cast<int>(std::count(before.begin(), before.end(), '\n')) + 1;
  const auto line_start = before.rfind('\n');
  const int column = static_cast<int>(at - (line_start == std::string_view::npos ? 0 : line_start + 1)) + 1;
  return {line, column};
}

class ConfigReader {
 public:
  ConfigReader(const json& root, std::string_view text, std::string source)
      : m_root(root), m_text(text), m_source(std::move(source)) {}

  // An integer field; nullopt (and an error when required) if missing, null or mistyped.
  std::optional<int> integer(std::string_view key, bool required, std::int64_t min = 1,
                             std::int64_t max = 100'000'000) {
    const auto it = m_root.find(std::string(key));
    if (it == m_root.end()) {
      if (required) {
        error(key, "required field is missing");
      }
      return std::nullopt;
    }
    if (it->is_null()) {
      if (required) {
        error(key, "is null; expected a whole number");
      }
      return std::nullopt;
    }
    if (!it->is_number_integer() && !(it->is_number_float() && std::floor(it->get<double>()) == it->get<double>())) {
      error(key, fmt::format("expected a whole number, found {}", json_input::describe(*it)));
      return std::nullopt;
    }
    const double value = it->get<double>();
    if (value < static_cast<double>(min) || value > static_cast<double>(max)) {
      error(key, fmt::format("{} is outside {} to {}", json_input::describe(*it), min, max));
      return std::nullopt;
    }
    return static_cast<int>(value);
  }

  std::optional<bool> boolean(std::string_view key) {
    const auto it = m_root.find(std::string(key));
    if (it == m_root.end() || it->is_null()) {
      return std::nullopt;
    }
    if (!it->is_boolean()) {
      error(key, fmt::format("expected true or false, found {}", json_input::describe(*it)));
      return std::nullopt;
    }
    return it->get<bool>();
  }

  std::string string(std::string_view key) {
    const auto it = m_root.find(std::string(key));
    return (it != m_root.end() && it->is_string()) ? it->get<std::string>() : std::string();
  }

  bool has(std::string_view key) const {
    const auto it = m_root.find(std::string(key));
    return it != m_root.end() && !it->is_null();
  }

  const json* find(std::string_view key) const {
    const auto it = m_root.find(std::string(key));
    return it == m_root.end() ? nullptr : &*it;
  }

  void error(std::string_view key, std::string message) {
    const auto [line, column] = locate(m_text, key);
    m_diagnostics.push_back(Diagnostic{m_source, line, column, std::string(key), std::move(message)});
  }

  // A problem of the whole file rather than of one key.
  void error_in_file(std::string message) {
    m_diagnostics.push_back(Diagnostic{m_source, 0, 0, "", std::move(message)});
  }

  void throw_if_any() {
    if (!m_diagnostics.empty()) {
      throw DataError(std::move(m_diagnostics));
    }
  }

 private:
  const json& m_root;
  std::string_view m_text;
  std::string m_source;
  std::vector<Diagnostic> m_diagnostics;
};

// Fields that are each in range but cannot describe one model together.
void check_consistency(ConfigReader& r, const ModelShape& m) {
  if (m.kv_heads > m.heads && m.heads > 0) {
    r.error("num_key_value_heads", fmt::format("{} is more than num_attention_heads {}", m.kv_heads, m.heads));
  } else if (m.kv_heads > 0 && m.heads % m.kv_heads != 0) {
    r.error("num_key_value_heads", fmt::format("{} does not divide num_attention_heads {} (each key/value head "
                                               "serves a whole group of query heads)",
                                               m.kv_heads, m.heads));
  }
  if (!r.has("head_dim") && !m.mla && m.heads > 0 && m.hidden > 0 && m.hidden % m.heads != 0) {
    r.error("num_attention_heads", fmt::format("{} does not divide hidden_size {} and there is no head_dim to say "
                                               "the head size",
                                               m.heads, m.hidden));
  }
  if (m.moe) {
    const char* per_token = "num_experts_per_tok";
    if (m.moe->experts > 0 && m.moe->experts_per_token > m.moe->experts) {
      r.error(per_token, fmt::format("{} experts per token is more than the {} experts there are",
                                     m.moe->experts_per_token, m.moe->experts));
    }
    if (m.layers > 0 && m.moe->dense_layers > m.layers) {
      r.error("first_k_dense_replace",
              fmt::format("{} dense layers is more than num_hidden_layers {}", m.moe->dense_layers, m.layers));
    }
  }
  if (const json* types = r.find("layer_types"); types != nullptr && !types->is_null()) {
    if (!types->is_array()) {
      r.error("layer_types", fmt::format("expected a list of layer kinds, found {}", json_input::describe(*types)));
    } else if (m.layers > 0 && types->size() != static_cast<std::size_t>(m.layers)) {
      r.error("layer_types", fmt::format("lists {} layers but num_hidden_layers is {}", types->size(), m.layers));
    }
  }
}

// The window config.json's rope_scaling reaches: its factor times the
// original window, for the types that stretch it (YaRN, dynamic NTK, linear,
// LongRoPE; Hugging Face's names); 0 when there is none. "llama3" scaling is
// already in max_position_embeddings. A malformed entry extends nothing, so a
// longer --context is refused with the limit named.
int scaled_context(const json* rope, int max_context) {
  if (rope == nullptr || !rope->is_object()) {
    return 0;
  }
  const auto text = [&](const char* key) {
    const auto it = rope->find(key);
    return it != rope->end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  const std::string type = text("rope_type").empty() ? text("type") : text("rope_type");
  if (type != "yarn" && type != "dynamic" && type != "linear" && type != "longrope") {
    return 0;
  }
  const auto factor_it = rope->find("factor");
  if (factor_it == rope->end() || !factor_it->is_number()) {
    return 0;
  }
  const double factor = factor_it->get<double>();
  const auto original_it = rope->find("original_max_position_embeddings");
  const double original = original_it != rope->end() && original_it->is_number_integer()
                              ? original_it->get<double>()
                              : static_cast<double>(max_context);
  if (!(factor > 1 && factor <= 64) || !(original >= 1 && original <= 1e8)) {
    return 0;
  }
  const double scaled = std::floor(original * factor);
  return scaled > max_context && scaled <= 1e8 ? static_cast<int>(scaled) : 0;
}

}  // namespace

ModelShape parse_hf_config(std::string_view text, std::string_view source) {
  json root;
  try {
    root = json_input::parse(text);
  } catch (const json_input::Failure& e) {
    int line = 0;
    int column = 0;
    std::string where;
    std::size_t byte = e.byte();
    if (!e.duplicate_key().empty()) {
      // config.json is flat: the second time the key is written is the repeat.
      const std::string quoted = fmt::format("\"{}\"", e.duplicate_key());
      const auto first = text.find(quoted);
      byte = first == std::string_view::npos ? first : text.find(quoted, first + 1);
    }
    if (byte != std::string::npos) {
      const auto before = text.substr(0, std::min(byte, text.size()));
      line = static_cast<int>(std::count(before.begin(), before.end(), '\n')) + 1;
      const auto line_start = before.rfind('\n');
      column = static_cast<int>(before.size() - (line_start == std::string_view::npos ? 0 : line_start + 1)) + 1;
      where = fmt::format(" (byte offset {})", byte);
    }
    throw DataError({Diagnostic{std::string(source), line, column, "", e.what() + where}});
  }
  if (!root.is_object()) {
    throw DataError({Diagnostic{std::string(source), 1, 1, "", "expected a JSON object (a Hugging Face config.json)"}});
  }
  // Multimodal configs nest the language model.
  if (root.contains("text_config") && root["text_config"].is_object() && !root.contains("hidden_size")) {
    json merged = root["text_config"];
    root = merged;
  }
  ConfigReader r(root, text, std::string(source));
  ModelShape m;
  m.source = ModelSource::config_json;
  const std::string model_type = r.string("model_type");
  m.hidden = r.integer("hidden_size", true).value_or(0);
  m.layers = r.integer("num_hidden_layers", true, 1, 10000).value_or(0);
  m.heads = r.integer("num_attention_heads", true, 1, 10000).value_or(0);
  m.kv_heads = r.integer("num_key_value_heads", false, 1, 10000).value_or(m.heads);
  m.vocab = r.integer("vocab_size", true).value_or(0);
  m.head_dim = r.integer("head_dim", false).value_or(m.heads > 0 ? m.hidden / m.heads : 0);
  m.tied_embeddings = r.boolean("tie_word_embeddings").value_or(false);
  m.max_context = r.integer("max_position_embeddings", false).value_or(0);
  m.scaled_context = scaled_context(r.find("rope_scaling"), m.max_context);

  const bool deepseek = model_type.rfind("deepseek", 0) == 0 || r.has("n_routed_experts");
  const bool mixtral = r.has("num_local_experts");
  const bool qwen_moe = r.has("num_experts") && r.has("moe_intermediate_size");
  if (mixtral) {
    MoeSpec moe;
    moe.experts = r.integer("num_local_experts", true).value_or(0);
    moe.experts_per_token = r.integer("num_experts_per_tok", true).value_or(0);
    moe.expert_ffn = r.integer("intermediate_size", true).value_or(0);
    m.ffn = moe.expert_ffn;
    m.moe = moe;
  } else if (qwen_moe || deepseek) {
    MoeSpec moe;
    moe.experts = r.integer(deepseek ? "n_routed_experts" : "num_experts", true).value_or(0);
    moe.experts_per_token = r.integer("num_experts_per_tok", true).value_or(0);
    moe.expert_ffn = r.integer("moe_intermediate_size", true).value_or(0);
    moe.shared_experts = r.integer("n_shared_experts", false, 0, 1000).value_or(0);
    moe.dense_layers = r.integer("first_k_dense_replace", false, 0, 10000).value_or(0);
    if (const auto shared = r.integer("shared_expert_intermediate_size", false); shared && moe.expert_ffn > 0) {
      moe.shared_experts = std::max(1, *shared / moe.expert_ffn);  // Qwen2-MoE: one wide shared expert
    }
    m.ffn = r.integer("intermediate_size", moe.dense_layers > 0).value_or(moe.expert_ffn);
    m.moe = moe;
  } else {
    m.ffn = r.integer("intermediate_size", true).value_or(0);
  }
  if (deepseek && r.has("kv_lora_rank")) {
    MlaSpec mla;
    mla.kv_lora_rank = r.integer("kv_lora_rank", true).value_or(0);
    mla.q_lora_rank = r.integer("q_lora_rank", false, 0).value_or(0);
    mla.qk_rope_head_dim = r.integer("qk_rope_head_dim", true).value_or(0);
    mla.qk_nope_head_dim = r.integer("qk_nope_head_dim", true).value_or(0);
    mla.v_head_dim = r.integer("v_head_dim", true).value_or(0);
    m.mla = mla;
    if (!r.has("head_dim")) {
      m.head_dim = mla.qk_nope_head_dim + mla.qk_rope_head_dim;  // hidden / heads means nothing under MLA
    }
  }
  // Sliding window: Mistral uses it on every layer; Qwen only with use_sliding_window;
  // Gemma 2 alternates; newer configs list layer_types.
  if (const auto window = r.integer("sliding_window", false)) {
    const bool qwen = model_type.rfind("qwen", 0) == 0;
    const bool used = !qwen || r.boolean("use_sliding_window").value_or(false);
    if (used && (m.max_context == 0 || *window < m.max_context)) {
      int windowed = m.layers;
      if (const json* types = r.find("layer_types"); types != nullptr && types->is_array()) {
        windowed = static_cast<int>(std::count(types->begin(), types->end(), json("sliding_attention")));
      } else if (model_type == "gemma2" || model_type == "gemma3_text") {
        windowed = m.layers / 2;
      }
      if (windowed > 0) {
        m.sliding_window = SlidingWindow{*window, windowed};
      }
    }
  }
  // Linear attention (Qwen3-Next): every full_attention_interval-th layer has
  // softmax attention, the rest Gated DeltaNet; newer configs list layer_types.
  if (r.has("linear_num_value_heads")) {
    LinearAttention linear;
    if (const json* types = r.find("layer_types"); types != nullptr && types->is_array()) {
      linear.layers = static_cast<int>(std::count(types->begin(), types->end(), json("linear_attention")));
    } else if (const auto interval = r.integer("full_attention_interval", true, 1, 10000)) {
      // (required without layer_types: which layers attend cannot be told otherwise)
      linear.layers = m.layers - m.layers / *interval;
    }
    linear.key_heads = r.integer("linear_num_key_heads", true, 1, 10000).value_or(0);
    linear.value_heads = r.integer("linear_num_value_heads", true, 1, 10000).value_or(0);
    linear.key_head_dim = r.integer("linear_key_head_dim", true, 1, 100000).value_or(0);
    linear.value_head_dim = r.integer("linear_value_head_dim", true, 1, 100000).value_or(0);
    linear.conv_kernel = r.integer("linear_conv_kernel_dim", false, 1, 1000).value_or(4);
    linear.gated_attention = model_type == "qwen3_next";
    if (linear.layers > 0 && linear.layers < m.layers) {
      m.linear_attention = linear;
    }
  }
  check_consistency(r, m);
  r.throw_if_any();

  m.params = m.shape_params();
  m.active_params = m.shape_active_params();
  if (!(m.params >= min_parameter_count && m.params <= max_parameter_count)) {
    r.error_in_file(
        fmt::format("the shape describes {:.3g} parameters, outside the {} to {} that gpu-advise "
                    "sizes (as for --params); check hidden_size, head_dim, the layer and expert "
                    "counts",
                    m.params, "1M", "100T"));
    r.throw_if_any();
  }
  const std::string architecture = [&] {
    const json* list = r.find("architectures");
    if (list != nullptr && list->is_array() && !list->empty() && list->front().is_string()) {
      return list->front().get<std::string>();
    }
    return model_type.empty() ? std::string("model") : model_type;
  }();
  m.name = m.basis = fmt::format("{} from {}", text::excerpt(architecture), text::printable(source));
  return m;
}

ModelShape load_hf_config(const std::filesystem::path& path) {
  return parse_hf_config(read_data_file(path), path.string());
}

}  // namespace gpu_advise
