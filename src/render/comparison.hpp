// The side-by-side table of `gpu-advise compare`: one column per chosen card
// (in the order given), one row per figure. Shared by the text, Markdown and
// HTML renderers. A card that does not fit says so in its column ("no (see
// below)"); why is in its notes, after the table.
#pragma once

#include <string>
#include <vector>

#include "gpu_advise/language.hpp"
#include "gpu_advise/report.hpp"

namespace gpu_advise::render {

struct Comparison {
  std::vector<std::string> header;                                      // "", card names...
  std::vector<std::vector<std::string>> rows;                           // label, value per card
  std::vector<std::pair<std::string, std::vector<std::string>>> notes;  // card name, its reasons and notes
  std::vector<bool> prose;  // per row: its cells are free text (a layout), which a narrow table may wrap
};

[[nodiscard]] Comparison comparison(const Report& report, Language language);

}  // namespace gpu_advise::render
