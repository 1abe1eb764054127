// Reading an .onnx file: bytes -> onnx::ModelProto -> a checked graph in topological order. Everything
// a hostile file can do wrong (truncation, bad references, cycles, absurd sizes) is refused here or
// in the importer with an OnnxError, never a crash; the limits are in docs/language.md ("Limits").
#pragma once

#include "lang/diagnostic_ids.hpp"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ridge::lang::onnx_import {

// What the importer rejects: of the kind `id` (lang/diagnostic_ids.hpp), about the node `node` names
// (describe()) or, empty, the model as a whole. The façade turns it into a lang::Error naming the file
// and, first in the message, the node.
struct OnnxError : std::runtime_error {
  OnnxError(const std::string& message, std::string_view id, std::string node = {})
      : std::runtime_error(message), id(id), node(std::move(node)) {}
  std::string_view id;
  std::string node;
};

inline constexpr std::size_t kMaxOnnxBytes = std::size_t{2} * 1024 * 1024 * 1024 - 1;   // protobuf's own limit
inline constexpr std::size_t kMaxNodes = 100'000;          // the IR's layer limit
inline constexpr std::size_t kMaxNodeInputs = 65'536;
inline constexpr std::size_t kMaxEdges = 1'000'000;
inline constexpr std::size_t kMaxRank = 16;
inline constexpr std::int64_t kMaxFoldedElements = 1 << 20;   // one constant computed at import
inline constexpr std::int64_t kMaxFoldedTotal = 1 << 24;       // all of them together
inline constexpr std::int64_t kMaxReadElements = 1 << 16;      // tensors whose values are read (larger: shapes only)

struct Graph {
  onnx::ModelProto model;
  std::vector<int> order;                          // node indices, topological
  std::map<std::string, int> consumers;            // value name -> how many node inputs read it
  std::int64_t opset = 0;                          // of the default ("ai.onnx") domain
  const onnx::GraphProto& graph() const { return model.graph(); }
};

// Parses and checks the bytes of a model. Throws OnnxError.
Graph read_model(const std::string& bytes);

// "node 37 'Conv_12' (Conv, inputs: x, w)": how errors and free nodes name a node. `index` is its
// place in the graph's node list (model.graph.node[37] in Python's onnx), which a name need not tell
// (exporters leave names empty or repeat them); -1 when the node is not one of the graph's own.
std::string describe(const onnx::NodeProto& node, int index);
// The index of `node` in `graph`'s node list, -1 if it is not there.
int node_index(const onnx::GraphProto& graph, const onnx::NodeProto& node);

}  // namespace ridge::lang::onnx_import
