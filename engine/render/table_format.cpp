// The text report (--format table, the default): the per-layer table of one report (or its blocks,
// its top layers, its measured times), the comparison of several, the decoder-inference phases, then
// the scaling and correlation tables, the files written and the notes. Every row is the engine's
// (engine::run computes the comparison, the breakdown and the measured pairs); this file formats.
#include "engine/render/formats.hpp"
#include "engine/render/json_writer.hpp"
#include "engine/render/parallel.hpp"
#include "engine/render/scaling_table.hpp"


namespace ridge::engine::render {
namespace {

// The one report's rows (its layers, its blocks or top layers, or its measured times beside the
// predictions), else the reports side by side.
std::string reports_text(const Results& results, const FormatOptions& o) {
  if (results.comparison) return table(*results.comparison, o.pass);
  const Report& r = results.reports.front();
  if (!results.breakdown.empty()) return table(r, results.breakdown, o.pass, results.ranked);
  if (results.measured) return table(r, *results.measured, o.pass);
  // Under a runtime that fuses, a row per kernel (the JSON and CSV keep a row per layer, with its kernel).
  if (!o.wide && has_fused_kernels(r)) return table(r, kernel_rows(r), o.pass, false);
  return table(r, o.pass, o.wide);
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
  if (results.serving_search) {
    text += table(*results.serving_search, results.serving);
  } else {
    for (const serving::DeploymentRun& d : results.serving) text += table(d);
  }
  if (!results.reports.empty()) text += reports_text(results, o);
  for (const ScalingReport& s : results.scalings) text += "\n" + table(s);
  if (results.correlation) text += "\n" + table(*results.correlation);
  if (results.reports.size() > 1 || results.correlation)
    for (const std::string& f : o.files) text += "wrote " + f + "\n";
  std::string notes;
  for (const Note& n : results.notes) notes += line(n) + "\n";
  for (const Note& n : o.notes) notes += line(n) + "\n";
  if (!notes.empty()) text += "\n" + notes;
  // No escape sequence reaches a terminal, whatever a device's name or a file's name holds.
  return {printable(text, "\t\n"), {}};
}

}  // namespace ridge::engine::render
