#include "gpu_advise/text.hpp"

#include <algorithm>
#include <numeric>

namespace gpu_advise::text {

std::string to_lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](char c) {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  });
  return out;
}

std::string to_upper(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](char c) {
    return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  });
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

std::optional<std::string> did_you_mean(std::string_view word,
                                        std::initializer_list<std::string_view> candidates) {
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

}  // namespace gpu_advise::text
