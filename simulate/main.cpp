// simulate: a network and one or more devices in, a report out.
//   simulate NET HW... [--batch N|N,N,...] [--dtype fp32] [--set name=value]... [--format table|csv|json]
//                      [--pass forward|backward|train] [-o FILE]
//                      [--svg FILE] [--trace FILE] [--devices N] [--link L] [--scaling strong|weak] [--overlap]
//                      [--dataset-size N] [--measured CSV]       (report_options.hpp)
//                      [--tensor-parallel T --pipeline-parallel P --data-parallel D ... | --search]
//                                                                 (parallel_options.hpp)
// More than one .net: the first is reported on, all are ranked against each other (Spearman).
// One device and one batch give the per-layer report; several give the comparison (device x batch).
// Errors go to stderr with a non-zero exit; with -o nothing is written unless everything succeeded.
//
// The program is the thin part: it turns the command line into an engine::Plan, engine::run() computes
// the Results, renderers turn them into text and figures, and the files are written last, all or none.
#include "simulate/parallel_options.hpp"
#include "simulate/report_options.hpp"

#include "engine/io/atomic_file.hpp"
#include "engine/io/output_safety.hpp"
#include "engine/render/formats.hpp"
#include "engine/render/json_writer.hpp"
#include "engine/render/render.hpp"
#include "engine/run.hpp"
#include "lang/catalogue.hpp"
#include "lang/parse.hpp"
#include "lang/suggest.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <optional>
#include <set>
#include <tuple>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include <sys/stat.h>

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
  std::string optimizer = "sgd", recompute = "none", weights, kernel_model = "micro", explain;
  bool no_master_weights = false;
  std::int64_t seq_len = 0, prompt = 0, generate = 0;
  std::vector<std::string> dims;   // .onnx: symbolic dimensions
  bool allow_unknown = false;
  std::string emit_net;
  int depth = 0;
  bool wide = false;
  app.add_option("network", net_path, "network file (.net, or an .onnx model)")->required();
  app.add_option("devices", hw_paths, "device files (.hw)")->required();
  app.add_option("-b,--batch", batch_text, "batch size, or a comma-separated list (1,8,64,256)");
  app.add_option("-d,--dtype", dtype, "precision (" + ir::precision_names(" ") + "), or a comma-separated list (fp32,fp16)");
  app.add_option("-s,--set", sets, "override a network parameter: name=value");
  std::vector<std::string> format_names;
  for (const engine::render::Format& f : engine::render::formats()) format_names.emplace_back(f.name);
  app.add_option("-f,--format", format, "output format")->check(CLI::IsMember(format_names));
  app.add_option("-p,--pass", pass, "which pass the table shows")->check(CLI::IsMember({"forward", "backward", "train"}));
  app.add_flag("--wide", wide, "the table shows bytes, arithmetic intensity and roofline time of every pass (over 200 columns)");
  app.add_option("--depth", depth, "the table sums layers per block, N levels of their dotted names deep (layer1.bottleneck1: 2)")
      ->check(CLI::Range(1, 64));
  app.add_option("-o,--output", output, "write to FILE (atomically) instead of stdout");
  app.add_option("--seq-len", seq_len, "tokens per sample: sets the network's seq_len parameter")->check(CLI::Range(1, 1 << 20));
  app.add_option("--optimizer", optimizer, "training optimizer: sgd (with momentum), adam, adamw")
      ->check(CLI::IsMember({"sgd", "adam", "adamw"}));
  app.add_option("--recompute", recompute, "activation recomputation: none, selective (attention), full")
      ->check(CLI::IsMember({"none", "selective", "full"}));
  app.add_flag("--no-master-weights", no_master_weights,
               "below fp32, train without the fp32 master weights and fp32 optimizer states of mixed precision");
  app.add_option("--kernel-model", kernel_model,
                 "GPU kernel time: micro (tiles and waves from the .hw's arch.* facts, where it gives them) or flat (one PPP per op class)")
      ->check(CLI::IsMember({"micro", "flat"}));
  app.add_option("--explain", explain, "print how one layer's time is derived (its GEMMs' tiles, waves, limits; or PALEO's terms)");
  app.add_option("--weights", weights, "weight-only quantisation for inference: int8 or int4 (compute stays in --dtype)")
      ->check(CLI::IsMember({"int8", "int4"}));
  app.add_option("--prompt", prompt, "decoder inference: prompt tokens prefilled (with --generate)")->check(CLI::Range(1, 1 << 20));
  app.add_option("--generate", generate, "decoder inference: tokens generated one at a time against the KV cache")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--dim", dims, "bind a symbolic dimension of an .onnx model: NAME=VALUE");
  app.add_flag("--allow-unknown", allow_unknown, ".onnx: count nodes of ops Ridge cannot model as free (listed on stderr)");
  app.add_option("--emit-net", emit_net, "also write the network as .net text to FILE (an imported .onnx, for one)");
  simulate::ReportOptions report_options;
  simulate::add_report_options(app, report_options);
  simulate::ParallelOptions parallel_options;
  simulate::add_parallel_options(app, parallel_options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  try {
    const std::vector<std::int64_t> batches = parse_batches(batch_text);
    const std::vector<ir::Precision> precisions = simulate::parse_precisions(dtype);
    std::vector<std::string> extra_networks = simulate::take_networks(hw_paths);
    if (hw_paths.empty()) throw UsageError("no device file (.hw) given");
    // Each simulation keeps a per-layer report until the comparison is rendered: cap their number so a
    // long --batch list (the command line allows ~65,000 items) cannot run memory away.
    using engine::kMaxSimulations;
    const std::size_t nets = 1 + extra_networks.size();
    if (nets * hw_paths.size() * precisions.size() * batches.size() > kMaxSimulations)
      throw UsageError(std::to_string(nets) + " networks x " + std::to_string(hw_paths.size()) + " devices x " +
                       std::to_string(precisions.size()) + " dtypes x " + std::to_string(batches.size()) +
                       " batches is more than the " + std::to_string(kMaxSimulations) + " simulations one run may ask for");
    // Zoo and catalogue names become paths first, so the identity checks below see the real files.
    net_path = lang::resolve_network_path(net_path);
    for (std::string& p : hw_paths) p = lang::resolve_device_path(p);
    for (std::string& p : extra_networks) p = lang::resolve_network_path(p);
    // Outputs: never an input, never one file twice; `-` is standard output for -o, and for one of
    // --svg / --trace when -o takes the report.
    std::vector<engine::io::NamedPath> inputs{{"network", net_path}}, outputs;
    for (const std::string& p : extra_networks) inputs.push_back({"network", p});
    for (const std::string& p : hw_paths) inputs.push_back({"device file", p});
    if (!report_options.measured.empty()) inputs.push_back({"--measured file", report_options.measured});
    const bool report_to_stdout = output.empty() || output == "-";
    if (!report_to_stdout) outputs.push_back({"-o", output});
    if (!emit_net.empty()) outputs.push_back({"--emit-net", emit_net});
    if (!report_options.svg.empty()) outputs.push_back({"--svg", report_options.svg});
    if (!report_options.trace.empty()) outputs.push_back({"--trace", report_options.trace});
    int to_stdout = report_to_stdout ? 1 : 0;
    for (const auto& [what, path] : outputs)
      if (path == "-" && ++to_stdout > 1)
        throw UsageError(what + " -: standard output already carries " + (report_to_stdout ? "the report; give -o FILE for it"
                                                                                            : "another output"));
    engine::io::check_outputs(inputs, outputs);

    lang::Overrides overrides = lang::parse_overrides(sets, "--set");
    overrides.merge(lang::parse_overrides(dims, "--dim"));
    if (seq_len > 0) overrides["seq_len"] = std::to_string(seq_len);
    if ((prompt > 0) != (generate > 0)) throw UsageError("--prompt and --generate go together");
    if (prompt > 0) overrides["seq_len"] = std::to_string(prompt);
    if (prompt > 0 && lang::is_onnx_path(net_path))
      throw UsageError("--prompt/--generate need a .net with a `past` parameter (a KV cache); an .onnx graph has none");
    std::vector<std::string> free_nodes;   // .onnx nodes counted as free (--allow-unknown)
    engine::Plan plan;
    // Made in place: copying the network (Llama-2-70B's 1,444 layers) cost as much as simulating it.
    plan.network = std::make_shared<const ir::Network>([&] {
      if (!lang::is_onnx_path(net_path)) return lang::load_network(net_path, overrides);
      lang::OnnxOptions o = lang::onnx_options(overrides, net_path);
      o.allow_unknown = allow_unknown;
      lang::OnnxImport imported = lang::load_onnx(net_path, o);
      free_nodes = std::move(imported.free_nodes);
      return std::move(imported.network);
    }());
    const ir::Network& network = *plan.network;
    for (const std::string& node : free_nodes) std::cerr << "simulate: note: counted as free (--allow-unknown): " << node << '\n';
    plan.device_files = hw_paths;
    plan.precisions = precisions;
    plan.batches = batches;
    for (const std::string& p : hw_paths) {
      plan.devices.push_back(lang::load_device(p));
      // Two .hw files with one stem (a/t4.hw, b/t4.hw) are two devices: the later gets "-2", "-3", so
      // rows, lookups and figure names (FILE-roofline-ID-...) stay apart.
      ir::Device& d = plan.devices.back();
      const std::string base = d.id;
      for (int k = 2;; ++k) {
        bool taken = false;
        for (std::size_t j = 0; j + 1 < plan.devices.size(); ++j) taken = taken || plan.devices[j].id == d.id;
        if (!taken) break;
        d.id = base + "-" + std::to_string(k);
      }
    }
    const std::vector<ir::Device>& devices = plan.devices;

    engine::Options& setup = plan.options;
    setup.optimizer = *engine::optimizer_from_name(optimizer);
    setup.recompute = *engine::recompute_from_name(recompute);
    setup.kernel_model = *engine::kernel_model_from_name(kernel_model);
    if (no_master_weights) setup.master_weights = false;
    if (!weights.empty()) setup.weight_bytes = weights == "int8" ? 1.0 : 0.5;

    if (parallel_options.requested()) {
      // A parallel strategy or a search: its plan is the report.
      if (devices.size() != 1 || precisions.size() != 1 || batches.size() != 1 || !extra_networks.empty() || prompt > 0)
        throw UsageError("a parallel strategy or --search takes one network, one device file, one --dtype and one --batch");
      if (!report_options.svg.empty()) throw UsageError("--svg draws one device's roofline; a parallel strategy has --trace");
      setup.precision = precisions.front();
      const simulate::ParallelContext context{batches.front(), report_options.devices, report_options.link,
                                              report_options.overlap, format};
      std::string trace;
      std::string text = simulate::run_parallel(parallel_options, context, network, devices.front(), setup,
                                                report_options.trace.empty() ? nullptr : &trace);
      if (format == "table") text = engine::render::printable(text, "\t\n");
      // Every file together, as below: all or none.
      engine::io::AtomicFiles files;
      std::string stdout_text = report_to_stdout ? std::move(text) : std::string();
      if (!report_to_stdout) files.add(output, text);
      if (report_options.trace == "-") stdout_text = std::move(trace);
      else if (!report_options.trace.empty()) files.add(report_options.trace, trace);
      files.commit();
      std::cout << stdout_text << std::flush;
      if (!std::cout) throw std::runtime_error("cannot write to standard output");
      return 0;
    }

    if (prompt > 0) {
      // Inference phases: the network elaborated per phase with its seq_len and past parameters.
      plan.prompt = prompt;
      plan.generate = generate;
      plan.network_at = [&](std::int64_t tokens, std::int64_t past) {
        lang::Overrides o = overrides;
        o["seq_len"] = std::to_string(tokens);
        o["past"] = std::to_string(past);
        return lang::load_network(net_path, o);
      };
    } else {
      plan.scaling = simulate::scaling_plan(report_options);
      // Further networks are ranked against the main one; one that declares a name already taken is
      // kept apart: it takes its file's name, then a count.
      std::set<std::string> taken{network.name};
      for (const std::string& path : extra_networks) {
        ir::Network net = lang::load_network(path);
        if (taken.count(net.name)) {
          const std::string base = net.name + " (" + std::filesystem::path(path).filename().string() + ")";
          net.name = base;
          for (int k = 2; taken.count(net.name); ++k) net.name = base + " #" + std::to_string(k);
        }
        taken.insert(net.name);
        plan.correlate.push_back(std::make_shared<const ir::Network>(std::move(net)));
      }
    }

    const engine::render::Format& chosen = *engine::render::format_named(format);
    engine::render::FormatOptions shape;
    shape.pass = pass == "forward"    ? engine::render::PassView::Forward
                 : pass == "backward" ? engine::render::PassView::Backward
                                      : engine::render::PassView::Train;
    shape.wide = wide;
    shape.depth = depth;
    shape.top = static_cast<std::size_t>(parallel_options.top);
    const bool one_report = batches.size() * precisions.size() * devices.size() == 1 && prompt == 0;
    if ((depth > 0 || shape.top > 0) && (!chosen.shapes_rows || !one_report))
      throw std::invalid_argument(!chosen.shapes_rows
                                      ? "--depth and --top shape the table; CSV and JSON carry every layer by its dotted name"
                                      : "--depth and --top show one report: give one device, batch and dtype");
    if (!report_options.measured.empty() && report_options.svg.empty() &&
        (!chosen.shapes_rows || !one_report || depth > 0 || shape.top > 0))
      throw std::invalid_argument("--measured puts measured times beside the predictions of one report in the table "
                                  "(one device, batch and dtype, no --depth or --top), or on the --svg roofline");
    // Read once, before anything is simulated: the table and the rooflines both show them.
    const std::vector<engine::Measurement> measured =
        report_options.measured.empty() ? std::vector<engine::Measurement>{} : simulate::load_measurements(report_options.measured);
    if (!report_options.measured.empty() && chosen.shapes_rows && one_report && depth == 0 && shape.top == 0)
      shape.measured = measured;

    if (!explain.empty()) {
      // The layer must exist, by its full dotted name; a near miss is suggested.
      std::vector<std::string> names;
      for (const ir::Layer& l : network.layers) names.push_back(l.name);
      if (std::find(names.begin(), names.end(), explain) == names.end()) {
        const std::string hint = lang::closest_name(explain, names);
        throw std::invalid_argument("--explain: network '" + network.name + "' has no layer named '" + explain + "'" +
                                    (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
      }
      if (format != "table" || prompt > 0 || !plan.correlate.empty())
        throw std::invalid_argument("--explain prints one layer's derivation as text: it takes the table format, "
                                    "and neither --prompt nor further networks");
      plan.explain = explain;
    }
    const engine::Results results = engine::run(plan);
    const simulate::Figures figures = simulate::figures(report_options, results, devices, measured);

    // Every file the run makes, rendered before any is written: the report (-o), its side tables,
    // the figures, the .net text.
    std::vector<std::pair<std::string, std::string>> files = figures.files;
    if (!emit_net.empty()) files.emplace_back(emit_net, lang::to_net_text(network));
    for (const auto& f : files) shape.files.push_back(f.first == "-" ? "standard output" : f.first);
    shape.notes = figures.notes;
    for (const std::string& node : free_nodes) shape.notes.push_back("note: counted as free (--allow-unknown): " + node);
    engine::render::Output rendered = chosen.render(results, shape);
    std::string text = std::move(rendered.text);
    // Further tables beside the report (-o r.csv: r-scaling.csv; standard output: NETWORK-scaling.csv),
    // named on standard error.
    std::vector<std::string> messages;
    const std::filesystem::path out(output);
    const std::filesystem::path stem = report_to_stdout ? std::filesystem::path(network.name) : out.parent_path() / out.stem();
    std::string format_label(chosen.name);
    for (char& c : format_label) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    for (auto& [name, contents] : rendered.side) {
      const std::string path = stem.string() + "-" + name + std::string(chosen.extension);
      messages.push_back("the " + name + " table (" + format_label + "): " + path);
      files.emplace_back(path, std::move(contents));
    }
    if (!report_to_stdout) files.emplace(files.begin(), output, std::move(text));
    // Again over every file the run makes, the figures named from the --svg stem included.
    std::vector<engine::io::NamedPath> made;
    for (const auto& f : files)
      if (f.first != "-") made.push_back({"output", f.first});
    engine::io::check_outputs(inputs, made);
    // Everything computed: write every file to a temporary, then rename them all; an error before the
    // commit leaves every previous file as it was and no temporary behind.
    engine::io::AtomicFiles batch;
    std::string stdout_text = report_to_stdout ? std::move(text) : std::string();
    for (auto& [path, contents] : files) {
      if (path == "-") stdout_text = std::move(contents);
      else batch.add(path, contents);
    }
    batch.commit();
    for (const std::string& m : messages) std::cerr << "simulate: wrote " << engine::render::printable(m) << '\n';
    std::cout << stdout_text << std::flush;
    if (!std::cout) throw std::runtime_error("cannot write to standard output");
    return 0;
  } catch (const ridge::lang::Error& e) {
    std::cerr << e.what();
    if (std::string_view(e.what()).empty() || std::string_view(e.what()).back() != '\n') std::cerr << '\n';
  } catch (const std::exception& e) {
    std::cerr << "simulate: error: " << e.what() << '\n';
  }
  return 1;
}
