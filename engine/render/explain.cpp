// `simulate --explain LAYER`: one layer's derivation as text (engine/explain.hpp computes it).
#include "engine/render/render.hpp"
#include "engine/render/units.hpp"
#include "lang/ir/ops.hpp"

#include <sstream>

namespace ridge::engine::render {
namespace {


std::string gemm_text(const GemmStep& s, const kernels::GpuFacts& f, int index) {
  const kernels::Gemm& g = s.gemm;
  const kernels::GemmPlan& p = s.plan;
  std::ostringstream out;
  out << "  GEMM " << index << ": m " << count(g.m) << ", n " << count(g.n) << ", k " << count(g.k);
  if (g.count != 1) out << ", " << count(g.count) << " of them";
  out << " (" << si(g.flops(), "FLOP") << ")\n";
  out << "    tile " << p.tile.m << "x" << p.tile.n << "x" << p.tile.k << ", " << p.tile.stages << " stages";
  if (p.split_k > 1) out << ", K split " << p.split_k << " ways";
  out << ": " << count(p.tiles) << " tiles over " << count(f.sms) << " SMs = " << count(p.waves) << " wave"
      << (p.waves == 1 ? "" : "s") << ", wave efficiency " << fixed(p.wave_efficiency, 3) << "\n";
  out << "    main loop efficiency " << fixed(p.mainloop_efficiency, 3) << " (steps over steps + pipeline fill and epilogue)\n";
  if (p.alignment_one)
    out << "    alignment-1 fallback: a row is not a whole number of 16-byte vectors, so the main loop loads an element "
           "at a time\n";
  out << "    compute " << si(p.compute_s, "s") << " (" << si(p.sm_flops, "FLOP/s") << " per SM x sustained "
      << fixed(p.sustained, 3) << "), L2 " << (f.l2_bandwidth > 0 ? si(p.l2_s, "s") : std::string("- (no l2.bandwidth)"))
      << ", DRAM " << si(p.dram_s, "s");
  if (p.reduction_s > 0) out << ", split-K reduction " << si(p.reduction_s, "s");
  out << "\n    " << si(p.seconds, "s") << ", " << limit_name(p.limit) << "-limited, " << fixed(100 * p.fraction_of_peak, 1)
      << " % of peak\n";
  return out.str();
}

std::string pass_text(const LayerExplanation& e, const PassExplanation& pass) {
  std::ostringstream out;
  const PassCost& c = pass.cost;
  out << pass.pass << ": " << si(c.flops, "FLOP") << ", " << si(c.bytes(), "B") << " moved, " << c.kernels << " kernel"
      << (c.kernels == 1 ? "" : "s") << "; roofline " << si(pass.time.roofline_s, "s") << " (" << bound_name(pass.time.bound)
      << " bound)\n";
  if (c.kernels == 0 && c.flops == 0 && c.bytes() == 0) {
    out << "  a view: no kernel runs\n";
    return out.str();
  }
  if (pass.time.in_l2)
    out << "  from L2: every value it reads and writes stays in the GPU's L2 from its write to its last read, so\n"
           "  DRAM moves only the rest (the bytes above: weights, a cache), and a GEMM runs at the longer of its\n"
           "  compute and L2 terms\n";
  if (pass.time.kernel_model && e.facts && pass.stream) {
    const kernels::StreamPlan& p = *pass.stream;
    const kernels::GpuFacts& f = *e.facts;
    out << "  streaming: " << si(p.traffic, "B") << " through DRAM";
    if (p.rows_in_flight > 0)
      out << " (each row re-read " << (p.rereads_in_l2 ? "from L2" : "from DRAM") << ": 2 x " << count(p.rows_in_flight)
          << " rows in flight x the row's bytes " << (p.rereads_in_l2 ? "fit in" : "exceed") << " L2 "
          << (f.l2_size > 0 ? si(f.l2_size, "B") : std::string("(not given)")) << ")";
    out << " at " << si(f.dram_efficiency * f.dram_bandwidth, "B/s") << " = " << si(p.dram_s, "s") << "\n";
    out << "    compute " << si(c.flops, "FLOP") << " / " << si(e.row.peak.flops_per_s, "FLOP/s") << " = " << si(p.compute_s, "s")
        << "; " << c.kernels << " kernel" << (c.kernels == 1 ? "" : "s") << " x fixed " << si(f.kernel_fixed_s, "s") << "\n";
    out << "  device " << si(p.seconds, "s") << " = max(DRAM, compute) + fixed";
    if (!pass.ppp.memory_default || !pass.ppp.compute_default) out << " (terms divided by the device's PPP)";
    out << "\n  time " << si(pass.time.paleo_s, "s") << " = max(device, " << c.kernels << " x launch "
        << si(e.device.launch_overhead_s, "s") << ")\n";
    return out.str();
  }
  if (pass.time.kernel_model && e.facts && pass.attention) {
    const kernels::AttentionPlan& p = *pass.attention;
    const kernels::GpuFacts& f = *e.facts;
    out << "  fused attention: " << count(p.blocks) << " blocks of 128 " << (pass.pass == "forward" ? "queries" : "keys")
        << "; " << fixed(p.executed_fraction * 100, 1) << " % of the score matrix's 128x128 steps run"
        << "; the busiest of " << count(f.sms) << " SMs runs " << count(p.steps_per_sm) << " steps\n";
    out << "    a step " << si(p.step_s, "s") << ": its products at " << f.family << "'s attention efficiency, "
        << si(p.step_exp_s, "s") << " of exponentials; " << count(p.waves) << " blocks on that SM, "
        << fixed(p.fill_steps, 2) << " steps of fill\n";
    out << "    compute " << si(p.compute_s, "s") << " = (steps + fill) x step, DRAM " << si(p.dram_s, "s") << " at "
        << si(f.dram_efficiency * f.dram_bandwidth, "B/s") << "\n";
    out << "  device " << si(pass.time.device_s, "s") << " = max(compute, DRAM) + fixed " << si(f.kernel_fixed_s, "s")
        << "\n  time " << si(pass.time.paleo_s, "s") << " = max(device, " << c.kernels << " x launch "
        << si(e.device.launch_overhead_s, "s") << ")\n";
    return out.str();
  }
  if (pass.time.kernel_model && e.facts) {
    int i = 0;
    for (const GemmStep& s : pass.gemms) out << gemm_text(s, *e.facts, ++i);
    out << "  device " << si(pass.time.device_s, "s") << " (the GEMMs, and the bytes beyond their operands streamed at "
        << si(e.facts->dram_efficiency * e.facts->dram_bandwidth, "B/s") << ")";
    if (!pass.ppp.compute_default) out << ", divided by the device's PPP " << fixed(pass.ppp.compute, 3);
    out << "\n  time " << si(pass.time.paleo_s, "s") << " = max(device, " << c.kernels << " x launch "
        << si(e.device.launch_overhead_s, "s") << ")\n";
    return out.str();
  }
  const double peak = e.row.peak.flops_per_s, bw = e.device.bandwidth;
  out << "  PALEO: " << si(c.bytes(), "B") << " / (" << fixed(pass.ppp.memory, 2) << " x " << si(bw, "B/s") << ") = "
      << si(c.bytes() / (pass.ppp.memory * bw), "s") << (pass.ppp.memory_default ? " (default PPP)" : "") << "\n";
  out << "       + " << si(c.flops, "FLOP") << " / (" << fixed(pass.ppp.compute, 2) << " x " << si(peak, "FLOP/s") << ") = "
      << si(c.flops / (pass.ppp.compute * peak), "s") << (pass.ppp.compute_default ? " (default PPP)" : "") << "\n";
  if (pass.time.fresh_s > 0) out << "       + fresh memory " << si(pass.time.fresh_s, "s") << "\n";
  if (e.model == KernelModel::Micro && pass.time.device_s > 0)
    out << "  time " << si(pass.time.paleo_s, "s") << " = max(that, " << c.kernels << " x launch "
        << si(e.device.launch_overhead_s, "s") << ")\n";
  else
    out << "       + " << c.kernels << " x launch " << si(e.device.launch_overhead_s, "s") << "\n  time "
        << si(pass.time.paleo_s, "s") << "\n";
  return out.str();
}

}  // namespace

std::string explain(const LayerExplanation& e) {
  std::ostringstream out;
  out << e.row.name << " (" << ir::op_name(e.row.op) << ", " << ir::op_class_name(e.row.op_class) << " class) of "
      << e.network << " on " << e.device.name << ", batch " << e.batch << ", " << ir::precision_name(e.precision) << "\n";
  out << "peak " << si(e.row.peak.flops_per_s, rate_unit(e.row.peak.precision)) << " (" << e.row.peak.describe()
      << "), bandwidth " << si(e.device.bandwidth, "B/s") << "\n";
  if (!e.row.kernel.empty())
    out << (e.row.kernel == e.row.name ? "fused: its forward heads a kernel the runtime fuses"
                                       : "fused: its forward runs inside " + e.row.kernel + "'s kernel, launching none of its own")
        << (e.row.fwd.in_epilogue ? ", its arithmetic in the GEMM's epilogue" : "")
        << "; the values that stay inside the kernel are neither read nor written below (engine/fusion.hpp)\n";
  if (e.facts && (e.passes[0].stream || e.passes[1].stream))
    out << "kernel model: streaming, " << count(e.facts->sms) << " SMs"
        << (e.facts->threads_per_unit > 0 ? " x " + count(e.facts->threads_per_unit) + " threads" : std::string())
        << "; DRAM " << si(e.facts->dram_bandwidth, "B/s") << " x " << fixed(e.facts->dram_efficiency, 2) << "\n";
  else if (e.facts)
    out << "kernel model: " << e.facts->family << ", " << count(e.facts->sms) << " SMs x " << si(e.facts->sm_flops, "FLOP/s")
        << " (" << (e.facts->matrix ? "tensor cores" : "SIMT lanes") << "), main loop sustains " << fixed(e.facts->sustained, 3)
        << " of it; L2 " << (e.facts->l2_bandwidth > 0 ? si(e.facts->l2_bandwidth, "B/s") : std::string("not given"))
        << "; DRAM " << si(e.facts->dram_bandwidth, "B/s") << " x " << fixed(e.facts->dram_efficiency, 2) << "\n";
  else
    out << "model: PALEO ("
        << (e.model == KernelModel::Flat                   ? "--kernel-model flat"
            : e.row.op_class == ir::OpClass::NarrowConv    ? "under 16 bytes of input channels: cuDNN runs it on the CUDA cores"
            : e.row.op_class == ir::OpClass::PointwiseNative
                ? "a 1x1 conv below batch 16 on one thread: LibTorch runs it as a BLAS GEMM, not oneDNN"
                                                           : "no kernel model for this layer or device")
        << ")\n";
  for (const PassExplanation& p : e.passes) out << pass_text(e, p);
  return out.str();
}

}  // namespace ridge::engine::render
