#include "batch.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "gpu_advise/advisor.hpp"
#include "line_reader.hpp"
#include "load/files.hpp"
#include "load/json_input.hpp"

namespace gpu_advise::cli {

LineReader::Result LineReader::next(std::string& line) {
  line.clear();
  m_length = 0;
  m_nul_offset = npos;
  bool any = false;
  bool kept = true;
  const auto finished = [&] {
    if (m_nul_offset != npos) {
      return Result::binary;
    }
    return kept ? Result::line : Result::too_long;
  };
  for (;;) {
    if (m_begin == m_end) {
      if (m_eof) {
        return any ? finished() : Result::end;
      }
      const long got = m_source(m_buffer.data(), m_buffer.size());
      if (got < 0) {
        if (errno == EINTR) {
          continue;
        }
        m_error = errno;
        return Result::read_error;
      }
      if (got == 0) {
        m_eof = true;
        continue;
      }
      m_begin = 0;
      m_end = static_cast<std::size_t>(got);
    }
    any = true;
    const char* const start = m_buffer.data() + m_begin;
    const char* const stop = m_buffer.data() + m_end;
    const char* const newline = std::find(start, stop, '\n');
    const auto chunk = static_cast<std::size_t>(newline - start);
    if (m_nul_offset == npos) {
      if (const char* nul = std::find(start, newline, '\0'); nul != newline) {
        m_nul_offset = m_offset + static_cast<std::size_t>(nul - start);
        kept = false;  // not text: nothing of it is kept
        line.clear();
      }
    }
    m_offset += chunk + (newline != stop ? 1 : 0);
    m_length += chunk;
    if (kept && m_length > max_line_bytes) {
      kept = false;
      line.clear();
    }
    if (kept) {
      if (line.size() + chunk > line.capacity()) {
        line.reserve(max_line_bytes);  // at once: growing by doubling would pass the limit
      }
      line.append(start, chunk);
    }
    m_begin += chunk;
    if (newline != stop) {
      ++m_begin;
      return finished();
    }
    // Binary data with no line break in sight (/dev/zero), or text that never
    // ends its line: no line will come of it.
    if ((m_nul_offset != npos && m_offset - m_nul_offset > max_line_bytes) || m_length > max_unbroken_bytes) {
      return Result::unbroken;
    }
  }
}

namespace {

// One JSON Lines request into Flags: keys are the flags' names (with '_' for
// '-'); values are strings, numbers, booleans or, for repeatable flags, lists.
Flags flags_from_json(const nlohmann::json& line, const Flags& defaults) {
  if (!line.is_object()) {
    throw UsageError("expected a JSON object, such as {\"params\": \"70B\", \"task\": \"lora\"}");
  }
  Flags f;
  f.catalogs = defaults.catalogs;
  f.price_files = defaults.price_files;
  f.priced_by = defaults.priced_by;
  f.calibrated = defaults.calibrated;
  f.rules = defaults.rules;
  f.lang = defaults.lang;
  f.compact = defaults.compact;  // batch --compact: every line compact, unless a line says "compact": false
  // The configured defaults (GPU_ADVISE_REGION, config.yaml) hold unless the line says otherwise.
  f.region = defaults.region;
  f.currency = defaults.currency;
  f.budget = defaults.budget;
  f.configured = defaults.configured;
  auto text = [](const nlohmann::json& value, const std::string& key) -> std::string {
    if (value.is_string()) {
      return value.get<std::string>();
    }
    if (value.is_number()) {
      return json_input::describe(value);  // whole numbers exactly, signed or not, as written
    }
    throw UsageError(fmt::format("\"{}\": expected a string or a number, found {}", key, json_input::describe(value)));
  };
  auto list = [&](const nlohmann::json& value, const std::string& key) {
    std::vector<std::string> out;
    if (value.is_array()) {
      for (const auto& item : value) {
        out.push_back(text(item, key));
      }
    } else {
      out.push_back(text(value, key));
    }
    return out;
  };
  // The keys are the flag table's batch keys (flags.hpp), so a flag added
  // there is a batch key too.
  for (const auto& item : line.items()) {
    const std::string& key = item.key();
    const nlohmann::json& value = item.value();
    if (value.is_null()) {
      continue;
    }
    const auto spec = std::find_if(flag_table().begin(), flag_table().end(),
                                   [&](const FlagSpec& s) { return !s.batch_key.empty() && s.batch_key == key; });
    if (spec == flag_table().end()) {
      std::vector<std::string> known;  // only for the did-you-mean: not on every line's path
      for (const auto& candidate : flag_table()) {
        if (!candidate.batch_key.empty()) {
          known.emplace_back(candidate.batch_key);
        }
      }
      std::string message = fmt::format("unknown field \"{}\"", text::excerpt(key));
      if (const auto suggestion = text::did_you_mean(key, known)) {
        message += fmt::format("; did you mean \"{}\"?", *suggestion);
      }
      throw UsageError(message);
    }
    struct Read {
      Flags& f;
      const nlohmann::json& value;
      const std::string& key;
      const decltype(text)& as_text;
      const decltype(list)& as_list;
      void operator()(std::string Flags::*field) const { f.*field = as_text(value, key); }
      void operator()(std::vector<std::string> Flags::*field) const { f.*field = as_list(value, key); }
      void operator()(bool Flags::*field) const {
        if (!value.is_boolean()) {
          throw UsageError(fmt::format("\"{}\": expected true or false, found {}", key, json_input::describe(value)));
        }
        f.*field = value.get<bool>();
      }
    };
    std::visit(Read{f, value, key, text, list}, spec->field);
    std::erase_if(f.configured, [&](const ConfiguredDefault& d) { return d.key == key; });
  }
  return f;
}

// The error object of a line; cannot throw (a last, fixed line if even that fails).
std::string error_line(std::size_t number, std::string_view message) noexcept {
  try {
    return render_batch_error(number, text::printable(message));
  } catch (...) {
    return fmt::format("{{\"schema_version\":{},\"line\":{},\"status\":2,\"error\":\"internal error\"}}\n",
                       json_schema_version, number);
  }
}

}  // namespace

namespace {

// The message of the exception being handled, for a line's error object.
std::string failure_message() noexcept {
  try {
    try {
      throw;
    } catch (const Error& e) {
      return e.what();
    } catch (const std::bad_alloc&) {
      return "out of memory";
    } catch (const std::exception& e) {
      return fmt::format("internal error: {}", e.what());
    } catch (...) {
      return "internal error";
    }
  } catch (...) {
    return {};  // not even the message could be made; error_line() says "internal error"
  }
}

}  // namespace

const ResultCache::Entry* ResultCache::find(const std::string& key) const {
  const auto it = m_entries.find(key);
  if (it == m_entries.end()) {
    return nullptr;
  }
  return &it->second;
}

// What an entry holds: its key twice (the map's and the order's), its answer
// and, roughly, the nodes and headers around them.
std::size_t ResultCache::footprint(const std::string& key, const Entry& entry) {
  return 2 * key.size() + entry.json_line.size() + 160;
}

void ResultCache::insert(std::string key, Entry entry) {
  const std::size_t size = footprint(key, entry);
  if (size > max_bytes / 4) {
    return;  // one huge answer would push out everything else
  }
  while (m_bytes + size > max_bytes && !m_order.empty()) {
    const auto oldest = m_entries.find(m_order.front());
    if (oldest != m_entries.end()) {
      m_bytes -= footprint(oldest->first, oldest->second);
      m_entries.erase(oldest);
    }
    m_order.pop_front();
  }
  if (m_entries.emplace(key, std::move(entry)).second) {
    m_order.push_back(std::move(key));
    m_bytes += size;
  }
}

namespace {

// Everything a line's answer depends on: its flags (the command line's
// defaults already merged in), each with its length so no two differ only in
// where one ends. The catalog, rules and presets are the run's own.
std::string cache_key(const Flags& f) {
  std::string key;
  const auto add = [&key](std::string_view text) {
    key += std::to_string(text.size());
    key += ':';
    key += text;
  };
  for (const auto& spec : flag_table()) {
    struct Add {
      const Flags& f;
      const decltype(add)& put;
      void operator()(std::string Flags::*field) const { put(f.*field); }
      void operator()(std::vector<std::string> Flags::*field) const {
        put(std::to_string((f.*field).size()));
        for (const auto& item : f.*field) {
          put(item);
        }
      }
      void operator()(bool Flags::*field) const { put(f.*field ? "1" : "0"); }
    };
    std::visit(Add{f, add}, spec.field);
  }
  for (const auto& configured : f.configured) {  // stated in the assumptions
    add(configured.key);
    add(configured.origin);
  }
  return key;
}

// The cached answer with its line number, where render_json would put it:
// right after "schema_version" (an integer, so the first comma ends it).
std::string with_line(const std::string& answer, std::size_t number) {
  const std::size_t comma = answer.find(',');
  return answer.substr(0, comma + 1) + "\"line\":" + std::to_string(std::min<std::size_t>(number, 2147483647)) +
         answer.substr(comma);
}

}  // namespace

BatchAnswer answer_batch_line(std::string_view line, std::size_t number, BatchContext& context) noexcept {
  try {
    nlohmann::json request_json;
    try {
      request_json = json_input::parse(line);
    } catch (const json_input::Failure& e) {
      if (e.byte() != std::string::npos) {
        throw UsageError(fmt::format("{} (at byte {} of the line)", e.what(), e.byte() + 1));
      }
      throw UsageError(e.what());
    }
    const Flags line_flags = flags_from_json(request_json, context.defaults);
    // A config.json is read for every line that names it (it may change, or
    // go, between lines), so such lines are never answered from the cache.
    const bool cacheable = line_flags.model_config.empty();
    std::string key = cacheable ? cache_key(line_flags) : std::string();
    if (const ResultCache::Entry* seen = cacheable ? context.cache.find(key) : nullptr) {
      return BatchAnswer{with_line(seen->json_line, number), seen->status};
    }
    const Language language =
        line_flags.lang.empty() ? context.language : parse_choice<Language>(line_flags.lang, "lang");
    const ModelShape model = resolve_model(line_flags, context.presets);
    const Request request = to_request(line_flags, context.catalog, model);
    const Report report = advise(request, model, context.catalog, context.rules);
    ResultCache::Entry answer{line_flags.compact ? render_json_compact(report, language, JsonStyle::line)
                                                 : render_json(report, language, JsonStyle::line),
                              report.anything_fits() ? 0 : 1};
    BatchAnswer result{with_line(answer.json_line, number), answer.status};
    if (cacheable) {
      context.cache.insert(std::move(key), std::move(answer));
    }
    return result;
  } catch (...) {
    const std::string message = failure_message();
    return BatchAnswer{error_line(number, message.empty() ? std::string_view("internal error") : message), 2};
  }
}

int run_batch(const Flags& flags, BatchContext& context, std::ostream& out, bool stdin_closed) {
  if (std::any_of(flags.outputs.begin(), flags.outputs.end(), [](const std::string& o) { return o != "-"; })) {
    throw UsageError("batch writes to standard output; redirect it instead of --output");
  }
  const bool from_stdin = flags.batch_file.empty() || flags.batch_file == "-";
  UniqueFd file;
  int fd = STDIN_FILENO;
  if (from_stdin) {
    if (stdin_closed) {
      throw Error("batch: cannot read standard input: it is closed");
    }
  } else {
    file = open_data_stream(flags.batch_file);  // a regular file or a pipe, streamed like standard input
    fd = file.get();
  }
  // Before the reader waits for more input, what has been answered goes out.
  LineReader::Source source = [fd, &out](char* into, std::size_t size) {
    out.flush();
    return read_some(fd, into, size);
  };
  const std::string input_name = from_stdin ? std::string("standard input") : text::printable(flags.batch_file);
  LineReader reader(std::move(source));
  int worst = 0;
  std::string line;
  std::size_t number = 0;
  for (;;) {
    const LineReader::Result result = reader.next(line);
    if (result == LineReader::Result::end) {
      break;
    }
    ++number;
    if (result == LineReader::Result::read_error) {
      throw Error(
          fmt::format("batch: cannot read {} at line {}: {}", input_name, number, std::strerror(reader.error())));
    }
    if (result == LineReader::Result::unbroken) {
      out << error_line(number, reader.nul_offset() != LineReader::npos
                                    ? fmt::format("binary data with no line break: a NUL byte at byte offset {} of "
                                                  "{} and no newline within 1 MiB, so the batch stops here",
                                                  reader.nul_offset(), input_name)
                                    : fmt::format("the line runs past {} bytes (1 GiB) with no newline: the input "
                                                  "is not JSON Lines, so the batch stops here",
                                                  LineReader::max_unbroken_bytes));
      worst = 2;
      break;
    }
    if (result == LineReader::Result::binary) {
      out << error_line(number, fmt::format("the line holds a NUL byte (byte offset {} of {}); JSON Lines is text",
                                            reader.nul_offset(), input_name));
      worst = 2;
    } else if (result == LineReader::Result::too_long) {
      out << error_line(number, fmt::format("the line is {} bytes, longer than the limit of 1 MiB ({} bytes)",
                                            reader.length(), LineReader::max_line_bytes));
      worst = 2;
    } else if (!text::trim(line).empty()) {
      const BatchAnswer answer = answer_batch_line(line, number, context);
      out << answer.json_line;
      worst = std::max(worst, answer.status);
    }
    if (!out) {
      break;  // standard output failed: run() says why
    }
  }
  out.flush();
  return worst;
}

}  // namespace gpu_advise::cli

namespace gpu_advise::cli {

int run_batch_command(const Session& session) {
  Presets presets;
  BatchContext context{session.flags, session.catalog, session.rules, presets, session.language};
  return run_batch(session.flags, context, session.output.stream(), session.output.closed().has(STDIN_FILENO));
}

}  // namespace gpu_advise::cli
