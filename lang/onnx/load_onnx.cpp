// The ONNX front end behind lang/parse.hpp: a file (or bytes) in, the IR or a diagnostic out.
#include "lang/onnx/importer.hpp"
#include "lang/onnx/refuse.hpp"

#include "lang/ir/ops.hpp"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>

#include <sys/stat.h>

namespace ridge::lang {
namespace {

using onnx_import::refuse;

std::string network_name(const std::string& file) {
  std::string name = std::filesystem::path(file).stem().string();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) name = "onnx_" + name;
  return name;
}

}  // namespace

OnnxImport parse_onnx(const std::string& bytes, const std::string& file, const OnnxOptions& options) {
  using namespace onnx_import;
  try {
    const Graph graph = read_model(bytes);
    Importer importer(graph, options);
    OnnxImport result;
    result.network = importer.run(result.free_nodes);
    result.network.name = network_name(file);
    for (const std::string& node : result.free_nodes)
      result.warnings.push_back(file_diagnostic(file, diag::kOnnxFreeNode, node + ": counted as free (--allow-unknown)",
                                                Severity::Warning));
    return result;
  } catch (const OnnxError& e) {
    // The node first, as a position comes first in a source file's diagnostic.
    refuse(file, e.id, e.node.empty() ? std::string(e.what()) : e.node + ": " + e.what());
  } catch (const BuildError& e) {
    refuse(file, diag::kOnnxShape, e.what());
  } catch (const ir::ShapeError& e) {
    refuse(file, diag::kOnnxShape, e.what());
  }
}

OnnxImport load_onnx(const std::string& path, const OnnxOptions& options) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) refuse(path, diag::kFileUnreadable, std::string("cannot open file: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) refuse(path, diag::kFileUnreadable, "is a directory, not an ONNX model");
  if (static_cast<std::uintmax_t>(st.st_size) > kMaxOnnxFileBytes)
    refuse(path, diag::kFileTooLarge,
           "file is " + std::to_string(st.st_size) + " bytes; .onnx files are limited to " + std::to_string(kMaxOnnxFileBytes) +
               " bytes (protobuf's limit)");
  // A model is a regular file of known size, read into one buffer of that size: a device (/dev/zero)
  // or a FIFO would be read until the limit, 1 MiB at a time (issue #41).
  if (!S_ISREG(st.st_mode)) refuse(path, diag::kFileUnreadable, "is not a regular file; give the path of an .onnx model file");
  std::ifstream in(path, std::ios::binary);
  if (!in) refuse(path, diag::kFileUnreadable, std::string("cannot open file: ") + std::strerror(errno));
  const auto size = static_cast<std::size_t>(st.st_size);
  std::string bytes;
  try {
    bytes.resize(size);
  } catch (const std::bad_alloc&) {
    refuse(path, diag::kFileTooLarge, "file is " + std::to_string(size) + " bytes, more than this process can allocate to read it");
  }
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  if (static_cast<std::size_t>(in.gcount()) != size) refuse(path, diag::kFileUnreadable, "read error: the file changed while it was read");
  return parse_onnx(bytes, path, options);
}

}  // namespace ridge::lang
