// No English label in Chinese output: each command run with --lang zh as a
// user runs it, and every word of three or more ASCII letters left after
// taking out what may stay ASCII must be on the short allowlist below. A label
// made outside the phrase table ("typical", "legal stock", "on_demand") fails
// here, with its command and line.
//
// What may stay ASCII, taken out before the check:
// - text quoted from the catalog's English sources, in “…” (source_text());
// - the names, ids and aliases of the catalog's cards and the model presets,
//   who quoted a price (a quote provider's first word, as the report names
//   it) and the models' families, all read from `catalog list` and `models`
//   in JSON;
// - a token (a run of non-space ASCII) holding a digit, '/', '.', ':', '=' or
//   '-', or starting with '-': numbers and units ("80GB", "Gen5"), paths,
//   URLs, file names, rule and card ids, flags ("on_demand" is two words:
//   a snake_case token is checked);
// - a token in capitals or with a capital after its first letter: acronyms
//   and units (GPU, TFLOPS, HBM, SXM, CUDA, TDP) and names written that way
//   (NVLink, PCIe, GiB, PyTorch, vLLM, GeForce);
// - a command line in the text, from "gpu-advise" to the Chinese after it.
// In CSV only the sentences (`reasons`) are in --lang; the other fields are
// identifiers (docs/csv.md). HTML is read as its text: tags and the style
// sheet are not words. Standard output only: the diagnostics on standard
// error (errors, the warning about a price file's unknown rows) are English.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness.hpp"

namespace {

using harness::Result;

// Words that stay in English in Chinese text, each for a reason. Keep it short:
// a word added here is a word the test no longer catches anywhere.
const std::set<std::string, std::less<>> allowlist = {
    // terms Chinese technical writing keeps in English
    "token", "tokens", "logits", "flash", "attention",  // "flash attention", the kernel
    // software named in phrases and in the rules' Chinese messages, written
    // in lower case or as plain words (so not caught as product names above)
    "bitsandbytes", "torchtune", "Unsloth", "Hugging", "Face", "Transformers",
    // values the user types for flags, named as typed: --format, --optimizer,
    // --loss, --lora-targets (the layers q, k, v, o, gate, up, down)
    "markdown", "json", "csv", "html", "adamw", "chunked", "gate", "down",
    // parameters and packages named as spelled: vLLM's gpu_memory_utilization,
    // Ascend's torch_npu
    "gpu_memory_utilization", "torch_npu",
    // vendors, architectures and software stacks by name (catalog show's
    // vendor and architecture, the rules' messages)
    "Hopper", "Ampere", "Ada", "Lovelace", "Huawei", "Vinci", "Gaudi",
    // the clouds of the test's price files, as the files name them
    "lambda", "aws", "nebius"};

std::string data(const std::string& name) { return std::string(GPU_ADVISE_TEST_DATA) + "/" + name; }

// Lines long enough that no name or quotation is wrapped.
Result wide(std::vector<std::string> args) {
  args.insert(args.end(), {"--lang", "zh"});
  return harness::run(args, "COLUMNS=1000");
}

// What the output may name in ASCII, read from the catalog and the presets:
// `phrases`, the cards' names, ids and aliases and the models' names and ids,
// are taken out of the text; `words`, who quoted a price by name (the first
// word of a quote's provider, as the report's quotes column gives it: "Lambda",
// "Crusoe") and the models' families ("Mistral" of "Mistral 7B v0.1"), are
// words the check lets through.
struct Names {
  std::vector<std::string> phrases;
  std::set<std::string, std::less<>> words;
};

std::string first_word(const std::string& text) {
  std::string word = text.substr(0, text.find(' '));
  while (!word.empty() && (word.back() == ':' || word.back() == ',')) {
    word.pop_back();
  }
  return word;
}

Names names() {
  Names out;
  const Result cards = harness::run({"catalog", "list", "--format", "json"});
  const Result models = harness::run({"models", "--format", "json"});
  REQUIRE(cards.status == 0);
  REQUIRE(models.status == 0);
  const auto catalog = nlohmann::json::parse(cards.out);
  const auto presets = nlohmann::json::parse(models.out);
  for (const auto& g : catalog["gpus"]) {
    out.phrases.push_back(g["id"].get<std::string>());
    out.phrases.push_back(g["name"].get<std::string>());
    for (const auto& alias : g["aliases"]) {
      out.phrases.push_back(alias.get<std::string>());
    }
    for (const char* list : {"rent_usd_per_gpu_hour", "purchase_usd_per_card"}) {
      for (const auto& quote : g["prices"][list]) {
        out.words.insert(first_word(quote["provider"].get<std::string>()));
      }
    }
  }
  for (const auto& m : presets["models"]) {
    out.phrases.push_back(m["id"].get<std::string>());
    out.phrases.push_back(m["name"].get<std::string>());
    out.words.insert(first_word(m["name"].get<std::string>()));
  }
  std::sort(out.phrases.begin(), out.phrases.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  return out;
}

void replace_all(std::string& text, std::string_view what, std::string_view with) {
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + with.size())) {
    text.replace(at, what.size(), with);
  }
}

// Quoted source text (“…”) out, its line breaks kept.
std::string without_quotations(const std::string& text) {
  static const std::string open = "\u201c";
  static const std::string close = "\u201d";
  std::string out;
  std::size_t at = 0;
  while (true) {
    const std::size_t start = text.find(open, at);
    if (start == std::string::npos) {
      return out + text.substr(at);
    }
    const std::size_t end = text.find(close, start);
    out += text.substr(at, start - at) + " ";
    if (end == std::string::npos) {
      return out;
    }
    out += std::string(static_cast<std::size_t>(std::count(text.begin() + static_cast<std::ptrdiff_t>(start),
                                                           text.begin() + static_cast<std::ptrdiff_t>(end), '\n')),
                       '\n');
    at = end + close.size();
  }
}

// An HTML report as the reader sees it: no style sheet, no tags, entities decoded.
std::string html_text(const std::string& html) {
  std::string out;
  for (std::size_t at = 0; at < html.size();) {
    if (html.compare(at, 6, "<style") == 0) {
      const std::size_t end = html.find("</style>", at);
      at = end == std::string::npos ? html.size() : end + 8;
    } else if (html[at] == '<') {
      const std::size_t end = html.find('>', at);
      at = end == std::string::npos ? html.size() : end + 1;
      out += ' ';
    } else {
      out += html[at++];
    }
  }
  for (const auto& [entity, character] : {std::pair{"&lt;", "<"}, std::pair{"&gt;", ">"}, std::pair{"&quot;", "\""},
                                          std::pair{"&#39;", "'"}, std::pair{"&amp;", "&"}}) {
    replace_all(out, entity, character);
  }
  return out;
}

// The `reasons` column of a CSV table (RFC 4180), one line a record.
std::string csv_reasons(const std::string& csv) {
  std::vector<std::vector<std::string>> records(1, std::vector<std::string>(1));
  bool quoted = false;
  for (std::size_t i = 0; i < csv.size(); ++i) {
    const char c = csv[i];
    if (quoted) {
      if (c == '"' && i + 1 < csv.size() && csv[i + 1] == '"') {
        records.back().back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        records.back().back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      records.back().emplace_back();
    } else if (c == '\n') {
      records.emplace_back(1);
    } else if (c != '\r') {
      records.back().back() += c;
    }
  }
  const auto& header = records.front();
  const auto column = std::find(header.begin(), header.end(), "reasons");
  REQUIRE(column != header.end());
  const auto index = static_cast<std::size_t>(column - header.begin());
  std::string out;
  for (std::size_t r = 1; r < records.size(); ++r) {
    out += (index < records[r].size() ? records[r][index] : std::string()) + "\n";
  }
  return out;
}

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }

// A token that may stay ASCII: a number, unit, path, id, flag, acronym or product name.
bool identifier_like(std::string_view token) {
  if (token.empty() || token.front() == '-') {
    return true;
  }
  for (const char c : token) {
    if ((c >= '0' && c <= '9') || std::string_view("/.:=-").find(c) != std::string_view::npos) {
      return true;
    }
  }
  return std::any_of(token.begin() + 1, token.end(), is_upper) ||
         std::all_of(token.begin(), token.end(), [](char c) { return !is_letter(c) || is_upper(c); });
}

// A token: ASCII other than space and the brackets and punctuation around words.
bool part_of_token(char c) {
  return static_cast<unsigned char>(c) < 0x80 && c != ' ' && c != '\t' &&
         std::string_view(",;()[]{}<>|*\"'`!?").find(c) == std::string_view::npos;
}

// The English words of one line that are neither allowed nor `known`.
std::vector<std::string> english_words(std::string_view line, const std::set<std::string, std::less<>>& known = {}) {
  auto allowed = [&](std::string_view word) { return allowlist.count(word) > 0 || known.count(word) > 0; };
  std::vector<std::string> found;
  bool command = false;  // in a command line quoted in the text: "gpu-advise catalog show ID"
  std::size_t i = 0;
  while (i < line.size()) {
    if (!part_of_token(line[i])) {
      command = command && static_cast<unsigned char>(line[i]) < 0x80;  // it ends at Chinese text
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < line.size() && part_of_token(line[end])) {
      ++end;
    }
    std::string_view token = line.substr(i, end - i);
    while (!token.empty() && std::string_view(".:").find(token.back()) != std::string_view::npos) {
      token.remove_suffix(1);  // the end of a sentence or a label's colon
    }
    i = end;
    command = command || token == "gpu-advise";
    if (command || identifier_like(token) || allowed(token)) {
      continue;
    }
    // Its words ("on_demand": "on", "demand"), each of three letters or more.
    bool english = false;
    for (std::size_t k = 0; k < token.size();) {
      std::size_t word_end = k;
      while (word_end < token.size() && is_letter(token[word_end])) {
        ++word_end;
      }
      const std::string_view word = token.substr(k, word_end - k);
      english = english || (word.size() >= 3 && !allowed(word));
      k = word_end == k ? k + 1 : word_end;
    }
    if (english) {
      found.emplace_back(token);
    }
  }
  return found;
}

enum class Format { text, html, csv, report_markdown, report_html };

// The report's list of sources (src/render/report.cpp, the last section of its
// appendix) gives the catalog's source titles as they are, not yet marked as
// quotations the way `catalog show` marks them: the check stops before it.
std::string before_sources_list(const std::string& report, Format format) {
  const std::size_t at = report.find(format == Format::report_html ? "<h3>来源</h3>" : "\n### 来源\n");
  REQUIRE(at != std::string::npos);
  return report.substr(0, at);
}

// "command: line  <- words" for each line with an English word.
std::vector<std::string> leaks(const std::vector<std::string>& args, Format format, const Names& known) {
  const Result r = wide(args);
  std::string command;
  for (const auto& arg : args) {
    command += (command.empty() ? "" : " ") + arg;
  }
  INFO(command << "\n" << r.err);
  REQUIRE(r.status == 0);
  REQUIRE_FALSE(r.out.empty());
  std::string text = r.out;
  if (format == Format::report_markdown || format == Format::report_html) {
    text = before_sources_list(text, format);
  }
  if (format == Format::html || format == Format::report_html) {
    text = html_text(text);
  } else if (format == Format::csv) {
    text = csv_reasons(text);
  }
  replace_all(text, "\\_", "_");  // Markdown's escaped underscore
  text = without_quotations(text);
  for (const auto& name : known.phrases) {
    replace_all(text, name, " ");
  }
  std::vector<std::string> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const auto words = english_words(line, known.words);
    if (!words.empty()) {
      std::string said = command + ": " + line + "  <-";
      for (const auto& w : words) {
        said += " " + w;
      }
      out.push_back(said);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("the checker finds an English label and lets identifiers, names and quotations through", "[cli][zh]") {
  CHECK(english_words("  每卡时租金（中国）     ¥7.50 typical (¥4.82 to ¥7.50)") ==
        std::vector<std::string>{"typical"});
  CHECK(english_words("    $3.99 on_demand, Lambda") == std::vector<std::string>{"on_demand", "Lambda"});
  CHECK(english_words("中国：case_by_case  置信度：datasheet") ==
        std::vector<std::string>{"case_by_case", "datasheet"});
  CHECK(english_words("  全球   available since 2022-10 (verified 2026-05)") ==
        std::vector<std::string>{"available", "since", "verified"});
  CHECK(english_words("合法库存：是；legal stock: yes").size() == 3);
  CHECK(english_words("8 × 80 GiB 可容纳，每卡 49.4 GiB，BF16 稠密峰值 312 TFLOPS（--max-batch、rules.yaml）").empty());
  CHECK(english_words("规则 cn-buy-no-licences；使用 ROCm 而非 CUDA：PyTorch、vLLM、bitsandbytes、torch_npu").empty());
  CHECK(english_words("互联：NVLink，PCIe Gen5，https://example.com/a-page").empty());
  CHECK(english_words("由 gpu-advise catalog show ID 列出；--format markdown、json 或 csv").empty());
  CHECK(english_words("$1.99：Lambda、Crusoe；rent", {"Lambda", "Crusoe"}) == std::vector<std::string>{"rent"});
  CHECK(without_quotations("说明：\u201cMemory is\nHBM3\u201d。") == "说明： \n。");
  CHECK(csv_reasons("a,reasons,b\r\n1,\"x, \"\"y\"\"\",2\r\n") == "x, \"y\"\n\n");
  CHECK(html_text("<style>p { color: red }</style><p>a &amp; b</p>") == " a & b ");
}

TEST_CASE("every command says its labels in Chinese with --lang zh", "[cli][zh]") {
  const Names known = names();
  const std::string lambda = data("prices/lambda/vms.csv");
  const std::string aws = data("prices/aws/vms.csv");
  const std::string quotes = data("prices/quotes.csv");
  const std::vector<std::pair<std::vector<std::string>, Format>> commands = {
      // an NVIDIA SXM card, a PCIe card, Ascend, a China-only SKU, cards with spot and used quotes
      {{"catalog", "show", "h100-sxm5"}, Format::text},
      {{"catalog", "show", "h100-pcie"}, Format::text},
      {{"catalog", "show", "ascend-910b2"}, Format::text},
      {{"catalog", "show", "h20"}, Format::text},
      {{"catalog", "show", "a100-80gb-sxm4"}, Format::text},
      {{"catalog", "show", "rtx-4090"}, Format::text},
      {{"catalog", "show", "h100-sxm5", "--price-file", lambda, "--price-file", quotes}, Format::text},
      {{"catalog", "list"}, Format::text},
      {{"models"}, Format::text},
      {{"rules", "list"}, Format::text},
      {{"prices", lambda, aws, quotes}, Format::text},
      {{"fit", "--gpu", "rtx-4090", "--count", "2"}, Format::text},
      {{"fit", "--gpu", "rtx-4090", "--count", "2", "--format", "markdown"}, Format::text},
      {{"fit", "--gpu", "rtx-4090", "--count", "2", "--format", "html"}, Format::html},
      {{"fit", "--gpu", "rtx-4090", "--count", "2", "--format", "csv"}, Format::csv},
      {{"compare", "a100-80gb-sxm4", "h100-sxm5", "--params", "70B", "--task", "lora"}, Format::text},
      {{"--params", "70B", "--task", "lora"}, Format::text},
      {{"--params", "70B", "--task", "lora", "--format", "markdown"}, Format::report_markdown},
      {{"--params", "70B", "--task", "lora", "--format", "html"}, Format::report_html},
      {{"--params", "70B", "--task", "lora", "--format", "csv"}, Format::csv},
      {{"--params", "70B", "--task", "lora", "--mode", "buy"}, Format::text},
      {{"--params", "7B", "--task", "inference", "--explain", "--top", "3"}, Format::text},
      {{"--params", "70B", "--task", "lora", "--price-file", lambda, "--price-file", quotes}, Format::text},
      {{"--model", "llama-3.1-8b", "--task", "inference", "--spot", "--price-file", aws}, Format::text},
      {{"--model", "llama-3.1-70b", "--task", "inference", "--region", "cn", "--mode", "buy"}, Format::text},
      {{"--model", "llama-3.1-70b", "--task", "inference", "--region", "cn", "--mode", "buy", "--format", "markdown"},
       Format::report_markdown},
  };
  std::vector<std::string> found;
  for (const auto& [args, format] : commands) {
    const auto more = leaks(args, format, known);
    found.insert(found.end(), more.begin(), more.end());
  }
  for (const auto& line : found) {
    UNSCOPED_INFO(line);
  }
  CHECK(found.empty());
}
