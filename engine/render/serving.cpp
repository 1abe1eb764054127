// The text of a deployment under a request load (simulate --serve): the load, the scheduler, then
// latency percentiles, throughput, goodput and the KV cache. The JSON and CSV rows are schema.cpp's
// `serving` table.
#include "engine/render/render.hpp"
#include "engine/render/units.hpp"

#include <string>

namespace ridge::engine::render {
namespace {

std::string lengths(const serving::Lengths& l) {
  return l.low == l.high ? std::to_string(l.low) : std::to_string(l.low) + ".." + std::to_string(l.high);
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
  std::string out = "Serving (" + r.network + " on " + r.device.name + ", " + std::string(ir::precision_name(r.precision)) +
                    (devices > 1 ? ", tensor parallel " + std::to_string(d.parallel.tensor) + " x pipeline " +
                                       std::to_string(d.parallel.pipeline)
                                 : std::string()) +
                    ")\n";
  const auto row = [&](const std::string& k, const std::string& v) {
    out += "  " + k + std::string(k.size() < 20 ? 20 - k.size() : 1, ' ') + v + "\n";
  };
  row("load", std::to_string(s.requests) + " requests, Poisson at " + fixed(d.load.rate, 2) + "/s for " + si(d.load.duration_s, "s") +
                  " (seed " + std::to_string(d.load.seed) + "); prompt " + lengths(d.load.prompt) + " tokens, output " +
                  lengths(d.load.output));
  const bool static_batches = d.scheduler.batching == serving::Batching::Static;
  row("scheduler", (static_batches ? "static batches of " + std::to_string(d.scheduler.max_num_seqs) + " sequences, each after the last"
                                   : "continuous batching, prefill first: at most " + std::to_string(d.scheduler.max_num_seqs) +
                                         " sequences, " + std::to_string(d.scheduler.max_batched_tokens) + " prompt tokens a prefill") +
                       "; KV cache " +
                       count(static_cast<double>(s.kv_capacity_tokens)) + " tokens in blocks of " +
                       std::to_string(d.scheduler.block_size));
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
                      std::to_string(s.preemptions) + " preemption" + (s.preemptions == 1 ? "" : "s"));
  return out;
}

}  // namespace ridge::engine::render
