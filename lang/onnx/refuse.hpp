// A refusal that names a whole file (no line or column: an .onnx model is binary, and its options are
// given on the command line): what every part of the ONNX front end throws, with or without libonnx.
#pragma once

#include "lang/parse.hpp"

#include <string>

namespace ridge::lang::onnx_import {

[[noreturn]] inline void refuse(const std::string& file, const std::string& message) {
  throw Error({Diagnostic{SourceLocation{file, 0, 0}, message, {}, {}}});
}

}  // namespace ridge::lang::onnx_import
