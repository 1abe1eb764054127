// Writing a file so that readers see the old contents or the new, never half of either: write a
// temporary file in the same folder, fsync it, rename it over the target, fsync the folder. On any
// error the temporary is removed and the previous file is left untouched. Shared by simulate and
// validate's calibrate.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ridge::engine::io {

struct FileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Replaces `path` with `contents`. A link to a file replaces the file and keeps the link; a device,
// FIFO or socket (`/dev/null`, `/dev/stdout` on a pipe) is written through, not replaced. A new file gets mode 0644 (less the umask); an existing file keeps
// its mode. Throws FileError naming the path and the system's reason.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

}  // namespace ridge::engine::io
