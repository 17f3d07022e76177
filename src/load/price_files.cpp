// Price files (prices.hpp; the formats are docs/prices.md): SkyPilot catalog
// files and plain quotes files, read into quotes for the catalog's cards, and
// the catalog with those quotes in place of its own rent quotes.
#include "gpu_advise/prices.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>

#include "gpu_advise/error.hpp"
#include "gpu_advise/text.hpp"
#include "load/csv_reader.hpp"
#include "load/files.hpp"
#include "load/price_names.hpp"

namespace gpu_advise {

std::span<const EnumName<PriceFileFormat>> names(PriceFileFormat) {
  static constexpr EnumName<PriceFileFormat> table[] = {{PriceFileFormat::skypilot, "skypilot"},
                                                        {PriceFileFormat::quotes, "quotes"}};
  return table;
}

using namespace price_values;

namespace {

constexpr std::size_t max_diagnostics = 50;  // as the YAML loaders
constexpr int max_gpus_per_instance = 1024;
constexpr std::size_t max_provider_chars = 64;
constexpr std::size_t instance_types_shown = 4;  // per accelerator name in a summary's names
constexpr std::size_t names_kept = 8;            // accelerator names per card in a summary
constexpr std::size_t unknown_kept = 20;         // unknown accelerator names in a summary
// A memory figure and a card's label agree within this share of the label.

// ------------------------------------------------------------ problems

// One file's problems: the first max_diagnostics, then a count of the rest.
class Problems {
 public:
  explicit Problems(std::string file) : m_file(std::move(file)) {}

  void add(int line, int column, std::string_view key, std::string message) {
    if (m_list.size() < max_diagnostics) {
      m_list.push_back(Diagnostic{m_file, line, column, std::string(key), std::move(message)});
    } else {
      ++m_dropped;
    }
  }
  void at(const csv::Field& field, std::string_view key, std::string message) {
    add(field.line, field.column, key, std::move(message));
  }
  [[nodiscard]] bool empty() const noexcept { return m_list.empty(); }
  void throw_if_any() {
    if (m_dropped > 0) {
      m_list.push_back(Diagnostic{m_file, 0, 0, "", fmt::format("... and {} more problems", m_dropped)});
    }
    if (!m_list.empty()) {
      throw DataError(std::move(m_list));
    }
  }

 private:
  std::string m_file;
  std::vector<Diagnostic> m_list;
  std::size_t m_dropped = 0;
};

// The records after the header; malformed ones are reported and skipped.
class Rows {
 public:
  Rows(csv::Reader& reader, Problems& problems) : m_reader(reader), m_problems(problems) {}

  bool next(csv::Record& record) {
    csv::Problem problem;
    for (;;) {
      switch (m_reader.next(record, problem)) {
        case csv::Reader::Status::record: return true;
        case csv::Reader::Status::end: return false;
        case csv::Reader::Status::bad: m_problems.add(problem.line, problem.column, "", problem.message); break;
      }
    }
  }

 private:
  csv::Reader& m_reader;
  Problems& m_problems;
};

// ------------------------------------------------------------ summaries

// An open-addressing set of hashes, each with a value (linear probing, grown
// at half full), for the repeats and counts of a file of a million rows: the
// node-based tables spent more time allocating and chasing nodes than the
// reader spent reading.
class HashSlots {
 public:
  // Enters (hash, value) unless an entry of that hash is one `same(value)`
  // accepts; whether it was entered.
  template <typename Same>
  bool insert(std::size_t hash, std::size_t value, Same same) {
    return find_or_insert(hash, value, same).second;
  }
  // The value of the entry of that hash `same` accepts, else `value`, entered;
  // and whether it was entered.
  template <typename Same>
  std::pair<std::size_t, bool> find_or_insert(std::size_t hash, std::size_t value, Same same) {
    if (2 * (m_count + 1) > m_slots.size()) {
      grow();
    }
    const std::size_t mask = m_slots.size() - 1;
    for (std::size_t at = hash & mask;; at = (at + 1) & mask) {
      Slot& slot = m_slots[at];
      if (slot.value_plus_one == 0) {
        slot = {hash, value + 1};
        ++m_count;
        return {value, true};
      }
      if (slot.hash == hash && same(slot.value_plus_one - 1)) {
        return {slot.value_plus_one - 1, false};
      }
    }
  }
  [[nodiscard]] std::size_t size() const noexcept { return m_count; }
  [[nodiscard]] bool empty() const noexcept { return m_count == 0; }

 private:
  struct Slot {
    std::size_t hash = 0;
    std::size_t value_plus_one = 0;  // 0: empty
  };
  void grow() {
    std::vector<Slot> old(std::max<std::size_t>(16, 2 * m_slots.size()));
    old.swap(m_slots);
    const std::size_t mask = m_slots.size() - 1;
    for (const Slot& slot : old) {
      if (slot.value_plus_one != 0) {
        std::size_t at = slot.hash & mask;
        while (m_slots[at].value_plus_one != 0) {
          at = (at + 1) & mask;
        }
        m_slots[at] = slot;
      }
    }
  }
  std::vector<Slot> m_slots;  // a power of 2 of them
  std::size_t m_count = 0;
};

class Collector {
 public:
  explicit Collector(PriceFileSummary summary) : m_summary(std::move(summary)) {}

  // The rows the file may hold (its lines). Once 4,096 quotes are taken,
  // room is made for as many more as the rows read so far promise for the
  // rest, so a large file's quotes are written once, not moved at each
  // doubling; a file of CPU rows or unknown names reserves nothing (2 per
  // line would be 900 MB for 16 MiB of short lines).
  void expect_rows(std::size_t rows) { m_rows_expected = rows; }

  PriceFileSummary& summary() noexcept { return m_summary; }

  // Takes a quote unless the same one is there already; `name` is the accelerator as written.
  void add(std::string gpu_id, PriceQuote quote, std::string_view name) {
    // The same quote twice is taken once: a hash of what makes it the same,
    // then an exact comparison with the quotes of that hash (no key string
    // made per row: a 16 MiB file has 600,000 quotes).
    const auto same = [&](std::size_t index) { return same_quote(m_quotes[index], gpu_id, quote); };
    if (!m_seen.insert(identity_hash(gpu_id, quote), m_quotes.size(), same)) {
      return;
    }
    if (m_quotes.size() == 4096 && m_summary.rows > 0 && m_rows_expected > m_summary.rows) {
      const double per_row = static_cast<double>(m_quotes.size()) / static_cast<double>(m_summary.rows);
      m_quotes.reserve(static_cast<std::size_t>(per_row * static_cast<double>(m_rows_expected) * 1.05) + 1);
    }
    auto [at, fresh] = m_card_index.try_emplace(gpu_id, m_summary.cards.size());
    if (fresh) {
      m_summary.cards.push_back(PriceFileSummary::Card{gpu_id, 0, quote.low_usd, quote.high_usd, {}, {}});
      m_names.emplace_back();
    }
    auto& card = m_summary.cards[at->second];
    ++card.quotes;
    card.low_usd = std::min(card.low_usd, quote.low_usd);
    card.high_usd = std::max(card.high_usd, quote.high_usd);
    if (quote.gpus_per_instance > 0) {
      card.shapes.push_back(quote.gpus_per_instance);
    }
    note_name(at->second, name, quote.instance_type);
    m_quotes.push_back(ImportedQuote{std::move(gpu_id), std::move(quote)});
  }

  // A row for an accelerator the catalog does not know: counted; the first
  // unknown_kept names kept with their rows (hash lookups: a file of a million
  // distinct names is read in linear time).
  // (A name past the kept ones is told apart by its 64-bit hash alone: two
  // with one hash would count as one name, at odds of ~1e-8 for a 16 MiB
  // file of distinct names; the rows are counted exactly.)
  void unknown(std::string_view name) {
    ++m_summary.unknown_rows;
    auto& kept = m_summary.unknown;
    const auto [index, fresh] =
        m_unknown_index.find_or_insert(std::hash<std::string_view>{}(name), m_summary.unknown_names,
                                       [&](std::size_t i) { return i >= kept.size() || m_unknown_raw[i] == name; });
    if (fresh) {
      ++m_summary.unknown_names;
      if (kept.size() < unknown_kept) {
        kept.push_back(PriceFileSummary::Unknown{text::excerpt(name), 0});
        m_unknown_raw.emplace_back(name);
      }
    }
    if (index < kept.size()) {
      ++kept[index].rows;
    }
  }

  PriceBook finish() && {
    for (std::size_t i = 0; i < m_summary.cards.size(); ++i) {
      auto& card = m_summary.cards[i];
      std::sort(card.shapes.begin(), card.shapes.end());
      card.shapes.erase(std::unique(card.shapes.begin(), card.shapes.end()), card.shapes.end());
      for (const auto& named : m_names[i].kept) {
        if (named.instances_seen.empty()) {
          card.names.push_back(named.name);
          continue;
        }
        std::string list = text::join(named.instances, ", ");
        if (named.instances_seen.size() > named.instances.size()) {
          list += fmt::format(" and {} more", named.instances_seen.size() - named.instances.size());
        }
        card.names.push_back(fmt::format("{} ({})", named.name, list));
      }
      card.more_names = m_names[i].seen.size() - m_names[i].kept.size();
    }
    m_summary.quotes = m_quotes.size();
    PriceBook book;
    book.quotes = std::move(m_quotes);
    book.files.push_back(std::move(m_summary));
    return book;
  }

 private:
  PriceFileSummary m_summary;
  std::vector<ImportedQuote> m_quotes;
  // One accelerator name as written, with its first instance types and the
  // count of all of them.
  struct Named {
    std::string name;
    std::vector<std::string> instances;  // the first instance_types_shown
    // Every one's hash, to count them (a count shown, "and 12 more"; two
    // names with one 64-bit hash would count as one, at odds of ~1e-9 for a
    // 16 MiB file of distinct names).
    HashSlots instances_seen;
  };
  // A card's names: the first names_kept, and every name seen, to count.
  struct Names {
    std::vector<Named> kept;
    std::unordered_map<std::string, std::size_t> seen;  // name -> index in kept, or kept's size limit past it
  };

  static std::size_t identity_hash(const std::string& gpu_id, const PriceQuote& q) {
    std::size_t h = 0;
    const auto mix = [&h](std::size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
    for (const std::string* text : {&gpu_id, &q.provider, &q.instance_type, &q.location, &q.date}) {
      mix(std::hash<std::string>{}(*text));
    }
    mix(static_cast<std::size_t>(q.kind) * 16 + static_cast<std::size_t>(q.region));
    mix(std::hash<double>{}(q.low_usd));
    mix(std::hash<double>{}(q.high_usd));
    return h;
  }
  static bool same_quote(const ImportedQuote& taken, const std::string& gpu_id, const PriceQuote& q) {
    const PriceQuote& t = taken.quote;
    return taken.gpu_id == gpu_id && t.provider == q.provider && t.instance_type == q.instance_type &&
           t.location == q.location && t.kind == q.kind && t.region == q.region && t.date == q.date &&
           t.low_usd == q.low_usd && t.high_usd == q.high_usd;
  }

  void note_name(std::size_t card, std::string_view name, const std::string& instance_type) {
    Names& names = m_names[card];
    std::string shown = text::excerpt(name);
    const auto [at, fresh] = names.seen.try_emplace(std::move(shown), names.kept.size());
    if (fresh) {
      if (names.kept.size() >= names_kept) {
        at->second = names_kept;  // counted, not kept
        return;
      }
      names.kept.push_back(Named{at->first, {}, {}});
    }
    if (at->second >= names.kept.size() || instance_type.empty()) {
      return;
    }
    Named& named = names.kept[at->second];
    if (named.instances_seen.insert(std::hash<std::string>{}(instance_type), 0, [](std::size_t) { return true; }) &&
        named.instances.size() < instance_types_shown) {
      named.instances.push_back(instance_type);
    }
  }

  std::map<std::string, std::size_t> m_card_index;
  std::vector<Names> m_names;
  HashSlots m_unknown_index;               // name's hash -> index in the summary's unknown, or past it
  std::vector<std::string> m_unknown_raw;  // the kept unknown names as written, to compare
  HashSlots m_seen;                        // identity_hash -> index in m_quotes
  std::size_t m_rows_expected = 0;         // expect_rows()
};

// ------------------------------------------------------------ the header

// Column name -> index.
using Columns = std::map<std::string, std::size_t, std::less<>>;

// A header's columns; a repeated name is reported. Names compare as given
// (SkyPilot's) or lower-cased (a quotes file's).
Columns columns_of(const csv::Record& header, bool fold_case, Problems& problems) {
  Columns out;
  for (std::size_t i = 0; i < header.fields.size(); ++i) {
    const auto& field = header.fields[i];
    std::string name(text::trim(field.value));
    if (fold_case) {
      name = text::to_lower(name);
    }
    if (name.empty()) {
      problems.at(field, "", fmt::format("column {} of the header row has no name", i + 1));
    } else if (!out.try_emplace(name, i).second) {
      problems.at(field, text::excerpt(name),
                  fmt::format("the column '{}' is named twice in the header row", text::excerpt(name)));
    }
  }
  return out;
}

constexpr std::string_view skypilot_required[] = {"InstanceType", "AcceleratorName", "AcceleratorCount", "Price"};
constexpr std::string_view quotes_required[] = {"card", "price_per_gpu_hour", "currency", "provider", "region", "date",
                                                "kind"};
constexpr std::string_view quotes_optional[] = {"instance_type", "gpus_per_instance", "market", "source", "note"};

// One record's values by column.
class Row {
 public:
  Row(const csv::Record& record, const Columns& columns) : m_record(record), m_columns(columns) {}

  // The record's line in the file.
  [[nodiscard]] int line() const { return m_record.line; }

  // The field under `column`, or nullptr when the file has no such column.
  [[nodiscard]] const csv::Field* field(std::string_view column) const {
    const auto it = m_columns.find(column);
    return it == m_columns.end() ? nullptr : &m_record.fields[it->second];
  }
  [[nodiscard]] std::string_view value(std::string_view column) const {
    const auto* f = field(column);
    return f == nullptr ? std::string_view() : text::trim(f->value);
  }
  // Where to report a problem with `column`: its field, else the record's start.
  [[nodiscard]] csv::Field place(std::string_view column) const {
    const auto* f = field(column);
    return f != nullptr ? csv::Field{{}, f->line, f->column} : csv::Field{{}, m_record.line, 0};
  }

 private:
  const csv::Record& m_record;
  const Columns& m_columns;
};

// Reports a text value that would not print as it is; true when it is clean.
bool check_clean(Problems& problems, const Row& row, std::string_view column) {
  const auto value = row.value(column);
  if (is_clean(value)) {
    return true;
  }
  problems.at(row.place(column), column,
              fmt::format("'{}' holds bytes that are not printable UTF-8 text; write it in plain characters",
                          text::excerpt(value)));
  return false;
}

bool width_matches(Problems& problems, const csv::Record& record, std::size_t width) {
  if (record.fields.size() == width) {
    return true;
  }
  problems.add(record.line, 0, "",
               fmt::format("the row has {} values but the header row names {} columns", record.fields.size(), width));
  return false;
}

// Reads the records after the header, each one a row of the file's summary:
// a record as wide as the header goes to `read` with the summary, one of
// another width is reported and skipped (and a malformed one, by Rows).
template <class Read>
void for_each_row(csv::Reader& reader, const csv::Record& header, const Columns& columns, Collector& collector,
                  Problems& problems, Read read) {
  Rows rows(reader, problems);
  csv::Record record;
  while (rows.next(record)) {
    auto& sum = collector.summary();
    ++sum.rows;
    if (!width_matches(problems, record, header.fields.size())) {
      continue;
    }
    read(Row(record, columns), sum);
  }
}

// A file read to its end: its quotes and summary, or every problem found.
PriceBook finish(Collector collector, Problems& problems, int header_line) {
  if (collector.summary().rows == 0 && problems.empty()) {  // (bad records are not rows, and are said)
    problems.add(header_line, 0, "", "no price rows: the file has a header row and nothing else");
  }
  problems.throw_if_any();
  return std::move(collector).finish();
}

// ------------------------------------------------------------ SkyPilot files

std::string provider_of(const PriceFileArg& arg) {
  if (!arg.provider.empty()) {
    return arg.provider;
  }
  const auto folder = std::filesystem::path(arg.file).lexically_normal().parent_path().filename().string();
  const bool named = !folder.empty() && folder != "." && folder != ".." && folder.size() <= max_provider_chars &&
                     std::all_of(folder.begin(), folder.end(), [](char c) {
                       return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                              c == '_' || c == '-';
                     });
  return named ? folder : std::string();
}

// A SkyPilot file's summary before its rows: its provider (given, or the
// folder's name) and date; no provider is a problem that stops the file.
PriceFileSummary skypilot_summary(const PriceFileArg& arg, const std::string& file, std::string_view date,
                                  Problems& problems) {
  PriceFileSummary summary;
  summary.file = file;
  summary.format = PriceFileFormat::skypilot;
  summary.provider = provider_of(arg);
  summary.date = std::string(date);
  if (summary.provider.empty()) {
    problems.add(0, 0, "",
                 "cannot tell the provider of a SkyPilot file that is not in a folder named after it "
                 "(.../lambda/vms.csv); give it as PROVIDER=FILE, e.g. --price-file lambda=vms.csv");
  }
  problems.throw_if_any();
  return summary;
}

// A row's GPUs per instance: a whole number from 1 to the limit; a share of
// one GPU is counted and skipped, anything else reported; nullopt for both.
std::optional<int> skypilot_gpus(const Row& row, PriceFileSummary& sum, Problems& problems) {
  const auto count_text = row.value("AcceleratorCount");
  const auto count = parse_number(count_text);
  if (!count || *count <= 0) {
    problems.at(row.place("AcceleratorCount"), "AcceleratorCount",
                fmt::format("'{}' is not a positive GPU count; expected a number such as 8 (below 1: a share of "
                            "one GPU, which is skipped)",
                            text::excerpt(count_text)));
    return std::nullopt;
  }
  if (*count > max_gpus_per_instance) {
    problems.at(row.place("AcceleratorCount"), "AcceleratorCount",
                fmt::format("{} GPUs in one instance is over the limit of {}", text::excerpt(count_text),
                            max_gpus_per_instance));
    return std::nullopt;
  }
  if (*count < 1 || *count != std::floor(*count)) {
    ++sum.fractional_rows;
    return std::nullopt;
  }
  return static_cast<int>(*count);
}

// A row's prices per GPU-hour: on demand, then spot.
using SkyPilotPrices = std::array<std::optional<double>, 2>;
constexpr std::string_view skypilot_price_columns[2] = {"Price", "SpotPrice"};

// A row's on-demand and spot prices per GPU-hour (none when empty); false
// when one is not a positive price or is over the limit, each reported.
bool skypilot_prices(const Row& row, int gpus, Problems& problems, SkyPilotPrices& prices) {
  bool ok = true;
  for (std::size_t i = 0; i < 2; ++i) {
    const auto column = skypilot_price_columns[i];
    const auto raw = row.value(column);
    if (raw.empty()) {
      continue;
    }
    const auto price = parse_number(raw);
    if (!price || *price <= 0) {
      problems.at(row.place(column), column,
                  fmt::format("'{}' is not a positive price; expected USD per instance-hour such as 23.92, or "
                              "nothing",
                              text::excerpt(raw)));
      ok = false;
    } else if (const double per_gpu = *price / gpus;
               per_gpu < min_rent_usd_per_gpu_hour || per_gpu > max_rent_usd_per_gpu_hour) {
      problems.at(row.place(column), column,
                  fmt::format("{} USD per instance-hour is {:.6g} USD per GPU-hour, outside {}-{} USD (the range of "
                              "the catalog's rents; is it in another unit?)",
                              text::excerpt(raw), per_gpu, min_rent_usd_per_gpu_hour, max_rent_usd_per_gpu_hour));
      ok = false;
    } else {
      prices[i] = *price / gpus;
    }
  }
  return ok;
}

// The quotes of a priced row: on demand and spot, each in USD per GPU-hour
// from the file's provider and date, in the market its region is in.
void add_skypilot_quotes(Collector& collector, const PriceFileSummary& sum, const Row& row, const GpuSpec& card,
                         int gpus, const SkyPilotPrices& prices, const std::string& file, const std::string& source) {
  const auto location = row.value("Region");
  // "FILE:LINE", made without fmt: a 16 MiB file has 600,000 quotes.
  std::array<char, 24> digits{};
  const auto line_end = std::to_chars(digits.data(), digits.data() + digits.size(), row.line()).ptr;
  std::string origin;
  origin.reserve(file.size() + 1 + static_cast<std::size_t>(line_end - digits.data()));
  origin.append(file).append(1, ':').append(digits.data(), line_end);
  for (std::size_t i = 0; i < 2; ++i) {
    if (!prices[i]) {
      continue;
    }
    PriceQuote quote;
    quote.low_usd = quote.high_usd = quote.low_quoted = quote.high_quoted = *prices[i];
    quote.provider = sum.provider;
    quote.kind = i == 0 ? PriceKind::on_demand : PriceKind::spot;
    quote.region = location.rfind("cn-", 0) == 0 ? Region::cn : Region::global;
    quote.tier = implied_tier(quote.kind, quote.region).value_or(PriceTier::specialist);
    quote.date = sum.date;
    quote.source = source;
    quote.quoted_in = Currency::usd;
    quote.instance_type = std::string(row.value("InstanceType"));
    quote.gpus_per_instance = gpus;
    quote.location = std::string(location);
    quote.origin = origin;
    collector.add(card.id, std::move(quote), row.value("AcceleratorName"));
  }
}

PriceBook parse_skypilot(csv::Reader& reader, const csv::Record& header, const PriceFileArg& arg, std::string_view date,
                         const Catalog& catalog, Problems& problems) {
  const auto columns = columns_of(header, false, problems);
  const std::string file = text::printable(arg.file);
  const std::string source = "SkyPilot catalog " + file;
  Collector collector(skypilot_summary(arg, file, date, problems));
  collector.expect_rows(reader.lines_left());
  std::vector<std::pair<std::string, const GpuSpec*>> mappings;  // each key once, with its card
  HashSlots mapping_index;                                       // a key's hash -> index in mappings
  const CardNames names(catalog);
  for_each_row(reader, header, columns, collector, problems, [&](const Row& row, PriceFileSummary& sum) {
    const auto accelerator = row.value("AcceleratorName");
    if (accelerator.empty()) {
      ++sum.cpu_rows;
      return;
    }
    const auto gpus = skypilot_gpus(row, sum, problems);
    if (!gpus) {
      return;
    }
    // The accelerator first: a row the catalog has no card for is not read
    // further (GCP lists TPU pods at thousands of USD per hour).
    const auto instance_type = row.value("InstanceType");
    const auto gpu_info = row.value("GpuInfo");
    // A file repeats each instance per region and zone: each one is mapped once.
    // Keyed by what the mapping reads: the name, GpuInfo and the instance
    // type's traits (a file of distinct instance types maps a name once).
    const InstanceTraits traits = instance_traits(instance_type);
    std::string mapping_key;
    mapping_key.reserve(accelerator.size() + gpu_info.size() + 16);
    mapping_key.append(accelerator).append(1, '\n').append(gpu_info).append(1, '\n');
    mapping_key.append(traits.memory_gb ? fmt::format("{}", *traits.memory_gb) : "-");
    mapping_key.append(1, static_cast<char>('0' + static_cast<int>(traits.hint)));
    const auto [index, fresh] =
        mapping_index.find_or_insert(std::hash<std::string>{}(mapping_key), mappings.size(),
                                     [&](std::size_t i) { return mappings[i].first == mapping_key; });
    if (fresh) {
      const GpuSpec* mapped = map_accelerator(names, accelerator, traits, gpu_info_mib(gpu_info));
      mappings.emplace_back(std::move(mapping_key), mapped);
    }
    const GpuSpec* card = mappings[index].second;
    if (card == nullptr) {
      collector.unknown(accelerator);
      return;
    }
    const bool clean = check_clean(problems, row, "InstanceType") && check_clean(problems, row, "Region");
    SkyPilotPrices prices;
    const bool priced = skypilot_prices(row, *gpus, problems, prices);
    if (!clean || !priced) {
      return;
    }
    if (!prices[0] && !prices[1]) {
      ++sum.unpriced_rows;
      return;
    }
    add_skypilot_quotes(collector, sum, row, *card, *gpus, prices, file, source);
  });
  return finish(std::move(collector), problems, header.line);
}

// ------------------------------------------------------------ quotes files

void check_quotes_header(const csv::Record& header, const Columns& columns, Problems& problems) {
  std::vector<std::string> known;
  for (const auto name : quotes_required) {
    known.emplace_back(name);
  }
  for (const auto name : quotes_optional) {
    known.emplace_back(name);
  }
  for (const auto& [name, index] : columns) {
    if (std::find(known.begin(), known.end(), name) != known.end()) {
      continue;
    }
    std::string message = fmt::format("unknown column '{}'", text::excerpt(name));
    if (const auto suggestion = text::did_you_mean(name, known)) {
      message += fmt::format("; did you mean '{}'?", *suggestion);
    }
    message += fmt::format(" (the columns are {})", text::join(known, ", "));
    problems.at(header.fields[index], text::excerpt(name), std::move(message));
  }
  for (const auto name : quotes_required) {
    if (!columns.contains(name)) {
      problems.add(header.line, 0, name, fmt::format("the header row has no '{}' column, which is required", name));
    }
  }
}

// A quotes row's values as they are checked: each problem reported at its
// field, and whether there was any.
class RowCheck {
 public:
  RowCheck(Problems& problems, const Row& row) : m_problems(problems), m_row(row) {}

  [[nodiscard]] const Row& row() const noexcept { return m_row; }
  [[nodiscard]] bool ok() const noexcept { return m_ok; }
  void fail(std::string_view column, std::string message) {
    m_problems.at(m_row.place(column), column, std::move(message));
    m_ok = false;
  }
  // The value of a column every row fills: missing or not clean is a problem.
  std::string_view required(std::string_view column, std::string_view expected) {
    const auto value = m_row.value(column);
    if (value.empty()) {
      fail(column, fmt::format("missing value; expected {}", expected));
    } else if (!check_clean(m_problems, m_row, column)) {
      m_ok = false;
    }
    return value;
  }
  // The value of a column a row may leave empty: not clean is a problem.
  std::string_view optional_clean(std::string_view column) {
    const auto value = m_row.value(column);
    if (!value.empty() && !check_clean(m_problems, m_row, column)) {
      m_ok = false;
    }
    return value;
  }

 private:
  Problems& m_problems;
  const Row& m_row;
  bool m_ok = true;
};

// A quotes row's fields as read: a quote when the row had no problem.
struct QuoteFields {
  std::string_view card_name;
  const GpuSpec* card = nullptr;
  bool unknown_card = false;  // a name the catalog has no card for: counted, not a problem
  std::optional<Currency> currency;
  std::optional<double> price;  // per GPU-hour as quoted
  double usd = 0;               // per GPU-hour
  std::string_view provider;
  std::string_view location;
  std::string_view date;
  std::optional<PriceKind> kind;
  std::string_view instance_type;
  int gpus = 0;  // per instance; 0 without an instance type
  Region market = Region::global;
  std::string_view source;
};

// The card a row names: one of the catalog's, none it knows (not a problem:
// the row is counted as unknown), or an ambiguous name (a problem).
void read_card(RowCheck& check, const CardNames& catalog, QuoteFields& q) {
  q.card_name = check.required("card", "a card id such as h100-sxm5 ('gpu-advise catalog list' shows them)");
  if (q.card_name.empty()) {
    return;
  }
  const auto found = catalog.find(q.card_name);
  q.card = found.match;
  if (!found.candidates.empty()) {
    std::vector<std::string> ids;
    for (const auto* candidate : found.candidates) {
      ids.push_back(fmt::format("{} ({})", candidate->id, candidate->name));
    }
    check.fail("card", fmt::format("'{}' is ambiguous: it names {} cards: {}; write the id", text::excerpt(q.card_name),
                                   ids.size(), text::join(ids, ", ")));
  } else if (q.card == nullptr) {
    q.unknown_card = true;
  }
}

// A row's price in its currency and in USD: a plain positive number, under
// the limit in USD; a price in CNY needs the catalog's exchange rate.
void read_price(RowCheck& check, double cny_per_usd, QuoteFields& q) {
  const auto currency_text = text::to_lower(check.required("currency", "usd or cny"));
  q.currency = enum_from_string<Currency>(currency_text);
  if (!currency_text.empty() && !q.currency) {
    check.fail("currency", fmt::format("'{}' is not a currency; expected usd or cny", text::excerpt(currency_text)));
  }
  const auto price_text = check.required("price_per_gpu_hour", "a price per GPU-hour such as 2.10");
  if (!price_text.empty()) {
    q.price = plain_decimal(price_text) ? parse_number(price_text) : std::nullopt;
    if (!q.price || *q.price <= 0) {
      check.fail("price_per_gpu_hour", fmt::format("'{}' is not a positive price per GPU-hour; expected a number "
                                                   "such as 2.10 (no currency sign or unit)",
                                                   text::excerpt(price_text)));
      q.price.reset();
    }
  }
  if (q.price && q.currency == Currency::cny && cny_per_usd <= 0) {
    check.fail("price_per_gpu_hour",
               "a price in cny needs the catalog's exchange_rate (catalog.exchange_rate.cny_per_usd)");
  } else if (q.price && q.currency) {
    const double rate = *q.currency == Currency::cny ? cny_per_usd : 1.0;
    q.usd = *q.price / rate;
    if (q.usd < min_rent_usd_per_gpu_hour || q.usd > max_rent_usd_per_gpu_hour) {
      const std::string range =
          fmt::format("outside {}-{} USD per GPU-hour (the range of the catalog's rents; is it in another unit?)",
                      min_rent_usd_per_gpu_hour, max_rent_usd_per_gpu_hour);
      check.fail("price_per_gpu_hour",
                 *q.currency == Currency::cny
                     ? fmt::format("{} CNY is {:.6g} USD at {} CNY per USD, {}", price_text, q.usd, rate, range)
                     : fmt::format("{} USD is {}", price_text, range));
    }
  }
}

// A row's price kind: on-demand (or on_demand), spot or reserved.
std::optional<PriceKind> read_kind(RowCheck& check) {
  const auto kind_text = text::to_lower(check.required("kind", "on-demand, spot or reserved"));
  if (kind_text == "on-demand" || kind_text == "on_demand") {
    return PriceKind::on_demand;
  }
  if (kind_text == "spot") {
    return PriceKind::spot;
  }
  if (kind_text == "reserved") {
    return PriceKind::reserved;
  }
  if (!kind_text.empty()) {
    std::string message =
        fmt::format("'{}' is not a price kind; expected on-demand, spot or reserved", text::excerpt(kind_text));
    if (const auto suggestion = text::did_you_mean(kind_text, {"on-demand", "on_demand", "spot", "reserved"})) {
      message += fmt::format(" (did you mean '{}'?)", *suggestion);
    }
    check.fail("kind", std::move(message));
  }
  return std::nullopt;
}

// A row's instance: an instance type and its GPUs (a whole number up to the
// limit) go together, or neither is given.
void read_instance(RowCheck& check, QuoteFields& q) {
  q.instance_type = check.optional_clean("instance_type");
  const auto gpus_text = check.row().value("gpus_per_instance");
  if (gpus_text.empty()) {
    if (!q.instance_type.empty()) {
      check.fail("gpus_per_instance", "an instance_type needs gpus_per_instance: the number of GPUs in one instance");
    }
    return;
  }
  const auto value = std::all_of(gpus_text.begin(), gpus_text.end(), [](char c) { return c >= '0' && c <= '9'; })
                         ? parse_number(gpus_text)
                         : std::nullopt;
  if (!value || *value < 1 || *value > max_gpus_per_instance) {
    check.fail("gpus_per_instance", fmt::format("'{}' is not a GPU count; expected a whole number from 1 to {}",
                                                text::excerpt(gpus_text), max_gpus_per_instance));
  } else if (q.instance_type.empty()) {
    check.fail("instance_type", "gpus_per_instance counts the GPUs of an instance: give the instance_type too");
  } else {
    q.gpus = static_cast<int>(*value);
  }
}

// A row's market: as given, else the currency's (CNY: China's, else global).
Region read_market(RowCheck& check, std::optional<Currency> currency) {
  const auto market_text = text::to_lower(check.row().value("market"));
  if (market_text.empty()) {
    return currency == Currency::cny ? Region::cn : Region::global;
  }
  if (const auto given = enum_from_string<Region>(market_text)) {
    return *given;
  }
  check.fail("market", fmt::format("'{}' is not a market; expected global or cn", text::excerpt(market_text)));
  return currency == Currency::cny ? Region::cn : Region::global;
}

// Reads a row's fields in the order its problems are reported.
QuoteFields read_quote_fields(RowCheck& check, const CardNames& catalog, double cny_per_usd) {
  QuoteFields q;
  read_card(check, catalog, q);
  read_price(check, cny_per_usd, q);
  q.provider = check.required("provider", "the provider's name, such as lambda");
  q.location = check.required("region", "the provider's region, such as us-east-1");
  q.date = check.required("date", "YYYY-MM or YYYY-MM-DD");
  if (!q.date.empty() && !is_real_date(q.date)) {
    check.fail("date", fmt::format("'{}' is not a date; expected YYYY-MM or YYYY-MM-DD", text::excerpt(q.date)));
  }
  q.kind = read_kind(check);
  read_instance(check, q);
  q.market = read_market(check, q.currency);
  q.source = check.optional_clean("source");
  return q;
}

// The quote a row without problems makes; its source, when not given, is the file.
PriceQuote quote_of(const QuoteFields& q, const std::string& file, int line) {
  PriceQuote quote;
  quote.low_usd = quote.high_usd = q.usd;
  quote.low_quoted = quote.high_quoted = *q.price;
  quote.quoted_in = *q.currency;
  quote.provider = std::string(q.provider);
  quote.kind = *q.kind;
  quote.region = q.market;
  quote.tier = implied_tier(quote.kind, quote.region).value_or(PriceTier::specialist);
  quote.date = std::string(q.date);
  quote.source = q.source.empty() ? "price file " + file : std::string(q.source);
  quote.instance_type = std::string(q.instance_type);
  quote.gpus_per_instance = q.gpus;
  quote.location = std::string(q.location);
  quote.origin = fmt::format("{}:{}", file, line);
  return quote;
}

PriceBook parse_quotes(csv::Reader& reader, const csv::Record& header, const PriceFileArg& arg, const Catalog& catalog,
                       Problems& problems) {
  const auto columns = columns_of(header, true, problems);
  check_quotes_header(header, columns, problems);
  if (!arg.provider.empty()) {
    problems.add(
        0, 0, "",
        fmt::format("a quotes file names each row's provider; give it without '{}='", text::excerpt(arg.provider)));
  }
  problems.throw_if_any();
  const std::string file = text::printable(arg.file);
  PriceFileSummary summary;
  summary.file = file;
  summary.format = PriceFileFormat::quotes;
  Collector collector(std::move(summary));
  const double cny_per_usd = catalog.info().exchange_rate.cny_per_usd;
  const CardNames names(catalog);
  for_each_row(reader, header, columns, collector, problems, [&](const Row& row, PriceFileSummary& sum) {
    RowCheck check(problems, row);
    const QuoteFields q = read_quote_fields(check, names, cny_per_usd);
    // The file's date: its latest row's without problems (unknown cards too).
    if (check.ok() && is_real_date(q.date) && std::string_view(sum.date) < q.date) {
      sum.date = std::string(q.date);
    }
    if (!check.ok()) {
      return;
    }
    if (q.unknown_card) {
      collector.unknown(q.card_name);
      return;
    }
    collector.add(q.card->id, quote_of(q, file, row.line()), q.card_name);
  });
  return finish(std::move(collector), problems, header.line);
}

// ------------------------------------------------------------ dates

std::string utc_date(std::chrono::system_clock::time_point when) {
  const std::chrono::year_month_day day{std::chrono::floor<std::chrono::days>(when)};
  return fmt::format("{:04}-{:02}-{:02}", static_cast<int>(day.year()), static_cast<unsigned>(day.month()),
                     static_cast<unsigned>(day.day()));
}

// SOURCE_DATE_EPOCH, when set to a number of seconds (anything else is ignored).
std::optional<std::chrono::system_clock::time_point> source_date_epoch() {
  const char* value = std::getenv("SOURCE_DATE_EPOCH");
  if (value == nullptr) {
    return std::nullopt;
  }
  const std::string_view digits(value);
  long long seconds = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), seconds);
  if (digits.empty() || error != std::errc() || end != digits.data() + digits.size() || seconds < 0) {
    return std::nullopt;
  }
  return std::chrono::system_clock::time_point(std::chrono::seconds(seconds));
}

// A file's modification date, or today's for a pipe; never after SOURCE_DATE_EPOCH.
std::string file_date(const std::filesystem::path& path) {
  auto when = std::chrono::system_clock::now();
  std::error_code error;
  if (std::filesystem::is_regular_file(path, error)) {
    const auto written = std::filesystem::last_write_time(path, error);
    if (!error) {
      when =
          std::chrono::time_point_cast<std::chrono::system_clock::duration>(std::chrono::file_clock::to_sys(written));
    }
  }
  if (const auto epoch = source_date_epoch(); epoch && when > *epoch) {
    when = *epoch;
  }
  return utc_date(when);
}

}  // namespace

// ------------------------------------------------------------ public

PriceFileArg parse_price_file_arg(std::string_view text) {
  if (text.empty()) {
    throw UsageError("--price-file: the value is empty; give FILE or PROVIDER=FILE (e.g. lambda=vms.csv)");
  }
  const auto eq = text.find('=');
  if (eq != std::string_view::npos && eq >= 1 && eq <= max_provider_chars && eq + 1 < text.size()) {
    const auto provider = text.substr(0, eq);
    const bool named = std::all_of(provider.begin(), provider.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
             c == '-';
    });
    if (named) {
      return PriceFileArg{std::string(text.substr(eq + 1)), std::string(provider)};
    }
  }
  return PriceFileArg{std::string(text), {}};
}

std::vector<PriceQuote> PriceBook::quotes_for(std::string_view gpu_id) const {
  const std::string key = text::normalise_name(gpu_id);
  std::vector<PriceQuote> out;
  for (const auto& imported : quotes) {
    if (text::normalise_name(imported.gpu_id) == key) {
      out.push_back(imported.quote);
    }
  }
  return out;
}

PriceBook parse_price_file(std::string_view text, const PriceFileArg& arg, std::string_view date,
                           const Catalog& catalog) {
  Problems problems(text::printable(arg.file));
  csv::Reader reader(text);
  csv::Record header;
  csv::Problem problem;
  switch (reader.next(header, problem)) {
    case csv::Reader::Status::record: break;
    case csv::Reader::Status::bad:
      problems.add(problem.line, problem.column, "", problem.message);
      problems.throw_if_any();
      break;
    case csv::Reader::Status::end:
      problems.add(1, 0, "", "the file has no header row");
      problems.throw_if_any();
      break;
  }
  const auto has = [&](std::string_view name, bool fold_case) {
    return std::any_of(header.fields.begin(), header.fields.end(), [&](const csv::Field& field) {
      const auto value = text::trim(field.value);
      return fold_case ? text::to_lower(value) == name : value == name;
    });
  };
  const bool skypilot = std::all_of(std::begin(skypilot_required), std::end(skypilot_required),
                                    [&](std::string_view name) { return has(name, false); });
  if (skypilot) {
    return parse_skypilot(reader, header, arg, date, catalog, problems);
  }
  if (has("card", true)) {
    return parse_quotes(reader, header, arg, catalog, problems);
  }
  // One field holding both formats' separators' worth of names: a file saved
  // with semicolons or tabs (a spreadsheet in a European locale) says so.
  if (header.fields.size() == 1) {
    const std::string& only = header.fields.front().value;
    for (const auto& [separator, name] : {std::pair{';', "semicolons"}, std::pair{'\t', "tabs"}}) {
      if (only.find(separator) != std::string::npos) {
        problems.add(header.line, 0, "",
                     fmt::format("the header row is one column holding {}: price files are comma-separated "
                                 "(RFC 4180); save it as CSV with commas (docs/prices.md)",
                                 name));
        problems.throw_if_any();
      }
    }
  }
  problems.add(
      header.line, 0, "",
      fmt::format(
          "the header row names neither format's columns: a SkyPilot catalog file needs {}; a "
          "quotes file needs {} (docs/prices.md)",
          text::join(std::vector<std::string>(std::begin(skypilot_required), std::end(skypilot_required)), ", "),
          text::join(std::vector<std::string>(std::begin(quotes_required), std::end(quotes_required)), ", ")));
  problems.throw_if_any();
  return {};
}

namespace {

// Each quote set against the catalog's typical rent for its card in its own
// market: the dearest quote above twice it is flagged on the card's summary
// (likely a premium, a bundle or a price in the wrong unit). Typicals are
// taken once per card and market: a file holds up to 600,000 quotes.
void compare_with_catalog(PriceBook& book, const Catalog& catalog) {
  const std::string since = months_before(catalog.info().updated, 12);
  std::map<std::pair<std::string, Region>, double> typicals;  // 0: no typical
  auto typical_of = [&](const std::string& id, Region region) {
    const auto [it, fresh] = typicals.try_emplace({id, region}, 0.0);
    if (fresh) {
      const auto lookup = catalog.find(id);
      if (lookup.match != nullptr) {
        if (const auto price = rent_price(lookup.match->rent_usd_per_gpu_hour, region, std::nullopt, since)) {
          it->second = price->range.typical;
        }
      }
    }
    return it->second;
  };
  std::size_t first = 0;
  for (auto& file : book.files) {
    std::map<std::string, PriceFileSummary::Card*> cards;
    for (auto& card : file.cards) {
      cards[card.gpu_id] = &card;
    }
    const std::size_t end = std::min(book.quotes.size(), first + file.quotes);
    for (std::size_t i = first; i < end; ++i) {
      const ImportedQuote& q = book.quotes[i];
      const auto card = cards.find(q.gpu_id);
      const double typical = typical_of(q.gpu_id, q.quote.region);
      if (card == cards.end() || typical <= 0 || q.quote.high_usd <= 2.0 * typical ||
          q.quote.high_usd <= card->second->flagged_usd) {
        continue;
      }
      card->second->over_twice_typical = true;
      card->second->flagged_usd = q.quote.high_usd;
      card->second->flagged_region = q.quote.region;
      card->second->catalog_typical_usd = typical;
    }
    first = end;
  }
}

}  // namespace

PriceBook load_price_files(const std::vector<std::string>& args, const Catalog& catalog) {
  std::vector<PriceFileArg> parsed;
  for (const auto& text : args) {
    auto arg = parse_price_file_arg(text);
    for (const auto& earlier : parsed) {
      std::error_code error;
      const bool same = std::filesystem::equivalent(earlier.file, arg.file, error);
      if (same || (error && std::filesystem::path(earlier.file).lexically_normal() ==
                                std::filesystem::path(arg.file).lexically_normal())) {
        throw UsageError(fmt::format("--price-file: '{}' is given twice ('{}' is the same file); give each file once",
                                     text::excerpt(arg.file), text::excerpt(earlier.file)));
      }
    }
    parsed.push_back(std::move(arg));
  }
  PriceBook book;
  std::vector<Diagnostic> problems;
  for (const auto& arg : parsed) {
    try {
      const std::string content = read_data_file(arg.file);
      const std::string date = file_date(arg.file);
      auto one = parse_price_file(content, arg, date, catalog);
      book.quotes.insert(book.quotes.end(), std::make_move_iterator(one.quotes.begin()),
                         std::make_move_iterator(one.quotes.end()));
      book.files.insert(book.files.end(), std::make_move_iterator(one.files.begin()),
                        std::make_move_iterator(one.files.end()));
    } catch (const DataError& e) {
      problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }
  if (!problems.empty()) {
    throw DataError(std::move(problems));
  }
  compare_with_catalog(book, catalog);
  return book;
}

Catalog with_prices(const Catalog& catalog, const PriceBook& book) {
  if (book.quotes.empty()) {
    return catalog;
  }
  // Each quote's card in one pass (a quote names its card by the catalog's id
  // as written: the readers resolve it): a lookup per card over every quote
  // was cards x quotes, seconds for a 16 MiB file.
  std::unordered_map<std::string_view, std::vector<const PriceQuote*>> by_card;
  for (const auto& imported : book.quotes) {
    by_card[imported.gpu_id].push_back(&imported.quote);
  }
  std::vector<GpuSpec> gpus = catalog.gpus();
  for (auto& gpu : gpus) {
    const auto imported = by_card.find(gpu.id);
    if (imported == by_card.end()) {
      continue;
    }
    std::set<Region> covered;
    for (const PriceQuote* quote : imported->second) {
      covered.insert(quote->region);
    }
    auto& rent = gpu.rent_usd_per_gpu_hour;
    rent.erase(std::remove_if(rent.begin(), rent.end(),
                              [&](const PriceQuote& quote) { return covered.contains(quote.region); }),
               rent.end());
    rent.reserve(rent.size() + imported->second.size());
    for (const PriceQuote* quote : imported->second) {
      rent.push_back(*quote);
    }
  }
  // The constructor sets each card's efficiency from its architecture's
  // entry, which is what the cards already hold: nothing is applied twice.
  return Catalog(catalog.info(), std::move(gpus), catalog.efficiency());
}

}  // namespace gpu_advise
