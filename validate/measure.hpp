// Measuring a TorchProgram: per layer, forward and backward, on the layer's real inputs (warm-up,
// then the median of repeats), and the whole network end to end (inference and a training step), so
// the gap between the sum of layers and the whole shows. CPU: a steady clock around each run. GPU:
// CUPTI activity records attributed to layers by external correlation ids, CUDA events end to end.
#pragma once

#include "validate/cupti/records.hpp"
#include "validate/spread.hpp"
#include "validate/torch_program.hpp"

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ridge::validate {

struct Interrupted : std::runtime_error {
  Interrupted() : std::runtime_error("interrupted") {}
};

struct MeasureOptions {
  int warmup = 2;              // runs discarded before timing
  int repeats = 10;            // timed runs (at most)
  double budget_s = 0.5;       // per layer pass: stop repeating once this much time is spent (>= 1 run)
  // Bytes written before each timed run of a layer pass, so that it reads its weights and saved
  // activations from memory as it does in a network (cache_flush.hpp); what the network has just
  // written (a forward's inputs, a backward's incoming gradient) is then read back into the cache.
  // 0 times it on the cache its last run left. CPU caches: calibrate sets it on a CPU only.
  std::size_t flush_bytes = 0;
  // The same on a GPU: device memory written before each timed run, outside the run's CUPTI window, so
  // that the run reads its operands from DRAM, not from the L2 its previous run left (as nvbench does).
  std::size_t device_flush_bytes = 0;
  // CPU: time each layer pass on resident heap memory (heap_cushion.hpp), not on pages its own loop
  // faults in afresh each run; what it still faults in is PassTiming::fresh_bytes. Needs warmup >= 1.
  bool cushion = true;
  bool backward = true;        // time the backward pass per layer and the training step
  bool per_layer = true;
  std::function<void(const std::string&)> progress;   // one line per step; may be empty
  const std::atomic<bool>* stop = nullptr;            // set (e.g. by SIGINT) to abandon with Interrupted
};

struct PassTiming {
  double median_s = 0.0;
  int runs = 0;
  std::optional<double> cv;                  // spread of the runs (spread.hpp); absent for a single run
  std::optional<cupti::LayerActivity> gpu;   // one run's device activity (GPU only)
  std::size_t dropped_records = 0;           // CUPTI records lost while timing it: its device time is short
  // Bytes of fresh pages the process faulted in during a timed run, the median over the runs
  // (getrusage's minor faults times the page size; CPU only): time the pass paid the kernel, not its work.
  double fresh_bytes = 0.0;
};

struct LayerTiming {
  ir::LayerId id = 0;
  PassTiming forward;                  // inference (eval mode, no autograd)
  // Training-mode forward with autograd recording, as a training step runs it (batch statistics,
  // saved tensors, argmax indices): timed where the backward is, absent elsewhere.
  std::optional<PassTiming> forward_train;
  std::optional<PassTiming> backward;  // absent where the layer needs no gradient at all
};

struct NetworkTiming {
  std::int64_t batch = 0;
  std::vector<LayerTiming> layers;     // every layer but the input, in order
  double inference_s = 0.0;            // end to end, median
  double training_step_s = 0.0;        // forward + backward + SGD-momentum update, median; 0 if not run
  std::optional<double> inference_cv;      // spread of the end-to-end repeats (spread.hpp)
  std::optional<double> training_step_cv;
  double sum_forward_s() const;
  double sum_backward_s() const;
  cupti::LayerActivity gpu_total;      // every layer's device activity summed (GPU only)
  std::size_t dropped_records = 0;     // CUPTI records lost over every layer pass (GPU only)
};

// Which of a layer's inputs need a gradient, as autograd decides it: a value needs one when it depends
// on a parameter; the network input does not. (Index = layer id.)
std::vector<bool> needs_grad(const ir::Network& network);

NetworkTiming measure(TorchProgram& program, std::int64_t batch, const MeasureOptions& options);

}  // namespace ridge::validate
