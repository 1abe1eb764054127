// ridge._ridge: the C++ engine for Python (pybind11). The Pythonic API is python/ridge/__init__.py;
// this module only carries the engine's objects across: networks and devices loaded from files or
// text, an ONNX model from bytes, one engine::run() with the GIL released, and its tables (the one
// output schema, engine/render/schema.hpp) as columns Python turns into lists or DataFrames.
#include "engine/render/render.hpp"
#include "engine/render/schema.hpp"
#include "engine/run.hpp"
#include "lang/catalogue.hpp"
#include "lang/parse.hpp"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace ridge;

namespace {

// Networks and devices are shared, immutable: one loaded network serves any number of runs.
struct Network {
  std::shared_ptr<const ir::Network> ir;
  std::vector<std::string> free_nodes;   // ONNX nodes counted as free (allow_unknown)
};
struct Device {
  std::shared_ptr<const ir::Device> ir;
  std::string file;
};
struct RunResults {
  engine::Results results;
};

ir::Precision precision(const std::string& name) {
  const auto p = ir::precision_from_name(name);
  if (!p) throw std::invalid_argument("dtype: '" + name + "' is not one of " + ir::precision_names());
  return *p;
}

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

struct RunArgs {
  std::vector<std::string> dtypes{"fp32"};
  std::vector<std::int64_t> batches{1};
  std::string optimizer = "sgd";
  std::string recompute = "none";
  std::string kernel_model = "micro";
  std::optional<bool> master_weights;
  std::optional<std::string> weights;   // int8 | int4
  std::vector<int> device_counts;
  std::string link;
  std::string scaling = "strong";
  bool overlap = false;
  std::optional<std::int64_t> dataset_size;
  bool layers = true;
};

RunResults run(const Network& network, const std::vector<Device>& devices, const std::vector<Network>& correlate,
               const RunArgs& a) {
  engine::Plan plan;
  plan.network = network.ir;
  for (const Device& d : devices) {
    plan.devices.push_back(*d.ir);
    plan.device_files.push_back(d.file);
  }
  plan.precisions.clear();
  for (const std::string& d : a.dtypes) plan.precisions.push_back(precision(d));
  plan.batches = a.batches;
  for (const std::int64_t b : a.batches)
    if (b < 1 || b > engine::kMaxBatch)
      throw std::invalid_argument("batch: " + std::to_string(b) + " is not between 1 and " + std::to_string(engine::kMaxBatch));
  const auto optimizer = engine::optimizer_from_name(a.optimizer);
  if (!optimizer) throw std::invalid_argument("optimizer: '" + a.optimizer + "' is not sgd, adam or adamw");
  const auto recompute = engine::recompute_from_name(a.recompute);
  if (!recompute) throw std::invalid_argument("recompute: '" + a.recompute + "' is not none, selective or full");
  plan.options.optimizer = *optimizer;
  const auto kernel_model = engine::kernel_model_from_name(a.kernel_model);
  if (!kernel_model) throw std::invalid_argument("kernel_model: '" + a.kernel_model + "' is not micro or flat");
  plan.options.kernel_model = *kernel_model;
  plan.options.recompute = *recompute;
  plan.options.master_weights = a.master_weights;
  if (a.weights) {
    if (*a.weights != "int8" && *a.weights != "int4") throw std::invalid_argument("weights: '" + *a.weights + "' is not int8 or int4");
    plan.options.weight_bytes = *a.weights == "int8" ? 1.0 : 0.5;
  }
  plan.scaling.device_counts = a.device_counts;
  plan.scaling.link = a.link;
  if (a.scaling != "strong" && a.scaling != "weak") throw std::invalid_argument("scaling: '" + a.scaling + "' is not strong or weak");
  plan.scaling.scaling = a.scaling == "weak" ? engine::Scaling::Weak : engine::Scaling::Strong;
  plan.scaling.overlap = a.overlap;
  plan.scaling.dataset_size = a.dataset_size;
  for (const Network& n : correlate) plan.correlate.push_back(n.ir);
  plan.layers = a.layers;
  return {engine::run(plan)};
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
      .def("to_net_text", [](const Network& n) { return lang::to_net_text(*n.ir); });
  py::class_<Device>(m, "Device")
      .def_property_readonly("id", [](const Device& d) { return d.ir->id; })
      .def_property_readonly("name", [](const Device& d) { return d.ir->name; })
      .def_property_readonly("count", [](const Device& d) { return d.ir->count; });
  py::class_<RunResults>(m, "Results")
      .def("table", [](const RunResults& r, const std::string& name) { return table_columns(engine::render::table(r.results, name)); })
      .def("json", [](const RunResults& r) { return engine::render::json(r.results); })
      .def("csv", [](const RunResults& r, const std::string& name) { return engine::render::csv(engine::render::table(r.results, name)); })
      .def_property_readonly("run_count", [](const RunResults& r) { return r.results.reports.size(); });

  m.attr("schema") = std::string(engine::render::kSchema);
  m.attr("max_batch") = engine::kMaxBatch;
  m.def("device_counts_up_to", &engine::device_counts_up_to, py::arg("n"));
  m.def("resolve_network_path", &lang::resolve_network_path, py::arg("name"));
  m.def("resolve_device_path", &lang::resolve_device_path, py::arg("name"));

  // Loading parses and elaborates in C++ only: the GIL is released.
  m.def("load_network", [](const std::string& path, const lang::Overrides& overrides) {
        py::gil_scoped_release free;
        return Network{std::make_shared<const ir::Network>(lang::load_network(path, overrides)), {}};
      }, py::arg("path"), py::arg("overrides") = lang::Overrides{});
  m.def("parse_network", [](const std::string& text, const std::string& file, const lang::Overrides& overrides) {
        py::gil_scoped_release free;
        return Network{std::make_shared<const ir::Network>(lang::parse_network(text, file, overrides)), {}};
      }, py::arg("text"), py::arg("file") = "<text>", py::arg("overrides") = lang::Overrides{});
  m.def("parse_onnx", [](const py::bytes& bytes, const std::string& file, const std::map<std::string, std::int64_t>& dims,
                         bool allow_unknown) {
        std::string data = bytes;   // copied while the GIL is held
        py::gil_scoped_release free;
        lang::OnnxOptions o;
        o.dims = dims;
        o.allow_unknown = allow_unknown;
        lang::OnnxImport imported = lang::parse_onnx(data, file, o);
        return Network{std::make_shared<const ir::Network>(std::move(imported.network)), std::move(imported.free_nodes)};
      }, py::arg("data"), py::arg("file") = "<onnx>", py::arg("dims") = std::map<std::string, std::int64_t>{},
      py::arg("allow_unknown") = false);
  m.def("load_device", [](const std::string& path) {
        py::gil_scoped_release free;
        return Device{std::make_shared<const ir::Device>(lang::load_device(path)), path};
      }, py::arg("path"));
  m.def("parse_device", [](const std::string& text, const std::string& file) {
        py::gil_scoped_release free;
        return Device{std::make_shared<const ir::Device>(lang::parse_device(text, file)), file};
      }, py::arg("text"), py::arg("file") = "<text>.hw");

  py::class_<RunArgs>(m, "RunArgs")
      .def(py::init<>())
      .def_readwrite("dtypes", &RunArgs::dtypes)
      .def_readwrite("batches", &RunArgs::batches)
      .def_readwrite("optimizer", &RunArgs::optimizer)
      .def_readwrite("kernel_model", &RunArgs::kernel_model)
      .def_readwrite("recompute", &RunArgs::recompute)
      .def_readwrite("master_weights", &RunArgs::master_weights)
      .def_readwrite("weights", &RunArgs::weights)
      .def_readwrite("device_counts", &RunArgs::device_counts)
      .def_readwrite("link", &RunArgs::link)
      .def_readwrite("scaling", &RunArgs::scaling)
      .def_readwrite("overlap", &RunArgs::overlap)
      .def_readwrite("dataset_size", &RunArgs::dataset_size)
      .def_readwrite("layers", &RunArgs::layers);
  // The engine runs without the GIL: other Python threads go on meanwhile.
  m.def("run", &run, py::arg("network"), py::arg("devices"), py::arg("correlate"), py::arg("args"),
        py::call_guard<py::gil_scoped_release>());
}
