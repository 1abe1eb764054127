#include "lang/hw/fusion_pattern.hpp"

#include "lang/ir/op_classes.hpp"
#include "lang/ir/ops.hpp"

#include <cctype>

namespace ridge::lang::hw {
namespace {

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::vector<std::string> split(const std::string& s, const std::string& separator) {
  std::vector<std::string> parts;
  std::size_t from = 0;
  for (std::size_t at; (at = s.find(separator, from)) != std::string::npos; from = at + separator.size())
    parts.push_back(trim(s.substr(from, at - from)));
  parts.push_back(trim(s.substr(from)));
  return parts;
}

}  // namespace

std::variant<ir::FusionPattern, std::string> parse_fusion_pattern(std::string name, const std::string& text) {
  ir::FusionPattern pattern{std::move(name), text, {}};
  const std::string example = " (as in \"conv -> batchnorm -> relu|add+\")";
  for (std::string step_text : split(text, "->")) {
    ir::FusionStep step;
    if (!step_text.empty() && step_text.back() == '+') {
      step.repeat = true;
      step_text = trim(step_text.substr(0, step_text.size() - 1));
    }
    if (step_text.empty()) return "a fusion pattern's step is empty" + example;
    for (const std::string& word : split(step_text, "|")) {
      if (word.empty()) return "a fusion pattern's step '" + step_text + "' has an empty alternative" + example;
      std::vector<ir::Op> ops;
      if (const auto op = ir::find_op(word)) {
        ops.push_back(*op);
      } else if (const auto cls = ir::op_class_from_name(word)) {
        for (std::size_t id = 1; id < ir::all_ops().size(); ++id)
          if (ir::all_ops()[id].op_class == *cls && !ir::all_ops()[id].view) ops.push_back(ir::Op{static_cast<std::uint16_t>(id)});
      } else {
        return "'" + word + "' in a fusion pattern is neither an op nor an op class (op classes: " + ir::op_class_names() + ")";
      }
      for (const ir::Op op : ops) {
        const ir::OpSpec& spec = ir::spec(op);
        if (spec.view)
          return "'" + word + "' is a view: it runs no kernel, and a pattern passes through views by itself";
        if (spec.op_class == ir::OpClass::MatMul && !pattern.steps.empty())
          return "'" + word + "' is GEMM-shaped and may only begin a fused kernel (a GEMM with its epilogue)";
        if (!step.matches(op)) step.ops.push_back(op);
      }
    }
    pattern.steps.push_back(std::move(step));
  }
  if (pattern.steps.size() < 2) return "a fusion pattern needs at least two steps joined by '->'" + example;
  return pattern;
}

}  // namespace ridge::lang::hw
