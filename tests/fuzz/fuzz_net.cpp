// libFuzzer target for the `.net` front end: bytes -> parse + elaborate -> simulate on a fixed
// device at a few batches and precisions -> render.
//
// The bytes are a little file system: split at each "\n%%\n", the first piece is main.net and the
// k-th is fk.net (`import "f1.net"`), so imports (cycles, missing files, deep chains, errors in an
// imported file) are fuzzed too, from memory.
#include "tests/fuzz/fuzz_common.hpp"
#include "tests/support/fixed_device.hpp"

#include <optional>
#include <string_view>
#include <vector>

namespace {

// A small fixed device with every precision, so the network is what varies.
const ridge::ir::Device& device() {
  static const ridge::ir::Device d = ridge::lang::parse_device(ridge::testing::kFixedDeviceHw, "fuzz.hw");
  return d;
}

// The pieces of `text` between separators.
std::vector<std::string> pieces(const std::string& text) {
  constexpr std::string_view kSeparator = "\n%%\n";
  std::vector<std::string> out;
  std::size_t from = 0;
  for (std::size_t at; (at = text.find(kSeparator, from)) != std::string::npos; from = at + kSeparator.size())
    out.push_back(text.substr(from, at - from));
  out.push_back(text.substr(from));
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ridge;
  const std::vector<std::string> files = pieces(std::string(reinterpret_cast<const char*>(data), size));
  const lang::SourceReader read = [&files](const std::string& path) {
    for (std::size_t k = 1; k < files.size(); ++k)
      if (path == "f" + std::to_string(k) + ".net") return files[k];
    throw lang::Error({lang::file_diagnostic(path, lang::diag::kFileUnreadable, "no such file")});
  };
  std::optional<ir::Network> net;
  try {
    net = lang::parse_network(files.front(), "main.net", {}, read);
  } catch (const lang::Error&) {
    return 0;  // a diagnostic: the right answer for most inputs
  }
  fuzz::simulate_and_render(*net, device(), 1, ir::Precision::FP32);
  fuzz::simulate_and_render(*net, device(), 256, ir::Precision::FP16);
  fuzz::simulate_and_render(*net, device(), engine::kMaxBatch, ir::Precision::INT8);
  return 0;
}
