#include "simulate/report_options.hpp"

#include "engine/render/svg_plots.hpp"
#include "engine/render/svg_roofline.hpp"
#include "engine/render/trace.hpp"
#include "engine/scaling.hpp"
#include "lang/catalogue.hpp"
#include "lang/parse.hpp"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>
#include <stdexcept>

namespace ridge::simulate {

using namespace ridge::engine;

namespace {

namespace fs = std::filesystem;

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(sep, start), text.size());
    items.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return items;
}

std::vector<int> parse_device_counts(const std::string& text) {
  std::vector<int> counts;
  for (const std::string& item : split(text, ',')) {
    int v = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc{} || end != item.data() + item.size() || v < 1 || v > 65536)
      throw std::invalid_argument("--devices: '" + item + "' is not a device count between 1 and 65536");
    counts.push_back(v);
  }
  return counts.size() == 1 ? device_counts_up_to(counts.front()) : counts;
}

// layer,pass,seconds per line; a header line and '#' comments are skipped.
// Read through lang::read_source, so a huge file, a directory or /dev/zero is refused up front
// instead of read line by endless line into memory.
}  // namespace

std::vector<engine::Measurement> load_measurements(const std::string& path) {
  std::istringstream in(lang::read_source(path));
  std::vector<engine::Measurement> out;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#' || (n == 1 && line.rfind("layer", 0) == 0)) continue;
    const std::vector<std::string> f = split(line, ',');
    auto pass = f.size() == 3 ? ir::pass_from_name(f[1]) : std::nullopt;
    if (pass == ir::Pass::ForwardTrain) pass.reset();   // measured files hold inference forward and backward
    double s = 0;
    const auto [end, ec] = f.size() == 3 ? std::from_chars(f[2].data(), f[2].data() + f[2].size(), s)
                                         : std::from_chars_result{nullptr, std::errc::invalid_argument};
    if (!pass || ec != std::errc{} || end != f[2].data() + f[2].size() || !(s > 0.0) || !std::isfinite(s))
      throw std::runtime_error(path + ":" + std::to_string(n) + ": expected layer,forward|backward,seconds (seconds > 0)");
    out.push_back({f[0], *pass, s});
  }
  return out;
}

namespace {

// "out.svg" + "roofline-a100-fp32-b64" -> "out-roofline-a100-fp32-b64.svg", beside it.
std::string sibling(const std::string& path, const std::string& what) {
  const fs::path p(path);
  const std::string ext = p.has_extension() ? p.extension().string() : ".svg";
  return (p.parent_path() / (p.stem().string() + "-" + what + ext)).string();
}

}  // namespace

void add_report_options(CLI::App& app, ReportOptions& o) {
  app.add_option("--svg", o.svg,
                 "write a roofline SVG (one device, batch, dtype); with sweeps, FILE names the figures "
                 "FILE-roofline-DEV-DTYPE-bN.svg, FILE-throughput-vs-batch.svg, FILE-latency-vs-flops.svg");
  app.add_option("--trace", o.trace, "write one simulated training step as Chrome trace-event JSON (Perfetto)");
  app.add_option("--devices", o.devices, "data-parallel over N devices (rows 1, 2, 4, ..., N) or a list 1,2,3,4");
  app.add_option("--link", o.link, "the link between devices, as named in the .hw (nvlink, pcie, ethernet, infiniband)");
  app.add_option("--scaling", o.scaling, "strong: split the batch; weak: the batch is per device")
      ->check(CLI::IsMember({"strong", "weak"}));
  app.add_flag("--overlap", o.overlap, "overlap the gradient all-reduce with backward");
  app.add_option("--dataset-size", o.dataset_size, "samples per epoch, for epoch time")->check(CLI::PositiveNumber);
  app.add_option("--measured", o.measured, "measured layer times (CSV layer,pass,seconds) to plot on the roofline");
}

std::vector<ir::Precision> parse_precisions(const std::string& text) {
  std::vector<ir::Precision> out;
  for (const std::string& item : split(text, ',')) {
    const auto p = ir::precision_from_name(item);
    if (!p) throw std::invalid_argument("--dtype: '" + item + "' is not one of " + ir::precision_names());
    out.push_back(*p);
  }
  return out;
}

std::vector<std::string> take_networks(std::vector<std::string>& device_paths) {
  std::vector<std::string> nets, rest;
  for (std::string& p : device_paths) {
    const fs::path path(p);
    // A bare name is a zoo network when it names one and no catalogue device (`resnet18 vgg11 t4`).
    const bool zoo = !path.has_extension() && lang::resolve_network_path(p) != p && lang::resolve_device_path(p) == p;
    (path.extension() == ".net" || path.extension() == ".onnx" || zoo ? nets : rest).push_back(std::move(p));
  }
  device_paths = std::move(rest);
  return nets;
}

ScalingPlan scaling_plan(const ReportOptions& o) {
  ScalingPlan p;
  if (!o.devices.empty()) p.device_counts = parse_device_counts(o.devices);
  p.link = o.link;
  p.scaling = o.scaling == "weak" ? Scaling::Weak : Scaling::Strong;
  p.overlap = o.overlap;
  if (o.dataset_size > 0) p.dataset_size = o.dataset_size;
  return p;
}

Figures figures(const ReportOptions& o, const Results& results, const std::vector<ir::Device>& devices,
                const std::vector<Measurement>& measured) {
  Figures out;
  const std::vector<Report>& reports = results.reports;
  const bool correlate = results.correlation.has_value();
  if (!o.svg.empty()) {
    auto device_of = [&](const Report& r) -> const ir::Device* {
      for (const ir::Device& d : devices)
        if (d.id == r.device.id) return &d;
      return nullptr;
    };
    if (o.svg == "-" && !(reports.size() == 1 && !correlate))
      throw std::invalid_argument("--svg -: this run draws several figures, which standard output cannot hold; "
                                  "give a file name as their stem");
    if (reports.size() == 1 && !correlate) {
      const render::Roofline rl = render::roofline(reports.front(), measured, device_of(reports.front()));
      for (const std::string& n : rl.notes) out.notes.push_back("roofline: " + n);
      out.files.emplace_back(o.svg, render::roofline_svg(rl));
    } else {
      for (const Report& r : reports) {
        const render::Roofline rl = render::roofline(r, measured, device_of(r));
        for (const std::string& n : rl.notes)
          if (n.rfind("suspect", 0) == 0) out.notes.push_back("roofline " + r.device.id + ": " + n);
        out.files.emplace_back(sibling(o.svg, "roofline-" + r.device.id + "-" + std::string(ir::precision_name(r.precision)) +
                                                  "-b" + std::to_string(r.batch)),
                               render::roofline_svg(rl));
      }
      std::set<std::int64_t> batches;
      for (const Report& r : reports) batches.insert(r.batch);
      if (batches.size() > 1)
        out.files.emplace_back(sibling(o.svg, "throughput-vs-batch"), render::loglog_svg(render::throughput_vs_batch(reports)));
      if (correlate) {
        std::vector<Report> all = reports;
        all.insert(all.end(), results.correlated.begin(), results.correlated.end());
        out.files.emplace_back(sibling(o.svg, "latency-vs-flops"), render::loglog_svg(render::latency_vs_flops(all)));
      }
    }
  }
  if (!o.trace.empty()) {
    const std::vector<ScalingReport>& scalings = results.scalings;
    if (!scalings.empty() && scalings.front().points.back().devices > 1)
      out.files.emplace_back(o.trace, render::trace(scalings.front(), scalings.front().points.back()));
    else
      out.files.emplace_back(o.trace, render::trace(reports.front()));
    if (reports.size() > 1) out.notes.push_back("trace: the first device, batch and dtype only");
  }
  return out;
}

}  // namespace ridge::simulate
