// Data files in: descriptors, reads that never block, and the checks of what
// a name points to before anything is opened (docs/errors.md, "Data files").
// Writing --output is output_file.cpp.
#include "load/files.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>

#include <fmt/format.h>

#include "gpu_advise/error.hpp"
#include "gpu_advise/text.hpp"
#include "load/file_nodes.hpp"

namespace gpu_advise {

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    (void)close();
    m_fd = other.m_fd;
    other.m_fd = -1;
  }
  return *this;
}

UniqueFd::~UniqueFd() { (void)close(); }

bool UniqueFd::close() noexcept {
  if (m_fd < 0) {
    return true;
  }
  const int fd = m_fd;
  m_fd = -1;
  return ::close(fd) == 0;
}

namespace {

// Waits until `fd` is ready for `events` (POLLIN or POLLOUT); false, with
// errno set, when poll() fails or says the descriptor never will be.
bool wait_for(int fd, short events) noexcept {
  pollfd p{fd, events, 0};
  for (;;) {
    if (::poll(&p, 1, -1) < 0) {
      if (errno == EINTR) {
        continue;
      }
      return false;
    }
    if ((p.revents & events) != 0) {
      return true;
    }
    if ((p.revents & POLLNVAL) != 0) {
      errno = EBADF;
      return false;
    }
    if (events == POLLIN && (p.revents & POLLHUP) != 0) {
      return true;  // the writer is gone: read() says end of file
    }
    errno = (p.revents & POLLHUP) != 0 ? EPIPE : EIO;
    return false;
  }
}

}  // namespace

int reopen(const UniqueFd& handle, const std::filesystem::path& path, int flags, const struct stat& examined) {
  const int fd = ::open(fmt::format("/proc/self/fd/{}", handle.get()).c_str(), flags);
  if (fd >= 0 || errno != ENOENT) {
    return fd;
  }
  UniqueFd direct(::open(path.c_str(), flags));
  struct stat opened {};
  if (direct.get() < 0 || ::fstat(direct.get(), &opened) != 0) {
    return -1;
  }
  if (opened.st_dev != examined.st_dev || opened.st_ino != examined.st_ino) {
    errno = ESTALE;  // replaced between the look-up and the open
    return -1;
  }
  return direct.release();
}

bool write_all(int fd, std::string_view data) noexcept {
  while (!data.empty()) {
    const ssize_t written = ::write(fd, data.data(), data.size());
    if (written < 0) {
      if (errno == EINTR) {
        continue;
      }
      if ((errno == EAGAIN || errno == EWOULDBLOCK) && wait_for(fd, POLLOUT)) {
        continue;
      }
      return false;
    }
    data.remove_prefix(static_cast<std::size_t>(written));
  }
  return true;
}

long read_some(int fd, char* into, std::size_t size) noexcept {
  for (;;) {
    const ssize_t got = ::read(fd, into, size);
    if (got >= 0) {
      return static_cast<long>(got);
    }
    if (errno == EINTR) {
      continue;
    }
    if ((errno == EAGAIN || errno == EWOULDBLOCK) && wait_for(fd, POLLIN)) {
      continue;
    }
    return -1;
  }
}

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

namespace {

// ---------------------------------------------------------------- reading

class DataFile {
 public:
  explicit DataFile(const std::filesystem::path& path) : m_path(path), m_name(text::printable(path.string())) {}

  [[noreturn]] void fail(const std::string& message) const { throw DataError({Diagnostic{m_name, 0, 0, "", message}}); }

  // Refuses what is not a regular file or a pipe without opening it (opening
  // a device can have effects: a serial port resets what is on it), then
  // opens that same node without blocking.
  UniqueFd open() {
    if (m_path.empty()) {
      fail("cannot read: the file name is empty");
    }
    const UniqueFd handle(::open(m_path.c_str(), O_PATH | O_CLOEXEC));
    if (handle.get() < 0) {
      const int error = errno;
      fail(error == ENOENT ? std::string("cannot read: no such file")
                           : fmt::format("cannot read: {}", std::strerror(error)));
    }
    if (::fstat(handle.get(), &m_info) != 0) {
      fail(fmt::format("cannot read: {}", std::strerror(errno)));
    }
    if (S_ISDIR(m_info.st_mode)) {
      fail("cannot read: it is a directory, not a file");
    }
    if (!S_ISREG(m_info.st_mode) && !S_ISFIFO(m_info.st_mode)) {
      fail(fmt::format("cannot read: it is {}, not a file; give a regular file or a pipe", kind_of(m_info.st_mode)));
    }
    // O_NONBLOCK: opening a FIFO must not wait for a writer.
    UniqueFd fd(reopen(handle, m_path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, m_info));
    if (fd.get() < 0) {
      const int error = errno;
      fail(error == EACCES   ? std::string("cannot read: permission denied")
           : error == ESTALE ? std::string("cannot read: the file was replaced while it was being opened")
                             : fmt::format("cannot read: {}", std::strerror(error)));
    }
    return fd;
  }

  [[nodiscard]] bool is_pipe() const noexcept { return S_ISFIFO(m_info.st_mode); }
  [[nodiscard]] std::uintmax_t size() const noexcept { return static_cast<std::uintmax_t>(m_info.st_size); }

 private:
  std::filesystem::path m_path;
  std::string m_name;
  struct stat m_info {};
};

using Clock = std::chrono::steady_clock;

// Waits for a pipe to have data or to end, at most until `deadline`.
bool wait_readable(int fd, Clock::time_point deadline) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      return false;
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, INT_MAX)));
    if (ready > 0) {
      return true;
    }
    if (ready < 0 && errno != EINTR) {
      return true;  // let read() report the error
    }
  }
}

}  // namespace

std::string read_data_file(const std::filesystem::path& path, bool empty_allowed) {
  DataFile file(path);
  const UniqueFd fd = file.open();
  if (!file.is_pipe() && file.size() > max_data_file_bytes) {
    file.fail(
        fmt::format("cannot read: {} bytes is over the limit of {} bytes (16 MiB)", file.size(), max_data_file_bytes));
  }
  const auto deadline = Clock::now() + std::chrono::seconds(max_pipe_wait_seconds);
  std::string content;
  char buffer[65536];
  for (;;) {
    if (file.is_pipe() && !wait_readable(fd.get(), deadline)) {
      file.fail(
          fmt::format("cannot read: the pipe did not deliver all of its data within {} s", max_pipe_wait_seconds));
    }
    const ssize_t got = ::read(fd.get(), buffer, sizeof buffer);
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) {
        continue;
      }
      file.fail(fmt::format("cannot read: {}", std::strerror(errno)));
    }
    if (got == 0) {
      break;
    }
    if (content.size() + static_cast<std::size_t>(got) > max_data_file_bytes) {
      file.fail(fmt::format("cannot read: over the limit of {} bytes (16 MiB)", max_data_file_bytes));
    }
    content.append(buffer, static_cast<std::size_t>(got));
  }
  if (!empty_allowed && text::trim(content).empty()) {
    file.fail("the file is empty");
  }
  return content;
}

UniqueFd open_data_stream(const std::filesystem::path& path) {
  DataFile file(path);
  UniqueFd fd = file.open();
  if (file.is_pipe() && !wait_readable(fd.get(), Clock::now() + std::chrono::seconds(max_pipe_wait_seconds))) {
    file.fail(fmt::format("cannot read: the pipe delivered nothing within {} s", max_pipe_wait_seconds));
  }
  const int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags >= 0) {
    (void)::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);  // from here on, a stream like any other
  }
  return fd;
}

}  // namespace gpu_advise
