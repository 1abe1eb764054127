// The text of a deployment under a request load (simulate --serve): the load, the scheduler, then
// latency percentiles, throughput, goodput and the KV cache. The JSON and CSV rows are schema.cpp's
// `serving` table.
#include "engine/render/grid.hpp"
#include "engine/render/render.hpp"
#include "engine/render/units.hpp"

#include <string>

namespace ridge::engine::render {
namespace {

std::string lengths(const serving::Lengths& l) {
  if (!l.samples.empty()) return "sampled from " + l.source + " (" + std::to_string(l.low) + ".." + std::to_string(l.high) + ")";
  return l.low == l.high ? std::to_string(l.low) : std::to_string(l.low) + ".." + std::to_string(l.high);
}

std::string arrivals(const serving::Load& l) {
  if (!l.trace.empty()) return "replayed from " + l.trace_source;
  const std::string at = fixed(l.rate, 2) + "/s for " + si(l.duration_s, "s");
  return (l.burstiness == 1.0 ? "Poisson at " : "gamma (burstiness " + fixed(l.burstiness, 2) + ") at ") + at;
}

std::string scheduler(const serving::Scheduler& s) {
  switch (s.batching) {
    case serving::Batching::Static:
      return "static batches of " + std::to_string(s.max_num_seqs) + " sequences, each after the last";
    case serving::Batching::Chunked:
      return "chunked prefill, decodes first: at most " + std::to_string(s.max_num_seqs) + " sequences, " +
             std::to_string(s.max_batched_tokens) + " tokens an iteration";
    case serving::Batching::Continuous: break;
  }
  return "continuous batching, prefill first: at most " + std::to_string(s.max_num_seqs) + " sequences, " +
         std::to_string(s.max_batched_tokens) + " prompt tokens a prefill";
}

std::string spread(const serving::Percentiles& p) {
  return "mean " + si(p.mean, "s") + ", p50 " + si(p.p50, "s") + ", p90 " + si(p.p90, "s") + ", p99 " + si(p.p99, "s");
}

}  // namespace

std::string table(const serving::DeploymentRun& run) {
  const serving::Deployment& d = run.deployment;
  const serving::Served& s = run.served;
  const Report& r = run.unloaded.prefill;
  const int devices = d.parallel.devices();
  const std::int64_t replicas = d.replicas.total();
  const std::string fleet = d.replicas.disaggregated() ? std::to_string(d.replicas.prefill) + " prefill + " +
                                                             std::to_string(d.replicas.decode) + " decode replicas"
                                                       : std::to_string(replicas) + " replicas";
  std::string out = "Serving (" + r.network + " on " + r.device.name + ", " + std::string(ir::precision_name(r.precision)) +
                    (replicas > 1 ? ", " + fleet + " (" + std::string(serving::router_name(d.replicas.router)) + ")" : std::string()) +
                    (devices > 1 ? std::string(replicas > 1 ? " of" : ",") + " tensor parallel " + std::to_string(d.parallel.tensor) +
                                       " x pipeline " + std::to_string(d.parallel.pipeline)
                                 : std::string()) +
                    ")\n";
  const auto row = [&](const std::string& k, const std::string& v) {
    out += "  " + k + std::string(k.size() < 20 ? 20 - k.size() : 1, ' ') + v + "\n";
  };
  row("load", std::to_string(s.requests) + " requests, " + arrivals(d.load) +
                  (d.load.trace.empty() ? " (seed " + std::to_string(d.load.seed) + "); prompt " + lengths(d.load.prompt) +
                                              " tokens, output " + lengths(d.load.output)
                                        : std::string()));
  row("scheduler", scheduler(d.scheduler) + "; KV cache " + count(static_cast<double>(s.kv_capacity_tokens)) + " tokens" +
                       (replicas > 1 ? " a replica" : "") + " in blocks of " + std::to_string(d.scheduler.block_size));
  row("time to first", spread(s.ttft) + " (alone: " + si(run.unloaded.prefill_s, "s") + ")");
  row("time per token", spread(s.tpot) + " (alone: " + si(run.unloaded.decode_per_token_s, "s") + ")");
  row("end to end", spread(s.e2e) + "; " + fixed(s.mean_in_system, 1) + " requests in the system on average");
  row("throughput", fixed(s.requests_per_s, 2) + " requests/s, " + si(s.output_tokens_per_s, "tokens/s") + " generated, over " +
                        si(s.makespan_s, "s") + " (" + std::to_string(s.iterations) + " iterations, " +
                        std::to_string(s.prefill_iterations) + " of them prefills)");
  if (d.slo.ttft_s > 0 || d.slo.tpot_s > 0)
    row("goodput", fixed(s.goodput_requests_per_s, 2) + " requests/s within TTFT " + (d.slo.ttft_s > 0 ? si(d.slo.ttft_s, "s") : std::string("-")) +
                       " and TPOT " + (d.slo.tpot_s > 0 ? si(d.slo.tpot_s, "s") : std::string("-")) + ": " +
                       fixed(100 * s.slo_attainment, 1) + " % of requests");
  row("KV cache", "peak " + fixed(100 * s.kv_peak, 1) + " %, mean " + fixed(100 * s.kv_mean, 1) + " %; " +
                      std::to_string(s.preemptions) + " preemption" + (s.preemptions == 1 ? "" : "s") + "; busy " +
                      fixed(100 * s.utilisation, 1) + " % of the time" +
                      (d.replicas.disaggregated() ? "; KV hand-over " + si(s.transfer_mean_s, "s") + " on average" : std::string()));
  return out;
}

std::string table(const serving::SearchResult& search, const std::vector<serving::DeploymentRun>& runs) {
  constexpr std::size_t kShown = 10;
  std::string out;
  if (runs.empty()) {
    out = "Deployment search: no deployment could serve the load\n";
  } else {
    const serving::DeploymentRun& best = runs.front();
    const serving::Deployment& d = best.deployment;
    const Report& r = best.unloaded.prefill;
    const auto goal = [](double s) { return s > 0 ? si(s, "s") : std::string("-"); };
    out = "Deployment search (" + r.network + ", " + std::string(ir::precision_name(r.precision)) + "): " + arrivals(d.load) +
          ", prompt " + lengths(d.load.prompt) + ", output " + lengths(d.load.output) + "; goals TTFT p99 " + goal(d.slo.ttft_s) +
          ", TPOT p99 " + goal(d.slo.tpot_s) + "\n";
    out += "  " + std::to_string(runs.size()) + " splits that fit, each at its best batch size; " +
           std::to_string(search.deployments_served) + " deployments served; ranked by " + (search.by_price ? "price per hour" : "devices (not every device file gives a price)") + "\n\n";
    std::vector<std::vector<std::string>> rows{
        {"device", "replicas", "TP", "PP", "seqs", "GPUs", "USD/h", "TTFT p99", "TPOT p99", "goodput", "meets"}};
    for (std::size_t i = 0; i < runs.size() && i < kShown; ++i) {
      const serving::DeploymentRun& x = runs[i];
      const auto price = x.price_per_hour();
      rows.push_back({x.unloaded.prefill.device.id,
                      std::to_string(x.deployment.replicas.count), std::to_string(x.deployment.parallel.tensor),
                      std::to_string(x.deployment.parallel.pipeline), std::to_string(x.deployment.scheduler.max_num_seqs),
                      std::to_string(x.devices()), price ? fixed(*price, 2) : "-", si(x.served.ttft.p99, "s"), si(x.served.tpot.p99, "s"),
                      fixed(x.served.goodput_requests_per_s, 2) + "/s", x.meets_slo() ? "yes" : "no"});
    }
    out += grid(rows);
    if (runs.size() > kShown) out += "  ... " + std::to_string(runs.size() - kShown) + " more (--format json lists them all)\n";
  }
  for (const serving::Refusal& f : search.refused)
    out += "  refused: " + f.device_id + " at tensor parallel " + std::to_string(f.tensor) + " x pipeline " +
           std::to_string(f.pipeline) + ": " + f.reason + "\n";
  if (!runs.empty()) out += "\nThe first in full:\n" + table(runs.front());
  return out;
}

}  // namespace ridge::engine::render
