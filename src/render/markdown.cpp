// The report's document as Markdown (GitHub-flavoured tables; no charts).
#include <fmt/format.h>

#include "render/document.hpp"

namespace gpu_advise::document {

namespace {

std::string md_escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '|' || c == '*' || c == '_' || c == '`' || c == '<' || c == '>' || c == '[' || c == ']') {
      out += '\\';
    }
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

// Whether the section the heading at `at` opens holds only charts (until the
// next heading of its level or above): nothing to show in Markdown.
bool charts_only(const std::vector<Block>& doc, std::size_t at) {
  const int level = std::get<Heading>(doc[at]).level;
  bool any = false;
  for (std::size_t i = at + 1; i < doc.size(); ++i) {
    if (const auto* h = std::get_if<Heading>(&doc[i]); h != nullptr && h->level <= level) {
      break;
    }
    if (!std::holds_alternative<Scatter>(doc[i]) && !std::holds_alternative<StackedBars>(doc[i]) &&
        !std::holds_alternative<LineChart>(doc[i])) {
      return false;
    }
    any = true;
  }
  return any;
}

}  // namespace

std::string to_markdown(const std::vector<Block>& doc) {
  std::string out;
  for (std::size_t i = 0; i < doc.size(); ++i) {
    const Block& block = doc[i];
    if (const auto* h = std::get_if<Heading>(&block)) {
      if (charts_only(doc, i)) {
        continue;  // charts are HTML only
      }
      if (!h->kicker.empty()) {
        out += "---\n\n*" + md_escape(h->kicker) + "*\n\n";
      }
      out += std::string(static_cast<std::size_t>(h->level), '#') + " " + md_escape(h->text) + "\n\n";
    } else if (const auto* p = std::get_if<Paragraph>(&block)) {
      out += (p->strong ? "**" + md_escape(p->text) + "**"
              : p->note ? "*" + md_escape(p->text) + "*"
                        : md_escape(p->text)) +
             "\n\n";
    } else if (const auto* b = std::get_if<Bullets>(&block)) {
      for (std::size_t n = 0; n < b->items.size(); ++n) {
        out += (b->numbered ? fmt::format("{}. ", n + 1) : std::string("- ")) + md_escape(b->items[n]) + "\n";
      }
      out += "\n";
    } else if (const auto* t = std::get_if<TableBlock>(&block)) {
      out += "|";
      for (const auto& cell : t->header) {
        out += fmt::format(" {} |", md_escape(cell));
      }
      out += "\n|";
      for (std::size_t c = 0; c < t->header.size(); ++c) {
        out += (c < t->numeric.size() && t->numeric[c]) ? " ---: |" : " --- |";
      }
      out += "\n";
      for (const auto& row : t->rows) {
        out += "|";
        for (const auto& cell : row) {
          out += fmt::format(" {} |", md_escape(cell));
        }
        out += "\n";
      }
      out += "\n";
    } else if (const auto* f = std::get_if<KeyValues>(&block)) {
      // The header block on one line; other facts as a titled list.
      std::vector<std::string> items;
      for (const auto& [label, value] : f->items) {
        if (!value.empty()) {
          items.push_back(fmt::format("{}{}{}{}", f->header ? "" : "- ", md_escape(label), f->colon, md_escape(value)));
        }
      }
      if (items.empty()) {
        continue;
      }
      if (f->header) {
        std::string line;
        for (const auto& item : items) {
          line += (line.empty() ? "" : " · ") + item;
        }
        out += line + "\n\n";
      } else {
        if (!f->title.empty()) {
          out += "**" + md_escape(f->title) + "**\n\n";
        }
        for (const auto& item : items) {
          out += item + "\n";
        }
        out += "\n";
      }
    }
    // Charts are HTML only; the tables carry the same figures.
  }
  return out;
}

}  // namespace gpu_advise::document
