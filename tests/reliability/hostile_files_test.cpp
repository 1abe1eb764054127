// Hostile files: too big, binary, missing, unreadable, not files at all. Each is a diagnostic naming
// the file, produced without reading more than the size limit.
#include "hostile.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>

#include <sys/stat.h>
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

TEST_CASE("an unreadable file is a diagnostic (skipped where permissions do not block reads)") {
  const fs::path p = reliability::scratch() / "secret.net";
  write(p, "network n {\n  input x: [4]\n  return x\n}\n");
  fs::permissions(p, fs::perms::none);
  if (::access(p.c_str(), R_OK) == 0) {
    fs::permissions(p, fs::perms::owner_read | fs::perms::owner_write);
    WARN("running as root (or with CAP_DAC_OVERRIDE): chmod 000 does not block reads, so this test is skipped");
    return;
  }
  const auto [net, hw] = load_errors(p);
  fs::permissions(p, fs::perms::owner_read | fs::perms::owner_write);
  CHECK_THAT(net, Catch::StartsWith(p.string() + ": error: cannot open file") && Catch::Contains("ermission denied"));
  CHECK_THAT(hw, Catch::StartsWith(p.string() + ": error: cannot open file"));
}

TEST_CASE("a directory given as a file is a diagnostic") {
  const auto [net, hw] = load_errors(reliability::scratch());
  CHECK_THAT(net, Catch::Contains("is a directory"));
  CHECK_THAT(hw, Catch::Contains("is a directory"));
}

TEST_CASE("a device file of endless zeros is refused without reading past the limit") {
  if (!fs::exists("/dev/zero")) return;
  std::pair<std::string, std::string> errors;
  const double s = reliability::seconds([&] { errors = load_errors("/dev/zero"); });
  CHECK_THAT(errors.first, Catch::StartsWith("/dev/zero") && Catch::Contains("error:"));
  CHECK_THAT(errors.second, Catch::StartsWith("/dev/zero") && Catch::Contains("error:"));
  CHECK(s < 2.0);
}

TEST_CASE("an empty file and a file of only comments are errors at 1:1 or the end") {
  const fs::path p = reliability::scratch() / "empty.net";
  write(p, "");
  CHECK_THAT(load_errors(p).first, Catch::StartsWith(p.string() + ":1:1: error:"));
  CHECK_THAT(load_errors(p).second, Catch::StartsWith(p.string() + ":1:1: error:"));
  write(p, "# nothing\n# at all\n");
  CHECK_THAT(load_errors(p).first, Catch::Contains("error:"));
  CHECK_THAT(load_errors(p).second, Catch::Contains("error:"));
  fs::remove(p);
}
