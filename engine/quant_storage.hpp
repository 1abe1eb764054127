// A quantised run (a --dtype below 16 bits: fp8, int8, fp6, fp4 and the MX formats) as a software
// stack runs it (issue #35; ir::Runtime's quant_* fields): which widths its tensors keep, and what
// converting a weight GEMM's input to the low precision costs. Every formula of it is here.
//
// Without a runtime, or one that gives no `quant.activations`, such a run stores every tensor at the
// low precision (Ridge's model since the first stage): nothing here changes it. Where the runtime keeps
// the activations at 16 bits (Transformer Engine, vLLM and TensorRT-LLM at fp8; TensorRT-LLM at fp4), a
// layer with a weight matrix whose pass runs GEMMs (linear, convolution, a mixture of experts) reads
// its input X and writes its output Y as follows, beside the row's count at 16 bits (the row reads X
// and the low-precision weights, writes Y). X and Y are elements; w is 2 bytes, q the low precision's
// bytes per element (1 at fp8):
//   forward, cast "kernel": a cast kernel reads X at w and writes it at q; the GEMM reads that copy:
//     +q X read, +q X written, +1 kernel;
//   forward, cast "fused": the kernel that made X wrote the copy at q beside the one at w; the GEMM
//     reads it: -(w - q) X read (the producer's extra write is not charged);
//   backward (both): the output's gradient is cast, and transposed for the weight gradient, by a kernel
//     of its own (reads w Y, writes q Y twice); the data-gradient GEMM reads the copy, the weight-
//     gradient GEMM the transposed one and the input's copy kept from the forward:
//     +2q Y - (w - q) X read, +2q Y written, +1 kernel;
//   scaling "current": an amax pass before each cast reads the 16-bit tensor once more: +w X read and
//     +1 kernel forward, +w Y read and +1 kernel backward. "static", "delayed" and "per_token" scales
//     cost nothing beside the cast.
// The products between activations (attention's) read their 16-bit inputs and run at the run's rate,
// as TensorRT-LLM's fp8 attention kernel does (Transformer Engine keeps attention at 16 bits by
// default; not modelled). Saved activations count at 16 bits (Transformer Engine keeps the fp8 copy
// of a linear's input instead; not modelled); so do the activations tensor parallelism sends.
#pragma once

#include "engine/op_costs.hpp"
#include "lang/ir/device.hpp"
#include "lang/ir/network.hpp"
#include "lang/ir/runtime.hpp"

#include <cstdint>
#include <vector>

namespace ridge::engine::quant {

// The precision of the tensors between kernels in a run at `run` under `runtime`: `run`, except below
// 16 bits under a runtime that gives quant.activations.
ir::Precision activation_precision(const ir::Runtime* runtime, ir::Precision run);
// The KV cache's: quant.kv_cache where the run is below 16 bits and the runtime gives it, else the
// activations'.
ir::Precision kv_cache_precision(const ir::Runtime* runtime, ir::Precision run);
// Whether a run at `run` under `runtime` converts its weight GEMMs' inputs (the cases above).
bool casts(const ir::Runtime* runtime, ir::Precision run);

// The conversions above added to `cost`, the costs of `layer` (inputs of `shapes`, `batch` samples) in a
// run at `run` under `runtime`: where the runtime casts (casts()) and the layer has a weight matrix
// whose forward runs GEMMs; else `cost` is left as it is. A layer without a backward gets none there.
void add_casts(OpCost& cost, const ir::Layer& layer, const std::vector<ir::Shape>& shapes, std::int64_t batch,
               ir::Precision run, const ir::Runtime* runtime);

}  // namespace ridge::engine::quant
