#include "lang/catalogue.hpp"

#include <filesystem>
#include <system_error>

namespace ridge::lang {
namespace {

std::string resolve(const std::string& arg, const char* folder, const char* built_in, const char* extension) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (arg.empty() || fs::exists(arg, ec) || arg.find('/') != std::string::npos) return arg;
  for (const fs::path& dir : {fs::path(folder), fs::path(built_in)}) {
    const fs::path candidate = dir / (arg + extension);
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
  }
  return arg;
}

}  // namespace

std::string resolve_network_path(const std::string& arg) { return resolve(arg, "models", RIDGE_MODELS_DIR, ".net"); }
std::string resolve_device_path(const std::string& arg) { return resolve(arg, "hw", RIDGE_HW_DIR, ".hw"); }
std::string resolve_runtime_path(const std::string& arg) { return resolve(arg, "runtimes", RIDGE_RUNTIMES_DIR, ".rt"); }

}  // namespace ridge::lang
