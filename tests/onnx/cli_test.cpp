// `simulate` on an .onnx as on a .net: the report, `--emit-net`, and the .net it writes simulating
// to the same totals; the options that bind and forgive.
#include "tests/support/run_program.hpp"
#include "tests/onnx/onnx_test_util.hpp"

#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>
#include <fstream>

namespace {

// Each test case has its own scratch folder: CTest runs them in parallel.
std::filesystem::path dir() {
  return std::filesystem::path(RIDGE_BINARY_DIR) / "tests" / "onnx_cli" /
         std::to_string(std::hash<std::string>{}(Catch::getResultCapture().getCurrentTestName()));
}
ridge::testing::ProgramRun simulate(const std::string& args) {
  return ridge::testing::run_program(RIDGE_SIMULATE, args, dir());
}
std::string fixture(const std::string& name) { return "'" + std::string(RIDGE_ONNX_FIXTURES) + "/" + name + ".onnx'"; }
const std::string kHw = "'" + std::string(RIDGE_HW_DIR) + "/a100-sxm4-40gb.hw'";

// The report from "Totals" on, its first line (which names the network) left out.
std::string totals(const std::string& report) {
  const auto at = report.find("Totals");
  REQUIRE(at != std::string::npos);
  return report.substr(report.find('\n', at));
}

}  // namespace

TEST_CASE("simulate reports an .onnx and writes the .net that simulates to the same totals") {
  const std::string net = (dir() / "resnet50.net").string();
  std::filesystem::create_directories(dir());
  std::filesystem::remove(net);
  // The flat model: the kernel model's L2 residency follows the layers' order, and the .net written is
  // the zoo's ResNet-50 (forward()'s order) where the exporter ran each downsample branch earlier.
  const auto a = simulate(fixture("resnet50") + " " + kHw + " --batch 32 --dtype fp16 --kernel-model flat --emit-net '" + net + "'");
  REQUIRE(a.exited);
  CHECK(a.err.empty());
  REQUIRE(a.status == 0);
  CHECK_THAT(a.out, Catch::Contains("Totals (resnet50, batch 32, fp16)") && Catch::Contains("layer4.0.downsample.0"));
  REQUIRE(std::filesystem::exists(net));
  const auto b = simulate("'" + net + "' " + kHw + " --batch 32 --dtype fp16 --kernel-model flat");
  REQUIRE(b.status == 0);
  CHECK(totals(b.out) == totals(a.out));
}

TEST_CASE("simulate binds an .onnx's symbolic axes from --seq-len and --dim, and says which are missing") {
  const auto missing = simulate(fixture("bert_base") + " " + kHw);
  CHECK(missing.status == 1);
  CHECK_THAT(missing.err, Catch::Contains("bert_base.onnx: error:") && Catch::Contains("--dim sequence=N"));
  const auto seq = simulate(fixture("bert_base") + " " + kHw + " --seq-len 128 --format csv");
  const auto dim = simulate(fixture("bert_base") + " " + kHw + " --dim sequence=128 --format csv");
  REQUIRE(seq.status == 0);
  CHECK(seq.out == dim.out);
  const auto prompt = simulate(fixture("gpt2") + " " + kHw + " --prompt 8 --generate 2");
  CHECK(prompt.status == 1);
  CHECK_THAT(prompt.err, Catch::Contains("KV cache"));
}

TEST_CASE("simulate names an op it cannot model, and with --allow-unknown counts it as free and says so") {
  onnx::ModelProto m;
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  auto* in = g->add_input();
  in->set_name("x");
  auto* shape = in->mutable_type()->mutable_tensor_type()->mutable_shape();
  shape->add_dim()->set_dim_param("batch");
  shape->add_dim()->set_dim_value(10);
  g->add_output()->set_name("y");
  auto* n = g->add_node();
  n->set_op_type("Hardmax");
  n->set_name("argmax_head");
  n->add_input("x");
  n->add_output("h");
  auto* relu = g->add_node();
  relu->set_op_type("Relu");
  relu->add_input("h");
  relu->add_output("y");
  std::filesystem::create_directories(dir());
  const std::string path = (dir() / "unknown.onnx").string();
  std::ofstream(path, std::ios::binary) << m.SerializeAsString();
  const auto refused = simulate("'" + path + "' " + kHw);
  CHECK(refused.status == 1);
  CHECK_THAT(refused.err, Catch::Contains("node 0 'argmax_head' (Hardmax, inputs: x): Ridge cannot model the ONNX op 'Hardmax'"));
  const auto allowed = simulate("'" + path + "' " + kHw + " --allow-unknown");
  CHECK(allowed.status == 0);
  // A warning with its ID on standard error, and in the table under the report.
  CHECK_THAT(allowed.out, Catch::Contains("warning: counted as free (--allow-unknown): node 0 'argmax_head' (Hardmax, inputs: x)"));
  CHECK_THAT(allowed.err, Catch::Contains("simulate: warning: counted as free (--allow-unknown): node 0 'argmax_head' "
                                          "(Hardmax, inputs: x) [onnx-free-node]"));
}

TEST_CASE("simulate --batch-axis 1 imports a sequence-first .onnx, which axis 0 refuses") {
  // x: [10, batch, 16] -> Relu: the per-sample shape is [10, 16] with the batch second.
  auto m = ridge::onnx_test::model({0, 16});
  auto* dims = m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  dims->mutable_dim(0)->set_dim_value(10);
  dims->mutable_dim(1)->set_dim_param("batch");
  ridge::onnx_test::node(m, "Relu", {"x"}, {"y"}, "relu");
  std::filesystem::create_directories(dir());
  const std::string path = (dir() / "seq_first.onnx").string();
  std::ofstream(path, std::ios::binary) << m.SerializeAsString();
  const auto second = simulate("'" + path + "' " + kHw + " --batch 4 --batch-axis 1");
  REQUIRE(second.status == 0);
  CHECK_THAT(second.out, Catch::Contains("[4, 10, 16]"));
  // Read with axis 0 as the batch, axis 1 is a symbolic 'batch' nothing binds.
  const auto first = simulate("'" + path + "' " + kHw + " --batch 4");
  CHECK(first.status != 0);
  CHECK_THAT(first.err, Catch::Contains("symbolic ('batch')"));
}
