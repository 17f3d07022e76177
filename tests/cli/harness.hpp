// Running the binary as a user runs it, for the CLI tests. GPU_ADVISE_TEST_BIN
// overrides the binary under test (to show that a test fails on an older build).
#pragma once

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace harness {

struct Result {
  int status = -1;  // the exit status, or 128 + the signal
  std::string out;
  std::string err;
  double seconds = 0;    // wall time
  long max_rss_kib = 0;  // the largest resident set of the process and what it waited for
};

inline std::string binary() {
  const char* override_bin = std::getenv("GPU_ADVISE_TEST_BIN");
  return override_bin != nullptr && override_bin[0] != '\0' ? std::string(override_bin) : std::string(GPU_ADVISE_BIN);
}

inline std::string quote(const std::string& arg) {
  std::string quoted = "'";
  for (const char c : arg) {
    quoted += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  }
  return quoted + "'";
}

inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

inline void spit(const std::filesystem::path& path, std::string_view content) {
  std::ofstream out(path, std::ios::binary);
  out << content;
}

// A folder of this test process's own, removed (with any FIFO, socket or
// device node a test made in it) when the process exits.
inline std::filesystem::path scratch() {
  struct Folder {
    std::filesystem::path path;
    Folder() : path(std::filesystem::temp_directory_path() / ("gpu-advise-cli-" + std::to_string(::getpid()))) {
      std::filesystem::create_directories(path);
    }
    Folder(const Folder&) = delete;
    Folder& operator=(const Folder&) = delete;
    ~Folder() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static const Folder folder;
  return folder.path;
}

// Runs a bash script with $GA set to the binary, in a fixed English,
// colourless environment; stdout and stderr are captured to files, standard
// input is /dev/null unless the script redirects it.
inline Result shell(const std::string& script) {
  const auto out_file = scratch() / "stdout";
  const auto err_file = scratch() / "stderr";
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setenv("GA", binary().c_str(), 1);
    ::setenv("LC_ALL", "C", 1);
    ::setenv("LANG", "C", 1);
    ::unsetenv("NO_COLOR");
    ::unsetenv("CLICOLOR_FORCE");
    ::unsetenv("COLUMNS");
    // No defaults from the machine running the tests (docs/configuration.md).
    for (const char* name : {"GPU_ADVISE_REGION", "GPU_ADVISE_LANG", "GPU_ADVISE_CURRENCY", "GPU_ADVISE_BUDGET",
                             "GPU_ADVISE_CALIBRATION"}) {
      ::unsetenv(name);
    }
    ::setenv("GPU_ADVISE_CONFIG", "", 1);
    const std::string command =
        "{ " + script + "\n} >" + quote(out_file.string()) + " 2>" + quote(err_file.string()) + " </dev/null";
    ::execl("/bin/bash", "bash", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int raw = 0;
  rusage usage{};
  ::wait4(pid, &raw, 0, &usage);
  Result r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.max_rss_kib = usage.ru_maxrss;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  r.out = slurp(out_file);
  r.err = slurp(err_file);
  return r;
}

// A fresh, empty folder for one test, in scratch().
inline std::filesystem::path folder(const std::string& name) {
  std::filesystem::path dir = scratch() / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// No temporary file of the tool's (.gpu-advise-XXXXXX) is left in `dir`.
inline bool no_leftovers(const std::filesystem::path& dir) {
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().filename().string().rfind(".gpu-advise-", 0) == 0) {
      return false;
    }
  }
  return true;
}

// The binary with these arguments (each quoted), optionally after `env` words.
inline Result run(const std::vector<std::string>& args, const std::string& env = "") {
  std::string command = env.empty() ? std::string() : "env " + env + " ";
  command += "\"$GA\"";
  for (const auto& arg : args) {
    command += " " + quote(arg);
  }
  return shell(command);
}

// Well-formed UTF-8 (RFC 3629), written independently of the library's check.
inline bool valid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = 0;
    std::uint32_t code = 0;
    if (c < 0x80) {
      ++i;
      continue;
    }
    if ((c & 0xE0) == 0xC0) {
      n = 1;
      code = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2;
      code = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      n = 3;
      code = c & 0x07;
    } else {
      return false;
    }
    for (std::size_t k = 1; k <= n; ++k) {
      if (i + k >= s.size()) {
        return false;
      }
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) {
        return false;
      }
      code = (code << 6) | (d & 0x3F);
    }
    const std::uint32_t smallest[] = {0, 0x80, 0x800, 0x10000};
    if (code < smallest[n] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) {
      return false;
    }
    i += n + 1;
  }
  return true;
}

// Valid UTF-8 with no raw control characters other than newline and tab: no
// C0, DEL or C1 controls (U+0080-U+009F), no bidirectional overrides or
// isolates (U+202A-U+202E, U+2066-U+2069), no line or paragraph separators.
inline bool printable_text(std::string_view s) {
  if (!valid_utf8(s)) {
    return false;
  }
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto u = static_cast<unsigned char>(s[i]);
    const auto next = [&](std::size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0; };
    if ((u < 0x20 && u != '\n' && u != '\t') || u == 0x7F) {
      return false;
    }
    if (u == 0xC2 && next(1) >= 0x80 && next(1) <= 0x9F) {
      return false;
    }
    if (u == 0xE2 && ((next(1) == 0x80 && next(2) >= 0xA8 && next(2) <= 0xAE) ||
                      (next(1) == 0x81 && next(2) >= 0xA6 && next(2) <= 0xA9))) {
      return false;
    }
  }
  return true;
}

}  // namespace harness
