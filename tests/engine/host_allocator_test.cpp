// The inference forward's fresh pages on a CPU (engine/host_allocator.hpp): glibc's main arena as
// malloc/malloc.c describes it, and the blocks eager LibTorch 1.13 allocates, as
// validate/scripts/alloc_trace.c recorded them (docs/results/2026-11-27-fault-volume.md).
#include "engine/host_allocator.hpp"

#include "engine/simulate.hpp"
#include "lang/builder.hpp"
#include "lang/parse.hpp"
#include "lang/ir/ops.hpp"
#include "tests/engine/fixtures.hpp"

#include <catch2/catch.hpp>

#include <numeric>
#include <string>

using namespace ridge;
using engine::HostRequest;
using engine::MainArena;

namespace {
constexpr std::int64_t kMiB = 1024 * 1024;

double sum(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }

std::vector<std::size_t> convs(const ir::Network& net) {
  std::vector<std::size_t> ids;
  for (std::size_t i = 0; i < net.layers.size(); ++i)
    if (ir::op_name(net.layers[i].op) == "conv") ids.push_back(i);
  return ids;
}

double allocated(const std::vector<HostRequest>& requests, std::size_t layer) {
  double bytes = 0.0;
  for (const HostRequest& r : requests)
    if (r.allocate && r.layer == layer) bytes += r.bytes;
  return bytes;
}
}  // namespace

TEST_CASE("glibc's arena: a block above the mmap threshold is mapped afresh until a freed one raises it") {
  MainArena arena;
  // The threshold starts at 128 KiB: a 10 MiB block gets pages of its own, all fresh.
  CHECK(arena.allocate(0, 10 * kMiB) >= 10 * kMiB);
  arena.release(0);   // unmapped; the threshold rises to its size (malloc.c, free: "dynamic threshold")
  // Now it comes from the heap: fresh the first time, then reused.
  CHECK(arena.allocate(1, 10 * kMiB) >= 10 * kMiB);
  arena.release(1);
  CHECK(arena.allocate(2, 10 * kMiB) == 0);
  arena.release(2);
}

TEST_CASE("glibc's arena: above DEFAULT_MMAP_THRESHOLD_MAX a block is fresh at every allocation") {
  MainArena arena;   // 32 MiB, glibc's on 64-bit
  for (int step = 0; step < 4; ++step) {
    CHECK(arena.allocate(0, 40 * kMiB) >= 40 * kMiB);
    arena.release(0);
  }
}

TEST_CASE("glibc's arena: a freed top chunk past the trim threshold is handed back, and regrown fresh") {
  MainArena arena;
  // A freed 4 MiB mapped block raises the mmap threshold to 4 MiB and the trim threshold to 8 MiB.
  arena.allocate(0, 4 * kMiB - 64);
  arena.release(0);
  // Heap blocks below 4 MiB: fresh the first time.
  constexpr std::int64_t block = 7 * kMiB / 2;
  CHECK(arena.allocate(1, kMiB) > 0);
  for (std::size_t id = 2; id <= 4; ++id) CHECK(arena.allocate(id, block) > 0);
  // 3.5 MiB free at the top is below the trim threshold: kept, and reused without a fault.
  arena.release(4);
  CHECK(arena.allocate(5, block) == 0);
  // 10.5 MiB free at the top passes it: trimmed, so the next step's blocks fault in again.
  for (std::size_t id : {5, 3, 2}) arena.release(id);
  CHECK(arena.allocate(6, block) > 0);
}

TEST_CASE("LibTorch's requests: a convolution copies its input and output through oneDNN's layout") {
  // alloc_trace.c on Debian's torch 1.13, no_grad, batch 16: a 3x3 convolution from 64 to 128 channels
  // on 56x56 allocates 12.25 MiB (its input, blocked), 24.5 MiB (its output, blocked) and 24.5 MiB (its
  // output); a max pool its output and int64 indices twice its size; a ReLU in place nothing.
  lang::NetworkBuilder b("conv_pool", {64, 112, 112});
  const auto pooled = b.maxpool(b.input(), 3, {.stride = 2, .padding = 1});
  const auto conv = b.conv(pooled, 128, 3, {.padding = 1, .bias = false});
  const ir::Network net = b.finish(b.relu(conv));
  const auto requests = engine::eager_cpu_inference_requests(net, 16, ir::Precision::FP32);
  CHECK(allocated(requests, 1) == 16.0 * 64 * 56 * 56 * 4 * 3);   // pool: output + indices
  CHECK(allocated(requests, 2) == (12.25 + 24.5 + 24.5) * kMiB);
  CHECK(allocated(requests, 3) == 0.0);                             // relu in place
  // Every block allocated is freed within the step.
  std::size_t allocations = 0, frees = 0;
  for (const HostRequest& r : requests) (r.allocate ? allocations : frees) += 1;
  CHECK(allocations == frees);
}

TEST_CASE("LibTorch's requests: an activation whose input is read again does not run in place") {
  // A residual: relu(x) and x + relu(x): the add still reads x, so relu writes a block of its own.
  lang::NetworkBuilder b("residual", {64, 56, 56});
  const auto x = b.batchnorm(b.input());
  const ir::Network net = b.finish(b.add(x, b.relu(x)));
  const auto requests = engine::eager_cpu_inference_requests(net, 16, ir::Precision::FP32);
  const double value = 16.0 * 64 * 56 * 56 * 4;
  CHECK(allocated(requests, 2) == value);
  CHECK(allocated(requests, 3) == value);
}

TEST_CASE("fresh pages of VGG-16's forward at batch 16: its 205 MB maps are fresh at every step") {
  // VGG-16's first two convolutions write 16 x 64 x 224 x 224 fp32 values (205.5 MB), above glibc's
  // 32 MiB cap on the mmap threshold: their outputs, blocked and not, and the second's copy of its
  // input are mapped afresh every step, whatever the heap does.
  const ir::Network net = lang::load_network(std::string(RIDGE_SOURCE_DIR) + "/models/vgg16.net");
  const auto requests = engine::eager_cpu_inference_requests(net, 16, ir::Precision::FP32);
  const auto fresh = engine::steady_fresh_bytes(requests, net.layers.size(), 32.0 * kMiB);
  const double map = 16.0 * 64 * 224 * 224 * 4;
  const auto conv = convs(net);
  REQUIRE(conv.size() == 13);
  CHECK(fresh[conv[0]] >= 2 * map);   // blocked output and output (its 3-channel input copy is 9.6 MB)
  CHECK(fresh[conv[1]] >= 3 * map);   // input copy, blocked output, output
  // The whole forward faults in far less than it allocates: the heap keeps most of what it frees.
  double total = 0.0;
  for (const HostRequest& r : requests)
    if (r.allocate) total += r.bytes;
  CHECK(sum(fresh) < total);
}

TEST_CASE("simulate: the inference forward's fresh pages are the arena's, where the device calibrated them") {
  const ir::Network net = lang::load_network(std::string(RIDGE_SOURCE_DIR) + "/models/mobilenet_v2.net");
  ir::Device cpu = testing::xeon();
  const auto plain = engine::simulate(net, cpu, {.batch = 16});
  cpu.first_touch = ir::Figure{2e9, "test"};
  cpu.mmap_threshold = ir::Figure{32.0 * kMiB, "test"};
  const auto fresh = engine::simulate(net, cpu, {.batch = 16});
  const auto expected = engine::steady_fresh_bytes(engine::eager_cpu_inference_requests(net, 16, ir::Precision::FP32),
                                                   net.layers.size(), 32.0 * kMiB);
  CHECK(fresh.totals.time_fwd_s == Approx(plain.totals.time_fwd_s + sum(expected) / 2e9));
  double rows = 0.0;
  for (std::size_t i = 0; i < fresh.layers.size(); ++i) {
    CHECK(fresh.layers[i].time_fwd.fresh_s == Approx(expected[i] / 2e9).margin(1e-12));
    rows += fresh.layers[i].time_fwd.paleo_s;
  }
  CHECK(rows == Approx(fresh.totals.time_fwd_s));
}

TEST_CASE("LibTorch's training blocks: VGG-16's convolutions at batch 16 map input + 2 outputs forward, 3 inputs + 2 outputs backward") {
  // Minor faults counted around single layers in Debian's torch 1.13 at batch 16
  // (validate/scripts/training_blocks.py; docs/results/2026-11-28-training-blocks.md): a 64-channel
  // 3x3 convolution on 224x224 (input and output 205.5 MB each) faulted 617 MB forward and 1,028 MB
  // backward; the first convolution, whose 3-channel input needs no gradient, 206 MB backward.
  const ir::Network net = lang::load_network(std::string(RIDGE_SOURCE_DIR) + "/models/vgg16.net");
  const double threshold = 32.0 * kMiB;
  const auto blocks = engine::eager_cpu_training_mapped_bytes(net, 16, ir::Precision::FP32, threshold);
  const auto conv = convs(net);
  REQUIRE(conv.size() == 13);
  const double map224 = 16.0 * 64 * 224 * 224 * 4, map112 = 16.0 * 128 * 112 * 112 * 4;
  REQUIRE(blocks[conv[0]]);
  CHECK(blocks[conv[0]]->forward_train == 2 * map224);   // its 9.6 MB input copy comes from the heap
  CHECK(blocks[conv[0]]->backward == map224);            // no input gradient: the output's gradient, blocked
  CHECK(blocks[conv[1]]->forward_train == 3 * map224);
  CHECK(blocks[conv[1]]->backward == 5 * map224);
  // stage2.conv1 reads the pooled 51 MB and writes 103 MB: only blocks the heap can never keep free
  // (above twice the 32 MiB cap) are mapped whatever it holds.
  CHECK(blocks[conv[2]]->forward_train == 2 * map112);
  CHECK(blocks[conv[2]]->backward == 2 * map112);
  // stage3's 51 MB blocks may come from the heap: none counted.
  CHECK(blocks[conv[4]]->forward_train == 0.0);
  CHECK(blocks[conv[4]]->backward == 0.0);
  // The first max pool: a 51 MB output (not counted) and its 103 MB of int64 indices; backward its
  // 205.5 MB input gradient.
  const std::size_t pool = conv[1] + 2;
  REQUIRE(ir::op_name(net.layers[pool].op) == "maxpool");
  CHECK(blocks[pool]->forward_train == 2 * map224 / 4);
  CHECK(blocks[pool]->backward == map224);
  // Other layers keep FreshMemory's charge.
  CHECK_FALSE(blocks[conv[0] + 1]);
}

TEST_CASE("simulate: a training step's convolutions pay for the blocks they map, where the device calibrated fresh pages") {
  const ir::Network net = lang::load_network(std::string(RIDGE_SOURCE_DIR) + "/models/vgg16.net");
  ir::Device cpu = testing::xeon();
  cpu.first_touch = ir::Figure{2e9, "test"};
  cpu.mmap_threshold = ir::Figure{32.0 * kMiB, "test"};
  const auto r = engine::simulate(net, cpu, {.batch = 16});
  const auto blocks = engine::eager_cpu_training_mapped_bytes(net, 16, ir::Precision::FP32, 32.0 * kMiB);
  const auto conv = convs(net);
  // The second convolution's passes: fresh time is its mapped blocks at 2 GB/s plus the heap's growth,
  // which a layer whose output is mapped does not pay (FreshMemory::heap_seconds).
  CHECK(r.layers[conv[1]].time_fwd_train.fresh_s == Approx(blocks[conv[1]]->forward_train / 2e9));
  CHECK(r.layers[conv[1]].time_bwd.fresh_s == Approx(blocks[conv[1]]->backward / 2e9));
  // Without the device's figures nothing is charged.
  const auto plain = engine::simulate(net, testing::xeon(), {.batch = 16});
  CHECK(plain.layers[conv[1]].time_bwd.fresh_s == 0.0);
}
