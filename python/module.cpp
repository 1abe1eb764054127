// ridge._ridge: the C++ engine for Python (pybind11). The Pythonic API is python/ridge/__init__.py;
// this module only carries the engine's objects across: networks and devices loaded from files or
// text, an ONNX model from bytes, one engine::run() with the GIL released, and its tables (the one
// output schema, engine/render/schema.hpp) as columns Python turns into lists or DataFrames.
#include "engine/host_allocator.hpp"
#include "engine/render/formats.hpp"
#include "engine/render/render.hpp"
#include "engine/render/schema.hpp"
#include "engine/run.hpp"
#include "lang/catalogue.hpp"
#include "lang/ir/ops.hpp"
#include "lang/parse.hpp"
#include "simulate/run_options.hpp"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace py = pybind11;
using namespace ridge;

namespace {

// Networks and devices are shared, immutable: one loaded network serves any number of runs.
struct Network {
  std::shared_ptr<const ir::Network> ir;
  engine::NetworkAt at;                  // elaborated again at (seq_len, past) for prompt=/generate=
  std::vector<std::string> free_nodes;   // ONNX nodes counted as free (allow_unknown)
};
struct Device {
  std::shared_ptr<const ir::Device> ir;
  std::string file;
};
struct RunResults {
  engine::Results results;
};

// A cell as the Python value it stands for: None, bool, int, float, str, or a list of ints (a shape).
py::object to_python(const engine::render::Cell& c) {
  return std::visit(
      [](const auto& v) -> py::object {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) return py::none();
        else return py::cast(v);
      },
      c);
}

// {"columns": [...], "data": [[column 0 values], [column 1 values], ...]}: column-major, as pandas
// builds a DataFrame fastest.
py::dict table_columns(const engine::render::Table& t) {
  py::list data;
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    py::list column(t.rows.size());
    for (std::size_t r = 0; r < t.rows.size(); ++r) column[r] = to_python(t.rows[r][c]);
    data.append(std::move(column));
  }
  py::dict out;
  out["name"] = t.name;
  out["columns"] = t.columns;
  out["data"] = std::move(data);
  return out;
}

// One run: the same plan simulate makes from its command line (simulate/run_options.hpp), so the
// rules and their messages are the program's.
RunResults run(const Network& network, const std::vector<Device>& devices, const std::vector<Network>& correlate,
               const simulate::RunOptions& options) {
  simulate::RunInputs in;
  in.network = network.ir;
  in.network_at = network.at;
  for (const Device& d : devices) {
    in.devices.push_back(*d.ir);
    in.device_files.push_back(d.file);
  }
  for (const Network& n : correlate) in.correlate.push_back(n.ir);
  return {engine::run(simulate::plan_run(std::move(in), options))};
}

}  // namespace

PYBIND11_MODULE(_ridge, m) {
  m.doc() = "Ridge's engine (C++): use the ridge package, not this module";

  // lang::Error carries the whole diagnostic (file:line:col, the line, a caret, what was expected);
  // engine::SimulationError what the model refuses. Both become ridge.RidgeError (a ValueError).
  static py::exception<lang::Error> ridge_error(m, "RidgeError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const lang::Error& e) {
      std::string text = e.what();
      while (!text.empty() && text.back() == '\n') text.pop_back();
      ridge_error(text.c_str());
    } catch (const engine::SimulationError& e) {
      ridge_error(e.what());
    } catch (const std::invalid_argument& e) {
      ridge_error(e.what());
    }
  });

  py::class_<Network>(m, "Network")
      .def_property_readonly("name", [](const Network& n) { return n.ir->name; })
      .def_property_readonly("layer_count", [](const Network& n) { return n.ir->layers.size(); })
      .def_property_readonly("free_nodes", [](const Network& n) { return n.free_nodes; })
      // The learned values the network holds (a tied layer's counted once), as simulate's `params`.
      .def_property_readonly("parameters",
                             [](const Network& n) {
                               std::int64_t total = 0;
                               for (const ir::Layer& l : n.ir->layers) total += ir::parameter_count(l, ir::input_shapes(*n.ir, l));
                               return total;
                             })
      .def("to_net_text", [](const Network& n) { return lang::to_net_text(*n.ir); });
  py::class_<Device>(m, "Device")
      .def_property_readonly("id", [](const Device& d) { return d.ir->id; })
      .def_property_readonly("name", [](const Device& d) { return d.ir->name; })
      .def_property_readonly("count", [](const Device& d) { return d.ir->count; });
  py::class_<RunResults>(m, "Results")
      .def("table", [](const RunResults& r, const std::string& name) { return table_columns(engine::render::table(r.results, name)); })
      .def("json", [](const RunResults& r) { return engine::render::json(r.results); })
      .def("text", [](const RunResults& r) { return engine::render::table_format(r.results, {}).text; })
      .def("csv", [](const RunResults& r, const std::string& name) { return engine::render::csv(engine::render::table(r.results, name)); })
      .def_property_readonly("run_count", [](const RunResults& r) { return r.results.reports.size(); })
      .def_property_readonly("parallel", [](const RunResults& r) { return r.results.parallel.has_value(); });

  // Measured layer times, as simulate --measured reads them: from a CSV, or from (layer, pass, seconds).
  py::class_<engine::Measurement>(m, "Measurement");
  m.def("load_measurements", &simulate::load_measurements, py::arg("path"));
  m.def("measurements", [](const std::vector<std::tuple<std::string, std::string, double>>& rows) {
        std::vector<engine::Measurement> out;
        for (const auto& [layer, which, seconds] : rows) {
          const auto pass = ir::pass_from_name(which);
          if (!pass || *pass == ir::Pass::ForwardTrain || !(seconds > 0))
            throw std::invalid_argument("measured: (" + layer + ", " + which + ", " + std::to_string(seconds) +
                                        ") is not a layer, forward or backward, and a time above 0");
          out.push_back({layer, *pass, seconds});
        }
        return out;
      }, py::arg("rows"));
  // glibc's main arena (engine/host_allocator.hpp) for validate/scripts/alloc_trace.py, which replays
  // the requests a traced Python step made: ("a", block, bytes) or ("f", block, 0), in order. The
  // fresh bytes of each of `steps` replays from an empty heap.
  m.def("replay_host_requests", [](const std::vector<std::tuple<std::string, std::size_t, double>>& requests, int steps,
                                   double mmap_threshold_max) {
        std::vector<engine::HostRequest> in;
        in.reserve(requests.size());
        for (const auto& [op, block, bytes] : requests) {
          if (op != "a" && op != "f") throw std::invalid_argument("replay_host_requests: op '" + op + "' is neither \"a\" nor \"f\"");
          in.push_back({op == "a", block, bytes, 0});
        }
        std::vector<double> totals;
        for (const std::vector<double>& step : engine::replay_fresh_bytes(in, 1, mmap_threshold_max, steps)) totals.push_back(step.front());
        return totals;
      }, py::arg("requests"), py::arg("steps") = 8, py::arg("mmap_threshold_max") = 32.0 * 1024 * 1024);
  m.attr("schema") = std::string(engine::render::kSchema);
  m.attr("max_batch") = engine::kMaxBatch;
  m.def("device_counts_up_to", &engine::device_counts_up_to, py::arg("n"));
  m.def("resolve_network_path", &lang::resolve_network_path, py::arg("name"));
  m.def("resolve_device_path", &lang::resolve_device_path, py::arg("name"));

  // Loading parses and elaborates in C++ only: the GIL is released.
  m.def("load_network", [](const std::string& path, const lang::Overrides& overrides) {
        py::gil_scoped_release free;
        simulate::RunInputs in = simulate::load_run_network(path, overrides);
        return Network{std::move(in.network), std::move(in.network_at), {}};
      }, py::arg("path"), py::arg("overrides") = lang::Overrides{});
  m.def("parse_network", [](const std::string& text, const std::string& file, const lang::Overrides& overrides) {
        py::gil_scoped_release free;
        auto at = simulate::network_at([text, file](const lang::Overrides& o) { return lang::parse_network(text, file, o); },
                                       overrides);
        return Network{std::make_shared<const ir::Network>(lang::parse_network(text, file, overrides)), std::move(at), {}};
      }, py::arg("text"), py::arg("file") = "<text>", py::arg("overrides") = lang::Overrides{});
  m.def("parse_onnx", [](const py::bytes& bytes, const std::string& file, const std::map<std::string, std::int64_t>& dims,
                         bool allow_unknown, int batch_axis, const std::set<std::string>& buffers) {
        std::string data = bytes;   // copied while the GIL is held
        py::gil_scoped_release free;
        lang::OnnxOptions o;
        o.dims = dims;
        o.allow_unknown = allow_unknown;
        o.batch_axis = batch_axis;
        o.buffers = buffers;
        lang::OnnxImport imported = lang::parse_onnx(data, file, o);
        return Network{std::make_shared<const ir::Network>(std::move(imported.network)), {}, std::move(imported.free_nodes)};
      }, py::arg("data"), py::arg("file") = "<onnx>", py::arg("dims") = std::map<std::string, std::int64_t>{},
      py::arg("allow_unknown") = false, py::arg("batch_axis") = 0, py::arg("buffers") = std::set<std::string>{});
  m.def("load_device", [](const std::string& path) {
        py::gil_scoped_release free;
        return Device{std::make_shared<const ir::Device>(lang::load_device(path)), path};
      }, py::arg("path"));
  m.def("parse_device", [](const std::string& text, const std::string& file) {
        py::gil_scoped_release free;
        return Device{std::make_shared<const ir::Device>(lang::parse_device(text, file)), file};
      }, py::arg("text"), py::arg("file") = "<text>.hw");

  // simulate's options by their program names (--tensor-parallel is tensor_parallel).
  using simulate::RunOptions;
  py::class_<RunOptions>(m, "RunOptions")
      .def(py::init<>())
      .def_readwrite("batch", &RunOptions::batch)
      .def_readwrite("dtype", &RunOptions::dtype)
      .def_readwrite("optimizer", &RunOptions::optimizer)
      .def_readwrite("recompute", &RunOptions::recompute)
      .def_readwrite("master_weights", &RunOptions::master_weights)
      .def_readwrite("kernel_model", &RunOptions::kernel_model)
      .def_readwrite("weights", &RunOptions::weights)
      .def_readwrite("sparsity", &RunOptions::sparsity)
      .def_readwrite("memory_format", &RunOptions::memory_format)
      .def_readwrite("prompt", &RunOptions::prompt)
      .def_readwrite("generate", &RunOptions::generate)
      .def_readwrite("explain", &RunOptions::explain)
      .def_readwrite("depth", &RunOptions::depth)
      .def_readwrite("top", &RunOptions::top)
      .def_readwrite("pass_", &RunOptions::pass)
      .def_readwrite("measured", &RunOptions::measured)
      .def_readwrite("layers", &RunOptions::layers)
      .def_readwrite("devices", &RunOptions::devices)
      .def_readwrite("devices_up_to", &RunOptions::devices_up_to)
      .def_readwrite("link", &RunOptions::link)
      .def_readwrite("scaling", &RunOptions::scaling)
      .def_readwrite("overlap", &RunOptions::overlap)
      .def_readwrite("dataset_size", &RunOptions::dataset_size)
      .def_readwrite("tensor_parallel", &RunOptions::tensor_parallel)
      .def_readwrite("pipeline_parallel", &RunOptions::pipeline_parallel)
      .def_readwrite("data_parallel", &RunOptions::data_parallel)
      .def_readwrite("micro_batch", &RunOptions::micro_batch)
      .def_readwrite("global_batch", &RunOptions::global_batch)
      .def_readwrite("interleave", &RunOptions::interleave)
      .def_readwrite("sequence_parallel", &RunOptions::sequence_parallel)
      .def_readwrite("zero", &RunOptions::zero)
      .def_readwrite("search", &RunOptions::search)
      .def_readwrite("top", &RunOptions::top)
      .def_readwrite("max_micro_batch", &RunOptions::max_micro_batch)
      .def_readwrite("serve", &RunOptions::serve)
      .def_readwrite("rate", &RunOptions::rate)
      .def_readwrite("duration", &RunOptions::duration)
      .def_readwrite("prompt_tokens", &RunOptions::prompt_tokens)
      .def_readwrite("output_tokens", &RunOptions::output_tokens)
      .def_readwrite("seed", &RunOptions::seed)
      .def_readwrite("slo_ttft", &RunOptions::slo_ttft)
      .def_readwrite("slo_tpot", &RunOptions::slo_tpot)
      .def_readwrite("batching", &RunOptions::batching)
      .def_readwrite("max_num_seqs", &RunOptions::max_num_seqs)
      .def_readwrite("max_batched_tokens", &RunOptions::max_batched_tokens)
      .def_readwrite("burstiness", &RunOptions::burstiness)
      .def_readwrite("requests", &RunOptions::requests)
      .def_readwrite("replicas", &RunOptions::replicas)
      .def_readwrite("router", &RunOptions::router)
      .def_readwrite("max_replicas", &RunOptions::max_replicas)
      .def_readwrite("disaggregate", &RunOptions::disaggregate)
      .def_readwrite("runtime", &RunOptions::runtime)
      .def_readwrite("search_shard", &RunOptions::search_shard)
      .def_readwrite("search_shards", &RunOptions::search_shards);
  // The engine runs without the GIL: other Python threads go on meanwhile.
  m.def("run", &run, py::arg("network"), py::arg("devices"), py::arg("correlate"), py::arg("args"),
        py::call_guard<py::gil_scoped_release>());
}
