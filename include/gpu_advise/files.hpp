// Files at the edges: data files read with the same checks everywhere, and the
// result written to wherever --output points without ever replacing what is
// not ours (docs/errors.md, "Files").
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace gpu_advise {

// The largest data file accepted (catalog, rules, config.json, batch file), in bytes.
inline constexpr std::uintmax_t max_data_file_bytes = 16 * 1024 * 1024;

// How long a data file that is a pipe (a FIFO, or `<(...)` in the shell) may
// take to deliver all of its content before it is given up on.
inline constexpr int max_pipe_wait_seconds = 5;

// Reads a whole data file. A regular file, or a pipe read without blocking
// within max_pipe_wait_seconds; a directory, device or socket is refused. The
// content must be non-empty and at most max_data_file_bytes. Never blocks
// longer than the pipe wait. Throws DataError naming the file.
[[nodiscard]] std::string read_data_file(const std::filesystem::path& path);

// What --output NAME writes to, decided before anything is written.
enum class OutputKind {
  standard_output,  // "-"
  replace,          // a new path or a regular file (through any symlinks): temp file + rename
  write_through,    // a character device or FIFO: opened and written, never renamed
  socket,           // a Unix socket: connected and written
};

// Writes `content` where `name` points:
// - "-": nothing here (the caller writes standard output); returns standard_output.
// - a new path or a regular file: a temporary file with a short name in the
//   same folder, then an atomic rename; on any error the old file stays.
// - a symlink: its final target is replaced that way; the link stays.
// - a character device, FIFO or socket: written straight through.
// - an empty name, a directory, a block device, a missing folder: UsageError.
// A failed write is an Error naming the file and the system's reason.
OutputKind write_output(const std::string& name, std::string_view content);

}  // namespace gpu_advise
