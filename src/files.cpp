// Data files in, results out: the only code that opens files by name.
#include "gpu_advise/files.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <functional>
#include <optional>

#include <fmt/format.h>

#include "gpu_advise/error.hpp"
#include "gpu_advise/text.hpp"

namespace gpu_advise {

namespace {

// Closes a descriptor on every path out of a scope.
class Descriptor {
 public:
  explicit Descriptor(int fd) noexcept : m_fd(fd) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (m_fd >= 0) {
      ::close(m_fd);
    }
  }
  [[nodiscard]] int get() const noexcept { return m_fd; }
  // Closes now and reports the result: a write error may only show here.
  bool close() noexcept {
    const int fd = m_fd;
    m_fd = -1;
    return ::close(fd) == 0;
  }

 private:
  int m_fd;
};

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) {
    return "a directory";
  }
  if (S_ISCHR(mode)) {
    return "a character device";
  }
  if (S_ISBLK(mode)) {
    return "a block device";
  }
  if (S_ISSOCK(mode)) {
    return "a socket";
  }
  if (S_ISFIFO(mode)) {
    return "a named pipe";
  }
  return "not a regular file";
}

// Appends what `fd` holds until end of file, at most max_data_file_bytes;
// with a deadline, waits for data with poll() and never longer than that.
void read_all(int fd, std::string& content, const std::function<void(const std::string&)>& fail,
              std::optional<std::chrono::steady_clock::time_point> deadline) {
  char buffer[65536];
  for (;;) {
    if (deadline) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline -
                                                                              std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        fail(fmt::format("cannot read: the pipe did not deliver all of its data within {} s", max_pipe_wait_seconds));
      }
      pollfd p{fd, POLLIN, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
      if (ready < 0 && errno == EINTR) {
        continue;
      }
      if (ready < 0) {
        fail(fmt::format("cannot read: {}", std::strerror(errno)));
      }
      if (ready == 0) {
        continue;  // the deadline check above ends it
      }
    }
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN) {
        continue;
      }
      fail(fmt::format("cannot read: {}", std::strerror(errno)));
    }
    if (got == 0) {
      return;
    }
    if (content.size() + static_cast<std::size_t>(got) > max_data_file_bytes) {
      fail(fmt::format("cannot read: over the limit of {} bytes (16 MiB)", max_data_file_bytes));
    }
    content.append(buffer, static_cast<std::size_t>(got));
  }
}

}  // namespace

std::string read_data_file(const std::filesystem::path& path) {
  const std::string name = text::printable(path.string());
  auto fail = [&](const std::string& message) { throw DataError({Diagnostic{name, 0, 0, "", message}}); };
  if (path.empty()) {
    fail("cannot read: the file name is empty");
  }
  // O_NONBLOCK: opening a FIFO must not wait for a writer. The kind is taken
  // from the open descriptor, so it cannot change between the check and the read.
  const int raw = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (raw < 0) {
    const int error = errno;
    if (error == ENOENT) {
      fail("cannot read: no such file");
    }
    if (error == EACCES) {
      fail("cannot read: permission denied");
    }
    if (error == ENXIO) {
      fail("cannot read: it is a socket, not a file; give a regular file");
    }
    fail(fmt::format("cannot read: {}", std::strerror(error)));
  }
  Descriptor fd(raw);
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) {
    fail(fmt::format("cannot read: {}", std::strerror(errno)));
  }
  std::string content;
  if (S_ISREG(info.st_mode)) {
    if (static_cast<std::uintmax_t>(info.st_size) > max_data_file_bytes) {
      fail(fmt::format("cannot read: {} bytes is over the limit of {} bytes (16 MiB)", info.st_size,
                       max_data_file_bytes));
    }
    read_all(fd.get(), content, fail, std::nullopt);
  } else if (S_ISFIFO(info.st_mode)) {
    read_all(fd.get(), content, fail,
             std::chrono::steady_clock::now() + std::chrono::seconds(max_pipe_wait_seconds));
  } else if (S_ISDIR(info.st_mode)) {
    fail("cannot read: it is a directory, not a file");
  } else {
    fail(fmt::format("cannot read: it is {}, not a file; give a regular file (or a pipe)", kind_of(info.st_mode)));
  }
  if (text::trim(content).empty()) {
    fail("the file is empty");
  }
  return content;
}

namespace {

[[noreturn]] void output_failed(const std::string& name, int error) {
  throw Error(fmt::format("--output: cannot write '{}': {}", text::printable(name), std::strerror(error)));
}

// Writes all of `content` to `fd`; false (errno set) on the first failure.
bool write_all(int fd, std::string_view content) {
  while (!content.empty()) {
    const ssize_t written = ::write(fd, content.data(), content.size());
    if (written < 0) {
      if (errno == EINTR) {
        continue;
      }
      return false;
    }
    content.remove_prefix(static_cast<std::size_t>(written));
  }
  return true;
}

// A character device or FIFO: opened as it is (no create, no truncate) and written.
void write_through(const std::string& name, const std::filesystem::path& path, std::string_view content,
                   bool truncate = false) {
  const int raw = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | (truncate ? O_TRUNC : 0));
  if (raw < 0) {
    output_failed(name, errno);
  }
  Descriptor fd(raw);
  if (!write_all(fd.get(), content)) {
    output_failed(name, errno);
  }
  if (!fd.close()) {
    output_failed(name, errno);
  }
}

// A Unix stream socket: connected to and written.
void write_to_socket(const std::string& name, const std::filesystem::path& path, std::string_view content) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string& text = path.native();
  if (text.size() >= sizeof address.sun_path) {
    throw UsageError(fmt::format("--output: the socket path '{}' is longer than {} bytes", text::printable(name),
                                 sizeof address.sun_path - 1));
  }
  std::memcpy(address.sun_path, text.c_str(), text.size() + 1);
  const int raw = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (raw < 0) {
    output_failed(name, errno);
  }
  Descriptor fd(raw);
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    output_failed(name, errno);
  }
  if (!write_all(fd.get(), content)) {
    output_failed(name, errno);
  }
  if (!fd.close()) {
    output_failed(name, errno);
  }
}

// A new path or a regular file: a temporary file beside it, then rename. The
// temporary name is short so it fits wherever the target's name fits.
void replace(const std::string& name, const std::filesystem::path& path, std::string_view content,
             std::optional<mode_t> existing_mode) {
  const std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  struct stat folder_info {};
  if (::stat(folder.c_str(), &folder_info) != 0 || !S_ISDIR(folder_info.st_mode)) {
    throw UsageError(fmt::format("--output: folder '{}' does not exist", text::printable(folder.string())));
  }
  std::string temp = (folder / ".gpu-advise-XXXXXX").string();
  const int raw = ::mkstemp(temp.data());
  if (raw < 0) {
    throw UsageError(fmt::format("--output: cannot write in '{}': {}", text::printable(folder.string()),
                                 std::strerror(errno)));
  }
  Descriptor fd(raw);
  mode_t mode = 0;
  if (existing_mode) {
    mode = *existing_mode;
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  const bool ok = write_all(fd.get(), content) && ::fchmod(fd.get(), mode) == 0 && ::fsync(fd.get()) == 0 &&
                  fd.close() && ::rename(temp.c_str(), path.c_str()) == 0;
  if (!ok) {
    const int error = errno;
    ::unlink(temp.c_str());
    output_failed(name, error);
  }
}

// Follows symlinks by hand, so a link is kept and its final target replaced.
// /proc/self/fd links (/dev/stdout) do not name a path; the caller compares
// the result with what the kernel opens and writes through when they differ.
std::filesystem::path resolve_links(const std::string& name) {
  std::filesystem::path path = name;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat info {};
    if (::lstat(path.c_str(), &info) != 0 || !S_ISLNK(info.st_mode)) {
      return path;
    }
    std::error_code ec;
    const std::filesystem::path target = std::filesystem::read_symlink(path, ec);
    if (ec) {
      output_failed(name, ec.value());
    }
    path = target.is_absolute() ? target : path.parent_path() / target;
  }
  output_failed(name, ELOOP);
}

}  // namespace

OutputKind write_output(const std::string& name, std::string_view content) {
  if (name == "-") {
    return OutputKind::standard_output;
  }
  if (name.empty()) {
    throw UsageError("--output: the file name is empty; give a file path, or - for standard output");
  }
  struct stat followed {};
  const bool exists = ::stat(name.c_str(), &followed) == 0;
  if (exists && S_ISDIR(followed.st_mode)) {
    throw UsageError(fmt::format("--output: '{}' is a directory; give a file path", text::printable(name)));
  }
  if (exists && S_ISBLK(followed.st_mode)) {
    throw UsageError(fmt::format("--output: '{}' is a block device; gpu-advise does not write onto disks",
                                 text::printable(name)));
  }
  if (exists && (S_ISCHR(followed.st_mode) || S_ISFIFO(followed.st_mode))) {
    write_through(name, name, content);
    return OutputKind::write_through;
  }
  if (exists && S_ISSOCK(followed.st_mode)) {
    write_to_socket(name, resolve_links(name), content);
    return OutputKind::socket;
  }
  if (exists && !S_ISREG(followed.st_mode)) {
    throw UsageError(fmt::format("--output: '{}' is {}; give a file path", text::printable(name),
                                 kind_of(followed.st_mode)));
  }
  const std::filesystem::path target = resolve_links(name);
  if (exists) {
    struct stat resolved {};
    if (::lstat(target.c_str(), &resolved) != 0 || resolved.st_dev != followed.st_dev ||
        resolved.st_ino != followed.st_ino) {
      // A link the kernel follows but no path names (a deleted file behind
      // /proc/self/fd): the file itself is written, never a new one made.
      write_through(name, name, content, true);
      return OutputKind::write_through;
    }
    replace(name, target, content, followed.st_mode & 07777);
  } else {
    replace(name, target, content, std::nullopt);
  }
  return OutputKind::replace;
}

}  // namespace gpu_advise
