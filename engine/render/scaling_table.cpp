#include "engine/render/scaling_table.hpp"
#include "engine/render/grid.hpp"
#include "engine/render/json_writer.hpp"
#include "engine/render/units.hpp"

#include <algorithm>
#include <cstdio>

namespace ridge::engine::render {
namespace {


// Epochs run for minutes or hours: "4.18 ks" reads worse than "69.7 min".
std::string duration(double s) {
  if (s >= 3600) return fixed(s / 3600, 2) + " h";
  if (s >= 60) return fixed(s / 60, 1) + " min";
  return si(s, "s");
}


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
                                "step", "throughput", "speedup", "efficiency", "comm share", "fits"};
  if (s.dataset_size) head.push_back("epoch");
  rows.push_back(head);
  bool any_unfit = false;
  for (const ScalingPoint& p : s.points) {
    std::vector<std::string> row{std::to_string(p.devices), std::to_string(p.per_device_batch),
                                 std::to_string(p.global_batch), si(p.compute_s, "s"), si(p.allreduce_s, "s"),
                                 si(p.exposed_comm_s, "s"), si(p.step_s, "s"), si(p.throughput, "samples/s"),
                                 fixed(p.speedup, 2) + "x", percent(p.efficiency), percent(p.comm_share)};
    // Issue #41: a row whose per-device batch does not fit printed its speedup as if it did.
    const std::optional<bool> fits = p.per_device.totals.fits_train;
    row.push_back(!fits ? "-" : *fits ? "yes" : "NO");
    if (!fits.value_or(true)) any_unfit = true;
    if (p.epoch_s) row.push_back(duration(*p.epoch_s));
    rows.push_back(row);
  }
  out += grid(rows, false);
  if (s.dataset_size) out += "\nepoch: " + std::to_string(*s.dataset_size) + " samples, the last step possibly short\n";
  if (any_unfit)
    out += "\nrows marked NO: the training step's memory at that batch per device does not fit the device; their "
           "times are what the step would take if it did\n";
  out += "\n";
  for (const Note& n : s.notes) out += std::string(severity_name(n.severity)) + ": " + n.text + "\n";
  return out;
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

}  // namespace ridge::engine::render
