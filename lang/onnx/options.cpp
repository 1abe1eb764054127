// What the ONNX front end shares with every build, with or without Debian's libonnx-dev: which paths
// are models and how --set/--dim bind their dimensions (no protobuf here).
#include "lang/parse.hpp"

#include "lang/ir/ops.hpp"
#include "lang/onnx/refuse.hpp"

#include <charconv>

namespace ridge::lang {

bool is_onnx_path(const std::string& path) {
  return path.size() > 5 && path.compare(path.size() - 5, 5, ".onnx") == 0;
}

OnnxOptions onnx_options(const Overrides& overrides, const std::string& file) {
  OnnxOptions o;
  for (const auto& [name, text] : overrides) {
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || end != text.data() + text.size() || v < 1 || v > ir::kMaxDimension)
      onnx_import::refuse(file, diag::kOnnxInput, "dimension '" + name + "' = '" + text + "' is not a whole number from 1 to " +
                                                       std::to_string(ir::kMaxDimension));
    o.dims[name] = v;
  }
  return o;
}

}  // namespace ridge::lang
