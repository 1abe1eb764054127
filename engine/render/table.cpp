// The human-readable table, in torchinfo's spirit: a layer table, then summary blocks. Numbers carry
// SI prefixes and units (engine/render/units.hpp); views that run nothing show "-".
#include "engine/render/render.hpp"
#include "engine/render/units.hpp"
#include "engine/render/json_writer.hpp"

#include "lang/ir/ops.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>

namespace ridge::engine::render {
namespace {

struct Column {
  std::string header;
  bool right = true;   // numbers right-aligned, names left
};

std::string pad(const std::string& s, std::size_t width, bool right) {
  // Width in code points, so "µ"-free output stays aligned; we only print ASCII in cells.
  if (s.size() >= width) return s;
  const std::string fill(width - s.size(), ' ');
  return right ? fill + s : s + fill;
}

// What table_cell() leaves unchanged: printable ASCII (tabs kept) no longer than kMaxCell. Nearly every
// cell is one, so grid() tests instead of copying each through table_cell().
bool clean_cell(std::string_view s) {
  if (s.size() > kMaxCell) return false;
  return std::all_of(s.begin(), s.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return (c >= 0x20 && c < 0x7F) || ch == '\t';
  });
}

// Cells made table cells in place; then the width of each column (at least its header's).
std::vector<std::size_t> clean_and_measure(const std::vector<Column>& cols, std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width(cols.size());
  for (std::size_t c = 0; c < cols.size(); ++c) width[c] = cols[c].header.size();
  for (auto& row : rows)
    for (std::size_t c = 0; c < cols.size(); ++c) {
      if (!clean_cell(row[c])) row[c] = table_cell(row[c]);
      width[c] = std::max(width[c], row[c].size());
    }
  return width;
}

std::size_t rule_width(const std::vector<std::size_t>& width) {
  std::size_t total = 0;
  for (auto w : width) total += w + 2;
  return total > 2 ? total - 2 : 0;
}

// The table of rows already cleaned, in columns of `width`: written straight into one string, as the
// layer table of a 1,400-layer network is 10^4 cells and per-cell temporaries were most of its cost.
std::string render_grid(const std::vector<Column>& cols, const std::vector<std::vector<std::string>>& rows,
                        const std::vector<std::size_t>& width) {
  const std::size_t rule = rule_width(width);
  std::string out;
  out.reserve((rule + 1) * (rows.size() + 4));
  const auto line = [&](auto&& cell, bool header) {
    const std::size_t start = out.size();
    for (std::size_t c = 0; c < cols.size(); ++c) {
      const std::string& text = cell(c);
      const std::size_t fill = text.size() < width[c] ? width[c] - text.size() : 0;
      if (c) out.append(2, ' ');
      const bool right = header ? false : cols[c].right;
      if (right) out.append(fill, ' ');
      out += text;
      if (!right) out.append(fill, ' ');
    }
    std::size_t end = out.size();
    while (end > start && out[end - 1] == ' ') --end;
    out.resize(end);
    out += '\n';
  };
  out.append(rule, '=').append(1, '\n');
  line([&](std::size_t c) -> const std::string& { return cols[c].header; }, true);
  out.append(rule, '=').append(1, '\n');
  for (const auto& row : rows) line([&](std::size_t c) -> const std::string& { return row[c]; }, false);
  out.append(rule, '=').append(1, '\n');
  return out;
}

std::string grid(const std::vector<Column>& cols, std::vector<std::vector<std::string>> rows) {
  const std::vector<std::size_t> width = clean_and_measure(cols, rows);
  return render_grid(cols, rows, width);
}

// "[batch, 3, 224, 224]", as ir::to_string() of the shape with the batch in front, without building it.
std::string shape(std::int64_t batch, const ir::Shape& s) {
  std::string out;
  out.reserve(8 + 8 * s.size());
  char buf[24];
  const auto dim = [&](std::int64_t v) { out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr); };
  out += '[';
  dim(batch);
  for (const std::int64_t d : s) {
    out += ", ";
    dim(d);
  }
  out += ']';
  return out;
}

bool runs(const PassCost& c) { return c.kernels > 0 || c.bytes() > 0 || c.flops > 0; }

std::string time_cell(const PassCost& c, double seconds) { return runs(c) ? si(seconds, "s") : "-"; }

std::string fit(const std::optional<bool>& f, const std::optional<double>& size) {
  if (!f) return "device memory unknown";
  return (*f ? "fits in " : "DOES NOT FIT in ") + memory(*size);
}

std::string peaks_line(const DeviceSummary& d) {
  std::string s;
  for (const ir::Precision p : ir::all_precisions()) {
    const auto v = d.vector_peak.find(p);
    const auto m = d.matrix_peak.find(p);
    if (v == d.vector_peak.end() && m == d.matrix_peak.end()) continue;
    if (!s.empty()) s += "; ";
    s += std::string(ir::precision_name(p)) + " ";
    if (v != d.vector_peak.end()) s += si(v->second, rate_unit(p)) + " vector";
    if (v != d.vector_peak.end() && m != d.matrix_peak.end()) s += ", ";
    if (m != d.matrix_peak.end()) s += si(m->second, rate_unit(p)) + " matrix";
  }
  return s.empty() ? "none given" : s;
}

// `first` then `text` broken at spaces so no line passes kWidth; later lines start with `indent`
// spaces. A word longer than the line stays whole.
constexpr std::size_t kWidth = 120;
std::string wrapped(const std::string& first, const std::string& text, std::size_t indent) {
  std::string out = first;
  std::size_t column = first.size();
  std::size_t at = 0;
  bool line_start = true;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find(' ', at), text.size());
    const std::string word = text.substr(at, end - at);
    if (!line_start && column + 1 + word.size() > kWidth) {
      out += "\n" + std::string(indent, ' ');
      column = indent;
      line_start = true;
    }
    if (!line_start) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
    line_start = false;
    at = end + 1;
  }
  return out + "\n";
}

// "+12.5 %" (signed) or "12.5 %" of a fraction; "-" when there is none.
std::string percent_or_dash(const std::optional<double>& fraction, bool sign) {
  return fraction ? render::percent(*fraction, true, sign) : "-";
}

// The columns of one pass in the layer table, in order; each mode shows a subset.
enum class PassColumns { Wide, Detail, Brief, TimeOnly };
enum class PassColumn { Flops, Bytes, Intensity, Bound, Roofline, Paleo };
std::vector<PassColumn> pass_columns(PassColumns mode) {
  switch (mode) {
    case PassColumns::Wide:
      return {PassColumn::Flops, PassColumn::Bytes, PassColumn::Intensity, PassColumn::Bound, PassColumn::Roofline, PassColumn::Paleo};
    case PassColumns::Detail: return {PassColumn::Flops, PassColumn::Intensity, PassColumn::Bound, PassColumn::Paleo};
    case PassColumns::Brief: return {PassColumn::Flops, PassColumn::Bound, PassColumn::Paleo};
    case PassColumns::TimeOnly: return {PassColumn::Paleo};
  }
  return {};
}

Column pass_header(PassColumn c, const std::string& pass) {
  switch (c) {
    case PassColumn::Flops: return {"FLOPs " + pass};
    case PassColumn::Bytes: return {"Bytes " + pass};
    case PassColumn::Intensity: return {"AI " + pass};
    case PassColumn::Bound: return {"Bound " + pass, false};
    case PassColumn::Roofline: return {"Roofline " + pass};
    case PassColumn::Paleo: return {"Time " + pass};
  }
  return {};
}

std::string pass_cell(PassColumn col, const PassCost& c, const PassTime& t) {
  const bool ran = runs(c);
  switch (col) {
    case PassColumn::Flops: return ran ? si(c.flops, "FLOP") : "-";
    case PassColumn::Bytes: return ran ? si(c.bytes(), "B") : "-";
    case PassColumn::Intensity: return ran ? ratio(t.intensity, "FLOP/B") : "-";
    case PassColumn::Bound: return std::string(bound_name(t.bound));
    case PassColumn::Roofline: return time_cell(c, t.roofline_s);
    case PassColumn::Paleo: return time_cell(c, t.paleo_s);
  }
  return "-";
}

// "features.blo...citation.conv2": the head and the tail of a name longer than `cap`.
std::string elided(const std::string& name, std::size_t cap) {
  if (name.size() <= cap) return name;
  const std::size_t head = (cap - 3) / 2;
  return name.substr(0, head) + "..." + name.substr(name.size() - (cap - 3 - head));
}

std::string summary(const Report& r, PassView view) {
  const Totals& t = r.totals;
  const DeviceSummary& d = r.device;
  const double b = static_cast<double>(r.batch);
  std::string s;
  auto row = [&](const std::string& label, const std::string& text) { s += wrapped("  " + pad(label, 16, false), text, 18); };
  s += "Totals (" + r.network + ", batch " + std::to_string(r.batch) + ", " + std::string(ir::precision_name(r.precision)) +
       ")\n";
  row("params", count(t.params) + " (" + memory(t.weight_bytes) + " of weights)");
  row("MACs", si(t.macs, "MAC") + " (" + si(t.macs / b, "MAC") + " per sample)");
  row("FLOPs", "forward " + si(t.flops_fwd, "FLOP") + ", backward " + si(t.flops_bwd, "FLOP") + ", update " +
                   si(t.flops_update, "FLOP"));
  row("bytes", "forward " + si(t.bytes_fwd, "B") + ", backward " + si(t.bytes_bwd, "B") + ", update " +
                   si(t.bytes_update, "B"));
  const auto tokens = [&](double samples_per_s) {
    return t.tokens_per_sample > 0 ? ", " + si(samples_per_s * t.tokens_per_sample, "tokens/s") : std::string();
  };
  if (view != PassView::Backward)
    row("inference", "roofline " + si(t.roofline_fwd_s, "s") + ", predicted " + si(t.time_fwd_s, "s") + ", " +
                         si(t.throughput_infer, "samples/s") + tokens(t.throughput_infer));
  if (view != PassView::Forward)
    row("backward", "roofline " + si(t.roofline_bwd_s, "s") + ", predicted " + si(t.time_bwd_s, "s"));
  if (view == PassView::Train)
    row("training step", "roofline " + si(t.roofline_train_step_s, "s") + ", predicted " + si(t.time_train_step_s, "s") +
                             " (forward " + si(t.time_fwd_train_s, "s") + " + backward " + si(t.time_bwd_s, "s") +
                             (t.time_recompute_s > 0 ? " + recompute " + si(t.time_recompute_s, "s") : std::string()) +
                             " + update " + si(t.time_update_s, "s") + "), " + si(t.throughput_train, "samples/s") +
                             tokens(t.throughput_train) + "; MFU " + ratio(100.0 * t.mfu, "%") +
                             (t.flops_recompute > 0 ? ", HFU " + ratio(100.0 * t.hfu, "%") : std::string()));
  row("memory", "inference " + memory(t.memory_infer_bytes) + " (weights + peak live activations " +
                    memory(t.peak_activation_bytes) + "): " + fit(t.fits_infer, d.memory_bytes));
  row("", "training " + memory(t.memory_train_bytes) + " (weights " + memory(t.train_weight_bytes) +
              " + gradients " + memory(t.gradient_bytes) +
              (t.master_weight_bytes > 0 ? " + fp32 master weights " + memory(t.master_weight_bytes) : std::string()) +
              " + optimizer states " + memory(t.optimizer_state_bytes) + " + saved activations " +
              memory(t.saved_activation_bytes) + "): " + fit(t.fits_train, d.memory_bytes));
  if (d.memory_bytes)
    row("largest batch", "that fits: inference " + std::to_string(t.max_batch_infer) + ", training " +
                             std::to_string(t.max_batch_train));
  s += "Device: " + printable(d.name) + (d.id.empty() ? "" : " (" + printable(d.id) + ")") + ", " + std::string(ir::device_kind_name(d.kind)) +
       "\n";
  row("peaks", peaks_line(d));
  row("bandwidth", si(d.bandwidth, "B/s"));
  row("memory", d.memory_bytes ? memory(*d.memory_bytes) : "not given");
  row("ridge point", si(d.ridge_point, intensity_unit(d.matmul_peak_used.precision)) + " for conv/linear/matmul (" +
                         d.matmul_peak_used.describe() + "), " + si(d.ridge_point_vector, intensity_unit(d.vector_peak_used.precision)) +
                         " for other ops (" + d.vector_peak_used.describe() + ")");
  row("launch", d.launch_overhead_from_device ? si(d.launch_overhead_s, "s") + " per kernel" : "not given (0 s assumed)");
  s += "Notes\n";
  for (const Note& n : r.notes) s += wrapped("  ", line(n), 4);
  return s;
}

}  // namespace

std::string table(const Report& r, PassView view, bool wide) {
  const bool fwd = view != PassView::Backward;
  const bool bwd = view != PassView::Forward;
  // Wide: every column of each pass. Default, to fit 120 columns: one pass alone in detail (FLOPs,
  // intensity, bound, time); for training, the forward's FLOPs, bound and time and the backward's time.
  const PassColumns fwd_mode = wide ? PassColumns::Wide : view == PassView::Forward ? PassColumns::Detail : PassColumns::Brief;
  const PassColumns bwd_mode = wide ? PassColumns::Wide : view == PassView::Backward ? PassColumns::Detail : PassColumns::TimeOnly;
  const std::vector<PassColumn> fwd_cols = fwd ? pass_columns(fwd_mode) : std::vector<PassColumn>{};
  const std::vector<PassColumn> bwd_cols = bwd ? pass_columns(bwd_mode) : std::vector<PassColumn>{};
  std::vector<Column> cols{{"Layer", false}, {"Op", false}, {"Output shape", false}, {"Params"}, {"MACs"}};
  for (const PassColumn c : fwd_cols) cols.push_back(pass_header(c, "fwd"));
  for (const PassColumn c : bwd_cols) cols.push_back(pass_header(c, "bwd"));
  std::vector<std::vector<std::string>> rows;
  rows.reserve(r.layers.size());
  for (const LayerRow& l : r.layers) {
    std::vector<std::string>& cells = rows.emplace_back();
    cells.reserve(cols.size());
    cells.push_back(l.name);
    cells.emplace_back(ir::op_name(l.op));
    cells.push_back(shape(r.batch, l.output_shape));
    cells.push_back(l.params > 0 ? count(l.params) : "-");
    cells.push_back(l.macs > 0 ? si(l.macs, "") : "-");
    for (const PassColumn c : fwd_cols) cells.push_back(pass_cell(c, l.fwd, l.time_fwd));
    for (const PassColumn c : bwd_cols) cells.push_back(pass_cell(c, l.bwd, l.time_bwd));
  }
  std::vector<std::size_t> width = clean_and_measure(cols, rows);
  if (!wide) {
    // Long layer names (features.block3.mbconv2.squeeze_excitation.conv2) are cut in the middle until
    // the table fits, down to 10 characters. Decided from the widths alone, so the table is written once.
    const std::size_t line_width = rule_width(width);
    std::size_t longest = 0;
    // elided() cuts the name as given (the layer's), not its cleaned cell.
    for (const LayerRow& l : r.layers) longest = std::max(longest, l.name.size());
    if (line_width > kWidth && longest > 10) {
      const std::size_t cap = std::max<std::size_t>(10, longest - std::min(longest, line_width - kWidth));
      width[0] = cols[0].header.size();
      for (std::size_t i = 0; i < rows.size(); ++i) {
        std::string cut = elided(r.layers[i].name, cap);
        rows[i].front() = clean_cell(cut) ? std::move(cut) : table_cell(cut);
        width[0] = std::max(width[0], rows[i].front().size());
      }
    }
  }
  const std::string layers = render_grid(cols, rows, width);
  return layers + summary(r, view);
}

std::string table(const Report& r, const std::vector<BreakdownRow>& rows, PassView view, bool ranked) {
  const bool fwd = view != PassView::Backward;
  const bool bwd = view != PassView::Forward;
  const bool blocks = std::any_of(rows.begin(), rows.end(), [](const BreakdownRow& b) { return b.op.empty(); });
  std::vector<Column> cols{{blocks ? "Block" : "Layer", false}, {blocks ? "Layers" : "Op", blocks}, {"Params"}, {"MACs"}};
  if (fwd) cols.insert(cols.end(), {{"FLOPs fwd"}, {"Bytes fwd"}, {"Time fwd"}});
  if (bwd) cols.insert(cols.end(), {{"FLOPs bwd"}, {"Bytes bwd"}, {"Time bwd"}});
  if (fwd && bwd) cols.push_back({"Time train f+b"});
  if (ranked) cols.insert(cols.end(), {{"Share"}, {"Cumulative"}});
  std::vector<std::vector<std::string>> cells;
  for (const BreakdownRow& b : rows) {
    std::vector<std::string> row{b.name, blocks ? std::to_string(b.layers) : b.op, b.params > 0 ? count(b.params) : "-",
                                 b.macs > 0 ? si(b.macs, "") : "-"};
    if (fwd) row.insert(row.end(), {si(b.flops_fwd, "FLOP"), si(b.bytes_fwd, "B"), si(b.time_fwd_s, "s")});
    if (bwd) row.insert(row.end(), {si(b.flops_bwd, "FLOP"), si(b.bytes_bwd, "B"), si(b.time_bwd_s, "s")});
    if (fwd && bwd) row.push_back(si(b.time_train_s, "s"));
    if (ranked) row.insert(row.end(), {percent_or_dash(b.share, false), percent_or_dash(b.cumulative, false)});
    cells.push_back(std::move(row));
  }
  return grid(cols, std::move(cells)) + summary(r, view);
}

std::string table(const Report& r, const MeasuredComparison& m, PassView view) {
  const bool fwd = view != PassView::Backward;
  const bool bwd = view != PassView::Forward;
  std::vector<Column> cols{{"Layer", false}, {"Op", false}};
  if (fwd) cols.insert(cols.end(), {{"Time fwd"}, {"Measured fwd"}, {"Error fwd"}});
  if (bwd) cols.insert(cols.end(), {{"Time bwd"}, {"Measured bwd"}, {"Error bwd"}});
  std::vector<std::vector<std::string>> rows;
  for (const MeasuredRow& l : m.rows) {
    std::vector<std::string> row{l.name, l.op};
    if (fwd) row.insert(row.end(), {si(l.predicted_fwd_s, "s"), l.measured_fwd_s ? si(*l.measured_fwd_s, "s") : "-", percent_or_dash(l.error_fwd(), true)});
    if (bwd) row.insert(row.end(), {si(l.predicted_bwd_s, "s"), l.measured_bwd_s ? si(*l.measured_bwd_s, "s") : "-", percent_or_dash(l.error_bwd(), true)});
    rows.push_back(std::move(row));
  }
  std::string s = grid(cols, std::move(rows)) + "Measured (the layer passes the CSV times)\n";
  auto pass_line = [&](const char* label, std::size_t matched, double predicted, double measured, const std::optional<double>& median) {
    const std::string text =
        std::to_string(matched) + " of " + std::to_string(m.rows.size()) + " layers" +
        (matched ? ": predicted " + si(predicted, "s") + ", measured " + si(measured, "s") + " (" +
                       percent_or_dash(measured > 0 ? std::optional<double>((predicted - measured) / measured) : std::nullopt, true) +
                       "), median |error| per layer " + percent_or_dash(median, false)
                 : std::string());
    s += wrapped("  " + pad(label, 16, false), text, 18);
  };
  if (fwd) pass_line("forward", m.matched_fwd, m.predicted_fwd_s, m.measured_fwd_s, m.median_abs_error_fwd);
  if (bwd) pass_line("backward", m.matched_bwd, m.predicted_bwd_s, m.measured_bwd_s, m.median_abs_error_bwd);
  if (!m.unknown.empty()) {
    std::string names;
    for (std::size_t i = 0; i < std::min<std::size_t>(m.unknown.size(), 5); ++i) names += (i ? ", " : "") + m.unknown[i];
    if (m.unknown.size() > 5) names += ", and " + std::to_string(m.unknown.size() - 5) + " more";
    s += wrapped("  " + pad("not in network", 16, false), names, 18);
  }
  return s + summary(r, view);
}

std::string table(const Comparison& c, PassView view) {
  std::vector<Column> cols{{"Device", false}, {"Batch"}, {"Dtype", false}};
  if (view != PassView::Backward) cols.insert(cols.end(), {{"Infer time"}, {"Infer samples/s"}, {"Infer memory"}, {"Fits", false}});
  if (view != PassView::Forward) cols.insert(cols.end(), {{"Train step"}, {"Train samples/s"}, {"Train memory"}, {"Fits", false}});
  auto fits = [](const std::optional<bool>& f) { return f ? (*f ? std::string("yes") : std::string("NO")) : std::string("?"); };
  std::vector<std::vector<std::string>> rows;
  for (const ComparisonRow& r : c.rows) {
    std::vector<std::string> cells{r.device, std::to_string(r.batch), std::string(ir::precision_name(r.precision))};
    if (view != PassView::Backward)
      cells.insert(cells.end(), {si(r.time_infer_s, "s"), si(r.throughput_infer, ""), memory(r.memory_infer_bytes),
                                 fits(r.fits_infer)});
    if (view != PassView::Forward)
      cells.insert(cells.end(), {si(r.time_train_s, "s"), si(r.throughput_train, ""), memory(r.memory_train_bytes),
                                 fits(r.fits_train)});
    rows.push_back(std::move(cells));
  }
  return c.network + ": predicted times (see each report's notes for the model); memory = weights + peak live activations (inference), weights + gradients + "
                     "optimizer states (+ fp32 master weights below fp32) + saved activations (training)\n" +
         grid(cols, std::move(rows));
}

}  // namespace ridge::engine::render
