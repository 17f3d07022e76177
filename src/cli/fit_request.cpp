#include "fit_request.hpp"

#include <algorithm>

namespace gpu_advise::cli {

namespace {

constexpr Task default_tasks[] = {Task::full, Task::lora, Task::qlora, Task::inference};

bool in_scope(FlagScope scope, Task task) {
  switch (scope) {
    case FlagScope::any: return true;
    case FlagScope::training: return is_training(task);
    case FlagScope::lora: return task == Task::lora || task == Task::qlora;
    case FlagScope::inference: return task == Task::inference;
  }
  return true;
}

// The flags with those of other kinds of task cleared, for a row of `task`.
Flags for_task(const Flags& flags, Task task) {
  Flags out = flags;
  out.task = std::string(to_string(task));
  for (const auto& spec : flag_table()) {
    if (in_scope(spec.scope, task)) {
      continue;
    }
    struct Clear {
      Flags& f;
      void operator()(std::string Flags::*field) const { (f.*field).clear(); }
      void operator()(std::vector<std::string> Flags::*field) const { (f.*field).clear(); }
      void operator()(bool Flags::*field) const { f.*field = false; }
    };
    std::visit(Clear{out}, spec.field);
  }
  if (task == Task::lora || task == Task::qlora) {  // data parallel plans: the model-parallel degrees do not apply
    out.tensor_parallel.clear();
    out.pipeline_parallel.clear();
    out.context_parallel.clear();
    out.expert_parallel.clear();
  }
  return out;
}

}  // namespace

FitRequest to_fit_request(const Flags& flags, const Catalog& catalog, Presets& presets) {
  if (flags.gpus.empty()) {
    throw UsageError(
        "fit: name the cards you have with --gpu ID and how many with --count N, e.g. fit --gpu ascend-910b2 "
        "--count 8 (see 'gpu-advise catalog list')");
  }
  if (flags.fit_counts.size() > 1 && flags.fit_counts.size() != flags.gpus.size()) {
    throw UsageError(fmt::format("fit: {} --gpu and {} --count: give one --count per --gpu, in order, or one for all",
                                 flags.gpus.size(), flags.fit_counts.size()));
  }
  FitRequest request;
  for (std::size_t i = 0; i < flags.gpus.size(); ++i) {
    Fleet fleet;
    try {
      fleet.gpu_id = catalog.resolve(flags.gpus[i]).id;
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("--gpu: {}", e.what()));
    }
    if (!flags.fit_counts.empty()) {
      const std::string& raw = flags.fit_counts[flags.fit_counts.size() == 1 ? 0 : i];
      fleet.count = wrap("--count", [&] { return static_cast<int>(parse_positive_integer(raw, max_count)); });
    }
    if (std::any_of(request.fleets.begin(), request.fleets.end(),
                    [&](const Fleet& f) { return f.gpu_id == fleet.gpu_id; })) {
      throw UsageError(fmt::format("fit: --gpu {} is named twice; give its --count once", fleet.gpu_id));
    }
    request.fleets.push_back(fleet);
  }

  std::vector<Task> tasks(std::begin(default_tasks), std::end(default_tasks));
  if (!flags.task.empty()) {
    tasks = {parse_task(flags.task, "--task")};
  }
  const bool one_model = !flags.params.empty() || !flags.model.empty() || !flags.model_config.empty();
  std::vector<ModelShape> models;
  if (one_model) {
    models.push_back(resolve_model(flags, presets));
  } else {
    models = presets.get().models();
    std::stable_sort(models.begin(), models.end(),
                     [](const ModelShape& a, const ModelShape& b) { return a.params < b.params; });
  }
  // Each task's request, validated as recommend validates it (a flag of
  // another kind of task is an error only when --task names that task).
  for (const Task task : tasks) {
    Flags typed = flags.task.empty() ? for_task(flags, task) : flags;
    typed.gpus.clear();
    typed.count.clear();
    request.tasks.push_back(to_request(typed, catalog, one_model ? models.front() : infer_shape(1e9)));
  }
  // A preset whose context is shorter than a row's sequence is left out (and counted).
  const auto too_short = [&](const ModelShape& m) {
    return m.max_context > 0 && std::any_of(request.tasks.begin(), request.tasks.end(), [&](const Request& r) {
             return (is_training(r.task) ? r.seq_len : r.context) > m.max_context;
           });
  };
  const std::size_t before = models.size();
  std::erase_if(models, too_short);
  request.models_skipped = before - models.size();
  request.models = std::move(models);
  request.find_largest = !one_model;
  return request;
}

}  // namespace gpu_advise::cli
