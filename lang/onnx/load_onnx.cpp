// The ONNX front end behind lang/parse.hpp: a file (or bytes) in, the IR or a diagnostic out.
#include "lang/onnx/importer.hpp"

#include "lang/ir/ops.hpp"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <sys/stat.h>

namespace ridge::lang {
namespace {

[[noreturn]] void refuse(const std::string& file, const std::string& message) {
  throw Error({Diagnostic{SourceLocation{file, 0, 0}, message, {}, {}}});
}

std::string network_name(const std::string& file) {
  std::string name = std::filesystem::path(file).stem().string();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) name = "onnx_" + name;
  return name;
}

}  // namespace

bool is_onnx_path(const std::string& path) {
  return path.size() > 5 && path.compare(path.size() - 5, 5, ".onnx") == 0;
}

OnnxOptions onnx_options(const Overrides& overrides, const std::string& file) {
  OnnxOptions o;
  for (const auto& [name, text] : overrides) {
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || end != text.data() + text.size() || v < 1 || v > ir::kMaxDimension)
      refuse(file, "dimension '" + name + "' = '" + text + "' is not a whole number from 1 to " + std::to_string(ir::kMaxDimension));
    o.dims[name] = v;
  }
  return o;
}

OnnxImport parse_onnx(const std::string& bytes, const std::string& file, const OnnxOptions& options) {
  using namespace onnx_import;
  try {
    const Graph graph = read_model(bytes);
    Importer importer(graph, options);
    OnnxImport result;
    result.network = importer.run(result.free_nodes);
    result.network.name = network_name(file);
    return result;
  } catch (const OnnxError& e) {
    refuse(file, e.what());
  } catch (const BuildError& e) {
    refuse(file, e.what());
  } catch (const ir::ShapeError& e) {
    refuse(file, e.what());
  }
}

OnnxImport load_onnx(const std::string& path, const OnnxOptions& options) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) refuse(path, std::string("cannot open file: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) refuse(path, "is a directory, not an ONNX model");
  if (static_cast<std::uintmax_t>(st.st_size) > kMaxOnnxFileBytes)
    refuse(path, "file is " + std::to_string(st.st_size) + " bytes; .onnx files are limited to " + std::to_string(kMaxOnnxFileBytes) +
                     " bytes (protobuf's limit)");
  std::ifstream in(path, std::ios::binary);
  if (!in) refuse(path, std::string("cannot open file: ") + std::strerror(errno));
  std::string bytes;
  // At most one byte past the limit, so a growing file or a FIFO cannot run memory away.
  constexpr std::size_t chunk = 1 << 20;
  while (in && bytes.size() <= kMaxOnnxFileBytes) {
    const std::size_t at = bytes.size();
    bytes.resize(at + chunk);
    in.read(bytes.data() + at, static_cast<std::streamsize>(chunk));
    bytes.resize(at + static_cast<std::size_t>(in.gcount()));
  }
  if (bytes.size() > kMaxOnnxFileBytes)
    refuse(path, "file is more than " + std::to_string(kMaxOnnxFileBytes) + " bytes; .onnx files are limited to that (protobuf's limit)");
  return parse_onnx(bytes, path, options);
}

}  // namespace ridge::lang
