// The JSON document of a run: one shape whatever the options (schema.hpp lists the rows).
//   {"schema": "ridge/1", "runs": [...], "layers": [...], "scaling": [...], "generation": [...],
//    "correlation": [...], "notes": [...], "parallel": null | {...}, "files": [...]}
// Every table member is an array of flat row objects, so pandas.DataFrame(doc["layers"]) is the layer
// table; an empty member is [], never missing.
#include "engine/render/formats.hpp"
#include "engine/render/json_writer.hpp"
#include "engine/render/parallel.hpp"
#include "engine/render/render.hpp"
#include "engine/render/schema.hpp"

namespace ridge::engine::render {
namespace {

struct CellWriter {
  JsonWriter& w;
  void operator()(std::monostate) const { w.null(); }
  void operator()(bool b) const { w.value(b); }
  void operator()(std::int64_t i) const { w.value(i); }
  void operator()(double d) const { w.value(d); }
  void operator()(const std::string& s) const { w.value(s); }
  void operator()(const std::vector<std::int64_t>& v) const {
    w.begin_array(true);
    for (const std::int64_t i : v) w.value(i);
    w.end_array();
  }
};

void rows(JsonWriter& w, const Table& t) {
  w.key(t.name).begin_array();
  for (const std::vector<Cell>& row : t.rows) {
    w.begin_object(true);
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      w.key(t.columns[c]);
      std::visit(CellWriter{w}, row[c]);
    }
    w.end_object();
  }
  w.end_array();
}

}  // namespace

std::string json(const Results& results, const std::vector<std::string>& files) {
  JsonWriter w;
  w.begin_object();
  w.key("schema").value(kSchema);
  for (const Table& t : tables(results)) rows(w, t);
  w.key("parallel");
  if (results.parallel) w.raw(json(*results.parallel));
  else w.null();
  w.key("files").begin_array();
  for (const std::string& f : files) w.value(f);
  w.end_array();
  w.end_object();
  return w.take();
}

Output json_format(const Results& results, const FormatOptions& options) { return {json(results, options.files), {}}; }

}  // namespace ridge::engine::render
