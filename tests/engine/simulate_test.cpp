#include "engine/simulate.hpp"

#include "tests/engine/fixtures.hpp"
#include "tests/ir/resnet18_builder.hpp"
#include "lang/parse.hpp"

#include <filesystem>

#include <catch2/catch.hpp>

using namespace ridge;

TEST_CASE("a training step is the training forward plus backward plus the optimizer update") {
  const auto r = engine::simulate(testing::resnet18_from_builder(), testing::a100(), {.batch = 32});
  const auto& t = r.totals;
  CHECK(t.time_train_step_s == Approx(t.time_fwd_train_s + t.time_bwd_s + t.time_update_s).epsilon(1e-12));
  double fwd = 0, bwd = 0;
  for (const auto& l : r.layers) fwd += l.time_fwd_train.paleo_s, bwd += l.time_bwd.paleo_s;
  CHECK(t.time_fwd_train_s == Approx(fwd).epsilon(1e-12));
  CHECK(t.time_bwd_s == Approx(bwd).epsilon(1e-12));
  // A network without batch norm or dropout trains with its inference forward.
  const auto tiny = engine::simulate(testing::tiny(), testing::a100(), {});
  CHECK(tiny.totals.time_fwd_train_s == tiny.totals.time_fwd_s);
}

TEST_CASE("the SGD-with-momentum update reads weights, gradients and momentum and writes two of them") {
  const auto r = engine::simulate(testing::tiny(), testing::a100(),
                                  {.precision = ir::Precision::FP16, .master_weights = false});
  const double params = 8 * 3 * 3 * 3 + (512 * 10 + 10);
  CHECK(r.totals.params == params);
  CHECK(r.totals.flops_update == 4 * params);
  CHECK(r.totals.bytes_update == 5 * params * 2);
  // Memory bound: 10 B/param over 1555 GB/s dwarfs 4 FLOP/param over the vector peak.
  CHECK(r.totals.roofline_update_s == Approx(5 * params * 2 / 1555e9));
}

TEST_CASE("the memory footprint of a small network matches a hand count") {
  // tiny on [3,8,8], batch 2, fp32. Values: input 192, conv 512, relu 512, flatten (view of relu),
  // linear 10 elements per sample.
  const auto r = engine::simulate(testing::tiny(), testing::a100(), {.batch = 2});
  const double w = 4, b = 2;
  const double weights = (216 + 5130) * w;
  // Liveness: step conv (input + conv out) = 704; step relu (conv out + relu out) = 1024;
  // step linear (relu/flatten + linear out) = 522. Peak 1024 elements per sample.
  CHECK(r.totals.peak_activation_bytes == 1024 * b * w);
  CHECK(r.totals.memory_infer_bytes == weights + 1024 * b * w);
  // Training keeps what the backward reads, as autograd saves it: conv its input (192), relu its
  // output (512), linear its input, the flatten view of that same relu output (no bytes of its own).
  // The conv's output (relu reads only its result) and the linear's output are not kept: 704 per sample.
  CHECK(r.totals.saved_activation_bytes == 704 * b * w);
  CHECK(r.totals.memory_train_bytes == 3 * weights + 704 * b * w);
  double per_layer = 0;
  for (const auto& l : r.layers) per_layer += l.saved_bytes;
  CHECK(per_layer == r.totals.saved_activation_bytes);
  CHECK(r.totals.fits_infer == true);
  CHECK(r.totals.fits_train == true);
}

TEST_CASE("a skip connection keeps its value alive until the join") {
  lang::NetworkBuilder b("skip", {4});
  auto x = b.input();
  auto y = b.relu(b.relu(b.relu(x)));
  const ir::Network net = b.finish(b.add(x, y));
  // At the last relu: x (kept for the add), relu2, relu3 live = 12; at the add: x, relu3, add = 12.
  CHECK(engine::peak_live_activation_bytes(net, 1, ir::Precision::FP32) == 12 * 4);
}

TEST_CASE("throughput is the batch over the time") {
  const auto r = engine::simulate(testing::resnet18_from_builder(), testing::a100(), {.batch = 64});
  CHECK(r.totals.throughput_infer == Approx(64 / r.totals.time_fwd_s));
  CHECK(r.totals.throughput_train == Approx(64 / r.totals.time_train_step_s));
}

TEST_CASE("a network too big for the device is reported as not fitting") {
  ir::Device small = testing::a100();
  small.memory_size = ir::Figure{1e6, "test"};
  const auto r = engine::simulate(testing::resnet18_from_builder(), small, {.batch = 8});
  CHECK(r.totals.fits_infer == false);
  CHECK(r.totals.fits_train == false);
  const auto unknown = engine::simulate(testing::tiny(), testing::xeon(), {});
  CHECK_FALSE(unknown.totals.fits_train.has_value());
}

TEST_CASE("impossible options and devices are errors, not numbers") {
  const ir::Network net = testing::tiny();
  CHECK_THROWS_AS(engine::simulate(net, testing::a100(), {.batch = 0}), engine::SimulationError);
  CHECK_THROWS_AS(engine::simulate(net, testing::a100(), {.batch = engine::kMaxBatch + 1}), engine::SimulationError);
  ir::Device no_bw = testing::a100();
  no_bw.memory_bandwidth.reset();
  CHECK_THROWS_AS(engine::simulate(net, no_bw, {}), engine::SimulationError);
  CHECK_THROWS_AS(engine::simulate(ir::Network{}, testing::a100(), {}), engine::SimulationError);
}

TEST_CASE("counts beyond 2^53 are refused rather than rounded") {
  lang::NetworkBuilder b("huge", {65536, 65536});   // 2^32 elements per sample
  const ir::Network net = b.finish(b.relu(b.input()));
  CHECK_NOTHROW(engine::simulate(net, testing::a100(), {.batch = 1}));
  CHECK_THROWS_AS(engine::simulate(net, testing::a100(), {.batch = engine::kMaxBatch}), engine::SimulationError);
}

TEST_CASE("the report states the counting convention and the peaks it used") {
  const auto r = engine::simulate(testing::tiny(), testing::a100(), {.precision = ir::Precision::TF32});
  bool counting = false, peak = false;
  for (const engine::Note& n : r.notes) {
    counting |= n.id == "report-counting" && n.text.find("multiply-add as 2") != std::string::npos;
    peak |= n.id == "report-peak" && n.text.find("matrix tf32") != std::string::npos &&
            n.text.find("vector fp32") != std::string::npos;
  }
  CHECK(counting);
  CHECK(peak);
  CHECK(r.layers.size() == 5);
  CHECK(r.layers[4].peak.describe() == "matrix tf32");   // the linear
  CHECK(r.layers[2].peak.describe() == "vector fp32");   // the relu
  // The conv reads 3 channels, under the 4 a tf32 tensor-core convolution loads at a time: a GPU runs
  // it on its CUDA cores (ir::OpClass::NarrowConv).
  CHECK(r.layers[1].peak.describe() == "vector fp32");
}

TEST_CASE("a sweep's totals are simulate()'s: one workload timed on many devices") {
  // Every catalogue device, two batches, two dtypes, two training set-ups: the Sweep reuses each
  // (batch, dtype) workload across devices, and must give the numbers a whole simulate() gives.
  const ir::Network net = lang::load_network(std::string(RIDGE_MODELS_DIR) + "/gpt2.net", {{"seq_len", "128"}});
  for (const engine::Options& setup : {engine::Options{}, engine::Options{.optimizer = engine::Optimizer::AdamW,
                                                                         .recompute = engine::Recompute::Selective}}) {
    engine::Sweep sweep(net, setup);
    int compared = 0;
    for (const auto& entry : std::filesystem::directory_iterator(RIDGE_HW_DIR)) {
      if (entry.path().extension() != ".hw") continue;
      const ir::Device device = lang::load_device(entry.path().string());
      for (const std::int64_t batch : {1, 16})
        for (const ir::Precision p : {ir::Precision::FP32, ir::Precision::BF16}) {
          engine::Options o = setup;
          o.batch = batch;
          o.precision = p;
          engine::Totals whole;
          try {
            whole = engine::simulate(net, device, o).totals;
          } catch (const engine::SimulationError&) {
            CHECK_THROWS_AS(sweep.totals(device, batch, p), engine::SimulationError);
            continue;
          }
          const engine::Totals swept = sweep.totals(device, batch, p);
          CAPTURE(device.id, batch, ir::precision_name(p));
          CHECK(swept.time_train_step_s == whole.time_train_step_s);
          CHECK(swept.time_fwd_s == whole.time_fwd_s);
          CHECK(swept.roofline_train_step_s == whole.roofline_train_step_s);
          CHECK(swept.time_recompute_s == whole.time_recompute_s);
          CHECK(swept.memory_train_bytes == whole.memory_train_bytes);
          CHECK(swept.fits_train == whole.fits_train);
          CHECK(swept.max_batch_train == whole.max_batch_train);
          CHECK(swept.mfu == whole.mfu);
          ++compared;
        }
    }
    CHECK(compared > 50);
  }
}

TEST_CASE("layers that cost alike are timed once, and every row and total is still each layer's own") {
  // GPT-2's twelve blocks are equal, so the workload keeps one cost per distinct layer and the device
  // times each group once. Every row must still be its own layer's op_cost, and the totals the sum of
  // the rows.
  const ir::Network net = lang::load_network(std::string(RIDGE_MODELS_DIR) + "/gpt2.net", {{"seq_len", "128"}});
  const engine::Options o{.batch = 4, .precision = ir::Precision::BF16, .optimizer = engine::Optimizer::AdamW,
                          .recompute = engine::Recompute::Selective};
  const engine::Workload w = engine::workload(net, o);
  CHECK(w.costs.size() * 5 < net.layers.size());
  CHECK(w.groups.size() < net.layers.size() / 2);
  const auto needs = engine::grad_flags(net);
  for (std::size_t id = 0; id < net.layers.size(); ++id) {
    CAPTURE(net.layers[id].name);
    engine::OpCost kept = w.cost(id);
    kept.gemm_forward.ids = kept.gemm_backward.ids = {};   // the workload numbers its distinct GEMMs
    CHECK(kept == engine::op_cost(net, net.layers[id], o.batch, o.precision, needs[id]));
  }
  const auto r = engine::simulate(net, testing::a100(), o);
  double fwd = 0, bwd = 0, train = 0;
  for (const auto& row : r.layers) {
    fwd += row.time_fwd.paleo_s;
    bwd += row.time_bwd.paleo_s;
    train += row.time_fwd_train.paleo_s;
  }
  CHECK_THAT(r.totals.time_fwd_s, Catch::Matchers::WithinRel(fwd, 1e-12));
  CHECK_THAT(r.totals.time_bwd_s, Catch::Matchers::WithinRel(bwd, 1e-12));
  CHECK_THAT(r.totals.time_fwd_train_s, Catch::Matchers::WithinRel(train, 1e-12));
}
