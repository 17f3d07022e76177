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

}  // namespace

std::string to_markdown(const std::vector<Block>& doc) {
  std::string out;
  for (const auto& block : doc) {
    if (const auto* h = std::get_if<Heading>(&block)) {
      out += std::string(static_cast<std::size_t>(h->level), '#') + " " + md_escape(h->text) + "\n\n";
    } else if (const auto* p = std::get_if<Paragraph>(&block)) {
      out += (p->strong ? "**" + md_escape(p->text) + "**" : md_escape(p->text)) + "\n\n";
    } else if (const auto* b = std::get_if<Bullets>(&block)) {
      for (const auto& item : b->items) {
        out += "- " + md_escape(item) + "\n";
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
    }
    // Charts are HTML only; the tables carry the same figures.
  }
  return out;
}

}  // namespace gpu_advise::document
