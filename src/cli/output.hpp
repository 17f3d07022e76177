// Where a command's result goes and in what form: every --output (standard
// output when none), each in --format or its extension's format, with colour
// and width for terminals; standard output written through write(2) so that a
// failed write is an error; the messages on standard error.
#pragma once

#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "flags.hpp"
#include "gpu_advise/render.hpp"

namespace gpu_advise::cli {

// The standard descriptors that were closed when the process started.
struct Closed {
  std::vector<int> descriptors;
  [[nodiscard]] bool has(int fd) const;
};

// A closed standard descriptor is taken by /dev/null, so no file the run opens
// lands on it (and is written to as if it were standard output). Returns
// whether it was closed.
bool reserve_if_closed(int fd);

// One place the result goes: a file (or device), or "-" for standard output.
struct Destination {
  std::string name;
  OutputFormat format = OutputFormat::text;
  [[nodiscard]] bool to_file() const { return name != "-"; }
};

// Every --output (standard output when none), each in --format or, without
// one, in the format of its extension (`otherwise` for any other: text, or
// batch's JSON).
[[nodiscard]] std::vector<Destination> destinations(const Flags& flags, OutputFormat otherwise);

// The formats `command` writes, and the flags that shape one format
// (--compact, --prepared-for/--prepared-by); anything else is an error that
// says which.
void check_formats(Command command, const Flags& flags, const std::vector<Destination>& destinations);

// The result written to each destination in its format and style.
class Output {
 public:
  Output(std::vector<Destination> places, std::string color, std::ostream& out, const Closed& closed)
      : m_places(std::move(places)), m_color(std::move(color)), m_out(out), m_closed(closed) {}

  [[nodiscard]] const std::vector<Destination>& places() const { return m_places; }
  [[nodiscard]] const Closed& closed() const { return m_closed; }
  [[nodiscard]] std::ostream& stream() const { return m_out; }

  // `render(format, style)` makes the content of each destination. All or
  // nothing: every content is made and every file written to its temporary
  // before anything is put in place (docs/errors.md, "Several outputs").
  template <typename Render>
  void write(Render&& render) const {
    std::vector<std::string> contents;
    contents.reserve(m_places.size());
    for (const auto& destination : m_places) {
      contents.push_back(render(destination.format, style_for(destination)));
    }
    emit(contents);
  }

 private:
  [[nodiscard]] TextStyle style_for(const Destination& destination) const;
  void emit(const std::vector<std::string>& contents) const;

  std::vector<Destination> m_places;
  std::string m_color;  // --color as typed
  std::ostream& m_out;
  const Closed& m_closed;
};

// The JSON or, for any other format, the text of a listing.
template <typename Json, typename Text>
std::string json_or_text(OutputFormat format, Json&& json, Text&& text) {
  return format == OutputFormat::json ? json() : text();
}

// The day a report is dated: SOURCE_DATE_EPOCH (reproducible builds) or today, UTC.
[[nodiscard]] std::string report_date();

// "gpu-advise: error: ..." with the message made printable UTF-8, whatever the input held.
void print_error(std::ostream& err, std::string_view message);

// Standard output through write(2), keeping the errno of the first failure,
// so that a full disk, a closed descriptor or an I/O error is reported
// instead of lost (iostreams only say that something failed).
class StdoutBuffer : public std::streambuf {
 public:
  explicit StdoutBuffer(bool closed) : m_closed(closed) { setp(m_buffer, m_buffer + sizeof m_buffer); }
  StdoutBuffer(const StdoutBuffer&) = delete;
  StdoutBuffer& operator=(const StdoutBuffer&) = delete;
  ~StdoutBuffer() override { (void)drain(); }

  // The errno of the first failed write; 0 if every write succeeded.
  [[nodiscard]] int error() const noexcept { return m_error; }

 protected:
  int_type overflow(int_type c) override;
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain() noexcept;

  char m_buffer[65536];
  bool m_closed;
  int m_error = 0;
};

}  // namespace gpu_advise::cli
