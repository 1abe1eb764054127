// The language's façade: text (or a file) in, IR or diagnostics out. No other folder includes a
// Spirit header; everything the rest of Ridge needs from the syntax goes through here.
#pragma once

#include "lang/diagnostics.hpp"
#include "lang/ir/device.hpp"
#include "lang/ir/runtime.hpp"
#include "lang/ir/network.hpp"

#include <map>
#include <set>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ridge::lang {

// Values given from outside the file (`simulate --set classes=10`): they replace the defaults of the
// network's parameters. Naming a parameter the network does not have is an error.
using Overrides = std::map<std::string, std::string>;
// Command-line bindings "name=value" (`--set`, `--dim`) as overrides. Throws std::invalid_argument
// naming `option` for a binding without a name or a value.
Overrides parse_overrides(const std::vector<std::string>& bindings, const std::string& option);

// Reads the source file at a path: read_source for files on disk, refusing what cannot be source text
// (docs/language.md, "Limits"); tests and the fuzzer read from memory. Throws lang::Error.
using SourceReader = std::function<std::string(const std::string& path)>;
std::string read_source(const std::string& path);

// Parse and elaborate a `.net` text. `file` names it in diagnostics, and the files it imports are
// found relative to it and read with `read`. Throws lang::Error.
ir::Network parse_network(const std::string& text, const std::string& file, const Overrides& overrides = {},
                          const SourceReader& read = read_source);
// Parse and check a `.hw` text. Throws lang::Error.
ir::Device parse_device(const std::string& text, const std::string& file);

// The same for files on disk (an `.onnx` path is imported: see load_onnx); unreadable, missing, oversized or binary files are diagnostics too.
ir::Network load_network(const std::string& path, const Overrides& overrides = {});
ir::Device load_device(const std::string& path);

// A software stack (runtimes/*.rt, issue #35): the `.hw` language with `runtime "NAME" { ... }`; its
// keys in docs/language.md. The same diagnostics as a device's.
ir::Runtime parse_runtime(const std::string& text, const std::string& file);
ir::Runtime load_runtime(const std::string& path);

// The parameters a `.net` file's network declares (what --set may name), in declaration order; for a
// variant (`network b = a(...)`), those of the network it varies. Parses the file and its imports but
// does not elaborate them. Throws lang::Error for a file that does not parse.
std::vector<std::string> network_parameters(const std::string& path);

// ONNX models (lang/onnx/): the graph read with Debian's libonnx-dev protobuf schema and turned into
// the same IR. The batch axis (axis 0 of the graph input) stays out of the IR, as in a `.net`; every
// other symbolic dimension must be bound by `dims` (`--dim NAME=VALUE`; `seq_len` also binds the
// dimensions exporters name sequence, sequence_length or seq).
struct OnnxOptions {
  std::map<std::string, std::int64_t> dims;
  bool allow_unknown = false;   // ops Ridge cannot model become free views, listed in free_nodes
  // The graph input's axis that is the batch (0 as most models take it; 1 for a sequence-first
  // recurrent or transformer module, [T, batch, features]).
  int batch_axis = 0;
  // Initializers that are not learned (a module's registered buffers: ridge.from_torch names them).
  // An ONNX file cannot tell a buffer from a parameter, so any other initializer read as data is a
  // learned `parameter`; these become `buffer` layers, not counted as parameters.
  std::set<std::string> buffers;
};
struct OnnxImport {
  ir::Network network;
  std::vector<std::string> free_nodes;   // "node 7 'nms' (NonMaxSuppression, inputs: ...)", with allow_unknown
  std::vector<Diagnostic> warnings;      // the same as warnings (onnx-free-node), for a consumer of diagnostics
};
// Throws lang::Error naming `file`.
OnnxImport parse_onnx(const std::string& bytes, const std::string& file, const OnnxOptions& options = {});
OnnxImport load_onnx(const std::string& path, const OnnxOptions& options = {});
bool is_onnx_path(const std::string& path);   // by extension: ".onnx"
// Overrides (`--set`, `--dim`, `--seq-len`) as dimension bindings; a value that is not a whole number
// from 1 to 2^31 is an error naming `file`. load_network() reads an .onnx path with these.
OnnxOptions onnx_options(const Overrides& overrides, const std::string& file);
inline constexpr std::size_t kMaxOnnxFileBytes = std::size_t{2} * 1024 * 1024 * 1024 - 1;

// A network as `.net` text that elaborates to the same layers, shapes and attributes (layer names
// made into identifiers: `layer1.0.conv1` is written `layer1_0_conv1`).
std::string to_net_text(const ir::Network& network);
// A name as a `.net` identifier, as to_net_text writes it: other characters as '_', a leading digit
// prefixed, a keyword suffixed (`import` -> `import_`).
std::string net_identifier(const std::string& name);

inline constexpr std::size_t kMaxSourceBytes = 4 * 1024 * 1024;

}  // namespace ridge::lang
