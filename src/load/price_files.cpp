// Price files (prices.hpp; the formats are docs/prices.md): SkyPilot catalog
// files and plain quotes files, read into quotes for the catalog's cards, and
// the catalog with those quotes in place of its own rent quotes.
#include "gpu_advise/prices.hpp"

#include <algorithm>
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
constexpr double max_usd_per_gpu_hour = 10000;
constexpr int max_gpus_per_instance = 1024;
constexpr std::size_t max_provider_chars = 64;
constexpr std::size_t instance_types_shown = 4;  // per accelerator name in a summary's names
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

class Collector {
 public:
  explicit Collector(PriceFileSummary summary) : m_summary(std::move(summary)) {}

  PriceFileSummary& summary() noexcept { return m_summary; }

  // Takes a quote unless the same one is there already; `name` is the accelerator as written.
  void add(std::string gpu_id, PriceQuote quote, std::string_view name) {
    const auto key = std::make_tuple(gpu_id, quote.provider, quote.instance_type, quote.location, quote.kind,
                                     quote.region, quote.date, quote.low_usd, quote.high_usd);
    if (!m_seen.insert(key).second) {
      return;
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
    auto& names = m_names[at->second];
    const std::string shown = text::excerpt(name);
    auto named = std::find_if(names.begin(), names.end(), [&](const auto& entry) { return entry.first == shown; });
    if (named == names.end()) {
      names.emplace_back(shown, std::vector<std::string>{});
      named = std::prev(names.end());
    }
    if (!quote.instance_type.empty() &&
        std::find(named->second.begin(), named->second.end(), quote.instance_type) == named->second.end()) {
      named->second.push_back(quote.instance_type);
    }
    m_quotes.push_back(ImportedQuote{std::move(gpu_id), std::move(quote)});
  }

  void unknown(std::string_view name) {
    const std::string shown = text::excerpt(name);
    auto it = std::find_if(m_summary.unknown.begin(), m_summary.unknown.end(),
                           [&](const PriceFileSummary::Unknown& u) { return u.name == shown; });
    if (it == m_summary.unknown.end()) {
      m_summary.unknown.push_back(PriceFileSummary::Unknown{shown, 0});
      it = std::prev(m_summary.unknown.end());
    }
    ++it->rows;
  }

  PriceBook finish() && {
    for (std::size_t i = 0; i < m_summary.cards.size(); ++i) {
      auto& card = m_summary.cards[i];
      std::sort(card.shapes.begin(), card.shapes.end());
      card.shapes.erase(std::unique(card.shapes.begin(), card.shapes.end()), card.shapes.end());
      for (const auto& [name, instances] : m_names[i]) {
        if (instances.empty()) {
          card.names.push_back(name);
          continue;
        }
        const std::size_t shown = std::min(instances.size(), instance_types_shown);
        std::string list = text::join(std::span(instances).first(shown), ", ");
        if (instances.size() > shown) {
          list += fmt::format(" and {} more", instances.size() - shown);
        }
        card.names.push_back(fmt::format("{} ({})", name, list));
      }
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
  std::map<std::string, std::size_t> m_card_index;
  std::vector<std::vector<std::pair<std::string, std::vector<std::string>>>> m_names;
  std::set<
      std::tuple<std::string, std::string, std::string, std::string, PriceKind, Region, std::string, double, double>>
      m_seen;
};

// ------------------------------------------------------------ the header

// Column name -> index; a repeated name is reported. Names compare as given
// (SkyPilot's) or lower-cased (a quotes file's).
std::map<std::string, std::size_t, std::less<>> columns_of(const csv::Record& header, bool fold_case,
                                                           Problems& problems) {
  std::map<std::string, std::size_t, std::less<>> out;
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
  Row(const csv::Record& record, const std::map<std::string, std::size_t, std::less<>>& columns)
      : m_record(record), m_columns(columns) {}

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
  const std::map<std::string, std::size_t, std::less<>>& m_columns;
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

PriceBook parse_skypilot(csv::Reader& reader, const csv::Record& header, const PriceFileArg& arg, std::string_view date,
                         const Catalog& catalog, Problems& problems) {
  const auto columns = columns_of(header, false, problems);
  const std::string file = text::printable(arg.file);
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
  Collector collector(std::move(summary));
  std::map<std::string, const GpuSpec*, std::less<>> mappings;
  Rows rows(reader, problems);
  csv::Record record;
  while (rows.next(record)) {
    auto& sum = collector.summary();
    ++sum.rows;
    if (!width_matches(problems, record, header.fields.size())) {
      continue;
    }
    const Row row(record, columns);
    const auto accelerator = row.value("AcceleratorName");
    if (accelerator.empty()) {
      ++sum.cpu_rows;
      continue;
    }
    const auto count_text = row.value("AcceleratorCount");
    const auto count = parse_number(count_text);
    if (!count || *count <= 0) {
      problems.at(row.place("AcceleratorCount"), "AcceleratorCount",
                  fmt::format("'{}' is not a positive GPU count; expected a number such as 8 (below 1: a share of "
                              "one GPU, which is skipped)",
                              text::excerpt(count_text)));
      continue;
    }
    if (*count > max_gpus_per_instance) {
      problems.at(row.place("AcceleratorCount"), "AcceleratorCount",
                  fmt::format("{} GPUs in one instance is over the limit of {}", text::excerpt(count_text),
                              max_gpus_per_instance));
      continue;
    }
    if (*count < 1 || *count != std::floor(*count)) {
      ++sum.fractional_rows;
      continue;
    }
    const int gpus = static_cast<int>(*count);
    // The accelerator first: a row the catalog has no card for is not read
    // further (GCP lists TPU pods at thousands of USD per hour).
    const auto instance_type = row.value("InstanceType");
    const auto gpu_info = row.value("GpuInfo");
    // A file repeats each instance per region and zone: each one is mapped once.
    const std::string mapping_key = fmt::format("{}\n{}\n{}", accelerator, instance_type, gpu_info);
    auto mapped = mappings.find(mapping_key);
    if (mapped == mappings.end()) {
      mapped =
          mappings.emplace(mapping_key, map_accelerator(catalog, accelerator, instance_type, gpu_info_mib(gpu_info)))
              .first;
    }
    const GpuSpec* card = mapped->second;
    if (card == nullptr) {
      collector.unknown(accelerator);
      continue;
    }
    bool ok = check_clean(problems, row, "InstanceType") && check_clean(problems, row, "Region");
    std::optional<double> prices[2];
    constexpr std::string_view price_columns[2] = {"Price", "SpotPrice"};
    for (std::size_t i = 0; i < 2; ++i) {
      const auto raw = row.value(price_columns[i]);
      if (raw.empty()) {
        continue;
      }
      const auto price = parse_number(raw);
      if (!price || *price <= 0) {
        problems.at(row.place(price_columns[i]), price_columns[i],
                    fmt::format("'{}' is not a positive price; expected USD per instance-hour such as 23.92, or "
                                "nothing",
                                text::excerpt(raw)));
        ok = false;
      } else if (*price / gpus > max_usd_per_gpu_hour) {
        problems.at(row.place(price_columns[i]), price_columns[i],
                    fmt::format("{} USD per instance-hour is {:.6g} USD per GPU-hour, over the limit of {} USD",
                                text::excerpt(raw), *price / gpus, max_usd_per_gpu_hour));
        ok = false;
      } else {
        prices[i] = *price / gpus;
      }
    }
    if (!ok) {
      continue;
    }
    if (!prices[0] && !prices[1]) {
      ++sum.unpriced_rows;
      continue;
    }
    const auto location = row.value("Region");
    for (std::size_t i = 0; i < 2; ++i) {
      if (!prices[i]) {
        continue;
      }
      PriceQuote quote;
      quote.low_usd = quote.high_usd = quote.low_quoted = quote.high_quoted = *prices[i];
      quote.provider = sum.provider;
      quote.kind = i == 0 ? PriceKind::on_demand : PriceKind::spot;
      quote.region = location.rfind("cn-", 0) == 0 ? Region::cn : Region::global;
      quote.date = sum.date;
      quote.source = "SkyPilot catalog " + file;
      quote.quoted_in = Currency::usd;
      quote.instance_type = std::string(instance_type);
      quote.gpus_per_instance = gpus;
      quote.location = std::string(location);
      quote.origin = fmt::format("{}:{}", file, record.line);
      collector.add(card->id, std::move(quote), accelerator);
    }
  }
  return finish(std::move(collector), problems, header.line);
}

// ------------------------------------------------------------ quotes files

void check_quotes_header(const csv::Record& header, const std::map<std::string, std::size_t, std::less<>>& columns,
                         Problems& problems) {
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
  Rows rows(reader, problems);
  csv::Record record;
  while (rows.next(record)) {
    auto& sum = collector.summary();
    ++sum.rows;
    if (!width_matches(problems, record, header.fields.size())) {
      continue;
    }
    const Row row(record, columns);
    bool ok = true;
    const auto fail = [&](std::string_view column, std::string message) {
      problems.at(row.place(column), column, std::move(message));
      ok = false;
    };
    const auto required = [&](std::string_view column, std::string_view expected) {
      const auto value = row.value(column);
      if (value.empty()) {
        fail(column, fmt::format("missing value; expected {}", expected));
      } else if (!check_clean(problems, row, column)) {
        ok = false;
      }
      return value;
    };
    const auto card_name = required("card", "a card id such as h100-sxm5 ('gpu-advise catalog list' shows them)");
    const GpuSpec* card = nullptr;
    bool unknown_card = false;
    if (!card_name.empty()) {
      const auto found = catalog.find(card_name);
      card = found.match;
      if (!found.candidates.empty()) {
        std::vector<std::string> ids;
        for (const auto* candidate : found.candidates) {
          ids.push_back(fmt::format("{} ({})", candidate->id, candidate->name));
        }
        fail("card", fmt::format("'{}' is ambiguous: it names {} cards: {}; write the id", text::excerpt(card_name),
                                 ids.size(), text::join(ids, ", ")));
      } else if (card == nullptr) {
        unknown_card = true;
      }
    }
    const auto currency_text = text::to_lower(required("currency", "usd or cny"));
    const auto currency = enum_from_string<Currency>(currency_text);
    if (!currency_text.empty() && !currency) {
      fail("currency", fmt::format("'{}' is not a currency; expected usd or cny", text::excerpt(currency_text)));
    }
    const auto price_text = required("price_per_gpu_hour", "a price per GPU-hour such as 2.10");
    std::optional<double> price;
    if (!price_text.empty()) {
      price = plain_decimal(price_text) ? parse_number(price_text) : std::nullopt;
      if (!price || *price <= 0) {
        fail("price_per_gpu_hour", fmt::format("'{}' is not a positive price per GPU-hour; expected a number such "
                                               "as 2.10 (no currency sign or unit)",
                                               text::excerpt(price_text)));
        price.reset();
      }
    }
    double usd = 0;
    if (price && currency == Currency::cny && cny_per_usd <= 0) {
      fail("price_per_gpu_hour",
           "a price in cny needs the catalog's exchange_rate (catalog.exchange_rate.cny_per_usd)");
    } else if (price && currency) {
      const double rate = *currency == Currency::cny ? cny_per_usd : 1.0;
      usd = *price / rate;
      if (usd > max_usd_per_gpu_hour) {
        fail("price_per_gpu_hour",
             *currency == Currency::cny
                 ? fmt::format("{} CNY is {:.6g} USD at {} CNY per USD, over the limit of {} USD per GPU-hour",
                               price_text, usd, rate, max_usd_per_gpu_hour)
                 : fmt::format("{} USD is over the limit of {} USD per GPU-hour", price_text, max_usd_per_gpu_hour));
      }
    }
    const auto provider = required("provider", "the provider's name, such as lambda");
    const auto location = required("region", "the provider's region, such as us-east-1");
    const auto date = required("date", "YYYY-MM or YYYY-MM-DD");
    if (!date.empty() && !is_real_date(date)) {
      fail("date", fmt::format("'{}' is not a date; expected YYYY-MM or YYYY-MM-DD", text::excerpt(date)));
    }
    const auto kind_text = text::to_lower(required("kind", "on-demand, spot or reserved"));
    std::optional<PriceKind> kind;
    if (kind_text == "on-demand" || kind_text == "on_demand") {
      kind = PriceKind::on_demand;
    } else if (kind_text == "spot") {
      kind = PriceKind::spot;
    } else if (kind_text == "reserved") {
      kind = PriceKind::reserved;
    } else if (!kind_text.empty()) {
      std::string message =
          fmt::format("'{}' is not a price kind; expected on-demand, spot or reserved", text::excerpt(kind_text));
      if (const auto suggestion = text::did_you_mean(kind_text, {"on-demand", "on_demand", "spot", "reserved"})) {
        message += fmt::format(" (did you mean '{}'?)", *suggestion);
      }
      fail("kind", std::move(message));
    }
    const auto instance_type = row.value("instance_type");
    const auto gpus_text = row.value("gpus_per_instance");
    int gpus = 0;
    if (!instance_type.empty() && !check_clean(problems, row, "instance_type")) {
      ok = false;
    }
    if (!gpus_text.empty()) {
      const auto value = std::all_of(gpus_text.begin(), gpus_text.end(), [](char c) { return c >= '0' && c <= '9'; })
                             ? parse_number(gpus_text)
                             : std::nullopt;
      if (!value || *value < 1 || *value > max_gpus_per_instance) {
        fail("gpus_per_instance", fmt::format("'{}' is not a GPU count; expected a whole number from 1 to {}",
                                              text::excerpt(gpus_text), max_gpus_per_instance));
      } else if (instance_type.empty()) {
        fail("instance_type", "gpus_per_instance counts the GPUs of an instance: give the instance_type too");
      } else {
        gpus = static_cast<int>(*value);
      }
    } else if (!instance_type.empty()) {
      fail("gpus_per_instance", "an instance_type needs gpus_per_instance: the number of GPUs in one instance");
    }
    const auto market_text = text::to_lower(row.value("market"));
    auto market = currency == Currency::cny ? Region::cn : Region::global;
    if (!market_text.empty()) {
      if (const auto given = enum_from_string<Region>(market_text)) {
        market = *given;
      } else {
        fail("market", fmt::format("'{}' is not a market; expected global or cn", text::excerpt(market_text)));
      }
    }
    const auto source = row.value("source");
    if (!source.empty() && !check_clean(problems, row, "source")) {
      ok = false;
    }
    if (ok && is_real_date(date) && std::string_view(sum.date) < date) {
      sum.date = std::string(date);
    }
    if (!ok) {
      continue;
    }
    if (unknown_card) {
      collector.unknown(card_name);
      continue;
    }
    PriceQuote quote;
    quote.low_usd = quote.high_usd = usd;
    quote.low_quoted = quote.high_quoted = *price;
    quote.quoted_in = *currency;
    quote.provider = std::string(provider);
    quote.kind = *kind;
    quote.region = market;
    quote.date = std::string(date);
    quote.source = source.empty() ? "price file " + file : std::string(source);
    quote.instance_type = std::string(instance_type);
    quote.gpus_per_instance = gpus;
    quote.location = std::string(location);
    quote.origin = fmt::format("{}:{}", file, record.line);
    collector.add(card->id, std::move(quote), card_name);
  }
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
  return book;
}

Catalog with_prices(const Catalog& catalog, const PriceBook& book) {
  if (book.quotes.empty()) {
    return catalog;
  }
  std::vector<GpuSpec> gpus = catalog.gpus();
  for (auto& gpu : gpus) {
    auto imported = book.quotes_for(gpu.id);
    if (imported.empty()) {
      continue;
    }
    std::set<Region> covered;
    for (const auto& quote : imported) {
      covered.insert(quote.region);
    }
    auto& rent = gpu.rent_usd_per_gpu_hour;
    rent.erase(std::remove_if(rent.begin(), rent.end(),
                              [&](const PriceQuote& quote) { return covered.contains(quote.region); }),
               rent.end());
    rent.insert(rent.end(), std::make_move_iterator(imported.begin()), std::make_move_iterator(imported.end()));
  }
  // The constructor sets each card's efficiency from its architecture's
  // entry, which is what the cards already hold: nothing is applied twice.
  return Catalog(catalog.info(), std::move(gpus), catalog.efficiency());
}

}  // namespace gpu_advise
