#include "engine/render/svg_roofline.hpp"
#include "engine/render/label_placer.hpp"
#include "engine/render/svg_writer.hpp"
#include "engine/render/units.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <set>

namespace ridge::engine::render {
namespace {


std::string peak_label(const PeakUsed& p) { return p.describe(); }

// Why a measured point above its roof is suspect, by which part of the roof it beats.
std::string suspect_reason(const RooflinePoint& p, const Roof& roof, double layer_peak) {
  const double factor = p.performance / p.layer_roof;
  std::string why = "measured " + si(p.performance, "FLOP/s") + " is " + ratio(factor, "x") + " its roof of " +
                    si(p.layer_roof, "FLOP/s") + ": ";
  if (p.intensity * roof.bandwidth < layer_peak)
    why += "above the memory roof, so it moved fewer bytes than counted (caches holding the working set, "
           "fused kernels) or the bandwidth figure is too low";
  else
    why += "above the compute peak, so it did fewer FLOPs than counted (Winograd/FFT convolution, "
           "skipped work) or the peak figure is too low (boost clock, a faster unit than assumed)";
  return why + "; or the timing missed part of the work";
}

}  // namespace

double Roof::at(double intensity) const { return std::min(peak, intensity * bandwidth); }

Roofline roofline(const Report& report, const std::vector<Measurement>& measurements, const ir::Device* device) {
  Roofline rl;
  const DeviceSummary& d = report.device;
  const std::string prec(ir::precision_name(report.precision));
  rl.title = report.network + " on " + d.name + ": batch " + std::to_string(report.batch) + ", " + prec;

  // The roof: the highest peak a layer is timed against, so no model point can sit above it.
  const bool matrix_roof = d.matmul_peak_used.flops_per_s >= d.vector_peak_used.flops_per_s;
  const PeakUsed& top = matrix_roof ? d.matmul_peak_used : d.vector_peak_used;
  const PeakUsed& other = matrix_roof ? d.vector_peak_used : d.matmul_peak_used;
  rl.roof = {top.flops_per_s, d.bandwidth, top.flops_per_s / d.bandwidth, peak_label(top)};

  std::set<double> drawn{top.flops_per_s};
  auto add_compute = [&](const std::string& label, double v, bool measured) {
    if (v > 0 && !drawn.contains(v)) {
      rl.ceilings.push_back({label, v, 0.0, measured});
      drawn.insert(v);
    }
  };
  add_compute(peak_label(other) + (matrix_roof ? " (non-matmul ops)" : ""), other.flops_per_s, false);
  // Matrix units the precision could use: its own, and tf32 under fp32 (PyTorch's allow_tf32 switch).
  if (const auto it = d.matrix_peak.find(report.precision); it != d.matrix_peak.end())
    add_compute("matrix " + prec, it->second, false);
  if (report.precision == ir::Precision::FP32)
    if (const auto it = d.matrix_peak.find(ir::Precision::TF32); it != d.matrix_peak.end())
      add_compute("matrix tf32 (if TF32 is enabled)", it->second, false);
  if (device) {
    for (const auto& [p, f] : device->measured_peak)
      if (p == report.precision || (report.precision == ir::Precision::FP32 && p == ir::Precision::TF32))
        add_compute("measured " + std::string(ir::precision_name(p)), f.value, true);
    if (device->measured_bandwidth && device->measured_bandwidth->value > 0)
      rl.ceilings.push_back({"measured bandwidth", 0.0, device->measured_bandwidth->value, true});
  }

  // Model points: PALEO time, which is never below the roofline bound. A pass that ran from L2
  // (PassTime::in_l2) sits at its intensity over what it moved through DRAM (its weights), the
  // traffic its roofline was taken over; with no DRAM traffic at all it has no place on this plot.
  std::map<std::string, const LayerRow*> by_name;
  int skipped = 0, from_l2 = 0;
  for (const LayerRow& row : report.layers) {
    by_name[row.name] = &row;
    for (const ir::Pass pass : {ir::Pass::Forward, ir::Pass::Backward}) {
      const PassCost& c = pass == ir::Pass::Forward ? row.fwd : row.bwd;
      const PassTime& t = pass == ir::Pass::Forward ? row.time_fwd : row.time_bwd;
      if (c.flops <= 0 || c.bytes() <= 0 || t.paleo_s <= 0) {
        if (!row.view && c.kernels > 0) ++skipped;
        continue;
      }
      if (t.in_l2 && !(t.intensity > 0)) {
        ++from_l2;
        continue;
      }
      const double intensity = t.in_l2 ? t.intensity : c.flops / c.bytes();
      RooflinePoint p{row.name, pass, row.op_class, intensity, c.flops / t.paleo_s, 0, 0, false, false, ""};
      p.layer_roof = std::min(row.peak.flops_per_s, p.intensity * d.bandwidth);
      p.plotted = std::min(p.performance, p.layer_roof);
      rl.points.push_back(std::move(p));
    }
  }
  if (skipped > 0)
    rl.notes.push_back(note("roofline-no-flops", std::to_string(skipped) +
                                                   " layer passes with no FLOPs (copies, concatenation) are not plotted: their intensity is 0"));
  if (from_l2 > 0)
    rl.notes.push_back(note("roofline-from-l2", std::to_string(from_l2) +
                                                  " layer passes ran from L2 with no DRAM traffic and are not plotted against DRAM's roof"));

  // Measured points.
  for (const Measurement& m : measurements) {
    const auto it = by_name.find(m.layer);
    const std::string what = "measurement of '" + m.layer + "' " + std::string(ir::pass_name(m.pass));
    if (it == by_name.end()) {
      rl.notes.push_back(warning("roofline-unknown-layer", what + " ignored: the network has no such layer"));
      continue;
    }
    const LayerRow& row = *it->second;
    const PassCost& c = m.pass == ir::Pass::Forward ? row.fwd : row.bwd;
    if (!(m.seconds > 0) || !std::isfinite(m.seconds) || c.flops <= 0 || c.bytes() <= 0) {
      rl.notes.push_back(warning("roofline-ignored", what + " ignored: " + (m.seconds > 0 ? "the pass has no FLOPs or bytes" : "time is not positive")));
      continue;
    }
    RooflinePoint p{row.name, m.pass, row.op_class, c.flops / c.bytes(), c.flops / m.seconds, 0, 0, true, false, ""};
    p.layer_roof = std::min(row.peak.flops_per_s, p.intensity * d.bandwidth);
    p.above_roof = beats_roofline(m.seconds, (m.pass == ir::Pass::Forward ? row.time_fwd : row.time_bwd).roofline_s);
    p.plotted = std::min(p.performance, p.layer_roof);
    if (p.above_roof) {
      p.why = suspect_reason(p, rl.roof, row.peak.flops_per_s);
      rl.notes.push_back(warning("roofline-suspect", "suspect: " + what + ": " + p.why));
    }
    rl.points.push_back(std::move(p));
  }
  return rl;
}

namespace {

// A class's legend label and colour: its row of ir::kOpClasses, and the palette entry of that row, so a
// class keeps its colour from plot to plot whichever classes a network has.
std::string class_label(ir::OpClass c) { return std::string(ir::op_class_row(c).plot_label); }
std::string class_colour(ir::OpClass c) { return svg::palette(static_cast<std::size_t>(c)); }

svg::Marker pass_marker(ir::Pass pass, bool measured) {
  if (measured) return pass == ir::Pass::Forward ? svg::Marker::Square : svg::Marker::Diamond;
  return pass == ir::Pass::Forward ? svg::Marker::Circle : svg::Marker::Triangle;
}

}  // namespace

std::string roofline_svg(const Roofline& rl) {
  // A fixed size: the notes are printed with the report (simulate's notes), not under the plot, where
  // dozens of flagged points once grew the picture past 1500 px and were cut.
  svg::Document doc(kRooflineWidth, kRooflineHeight);
  const Roof& roof = rl.roof;

  // Ranges: every point, the ridge a decade either side, and every ceiling.
  double xmin = roof.ridge / 10, xmax = roof.ridge * 10, ymin = roof.peak, ymax = roof.peak;
  for (const RooflinePoint& p : rl.points) {
    xmin = std::min(xmin, p.intensity);
    xmax = std::max(xmax, p.intensity);
    ymin = std::min(ymin, p.plotted);
  }
  for (const Ceiling& c : rl.ceilings) {
    if (c.flops_per_s > 0) {
      ymax = std::max(ymax, c.flops_per_s);
      ymin = std::min(ymin, c.flops_per_s);
      xmax = std::max(xmax, c.flops_per_s / roof.bandwidth * 3);
    }
  }
  svg::Frame f;
  f.left = 95;
  f.top = 70;
  f.right = 720;
  f.bottom = 600;
  f.x = svg::LogAxis::fit(xmin, xmax, f.left, f.right);
  f.y = svg::LogAxis::fit(ymin, ymax * 1.5, f.bottom, f.top);

  doc.text(kRooflineWidth / 2, 28, rl.title, 18, "middle", "#111", 0, true);
  doc.text(kRooflineWidth / 2, 50,
           "roofline: " + si(roof.peak, "FLOP/s") + " " + roof.peak_label + ", " + si(roof.bandwidth, "B/s") +
               "; points: per-layer predicted time",
           13, "middle", "#444");
  svg::draw_axes(doc, f, "arithmetic intensity (FLOP/byte)", "performance (FLOP/s)");

  // The slanted part starts where it enters the plot: at the bottom edge or the left one.
  const double x0 = std::max(f.x.lo, f.y.lo / roof.bandwidth);
  auto pt = [&](double ai, double perf) { return std::pair{f.x.map(ai), f.y.map(perf)}; };

  // Labels of the roof and the ceilings are placed once every point is known, clear of the points and
  // of each other, and drawn over the points (LabelPlacer).
  LabelPlacer labels;
  for (const RooflinePoint& p : rl.points) {
    const auto [x, y] = pt(p.intensity, p.plotted);
    labels.avoid_point(x, y);
  }
  struct PendingLabel {
    std::vector<LabelSpot> spots;   // where it may go, best first
    std::string text;
    double size;
    std::string colour;
    bool bold;
  };
  std::vector<PendingLabel> pending;
  // Along a flat line at height y: from its right end leftwards, above the line, then below it.
  auto along_flat = [&](double y) {
    std::vector<LabelSpot> spots;
    for (const double dy : {-5.0, 14.0})
      for (int k = 0; k < 6; ++k) spots.push_back({f.right - 6 - k * (f.right - f.left) / 6, y + dy, true});
    return spots;
  };

  // Ceilings first, under the roof line.
  int ceiling_row = 0;
  for (const Ceiling& c : rl.ceilings) {
    const std::string colour = c.measured ? "#B8860B" : "#777";
    const svg::Stroke s{colour, 1.4, "7 4"};
    if (c.flops_per_s > 0) {
      svg::Points line;
      if (c.flops_per_s > roof.peak) line.push_back(pt(roof.ridge, roof.peak));
      line.push_back(pt(c.flops_per_s / roof.bandwidth, c.flops_per_s));
      line.push_back(pt(f.x.hi, c.flops_per_s));
      doc.polyline(line, s);
      pending.push_back({along_flat(f.y.map(c.flops_per_s)), c.label + " " + si(c.flops_per_s, "FLOP/s"), 11, colour, false});
    } else {
      const double xs = std::max(f.x.lo, f.y.lo / c.bandwidth);
      doc.polyline({pt(xs, xs * c.bandwidth), pt(roof.peak / c.bandwidth, roof.peak)}, s);
      // A row in the bottom-left corner, else the top-left one.
      const int row = ceiling_row++;
      pending.push_back({{{f.left + 8, f.bottom - 10 - 14.0 * row, false}, {f.left + 8, f.top + 16 + 14.0 * row, false}},
                         c.label + " " + si(c.bandwidth, "B/s"), 11, colour, false});
    }
  }

  // The roof: one line, slanted then flat, and the ridge point marked.
  doc.polyline({pt(x0, x0 * roof.bandwidth), pt(roof.ridge, roof.peak), pt(f.x.hi, roof.peak)}, {"#111", 2.6, ""});
  const auto [rx, ry] = pt(roof.ridge, roof.peak);
  doc.line(rx, ry, rx, f.bottom, {"#111", 1.0, "2 3"});
  doc.circle(rx, ry, 5, "#ffffff", {"#111", 2.0, ""});
  pending.insert(pending.begin(), {{{rx + 8, ry + 18, false}, {rx + 8, ry - 8, false}, {rx - 8, ry + 18, true}},
                                   "ridge point " + ratio(roof.ridge, "FLOP/B"), 12, "#111", true});
  pending.insert(pending.begin(), {along_flat(ry - 1), "peak " + roof.peak_label + " " + si(roof.peak, "FLOP/s"), 12, "#111", true});
  {
    // Label the memory roof along its slope, a third of the way up.
    const auto [ax, ay] = pt(x0, x0 * roof.bandwidth);
    const double mx = ax + (rx - ax) * 0.35, my = ay + (ry - ay) * 0.35;
    const double angle = std::atan2(ry - ay, rx - ax) * 180 / std::numbers::pi;
    doc.text(mx - 4, my - 8, "memory " + si(roof.bandwidth, "B/s"), 12, "start", "#111", angle, true);
  }

  // Points: model ones filled, measured hollow; flagged ones ringed in red.
  for (const RooflinePoint& p : rl.points) {
    const auto [x, y] = pt(p.intensity, p.plotted);
    const std::string tip = p.layer + " " + std::string(ir::pass_name(p.pass)) + (p.measured ? " (measured)" : "") +
                            ": " + ratio(p.intensity, "FLOP/B") + ", " + si(p.performance, "FLOP/s") +
                            (p.above_roof ? "; ABOVE ROOF: " + p.why : "");
    doc.open_group(tip);
    svg::marker(doc, pass_marker(p.pass, p.measured), x, y, p.measured ? 4.5 : 4.0, class_colour(p.op_class), p.measured);
    if (p.above_roof) {
      doc.circle(x, y, 9, "none", {"#D00000", 2.0, ""});
      doc.text(x + 10, y - 8, "!", 14, "start", "#D00000", 0, true);
    }
    doc.close_group();
  }

  // The roof's and ceilings' labels, over the points and clear of them where the plot has room.
  for (const PendingLabel& l : pending) {
    const LabelSpot spot = labels.place(l.spots, text_width(l.text, l.size), l.size);
    doc.text(spot.x, spot.y, l.text, l.size, spot.end_anchor ? "end" : "start", l.colour, 0, l.bold);
  }

  // Legend.
  double ly = f.top + 10;
  const double lx = f.right + 25;
  doc.text(lx, ly, "op class", 13, "start", "#111", 0, true);
  std::set<ir::OpClass> classes;
  bool measured = false, flagged = false;
  for (const RooflinePoint& p : rl.points) {
    classes.insert(p.op_class);
    measured |= p.measured;
    flagged |= p.above_roof;
  }
  for (const ir::OpClass c : classes) {
    ly += 20;
    doc.rect(lx, ly - 10, 12, 12, class_colour(c), {"#333", 0.6, ""});
    doc.text(lx + 20, ly, class_label(c), 12);
  }
  ly += 30;
  doc.text(lx, ly, "pass", 13, "start", "#111", 0, true);
  auto legend_marker = [&](svg::Marker m, bool hollow, const std::string& label) {
    ly += 20;
    svg::marker(doc, m, lx + 6, ly - 4, 4.5, "#555", hollow);
    doc.text(lx + 20, ly, label, 12);
  };
  legend_marker(svg::Marker::Circle, false, "forward (model)");
  legend_marker(svg::Marker::Triangle, false, "backward (model)");
  if (measured) {
    legend_marker(svg::Marker::Square, true, "forward (measured)");
    legend_marker(svg::Marker::Diamond, true, "backward (measured)");
  }
  if (flagged) {
    ly += 20;
    doc.circle(lx + 6, ly - 4, 7, "none", {"#D00000", 2.0, ""});
    doc.text(lx + 20, ly, "above its roof: suspect, drawn on it", 12, "start", "#D00000");
  }
  ly += 30;
  doc.text(lx, ly, "lines", 13, "start", "#111", 0, true);
  ly += 20;
  doc.line(lx, ly - 4, lx + 14, ly - 4, {"#111", 2.6, ""});
  doc.text(lx + 20, ly, "roofline (datasheet)", 12);
  if (!rl.ceilings.empty()) {
    ly += 20;
    doc.line(lx, ly - 4, lx + 14, ly - 4, {"#777", 1.4, "4 2"});
    doc.text(lx + 20, ly, "other ceiling (datasheet)", 12);
  }
  if (std::any_of(rl.ceilings.begin(), rl.ceilings.end(), [](const Ceiling& c) { return c.measured; })) {
    ly += 20;
    doc.line(lx, ly - 4, lx + 14, ly - 4, {"#B8860B", 1.4, "4 2"});
    doc.text(lx + 20, ly, "measured ceiling", 12);
  }

  // One line under the plot says how many notes there are and where they are.
  if (!rl.notes.empty()) {
    const auto suspect = std::count_if(rl.notes.begin(), rl.notes.end(), [](const Note& n) { return n.id == "roofline-suspect"; });
    const std::string line = std::to_string(rl.notes.size()) + (rl.notes.size() == 1 ? " note" : " notes") +
                             (suspect ? " (" + std::to_string(suspect) + " suspect measured " + (suspect == 1 ? "point" : "points") + ", ringed)" : "") +
                             ": printed with the report, not drawn here";
    doc.text(20, kRooflineHeight - 20, line, 11, "start", suspect ? "#D00000" : "#444");
  }
  return doc.str();
}

}  // namespace ridge::engine::render
