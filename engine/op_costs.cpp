// The cost registry: the rows of engine/costs/*.cpp indexed by op, and what every op shares
// (gradient needs, the train-mode forward default, skipping backward off the gradient path).
#include "engine/op_costs.hpp"

#include "engine/costs/rows.hpp"
#include "lang/ir/ops.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ridge::engine {
namespace {

// Row i is the cost of op id i; a null cost where the table has none (has_cost says so, a test fails).
const std::vector<costs::CostRow>& table() {
  static const std::vector<costs::CostRow> t = [] {
    std::vector<costs::CostRow> fns(ir::all_ops().size(), costs::CostRow{{}, nullptr, costs::kSavesNothing});
    fns[ir::kInputOp.id] = {"input", costs::view, costs::kSavesNothing};
    for (auto family : {costs::tensor_costs, costs::pointwise_costs, costs::conv_costs, costs::norm_costs,
                        costs::dense_costs})
      for (const costs::CostRow& row : family()) {
        const auto op = ir::find_op(row.op);
        if (!op) throw std::logic_error("engine/costs has a row for '" + std::string(row.op) + "', which is no op");
        fns[op->id] = row;
      }
    return fns;
  }();
  return t;
}

const costs::CostRow& cost_row(ir::Op op) {
  const auto& t = table();
  if (op.id >= t.size() || !t[op.id].cost)
    throw std::logic_error("op '" + std::string(ir::op_name(op)) + "' has no row in engine/costs");
  return t[op.id];
}

}  // namespace

ir::OpClass op_class(ir::Op op) { return ir::spec(op).op_class; }
bool is_view(ir::Op op) { return ir::spec(op).view; }
bool has_cost(ir::Op op) { return op.id < table().size() && table()[op.id].cost != nullptr; }

namespace {
// Autograd's rule, once for both forms: `earlier(in)` says whether earlier layer `in`'s output needs a
// gradient, for `count` earlier layers.
template <typename Earlier>
void fill_grad_needs(const ir::Layer& layer, bool has_parameters, std::size_t count, Earlier earlier, GradNeeds& g) {
  g.inputs.clear();
  g.inputs.reserve(layer.inputs.size());
  for (ir::LayerId in : layer.inputs) {
    if (in >= count) throw std::invalid_argument("layer '" + layer.name + "' reads a later layer");
    g.inputs.push_back(earlier(in));
  }
  g.output = layer.op != ir::kInputOp &&
             (has_parameters || std::any_of(g.inputs.begin(), g.inputs.end(), [](bool b) { return b; }));
}
}  // namespace

GradNeeds grad_needs(const ir::Layer& layer, bool has_parameters, const std::vector<GradNeeds>& earlier) {
  GradNeeds g;
  fill_grad_needs(layer, has_parameters, earlier.size(), [&](ir::LayerId in) { return earlier[in].output; }, g);
  return g;
}

void grad_needs(const ir::Layer& layer, bool has_parameters, const std::vector<bool>& earlier_outputs,
                GradNeeds& out) {
  fill_grad_needs(layer, has_parameters, earlier_outputs.size(),
                  [&](ir::LayerId in) { return static_cast<bool>(earlier_outputs[in]); }, out);
}

std::vector<GradNeeds> grad_flags(const ir::Network& network) {
  std::vector<GradNeeds> flags;
  flags.reserve(network.layers.size());
  for (const ir::Layer& layer : network.layers) {
    for (ir::LayerId in : layer.inputs)
      if (in >= flags.size()) throw std::invalid_argument("layer '" + layer.name + "' reads a later layer");
    const bool has_params = ir::weight_count(layer, ir::input_shapes(network, layer)) > 0;
    flags.push_back(grad_needs(layer, has_params, flags));
  }
  return flags;
}

OpCost op_cost(const ir::Network& network, const ir::Layer& layer, std::int64_t batch,
               ir::Precision precision, const GradNeeds& grad) {
  return op_cost(layer, ir::input_shapes(network, layer), batch, precision, grad);
}

OpCost op_cost(const ir::Layer& layer, const std::vector<ir::Shape>& shapes, std::int64_t batch,
               ir::Precision precision, const GradNeeds& grad, double weight_width, double activation_width,
               double kv_width) {
  const double w = activation_width > 0.0 ? activation_width : ir::bytes_per_element(precision);
  const costs::Ctx ctx{layer, shapes, static_cast<double>(batch), w, weight_width > 0.0 ? weight_width : w,
                       static_cast<double>(ir::weight_count(layer, shapes)), grad,
                       ir::bytes_per_element(ir::element_precision(precision)), kv_width > 0.0 ? kv_width : w,
                       ir::bytes_per_element(precision)};
  const ir::OpSpec& spec = ir::spec(layer.op);
  OpCost cost;
  cost.op_class = spec.op_class;
  cost.view = spec.view;
  cost.matrix_unit = ir::op_class_row(spec.op_class).matrix_unit;   // a cost row may narrow it (depthwise)
  cost.params = static_cast<double>(ir::parameter_count(layer, shapes));
  const costs::CostRow& row = cost_row(layer.op);
  row.cost(ctx, cost);
  cost.saves = row.saves;
  // Ops whose train-mode forward is the eval one leave forward_train empty; copy it across.
  if (cost.forward_train == PassCost{}) cost.forward_train = cost.forward;
  if (!grad.output) cost.backward = PassCost{};   // not on any gradient path: autograd skips it
  return cost;
}

}  // namespace ridge::engine
