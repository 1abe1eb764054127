// calibrate's summary and options, fast: median_error on hand-made comparisons, --holdout as the
// program parses it (refusals before any measurement), and --base (the PPP are fitted against the
// base's datasheet figures, not this machine's ceilings) on one tiny network with a few repeats.
#include "validate/calibrate.hpp"

#include "lang/parse.hpp"
#include "tests/support/fixed_device.hpp"
#include "tests/support/run_program.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <unistd.h>

using namespace ridge;
namespace fs = std::filesystem;

namespace {

validate::NetworkComparison comparison(const std::string& name, bool holdout, double measured, double before,
                                       double after, double measured_train, double before_train, double after_train) {
  validate::NetworkComparison n;
  n.network = name;
  n.holdout = holdout;
  n.measured_infer_s = measured;
  n.before_infer_s = before;
  n.after_infer_s = after;
  n.measured_train_s = measured_train;
  n.before_train_s = before_train;
  n.after_train_s = after_train;
  return n;
}

ridge::testing::ProgramRun calibrate(const std::string& args) {
  const fs::path d = fs::temp_directory_path() / ("ridge-calibrate-" + std::to_string(::getpid()));
  return ridge::testing::run_program(RIDGE_CALIBRATE, args, d);
}

}  // namespace

TEST_CASE("median_error is the median absolute relative error, per role, before or after") {
  // Fitted: inference errors +48 %, -54.8 %, +71.9 % before (median of |e| = 54.8 %), and -4 %, +7.4 %,
  // +3 % after (median 4 %). Training: +10 %, -20 %, +30 % before (20 %); +1 %, +2 %, -3 % after (2 %).
  // Held out: two networks, so the median is the mean of the middle two: (10 % + 30 %) / 2 = 20 %.
  const std::vector<validate::NetworkComparison> nets{
      comparison("a", false, 1.0, 1.48, 0.96, 2.0, 2.2, 2.02),
      comparison("b", false, 2.0, 0.904, 2.148, 4.0, 3.2, 4.08),
      comparison("c", false, 4.0, 6.876, 4.12, 8.0, 10.4, 7.76),
      comparison("d", true, 1.0, 1.1, 1.05, 1.0, 0.7, 1.0),
      comparison("e", true, 1.0, 0.7, 1.0, 1.0, 1.3, 1.0),
  };
  const validate::ErrorSummary fb = validate::median_error(nets, false, false);
  CHECK(fb.networks == 3);
  CHECK(fb.infer == Approx(0.548));
  CHECK(fb.train == Approx(0.20));
  const validate::ErrorSummary fa = validate::median_error(nets, false, true);
  CHECK(fa.infer == Approx(0.04));
  CHECK(fa.train == Approx(0.02));
  const validate::ErrorSummary hb = validate::median_error(nets, true, false);
  CHECK(hb.networks == 2);
  CHECK(hb.infer == Approx(0.20));
  CHECK(hb.train == Approx(0.30));
  const validate::ErrorSummary ha = validate::median_error(nets, true, true);
  CHECK(ha.infer == Approx(0.025));
  CHECK(ha.train == Approx(0.0).margin(1e-12));
  // A network with no training measurement counts for inference only.
  const validate::ErrorSummary one = validate::median_error({comparison("f", false, 1.0, 1.5, 1.0, 0.0, 0.0, 0.0)}, false, false);
  CHECK(one.networks == 1);
  CHECK(one.infer == Approx(0.5));
}

TEST_CASE("calibrate --holdout takes several networks, loaded before anything is measured") {
  // Every network is loaded before the ceilings are measured: a missing held-out network is refused at
  // once, and the message names it, which shows --holdout read both values (and `--` ended the list).
  const auto r = calibrate("--out x.hw --holdout resnet18 /nonexistent/held.net -- alexnet");
  CHECK(r.exited);
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::Contains("/nonexistent/held.net") && Catch::Contains("cannot open file"));
  // The fitted list after `--` is read too.
  const auto fit = calibrate("--out x.hw --holdout resnet18 -- /nonexistent/fit.net");
  CHECK(fit.status == 1);
  CHECK_THAT(fit.err, Catch::Contains("/nonexistent/fit.net"));
  // --holdout with no value is a usage error from the option parser.
  const auto empty = calibrate("--out x.hw alexnet --holdout");
  CHECK(empty.status != 0);
  CHECK(empty.exited);
  CHECK_THAT(empty.err, Catch::Contains("--holdout"));
}

TEST_CASE("calibrate --base names a .hw that must load, before anything is measured") {
  const auto r = calibrate("--out x.hw --base /nonexistent/base.hw alexnet");
  CHECK(r.exited);
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::Contains("/nonexistent/base.hw") && Catch::Contains("cannot open file"));
}

TEST_CASE("with a base device the fit starts from its datasheet figures, not the measured ceilings") {
  validate::CalibrateOptions o;
  o.batch = 1;
  o.measure.warmup = 1;
  o.measure.repeats = 2;
  o.measure.budget_s = 0.02;
  o.ceilings.gemm_size = 128;
  o.ceilings.copy_bytes = 4 << 20;
  o.ceilings.repeats = 1;
  o.date = "2025-01-01";
  o.probes = false;   // the tiny net's own classes are what this checks
  // peak.fp32 10 TFLOP/s, 1 TB/s: far above what a CPU core reaches, so the fitted PPP are small.
  o.base = lang::parse_device(ridge::testing::kFixedDeviceHw, "fixed.hw");
  const ir::Network net = lang::parse_network(
      "network tiny {\n  input x: [3, 16, 16]\n  return x -> conv(8, 3, pad: 1) -> relu -> flatten -> linear(10)\n}\n",
      "tiny.net");
  const validate::CalibrationResult r = validate::calibrate({{net, false}}, o);
  CHECK(r.before.name == "fixed");
  REQUIRE(r.before.vector_peak.contains(ir::Precision::FP32));
  CHECK(r.before.vector_peak.at(ir::Precision::FP32).value == 10e12);
  REQUIRE(r.before.memory_bandwidth);
  CHECK(r.before.memory_bandwidth->value == 1e12);
  // The calibrated device keeps the base's identity and figures and adds the fitted PPP.
  CHECK(r.device.name == "fixed");
  CHECK(r.device.vector_peak.at(ir::Precision::FP32).value == 10e12);
  CHECK(r.device.memory_bandwidth->value == 1e12);
  REQUIRE_FALSE(r.device.ppp.empty());
  // A CPU core runs far below 10 TFLOP/s: some fitted compute PPP is a small fraction of the base's peak.
  bool small = false;
  for (const auto& [key, e] : r.device.ppp) {
    if (e.compute && e.compute->value < 0.05) small = true;
    if (e.compute_curve)   // fitted by size (the default): a point per band of sizes
      for (const auto& point : e.compute_curve->points) small = small || point.fraction < 0.05;
  }
  CHECK(small);
}

TEST_CASE("calibrate --set reaches the networks that declare the parameter, and only those") {
  // gpt2 declares seq_len and alexnet does not: the value reaches gpt2 (whose elaborator rejects it,
  // naming the parameter) and alexnet loads untouched. All of it before anything is measured.
  const auto bad_value = calibrate("--out x.hw --set seq_len=abc gpt2 alexnet");
  CHECK(bad_value.exited);
  CHECK(bad_value.status == 1);
  CHECK_THAT(bad_value.err, Catch::Contains("seq_len=abc") && Catch::Contains("expected a number"));
  // A parameter no network given declares is refused, naming it.
  const auto nobody = calibrate("--out x.hw --seq-len 128 alexnet resnet18");
  CHECK(nobody.status == 1);
  CHECK_THAT(nobody.err, Catch::Contains("no network given declares a parameter 'seq_len'"));
  const auto malformed = calibrate("--out x.hw --set seq_len alexnet");
  CHECK(malformed.status == 1);
  CHECK_THAT(malformed.err, Catch::Contains("expected name=value"));
}

// Issue #41: `calibrate tiny.net --out tiny.net` replaced the network with the calibrated .hw, and
// `--measurements tiny.net` with a CSV; `--out link.hw`, a link to the network, wrote through the
// link. Each is refused before anything is measured (the refusals take milliseconds, where a
// calibration takes seconds), and the network is left as it was.
TEST_CASE("calibrate never writes over its inputs, nor one file twice, nor through a link to an input") {
  const fs::path d = fs::temp_directory_path() / ("ridge-calibrate-" + std::to_string(::getpid()));
  fs::create_directories(d);
  const std::string net = (d / "tiny.net").string();
  const std::string text = "network tiny {\n  input x: [4]\n  return x -> linear(2)\n}\n";
  {
    std::ofstream(net) << text;
  }
  const fs::path link = d / "link.hw";
  fs::remove(link);
  fs::create_symlink(net, link);
  const std::pair<std::string, std::string> cases[] = {
      {"--out " + net + " " + net, "--out '" + net + "' is the same file as the network"},
      {"--out " + (d / "ok.hw").string() + " --measurements " + net + " " + net,
       "--measurements '" + net + "' is the same file as the network"},
      {"--out " + link.string() + " " + net, "--out '" + link.string() + "' is the same file as the network"},
      {"--out " + (d / "twice.csv").string() + " --measurements " + (d / "twice.csv").string() + " " + net,
       "--measurements '" + (d / "twice.csv").string() + "' is the same file as the --out"},
  };
  for (const auto& [args, message] : cases) {
    CAPTURE(args);
    const auto r = calibrate(args);
    REQUIRE(r.exited);
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::Contains(message));
    CHECK_FALSE(fs::exists(d / "ok.hw"));
  }
  std::ifstream in(net);
  const std::string after((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(after == text);
  CHECK(fs::is_symlink(link));
}
