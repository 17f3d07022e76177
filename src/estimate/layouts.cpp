// How GPUs split the work: the layouts a request allows on a card, and how
// much each is preferred (docs/methodology.md §3-4).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "estimate/parts.hpp"
#include "gpu_advise/units.hpp"

namespace gpu_advise::sizing {

namespace {

std::vector<int> powers_of_two_up_to(int limit) {
  std::vector<int> out;
  for (int v = 1; v <= limit; v *= 2) {
    out.push_back(v);
  }
  return out;
}

// A degree the user fixed (--tp, --pp, --cp), or the searched ones.
std::vector<int> degrees(std::optional<int> fixed, int limit) {
  return fixed ? std::vector<int>{*fixed} : powers_of_two_up_to(limit);
}

}  // namespace

std::optional<EstimateNote> scale_out_note(const GpuSpec& gpu, int count) {
  const int domain = gpu.interconnect.domain_size;
  if (count <= 1 || count <= domain) {
    return std::nullopt;
  }
  if (domain < 2) {
    return EstimateNote{EstimateNote::Kind::pcie_scale_out, count, 0};
  }
  if (domain == 2) {
    return EstimateNote{EstimateNote::Kind::pair_scale_out, count, 0};
  }
  return EstimateNote{EstimateNote::Kind::multi_node, count, (count + domain - 1) / domain};
}

double layout_preference(const Layout& layout, const TrainingEstimate& time) {
  const double speed = time.tokens_per_s_per_gpu.typical;
  // Within 1% a doubling of model parallelism, the simpler layout wins.
  const double parallel = std::log2(static_cast<double>(layout.model_parallel()));
  return speed / (1.0 + 0.01 * parallel) * (1.0 - 1e-7 * layout.zero_stage);
}

std::vector<Layout> model_parallel_shapes(const Request& request, const ModelShape& model, const GpuSpec& gpu,
                                          int limit) {
  const int domain = std::max(1, gpu.interconnect.domain_size);
  const std::vector<int> stages = request.zero_stage ? std::vector<int>{*request.zero_stage} : std::vector<int>{1, 3};
  // The model parallelism the stack runs (stacks.cpp); data parallelism it all does.
  const StackProfile& stack = stack_profile(request.effective_stack());
  std::vector<Layout> out;
  for (const int tp : degrees(request.tensor_parallel, stack.tensor_parallel ? std::min({domain, limit, 8}) : 1)) {
    if (model.heads % tp != 0) {
      continue;
    }
    for (const int pp :
         degrees(request.pipeline_parallel, stack.pipeline_parallel ? std::min(limit / tp, model.layers) : 1)) {
      if (request.pipeline_schedule == PipelineSchedule::dualpipe && pp > 1 && pp % 2 != 0) {
        continue;  // DualPipe's two directions pair the stages: an even number of them
      }
      // Context parallelism for long sequences (ring attention), down to
      // 8192 tokens a GPU, as Llama 3's 128K stage and torchtitan split them.
      const int longest = std::max(1, request.seq_len / context_parallel_min_tokens);
      const int cp_limit = request.seq_len >= context_parallel_from_tokens && stack.context_parallel
                               ? std::min(limit / (tp * pp), longest)
                               : 1;
      for (const int cp : degrees(request.context_parallel, std::max(1, cp_limit))) {
        for (const int z : stages) {
          if (!request.zero_stage && tp * pp * cp > 1 && z == 3) {
            continue;  // with model parallelism the distributed optimizer (ZeRO-1) is the norm
          }
          Layout shape{tp, pp, 0, z, std::nullopt};
          shape.context = cp;
          // MoE: the experts spread over the data-parallel ranks of one
          // scale-up domain (Megatron-Bridge's EP 8 on 8-GPU servers), or of
          // 2, 4, 8 ... times as many across servers (DeepSeek-V3's EP 64
          // over 8 nodes), at most as many as there are ranks (with_count).
          if (request.expert_parallel || !model.moe) {
            shape.expert = request.expert_parallel.value_or(1);
            out.push_back(shape);
            continue;
          }
          const int ranks = std::max(1, limit / (tp * pp * cp));
          // The largest degree within the domain that divides the experts
          // (a GB200 NVL72's 72 GPUs spread 256 experts as 64).
          int first = std::max(1, std::min(model.moe->experts, domain / tp));
          while (model.moe->experts % first != 0) {
            --first;
          }
          // Wider only where it buys something: under DualPipe, which hides
          // the all-to-all, every spread; else while the spread before left
          // the experts' BF16 weights and gradients (4 bytes a parameter)
          // over a quarter of the card (wider spreads only slow the
          // all-to-all, and cost the search).
          const double experts_bytes = 4.0 * model.routed_expert_params() / (static_cast<double>(tp) * pp);
          const double quarter = 0.25 * gpu.memory.capacity_gib * bytes_per_gib;
          const bool all = request.pipeline_schedule == PipelineSchedule::dualpipe;
          for (int ep = first;
               ep == first || ((all || experts_bytes / (0.5 * ep) > quarter) &&
                               ep <= std::min(model.moe->experts, ranks) && model.moe->experts % ep == 0);
               ep *= 2) {
            shape.expert = ep;
            out.push_back(shape);
          }
        }
      }
    }
  }
  return out;
}

std::vector<Recompute> recompute_modes(const Request& request) {
  std::vector<Recompute> modes{request.effective_recompute()};
  if (!request.recompute && request.effective_recompute() != Recompute::full) {
    modes.push_back(Recompute::full);
  }
  return modes;
}

bool as_fixed(const Request& request, const Layout& layout) {
  return (!request.data_parallel || layout.data == *request.data_parallel) &&
         (!request.expert_parallel || layout.expert == *request.expert_parallel);
}

Layout with_count(const Request& request, const Layout& shape, int n) {
  Layout layout = shape;
  layout.data = n / shape.model_parallel();
  // The experts' degree divides the data- and context-parallel ranks (each
  // expert group whole): the largest divisor of both.
  layout.expert = std::max(1, std::gcd(layout.expert, layout.data * layout.context));
  if (layout.data * layout.context == 1) {
    layout.zero_stage = std::min(layout.zero_stage, request.zero_stage.value_or(0));  // nothing to shard over
  }
  return layout;
}

namespace {

// One model copy over `count` GPUs. Tensor parallel inside the scale-up
// domain, or over PCIe inside one server beyond it (up to 8): the
// largest power of two that divides the count and the attention heads;
// pipeline stages for the rest. A MoE model spreads its experts over the
// tensor-parallel group (expert parallelism).
Layout serving_group(const ModelShape& model, const GpuSpec& gpu, int count) {
  const int domain = std::max(1, gpu.interconnect.domain_size);
  const int tp_limit = std::max(domain, std::min(8, std::max(1, gpu.node.gpus_per_node)));
  int tp = 1;
  while (tp * 2 <= std::min(count, tp_limit) && count % (tp * 2) == 0 && model.heads % (tp * 2) == 0) {
    tp *= 2;
  }
  Layout layout{tp, count / tp, 1, 0, std::nullopt};
  layout.expert = model.moe ? tp : 1;
  return layout;
}

// The layouts of `count` GPUs, before recompute is chosen.
std::vector<Layout> parallel_layouts(const Request& request, const ModelShape& model, const GpuSpec& gpu, int count) {
  std::vector<Layout> out;
  if (request.task == Task::inference) {
    out.push_back(serving_group(model, gpu, count));
    return out;
  }
  if (request.task == Task::lora || request.task == Task::qlora) {
    if (request.data_parallel && count != *request.data_parallel) {
      return out;
    }
    const std::vector<int> stages = request.zero_stage ? std::vector<int>{*request.zero_stage} : std::vector<int>{0, 3};
    for (const int z : stages) {
      out.push_back(Layout{1, 1, count, count == 1 ? 0 : z, std::nullopt});
    }
    return out;
  }
  std::vector<Layout> past_limit;
  for (const Layout& shape : model_parallel_shapes(request, model, gpu, count)) {
    if (count % shape.model_parallel() != 0) {
      continue;
    }
    const Layout layout = with_count(request, shape, count);
    if (!as_fixed(request, layout)) {
      continue;  // not the data-parallel or expert-parallel degree given
    }
    // More ranks than the global batch feeds (or, for a pipeline, fewer
    // micro-batches than stages): as the family search (count_search.cpp),
    // only when no layout of this count is within the limit.
    (layout.data > data_parallel_limit(request, layout.pipeline) ? past_limit : out).push_back(layout);
  }
  return out.empty() ? past_limit : out;
}

}  // namespace

// Training without --recompute tries the task's norm first, then full recompute.
std::vector<Layout> layouts_for(const Request& request, const ModelShape& model, const GpuSpec& gpu, int count) {
  std::vector<Layout> base = parallel_layouts(request, model, gpu, count);
  if (!is_training(request.task)) {
    return base;
  }
  std::vector<Layout> out;
  for (const Recompute mode : recompute_modes(request)) {
    for (Layout layout : base) {
      layout.recompute = mode;
      out.push_back(layout);
    }
  }
  return out;
}

namespace {

// A MoE model's routed experts over groups of `group` GPUs, each GPU running
// its own requests' attention (data-parallel attention with expert
// parallelism, as DeepSeek, SGLang and TensorRT-LLM serve V3-class models
// across servers); none for a dense model, or a group that does not divide the
// GPUs or whose GPUs would not hold the same number of experts.
std::optional<Layout> wide_expert(const ModelShape& model, int count, int group) {
  if (!model.moe || group < 2 || count % group != 0 || model.moe->experts % group != 0) {
    return std::nullopt;
  }
  Layout layout{1, 1, count, 0, std::nullopt};
  layout.expert = group;
  return layout;
}

}  // namespace

std::vector<Layout> serving_layouts(const Request& request, const ModelShape& model, const GpuSpec& gpu, int count) {
  if (request.expert_parallel && *request.expert_parallel >= 2) {  // --ep N: groups of N, or none at this count
    if (auto wide = wide_expert(model, count, *request.expert_parallel)) {
      return {*wide};
    }
    return {};
  }
  const bool wide_too = !request.expert_parallel;  // --ep 1: the experts follow the tensor-parallel group
  if (request.copies) {  // --copies: that many copies of count / copies GPUs, or none at this count
    if (count % *request.copies != 0) {
      return {};
    }
    Layout layout = serving_group(model, gpu, count / *request.copies);
    layout.data = *request.copies;
    std::vector<Layout> out{layout};
    if (auto wide = wide_expert(model, count, count / *request.copies); wide && wide_too) {  // a copy: one group
      out.push_back(*wide);
    }
    return out;
  }
  std::vector<Layout> out{serving_group(model, gpu, count)};
  // Wide expert parallelism: groups of every size that divides the count
  // (one per server, one over all the GPUs, ...).
  for (int group = count; wide_too && group >= 2; --group) {
    if (auto wide = wide_expert(model, count, group)) {
      out.push_back(*wide);
    }
  }
  // Replicas of a smaller group, every group size that divides the count,
  // when there are GPUs to fill: a --count given or a --request-rate to
  // reach. Copies often serve more than one copy over every GPU (the
  // engines' own benchmarks run several copies of TP2 or TP4 on 8 GPUs); the
  // probe keeps the layout that serves the most. With neither, a plan is the
  // GPUs one copy needs: more copies are sized by a rate, not by a guess.
  if (!request.count && !request.request_rate) {
    return out;
  }
  for (int group = count / 2; group >= 1; --group) {
    if (count % group == 0) {
      Layout replica = serving_group(model, gpu, group);
      replica.data = count / group;
      out.push_back(replica);
    }
  }
  return out;
}

std::vector<Layout> training_families(const Request& request, const ModelShape& model, const GpuSpec& gpu) {
  const std::vector<Recompute> modes = recompute_modes(request);
  std::vector<Layout> out;
  for (const Layout& shape : model_parallel_shapes(request, model, gpu, request.max_gpus)) {
    for (const Recompute mode : modes) {
      Layout family = shape;
      family.recompute = mode;
      out.push_back(family);
    }
  }
  return out;
}

}  // namespace gpu_advise::sizing
