// CSV (RFC 4180 quoting, LF line ends): one table of the schema per file, its header the column names
// (the JSON field names). Numbers in SI base units with full precision; an absent figure is an empty
// field; a shape is written 64x3x224x224.
#include "engine/render/formats.hpp"
#include "engine/render/json_writer.hpp"
#include "engine/render/parallel.hpp"
#include "engine/render/render.hpp"

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

struct CellText {
  std::string operator()(std::monostate) const { return {}; }
  std::string operator()(bool b) const { return b ? "true" : "false"; }
  std::string operator()(std::int64_t i) const { return std::to_string(i); }
  std::string operator()(double d) const { return json_number(d) == "null" ? std::string() : json_number(d); }
  std::string operator()(const std::string& s) const { return field(s); }
  std::string operator()(const std::vector<std::int64_t>& v) const {
    std::string out;
    for (std::size_t i = 0; i < v.size(); ++i) out += (i ? "x" : "") + std::to_string(v[i]);
    return out;
  }
};

}  // namespace

std::string csv(const Table& t) {
  std::string out;
  for (std::size_t c = 0; c < t.columns.size(); ++c) out += (c ? "," : "") + field(t.columns[c]);
  out += '\n';
  for (const std::vector<Cell>& row : t.rows) {
    for (std::size_t c = 0; c < row.size(); ++c) out += (c ? "," : "") + std::visit(CellText{}, row[c]);
    out += '\n';
  }
  return out;
}

// One tidy table per file: the layers of one report (or its breakdown), else one row per simulation
// (or per decoder run); the scaling, correlation and measured tables as side files. A parallel plan:
// one row per strategy.
Output csv_format(const Results& results, const FormatOptions&) {
  if (results.parallel) return {csv(*results.parallel), {}};
  const bool one_report = results.reports.size() == 1;
  const char* main = !results.serving.empty()       ? "serving"
                     : !results.generations.empty() ? "generation"
                     : !results.breakdown.empty() ? "breakdown"
                     : one_report                 ? "layers"
                                                  : "runs";
  Output out{csv(table(results, main)), {}};
  for (const std::string_view side : {"scaling", "correlation", "measured"}) {
    const Table t = table(results, side);
    if (!t.rows.empty()) out.side.emplace_back(std::string(side), csv(t));
  }
  return out;
}

}  // namespace ridge::engine::render
