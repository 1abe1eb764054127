// Writing a file so that readers see the old contents or the new, never half of either: write a
// temporary file in the same folder, fsync it, rename it over the target, fsync the folder. On any
// error the temporary is removed and the previous file is left untouched. Shared by simulate and
// validate's calibrate.
#pragma once

#include <csignal>
#include <filesystem>
#include <vector>
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

// Several files, all or none: add() writes each to a temporary beside its target (fsync'd), commit()
// renames them all; destroyed without commit() (an error anywhere in the run), it removes every
// temporary and no target has changed. Termination signals are held back from the first add() until
// the commit or the cleanup is done.
class AtomicFiles {
 public:
  AtomicFiles();
  ~AtomicFiles();
  AtomicFiles(const AtomicFiles&) = delete;
  AtomicFiles& operator=(const AtomicFiles&) = delete;
  void add(const std::filesystem::path& path, std::string_view contents);
  void commit();

 private:
  struct Pending;
  std::vector<Pending> pending_;
  bool deferring_ = false;
  sigset_t previous_{};
};

}  // namespace ridge::engine::io
