#include "table_text.hpp"

#include "report_options.hpp"

#include "engine/breakdown.hpp"
#include "engine/comparison.hpp"
#include "engine/render/scaling_table.hpp"

namespace ridge::simulate {

using namespace ridge::engine;

namespace {

std::string reports_text(const std::vector<Report>& reports, const TableView& v) {
  if (reports.size() != 1) return render::table(compare(reports), v.pass);
  const Report& r = reports.front();
  if (!v.measured.empty() && v.depth == 0 && v.top == 0)
    return render::table(r, compare_measured(r, load_measurements(v.measured)), v.pass);
  if (v.depth == 0 && v.top == 0) return render::table(r, v.pass, v.wide);
  std::vector<BreakdownRow> rows = v.depth > 0 ? block_rows(r, v.depth) : layer_rows(r);
  const auto time = v.pass == render::PassView::Forward    ? TimeOf::Inference
                    : v.pass == render::PassView::Backward ? TimeOf::Backward
                                                           : TimeOf::TrainingStep;
  if (v.top > 0) rank_by_time(rows, time, v.top);
  return render::table(r, rows, v.pass, v.top > 0);
}

}  // namespace

std::string table_text(const Results& results, const TableView& view) {
  std::string text;
  for (const Generation& g : results.generations) text += render::table(g);
  if (!results.reports.empty()) text += reports_text(results.reports, view);
  for (const ScalingReport& s : results.scalings) text += "\n" + render::table(s);
  if (results.correlation) text += "\n" + render::table(*results.correlation);
  return text;
}

}  // namespace ridge::simulate
