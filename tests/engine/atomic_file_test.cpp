#include "engine/io/atomic_file.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <csignal>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using ridge::engine::io::write_file_atomically;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("ridge-atomic-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::size_t entries(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}));
}

}  // namespace

TEST_CASE("an atomic write creates and then replaces a file, leaving no temporary") {
  const fs::path p = scratch("out.json");
  fs::remove(p);
  write_file_atomically(p, "first\n");
  CHECK(read(p) == "first\n");
  write_file_atomically(p, "second");
  CHECK(read(p) == "second");
  CHECK(entries(p.parent_path()) == 1);
  fs::remove_all(p.parent_path());
}

TEST_CASE("a failed atomic write leaves the previous file untouched") {
  // A target that exists, and a write that fails half-way: in a forked child the file-size limit is 8
  // bytes (SIGXFSZ ignored, so write() fails with EFBIG), and the new content is longer.
  const fs::path dir = scratch("x").parent_path();
  const fs::path target = dir / "report.json";
  { std::ofstream(target) << "previous"; }
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    const struct rlimit limit{8, 8};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(3);
    try {
      write_file_atomically(target, std::string(4096, 'n'));
    } catch (const ridge::engine::io::FileError&) {
      ::_exit(0);   // refused, as it must be
    } catch (...) {
      ::_exit(4);
    }
    ::_exit(5);     // claimed success
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(read(target) == "previous");
  CHECK(entries(dir) == 1);   // the target only: the temporary was removed
  fs::remove_all(dir);
}

TEST_CASE("an atomic write to a missing folder or over a folder fails and leaves nothing behind") {
  const fs::path dir = scratch("x").parent_path();
  const fs::path missing = dir / "no-such-folder" / "out.txt";
  CHECK_THROWS_AS(write_file_atomically(missing, "data"), ridge::engine::io::FileError);
  CHECK_FALSE(fs::exists(missing));
  const fs::path folder = dir / "a-folder";
  fs::create_directories(folder);
  CHECK_THROWS_AS(write_file_atomically(folder, "data"), ridge::engine::io::FileError);
  CHECK(fs::is_directory(folder));
  CHECK(entries(dir) == 1);   // no temporary left behind
  fs::remove_all(dir);
}
