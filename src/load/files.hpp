// Files at the edges: data files read with the same checks everywhere, and the
// result written to wherever --output points without ever replacing what is
// not ours (docs/errors.md, "Data files" and "Where --output writes").
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace gpu_advise {

// The largest data file read whole (catalog, rules, config.json), in bytes.
inline constexpr std::uintmax_t max_data_file_bytes = std::uintmax_t{16} * 1024 * 1024;

// How long a data file that is a pipe (a FIFO, or `<(...)` in the shell) may
// take to deliver all of its content (read whole) or its first byte (streamed).
inline constexpr int max_pipe_wait_seconds = 5;

// An owned file descriptor, closed when it goes out of scope.
class UniqueFd {
 public:
  explicit UniqueFd(int fd = -1) noexcept : m_fd(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : m_fd(other.m_fd) { other.m_fd = -1; }
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd();
  [[nodiscard]] int get() const noexcept { return m_fd; }
  // Closes now and says whether close() succeeded (a write error may only show here).
  bool close() noexcept;
  // Gives the descriptor up to the caller, who closes it.
  [[nodiscard]] int release() noexcept {
    const int fd = m_fd;
    m_fd = -1;
    return fd;
  }

 private:
  int m_fd;
};

// Reads a whole data file: a regular file, or a pipe read without blocking
// within max_pipe_wait_seconds. A directory, device or socket is refused
// without being opened. The content must be non-empty and at most
// max_data_file_bytes (empty is allowed where `empty_allowed`: the user's
// config.yaml). The size the system reports is not trusted: the file is read
// to its end. Throws DataError naming the file.
[[nodiscard]] std::string read_data_file(const std::filesystem::path& path, bool empty_allowed = false);

// Opens a data file to stream it (the batch FILE): a regular file of any
// size, or a pipe that starts delivering (or ends) within
// max_pipe_wait_seconds. The descriptor returned blocks as usual.
[[nodiscard]] UniqueFd open_data_stream(const std::filesystem::path& path);

// write(2) until all of `data` is written, retrying EINTR and waiting with
// poll() when the descriptor is non-blocking. False, with errno set, on failure.
bool write_all(int fd, std::string_view data) noexcept;

// read(2) retrying EINTR and waiting with poll() when the descriptor is
// non-blocking: the count read, 0 at the end, or -1 with errno set.
long read_some(int fd, char* into, std::size_t size) noexcept;

// The most --output files one run writes.
inline constexpr std::size_t max_outputs = 64;

// What --output NAME turned out to be.
enum class OutputKind {
  standard_output,  // "-", or a name for descriptor 1 (/dev/stdout): the caller writes standard output
  descriptor,       // another descriptor of this process (/dev/fd/N, /dev/stderr): written as it is
  replace,          // a new path or a regular file (through any symlinks): temp file + rename
  write_through,    // a character device or FIFO: opened and written, never renamed
  socket,           // a Unix socket: connected and written
};

// One --output made ready but not yet in place (prepare_output): a regular
// file's content already written and synced to a temporary file beside it,
// any other target checked. commit() puts it in place; a PendingOutput
// destroyed before that removes its temporary file, so a run that fails part
// way replaces nothing. The content it was prepared with must outlive it.
class PendingOutput {
 public:
  struct State;
  explicit PendingOutput(std::unique_ptr<State> state) noexcept;
  PendingOutput(PendingOutput&&) noexcept;
  PendingOutput& operator=(PendingOutput&&) noexcept;
  PendingOutput(const PendingOutput&) = delete;
  PendingOutput& operator=(const PendingOutput&) = delete;
  ~PendingOutput();

  [[nodiscard]] OutputKind kind() const noexcept;
  // Renames the temporary file over the target, or writes the content to the
  // descriptor, device, FIFO or socket; nothing for standard output. A failed
  // write is an Error naming the file and the system's reason.
  void commit();

 private:
  std::unique_ptr<State> m_state;
};

// Makes `content` ready for where `name` points (the table in docs/errors.md):
// - "-" or a name of descriptor 1: nothing; kind() is standard_output.
// - a name of another open descriptor of this process: checked (open, for writing).
// - a new path or a regular file: a temporary file with a short name in the
//   same folder, written and synced; commit() renames it over the target.
// - a symlink: its final target is treated that way; the link stays.
// - a character device, FIFO or socket: checked; commit() writes straight through.
// - an empty name, a directory, a block device, a missing folder: UsageError.
// `closed` lists descriptors that were closed when the process started (and
// are held by /dev/null): writing to them is EBADF, as it would have been.
// A failed write is an Error naming the file and the system's reason.
[[nodiscard]] PendingOutput prepare_output(const std::string& name, std::string_view content,
                                           std::span<const int> closed = {});

// Signals that would end the process while a temporary file exists (SIGINT,
// SIGTERM, SIGHUP, SIGQUIT; those not ignored) remove it first, then end the
// process as they would have; SIGXFSZ is ignored, so a write over the file-size
// limit fails with EFBIG and is reported like any failed write. Called once,
// at the start of the process.
void install_signal_cleanup() noexcept;

}  // namespace gpu_advise
