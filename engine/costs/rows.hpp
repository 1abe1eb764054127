// What a cost row sees and fills, shared by the family files under engine/costs/. Internal to engine.
#pragma once

#include "engine/op_costs.hpp"
#include "ir/ops.hpp"

#include <string_view>
#include <vector>

namespace ridge::engine::costs {

// Element counts per batch, widths, and the gradient needs of one layer.
struct Ctx {
  const ir::Layer& layer;
  const std::vector<ir::Shape>& in_shapes;
  double batch;
  double w;                 // bytes per element
  double ww;                // bytes per weight of the matrix ops (weight-only quantisation; else w)
  double params;            // weights the layer reads (owned or tied)
  const GradNeeds& grad;

  const ir::Attrs& a() const { return layer.attrs; }
  double in(std::size_t i = 0) const { return static_cast<double>(ir::element_count(in_shapes.at(i))) * batch; }
  double in_total() const {
    double s = 0;
    for (std::size_t i = 0; i < in_shapes.size(); ++i) s += in(i);
    return s;
  }
  double out() const { return static_cast<double>(ir::element_count(layer.output)) * batch; }
  bool need(std::size_t i = 0) const { return i < grad.inputs.size() && grad.inputs[i]; }
  double needf(std::size_t i = 0) const { return need(i) ? 1.0 : 0.0; }
  bool any_need() const {
    for (std::size_t i = 0; i < in_shapes.size(); ++i)
      if (need(i)) return true;
    return false;
  }
};

using CostFn = void (*)(const Ctx&, OpCost&);
struct CostRow {
  std::string_view op;   // the spec row's name
  CostFn cost;
};

inline PassCost pass(double flops, double read, double written, int kernels = 1) {
  return PassCost{flops, read, written, kernels};
}

// A view: no kernel forward; the spec row says so, and a row may still give a backward.
inline void view(const Ctx&, OpCost&) {}

std::vector<CostRow> tensor_costs();
std::vector<CostRow> pointwise_costs();
std::vector<CostRow> conv_costs();
std::vector<CostRow> norm_costs();
std::vector<CostRow> dense_costs();

}  // namespace ridge::engine::costs
