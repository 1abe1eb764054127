// CSV (RFC 4180 quoting, LF line ends): one row per layer, or per device x batch; header names are the JSON field names.
// Numbers in SI base units with full precision; fields holding commas or quotes are quoted.
#include "json_writer.hpp"
#include "render.hpp"

#include "ir/ops.hpp"

namespace ridge::engine::render {
namespace {

std::string field(std::string_view text) {
  // Names may hold anything a .hw string or a file name can: keep the file UTF-8 and free of escape
  // sequences, and quote a field with a CR too (a bare CR ends a record for many readers).
  const std::string s = printable(text, "\t\n\r");
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string num(double d) { return json_number(d); }

std::string optional_bool(const std::optional<bool>& b) { return b ? (*b ? "true" : "false") : ""; }

std::string shape(std::int64_t batch, const ir::Shape& s) {
  ir::Shape full{batch};
  full.insert(full.end(), s.begin(), s.end());
  return ir::to_string(full);
}

}  // namespace

std::string csv(const Report& r) {
  std::string out =
      "name,op,op_class,output_shape,params,macs,flops_fwd,flops_bwd,bytes_fwd,bytes_bwd,ai_fwd,ai_bwd,"
      "roofline_fwd_s,roofline_bwd_s,time_fwd_s,time_bwd_s,time_fwd_train_s,bound_fwd,bound_bwd,peak_used,"
      "network,device_id,batch,dtype\n";
  for (const LayerRow& l : r.layers) {
    const std::string cells[] = {
        field(l.name), std::string(ir::op_name(l.op)), std::string(ir::op_class_name(l.op_class)),
        field(shape(r.batch, l.output_shape)), num(l.params), num(l.macs), num(l.fwd.flops), num(l.bwd.flops),
        num(l.fwd.bytes()), num(l.bwd.bytes()), num(l.time_fwd.intensity), num(l.time_bwd.intensity),
        num(l.time_fwd.roofline_s), num(l.time_bwd.roofline_s), num(l.time_fwd.paleo_s), num(l.time_bwd.paleo_s),
        num(l.time_fwd_train.paleo_s), std::string(bound_name(l.time_fwd.bound)),
        std::string(bound_name(l.time_bwd.bound)), l.peak.describe(), field(r.network), field(r.device.id),
        std::to_string(r.batch), std::string(ir::precision_name(r.precision))};
    for (std::size_t i = 0; i < std::size(cells); ++i) out += (i ? "," : "") + cells[i];
    out += "\n";
  }
  return out;
}

std::string csv(const Comparison& c) {
  std::string out =
      "network,device,device_id,batch,dtype,time_infer_s,time_train_s,roofline_infer_s,roofline_train_s,throughput_infer,"
      "throughput_train,memory_infer_bytes,memory_train_bytes,memory_bytes,fits_infer,fits_train\n";
  for (const ComparisonRow& r : c.rows) {
    const std::string cells[] = {field(c.network), field(r.device), field(r.device_id), std::to_string(r.batch),
                                 std::string(ir::precision_name(r.precision)), num(r.time_infer_s),
                                 num(r.time_train_s), num(r.roofline_infer_s), num(r.roofline_train_s),
                                 num(r.throughput_infer), num(r.throughput_train), num(r.memory_infer_bytes),
                                 num(r.memory_train_bytes), r.memory_device_bytes ? num(*r.memory_device_bytes) : "",
                                 optional_bool(r.fits_infer), optional_bool(r.fits_train)};
    for (std::size_t i = 0; i < std::size(cells); ++i) out += (i ? "," : "") + cells[i];
    out += "\n";
  }
  return out;
}

}  // namespace ridge::engine::render
