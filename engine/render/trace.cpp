#include "engine/render/trace.hpp"
#include "engine/render/json_writer.hpp"
#include "engine/host_dispatch.hpp"

#include <algorithm>

namespace ridge::engine::render {
namespace {

constexpr double kMicro = 1e6;
constexpr int kPhaseTrack = 1, kComputeTrack = 2, kCommTrack = 3;

struct Comm {
  int devices = 1;
  std::string link;
  double link_bandwidth = 0, latency_s = 0;
  double allreduce_s = 0;
  double exposed_s = 0;        // the engine's (scaling.cpp): what the all-reduce adds to the step
  double gradient_bytes = 0;
  bool overlap = false;
};

void metadata(JsonWriter& w, const char* what, int tid, const std::string& name) {
  w.begin_object().key("name").value(what).key("ph").value("M").key("pid").value(0);
  if (tid >= 0) w.key("tid").value(tid);
  w.key("args").begin_object().key("name").value(name).end_object().end_object();
}

void slice_head(JsonWriter& w, const std::string& name, const char* cat, int tid, double start_s, double dur_s) {
  w.begin_object().key("name").value(name).key("cat").value(cat).key("ph").value("X")
      .key("ts").value(start_s * kMicro).key("dur").value(dur_s * kMicro).key("pid").value(0).key("tid").value(tid);
}

void pass_slice(JsonWriter& w, const LayerRow& row, const char* cat, const PassCost& c, const PassTime& t, double start) {
  slice_head(w, row.name, cat, kComputeTrack, start, t.paleo_s);
  w.key("args").begin_object()
      .key("op_class").value(ir::op_class_name(row.op_class))
      .key("flops").value(c.flops)
      .key("bytes_read").value(c.bytes_read)
      .key("bytes_written").value(c.bytes_written)
      .key("bytes").value(c.bytes())
      .key("intensity_flop_per_byte").value(t.intensity)
      .key("bound").value(bound_name(t.bound))
      .key("roofline_s").value(t.roofline_s)
      .key("paleo_s").value(t.paleo_s)
      .key("kernels").value(c.kernels)
      .key("peak").value(row.peak.describe())
      .end_object().end_object();
}

std::string build(const Report& r, const Comm& comm) {
  JsonWriter w;
  w.begin_object();
  w.key("displayTimeUnit").value("ms");
  w.key("otherData").begin_object()
      .key("network").value(r.network)
      .key("device").value(r.device.name)
      .key("batch_per_device").value(r.batch)
      .key("precision").value(ir::precision_name(r.precision))
      .key("devices").value(comm.devices)
      .key("time_model").value(r.totals.host_forward_op_s + r.totals.host_backward_op_s > 0
                                   ? "PALEO per layer, each layer once the host has issued it (engine/host_dispatch.hpp)"
                                   : "PALEO per layer, kernels back to back")
      .end_object();
  w.key("traceEvents").begin_array();
  metadata(w, "process_name", -1, comm.devices > 1 ? "rank 0 of " + std::to_string(comm.devices) + ": " + r.device.name
                                                     : r.device.name);
  metadata(w, "thread_name", kPhaseTrack, "training step");
  metadata(w, "thread_name", kComputeTrack, "compute");
  if (comm.devices > 1) metadata(w, "thread_name", kCommTrack, "communication (" + comm.link + ")");

  // The layers in the order the host issues them, each from when the GPU starts it (the engine's clock;
  // with no host time, back to back). The input is no call.
  HostClock clock;
  const double fwd_start = 0.0;
  for (std::size_t id = 1; id < r.layers.size(); ++id) {
    const LayerRow& row = r.layers[id];
    const double start = clock.issue(r.totals.host_forward_op_s, row.time_fwd_train.paleo_s);
    if (row.time_fwd_train.paleo_s > 0) pass_slice(w, row, "forward", row.fwd_train, row.time_fwd_train, start);   // views run nothing
  }
  const double bwd_start = clock.gpu_s();
  for (std::size_t id = r.layers.size(); id-- > 1;) {
    const LayerRow& row = r.layers[id];
    if (row.bwd.kernels <= 0) continue;
    const double start = clock.issue(r.totals.host_backward_op_s, row.time_bwd.paleo_s);
    if (row.time_bwd.paleo_s > 0) pass_slice(w, row, "backward", row.bwd, row.time_bwd, start);
  }
  const double bwd_end = clock.gpu_s();
  double t = bwd_end;

  // The all-reduce: after backward, or from its start when overlapped; the update waits for what the
  // engine says is exposed (scaling.hpp's model), not for a time computed here.
  double update_start = bwd_end;
  if (comm.devices > 1) {
    const double start = comm.overlap ? bwd_start : bwd_end;
    slice_head(w, "all-reduce (ring)", "allreduce", kCommTrack, start, comm.allreduce_s);
    w.key("args").begin_object()
        .key("bytes").value(comm.gradient_bytes)
        .key("devices").value(comm.devices)
        .key("link").value(comm.link)
        .key("link_bandwidth_bytes_per_s").value(comm.link_bandwidth)
        .key("latency_s").value(comm.latency_s)
        .key("seconds").value(comm.allreduce_s)
        .key("bound").value("communication")
        .key("overlapped_with_backward").value(comm.overlap)
        .end_object().end_object();
    update_start = bwd_end + comm.exposed_s;
  }

  // Update: one kernel per parameterised layer; the update's time is shared out by parameter count
  // (an elementwise, memory-bound step moves the same bytes per parameter) plus one launch each.
  const Totals& tot = r.totals;
  const double launch = r.device.launch_overhead_s;
  const double body_s = std::max(0.0, tot.time_update_s - tot.kernels_update * launch);
  const double body_roof = tot.roofline_update_s;
  t = update_start;
  for (const LayerRow& row : r.layers) {
    if (row.params <= 0 || tot.params <= 0) continue;
    const double share = row.params / tot.params;
    const double dur = body_s * share + launch;
    slice_head(w, row.name, "update", kComputeTrack, t, dur);
    w.key("args").begin_object()
        .key("optimizer").value(r.optimizer == "sgd" ? "SGD with momentum" : r.optimizer == "adam" ? "Adam" : "AdamW")
        .key("params").value(row.params)
        .key("flops").value(tot.flops_update * share)
        .key("bytes").value(tot.bytes_update * share)
        .key("bound").value("memory")
        .key("roofline_s").value(body_roof * share)
        .key("paleo_s").value(dur)
        .key("note").value("the update's time shared out by parameter count")
        .end_object().end_object();
    t += dur;
  }
  const double end = std::max(t, update_start);

  // Phase slices on their own track, so the per-layer slices need not nest inside them.
  auto phase = [&](const char* name, double s, double e) {
    if (e <= s) return;
    slice_head(w, name, "phase", kPhaseTrack, s, e - s);
    w.key("args").begin_object().key("seconds").value(e - s).end_object().end_object();
  };
  phase("forward", fwd_start, bwd_start);
  phase("backward", bwd_start, bwd_end);
  if (comm.devices > 1 && !comm.overlap) phase("all-reduce", bwd_end, update_start);
  phase("optimizer update", update_start, end);
  w.end_array();
  w.end_object();
  return w.take();
}

}  // namespace

std::string trace(const Report& report) { return build(report, {}); }

std::string trace(const ScalingReport& s, const ScalingPoint& p) {
  Comm c;
  c.devices = p.devices;
  c.link = s.link.name;
  c.link_bandwidth = s.link.bandwidth;
  c.latency_s = s.link.latency_s;
  c.allreduce_s = p.allreduce_s;
  c.exposed_s = p.exposed_comm_s;
  c.gradient_bytes = s.gradient_bytes;
  c.overlap = s.overlap;
  return build(p.per_device, c);
}

}  // namespace ridge::engine::render
