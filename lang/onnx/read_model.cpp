// bytes -> a checked onnx::ModelProto with its nodes in topological order.
#include "lang/onnx/model.hpp"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <climits>
#include <deque>
#include <set>

namespace ridge::lang::onnx_import {

std::string describe(const onnx::NodeProto& node, int index) {
  std::string s = "node";
  if (index >= 0) s += " " + std::to_string(index);
  if (!node.name().empty()) s += " '" + node.name() + "'";
  const bool standard = node.domain().empty() || node.domain() == "ai.onnx";
  s += " (" + (standard ? node.op_type() : node.domain() + "." + node.op_type()) + ", inputs: ";
  for (int i = 0; i < node.input_size() && i < 8; ++i) s += (i ? ", " : "") + node.input(i);
  if (node.input_size() > 8) s += ", ... " + std::to_string(node.input_size()) + " in all";
  return s + ")";
}

int node_index(const onnx::GraphProto& graph, const onnx::NodeProto& node) {
  // By address: an error is rare, and a scan of the node list costs nothing next to the import.
  for (int i = 0; i < graph.node_size(); ++i)
    if (&graph.node(i) == &node) return i;
  return -1;
}

namespace {

// ONNX nests graphs only inside attributes (If, Loop, Scan): a few levels of messages in a real model.
constexpr int kMaxMessageDepth = 64;

bool parse_within(const std::string& bytes, onnx::ModelProto& model, int depth) {
  google::protobuf::io::ArrayInputStream raw(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream in(&raw);
  in.SetTotalBytesLimit(INT_MAX);
  in.SetRecursionLimit(depth);
  return model.ParseFromCodedStream(&in) && in.ConsumedEntireMessage();
}

void parse(const std::string& bytes, onnx::ModelProto& model) {
  if (bytes.size() > kMaxOnnxBytes)
    throw OnnxError("file is " + std::to_string(bytes.size()) + " bytes; .onnx files are limited to " +
                        std::to_string(kMaxOnnxBytes) + " bytes (protobuf's limit)",
                    diag::kFileTooLarge);
  if (parse_within(bytes, model, kMaxMessageDepth)) return;
  // Told apart from a corrupt file (issue #41: twenty nested Ifs were "truncated or corrupt"): a model
  // that parses when allowed deeper nesting is well formed, only nested past what Ridge reads.
  onnx::ModelProto deeper;
  if (parse_within(bytes, deeper, 16 * kMaxMessageDepth))
    throw OnnxError("the model nests graphs (If, Loop, Scan) more than " + std::to_string(kMaxMessageDepth) +
                        " protobuf messages deep; Ridge reads a few levels, as real models have",
                    diag::kOnnxLimit);
  throw OnnxError("not an ONNX model: the protobuf is truncated or corrupt", diag::kOnnxCorrupt);
}

}  // namespace

Graph read_model(const std::string& bytes) {
  Graph g;
  parse(bytes, g.model);
  for (const auto& set : g.model.opset_import())
    if (set.domain().empty() || set.domain() == "ai.onnx") g.opset = set.version();
  if (!g.model.has_graph()) throw OnnxError("the model has no graph", diag::kOnnxCorrupt);
  const onnx::GraphProto& graph = g.graph();
  const std::size_t nodes = static_cast<std::size_t>(graph.node_size());
  if (nodes > kMaxNodes)
    throw OnnxError("the graph has " + std::to_string(nodes) + " nodes; at most " + std::to_string(kMaxNodes), diag::kOnnxLimit);

  // Who produces each value: a graph input, an initializer or exactly one node output.
  std::map<std::string, int> producer;   // -1: graph input or initializer
  auto produce = [&](const std::string& name, int node) {
    if (name.empty()) return;
    if (!producer.emplace(name, node).second && node >= 0)
      throw OnnxError("value '" + name + "' is produced twice (again by this node)", diag::kOnnxGraph,
                      describe(graph.node(node), node));
  };
  for (const auto& t : graph.initializer()) produce(t.name(), -1);
  for (const auto& v : graph.input()) produce(v.name(), -1);
  std::size_t edges = 0;
  for (std::size_t i = 0; i < nodes; ++i) {
    const auto& n = graph.node(static_cast<int>(i));
    if (static_cast<std::size_t>(n.input_size()) > kMaxNodeInputs)
      throw OnnxError("has " + std::to_string(n.input_size()) + " inputs; a node takes at most " + std::to_string(kMaxNodeInputs),
                      diag::kOnnxLimit, describe(n, static_cast<int>(i)));
    edges += static_cast<std::size_t>(n.input_size()) + static_cast<std::size_t>(n.output_size());
    if (edges > kMaxEdges)
      throw OnnxError("the graph's nodes have more than " + std::to_string(kMaxEdges) + " inputs and outputs together",
                      diag::kOnnxLimit);
    for (const auto& out : n.output()) produce(out, static_cast<int>(i));
  }

  // Kahn's algorithm: ONNX requires a sorted graph, but sorting here costs little and turns a
  // cycle into a clear error instead of a value read before it exists.
  std::vector<int> waiting(nodes, 0);
  std::vector<std::vector<int>> readers(nodes);
  for (std::size_t i = 0; i < nodes; ++i) {
    const auto& n = graph.node(static_cast<int>(i));
    std::set<int> from;
    for (const auto& in : n.input()) {
      if (in.empty()) continue;   // an optional input left out
      const auto p = producer.find(in);
      if (p == producer.end())
        throw OnnxError("reads '" + in + "', which nothing in the graph produces", diag::kOnnxGraph, describe(n, static_cast<int>(i)));
      ++g.consumers[in];
      if (p->second >= 0 && from.insert(p->second).second) {
        ++waiting[i];
        readers[static_cast<std::size_t>(p->second)].push_back(static_cast<int>(i));
      }
    }
  }
  for (const auto& out : graph.output()) {
    if (!producer.count(out.name())) throw OnnxError("graph output '" + out.name() + "' is produced by nothing", diag::kOnnxGraph);
    ++g.consumers[out.name()];
  }
  std::deque<int> ready;
  for (std::size_t i = 0; i < nodes; ++i)
    if (waiting[i] == 0) ready.push_back(static_cast<int>(i));
  while (!ready.empty()) {
    const int i = ready.front();
    ready.pop_front();
    g.order.push_back(i);
    for (const int r : readers[static_cast<std::size_t>(i)])
      if (--waiting[static_cast<std::size_t>(r)] == 0) ready.push_back(r);
  }
  if (g.order.size() != nodes) {
    for (std::size_t i = 0; i < nodes; ++i)
      if (waiting[i] > 0)
        throw OnnxError("the graph has a cycle through this node", diag::kOnnxGraph,
                        describe(graph.node(static_cast<int>(i)), static_cast<int>(i)));
  }
  if (graph.output_size() == 0) throw OnnxError("the graph has no output", diag::kOnnxGraph);
  return g;
}

}  // namespace ridge::lang::onnx_import
