#include "gpu_advise/render.hpp"

namespace gpu_advise {

std::span<const EnumName<OutputFormat>> names(OutputFormat) {
  static constexpr EnumName<OutputFormat> table[] = {{OutputFormat::text, "text"},         {OutputFormat::json, "json"},
                                                     {OutputFormat::markdown, "markdown"}, {OutputFormat::html, "html"},
                                                     {OutputFormat::csv, "csv"},           {OutputFormat::tsv, "tsv"},
                                                     {OutputFormat::yaml, "yaml"}};
  return table;
}

}  // namespace gpu_advise
