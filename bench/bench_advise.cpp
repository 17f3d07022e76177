// Benchmarks (docs/performance.md): one recommend over the full catalog,
// in-process and as a whole process; start-up (parsing the embedded data);
// batch throughput; and how the cost grows with catalog size and request count.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "gpu_advise/advisor.hpp"
#include "gpu_advise/catalog.hpp"
#include "gpu_advise/model.hpp"
#include "gpu_advise/render.hpp"
#include "gpu_advise/rules.hpp"

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

// The whole process, as a user runs it: gpu-advise --params 70B --task lora --budget low.
// Seven repetitions of at least 0.5 s each (about 90 runs); the median of their means is the figure.
void BM_WholeProcess(benchmark::State& state) {
  const char* argv[] = {GPU_ADVISE_BIN, "--params", "70B", "--task", "lora", "--budget", "low", nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  for (auto _ : state) {
    pid_t pid = 0;
    if (posix_spawn(&pid, argv[0], &actions, nullptr, const_cast<char* const*>(argv), environ) != 0) {
      state.SkipWithError("cannot start gpu-advise");
      break;
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      state.SkipWithError("gpu-advise did not exit with status 0");
      break;
    }
  }
  posix_spawn_file_actions_destroy(&actions);
}
BENCHMARK(BM_WholeProcess)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(0.5)
    ->Repetitions(7)
    ->ReportAggregatesOnly(true);

}  // namespace

BENCHMARK_MAIN();
