#include "scaling_table.hpp"
#include "grid.hpp"
#include "json_writer.hpp"
#include "units.hpp"

#include <algorithm>
#include <cstdio>

namespace ridge::engine::render {
namespace {

std::string percent(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", f * 100);
  return buf;
}

std::string fixed(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// Epochs run for minutes or hours: "4.18 ks" reads worse than "69.7 min".
std::string duration(double s) {
  if (s >= 3600) return fixed(s / 3600, 2) + " h";
  if (s >= 60) return fixed(s / 60, 1) + " min";
  return si(s, "s");
}

std::string csv_number(double v) { return json_number(v); }

// "(3)": built with append(), as GCC 12's -Wrestrict misfires on operator+ with one-character literals.
std::string paren(std::size_t n) {
  std::string s(1, '(');
  s.append(std::to_string(n)).push_back(')');
  return s;
}

}  // namespace

std::string table(const ScalingReport& s) {
  std::string out = "Data-parallel " + std::string(scaling_name(s.scaling)) + " scaling: " + s.network + " on " +
                    s.device + ", " + std::string(ir::precision_name(s.precision)) +
                    (s.overlap ? ", all-reduce overlapped with backward" : "") + "\n";
  if (!s.link.name.empty())
    out += "link: " + s.link.name + " " + si(s.link.bandwidth, "B/s") + " one direction, latency " +
           si(s.link.latency_s, "s") + (s.link.latency_default ? " (assumed)" : "") + "; gradients " +
           si(s.gradient_bytes, "B") + " (" + count(s.params) + " parameters)\n";
  out += "\n";
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> head{"devices", "batch/device", "global batch", "compute", "all-reduce", "exposed comm",
                                "step", "throughput", "speedup", "efficiency", "comm share"};
  if (s.dataset_size) head.push_back("epoch");
  rows.push_back(head);
  for (const ScalingPoint& p : s.points) {
    std::vector<std::string> row{std::to_string(p.devices), std::to_string(p.per_device_batch),
                                 std::to_string(p.global_batch), si(p.compute_s, "s"), si(p.allreduce_s, "s"),
                                 si(p.exposed_comm_s, "s"), si(p.step_s, "s"), si(p.throughput, "samples/s"),
                                 fixed(p.speedup, 2) + "x", percent(p.efficiency), percent(p.comm_share)};
    if (p.epoch_s) row.push_back(duration(*p.epoch_s));
    rows.push_back(row);
  }
  out += grid(rows, false);
  if (s.dataset_size) out += "\nepoch: " + std::to_string(*s.dataset_size) + " samples, the last step possibly short\n";
  out += "\n";
  for (const std::string& n : s.notes) out += "note: " + n + "\n";
  return out;
}

std::string csv(const ScalingReport& s) {
  std::string out =
      "network,device,precision,scaling,overlap,link,devices,per_device_batch,global_batch,forward_s,backward_s,"
      "update_s,compute_s,allreduce_s,exposed_comm_s,step_s,throughput_samples_per_s,speedup,efficiency,comm_share,"
      "steps_per_epoch,epoch_s\n";
  for (const ScalingPoint& p : s.points) {
    out += json_quote(s.network) + "," + json_quote(s.device_id) + "," + std::string(ir::precision_name(s.precision)) +
           "," + std::string(scaling_name(s.scaling)) + "," + (s.overlap ? "true" : "false") + "," + s.link.name + "," +
           std::to_string(p.devices) + "," + std::to_string(p.per_device_batch) + "," +
           std::to_string(p.global_batch) + "," + csv_number(p.forward_s) + "," + csv_number(p.backward_s) + "," +
           csv_number(p.update_s) + "," + csv_number(p.compute_s) + "," + csv_number(p.allreduce_s) + "," +
           csv_number(p.exposed_comm_s) + "," + csv_number(p.step_s) + "," + csv_number(p.throughput) + "," +
           csv_number(p.speedup) + "," + csv_number(p.efficiency) + "," + csv_number(p.comm_share) + "," +
           (p.steps_per_epoch ? std::to_string(*p.steps_per_epoch) : "") + "," +
           (p.epoch_s ? csv_number(*p.epoch_s) : "") + "\n";
  }
  return out;
}

std::string json(const ScalingReport& s) {
  JsonWriter w;
  w.begin_object()
      .key("network").value(s.network)
      .key("device").value(s.device)
      .key("device_id").value(s.device_id)
      .key("precision").value(ir::precision_name(s.precision))
      .key("scaling").value(scaling_name(s.scaling))
      .key("overlap").value(s.overlap)
      .key("params").value(s.params)
      .key("gradient_bytes").value(s.gradient_bytes);
  w.key("link");
  if (s.link.name.empty()) {
    w.null();
  } else {
    w.begin_object().key("name").value(s.link.name).key("bandwidth_bytes_per_s").value(s.link.bandwidth)
        .key("latency_s").value(s.link.latency_s).key("latency_default").value(s.link.latency_default).end_object();
  }
  w.key("dataset_size");
  if (s.dataset_size) w.value(*s.dataset_size); else w.null();
  w.key("points").begin_array();
  for (const ScalingPoint& p : s.points) {
    w.begin_object()
        .key("devices").value(p.devices)
        .key("per_device_batch").value(p.per_device_batch)
        .key("global_batch").value(p.global_batch)
        .key("forward_s").value(p.forward_s)
        .key("backward_s").value(p.backward_s)
        .key("update_s").value(p.update_s)
        .key("compute_s").value(p.compute_s)
        .key("allreduce_s").value(p.allreduce_s)
        .key("exposed_comm_s").value(p.exposed_comm_s)
        .key("step_s").value(p.step_s)
        .key("throughput_samples_per_s").value(p.throughput)
        .key("speedup").value(p.speedup)
        .key("efficiency").value(p.efficiency)
        .key("comm_share").value(p.comm_share);
    w.key("steps_per_epoch");
    if (p.steps_per_epoch) w.value(*p.steps_per_epoch); else w.null();
    w.key("epoch_s");
    if (p.epoch_s) w.value(*p.epoch_s); else w.null();
    w.end_object();
  }
  w.end_array();
  w.key("notes").begin_array();
  for (const std::string& n : s.notes) w.value(n);
  w.end_array().end_object();
  return w.take();
}

std::string table(const RankCorrelation& c) {
  std::string out = "Spearman rank correlation across " + std::to_string(c.networks.size()) + " networks\n\n";
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> head{""};
  for (std::size_t j = 0; j < c.variables.size(); ++j) head.push_back(paren(j + 1));
  rows.push_back(head);
  for (std::size_t i = 0; i < c.variables.size(); ++i) {
    std::vector<std::string> row{paren(i + 1).append(" ").append(c.variables[i])};
    for (std::size_t j = 0; j < c.variables.size(); ++j) row.push_back(c.rho[i][j] ? fixed(*c.rho[i][j], 3) : "-");
    rows.push_back(row);
  }
  out += grid(rows) + "\n";
  std::vector<std::vector<std::string>> values;
  std::vector<std::string> vhead{"network"};
  for (std::size_t j = 0; j < c.variables.size(); ++j) vhead.push_back(paren(j + 1));
  values.push_back(vhead);
  for (std::size_t n = 0; n < c.networks.size(); ++n) {
    std::vector<std::string> row{c.networks[n]};
    for (std::size_t j = 0; j < c.variables.size(); ++j) {
      const double v = c.values[j][n];
      row.push_back(j == 0 ? si(v, "FLOP") : j == 1 ? count(v) : si(v, "s"));
    }
    values.push_back(row);
  }
  out += grid(values);
  out += "\nnote: rho is Pearson's correlation of the ranks, ties sharing their mean rank; '-' where a variable is constant or there are fewer than 2 networks\n";
  return out;
}

std::string csv(const RankCorrelation& c) {
  std::string out = "variable";
  for (const std::string& v : c.variables) out.append(",").append(json_quote(v));
  out += "\n";
  for (std::size_t i = 0; i < c.variables.size(); ++i) {
    out += json_quote(c.variables[i]);
    for (std::size_t j = 0; j < c.variables.size(); ++j)
      out.append(",").append(c.rho[i][j] ? json_number(*c.rho[i][j]) : std::string());
    out += "\n";
  }
  return out;
}

std::string json(const RankCorrelation& c) {
  JsonWriter w;
  w.begin_object().key("method").value("spearman").key("networks").begin_array();
  for (const std::string& n : c.networks) w.value(n);
  w.end_array().key("variables").begin_array();
  for (const std::string& v : c.variables) w.value(v);
  w.end_array().key("values").begin_array();
  for (const auto& col : c.values) {
    w.begin_array(true);
    for (const double v : col) w.value(v);
    w.end_array();
  }
  w.end_array().key("rho").begin_array();
  for (const auto& row : c.rho) {
    w.begin_array(true);
    for (const auto& v : row) {
      if (v) w.value(*v); else w.null();
    }
    w.end_array();
  }
  w.end_array().end_object();
  return w.take();
}

}  // namespace ridge::engine::render
