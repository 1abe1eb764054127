#include "engine/timing.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

namespace ridge::engine {
namespace {

std::optional<double> figure(const std::map<ir::Precision, ir::Figure>& m, ir::Precision p) {
  const auto it = m.find(p);
  if (it == m.end() || !(it->second.value > 0.0) || !std::isfinite(it->second.value)) return std::nullopt;
  return it->second.value;
}

double checked_ppp(const ir::Figure& f, ir::OpClass c, std::string_view what) {
  if (!(f.value > 0.0 && f.value <= 1.0))
    throw SimulationError("PPP " + std::string(what) + " of " + std::string(ir::op_class_name(c)) +
                          " is " + std::to_string(f.value) + "; it must be in (0, 1]");
  return f.value;
}

}  // namespace

std::string PeakUsed::describe() const {
  return std::string(matrix ? "matrix " : "vector ") + std::string(ir::precision_name(precision));
}

PeakUsed layer_peak(const ir::Device& device, ir::OpClass op_class, ir::Precision precision) {
  // An MX format runs at its own peak where the device gives one, else at its element type's.
  const ir::Precision element = ir::element_precision(precision);
  for (const ir::Precision p : {precision, element}) {
    if (ir::op_class_row(op_class).matrix_unit)
      if (const auto m = figure(device.matrix_peak, p)) return {*m, p, true};
    if (const auto v = figure(device.vector_peak, p)) return {*v, p, false};
  }
  // A device described by what was measured on it (`measured.fp32 = ...`, a calibrated CPU) and no
  // datasheet peak: the measured ceiling is the peak. Where the datasheet gives peaks, a measured
  // ceiling is calibrate's GEMM (`measured.tf32` on a GPU: a matrix-unit rate), no peak for other ops.
  const bool datasheet = !device.vector_peak.empty() || !device.matrix_peak.empty();
  if (!datasheet)
    if (const auto v = figure(device.measured_peak, precision)) return {*v, precision, false};
  // Every precision narrower than fp32 (tf32 is a matrix-unit format) falls back on the fp32 vector peak.
  const bool reduced = precision != ir::Precision::FP64 && precision != ir::Precision::FP32;
  if (reduced)
    for (const auto* peaks : {&device.vector_peak, &device.measured_peak})
      if (peaks == &device.vector_peak || !datasheet)
        if (const auto v = figure(*peaks, ir::Precision::FP32)) return {*v, ir::Precision::FP32, false};
  throw SimulationError("device '" + device.name + "' gives no " + std::string(ir::precision_name(precision)) +
                        " peak for " + std::string(ir::op_class_name(op_class)) + " ops" +
                        (reduced ? " (nor an fp32 vector peak to fall back on)" : ""));
}

double bandwidth(const ir::Device& device) {
  // The datasheet figure, else the measured one (`measured.bandwidth`, as hw/README.md advises for a
  // machine whose datasheet gives none).
  for (const auto& f : {device.memory_bandwidth, device.measured_bandwidth})
    if (f && f->value > 0.0 && std::isfinite(f->value)) return f->value;
  throw SimulationError("device '" + device.name + "' gives no memory bandwidth (memory.bandwidth or measured.bandwidth)");
}

Ppp default_ppp(ir::OpClass op_class, ir::Pass /*the defaults are the same for every pass*/) {
  const ir::DefaultPpp d = ir::op_class_default_ppp(op_class);
  return {d.compute, d.memory};
}

double fraction_at(const ir::SizeCurve& curve, double size) {
  const auto& p = curve.points;
  if (p.empty()) return 1.0;
  if (!(size > p.front().size)) return p.front().fraction;
  if (size >= p.back().size) return p.back().fraction;
  std::size_t i = 1;
  while (p[i].size < size) ++i;   // p[i - 1].size < size <= p[i].size
  const double x = std::log(size / p[i - 1].size) / std::log(p[i].size / p[i - 1].size);
  return p[i - 1].fraction + x * (p[i].fraction - p[i - 1].fraction);
}

PppRule ppp_rule(const ir::Device& device, ir::OpClass op_class, ir::Pass pass) {
  PppRule r{default_ppp(op_class, pass)};
  // Looked at in this order, a later entry's figure winning: the entries of the class's fallbacks,
  // farthest first (ir::op_class_fallback), then the class's own; of each class, both passes, (for the
  // training-mode forward) the forward, and the pass itself.
  const auto entry = [&](ir::OpClass c, std::optional<ir::Pass> p) -> const ir::Efficiency* {
    const auto it = device.ppp.find({c, p});
    return it == device.ppp.end() ? nullptr : &it->second;
  };
  // Fixed arrays (the sweep builds these rules per configuration), sized by the table's longest chain:
  // up to three entries per class.
  std::array<const ir::Efficiency*, 3 * ir::kLongestOpClassChain> entries{};
  std::size_t n = 0;
  const auto add = [&](ir::OpClass c) {
    entries[n++] = entry(c, std::nullopt);
    if (pass == ir::Pass::ForwardTrain) entries[n++] = entry(c, ir::Pass::Forward);
    entries[n++] = entry(c, pass);
  };
  std::array<ir::OpClass, ir::kLongestOpClassChain> chain{};   // the class, then its fallbacks
  std::size_t depth = 0;
  for (std::optional<ir::OpClass> c = op_class; c; c = ir::op_class_fallback(*c)) chain.at(depth++) = *c;
  while (depth > 0) add(chain[--depth]);
  // One term (compute or memory) of one entry: a figure replaces an earlier curve, a curve an
  // earlier figure.
  const auto take = [&](const std::optional<ir::Figure>& figure, const std::optional<ir::SizeCurve>& curve,
                        std::string_view what, double& flat, bool& is_default, const ir::SizeCurve*& slot) {
    if (figure) {
      flat = checked_ppp(*figure, op_class, what), slot = nullptr, is_default = false;
    } else if (curve && !curve->points.empty()) {
      for (const auto& point : curve->points) checked_ppp(ir::Figure{point.fraction, curve->source}, op_class, what);
      slot = &*curve, is_default = false;
    }
  };
  for (std::size_t i = 0; i < n; ++i) {
    const ir::Efficiency* e = entries[i];
    if (!e) continue;
    take(e->compute, e->compute_curve, "compute", r.flat.compute, r.flat.compute_default, r.compute_curve);
    take(e->memory, e->memory_curve, "memory", r.flat.memory, r.flat.memory_default, r.memory_curve);
  }
  return r;
}

Ppp PppRule::at(const PassCost& cost) const {
  Ppp p = flat;
  if (compute_curve) p.compute = fraction_at(*compute_curve, cost.flops);
  if (memory_curve) p.memory = fraction_at(*memory_curve, cost.bytes());
  return p;
}

Ppp ppp(const ir::Device& device, ir::OpClass op_class, ir::Pass pass, const PassCost& cost) {
  return ppp_rule(device, op_class, pass).at(cost);
}

LaunchOverhead launch_overhead(const ir::Device& device) {
  if (!device.launch_overhead) return {};
  const double s = device.launch_overhead->value;
  if (!(s >= 0.0) || !std::isfinite(s))
    throw SimulationError("device '" + device.name + "' gives a negative or non-finite launch overhead");
  return {s, true};
}

std::string_view bound_name(Bound b) {
  switch (b) {
    case Bound::None: return "-";
    case Bound::Compute: return "compute";
    case Bound::Memory: return "memory";
  }
  return "-";
}

FreshMemory fresh_memory(const ir::Device& device) {
  if (!device.first_touch || !device.mmap_threshold) return {};
  return {device.first_touch->value, device.mmap_threshold->value};
}

PassTime time_pass(const PassCost& cost, const PeakUsed& peak, double bw, const Ppp& p, double launch_s,
                   const FreshMemory& fresh) {
  PassTime t;
  if (cost.kernels == 0 && cost.flops == 0.0 && cost.bytes() == 0.0) return t;   // a view: nothing runs
  const double compute = cost.in_epilogue ? 0.0 : cost.flops / peak.flops_per_s;
  const double memory = cost.bytes() / bw;
  t.roofline_s = std::max(compute, memory);
  t.bound = compute > memory ? Bound::Compute : Bound::Memory;
  t.intensity = cost.bytes() > 0.0 ? cost.flops / cost.bytes() : 0.0;
  t.fresh_s = fresh.seconds(cost);
  t.paleo_s = paleo_seconds(compute, memory, p.compute, p.memory, cost.kernels, launch_s) + t.fresh_s;
  return t;
}

LayerTimes LayerTimer::time(const RunCost& c, const PeakUsed& peak, const Ppp& fwd, const Ppp& train, const Ppp& bwd,
                            std::optional<kernels::GemmPlan>* largest, const PassCost* forward_from_l2) const {
  // An inference forward whose activations stay in L2 moves only the rest through DRAM.
  const bool in_l2 = forward_from_l2 && micro && facts;
  const PassCost& forward_cost = in_l2 ? *forward_from_l2 : c.forward;
  const auto mark = [in_l2](PassTime t) {
    t.in_l2 = in_l2;
    return t;
  };
  if (facts && c.matrix_unit && c.layer->gemm_forward.count > 0) {
    const auto factor = [](const Ppp& p) { return p.compute_default ? 1.0 : p.compute; };
    LayerTimes t;
    t.forward = mark(time_gemm_pass(forward_cost, c.layer->gemm_forward, plans, *facts, peak, bandwidth, factor(fwd), launch_s,
                                    largest ? &largest->emplace() : nullptr, in_l2));
    // Most ops run the same kernels in training mode as at inference.
    t.forward_train = !in_l2 && c.forward_train == c.forward && factor(train) == factor(fwd)
                          ? t.forward
                          : time_gemm_pass(c.forward_train, c.layer->gemm_forward, plans, *facts, peak, bandwidth, factor(train), launch_s);
    t.backward = time_gemm_pass(c.backward, c.layer->gemm_backward, plans, *facts, peak, bandwidth, factor(bwd), launch_s);
    return t;
  }
  if (micro && facts && c.flash) {
    // A fused attention kernel: its blocks' steps (kernels/attention.hpp), where the family has a
    // fitted attention efficiency; else PALEO below.
    const auto one = [&](const PassCost& pc, bool backward) -> std::optional<PassTime> {
      PassTime t = time_pass(pc, peak, bandwidth, Ppp{}, 0.0);   // the roofline, bound and intensity
      if (pc.kernels == 0 && pc.flops == 0.0 && pc.bytes() == 0.0) return t;
      const std::optional<kernels::AttentionPlan> plan = kernels::plan_attention(*c.layer->flash, backward, pc.bytes(), *facts);
      if (!plan) return std::nullopt;
      // The roofline of the work that runs: a causal kernel skips the steps above the diagonal, so the
      // FLOPs counted for the whole score matrix would put the bound above what the GPU does.
      const double compute = pc.flops * plan->executed_fraction / peak.flops_per_s, memory = pc.bytes() / bandwidth;
      t.roofline_s = std::max(compute, memory);
      t.bound = compute > memory ? Bound::Compute : Bound::Memory;
      t.kernel_model = true;
      t.device_s = plan->seconds + std::max(0, pc.kernels - 1) * facts->kernel_fixed_s;
      t.paleo_s = std::max(t.device_s, pc.kernels * launch_s);
      return t;
    };
    const std::optional<PassTime> forward = one(forward_cost, false);
    if (forward) {
      const std::optional<PassTime> train = !in_l2 && c.forward_train == c.forward ? forward : one(c.forward_train, false);
      return {mark(*forward), *train, *one(c.backward, true)};
    }
  }
  // Most ops run the same kernels in training mode as at inference: each model times such a pass once.
  const bool train_as_inference = !in_l2 && c.forward_train == c.forward && train == fwd;
  const auto three = [&](auto&& time_one) -> LayerTimes {
    // From L2 a row kernel's re-reads hit L2 too: no row traffic beyond the pass's weights.
    PassTime forward = mark(time_one(forward_cost, fwd, in_l2 ? kernels::RowKernel{} : *c.rows));
    PassTime forward_train = train_as_inference ? forward : time_one(c.forward_train, train, *c.rows);
    return {forward, forward_train, time_one(c.backward, bwd, kernels::RowKernel{})};
  };
  if (!micro)
    return three([&](const PassCost& pc, const Ppp& p, const kernels::RowKernel&) { return time_pass(pc, peak, bandwidth, p, launch_s, fresh); });
  if (facts && streams(c.op_class))
    return three([&](const PassCost& pc, const Ppp& p, const kernels::RowKernel& rows) {
      return time_stream_pass(pc, rows, *facts, peak, bandwidth, p, launch_s);
    });
  // Ops neither model describes (depthwise convolutions, and every op on a GPU whose facts give no rate
  // at the precision): PALEO, each kernel also paying its fixed time on the GPU (kernels::GpuFacts).
  const double fixed = facts ? facts->kernel_fixed_s : 0.0;
  return three([&](const PassCost& pc, const Ppp& p, const kernels::RowKernel&) {
    PassTime pt = time_pass(pc, peak, bandwidth, p, 0.0, fresh);
    pt.paleo_s += pc.kernels * fixed;
    pt.device_s = pt.paleo_s;
    pt.paleo_s = std::max(pt.paleo_s, pc.kernels * launch_s);
    return pt;
  });
}

std::optional<KernelModel> kernel_model_from_name(std::string_view name) {
  if (name == "micro") return KernelModel::Micro;
  if (name == "flat") return KernelModel::Flat;
  return std::nullopt;
}

bool streams(ir::OpClass op_class) { return ir::op_class_row(op_class).streams; }

kernels::StreamPlan stream_plan(const PassCost& cost, const kernels::RowKernel& rows, const kernels::GpuFacts& facts,
                                const PeakUsed& peak, const Ppp& ppp) {
  const auto factor = [](double f, bool is_default) { return is_default ? 1.0 : f; };
  return kernels::plan_stream({cost.in_epilogue ? 0.0 : cost.flops, cost.bytes(), cost.kernels, rows}, facts, peak.flops_per_s,
                              factor(ppp.memory, ppp.memory_default), factor(ppp.compute, ppp.compute_default));
}

PassTime time_stream_pass(const PassCost& cost, const kernels::RowKernel& rows, const kernels::GpuFacts& facts,
                          const PeakUsed& peak, double bw, const Ppp& ppp, double launch_s) {
  PassTime t = time_pass(cost, peak, bw, Ppp{}, 0.0);   // the roofline, bound and intensity
  if (cost.kernels == 0 && cost.flops == 0.0 && cost.bytes() == 0.0) return t;
  t.kernel_model = true;
  t.device_s = stream_plan(cost, rows, facts, peak, ppp).seconds;
  t.paleo_s = std::max(t.device_s, cost.kernels * launch_s);
  return t;
}

PassTime time_gemm_pass(const PassCost& cost, const PassGemms& gemms, std::span<const kernels::GemmPlan* const> plans,
                        const kernels::GpuFacts& facts, const PeakUsed& peak, double bw, double factor,
                        double launch_s, kernels::GemmPlan* largest_plan, bool in_l2) {
  PassTime t = time_pass(cost, peak, bw, Ppp{}, 0.0);   // the roofline, bound and intensity
  t.kernel_model = true;
  t.gemms = gemms.count;
  double kernel_s = 0.0, operand_bytes = 0.0, largest = -1.0;
  for (int i = 0; i < gemms.count; ++i) {
    const kernels::Gemm& g = gemms.gemms[static_cast<std::size_t>(i)];
    const kernels::GemmPlan& plan = *plans[static_cast<std::size_t>(gemms.ids[static_cast<std::size_t>(i)])];
    kernel_s += in_l2 ? std::max(plan.compute_s, plan.l2_s) + plan.reduction_s + plan.fixed_s : plan.seconds;
    operand_bytes += (g.operand_elements() + g.m * g.n) * g.count * facts.in_bytes;
    if (g.flops() > largest) {
      largest = g.flops();
      if (largest_plan) *largest_plan = plan;
    }
  }
  // The pass's other kernels (a materialised softmax) stream the bytes beyond the GEMMs' operands, each
  // with a kernel's fixed time.
  const double stream_s = 1.0 / (facts.dram_efficiency * facts.dram_bandwidth);
  const double rest_s = (in_l2 ? 0.0 : std::max(0.0, cost.bytes() - operand_bytes) * stream_s) +
                        std::max(0, cost.kernels - gemms.count) * facts.kernel_fixed_s;
  // From L2, the weights still stream from DRAM while the GEMMs run.
  t.device_s = std::max({(kernel_s + rest_s) / factor, in_l2 ? cost.bytes() * stream_s : 0.0, t.roofline_s});
  t.paleo_s = std::max(t.device_s, cost.kernels * launch_s);
  return t;
}

}  // namespace ridge::engine
