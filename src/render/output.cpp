#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu_advise/error.hpp"
#include "gpu_advise/render.hpp"

namespace gpu_advise {

std::span<const EnumName<OutputFormat>> names(OutputFormat) {
  static constexpr EnumName<OutputFormat> table[] = {{OutputFormat::text, "text"},
                                                     {OutputFormat::json, "json"},
                                                     {OutputFormat::markdown, "markdown"},
                                                     {OutputFormat::html, "html"}};
  return table;
}

void write_file_atomically(const std::filesystem::path& path, const std::string& content) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw UsageError(fmt::format("--output: '{}' is a directory; give a file path", path.string()));
  }
  const std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  if (!std::filesystem::is_directory(folder, ec)) {
    throw UsageError(fmt::format("--output: folder '{}' does not exist", folder.string()));
  }
  std::string temp = (folder / fmt::format(".{}.tmp-XXXXXX", path.filename().string())).string();
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) {
    throw UsageError(fmt::format("--output: cannot write in '{}': {}", folder.string(), std::strerror(errno)));
  }
  bool ok = true;
  const char* data = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    const ssize_t written = ::write(fd, data, left);
    if (written < 0) {
      if (errno == EINTR) {
        continue;
      }
      ok = false;
      break;
    }
    data += written;
    left -= static_cast<std::size_t>(written);
  }
  ok = (::fsync(fd) == 0) && ok;
  ok = (::close(fd) == 0) && ok;
  if (ok) {
    ::chmod(temp.c_str(), 0644);
  }
  if (!ok || std::rename(temp.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(temp.c_str());
    throw UsageError(fmt::format("--output: cannot write '{}': {}", path.string(), reason));
  }
}

}  // namespace gpu_advise
