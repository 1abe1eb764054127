// Per-layer measurements as the CSV `simulate --measured FILE.csv` reads (simulate/run_options.cpp):
//     layer,pass,seconds
//     conv1,forward,0.0102591
// so calibrate's measured points can be drawn on the roofline beside the model. Torch-free.
#pragma once

#include "lang/ir/device.hpp"

#include <string>
#include <vector>

namespace ridge::validate {

struct MeasuredPass {
  std::string layer;   // the layer's name as simulate reports it
  ir::Pass pass = ir::Pass::Forward;
  double seconds = 0.0;
};

// The CSV text, header first. A pass with no positive, finite time (a view that runs nothing) is left
// out: simulate's reader refuses one. Throws std::invalid_argument for a layer name that a comma or a
// line break would split.
std::string measurements_csv(const std::vector<MeasuredPass>& passes);

// Where one network's CSV goes when calibrate measures several: "out.csv" + "resnet18" ->
// "out-resnet18.csv", beside it (a CSV has no network column, and layer names repeat across networks).
std::string measurements_path(const std::string& path, const std::string& network);

}  // namespace ridge::validate
