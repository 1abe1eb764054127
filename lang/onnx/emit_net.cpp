// IR -> `.net` text: one statement per layer, every argument written out, so the text elaborates to
// the same layers, shapes and attributes (the importer's `--emit-net`). Layer names become
// identifiers (`layer1.0.conv1` -> `layer1_0_conv1`), since `as` takes one.
#include "parse.hpp"

#include "ir/ops.hpp"

#include <cctype>
#include <charconv>
#include <set>
#include <sstream>

namespace ridge::lang {
namespace {

const std::set<std::string>& reserved() {
  static const std::set<std::string> words{"network", "block", "input", "if", "else", "for", "in", "return", "true", "false", "as"};
  return words;
}

std::string identifier(const std::string& name) {
  std::string id;
  for (const char c : name) id += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0]))) id = "l_" + id;
  if (reserved().count(id)) id += "_";
  return id;
}

std::string number(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos && s.find("inf") == std::string::npos && s.find("nan") == std::string::npos) s += ".0";
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

}  // namespace

std::string to_net_text(const ir::Network& net) {
  std::vector<std::string> vars(net.layers.size());
  std::set<std::string> taken{"x"};
  std::ostringstream out;
  out << "# " << net.name << ": " << net.layers.size() - 1 << " layers, written by Ridge from the imported graph.\n";
  out << "network " << identifier(net.name) << " {\n";
  out << "  input x: " << value(net.input().output) << "\n";
  vars[0] = "x";
  for (std::size_t i = 1; i < net.layers.size(); ++i) {
    const ir::Layer& l = net.layers[i];
    std::string id = identifier(l.name);
    for (int k = 2; taken.count(id); ++k) id = identifier(l.name) + "_" + std::to_string(k);
    taken.insert(id);
    vars[i] = id;
    const ir::OpSpec& spec = ir::spec(l.op);
    std::string args;
    auto arg = [&](const std::string& a) { args += (args.empty() ? "" : ", ") + a; };
    for (const ir::LayerId in : l.inputs) arg(vars.at(in));
    for (const ir::ParamSpec& p : spec.params) {
      const ir::AttrValue* v = l.attrs.find(p.name);
      if (!v || p.kind == ir::ParamKind::Tensor || p.kind == ir::ParamKind::Tensors) continue;
      if (p.kind == ir::ParamKind::Weights) {
        const auto owner = std::get<std::int64_t>(*v);
        if (owner >= 0) arg(std::string(p.name) + ": " + vars.at(static_cast<std::size_t>(owner)));
        continue;
      }
      // A number given for a tensor-or-number argument (`add(x, 0.5)`) is written in its place.
      arg(p.kind == ir::ParamKind::TensorOrNumber ? value(*v) : std::string(p.name) + ": " + value(*v));
    }
    out << "  " << id << " = " << spec.name << "(" << args << ") as " << id << "\n";
  }
  out << "  return " << vars.at(net.output) << "\n}\n";
  return out.str();
}

}  // namespace ridge::lang
