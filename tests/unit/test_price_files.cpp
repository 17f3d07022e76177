#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "gpu_advise/catalog.hpp"
#include "gpu_advise/error.hpp"
#include "gpu_advise/prices.hpp"
#include "load/csv_reader.hpp"

using namespace gpu_advise;

namespace {

const std::string data_dir = std::string(GPU_ADVISE_TEST_DATA) + "/prices";

const Catalog& catalog() {
  static const Catalog c = load_embedded_catalog();
  return c;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Every record of `text`, or the problems, one per bad record.
struct Read {
  std::vector<csv::Record> records;
  std::vector<csv::Problem> problems;
};
Read read_csv(std::string_view text) {
  Read out;
  csv::Reader reader(text);
  csv::Record record;
  csv::Problem problem;
  for (;;) {
    const auto status = reader.next(record, problem);
    if (status == csv::Reader::Status::end) {
      return out;
    }
    if (status == csv::Reader::Status::bad) {
      out.problems.push_back(problem);
    } else {
      out.records.push_back(record);
    }
  }
}

std::vector<std::string> values(const csv::Record& record) {
  std::vector<std::string> out;
  for (const auto& field : record.fields) {
    out.push_back(field.value);
  }
  return out;
}

PriceBook parse(std::string_view text, const std::string& file = "test/vms.csv", const std::string& provider = {}) {
  return parse_price_file(text, PriceFileArg{file, provider}, "2026-11-30", catalog());
}

std::vector<Diagnostic> diagnostics_of(std::string_view text, const std::string& file = "test/quotes.csv") {
  try {
    (void)parse(text, file);
  } catch (const DataError& e) {
    return e.diagnostics();
  }
  FAIL("expected a DataError");
  return {};
}

std::string all_messages(const std::vector<Diagnostic>& list) {
  std::string out;
  for (const auto& d : list) {
    out += d.to_string() + "\n";
  }
  return out;
}

const PriceFileSummary::Card* card_in(const PriceFileSummary& summary, std::string_view id) {
  for (const auto& card : summary.cards) {
    if (card.gpu_id == id) {
      return &card;
    }
  }
  return nullptr;
}

std::size_t unknown_rows(const PriceFileSummary& summary, std::string_view name) {
  for (const auto& unknown : summary.unknown) {
    if (unknown.name == name) {
      return unknown.rows;
    }
  }
  return 0;
}

// Restores an environment variable when it goes out of scope.
class EnvironmentVariable {
 public:
  EnvironmentVariable(const char* name, const char* value) : m_name(name) {
    if (const char* old = std::getenv(name)) {
      m_old = old;
    }
    if (value != nullptr) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  EnvironmentVariable(const EnvironmentVariable&) = delete;
  EnvironmentVariable& operator=(const EnvironmentVariable&) = delete;
  ~EnvironmentVariable() {
    if (m_old) {
      ::setenv(m_name, m_old->c_str(), 1);
    } else {
      ::unsetenv(m_name);
    }
  }

 private:
  const char* m_name;
  std::optional<std::string> m_old;
};

// A temporary folder, removed with what it holds.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "gpu-advise-prices-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    m_path = pattern;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(m_path, ignored);
  }
  [[nodiscard]] const std::filesystem::path& path() const { return m_path; }

 private:
  std::filesystem::path m_path;
};

void set_mtime(const std::filesystem::path& path, std::time_t seconds) {
  const auto when = std::chrono::file_clock::from_sys(std::chrono::system_clock::from_time_t(seconds));
  std::filesystem::last_write_time(path, when);
}

constexpr std::string_view quotes_header = "card,price_per_gpu_hour,currency,provider,region,date,kind\n";

}  // namespace

// ------------------------------------------------------------ the CSV reader

TEST_CASE("csv: plain fields, quotes, escaped quotes and embedded commas", "[prices]") {
  const auto read = read_csv("a,b,c\n\"x, y\",\"say \"\"hi\"\"\",\n");
  REQUIRE(read.problems.empty());
  REQUIRE(read.records.size() == 2);
  CHECK(values(read.records[0]) == std::vector<std::string>{"a", "b", "c"});
  CHECK(values(read.records[1]) == std::vector<std::string>{"x, y", "say \"hi\"", ""});
  CHECK(read.records[1].fields[1].column == 8);
}

TEST_CASE("csv: CRLF, a byte order mark, blank lines and no final newline", "[prices]") {
  const auto read = read_csv(
      "\xEF\xBB\xBF"
      "h1,h2\r\n\r\n  \n1,2\r\n3,4");
  REQUIRE(read.problems.empty());
  REQUIRE(read.records.size() == 3);
  CHECK(values(read.records[0]) == std::vector<std::string>{"h1", "h2"});
  CHECK(read.records[0].fields[0].column == 1);
  CHECK(read.records[1].line == 4);
  CHECK(values(read.records[1]) == std::vector<std::string>{"1", "2"});
  CHECK(read.records[2].line == 5);
  CHECK(values(read.records[2]) == std::vector<std::string>{"3", "4"});
}

TEST_CASE("csv: an embedded newline keeps the line numbers of later records right", "[prices]") {
  const auto read = read_csv("a,b\n\"one\ntwo\nthree\",x\nc,d\n");
  REQUIRE(read.problems.empty());
  REQUIRE(read.records.size() == 3);
  CHECK(read.records[1].line == 2);
  CHECK(read.records[1].fields[0].value == "one\ntwo\nthree");
  CHECK(read.records[1].fields[1].line == 4);
  CHECK(read.records[2].line == 5);
}

TEST_CASE("csv: an unterminated quote is a located problem", "[prices]") {
  const auto read = read_csv("a,b\nc,\"never closed\nmore\n");
  REQUIRE(read.records.size() == 1);
  REQUIRE(read.problems.size() == 1);
  CHECK(read.problems[0].line == 2);
  CHECK(read.problems[0].column == 3);
  CHECK_THAT(read.problems[0].message, Catch::Contains("never closed"));
}

TEST_CASE("csv: a quote inside an unquoted field and text after a closing quote", "[prices]") {
  const auto read = read_csv("a,b\"c\n\"x\"y,z\nok,1\n");
  REQUIRE(read.problems.size() == 2);
  CHECK(read.problems[0].line == 1);
  CHECK(read.problems[0].column == 4);
  CHECK_THAT(read.problems[0].message, Catch::Contains("a quote inside the unquoted field"));
  CHECK(read.problems[1].line == 2);
  CHECK(read.problems[1].column == 4);
  CHECK_THAT(read.problems[1].message, Catch::Contains("'y' follows the closing quote"));
  REQUIRE(read.records.size() == 1);
  CHECK(values(read.records[0]) == std::vector<std::string>{"ok", "1"});
}

TEST_CASE("csv: fields and records over the limits, and bytes that do not print", "[prices]") {
  const std::string long_field(csv::max_field_bytes + 10, 'x');
  std::string many(csv::max_columns, ',');
  many += "\n";
  const auto read = read_csv(long_field + "\n" + many + "\"\x1b[31m\xff\"z\n");
  REQUIRE(read.problems.size() == 3);
  CHECK_THAT(read.problems[0].message,
             Catch::Contains("the field that starts here ('xxx") && Catch::Contains("...') is 65546 bytes, over the "
                                                                                    "limit of 65536 bytes"));
  CHECK(read.problems[0].message.size() < 400);
  CHECK(read.problems[1].line == 2);
  CHECK_THAT(read.problems[1].message, Catch::Contains("more than 1000 fields"));
  CHECK(read.problems[2].message.find('\x1b') == std::string::npos);
  CHECK(read.problems[2].message.find('\xff') == std::string::npos);
}

TEST_CASE("csv: lines that end in a bare CR are said to, not read as one line", "[prices]") {
  const std::string classic_mac = "card,price_per_gpu_hour\rh100-sxm5,2.1\rh200,3\r";
  const auto read = read_csv(classic_mac);
  REQUIRE_FALSE(read.problems.empty());
  CHECK(read.problems[0].line == 1);
  CHECK(read.problems[0].column == 24);
  CHECK_THAT(read.problems[0].message, Catch::Contains("a carriage return (CR) that does not end a line") &&
                                           Catch::Contains("save it with LF or CRLF"));
  // Through the price-file reader: no "the column '1' is named twice".
  const std::string all = all_messages(diagnostics_of(classic_mac));
  CHECK_THAT(all, Catch::Contains("carriage return"));
  CHECK_THAT(all, !Catch::Contains("named twice"));
  // A CR inside a quoted field is text; CRLF ends a line.
  CHECK(read_csv("a,b\r\n\"x\ry\",2\r\n").problems.empty());
}

// ------------------------------------------------------------ SkyPilot files

TEST_CASE("a SkyPilot Lambda file: per-GPU prices, shapes, locations, unknowns and CPU rows", "[prices]") {
  const std::string file = data_dir + "/lambda/vms.csv";
  const PriceBook book = parse(read_text(file), file);
  REQUIRE(book.files.size() == 1);
  const auto& summary = book.files[0];
  CHECK(summary.format == PriceFileFormat::skypilot);
  CHECK(summary.provider == "lambda");
  CHECK(summary.date == "2026-11-30");
  CHECK(summary.rows == 19);
  CHECK(summary.cpu_rows == 2);
  CHECK(summary.fractional_rows == 0);
  CHECK(summary.unpriced_rows == 0);
  CHECK(summary.quotes == 15);
  CHECK(book.quotes.size() == 15);
  REQUIRE(summary.unknown.size() == 1);
  CHECK(summary.unknown[0].name == "V100");
  CHECK(summary.unknown[0].rows == 2);

  std::vector<std::string> order;
  for (const auto& card : summary.cards) {
    order.push_back(card.gpu_id);
  }
  CHECK(order ==
        std::vector<std::string>{"h100-pcie", "h100-sxm5", "a100-40gb-sxm4", "a100-80gb-sxm4", "a10", "gh200"});
  const auto* sxm = card_in(summary, "h100-sxm5");
  REQUIRE(sxm != nullptr);
  CHECK(sxm->quotes == 6);
  CHECK(sxm->low_usd == Approx(2.90));
  CHECK(sxm->high_usd == Approx(3.29));
  CHECK(sxm->shapes == std::vector<int>{1, 2, 4, 8});
  REQUIRE(sxm->names.size() == 1);
  CHECK(sxm->names[0] == "H100 (gpu_1x_h100_sxm5, gpu_2x_h100_sxm5, gpu_4x_h100_sxm5, gpu_8x_h100_sxm5)");
  CHECK(card_in(summary, "h100-pcie")->names == std::vector<std::string>{"H100 (gpu_1x_h100_pcie)"});
  CHECK(card_in(summary, "a100-80gb-sxm4")->names == std::vector<std::string>{"A100-80GB (gpu_8x_a100_80gb_sxm4)"});
  CHECK(card_in(summary, "a100-40gb-sxm4")->low_usd == Approx(1.29));
  CHECK(card_in(summary, "a10")->low_usd == Approx(0.71));
  CHECK(card_in(summary, "a10")->high_usd == Approx(0.75));

  const auto& first = book.quotes[0];
  CHECK(first.gpu_id == "h100-pcie");
  CHECK(first.quote.low_usd == Approx(2.49));
  CHECK(first.quote.high_usd == Approx(2.49));
  CHECK(first.quote.kind == PriceKind::on_demand);
  CHECK(first.quote.region == Region::global);
  CHECK(first.quote.provider == "lambda");
  CHECK(first.quote.location == "us-east-1");
  CHECK(first.quote.instance_type == "gpu_1x_h100_pcie");
  CHECK(first.quote.gpus_per_instance == 1);
  CHECK(first.quote.date == "2026-11-30");
  CHECK(first.quote.quoted_in == Currency::usd);
  CHECK(first.quote.source == "SkyPilot catalog " + file);
  CHECK(first.quote.origin == file + ":3");
  const auto eight = std::find_if(book.quotes.begin(), book.quotes.end(), [](const ImportedQuote& q) {
    return q.quote.instance_type == "gpu_8x_h100_sxm5" && q.quote.location == "us-east-1";
  });
  REQUIRE(eight != book.quotes.end());
  CHECK(eight->quote.low_usd == Approx(23.92 / 8));
  CHECK(eight->quote.gpus_per_instance == 8);
  for (const auto& q : book.quotes) {
    CHECK(q.quote.kind == PriceKind::on_demand);  // Lambda has no spot
  }
}

TEST_CASE("a SkyPilot AWS file: its column order, spot quotes, zones kept once, China regions", "[prices]") {
  const std::string file = data_dir + "/aws/vms.csv";
  const PriceBook book = parse(read_text(file), file);
  const auto& summary = book.files[0];
  CHECK(summary.provider == "aws");
  CHECK(summary.rows == 11);
  CHECK(summary.cpu_rows == 1);
  CHECK(summary.unknown.empty());
  CHECK(summary.quotes == 14);
  const auto* h100 = card_in(summary, "h100-sxm5");
  REQUIRE(h100 != nullptr);
  CHECK(h100->quotes == 4);
  CHECK(h100->low_usd == Approx(39.47 / 8));
  CHECK(h100->high_usd == Approx(98.32 / 8));
  CHECK(h100->shapes == std::vector<int>{8});
  CHECK(card_in(summary, "a100-40gb-sxm4")->quotes == 3);  // one on-demand, a spot price per zone
  CHECK(card_in(summary, "a100-80gb-sxm4")->quotes == 2);
  CHECK(card_in(summary, "a10g")->quotes == 3);
  CHECK(card_in(summary, "l40s")->quotes == 2);
  std::size_t spot = 0;
  for (const auto& q : book.quotes) {
    spot += q.quote.kind == PriceKind::spot ? 1U : 0U;
    if (q.quote.location == "cn-north-1") {
      CHECK(q.quote.region == Region::cn);
      CHECK(q.gpu_id == "a10g");
    } else {
      CHECK(q.quote.region == Region::global);
    }
  }
  CHECK(spot == 7);
}

TEST_CASE("SkyPilot accelerator names onto the catalog's cards", "[prices]") {
  struct Case {
    std::string_view name;
    std::string_view instance_type;
    int mib;                // 0: no GpuInfo
    std::string_view card;  // empty: unknown
  };
  const Case cases[] = {
      {"A10", "gpu_1x_a10", 24576, "a10"},
      {"A100", "gpu_8x_a100", 40960, "a100-40gb-sxm4"},
      {"A100", "p4de.24xlarge", 81920, "a100-80gb-sxm4"},
      {"A100", "", 0, "a100-40gb-sxm4"},  // GCP's rows: SkyPilot's "A100" is the 40 GB part
      {"910B", "x", 65536, ""},           // three 64 GB Ascend 910B cards: still ambiguous
      {"A100-80GB", "gpu_8x_a100_80gb_sxm4", 81920, "a100-80gb-sxm4"},
      {"A100-80GB", "a2-ultragpu-1g", 0, "a100-80gb-sxm4"},
      {"A100-80GB-SXM", "x", 81920, "a100-80gb-sxm4"},
      {"A10G", "g5.xlarge", 23028, "a10g"},
      {"A40", "x", 46068, "a40"},
      {"A6000", "gpu_1x_a6000", 49152, "rtx-a6000"},
      {"RTXA6000", "x", 49140, "rtx-a6000"},
      {"B200", "x", 183359, "b200"},
      {"GH200", "gpu_1x_gh200", 98304, "gh200"},
      {"H100", "gpu_8x_h100_sxm5", 81920, "h100-sxm5"},
      {"H100", "gpu_1x_h100_pcie", 81920, "h100-pcie"},
      {"H100", "p5.48xlarge", 81920, "h100-sxm5"},
      {"H100", "Standard_NC40ads_H100_v5", 95830, "h100-nvl"},
      {"H100", "x", 40960, ""},  // no H100 has 40 GB
      {"H100-MEGA", "a3-megagpu-8g", 81920, "h100-sxm5"},
      {"H100-NVL", "x", 95830, "h100-nvl"},
      {"H100-NVLINK", "x", 81920, "h100-sxm5"},
      {"H100-SXM", "x", 81920, "h100-sxm5"},
      {"H200", "p5en.48xlarge", 143771, "h200-sxm"},
      {"H200-SXM", "x", 143771, "h200-sxm"},
      {"L4", "g6.xlarge", 23034, "l4"},
      {"L40", "x", 46068, "l40"},
      {"L40S", "g6e.xlarge", 46068, "l40s"},
      {"MI300X", "x", 196608, "mi300x"},
      {"RTX4090", "x", 24564, "rtx-4090"},
      {"RTX5090", "x", 32607, "rtx-5090"},
      {"RTX6000-Ada", "x", 49140, "rtx-6000-ada"},
      {"RTX6000", "gpu_1x_rtx6000", 24576, ""},  // the Turing Quadro RTX 6000
      {"T4", "g4dn.xlarge", 15360, "t4"},
      {"T4g", "g5g.xlarge", 15360, "t4"},
      {"V100", "gpu_8x_v100", 16384, ""},
      {"V100-32GB", "p3dn.24xlarge", 32768, ""},
      {"K80", "x", 12288, ""},
      {"tpu-v5p", "x", 0, ""},
      {"Gaudi HL-205", "dl1.24xlarge", 32768, ""},
  };
  std::string text = "InstanceType,AcceleratorName,AcceleratorCount,Price,Region,GpuInfo\n";
  int price = 100;  // a price of its own for each row, so that no row is another's duplicate
  for (const auto& c : cases) {
    const std::string info =
        c.mib == 0 ? std::string()
                   : fmt::format("\"{{'Gpus': [{{'Name': '{}', 'Count': 1, 'MemoryInfo': {{'SizeInMiB': {}}}}}]}}\"",
                                 c.name, c.mib);
    text += fmt::format("{},{},1,{},r1,{}\n", c.instance_type, c.name, price++, info);
  }
  const PriceBook book = parse(text);
  std::map<std::string, std::string> by_origin;
  for (const auto& q : book.quotes) {
    by_origin[q.quote.origin] = q.gpu_id;
  }
  int line = 2;
  for (const auto& c : cases) {
    INFO(c.name << " in " << c.instance_type << " with " << c.mib << " MiB");
    const auto it = by_origin.find(fmt::format("test/vms.csv:{}", line++));
    CHECK((it == by_origin.end() ? std::string() : it->second) == c.card);
  }
  CHECK(unknown_rows(book.files[0], "V100") == 1);
  CHECK(unknown_rows(book.files[0], "tpu-v5p") == 1);
  CHECK(unknown_rows(book.files[0], "910B") == 1);
}

TEST_CASE("SkyPilot rows skipped: fractional GPUs, no price at all", "[prices]") {
  const PriceBook book = parse(
      "InstanceType,AcceleratorName,AcceleratorCount,Price,SpotPrice,Region\n"
      "Standard_NC4as_T4_v3_quarter,T4,0.25,0.2,,eastus\n"
      "odd,T4,1.5,0.2,,eastus\n"
      "g4dn.xlarge,T4,1,,,us-east-1\n"
      "g4dn.2xlarge,T4,1,,0.2,us-east-1\n");
  const auto& summary = book.files[0];
  CHECK(summary.rows == 4);
  CHECK(summary.fractional_rows == 2);
  CHECK(summary.unpriced_rows == 1);
  REQUIRE(book.quotes.size() == 1);
  CHECK(book.quotes[0].quote.kind == PriceKind::spot);
  CHECK(book.quotes[0].quote.location == "us-east-1");
}

TEST_CASE("a SkyPilot GCP layout: GPUs without an instance, TPU pods not read further", "[prices]") {
  const PriceBook book = parse(
      "InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,AvailabilityZone,Price,"
      "SpotPrice\n"
      "a2-highgpu-1g,12.0,85.0,,,,us-central1,us-central1-a,0.73948,0.29576\n"
      ",,,A100,1,A100,us-central1,us-central1-a,2.93,1.17\n"
      ",,,tpu-v5p-11520,1,tpu-v5p-11520,us-east5,us-east5-a,24192.0,8986.1184\n",
      "gcp/vms.csv");
  const auto& summary = book.files[0];
  CHECK(summary.provider == "gcp");
  CHECK(summary.cpu_rows == 1);
  CHECK(unknown_rows(summary, "tpu-v5p-11520") == 1);
  REQUIRE(book.quotes.size() == 2);
  CHECK(book.quotes[0].gpu_id == "a100-40gb-sxm4");
  CHECK(book.quotes[0].quote.instance_type.empty());
  CHECK(book.quotes[0].quote.gpus_per_instance == 1);
}

TEST_CASE("a SkyPilot file with only CPU rows is a summary, not an error", "[prices]") {
  const PriceBook book = parse("InstanceType,AcceleratorName,AcceleratorCount,Price\nm5.large,,,0.096\n");
  CHECK(book.quotes.empty());
  CHECK(book.files[0].cpu_rows == 1);
}

TEST_CASE("the bad SkyPilot fixture: each malformed row located", "[prices]") {
  const std::string file = data_dir + "/bad/vms.csv";
  const auto list = diagnostics_of(read_text(file), file);
  INFO(all_messages(list));
  REQUIRE(list.size() == 3);
  CHECK(list[0].line == 2);
  CHECK(list[0].column == 38);
  CHECK(list[0].key_path == "Price");
  CHECK_THAT(list[0].message, Catch::Contains("'abc' is not a positive price"));
  CHECK(list[1].line == 3);
  CHECK(list[1].key_path == "AcceleratorCount");
  CHECK_THAT(list[1].message, Catch::Contains("'0' is not a positive GPU count"));
  CHECK(list[2].line == 4);
  CHECK_THAT(list[2].message, Catch::Contains("'-2' is not a positive GPU count"));
  CHECK(list[2].file == file);
}

TEST_CASE("a price below the catalog's range is refused in both formats, not costed as $0.00", "[prices]") {
  const auto sky = diagnostics_of(
      "InstanceType,AcceleratorName,AcceleratorCount,Price\ntiny,H100,1,1e-300\nfree,H100,8,0.000000001\n",
      "test/vms.csv");
  REQUIRE(sky.size() == 2);
  CHECK_THAT(sky[0].message, Catch::Contains("outside 0.01-1000 USD"));
  CHECK_THAT(sky[1].message, Catch::Contains("outside 0.01-1000 USD"));
  std::string text(quotes_header);
  text += "h100-sxm5,0.000000001,usd,a,r,2026-10,spot\n";
  text += "h100-sxm5,0.01,usd,a,r,2026-10,spot\n";
  const auto quotes = diagnostics_of(text);
  REQUIRE(quotes.size() == 1);
  CHECK(quotes[0].line == 2);
  CHECK_THAT(quotes[0].message, Catch::Contains("0.000000001 USD is outside 0.01-1000 USD per GPU-hour"));
}

TEST_CASE("SkyPilot: a count over 1024, a price over the limit, a file outside a provider's folder", "[prices]") {
  const auto list = diagnostics_of(
      "InstanceType,AcceleratorName,AcceleratorCount,Price\nbig,H100,2048,1\ndear,H100,1,20000\n", "test/vms.csv");
  REQUIRE(list.size() == 2);
  CHECK_THAT(list[0].message, Catch::Contains("over the limit of 1024"));
  CHECK_THAT(list[1].message, Catch::Contains("20000 USD per GPU-hour, outside 0.01-1000 USD"));
  const auto bare = diagnostics_of("InstanceType,AcceleratorName,AcceleratorCount,Price\nx,H100,1,1\n", "vms.csv");
  REQUIRE(bare.size() == 1);
  CHECK_THAT(bare[0].message, Catch::Contains("PROVIDER=FILE"));
  CHECK(parse("InstanceType,AcceleratorName,AcceleratorCount,Price\nx,H100,1,1\n", "vms.csv", "runpod")
            .files[0]
            .provider == "runpod");
}

// ------------------------------------------------------------ quotes files

TEST_CASE("the quotes fixture: USD and CNY, kinds, instances, markets and unknown cards", "[prices]") {
  const std::string file = data_dir + "/quotes.csv";
  const PriceBook book = parse(read_text(file), file);
  const auto& summary = book.files[0];
  CHECK(summary.format == PriceFileFormat::quotes);
  CHECK(summary.provider.empty());
  CHECK(summary.date == "2026-11-20");
  CHECK(summary.rows == 5);
  CHECK(summary.quotes == 4);
  REQUIRE(summary.unknown.size() == 1);
  CHECK(summary.unknown[0].name == "V100");
  REQUIRE(book.quotes.size() == 4);

  const auto& reserved = book.quotes[0];
  CHECK(reserved.gpu_id == "h100-sxm5");
  CHECK(reserved.quote.kind == PriceKind::reserved);
  CHECK(reserved.quote.low_usd == Approx(1.85));
  CHECK(reserved.quote.source == "contract ACME-2026-17");
  CHECK(reserved.quote.provider == "acme-cloud");
  CHECK(reserved.quote.location == "us-east");
  CHECK(reserved.quote.region == Region::global);
  CHECK(reserved.quote.gpus_per_instance == 0);
  CHECK(reserved.quote.origin == file + ":2");

  CHECK(book.quotes[1].gpu_id == "a100-80gb-sxm4");
  CHECK(book.quotes[1].quote.kind == PriceKind::on_demand);
  CHECK(book.quotes[1].quote.source == "price file " + file);

  const auto& cny = book.quotes[2];
  CHECK(cny.gpu_id == "ascend-910b2");
  CHECK(cny.quote.quoted_in == Currency::cny);
  CHECK(cny.quote.low_quoted == Approx(12.0));
  CHECK(cny.quote.low_usd == Approx(12.0 / catalog().info().exchange_rate.cny_per_usd));
  CHECK(cny.quote.region == Region::cn);  // a CNY quote is for the China market unless told otherwise

  const auto& instance = book.quotes[3];
  CHECK(instance.quote.instance_type == "gpu-h100-sxm.8gpu");
  CHECK(instance.quote.gpus_per_instance == 8);
  CHECK(instance.quote.source == "Nebius, list price");
  const auto* h100 = card_in(summary, "h100-sxm5");
  REQUIRE(h100 != nullptr);
  CHECK(h100->quotes == 2);
  CHECK(h100->shapes == std::vector<int>{8});
  CHECK(h100->names == std::vector<std::string>{"h100-sxm5 (gpu-h100-sxm.8gpu)"});
}

TEST_CASE("quotes: columns in any order and case, market given, duplicates kept once", "[prices]") {
  const PriceBook book = parse(
      "Kind,DATE,Region,Provider,Currency,Price_Per_GPU_Hour,Card,Market\n"
      "spot,2026-11,cn-beijing,aliyun,CNY,20,h100-sxm5,global\n"
      "spot,2026-11,cn-beijing,aliyun,CNY,20,h100-sxm5,global\n"
      "on-demand,2026-10,us,x,usd,2,h100-pcie,cn\n",
      "test/quotes.csv");
  REQUIRE(book.quotes.size() == 2);
  CHECK(book.files[0].rows == 3);
  CHECK(book.quotes[0].quote.region == Region::global);
  CHECK(book.quotes[0].quote.quoted_in == Currency::cny);
  CHECK(book.quotes[1].quote.region == Region::cn);
  CHECK(book.files[0].date == "2026-11");
}

TEST_CASE("the bad quotes fixture: each malformed row its own located diagnostic", "[prices]") {
  const std::string file = data_dir + "/bad/quotes.csv";
  const auto list = diagnostics_of(read_text(file), file);
  INFO(all_messages(list));
  REQUIRE(list.size() == 5);
  CHECK(list[0].line == 2);
  CHECK(list[0].column == 11);
  CHECK(list[0].key_path == "price_per_gpu_hour");
  CHECK_THAT(list[0].message, Catch::Contains("'-2' is not a positive price per GPU-hour; expected a number such as "
                                              "2.10"));
  CHECK(list[1].line == 3);
  CHECK(list[1].key_path == "provider");
  CHECK_THAT(list[1].message, Catch::Contains("missing value"));
  CHECK(list[2].line == 4);
  CHECK(list[2].key_path == "date");
  CHECK_THAT(list[2].message, Catch::Contains("'2026-13-01' is not a date"));
  CHECK(list[3].line == 5);
  CHECK(list[3].key_path == "kind");
  CHECK_THAT(list[3].message, Catch::Contains("'hourly' is not a price kind"));
  CHECK(list[4].line == 6);
  CHECK(list[4].key_path == "card");
  CHECK_THAT(list[4].message, Catch::Contains("'A100' is ambiguous"));
  CHECK_THAT(list[4].message, Catch::Contains("a100-80gb-pcie"));
  CHECK_THAT(list[4].message, Catch::Contains("write the id"));
  CHECK(list[0].to_string().rfind(file + ":2:11: price_per_gpu_hour: '-2'", 0) == 0);
}

TEST_CASE("quotes: prices, counts, dates and markets that are not valid", "[prices]") {
  std::string text(quotes_header.substr(0, quotes_header.size() - 1));
  text += ",instance_type,gpus_per_instance,market\n";
  text += "h100-sxm5,$2,usd,a,r,2026-10,spot,,,\n";            // 2
  text += "h100-sxm5,2/h,usd,a,r,2026-10,spot,,,\n";           // 3
  text += "h100-sxm5,nan,usd,a,r,2026-10,spot,,,\n";           // 4
  text += "h100-sxm5,20000,usd,a,r,2026-10,spot,,,\n";         // 5
  text += "h100-sxm5,99999,cny,a,r,2026-10,spot,,,\n";         // 6
  text += "h100-sxm5,2,eur,a,r,2026-10,spot,,,\n";             // 7
  text += "h100-sxm5,2,usd,a,r,2026-02-30,spot,,,\n";          // 8
  text += "h100-sxm5,2,usd,a,r,2026,spot,,,\n";                // 9
  text += "h100-sxm5,2,usd,a,r,2026-10,ondemand,,,\n";         // 10
  text += "h100-sxm5,2,usd,a,r,2026-10,spot,p5,,\n";           // 11
  text += "h100-sxm5,2,usd,a,r,2026-10,spot,,8,\n";            // 12
  text += "h100-sxm5,2,usd,a,r,2026-10,spot,p5,0.5,\n";        // 13
  text += "h100-sxm5,2,usd,a,r,2026-10,spot,,,us\n";           // 14
  text += "h100-sxm5,2,usd,a,,2026-10,spot,,,\n";              // 15
  text += "h100-sxm5,2,usd,a,r,2026-10\n";                     // 16
  text += "h100-sxm5,2,usd,\"a\x1b[2J\",r,2026-10,spot,,,\n";  // 17
  const auto list = diagnostics_of(text);
  const std::string all = all_messages(list);
  INFO(all);
  REQUIRE(list.size() == 16);
  CHECK_THAT(all, Catch::Contains("quotes.csv:2:11: price_per_gpu_hour: '$2' is not a positive price"));
  CHECK_THAT(all, Catch::Contains("quotes.csv:3:11: price_per_gpu_hour: '2/h' is not"));
  CHECK_THAT(all, Catch::Contains("quotes.csv:4:11: price_per_gpu_hour: 'nan' is not"));
  CHECK_THAT(all,
             Catch::Contains("quotes.csv:5:11: price_per_gpu_hour: 20000 USD is outside 0.01-1000 USD per GPU-hour"));
  CHECK_THAT(all, Catch::Contains("quotes.csv:6:11: price_per_gpu_hour: 99999 CNY is"));
  CHECK_THAT(all, Catch::Contains("quotes.csv:7:13: currency: 'eur' is not a currency; expected usd or cny"));
  CHECK_THAT(all, Catch::Contains("quotes.csv:8:21: date: '2026-02-30' is not a date"));
  CHECK_THAT(all, Catch::Contains("quotes.csv:9:21: date: '2026' is not a date"));
  CHECK_THAT(all, Catch::Contains("quotes.csv:10:29: kind: 'ondemand' is not a price kind"));
  CHECK_THAT(all, Catch::Contains("did you mean 'on-demand'?"));
  CHECK_THAT(all, Catch::Contains("quotes.csv:11:37: gpus_per_instance: an instance_type needs gpus_per_instance"));
  CHECK_THAT(all, Catch::Contains("quotes.csv:12:34: instance_type: gpus_per_instance counts"));
  CHECK_THAT(all, Catch::Contains("quotes.csv:13:37: gpus_per_instance: '0.5' is not a GPU count"));
  CHECK_THAT(all, Catch::Contains("quotes.csv:14:36: market: 'us' is not a market; expected global or cn"));
  CHECK_THAT(all, Catch::Contains("quotes.csv:15:19: region: missing value"));
  CHECK_THAT(all, Catch::Contains("quotes.csv:16:0: the row has 6 values but the header row names 10 columns"));
  CHECK_THAT(all, Catch::Contains("quotes.csv:17:17: provider: 'a\\x1B[2J' holds bytes that are not printable"));
  CHECK(all.find('\x1b') == std::string::npos);
}

TEST_CASE("quotes: unknown, repeated and missing columns", "[prices]") {
  const auto list = diagnostics_of(
      "card,price_per_gpu_hr,currency,provider,region,date,kind,Card\nh100-sxm5,2,usd,a,r,2026-10,spot,x\n");
  const std::string all = all_messages(list);
  INFO(all);
  REQUIRE(list.size() == 3);
  CHECK_THAT(all, Catch::Contains("quotes.csv:1:58: card: the column 'card' is named twice in the header row"));
  CHECK_THAT(all, Catch::Contains("quotes.csv:1:6: price_per_gpu_hr: unknown column 'price_per_gpu_hr'; did you mean "
                                  "'price_per_gpu_hour'?"));
  CHECK_THAT(all,
             Catch::Contains("quotes.csv:1:0: price_per_gpu_hour: the header row has no 'price_per_gpu_hour' column"));
}

TEST_CASE("price files: a header and no rows, an unknown header, no header", "[prices]") {
  const auto header_only = diagnostics_of(quotes_header);
  REQUIRE(header_only.size() == 1);
  CHECK_THAT(header_only[0].message, Catch::Contains("no price rows"));
  const auto skypilot_only = diagnostics_of("InstanceType,AcceleratorName,AcceleratorCount,Price\r\n", "x/vms.csv");
  REQUIRE(skypilot_only.size() == 1);
  CHECK_THAT(skypilot_only[0].message, Catch::Contains("no price rows"));
  const auto neither = diagnostics_of("gpu,usd\nh100,2\n");
  REQUIRE(neither.size() == 1);
  CHECK(neither[0].line == 1);
  CHECK_THAT(neither[0].message, Catch::Contains("InstanceType, AcceleratorName, AcceleratorCount, Price"));
  CHECK_THAT(neither[0].message, Catch::Contains("card, price_per_gpu_hour, currency, provider, region, date, kind"));
  CHECK_THAT(diagnostics_of("\n\n")[0].message, Catch::Contains("no header row"));
  const auto bad_header = diagnostics_of("card,\"price\n");
  REQUIRE(bad_header.size() == 1);
  CHECK_THAT(bad_header[0].message, Catch::Contains("never closed"));
}

TEST_CASE("quotes: a PROVIDER= for a quotes file is an error", "[prices]") {
  CHECK_THROWS_AS(parse(std::string(quotes_header) + "h100-sxm5,2,usd,a,r,2026-10,spot\n", "q.csv", "acme"), DataError);
}

TEST_CASE("price files: at most 50 diagnostics, then a count", "[prices]") {
  std::string text(quotes_header);
  for (int i = 0; i < 70; ++i) {
    text += "h100-sxm5,-1,usd,a,r,2026-10,spot\n";
  }
  const auto list = diagnostics_of(text);
  REQUIRE(list.size() == 51);
  CHECK(list[49].line == 51);
  CHECK(list[50].line == 0);
  CHECK(list[50].message == "... and 20 more problems");
}

// ------------------------------------------------------------ arguments and loading

TEST_CASE("parse_price_file_arg: PROVIDER=FILE or FILE", "[prices]") {
  const auto named = parse_price_file_arg("lambda=vms.csv");
  CHECK(named.provider == "lambda");
  CHECK(named.file == "vms.csv");
  CHECK(parse_price_file_arg("vms.csv").provider.empty());
  CHECK(parse_price_file_arg("vms.csv").file == "vms.csv");
  CHECK(parse_price_file_arg("./a=b.csv").file == "./a=b.csv");
  CHECK(parse_price_file_arg("./a=b.csv").provider.empty());
  CHECK(parse_price_file_arg("lambda=").file == "lambda=");
  CHECK(parse_price_file_arg("=x.csv").file == "=x.csv");
  CHECK(parse_price_file_arg("a b=c.csv").provider.empty());
  const auto nested = parse_price_file_arg("my.cloud_2-x=dir/x=y.csv");
  CHECK(nested.provider == "my.cloud_2-x");
  CHECK(nested.file == "dir/x=y.csv");
  CHECK(parse_price_file_arg(std::string(64, 'p') + "=f.csv").provider.size() == 64);
  CHECK(parse_price_file_arg(std::string(65, 'p') + "=f.csv").provider.empty());
  CHECK(names(PriceFileFormat{})[0].name == "skypilot");
  CHECK(to_string(PriceFileFormat::quotes) == "quotes");
  try {
    (void)parse_price_file_arg("");
    FAIL("expected a UsageError");
  } catch (const UsageError& e) {
    CHECK_THAT(e.what(), Catch::Contains("--price-file"));
  }
}

TEST_CASE("load_price_files: every file's problems together, the same file twice refused", "[prices]") {
  const PriceBook book =
      load_price_files({data_dir + "/lambda/vms.csv", "lambda2=" + data_dir + "/aws/vms.csv"}, catalog());
  REQUIRE(book.files.size() == 2);
  CHECK(book.files[1].provider == "lambda2");
  CHECK(book.quotes.size() == 15 + 14);
  try {
    (void)load_price_files({data_dir + "/bad/quotes.csv", data_dir + "/missing.csv", data_dir + "/bad/vms.csv"},
                           catalog());
    FAIL("expected a DataError");
  } catch (const DataError& e) {
    const std::string all = all_messages(e.diagnostics());
    CHECK(e.diagnostics().size() == 5 + 1 + 3);
    CHECK_THAT(all, Catch::Contains("missing.csv: cannot read: no such file"));
  }
  CHECK_THROWS_AS(load_price_files({data_dir + "/quotes.csv", data_dir + "/../prices/quotes.csv"}, catalog()),
                  UsageError);
  CHECK_THROWS_AS(load_price_files({data_dir + "/quotes.csv", "x=" + data_dir + "/quotes.csv"}, catalog()), UsageError);
  CHECK_THROWS_AS(load_price_files({""}, catalog()), UsageError);
}

TEST_CASE("load_price_files: a SkyPilot file's date is its mtime, never after SOURCE_DATE_EPOCH", "[prices]") {
  const TempDir dir;
  std::filesystem::create_directory(dir.path() / "lambda");
  const auto file = dir.path() / "lambda" / "vms.csv";
  std::filesystem::copy_file(data_dir + "/lambda/vms.csv", file);
  set_mtime(file, 1767225599);  // 2025-12-31 23:59:59 UTC
  {
    const EnvironmentVariable unset("SOURCE_DATE_EPOCH", nullptr);
    const auto book = load_price_files({file.string()}, catalog());
    CHECK(book.files[0].date == "2025-12-31");
    CHECK(book.quotes[0].quote.date == "2025-12-31");
  }
  {
    const EnvironmentVariable later("SOURCE_DATE_EPOCH", "1796083200");  // 2026-12-01
    CHECK(load_price_files({file.string()}, catalog()).files[0].date == "2025-12-31");
  }
  {
    const EnvironmentVariable earlier("SOURCE_DATE_EPOCH", "1764547200");  // 2025-12-01 00:00:00 UTC
    CHECK(load_price_files({file.string()}, catalog()).files[0].date == "2025-12-01");
  }
  {
    const EnvironmentVariable junk("SOURCE_DATE_EPOCH", "soon");
    CHECK(load_price_files({file.string()}, catalog()).files[0].date == "2025-12-31");
  }
  // A pipe has no useful modification time: today, clamped the same way.
  const auto fifo = dir.path() / "lambda" / "pipe.csv";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const EnvironmentVariable epoch("SOURCE_DATE_EPOCH", "1764547200");
  const std::string content = read_text(data_dir + "/lambda/vms.csv");
  std::thread writer([&] {
    std::ofstream out(fifo, std::ios::binary);
    out << content;
  });
  std::optional<PriceBook> book;
  try {
    book = load_price_files({"lambda=" + fifo.string()}, catalog());
  } catch (...) {
    // Let a writer still waiting for a reader go before the failure is reported.
    const int fd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
    writer.join();
    ::close(fd);
    throw;
  }
  writer.join();
  CHECK(book->files[0].date == "2025-12-01");
}

// ------------------------------------------------------------ the catalog with the prices

TEST_CASE("with_prices: an empty book leaves the catalog as it is", "[prices]") {
  CHECK(with_prices(catalog(), PriceBook{}) == catalog());
}

TEST_CASE("with_prices: imported quotes replace the catalog's in the markets they cover", "[prices]") {
  PriceBook book;
  PriceQuote global;
  global.low_usd = global.high_usd = 2.0;
  global.provider = "lambda";
  global.region = Region::global;
  global.origin = "x.csv:2";
  book.quotes.push_back(ImportedQuote{"h100-sxm5", global});
  PriceQuote cn = global;
  cn.region = Region::cn;
  cn.low_usd = cn.high_usd = 3.0;
  book.quotes.push_back(ImportedQuote{"a800-80gb-sxm", cn});
  book.files.push_back(PriceFileSummary{});

  const Catalog priced = with_prices(catalog(), book);
  REQUIRE(priced.size() == catalog().size());
  CHECK(priced.efficiency() == catalog().efficiency());
  CHECK(priced.info() == catalog().info());
  for (std::size_t i = 0; i < priced.size(); ++i) {
    const GpuSpec& before = catalog().gpus()[i];
    const GpuSpec& after = priced.gpus()[i];
    INFO(before.id);
    CHECK(after.efficiency == before.efficiency);
    CHECK(after.purchase_usd_per_card == before.purchase_usd_per_card);
    if (before.id == "h100-sxm5") {
      std::size_t cn_quotes = 0;
      std::size_t imported = 0;
      for (const auto& q : after.rent_usd_per_gpu_hour) {
        cn_quotes += q.region == Region::cn ? 1U : 0U;
        imported += q.origin.empty() ? 0U : 1U;
        if (q.region == Region::global) {
          CHECK(q.origin == "x.csv:2");
        }
      }
      CHECK(imported == 1);
      CHECK(cn_quotes == 3);
      CHECK(after.rent_usd_per_gpu_hour.size() == 4);
    } else if (before.id == "a800-80gb-sxm") {
      REQUIRE(after.rent_usd_per_gpu_hour.size() == 1);
      CHECK(after.rent_usd_per_gpu_hour[0].low_usd == 3.0);
    } else {
      CHECK(after.rent_usd_per_gpu_hour == before.rent_usd_per_gpu_hour);
    }
  }
  CHECK(book.quotes_for("h100-sxm5").size() == 1);
  CHECK(book.quotes_for("H100 SXM5").size() == 1);
  CHECK(book.quotes_for("h100-pcie").empty());
}

TEST_CASE("the quotes example of docs/prices.md reads as documented", "[prices]") {
  const std::string doc = read_text(std::string(GPU_ADVISE_SOURCE_DIR) + "/docs/prices.md");
  const auto start = doc.find("```csv\n");
  REQUIRE(start != std::string::npos);
  const auto end = doc.find("```", start + 7);
  REQUIRE(end != std::string::npos);
  const PriceBook book = parse(doc.substr(start + 7, end - start - 7), "docs/prices.md");
  REQUIRE(book.quotes.size() == 3);
  CHECK(book.quotes[1].quote.region == Region::cn);
  CHECK(book.quotes[2].quote.gpus_per_instance == 8);
}
