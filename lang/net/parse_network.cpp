// lang/parse.hpp's `.net` half: read the file and its imports (sources.hpp), then elaborate.
#include "lang/net/elaborate.hpp"
#include "lang/net/networks.hpp"
#include "lang/parse.hpp"

namespace ridge::lang {

ir::Network parse_network(const std::string& text, const std::string& file, const Overrides& overrides,
                          const SourceReader& read) {
  const net::Sources sources(text, file, read);
  return net::elaborate(sources, overrides);
}

std::vector<std::string> network_parameters(const std::string& path) {
  const net::Sources sources(read_source(path), path, read_source);
  return net::network_parameters(sources);
}

ir::Network load_network(const std::string& path, const Overrides& overrides) {
  if (is_onnx_path(path)) return load_onnx(path, onnx_options(overrides, path)).network;
  const std::string text = read_source(path);
  try {
    return parse_network(text, path, overrides);
  } catch (const Error& e) {
    // A file without the .net extension that does not read as .net source is most likely some other
    // file given by mistake: one error that says so, and none of its lines echoed (issue #41: the
    // Python module quoted the first lines of any file it was handed).
    const bool named_net = path.size() > 4 && path.compare(path.size() - 4, 4, ".net") == 0;
    if (named_net || e.diagnostics().empty()) throw;
    Diagnostic d = e.diagnostics().front();
    d.message = "not a .net source (nor named *.net): " + d.message;
    d.source_line.clear();
    d.notes.clear();
    throw Error({std::move(d)});
  }
}

}  // namespace ridge::lang
