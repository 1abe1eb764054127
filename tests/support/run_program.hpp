// Running one of Ridge's programs from a test, as a user would: through the shell, with stdout and
// stderr captured to files (no pipes to deadlock on), and whether it exited or was killed.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/wait.h>

namespace ridge::testing {

struct ProgramRun {
  bool exited = false;   // false: killed by a signal (a crash)
  int status = -1;       // exit status when it exited, else -1
  std::string out, err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs `program args` (args as the shell reads them), capturing into files under `scratch`.
inline ProgramRun run_program(const std::string& program, const std::string& args,
                              const std::filesystem::path& scratch) {
  std::filesystem::create_directories(scratch);
  const auto out = scratch / "program.out", err = scratch / "program.err";
  std::string cmd = "'";
  cmd.append(program).append("' ").append(args);
  cmd.append(" >'").append(out.string()).append("' 2>'").append(err.string()).append("'");
  const int rc = std::system(cmd.c_str());
  return {WIFEXITED(rc), WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, slurp(out), slurp(err)};
}

}  // namespace ridge::testing
