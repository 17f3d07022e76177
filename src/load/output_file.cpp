// Results out: --output written to whatever its name points to without ever
// replacing what is not ours, every output made ready before any is put in
// place, and no temporary file left behind by a signal (docs/errors.md,
// "Where --output writes").
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "gpu_advise/error.hpp"
#include "gpu_advise/text.hpp"
#include "load/file_nodes.hpp"
#include "load/files.hpp"

namespace gpu_advise {

namespace {

// ---------------------------------------------------------------- temporaries

// The temporary files that exist now, for the signal handler to remove: a
// fixed table (a handler may not allocate), each slot's path written before
// it is marked used. More outputs than slots are refused (cli/output.cpp
// allows max_outputs).
struct TemporarySlot {
  std::atomic<bool> used{false};
  std::array<char, PATH_MAX> path{};
};
std::array<TemporarySlot, max_outputs> temporaries;
static_assert(std::atomic<bool>::is_always_lock_free, "the signal handler reads these flags");

std::optional<std::size_t> remember_temporary(const std::string& path) {
  if (path.size() >= PATH_MAX) {
    return std::nullopt;
  }
  for (std::size_t i = 0; i < temporaries.size(); ++i) {
    TemporarySlot& slot = temporaries[i];
    if (!slot.used.load()) {
      std::memcpy(slot.path.data(), path.c_str(), path.size() + 1);
      slot.used.store(true);
      return i;
    }
  }
  return std::nullopt;
}

void forget_temporary(std::optional<std::size_t> slot) noexcept {
  if (slot) {
    temporaries[*slot].used.store(false);
  }
}

extern "C" void remove_temporaries_and_end(int signal_number) {
  for (TemporarySlot& slot : temporaries) {
    if (slot.used.load()) {
      (void)::unlink(slot.path.data());
    }
  }
  // SA_RESETHAND restored the default action: the signal raised again ends
  // the process as it would have without this handler.
  (void)::raise(signal_number);
}

[[noreturn]] void output_failed(const std::string& name, int error) {
  throw Error(fmt::format("--output: cannot write '{}': {}", text::printable(name), std::strerror(error)));
}

// A character device or FIFO: the examined node opened as it is (no create,
// no truncate) and written. A FIFO waits for its reader, as `echo > fifo` does.
void write_through(const std::string& name, const UniqueFd& handle, const std::filesystem::path& path,
                   const struct stat& examined, std::string_view content) {
  UniqueFd fd(reopen(handle, path, O_WRONLY | O_NOCTTY | O_CLOEXEC, examined));
  if (fd.get() < 0 && errno == ESTALE) {
    throw Error(fmt::format("--output: '{}' was replaced while it was being opened; nothing was written",
                            text::printable(name)));
  }
  if (fd.get() < 0 || !write_all(fd.get(), content) || !fd.close()) {
    output_failed(name, errno);
  }
}

// A Unix stream socket: connected to and written.
void write_to_socket(const std::string& name, const std::filesystem::path& path, std::string_view content) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string& native = path.native();
  if (native.size() >= sizeof address.sun_path) {
    throw UsageError(fmt::format("--output: the socket path '{}' is longer than {} bytes", text::printable(name),
                                 sizeof address.sun_path - 1));
  }
  std::memcpy(address.sun_path, native.c_str(), native.size() + 1);
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0 || ::connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
      !write_all(fd.get(), content) || !fd.close()) {
    output_failed(name, errno);
  }
}

}  // namespace

struct PendingOutput::State {
  std::string name;          // as given, for messages
  std::string_view content;  // the caller's, alive until commit()
  OutputKind kind = OutputKind::standard_output;
  std::filesystem::path path;       // the node written, or replaced
  UniqueFd handle;                  // write_through: the O_PATH handle of the node examined
  struct stat examined {};          // write_through: what it was
  int descriptor = -1;              // descriptor: the one written
  std::string temp;                 // replace: the temporary file, until renamed
  std::optional<std::size_t> slot;  // replace: its place in the signal handler's table

  void remove_temporary() noexcept {
    if (!temp.empty()) {
      (void)::unlink(temp.c_str());
      forget_temporary(slot);
      temp.clear();
      slot.reset();
    }
  }
};

namespace {

// A new path or a regular file: a temporary file beside it, written and
// synced (commit() renames it). The temporary name is short so it fits
// wherever the target's name fits. An existing file keeps its owner where the
// system allows and its permission bits (never set-user-ID or set-group-ID);
// a file we may not write is not replaced.
void stage(PendingOutput::State& out, const std::optional<struct stat>& existing) {
  const std::string& name = out.name;
  const std::filesystem::path& path = out.path;
  const std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  struct stat folder_info {};
  if (::stat(folder.c_str(), &folder_info) != 0) {
    throw UsageError(fmt::format("--output: folder '{}' does not exist", text::printable(folder.string())));
  }
  if (!S_ISDIR(folder_info.st_mode)) {
    throw UsageError(fmt::format("--output: '{}' is not a folder", text::printable(folder.string())));
  }
  if (existing && ::access(path.c_str(), W_OK) != 0) {
    output_failed(name, errno);
  }
  std::string temp = (folder / ".gpu-advise-XXXXXX").string();
  if (temp.size() >= PATH_MAX) {
    output_failed(name, ENAMETOOLONG);
  }
  // Signals wait while the file is made and entered in the table, so none
  // can leave it behind unlisted.
  sigset_t all;
  sigset_t before;
  ::sigfillset(&all);
  ::sigprocmask(SIG_BLOCK, &all, &before);
  UniqueFd fd(::mkstemp(temp.data()));
  const int made = errno;
  if (fd.get() >= 0) {
    out.temp = temp;
    out.slot = remember_temporary(temp);
  }
  ::sigprocmask(SIG_SETMASK, &before, nullptr);
  if (fd.get() < 0) {
    throw UsageError(
        fmt::format("--output: cannot write in '{}': {}", text::printable(folder.string()), std::strerror(made)));
  }
  mode_t mode = 0;
  if (existing) {
    (void)::fchown(fd.get(), existing->st_uid, existing->st_gid);  // as root: keep the owner
    mode = existing->st_mode & 0777;
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  const bool ok =
      write_all(fd.get(), out.content) && ::fchmod(fd.get(), mode) == 0 && ::fsync(fd.get()) == 0 && fd.close();
  if (!ok) {
    const int error = errno;
    out.remove_temporary();
    output_failed(name, error);
  }
}

// Where a name leads once its symlinks are followed by hand (so a link is
// kept and its final target replaced): a path, or one of this process's open
// descriptors when the chain passes through /proc/self/fd (/dev/stdout,
// /dev/fd/3), whose "targets" are not paths.
struct Destination {
  std::filesystem::path path;
  std::optional<int> descriptor;
};

// The descriptor a link names when it stands in this process's own
// /proc/self/fd (or /proc/thread-self/fd): the folders are compared as nodes,
// not as text, so it holds inside a PID namespace whose /proc numbers
// processes otherwise.
std::optional<int> own_descriptor(const std::filesystem::path& link) {
  struct stat folder {};
  if (::stat(link.has_parent_path() ? link.parent_path().c_str() : ".", &folder) != 0) {
    return std::nullopt;
  }
  bool own = false;
  for (const char* fds : {"/proc/self/fd", "/proc/thread-self/fd"}) {
    struct stat info {};
    own = own || (::stat(fds, &info) == 0 && info.st_dev == folder.st_dev && info.st_ino == folder.st_ino);
  }
  const std::string number = link.filename().string();
  const bool canonical = !number.empty() && number.size() <= 9 &&
                         number.find_first_not_of("0123456789") == std::string::npos &&
                         (number == "0" || number[0] != '0');
  if (!own || !canonical) {
    return std::nullopt;
  }
  return std::stoi(number);
}

// Whether a link stands on procfs, where a link's text need not be a path
// ("pipe:[1234]", "/tmp/x (deleted)"), so it must not be followed as one.
bool on_procfs(const std::filesystem::path& link) {
  struct statfs info {};
  return ::statfs(link.has_parent_path() ? link.parent_path().c_str() : ".", &info) == 0 &&
         info.f_type == PROC_SUPER_MAGIC;
}

Destination resolve(const std::string& name) {
  std::filesystem::path path = name;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat info {};
    const bool exists = ::lstat(path.c_str(), &info) == 0;
    if (exists && !S_ISLNK(info.st_mode)) {
      return {path, std::nullopt};
    }
    if (const auto fd = own_descriptor(path)) {
      return {path, fd};  // open or not: a closed one is EBADF, never a file made in /proc
    }
    if (!exists) {
      return {path, std::nullopt};
    }
    if (on_procfs(path)) {
      throw UsageError(
          fmt::format("--output: '{}' leads to a /proc link that names no file; give a file path, "
                      "or /dev/fd/N for one of this process's own descriptors",
                      text::printable(name)));
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

PendingOutput::PendingOutput(std::unique_ptr<State> state) noexcept : m_state(std::move(state)) {}
PendingOutput::PendingOutput(PendingOutput&&) noexcept = default;
PendingOutput& PendingOutput::operator=(PendingOutput&& other) noexcept {
  if (this != &other) {
    if (m_state) {
      m_state->remove_temporary();
    }
    m_state = std::move(other.m_state);
  }
  return *this;
}
PendingOutput::~PendingOutput() {
  if (m_state) {
    m_state->remove_temporary();
  }
}

OutputKind PendingOutput::kind() const noexcept { return m_state->kind; }

void PendingOutput::commit() {
  State& s = *m_state;
  switch (s.kind) {
    case OutputKind::standard_output: return;
    case OutputKind::descriptor:
      if (!write_all(s.descriptor, s.content)) {
        output_failed(s.name, errno);
      }
      return;
    case OutputKind::write_through: write_through(s.name, s.handle, s.path, s.examined, s.content); return;
    case OutputKind::socket: write_to_socket(s.name, s.path, s.content); return;
    case OutputKind::replace:
      if (::rename(s.temp.c_str(), s.path.c_str()) != 0) {
        const int error = errno;
        s.remove_temporary();
        output_failed(s.name, error);
      }
      forget_temporary(s.slot);
      s.temp.clear();
      s.slot.reset();
      return;
  }
}

PendingOutput prepare_output(const std::string& name, std::string_view content, std::span<const int> closed) {
  auto state = std::make_unique<PendingOutput::State>();
  state->name = name;
  state->content = content;
  PendingOutput::State& out = *state;
  PendingOutput pending(std::move(state));
  if (name == "-") {
    return pending;
  }
  if (name.empty()) {
    throw UsageError("--output: the file name is empty; give a file path, or - for standard output");
  }
  const Destination destination = resolve(name);
  out.path = destination.path;
  if (destination.descriptor) {
    // Written as the shell's >&N would: where that descriptor stands, with its flags (O_APPEND kept).
    const int fd = *destination.descriptor;
    if (fd == STDOUT_FILENO) {
      return pending;
    }
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags == -1 || std::find(closed.begin(), closed.end(), fd) != closed.end()) {
      output_failed(name, EBADF);
    }
    if ((flags & O_ACCMODE) == O_RDONLY) {
      throw Error(fmt::format("--output: cannot write '{}': descriptor {} is open for reading only",
                              text::printable(name), fd));
    }
    out.kind = OutputKind::descriptor;
    out.descriptor = fd;
    return pending;
  }
  // What the name is, from a handle that opens nothing (a device's driver is
  // only reached once the kind is known to be one we write to).
  const std::filesystem::path& path = destination.path;
  UniqueFd handle(::open(path.c_str(), O_PATH | O_CLOEXEC));
  if (handle.get() < 0) {
    if (errno != ENOENT && errno != ENOTDIR) {  // ENOTDIR: the folder is a file, which stage() says
      output_failed(name, errno);
    }
    out.kind = OutputKind::replace;
    stage(out, std::nullopt);
    return pending;
  }
  struct stat info {};
  if (::fstat(handle.get(), &info) != 0) {
    output_failed(name, errno);
  }
  if (S_ISDIR(info.st_mode)) {
    throw UsageError(fmt::format("--output: '{}' is a directory; give a file path", text::printable(name)));
  }
  if (S_ISBLK(info.st_mode)) {
    throw UsageError(
        fmt::format("--output: '{}' is a block device; gpu-advise does not write onto disks", text::printable(name)));
  }
  if (S_ISCHR(info.st_mode) || S_ISFIFO(info.st_mode)) {
    out.kind = OutputKind::write_through;
    out.handle = std::move(handle);
    out.examined = info;
    return pending;
  }
  if (S_ISSOCK(info.st_mode)) {
    out.kind = OutputKind::socket;
    return pending;
  }
  if (!S_ISREG(info.st_mode)) {
    throw UsageError(
        fmt::format("--output: '{}' is {}; give a file path", text::printable(name), kind_of(info.st_mode)));
  }
  out.kind = OutputKind::replace;
  stage(out, info);
  return pending;
}

void install_signal_cleanup() noexcept {
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  ::sigemptyset(&ignore.sa_mask);
  (void)::sigaction(SIGXFSZ, &ignore, nullptr);
  for (const int signal_number : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
    struct sigaction current {};
    if (::sigaction(signal_number, nullptr, &current) != 0 || current.sa_handler == SIG_IGN) {
      continue;  // ignored by the parent (nohup, a background job's SIGINT): it stays ignored
    }
    struct sigaction cleanup {};
    cleanup.sa_handler = remove_temporaries_and_end;
    ::sigemptyset(&cleanup.sa_mask);
    cleanup.sa_flags = static_cast<int>(SA_RESETHAND);
    (void)::sigaction(signal_number, &cleanup, nullptr);
  }
}

}  // namespace gpu_advise
