// Request traces for the serving simulator (simulate --serve --requests FILE, --prompt-tokens FILE): CSV with
// a header line naming its columns, in any order, others ignored (a trace may carry ids or text):
//   arrival_s       seconds from the trace's start, 0 or more, in order
//   prompt_tokens   whole numbers, 1 or more
//   output_tokens   whole numbers, 1 or more
// Blank lines and lines starting with '#' are skipped. A bad cell is an error at its file:line:col
// with the line and a caret (trace-value); a missing column or a row of the wrong width, trace-syntax.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ridge::lang {

struct TraceColumns {
  // Each column in row order; empty where the file has no such column.
  std::vector<double> arrival_s;
  std::vector<std::int64_t> prompt_tokens, output_tokens;
  std::size_t rows = 0;
};

// Throws lang::Error naming every bad cell (up to kMaxErrors). `required` lists the columns the caller
// needs ("arrival_s", "prompt_tokens", "output_tokens"); a file without one of them is an error.
TraceColumns parse_trace(const std::string& file, const std::string& text, const std::vector<std::string>& required);
TraceColumns read_trace(const std::string& path, const std::vector<std::string>& required);

inline constexpr std::int64_t kMaxTraceTokens = std::int64_t{1} << 20;

}  // namespace ridge::lang
