#include "load/yaml_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <yaml-cpp/eventhandler.h>

#include <fmt/format.h>

namespace gpu_advise::yaml {

namespace {

std::string describe_kind(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Null: return "empty";
    case YAML::NodeType::Scalar: return fmt::format("'{}'", text::excerpt(node.Scalar()));
    case YAML::NodeType::Undefined: return "missing";
  }
  return "?";
}

// "tag:yaml.org,2002:str" as it is written, "!!str".
std::string short_tag(std::string_view tag) {
  constexpr std::string_view core = "tag:yaml.org,2002:";
  if (tag.substr(0, core.size()) == core) {
    return "!!" + text::excerpt(tag.substr(core.size()));
  }
  return text::excerpt(tag);
}

}  // namespace

void Diagnostics::error(const YAML::Mark& mark, std::string key_path, std::string message) {
  const bool known = !mark.is_null() && mark.line >= 0;
  m_list.push_back(Diagnostic{m_source, known ? mark.line + 1 : 0, known ? mark.column + 1 : 0, std::move(key_path),
                              std::move(message)});
}

void Diagnostics::error(const YAML::Node& node, std::string key_path, std::string message) {
  error(node.IsDefined() ? node.Mark() : YAML::Mark::null_mark(), std::move(key_path), std::move(message));
}

void Diagnostics::throw_if_any() {
  if (m_list.size() > max_diagnostics) {
    const std::size_t dropped = m_list.size() - max_diagnostics;
    m_list.resize(max_diagnostics);
    m_list.push_back(Diagnostic{m_source, 0, 0, "", fmt::format("... and {} more problems", dropped)});
  }
  if (!m_list.empty()) {
    throw DataError(take());
  }
}

namespace {

// Walks the document as its readers will, aliases expanded, and stops at the
// limits: an anchor-and-alias "billion laughs" or a deeply nested document is
// refused before anything iterates it.
bool within_limits(const YAML::Node& node, std::size_t& visited, int depth, Diagnostics& diagnostics) {
  if (++visited > max_yaml_nodes) {
    diagnostics.error(node, "",
                      fmt::format("the document is too large: more than {} values once anchors and aliases are "
                                  "expanded",
                                  max_yaml_nodes));
    return false;
  }
  if (depth > max_yaml_depth) {
    diagnostics.error(node, "", fmt::format("the document is nested more than {} levels deep", max_yaml_depth));
    return false;
  }
  if (node.IsMap()) {
    for (const auto& pair : node) {
      if (!within_limits(pair.first, visited, depth + 1, diagnostics) ||
          !within_limits(pair.second, visited, depth + 1, diagnostics)) {
        return false;
      }
    }
  } else if (node.IsSequence()) {
    for (const auto& item : node) {
      if (!within_limits(item, visited, depth + 1, diagnostics)) {
        return false;
      }
    }
  }
  return true;
}

// Records where each document starts; ignores the rest.
class DocumentStarts : public YAML::EventHandler {
 public:
  std::vector<YAML::Mark> marks;
  void OnDocumentStart(const YAML::Mark& mark) override { marks.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// The first line of a text that yaml-cpp read as an empty document but that
// holds more than comments, document markers and a null ("~", "null"):
// yaml-cpp reads ",a: b" as nothing at all, which would pass as an empty file.
std::optional<YAML::Mark> stray_text(std::string_view text) {
  int line = 0;
  for (std::size_t start = 0; start < text.size(); ++line) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string_view row = text::trim(text.substr(start, end - start));
    if (const std::size_t hash = row.find('#'); hash == 0) {
      row = {};
    }
    if (!row.empty() && row != "---" && row != "..." && row != "~" && row != "null" && row != "Null" && row != "NULL") {
      YAML::Mark mark;
      mark.line = line;
      mark.pos = static_cast<int>(start);
      return mark;
    }
    start = end + 1;
  }
  return std::nullopt;
}

// Where a second document starts (its '---'), if the text holds one; a
// syntax error in it throws, as in the first. Not YAML::LoadAll: on some
// input (",a: b") it "starts" a new empty document at the same place forever
// and grows until memory runs out, so at most two are read, and a second one
// that starts where the first did is none.
std::optional<YAML::Mark> second_document(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts starts;
  for (int i = 0; i < 2 && parser.HandleNextDocument(starts); ++i) {
  }
  if (starts.marks.size() >= 2 && starts.marks[1].pos > starts.marks[0].pos) {
    return starts.marks[1];
  }
  return std::nullopt;
}

}  // namespace

YAML::Node parse(std::string_view text, Diagnostics& diagnostics) {
  if (text.find('\0') != std::string_view::npos) {
    diagnostics.error(YAML::Mark::null_mark(), "", "not a text file: it contains NUL bytes");
    return YAML::Node(YAML::NodeType::Undefined);
  }
  if (const std::size_t bad = text::invalid_utf8_at(text); bad != std::string_view::npos) {
    const std::string_view before = text.substr(0, bad);
    const auto line_start = before.rfind('\n');
    YAML::Mark mark;
    mark.pos = static_cast<int>(bad);
    mark.line = static_cast<int>(std::count(before.begin(), before.end(), '\n'));
    mark.column = static_cast<int>(bad - (line_start == std::string_view::npos ? 0 : line_start + 1));
    diagnostics.error(mark, "",
                      fmt::format("not valid UTF-8 at byte offset {} (byte 0x{:02X}); data files are UTF-8 text", bad,
                                  static_cast<unsigned char>(text[bad])));
    return YAML::Node(YAML::NodeType::Undefined);
  }
  try {
    const std::string whole(text);
    YAML::Node document = YAML::Load(whole);
    // A file holds one document: a second is refused, never skipped unread
    // (a second '---' would otherwise hide what follows it).
    if (const auto second = second_document(whole)) {
      diagnostics.error(*second, "",
                        "a second YAML document starts here ('---'): a file holds one document; join them into "
                        "one, or remove the '---' line");
      return YAML::Node(YAML::NodeType::Undefined);
    }
    if (document.IsNull()) {
      if (const auto stray = stray_text(whole)) {
        diagnostics.error(*stray, "",
                          "not valid YAML: the parser read nothing from this text (a stray ',' or other flow "
                          "character before the first key?); the file would count as empty");
        return YAML::Node(YAML::NodeType::Undefined);
      }
    }
    std::size_t visited = 0;
    if (!within_limits(document, visited, 0, diagnostics)) {
      return YAML::Node(YAML::NodeType::Undefined);
    }
    return document;
  } catch (const YAML::Exception& e) {
    // yaml-cpp quotes the offending byte raw (an escape's first byte of a
    // multibyte character): made printable, the message stays valid UTF-8.
    diagnostics.error(e.mark, "", fmt::format("not valid YAML: {}", text::printable(e.msg)));
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

int line_of(const YAML::Node& node) { return node.IsDefined() ? node.Mark().line + 1 : 0; }

bool is_partial_date(std::string_view text) {
  auto digits = [&](std::size_t from, std::size_t count) {
    if (text.size() < from + count) {
      return -1;
    }
    int value = 0;
    for (std::size_t i = from; i < from + count; ++i) {
      if (text[i] < '0' || text[i] > '9') {
        return -1;
      }
      value = value * 10 + (text[i] - '0');
    }
    return value;
  };
  const int year = digits(0, 4);
  if (year < 1990 || year > 2100) {
    return false;
  }
  if (text.size() == 4) {
    return true;
  }
  if (text.size() < 7 || text[4] != '-') {
    return false;
  }
  const int month = digits(5, 2);
  if (month < 1 || month > 12) {
    return false;
  }
  if (text.size() == 7) {
    return true;
  }
  if (text.size() != 10 || text[7] != '-') {
    return false;
  }
  const int day = digits(8, 2);
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  const int days[] = {31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return day >= 1 && day <= days[month - 1];
}

std::optional<double> read_number(Diagnostics& diagnostics, const YAML::Node& value, const std::string& path,
                                  Bounds bounds) {
  if (!value.IsScalar()) {
    diagnostics.error(value, path, fmt::format("expected a number, found {}", describe_kind(value)));
    return std::nullopt;
  }
  const std::string& raw = value.Scalar();
  if (value.Tag() == "!") {  // a quoted scalar
    diagnostics.error(value, path,
                      fmt::format("expected a number, found the quoted string \"{}\"", text::excerpt(raw)));
    return std::nullopt;
  }
  // A plain scalar is "?"; an explicit tag may only confirm that it is a number.
  if (value.Tag() != "?" && value.Tag() != "tag:yaml.org,2002:int" && value.Tag() != "tag:yaml.org,2002:float") {
    diagnostics.error(value, path,
                      fmt::format("expected a number, found '{}' tagged {}; a tag may not change a number's type",
                                  text::excerpt(raw), short_tag(value.Tag())));
    return std::nullopt;
  }
  double number = 0;
  const char* const begin = raw.data();
  const char* const end = begin + raw.size();
  const bool plain = !raw.empty() && (raw[0] == '-' || raw[0] == '.' || (raw[0] >= '0' && raw[0] <= '9'));
  const auto [ptr, ec] =
      plain ? std::from_chars(begin, end, number) : std::from_chars_result{begin, std::errc::invalid_argument};
  if (ec == std::errc::result_out_of_range) {
    diagnostics.error(value, path, fmt::format("'{}' is out of range", text::excerpt(raw)));
    return std::nullopt;
  }
  if (ec != std::errc{} || ptr != end || !std::isfinite(number)) {
    diagnostics.error(value, path, fmt::format("expected a number, found '{}'", text::excerpt(raw)));
    return std::nullopt;
  }
  if (number < 0 && bounds.min >= 0) {  // a signed figure says so with a negative minimum
    diagnostics.error(value, path, fmt::format("must not be negative, found {}", text::excerpt(raw)));
    return std::nullopt;
  }
  if (bounds.positive && number == 0) {
    diagnostics.error(value, path, "must be greater than 0");
    return std::nullopt;
  }
  if (number < bounds.min || number > bounds.max) {
    diagnostics.error(
        value, path,
        fmt::format("{} is outside the plausible range {:g} to {:g}", text::excerpt(raw), bounds.min, bounds.max));
    return std::nullopt;
  }
  return number;
}

MapReader::MapReader(Diagnostics& diagnostics, const YAML::Node& node, std::string path)
    : m_diagnostics(diagnostics), m_node(node), m_path(std::move(path)) {
  if (!node.IsDefined()) {
    return;
  }
  if (!node.IsMap()) {
    m_diagnostics.error(node, m_path.empty() ? "(document)" : m_path,
                        fmt::format("expected a mapping of keys to values, found {}", describe_kind(node)));
    return;
  }
  m_valid = true;
}

std::string MapReader::child_path(std::string_view key) const {
  return m_path.empty() ? std::string(key) : fmt::format("{}.{}", m_path, key);
}

std::optional<YAML::Node> MapReader::node(std::string_view key, Presence presence) {
  m_declared.emplace(key);
  if (!m_valid) {
    return std::nullopt;
  }
  for (const auto& pair : m_node) {
    if (pair.first.IsScalar() && pair.first.Scalar() == key) {
      if (pair.second.IsNull()) {
        if (presence == Presence::required) {
          m_diagnostics.error(pair.first, child_path(key), "has no value");
        }
        return std::nullopt;
      }
      return pair.second;
    }
  }
  if (presence == Presence::required) {
    std::vector<std::string> present;
    for (const auto& pair : m_node) {
      if (pair.first.IsScalar()) {
        present.push_back(pair.first.Scalar());
      }
    }
    std::string message = "required key is missing";
    if (const auto typo = text::did_you_mean(key, present)) {
      message += fmt::format(" (is '{}' a misspelling of it?)", *typo);
    }
    m_diagnostics.error(m_node, child_path(key), std::move(message));
  }
  return std::nullopt;
}

std::optional<std::string> MapReader::scalar(const YAML::Node& value, const std::string& path, Lines lines) {
  if (!value.IsScalar()) {
    m_diagnostics.error(value, path, fmt::format("expected a single value, found {}", describe_kind(value)));
    return std::nullopt;
  }
  // Text is shown in terminals and reports: a control character (an escape
  // sequence, a carriage return) is refused, like invalid UTF-8 (parse()).
  const std::string& text = value.Scalar();
  if (const std::size_t at = text::control_at(text); at != std::string::npos) {
    const auto lead = static_cast<unsigned char>(text[at]);
    const std::size_t length = std::min<std::size_t>(text.size() - at, lead < 0x80 ? 1 : lead < 0xE0 ? 2 : 3);
    m_diagnostics.error(value, path,
                        fmt::format("'{}' holds the control character {}; text here must be printable",
                                    text::excerpt(text), text::printable(std::string_view(text).substr(at, length))));
    return std::nullopt;
  }
  if (const std::size_t at = text.find_first_of("\n\t"); lines == Lines::one && at != std::string::npos) {
    m_diagnostics.error(value, path,
                        fmt::format("'{}' holds a {}; this text is shown on one line (a folded '>' block keeps "
                                    "its last line break: write '>-')",
                                    text::excerpt(text), text[at] == '\t' ? "tab" : "line break"));
    return std::nullopt;
  }
  return text;
}

std::optional<std::string> MapReader::string(std::string_view key, Presence presence, Lines lines) {
  const auto value = node(key, presence);
  if (!value) {
    return std::nullopt;
  }
  auto text = scalar(*value, child_path(key), lines);
  if (text && text->empty() && presence == Presence::required) {
    m_diagnostics.error(*value, child_path(key), "must not be empty");
    return std::nullopt;
  }
  return text;
}

std::optional<double> MapReader::number(std::string_view key, Presence presence, Bounds bounds) {
  const auto value = node(key, presence);
  if (!value) {
    return std::nullopt;
  }
  return read_number(m_diagnostics, *value, child_path(key), bounds);
}

std::optional<std::int64_t> MapReader::integer(std::string_view key, Presence presence, std::int64_t min,
                                               std::int64_t max) {
  const auto value = node(key, presence);
  if (!value) {
    return std::nullopt;
  }
  const auto number = read_number(m_diagnostics, *value, child_path(key),
                                  Bounds{static_cast<double>(min), static_cast<double>(max), min > 0});
  if (!number) {
    return std::nullopt;
  }
  if (std::floor(*number) != *number) {
    m_diagnostics.error(*value, child_path(key), fmt::format("expected a whole number, found {}", value->Scalar()));
    return std::nullopt;
  }
  return static_cast<std::int64_t>(*number);
}

std::optional<std::vector<std::string>> MapReader::string_list(std::string_view key, Presence presence) {
  const auto value = node(key, presence);
  if (!value) {
    return std::nullopt;
  }
  const auto path = child_path(key);
  if (!value->IsSequence()) {
    m_diagnostics.error(*value, path, fmt::format("expected a list of strings, found {}", describe_kind(*value)));
    return std::nullopt;
  }
  std::vector<std::string> out;
  std::size_t index = 0;
  for (const auto& item : *value) {
    const auto item_path = fmt::format("{}[{}]", path, index++);
    if (auto text = scalar(item, item_path)) {
      if (text->empty()) {
        m_diagnostics.error(item, item_path, "must not be empty");
      } else {
        out.push_back(std::move(*text));
      }
    }
  }
  return out;
}

void MapReader::report_bad_enum(const YAML::Node& value, const std::string& path, const std::string& raw,
                                const std::vector<std::string>& valid) {
  std::string message = fmt::format("'{}' is not valid; expected {}", text::excerpt(raw), text::join_or(valid));
  if (const auto suggestion = text::did_you_mean(raw, valid)) {
    message += fmt::format(" (did you mean '{}'?)", *suggestion);
  }
  m_diagnostics.error(value, path, std::move(message));
}

void MapReader::finish() {
  if (!m_valid) {
    return;
  }
  std::map<std::string, int> first_line;
  const std::vector<std::string> declared(m_declared.begin(), m_declared.end());
  for (const auto& pair : m_node) {
    if (!pair.first.IsScalar()) {
      m_diagnostics.error(pair.first, m_path, "keys must be plain names");
      continue;
    }
    const std::string& key = pair.first.Scalar();
    const auto [it, inserted] = first_line.emplace(key, line_of(pair.first));
    if (!inserted) {
      m_diagnostics.error(pair.first, child_path(key),
                          fmt::format("duplicate key (first defined at line {})", it->second));
      continue;
    }
    if (m_declared.find(key) == m_declared.end()) {
      std::string message = "unknown key";
      if (const auto suggestion = text::did_you_mean(key, declared)) {
        message += fmt::format("; did you mean '{}'?", *suggestion);
      } else {
        message += fmt::format("; valid keys here: {}", text::join(declared, ", "));
      }
      m_diagnostics.error(pair.first, child_path(key), std::move(message));
    }
  }
}

}  // namespace gpu_advise::yaml
