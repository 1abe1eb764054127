// Reading an .onnx file: bytes -> onnx::ModelProto -> a checked graph in topological order. Everything
// a hostile file can do wrong (truncation, bad references, cycles, absurd sizes) is refused here or
// in the importer with an OnnxError, never a crash; the limits are in lang/LANGUAGE.md ("ONNX").
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace ridge::lang::onnx_import {

// What the importer rejects. The façade turns it into a lang::Error naming the file.
struct OnnxError : std::runtime_error {
  using std::runtime_error::runtime_error;
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

// "'Conv' node 'Conv_12' (inputs: x, w)": how errors name a node.
std::string describe(const onnx::NodeProto& node);

}  // namespace ridge::lang::onnx_import
