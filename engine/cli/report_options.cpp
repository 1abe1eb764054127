#include "report_options.hpp"

#include "engine/io/atomic_file.hpp"
#include "engine/render/json_writer.hpp"
#include "engine/render/scaling_table.hpp"
#include "engine/render/svg_plots.hpp"
#include "engine/render/svg_roofline.hpp"
#include "engine/render/trace.hpp"
#include "engine/scaling.hpp"
#include "engine/simulate.hpp"
#include "engine/stats.hpp"
#include "parse.hpp"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace ridge::engine::cli {
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

std::vector<Measurement> load_measurements(const std::string& path) {
  std::istringstream in(lang::read_source(path));
  std::vector<Measurement> out;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#' || (n == 1 && line.rfind("layer", 0) == 0)) continue;
    const std::vector<std::string> f = split(line, ',');
    const auto pass = f.size() == 3 ? ir::pass_from_name(f[1]) : std::nullopt;
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

void check_work(std::size_t simulations, std::size_t layers, const std::string& what) {
  if (layers > 0 && simulations > kMaxLayerSimulations / layers)
    throw std::invalid_argument(what + ": " + std::to_string(simulations) + " simulations of " + std::to_string(layers) +
                                " layers each are more than the " + std::to_string(kMaxLayerSimulations) +
                                " layer simulations one run may ask for");
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
  for (std::string& p : device_paths) (fs::path(p).extension() == ".net" || fs::path(p).extension() == ".onnx" ? nets : rest).push_back(std::move(p));
  device_paths = std::move(rest);
  return nets;
}

std::string finish(const ReportOptions& o, const Context& ctx, std::string main_text) {
  std::vector<std::pair<std::string, std::string>> files;   // path, contents: written at the end
  std::vector<std::string> notes;
  std::vector<std::string> wrote;

  // Data-parallel scaling: one report per (device, precision, batch) of the main network. Count the
  // simulations first: a long --devices list per report escaped the cap on the main simulations.
  std::size_t simulations = ctx.reports.size() * (1 + ctx.extra_networks.size());
  for (const ir::Device& dev : ctx.devices) {
    const std::size_t n = !o.devices.empty() ? parse_device_counts(o.devices).size() + 1
                          : dev.count > 1    ? device_counts_up_to(dev.count).size() + 1
                                             : 0;
    for (const Report& r : ctx.reports) simulations += r.device.id == dev.id ? n : 0;
  }
  if (simulations > kMaxSimulations)
    throw std::invalid_argument("the reports, scaling rows and correlated networks asked for need " +
                                std::to_string(simulations) + " simulations, more than the " +
                                std::to_string(kMaxSimulations) + " one run may ask for");
  check_work(simulations - ctx.reports.size() * ctx.extra_networks.size(), ctx.network.layers.size(),
             "the reports and scaling rows of '" + ctx.network.name + "'");
  std::vector<ScalingReport> scalings;
  std::vector<std::string> scaling_notes;   // shown under the table whatever else was written
  for (std::size_t d = 0; d < ctx.devices.size(); ++d) {
    const ir::Device& dev = ctx.devices[d];
    const std::vector<int> counts = !o.devices.empty() ? parse_device_counts(o.devices)
                                    : dev.count > 1    ? device_counts_up_to(dev.count)
                                                       : std::vector<int>{};
    if (counts.empty() || (counts.size() == 1 && counts.front() == 1 && o.devices.empty())) continue;
    std::set<std::pair<ir::Precision, std::int64_t>> seen;
    for (const Report& r : ctx.reports) {
      if (r.device.id != dev.id || !seen.insert({r.precision, r.batch}).second) continue;
      ScalingOptions so;
      so.batch = r.batch;
      so.precision = r.precision;
      so.devices = counts;
      so.scaling = o.scaling == "weak" ? Scaling::Weak : Scaling::Strong;
      if (o.devices.empty() && so.scaling == Scaling::Strong) {
        // Rows a system `.hw` adds by itself (no --devices asked for) stop where the batch can no
        // longer be split; --devices asks for the others, and gets the error.
        std::erase_if(so.devices, [&](int n) { return n > r.batch; });
        if (so.devices.size() < 2) {
          scaling_notes.push_back("scaling: " + dev.id + " is a system of " + std::to_string(dev.count) + " devices; batch " +
                          std::to_string(r.batch) + " cannot be split over them (--batch " + std::to_string(dev.count) +
                          " or more, or --scaling weak, gives its scaling table)");
          continue;
        }
      }
      so.link = o.link;
      so.overlap = o.overlap;
      if (o.dataset_size > 0) so.dataset_size = o.dataset_size;
      scalings.push_back(scale(ctx.network, dev, so));
    }
  }

  // Correlation across networks: the main one and the extras, at every device, batch and precision.
  std::vector<Report> all = ctx.reports;
  if (!ctx.extra_networks.empty()) {
    for (const std::string& path : ctx.extra_networks) {
      ir::Network net = lang::load_network(path);
      check_work(ctx.reports.size(), net.layers.size(), path);
      // Networks that declare the same name are kept apart in the correlation: the later one takes
      // its file's name, then a count.
      std::set<std::string> taken{ctx.network.name};
      for (const Report& r : all) taken.insert(r.network);
      if (taken.count(net.name)) {
        const std::string base = net.name + " (" + fs::path(path).filename().string() + ")";
        net.name = base;
        for (int k = 2; taken.count(net.name); ++k) net.name = base + " #" + std::to_string(k);
      }
      for (const Report& r : ctx.reports) {
        std::size_t d = 0;
        while (d < ctx.devices.size() && ctx.devices[d].id != r.device.id) ++d;
        if (d == ctx.devices.size()) continue;
        all.push_back(simulate(net, ctx.devices[d], {.batch = r.batch, .precision = r.precision}));
      }
    }
  }
  const bool correlate = !ctx.extra_networks.empty();
  const RankCorrelation correlation = correlate ? rank_correlation(all) : RankCorrelation{};

  // CSV is one tidy table per file: the scaling and correlation tables go to files of their own beside
  // the output (-o r.csv: r-scaling.csv; standard output: NETWORK-scaling.csv), named on standard error.
  if (ctx.format == "csv" && (!scalings.empty() || correlate)) {
    const fs::path out(ctx.output);
    const fs::path stem = ctx.output.empty() ? fs::path(ctx.network.name) : out.parent_path() / out.stem();
    auto side = [&](const std::string& what, std::string contents) {
      const std::string path = stem.string() + "-" + what + ".csv";
      if (ctx.messages) ctx.messages->push_back("the " + what + " table (CSV): " + path);
      files.emplace_back(path, std::move(contents));
    };
    if (!scalings.empty()) {
      std::string table;
      for (const ScalingReport& s : scalings) {
        const std::string one = render::csv(s);
        table += table.empty() ? one : one.substr(one.find('\n') + 1);   // one header
      }
      side("scaling", std::move(table));
    }
    if (correlate) side("correlation", render::csv(correlation));
  }

  // Figures.
  if (!o.svg.empty()) {
    const std::vector<render::Measurement> measured =
        o.measured.empty() ? std::vector<render::Measurement>{} : load_measurements(o.measured);
    auto device_of = [&](const Report& r) -> const ir::Device* {
      for (const ir::Device& d : ctx.devices)
        if (d.id == r.device.id) return &d;
      return nullptr;
    };
    if (o.svg == "-" && !(ctx.reports.size() == 1 && !correlate))
      throw std::invalid_argument("--svg -: this run draws several figures, which standard output cannot hold; "
                                  "give a file name as their stem");
    if (ctx.reports.size() == 1 && !correlate) {
      const render::Roofline rl = render::roofline(ctx.reports.front(), measured, device_of(ctx.reports.front()));
      for (const std::string& n : rl.notes) notes.push_back("roofline: " + n);
      files.emplace_back(o.svg, render::roofline_svg(rl));
    } else {
      for (const Report& r : ctx.reports) {
        const render::Roofline rl = render::roofline(r, measured, device_of(r));
        for (const std::string& n : rl.notes)
          if (n.rfind("suspect", 0) == 0) notes.push_back("roofline " + r.device.id + ": " + n);
        files.emplace_back(sibling(o.svg, "roofline-" + r.device.id + "-" + std::string(ir::precision_name(r.precision)) +
                                              "-b" + std::to_string(r.batch)),
                           render::roofline_svg(rl));
      }
      std::set<std::int64_t> batches;
      for (const Report& r : ctx.reports) batches.insert(r.batch);
      if (batches.size() > 1)
        files.emplace_back(sibling(o.svg, "throughput-vs-batch"), render::loglog_svg(render::throughput_vs_batch(ctx.reports)));
      if (correlate)
        files.emplace_back(sibling(o.svg, "latency-vs-flops"), render::loglog_svg(render::latency_vs_flops(all)));
    }
  }
  if (!o.trace.empty()) {
    if (!scalings.empty() && scalings.front().points.back().devices > 1)
      files.emplace_back(o.trace, render::trace(scalings.front(), scalings.front().points.back()));
    else
      files.emplace_back(o.trace, render::trace(ctx.reports.front()));
    if (ctx.reports.size() > 1) notes.push_back("trace: the first device, batch and dtype only");
  }

  // Everything computed: now write, so an error above leaves no file behind.
  if (ctx.outputs) {
    for (auto& [path, contents] : files) {
      wrote.push_back(path);
      ctx.outputs->emplace_back(path, std::move(contents));
    }
  } else {
    io::AtomicFiles batch;
    for (const auto& [path, contents] : files) {
      if (path == "-") throw std::invalid_argument("'-' (standard output) is for the caller to write; no file is named '-'");
      batch.add(path, contents);
      wrote.push_back(path);
    }
    batch.commit();
  }
  for (std::string& w : wrote)
    if (w == "-") w = "standard output";
  if (ctx.reports.size() > 1 || correlate)
    for (const std::string& w : wrote) notes.push_back("wrote " + w);
  if (wrote.empty()) notes.clear();
  if (ctx.format == "table") notes.insert(notes.begin(), scaling_notes.begin(), scaling_notes.end());

  if (ctx.format == "json") {
    if (scalings.empty() && !correlate && notes.empty()) return main_text;
    std::string out = "{\n\"report\": " + main_text;
    if (!scalings.empty()) {
      out += ",\n\"scaling\": [\n";
      for (std::size_t i = 0; i < scalings.size(); ++i) out += (i ? ",\n" : "") + render::json(scalings[i]);
      out += "]";
    }
    if (correlate) out += ",\n\"correlation\": " + render::json(correlation);
    if (!wrote.empty()) {
      out += ",\n\"files\": [";
      for (std::size_t i = 0; i < wrote.size(); ++i) out += (i ? ", " : "") + render::json_quote(wrote[i]);
      out += "]";
    }
    return out + "}\n";
  }
  const bool csv = ctx.format == "csv";
  if (!csv) {
    for (const ScalingReport& s : scalings) main_text += "\n" + render::table(s);
    if (correlate) main_text += "\n" + render::table(correlation);
  }
  if (!csv && !notes.empty()) {
    main_text += "\n";
    for (const std::string& n : notes) main_text += n + "\n";
  }
  return main_text;
}

}  // namespace ridge::engine::cli
