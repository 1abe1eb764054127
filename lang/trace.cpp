#include "lang/trace.hpp"

#include "lang/diagnostic_ids.hpp"
#include "lang/parse.hpp"
#include "lang/source_map.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string_view>

namespace ridge::lang {
namespace {

struct Cell {
  std::size_t offset;   // in the text
  std::string_view text;
};

// The comma-separated cells of the line at [begin, end), spaces around each trimmed.
std::vector<Cell> cells(std::string_view text, std::size_t begin, std::size_t end) {
  std::vector<Cell> out;
  for (std::size_t at = begin;;) {
    const std::size_t comma = std::min(text.find(',', at), end);
    std::size_t b = at, e = comma;
    while (b < e && (text[b] == ' ' || text[b] == '\t')) ++b;
    while (e > b && (text[e - 1] == ' ' || text[e - 1] == '\t' || text[e - 1] == '\r')) --e;
    out.push_back({b, text.substr(b, e - b)});
    if (comma >= end) return out;
    at = comma + 1;
  }
}

}  // namespace

TraceColumns parse_trace(const std::string& file, const std::string& text, const std::vector<std::string>& required) {
  const SourceMap map(file, text);
  std::vector<Diagnostic> errors;
  std::size_t total = 0;
  const auto error = [&](std::size_t offset, std::string_view id, std::string message) {
    if (++total <= kMaxErrors) errors.push_back(map.diagnostic(offset, id, std::move(message)));
  };
  const std::string_view all(text);
  TraceColumns out;
  std::vector<std::string_view> header;
  enum Column { Other, Arrival, Prompt, Output };
  std::vector<Column> kinds;
  for (std::size_t begin = 0; begin < all.size();) {
    std::size_t end = all.find('\n', begin);
    if (end == std::string_view::npos) end = all.size();
    const std::vector<Cell> row = cells(all, begin, end);
    const std::size_t line_start = begin;
    begin = end + 1;
    if ((row.size() == 1 && row[0].text.empty()) || (!row.empty() && row[0].text.starts_with('#'))) continue;
    if (header.empty()) {
      for (const Cell& c : row) {
        header.push_back(c.text);
        kinds.push_back(c.text == "arrival_s" ? Arrival : c.text == "prompt_tokens" ? Prompt : c.text == "output_tokens" ? Output : Other);
      }
      for (const std::string& name : required)
        if (std::find(header.begin(), header.end(), name) == header.end())
          error(line_start, diag::kTraceSyntax, "expected a header line naming the column '" + name +
                                                    "' (a trace's columns: arrival_s, prompt_tokens, output_tokens)");
      if (total > 0) break;
      continue;
    }
    if (row.size() != header.size()) {
      error(line_start, diag::kTraceSyntax, "expected " + std::to_string(header.size()) + " cells, as the header names, found " +
                                                std::to_string(row.size()));
      continue;
    }
    ++out.rows;
    for (std::size_t k = 0; k < row.size(); ++k) {
      const Cell& c = row[k];
      const char* first = c.text.data();
      const char* last = first + c.text.size();
      if (kinds[k] == Arrival) {
        double v = 0.0;
        const auto [end_at, ec] = std::from_chars(first, last, v);
        const double previous = out.arrival_s.empty() ? 0.0 : out.arrival_s.back();
        if (ec != std::errc{} || end_at != last || !std::isfinite(v) || v < previous)
          error(c.offset, diag::kTraceValue, "expected an arrival time in seconds, 0 or more and not before the row above's");
        out.arrival_s.push_back(ec == std::errc{} && std::isfinite(v) ? std::max(v, previous) : previous);
      } else if (kinds[k] == Prompt || kinds[k] == Output) {
        std::int64_t v = 0;
        const auto [end_at, ec] = std::from_chars(first, last, v);
        if (ec != std::errc{} || end_at != last || v < 1 || v > kMaxTraceTokens)
          error(c.offset, diag::kTraceValue, "expected a whole number of tokens from 1 to " + std::to_string(kMaxTraceTokens));
        (kinds[k] == Prompt ? out.prompt_tokens : out.output_tokens).push_back(std::clamp<std::int64_t>(v, 1, kMaxTraceTokens));
      }
    }
  }
  if (header.empty()) error(map.end_of_text(), diag::kTraceSyntax, "expected a header line naming the trace's columns, found no line");
  else if (total == 0 && out.rows == 0) error(map.end_of_text(), diag::kTraceSyntax, "expected at least one row after the header");
  if (total > 0) throw Error(limit_errors(std::move(errors), total));
  return out;
}

TraceColumns read_trace(const std::string& path, const std::vector<std::string>& required) {
  return parse_trace(path, read_source(path), required);
}

}  // namespace ridge::lang
