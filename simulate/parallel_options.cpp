#include "simulate/parallel_options.hpp"

#include "engine/parallel/plan.hpp"
#include "engine/render/parallel.hpp"
#include "engine/render/pipeline_trace.hpp"
#include "engine/render/render.hpp"

#include <algorithm>

#include <charconv>
#include <stdexcept>

namespace ridge::simulate {

using namespace ridge::engine;

void add_parallel_options(CLI::App& app, ParallelOptions& o) {
  app.add_option("--tensor-parallel", o.tensor, "tensor-parallel size T (Megatron: heads and MLP split T ways)")
      ->check(CLI::Range(1, 1 << 16));
  app.add_option("--pipeline-parallel", o.pipeline, "pipeline stages P (layers split P ways, 1F1B schedule)")
      ->check(CLI::Range(1, 1 << 16));
  app.add_option("--data-parallel", o.data, "data-parallel replicas D (T x P x D devices)")->check(CLI::Range(1, 1 << 20));
  app.add_option("--micro-batch", o.micro_batch, "samples per micro-batch m (default 1)")->check(CLI::Range(1, 1 << 24));
  app.add_option("--global-batch", o.global_batch, "samples per step B over all replicas (default: --batch)")
      ->check(CLI::Range(1, 1 << 24));
  app.add_option("--interleave", o.interleave, "virtual pipeline stages per device v (interleaved 1F1B)")->check(CLI::Range(1, 1 << 10));
  app.add_flag("--sequence-parallel", o.sequence_parallel, "Megatron sequence parallelism beside tensor parallelism");
  app.add_option("--zero", o.zero, "ZeRO stage: 0 none, 1 optimizer states, 2 + gradients, 3 + weights sharded over D")
      ->check(CLI::Range(0, 3));
  app.add_flag("--search", o.search, "try every strategy of --devices devices (default: the .hw's system.count) that fits");
  app.add_option("--top", o.top,
                 "with --search, the K fastest strategies (default 10); otherwise the table shows the K layers (or --depth "
                 "blocks) that take the most time, with their share of it")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--max-micro-batch", o.max_micro_batch, "--search: the largest micro-batch tried (default 64)")
      ->check(CLI::Range(1, 1 << 24));
}

std::string run_parallel(const ParallelOptions& o, const ParallelContext& ctx, const ir::Network& network,
                         const ir::Device& device, const Options& setup, std::string* trace) {
  const std::int64_t global_batch = o.global_batch > 0 ? o.global_batch : ctx.batch;
  parallel::PlanReport plan;
  if (o.search) {
    if (o.tensor > 0 || o.pipeline > 0 || o.data > 0)
      throw std::invalid_argument("--search tries every --tensor-parallel/--pipeline-parallel/--data-parallel itself; give "
                                  "--devices N for the device count instead");
    int devices = device.count;
    if (!ctx.devices.empty()) {
      const auto [end, ec] = std::from_chars(ctx.devices.data(), ctx.devices.data() + ctx.devices.size(), devices);
      if (ec != std::errc{} || end != ctx.devices.data() + ctx.devices.size() || devices < 1 || devices > (1 << 20))
        throw std::invalid_argument("--search: --devices takes one device count, e.g. --devices 1024; got '" + ctx.devices + "'");
    }
    parallel::SearchOptions so;
    so.devices = devices;
    so.devices_from_system = ctx.devices.empty();
    so.global_batch = global_batch;
    so.overlap = ctx.overlap;
    so.top = static_cast<std::size_t>(o.top > 0 ? o.top : 10);
    so.max_micro_batch = o.max_micro_batch;
    so.link = ctx.link;
    plan = parallel::search(network, device, setup, so);
  } else {
    if (!ctx.devices.empty())
      throw std::invalid_argument("--devices is data-parallel scaling's; with --tensor-parallel/--pipeline-parallel/--data-parallel "
                                  "the device count is T x P x D");
    parallel::Strategy s;
    s.tensor = std::max(1, o.tensor);
    s.pipeline = std::max(1, o.pipeline);
    s.data = std::max(1, o.data);
    s.micro_batch = o.micro_batch;
    s.global_batch = global_batch;
    s.interleave = o.interleave;
    s.sequence_parallel = o.sequence_parallel;
    s.recompute = setup.recompute;
    s.zero = o.zero;
    s.overlap = ctx.overlap;
    plan = parallel::plan(network, device, setup, s, ctx.link);
  }
  if (trace) {
    if (plan.strategies.empty()) throw std::invalid_argument("--trace: no strategy fits, so there is no step to draw");
    *trace = render::pipeline_trace(plan);
  }
  // JSON: the plan as the one document's "parallel" member, so every simulate JSON has one shape.
  return ctx.format == "json" ? render::json(Results{}, {}, render::json(plan)) : ctx.format == "csv" ? render::csv(plan) : render::table(plan);
}

}  // namespace ridge::simulate
