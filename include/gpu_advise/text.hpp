// Small text helpers shared by the loaders and the CLI: case folding,
// identifier normalisation and did-you-mean suggestions.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpu_advise::text {

// ASCII lower-case copy.
[[nodiscard]] std::string to_lower(std::string_view s);
[[nodiscard]] std::string to_upper(std::string_view s);

// Lower-case with ' ', '-' and '_' removed: "A100 80GB" and "a100-80gb" match.
[[nodiscard]] std::string normalise_name(std::string_view s);

// Levenshtein distance (case-sensitive; callers fold case first if they want).
[[nodiscard]] std::size_t edit_distance(std::string_view a, std::string_view b);

// The closest candidate to `word` if it is close enough to be a plausible typo
// (distance at most max(1, len/3)), else nothing.
[[nodiscard]] std::optional<std::string> did_you_mean(std::string_view word, std::span<const std::string> candidates);
[[nodiscard]] std::optional<std::string> did_you_mean(std::string_view word,
                                                      std::initializer_list<std::string_view> candidates);

// "a, b or c"
[[nodiscard]] std::string join_or(std::span<const std::string> items);
[[nodiscard]] std::string join(std::span<const std::string> items, std::string_view separator);

// Trim ASCII whitespace at both ends.
[[nodiscard]] std::string_view trim(std::string_view s);

// The byte offset of the first byte that is not part of well-formed UTF-8
// (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF), or
// npos when all of `s` is well formed.
[[nodiscard]] std::size_t invalid_utf8_at(std::string_view s);

// The length of the well-formed UTF-8 sequence at s[i] (1 for ASCII), or 0
// if there is none (the same rules as invalid_utf8_at).
[[nodiscard]] std::size_t utf8_sequence(std::string_view s, std::size_t i);

// The byte offset of the first character that must not reach a terminal as
// it is, or npos: C0 controls other than tab and newline, DEL, C1 controls,
// the bidirectional overrides and isolates, and the line and paragraph
// separators. (Ill-formed UTF-8 is invalid_utf8_at's to find.)
[[nodiscard]] std::size_t control_at(std::string_view s);

// `s` made safe to print in a one-line message: ill-formed UTF-8 bytes and
// the characters control_at() finds (newlines too) become \xNN byte by byte,
// so every message is valid UTF-8 and cannot move a terminal's cursor or
// reorder what follows, whatever the input held.
[[nodiscard]] std::string printable(std::string_view s);

// At most `max_bytes` of printable(s), cut on a character boundary, with
// "... (N bytes)" when cut: how a value the user gave is quoted in a message.
inline constexpr std::size_t excerpt_bytes = 80;
[[nodiscard]] std::string excerpt(std::string_view s, std::size_t max_bytes = excerpt_bytes);

}  // namespace gpu_advise::text
