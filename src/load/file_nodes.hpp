// What files.cpp and output_file.cpp share about file-system nodes.
#pragma once

#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "load/files.hpp"

namespace gpu_advise {

// Opens the node behind an O_PATH handle (which itself opened nothing: no
// device driver saw it) with real access `flags`, through /proc/self/fd, so
// what is opened is the node that was examined. Without /proc, opens `path`
// and checks it is the same node. -1 with errno set on failure.
[[nodiscard]] int reopen(const UniqueFd& handle, const std::filesystem::path& path, int flags,
                         const struct stat& examined);

// "a directory", "a character device", ...: for messages.
[[nodiscard]] std::string kind_of(mode_t mode);

}  // namespace gpu_advise
