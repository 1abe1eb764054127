// One output-safety rule for every program that writes files (simulate, calibrate): before any work,
// an output that is one of the run's inputs, the same file as another output, or a link to either is
// refused. "The same file" is decided by what the path names, however it is spelt (`a.net`, `./a.net`,
// a symbolic or hard link): its device and inode, or for a file not there yet its folder's and its
// name. Issue #41: `calibrate tiny.net --out tiny.net` replaced the network with the calibrated .hw.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace ridge::engine::io {

struct OutputConflict : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// A file a run reads or writes, with what the user called it ("--out", "network").
struct NamedPath {
  std::string what;
  std::string path;
};

// Throws OutputConflict naming both sides when an output is an input or an earlier output. Paths that
// name no regular file nor a folder's entry (`-`, /dev/null, a FIFO) are written through, never
// replaced, and are not compared.
void check_outputs(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs);

}  // namespace ridge::engine::io
