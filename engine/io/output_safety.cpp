#include "engine/io/output_safety.hpp"

#include <filesystem>
#include <optional>
#include <tuple>

#include <sys/stat.h>

namespace ridge::engine::io {
namespace {

using Identity = std::tuple<dev_t, ino_t, std::string>;

// What a path names: the file's device and inode (stat follows links); for a file not there yet, its
// folder's device and inode and its name. Nothing for paths that name no regular file or entry.
std::optional<Identity> identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) return std::nullopt;
    return Identity{st.st_dev, st.st_ino, std::string()};
  }
  const std::filesystem::path p(path);
  const std::filesystem::path dir = p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
  if (::stat(dir.c_str(), &st) != 0) return std::nullopt;   // the write fails later, saying why
  return Identity{st.st_dev, st.st_ino, p.filename().string()};
}

}  // namespace

void check_outputs(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs) {
  std::vector<std::pair<Identity, std::string>> seen;
  for (const auto& [what, path] : inputs)
    if (auto id = identity(path)) seen.emplace_back(*id, what + " '" + path + "'");
  for (const auto& [what, path] : outputs) {
    const auto id = identity(path);
    if (!id) continue;
    for (const auto& [other, said] : seen)
      if (other == *id)
        throw OutputConflict(what + " '" + path + "' is the same file as the " + said +
                             "; a run never writes over its inputs or writes one file twice");
    seen.emplace_back(*id, what + " '" + path + "'");
  }
}

}  // namespace ridge::engine::io
