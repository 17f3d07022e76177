#include "load/json_input.hpp"

#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include "gpu_advise/text.hpp"

namespace gpu_advise::json_input {

namespace {

using nlohmann::json;

// nlohmann's message without its "[json.exception.parse_error.101] " prefix,
// cut to a printable excerpt (its "last read" can quote a whole long token).
std::string library_message(const json::exception& e) {
  std::string_view message = e.what();
  if (const auto close = message.find("] "); message.rfind("[json.exception.", 0) == 0 && close != std::string::npos) {
    message.remove_prefix(close + 2);
  }
  // "parse error at line 4, column 0: ..." : the callers give the position
  // themselves (file:line:column and the byte offset), counted the same way.
  std::string cleaned(message);
  if (const auto at = cleaned.find(" at line "); at != std::string::npos) {
    if (const auto colon = cleaned.find(": ", at); colon != std::string::npos) {
      cleaned.erase(at, colon - at);
    }
  }
  return text::excerpt(cleaned, 240);
}

// The offset of the bracket that opens level max_depth + 1, found by a scan
// that skips strings (run only once the parser has refused the document).
std::size_t too_deep_at(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) {
        return i;
      }
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return std::string::npos;
}

}  // namespace

json parse(std::string_view text) {
  // The keys seen in each object still open; the parser itself is iterative,
  // and this callback stops it at the depth limit before the document grows.
  std::vector<std::unordered_set<std::string>> open_objects;
  const json::parser_callback_t check = [&](int depth, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (depth >= max_depth) {
          throw Failure(fmt::format("the document is nested more than {} levels deep", max_depth), too_deep_at(text));
        }
        if (event == json::parse_event_t::object_start) {
          open_objects.emplace_back();
        }
        break;
      case json::parse_event_t::object_end:
        if (!open_objects.empty()) {
          open_objects.pop_back();
        }
        break;
      case json::parse_event_t::key:
        if (!open_objects.empty() && parsed.is_string()) {
          const auto& key = parsed.get_ref<const std::string&>();
          if (!open_objects.back().insert(key).second) {
            throw Failure(
                fmt::format("duplicate key \"{}\": each key may appear once in an object", text::excerpt(key)),
                std::string::npos, key);
          }
        }
        break;
      default: break;
    }
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), check);
  } catch (const json::parse_error& e) {
    throw Failure(fmt::format("not valid JSON: {}", library_message(e)), e.byte > 0 ? e.byte - 1 : 0);
  } catch (const json::exception& e) {
    // Found by fuzzing: a number too large for a double ("1e70500000") is an
    // out_of_range, not a parse_error.
    throw Failure(fmt::format("not valid JSON: {}", library_message(e)), std::string::npos);
  }
}

std::string describe(const json& value) {
  switch (value.type()) {
    case json::value_t::string: return fmt::format("\"{}\"", text::excerpt(value.get_ref<const std::string&>()));
    case json::value_t::number_unsigned: return std::to_string(value.get<std::uint64_t>());
    case json::value_t::number_integer: return std::to_string(value.get<std::int64_t>());
    case json::value_t::number_float: return fmt::format("{}", value.get<double>());
    case json::value_t::boolean: return value.get<bool>() ? "true" : "false";
    case json::value_t::null: return "null";
    case json::value_t::array: return fmt::format("a list of {} items", value.size());
    case json::value_t::object: return fmt::format("an object of {} keys", value.size());
    case json::value_t::binary:
    case json::value_t::discarded: break;
  }
  return "a value";
}

}  // namespace gpu_advise::json_input
