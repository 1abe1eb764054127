// Outputs that must not be left half-written or replaced by the wrong kind of file.
// Interrupting a program while it writes its output: the target holds the old contents or the new,
// whole, and no temporary is left behind (the writer defers SIGINT/SIGTERM until it is done).
#include "tests/reliability/hostile.hpp"

#include "engine/io/atomic_file.hpp"

#include <catch2/catch.hpp>

#include <csignal>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

TEST_CASE("an interrupt during an atomic write leaves the previous file or the new one, whole, and no temporary") {
  const fs::path d = ridge::reliability::scratch() / "interrupt";
  fs::remove_all(d);
  fs::create_directories(d);
  const fs::path target = d / "out.json";
  const std::string previous = "previous";
  std::ofstream(target) << previous;
  const std::size_t size = 32u << 20;   // 32 MiB: long enough a write that the signal lands inside one

  for (const int sig : {SIGINT, SIGTERM}) {
    CAPTURE(sig);
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      std::signal(sig, SIG_DFL);
      const std::string contents(size, 'x');
      for (;;) ridge::engine::io::write_file_atomically(target, contents);   // until the signal ends it
      ::_exit(0);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    ::kill(child, sig);
    int status = 0;
    ::waitpid(child, &status, 0);
    CHECK(WIFSIGNALED(status));
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(d)) ++entries;
    CHECK(entries == 1);   // the target only: no .out.json.tmp-XXXXXX left
    const auto now = fs::file_size(target);
    CHECK((now == previous.size() || now == size));
  }
}

TEST_CASE("an output that is a link, a FIFO or a device is written through, never replaced by a file") {
  const fs::path d = ridge::reliability::scratch() / "special";
  fs::remove_all(d);
  fs::create_directories(d);

  // A link to a file: the file gets the new contents, the link stays a link.
  std::ofstream(d / "real.json") << "previous";
  fs::create_symlink(d / "real.json", d / "link.json");
  ridge::engine::io::write_file_atomically(d / "link.json", "new");
  CHECK(fs::is_symlink(d / "link.json"));
  std::ifstream real(d / "real.json");
  std::string contents;
  std::getline(real, contents);
  CHECK(contents == "new");

  // A FIFO with a reader: the bytes go down the pipe and the FIFO stays a FIFO.
  const fs::path fifo = d / "pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(reader >= 0);
  ridge::engine::io::write_file_atomically(fifo, "through the pipe");
  char buf[64] = {};
  const ssize_t n = ::read(reader, buf, sizeof buf);
  ::close(reader);
  CHECK(std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0) == "through the pipe");
  CHECK(fs::is_fifo(fifo));

  // A character device like /dev/null (made here, where that is allowed, rather than risking the real one).
  const fs::path null = d / "null";
  if (::mknod(null.c_str(), S_IFCHR | 0666, ::makedev(1, 3)) != 0) {
    WARN("cannot make a device node here (no CAP_MKNOD): the /dev/null case is skipped");
    return;
  }
  const int probe = ::open(null.c_str(), O_WRONLY);
  if (probe < 0) {
    WARN("device nodes cannot be opened on this filesystem (nodev): the /dev/null case is skipped");
    return;
  }
  ::close(probe);
  ridge::engine::io::write_file_atomically(null, "discarded");
  CHECK(fs::is_character_file(null));
}
