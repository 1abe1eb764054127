// The text report (--format table, the default): the per-layer table of one report (or its blocks,
// its top layers, its measured times), the comparison of several, the decoder-inference phases, then
// the scaling and correlation tables, the files written and the notes.
#include "engine/render/formats.hpp"
#include "engine/render/json_writer.hpp"
#include "engine/render/parallel.hpp"
#include "engine/render/scaling_table.hpp"

#include "engine/breakdown.hpp"
#include "engine/comparison.hpp"

namespace ridge::engine::render {
namespace {

std::string reports_text(const std::vector<Report>& reports, const FormatOptions& o) {
  if (reports.size() != 1) return table(compare(reports), o.pass);
  const Report& r = reports.front();
  if (o.measured && o.depth == 0 && o.top == 0) return table(r, compare_measured(r, *o.measured), o.pass);
  if (o.depth == 0 && o.top == 0) return table(r, o.pass, o.wide);
  std::vector<BreakdownRow> rows = o.depth > 0 ? block_rows(r, o.depth) : layer_rows(r);
  const auto time = o.pass == PassView::Forward    ? TimeOf::Inference
                    : o.pass == PassView::Backward ? TimeOf::Backward
                                                   : TimeOf::TrainingStep;
  if (o.top > 0) rank_by_time(rows, time, o.top);
  return table(r, rows, o.pass, o.top > 0);
}

}  // namespace

Output table_format(const Results& results, const FormatOptions& o) {
  if (!results.explanations.empty()) {   // --explain: the layer's derivations stand for the table
    std::string text;
    for (const LayerExplanation& e : results.explanations) text += (text.empty() ? "" : "\n") + explain(e);
    return {printable(text, "\t\n"), {}};
  }
  std::string text;
  if (results.parallel) text += table(*results.parallel);
  for (const Generation& g : results.generations) text += table(g);
  if (!results.reports.empty()) text += reports_text(results.reports, o);
  for (const ScalingReport& s : results.scalings) text += "\n" + table(s);
  if (results.correlation) text += "\n" + table(*results.correlation);
  if (results.reports.size() > 1 || results.correlation)
    for (const std::string& f : o.files) text += "wrote " + f + "\n";
  std::string notes;
  for (const std::string& n : results.notes) notes += n + "\n";
  for (const std::string& n : o.notes) notes += n + "\n";
  if (!notes.empty()) text += "\n" + notes;
  // No escape sequence reaches a terminal, whatever a device's name or a file's name holds.
  return {printable(text, "\t\n"), {}};
}

}  // namespace ridge::engine::render
