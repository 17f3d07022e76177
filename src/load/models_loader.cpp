// Loads data/models.yaml (embedded): model presets with their published shapes.
#include <map>

#include <fmt/format.h>

#include "gpu_advise/catalog.hpp"
#include "gpu_advise/error.hpp"
#include "gpu_advise/model.hpp"
#include "load/yaml_reader.hpp"

namespace gpu_advise {

namespace {

using yaml::Bounds;
using yaml::Lines;
using yaml::MapReader;
using yaml::Presence;

constexpr Bounds count_bounds{1e6, 1e14, true};

int read_int(MapReader& map, std::string_view key, Presence presence, std::int64_t max = 10'000'000) {
  return static_cast<int>(map.integer(key, presence, presence == Presence::required ? 1 : 0, max).value_or(0));
}

ModelShape read_model(yaml::Diagnostics& diagnostics, const YAML::Node& node, const std::string& path) {
  ModelShape m;
  m.source = ModelSource::preset;
  MapReader map(diagnostics, node, path);
  if (!map.valid()) {
    return m;
  }
  m.id = map.string("id", Presence::required).value_or("");
  m.name = m.basis = map.string("name", Presence::required).value_or(m.id);
  m.aliases = map.string_list("aliases", Presence::optional).value_or(std::vector<std::string>{});
  m.params = map.number("params", Presence::required, count_bounds).value_or(0);
  m.active_params = map.number("active_params", Presence::optional, count_bounds).value_or(m.params);
  m.layers = read_int(map, "layers", Presence::required, 10000);
  m.hidden = read_int(map, "hidden", Presence::required);
  m.heads = read_int(map, "heads", Presence::required, 10000);
  m.kv_heads = read_int(map, "kv_heads", Presence::required, 10000);
  m.head_dim = read_int(map, "head_dim", Presence::optional, 100000);
  if (m.head_dim == 0 && m.heads > 0) {
    m.head_dim = m.hidden / m.heads;
  }
  m.ffn = read_int(map, "ffn", Presence::required);
  m.vocab = read_int(map, "vocab", Presence::required);
  if (const auto tied = map.string("tied_embeddings", Presence::required)) {
    if (*tied == "true" || *tied == "false") {
      m.tied_embeddings = *tied == "true";
    } else {
      diagnostics.error(*map.node("tied_embeddings", Presence::required), map.child_path("tied_embeddings"),
                        fmt::format("expected true or false, found '{}'", *tied));
    }
  }
  m.max_context = read_int(map, "max_context", Presence::optional, 100'000'000);
  m.scaled_context = read_int(map, "scaled_context", Presence::optional, 100'000'000);
  if (m.scaled_context > 0 && m.scaled_context <= m.max_context) {
    diagnostics.error(*map.node("scaled_context", Presence::optional), map.child_path("scaled_context"),
                      fmt::format("{} is not past max_context {}: scaled_context is the longer window rope scaling "
                                  "reaches",
                                  m.scaled_context, m.max_context));
  }
  if (const auto moe_node = map.node("moe", Presence::optional)) {
    MapReader moe(diagnostics, *moe_node, map.child_path("moe"));
    MoeSpec spec;
    spec.experts = read_int(moe, "experts", Presence::required, 100000);
    spec.experts_per_token = read_int(moe, "experts_per_token", Presence::required, 100000);
    spec.expert_ffn = read_int(moe, "expert_ffn", Presence::required);
    spec.shared_experts = read_int(moe, "shared_experts", Presence::optional, 1000);
    spec.dense_layers = read_int(moe, "dense_layers", Presence::optional, 10000);
    moe.finish();
    if (spec.experts_per_token > spec.experts) {
      diagnostics.error(
          *moe_node, moe.child_path("experts_per_token"),
          fmt::format("{} active experts is more than the {} experts", spec.experts_per_token, spec.experts));
    }
    m.moe = spec;
  }
  if (const auto mla_node = map.node("mla", Presence::optional)) {
    MapReader mla(diagnostics, *mla_node, map.child_path("mla"));
    MlaSpec spec;
    spec.kv_lora_rank = read_int(mla, "kv_lora_rank", Presence::required);
    spec.q_lora_rank = read_int(mla, "q_lora_rank", Presence::optional);
    spec.qk_rope_head_dim = read_int(mla, "qk_rope_head_dim", Presence::required);
    spec.qk_nope_head_dim = read_int(mla, "qk_nope_head_dim", Presence::required);
    spec.v_head_dim = read_int(mla, "v_head_dim", Presence::required);
    mla.finish();
    m.mla = spec;
    if (map.node("head_dim", Presence::optional) == std::nullopt) {
      m.head_dim = spec.qk_nope_head_dim + spec.qk_rope_head_dim;  // hidden / heads means nothing under MLA
    }
  }
  if (const auto window_node = map.node("sliding_window", Presence::optional)) {
    MapReader window(diagnostics, *window_node, map.child_path("sliding_window"));
    SlidingWindow spec;
    spec.size = read_int(window, "size", Presence::required, 100'000'000);
    spec.layers = read_int(window, "layers", Presence::required, 10000);
    window.finish();
    if (spec.layers > m.layers) {
      diagnostics.error(*window_node, window.child_path("layers"),
                        fmt::format("{} windowed layers is more than the model's {} layers", spec.layers, m.layers));
    }
    m.sliding_window = spec;
  }
  if (const auto linear_node = map.node("linear_attention", Presence::optional)) {
    MapReader linear(diagnostics, *linear_node, map.child_path("linear_attention"));
    LinearAttention spec;
    spec.layers = read_int(linear, "layers", Presence::required, 10000);
    spec.key_heads = read_int(linear, "key_heads", Presence::required);
    spec.value_heads = read_int(linear, "value_heads", Presence::required);
    spec.key_head_dim = read_int(linear, "key_head_dim", Presence::required);
    spec.value_head_dim = read_int(linear, "value_head_dim", Presence::required);
    spec.conv_kernel = read_int(linear, "conv_kernel", Presence::required);
    if (const auto gated = linear.string("gated_attention", Presence::optional)) {
      if (*gated != "true" && *gated != "false") {
        diagnostics.error(*linear.node("gated_attention", Presence::optional), linear.child_path("gated_attention"),
                          fmt::format("expected true or false, found '{}'", *gated));
      }
      spec.gated_attention = *gated == "true";
    }
    linear.finish();
    if (spec.layers >= m.layers) {
      diagnostics.error(*linear_node, linear.child_path("layers"),
                        fmt::format("{} linear-attention layers leave none of the model's {} layers with attention",
                                    spec.layers, m.layers));
    }
    m.linear_attention = spec;
  }
  m.sources = map.string_list("sources", Presence::required).value_or(std::vector<std::string>{});
  (void)map.string("notes", Presence::optional, Lines::many);
  map.finish();
  if (m.active_params > m.params) {
    diagnostics.error(node, map.child_path("active_params"), "is larger than params");
  }
  if (m.kv_heads > m.heads && m.heads > 0) {
    diagnostics.error(node, map.child_path("kv_heads"), "is larger than heads");
  }
  return m;
}

}  // namespace

ModelCatalog parse_models(std::string_view text, std::string_view source) {
  yaml::Diagnostics diagnostics{std::string(source)};
  const YAML::Node document = yaml::parse(text, diagnostics);
  diagnostics.throw_if_any();
  std::vector<ModelShape> models;
  MapReader top(diagnostics, document, "");
  if (const auto version = top.integer("schema_version", Presence::required, 1, 1000); version && *version != 1) {
    diagnostics.error(document, "schema_version", fmt::format("version {} is not supported; expected 1", *version));
  }
  if (const auto list = top.node("models", Presence::required)) {
    if (!list->IsSequence()) {
      diagnostics.error(*list, "models", "expected a list of models");
    } else {
      std::map<std::string, int> first_line;
      std::size_t index = 0;
      for (const auto& item : *list) {
        const auto path = fmt::format("models[{}]", index++);
        ModelShape model = read_model(diagnostics, item, path);
        if (!model.id.empty()) {
          const auto [it, inserted] = first_line.emplace(model.id, yaml::line_of(item));
          if (!inserted) {
            diagnostics.error(item, path + ".id",
                              fmt::format("duplicate id '{}' (first defined at line {})", model.id, it->second));
          }
        }
        models.push_back(std::move(model));
      }
    }
  }
  top.finish();
  diagnostics.throw_if_any();
  return ModelCatalog(std::move(models));
}

}  // namespace gpu_advise
