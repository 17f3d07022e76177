// The binary's output as people read it: Markdown and HTML reports, colour,
// and Chinese, by flag or by locale, with no English left in it.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness.hpp"

namespace {

using harness::Result;
using harness::run;

const std::string data = GPU_ADVISE_TEST_DATA;

}  // namespace

TEST_CASE("reports come as Markdown and as one self-contained HTML file", "[cli][formats]") {
  const Result md = run({"--params", "70B", "--task", "lora", "--format", "markdown"});
  CHECK(md.status == 0);
  CHECK_THAT(md.out, Catch::StartsWith("# GPU recommendation: LoRA fine-tune of a 70B model") &&
                         Catch::Contains("## Comparison") &&
                         Catch::Contains("## Sources of the catalog figures used") && Catch::Contains("| # | GPU |"));
  const Result html = run({"--params", "70B", "--task", "lora", "--format", "html"});
  CHECK(html.status == 0);
  CHECK_THAT(html.out, Catch::StartsWith("<!DOCTYPE html>") && Catch::Contains("<svg") && Catch::Contains("@page"));
  CHECK(html.out.find("<script") == std::string::npos);
  CHECK(html.out.find("src=") == std::string::npos);   // no external images or scripts
  CHECK(html.out.find("<link") == std::string::npos);  // no external stylesheets
  CHECK(html.out.find("url(") == std::string::npos);   // no external fonts
  CHECK(html.out.find("\x1b[") == std::string::npos);
  const Result listing = run({"catalog", "list", "--format", "html"});
  CHECK(listing.status == 2);
  CHECK_THAT(listing.err, Catch::Contains("'catalog list' writes text, json, csv or tsv, not html"));
}

TEST_CASE("HTML escapes every text it prints", "[cli][formats]") {
  const Result r = run({"--params", "7B", "--task", "inference", "--catalog", data + "/overlay_html.yaml", "--gpu",
                        "evil-card", "--format", "html"});
  REQUIRE(r.status == 0);
  CHECK(r.out.find("<b>evil</b>") == std::string::npos);
  CHECK_THAT(r.out, Catch::Contains("&lt;b&gt;evil&lt;/b&gt;"));
}

TEST_CASE("colour follows --color, NO_COLOR, CLICOLOR_FORCE and the terminal", "[cli][color]") {
  const std::vector<std::string> args = {"--params", "7B", "--task", "inference", "--top", "1"};
  auto with = [&](std::vector<std::string> extra, const std::string& env) {
    std::vector<std::string> all = args;
    all.insert(all.end(), extra.begin(), extra.end());
    return run(all, env).out;
  };
  const std::string escape = "\x1b[";
  CHECK(with({}, "").find(escape) == std::string::npos);                               // not a terminal
  CHECK(with({}, "CLICOLOR_FORCE=1").find(escape) != std::string::npos);               // forced
  CHECK(with({}, "CLICOLOR_FORCE=1 NO_COLOR=1").find(escape) == std::string::npos);    // NO_COLOR wins
  CHECK(with({"--color", "always"}, "NO_COLOR=1").find(escape) != std::string::npos);  // --color wins
  CHECK(with({"--color", "never"}, "CLICOLOR_FORCE=1").find(escape) == std::string::npos);
  CHECK(with({"--color", "always", "--format", "json"}, "").find(escape) == std::string::npos);
  CHECK(with({"--color", "always", "--format", "markdown"}, "").find(escape) == std::string::npos);
  const Result bad = run({"--params", "7B", "--task", "inference", "--color", "sometimes"});
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, Catch::Contains("--color: 'sometimes' is not valid"));
}

TEST_CASE("Chinese by flag or by locale", "[cli][lang]") {
  const Result flag = run({"--params", "70B", "--task", "lora", "--lang", "zh", "--top", "3"});
  CHECK(flag.status == 0);
  CHECK_THAT(flag.out, Catch::Contains("推荐：") && Catch::Contains("假设："));
  const Result locale = run({"--params", "70B", "--task", "lora", "--top", "3"}, "LC_ALL=zh_CN.UTF-8");
  CHECK(locale.out == flag.out);
  const Result english = run({"--params", "70B", "--task", "lora", "--top", "3", "--lang", "en"}, "LC_ALL=zh_CN.UTF-8");
  CHECK_THAT(english.out, Catch::Contains("Best: "));
  const Result bad = run({"--params", "70B", "--task", "lora", "--lang", "fr"});
  CHECK(bad.status == 2);
}

namespace {
// ASCII words in Chinese output that are not card or model names, flags,
// identifiers or the technical units and acronyms Chinese writing keeps.
std::vector<std::string> english_words(const std::string& text, const std::vector<std::string>& names) {
  static const std::vector<std::string> allowed = {"gpu",
                                                   "advise",
                                                   "gib",
                                                   "gb",
                                                   "tflops",
                                                   "mfu",
                                                   "bf16",
                                                   "fp8",
                                                   "fp16",
                                                   "int8",
                                                   "int4",
                                                   "nf4",
                                                   "lora",
                                                   "qlora",
                                                   "zero",
                                                   "tp",
                                                   "pp",
                                                   "dp",
                                                   "fsdp",
                                                   "nvlink",
                                                   "pcie",
                                                   "hbm",
                                                   "gddr",
                                                   "cuda",
                                                   "rocm",
                                                   "nccl",
                                                   "cann",
                                                   "kv",
                                                   "tokens",
                                                   "token",
                                                   "kwh",
                                                   "pue",
                                                   "tdp",
                                                   "flash",
                                                   "attention",
                                                   "adamw",
                                                   "bf",
                                                   "md",
                                                   "docs",
                                                   "methodology",
                                                   "all",
                                                   "reduce",
                                                   "chinchilla",
                                                   "x",
                                                   "ms",
                                                   "w",
                                                   "usd",
                                                   "hopper",
                                                   "ada",
                                                   "blackwell",
                                                   "cdna",
                                                   "gaudi",
                                                   "pytorch",
                                                   "vllm",
                                                   "flashattention",
                                                   "bitsandbytes",
                                                   "torch",
                                                   "npu",
                                                   "mindspeed",
                                                   "ascend",
                                                   "synapseai",
                                                   "optimum",
                                                   "habana",
                                                   "moe",
                                                   "m",
                                                   "k",
                                                   "b",
                                                   "t",
                                                   "q",
                                                   "v",
                                                   "o",
                                                   "gate",
                                                   "up",
                                                   "down",
                                                   "llama",
                                                   "qwen",
                                                   "cn",
                                                   "fp",
                                                   "nf",
                                                   "ecc",
                                                   "logits",
                                                   "hugging",
                                                   "face",
                                                   "transformers",
                                                   "peft",
                                                   "torchtune",
                                                   "litgpt",
                                                   "unsloth",
                                                   "chunked"};
  std::vector<std::string> out;
  std::string word;
  auto flush = [&] {
    if (word.size() >= 2) {
      std::string lower;
      for (char c : word) {
        lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      }
      const bool ok = std::find(allowed.begin(), allowed.end(), lower) != allowed.end() ||
                      std::any_of(names.begin(), names.end(),
                                  [&](const std::string& n) { return n.find(word) != std::string::npos; });
      if (!ok) {
        out.push_back(word);
      }
    }
    word.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (letter) {
      word += c;
      continue;
    }
    // Skip flags (--top), identifiers with hyphens (rule and card ids) and file names.
    if ((c == '-' || c == '_' || c == '.' || c == '/') && !word.empty()) {
      while (i < text.size() && text[i] != ' ' && static_cast<unsigned char>(text[i]) < 0x80) {
        ++i;
      }
      word.clear();
      continue;
    }
    if (c == '-' && i + 1 < text.size() && text[i + 1] == '-') {
      while (i < text.size() && text[i] != ' ' && static_cast<unsigned char>(text[i]) < 0x80) {
        ++i;
      }
      continue;
    }
    flush();
  }
  flush();
  return out;
}
}  // namespace

TEST_CASE("Chinese output leaves no English words but names and technical terms", "[cli][lang]") {
  const auto catalog = nlohmann::json::parse(run({"catalog", "list", "--format", "json"}).out);
  std::vector<std::string> names;
  for (const auto& gpu : catalog["gpus"]) {
    names.push_back(gpu["name"].get<std::string>());
  }
  names.insert(names.end(), {"Llama 3.1 70B", "Qwen2.5 72B", "Mixtral 8x7B v0.1", "CDNA 3", "Gaudi 3"});
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--params", "70B", "--task", "lora", "--budget", "low"},
           {"--model", "llama-3.1-70b", "--task", "inference", "--region", "cn", "--mode", "buy"},
           {"--params", "405B", "--task", "pretrain", "--budget", "high", "--explain", "--top", "3"},
           {"--params", "70B", "--task", "full", "--gpu", "rtx-4090", "--count", "2"},
           {"--model", "qwen2.5-72b", "--task", "qlora", "--format", "markdown"}}) {
    std::vector<std::string> zh = args;
    zh.insert(zh.end(), {"--lang", "zh"});
    const Result r = run(zh);
    CAPTURE(args);
    CHECK(r.status <= 1);
    const std::string text = r.out.substr(0, r.out.find("所用目录数据的来源"));  // sources are quoted as published
    const auto words = english_words(text, names);
    CAPTURE(words);
    CHECK(words.empty());
  }
}
