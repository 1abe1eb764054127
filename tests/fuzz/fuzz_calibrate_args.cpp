// libFuzzer target for calibrate's command line (validate/calibrate_command.hpp): bytes -> argv (one
// argument per line) -> parse, check, load the networks and the --base device. The documented answers
// are a command, CLI11's own answer (help or a usage error, as an exit code), lang::Error (a file that
// does not parse) and std::invalid_argument (a value refused, an output that would destroy an input);
// anything else that escapes, a crash, a sanitizer report, a hang or runaway memory is a finding.
#include "validate/calibrate_command.hpp"

#include "lang/parse.hpp"

#include <cstdint>
#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // A network named /dev/stdin would wait for input that never comes: the fuzzer's stdin is empty.
  if (!std::freopen("/dev/null", "r", stdin)) return 1;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // At most 32 arguments of at most 4 KiB: a command line, not a file.
  std::vector<std::string> args{"calibrate"};
  std::string arg;
  for (std::size_t i = 0; i < size && args.size() <= 32; ++i) {
    const char ch = static_cast<char>(data[i]);
    if (ch == '\n') {
      args.push_back(arg);
      arg.clear();
    } else if (arg.size() < 4096) {
      arg.push_back(ch);
    }
  }
  if (!arg.empty() && args.size() <= 32) args.push_back(arg);
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  try {
    (void)ridge::validate::parse_calibrate_command(static_cast<int>(argv.size()), argv.data(), out, err);
  } catch (const ridge::lang::Error&) {
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
