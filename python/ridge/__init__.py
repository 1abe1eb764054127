"""Ridge from Python: performance models of deep networks on hardware, in microseconds.

    import ridge
    r = ridge.simulate("resnet50", "a100-sxm4-40gb", batch=64, dtype="fp16")
    r.totals.to_pandas()        # one row per simulation: times, throughput, memory, MFU
    r.layers.to_pandas()        # one row per layer: FLOPs, bytes, roofline bound, predicted time

    net = ridge.from_torch(torchvision.models.convnext_tiny(), torch.randn(1, 3, 224, 224))
    ridge.simulate(net, ["a100-sxm4-40gb", "h100-sxm5"], batch=[1, 64]).totals.to_pandas()

Networks and devices are `.net`/`.onnx`/`.hw` paths, zoo and catalogue names ("resnet50",
"a100-sxm4-40gb"), text (ridge.network(text=...), ridge.device(text=...)), or objects those return.
Every table follows the one output schema of `simulate --format json` (docs/output.md, "Output schema"):
each row starts with network, device, device_id, batch, dtype; SI base units throughout.
Errors in a file or text raise ridge.RidgeError, whose message is the file:line:col diagnostic.
"""
import inspect
import io
import os
import tempfile
import warnings

from . import _ridge

RidgeError = _ridge.RidgeError
Network = _ridge.Network
Device = _ridge.Device
SCHEMA = _ridge.schema

__all__ = ["simulate", "sweep", "search", "network", "device", "from_torch", "Result", "Table", "RidgeError", "SCHEMA"]

# Loaded files by path, kept while the file is unchanged: a notebook that simulates one network many
# times parses it once.
_cache = {}


def _cached(kind, path, overrides, load):
    try:
        st = os.stat(path)
        stamp = (st.st_mtime_ns, st.st_size)
    except OSError:
        stamp = None   # the load reports the missing file
    key = (kind, path, tuple(sorted(overrides.items())))
    hit = _cache.get(key)
    if hit is not None and hit[0] == stamp and stamp is not None:
        return hit[1]
    value = load(path)
    if len(_cache) > 256:
        _cache.clear()
    _cache[key] = (stamp, value)
    return value


def _path(kind, value):
    """A file path or a zoo/catalogue name as a str, or RidgeError naming what was given."""
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        raise RidgeError(f"{kind}: {value!r} is not a path, a name or a loaded {kind}")
    return value


def _text(kind, text, name):
    if not isinstance(text, str) or not isinstance(name, str):
        raise RidgeError(f"{kind}(text=..., name=...): both must be strings")
    return text


def _load_network(path=None, *, text=None, name="<text>", **parameters):
    """A network from a `.net`/`.onnx` file, a zoo name, or `.net` text; keyword arguments set the
    network's parameters (network("gpt2", seq_len=512))."""
    overrides = {k: str(v) for k, v in parameters.items()}
    if isinstance(path, Network):
        if overrides:
            raise RidgeError("parameters apply when a network is loaded, not to a loaded Network")
        return path
    if (path is None) == (text is None):
        raise RidgeError("network(): give a path (or zoo name) or text=, not both")
    if text is not None:
        return _ridge.parse_network(_text("network", text, name), name, overrides)
    path = _ridge.resolve_network_path(_path("network", path))   # a zoo name becomes its file
    return _cached("net", path, overrides, lambda p: _ridge.load_network(p, overrides))


def _load_device(path=None, *, text=None, name="<text>.hw"):
    """A device from a `.hw` file, a catalogue name, or `.hw` text."""
    if isinstance(path, Device):
        return path
    if (path is None) == (text is None):
        raise RidgeError("device(): give a path (or catalogue name) or text=, not both")
    if text is not None:
        return _ridge.parse_device(_text("device", text, name), name)
    path = _ridge.resolve_device_path(_path("device", path))   # a catalogue name becomes its file
    return _cached("hw", path, {}, _ridge.load_device)


def from_torch(model, example_input, *, kwargs=None, dims=None, allow_unknown=False, opset=17, name=None, batch_axis=0):
    """Any torch.nn.Module as a Ridge network: exported to ONNX in memory (torch.onnx.export into a
    buffer, batch axis dynamic, batch norms kept as in training, constants folded) and imported; where
    folding turned a learned tensor read through fixed indices (Swin's and MaxViT's relative-position
    bias tables) into a larger tensor of its own, the export without folding is taken. `example_input` is one
    sample with its batch axis (a tensor, or a tuple or list of them: the forward's positional
    arguments); `kwargs` the forward's keyword arguments; `dims` binds other symbolic axes;
    `batch_axis` is the inputs' and output's batch axis (1 for a sequence-first module, as
    nn.LSTM, nn.GRU and nn.TransformerEncoder take [T, batch, features] unless batch_first).

    The model is exported in eval mode on the path PyTorch's exporter knows: with autograd on and the
    parameters requiring grad, so that nn.MultiheadAttention and nn.TransformerEncoder(Layer) compute
    the same function without their inference fast path (aten::_native_multi_head_attention,
    aten::_transformer_encoder_layer_fwd), which torch.onnx cannot export. When the export fails, the
    RidgeError names the innermost submodule that fails to export on its own."""
    import torch   # only from_torch needs PyTorch

    inputs = tuple(example_input) if isinstance(example_input, (tuple, list)) else (example_input,)
    keywords = dict(kwargs or {})
    given = model
    # One tensor given for several positional arguments (self-attention: mha(x, x, x)) is one input of
    # the network: the model is exported behind a module that passes it to each of them.
    distinct = []
    for x in inputs:
        if isinstance(x, torch.Tensor) and not any(x is d for d in distinct):
            distinct.append(x)
    # The module also binds the keyword arguments (the exporter passes none through **keywords).
    if len(distinct) < sum(isinstance(x, torch.Tensor) for x in inputs) and \
            not any(isinstance(x, torch.Tensor) for x in keywords.values()):
        model, inputs, keywords = _shared_inputs(model, inputs, distinct, keywords), tuple(distinct), {}
    for x in list(inputs) + list(keywords.values()):
        if isinstance(x, torch.Tensor) and not 0 <= batch_axis < x.dim():
            raise RidgeError(f"from_torch: the batch axis {batch_axis} is not an axis of an example input of shape "
                             f"{list(x.shape)}")
    # Each tensor argument is an input of the network, named after the forward's parameter where it has
    # one (nn.Transformer: src, then tgt); the first is the network's `input` layer.
    try:
        named = [p.name for p in inspect.signature(model.forward).parameters.values()
                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        named = []
    tensors = [named[i] if i < len(named) and named[i] not in keywords else f"input{i}"
               for i, x in enumerate(inputs) if isinstance(x, torch.Tensor)]
    tensors += [k for k, x in keywords.items() if isinstance(x, torch.Tensor)]
    axes = {n: {batch_axis: "batch"} for n in tensors}
    axes["output"] = {batch_axis: "batch"}
    args = inputs + (keywords,) if keywords else inputs
    label = name or type(model).__name__

    def exported(fold):
        def export_to(target):
            _export(model, args, lambda m, a: torch.onnx.export(
                m, a, target, opset_version=opset, input_names=tensors, output_names=["output"], dynamic_axes=axes,
                training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=fold))

        buffer = io.BytesIO()
        try:
            export_to(buffer)
            return buffer.getvalue()
        except Exception as e:
            if "2GiB" not in str(e):
                raise RidgeError(_export_failure(model, args, e)) from e
        # Past protobuf's 2 GiB in memory (ViT-H/14, RegNet-Y 128GF): exported to a file instead, beside
        # which torch writes the initializers' data; Ridge reads the graph and the shapes alone.
        with tempfile.TemporaryDirectory(prefix="ridge_from_torch_") as directory:
            path = os.path.join(directory, "model.onnx")
            try:
                export_to(path)
            except Exception as e:
                raise RidgeError(_export_failure(model, args, e)) from e
            with open(path, "rb") as f:
                return f.read()

    # The module's registered buffers are fixed tensors: where one is read as data (Swin V2's relative
    # coordinates table, the input of its position-bias MLP) it is not counted as a parameter.
    buffers = {n for n, _ in model.named_buffers()}

    def parsed(onnx_bytes):
        return _ridge.parse_onnx(onnx_bytes, label + ".onnx", dict(dims or {}), allow_unknown, batch_axis, buffers)

    try:
        net = parsed(exported(True))
    except RidgeError as folded_error:
        # Folding can also break an import: torch folds Swin V2's zeroed slice of its qkv bias into an
        # initializer of zeros, which the importer cannot tell from a learned tensor. The export without
        # folding is taken where it imports with exactly the module's parameters.
        try:
            unfolded = parsed(exported(False))
        except RidgeError:
            raise folded_error from None
        if unfolded.parameters != sum(p.numel() for p in given.parameters()):
            raise folded_error from None
        return unfolded
    # Constant folding (which an LSTM's reordered gate weights need) also folds a learned tensor read
    # through fixed indices (Swin's and MaxViT's relative-position bias tables) into the lookup's larger
    # result, a tensor of its own. Where the count then differs from the module's, the export without
    # folding, which keeps the table, is taken if it counts the module exactly.
    count = sum(p.numel() for p in given.parameters())
    if net.parameters != count:
        try:
            unfolded = parsed(exported(False))
            if unfolded.parameters == count:
                return unfolded
        except RidgeError:
            pass
    return net


def _shared_inputs(model, inputs, distinct, keywords):
    """`model` behind a module whose forward takes the `distinct` tensors and calls `model` with `inputs`
    (each tensor passed in by its position in `distinct`) and `keywords`."""
    import torch

    class SharedInputs(torch.nn.Module):
        def __init__(self, model, inputs, distinct, keywords):
            super().__init__()
            self.model = model
            self.slots = [next((j for j, d in enumerate(distinct) if x is d), None) if isinstance(x, torch.Tensor) else x
                          for x in inputs]
            self.tensor_slot = [isinstance(x, torch.Tensor) for x in inputs]
            self.keywords = keywords

        def forward(self, *tensors):
            args = [tensors[s] if is_tensor else s for s, is_tensor in zip(self.slots, self.tensor_slot)]
            return self.model(*args, **self.keywords)

    return SharedInputs(model, inputs, distinct, keywords)


def _export(model, args, export):
    """Runs `export(model, args)` on the eval() model with autograd on and every parameter requiring
    grad (PyTorch's fast paths are taken only without both), then restores the model's mode and flags."""
    import torch

    was_training = model.training
    frozen = [p for p in model.parameters() if not p.requires_grad]
    model.eval()
    # The exporter merges initializers that merely hold equal values unless the root module reads as
    # training (torch 1.13's deduplicate_initializers pass), which would count one of a freshly built
    # nn.TransformerEncoder's deep-copied layers for all of them: the root's flag is set once its
    # forward has been traced in eval mode, before that pass reads it.
    hooks = [model.register_forward_pre_hook(lambda m, a: setattr(m, "training", False)),
             model.register_forward_hook(lambda m, a, out: setattr(m, "training", True))]
    # torch 1.13's exporter has no symbolic for aten::zero, which Swin V2's attention calls (zeroing the
    # keys' part of a copy of its qkv bias); while exporting, it is x - x: an elementwise op of x's shape.
    zero = _missing_symbolic("aten::zero")
    if zero:
        torch.onnx.register_custom_op_symbolic("aten::zero", lambda g, x: g.op("Sub", x, x), 9)
    try:
        for p in frozen:
            p.requires_grad_(True)
        with torch.enable_grad(), warnings.catch_warnings():
            # PRESERVE on an eval() model keeps batch norms as batch norms; the exporter warns about
            # constant folding under PRESERVE whatever the mode, which does not apply in eval.
            warnings.filterwarnings("ignore", message=".*constant folding be turned off.*")
            export(model, args)
    finally:
        if zero:
            _forget_symbolic("aten::zero")
        for h in hooks:
            h.remove()
        for p in frozen:
            p.requires_grad_(False)
        model.train(was_training)


def _forget_symbolic(op):
    """Takes the symbolic lent for `op` out of the exporter's registry again. Unregistering leaves an
    empty entry, on which a later export of `op` fails with "min() arg is an empty sequence" in place
    of torch's own "not supported" error, so the entry goes too."""
    import torch
    from torch.onnx._internal import registration

    torch.onnx.unregister_custom_op_symbolic(op, 9)
    table = getattr(registration.registry, "_registry", None)
    group = table.get(op) if isinstance(table, dict) else None
    if group is not None and not registration.registry.is_registered_op(op, 17):
        del table[op]


def _missing_symbolic(op):
    """Whether this torch's exporter lacks a symbolic for `op` at every opset (an internal registry; a
    torch without it is taken to have the symbolic)."""
    try:
        from torch.onnx._internal import registration
    except ImportError:
        return False
    return not registration.registry.is_registered_op(op, 17)


def _export_failure(model, args, error):
    """What RidgeError says when torch.onnx.export fails: the innermost submodule whose own export
    (with the inputs it was called with in a forward pass) fails the same way, and the exporter's words."""
    import re
    import torch

    first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    operator = re.search(r"operator '?([\w:.]+)", first)
    key = operator.group(1) if operator else None
    calls = {}
    hooks = []
    modes = [(m, m.training) for m in model.modules()]

    def record(module, inputs):
        calls.setdefault(module, inputs)

    try:
        for _, sub in model.named_modules():
            hooks.append(sub.register_forward_pre_hook(record))
        positional, keywords = (args[:-1], args[-1]) if args and isinstance(args[-1], dict) else (args, {})
        with torch.no_grad():
            model.eval()
            model(*positional, **keywords)
    except Exception:
        pass
    finally:
        for h in hooks:
            h.remove()

    def fails(module):
        if module not in calls:
            return False
        try:
            _export(module, calls[module], lambda m, a: torch.onnx.export(m, a, io.BytesIO(), opset_version=17))
        except Exception as e:
            return key is None or key in str(e)
        return False

    path, module = "", model
    try:
        while True:
            child = next(((n, c) for n, c in module.named_children() if fails(c)), None)
            if child is None:
                break
            path, module = (path + "." if path else "") + child[0], child[1]
    finally:
        for m, training in modes:
            m.training = training
    where = f"submodule '{path}' ({type(module).__name__})" if path else f"the model ({type(model).__name__})"
    return f"from_torch: torch.onnx.export failed in {where}: {first}"


network = _load_network
device = _load_device


class Table:
    """One table of the output schema: columns and rows, convertible to a pandas DataFrame."""

    def __init__(self, columns_and_data):
        self.name = columns_and_data["name"]
        self.columns = list(columns_and_data["columns"])
        self._data = columns_and_data["data"]

    def __len__(self):
        return len(self._data[0]) if self._data else 0

    def __getitem__(self, column):
        """The values of one column, a list."""
        try:
            return self._data[self.columns.index(column)]
        except ValueError:
            raise KeyError(column) from None

    def rows(self):
        """The rows as dicts, column name to value."""
        return [dict(zip(self.columns, values)) for values in zip(*self._data)]

    def to_pandas(self):
        import pandas
        return pandas.DataFrame(dict(zip(self.columns, self._data)), columns=self.columns)

    def __repr__(self):
        return f"<ridge.Table {self.name}: {len(self)} rows x {len(self.columns)} columns>"

    def _repr_html_(self):
        try:
            return self.to_pandas()._repr_html_()
        except ImportError:
            return None


class Result:
    """What one simulate() call computed. Tables (ridge.Table) are built when first read."""

    def __init__(self, results, tables=None):
        self._results = results
        self._tables = dict(tables or {})

    def _table(self, name):
        if name not in self._tables:
            if self._results is None:
                raise RidgeError(f"this result (a search run on an executor) holds only its tables: {sorted(self._tables)}")
            self._tables[name] = Table(self._results.table(name))
        return self._tables[name]

    @property
    def totals(self):
        """One row per simulation (network x device x dtype x batch): the `runs` table."""
        return self._table("runs")

    @property
    def layers(self):
        return self._table("layers")

    @property
    def scaling(self):
        return self._table("scaling")

    @property
    def correlation(self):
        return self._table("correlation")

    @property
    def breakdown(self):
        """One report's blocks (depth=) or layers ranked by time (top=): the `breakdown` table."""
        return self._table("breakdown")

    @property
    def measured(self):
        """Measured layer times (measured=) beside the predictions: the `measured` table."""
        return self._table("measured")

    @property
    def generation(self):
        """Decoder inference (prompt=, generate=): prefill, per-token decode, latency, KV cache."""
        return self._table("generation")

    @property
    def serving(self):
        """A deployment under a request load (ridge.serve): latency percentiles, throughput, goodput,
        KV cache occupancy, one row per device and dtype."""
        return self._table("serving")

    @property
    def parallel(self):
        """A parallel strategy's or a search's plan (tensor_parallel=, ..., or ridge.search), as the
        "parallel" member of `simulate --format json`: a dict, or None for other runs."""
        if "parallel" not in self._tables:
            import json
            self._tables["parallel"] = json.loads(self.to_json())["parallel"]
        return self._tables["parallel"]

    @property
    def notes(self):
        return self._table("notes")

    def total(self, column):
        """One figure of a single simulation: r.total("time_fwd_s")."""
        values = self.totals[column]
        if len(values) != 1:
            raise RidgeError(f"total(): this result holds {len(values)} simulations; use .totals[{column!r}]")
        return values[0]

    def _whole_run(self):
        if self._results is None:
            raise RidgeError("this result (a search run on an executor) holds only its tables: use .serving")
        return self._results

    def to_json(self):
        """The JSON document `simulate --format json` writes for the same run."""
        return self._whole_run().json()

    def to_text(self):
        """What `simulate` prints for the same run (--format table): the report, the comparison, a
        parallel plan or, with explain=, the layer's derivation."""
        return self._whole_run().text()

    def to_csv(self, table="layers"):
        return self._whole_run().csv(table)

    def __repr__(self):
        if self._results is None:
            return f"<ridge.Result: {len(self.serving)} deployment(s) searched on an executor>"
        if self._results.parallel:
            return "<ridge.Result: a parallel plan>"
        t = self.totals if self._results.run_count else self.generation
        return f"<ridge.Result: {len(t)} simulation(s) of {', '.join(sorted(set(t['network'])))}>"


def _as_list(value):
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def _whole_numbers(keyword, value, largest):
    """value (one or a list) as whole numbers in [1, largest], or RidgeError naming the keyword.

    Python's int() would take 8.5 (as 8), True (as 1) and a huge int (as pybind's TypeError): each is
    refused here instead, as the program refuses --batch 8.5 (issue #41)."""
    values = _as_list(value)
    if not values:
        raise RidgeError(f"{keyword}: give at least one value")
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int):
            raise RidgeError(f"{keyword}: {v!r} is not a whole number")
        if not 1 <= v <= largest:
            raise RidgeError(f"{keyword}: {v} is not between 1 and {largest}")
        out.append(v)
    return out


def _typed(keyword, value, kind, what, optional):
    """value if it is a `kind` (or None where optional), else RidgeError naming the keyword: pybind
    would raise TypeError, and Python's truth rules would take 1, "yes" and [] as a flag."""
    if value is None and optional:
        return None
    if not isinstance(value, kind):
        raise RidgeError(f"{keyword}: {value!r} is not {what}")
    return value


def _word(keyword, value, optional=False):
    return _typed(keyword, value, str, "a string", optional)


def _flag(keyword, value, optional=False):
    return _typed(keyword, value, bool, "True or False", optional)


def _options(batch, dtype, optimizer, recompute, master_weights, weights, devices, link, scaling, overlap,
             dataset_size, layers, kernel_model, prompt=None, generate=None, explain=None, parallel=None,
             depth=None, top=None, rank_by="train", measured=None):
    """simulate's options (run_options.hpp) from keywords named as the program names them."""
    o = _ridge.RunOptions()
    o.batch = _whole_numbers("batch", batch, _ridge.max_batch)
    o.dtype = [_word("dtype", d) for d in _as_list(dtype)]
    o.optimizer = _word("optimizer", optimizer)
    o.recompute = _word("recompute", recompute)
    o.kernel_model = _word("kernel_model", kernel_model)
    if _flag("master_weights", master_weights, optional=True) is False:
        o.master_weights = False
    o.weights = _word("weights", weights, optional=True) or ""
    if devices is not None:
        if isinstance(devices, int) and not isinstance(devices, bool):
            o.devices = _whole_numbers("devices", devices, 65536)
            o.devices_up_to = True
        else:
            o.devices = _whole_numbers("devices", devices, 65536)
    o.link = _word("link", link)
    o.scaling = _word("scaling", scaling)
    o.overlap = _flag("overlap", overlap)
    o.dataset_size = 0 if dataset_size is None else _whole_numbers("dataset_size", dataset_size, 2**62)[0]
    o.layers = _flag("layers", layers)
    if prompt is not None:
        o.prompt = _whole_numbers("prompt", prompt, 1 << 20)[0]
    if generate is not None:
        o.generate = _whole_numbers("generate", generate, 1 << 20)[0]
    o.explain = _word("explain", explain, optional=True) or ""
    if depth is not None:
        o.depth = _whole_numbers("depth", depth, 64)[0]
    if top is not None:
        o.top = _whole_numbers("top", top, 1000000)[0]
    o.pass_ = _word("rank_by", rank_by)
    if measured is not None:
        o.measured = _measurements(measured)
    for keyword, (value, largest) in (parallel or {}).items():
        if keyword in ("sequence_parallel", "search"):
            setattr(o, keyword, _flag(keyword, value))
        elif value is not None:
            setattr(o, keyword, _whole_numbers(keyword, value, largest)[0] if keyword != "zero" else
                    _zero_stage(value))
    return o


def _measurements(measured):
    """A CSV path (layer,pass,seconds, as calibrate --measurements writes) or (layer, pass, seconds)
    tuples, as the program's --measured reads them."""
    if isinstance(measured, (str, os.PathLike)):
        return _ridge.load_measurements(os.fspath(measured))
    rows = []
    for item in measured:
        if not (isinstance(item, (tuple, list)) and len(item) == 3):
            raise RidgeError(f"measured: {item!r} is not a (layer, pass, seconds) tuple")
        layer, which, seconds = item
        rows.append((_word("measured layer", layer), _word("measured pass", which), float(seconds)))
    return _ridge.measurements(rows)


def _zero_stage(value):
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3:
        raise RidgeError(f"zero: {value!r} is not a ZeRO stage 0, 1, 2 or 3")
    return value


def simulate(network, device, batch=1, dtype="fp32", *, optimizer="sgd", recompute="none", master_weights=None,
             weights=None, devices=None, link="", scaling="strong", overlap=False, dataset_size=None,
             correlate=(), layers=True, kernel_model="micro", prompt=None, generate=None, explain=None,
             tensor_parallel=None, pipeline_parallel=None, data_parallel=None, micro_batch=None,
             global_batch=None, interleave=None, sequence_parallel=False, zero=None, depth=None, top=None,
             rank_by="train", measured=None, runtime=None, sparsity=None, memory_format=None, **parameters):
    """Simulates a network on one or more devices, at one or more batches and dtypes, in one call.

    Keywords are simulate's options by their names (--tensor-parallel is tensor_parallel=), and the
    result's to_json() is what `simulate --format json` prints for the same run.
    network: a Network, a path or zoo name; device: a Device, a path or catalogue name, or a list.
    batch, dtype: a value or a list (every combination is simulated). Keyword arguments that are not
    options set the network's parameters (seq_len=512). devices: data-parallel device counts (an int
    n gives 1, 2, 4, ..., n) for the scaling table. correlate: further networks ranked against this one.
    layers=False leaves out the per-layer rows and notes: each (batch, dtype) is then costed once and
    timed on every device, the fast path for sweeps of thousands of configurations.
    kernel_model: "micro" (GPU kernels from the device's arch.* facts) or "flat" (one PPP per op class).
    prompt, generate: decoder inference, the prompt's prefill then generate decode steps (.generation).
    tensor_parallel, pipeline_parallel, data_parallel, micro_batch, global_batch, interleave,
    sequence_parallel, zero: one parallel training strategy's step and memory (.parallel).
    depth, top, rank_by ("forward", "backward" or "train": --pass): one report's blocks or its top
    layers (.breakdown); measured: a CSV path or (layer, pass, seconds) tuples beside it (.measured).
    runtime: a runtimes/NAME.rt or a file (the software stack); sparsity="2:4": 2:4-sparse weights at
    inference, on devices that declare them. memory_format: "nhwc" (the default) or "nchw" (PyTorch's
    default layout: layout conversions around every tensor-core convolution on a GPU).
    """
    net = _load_network(network, **parameters)
    devs = [_load_device(d) for d in _as_list(device)]
    parallel = {"tensor_parallel": (tensor_parallel, 1 << 16), "pipeline_parallel": (pipeline_parallel, 1 << 16),
                "data_parallel": (data_parallel, 1 << 20), "micro_batch": (micro_batch, 1 << 24),
                "global_batch": (global_batch, 1 << 24), "interleave": (interleave, 1 << 10),
                "sequence_parallel": (sequence_parallel, None), "zero": (zero, 3)}
    options = _options(batch, dtype, optimizer, recompute, master_weights, weights, devices, link, scaling, overlap,
                       dataset_size, layers, kernel_model, prompt, generate, explain, parallel, depth, top, rank_by,
                       measured)
    if runtime is not None:
        options.runtime = os.fspath(runtime)   # runtimes/NAME.rt or a file: the software stack
    if sparsity is not None:
        options.sparsity = _word("sparsity", sparsity)
    if memory_format is not None:
        options.memory_format = _word("memory_format", memory_format)
    others = [_load_network(n) for n in correlate]
    return Result(_ridge.run(net, devs, others, options))


def search(network, device, batch=1, dtype="fp32", *, devices=None, top=10, max_micro_batch=64, optimizer="sgd",
           recompute="none", master_weights=None, link="", overlap=False, kernel_model="micro", **parameters):
    """Every parallel strategy (tensor, pipeline, data, sequence parallel, ZeRO, recomputation) of
    `devices` devices (default: the device file's system count) that fits, fastest first: the run
    `simulate NET HW --search` makes. batch is the global batch; the plan is the result's .parallel."""
    net = _load_network(network, **parameters)
    options = _options(batch, dtype, optimizer, recompute, master_weights, None, devices, link, "strong", overlap,
                       None, True, kernel_model,
                       parallel={"search": (True, None), "top": (top, 1000000),
                                 "max_micro_batch": (max_micro_batch, 1 << 24)})
    return Result(_ridge.run(net, [_load_device(device)], [], options))


def _token_lengths(keyword, value):
    """N, (low, high) for lengths uniform over a range, or a CSV file's path (its column sampled), as
    the program's N, LOW..HIGH or FILE.csv."""
    if isinstance(value, (str, os.PathLike)) and os.fspath(value).endswith(".csv"):
        return os.fspath(value)
    if isinstance(value, (tuple, list)) and len(value) == 2:
        low, high = (_whole_numbers(keyword, v, 1 << 20)[0] for v in value)
        return f"{low}..{high}"
    return str(_whole_numbers(keyword, value, 1 << 20)[0])


def _positive(keyword, value, what, optional=False):
    if value is None and optional:
        return 0.0
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise RidgeError(f"{keyword}: {value!r} is not {what} above 0")
    return float(value)


def serve(network, device, dtype="fp32", *, rate=1.0, duration=60.0, prompt_tokens=512, output_tokens=128, seed=1,
          slo_ttft=None, slo_tpot=None, batching="continuous", max_num_seqs=256, max_batched_tokens=None, tensor_parallel=None,
          pipeline_parallel=None, replicas=1, router="round-robin", burstiness=1.0, requests=None, disaggregate=None, search=False,
          max_replicas=16, executor=None, shards=None, link="", kernel_model="micro", runtime=None, _shard=(0, 1),
          **parameters):
    """A decoder deployment (replicas x tensor_parallel x pipeline_parallel devices) under a request
    load, as `simulate NET HW --serve` runs it: arrivals at rate requests/s for duration seconds
    (Poisson, or gamma gaps of shape burstiness; seeded), or a CSV trace replayed (requests=PATH);
    prompt_tokens and output_tokens an int, a (low, high) range or a CSV's path (its column sampled);
    vLLM's continuous batching with a paged KV cache (batching="chunked": chunked prefill, "static":
    batches of max_num_seqs, each after the last); replicas behind a router ("round-robin" or
    "least-outstanding"), or disaggregate=(P, D) prefill and decode replicas. The result's .serving row holds TTFT, TPOT and latency percentiles,
    throughput, goodput within slo_ttft/slo_tpot (seconds), KV cache occupancy and utilisation;
    device may be a list (one row each).

    search=True finds the cheapest deployment that meets slo_ttft/slo_tpot (`simulate --serve
    --search`): the .serving rows are the candidates, best first. executor= (any
    concurrent.futures.Executor, a dask.distributed Client's included) runs that search in `shards`
    pieces (default: 4 per device file), network and devices then given by name or path."""
    devices = _as_list(device)
    if executor is not None:
        if not search:
            raise RidgeError("executor= runs a deployment search: give search=True")
        count = _whole_numbers("shards", shards, 1 << 16)[0] if shards is not None else 4 * len(devices)
        asked = dict(locals())
        kwargs = {k: asked[k] for k in ("rate", "duration", "prompt_tokens", "output_tokens", "seed", "slo_ttft", "slo_tpot",
                                        "batching", "max_num_seqs", "max_batched_tokens", "tensor_parallel", "pipeline_parallel",
                                        "router", "burstiness", "requests", "disaggregate", "max_replicas", "link",
                                        "kernel_model", "runtime")}
        kwargs.update(parameters)
        futures = [executor.submit(_serve_shard, network, devices, dtype, kwargs, k, count) for k in range(count)]
        tables = [f.result() for f in futures]
        return Result(None, tables={"serving": _ranked_deployments(tables, [_load_device(d).id for d in devices])})
    net = _load_network(network, **parameters)
    parallel = {"tensor_parallel": (tensor_parallel, 1 << 16), "pipeline_parallel": (pipeline_parallel, 1 << 16)}
    o = _options(1, dtype, "sgd", "none", None, None, None, link, "strong", False, None, True, kernel_model,
                 parallel=parallel)
    o.serve = True
    o.rate = _positive("rate", rate, "a number of requests per second")
    o.duration = _positive("duration", duration, "a number of seconds")
    o.prompt_tokens = _token_lengths("prompt_tokens", prompt_tokens)
    o.output_tokens = _token_lengths("output_tokens", output_tokens)
    o.seed = _whole_numbers("seed", seed, 2**62)[0] if seed != 0 else 0
    o.slo_ttft = _positive("slo_ttft", slo_ttft, "a number of seconds", optional=True)
    o.slo_tpot = _positive("slo_tpot", slo_tpot, "a number of seconds", optional=True)
    o.batching = _word("batching", batching)
    o.max_num_seqs = _whole_numbers("max_num_seqs", max_num_seqs, 1 << 20)[0]
    o.max_batched_tokens = 0 if max_batched_tokens is None else _whole_numbers("max_batched_tokens", max_batched_tokens, 1 << 24)[0]
    o.replicas = _whole_numbers("replicas", replicas, 4096)[0]
    o.router = _word("router", router)
    o.burstiness = _positive("burstiness", burstiness, "a gamma shape")
    if requests is not None:
        o.requests = os.fspath(requests)
    if runtime is not None:
        o.runtime = os.fspath(runtime)
    if disaggregate is not None:
        if not (isinstance(disaggregate, (tuple, list)) and len(disaggregate) == 2):
            raise RidgeError(f"disaggregate: {disaggregate!r} is not (prefill replicas, decode replicas)")
        p, d = (_whole_numbers("disaggregate", v, 4096)[0] for v in disaggregate)
        o.disaggregate = f"{p}:{d}"
    if search:
        o.search = True
        o.max_replicas = _whole_numbers("max_replicas", max_replicas, 4096)[0]
        o.search_shard, o.search_shards = _shard
    return Result(_ridge.run(net, [_load_device(d) for d in devices], [], o))


def _serve_shard(network, devices, dtype, kwargs, shard, shards):
    """One shard of a deployment search, run where an executor puts it: the serving table's columns
    and data (plain Python: it travels back to the caller)."""
    return serve(network, devices, dtype, search=True, _shard=(shard, shards), **kwargs)._results.table("serving")


def _ranked_deployments(tables, device_ids):
    """The shards' candidates as one table, in the order of engine/serving/search.hpp's ranking: the
    goals met first; then the price per hour where every candidate has one, else the devices; then
    fewer devices, the lower TTFT p99, and the order of the search (device file, T, P, max_num_seqs)."""
    columns = list(tables[0]["columns"])
    rows = [dict(zip(columns, values)) for t in tables for values in zip(*t["data"])]
    by_price = all(r["price_per_hour"] is not None for r in rows)
    order = {d: i for i, d in reversed(list(enumerate(device_ids)))}

    def key(r):
        return (not r["meets_slo"], r["price_per_hour"] if by_price else r["devices"], r["devices"], r["ttft_p99_s"],
                order.get(r["device_id"], len(device_ids)), r["tensor_parallel"], r["pipeline_parallel"], r["max_num_seqs"])

    rows.sort(key=key)
    return Table({"name": "serving", "columns": columns, "data": [[r[c] for r in rows] for c in columns]})


def sweep(network, devices, batches=(1,), dtypes=("fp32",), layers=False, **options):
    """Many configurations as one call: every device x dtype x batch, one row each in .totals (no
    per-layer rows unless layers=True: each (batch, dtype) is costed once for all devices)."""
    return simulate(network, list(devices), batch=list(batches), dtype=list(dtypes), layers=layers, **options)
