// The three ways to describe a model: a parameter count, a preset and a
// Hugging Face config.json; they must agree on the same model.
#include <catch2/catch.hpp>

#include "errors_fixture.hpp"
#include "gpu_advise/catalog.hpp"
#include "gpu_advise/error.hpp"
#include "gpu_advise/estimate.hpp"
#include "gpu_advise/model.hpp"
#include "gpu_fixture.hpp"

using namespace gpu_advise;

namespace {
const std::string configs = std::string(GPU_ADVISE_TEST_DATA) + "/hf-configs/";

std::string config_errors(const std::string& json) {
  return test::data_errors([&] { (void)parse_hf_config(json, "config.json"); });
}
}  // namespace

TEST_CASE("the embedded presets load and include the required models", "[models]") {
  const ModelCatalog models = load_embedded_models();
  for (const char* id : {"llama-2-7b",     "llama-2-13b", "llama-2-70b",   "llama-3.1-8b",    "llama-3.1-70b",
                         "llama-3.1-405b", "qwen2.5-7b",  "qwen2.5-14b",   "qwen2.5-32b",     "qwen2.5-72b",
                         "mixtral-8x7b",   "deepseek-v3", "qwen3-30b-a3b", "qwen3-235b-a22b", "qwen3-14b",
                         "qwen3-4b",       "gemma-3-12b", "gemma-3-4b",    "llama-3.3-70b",   "qwen3-next-80b-a3b"}) {
    CAPTURE(id);
    const ModelShape& m = models.resolve(id);
    CHECK(m.params > 1e9);
    CHECK_FALSE(m.sources.empty());
  }
  // Published totals: DeepSeek-V3 671B with 37B active; Mixtral 46.7B with 12.9B active.
  CHECK(models.resolve("deepseek-v3").active_params == Approx(37e9));
  CHECK(models.resolve("mixtral-8x7b").params == Approx(46.7e9).epsilon(0.01));
  CHECK(models.resolve("DeepSeek-V3").mla.has_value());
  // Issue 37's presets, as their configs give them: Gemma 3's every sixth
  // layer global, Qwen3 4B's tied embeddings, Llama 3.3 70B on 3.1's shape.
  CHECK(models.resolve("google/gemma-3-4b-it").sliding_window->layers == 34 - 34 / 6);
  CHECK(models.resolve("google/gemma-3-12b-it").sliding_window->layers == 48 - 48 / 6);
  CHECK(models.resolve("Qwen/Qwen3-4B").tied_embeddings);
  CHECK_FALSE(models.resolve("Qwen/Qwen3-14B").tied_embeddings);
  CHECK(models.resolve("meta-llama/Llama-3.3-70B-Instruct").shape_params() ==
        Approx(models.resolve("llama-3.1-70b").shape_params()));
}

TEST_CASE("Qwen3-Next: 36 linear-attention layers hold a fixed state, 12 attention layers a KV cache", "[models]") {
  // Issue 37: the preset people ask for. Its config: full_attention_interval
  // 4 over 48 layers; Gated DeltaNet with 32 value heads of 128 (key 128) and
  // a 4-tap convolution over 8,192 channels; attention 2 KV heads of 256.
  const ModelCatalog models = load_embedded_models();
  const ModelShape& m = models.resolve("Qwen/Qwen3-Next-80B-A3B-Instruct");
  REQUIRE(m.linear_attention);
  CHECK(m.attention_layers() == 12);
  // The shape adds up to Qwen3-Coder-Next's published 79,674,391,296 (the
  // same architecture) within the gated q projection and norms it leaves out.
  CHECK(m.shape_params() == Approx(79674391296.0).epsilon(0.005));
  CHECK(m.shape_active_params() == Approx(3874929408.0).epsilon(0.05));
  // KV: 12 layers x 2 x 2 heads x 256 x 2 B = 24,576 B a token; the state:
  // 36 x (32 x 128 x 128 + 8,192 x 3) values x 2 B = 39.5 MB a sequence.
  const double state = 36.0 * (32 * 128 * 128 + 8192 * 3) * 2.0;
  CHECK(state == Approx(39.5e6).epsilon(0.01));
  CHECK(m.linear_state_bytes(2.0) == Approx(state));
  CHECK(m.linear_state_bytes(1.0) == Approx(state));  // an FP8 KV cache leaves the state in BF16
  CHECK(m.kv_bytes(0, 2.0) == 0);
  CHECK(m.kv_bytes(1000, 2.0) == Approx(24576.0 * 1000));
  // Attention FLOPs of training grow with the 12 attention layers only.
  ModelShape all_attention = m;
  all_attention.linear_attention.reset();
  CHECK(m.attention_training_flops_per_token(4096) ==
        Approx(all_attention.attention_training_flops_per_token(4096) * 12.0 / 48.0));
}

TEST_CASE("presets resolve by alias and Hugging Face repo, with a did-you-mean", "[models]") {
  const ModelCatalog models = load_embedded_models();
  CHECK(models.resolve("meta-llama/Llama-3.1-70B").id == "llama-3.1-70b");
  CHECK(models.resolve("LLAMA-3.1-70B").id == "llama-3.1-70b");
  CHECK_THROWS_AS(models.resolve("llama-3.1-71b"), UsageError);
  CHECK_THROWS_WITH(models.resolve("lama-3.1-70b"), Catch::Contains("did you mean 'llama-3.1-70b'?"));
}

TEST_CASE("a preset's shape adds up to its published parameter count", "[models]") {
  const ModelCatalog models = load_embedded_models();
  for (const auto& m : models.models()) {
    CAPTURE(m.id);
    CHECK(m.shape_params() == Approx(m.params).epsilon(0.01));
    CHECK(m.shape_active_params() == Approx(m.active_params).epsilon(0.02));
  }
}

TEST_CASE("config.json, preset and parameter count agree on the same model", "[models]") {
  const ModelCatalog models = load_embedded_models();
  for (const char* id : {"llama-3.1-70b", "mixtral-8x7b", "deepseek-v3", "qwen2.5-7b", "qwen3-30b-a3b"}) {
    CAPTURE(id);
    const ModelShape& preset = models.resolve(id);
    const ModelShape config = load_hf_config(configs + id + ".json");
    CHECK(config.layers == preset.layers);
    CHECK(config.hidden == preset.hidden);
    CHECK(config.heads == preset.heads);
    CHECK(config.kv_heads == preset.kv_heads);
    CHECK(config.head_dim == preset.head_dim);
    CHECK(config.ffn == preset.ffn);
    CHECK(config.vocab == preset.vocab);
    CHECK(config.tied_embeddings == preset.tied_embeddings);
    CHECK(config.moe.has_value() == preset.moe.has_value());
    CHECK(config.mla.has_value() == preset.mla.has_value());
    CHECK(config.params == Approx(preset.params).epsilon(0.001));
    CHECK(config.active_params == Approx(preset.active_params).epsilon(0.02));
  }
  // A bare count borrows the same family's shape, so the estimates agree.
  const ModelShape& preset = models.resolve("llama-3.1-70b");
  const ModelShape inferred = infer_shape(preset.params);
  CHECK(inferred.basis == "Llama 3.1 70B");
  const GpuSpec gpu = test::card("g80", 80, 2000, 312, 8, 2.0);
  for (const Task task : {Task::full, Task::lora, Task::qlora, Task::inference}) {
    CAPTURE(static_cast<int>(task));
    Request r = test::request(preset.params, task);
    const Estimate a = estimate(r, preset, gpu);
    const Estimate b = estimate(r, inferred, gpu);
    const Estimate c = estimate(r, load_hf_config(configs + "llama-3.1-70b.json"), gpu);
    CHECK(a.count == b.count);
    CHECK(a.count == c.count);
    CHECK(b.per_gpu.total() == Approx(a.per_gpu.total()).epsilon(0.02));
    CHECK(c.per_gpu.total() == Approx(a.per_gpu.total()).epsilon(0.001));
  }
}

TEST_CASE("config.json problems are located errors", "[models][config]") {
  CHECK_THAT(config_errors(R"({"hidden_size": 4096, "num_attention_heads": 32, "vocab_size": 32000,
                               "intermediate_size": 11008})"),
             Catch::Contains("config.json: num_hidden_layers: required field is missing"));
  CHECK_THAT(
      config_errors("{\n  \"hidden_size\": \"4096\",\n  \"num_hidden_layers\": 32,\n  \"num_attention_heads\": 32,"
                    "\n  \"vocab_size\": 32000, \"intermediate_size\": 11008}"),
      Catch::Contains("config.json:2:3: hidden_size: expected a whole number, found \"4096\""));
  CHECK_THAT(config_errors(R"({"hidden_size": null, "num_hidden_layers": 32, "num_attention_heads": 32,
                               "vocab_size": 32000, "intermediate_size": 11008})"),
             Catch::Contains("hidden_size: is null"));
  CHECK_THAT(config_errors(R"({"hidden_size": -1, "num_hidden_layers": 32, "num_attention_heads": 32,
                               "vocab_size": 32000, "intermediate_size": 11008})"),
             Catch::Contains("hidden_size: -1 is outside"));
  CHECK_THAT(config_errors(R"({"hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
                               "num_key_value_heads": 64, "vocab_size": 32000, "intermediate_size": 11008})"),
             Catch::Contains("num_key_value_heads: 64 is more than num_attention_heads 32"));
  CHECK_THAT(config_errors("{ not json"), Catch::Contains("not valid JSON"));
  CHECK_THAT(config_errors("[1, 2]"), Catch::Contains("expected a JSON object"));
  CHECK_THAT(config_errors(R"({"hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
                               "vocab_size": 32000, "num_local_experts": 8, "intermediate_size": 14336})"),
             Catch::Contains("num_experts_per_tok: required field is missing"));
}

TEST_CASE("config.json's rope_scaling gives the window its authors extend to", "[models][config]") {
  const std::string base = R"({"model_type": "qwen3", "hidden_size": 5120, "num_hidden_layers": 64,
      "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 25600,
      "vocab_size": 151936, "max_position_embeddings": 40960)";
  const auto with = [&](const std::string& rope) { return parse_hf_config(base + rope + "}", "qwen3.json"); };
  CHECK(with("").scaled_context == 0);
  // Qwen's documented YaRN: factor 4 over the 32,768 it was trained at.
  CHECK(with(R"(, "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768})")
            .scaled_context == 131072);
  // The older key, and no original window: the factor stretches max_position_embeddings.
  CHECK(with(R"(, "rope_scaling": {"type": "dynamic", "factor": 2.0})").scaled_context == 81920);
  // Llama 3.1's "llama3" scaling is already in max_position_embeddings; a
  // factor that shrinks, a string factor or an unknown type extend nothing.
  CHECK(with(R"(, "rope_scaling": {"rope_type": "llama3", "factor": 8.0})").scaled_context == 0);
  CHECK(with(R"(, "rope_scaling": {"rope_type": "yarn", "factor": 0.5})").scaled_context == 0);
  CHECK(with(R"(, "rope_scaling": {"rope_type": "yarn", "factor": "4"})").scaled_context == 0);
  CHECK(with(R"(, "rope_scaling": {"rope_type": "mrope", "factor": 4})").scaled_context == 0);
  CHECK(with(R"(, "rope_scaling": null)").scaled_context == 0);
}

TEST_CASE("config.json reads sliding windows as the model uses them", "[models][config]") {
  const std::string mistral = R"({"model_type": "mistral", "hidden_size": 4096, "num_hidden_layers": 32,
      "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000,
      "max_position_embeddings": 32768, "sliding_window": 4096})";
  const ModelShape m = parse_hf_config(mistral, "mistral.json");
  REQUIRE(m.sliding_window);
  CHECK(m.sliding_window->size == 4096);
  CHECK(m.sliding_window->layers == 32);
  const std::string qwen = R"({"model_type": "qwen2", "hidden_size": 3584, "num_hidden_layers": 28,
      "num_attention_heads": 28, "num_key_value_heads": 4, "intermediate_size": 18944, "vocab_size": 152064,
      "max_position_embeddings": 32768, "sliding_window": 4096, "use_sliding_window": false})";
  CHECK_FALSE(parse_hf_config(qwen, "qwen.json").sliding_window.has_value());
  const std::string gemma = R"({"model_type": "gemma2", "hidden_size": 3584, "num_hidden_layers": 42,
      "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 256, "intermediate_size": 14336,
      "vocab_size": 256000, "tie_word_embeddings": true, "max_position_embeddings": 8192, "sliding_window": 4096})";
  const ModelShape g = parse_hf_config(gemma, "gemma.json");
  REQUIRE(g.sliding_window);
  CHECK(g.sliding_window->layers == 21);
  CHECK(g.head_dim == 256);
}

TEST_CASE("models.yaml problems are located errors", "[models]") {
  const std::string good = R"(schema_version: 1
models:
  - id: tiny
    name: "Tiny"
    params: 1000000000
    layers: 16
    hidden: 2048
    heads: 16
    kv_heads: 4
    ffn: 8192
    vocab: 32000
    tied_embeddings: false
    sources: ["test"]
)";
  CHECK(parse_models(good, "m.yaml").models().size() == 1);
  auto first = [](const std::string& yaml) {
    try {
      (void)parse_models(yaml, "m.yaml");
    } catch (const DataError& e) {
      return e.diagnostics().front().to_string();
    }
    return std::string("no error");
  };
  std::string bad = good;
  bad.replace(bad.find("kv_heads: 4"), 11, "kv_heads: 32");
  CHECK_THAT(first(bad), Catch::Contains("kv_heads: is larger than heads"));
  bad = good;
  bad.replace(bad.find("layers: 16"), 10, "layer: 16");
  CHECK_THAT(first(bad), Catch::Contains("models[0].layers: required key is missing (is 'layer' a misspelling"));
  bad = good;
  bad.replace(bad.find("tied_embeddings: false"), 22, "tied_embeddings: maybe");
  CHECK_THAT(first(bad), Catch::Contains("expected true or false"));
}

TEST_CASE("config.json fields that cannot describe one model together are errors", "[models][config]") {
  const std::string dense = R"("hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
                               "vocab_size": 32000, "intermediate_size": 11008)";
  CHECK_THAT(config_errors("{" + dense + R"(, "num_local_experts": 8, "num_experts_per_tok": 9})"),
             Catch::Contains("num_experts_per_tok: 9 experts per token is more than the 8 experts there are"));
  CHECK_THAT(config_errors("{" + dense + R"(, "layer_types": ["full_attention"], "sliding_window": 4096})"),
             Catch::Contains("layer_types: lists 1 layers but num_hidden_layers is 32"));
  CHECK_THAT(config_errors(R"({"hidden_size": 4000, "num_hidden_layers": 32, "num_attention_heads": 32,
                               "vocab_size": 32000, "intermediate_size": 11008, "num_attention_heads": 30})"),
             Catch::Contains("duplicate key \"num_attention_heads\""));
  CHECK_THAT(config_errors(R"({"hidden_size": 4000, "num_hidden_layers": 32, "num_attention_heads": 48,
                               "vocab_size": 32000, "intermediate_size": 11008})"),
             Catch::Contains("num_attention_heads: 48 does not divide hidden_size 4000"));
  CHECK_THAT(config_errors("{" + dense + R"(, "num_key_value_heads": 5})"),
             Catch::Contains("num_key_value_heads: 5 does not divide num_attention_heads 32"));
  CHECK_THAT(config_errors("{" + dense + R"(, "head_dim": 90000000})"), Catch::Contains("outside the 1M to 100T"));
  CHECK_THAT(config_errors(R"({"hidden_size": )" + std::string(100000, '[') + std::string(100000, ']') + "}"),
             Catch::Contains("nested more than 64 levels"));
  CHECK_THAT(config_errors("{\"model_type\": \"\xff\"}"),
             Catch::Contains("config.json:1:17: ") && Catch::Contains("UTF-8") && Catch::Contains("byte offset 16"));
  // head_dim given: heads need not divide hidden_size (Gemma, Qwen3).
  CHECK_NOTHROW(parse_hf_config(R"({"hidden_size": 4000, "num_hidden_layers": 32, "num_attention_heads": 48,
                                    "head_dim": 128, "vocab_size": 32000, "intermediate_size": 11008})",
                                "config.json"));
}

TEST_CASE("a Qwen3-Next config.json imports its linear-attention layers", "[models]") {
  // The shape fields of the release config (docs/research/catalog-presets-2026-12-07.md,
  // transcriptions A-D), typed here rather than copied: --model-config must not
  // take its 36 Gated DeltaNet layers for attention layers with a KV cache.
  const std::string fields = R"({
  "architectures": ["Qwen3NextForCausalLM"], "model_type": "qwen3_next",
  "hidden_size": 2048, "num_hidden_layers": 48, "num_attention_heads": 16, "num_key_value_heads": 2,
  "head_dim": 256, "intermediate_size": 5120, "moe_intermediate_size": 512,
  "shared_expert_intermediate_size": 512, "num_experts": 512, "num_experts_per_tok": 10,
  "decoder_sparse_step": 1, "mlp_only_layers": [], "norm_topk_prob": true,
  "full_attention_interval": 4, "linear_num_key_heads": 16, "linear_num_value_heads": 32,
  "linear_key_head_dim": 128, "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4,
  "vocab_size": 151936, "max_position_embeddings": 262144, "tie_word_embeddings": false,
  "rope_theta": 10000000, "partial_rotary_factor": 0.25, "torch_dtype": "bfloat16"
})";
  const ModelShape config = parse_hf_config(fields, "config.json");
  const ModelCatalog models = load_embedded_models();
  const ModelShape& preset = models.resolve("qwen3-next-80b-a3b");
  REQUIRE(config.linear_attention);
  CHECK(*config.linear_attention == *preset.linear_attention);
  CHECK(config.attention_layers() == 12);
  CHECK(config.params == Approx(preset.params).epsilon(0.005));
  CHECK(config.kv_bytes(4096, 2.0) == Approx(preset.kv_bytes(4096, 2.0)));
}
