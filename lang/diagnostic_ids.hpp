// The stable IDs of the front end's diagnostics: one per kind of mistake, so that tests, scripts and
// readers can tell kinds apart without matching message text (which is free to improve). The scheme is
// `<where>-<kind>` in lower-case kebab case, `<where>` one of file (any input file, before its
// language matters), net, hw, onnx and trace. An ID keeps its meaning once released; a new kind of mistake
// gets a new ID. docs/language.md ("Diagnostics") lists them all, and tests/lang checks that the list
// there is this one.
#pragma once

#include <array>
#include <string_view>

namespace ridge::lang::diag {

// Any input file.
inline constexpr std::string_view kFileUnreadable = "file-unreadable";   // missing, a directory, no permission, read error
inline constexpr std::string_view kFileTooLarge = "file-too-large";      // past the size limit of its kind
inline constexpr std::string_view kFileBinary = "file-binary";           // a NUL byte: not source text

// `.net` networks.
inline constexpr std::string_view kNetText = "net-text";                 // a byte .net text may not hold
inline constexpr std::string_view kNetBrackets = "net-brackets";         // brackets that do not balance
inline constexpr std::string_view kNetSyntax = "net-syntax";             // expected ..., found ...
inline constexpr std::string_view kNetUnknownName = "net-unknown-name";
inline constexpr std::string_view kNetUnknownOp = "net-unknown-op";      // an op or block that does not exist
inline constexpr std::string_view kNetDefinition = "net-definition";     // names and parameters of definitions
inline constexpr std::string_view kNetArgument = "net-argument";         // arguments that do not fit the callee
inline constexpr std::string_view kNetType = "net-type";                 // a value of the wrong kind
inline constexpr std::string_view kNetValue = "net-value";               // a value of the right kind, out of range
inline constexpr std::string_view kNetShape = "net-shape";               // tensor shapes an op refuses
inline constexpr std::string_view kNetStructure = "net-structure";       // input and return of networks and blocks
inline constexpr std::string_view kNetOverride = "net-override";         // --set that names no parameter or no value
inline constexpr std::string_view kNetRecursion = "net-recursion";       // a block that instantiates itself
inline constexpr std::string_view kNetImport = "net-import";             // an import that cannot be read, or a cycle
inline constexpr std::string_view kNetLimit = "net-limit";               // past a limit (docs/language.md, Limits)

// `.hw` devices.
inline constexpr std::string_view kHwSyntax = "hw-syntax";
inline constexpr std::string_view kHwUnknownKey = "hw-unknown-key";      // the key, a precision, class or pass in it
inline constexpr std::string_view kHwDuplicateKey = "hw-duplicate-key";
inline constexpr std::string_view kHwValue = "hw-value";                 // a value of the wrong kind for its key
inline constexpr std::string_view kHwUnit = "hw-unit";                   // a missing, unknown or mismatched unit
inline constexpr std::string_view kHwRange = "hw-range";                 // not finite, not positive, past 1, not increasing
inline constexpr std::string_view kHwNoSource = "hw-no-source";          // a figure without its source
inline constexpr std::string_view kHwIncomplete = "hw-incomplete";       // what the whole device lacks
inline constexpr std::string_view kHwBase = "hw-base";                   // a runtime's base: not found, or a cycle

// `.onnx` models.
inline constexpr std::string_view kOnnxUnavailable = "onnx-unavailable";     // a build without libonnx
inline constexpr std::string_view kOnnxCorrupt = "onnx-corrupt";             // not a readable model
inline constexpr std::string_view kOnnxGraph = "onnx-graph";                 // values produced twice or never, cycles
inline constexpr std::string_view kOnnxInput = "onnx-input";                 // the graph input and its --dim bindings
inline constexpr std::string_view kOnnxTensor = "onnx-tensor";               // tensor data that does not fit its shape
inline constexpr std::string_view kOnnxLimit = "onnx-limit";                 // past a limit (docs/language.md, Limits)
inline constexpr std::string_view kOnnxUnsupportedOp = "onnx-unsupported-op";       // an op Ridge cannot model
inline constexpr std::string_view kOnnxUnsupportedNode = "onnx-unsupported-node";   // a known op, used as Ridge does not model
inline constexpr std::string_view kOnnxShape = "onnx-shape";                 // shapes an op refuses
inline constexpr std::string_view kOnnxFreeNode = "onnx-free-node";          // warning: a node counted as free

// Request traces for the serving simulator (lang/trace.hpp).
inline constexpr std::string_view kTraceSyntax = "trace-syntax";   // the header and the width of rows
inline constexpr std::string_view kTraceValue = "trace-value";     // a cell that is not a time or a token count

inline constexpr std::array kAll = {
    kFileUnreadable, kFileTooLarge, kFileBinary,
    kNetText, kNetBrackets, kNetSyntax, kNetUnknownName, kNetUnknownOp, kNetDefinition, kNetArgument, kNetType,
    kNetValue, kNetShape, kNetStructure, kNetOverride, kNetRecursion, kNetImport, kNetLimit,
    kHwSyntax, kHwUnknownKey, kHwDuplicateKey, kHwValue, kHwUnit, kHwRange, kHwNoSource, kHwIncomplete, kHwBase,
    kOnnxUnavailable, kOnnxCorrupt, kOnnxGraph, kOnnxInput, kOnnxTensor, kOnnxLimit, kOnnxUnsupportedOp,
    kOnnxUnsupportedNode, kOnnxShape, kOnnxFreeNode,
    kTraceSyntax, kTraceValue,
};

}  // namespace ridge::lang::diag
