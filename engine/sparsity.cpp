#include "engine/sparsity.hpp"

#include <algorithm>

namespace ridge::engine::sparsity {

double weight_fraction(double width) {
  constexpr double kIndexBits = 2.0;   // per kept value: its position among the 4
  return 0.5 + 0.5 * kIndexBits / (8.0 * width);
}

void apply_two_four(OpCost& c, double weight_width) {
  // A weight matrix on the matrix units: the forward's one GEMM, with B the weights (linear and the
  // implicit GEMM of a convolution alike: op_costs.hpp's weighted_gemms and implicit_gemms).
  if (!c.matrix_unit || c.gemm_forward.count != 1 || !(c.params > 0)) return;
  kernels::Gemm& g = c.gemm_forward.gemms[0];
  const double dense = g.k * g.n * g.count;
  const double fraction = weight_fraction(weight_width);
  g.sparse = true;
  g.b_stored = (g.b_stored > 0 ? g.b_stored : g.k * g.n) * fraction;   // of what weight-only quantisation stores
  c.forward.bytes_read = std::max(0.0, c.forward.bytes_read - dense * weight_width * (1.0 - fraction));
  c.sparse = true;
}

}  // namespace ridge::engine::sparsity
