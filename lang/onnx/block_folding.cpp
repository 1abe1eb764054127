#include "lang/onnx/block_folding.hpp"

#include "lang/ir/ops.hpp"

#include <algorithm>
#include <cctype>
#include <map>

namespace ridge::lang::net_text {
namespace {

bool is_index(std::string_view part) {
  return !part.empty() && std::all_of(part.begin(), part.end(), [](unsigned char c) { return std::isdigit(c); });
}

// "layer1.0.conv1" -> "layer1.0", "h.7.attn.c_attn" -> "h.7": the name up to its first part that is a
// number (a ModuleList or Sequential index); "" when there is none. A layer named after the module
// itself (torch names a residual `Add` in `layer1.0`'s forward `layer1.0`) belongs to it too.
std::string scope_of(const std::string& name) {
  std::size_t start = 0;
  for (std::size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', start)) {
    if (is_index(std::string_view(name).substr(start, dot - start))) return name.substr(0, dot);
    start = dot + 1;
  }
  return start > 0 && is_index(std::string_view(name).substr(start)) ? name : std::string();
}

// The layer's name inside its scope: "conv1", "downsample.0"; the op's name for the module's own layer.
std::string suffix_of(const ir::Layer& l, const std::string& scope) {
  return l.name.size() > scope.size() ? l.name.substr(scope.size() + 1) : std::string(ir::spec(l.op).name);
}

bool is_weights(const ir::Layer& l, const std::string& attr) {
  for (const ir::ParamSpec& p : ir::spec(l.op).params)
    if (p.name == attr) return p.kind == ir::ParamKind::Weights;
  return false;
}

// Numbers and integer lists may differ between runs of one block (they become its arguments); words,
// flags and tied-weight owners may not.
bool is_argument_kind(const ir::AttrValue& v) {
  return std::holds_alternative<std::int64_t>(v) || std::holds_alternative<double>(v) ||
         std::holds_alternative<std::vector<std::int64_t>>(v);
}

bool inside(ir::LayerId id, ir::LayerId first, ir::LayerId last) { return id >= first && id <= last; }

// Who reads each layer last, and which layers each one shares tied weights with (either way).
struct Uses {
  std::vector<ir::LayerId> last_reader;
  std::vector<std::vector<ir::LayerId>> tied;
  explicit Uses(const ir::Network& net) : last_reader(net.layers.size(), 0), tied(net.layers.size()) {
    for (ir::LayerId j = 1; j < net.layers.size(); ++j) {
      const ir::Layer& l = net.layers[j];
      for (const ir::LayerId in : l.inputs) last_reader[in] = std::max(last_reader[in], j);
      for (const auto& [attr, v] : l.attrs.items()) {
        if (!is_weights(l, attr) || std::get<std::int64_t>(v) < 0) continue;
        const auto owner = static_cast<ir::LayerId>(std::get<std::int64_t>(v));
        tied[j].push_back(owner);
        tied[owner].push_back(j);
      }
    }
  }
};

// A run can be a block call only if nothing outside it reads any layer but its last, and no layer in
// it shares tied weights with a layer outside it.
bool callable(const ir::Network& net, const Uses& uses, ir::LayerId first, ir::LayerId last) {
  if (net.output >= first && net.output < last) return false;
  for (ir::LayerId id = first; id <= last; ++id) {
    if (id < last && uses.last_reader[id] > last) return false;
    for (const ir::LayerId other : uses.tied[id])
      if (!inside(other, first, last)) return false;
  }
  return true;
}

// What two runs must share to be one block: the layers' names within the scope, ops, wiring (inside
// the run by offset, outside by order of first use) and every attribute but the numbers.
std::string structure(const ir::Network& net, Instance& run) {
  std::string key;
  for (ir::LayerId id = run.first; id <= run.last; ++id) {
    const ir::Layer& l = net.layers[id];
    key += suffix_of(l, run.scope) + '\x1f' + std::to_string(l.op.id) + '(';
    for (const ir::LayerId in : l.inputs) {
      if (in >= run.first) {
        key += 'i' + std::to_string(in - run.first) + ',';
        continue;
      }
      auto at = std::find(run.inputs.begin(), run.inputs.end(), in);
      if (at == run.inputs.end()) at = run.inputs.insert(at, in);
      key += 'e' + std::to_string(at - run.inputs.begin()) + ',';
    }
    for (const auto& [attr, v] : l.attrs.items()) {
      key += attr + '=';
      if (is_weights(l, attr)) {
        const auto owner = std::get<std::int64_t>(v);
        key += owner < 0 ? "none" : 'w' + std::to_string(static_cast<ir::LayerId>(owner) - run.first);
      } else if (is_argument_kind(v)) {
        key += "#" + std::to_string(v.index());
      } else if (const auto* b = std::get_if<bool>(&v)) {
        key += *b ? "true" : "false";
      } else {
        key += '"' + std::get<std::string>(v) + '"';
      }
      key += ';';
    }
    key += ")\x1e";
  }
  return key;
}

// The runs of two or more layers under one scope that a block call can stand for.
std::vector<Instance> runs(const ir::Network& net) {
  const Uses uses(net);
  std::vector<Instance> found;
  for (ir::LayerId i = 1; i < net.layers.size();) {
    Instance run{scope_of(net.layers[i].name), i, i, {}, {}};
    while (run.last + 1 < net.layers.size() && !run.scope.empty() && scope_of(net.layers[run.last + 1].name) == run.scope)
      ++run.last;
    i = run.last + 1;
    if (!run.scope.empty() && run.last > run.first && callable(net, uses, run.first, run.last)) found.push_back(std::move(run));
  }
  return found;
}

// The block's arguments: each attribute whose value is not the same in every run, attributes whose
// values agree run by run sharing one argument.
void add_arguments(const ir::Network& net, Block& block) {
  const Instance& first = block.instances.front();
  std::vector<std::vector<ir::AttrValue>> columns;
  for (std::size_t offset = 0; first.first + offset <= first.last; ++offset) {
    for (const auto& [attr, v] : net.layers[first.first + offset].attrs.items()) {
      if (!is_argument_kind(v) || is_weights(net.layers[first.first + offset], attr)) continue;
      std::vector<ir::AttrValue> values;
      for (const Instance& run : block.instances) values.push_back(*net.layers[run.first + offset].attrs.find(attr));
      if (std::all_of(values.begin(), values.end(), [&](const ir::AttrValue& x) { return x == values.front(); })) continue;
      const auto same = std::find(columns.begin(), columns.end(), values);
      if (same != columns.end()) {
        block.arguments[static_cast<std::size_t>(same - columns.begin())].push_back({offset, attr});
        continue;
      }
      columns.push_back(std::move(values));
      block.arguments.push_back({{offset, attr}});
    }
  }
  for (std::size_t r = 0; r < block.instances.size(); ++r)
    for (const auto& column : columns) block.instances[r].arguments.push_back(column[r]);
}

}  // namespace

std::vector<Block> find_blocks(const ir::Network& net) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<Instance>> by_structure;
  for (Instance& run : runs(net)) {
    std::string key = structure(net, run);
    auto& group = by_structure[key];
    if (group.empty()) order.push_back(key);
    group.push_back(std::move(run));
  }
  std::vector<Block> blocks;
  for (const std::string& key : order) {
    auto& group = by_structure[key];
    if (group.size() < 2) continue;
    Block block;
    const Instance& first = group.front();
    block.container = first.scope.substr(0, first.scope.rfind('.'));
    for (ir::LayerId id = first.first; id <= first.last; ++id)
      block.suffixes.push_back(suffix_of(net.layers[id], first.scope));
    block.input_count = first.inputs.size();
    block.instances = std::move(group);
    add_arguments(net, block);
    blocks.push_back(std::move(block));
  }
  return blocks;
}

}  // namespace ridge::lang::net_text
