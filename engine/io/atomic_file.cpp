#include "engine/io/atomic_file.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ridge::engine::io {
namespace {

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what, int err) {
  throw FileError("cannot write '" + path.string() + "': " + what + ": " + std::strerror(err));
}

// Closes the descriptor and removes the temporary unless released: every early exit cleans up.
class TempFile {
 public:
  TempFile(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  int fd() const { return fd_; }
  int close() {
    const int rc = ::close(fd_);
    fd_ = -1;
    return rc;
  }
  void release() { path_.clear(); }

 private:
  int fd_;
  std::string path_;
};

void write_all(const std::filesystem::path& path, int fd, std::string_view contents) {
  const char* p = contents.data();
  std::size_t left = contents.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(path, "write", errno);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

// A device, FIFO or socket (`-o /dev/null`, `-o /dev/stdout` on a pipe, a process substitution) has no
// contents to replace, and renaming over it would replace the node itself (as root, /dev/null would
// become a regular file): write through it instead.
void write_through(const std::filesystem::path& path, std::string_view contents) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) fail(path, "open", errno);
  TempFile file(fd, "");   // closes it on every exit; there is no temporary to remove
  write_all(path, fd, contents);
  if (file.close() != 0) fail(path, "close", errno);
}

// The temporary's name: ".NAME.tmp-XXXXXX" beside the target, NAME cut to 200 bytes so that a valid
// 250-byte file name does not give a temporary name past NAME_MAX (255).
std::string temporary_for(const std::filesystem::path& path) {
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::string temp_name = ".";   // built by append: GCC 12 warns falsely (-Wrestrict) on "x" + std::string
  temp_name.append(path.filename().string().substr(0, 200)).append(".tmp-XXXXXX");
  return (dir / temp_name).string();
}

}  // namespace

struct AtomicFiles::Pending {
  std::filesystem::path path;   // the target (a link resolved to its file)
  std::string contents;         // for write-through targets (devices, FIFOs), written at commit
  std::string temp;             // the temporary until renamed
  bool through = false;         // a device, FIFO or socket: written through at commit
};

AtomicFiles::AtomicFiles() = default;

AtomicFiles::~AtomicFiles() {
  for (const Pending& p : pending_)
    if (!p.temp.empty()) ::unlink(p.temp.c_str());
  if (deferring_) ::pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

void AtomicFiles::add(const std::filesystem::path& path_given, std::string_view contents) {
  if (path_given.empty()) throw FileError("cannot write a file with an empty name");
  if (!deferring_) {
    // Held back from the first temporary until every one is renamed or removed (see DeferTerminationSignals).
    sigset_t set;
    sigemptyset(&set);
    for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&set, sig);
    ::pthread_sigmask(SIG_BLOCK, &set, &previous_);
    deferring_ = true;
  }
  struct stat target {};
  if (::stat(path_given.c_str(), &target) == 0 && !S_ISREG(target.st_mode) && !S_ISDIR(target.st_mode)) {
    pending_.push_back({path_given, std::string(contents), "", true});
    return;
  }
  // A link to an existing file: replace the file it points to and keep the link, rather than
  // renaming a regular file over the link.
  struct stat link {};
  const bool link_to_file = S_ISREG(target.st_mode) && ::lstat(path_given.c_str(), &link) == 0 && S_ISLNK(link.st_mode);
  std::error_code ec;
  const std::filesystem::path path = link_to_file ? std::filesystem::canonical(path_given, ec) : path_given;
  if (ec) fail(path_given, "cannot resolve the link", ec.value());
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::string temp = temporary_for(path);
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) fail(path, "cannot create a temporary file in '" + dir.string() + "'", errno);
  TempFile file(fd, temp);

  mode_t mode = 0644;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) fail(path, "it is a directory", EISDIR);
    mode = st.st_mode & 07777;
  } else {
    const mode_t mask = ::umask(0);   // read the umask (there is no other portable way)
    ::umask(mask);
    mode &= ~mask;
  }
  if (::fchmod(file.fd(), mode) != 0) fail(path, "fchmod", errno);

  write_all(path, file.fd(), contents);
  if (::fsync(file.fd()) != 0) fail(path, "fsync", errno);
  if (file.close() != 0) fail(path, "close", errno);
  pending_.push_back({path, "", temp, false});
  file.release();   // now pending_'s to remove
}

void AtomicFiles::commit() {
  for (Pending& p : pending_) {
    if (p.through) continue;
    if (::rename(p.temp.c_str(), p.path.c_str()) != 0) fail(p.path, "rename", errno);
    p.temp.clear();
    // Make the rename itself durable; a failure here leaves the new file in place, so it is not an error.
    const std::filesystem::path dir = p.path.has_parent_path() ? p.path.parent_path() : std::filesystem::path(".");
    const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
    if (dfd >= 0) {
      ::fsync(dfd);
      ::close(dfd);
    }
  }
  for (Pending& p : pending_)
    if (p.through) write_through(p.path, p.contents);
  pending_.clear();
}

void write_file_atomically(const std::filesystem::path& path, std::string_view contents) {
  AtomicFiles files;
  files.add(path, contents);
  files.commit();
}

}  // namespace ridge::engine::io
