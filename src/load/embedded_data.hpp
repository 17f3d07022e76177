// The data files compiled into the binary (see cmake/EmbedFiles.cmake).
#pragma once

#include <span>
#include <string_view>

namespace gpu_advise::embedded {

struct File {
  std::string_view path;  // relative to the source tree, e.g. "data/gpus.yaml"
  std::string_view content;
};

[[nodiscard]] std::span<const File> files();

}  // namespace gpu_advise::embedded
