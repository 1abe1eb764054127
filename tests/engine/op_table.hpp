// The hand-worked op tables (op_table*_test.cpp) each pin a family of ops: forward, training-mode
// forward and backward FLOPs, bytes read and written, and kernels, worked from the counts documented
// at the top of engine/costs/*.cpp, never from the code's output. Each table registers the ops its
// rows pinned (looked up from the layers it checked, not typed in), and op_table_coverage_test.cpp
// fails when an op of the vocabulary (ir::all_ops) has no row in any table.
#pragma once

#include "engine/simulate.hpp"
#include "lang/parse.hpp"
#include "tests/support/fixed_device.hpp"
#include "tests/support/reports.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace ridge::testing {

// One pass's worked counts; kernels < 0: not checked by that table.
struct PassCount {
  double flops = 0, read = 0, written = 0;
  int kernels = -1;
};

inline void check_pass(const engine::PassCost& got, const PassCount& want, const char* pass) {
  CAPTURE(pass);
  CHECK(got.flops == want.flops);
  CHECK(got.bytes_read == want.read);
  CHECK(got.bytes_written == want.written);
  if (want.kernels >= 0) CHECK(got.kernels == want.kernels);
}

// One layer's worked counts; bwd_kernels < 0: not checked by that row.
struct OpRow {
  const char* layer;
  PassCount fwd;         // inference
  PassCount fwd_train;   // training-mode forward
  PassCount bwd;
  int bwd_kernels = -1;
};

// The tables' set-up: `net_text` on the fixed test device at batch 2, fp32.
inline engine::Report simulate_on_fixed_device(const char* net_text, const char* file) {
  return engine::simulate(lang::parse_network(net_text, file), lang::parse_device(kFixedDeviceHw, "fixed.hw"),
                          {.batch = 2, .precision = ir::Precision::FP32});
}

// Returns the ops (their names) of the layers a table's rows check.
using PinnedOps = std::vector<std::string> (*)();

std::vector<PinnedOps>& pinned_op_tables();

// `static const RegisterPinnedOps registered{&my_table_ops};` in each table's file.
struct RegisterPinnedOps {
  explicit RegisterPinnedOps(PinnedOps ops) { pinned_op_tables().push_back(ops); }
};

// A row's three passes and backward kernels against the report's layer of that name.
inline void check_row(const engine::Report& report, const OpRow& row) {
  CAPTURE(row.layer);
  const engine::LayerRow& l = layer_named(report, row.layer);
  check_pass(l.fwd, row.fwd, "forward");
  check_pass(l.fwd_train, row.fwd_train, "training-mode forward");
  check_pass(l.bwd, row.bwd, "backward");
  if (row.bwd_kernels >= 0) CHECK(l.bwd.kernels == row.bwd_kernels);
}

}  // namespace ridge::testing
