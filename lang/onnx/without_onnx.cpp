// The ONNX front end of a build without Debian's libonnx-dev (RIDGE_WITH_ONNX=OFF: the validate-only
// build on a GPU machine, which has no Debian packages): an .onnx path is a clear error, not a link failure.
#include "lang/onnx/refuse.hpp"
#include "lang/parse.hpp"

namespace ridge::lang {
namespace {

constexpr const char* kNoOnnx =
    "this build of Ridge cannot read ONNX models (configured with RIDGE_WITH_ONNX=OFF); "
    "build with Debian's libonnx-dev (.ci/setup) to import them";

}  // namespace

OnnxImport parse_onnx(const std::string&, const std::string& file, const OnnxOptions&) { onnx_import::refuse(file, diag::kOnnxUnavailable, kNoOnnx); }
OnnxImport load_onnx(const std::string& path, const OnnxOptions&) { onnx_import::refuse(path, diag::kOnnxUnavailable, kNoOnnx); }

}  // namespace ridge::lang
