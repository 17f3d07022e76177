// Benchmarks (docs/performance.md): one recommend over the full catalog,
// in-process and as a whole process; start-up (parsing the embedded data);
// batch throughput; and how the cost grows with catalog size and request count.
#include <fcntl.h>

#include <spawn.h>
#include <sys/wait.h>
#include <cstdio>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "gpu_advise/advisor.hpp"
#include "gpu_advise/catalog.hpp"
#include "gpu_advise/fit.hpp"
#include "gpu_advise/model.hpp"
#include "gpu_advise/prices.hpp"
#include "gpu_advise/render.hpp"
#include "gpu_advise/rules.hpp"
#include "load/csv_reader.hpp"

extern char** environ;

namespace {

using namespace gpu_advise;

const Catalog& catalog() {
  static const Catalog c = load_embedded_catalog();
  return c;
}
const RuleSet& rules() {
  static const RuleSet r = load_embedded_rules();
  return r;
}

Request request(Task task, double params = 70e9) {
  Request r;
  r.params = params;
  r.task = task;
  r.budget = BudgetTier::low;
  return r;
}

constexpr Task tasks[] = {Task::lora, Task::inference, Task::pretrain, Task::full, Task::qlora};

// A catalog of `size` cards: the shipped ones repeated under new ids.
Catalog synthetic(std::size_t size) {
  std::vector<GpuSpec> cards;
  const auto& base = catalog().gpus();
  for (std::size_t i = 0; i < size; ++i) {
    GpuSpec g = base[i % base.size()];
    g.id += fmt::format("-{}", i);
    cards.push_back(std::move(g));
  }
  return Catalog(catalog().info(), std::move(cards), catalog().efficiency());
}

void BM_LoadEmbeddedCatalog(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(load_embedded_catalog());
  }
}
BENCHMARK(BM_LoadEmbeddedCatalog)->Unit(benchmark::kMillisecond);

void BM_LoadEmbeddedRules(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(load_embedded_rules());
  }
}
BENCHMARK(BM_LoadEmbeddedRules)->Unit(benchmark::kMillisecond);

void BM_LoadEmbeddedModels(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(load_embedded_models());
  }
}
BENCHMARK(BM_LoadEmbeddedModels)->Unit(benchmark::kMillisecond);

// One recommend over the full catalog, without rendering.
void BM_Advise(benchmark::State& state) {
  const Request r = request(tasks[state.range(0)]);
  const ModelShape model = infer_shape(r.params);
  for (auto _ : state) {
    benchmark::DoNotOptimize(advise(r, model, catalog(), rules()));
  }
  state.SetLabel(std::string(to_string(r.task)));
}
BENCHMARK(BM_Advise)->DenseRange(0, 4)->Unit(benchmark::kMicrosecond);

// One recommend and its JSON line: what batch does per request. The second
// argument is "top": 0 lists every card, 1 only the winner (as CI pipelines ask).
void BM_BatchRequest(benchmark::State& state) {
  Request r = request(tasks[state.range(0)]);
  if (state.range(1) > 0) {
    r.top = static_cast<int>(state.range(1));
  }
  const ModelShape model = infer_shape(r.params);
  for (auto _ : state) {
    const Report report = advise(r, model, catalog(), rules());
    benchmark::DoNotOptimize(render_json(report, Language::en, JsonStyle::line));
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(std::string(to_string(r.task)));
}
BENCHMARK(BM_BatchRequest)
    ->ArgNames({"task", "top"})
    ->ArgsProduct({benchmark::CreateDenseRange(0, 4, 1), {0, 1}})
    ->Unit(benchmark::kMicrosecond);

// Cost against catalog size: 30, 300 and 3,000 cards.
void BM_CatalogSize(benchmark::State& state) {
  const Catalog big = synthetic(static_cast<std::size_t>(state.range(0)));
  const Request r = request(Task::lora);
  const ModelShape model = infer_shape(r.params);
  for (auto _ : state) {
    benchmark::DoNotOptimize(advise(r, model, big, rules()));
  }
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_CatalogSize)->Arg(30)->Arg(300)->Arg(3000)->Complexity(benchmark::oN)->Unit(benchmark::kMillisecond);

// Cost against the number of requests in one batch.
void BM_RequestCount(benchmark::State& state) {
  const ModelShape model = infer_shape(70e9);
  for (auto _ : state) {
    for (std::int64_t i = 0; i < state.range(0); ++i) {
      const Report report = advise(request(tasks[i % 5]), model, catalog(), rules());
      benchmark::DoNotOptimize(render_json(report, Language::en, JsonStyle::line));
    }
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_RequestCount)->Arg(10)->Arg(100)->Arg(1000)->Complexity(benchmark::oN)->Unit(benchmark::kMillisecond);

// A sweep as a consultant runs one: models x tasks x budgets x regions, each
// combination asked several times over (CI jobs re-check the same plans; the
// sweep measured for the issue had 1,600 distinct lines in 20,000), as JSON Lines.
std::string sweep(std::size_t lines, bool compact) {
  static constexpr const char* params[] = {"7B", "8B", "13B", "32B", "70B", "72B", "405B"};
  static constexpr const char* kinds[] = {"lora", "qlora", "inference", "full"};
  static constexpr const char* budgets[] = {"low", "medium", "high"};
  static constexpr const char* regions[] = {"global", "cn"};
  std::string text;
  for (std::size_t i = 0; i < lines; ++i) {
    const std::size_t k = (i * 7919) % 168;  // 7 x 4 x 3 x 2 distinct requests, visited in a scattered order
    text +=
        fmt::format(R"({{"params":"{}","task":"{}","budget":"{}","region":"{}"{}}})", params[k % 7], kinds[(k / 7) % 4],
                    budgets[(k / 28) % 3], regions[(k / 84) % 2], compact ? R"(,"compact":true)" : "");
    text += '\n';
  }
  return text;
}

// The whole process on `input` as its standard input, output to /dev/null.
void spawn(benchmark::State& state, const std::vector<const char*>& args, const std::string& input = "") {
  std::vector<char*> argv;
  for (const char* arg : args) {
    argv.push_back(const_cast<char*>(arg));
  }
  argv.push_back(nullptr);
  const std::string input_file = "/tmp/gpu_advise_bench_input.jsonl";
  {
    std::FILE* f = std::fopen(input_file.c_str(), "wb");
    std::fwrite(input.data(), 1, input.size(), f);
    std::fclose(f);
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, input_file.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  for (auto _ : state) {
    pid_t pid = 0;
    if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ) != 0) {
      state.SkipWithError("cannot start the program");
      break;
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) > 1) {
      state.SkipWithError("the program failed");
      break;
    }
  }
  posix_spawn_file_actions_destroy(&actions);
}

// Batch over a sweep, whole process: requests per second. Args: lines, compact.
void BM_BatchSweep(benchmark::State& state) {
  const auto lines = static_cast<std::size_t>(state.range(0));
  spawn(state, {GPU_ADVISE_BIN, "batch", "-"}, sweep(lines, state.range(1) != 0));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_BatchSweep)
    ->ArgNames({"lines", "compact"})
    ->ArgsProduct({{2000}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(2.0);

// The same sweep with every line distinct (no repeats to reuse): the cost of sizing itself.
void BM_BatchDistinct(benchmark::State& state) {
  std::string text;
  for (int i = 0; i < state.range(0); ++i) {
    text += fmt::format(R"({{"params":"{}B","task":"{}"{}}})", 7 + i % 400, i % 2 == 0 ? "lora" : "inference",
                        state.range(1) != 0 ? R"(,"compact":true)" : "");
    text += '\n';
  }
  spawn(state, {GPU_ADVISE_BIN, "batch", "-"}, text);
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_BatchDistinct)
    ->ArgNames({"lines", "compact"})
    ->ArgsProduct({{400}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(2.0);

// The floor: a static program that writes the same bytes gpu-advise writes
// for --params 70B --task lora --budget low --format json (GPU_ADVISE_FLOOR,
// built by bench/CMakeLists.txt from that output), and gpu-advise --version.
void BM_StaticPrintFloor(benchmark::State& state) { spawn(state, {GPU_ADVISE_FLOOR}); }
BENCHMARK(BM_StaticPrintFloor)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(0.5)
    ->Repetitions(7)
    ->ReportAggregatesOnly(true);

void BM_Version(benchmark::State& state) { spawn(state, {GPU_ADVISE_BIN, "--version"}); }
BENCHMARK(BM_Version)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(0.5)
    ->Repetitions(7)
    ->ReportAggregatesOnly(true);

// fit: 8 cards against every preset and four tasks, with the largest-model
// sweeps; its cost in units of BM_Advise/0 (one recommend over the whole
// catalog) is the ratio docs/performance.md reports.
void BM_Fit(benchmark::State& state) {
  FitRequest request;
  for (const Task task : {Task::full, Task::lora, Task::qlora, Task::inference}) {
    Request r;
    r.task = task;
    request.tasks.push_back(r);
  }
  request.models = load_embedded_models().models();
  request.fleets = {Fleet{"h100-sxm5", 8}};
  request.find_largest = state.range(0) == 1;
  for (auto _ : state) {
    benchmark::DoNotOptimize(fit(request, catalog(), rules()));
  }
  state.SetLabel(request.find_largest ? "with sweeps" : "rows only");
}
BENCHMARK(BM_Fit)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// A SkyPilot catalog file the size of AWS's v7 vms.csv (about 25,000 rows,
// 2.4 MB): GPU rows of five accelerators across regions and zones, the rest
// CPU rows, as the real file is mostly. Its parse against BM_Advise/0 is the
// ratio docs/performance.md reports.
std::string skypilot_file(std::size_t rows) {
  std::string text =
      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,"
      "AvailabilityZone\n";
  // Each GPU row up to its on-demand price; the spot price and the place follow.
  constexpr const char* gpu_rows[] = {
      "p5.48xlarge,H100,8.0,192.0,2048.0,\"{'Gpus': [{'Name': 'H100', 'Manufacturer': 'NVIDIA', 'Count': 8, "
      "'MemoryInfo': {'SizeInMiB': 81920}}], 'TotalGpuMemoryInMiB': 655360}\",98.32",
      "p4d.24xlarge,A100,8.0,96.0,1152.0,\"{'Gpus': [{'Name': 'A100', 'Manufacturer': 'NVIDIA', 'Count': 8, "
      "'MemoryInfo': {'SizeInMiB': 40960}}], 'TotalGpuMemoryInMiB': 327680}\",32.77",
      "g5.xlarge,A10G,1.0,4.0,16.0,\"{'Gpus': [{'Name': 'A10G', 'Manufacturer': 'NVIDIA', 'Count': 1, "
      "'MemoryInfo': {'SizeInMiB': 24576}}], 'TotalGpuMemoryInMiB': 24576}\",1.006",
      "g6e.xlarge,L40S,1.0,4.0,32.0,\"{'Gpus': [{'Name': 'L40S', 'Manufacturer': 'NVIDIA', 'Count': 1, "
      "'MemoryInfo': {'SizeInMiB': 46068}}], 'TotalGpuMemoryInMiB': 46068}\",1.861",
      "p3.2xlarge,V100,1.0,8.0,61.0,\"{'Gpus': [{'Name': 'V100', 'Manufacturer': 'NVIDIA', 'Count': 1, "
      "'MemoryInfo': {'SizeInMiB': 16384}}], 'TotalGpuMemoryInMiB': 16384}\",3.06",
  };
  for (std::size_t i = 0; i < rows; ++i) {
    if (i % 10 < 2) {
      text += gpu_rows[i % 5];
      text += fmt::format(",0.{},region-{},zone-{}", i % 7 + 1, i % 13 + 1, i % 3 + 1);
    } else {
      text += fmt::format("c5.{}xlarge,,,{}.0,{}.0,,{}.17,0.0{},region-{},zone-{}", i % 24, i % 96, i % 192, i % 9,
                          i % 10, i % 13 + 1, i % 3 + 1);
    }
    text += '\n';
  }
  return text;
}

void BM_PriceFile(benchmark::State& state) {
  const std::string text = skypilot_file(static_cast<std::size_t>(state.range(0)));
  const PriceFileArg arg{"aws/vms.csv", "aws"};
  for (auto _ : state) {
    benchmark::DoNotOptimize(parse_price_file(text, arg, "2026-12-01", catalog()));
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(text.size()));
}
BENCHMARK(BM_PriceFile)->Arg(25000)->Arg(210000)->Unit(benchmark::kMillisecond);

// The hostile sizes (issue 34): 16 MiB, the most a price file may hold, of
// distinct H100 rows (state.range(0) == 0: every row a quote to keep) or of
// distinct accelerator names the catalog does not know (1: every row a name
// for the warning). A linear lookup per row made the first take minutes.
std::string sixteen_mib_file(bool unknown) {
  constexpr std::size_t limit = std::size_t{16} << 20;
  std::string text =
      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,"
      "AvailabilityZone\n";
  for (std::size_t i = 0;; ++i) {
    std::string row = unknown ? fmt::format("i{},X{},8.0,192.0,2048.0,,98.{:02d},39.47,r{},z\n", i, i, i % 100, i)
                              : fmt::format("i{},H100,8.0,192.0,2048.0,,98.{:02d},39.47,r{},z\n", i, i % 100, i);
    if (text.size() + row.size() > limit) {
      return text;
    }
    text += row;
  }
}

void BM_PriceFile16MiB(benchmark::State& state) {
  const std::string text = sixteen_mib_file(state.range(0) == 1);
  const PriceFileArg arg{"aws/vms.csv", "aws"};
  for (auto _ : state) {
    benchmark::DoNotOptimize(parse_price_file(text, arg, "2026-12-01", catalog()));
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(text.size()));
}
BENCHMARK(BM_PriceFile16MiB)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// The baseline of the two above: the same 16 MiB split into records and
// fields by the CSV reader and nothing more, the floor of any price-file read.
void BM_CsvScan16MiB(benchmark::State& state) {
  const std::string text = sixteen_mib_file(false);
  for (auto _ : state) {
    gpu_advise::csv::Reader reader(text);
    gpu_advise::csv::Record record;
    gpu_advise::csv::Problem problem;
    std::size_t fields = 0;
    while (reader.next(record, problem) == gpu_advise::csv::Reader::Status::record) {
      fields += record.fields.size();
    }
    benchmark::DoNotOptimize(fields);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(text.size()));
}
BENCHMARK(BM_CsvScan16MiB)->Unit(benchmark::kMillisecond);

void BM_WholeProcessJson(benchmark::State& state) {
  spawn(state, {GPU_ADVISE_BIN, "--params", "70B", "--task", "lora", "--budget", "low", "--format", "json"});
}
BENCHMARK(BM_WholeProcessJson)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(0.5)
    ->Repetitions(7)
    ->ReportAggregatesOnly(true);

// The whole process, as a user runs it: gpu-advise --params 70B --task lora --budget low.
// Seven repetitions of at least 0.5 s each; the median of their means is the figure.
void BM_WholeProcess(benchmark::State& state) {
  spawn(state, {GPU_ADVISE_BIN, "--params", "70B", "--task", "lora", "--budget", "low"});
}
BENCHMARK(BM_WholeProcess)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(0.5)
    ->Repetitions(7)
    ->ReportAggregatesOnly(true);

}  // namespace

BENCHMARK_MAIN();
