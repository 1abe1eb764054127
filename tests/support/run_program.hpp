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

// Runs `program args` (args as the shell reads them) in `scratch`, capturing into files there. The
// program runs in scratch so that anything it writes by a relative name stays out of the directory
// the tests were started from, and a test can see what it wrote.
inline ProgramRun run_program(const std::string& program, const std::string& args,
                              const std::filesystem::path& scratch_dir) {
  std::filesystem::create_directories(scratch_dir);
  const auto scratch = std::filesystem::absolute(scratch_dir);
  const auto out = scratch / "program.out", err = scratch / "program.err";
  std::string cmd = "cd '";
  cmd.append(scratch.string()).append("' && '").append(program).append("' ").append(args);
  cmd.append(" >'").append(out.string()).append("' 2>'").append(err.string()).append("'");
  const int rc = std::system(cmd.c_str());
  return {WIFEXITED(rc), WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, slurp(out), slurp(err)};
}

}  // namespace ridge::testing
