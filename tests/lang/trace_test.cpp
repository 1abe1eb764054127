// Request traces (lang/trace.hpp): CSV columns by their header's names, and every bad cell an error at
// its file:line:col with the line and a caret.
#include "lang/diagnostics.hpp"
#include "lang/trace.hpp"

#include <catch2/catch.hpp>

using namespace ridge;

namespace {
const std::vector<std::string> kAll{"arrival_s", "prompt_tokens", "output_tokens"};

std::string error_of(const std::string& text, const std::vector<std::string>& required = kAll) {
  try {
    lang::parse_trace("t.csv", text, required);
  } catch (const lang::Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("a trace's columns are read by name, in any order, others ignored, comments and blank lines skipped") {
  const lang::TraceColumns t = lang::parse_trace("t.csv",
                                                 "# from a chat log\n"
                                                 "id,output_tokens,arrival_s,prompt_tokens\n"
                                                 "a,20,0,100\n"
                                                 "\n"
                                                 "b, 3 ,0.25,7\r\n"
                                                 "c,1,0.25,1\n",
                                                 kAll);
  CHECK(t.rows == 3);
  CHECK(t.arrival_s == std::vector<double>{0.0, 0.25, 0.25});
  CHECK(t.prompt_tokens == std::vector<std::int64_t>{100, 7, 1});
  CHECK(t.output_tokens == std::vector<std::int64_t>{20, 3, 1});
  // Only the column asked for need be there.
  CHECK(lang::parse_trace("t.csv", "prompt_tokens\n5\n6\n", {"prompt_tokens"}).prompt_tokens == std::vector<std::int64_t>{5, 6});
}

TEST_CASE("a bad trace cell is an error at its line and column, with a caret, and every one is reported") {
  const std::string e = error_of("arrival_s,prompt_tokens,output_tokens\n0,10,x\n1,0,5\n0.5,3,3\n");
  CHECK_THAT(e, Catch::Contains("t.csv:2:6: error: expected a whole number of tokens from 1 to 1048576 [trace-value]\n"
                                "0,10,x\n"
                                "     ^\n"));
  CHECK_THAT(e, Catch::Contains("t.csv:3:3: error: expected a whole number of tokens"));
  CHECK_THAT(e, Catch::Contains("t.csv:4:1: error: expected an arrival time in seconds, 0 or more and not before the row above's"));
  CHECK_THAT(error_of("arrival_s,prompt_tokens\n0,10\n"), Catch::Contains("t.csv:1:1: error: expected a header line naming the column "
                                                                          "'output_tokens'"));
  CHECK_THAT(error_of("arrival_s,prompt_tokens,output_tokens\n0,10\n"),
             Catch::Contains("t.csv:2:1: error: expected 3 cells, as the header names, found 2 [trace-syntax]"));
  CHECK_THAT(error_of(""), Catch::Contains("found no line [trace-syntax]"));
  CHECK_THAT(error_of("arrival_s,prompt_tokens,output_tokens\n"), Catch::Contains("expected at least one row after the header"));
  CHECK_THAT(error_of("arrival_s,prompt_tokens,output_tokens\n-1,5,5\n"), Catch::Contains("t.csv:2:1: error: expected an arrival time"));
  CHECK_THAT(error_of("arrival_s,prompt_tokens,output_tokens\nnan,5,5\n"), Catch::Contains("t.csv:2:1: error: expected an arrival time"));
  CHECK_THAT(error_of("arrival_s,prompt_tokens,output_tokens\n0,99999999999999999999,5\n"), Catch::Contains("t.csv:2:3:"));
}
