// Where the time goes: a report's layers summed per block (`--depth N`, as torchinfo's and fvcore's
// depth) and ranked by time (`--top K`). The engine computes these rows; renderers only format them.
#pragma once

#include "engine/report.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace ridge::engine {

// One layer, or the layers of one block summed. Costs per batch, times in seconds (PALEO).
struct BreakdownRow {
  std::string name;             // the layer's name, or the block's path ("layer1.bottleneck1")
  std::string op;               // the layer's op; empty for a block of several layers
  std::size_t layers = 0;
  double params = 0.0, macs = 0.0;
  double flops_fwd = 0.0, bytes_fwd = 0.0, time_fwd_s = 0.0;   // inference forward
  double flops_bwd = 0.0, bytes_bwd = 0.0, time_bwd_s = 0.0;
  double time_train_s = 0.0;    // training-mode forward + backward
  double share = 0.0;           // of the ranked time over the whole network (set by rank_by_time)
  double cumulative = 0.0;      // this row's share and every row's above it
};

// Which time a ranking orders by.
enum class TimeOf { Inference, Backward, TrainingStep };

// Every layer but the input, in network order.
std::vector<BreakdownRow> layer_rows(const Report& report);

// Layers summed by the first `depth` parts of their dotted names (depth 1: "layer1"; depth 2:
// "layer1.bottleneck1"), in the order the blocks first appear; a layer with fewer parts stands alone.
std::vector<BreakdownRow> block_rows(const Report& report, int depth);

// Layers summed per kernel where a runtime fused them (LayerRow::kernel), in the order the kernels'
// first layers run: "conv3+batchnorm3+add1+relu3" (the first layer's name, then the others' last
// parts), ops "conv+batchnorm+add+relu". Layers that ran alone stay as layer_rows gives them.
std::vector<BreakdownRow> kernel_rows(const Report& report);
bool has_fused_kernels(const Report& report);

// Sorts by `time` (largest first, network order among equals), fills share and cumulative against
// the total over all `rows`, and keeps the first `keep` (0: all).
void rank_by_time(std::vector<BreakdownRow>& rows, TimeOf time, std::size_t keep);

double time_of(const BreakdownRow& row, TimeOf time);

}  // namespace ridge::engine
