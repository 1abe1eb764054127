// What simulate() returns: plain data, SI base units throughout (FLOP, B, s, FLOP/s, B/s, samples/s).
// Renderers (engine/render/) turn it into a table, CSV or JSON; later ones (SVG, trace, sweeps) read
// the same struct. Nothing in here is formatted.
#pragma once

#include "engine/note.hpp"
#include "engine/op_costs.hpp"
#include "engine/timing.hpp"

#include "lang/ir/device.hpp"
#include "lang/ir/network.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ridge::engine {

struct DeviceSummary {
  std::string id;                                   // "a100-sxm4-40gb"
  std::string name;                                 // "NVIDIA A100-SXM4-40GB"
  ir::DeviceKind kind = ir::DeviceKind::GPU;
  std::map<ir::Precision, double> vector_peak;      // FLOP/s
  std::map<ir::Precision, double> matrix_peak;      // FLOP/s
  std::map<ir::Precision, double> matmul_peak;      // FLOP/s a matmul-class layer gets at each precision (after fallback)
  double bandwidth = 0.0;                           // B/s
  std::optional<double> memory_bytes;               // B; absent when the device gives none
  double launch_overhead_s = 0.0;
  bool launch_overhead_from_device = false;
  PeakUsed matmul_peak_used;                        // at the simulated precision
  PeakUsed vector_peak_used;                        // at the simulated precision, for the other ops
  double ridge_point = 0.0;                         // FLOP/B = matmul_peak_used / bandwidth
  double ridge_point_vector = 0.0;                  // FLOP/B = vector_peak_used / bandwidth
};

// One layer. Costs are per batch; times in seconds.
struct LayerRow {
  std::string name;
  ir::Op op;                        // the input op by default
  ir::OpClass op_class = ir::OpClass::DataMovement;
  ir::Shape output_shape;          // per sample (renderers prepend the batch)
  bool view = false;               // runs no kernel
  double params = 0.0;
  double macs = 0.0;
  // Activation bytes kept for backward (no recomputation): this layer's value where a backward reads
  // it (its own, or a consumer's: OpCost::saves), and its extras (masks, indices, statistics).
  double saved_bytes = 0.0;
  PassCost fwd;                    // inference (eval mode)
  PassCost fwd_train;              // training mode forward
  PassCost bwd;
  PassTime time_fwd;
  PassTime time_fwd_train;
  PassTime time_bwd;
  PeakUsed peak;                   // the compute peak this layer is timed against
  Ppp ppp_fwd;
  Ppp ppp_bwd;
  std::optional<kernels::GemmPlan> gemm_fwd;   // the kernel model's plan of the forward's largest GEMM
  // The forward kernel the layer ran in under the runtime's fusion (engine/fusion.hpp): its first
  // layer's name; empty where the layer ran alone.
  std::string kernel;
};

struct Totals {
  double params = 0.0;
  double macs = 0.0;
  double flops_fwd = 0.0, flops_fwd_train = 0.0, flops_bwd = 0.0, flops_update = 0.0;
  double bytes_fwd = 0.0, bytes_fwd_train = 0.0, bytes_bwd = 0.0, bytes_update = 0.0;
  double roofline_fwd_s = 0.0, roofline_fwd_train_s = 0.0, roofline_bwd_s = 0.0, roofline_update_s = 0.0;
  double time_fwd_s = 0.0;          // PALEO, inference forward = inference time
  double time_fwd_train_s = 0.0;    // PALEO, training-mode forward
  double time_bwd_s = 0.0;
  double time_update_s = 0.0;       // SGD with momentum
  double time_train_step_s = 0.0;   // time_fwd_train_s + time_bwd_s + time_update_s
  // The host's time issuing the inference forward and the training step, where the runtime times
  // the host (engine/host_dispatch.hpp; the times above then follow its clock); 0 otherwise.
  double host_fwd_s = 0.0, host_train_step_s = 0.0;
  // The runtime's host time per op those follow (0: the GPU always fed), for renderers that lay the
  // passes out in time (render/trace.cpp).
  double host_forward_op_s = 0.0, host_backward_op_s = 0.0;
  double roofline_train_step_s = 0.0;
  double throughput_infer = 0.0;    // samples/s = batch / time_fwd_s
  double throughput_train = 0.0;    // samples/s = batch / time_train_step_s
  int kernels_fwd = 0, kernels_bwd = 0, kernels_update = 0;
  // Memory footprint (B).
  double weight_bytes = 0.0;             // inference: in --weights' width (int8, int4) or the compute precision
  double train_weight_bytes = 0.0;       // training: in the compute precision
  double peak_activation_bytes = 0.0;    // inference: peak live activations over the topological order
  double saved_activation_bytes = 0.0;   // training: what backward reads (LayerRow::saved_bytes, summed) under the recomputation
  double memory_infer_bytes = 0.0;       // weights + peak live activations
  double memory_train_bytes = 0.0;       // weights + gradients + master weights + optimizer states + saved activations
  std::optional<bool> fits_infer;        // absent when the device gives no memory size
  std::optional<bool> fits_train;
  // The training set-up's parts (Options): memory per kind, recomputation, utilisation.
  double gradient_bytes = 0.0;           // in the compute precision
  double master_weight_bytes = 0.0;      // fp32 copy under mixed precision
  double optimizer_state_bytes = 0.0;    // momentum (SGD) or the two moments (Adam)
  double flops_recompute = 0.0;          // forward FLOPs run again during backward
  double time_recompute_s = 0.0;
  double mfu = 0.0;                      // model FLOPs (forward + backward) / (step time x peak)
  double hfu = 0.0;                      // the same with the recomputed FLOPs (hardware FLOPs)
  // Sequences: tokens per sample (a network whose input is a token sequence [T]; 0 otherwise).
  double tokens_per_sample = 0.0;
  // The largest batch whose memory fits the device (0: none fits, or the device gives no size).
  std::int64_t max_batch_infer = 0, max_batch_train = 0;
};

struct Report {
  std::string network;
  std::int64_t batch = 1;
  ir::Precision precision = ir::Precision::FP32;
  std::string optimizer = "sgd";  // the training step's: "sgd" (with momentum), "adam", "adamw"
  std::string runtime = "pytorch-eager";   // the software stack (Options::runtime's id; eager without one)
  DeviceSummary device;
  std::vector<LayerRow> layers;   // every IR layer, input included, in topological order
  Totals totals;
  // Sentences a reader needs: the counting convention, the peaks used, defaults taken.
  std::vector<Note> notes;
};

}  // namespace ridge::engine
