// IR -> `.net` text: one statement per layer, every argument written out, so the text elaborates to
// the same layers, shapes and attributes (the importer's `--emit-net`). Layer names become
// identifiers (`layer1.0.conv1` -> `layer1_0_conv1`), since `as` takes one.
#include "parse.hpp"

#include "ir/ops.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
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
