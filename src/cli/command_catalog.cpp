// catalog list, catalog show and catalog validate.
#include <fmt/format.h>

#include "commands.hpp"
#include "gpu_advise/render.hpp"
#include "gpu_advise/text.hpp"

namespace gpu_advise::cli {

int run_catalog_list(const Session& session) {
  session.output.write([&](OutputFormat f, const TextStyle& style) {
    if (f == OutputFormat::csv || f == OutputFormat::tsv) {
      return render_catalog_list_table(session.catalog, f);
    }
    return json_or_text(
        f, [&] { return render_catalog_list_json(session.catalog); },
        [&] { return render_catalog_list_text(session.catalog, session.language, style); });
  });
  return static_cast<int>(ExitCode::ok);
}

// The card as the catalog has it, and beside its quotes those of the --price-file files.
int run_catalog_show(const Session& session) {
  const GpuSpec& gpu = session.base.resolve(session.flags.show_id);
  const std::vector<PriceQuote> imported = session.book.quotes_for(gpu.id);
  session.output.write([&](OutputFormat f, const TextStyle& style) {
    return json_or_text(
        f, [&] { return render_gpu_json(gpu, session.catalog.info(), imported); },
        [&] { return render_gpu_text(gpu, session.catalog.info(), session.language, style, imported); });
  });
  return static_cast<int>(ExitCode::ok);
}

int run_catalog_validate(const Flags& flags, const Output& output) {
  const Catalog base = load_embedded_catalog();
  const Catalog checked = load_catalog_file(flags.validate_file, CatalogRole::overlay, &base);
  std::string verdict = fmt::format("{}: ok, {} cards\n", text::printable(flags.validate_file), checked.size());
  output.write([&](OutputFormat, const TextStyle&) { return verdict; });
  return static_cast<int>(ExitCode::ok);
}

}  // namespace gpu_advise::cli
