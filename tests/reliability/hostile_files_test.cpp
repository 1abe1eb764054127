// Hostile files: too big, binary, missing, unreadable, not files at all. Each is a diagnostic naming
// the file, produced without reading more than the size limit.
#include "tests/reliability/hostile.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace ridge;

namespace {

// Loads `path` both as a network and as a device; returns the two diagnostics (both must be errors).
std::pair<std::string, std::string> load_errors(const fs::path& path) {
  std::string net, hw;
  try {
    lang::load_network(path.string());
  } catch (const lang::Error& e) {
    net = e.what();
  }
  try {
    lang::load_device(path.string());
  } catch (const lang::Error& e) {
    hw = e.what();
  }
  return {net, hw};
}

void write(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
}

}  // namespace

TEST_CASE("a 100 MB file is refused by its size without being read") {
  const fs::path p = reliability::scratch() / "huge.net";
  {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << "network n {\n";
  }
  fs::resize_file(p, 100u * 1024 * 1024);   // sparse: cheap to make, slow to read if anything tried
  std::pair<std::string, std::string> errors;
  const double s = reliability::seconds([&] { errors = load_errors(p); });
  CHECK_THAT(errors.first, Catch::StartsWith(p.string() + ": error:") && Catch::Contains("limited to 4194304 bytes"));
  CHECK_THAT(errors.second, Catch::StartsWith(p.string() + ": error:") && Catch::Contains("limited to 4194304 bytes"));
  CHECK(s < 0.5);
  fs::remove(p);
}

TEST_CASE("a text just over the size limit is refused by the text entry points too") {
  const std::string text(lang::kMaxSourceBytes + 1, ' ');
  CHECK_THROWS_AS(lang::parse_network(text, "big.net"), lang::Error);
  CHECK_THROWS_AS(lang::parse_device(text, "big.hw"), lang::Error);
}

TEST_CASE("binary garbage is refused as binary, or as a syntax error, never a crash") {
  std::mt19937 rng(20261123);   // fixed seed: the same garbage every run
  const fs::path p = reliability::scratch() / "garbage.bin";
  for (int round = 0; round < 200; ++round) {
    std::string bytes(1 + rng() % 4096, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    if (round % 2 == 1)
      for (char& c : bytes) if (c == '\0') c = '\x01';   // half without NUL, so the parsers see them
    write(p, bytes);
    const auto [net, hw] = load_errors(p);
    CHECK_THAT(net, Catch::StartsWith(p.string() + ":"));
    CHECK_THAT(hw, Catch::StartsWith(p.string() + ":"));
    if (round % 2 == 0 && bytes.find('\0') != std::string::npos) CHECK_THAT(net, Catch::Contains("binary file"));
  }
  fs::remove(p);
}

TEST_CASE("a missing file, a dangling link and a link loop are diagnostics naming the file") {
  const fs::path d = reliability::scratch();
  const fs::path dangling = d / "dangling.net", loop = d / "loop.net";
  fs::remove(dangling);
  fs::remove(loop);
  fs::create_symlink(d / "nothing-here", dangling);
  fs::create_symlink(loop, loop);
  for (const fs::path& p : {d / "missing.net", dangling, loop}) {
    CAPTURE(p);
    const auto [net, hw] = load_errors(p);
    CHECK_THAT(net, Catch::StartsWith(p.string() + ": error: cannot open file"));
    CHECK_THAT(hw, Catch::StartsWith(p.string() + ": error: cannot open file"));
  }
  fs::remove(dangling);
  fs::remove(loop);
}

// load_errors(path) as the unprivileged user `nobody`, in a forked child (the test process keeps its
// own identity): root reads a chmod-000 file, so that is the only way to see the refusal as root.
std::pair<std::string, std::string> load_errors_as_nobody(const fs::path& path) {
  const struct passwd* pw = ::getpwnam("nobody");
  REQUIRE(pw != nullptr);
  const uid_t uid = pw->pw_uid;
  const gid_t gid = pw->pw_gid;
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {   // the child: drop privileges for good, load, send both diagnostics back, exit
    ::close(fds[0]);
    if (::setgroups(0, nullptr) != 0 || ::setgid(gid) != 0 || ::setuid(uid) != 0 || ::getuid() == 0) ::_exit(3);
    const auto [net, hw] = load_errors(path);
    const std::string message = net + '\0' + hw;
    std::size_t sent = 0;
    while (sent < message.size()) {
      const ssize_t k = ::write(fds[1], message.data() + sent, message.size() - sent);
      if (k <= 0) ::_exit(4);
      sent += static_cast<std::size_t>(k);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string message;
  char buf[4096];
  for (ssize_t k; (k = ::read(fds[0], buf, sizeof buf)) > 0;) message.append(buf, static_cast<std::size_t>(k));
  ::close(fds[0]);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);   // 3: could not become nobody; 4: could not report
  const auto nul = message.find('\0');
  REQUIRE(nul != std::string::npos);
  return {message.substr(0, nul), message.substr(nul + 1)};
}

TEST_CASE("an unreadable file is a diagnostic (as root: checked in a child running as nobody)") {
  const fs::path p = reliability::scratch() / "secret.net";
  write(p, "network n {\n  input x: [4]\n  return x\n}\n");
  fs::permissions(p, fs::perms::none);
  std::pair<std::string, std::string> errors;
  if (::geteuid() == 0) {
    errors = load_errors_as_nobody(p);
  } else {
    // Not root: chmod 000 must block this process's own reads (no CAP_DAC_OVERRIDE expected).
    REQUIRE(::access(p.c_str(), R_OK) != 0);
    errors = load_errors(p);
  }
  fs::permissions(p, fs::perms::owner_read | fs::perms::owner_write);
  const auto& [net, hw] = errors;
  CHECK_THAT(net, Catch::StartsWith(p.string() + ": error: cannot open file") && Catch::Contains("ermission denied"));
  CHECK_THAT(hw, Catch::StartsWith(p.string() + ": error: cannot open file") && Catch::Contains("ermission denied"));
}

TEST_CASE("a directory given as a file is a diagnostic") {
  const auto [net, hw] = load_errors(reliability::scratch());
  CHECK_THAT(net, Catch::Contains("is a directory"));
  CHECK_THAT(hw, Catch::Contains("is a directory"));
}

TEST_CASE("a device file of endless zeros is refused without reading past the limit") {
  REQUIRE(fs::exists("/dev/zero"));   // Linux, where the suite runs
  std::pair<std::string, std::string> errors;
  const double s = reliability::seconds([&] { errors = load_errors("/dev/zero"); });
  CHECK_THAT(errors.first, Catch::StartsWith("/dev/zero: error: file is larger than the 4194304-byte limit"));
  CHECK_THAT(errors.second, Catch::StartsWith("/dev/zero: error: file is larger than the 4194304-byte limit"));
  CHECK(s < 2.0);
}

TEST_CASE("an empty file and a file of only comments are errors at 1:1 or the end") {
  const fs::path p = reliability::scratch() / "empty.net";
  write(p, "");
  CHECK_THAT(load_errors(p).first, Catch::StartsWith(p.string() + ":1:1: error:"));
  CHECK_THAT(load_errors(p).second, Catch::StartsWith(p.string() + ":1:1: error:"));
  write(p, "# nothing\n# at all\n");
  CHECK_THAT(load_errors(p).first,
             Catch::StartsWith(p.string() + ":1:1: error: expected a network definition: the file defines no 'network'"));
  CHECK_THAT(load_errors(p).second, Catch::StartsWith(p.string() + ":1:1: error: expected a device declaration") &&
                                        Catch::Contains("found the end of the file"));
  fs::remove(p);
}
