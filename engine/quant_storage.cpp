#include "engine/quant_storage.hpp"

#include "lang/ir/ops.hpp"

namespace ridge::engine::quant {
namespace {

bool below_16_bits(ir::Precision p) { return ir::bytes_per_element(p) < 2.0; }

}  // namespace

ir::Precision activation_precision(const ir::Runtime* runtime, ir::Precision run) {
  return below_16_bits(run) && runtime && runtime->quant_activations ? *runtime->quant_activations : run;
}

ir::Precision kv_cache_precision(const ir::Runtime* runtime, ir::Precision run) {
  if (below_16_bits(run) && runtime && runtime->quant_kv_cache) return *runtime->quant_kv_cache;
  return activation_precision(runtime, run);
}

bool casts(const ir::Runtime* runtime, ir::Precision run) {
  return activation_precision(runtime, run) != run;
}

void add_casts(OpCost& cost, const ir::Layer& layer, const std::vector<ir::Shape>& shapes, std::int64_t batch,
               ir::Precision run, const ir::Runtime* runtime) {
  if (!casts(runtime, run) || cost.params <= 0.0 || cost.gemm_forward.count == 0 || shapes.empty()) return;
  const double input = static_cast<double>(ir::element_count(shapes.front())) * static_cast<double>(batch);
  const double output = static_cast<double>(ir::element_count(layer.output)) * static_cast<double>(batch);
  const double width = ir::bytes_per_element(activation_precision(runtime, run));
  const double narrow = ir::bytes_per_element(run);
  const bool kernel = runtime->quant_cast == "kernel";
  const bool current = runtime->quant_scaling == "current";
  // What the GEMM no longer reads at 16 bits, and the cast (and amax pass) that made its narrow copy.
  const auto forward = [&](PassCost& pass) {
    pass.bytes_read -= input * (width - narrow);
    if (kernel) {
      pass.bytes_read += input * width;
      pass.bytes_written += input * narrow;
      pass.kernels += 1;
    }
    if (current) {
      pass.bytes_read += input * width;
      pass.kernels += 1;
    }
  };
  forward(cost.forward);
  forward(cost.forward_train);
  if (cost.backward.kernels == 0) return;
  // The cast reads dY at 16 bits in the GEMMs' place; they read dY, its transpose and X narrow.
  PassCost& back = cost.backward;
  back.bytes_read += 2.0 * output * narrow - input * (width - narrow);
  back.bytes_written += 2.0 * output * narrow;
  back.kernels += 1;
  if (current) {
    back.bytes_read += output * width;
    back.kernels += 1;
  }
}

}  // namespace ridge::engine::quant
