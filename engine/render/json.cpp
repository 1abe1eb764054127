// JSON of a Report (SI base units: FLOP, B, s, FLOP/s, B/s, samples/s). Fields:
//   network, batch, dtype,
//   device {name, id, kind, peak_flops {dtype: FLOP/s a conv/linear/matmul gets}, vector_peak_flops,
//           matrix_peak_flops, bandwidth, memory_bytes (null when unknown), launch_overhead_s,
//           ridge_point, ridge_point_vector, peak_used_matmul, peak_used_other},
//   layers [{name, op, op_class, output_shape (batch first), params, macs, flops_fwd, flops_bwd,
//            bytes_fwd, bytes_bwd, bytes_read_fwd, bytes_written_fwd, bytes_read_bwd, bytes_written_bwd,
//            ai_fwd, ai_bwd, roofline_fwd_s, roofline_bwd_s, time_fwd_s, time_bwd_s, time_fwd_train_s,
//            bound_fwd, bound_bwd, peak_used}],
//   totals {params, macs, flops_fwd, flops_bwd, flops_update, bytes_fwd, bytes_bwd, roofline_fwd_s,
//           roofline_bwd_s, roofline_train_step_s, time_fwd_s, time_fwd_train_s, time_bwd_s, time_update_s,
//           time_train_step_s, throughput_train, throughput_infer, memory_infer_bytes,
//           memory_train_bytes, fits_infer, fits_train (null when unknown), weight_bytes, gradient_bytes,
//           master_weight_bytes, optimizer_state_bytes, saved_activation_bytes, peak_activation_bytes,
//           flops_recompute, time_recompute_s, mfu, hfu, tokens_per_sample, tokens_per_s_infer,
//           tokens_per_s_train, max_batch_infer, max_batch_train (0: none fits or no memory size)},
//   notes [string]
#include "json_writer.hpp"
#include "render.hpp"

#include "ir/ops.hpp"

namespace ridge::engine::render {
namespace {

void peaks(JsonWriter& w, const std::map<ir::Precision, double>& m) {
  w.begin_object();
  for (const auto& [p, v] : m) w.key(ir::precision_name(p)).value(v);
  w.end_object();
}

void optional_number(JsonWriter& w, const std::optional<double>& v) {
  if (v) w.value(*v);
  else w.null();
}

void optional_bool(JsonWriter& w, const std::optional<bool>& v) {
  if (v) w.value(*v);
  else w.null();
}

void device(JsonWriter& w, const DeviceSummary& d) {
  w.begin_object();
  w.key("name").value(d.name).key("id").value(d.id).key("kind").value(ir::device_kind_name(d.kind));
  w.key("peak_flops");
  peaks(w, d.matmul_peak);
  w.key("vector_peak_flops");
  peaks(w, d.vector_peak);
  w.key("matrix_peak_flops");
  peaks(w, d.matrix_peak);
  w.key("bandwidth").value(d.bandwidth);
  w.key("memory_bytes");
  optional_number(w, d.memory_bytes);
  w.key("launch_overhead_s").value(d.launch_overhead_s);
  w.key("ridge_point").value(d.ridge_point).key("ridge_point_vector").value(d.ridge_point_vector);
  w.key("peak_used_matmul").value(d.matmul_peak_used.describe());
  w.key("peak_used_other").value(d.vector_peak_used.describe());
  w.end_object();
}

void layer(JsonWriter& w, const LayerRow& l, std::int64_t batch) {
  w.begin_object();
  w.key("name").value(l.name).key("op").value(ir::op_name(l.op)).key("op_class").value(ir::op_class_name(l.op_class));
  w.key("output_shape").begin_array(true).value(batch);
  for (auto d : l.output_shape) w.value(d);
  w.end_array();
  w.key("params").value(l.params).key("macs").value(l.macs);
  w.key("flops_fwd").value(l.fwd.flops).key("flops_bwd").value(l.bwd.flops);
  w.key("bytes_fwd").value(l.fwd.bytes()).key("bytes_bwd").value(l.bwd.bytes());
  w.key("bytes_read_fwd").value(l.fwd.bytes_read).key("bytes_written_fwd").value(l.fwd.bytes_written);
  w.key("bytes_read_bwd").value(l.bwd.bytes_read).key("bytes_written_bwd").value(l.bwd.bytes_written);
  w.key("ai_fwd").value(l.time_fwd.intensity).key("ai_bwd").value(l.time_bwd.intensity);
  w.key("roofline_fwd_s").value(l.time_fwd.roofline_s).key("roofline_bwd_s").value(l.time_bwd.roofline_s);
  w.key("time_fwd_s").value(l.time_fwd.paleo_s).key("time_bwd_s").value(l.time_bwd.paleo_s);
  w.key("time_fwd_train_s").value(l.time_fwd_train.paleo_s);
  w.key("bound_fwd").value(bound_name(l.time_fwd.bound)).key("bound_bwd").value(bound_name(l.time_bwd.bound));
  w.key("peak_used").value(l.peak.describe());
  w.end_object();
}

void totals(JsonWriter& w, const Totals& t) {
  w.begin_object();
  w.key("params").value(t.params).key("macs").value(t.macs);
  w.key("flops_fwd").value(t.flops_fwd).key("flops_bwd").value(t.flops_bwd).key("flops_update").value(t.flops_update);
  w.key("bytes_fwd").value(t.bytes_fwd).key("bytes_bwd").value(t.bytes_bwd);
  w.key("roofline_fwd_s").value(t.roofline_fwd_s).key("roofline_bwd_s").value(t.roofline_bwd_s);
  w.key("roofline_train_step_s").value(t.roofline_train_step_s);
  w.key("time_fwd_s").value(t.time_fwd_s).key("time_fwd_train_s").value(t.time_fwd_train_s);
  w.key("time_bwd_s").value(t.time_bwd_s).key("time_update_s").value(t.time_update_s);
  w.key("time_train_step_s").value(t.time_train_step_s);
  w.key("throughput_train").value(t.throughput_train).key("throughput_infer").value(t.throughput_infer);
  w.key("memory_infer_bytes").value(t.memory_infer_bytes).key("memory_train_bytes").value(t.memory_train_bytes);
  w.key("fits_infer");
  optional_bool(w, t.fits_infer);
  w.key("fits_train");
  optional_bool(w, t.fits_train);
  w.key("weight_bytes").value(t.weight_bytes).key("gradient_bytes").value(t.gradient_bytes);
  w.key("master_weight_bytes").value(t.master_weight_bytes).key("optimizer_state_bytes").value(t.optimizer_state_bytes);
  w.key("saved_activation_bytes").value(t.saved_activation_bytes).key("peak_activation_bytes").value(t.peak_activation_bytes);
  w.key("flops_recompute").value(t.flops_recompute).key("time_recompute_s").value(t.time_recompute_s);
  w.key("mfu").value(t.mfu).key("hfu").value(t.hfu);
  w.key("tokens_per_sample").value(t.tokens_per_sample);
  w.key("tokens_per_s_infer").value(t.throughput_infer * t.tokens_per_sample);
  w.key("tokens_per_s_train").value(t.throughput_train * t.tokens_per_sample);
  w.key("max_batch_infer").value(t.max_batch_infer).key("max_batch_train").value(t.max_batch_train);
  w.end_object();
}

}  // namespace

std::string json(const Report& r) {
  JsonWriter w;
  w.begin_object();
  w.key("network").value(r.network).key("batch").value(r.batch).key("dtype").value(ir::precision_name(r.precision));
  w.key("device");
  device(w, r.device);
  w.key("layers").begin_array();
  for (const LayerRow& l : r.layers) layer(w, l, r.batch);
  w.end_array();
  w.key("totals");
  totals(w, r.totals);
  w.key("notes").begin_array();
  for (const auto& n : r.notes) w.value(n);
  w.end_array();
  w.end_object();
  return w.take();
}

// {network, rows [{device, device_id, batch, dtype, time_infer_s, time_train_s, roofline_infer_s,
//  roofline_train_s, throughput_infer, throughput_train, memory_infer_bytes, memory_train_bytes,
//  memory_bytes, fits_infer, fits_train}]}
std::string json(const Comparison& c) {
  JsonWriter w;
  w.begin_object();
  w.key("network").value(c.network);
  w.key("rows").begin_array();
  for (const ComparisonRow& r : c.rows) {
    w.begin_object();
    w.key("device").value(r.device).key("device_id").value(r.device_id).key("batch").value(r.batch);
    w.key("dtype").value(ir::precision_name(r.precision));
    w.key("time_infer_s").value(r.time_infer_s).key("time_train_s").value(r.time_train_s);
    w.key("roofline_infer_s").value(r.roofline_infer_s).key("roofline_train_s").value(r.roofline_train_s);
    w.key("throughput_infer").value(r.throughput_infer).key("throughput_train").value(r.throughput_train);
    w.key("memory_infer_bytes").value(r.memory_infer_bytes).key("memory_train_bytes").value(r.memory_train_bytes);
    w.key("memory_bytes");
    optional_number(w, r.memory_device_bytes);
    w.key("fits_infer");
    optional_bool(w, r.fits_infer);
    w.key("fits_train");
    optional_bool(w, r.fits_train);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return w.take();
}

}  // namespace ridge::engine::render
