// Structural matching over a graph's nodes for the pattern passes (patterns.cpp, torch_attention.cpp):
// who produces a value, who reads it, and the transposes exporters put between a run's nodes.
#pragma once

#include "lang/onnx/model.hpp"
#include "lang/onnx/tensors.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ridge::lang::onnx_import {

class Matcher {
 public:
  explicit Matcher(const Graph& g) : g_(g) {
    for (int i = 0; i < g.graph().node_size(); ++i)
      for (const auto& out : g.graph().node(i).output()) producer_[out] = i;
    for (int i = 0; i < g.graph().node_size(); ++i)
      for (const auto& in : g.graph().node(i).input()) readers_[in].push_back(i);
  }
  const onnx::NodeProto& node(int i) const { return g_.graph().node(i); }
  std::optional<int> producer(const std::string& value, std::string_view op) const {
    const auto p = producer_.find(value);
    if (p == producer_.end() || node(p->second).op_type() != op || !standard(p->second)) return std::nullopt;
    return p->second;
  }
  // The one node reading `value`, when it is of type `op` and nothing else reads the value.
  std::optional<int> only_reader(const std::string& value, std::string_view op) const {
    const auto r = readers_.find(value);
    if (r == readers_.end() || r->second.size() != 1 || g_.consumers.at(value) != 1) return std::nullopt;
    const int i = r->second.front();
    if (node(i).op_type() != op || !standard(i)) return std::nullopt;
    return i;
  }
  // The other operand of a two-input node, given one of them.
  std::optional<std::string> other(int i, const std::string& one) const {
    const auto& n = node(i);
    if (n.input_size() != 2 || n.output_size() < 1) return std::nullopt;
    if (n.input(0) == one) return n.input(1);
    if (n.input(1) == one) return n.input(0);
    return std::nullopt;
  }
  const std::string& out(int i) const { return node(i).output(0); }
  // Every node reading `value` (a node reading it twice is listed twice).
  std::vector<int> readers(const std::string& value) const {
    const auto r = readers_.find(value);
    return r == readers_.end() ? std::vector<int>{} : r->second;
  }
  // The value is read by exactly one node input and is no graph output.
  bool single(const std::string& value) const {
    const auto r = readers_.find(value);
    return r != readers_.end() && r->second.size() == 1 && g_.consumers.at(value) == 1;
  }
  std::optional<int> transpose(const std::string& value, std::vector<std::int64_t> perm) const {
    const auto t = producer(value, "Transpose");
    if (!t || !single(value) || attr_ints(node(*t), "perm") != perm) return std::nullopt;
    return t;
  }
  // `value` = Transpose(perm) of a Reshape read only by it, as exporters split heads off an axis: the
  // Reshape; both nodes go to `nodes`.
  std::optional<int> heads_view(const std::string& value, std::vector<std::int64_t> perm, std::vector<int>& nodes) const {
    const auto t = transpose(value, std::move(perm));
    if (!t) return std::nullopt;
    const auto r = producer(node(*t).input(0), "Reshape");
    if (!r || !single(out(*r))) return std::nullopt;
    nodes.insert(nodes.end(), {*t, *r});
    return r;
  }

 private:
  bool standard(int i) const { return node(i).domain().empty() || node(i).domain() == "ai.onnx"; }
  const Graph& g_;
  std::map<std::string, int> producer_;
  std::map<std::string, std::vector<int>> readers_;
};

}  // namespace ridge::lang::onnx_import
