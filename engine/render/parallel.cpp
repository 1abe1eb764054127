#include "engine/render/parallel.hpp"

#include "engine/render/grid.hpp"
#include "engine/render/json_writer.hpp"
#include "engine/render/units.hpp"

#include <cstdio>

namespace ridge::engine::render {

namespace {

using parallel::CollectiveUse;
using parallel::PlanReport;
using parallel::StepResult;
using parallel::Traffic;


constexpr Traffic kTraffic[] = {Traffic::TensorParallel, Traffic::PipelineP2P, Traffic::DataParallel, Traffic::ZeroGather};

const CollectiveUse& traffic(const StepResult& s, Traffic t) { return s.traffic[static_cast<std::size_t>(t)]; }

std::string heading(const PlanReport& p) {
  std::string out = p.network + " on " + p.device + " (" + p.device_id + "), " + std::string(ir::precision_name(p.precision)) +
                    ", " + std::to_string(p.devices) + " devices, global batch " + std::to_string(p.global_batch);
  if (p.shape.is_transformer())
    out += "; " + std::to_string(p.shape.layers) + " layers, hidden " + std::to_string(p.shape.hidden) + ", " +
           std::to_string(p.shape.heads) + " heads, " + std::to_string(p.shape.seq) + " tokens";
  return out + "\n";
}

std::vector<std::string> row(const StepResult& s) {
  return {parallel::describe(s.strategy),
          si(s.step_s, "s"),
          percent(s.mfu),
          s.tokens_per_s > 0 ? si(s.tokens_per_s, "tok/s") : si(s.samples_per_s, "samples/s"),
          memory(s.memory.total()),
          percent(s.bubble_fraction),
          si(traffic(s, Traffic::TensorParallel).exposed_s, "s"),
          si(traffic(s, Traffic::PipelineP2P).exposed_s, "s"),
          si(s.data_parallel_exposed_s, "s")};
}

void strategy_json(JsonWriter& w, const StepResult& s) {
  const parallel::Strategy& st = s.strategy;
  w.begin_object();
  w.key("strategy").value(parallel::describe(st));
  w.key("tensor_parallel").value(st.tensor).key("pipeline_parallel").value(st.pipeline).key("data_parallel").value(st.data);
  w.key("micro_batch").value(st.micro_batch).key("micro_batches").value(s.micro_batches).key("global_batch").value(st.global_batch);
  w.key("interleave").value(st.interleave).key("sequence_parallel").value(st.sequence_parallel);
  w.key("recompute").value(recompute_name(st.recompute)).key("zero").value(st.zero).key("overlap").value(st.overlap);
  w.key("step_s").value(s.step_s).key("mfu").value(s.mfu);
  w.key("tokens_per_s").value(s.tokens_per_s).key("samples_per_s").value(s.samples_per_s);
  w.key("flops_per_device_per_s").value(s.hardware_flops_per_device_s);
  w.key("memory_per_device_bytes").value(s.memory.total());
  w.key("memory").begin_object();
  w.key("weights_bytes").value(s.memory.weights).key("gradients_bytes").value(s.memory.gradients);
  w.key("optimizer_bytes").value(s.memory.optimizer).key("activations_bytes").value(s.memory.activations);
  w.key("capacity_bytes").value(s.memory_capacity).key("fits").value(s.fits);
  w.end_object();
  w.key("bubble_fraction").value(s.bubble_fraction).key("bubble_s").value(s.bubble_s);
  w.key("forward_s").value(s.forward_s).key("backward_s").value(s.backward_s).key("pipeline_s").value(s.pipeline_s);
  w.key("data_parallel_exposed_s").value(s.data_parallel_exposed_s).key("update_s").value(s.update_s);
  w.key("overhead_s").value(s.overhead_s);
  w.key("collectives").begin_object();
  for (const Traffic t : kTraffic) {
    const CollectiveUse& c = traffic(s, t);
    w.key(parallel::traffic_name(t)).begin_object();
    w.key("kind").value(parallel::collective_name(c.kind)).key("bytes").value(c.bytes).key("ranks").value(c.ranks);
    w.key("seconds").value(c.seconds).key("calls").value(c.calls).key("exposed_s").value(c.exposed_s);
    w.key("bus_bandwidth").value(parallel::bus_bandwidth(c.kind, c.bytes, c.ranks, c.seconds));
    w.end_object();
  }
  w.end_object();
  w.end_object();
}

}  // namespace

std::string table(const PlanReport& p) {
  std::string out = heading(p);
  std::vector<std::vector<std::string>> rows{
      {"strategy", "step", "MFU", "throughput", "memory/device", "bubble/ideal", "TP comm", "PP p2p", "DP comm"}};
  for (const StepResult& s : p.strategies) rows.push_back(row(s));
  out += grid(rows);
  // Issue #41: "bubble 300.0 %" said nothing of what the ratio is of.
  out += "bubble/ideal: the pipeline's idle time over its bubble-free time, (P - 1) / (v m) for P stages, v virtual "
         "stages and m micro-batches (Narayanan et al. 2021); above 100 % with fewer micro-batches than stages\n";
  if (!p.search && p.strategies.size() == 1) {
    const StepResult& s = p.strategies.front();
    out += "\nper micro-batch (slowest stage): forward " + si(s.forward_s, "s") + ", backward " + si(s.backward_s, "s") + "; " +
           std::to_string(s.micro_batches) + " micro-batches\n";
    out += "step: pipeline " + si(s.pipeline_s, "s") + " (bubble " + si(s.bubble_s, "s") + ") + data-parallel exposed " +
           si(s.data_parallel_exposed_s, "s") + " + update " + si(s.update_s, "s") + " + overhead " + si(s.overhead_s, "s") +
           " = " + si(s.step_s, "s") + "\n";
    out += "memory/device: weights " + memory(s.memory.weights) + ", gradients " + memory(s.memory.gradients) +
           ", optimizer " + memory(s.memory.optimizer) + ", activations " + memory(s.memory.activations) + " = " +
           memory(s.memory.total()) + (s.memory_capacity > 0 ? std::string(s.fits ? " (fits in " : " (does NOT fit in ") +
                                                                     memory(s.memory_capacity) + ")"
                                                               : std::string()) + "\n\n";
    std::vector<std::vector<std::string>> coll{{"traffic", "collective", "size", "ranks", "per call", "busbw", "calls/step", "exposed/step"}};
    for (const Traffic t : kTraffic) {
      const CollectiveUse& c = traffic(s, t);
      if (c.calls <= 0) continue;
      coll.push_back({std::string(parallel::traffic_name(t)), std::string(parallel::collective_name(c.kind)), si(c.bytes, "B"),
                      std::to_string(c.ranks), si(c.seconds, "s"), si(parallel::bus_bandwidth(c.kind, c.bytes, c.ranks, c.seconds), "B/s"),
                      count(c.calls), si(c.exposed_s, "s")});
    }
    if (coll.size() > 1) out += grid(coll);
  }
  out += "\n";
  for (const Note& n : p.notes) out += line(n) + "\n";
  return out;
}

std::string csv(const PlanReport& p) {
  std::string out =
      "network,device,precision,devices,strategy,tensor_parallel,pipeline_parallel,data_parallel,micro_batch,interleave,"
      "sequence_parallel,recompute,zero,step_s,mfu,tokens_per_s,samples_per_s,memory_per_device_bytes,bubble_fraction,"
      "tensor_parallel_s,pipeline_p2p_s,data_parallel_s,zero_gather_s\n";
  const auto q = [](const std::string& s) {
    std::string o = "\"";
    for (const char c : valid_utf8(s)) o += c == '"' ? std::string("\"\"") : std::string(1, c);
    return o + "\"";
  };
  for (const StepResult& s : p.strategies) {
    const parallel::Strategy& st = s.strategy;
    out += q(p.network) + "," + q(p.device_id) + "," + std::string(ir::precision_name(p.precision)) + "," + std::to_string(p.devices) +
           "," + q(parallel::describe(st)) + "," + std::to_string(st.tensor) + "," + std::to_string(st.pipeline) + "," +
           std::to_string(st.data) + "," + std::to_string(st.micro_batch) + "," + std::to_string(st.interleave) + "," +
           (st.sequence_parallel ? "true" : "false") + "," + std::string(recompute_name(st.recompute)) + "," +
           std::to_string(st.zero) + "," + json_number(s.step_s) + "," + json_number(s.mfu) + "," + json_number(s.tokens_per_s) +
           "," + json_number(s.samples_per_s) + "," + json_number(s.memory.total()) + "," + json_number(s.bubble_fraction);
    for (const Traffic t : kTraffic) out += "," + json_number(traffic(s, t).exposed_s);
    out += "\n";
  }
  return out;
}

std::string json(const PlanReport& p) {
  JsonWriter w;
  w.begin_object();
  w.key("network").value(p.network).key("device").value(p.device).key("device_id").value(p.device_id);
  w.key("precision").value(ir::precision_name(p.precision)).key("devices").value(p.devices).key("global_batch").value(p.global_batch);
  w.key("transformer");
  if (p.shape.is_transformer()) {
    w.begin_object();
    w.key("layers").value(p.shape.layers).key("heads").value(p.shape.heads).key("seq").value(p.shape.seq);
    w.key("hidden").value(p.shape.hidden).key("vocab").value(p.shape.vocab);
    w.end_object();
  } else {
    w.null();
  }
  w.key("search").value(p.search).key("evaluated").value(static_cast<std::int64_t>(p.evaluated));
  w.key("fitting").value(static_cast<std::int64_t>(p.fitting));
  w.key("strategies").begin_array();
  for (const StepResult& s : p.strategies) strategy_json(w, s);
  w.end_array();
  w.key("notes").begin_array();
  for (const Note& n : p.notes)
    w.begin_object(true).key("severity").value(severity_name(n.severity)).key("id").value(n.id).key("note").value(n.text).end_object();
  w.end_array();
  w.end_object();
  return w.take();
}

}  // namespace ridge::engine::render
