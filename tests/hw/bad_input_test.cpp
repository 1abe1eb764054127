// Bad `.hw` input: every error class gives `file:line:col: error: ...`, the source line, a caret
// under the column, and what was expected. Also the syntax the grammar must accept (comments, UTF-8,
// escapes, words that start like keywords or numbers).
#include "lang/parse.hpp"
#include "tests/hw/refuse.hpp"

#include <catch2/catch.hpp>

#include <string>

using Catch::Matchers::Contains;
using ridge::lang::Diagnostic;

namespace {

std::vector<Diagnostic> refuse(const std::string& text) { return ridge::testing::refuse_device(text); }

// A well-formed device around one line, with a sticky source so the line's figure has one.
std::string with_line(const std::string& line) {
  return "device \"x\" {\n  kind = gpu\n  source = \"test\"\n  " + line + "\n}\n";
}

// The rendered diagnostic ends with the caret under column `column`.
std::string caret_at(int column) { return std::string(static_cast<std::size_t>(column - 1), ' ') + "^"; }

}  // namespace

TEST_CASE("bad .hw input is reported at its line and column with what was expected") {
  const auto [what, text, line, column, expected] = GENERATE(table<std::string, std::string, int, int, std::string>({
      {"empty file", "", 1, 1, "expected a device declaration 'device \"NAME\" { ... }', found the end of the file"},
      {"only a comment", "# nothing here\n", 1, 1, "expected a device declaration"},
      {"keyword prefix is not the keyword", "devices \"x\" { }", 1, 1, "expected a device declaration"},
      {"garbage bytes", "\x01\xff\xfe garbage", 1, 1, "found byte 0x01"},
      {"garbage inside the device", "device \"x\" {\n  kind = gpu\n  @@@\n}\n", 3, 3,
       "expected a key such as 'peak.fp32', or '}' to close the device, found '@'"},
      {"no name", "device {\n}\n", 1, 8, "expected a string in double quotes, found '{'"},
      {"no opening brace", "device \"x\"\n  kind = gpu\n}\n", 2, 3, "expected '{', found 'k'"},
      {"truncated after an entry", "device \"x\" {\n  kind = gpu\n", 2, 13,
       "expected a key such as 'peak.fp32', or '}' to close the device, found the end of the file"},
      {"truncated after '='", "device \"x\" {\n  kind =", 2, 9, "expected a value"},
      {"missing '='", "device \"x\" {\n  kind gpu\n}\n", 2, 8, "expected '=', found 'g'"},
      {"unbalanced braces: one too many", "device \"x\" {\n  kind = gpu\n}\n}\n", 4, 1,
       "expected the end of the file after the device's '}', found '}'"},
      {"unbalanced braces: nested", "device \"x\" {\n  kind = gpu {\n}\n", 2, 14, "found '{'"},
      {"unterminated string", "device \"x\" {\n  source = \"abc\n}\n", 2, 16,
       "expected '\"' to close the string, found the end of the line"},
      {"unknown escape", "device \"x\" {\n  provenance = \"a\\qb\"\n}\n", 2, 19, "expected an escape"},
      {"source without its text", "device \"x\" {\n  kind = gpu\n  peak.fp32 = 1 TFLOP/s source\n}\n", 4, 1,
       "expected a string in double quotes, found '}'"},
      {"unknown key", with_line("frequency = 1 GHz"), 4, 3,
       "unknown key 'frequency'; expected one of kind, source, provenance, peak.PREC"},
      {"unknown precision", with_line("peak.fp2 = 1 TFLOP/s"), 4, 3,
       "unknown precision 'fp2' in 'peak.fp2'; expected one of fp64, fp32, tf32, fp16, bf16, fp8, int8, fp6, fp4, mxfp8, mxfp6, mxfp4"},
      {"unknown op class", with_line("ppp.conv.compute = 0.5"), 4, 3,
       "unknown op class 'conv' in 'ppp.conv.compute'; expected one of matmul, elementwise, normalization, pooling, "
       "data_movement, depthwise, depthwise_large, reduction"},
      {"unknown pass", with_line("ppp.matmul.fwd.compute = 0.5"), 4, 3, "expected forward, backward or forward_train"},
      {"wrong unit dimension", with_line("memory.size = 1555 GB/s"), 4, 22,
       "'GB/s' is a bandwidth, but 'memory.size' takes a size such as '40 GiB'"},
      {"time for a rate", with_line("peak.fp32 = 5 us"), 4, 17, "'us' is a time, but 'peak.fp32' takes a rate"},
      {"percent for a size", with_line("l2.size = 40 %"), 4, 16, "'%' is a fraction, but 'l2.size' takes a size"},
      {"missing unit", with_line("memory.size = 40"), 4, 19, "missing unit: 'memory.size' takes a size such as '40 GiB'"},
      {"missing unit on a time", with_line("launch_overhead = 5"), 4, 22, "takes a time such as '5 us'"},
      {"unknown unit with a hint", with_line("peak.fp32 = 19.5 TFLOPS"), 4, 20,
       "unknown unit 'TFLOPS'; did you mean 'TFLOP/s'?"},
      {"lower-case unit with a hint", with_line("memory.bandwidth = 900 gb/s"), 4, 26, "did you mean 'GB/s'?"},
      {"negative value", with_line("memory.bandwidth = -900 GB/s"), 4, 22, "'memory.bandwidth' must be positive, found -900"},
      {"zero value", with_line("peak.fp32 = 0 TFLOP/s"), 4, 15, "'peak.fp32' must be positive, found 0"},
      {"nan value", with_line("peak.fp32 = nan TFLOP/s"), 4, 15, "'peak.fp32' must be a finite number (a double holds up to 1.8e308), found nan"},
      {"infinite value", with_line("memory.size = inf GiB"), 4, 17, "must be a finite number (a double holds up to 1.8e308), found inf"},
      {"PPP above 1", with_line("ppp.matmul.compute = 1.5"), 4, 24, "is a fraction of peak in (0, 1], found 1.5"},
      {"PPP above 100 %", with_line("ppp.matmul.memory = 120 %"), 4, 23, "found 120 %"},
      {"string for a figure", with_line("peak.fp32 = \"fast\""), 4, 15, "'peak.fp32' takes a rate such as '19.5 TFLOP/s'"},
      {"figure without source", "device \"x\" {\n  kind = gpu\n  peak.fp32 = 19.5 TFLOP/s\n}\n", 3, 3,
       "figure 'peak.fp32' has no source; add 'source \"...\"' after it or a 'source = \"...\"' line above it"},
      {"figure with an empty source", "device \"x\" {\n  kind = gpu\n  peak.fp32 = 1 TFLOP/s source \"\"\n}\n", 3,
       3, "has no source"},
      {"bad kind", "device \"x\" {\n  kind = gpux\n}\n", 2, 10,
       "expected a device kind: one of gpu, cpu, tpu, soc, accelerator"},
      {"no kind", "device \"x\" {\n}\n", 1, 1, "the device has no 'kind = ...'"},
      {"empty name", "device \"\" {\n  kind = gpu\n}\n", 1, 8, "the device's name is empty"},
      {"interconnect not declared", with_line("system.interconnect = nvlink"), 4, 25,
       "'system.interconnect' names link 'nvlink', which the device does not declare"},
      {"latency without bandwidth", with_line("link.ib.latency = 1 us"), 4, 3, "link 'ib' has no bandwidth"},
      {"fractional device count", with_line("system.count = 2.5"), 4, 18, "takes a whole number of devices"},
      {"count without interconnect", with_line("system.count = 8"), 4, 3, "needs 'system.interconnect = LINK'"},
      // Issue #32's microarchitecture keys: counts, dimensions, precisions, and the facts a kernel model needs.
      {"fractional unit count", with_line("arch.units = 1.5"), 4, 16,
       "'arch.units' takes a whole number of units (SMs, cores, TensorCores), e.g. 108"},
      {"thread count with a unit", with_line("arch.threads = 2048 KiB"), 4, 18,
       "'arch.threads' takes a whole number of threads resident per unit, e.g. 2048"},
      {"fractional measured threads", with_line("measured.threads = 1.5"), 4, 22,
       "'measured.threads' takes the whole number of threads the figures were measured on, e.g. 2"},
      {"clock in the wrong dimension", with_line("arch.clock = 5 us"), 4, 18,
       "'us' is a time, but 'arch.clock' takes a frequency such as '1.41 GHz'"},
      {"per-clock rate in the wrong dimension", with_line("arch.vector.fp32 = 128 FLOP/s"), 4, 26,
       "'FLOP/s' is a rate, but 'arch.vector.fp32' takes work per clock such as '2048 FLOP/clk'"},
      {"unknown arch precision", with_line("arch.matrix.fp12 = 3 FLOP/clk"), 4, 3,
       "unknown precision 'fp12' in 'arch.matrix.fp12'"},
      {"arch without units and clock", with_line("arch.vector.fp32 = 128 FLOP/clk"), 4, 3,
       "a microarchitecture needs 'arch.units = N' and 'arch.clock = F'"},
      // Issue #41: an empty curve printed a mangled Boost.Spirit type; 1e400 said no value was found.
      {"empty curve", with_line("ppp.matmul.compute = []"), 4, 25,
       "expected a point 'SIZE: FRACTION' such as '1 GFLOP: 0.6', found ']'"},
      {"number past a double's range", with_line("peak.fp32 = 1e400 TFLOP/s"), 4, 15,
       "'peak.fp32' must be a finite number (a double holds up to 1.8e308), found inf"},
      {"curve not closed", with_line("ppp.matmul.compute = [1 GFLOP: 0.6"), 5, 1,
       "expected ',' and another point, or ']' to close the curve, found '}'"},
      {"curve point without ':'", with_line("ppp.matmul.compute = [1 GFLOP 0.6]"), 4, 33,
       "expected ':'"},
      {"curve size in bytes for compute", with_line("ppp.matmul.compute = [16 MB: 0.9]"), 4, 28,
       "'MB' is a size, but 'a point's size in ppp.matmul.compute' takes an amount of work such as '1 GFLOP'"},
      {"curve size in FLOPs for memory", with_line("ppp.pooling.memory = [1 GFLOP: 0.5]"), 4, 27,
       "'GFLOP' is an amount of work, but 'a point's size in ppp.pooling.memory' takes a size"},
      {"curve sizes not increasing", with_line("ppp.matmul.compute = [1 GFLOP: 0.6, 1 MFLOP: 0.2]"), 4, 39,
       "the sizes of 'ppp.matmul.compute' must increase from point to point"},
      {"curve fraction above 1", with_line("ppp.matmul.compute = [1 GFLOP: 1.2]"), 4, 34,
       "'ppp.matmul.compute' is a fraction of peak in (0, 1], found 1.2"},
      {"allocator figure alone", with_line("allocator.first_touch = 2 GB/s"), 4, 3,
       "the fresh-memory term needs both 'allocator.first_touch' and 'allocator.mmap_threshold'"},
      {"curve for a rate", with_line("peak.fp32 = [1 GFLOP: 0.5]"), 4, 15,
       "'peak.fp32' takes a rate such as '19.5 TFLOP/s'"},
  }));
  CAPTURE(what, text);
  const auto diagnostics = refuse(text);
  REQUIRE_FALSE(diagnostics.empty());
  const Diagnostic& d = diagnostics.front();
  CHECK(d.where.file == "bad.hw");
  CHECK(d.where.line == line);
  CHECK(d.where.column == column);
  CHECK_THAT(d.message, Contains(expected));
  // clang's shape: "bad.hw:L:C: error: ...", then the source line, then the caret under the column.
  const std::string rendered = ridge::lang::render(d);
  CHECK_THAT(rendered, Contains("bad.hw:" + std::to_string(line) + ":" + std::to_string(column) + ": error: "));
  // (The renderer shows control bytes as spaces, so the quoted line is compared by its caret.)
  if (!d.source_line.empty()) CHECK_THAT(rendered, Contains(caret_at(column).insert(0, 1, '\n') + "\n"));
}

TEST_CASE("a duplicate key points at the second and notes the first") {
  const auto diagnostics = refuse("device \"x\" {\n  kind = gpu\n  source = \"s\"\n  memory.size = 40 GiB\n"
                                  "  memory.size = 80 GiB\n}\n");
  REQUIRE(diagnostics.size() == 1);
  const Diagnostic& d = diagnostics.front();
  CHECK(d.where.line == 5);
  CHECK(d.where.column == 3);
  CHECK(d.message == "duplicate key 'memory.size'");
  REQUIRE(d.notes.size() == 1);
  CHECK(d.notes[0].where.line == 4);
  CHECK(d.notes[0].message == "'memory.size' first given here");
  CHECK_THAT(ridge::lang::render(d), Contains("bad.hw:4:3: note: 'memory.size' first given here"));
}

TEST_CASE("every semantic problem of a file is reported, not only the first") {
  const auto diagnostics = refuse(with_line("memory.size = 1 GB/s\n  peak.fp32 = 0 TFLOP/s\n  foo = 1"));
  REQUIRE(diagnostics.size() == 3);
  CHECK(diagnostics[0].where.line == 4);
  CHECK(diagnostics[1].where.line == 5);
  CHECK(diagnostics[2].where.line == 6);
}

TEST_CASE("a file that cannot be read is a diagnostic too") {
  CHECK_THROWS_AS(ridge::lang::load_device("/nonexistent/device.hw"), ridge::lang::Error);
}

TEST_CASE("the grammar accepts comments, UTF-8, escapes and words that look like keywords or numbers") {
  const std::string text =
      "# A system of eight GPUs \xe2\x80\x94 UTF-8 in a comment\n"
      "device \"GPU \\\"x\\\" \xc3\xa9\" {  # comment after a brace\n"
      "\tkind = gpu source \"a word value may carry a source\"\n"
      "  source = \"sheet A\"\n"
      "  peak.fp32 = 1.95e13 FLOP/s\n"
      "  memory.size = 40GiB                      # no space before the unit\n"
      "  memory.bandwidth = 1555 GB/s source \"sheet B\"\n"
      "  link.infiniband.bandwidth = 200 Gb/s\n"
      "  link.infiniband.latency = 1.5 us\n"
      "  system.count = 8\n"
      "  system.interconnect = infiniband         # starts like 'inf'\n"
      "  ppp.matmul.forward.compute = 80 %\n"
      "  ppp.elementwise.memory = 0.9\n"
      "  provenance = \"line one\"\n"
      "  provenance = \"line two\\n\"\n"
      "}  # trailing comment, no newline at the end";
  const auto d = ridge::lang::parse_device(text, "some/dir/dgx.hw");
  CHECK(d.id == "dgx");
  CHECK(d.name == "GPU \"x\" \xc3\xa9");
  CHECK(d.vector_peak.at(ridge::ir::Precision::FP32).value == 1.95e13);
  CHECK(d.vector_peak.at(ridge::ir::Precision::FP32).source == "sheet A");
  CHECK(d.memory_size->value == 40.0 * (1ull << 30));
  CHECK(d.memory_bandwidth->source == "sheet B");
  CHECK(d.links.at("infiniband").bandwidth.value == 25e9);  // 200 Gb/s = 25 GB/s
  CHECK(d.links.at("infiniband").latency->value == Approx(1.5e-6));
  CHECK(d.count == 8);
  CHECK(d.interconnect == "infiniband");
  using ridge::ir::OpClass;
  using ridge::ir::Pass;
  CHECK(d.ppp.at({OpClass::MatMul, Pass::Forward}).compute->value == Approx(0.8));
  CHECK(d.ppp.at({OpClass::Elementwise, std::nullopt}).memory->value == 0.9);
  CHECK(d.provenance == std::vector<std::string>{"line one", "line two\n"});
}

TEST_CASE("the .hw example in docs/language.md parses") {
  // The documentation's example is the first ``` block of the `.hw` section.
  const std::string doc = ridge::lang::read_source(std::string(RIDGE_SOURCE_DIR) + "/docs/language.md");
  const auto section = doc.find("## `.hw`");
  REQUIRE(section != std::string::npos);
  const auto open = doc.find("```\n", section);
  REQUIRE(open != std::string::npos);
  const auto close = doc.find("```", open + 4);
  REQUIRE(close != std::string::npos);
  const auto d = ridge::lang::parse_device(doc.substr(open + 4, close - open - 4), "a100-sxm4-40gb.hw");
  CHECK(d.name == "NVIDIA A100-SXM4-40GB");
  CHECK(d.matrix_peak.at(ridge::ir::Precision::BF16).value == 312e12);
  CHECK(d.links.at("nvlink").bandwidth.value == 300e9);
}

TEST_CASE("a PPP is a figure or a curve over op size: FLOPs for compute, bytes for memory") {
  const auto d = ridge::lang::parse_device(
      with_line("ppp.matmul.forward.compute = [1 MFLOP: 10 %, 1 GFLOP: 0.6, 16 GFLOP: 0.9] source \"fit\"\n"
                "  ppp.elementwise.memory = [64 KiB: 0.3, 100 MB: 0.9]\n  ppp.matmul.backward.compute = 0.5"),
      "curves.hw");
  using ridge::ir::OpClass;
  using ridge::ir::Pass;
  const auto& mm = d.ppp.at({OpClass::MatMul, Pass::Forward});
  REQUIRE(mm.compute_curve);
  CHECK_FALSE(mm.compute);
  CHECK(mm.compute_curve->source == "fit");
  using P = ridge::ir::SizeCurve::Point;
  CHECK(mm.compute_curve->points == std::vector<P>{{1e6, 0.1}, {1e9, 0.6}, {16e9, 0.9}});
  const auto& ew = d.ppp.at({OpClass::Elementwise, std::nullopt});
  REQUIRE(ew.memory_curve);
  CHECK(ew.memory_curve->points == std::vector<P>{{65536.0, 0.3}, {100e6, 0.9}});
  CHECK(ew.memory_curve->source == "test");   // the sticky source
  CHECK(d.ppp.at({OpClass::MatMul, Pass::Backward}).compute->value == 0.5);
}

TEST_CASE("the depthwise class takes PPP like any other, and a misspelt one lists it") {
  const auto d = ridge::lang::parse_device(
      with_line("ppp.depthwise.backward.compute = [10 MFLOP: 0.02, 100 MFLOP: 0.05]\n  ppp.depthwise.memory = 0.4"), "dw.hw");
  using ridge::ir::OpClass;
  using ridge::ir::Pass;
  REQUIRE(d.ppp.at({OpClass::Depthwise, Pass::Backward}).compute_curve);
  CHECK(d.ppp.at({OpClass::Depthwise, std::nullopt}).memory->value == 0.4);
  try {
    (void)ridge::lang::parse_device(with_line("ppp.depthwize.forward.compute = 0.5"), "dw.hw");
    FAIL("a misspelt class parsed");
  } catch (const ridge::lang::Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("unknown op class 'depthwize'") && Catch::Contains(", depthwise"));
  }
}
