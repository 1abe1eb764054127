#include "engine/host_allocator.hpp"

#include "engine/op_costs.hpp"
#include "lang/ir/ops.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>
#include <utility>

namespace ridge::engine {

namespace {

constexpr std::int64_t kPage = 4096;
constexpr std::int64_t kMinChunk = 32;
constexpr std::int64_t kTopPad = 128 * 1024;        // M_TOP_PAD's default
constexpr std::int64_t kConsolidation = 64 * 1024;  // FASTBIN_CONSOLIDATION_THRESHOLD: frees this large check the trim
constexpr double kSmallestTracked = 64 * 1024;      // tcache and fast bins serve smaller blocks
constexpr double kIndexBytes = 8;                   // max pool's int64 indices

std::int64_t round_up(std::int64_t x, std::int64_t to) { return (x + to - 1) / to * to; }

// The activations torchvision builds with inplace=True (torch.nn.ReLU and kin; Conv2dNormActivation).
bool in_place_activation(ir::Op op) {
  static constexpr std::array<std::string_view, 7> kNames{"relu", "relu6", "leaky_relu", "elu", "silu", "hardswish", "hardsigmoid"};
  const std::string_view name = ir::op_name(op);
  return std::find(kNames.begin(), kNames.end(), name) != kNames.end();
}

}  // namespace

std::int64_t MainArena::allocate(std::size_t block, std::int64_t bytes) {
  std::int64_t size = std::max(kMinChunk, round_up(bytes + 8, 16));
  // Best fit: the smallest free chunk that holds it, the lowest address among equals.
  auto best = free_chunks_.end();
  for (auto it = free_chunks_.begin(); it != free_chunks_.end(); ++it)
    if (it->second >= size && (best == free_chunks_.end() || it->second < best->second)) best = it;
  std::int64_t address = 0;
  if (best != free_chunks_.end()) {
    address = best->first;
    const std::int64_t chunk = best->second;
    free_chunks_.erase(best);
    if (chunk - size >= kMinChunk)
      free_chunks_.emplace(address + size, chunk - size);
    else
      size = chunk;
  } else if (brk_ - top_ < size + kMinChunk && size >= mmap_threshold_) {
    const std::int64_t mapped = round_up(size + 8, kPage);
    blocks_[block] = {true, 0, mapped};
    return mapped;
  } else {
    address = top_;
    if (brk_ - top_ < size + kMinChunk) brk_ = round_up(top_ + size + kMinChunk + kTopPad, kPage);
    top_ += size;
  }
  blocks_[block] = {false, address, size};
  const std::int64_t end = address + size;
  if (end <= resident_) return 0;
  const std::int64_t fresh = end - std::max(address, resident_);
  resident_ = end;
  return fresh;
}

void MainArena::release(std::size_t block) {
  const auto found = blocks_.find(block);
  if (found == blocks_.end()) return;
  const Block b = found->second;
  blocks_.erase(found);
  if (b.mapped) {
    if (mmap_threshold_ < b.size && b.size <= mmap_threshold_max_) {
      mmap_threshold_ = b.size;
      trim_threshold_ = 2 * b.size;
    }
    return;
  }
  std::int64_t address = b.address, size = b.size;
  if (const auto next = free_chunks_.find(address + size); next != free_chunks_.end()) {
    size += next->second;
    free_chunks_.erase(next);
  }
  if (auto prev = free_chunks_.lower_bound(address); prev != free_chunks_.begin()) {
    --prev;
    if (prev->first + prev->second == address) {
      address = prev->first;
      size += prev->second;
      free_chunks_.erase(prev);
    }
  }
  if (address + size != top_) {
    free_chunks_.emplace(address, size);
    return;
  }
  top_ = address;
  if (size >= kConsolidation && brk_ - top_ >= trim_threshold_) {
    const std::int64_t extra = (brk_ - top_ - kTopPad - kMinChunk - 1) / kPage * kPage;
    if (extra > 0) {
      brk_ -= extra;
      resident_ = std::min(resident_, brk_);
    }
  }
}

std::vector<HostRequest> eager_cpu_inference_requests(const ir::Network& net, std::int64_t batch, ir::Precision precision) {
  const std::size_t n = net.layers.size();
  const double width = static_cast<double>(ir::bytes_per_element(precision));
  const auto bytes_of = [&](const ir::Shape& shape) {
    return static_cast<double>(ir::element_count(shape)) * static_cast<double>(batch) * width;
  };
  // Which block holds each layer's value: a view's and an in-place activation's are their input's.
  // A block lives until the last reader of any value it holds (views of it included).
  std::vector<std::size_t> last_reader(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    for (const ir::LayerId in : net.layers[i].inputs) last_reader[in] = std::max(last_reader[in], i);
  std::vector<std::size_t> storage(n), last_use(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const ir::Layer& l = net.layers[i];
    storage[i] = i;
    if (l.op != ir::kInputOp && l.inputs.size() >= 1) {
      const std::size_t in = storage[l.inputs.front()];
      const bool view = is_view(l.op);
      // In place where nothing after this activation reads its input's block.
      const bool in_place = l.inputs.size() == 1 && in_place_activation(l.op) && last_use[in] == i &&
                            net.layers[in].op != ir::kInputOp;
      if (view || in_place) storage[i] = in;
    }
    last_use[storage[i]] = std::max({last_use[storage[i]], i, last_reader[i]});
  }
  if (net.output < n) last_use[storage[net.output]] = n;   // freed at the step's end

  std::vector<HostRequest> requests;
  std::size_t next_block = n;   // blocks 0..n-1 are the layers' values; scratch blocks follow
  std::vector<std::vector<std::size_t>> frees_after(n + 1);
  for (std::size_t i = 0; i < n; ++i)
    if (storage[i] == i && net.layers[i].op != ir::kInputOp) frees_after[std::min(last_use[i], n)].push_back(i);
  const auto allocate = [&](std::size_t block, double bytes, std::size_t layer) {
    if (bytes >= kSmallestTracked) requests.push_back({true, block, bytes, layer});
  };
  const auto release = [&](std::size_t block, std::size_t layer) { requests.push_back({false, block, 0.0, layer}); };
  for (std::size_t i = 0; i < n; ++i) {
    const ir::Layer& l = net.layers[i];
    if (l.op != ir::kInputOp && storage[i] == i && !is_view(l.op)) {   // a view's storage is its input's, or the weights'
      const std::string_view op = ir::op_name(l.op);
      const double out = bytes_of(l.output);
      if (op == "conv" && !l.inputs.empty()) {
        const std::size_t in_copy = next_block++, blocked = next_block++;
        allocate(in_copy, bytes_of(net.layers[l.inputs.front()].output), i);
        allocate(blocked, out, i);
        release(in_copy, i);
        allocate(i, out, i);
        release(blocked, i);
      } else if (op == "maxpool" || op == "adaptive_maxpool") {
        const std::size_t indices = next_block++;
        allocate(i, out, i);
        allocate(indices, out / width * kIndexBytes, i);
        release(indices, i);
      } else {
        allocate(i, out, i);
      }
    }
    for (const std::size_t block : frees_after[i]) release(block, i);
  }
  for (const std::size_t block : frees_after[n]) release(block, n == 0 ? 0 : n - 1);
  return requests;
}

std::vector<std::optional<TrainingMappedBytes>> eager_cpu_training_mapped_bytes(const ir::Network& net, std::int64_t batch,
                                                                                ir::Precision precision, double mmap_threshold) {
  const double width = static_cast<double>(ir::bytes_per_element(precision));
  const auto bytes_of = [&](const ir::Shape& shape) {
    return static_cast<double>(ir::element_count(shape)) * static_cast<double>(batch) * width;
  };
  // Above the mmap threshold a request is mapped only where the heap cannot serve it; glibc trims the
  // heap's top once it holds twice the threshold free (the trim threshold, when the mmap threshold
  // has risen to its cap), so only a block above that is mapped afresh whatever the heap holds.
  const double always_mapped = 2 * mmap_threshold;
  const auto mapped = [always_mapped](double block) { return block > always_mapped ? block : 0.0; };
  const std::vector<GradNeeds> grads = grad_flags(net);
  std::vector<std::optional<TrainingMappedBytes>> blocks(net.layers.size());
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    const ir::Layer& l = net.layers[i];
    if (l.inputs.empty()) continue;
    const std::string_view op = ir::op_name(l.op);
    const double in = bytes_of(net.layers[l.inputs.front()].output), out = bytes_of(l.output);
    const bool input_gradient = !grads[i].inputs.empty() && grads[i].inputs.front();
    if (op == "conv") {
      blocks[i] = TrainingMappedBytes{
          .forward_train = mapped(in) + 2 * mapped(out),
          .backward = input_gradient ? 3 * mapped(in) + 2 * mapped(out) : mapped(in) + mapped(out)};
    } else if (op == "maxpool" || op == "adaptive_maxpool") {
      blocks[i] = TrainingMappedBytes{.forward_train = mapped(out) + mapped(out / width * kIndexBytes),
                                      .backward = input_gradient ? mapped(in) : 0.0};
    }
  }
  return blocks;
}

std::vector<std::vector<double>> replay_fresh_bytes(const std::vector<HostRequest>& requests, std::size_t layers,
                                                    double mmap_threshold_max, int steps) {
  MainArena arena(static_cast<std::int64_t>(mmap_threshold_max));
  std::vector<std::vector<double>> fresh(static_cast<std::size_t>(std::max(steps, 0)), std::vector<double>(layers, 0.0));
  for (std::vector<double>& step : fresh)
    for (const HostRequest& r : requests) {
      if (!r.allocate) {
        arena.release(r.block);
        continue;
      }
      const std::int64_t bytes = arena.allocate(r.block, static_cast<std::int64_t>(std::llround(r.bytes)));
      if (r.layer < layers) step[r.layer] += static_cast<double>(bytes);
    }
  return fresh;
}

std::vector<double> steady_fresh_bytes(const std::vector<HostRequest>& requests, std::size_t layers,
                                       double mmap_threshold_max, int steps) {
  std::vector<std::vector<double>> fresh = replay_fresh_bytes(requests, layers, mmap_threshold_max, std::max(steps, 1));
  return std::move(fresh.back());
}

}  // namespace ridge::engine
