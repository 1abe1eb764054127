// simulate: a network and one or more devices in, a report out.
//   simulate NET HW... [--batch N|N,N,...] [--dtype fp32] [--set name=value]... [--format table|csv|json]
//                      [--pass forward|backward|train] [-o FILE]
//                      [--svg FILE] [--trace FILE] [--devices N] [--link L] [--scaling strong|weak] [--overlap]
//                      [--dataset-size N] [--measured CSV]       (engine/cli/report_options.hpp)
// More than one .net: the first is reported on, all are ranked against each other (Spearman).
// One device and one batch give the per-layer report; several give the comparison (device x batch).
// Errors go to stderr with a non-zero exit; with -o nothing is written unless everything succeeded.
#include "engine/cli/report_options.hpp"
#include "engine/comparison.hpp"
#include "engine/io/atomic_file.hpp"
#include "engine/render/render.hpp"
#include "engine/simulate.hpp"
#include "catalogue.hpp"
#include "parse.hpp"

#include <CLI/CLI.hpp>

#include <charconv>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

namespace {

using namespace ridge;

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::vector<std::int64_t> parse_batches(const std::string& text) {
  std::vector<std::int64_t> batches;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc{} || end != item.data() + item.size() || v < 1 || v > engine::kMaxBatch)
      throw UsageError("--batch: '" + item + "' is not a batch size between 1 and " + std::to_string(engine::kMaxBatch));
    batches.push_back(v);
    start = comma + 1;
  }
  return batches;
}

lang::Overrides parse_sets(const std::vector<std::string>& sets) {
  lang::Overrides o;
  for (const std::string& s : sets) {
    const std::size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
      throw UsageError("--set: expected name=value, got '" + s + "'");
    o[s.substr(0, eq)] = s.substr(eq + 1);
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Simulate a network (.net) on devices (.hw): per-layer FLOPs, bytes, roofline and PALEO times"};
  std::string net_path;
  std::vector<std::string> hw_paths;
  std::string batch_text = "1";
  std::string dtype = "fp32";
  std::vector<std::string> sets;
  std::string format = "table";
  std::string pass = "train";
  std::string output;
  app.add_option("network", net_path, "network file (.net)")->required();
  app.add_option("devices", hw_paths, "device files (.hw)")->required();
  app.add_option("-b,--batch", batch_text, "batch size, or a comma-separated list (1,8,64,256)");
  app.add_option("-d,--dtype", dtype, "precision (fp64 fp32 tf32 fp16 bf16 int8), or a comma-separated list (fp32,fp16)");
  app.add_option("-s,--set", sets, "override a network parameter: name=value");
  app.add_option("-f,--format", format, "output format")->check(CLI::IsMember({"table", "csv", "json"}));
  app.add_option("-p,--pass", pass, "which pass the table shows")->check(CLI::IsMember({"forward", "backward", "train"}));
  app.add_option("-o,--output", output, "write to FILE (atomically) instead of stdout");
  engine::cli::ReportOptions report_options;
  engine::cli::add_report_options(app, report_options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  try {
    const std::vector<std::int64_t> batches = parse_batches(batch_text);
    const std::vector<ir::Precision> precisions = engine::cli::parse_precisions(dtype);
    const std::vector<std::string> extra_networks = engine::cli::take_networks(hw_paths);
    if (hw_paths.empty()) throw UsageError("no device file (.hw) given");
    // Each simulation keeps a per-layer report until the comparison is rendered: cap their number so a
    // long --batch list (the command line allows ~65,000 items) cannot run memory away.
    constexpr std::size_t kMaxSimulations = 4096;
    const std::size_t nets = 1 + extra_networks.size();
    if (nets * hw_paths.size() * precisions.size() * batches.size() > kMaxSimulations)
      throw UsageError(std::to_string(nets) + " networks x " + std::to_string(hw_paths.size()) + " devices x " +
                       std::to_string(precisions.size()) + " dtypes x " + std::to_string(batches.size()) +
                       " batches is more than the " + std::to_string(kMaxSimulations) + " simulations one run may ask for");
    const ir::Network network = lang::load_network(lang::resolve_network_path(net_path), parse_sets(sets));
    std::vector<ir::Device> devices;
    for (const std::string& p : hw_paths) devices.push_back(lang::load_device(lang::resolve_device_path(p)));

    std::vector<engine::Report> reports;
    for (std::size_t i = 0; i < devices.size(); ++i) {
      for (const ir::Precision precision : precisions) {
        for (const std::int64_t batch : batches) {
          try {
            reports.push_back(engine::simulate(network, devices[i], {.batch = batch, .precision = precision}));
          } catch (const engine::SimulationError& e) {
            throw engine::SimulationError(hw_paths[i] + ": " + e.what());
          }
        }
      }
    }

    const auto view = pass == "forward"    ? engine::render::PassView::Forward
                      : pass == "backward" ? engine::render::PassView::Backward
                                           : engine::render::PassView::Train;
    std::string text;
    if (reports.size() == 1) {
      text = format == "json" ? engine::render::json(reports.front())
             : format == "csv" ? engine::render::csv(reports.front())
                               : engine::render::table(reports.front(), view);
    } else {
      const engine::Comparison c = engine::compare(reports);
      text = format == "json" ? engine::render::json(c)
             : format == "csv" ? engine::render::csv(c)
                               : engine::render::table(c, view);
    }
    text = engine::cli::finish(report_options, {network, devices, reports, extra_networks, format}, std::move(text));
    if (output.empty() || output == "-") {
      std::cout << text << std::flush;
      if (!std::cout) throw std::runtime_error("cannot write to standard output");
    } else {
      engine::io::write_file_atomically(output, text);
    }
    return 0;
  } catch (const ridge::lang::Error& e) {
    std::cerr << e.what();
    if (std::string_view(e.what()).empty() || std::string_view(e.what()).back() != '\n') std::cerr << '\n';
  } catch (const std::exception& e) {
    std::cerr << "simulate: error: " << e.what() << '\n';
  }
  return 1;
}
