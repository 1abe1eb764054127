#include "engine/render/schema.hpp"

#include "lang/ir/ops.hpp"

#include <array>
#include <stdexcept>

namespace ridge::engine::render {
namespace {

// A column: its name and how a row's cell is read. Tables are built from these lists only, so a
// header and its cells cannot drift apart.
template <class Row>
struct Column {
  std::string_view name;
  Cell (*cell)(const Row&);
};

template <class Row, std::size_t N, std::size_t M>
void fill(Table& t, const std::array<Column<Row>, N>& which, const std::array<Column<Row>, M>& columns,
          const std::vector<Row>& rows) {
  for (const Column<Row>& c : which) t.columns.emplace_back(c.name);
  for (const Column<Row>& c : columns) t.columns.emplace_back(c.name);
  t.rows.reserve(rows.size());
  for (const Row& r : rows) {
    std::vector<Cell>& cells = t.rows.emplace_back();
    cells.reserve(N + M);
    for (const Column<Row>& c : which) cells.push_back(c.cell(r));
    for (const Column<Row>& c : columns) cells.push_back(c.cell(r));
  }
}

template <class Row, std::size_t M>
void fill(Table& t, const std::array<Column<Row>, M>& columns, const std::vector<Row>& rows) {
  fill(t, std::array<Column<Row>, 0>{}, columns, rows);
}

Cell name(std::string_view s) { return std::string(s); }
Cell count(std::int64_t i) { return i; }
Cell maybe(const std::optional<double>& d) { return d ? Cell{*d} : Cell{}; }
Cell maybe(const std::optional<bool>& b) { return b ? Cell{*b} : Cell{}; }
Cell maybe(const std::optional<std::int64_t>& i) { return i ? Cell{*i} : Cell{}; }

// The rows that stand for a layer, a scaling point, a decoder run: each knows its simulation's Report.
struct LayerAt {
  const Report* report;
  const LayerRow* layer;
};
struct PointAt {
  const ScalingReport* scaling;
  const ScalingPoint* point;
  const Report* first;   // the one-device report of the table: which simulation the rows scale
};
// A row of the one report's breakdown or measured times.
struct BreakdownAt {
  const Report* report;
  const BreakdownRow* row;
  bool ranked;
};
struct MeasuredAt {
  const Report* report;
  const MeasuredRow* row;
};
const Report& report_of(const Report& r) { return r; }
const Report& report_of(const BreakdownAt& x) { return *x.report; }
const Report& report_of(const MeasuredAt& x) { return *x.report; }
const Report& report_of(const LayerAt& x) { return *x.report; }
const Report& report_of(const PointAt& x) { return *x.first; }
const Report& report_of(const Generation& g) { return g.prefill; }
const Report& report_of(const serving::DeploymentRun& d) { return d.unloaded.prefill; }

// The columns that say which simulation a row belongs to, first in every row.
template <class Row>
constexpr std::array<Column<Row>, 5> which_columns() {
  return {Column<Row>{"network", [](const Row& x) { return name(report_of(x).network); }},
          Column<Row>{"device", [](const Row& x) { return name(report_of(x).device.name); }},
          Column<Row>{"device_id", [](const Row& x) { return name(report_of(x).device.id); }},
          Column<Row>{"batch", [](const Row& x) { return count(report_of(x).batch); }},
          Column<Row>{"dtype", [](const Row& x) { return name(ir::precision_name(report_of(x).precision)); }}};
}

const auto kRunColumns = std::array{
    Column<Report>{"optimizer", [](const Report& r) { return name(r.optimizer); }},
    Column<Report>{"runtime", [](const Report& r) { return name(r.runtime); }},
    Column<Report>{"params", [](const Report& r) { return Cell{r.totals.params}; }},
    Column<Report>{"macs", [](const Report& r) { return Cell{r.totals.macs}; }},
    Column<Report>{"flops_fwd", [](const Report& r) { return Cell{r.totals.flops_fwd}; }},
    Column<Report>{"flops_bwd", [](const Report& r) { return Cell{r.totals.flops_bwd}; }},
    Column<Report>{"flops_update", [](const Report& r) { return Cell{r.totals.flops_update}; }},
    Column<Report>{"bytes_fwd", [](const Report& r) { return Cell{r.totals.bytes_fwd}; }},
    Column<Report>{"bytes_bwd", [](const Report& r) { return Cell{r.totals.bytes_bwd}; }},
    Column<Report>{"roofline_fwd_s", [](const Report& r) { return Cell{r.totals.roofline_fwd_s}; }},
    Column<Report>{"roofline_bwd_s", [](const Report& r) { return Cell{r.totals.roofline_bwd_s}; }},
    Column<Report>{"roofline_train_step_s", [](const Report& r) { return Cell{r.totals.roofline_train_step_s}; }},
    Column<Report>{"time_fwd_s", [](const Report& r) { return Cell{r.totals.time_fwd_s}; }},
    Column<Report>{"time_fwd_train_s", [](const Report& r) { return Cell{r.totals.time_fwd_train_s}; }},
    Column<Report>{"time_bwd_s", [](const Report& r) { return Cell{r.totals.time_bwd_s}; }},
    Column<Report>{"time_update_s", [](const Report& r) { return Cell{r.totals.time_update_s}; }},
    Column<Report>{"time_train_step_s", [](const Report& r) { return Cell{r.totals.time_train_step_s}; }},
    Column<Report>{"host_fwd_s", [](const Report& r) { return Cell{r.totals.host_fwd_s}; }},
    Column<Report>{"host_train_step_s", [](const Report& r) { return Cell{r.totals.host_train_step_s}; }},
    Column<Report>{"throughput_infer", [](const Report& r) { return Cell{r.totals.throughput_infer}; }},
    Column<Report>{"throughput_train", [](const Report& r) { return Cell{r.totals.throughput_train}; }},
    Column<Report>{"tokens_per_sample", [](const Report& r) { return Cell{r.totals.tokens_per_sample}; }},
    Column<Report>{"tokens_per_s_infer",
                   [](const Report& r) { return Cell{r.totals.throughput_infer * r.totals.tokens_per_sample}; }},
    Column<Report>{"tokens_per_s_train",
                   [](const Report& r) { return Cell{r.totals.throughput_train * r.totals.tokens_per_sample}; }},
    Column<Report>{"mfu", [](const Report& r) { return Cell{r.totals.mfu}; }},
    Column<Report>{"hfu", [](const Report& r) { return Cell{r.totals.hfu}; }},
    Column<Report>{"flops_recompute", [](const Report& r) { return Cell{r.totals.flops_recompute}; }},
    Column<Report>{"time_recompute_s", [](const Report& r) { return Cell{r.totals.time_recompute_s}; }},
    Column<Report>{"memory_infer_bytes", [](const Report& r) { return Cell{r.totals.memory_infer_bytes}; }},
    Column<Report>{"memory_train_bytes", [](const Report& r) { return Cell{r.totals.memory_train_bytes}; }},
    Column<Report>{"weight_bytes", [](const Report& r) { return Cell{r.totals.weight_bytes}; }},
    Column<Report>{"train_weight_bytes", [](const Report& r) { return Cell{r.totals.train_weight_bytes}; }},
    Column<Report>{"gradient_bytes", [](const Report& r) { return Cell{r.totals.gradient_bytes}; }},
    Column<Report>{"master_weight_bytes", [](const Report& r) { return Cell{r.totals.master_weight_bytes}; }},
    Column<Report>{"optimizer_state_bytes", [](const Report& r) { return Cell{r.totals.optimizer_state_bytes}; }},
    Column<Report>{"saved_activation_bytes", [](const Report& r) { return Cell{r.totals.saved_activation_bytes}; }},
    Column<Report>{"peak_activation_bytes", [](const Report& r) { return Cell{r.totals.peak_activation_bytes}; }},
    Column<Report>{"fits_infer", [](const Report& r) { return maybe(r.totals.fits_infer); }},
    Column<Report>{"fits_train", [](const Report& r) { return maybe(r.totals.fits_train); }},
    Column<Report>{"max_batch_infer", [](const Report& r) { return count(r.totals.max_batch_infer); }},
    Column<Report>{"max_batch_train", [](const Report& r) { return count(r.totals.max_batch_train); }},
    Column<Report>{"device_kind", [](const Report& r) { return name(ir::device_kind_name(r.device.kind)); }},
    Column<Report>{"device_memory_bytes", [](const Report& r) { return maybe(r.device.memory_bytes); }},
    Column<Report>{"peak_flops", [](const Report& r) { return Cell{r.device.matmul_peak_used.flops_per_s}; }},
    Column<Report>{"vector_peak_flops", [](const Report& r) { return Cell{r.device.vector_peak_used.flops_per_s}; }},
    Column<Report>{"bandwidth", [](const Report& r) { return Cell{r.device.bandwidth}; }},
    Column<Report>{"ridge_point", [](const Report& r) { return Cell{r.device.ridge_point}; }},
    Column<Report>{"ridge_point_vector", [](const Report& r) { return Cell{r.device.ridge_point_vector}; }},
    Column<Report>{"launch_overhead_s", [](const Report& r) { return Cell{r.device.launch_overhead_s}; }},
    Column<Report>{"peak_used_matmul", [](const Report& r) { return name(r.device.matmul_peak_used.describe()); }},
    Column<Report>{"peak_used_other", [](const Report& r) { return name(r.device.vector_peak_used.describe()); }},
};

// A cell from the kernel model's plan of a layer's forward GEMM, or null where none was made.
template <class Get>
Cell gemm_cell(const LayerAt& x, Get get) {
  if (!x.layer->gemm_fwd) return Cell{};
  return get(*x.layer->gemm_fwd);
}

const auto kLayerColumns = std::array{
    Column<LayerAt>{"name", [](const LayerAt& x) { return name(x.layer->name); }},
    Column<LayerAt>{"op", [](const LayerAt& x) { return name(ir::op_name(x.layer->op)); }},
    Column<LayerAt>{"op_class", [](const LayerAt& x) { return name(ir::op_class_name(x.layer->op_class)); }},
    Column<LayerAt>{"output_shape",
                    [](const LayerAt& x) {
                      std::vector<std::int64_t> s{x.report->batch};
                      s.insert(s.end(), x.layer->output_shape.begin(), x.layer->output_shape.end());
                      return Cell{std::move(s)};
                    }},
    Column<LayerAt>{"params", [](const LayerAt& x) { return Cell{x.layer->params}; }},
    Column<LayerAt>{"macs", [](const LayerAt& x) { return Cell{x.layer->macs}; }},
    Column<LayerAt>{"flops_fwd", [](const LayerAt& x) { return Cell{x.layer->fwd.flops}; }},
    Column<LayerAt>{"flops_bwd", [](const LayerAt& x) { return Cell{x.layer->bwd.flops}; }},
    Column<LayerAt>{"bytes_fwd", [](const LayerAt& x) { return Cell{x.layer->fwd.bytes()}; }},
    Column<LayerAt>{"bytes_bwd", [](const LayerAt& x) { return Cell{x.layer->bwd.bytes()}; }},
    Column<LayerAt>{"bytes_read_fwd", [](const LayerAt& x) { return Cell{x.layer->fwd.bytes_read}; }},
    Column<LayerAt>{"bytes_written_fwd", [](const LayerAt& x) { return Cell{x.layer->fwd.bytes_written}; }},
    Column<LayerAt>{"bytes_read_bwd", [](const LayerAt& x) { return Cell{x.layer->bwd.bytes_read}; }},
    Column<LayerAt>{"bytes_written_bwd", [](const LayerAt& x) { return Cell{x.layer->bwd.bytes_written}; }},
    Column<LayerAt>{"ai_fwd", [](const LayerAt& x) { return Cell{x.layer->time_fwd.intensity}; }},
    Column<LayerAt>{"ai_bwd", [](const LayerAt& x) { return Cell{x.layer->time_bwd.intensity}; }},
    Column<LayerAt>{"roofline_fwd_s", [](const LayerAt& x) { return Cell{x.layer->time_fwd.roofline_s}; }},
    Column<LayerAt>{"roofline_bwd_s", [](const LayerAt& x) { return Cell{x.layer->time_bwd.roofline_s}; }},
    Column<LayerAt>{"time_fwd_s", [](const LayerAt& x) { return Cell{x.layer->time_fwd.paleo_s}; }},
    Column<LayerAt>{"time_bwd_s", [](const LayerAt& x) { return Cell{x.layer->time_bwd.paleo_s}; }},
    Column<LayerAt>{"time_fwd_train_s", [](const LayerAt& x) { return Cell{x.layer->time_fwd_train.paleo_s}; }},
    Column<LayerAt>{"bound_fwd", [](const LayerAt& x) { return name(bound_name(x.layer->time_fwd.bound)); }},
    Column<LayerAt>{"bound_bwd", [](const LayerAt& x) { return name(bound_name(x.layer->time_bwd.bound)); }},
    Column<LayerAt>{"peak_used", [](const LayerAt& x) { return name(x.layer->peak.describe()); }},
    // The GPU kernel model's account of the forward's largest GEMM (null where the flat model timed it).
    Column<LayerAt>{"tile_fwd", [](const LayerAt& x) { return gemm_cell(x, [](const auto& g) {
                      return name(std::to_string(g.tile.m) + "x" + std::to_string(g.tile.n) + "x" + std::to_string(g.tile.k)); }); }},
    Column<LayerAt>{"split_k_fwd", [](const LayerAt& x) { return gemm_cell(x, [](const auto& g) { return Cell{std::int64_t{g.split_k}}; }); }},
    Column<LayerAt>{"tiles_fwd", [](const LayerAt& x) { return gemm_cell(x, [](const auto& g) { return Cell{g.tiles}; }); }},
    Column<LayerAt>{"waves_fwd", [](const LayerAt& x) { return gemm_cell(x, [](const auto& g) { return Cell{g.waves}; }); }},
    Column<LayerAt>{"wave_efficiency_fwd", [](const LayerAt& x) { return gemm_cell(x, [](const auto& g) { return Cell{g.wave_efficiency}; }); }},
    Column<LayerAt>{"mainloop_efficiency_fwd", [](const LayerAt& x) { return gemm_cell(x, [](const auto& g) { return Cell{g.mainloop_efficiency}; }); }},
    Column<LayerAt>{"fraction_of_peak_fwd", [](const LayerAt& x) { return gemm_cell(x, [](const auto& g) { return Cell{g.fraction_of_peak}; }); }},
    Column<LayerAt>{"fixed_fwd_s", [](const LayerAt& x) { return gemm_cell(x, [](const auto& g) { return Cell{g.fixed_s}; }); }},
    Column<LayerAt>{"device_fwd_s", [](const LayerAt& x) { return gemm_cell(x, [&](const auto&) { return Cell{x.layer->time_fwd.device_s}; }); }},
    Column<LayerAt>{"limit_fwd", [](const LayerAt& x) { return gemm_cell(x, [](const auto& g) { return name(kernels::limit_name(g.limit)); }); }},
    // The kernel model ran the inference forward from L2 (its activations never reached DRAM; PassTime::in_l2).
    Column<LayerAt>{"from_l2_fwd", [](const LayerAt& x) { return Cell{x.layer->time_fwd.in_l2}; }},
    // The fused kernel the layer's forward ran in under --runtime (its first layer); null: alone.
    Column<LayerAt>{"kernel", [](const LayerAt& x) { return x.layer->kernel.empty() ? Cell{} : name(x.layer->kernel); }},
};

const auto kScalingColumns = std::array{
    Column<PointAt>{"scaling", [](const PointAt& x) { return name(scaling_name(x.scaling->scaling)); }},
    Column<PointAt>{"overlap", [](const PointAt& x) { return Cell{x.scaling->overlap}; }},
    Column<PointAt>{"link", [](const PointAt& x) { return x.scaling->link.name.empty() ? Cell{} : name(x.scaling->link.name); }},
    Column<PointAt>{"link_bandwidth", [](const PointAt& x) { return Cell{x.scaling->link.bandwidth}; }},
    Column<PointAt>{"link_latency_s", [](const PointAt& x) { return Cell{x.scaling->link.latency_s}; }},
    Column<PointAt>{"gradient_bytes", [](const PointAt& x) { return Cell{x.scaling->gradient_bytes}; }},
    Column<PointAt>{"devices", [](const PointAt& x) { return count(x.point->devices); }},
    Column<PointAt>{"per_device_batch", [](const PointAt& x) { return count(x.point->per_device_batch); }},
    Column<PointAt>{"global_batch", [](const PointAt& x) { return count(x.point->global_batch); }},
    Column<PointAt>{"forward_s", [](const PointAt& x) { return Cell{x.point->forward_s}; }},
    Column<PointAt>{"backward_s", [](const PointAt& x) { return Cell{x.point->backward_s}; }},
    Column<PointAt>{"update_s", [](const PointAt& x) { return Cell{x.point->update_s}; }},
    Column<PointAt>{"compute_s", [](const PointAt& x) { return Cell{x.point->compute_s}; }},
    Column<PointAt>{"allreduce_s", [](const PointAt& x) { return Cell{x.point->allreduce_s}; }},
    Column<PointAt>{"exposed_comm_s", [](const PointAt& x) { return Cell{x.point->exposed_comm_s}; }},
    Column<PointAt>{"step_s", [](const PointAt& x) { return Cell{x.point->step_s}; }},
    Column<PointAt>{"throughput", [](const PointAt& x) { return Cell{x.point->throughput}; }},
    Column<PointAt>{"speedup", [](const PointAt& x) { return Cell{x.point->speedup}; }},
    Column<PointAt>{"efficiency", [](const PointAt& x) { return Cell{x.point->efficiency}; }},
    Column<PointAt>{"comm_share", [](const PointAt& x) { return Cell{x.point->comm_share}; }},
    Column<PointAt>{"fits_train", [](const PointAt& x) {
                      const auto fits = x.point->per_device.totals.fits_train;
                      return fits ? Cell{*fits} : Cell{};
                    }},
    Column<PointAt>{"dataset_size", [](const PointAt& x) { return maybe(x.scaling->dataset_size); }},
    Column<PointAt>{"steps_per_epoch", [](const PointAt& x) { return maybe(x.point->steps_per_epoch); }},
    Column<PointAt>{"epoch_s", [](const PointAt& x) { return maybe(x.point->epoch_s); }},
};

const auto kGenerationColumns = std::array{
    Column<Generation>{"runtime", [](const Generation& g) { return name(g.prefill.runtime); }},
    Column<Generation>{"prompt", [](const Generation& g) { return count(g.prompt); }},
    Column<Generation>{"generate", [](const Generation& g) { return count(g.generate); }},
    Column<Generation>{"tensor_parallel", [](const Generation& g) { return count(g.tensor_parallel); }},
    Column<Generation>{"pipeline_parallel", [](const Generation& g) { return count(g.pipeline_parallel); }},
    Column<Generation>{"prefill_s", [](const Generation& g) { return Cell{g.prefill_s}; }},
    Column<Generation>{"communication_prefill_s", [](const Generation& g) { return Cell{g.communication_prefill_s}; }},
    Column<Generation>{"communication_decode_s", [](const Generation& g) { return Cell{g.communication_decode_s}; }},
    Column<Generation>{"decode_per_token_s", [](const Generation& g) { return Cell{g.decode_per_token_s}; }},
    Column<Generation>{"decode_first_s", [](const Generation& g) { return Cell{g.decode_first_s}; }},
    Column<Generation>{"decode_last_s", [](const Generation& g) { return Cell{g.decode_last_s}; }},
    Column<Generation>{"latency_s", [](const Generation& g) { return Cell{g.latency_s}; }},
    Column<Generation>{"tokens_per_s", [](const Generation& g) { return Cell{g.tokens_per_s}; }},
    Column<Generation>{"decode_tokens_per_s", [](const Generation& g) { return Cell{g.decode_tokens_per_s}; }},
    Column<Generation>{"kv_cache_bytes", [](const Generation& g) { return Cell{g.kv_cache_bytes}; }},
    Column<Generation>{"kv_cache_bytes_per_token", [](const Generation& g) { return Cell{g.kv_cache_bytes_per_token}; }},
    Column<Generation>{"weight_bytes", [](const Generation& g) { return Cell{g.weight_bytes}; }},
    Column<Generation>{"activation_bytes", [](const Generation& g) { return Cell{g.activation_bytes}; }},
    Column<Generation>{"memory_bytes", [](const Generation& g) { return Cell{g.memory_bytes}; }},
    Column<Generation>{"memory_per_device_bytes", [](const Generation& g) { return Cell{g.memory_per_device_bytes}; }},
    Column<Generation>{"fits", [](const Generation& g) { return maybe(g.fits); }},
    Column<Generation>{"max_batch", [](const Generation& g) { return count(g.max_batch); }},
    Column<Generation>{"decode_bound_s", [](const Generation& g) { return Cell{g.decode_bound_s}; }},
};

using serving::DeploymentRun;
const auto kServingColumns = std::array{
    Column<DeploymentRun>{"runtime", [](const DeploymentRun& d) { return name(d.unloaded.prefill.runtime); }},
    Column<DeploymentRun>{"tensor_parallel", [](const DeploymentRun& d) { return count(d.deployment.parallel.tensor); }},
    Column<DeploymentRun>{"pipeline_parallel", [](const DeploymentRun& d) { return count(d.deployment.parallel.pipeline); }},
    Column<DeploymentRun>{"replicas", [](const DeploymentRun& d) { return count(d.deployment.replicas.total()); }},
    Column<DeploymentRun>{"prefill_replicas", [](const DeploymentRun& d) { return count(d.deployment.replicas.prefill); }},
    Column<DeploymentRun>{"decode_replicas", [](const DeploymentRun& d) { return count(d.deployment.replicas.decode); }},
    Column<DeploymentRun>{"router", [](const DeploymentRun& d) { return name(serving::router_name(d.deployment.replicas.router)); }},
    Column<DeploymentRun>{"devices", [](const DeploymentRun& d) { return count(d.devices()); }},
    Column<DeploymentRun>{"arrivals", [](const DeploymentRun& d) { return name(serving::arrivals_name(d.deployment.load)); }},
    Column<DeploymentRun>{"rate", [](const DeploymentRun& d) { return Cell{d.deployment.load.rate}; }},
    Column<DeploymentRun>{"duration_s", [](const DeploymentRun& d) { return Cell{d.deployment.load.duration_s}; }},
    Column<DeploymentRun>{"burstiness", [](const DeploymentRun& d) { return Cell{d.deployment.load.burstiness}; }},
    Column<DeploymentRun>{"prompt_tokens_low", [](const DeploymentRun& d) { return count(d.deployment.load.prompt.low); }},
    Column<DeploymentRun>{"prompt_tokens_high", [](const DeploymentRun& d) { return count(d.deployment.load.prompt.high); }},
    Column<DeploymentRun>{"output_tokens_low", [](const DeploymentRun& d) { return count(d.deployment.load.output.low); }},
    Column<DeploymentRun>{"output_tokens_high", [](const DeploymentRun& d) { return count(d.deployment.load.output.high); }},
    Column<DeploymentRun>{"seed", [](const DeploymentRun& d) { return count(static_cast<std::int64_t>(d.deployment.load.seed)); }},
    Column<DeploymentRun>{"batching", [](const DeploymentRun& d) {
      return name(serving::batching_name(d.deployment.scheduler.batching)); }},
    Column<DeploymentRun>{"max_num_seqs", [](const DeploymentRun& d) { return count(d.deployment.scheduler.max_num_seqs); }},
    Column<DeploymentRun>{"max_batched_tokens", [](const DeploymentRun& d) { return count(d.deployment.scheduler.max_batched_tokens); }},
    Column<DeploymentRun>{"kv_capacity_tokens", [](const DeploymentRun& d) { return count(d.served.kv_capacity_tokens); }},
    Column<DeploymentRun>{"requests", [](const DeploymentRun& d) { return count(d.served.requests); }},
    Column<DeploymentRun>{"completed", [](const DeploymentRun& d) { return count(d.served.completed); }},
    Column<DeploymentRun>{"iterations", [](const DeploymentRun& d) { return count(d.served.iterations); }},
    Column<DeploymentRun>{"preemptions", [](const DeploymentRun& d) { return count(d.served.preemptions); }},
    Column<DeploymentRun>{"makespan_s", [](const DeploymentRun& d) { return Cell{d.served.makespan_s}; }},
    Column<DeploymentRun>{"requests_per_s", [](const DeploymentRun& d) { return Cell{d.served.requests_per_s}; }},
    Column<DeploymentRun>{"output_tokens_per_s", [](const DeploymentRun& d) { return Cell{d.served.output_tokens_per_s}; }},
    Column<DeploymentRun>{"ttft_mean_s", [](const DeploymentRun& d) { return Cell{d.served.ttft.mean}; }},
    Column<DeploymentRun>{"ttft_p50_s", [](const DeploymentRun& d) { return Cell{d.served.ttft.p50}; }},
    Column<DeploymentRun>{"ttft_p90_s", [](const DeploymentRun& d) { return Cell{d.served.ttft.p90}; }},
    Column<DeploymentRun>{"ttft_p99_s", [](const DeploymentRun& d) { return Cell{d.served.ttft.p99}; }},
    Column<DeploymentRun>{"tpot_mean_s", [](const DeploymentRun& d) { return Cell{d.served.tpot.mean}; }},
    Column<DeploymentRun>{"tpot_p50_s", [](const DeploymentRun& d) { return Cell{d.served.tpot.p50}; }},
    Column<DeploymentRun>{"tpot_p90_s", [](const DeploymentRun& d) { return Cell{d.served.tpot.p90}; }},
    Column<DeploymentRun>{"tpot_p99_s", [](const DeploymentRun& d) { return Cell{d.served.tpot.p99}; }},
    Column<DeploymentRun>{"e2e_mean_s", [](const DeploymentRun& d) { return Cell{d.served.e2e.mean}; }},
    Column<DeploymentRun>{"e2e_p50_s", [](const DeploymentRun& d) { return Cell{d.served.e2e.p50}; }},
    Column<DeploymentRun>{"e2e_p90_s", [](const DeploymentRun& d) { return Cell{d.served.e2e.p90}; }},
    Column<DeploymentRun>{"e2e_p99_s", [](const DeploymentRun& d) { return Cell{d.served.e2e.p99}; }},
    Column<DeploymentRun>{"mean_in_system", [](const DeploymentRun& d) { return Cell{d.served.mean_in_system}; }},
    Column<DeploymentRun>{"slo_ttft_s", [](const DeploymentRun& d) { return d.deployment.slo.ttft_s > 0 ? Cell{d.deployment.slo.ttft_s} : Cell{}; }},
    Column<DeploymentRun>{"slo_tpot_s", [](const DeploymentRun& d) { return d.deployment.slo.tpot_s > 0 ? Cell{d.deployment.slo.tpot_s} : Cell{}; }},
    Column<DeploymentRun>{"slo_attainment", [](const DeploymentRun& d) { return Cell{d.served.slo_attainment}; }},
    Column<DeploymentRun>{"goodput_requests_per_s", [](const DeploymentRun& d) { return Cell{d.served.goodput_requests_per_s}; }},
    Column<DeploymentRun>{"kv_peak", [](const DeploymentRun& d) { return Cell{d.served.kv_peak}; }},
    Column<DeploymentRun>{"kv_mean", [](const DeploymentRun& d) { return Cell{d.served.kv_mean}; }},
    Column<DeploymentRun>{"utilisation", [](const DeploymentRun& d) { return Cell{d.served.utilisation}; }},
    Column<DeploymentRun>{"transfer_mean_s", [](const DeploymentRun& d) {
      return d.deployment.replicas.disaggregated() ? Cell{d.served.transfer_mean_s} : Cell{}; }},
    Column<DeploymentRun>{"price_per_hour", [](const DeploymentRun& d) { return maybe(d.price_per_hour()); }},
    Column<DeploymentRun>{"meets_slo", [](const DeploymentRun& d) {
      const bool goals = d.deployment.slo.ttft_s > 0 || d.deployment.slo.tpot_s > 0;
      return goals ? Cell{d.meets_slo()} : Cell{}; }},
    Column<DeploymentRun>{"unloaded_ttft_s", [](const DeploymentRun& d) { return Cell{d.unloaded.prefill_s}; }},
    Column<DeploymentRun>{"unloaded_tpot_s", [](const DeploymentRun& d) { return Cell{d.unloaded.decode_per_token_s}; }},
};

const auto kBreakdownColumns = std::array{
    Column<BreakdownAt>{"name", [](const BreakdownAt& x) { return name(x.row->name); }},
    Column<BreakdownAt>{"op", [](const BreakdownAt& x) { return x.row->op.empty() ? Cell{} : name(x.row->op); }},
    Column<BreakdownAt>{"layers", [](const BreakdownAt& x) { return count(static_cast<std::int64_t>(x.row->layers)); }},
    Column<BreakdownAt>{"params", [](const BreakdownAt& x) { return Cell{x.row->params}; }},
    Column<BreakdownAt>{"macs", [](const BreakdownAt& x) { return Cell{x.row->macs}; }},
    Column<BreakdownAt>{"flops_fwd", [](const BreakdownAt& x) { return Cell{x.row->flops_fwd}; }},
    Column<BreakdownAt>{"bytes_fwd", [](const BreakdownAt& x) { return Cell{x.row->bytes_fwd}; }},
    Column<BreakdownAt>{"time_fwd_s", [](const BreakdownAt& x) { return Cell{x.row->time_fwd_s}; }},
    Column<BreakdownAt>{"flops_bwd", [](const BreakdownAt& x) { return Cell{x.row->flops_bwd}; }},
    Column<BreakdownAt>{"bytes_bwd", [](const BreakdownAt& x) { return Cell{x.row->bytes_bwd}; }},
    Column<BreakdownAt>{"time_bwd_s", [](const BreakdownAt& x) { return Cell{x.row->time_bwd_s}; }},
    Column<BreakdownAt>{"time_train_s", [](const BreakdownAt& x) { return Cell{x.row->time_train_s}; }},
    Column<BreakdownAt>{"share", [](const BreakdownAt& x) { return x.ranked ? Cell{x.row->share} : Cell{}; }},
    Column<BreakdownAt>{"cumulative", [](const BreakdownAt& x) { return x.ranked ? Cell{x.row->cumulative} : Cell{}; }},
};

const auto kMeasuredColumns = std::array{
    Column<MeasuredAt>{"name", [](const MeasuredAt& x) { return name(x.row->name); }},
    Column<MeasuredAt>{"op", [](const MeasuredAt& x) { return name(x.row->op); }},
    Column<MeasuredAt>{"predicted_fwd_s", [](const MeasuredAt& x) { return Cell{x.row->predicted_fwd_s}; }},
    Column<MeasuredAt>{"measured_fwd_s", [](const MeasuredAt& x) { return maybe(x.row->measured_fwd_s); }},
    Column<MeasuredAt>{"error_fwd", [](const MeasuredAt& x) { return maybe(x.row->error_fwd()); }},
    Column<MeasuredAt>{"predicted_bwd_s", [](const MeasuredAt& x) { return Cell{x.row->predicted_bwd_s}; }},
    Column<MeasuredAt>{"measured_bwd_s", [](const MeasuredAt& x) { return maybe(x.row->measured_bwd_s); }},
    Column<MeasuredAt>{"error_bwd", [](const MeasuredAt& x) { return maybe(x.row->error_bwd()); }},
};

struct NoteAt {
  const Report* report;   // null: the run's own note
  std::string_view source;
  const Note* note;
};

Cell which(const NoteAt& n, Cell (*of)(const Report&)) { return n.report ? of(*n.report) : Cell{}; }

const auto kNoteColumns = std::array{
    Column<NoteAt>{"network", [](const NoteAt& n) { return which(n, [](const Report& r) { return name(r.network); }); }},
    Column<NoteAt>{"device", [](const NoteAt& n) { return which(n, [](const Report& r) { return name(r.device.name); }); }},
    Column<NoteAt>{"device_id", [](const NoteAt& n) { return which(n, [](const Report& r) { return name(r.device.id); }); }},
    Column<NoteAt>{"batch", [](const NoteAt& n) { return which(n, [](const Report& r) { return count(r.batch); }); }},
    Column<NoteAt>{"dtype",
                   [](const NoteAt& n) { return which(n, [](const Report& r) { return name(ir::precision_name(r.precision)); }); }},
    Column<NoteAt>{"source", [](const NoteAt& n) { return name(n.source); }},
    Column<NoteAt>{"severity", [](const NoteAt& n) { return name(severity_name(n.note->severity)); }},
    Column<NoteAt>{"id", [](const NoteAt& n) { return name(n.note->id); }},
    Column<NoteAt>{"note", [](const NoteAt& n) { return name(n.note->text); }},
};

}  // namespace

Table runs_table(const std::vector<Report>& reports) {
  Table t{.name = "runs"};
  fill(t, which_columns<Report>(), kRunColumns, reports);
  return t;
}

Table layers_table(const std::vector<Report>& reports) {
  std::vector<LayerAt> rows;
  for (const Report& r : reports)
    for (const LayerRow& l : r.layers) rows.push_back({&r, &l});
  Table t{.name = "layers"};
  fill(t, which_columns<LayerAt>(), kLayerColumns, rows);
  return t;
}

Table scaling_table(const std::vector<ScalingReport>& scalings) {
  std::vector<PointAt> rows;
  for (const ScalingReport& s : scalings)
    for (const ScalingPoint& p : s.points) rows.push_back({&s, &p, &s.points.front().per_device});
  Table t{.name = "scaling"};
  fill(t, which_columns<PointAt>(), kScalingColumns, rows);
  return t;
}

Table generation_table(const std::vector<Generation>& generations) {
  Table t{.name = "generation"};
  fill(t, which_columns<Generation>(), kGenerationColumns, generations);
  return t;
}

Table serving_table(const std::vector<serving::DeploymentRun>& runs) {
  Table t{.name = "serving"};
  fill(t, which_columns<serving::DeploymentRun>(), kServingColumns, runs);
  return t;
}

Table correlation_table(const RankCorrelation& c) {
  Table t{.name = "correlation"};
  t.columns.emplace_back("variable");
  for (const std::string& v : c.variables) t.columns.push_back(v);
  for (std::size_t i = 0; i < c.variables.size(); ++i) {
    std::vector<Cell>& row = t.rows.emplace_back();
    row.emplace_back(c.variables[i]);
    for (const std::optional<double>& rho : c.rho[i]) row.push_back(maybe(rho));
  }
  return t;
}

Table breakdown_table(const Results& results) {
  std::vector<BreakdownAt> rows;
  for (const BreakdownRow& b : results.breakdown) rows.push_back({&results.reports.front(), &b, results.ranked});
  Table t{.name = "breakdown"};
  fill(t, which_columns<BreakdownAt>(), kBreakdownColumns, rows);
  return t;
}

Table measured_table(const Results& results) {
  std::vector<MeasuredAt> rows;
  if (results.measured)
    for (const MeasuredRow& m : results.measured->rows) rows.push_back({&results.reports.front(), &m});
  Table t{.name = "measured"};
  fill(t, which_columns<MeasuredAt>(), kMeasuredColumns, rows);
  return t;
}

Table notes_table(const Results& results) {
  std::vector<NoteAt> rows;
  for (const Note& n : results.notes) rows.push_back({nullptr, "run", &n});
  for (const Report& r : results.reports)
    for (const Note& n : r.notes) rows.push_back({&r, "report", &n});
  for (const Generation& g : results.generations)
    for (const Note& n : g.prefill.notes) rows.push_back({&g.prefill, "generation", &n});
  for (const serving::DeploymentRun& d : results.serving)
    for (const Note& n : d.unloaded.prefill.notes) rows.push_back({&d.unloaded.prefill, "serving", &n});
  for (const ScalingReport& s : results.scalings)
    for (const Note& n : s.notes) rows.push_back({&s.points.front().per_device, "scaling", &n});
  Table t{.name = "notes"};
  fill(t, kNoteColumns, rows);
  return t;
}

Table table(const Results& results, std::string_view name) {
  if (name == "runs") {
    std::vector<Report> runs = results.reports;
    runs.insert(runs.end(), results.correlated.begin(), results.correlated.end());
    return runs_table(runs);
  }
  if (name == "layers") return layers_table(results.reports);
  if (name == "scaling") return scaling_table(results.scalings);
  if (name == "generation") return generation_table(results.generations);
  if (name == "serving") return serving_table(results.serving);
  if (name == "correlation") return results.correlation ? correlation_table(*results.correlation) : Table{.name = "correlation"};
  if (name == "breakdown") return breakdown_table(results);
  if (name == "measured") return measured_table(results);
  if (name == "notes") return notes_table(results);
  throw std::invalid_argument("no table '" + std::string(name) + "' in the output schema");
}

std::vector<Table> tables(const Results& results) {
  std::vector<Table> out;
  for (const std::string_view name : kTableNames) out.push_back(table(results, name));
  return out;
}

}  // namespace ridge::engine::render
