// `prices FILE...` in text: for each price file, the cards it prices (with
// how many quotes, their span per GPU-hour, the shapes on offer and the names
// that mapped to each card, to check the mapping) and what it skipped.
#include <algorithm>

#include <fmt/format.h>

#include "core/quantity_format.hpp"
#include "gpu_advise/render.hpp"
#include "gpu_advise/text.hpp"
#include "gpu_advise/words.hpp"
#include "render/text_table.hpp"

namespace gpu_advise {

using render::Align;
using render::Table;

std::string render_prices_text(const PriceBook& book, const Catalog& catalog, Language l, const TextStyle& style) {
  const std::size_t width = static_cast<std::size_t>(std::max(style.width, 0));
  std::string out;
  for (const auto& file : book.files) {
    if (!out.empty()) {
      out += "\n";
    }
    const std::string format =
        say(l, file.format == PriceFileFormat::skypilot ? Phrase::price_format_skypilot : Phrase::price_format_quotes);
    out += render::wrap_lines(say(l, Phrase::prices_file, text::printable(file.file), format, file.rows, file.quotes,
                                  file.cards.size(), file.date),
                              width, "  ") +
           "\n";
    out += "  " +
           say(l, Phrase::prices_provider,
               file.provider.empty() ? say(l, Phrase::price_file_providers_per_row) : file.provider) +
           "\n";
    if (file.cards.empty()) {
      out += "  " + say(l, Phrase::prices_none) + "\n";
    } else {
      Table table({{say(l, Phrase::prices_col_card), 99},
                   {say(l, Phrase::prices_col_quotes), 9, Align::right},
                   {say(l, Phrase::prices_col_range), 8, Align::right},
                   {say(l, Phrase::prices_col_shapes), 5},
                   {say(l, Phrase::prices_col_names), 1}});
      table.set_label_separator(say(l, Phrase::explain_label_text, "", ""));
      for (const auto& card : file.cards) {
        const auto lookup = catalog.find(card.gpu_id);
        const std::string name = lookup.match != nullptr ? lookup.match->name : card.gpu_id;
        std::vector<std::string> shapes;
        for (const int shape : card.shapes) {
          shapes.push_back(std::to_string(shape));
        }
        const std::string span = card.low_usd == card.high_usd ? format::money(card.low_usd, {})
                                                               : fmt::format("{}-{}", format::money(card.low_usd, {}),
                                                                             format::money(card.high_usd, {}));
        table.add_row({fmt::format("{} ({})", card.gpu_id, name), std::to_string(card.quotes), span,
                       shapes.empty() ? say(l, Phrase::list_imported_per_gpu) : text::join(shapes, ","),
                       text::printable(card.more_names == 0 ? text::join(card.names, ", ")
                                                            : text::join(card.names, ", ") + ", " +
                                                                  say(l, Phrase::prices_names_more, card.more_names))});
      }
      out += table.to_string("  ", width);
      for (const auto& card : file.cards) {
        if (card.over_twice_typical) {
          out += render::wrap_lines(
                     "  " + say(l, Phrase::prices_over_typical, card.gpu_id, format::money(card.flagged_usd, {}),
                                format::money(card.catalog_typical_usd, {}), catalog_word(card.flagged_region, l)),
                     width, "    ") +
                 "\n";
        }
      }
    }
    if (!file.unknown.empty()) {
      std::vector<std::string> items;
      std::size_t rows_shown = 0;
      for (const auto& unknown : file.unknown) {
        items.push_back(say(l, Phrase::prices_unknown_item, text::printable(unknown.name), unknown.rows));
        rows_shown += unknown.rows;
      }
      if (file.unknown_names > file.unknown.size()) {
        items.push_back(say(l, Phrase::prices_unknown_more, file.unknown_names - file.unknown.size(),
                            file.unknown_rows - rows_shown));
      }
      out += render::wrap_lines(
                 "  " + say(l, Phrase::prices_unknown, text::join(items, say(l, Phrase::fit_list_separator))), width,
                 "    ") +
             "\n";
    }
    if (file.cpu_rows + file.fractional_rows + file.unpriced_rows > 0) {
      out += render::wrap_lines(
                 "  " + say(l, Phrase::prices_skipped, file.cpu_rows, file.fractional_rows, file.unpriced_rows), width,
                 "    ") +
             "\n";
    }
  }
  return out;
}

}  // namespace gpu_advise
