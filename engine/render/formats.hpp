// The output formats of a run: `simulate --format NAME` (and the Python module) pick one here. Each
// format is one renderer of engine::Results; the driver knows none of them by name.
//
// Adding a format: a renderer file with a function of the Render type, and one line in formats()
// (formats.cpp), which is also the list --format accepts.
#pragma once

#include "engine/measured.hpp"
#include "engine/run.hpp"
#include "engine/render/render.hpp"

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ridge::engine::render {

// What shapes the output beyond the results themselves.
struct FormatOptions {
  PassView pass = PassView::Train;
  bool wide = false;
  std::vector<std::string> files;                  // the other files the run writes (figures, .net)
  std::vector<Note> notes;                         // the driver's own lines (figures, imported graphs)
};

// A rendered run: the report (standard output or -o FILE) and further tables, each a file of its own
// named STEM-NAME.EXT beside the report (CSV holds one table per file).
struct Output {
  std::string text;
  std::vector<std::pair<std::string, std::string>> side;   // (table name, contents)
};

using Render = Output (*)(const Results& results, const FormatOptions& options);

struct Format {
  std::string_view name;        // "table"
  std::string_view extension;   // of its side files: ".csv"
  Render render;
};

std::span<const Format> formats();
const Format* format_named(std::string_view name);   // nullptr when there is none

// The formats' own renderers (table_format.cpp, csv.cpp, json.cpp).
Output table_format(const Results& results, const FormatOptions& options);
Output csv_format(const Results& results, const FormatOptions& options);
Output json_format(const Results& results, const FormatOptions& options);

}  // namespace ridge::engine::render
