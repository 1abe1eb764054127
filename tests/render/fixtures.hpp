// Shared by the render tests: catalogue devices and zoo networks, loaded once per process.
#pragma once

#include "engine/simulate.hpp"
#include "lang/parse.hpp"

#include <filesystem>
#include <map>
#include <string>
#include <unistd.h>

namespace ridge::testing {

inline const ir::Device& device(const std::string& id) {
  static std::map<std::string, ir::Device> cache;
  auto it = cache.find(id);
  if (it == cache.end()) it = cache.emplace(id, lang::load_device(std::string(RIDGE_HW_DIR) + "/" + id + ".hw")).first;
  return it->second;
}

inline const ir::Network& network(const std::string& name) {
  static std::map<std::string, ir::Network> cache;
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, lang::load_network(std::string(RIDGE_MODELS_DIR) + "/" + name + ".net")).first;
  return it->second;
}

inline engine::Report report(const std::string& net, const std::string& dev, std::int64_t batch, ir::Precision p) {
  return engine::simulate(network(net), device(dev), {.batch = batch, .precision = p});
}

// A fresh folder per process under the system's temporary folder.
inline std::filesystem::path temp_dir() {
  const auto d = std::filesystem::temp_directory_path() / ("ridge-render-" + std::to_string(::getpid()));
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace ridge::testing
