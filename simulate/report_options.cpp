#include "simulate/report_options.hpp"
#include "simulate/run_options.hpp"

#include "engine/render/pipeline_trace.hpp"
#include "engine/render/serving_figures.hpp"
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

namespace fs = std::filesystem;

namespace {

// "out.svg" + "roofline-a100-fp32-b64" -> "out-roofline-a100-fp32-b64.svg", beside it.
std::string sibling(const std::string& path, const std::string& what) {
  const fs::path p(path);
  const std::string ext = p.has_extension() ? p.extension().string() : ".svg";
  return (p.parent_path() / (p.stem().string() + "-" + what + ext)).string();
}

}  // namespace

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

Figures figures(const ReportOptions& o, const Results& results, const std::vector<ir::Device>& devices,
                const std::vector<Measurement>& measured) {
  Figures out;
  const std::vector<Report>& reports = results.reports;
  const bool correlate = results.correlation.has_value();
  if (!results.serving.empty()) {
    // A deployment's run: its KV cache and sequences over time, and its iterations as a trace.
    const serving::DeploymentRun& run = results.serving.front();
    if (!o.svg.empty()) out.files.emplace_back(o.svg, render::serving_svg(run));
    if (!o.trace.empty()) out.files.emplace_back(o.trace, render::serving_trace(run));
    if (results.serving.size() > 1 && (!o.svg.empty() || !o.trace.empty()))
      out.notes.push_back(note("serving-figures-first-only", std::string(results.serving_search ? "the search's best" : "the first device and dtype") +
                                                               " only: --svg and --trace draw one deployment"));
    return out;
  }
  if (results.parallel) {
    if (!o.trace.empty()) {
      if (results.parallel->strategies.empty()) throw std::invalid_argument("--trace: no strategy fits, so there is no step to draw");
      out.files.emplace_back(o.trace, render::pipeline_trace(*results.parallel, *results.schedule));
    }
    return out;
  }
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
      for (Note n : rl.notes) {
        n.text = "roofline: " + n.text;
        out.notes.push_back(std::move(n));
      }
      out.files.emplace_back(o.svg, render::roofline_svg(rl));
    } else {
      for (const Report& r : reports) {
        const render::Roofline rl = render::roofline(r, measured, device_of(r));
        for (Note n : rl.notes)
          if (n.id == "roofline-suspect") {
            n.text = "roofline " + r.device.id + ": " + n.text;
            out.notes.push_back(std::move(n));
          }
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
    if (reports.size() > 1) out.notes.push_back(note("trace-first-only", "trace: the first device, batch and dtype only"));
  }
  return out;
}

}  // namespace ridge::simulate
