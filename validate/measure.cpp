#include "validate/measure.hpp"

#include "validate/cache_flush.hpp"
#include "validate/heap_cushion.hpp"
#include "validate/cupti/tracer.hpp"
#include "engine/op_costs.hpp"
#include "lang/ir/ops.hpp"

#include <ATen/core/grad_mode.h>
#include <torch/csrc/autograd/autograd.h>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <numeric>
#include <span>
#include <tuple>
#include <utility>

namespace ridge::validate {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Minor page faults of the whole process so far (LibTorch's worker threads fault pages in too).
long minor_faults() {
  rusage usage{};
  return getrusage(RUSAGE_SELF, &usage) == 0 ? usage.ru_minflt : 0;
}

long page_bytes() { return sysconf(_SC_PAGESIZE); }

// External correlation ids: layer, pass and repeat packed into one 64-bit id.
std::uint64_t external_id(ir::LayerId layer, int pass, int repeat) {
  return (static_cast<std::uint64_t>(layer) << 24) | (static_cast<std::uint64_t>(pass) << 20) |
         static_cast<std::uint64_t>(repeat);
}

// A CPU tensor's whole storage, as bytes (a view's base included: it was written whole).
std::span<const unsigned char> bytes_of(const at::Tensor& t) {
  if (!t.defined() || !t.has_storage() || !t.device().is_cpu()) return {};
  const c10::Storage& storage = t.storage();
  return {static_cast<const unsigned char*>(storage.data()), storage.nbytes()};
}

// Times one pass: CPU by a steady clock around each run, GPU by the device time CUPTI attributes to
// each run's correlation id. Warm-up first; then repeats until the count or the time budget is spent.
class PassTimer {
 public:
  PassTimer(const MeasureOptions& o, cupti::ActivityTracer* tracer, const at::Device& device)
      : o_(o), tracer_(tracer), cuda_(device.is_cuda()), flush_(o.flush_bytes) {
    if (device.is_cuda() && o.device_flush_bytes > 0)
      device_flush_ = at::empty({static_cast<std::int64_t>(o.device_flush_bytes)}, at::TensorOptions().dtype(at::kByte).device(device));
  }

  // `fresh`: what the network has just written when this pass runs (its inputs, or its incoming
  // gradient), read back into the CPU's caches after each flush.
  template <class Run>
  PassTiming time(ir::LayerId layer, int pass, std::span<const at::Tensor> fresh, Run&& run) {
    if (o_.stop && o_.stop->load()) throw Interrupted();
    long warmup_faults = 0;
    for (int i = 0; i < o_.warmup; ++i) {
      const long faults0 = minor_faults();
      run();
      warmup_faults = minor_faults() - faults0;
    }
    // A CPU pass is timed on resident memory (heap_cushion.hpp): three times as much free heap as its
    // last warm-up run faulted in, then one run to settle its blocks there. (Laid out afresh before
    // every timed run instead, the cushion left a third of a large block to fault in each time: the
    // first placement on a new cushion faults in part of it.)
    HeapCushion cushion;
    if (!cuda_ && o_.cushion && warmup_faults > 0) {
      constexpr double kMargin = 3.0;
      constexpr std::size_t kSlack = std::size_t{1} << 20, kLargest = std::size_t{2} << 30;
      const double faulted = static_cast<double>(warmup_faults) * static_cast<double>(page_bytes());
      cushion = HeapCushion(std::min(kLargest, static_cast<std::size_t>(kMargin * faulted) + kSlack));
      run();
    }
    if (tracer_) (void)tracer_->collect();   // waits for the device; warm-up work is not this pass's measurement
    std::vector<double> host;
    std::vector<double> faults;
    const auto start = Clock::now();
    for (int r = 0; r < std::max(1, o_.repeats); ++r) {
      if (r > 0 && seconds_since(start) >= o_.budget_s) break;
      flush_();
      if (flush_.bytes() > 0 && !cuda_)
        for (const at::Tensor& t : fresh) (void)touch(bytes_of(t));
      // Done before the push, and waited for: records without a correlation id (work LibTorch launches
      // from its autograd thread) are tied to the window the device ran them in, so the device must be
      // idle when the window opens. The H100 run showed why: queued but not waited for, the 256 MiB
      // write ran inside the window and added ~85 us to every forward pass.
      if (device_flush_.defined()) {
        device_flush_.fill_(static_cast<std::int64_t>(++flush_value_ % 251));
        cupti::device_synchronize();
      }
      if (tracer_) tracer_->push(external_id(layer, pass, r));
      const long faults0 = minor_faults();
      const auto t0 = Clock::now();
      run();
      host.push_back(seconds_since(t0));
      faults.push_back(static_cast<double>(minor_faults() - faults0));
      if (tracer_) tracer_->pop();
    }
    PassTiming t;
    t.runs = static_cast<int>(host.size());
    if (!tracer_) {
      t.median_s = median(host);
      t.fresh_bytes = median(faults) * static_cast<double>(page_bytes());
      t.cv = coefficient_of_variation(host);
      return t;
    }
    const cupti::ActivityLog log = tracer_->collect();
    t.dropped_records = log.dropped;
    const cupti::JoinResult joined = cupti::join(log.records, log.correlations, log.windows);
    std::vector<std::pair<double, cupti::LayerActivity>> runs;
    for (int r = 0; r < t.runs; ++r) {
      const auto it = joined.layers.find(external_id(layer, pass, r));
      runs.emplace_back(it == joined.layers.end() ? 0.0 : it->second.busy_s,
                        it == joined.layers.end() ? cupti::LayerActivity{} : it->second);
    }
    std::vector<double> device_times;
    for (const auto& run : runs) device_times.push_back(run.first);
    t.cv = coefficient_of_variation(device_times);   // of the device times the median is taken from
    std::sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    const auto& mid = runs[runs.size() / 2];
    t.median_s = mid.first;
    t.gpu = mid.second;
    return t;
  }

  // The per-layer passes are timed; what follows runs untraced (see measure()).
  void stop_tracing() {
    if (tracer_) (void)tracer_->collect();
    tracer_ = nullptr;
  }

  // Median and CV (spread.hpp) of the end-to-end runs, timed by CUDA events on a GPU.
  template <class Run>
  std::pair<double, std::optional<double>> time_whole(Run&& run) {
    for (int i = 0; i < o_.warmup; ++i) run();
    std::unique_ptr<cupti::EventTimer> events = cuda_ ? cupti::make_event_timer() : nullptr;
    cupti::device_synchronize();
    std::vector<double> times;
    const auto start = Clock::now();
    for (int r = 0; r < std::max(1, o_.repeats); ++r) {
      if (o_.stop && o_.stop->load()) throw Interrupted();
      if (r > 0 && seconds_since(start) >= o_.budget_s * 4) break;
      if (events) {
        events->start();
        run();
        times.push_back(events->stop_seconds());
      } else {
        const auto t0 = Clock::now();
        run();
        times.push_back(seconds_since(t0));
      }
    }
    return {median(times), coefficient_of_variation(times)};
  }

 private:
  const MeasureOptions& o_;
  cupti::ActivityTracer* tracer_;
  bool cuda_;
  CacheFlush flush_;
  at::Tensor device_flush_;          // GPU: the L2 flush (MeasureOptions::device_flush_bytes); undefined: none
  std::uint64_t flush_value_ = 0;    // a new value each run, as CacheFlush writes
};

void say(const MeasureOptions& o, const std::string& line) {
  if (o.progress) o.progress(line);
}

}  // namespace

double NetworkTiming::sum_forward_s() const {
  return std::accumulate(layers.begin(), layers.end(), 0.0, [](double s, const LayerTiming& l) { return s + l.forward.median_s; });
}

double NetworkTiming::sum_backward_s() const {
  return std::accumulate(layers.begin(), layers.end(), 0.0,
                         [](double s, const LayerTiming& l) { return s + (l.backward ? l.backward->median_s : 0.0); });
}

std::vector<bool> needs_grad(const ir::Network& network) {
  // The engine's judgement (engine/op_costs.hpp grad_needs), so the backward passes measured are the
  // ones the model costs.
  const std::vector<engine::GradNeeds> needs = engine::grad_flags(network);
  std::vector<bool> flag(needs.size());
  for (std::size_t id = 0; id < needs.size(); ++id) flag[id] = needs[id].output;
  return flag;
}

NetworkTiming measure(TorchProgram& program, std::int64_t batch, const MeasureOptions& o) {
  const ir::Network& net = program.network();
  const bool cuda = program.options().device.is_cuda();
  std::unique_ptr<cupti::ActivityTracer> tracer;
  if (cuda) tracer = cupti::start_cupti_tracer();
  PassTimer timer(o, tracer.get(), program.options().device);
  const auto sync = [cuda] {
    if (cuda) cupti::device_synchronize();
  };

  NetworkTiming result;
  result.batch = batch;
  const at::Tensor input = program.make_input(batch);
  const std::vector<bool> grad = needs_grad(net);

  if (o.per_layer) {
    // Real inputs for every layer: one inference pass, every value kept.
    std::vector<at::Tensor> values;
    {
      const at::NoGradGuard no_grad;
      program.set_training(false);
      program.set_requires_grad(false);
      values = program.run_all(input);
    }
    std::vector<at::Tensor> args;
    for (std::size_t id = 1; id < net.layers.size(); ++id) {
      const ir::Layer& layer = net.layers[id];
      say(o, "  " + net.name + ": layer " + std::to_string(id) + "/" + std::to_string(net.layers.size() - 1) + " " + layer.name);
      args.clear();
      for (ir::LayerId in : layer.inputs) args.push_back(values[in]);
      LayerTiming lt;
      lt.id = id;
      {
        const at::NoGradGuard no_grad;
        program.set_training(false);
        lt.forward = timer.time(id, 0, args, [&] {
          (void)program.run_layer(id, args);
          sync();
        });
      }
      if (o.backward && grad[id]) {
        // Backward on the training-mode forward, as in a training step: gradients for the inputs that
        // need one (autograd skips the others) and for the layer's parameters.
        const at::AutoGradMode grad_mode(true);
        program.set_training(true);
        program.set_requires_grad(true);
        std::vector<at::Tensor> grad_args;
        std::vector<at::Tensor> wrt;
        for (std::size_t k = 0; k < args.size(); ++k) {
          at::Tensor a = args[k].detach().clone();
          if (grad[layer.inputs[k]]) {
            a.requires_grad_(true);
            wrt.push_back(a);
          }
          grad_args.push_back(a);
        }
        for (const auto& p : program.layer_parameters(id)) wrt.push_back(p);
        lt.forward_train = timer.time(id, 2, grad_args, [&] {
          (void)program.run_layer(id, grad_args);
          sync();
        });
        const at::Tensor out = program.run_layer(id, grad_args);
        const at::Tensor grad_out = at::randn_like(out);
        lt.backward = timer.time(id, 1, std::span(&grad_out, 1), [&] {
          (void)torch::autograd::grad({out}, wrt, {grad_out}, /*retain_graph=*/true);
          sync();
        });
        program.set_requires_grad(false);
        program.set_training(false);
      }
      if (lt.forward.gpu) cupti::accumulate(result.gpu_total, *lt.forward.gpu);
      if (lt.backward && lt.backward->gpu) cupti::accumulate(result.gpu_total, *lt.backward->gpu);
      result.dropped_records += lt.forward.dropped_records + (lt.forward_train ? lt.forward_train->dropped_records : 0) +
                                (lt.backward ? lt.backward->dropped_records : 0);
      result.layers.push_back(std::move(lt));
    }
  }

  // The end-to-end runs go untraced. CUPTI records every runtime and driver call while it traces (the
  // external correlation ids need them), which costs the host microseconds per launch: on the H100,
  // with the tracer on, ResNet-50's inference at batch 32 took 10.4 ms end to end over 3.3 ms of
  // layer passes, where eager PyTorch's host runs at about 15 us per kernel (its 280 kernels at
  // batch 1 in 4.2-7.2 ms). A wall time is what the user's script sees, so it is taken as it runs.
  timer.stop_tracing();
  tracer.reset();
  say(o, "  " + net.name + ": end to end, inference");
  {
    const at::NoGradGuard no_grad;
    program.set_training(false);
    program.set_requires_grad(false);
    std::tie(result.inference_s, result.inference_cv) = timer.time_whole([&] {
      (void)program.run(input);
      sync();
    });
  }
  if (o.backward) {
    say(o, "  " + net.name + ": end to end, training step");
    const at::AutoGradMode grad_mode(true);
    program.set_training(true);
    program.set_requires_grad(true);
    const std::vector<at::Tensor> params = program.parameters();
    std::vector<at::Tensor> momentum;
    for (const auto& p : params) momentum.push_back(at::zeros_like(p));
    constexpr double kLr = 1e-6;   // tiny: the weights must stay sane over the repeats
    constexpr double kMomentum = 0.9;
    std::tie(result.training_step_s, result.training_step_cv) = timer.time_whole([&] {
      for (const auto& p : params) p.mutable_grad().reset();
      const at::Tensor out = program.run(input);
      out.backward(at::ones_like(out));
      // SGD with momentum, as torch.optim.SGD does it: v = m·v + g; w -= lr·v.
      const at::NoGradGuard no_grad;
      for (std::size_t i = 0; i < params.size(); ++i) {
        momentum[i].mul_(kMomentum).add_(params[i].grad());
        params[i].sub_(momentum[i], kLr);
      }
      sync();
    });
    program.set_requires_grad(false);
    program.set_training(false);
  }
  return result;
}

}  // namespace ridge::validate
