// The sweep plots: latency against FLOPs across networks, and throughput against batch size. Both
// are log-log series plots built from Reports, so every point is a number simulate() computed.
#pragma once

#include "engine/report.hpp"
#include "engine/render/label_placer.hpp"

#include <string>
#include <utility>
#include <vector>

namespace ridge::engine::render {

struct PlotSeries {
  std::string name;                                  // legend entry
  std::vector<std::pair<double, double>> points;     // (x, y), both > 0
  std::vector<std::string> labels;                   // per point, may be empty
  std::vector<bool> fits;                            // per point: false draws it hollow, "does not fit"
  bool line = false;                                 // join the points (sorted by x)
  bool dashed = false;
  std::size_t colour = 0;                            // palette index
};

struct LogLogPlot {
  std::string title, subtitle, x_title, y_title;
  std::vector<PlotSeries> series;
};

// One series per (device, precision, batch); a point per network at (forward FLOPs per batch,
// PALEO inference latency), labelled with the network.
LogLogPlot latency_vs_flops(const std::vector<Report>& reports);
// One colour per (network, device, precision); inference throughput solid, training dashed; a point per batch.
LogLogPlot throughput_vs_batch(const std::vector<Report>& reports);

// Where point labels go so that no label covers another or a point: for each point (pixels) and its
// label's width, the first of a few spots around it (right and above first) that is clear, else the
// one covering least (label_placer.hpp). Returns, per label, the text's anchor point.
std::vector<LabelSpot> place_labels(const std::vector<std::pair<double, double>>& points, const std::vector<double>& widths,
                                    double height);

// A self-contained SVG of kPlotWidth x kPlotHeight px.
std::string loglog_svg(const LogLogPlot& plot);
inline constexpr double kPlotWidth = 960;
inline constexpr double kPlotHeight = 640;

}  // namespace ridge::engine::render
