// The text table of a run (simulate's default --format table): the per-layer table of one report (or
// its blocks, its top layers, its measured times), the comparison of several, the decoder-inference
// phases, then the scaling and correlation tables.
#pragma once

#include "engine/render/render.hpp"
#include "engine/run.hpp"

#include <cstddef>
#include <string>

namespace ridge::simulate {

struct TableView {
  engine::render::PassView pass = engine::render::PassView::Train;
  bool wide = false;
  int depth = 0;              // > 0: totals per block, this many levels of dotted names deep
  std::size_t top = 0;        // > 0: the layers (or blocks) that take the most time
  std::string measured;       // a measured-times CSV to put beside the predictions
};

std::string table_text(const engine::Results& results, const TableView& view);

}  // namespace ridge::simulate
