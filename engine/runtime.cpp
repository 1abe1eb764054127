#include "engine/runtime.hpp"

#include "lang/ir/ops.hpp"

#include <utility>

namespace ridge::engine::runtime {

ir::Network last_position_logits(ir::Network network) {
  if (network.layers.empty() || network.output + 1 != network.layers.size()) return network;
  const ir::Layer head = network.layers[network.output];
  if (head.inputs.size() != 1) return network;
  const ir::LayerId from = head.inputs.front();
  const ir::Shape& in = network.layers[from].output;
  if (in.size() < 2 || in.front() <= 1) return network;
  ir::Layer last;
  last.name = network.layers[from].name + ".last_position";
  last.op = ir::op("slice");
  last.attrs = ir::Attrs{{"start", in.front() - 1}, {"size", std::int64_t{1}}, {"axis", std::int64_t{0}}};
  last.inputs = {from};
  last.output = ir::infer_shape(last.op, last.attrs, {in});
  last.origin = head.origin;
  ir::Layer fed = head;
  fed.inputs = {network.layers.size() - 1};   // the slice, where the head stood
  fed.output = ir::infer_shape(fed.op, fed.attrs, {last.output});
  network.layers.back() = std::move(last);
  network.layers.push_back(std::move(fed));
  network.output = network.layers.size() - 1;
  return network;
}

std::optional<std::string> attention_kernel(const ir::Runtime* runtime) { return runtime ? runtime->attention : std::nullopt; }

std::optional<double> launch_overhead_s(const ir::Runtime* runtime) {
  return runtime && runtime->launch_overhead ? std::optional<double>(runtime->launch_overhead->value) : std::nullopt;
}

double step_overhead_s(const ir::Runtime* runtime) {
  return runtime && runtime->step_overhead ? runtime->step_overhead->value : 0.0;
}

}  // namespace ridge::engine::runtime
