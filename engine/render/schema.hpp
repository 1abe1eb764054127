// The one output schema: every kind of row Ridge outputs, as named cells, built in one place. The JSON
// document, the CSV files and the Python module's DataFrames all read these tables, so a column is
// named and computed once, and a new output format is a new reader of them.
//
// Every row of runs, layers, scaling, generation, breakdown, measured and notes starts with the columns that say which
// simulation it belongs to: network, device (display name), device_id, batch, dtype. SI base units
// throughout (FLOP, B, s, FLOP/s, B/s, samples/s); an absent figure is an empty cell (null in JSON).
// The columns are listed in docs/output.md ("Output schema").
#pragma once

#include "engine/run.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ridge::engine::render {

// The version of the schema, written into every JSON document. Bump it when a column changes meaning
// or goes away; adding columns keeps it.
inline constexpr std::string_view kSchema = "ridge/1";

// null (absent), a flag, a count, a measure, a name, a shape.
using Cell = std::variant<std::monostate, bool, std::int64_t, double, std::string, std::vector<std::int64_t>>;

struct Table {
  std::string name;                         // "runs", "layers", ...: the JSON member and CSV file suffix
  std::vector<std::string> columns = {};
  std::vector<std::vector<Cell>> rows = {};   // each as long as columns
};

// One row per simulation: the totals, memory and the device figures used.
Table runs_table(const std::vector<Report>& reports);
// One row per layer of every report.
Table layers_table(const std::vector<Report>& reports);
// One row per device count of every scaling report.
Table scaling_table(const std::vector<ScalingReport>& scalings);
// One row per decoder-inference run (--prompt/--generate).
Table generation_table(const std::vector<Generation>& generations);
// One row per deployment under a request load (--serve).
Table serving_table(const std::vector<serving::DeploymentRun>& runs);
// Spearman's rho between the variables, one row per variable (the matrix, with `variable` first).
Table correlation_table(const RankCorrelation& correlation);
// One report's layers summed per block or ranked by time (simulate --depth, --top): share and
// cumulative only where ranked.
Table breakdown_table(const Results& results);
// Measured layer times beside the one report's predictions (simulate --measured), every layer.
Table measured_table(const Results& results);
// Every sentence a reader needs, one per row, with the simulation it belongs to (empty for the run's).
Table notes_table(const Results& results);

// The tables of a run, in document order: runs, layers, scaling, generation, serving, correlation, breakdown,
// measured, notes. runs and layers hold the main network's reports; correlated networks' reports join runs.
std::vector<Table> tables(const Results& results);
inline constexpr std::string_view kTableNames[] = {"runs",        "layers",    "scaling",  "generation", "serving",
                                                   "correlation", "breakdown", "measured", "notes"};
// One of them, built alone. Throws std::invalid_argument for a name not in kTableNames.
Table table(const Results& results, std::string_view name);

}  // namespace ridge::engine::render
