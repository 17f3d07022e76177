// prices: what price files hold; and the --price-file files of the other commands.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"
#include "gpu_advise/render.hpp"
#include "gpu_advise/text.hpp"

namespace gpu_advise::cli {

namespace {

// Rows a price file holds for accelerators the catalog does not know are not
// errors (a cloud's file lists every card it has), but are said once, on stderr.
void warn_unknown_accelerators(std::ostream& err, const PriceBook& book) {
  for (const auto& file : book.files) {
    if (file.unknown.empty()) {
      continue;
    }
    std::vector<std::string> names;
    std::size_t rows_named = 0;
    for (const auto& unknown : file.unknown) {
      names.push_back(fmt::format("{} ({} row{})", unknown.name, unknown.rows, unknown.rows == 1 ? "" : "s"));
      rows_named += unknown.rows;
    }
    if (file.unknown_names > file.unknown.size()) {  // the summary keeps the first few: the warning stays one line
      names.push_back(fmt::format("and {} more names ({} rows)", file.unknown_names - file.unknown.size(),
                                  file.unknown_rows - rows_named));
    }
    err << text::printable(fmt::format("gpu-advise: warning: {}: {} row{} for {} accelerator name{} the catalog does "
                                       "not know were skipped: {}",
                                       file.file, file.unknown_rows, file.unknown_rows == 1 ? "" : "s",
                                       file.unknown_names, file.unknown_names == 1 ? "" : "s", text::join(names, ", ")))
        << "\n";
  }
}

}  // namespace

int run_prices(const Session& session) {
  const PriceBook book = load_price_files(session.flags.prices_files, session.base);
  session.output.write([&](OutputFormat f, const TextStyle& style) {
    return json_or_text(
        f, [&] { return render_prices_json(book); },
        [&] { return render_prices_text(book, session.base, session.language, style); });
  });
  return static_cast<int>(ExitCode::ok);
}

PriceBook read_price_files(const Flags& flags, const Catalog& base, std::ostream& err) {
  PriceBook book = load_price_files(flags.price_files, base);
  warn_unknown_accelerators(err, book);
  return book;
}

}  // namespace gpu_advise::cli
