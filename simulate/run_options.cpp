#include "simulate/run_options.hpp"

#include "engine/scaling.hpp"
#include "lang/catalogue.hpp"
#include "lang/suggest.hpp"
#include "lang/trace.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace ridge::simulate {
namespace {

using engine::kMaxBatch;

std::string str(std::int64_t v) { return std::to_string(v); }

// Whole numbers only: "8", never "8.5", "+8", " 8" or "8k".
template <class T>
bool whole(const std::string& item, T& v) {
  const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
  return !item.empty() && ec == std::errc{} && end == item.data() + item.size();
}

template <class T>
T named(std::optional<T> value, const std::string& option, const std::string& given, const std::string& allowed) {
  if (!value) throw std::invalid_argument(option + ": '" + given + "' is not " + allowed);
  return *value;
}

// Two .hw files with one stem (a/t4.hw, b/t4.hw) are two devices: the later gets "-2", "-3", so rows,
// lookups and figure names (FILE-roofline-ID-...) stay apart.
void distinct_ids(std::vector<ir::Device>& devices) {
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const std::string base = devices[i].id;
    for (int k = 2;; ++k) {
      const bool taken = std::any_of(devices.begin(), devices.begin() + static_cast<std::ptrdiff_t>(i),
                                     [&](const ir::Device& d) { return d.id == devices[i].id; });
      if (!taken) break;
      devices[i].id = base + "-" + std::to_string(k);
    }
  }
}

engine::ParallelRun parallel_run(const RunOptions& o, const ir::Device& device) {
  engine::ParallelRun run;
  const std::int64_t global_batch = o.global_batch > 0 ? o.global_batch : o.batch.front();
  if (o.search) {
    if (o.tensor_parallel > 0 || o.pipeline_parallel > 0 || o.data_parallel > 0)
      throw std::invalid_argument("--search tries every --tensor-parallel/--pipeline-parallel/--data-parallel itself; give "
                                  "--devices N for the device count instead");
    if (o.devices.size() > 1 || (!o.devices.empty() && !o.devices_up_to))
      throw std::invalid_argument("--search: --devices takes one device count, e.g. --devices 1024");
    run.search = true;
    engine::parallel::SearchOptions& so = run.search_options;
    so.devices = o.devices.empty() ? device.count : o.devices.front();
    so.devices_from_system = o.devices.empty();
    so.global_batch = global_batch;
    so.overlap = o.overlap;
    so.top = static_cast<std::size_t>(o.top > 0 ? o.top : 10);
    so.max_micro_batch = o.max_micro_batch;
    so.link = o.link;
    return run;
  }
  if (!o.devices.empty())
    throw std::invalid_argument("--devices is data-parallel scaling's; with --tensor-parallel/--pipeline-parallel/--data-parallel "
                                "the device count is T x P x D");
  engine::parallel::Strategy& s = run.strategy;
  s.tensor = std::max(1, o.tensor_parallel);
  s.pipeline = std::max(1, o.pipeline_parallel);
  s.data = std::max(1, o.data_parallel);
  s.micro_batch = o.micro_batch;
  s.global_batch = global_batch;
  s.interleave = o.interleave;
  s.sequence_parallel = o.sequence_parallel;
  s.recompute = *engine::recompute_from_name(o.recompute);
  s.zero = o.zero;
  s.overlap = o.overlap;
  run.link = o.link;
  return run;
}

// "N", "LOW..HIGH" or FILE.csv token counts (--prompt-tokens, --output-tokens): a trace file's
// `column`, sampled.
engine::serving::Lengths token_lengths(const std::string& text, const std::string& option, const std::string& column) {
  if (text.ends_with(".csv")) {
    const lang::TraceColumns t = lang::read_trace(text, {column});
    engine::serving::Lengths l;
    l.samples = column == "prompt_tokens" ? t.prompt_tokens : t.output_tokens;
    l.low = *std::min_element(l.samples.begin(), l.samples.end());
    l.high = *std::max_element(l.samples.begin(), l.samples.end());
    l.source = text;
    return l;
  }
  const auto number = [&](const std::string& part) {
    std::int64_t v = 0;
    if (!whole(part, v) || v < 1 || v > (std::int64_t{1} << 20))
      throw std::invalid_argument(option + ": '" + text + "' is not a token count N, a range LOW..HIGH (1 to 1048576) or a FILE.csv");
    return v;
  };
  const std::size_t dots = text.find("..");
  if (dots == std::string::npos) {
    const std::int64_t n = number(text);
    return {n, n};
  }
  const engine::serving::Lengths l{number(text.substr(0, dots)), number(text.substr(dots + 2))};
  if (l.high < l.low) throw std::invalid_argument(option + ": '" + text + "' has its low end above its high end");
  return l;
}

// A request trace replayed (--requests): its arrivals and lengths, and the rate and range they make.
void replay(const std::string& path, engine::serving::Load& load) {
  const lang::TraceColumns t = lang::read_trace(path, {"arrival_s", "prompt_tokens", "output_tokens"});
  for (std::size_t i = 0; i < t.rows; ++i) load.trace.push_back({t.arrival_s[i], t.prompt_tokens[i], t.output_tokens[i]});
  load.trace_source = path;
  load.duration_s = t.arrival_s.back();
  load.rate = load.duration_s > 0 ? static_cast<double>(t.rows) / load.duration_s : 0.0;
  const auto range = [](const std::vector<std::int64_t>& v) {
    return engine::serving::Lengths{*std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end())};
  };
  load.prompt = range(t.prompt_tokens);
  load.output = range(t.output_tokens);
}

// The devices a generation or a deployment runs on: T x P only.
engine::GenerationParallel inference_parallel(const RunOptions& o, const std::string& what) {
  if (o.search || o.data_parallel > 0 || o.micro_batch != 1 || o.global_batch > 0 || o.interleave != 1 || o.sequence_parallel ||
      o.zero != 0)
    throw std::invalid_argument(what + " run on --tensor-parallel and --pipeline-parallel devices; --data-parallel, "
                                "--search, --micro-batch, --global-batch, --interleave, --sequence-parallel and --zero are "
                                "for training");
  return {std::max(1, o.tensor_parallel), std::max(1, o.pipeline_parallel), o.link};
}

}  // namespace

ir::Precision precision_named(const std::string& name) {
  return named(ir::precision_from_name(name), "--dtype", name, "one of " + ir::precision_names());
}

lang::Overrides parameter_overrides(const std::vector<std::string>& sets, std::int64_t seq_len) {
  lang::Overrides o = lang::parse_overrides(sets, "--set");
  if (seq_len > 0) o["seq_len"] = std::to_string(seq_len);
  return o;
}

std::vector<std::string> parse_list(const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    items.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return items;
}

std::vector<std::int64_t> parse_batches(const std::string& text) {
  std::vector<std::int64_t> batches;
  for (const std::string& item : parse_list(text)) {
    std::int64_t v = 0;
    if (!whole(item, v) || v < 1 || v > kMaxBatch)
      throw std::invalid_argument("--batch: '" + item + "' is not a batch size between 1 and " + str(kMaxBatch));
    batches.push_back(v);
  }
  return batches;
}

void parse_devices(const std::string& text, RunOptions& o) {
  o.devices.clear();
  for (const std::string& item : parse_list(text)) {
    int v = 0;
    if (!whole(item, v) || v < 1 || v > 65536)
      throw std::invalid_argument("--devices: '" + item + "' is not a device count between 1 and 65536");
    o.devices.push_back(v);
  }
  o.devices_up_to = o.devices.size() == 1;
}

// layer,pass,seconds per line; a header line and '#' comments are skipped.
// Read through lang::read_source, so a huge file, a directory or /dev/zero is refused up front
// instead of read line by endless line into memory.
std::vector<engine::Measurement> load_measurements(const std::string& path) {
  std::istringstream in(lang::read_source(path));
  std::vector<engine::Measurement> out;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#' || (n == 1 && line.rfind("layer", 0) == 0)) continue;
    const std::vector<std::string> f = parse_list(line);
    const std::string bad = path + ":" + std::to_string(n) + ": expected layer,forward|backward,seconds (seconds > 0)";
    if (f.size() != 3) throw std::runtime_error(bad);
    // Measured files hold inference forward and backward, never the training forward.
    const std::optional<ir::Pass> pass = ir::pass_from_name(f[1]);
    if (!pass || *pass == ir::Pass::ForwardTrain) throw std::runtime_error(bad);
    double s = 0;
    const auto [end, ec] = std::from_chars(f[2].data(), f[2].data() + f[2].size(), s);
    if (ec != std::errc{} || end != f[2].data() + f[2].size() || !(s > 0.0) || !std::isfinite(s)) throw std::runtime_error(bad);
    out.push_back({f[0], *pass, s});
  }
  return out;
}

RunInputs load_run_network(const std::string& path, const lang::Overrides& overrides, const lang::OnnxOptions& onnx,
                           std::vector<std::string>* free_nodes) {
  RunInputs in;
  if (lang::is_onnx_path(path)) {
    lang::OnnxOptions o = lang::onnx_options(overrides, path);   // the dimensions bound by the overrides
    o.allow_unknown = onnx.allow_unknown;
    o.batch_axis = onnx.batch_axis;
    lang::OnnxImport imported = lang::load_onnx(path, o);
    if (free_nodes) *free_nodes = std::move(imported.free_nodes);
    // Made in place: copying a large network cost as much as simulating it.
    in.network = std::make_shared<const ir::Network>(std::move(imported.network));
    return in;
  }
  in.network = std::make_shared<const ir::Network>(lang::load_network(path, overrides));
  in.network_at = network_at([path](const lang::Overrides& o) { return lang::load_network(path, o); }, overrides);
  return in;
}

engine::NetworkAt network_at(std::function<ir::Network(const lang::Overrides&)> elaborate, lang::Overrides overrides) {
  return [elaborate = std::move(elaborate), overrides = std::move(overrides)](std::int64_t tokens, std::int64_t past) {
    lang::Overrides o = overrides;
    o["seq_len"] = std::to_string(tokens);
    o["past"] = std::to_string(past);
    return elaborate(o);
  };
}

void check(const RunOptions& o) {
  if (o.batch.empty()) throw std::invalid_argument("--batch: give at least one batch size");
  for (const std::int64_t b : o.batch)
    if (b < 1 || b > kMaxBatch) throw std::invalid_argument("--batch: " + str(b) + " is not between 1 and " + str(kMaxBatch));
  if (o.dtype.empty()) throw std::invalid_argument("--dtype: give at least one precision");
  for (const std::string& d : o.dtype) precision_named(d);
  named(engine::optimizer_from_name(o.optimizer), "--optimizer", o.optimizer, "sgd, adam or adamw");
  named(engine::recompute_from_name(o.recompute), "--recompute", o.recompute, "none, selective or full");
  named(engine::kernel_model_from_name(o.kernel_model), "--kernel-model", o.kernel_model, "micro or flat");
  named(engine::memory_format_from_name(o.memory_format), "--memory-format", o.memory_format, "nhwc or nchw");
  if (!o.weights.empty() && o.weights != "int8" && o.weights != "int4")
    throw std::invalid_argument("--weights: '" + o.weights + "' is not int8 or int4");
  if (!o.sparsity.empty() && o.sparsity != "2:4")
    throw std::invalid_argument("--sparsity: '" + o.sparsity + "' is not 2:4, the one structured sparsity the engine describes");
  if (o.scaling != "strong" && o.scaling != "weak")
    throw std::invalid_argument("--scaling: '" + o.scaling + "' is not strong or weak");
  if ((o.prompt > 0) != (o.generate > 0)) throw std::invalid_argument("--prompt and --generate go together");
  if (o.pass != "forward" && o.pass != "backward" && o.pass != "train")
    throw std::invalid_argument("--pass: '" + o.pass + "' is not forward, backward or train");
  if (o.depth < 0 || o.top < 0) throw std::invalid_argument("--depth and --top take a count of 1 or more");
}

engine::Plan plan_run(RunInputs in, const RunOptions& o) {
  check(o);
  if (!in.network) throw std::invalid_argument("a run needs a network");
  if (in.devices.empty()) throw std::invalid_argument("no device file (.hw) given");

  engine::Plan plan;
  plan.precisions.clear();
  for (const std::string& d : o.dtype) plan.precisions.push_back(*ir::precision_from_name(d));
  plan.batches = o.batch;
  // Each simulation keeps a per-layer report until the output is rendered: cap their number so a long
  // --batch list (the command line allows ~65,000 items) cannot run memory away.
  const std::size_t nets = 1 + in.correlate.size();
  if (nets * in.devices.size() * plan.precisions.size() * plan.batches.size() > engine::kMaxSimulations)
    throw std::invalid_argument(std::to_string(nets) + " networks x " + std::to_string(in.devices.size()) + " devices x " +
                                std::to_string(plan.precisions.size()) + " dtypes x " + std::to_string(plan.batches.size()) +
                                " batches is more than the " + std::to_string(engine::kMaxSimulations) +
                                " simulations one run may ask for");

  engine::Options& setup = plan.options;
  setup.optimizer = *engine::optimizer_from_name(o.optimizer);
  setup.recompute = *engine::recompute_from_name(o.recompute);
  setup.kernel_model = *engine::kernel_model_from_name(o.kernel_model);
  if (!o.master_weights) setup.master_weights = false;
  if (!o.weights.empty()) setup.weight_bytes = o.weights == "int8" ? 1.0 : 0.5;
  setup.sparsity = o.sparsity == "2:4";
  setup.memory_format = *engine::memory_format_from_name(o.memory_format);
  if (!o.runtime.empty()) setup.runtime = std::make_shared<const ir::Runtime>(lang::load_runtime(lang::resolve_runtime_path(o.runtime)));
  if (o.prompt > 0 && !in.network_at)
    throw std::invalid_argument("--prompt/--generate need a .net with a `past` parameter (a KV cache); an .onnx graph has none");

  distinct_ids(in.devices);
  plan.network = std::move(in.network);
  plan.devices = std::move(in.devices);
  plan.device_files = std::move(in.device_files);
  plan.layers = o.layers;

  if (o.serve) {
    if (!plan.network_at && !in.network_at)
      throw std::invalid_argument("--serve needs a decoder .net with a `past` parameter (a KV cache); an .onnx graph has none");
    if (o.prompt > 0 || !in.correlate.empty() || !o.explain.empty() || o.depth > 0 || o.top > 0 || o.measured)
      throw std::invalid_argument("--serve takes its load from --rate, --prompt-tokens and --output-tokens: not --prompt/--generate, "
                                  "--explain, --depth, --top, --measured or further networks");
    engine::serving::Deployment d;
    d.load.seed = o.seed;
    if (!o.requests.empty()) {
      if (o.rate != 1.0 || o.duration != 60.0 || o.burstiness != 1.0 || o.prompt_tokens != "512" || o.output_tokens != "128")
        throw std::invalid_argument("--requests gives the arrivals and lengths: not --rate, --duration, --burstiness, --prompt-tokens or --output-tokens");
      replay(o.requests, d.load);
    } else {
      d.load.rate = o.rate;
      d.load.duration_s = o.duration;
      d.load.burstiness = o.burstiness;
      d.load.prompt = token_lengths(o.prompt_tokens, "--prompt-tokens", "prompt_tokens");
      d.load.output = token_lengths(o.output_tokens, "--output-tokens", "output_tokens");
    }
    d.slo = {o.slo_ttft, o.slo_tpot};
    d.scheduler.batching = named(engine::serving::batching_from_name(o.batching), "--batching", o.batching, "continuous, chunked or static");
    d.scheduler.max_num_seqs = o.max_num_seqs;
    d.scheduler.max_batched_tokens =
        o.max_batched_tokens > 0 ? o.max_batched_tokens : engine::serving::default_max_batched_tokens(d.scheduler.batching);
    d.replicas.count = o.replicas;
    d.replicas.router = named(engine::serving::router_from_name(o.router), "--router", o.router, "round-robin or least-outstanding");
    if (!o.disaggregate.empty()) {
      const std::size_t colon = o.disaggregate.find(':');
      std::int64_t p = 0, dd = 0;
      if (colon == std::string::npos || !whole(o.disaggregate.substr(0, colon), p) || !whole(o.disaggregate.substr(colon + 1), dd) || p < 1 ||
          dd < 1 || p + dd > engine::serving::kMaxReplicas)
        throw std::invalid_argument("--disaggregate: '" + o.disaggregate + "' is not P:D, prefill and decode replicas (1 or more each)");
      if (o.replicas != 1 || o.search)
        throw std::invalid_argument("--disaggregate gives the replicas (prefill:decode): not with --replicas or --search");
      if (o.batching != "continuous") throw std::invalid_argument("--disaggregate: its replicas run --batching continuous");
      d.replicas.prefill = p;
      d.replicas.decode = dd;
    }
    if (o.search) {
      // The cheapest deployment: T (unless given), P (given or 1), batch sizes and replicas searched.
      if (o.replicas != 1) throw std::invalid_argument("--serve --search finds the replicas itself: give --max-replicas, not --replicas");
      engine::serving::SearchSpace space;
      if (o.tensor_parallel > 0) space.tensor = {o.tensor_parallel};
      if (o.pipeline_parallel > 0) space.pipeline = {o.pipeline_parallel};
      space.max_replicas = o.max_replicas;
      space.shard = o.search_shard;
      space.shards = o.search_shards;
      plan.serving_search = space;
    }
    RunOptions one = o;
    one.search = false;
    d.parallel = inference_parallel(one, "--serve deployments");
    plan.serving = d;
    plan.network_at = std::move(in.network_at);
    return plan;
  }
  if (o.prompt > 0 && o.parallel()) {
    // Generation on several devices: tensor and pipeline parallelism (engine/generation.hpp).
    if (plan.devices.size() != 1)
      throw std::invalid_argument("--prompt/--generate with --tensor-parallel or --pipeline-parallel take one device file");
    plan.generation_parallel = inference_parallel(o, "--prompt/--generate");
  } else if (o.parallel()) {
    if (plan.devices.size() != 1 || plan.precisions.size() != 1 || plan.batches.size() != 1 || !in.correlate.empty() ||
        o.prompt > 0)
      throw std::invalid_argument("a parallel strategy or --search takes one network, one device file, one --dtype and one --batch");
    if (!o.explain.empty()) throw std::invalid_argument("--explain shows one layer of one simulation, not a parallel plan");
    plan.parallel = parallel_run(o, plan.devices.front());
    plan.parallel->schedule = o.schedule;
    return plan;
  }

  if (!o.explain.empty()) {
    // The layer must exist, by its full dotted name; a near miss is suggested.
    std::vector<std::string> names;
    for (const ir::Layer& l : plan.network->layers) names.push_back(l.name);
    if (std::find(names.begin(), names.end(), o.explain) == names.end()) {
      const std::string hint = lang::closest_name(o.explain, names);
      throw std::invalid_argument("--explain: network '" + plan.network->name + "' has no layer named '" + o.explain + "'" +
                                  (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
    }
    if (o.prompt > 0 || !in.correlate.empty())
      throw std::invalid_argument("--explain prints one layer's derivation: it takes neither --prompt nor further networks");
    plan.explain = o.explain;
  }

  const bool one_report = plan.devices.size() * plan.precisions.size() * plan.batches.size() == 1 && o.prompt == 0;
  if (o.depth > 0 || o.top > 0) {
    if (!one_report) throw std::invalid_argument("--depth and --top show one report: give one device, batch and dtype");
    plan.breakdown = engine::BreakdownPlan{
        .depth = o.depth,
        .top = static_cast<std::size_t>(o.top),
        .rank_by = o.pass == "forward"    ? engine::TimeOf::Inference
                   : o.pass == "backward" ? engine::TimeOf::Backward
                                          : engine::TimeOf::TrainingStep};
  }
  // With several reports measured times reach only the figures (a roofline per report).
  if (one_report) plan.measured = o.measured;

  if (o.prompt > 0) {
    // Inference phases: the network elaborated per phase with its seq_len and past parameters.
    plan.prompt = o.prompt;
    plan.generate = o.generate;
    plan.network_at = std::move(in.network_at);
    return plan;
  }

  engine::ScalingPlan& scaling = plan.scaling;
  if (!o.devices.empty())
    scaling.device_counts = o.devices_up_to && o.devices.size() == 1 ? engine::device_counts_up_to(o.devices.front()) : o.devices;
  scaling.link = o.link;
  scaling.scaling = o.scaling == "weak" ? engine::Scaling::Weak : engine::Scaling::Strong;
  scaling.overlap = o.overlap;
  if (o.dataset_size > 0) scaling.dataset_size = o.dataset_size;
  plan.correlate = std::move(in.correlate);
  return plan;
}

}  // namespace ridge::simulate
