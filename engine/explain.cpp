#include "engine/explain.hpp"

namespace ridge::engine {

LayerExplanation explain_layer(const ir::Network& network, const ir::Device& device, const Options& options,
                               std::string_view layer) {
  std::size_t id = network.layers.size();
  for (std::size_t i = 0; i < network.layers.size(); ++i)
    if (network.layers[i].name == layer) id = i;
  if (id == network.layers.size())
    throw SimulationError("network '" + network.name + "' has no layer named '" + std::string(layer) + "'");

  // One workload: the report is timed from it, and its cost rows name the layer's GEMMs.
  const Workload w = workload(network, options);
  const Report report = simulate(w, device);
  const OpCost& cost = w.cost(id);
  LayerExplanation e;
  e.network = report.network;
  e.device = report.device;
  e.batch = report.batch;
  e.precision = report.precision;
  e.row = report.layers[id];
  e.model = options.kernel_model;
  // The forward as simulate() timed it: the row's, with the kernels a GPU's libraries add (the bias,
  // NCHW conversions); from L2 (Workload::l2_span) it moves only the rest through DRAM.
  PassCost forward = e.row.fwd;
  if (e.row.time_fwd.in_l2) {
    forward = w.l2_forward[id];
    forward.kernels = e.row.fwd.kernels;
  }
  e.passes[0] = {"forward", forward, e.row.time_fwd, e.row.ppp_fwd, {}, std::nullopt, std::nullopt};
  e.passes[1] = {"backward", e.row.bwd, e.row.time_bwd, e.row.ppp_bwd, {}, std::nullopt, std::nullopt};
  if (e.row.time_fwd.kernel_model || e.row.time_bwd.kernel_model) {
    // The facts simulate() timed the layer on: the matrix units' at the precision (the streaming terms
    // read only what every unit shares: SMs, DRAM, L2, threads, the fixed time).
    const PeakUsed& matmul = report.device.matmul_peak_used;
    e.facts = kernels::gpu_facts(device, matmul.precision, matmul.matrix);
    if (e.facts && cost.flash && e.row.time_fwd.kernel_model) {
      e.passes[0].attention = kernels::plan_attention(*cost.flash, false, forward.bytes(), *e.facts);
      e.passes[1].attention = kernels::plan_attention(*cost.flash, true, cost.backward.bytes(), *e.facts);
    } else if (e.facts && streams(cost.op_class)) {
      e.passes[0].stream = stream_plan(forward, e.row.time_fwd.in_l2 ? kernels::RowKernel{} : cost.rows_forward, *e.facts,
                                       e.row.peak, e.row.ppp_fwd);
      e.passes[1].stream = stream_plan(cost.backward, {}, *e.facts, e.row.peak, e.row.ppp_bwd);
    } else if (e.facts) {
      for (auto [pass, gemms] : {std::pair{&e.passes[0], &cost.gemm_forward}, std::pair{&e.passes[1], &cost.gemm_backward}})
        for (int i = 0; i < gemms->count; ++i) {
          const kernels::Gemm& g = gemms->gemms[static_cast<std::size_t>(i)];
          pass->gemms.push_back({g, kernels::plan_gemm(g, *e.facts)});
        }
    }
  }
  return e;
}

}  // namespace ridge::engine
