#include "engine/breakdown.hpp"

#include "lang/ir/ops.hpp"

#include <algorithm>
#include <map>
#include <numeric>

namespace ridge::engine {
namespace {

BreakdownRow row_of(const LayerRow& l) {
  BreakdownRow r;
  r.name = l.name;
  r.op = std::string(ir::op_name(l.op));
  r.layers = 1;
  r.params = l.params;
  r.macs = l.macs;
  r.flops_fwd = l.fwd.flops;
  r.bytes_fwd = l.fwd.bytes();
  r.time_fwd_s = l.time_fwd.paleo_s;
  r.flops_bwd = l.bwd.flops;
  r.bytes_bwd = l.bwd.bytes();
  r.time_bwd_s = l.time_bwd.paleo_s;
  r.time_train_s = l.time_fwd_train.paleo_s + l.time_bwd.paleo_s;
  return r;
}

void add(BreakdownRow& sum, const BreakdownRow& r) {
  sum.layers += r.layers;
  sum.params += r.params;
  sum.macs += r.macs;
  sum.flops_fwd += r.flops_fwd;
  sum.bytes_fwd += r.bytes_fwd;
  sum.time_fwd_s += r.time_fwd_s;
  sum.flops_bwd += r.flops_bwd;
  sum.bytes_bwd += r.bytes_bwd;
  sum.time_bwd_s += r.time_bwd_s;
  sum.time_train_s += r.time_train_s;
}

// "layer1.bottleneck1.conv1" at depth 1 -> "layer1"; at depth 5 -> the whole name.
std::string prefix(const std::string& name, int depth) {
  std::size_t at = 0;
  for (int d = 0; d < depth; ++d) {
    at = name.find('.', at);
    if (at == std::string::npos) return name;
    if (d + 1 < depth) ++at;
  }
  return name.substr(0, at);
}

}  // namespace

std::vector<BreakdownRow> kernel_rows(const Report& report) {
  std::vector<BreakdownRow> rows;
  std::map<std::string, std::size_t> at;   // kernel (its first layer's name) -> row
  for (std::size_t i = 1; i < report.layers.size(); ++i) {
    const LayerRow& l = report.layers[i];
    if (l.kernel.empty()) {
      rows.push_back(row_of(l));
      continue;
    }
    const auto [it, added] = at.try_emplace(l.kernel, rows.size());
    if (added) {
      rows.push_back(row_of(l));
      rows.back().name = l.kernel;
      if (l.name != l.kernel) rows.back().name += "+" + l.name.substr(l.name.rfind('.') + 1);
      continue;
    }
    BreakdownRow& sum = rows[it->second];
    add(sum, row_of(l));
    sum.name += "+" + l.name.substr(l.name.rfind('.') + 1);
    sum.op += "+" + std::string(ir::op_name(l.op));
  }
  return rows;
}

bool has_fused_kernels(const Report& report) {
  return std::any_of(report.layers.begin(), report.layers.end(), [](const LayerRow& l) { return !l.kernel.empty(); });
}

double time_of(const BreakdownRow& row, TimeOf time) {
  switch (time) {
    case TimeOf::Inference: return row.time_fwd_s;
    case TimeOf::Backward: return row.time_bwd_s;
    case TimeOf::TrainingStep: return row.time_train_s;
  }
  return row.time_train_s;
}

std::vector<BreakdownRow> layer_rows(const Report& report) {
  std::vector<BreakdownRow> rows;
  for (const LayerRow& l : report.layers)
    if (l.op != ir::Op{}) rows.push_back(row_of(l));
  return rows;
}

std::vector<BreakdownRow> block_rows(const Report& report, int depth) {
  std::vector<BreakdownRow> blocks;
  std::map<std::string, std::size_t> index;
  for (const BreakdownRow& layer : layer_rows(report)) {
    const std::string key = prefix(layer.name, std::max(depth, 1));
    const auto [it, fresh] = index.emplace(key, blocks.size());
    if (fresh) {
      blocks.push_back(layer);
      blocks.back().name = key;
      if (key != layer.name) blocks.back().op.clear();
      continue;
    }
    BreakdownRow& block = blocks[it->second];
    add(block, layer);
    block.op.clear();
  }
  return blocks;
}

void rank_by_time(std::vector<BreakdownRow>& rows, TimeOf time, std::size_t keep) {
  const double total = std::accumulate(rows.begin(), rows.end(), 0.0,
                                       [&](double s, const BreakdownRow& r) { return s + time_of(r, time); });
  std::stable_sort(rows.begin(), rows.end(),
                   [&](const BreakdownRow& a, const BreakdownRow& b) { return time_of(a, time) > time_of(b, time); });
  double running = 0.0;
  for (BreakdownRow& r : rows) {
    r.share = total > 0 ? time_of(r, time) / total : 0.0;
    running += r.share;
    r.cumulative = running;
  }
  if (keep > 0 && rows.size() > keep) rows.resize(keep);
}

}  // namespace ridge::engine
