#include "engine/render/svg_plots.hpp"
#include "engine/render/label_placer.hpp"
#include "engine/render/svg_writer.hpp"

#include <algorithm>
#include <array>
#include <tuple>
#include <map>
#include <set>

namespace ridge::engine::render {
namespace {
std::string prec(const Report& r) { return std::string(ir::precision_name(r.precision)); }
}  // namespace

LogLogPlot latency_vs_flops(const std::vector<Report>& reports) {
  LogLogPlot p;
  p.x_title = "forward FLOPs per batch (FLOP)";
  p.y_title = "predicted inference latency (s)";
  std::map<std::string, std::size_t> index;
  std::set<std::string> networks;
  for (const Report& r : reports) {
    const std::string key = r.device.name + ", " + prec(r) + ", batch " + std::to_string(r.batch);
    if (!index.contains(key)) {
      index[key] = p.series.size();
      p.series.push_back({key, {}, {}, {}, false, false, p.series.size()});
    }
    PlotSeries& s = p.series[index[key]];
    if (r.totals.flops_fwd > 0 && r.totals.time_fwd_s > 0) {
      s.points.emplace_back(r.totals.flops_fwd, r.totals.time_fwd_s);
      s.labels.push_back(r.network);
      s.fits.push_back(r.totals.fits_infer.value_or(true));
    }
    networks.insert(r.network);
  }
  p.title = "Latency vs FLOPs: " + std::to_string(networks.size()) + " networks";
  p.subtitle = "predicted inference time per batch; a network off the trend spends its time moving bytes; hollow: does not fit";
  return p;
}

LogLogPlot throughput_vs_batch(const std::vector<Report>& reports) {
  LogLogPlot p;
  p.x_title = "batch size (samples)";
  p.y_title = "throughput (samples/s)";
  std::map<std::string, std::pair<std::size_t, std::size_t>> index;   // key -> (infer series, train series)
  std::set<std::string> networks;
  for (const Report& r : reports) networks.insert(r.network);
  std::size_t colours = 0;
  for (const Report& r : reports) {
    // The network is in the title when there is one; the legend names what differs.
    const std::string key = (networks.size() > 1 ? r.network + " on " : std::string()) + r.device.name + ", " + prec(r);
    if (!index.contains(key)) {
      index[key] = {p.series.size(), p.series.size() + 1};
      p.series.push_back({key + ": inference", {}, {}, {}, true, false, colours});
      p.series.push_back({key + ": training", {}, {}, {}, true, true, colours});
      ++colours;
    }
    const auto [inf, train] = index[key];
    const double b = static_cast<double>(r.batch);
    if (r.totals.throughput_infer > 0) {
      p.series[inf].points.emplace_back(b, r.totals.throughput_infer);
      p.series[inf].fits.push_back(r.totals.fits_infer.value_or(true));
    }
    if (r.totals.throughput_train > 0) {
      p.series[train].points.emplace_back(b, r.totals.throughput_train);
      p.series[train].fits.push_back(r.totals.fits_train.value_or(true));
    }
  }
  p.title = "Throughput vs batch" + (networks.size() == 1 ? ": " + *networks.begin() : std::string());
  p.subtitle = "predicted; inference solid, training step (forward + backward + update) dashed; hollow: does not fit";
  return p;
}

std::vector<LabelSpot> place_labels(const std::vector<std::pair<double, double>>& points, const std::vector<double>& widths,
                                    double height) {
  LabelPlacer placer;
  for (const auto& [x, y] : points) placer.avoid_point(x, y);
  std::vector<LabelSpot> out;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto [px, py] = points[i];
    const double w = i < widths.size() ? widths[i] : 0.0;
    if (w <= 0) {   // no label: only an obstacle
      out.push_back({px, py, false});
      continue;
    }
    // Spots around the point, nearest first: right and above, right and below, then left, then further.
    std::vector<LabelSpot> spots;
    for (const auto& [dx, dy, left] : {std::tuple{7.0, -6.0, false}, {7.0, 14.0, false}, {-7.0, -6.0, true}, {-7.0, 14.0, true},
                                      {7.0, -20.0, false}, {7.0, 28.0, false}, {-7.0, -20.0, true}, {-7.0, 28.0, true}})
      spots.push_back({px + dx, py + dy, left});
    out.push_back(placer.place(spots, w, height));
  }
  return out;
}

std::string loglog_svg(const LogLogPlot& plot) {
  svg::Document doc(kPlotWidth, kPlotHeight);
  double xmin = 0, xmax = 0, ymin = 0, ymax = 0;
  bool any = false;
  for (const PlotSeries& s : plot.series)
    for (const auto& [x, y] : s.points) {
      if (!(x > 0) || !(y > 0)) continue;
      xmin = any ? std::min(xmin, x) : x;
      xmax = any ? std::max(xmax, x) : x;
      ymin = any ? std::min(ymin, y) : y;
      ymax = any ? std::max(ymax, y) : y;
      any = true;
    }
  if (!any) xmin = xmax = ymin = ymax = 1;
  svg::Frame f;
  f.left = 95;
  f.top = 70;
  f.right = 600;
  f.bottom = 560;
  f.x = svg::LogAxis::fit(xmin, xmax, f.left, f.right);
  f.y = svg::LogAxis::fit(ymin, ymax, f.bottom, f.top);
  doc.text(kPlotWidth / 2, 28, plot.title, 18, "middle", "#111", 0, true);
  doc.text(kPlotWidth / 2, 50, plot.subtitle, 13, "middle", "#444");
  svg::draw_axes(doc, f, plot.x_title, plot.y_title);

  // Every point's label, placed clear of every point and of the labels placed before it.
  auto label_of = [](const PlotSeries& s, std::size_t k) {
    std::string label = k < s.labels.size() ? s.labels[k] : std::string();
    // A configuration that does not fit in the device's memory could not run: hollow, and said so.
    if (k < s.fits.size() && !s.fits[k]) label += label.empty() ? "does not fit" : " (does not fit)";
    return label;
  };
  std::vector<std::pair<double, double>> pixels;
  std::vector<double> widths;
  std::vector<std::size_t> first_of_series;
  for (const PlotSeries& s : plot.series) {
    first_of_series.push_back(pixels.size());
    for (std::size_t k = 0; k < s.points.size(); ++k) {
      pixels.emplace_back(f.x.map(s.points[k].first), f.y.map(s.points[k].second));
      widths.push_back(text_width(label_of(s, k), 11));
    }
  }
  const std::vector<LabelSpot> spots = place_labels(pixels, widths, 11);

  double ly = f.top + 10;
  for (std::size_t i = 0; i < plot.series.size(); ++i) {
    const PlotSeries& s = plot.series[i];
    const std::string colour = svg::palette(s.colour);
    const svg::Marker m = svg::series_marker(s.colour);
    std::vector<std::size_t> order(s.points.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return s.points[a].first < s.points[b].first; });
    if (s.line && s.points.size() > 1) {
      svg::Points line;
      for (const std::size_t k : order) line.emplace_back(f.x.map(s.points[k].first), f.y.map(s.points[k].second));
      doc.polyline(line, {colour, 2.0, s.dashed ? "7 4" : ""});
    }
    for (const std::size_t k : order) {
      const auto [x, y] = s.points[k];
      const bool fits = k >= s.fits.size() || s.fits[k];
      const std::string label = label_of(s, k);
      doc.open_group(s.name + (label.empty() ? "" : ": " + label));
      svg::marker(doc, m, f.x.map(x), f.y.map(y), 4.5, colour, !fits);
      const LabelSpot& spot = spots[first_of_series[i] + k];
      if (!label.empty()) doc.text(spot.x, spot.y, label, 11, spot.end_anchor ? "end" : "start", "#333");
      doc.close_group();
    }
    // Legend entry.
    if (s.line) doc.line(f.right + 20, ly - 4, f.right + 44, ly - 4, {colour, 2.0, s.dashed ? "7 4" : ""});
    svg::marker(doc, m, f.right + 32, ly - 4, 4.5, colour, false);
    doc.text(f.right + 52, ly, s.name.size() > 50 ? s.name.substr(0, 48) + "..." : s.name, 11);
    ly += 18;
  }
  return doc.str();
}

}  // namespace ridge::engine::render
