// The hand-worked op tables (op_table*_test.cpp) each pin a family of ops: forward, training-mode
// forward and backward FLOPs, bytes read and written, and kernels, worked from the counts documented
// at the top of engine/costs/*.cpp, never from the code's output. Each table registers the ops its
// rows pinned (looked up from the layers it checked, not typed in), and op_table_coverage_test.cpp
// fails when an op of the vocabulary (ir::all_ops) has no row in any table.
#pragma once

#include <string>
#include <vector>

namespace ridge::testing {

// Returns the ops (their names) of the layers a table's rows check.
using PinnedOps = std::vector<std::string> (*)();

std::vector<PinnedOps>& pinned_op_tables();

// `static const RegisterPinnedOps registered{&my_table_ops};` in each table's file.
struct RegisterPinnedOps {
  explicit RegisterPinnedOps(PinnedOps ops) { pinned_op_tables().push_back(ops); }
};

}  // namespace ridge::testing
