// A streaming JSON writer for the output documents (render/json.cpp): values
// are appended to a string as they are named, with no document tree. It writes
// the bytes nlohmann-json's dump() writes for the same document (indent 2 or
// none, ensure_ascii off, invalid UTF-8 replaced by U+FFFD): doubles by the
// same Grisu2 shortest round-trip, strings with the same escapes, `{}` and
// `[]` for empty containers. tests/unit/test_json_writer.cpp holds it to that.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace gpu_advise::json_out {

class Writer {
 public:
  // pretty: nlohmann's dump(2); otherwise dump(-1), one line.
  Writer(std::string& out, bool pretty) : out_(out), pretty_(pretty) {}

  void null();
  void boolean(bool value);
  void number(double value);  // non-finite values are written as null, as nlohmann does
  void integer(std::int64_t value);
  void unsigned_integer(std::uint64_t value);
  void string(std::string_view value);

  void begin_object();
  void end_object();
  void begin_array();
  void end_array();
  // The key of the next value in the open object.
  void key(std::string_view name);

  // Any value the documents hold: bool, integers, floating point, text,
  // nullptr, std::optional of those (null when empty) and std::vector (an array).
  template <typename T>
  void value(const T& v) {
    if constexpr (std::is_same_v<T, bool>) {
      boolean(v);
    } else if constexpr (std::is_same_v<T, std::nullptr_t>) {
      null();
    } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      integer(v);
    } else if constexpr (std::is_integral_v<T>) {
      unsigned_integer(v);
    } else if constexpr (std::is_floating_point_v<T>) {
      number(static_cast<double>(v));
    } else if constexpr (std::is_convertible_v<const T&, std::string_view>) {
      string(v);
    } else if constexpr (is_optional<T>::value) {
      if (v) {
        value(*v);
      } else {
        null();
      }
    } else {
      static_assert(is_vector<T>::value, "json_out::Writer::value: no JSON form for this type");
      begin_array();
      for (const auto& item : v) {
        value(item);
      }
      end_array();
    }
  }

  template <typename T>
  void field(std::string_view name, const T& v) {
    key(name);
    value(v);
  }
  // A nested object or array under `name`, its members written by `body`.
  template <typename Body>
  void object(std::string_view name, Body&& body) {
    key(name);
    begin_object();
    body();
    end_object();
  }
  // `name`: the object `body` writes when `present`, else null.
  template <typename Body>
  void object_or_null(std::string_view name, bool present, Body&& body) {
    if (present) {
      object(name, body);
    } else {
      key(name);
      null();
    }
  }
  template <typename Body>
  void array(std::string_view name, Body&& body) {
    key(name);
    begin_array();
    body();
    end_array();
  }

 private:
  template <typename T>
  struct is_optional : std::false_type {};
  template <typename T>
  struct is_optional<std::optional<T>> : std::true_type {};
  template <typename T>
  struct is_vector : std::false_type {};
  template <typename T, typename A>
  struct is_vector<std::vector<T, A>> : std::true_type {};

  void before_value();
  void quoted(std::string_view text);  // the string with its quotes and escapes, no separator
  void open(char bracket);
  void close(char bracket);
  void newline_and_indent();

  // Nesting beyond this depth is a programming error: the documents are at most 7 deep.
  static constexpr std::size_t max_depth = 32;
  std::string& out_;
  bool pretty_;
  bool after_key_ = false;
  std::size_t depth_ = 0;
  std::array<bool, max_depth> empty_{};  // whether each open container has no member yet
};

}  // namespace gpu_advise::json_out
