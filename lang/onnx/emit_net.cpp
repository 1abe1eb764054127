// IR -> `.net` text: one statement per layer, every argument written out, so the text elaborates to
// the same layers, shapes and attributes (the importer's `--emit-net`). Layer names become
// identifiers (`layer1.0.conv1` -> `layer1_0_conv1`), since `as` takes one. Runs of layers that
// repeat under one module (`layer1.1`, `layer1.2`, ...) are written as calls of one block where the
// folded text elaborates to the same layers (block_folding.hpp), so the instance `layer1_1` holds
// `layer1_1.conv1`.
#include "lang/parse.hpp"

#include "lang/onnx/block_folding.hpp"
#include "lang/ir/ops.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <sstream>

namespace ridge::lang {
namespace {

const std::set<std::string>& reserved() {
  static const std::set<std::string> words{"network", "block", "input", "if", "else", "for", "in", "return", "true", "false", "as", "import"};
  return words;
}


// The shortest decimal that reads back as `v`; with more than 15 significant digits the language's
// number parser may round it differently, so such a value is written exactly, as its binary fraction
// (`(7876165906245 / 4503599627370496 / 8)`: integers below 2^53 and divisions by powers of two are exact).
std::string number(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  int digits = 0;
  bool leading = true;
  for (const char c : s.substr(0, s.find('e'))) {
    if (!std::isdigit(static_cast<unsigned char>(c))) continue;
    leading = leading && c == '0';
    if (!leading) ++digits;
  }
  if (digits > 15 && std::isfinite(v) && v != 0) {
    int exponent = 0;
    const double fraction = std::frexp(v, &exponent);   // v = fraction * 2^exponent
    auto mantissa = static_cast<std::int64_t>(std::ldexp(fraction, 53));
    int shift = exponent - 53;
    while (mantissa % 2 == 0 && shift < 0) {
      mantissa /= 2;
      ++shift;
    }
    std::string exact = "(" + std::to_string(mantissa);
    for (; shift < 0; shift += std::min(-shift, 52)) exact += " / " + std::to_string(std::int64_t{1} << std::min(-shift, 52));
    for (; shift > 0; shift -= std::min(shift, 52)) exact += " * " + std::to_string(std::int64_t{1} << std::min(shift, 52));
    return exact + ")";
  }
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string value(const ir::AttrValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (const auto* r = std::get_if<double>(&v)) return number(*r);
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (const auto* s = std::get_if<std::string>(&v)) return "\"" + *s + "\"";
  std::string out = "[";
  for (const auto x : std::get<std::vector<std::int64_t>>(v)) out += (out.size() > 1 ? ", " : "") + std::to_string(x);
  return out + "]";
}

// Whether an attribute holds its argument's default: the same value, or for a spatial argument the
// default on every spatial axis (`stride: 1` is stored as [1, 1]).
bool at_default(const ir::ParamSpec& p, const ir::AttrValue& v) {
  if (!p.fallback) return false;
  if (*p.fallback == v) return true;
  const auto* one = std::get_if<std::int64_t>(&*p.fallback);
  const auto* list = std::get_if<std::vector<std::int64_t>>(&v);
  return p.kind == ir::ParamKind::Spatial && one && list && !list->empty() &&
         std::all_of(list->begin(), list->end(), [&](std::int64_t x) { return x == *one; });
}

// `op(inputs, attributes)` for one layer: `var` names the value of an earlier layer, `argument`
// names the block argument that sets an attribute (empty: write the value).
std::string call(const ir::Layer& l, const std::function<std::string(ir::LayerId)>& var,
                 const std::function<std::string(const std::string&)>& argument) {
  const ir::OpSpec& spec = ir::spec(l.op);
  std::string args;
  auto arg = [&](const std::string& a) { args += (args.empty() ? "" : ", ") + a; };
  for (const ir::LayerId in : l.inputs) arg(var(in));
  for (const ir::ParamSpec& p : spec.params) {
    const ir::AttrValue* v = l.attrs.find(p.name);
    if (!v || p.kind == ir::ParamKind::Tensor || p.kind == ir::ParamKind::Tensors) continue;
    if (p.kind == ir::ParamKind::Weights) {
      const auto owner = std::get<std::int64_t>(*v);
      if (owner >= 0) arg(std::string(p.name) + ": " + var(static_cast<ir::LayerId>(owner)));
      continue;
    }
    const std::string name = argument(std::string(p.name));
    // An attribute at its default is left out (`linear(x, out: 8)`, not `..., bias: true`); one a
    // block argument sets is written whatever its value here.
    if (name.empty() && at_default(p, *v)) continue;
    const std::string written = name.empty() ? value(*v) : name;
    // A number given for a tensor-or-number argument (`add(x, 0.5)`) is written in its place.
    arg(p.kind == ir::ParamKind::TensorOrNumber ? written : std::string(p.name) + ": " + written);
  }
  return std::string(spec.name) + "(" + args + ")";
}

// Identifiers unique within one scope.
class Names {
 public:
  std::string take(const std::string& name) {
    const std::string base = net_identifier(name);
    std::string id = base;
    for (int k = 2; !taken_.insert(id).second; ++k) id = base + "_" + std::to_string(k);
    return id;
  }

 private:
  std::set<std::string> taken_;
};

// A block's definition; returns its name.
std::string write_block(std::ostream& out, const ir::Network& net, const net_text::Block& block, Names& block_names) {
  const std::string name = block_names.take(block.container + "_block");
  const net_text::Instance& run = block.instances.front();
  Names names;
  std::vector<std::string> params;
  for (std::size_t k = 0; k < block.input_count; ++k) params.push_back(names.take(k == 0 ? "x" : "x" + std::to_string(k + 1)));
  std::map<std::pair<std::size_t, std::string>, std::string> argument_of;
  for (const auto& slots : block.arguments) {
    const std::string param = names.take(block.suffixes[slots.front().offset] + "_" + slots.front().attr);
    for (const auto& slot : slots) argument_of[{slot.offset, slot.attr}] = param;
    params.push_back(param);
  }
  std::vector<std::string> vars;
  for (const std::string& suffix : block.suffixes) vars.push_back(names.take(suffix));
  out << "block " << name << "(";
  for (std::size_t k = 0; k < params.size(); ++k) out << (k ? ", " : "") << params[k];
  out << ") {\n";
  for (std::size_t offset = 0; offset < vars.size(); ++offset) {
    const auto var = [&](ir::LayerId id) {
      if (id >= run.first) return vars.at(id - run.first);
      return params.at(static_cast<std::size_t>(std::find(run.inputs.begin(), run.inputs.end(), id) - run.inputs.begin()));
    };
    const auto argument = [&](const std::string& attr) {
      const auto found = argument_of.find({offset, attr});
      return found == argument_of.end() ? std::string() : found->second;
    };
    out << "  " << vars[offset] << " = " << call(net.layers[run.first + offset], var, argument) << " as " << vars[offset] << "\n";
  }
  out << "  return " << vars.back() << "\n}\n\n";
  return name;
}

std::string write(const ir::Network& net, const std::vector<net_text::Block>& blocks) {
  std::ostringstream out;
  out << "# " << net.name << ": " << net.layers.size() - 1 << " layers, written by Ridge from an imported graph";
  out << (blocks.empty() ? ".\n" : " (repeated runs as blocks).\n");
  Names block_names;
  std::map<ir::LayerId, std::pair<std::string, const net_text::Instance*>> calls;   // first layer -> block, run
  for (const net_text::Block& block : blocks) {
    const std::string name = write_block(out, net, block, block_names);
    for (const net_text::Instance& run : block.instances) calls[run.first] = {name, &run};
  }
  std::vector<std::string> vars(net.layers.size());
  Names names;
  vars[0] = names.take("x");
  const auto var = [&](ir::LayerId id) { return vars.at(id); };
  const auto no_argument = [](const std::string&) { return std::string(); };
  out << "network " << net_identifier(net.name) << " {\n";
  out << "  input x: " << value(net.input().output) << "\n";
  for (std::size_t i = 1; i < net.layers.size(); ++i) {
    if (const auto c = calls.find(i); c != calls.end()) {
      const auto& [block, run] = c->second;
      const std::string id = names.take(run->scope);
      std::string args;
      for (const ir::LayerId in : run->inputs) args += (args.empty() ? "" : ", ") + vars.at(in);
      for (const ir::AttrValue& a : run->arguments) args += (args.empty() ? "" : ", ") + value(a);
      out << "  " << id << " = " << block << "(" << args << ") as " << id << "\n";
      vars[run->last] = id;
      i = run->last;
      continue;
    }
    vars[i] = names.take(net.layers[i].name);
    if (net.layers[i].op == ir::kInputOp) {   // a further input, named after its variable
      out << "  input " << vars[i] << ": " << value(net.layers[i].output) << "\n";
      continue;
    }
    out << "  " << vars[i] << " = " << call(net.layers[i], var, no_argument) << " as " << vars[i] << "\n";
  }
  out << "  return " << vars.at(net.output) << "\n}\n";
  return out.str();
}

// Everything but the names: a folded text names its layers `layer1_0.conv1`, the flat one `layer1_0_conv1`.
bool same_layers(const ir::Network& a, const ir::Network& b) {
  if (a.layers.size() != b.layers.size() || a.output != b.output) return false;
  for (std::size_t i = 0; i < a.layers.size(); ++i) {
    const ir::Layer& x = a.layers[i];
    const ir::Layer& y = b.layers[i];
    if (!(x.op == y.op && x.attrs == y.attrs && x.inputs == y.inputs && x.output == y.output)) return false;
  }
  return true;
}

}  // namespace

std::string net_identifier(const std::string& name) {
  std::string id;
  for (const char c : name) id += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0]))) id = "l_" + id;
  if (reserved().count(id)) id += "_";
  return id;
}

std::string to_net_text(const ir::Network& net) {
  const std::vector<net_text::Block> blocks = net_text::find_blocks(net);
  if (!blocks.empty()) {
    // Kept only where it is exact: the folded text must elaborate to the very layers it stands for.
    std::string folded = write(net, blocks);
    try {
      if (same_layers(parse_network(folded, net.name + ".net"), net)) return folded;
    } catch (const std::exception&) {
    }
  }
  return write(net, {});
}

}  // namespace ridge::lang
