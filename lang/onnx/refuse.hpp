// A refusal that names a whole file (no line or column: an .onnx model is binary, and its options are
// given on the command line): what every part of the ONNX front end throws, with or without libonnx.
#pragma once

#include "lang/parse.hpp"

#include <string>
#include <string_view>

namespace ridge::lang::onnx_import {

[[noreturn]] inline void refuse(const std::string& file, std::string_view id, const std::string& message) {
  throw Error({file_diagnostic(file, id, message)});
}

}  // namespace ridge::lang::onnx_import
