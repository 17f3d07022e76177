#include "gpu_advise/text.hpp"

#include <algorithm>
#include <numeric>

namespace gpu_advise::text {

std::string to_lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; });
  return out;
}

std::string to_upper(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; });
  return out;
}

std::string normalise_name(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    if (c == ' ' || c == '-' || c == '_' || c == '\t') {
      continue;
    }
    out.push_back((c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c);
  }
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const std::size_t substitution = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitution});
      diagonal = above;
    }
  }
  return row[b.size()];
}

namespace {
template <typename Range>
std::optional<std::string> closest(std::string_view word, const Range& candidates) {
  const std::string folded = to_lower(word);
  const std::size_t limit = std::max<std::size_t>(2, folded.size() / 3);
  std::optional<std::string> best;
  std::size_t best_distance = limit + 1;
  for (const auto& candidate : candidates) {
    const std::string other = to_lower(candidate);
    // The distance is at least the difference in length: a candidate that
    // difference already rules out is not compared (a 200 KB word against
    // the catalog's ids is then linear, not 200 KB times every id).
    const std::size_t gap = folded.size() > other.size() ? folded.size() - other.size() : other.size() - folded.size();
    if (gap >= std::min(folded.size(), other.size()) || gap >= best_distance) {
      continue;
    }
    const std::size_t distance = edit_distance(folded, other);
    // A "suggestion" that shares almost nothing with the word is noise.
    if (distance >= std::min(folded.size(), other.size())) {
      continue;
    }
    if (distance < best_distance) {
      best_distance = distance;
      best = std::string(candidate);
    }
  }
  return best;
}
}  // namespace

std::optional<std::string> did_you_mean(std::string_view word, std::span<const std::string> candidates) {
  return closest(word, candidates);
}

std::optional<std::string> did_you_mean(std::string_view word, std::initializer_list<std::string_view> candidates) {
  return closest(word, candidates);
}

std::string join(std::span<const std::string> items, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) {
      out += separator;
    }
    out += items[i];
  }
  return out;
}

std::string join_or(std::span<const std::string> items) {
  if (items.size() <= 1) {
    return join(items, "");
  }
  return join(items.first(items.size() - 1), ", ") + " or " + items.back();
}

std::string_view trim(std::string_view s) {
  constexpr std::string_view space = " \t\r\n\v\f";
  const auto first = s.find_first_not_of(space);
  if (first == std::string_view::npos) {
    return {};
  }
  const auto last = s.find_last_not_of(space);
  return s.substr(first, last - first + 1);
}

std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) {
    return 1;
  }
  std::size_t length = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    low = lead == 0xE0 ? 0xA0 : 0x80;   // no overlong forms
    high = lead == 0xED ? 0x9F : 0xBF;  // no UTF-16 surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    low = lead == 0xF0 ? 0x90 : 0x80;
    high = lead == 0xF4 ? 0x8F : 0xBF;  // nothing above U+10FFFF
  } else {
    return 0;
  }
  if (i + length > s.size()) {
    return 0;
  }
  if (byte(i + 1) < low || byte(i + 1) > high) {
    return 0;
  }
  for (std::size_t k = 2; k < length; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) {
      return 0;
    }
  }
  return length;
}

namespace {

// A well-formed character at s[i] of `length` bytes that must not reach a
// terminal as it is: C0 controls but tab and newline, DEL, C1 controls
// (U+0080-U+009F: CSI is U+009B), the bidirectional overrides and isolates
// (U+202A-U+202E, U+2066-U+2069) and the line and paragraph separators.
bool unsafe(std::string_view s, std::size_t i, std::size_t length, bool allow_newline) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  if (length == 1) {
    const unsigned char c = byte(0);
    return (c < 0x20 && c != '\t' && !(allow_newline && c == '\n')) || c == 0x7F;
  }
  if (length == 2) {
    return byte(0) == 0xC2 && byte(1) <= 0x9F;
  }
  if (length == 3 && byte(0) == 0xE2) {
    const unsigned char b1 = byte(1);
    const unsigned char b2 = byte(2);
    return (b1 == 0x80 && b2 >= 0xA8 && b2 <= 0xAE) || (b1 == 0x81 && b2 >= 0xA6 && b2 <= 0xA9);
  }
  return false;
}

void append_escaped(std::string& out, unsigned char c) {
  constexpr char digits[] = "0123456789ABCDEF";
  out += "\\x";
  out += digits[c >> 4];
  out += digits[c & 0xF];
}

}  // namespace

std::size_t invalid_utf8_at(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t length = utf8_sequence(s, i);
    if (length == 0) {
      return i;
    }
    i += length;
  }
  return std::string_view::npos;
}

std::size_t control_at(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t length = std::max<std::size_t>(1, utf8_sequence(s, i));
    if (unsafe(s, i, length, true)) {
      return i;
    }
    i += length;
  }
  return std::string_view::npos;
}

std::string printable(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t length = utf8_sequence(s, i);
    if (length == 0) {
      append_escaped(out, static_cast<unsigned char>(s[i]));
      ++i;
      continue;
    }
    if (unsafe(s, i, length, false)) {
      for (std::size_t k = 0; k < length; ++k) {
        append_escaped(out, static_cast<unsigned char>(s[i + k]));
      }
    } else {
      out.append(s.substr(i, length));
    }
    i += length;
  }
  return out;
}

std::string excerpt(std::string_view s, std::size_t max_bytes) {
  std::string out;
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t length = std::max<std::size_t>(1, utf8_sequence(s, i));
    const std::string piece = printable(s.substr(i, length));
    if (out.size() + piece.size() > max_bytes) {
      break;
    }
    out += piece;
    i += length;
  }
  if (i < s.size()) {
    out += "... (" + std::to_string(s.size()) + " bytes)";
  }
  return out;
}

}  // namespace gpu_advise::text
