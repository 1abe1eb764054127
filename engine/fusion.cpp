#include "engine/fusion.hpp"

#include "lang/ir/ops.hpp"

#include <algorithm>
#include <optional>

namespace ridge::engine::fusion {
namespace {

bool is_gemm(ir::Op op) { return ir::spec(op).op_class == ir::OpClass::MatMul; }
bool is_view_op(ir::Op op) { return op != ir::kInputOp && ir::spec(op).view; }

// One kernel: its layers in the order they run (the head first, views passed through included).
struct Kernel {
  std::vector<ir::LayerId> layers;
  const ir::FusionPattern* pattern = nullptr;
  int steps = 0;   // layers that matched a step (views not counted)
};

class Matcher {
 public:
  Matcher(const ir::Network& net, bool training) : net_(net), training_(training), taken_(net.layers.size(), false) {
    readers_.resize(net.layers.size());
    for (ir::LayerId id = 0; id < net.layers.size(); ++id)
      for (const ir::LayerId in : net.layers[id].inputs)
        if (readers_[in].empty() || readers_[in].back() != id) readers_[in].push_back(id);
  }

  const std::vector<std::vector<ir::LayerId>>& readers() const { return readers_; }

  std::vector<Kernel> kernels(const std::vector<ir::FusionPattern>& patterns) {
    std::vector<Kernel> found;
    for (ir::LayerId id = 1; id < net_.layers.size(); ++id) {
      if (taken_[id] || is_view_op(net_.layers[id].op)) continue;
      std::optional<Kernel> best;
      for (const ir::FusionPattern& p : patterns) {
        std::optional<Kernel> k = match(id, p);
        if (k && (!best || k->steps > best->steps)) best = std::move(k);
      }
      if (!best) continue;
      for (const ir::LayerId l : best->layers) taken_[l] = true;
      found.push_back(std::move(*best));
    }
    return found;
  }

 private:
  // The layer after `tail` that `step` takes, with the views on the way: the first reader (in
  // topological order) that matches, through views that nothing else holds.
  // `taken`: the layers the kernel holds so far (their values are there for the layer to read).
  std::optional<std::vector<ir::LayerId>> next(ir::LayerId tail, const ir::FusionStep& step, ir::LayerId head,
                                               const std::vector<ir::LayerId>& taken) const {
    for (const ir::LayerId r : readers_[tail]) {
      if (taken_[r]) continue;
      const ir::Op op = net_.layers[r].op;
      if (is_view_op(op)) {
        if (auto rest = next(r, step, head, taken)) {
          rest->insert(rest->begin(), r);
          return rest;
        }
        continue;
      }
      if (!step.matches(op)) continue;
      // Its other inputs must be ready before the kernel starts: none may come from the kernel itself
      // (a squeeze-excite scale made from a pool over the kernel's own output).
      const auto& ins = net_.layers[r].inputs;
      const auto ready = [&](ir::LayerId in) {
        return in == tail || std::find(taken.begin(), taken.end(), in) != taken.end() || !depends_on(in, head);
      };
      if (!std::all_of(ins.begin(), ins.end(), ready)) continue;
      // A batch norm in training mode normalises with its batch's statistics, which a GEMM's epilogue
      // does not have until the whole output is made.
      if (training_ && is_gemm(net_.layers[head].op) && net_.layers[r].op == ir::op("batchnorm")) continue;
      // An epilogue maps each element of the GEMM's result to one of its own: a layer that broadcasts
      // the result to a larger shape (a squeeze-excite scale times its feature map) is not one.
      if (is_gemm(net_.layers[head].op) &&
          ir::element_count(net_.layers[r].output) != ir::element_count(net_.layers[head].output)) continue;
      return std::vector<ir::LayerId>{r};
    }
    return std::nullopt;
  }

  // Whether `layer` reads, through any path, a value made at or after `head` by a layer this match
  // has taken or may take: any layer from `head` on that leads to it (conservative, and cheap: the
  // walk never goes below `head`).
  bool depends_on(ir::LayerId layer, ir::LayerId head) const {
    if (layer < head) return false;
    if (layer == head) return true;
    std::vector<ir::LayerId> stack{layer};
    std::vector<bool> seen(layer - head + 1, false);
    while (!stack.empty()) {
      const ir::LayerId l = stack.back();
      stack.pop_back();
      for (const ir::LayerId in : net_.layers[l].inputs) {
        if (in == head) return true;
        if (in < head || seen[in - head]) continue;
        seen[in - head] = true;
        stack.push_back(in);
      }
    }
    return false;
  }

  std::optional<Kernel> match(ir::LayerId head, const ir::FusionPattern& p) const {
    if (p.steps.empty() || !p.steps.front().matches(net_.layers[head].op)) return std::nullopt;
    Kernel k{{head}, &p, 1};
    ir::LayerId tail = head;
    std::size_t s = 0;                      // the step `tail` matched
    if (!p.steps[0].repeat) s = 1;          // else stay: a repeat step may take more
    bool advanced = !p.steps[0].repeat;     // whether `s` is a step not yet matched once
    while (s < p.steps.size()) {
      const ir::FusionStep& step = p.steps[s];
      auto more = next(tail, step, head, k.layers);
      if (!more) {
        if (step.repeat && !advanced) {     // a repeat step matched at least once: on to the next
          ++s;
          advanced = true;
          continue;
        }
        return std::nullopt;
      }
      k.layers.insert(k.layers.end(), more->begin(), more->end());
      tail = more->back();
      ++k.steps;
      if (step.repeat) {
        advanced = false;
      } else {
        ++s;
        advanced = true;
      }
    }
    return k;
  }

  const ir::Network& net_;
  bool training_;
  std::vector<bool> taken_;
  std::vector<std::vector<ir::LayerId>> readers_;
};

std::int64_t elements(const ir::Network& net, ir::LayerId id) { return ir::element_count(net.layers[id].output); }

// The forward pass's members of each kernel found (Plan::forward, Plan::forward_train).
std::vector<Member> forward_members(const ir::Network& net, const std::vector<Kernel>& kernels,
                                    const std::vector<std::vector<ir::LayerId>>& readers) {
  std::vector<Member> members(net.layers.size());
  for (ir::LayerId id = 0; id < members.size(); ++id) members[id].kernel = id;
  std::vector<char> inside(net.layers.size(), 0);
  for (const Kernel& k : kernels) {
    for (const ir::LayerId l : k.layers) inside[l] = 1;
    const ir::LayerId head = k.layers.front();
    const bool gemm_head = is_gemm(net.layers[head].op);
    // Whether only layers of this kernel read a value (the network's result is read outside).
    const auto internal = [&](ir::LayerId l) {
      if (l == net.output) return false;
      return std::all_of(readers[l].begin(), readers[l].end(), [&](ir::LayerId r) { return inside[r] != 0; });
    };
    for (std::size_t i = 0; i < k.layers.size(); ++i) {
      const ir::LayerId l = k.layers[i];
      Member& m = members[l];
      m.kernel = head;
      m.launches = i == 0;
      m.epilogue = gemm_head && i > 0;
      if (i > 0)
        for (const ir::LayerId in : net.layers[l].inputs)
          if (inside[in]) m.read_inside += elements(net, in);
      const bool last = i + 1 == k.layers.size();
      if (!last && internal(l) && !(gemm_head && i == 0)) m.write_dropped += elements(net, l);
    }
    // The GEMM's epilogue writes the kernel's result where the head's own value stays inside.
    const ir::LayerId tail = k.layers.back();
    if (gemm_head && internal(head)) members[tail].write_dropped += std::min(elements(net, tail), elements(net, head));
    for (const ir::LayerId l : k.layers) inside[l] = 0;
  }
  return members;
}

// The backward of each kernel's layers after its GEMM (or all of them): one kernel, launched by the
// last layer (its backward runs first); the gradients between them stay inside.
std::vector<Member> backward_members(const ir::Network& net, const std::vector<Kernel>& kernels,
                                     const std::vector<std::vector<ir::LayerId>>& readers) {
  std::vector<Member> members(net.layers.size());
  for (ir::LayerId id = 0; id < members.size(); ++id) members[id].kernel = id;
  for (const Kernel& k : kernels) {
    const bool gemm_head = is_gemm(net.layers[k.layers.front()].op);
    const std::size_t first = gemm_head ? 1 : 0;
    if (k.layers.size() - first < 2) continue;
    const ir::LayerId launcher = k.layers.back();
    for (std::size_t i = first; i < k.layers.size(); ++i) {
      const ir::LayerId l = k.layers[i];
      members[l].kernel = launcher;
      members[l].launches = l == launcher;
      if (i + 1 < k.layers.size()) {
        // l's output gradient comes from the next layer alone when nothing else reads l.
        const ir::LayerId reader = k.layers[i + 1];
        if (l != net.output && readers[l].size() == 1 && readers[l].front() == reader) {
          members[l].read_inside += elements(net, l);
          members[reader].write_dropped += elements(net, l);
        }
      }
    }
  }
  return members;
}

}  // namespace

Plan plan(const ir::Network& net, const ir::Runtime* runtime) {
  Plan p;
  if (!runtime || runtime->fusions.empty() || net.layers.empty()) return p;
  Matcher inference(net, false);
  const std::vector<Kernel> kernels = inference.kernels(runtime->fusions);
  p.forward = forward_members(net, kernels, inference.readers());
  p.pattern.assign(net.layers.size(), std::string());
  for (const Kernel& k : kernels)
    for (const ir::LayerId l : k.layers) p.pattern[l] = k.pattern->name;
  if (runtime->fuse_training) {
    Matcher training(net, true);
    const std::vector<Kernel> train_kernels = training.kernels(runtime->fusions);
    p.forward_train = forward_members(net, train_kernels, training.readers());
    p.backward = backward_members(net, train_kernels, training.readers());
  }
  return p;
}

void apply(PassCost& pass, const Member& m, double element_bytes) {
  pass.bytes_read = std::max(0.0, pass.bytes_read - static_cast<double>(m.read_inside) * element_bytes);
  pass.bytes_written = std::max(0.0, pass.bytes_written - static_cast<double>(m.write_dropped) * element_bytes);
  if (!m.launches) pass.kernels = 0;
  if (m.epilogue) pass.in_epilogue = true;
}

}  // namespace ridge::engine::fusion
