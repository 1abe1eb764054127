// Interrupting a program while it writes its output: the target holds the old contents or the new,
// whole, and no temporary is left behind (the writer defers SIGINT/SIGTERM until it is done).
#include "hostile.hpp"

#include "engine/io/atomic_file.hpp"

#include <catch2/catch.hpp>

#include <csignal>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

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
