// The roofline plot of one report (one device, one precision, one batch): geometry first, as plain
// data the tests pin, then the SVG drawn from it.
//
//   Roofline rl = render::roofline(report, measurements, &device);
//   std::string svg = render::roofline_svg(rl);
//
// The roof is the highest compute peak any layer is timed against (so every model point lies under
// it) meeting the datasheet bandwidth at the ridge point. Other peaks are ceilings: the vector peak
// where the roof is a matrix unit's, matrix-unit peaks the precision could use (tf32 under fp32), and
// measured attainable ceilings (empirical roofline) where the .hw records them.
//
// Points: every layer pass with FLOPs and bytes, at (FLOPs / bytes, FLOPs / PALEO time); measured
// points at (FLOPs / bytes, FLOPs / measured seconds). A measured point above its layer's roof cannot
// be real: it is drawn on the roof, flagged, and a note says why it is suspect.
#pragma once

#include "engine/measured.hpp"
#include "engine/report.hpp"

#include "lang/ir/device.hpp"

#include <string>
#include <vector>

namespace ridge::engine::render {

// A measured time of one layer pass (from calibrate / validate).
using Measurement = engine::Measurement;   // engine/measured.hpp

struct Roof {
  double peak = 0.0;         // FLOP/s, the flat part
  double bandwidth = 0.0;    // B/s, the slanted part
  double ridge = 0.0;        // FLOP/B where they meet = peak / bandwidth
  std::string peak_label;    // "vector fp32"
  double at(double intensity) const;   // min(peak, intensity * bandwidth)
};

struct Ceiling {
  std::string label;         // "matrix tf32", "measured fp32", "measured bandwidth"
  double flops_per_s = 0.0;  // compute ceiling; 0 for a memory ceiling
  double bandwidth = 0.0;    // memory ceiling; 0 for a compute ceiling
  bool measured = false;
};

struct RooflinePoint {
  std::string layer;
  ir::Pass pass = ir::Pass::Forward;
  ir::OpClass op_class = ir::OpClass::MatMul;
  double intensity = 0.0;      // FLOP/B
  double performance = 0.0;    // FLOP/s, as computed
  double layer_roof = 0.0;     // FLOP/s, min(the layer's peak, intensity * bandwidth)
  double plotted = 0.0;        // FLOP/s where it is drawn: min(performance, layer_roof)
  bool measured = false;
  bool above_roof = false;     // only ever true for measured points
  std::string why;             // for a flagged point: what the excess suggests
};

struct Roofline {
  std::string title;           // "vgg19 on NVIDIA A100-SXM4-40GB: batch 64, fp32"
  Roof roof;
  std::vector<Ceiling> ceilings;
  std::vector<RooflinePoint> points;
  std::vector<Note> notes;   // flagged measurements (roofline-suspect), skipped passes, ignored measurements
};

// `device` (optional) supplies the measured ceilings the Report does not carry.
Roofline roofline(const Report& report, const std::vector<Measurement>& measurements = {},
                  const ir::Device* device = nullptr);

// A self-contained SVG, 1000 px wide and kRooflineHeight high; the notes are the caller's to print.
std::string roofline_svg(const Roofline& roofline);
inline constexpr double kRooflineWidth = 1000;
inline constexpr double kRooflineHeight = 680;

}  // namespace ridge::engine::render
