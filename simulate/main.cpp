// simulate: a network and one or more devices in, a report out.
//   simulate NET HW... [--batch N|N,N,...] [--dtype fp32] [--set name=value]... [--format table|csv|json]
//                      [--pass forward|backward|train] [-o FILE] [--svg FILE] [--trace FILE] [--measured CSV]
//                      [--devices N] [--link L] [--scaling strong|weak] [--overlap] [--dataset-size N]
//                      [--prompt N --generate N] [--tensor-parallel T --pipeline-parallel P --data-parallel D ... | --search]
//                                                                 (command_line.hpp)
// More than one .net: the first is reported on, all are ranked against each other (Spearman).
// One device and one batch give the per-layer report; several give the comparison (device x batch).
// Errors go to stderr with a non-zero exit; with -o nothing is written unless everything succeeded.
//
// The program is the thin part: parse the command line, plan (run_options.hpp: the rules every front
// end shares), engine::run() computes the Results, a renderer turns them into text and figures, and
// the files are written last, all or none.
#include "simulate/command_line.hpp"
#include "simulate/report_options.hpp"
#include "simulate/run_options.hpp"

#include "engine/io/atomic_file.hpp"
#include "engine/io/output_safety.hpp"
#include "engine/render/formats.hpp"
#include "engine/render/json_writer.hpp"
#include "engine/render/render.hpp"
#include "engine/run.hpp"
#include "lang/catalogue.hpp"
#include "lang/parse.hpp"
#include "lang/zoo_variant.hpp"

#include <CLI/CLI.hpp>

#include <cctype>
#include <exception>
#include <filesystem>
#include <iostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace ridge;
using Files = std::vector<std::pair<std::string, std::string>>;   // (path or "-", contents)

// Every input and output path, resolved and checked: outputs are never an input, never one file
// twice; `-` is standard output for -o, and for one of --svg / --trace when -o takes the report.
struct Paths {
  std::vector<std::string> extra_networks;
  std::vector<engine::io::NamedPath> inputs;
  bool report_to_stdout = true;
};

Paths resolve_paths(simulate::CommandLine& c) {
  Paths p;
  p.extra_networks = simulate::take_networks(c.devices);
  if (c.devices.empty()) throw std::invalid_argument("no device file (.hw) given");
  // Zoo and catalogue names become paths first, so the identity checks see the real files.
  c.network = lang::resolve_network_path(c.network);
  for (std::string& d : c.devices) d = lang::resolve_device_path(d);
  for (std::string& n : p.extra_networks) n = lang::resolve_network_path(n);
  p.inputs.push_back({"network", c.network});
  for (const std::string& n : p.extra_networks) p.inputs.push_back({"network", n});
  for (const std::string& d : c.devices) p.inputs.push_back({"device file", d});
  if (!c.report.measured.empty()) p.inputs.push_back({"--measured file", c.report.measured});
  p.report_to_stdout = c.output.empty() || c.output == "-";
  std::vector<engine::io::NamedPath> outputs;
  if (!p.report_to_stdout) outputs.push_back({"-o", c.output});
  if (!c.emit_net.empty()) outputs.push_back({"--emit-net", c.emit_net});
  if (!c.report.svg.empty()) outputs.push_back({"--svg", c.report.svg});
  if (!c.report.trace.empty()) outputs.push_back({"--trace", c.report.trace});
  int to_stdout = p.report_to_stdout ? 1 : 0;
  for (const auto& [what, path] : outputs)
    if (path == "-" && ++to_stdout > 1)
      throw std::invalid_argument(what + " -: standard output already carries " +
                                  (p.report_to_stdout ? "the report; give -o FILE for it" : "another output"));
  engine::io::check_outputs(p.inputs, outputs);
  return p;
}

// The network, the devices and the further networks, loaded. A further network that declares a name
// already taken is kept apart: it takes its file's name, then a count.
simulate::RunInputs load_inputs(const simulate::CommandLine& c, const Paths& p, std::vector<std::string>& free_nodes) {
  simulate::RunInputs in = simulate::load_run_network(c.network, simulate::overrides(c), {.dims = {}, .allow_unknown = c.allow_unknown, .batch_axis = c.batch_axis, .buffers = {}}, &free_nodes);
  for (const std::string& d : c.devices) in.devices.push_back(lang::load_device(d));
  in.device_files = c.devices;
  std::set<std::string> taken{in.network->name};
  for (const std::string& path : p.extra_networks) {
    ir::Network net = lang::load_network(path);
    if (taken.count(net.name)) {
      const std::string base = net.name + " (" + std::filesystem::path(path).filename().string() + ")";
      net.name = base;
      for (int k = 2; taken.count(net.name); ++k) net.name = base + " #" + std::to_string(k);
    }
    taken.insert(net.name);
    in.correlate.push_back(std::make_shared<const ir::Network>(std::move(net)));
  }
  return in;
}

// How the chosen format shapes the output; refuses what it cannot show.
engine::render::FormatOptions format_options(const simulate::CommandLine& c, const engine::Plan& plan,
                                              const engine::render::Format& format) {
  engine::render::FormatOptions shape;
  shape.pass = c.run.pass == "forward"    ? engine::render::PassView::Forward
               : c.run.pass == "backward" ? engine::render::PassView::Backward
                                          : engine::render::PassView::Train;
  shape.wide = c.wide;
  if (plan.parallel && !c.report.svg.empty())
    throw std::invalid_argument("--svg draws one device's roofline; a parallel strategy has --trace");
  if (c.run.measured && c.report.svg.empty()) {
    // Measured times sit beside one report's predictions (in every format), or on the rooflines.
    if (!plan.measured)
      throw std::invalid_argument("--measured pairs measured times with the predictions of one report (one device, batch "
                                  "and dtype), or puts them on the --svg rooflines");
    if (plan.breakdown && format.name == "table")
      throw std::invalid_argument("--measured puts measured times beside the predictions in the table, which --depth and "
                                  "--top replace; CSV and JSON carry both");
  }
  if (!plan.explain.empty() && format.name != "table")
    throw std::invalid_argument("--explain prints one layer's derivation as text: it takes the table format");
  return shape;
}

// Everything computed: write every file to a temporary, then rename them all; an error before the
// commit leaves every previous file as it was and no temporary behind. Standard output last.
void write(Files files, std::string stdout_text) {
  engine::io::AtomicFiles batch;
  for (auto& [path, contents] : files) {
    if (path == "-") stdout_text = std::move(contents);
    else batch.add(path, contents);
  }
  batch.commit();
  std::cout << stdout_text << std::flush;
  if (!std::cout) throw std::runtime_error("cannot write to standard output");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Simulate a network (.net) on devices (.hw): per-layer FLOPs, bytes, roofline and predicted times"};
  simulate::CommandLine line;
  simulate::add_options(app, line);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  try {
    // Parse and plan.
    simulate::finish(line);
    simulate::check(line.run);
    const Paths paths = resolve_paths(line);
    std::vector<std::string> free_nodes;   // .onnx nodes counted as free (--allow-unknown)
    engine::Plan plan = simulate::plan_run(load_inputs(line, paths, free_nodes), line.run);
    // A deployment's figures need its every iteration, which a run keeps only when asked.
    if (plan.serving) plan.serving->record = !line.report.svg.empty() || !line.report.trace.empty();
    // Every line on standard error is a Note, printed one way (engine/note.hpp).
    std::vector<engine::Note> imported;
    for (const std::string& node : free_nodes)
      imported.push_back(engine::warning("onnx-free-node", "counted as free (--allow-unknown): " + node));
    for (const engine::Note& n : imported) std::cerr << "simulate: " << engine::as_message(n) << '\n';
    const engine::render::Format& format = *engine::render::format_named(line.format);
    engine::render::FormatOptions shape = format_options(line, plan, format);

    // Run.
    const engine::Results results = engine::run(plan);

    // Render every file the run makes before any is written: the report (-o), the figures, the .net text.
    const simulate::Figures figures = simulate::figures(line.report, results, plan.devices,
                                                               line.run.measured.value_or(std::vector<engine::Measurement>{}));
    Files files = figures.files;
    if (!line.emit_net.empty()) {
      // An imported model that is a zoo architecture is written as an import of it and one line; any
      // other network, every layer.
      std::optional<std::string> variant;
      if (lang::is_onnx_path(line.network)) variant = lang::zoo_variant_text(*plan.network, line.emit_net);
      files.emplace_back(line.emit_net, variant ? *variant : lang::to_net_text(*plan.network));
    }
    for (const auto& f : files) shape.files.push_back(f.first == "-" ? "standard output" : f.first);
    shape.notes = figures.notes;
    shape.notes.insert(shape.notes.end(), imported.begin(), imported.end());
    engine::render::Output rendered = format.render(results, shape);
    // Further tables beside the report, named after it (-o r.csv: r-scaling.csv) and on standard error;
    // with the report on standard output there is no name to give them, and no file is written that
    // the user did not name.
    std::vector<engine::Note> messages;
    std::string format_label(format.name);
    for (char& ch : format_label) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    const std::filesystem::path out(line.output);
    for (auto& [name, contents] : rendered.side) {
      if (paths.report_to_stdout) {
        messages.push_back(engine::note("run-side-table-left-out",
                                        "the " + name + " table (" + format_label + ") is left out: give -o FILE for FILE-" + name +
                                            std::string(format.extension) + " beside the report, or --format json, which holds every table"));
        continue;
      }
      const std::string path = (out.parent_path() / out.stem()).string() + "-" + name + std::string(format.extension);
      messages.push_back(engine::note("run-wrote-side-table", "wrote the " + name + " table (" + format_label + "): " + path));
      files.emplace_back(path, std::move(contents));
    }
    if (!paths.report_to_stdout) files.emplace(files.begin(), line.output, rendered.text);
    // Again over every file the run makes, the figures named from the --svg stem included.
    std::vector<engine::io::NamedPath> made;
    for (const auto& f : files)
      if (f.first != "-") made.push_back({"output", f.first});
    engine::io::check_outputs(paths.inputs, made);

    // Write.
    write(std::move(files), paths.report_to_stdout ? std::move(rendered.text) : std::string());
    for (const engine::Note& m : messages) std::cerr << "simulate: " << engine::render::printable(engine::as_message(m)) << '\n';
    return 0;
  } catch (const ridge::lang::Error& e) {
    std::cerr << e.what();
    if (std::string_view(e.what()).empty() || std::string_view(e.what()).back() != '\n') std::cerr << '\n';
  } catch (const std::exception& e) {
    std::cerr << "simulate: error: " << e.what() << '\n';
  }
  return 1;
}
