#include "engine/run.hpp"

#include <set>
#include <stdexcept>
#include <utility>

namespace ridge::engine {
namespace {

// The device counts `device` is scaled over, or none: what was asked for, else a system's own count.
std::vector<int> counts_for(const ScalingPlan& s, const ir::Device& device) {
  if (!s.device_counts.empty()) return s.device_counts;
  return device.count > 1 ? device_counts_up_to(device.count) : std::vector<int>{};
}

std::size_t simulations_asked(const Plan& p) {
  const std::size_t points = p.devices.size() * p.precisions.size() * p.batches.size();
  std::size_t n = points * (1 + p.correlate.size());
  for (const ir::Device& d : p.devices) {
    const std::size_t rows = counts_for(p.scaling, d).size();
    n += rows > 0 ? (rows + 1) * p.precisions.size() * p.batches.size() : 0;
  }
  return n;
}

template <class F>
auto on_device(const Plan& p, std::size_t i, F&& f) {
  try {
    return f();
  } catch (const WorkloadError&) {
    throw;   // about the network and its set-up, whatever the device
  } catch (const SimulationError& e) {
    const std::string& label = i < p.device_files.size() ? p.device_files[i] : p.devices[i].id;
    throw SimulationError(label + ": " + e.what());
  }
}

}  // namespace

void check_work(std::size_t simulations, std::size_t layers, const std::string& what) {
  if (layers > 0 && simulations > kMaxLayerSimulations / layers)
    throw std::invalid_argument(what + ": " + std::to_string(simulations) + " simulations of " + std::to_string(layers) +
                                " layers each are more than the " + std::to_string(kMaxLayerSimulations) +
                                " layer simulations one run may ask for");
}

Results run(const Plan& p) {
  // Count the simulations first, scaling rows included: a long device-count list per report would
  // otherwise escape the cap on the main simulations.
  const std::size_t simulations = simulations_asked(p);
  if (simulations > kMaxSimulations)
    throw std::invalid_argument("the reports, scaling rows and correlated networks asked for need " +
                                std::to_string(simulations) + " simulations, more than the " +
                                std::to_string(kMaxSimulations) + " one run may ask for");
  const std::size_t points = p.devices.size() * p.precisions.size() * p.batches.size();
  if (!p.network) throw std::invalid_argument("a plan needs a network");
  const ir::Network& network = *p.network;
  check_work(simulations - points * p.correlate.size(), network.layers.size(),
             "the reports and scaling rows of '" + network.name + "'");
  for (const NetworkRef& n : p.correlate) check_work(points, n->layers.size(), "'" + n->name + "'");

  Results out;
  auto options_at = [&](ir::Precision precision, std::int64_t batch) {
    Options o = p.options;
    o.batch = batch;
    o.precision = precision;
    return o;
  };

  if (p.parallel) {
    if (p.devices.size() != 1 || p.precisions.size() != 1 || p.batches.size() != 1 || !p.correlate.empty() || p.prompt > 0)
      throw std::invalid_argument("a parallel strategy or search takes one network, one device, one dtype and one batch");
    const ParallelRun& run = *p.parallel;
    const Options setup = options_at(p.precisions.front(), p.batches.front());
    out.parallel = on_device(p, 0, [&] {
      return run.search ? parallel::search(network, p.devices.front(), setup, run.search_options)
                        : parallel::plan(network, p.devices.front(), setup, run.strategy, run.link);
    });
    if (run.schedule && !out.parallel->strategies.empty()) {
      const parallel::StepResult& s = out.parallel->strategies.front();
      out.schedule = parallel::pipeline_schedule(s.strategy.pipeline, s.strategy.interleave, s.micro_batches, s.forward_s,
                                                 s.backward_s);
    }
    return out;
  }

  if (p.serving && p.serving_search) {
    if (p.precisions.size() != 1) throw std::invalid_argument("a deployment search takes one dtype");
    serving::SearchResult found = serving::search(p.network_at, p.devices, options_at(p.precisions.front(), 1), *p.serving, *p.serving_search);
    for (serving::Candidate& c : found.candidates) out.serving.push_back(std::move(c.run));
    found.candidates.clear();   // their runs are Results::serving now, in the same order
    out.serving_search = std::move(found);
    return out;
  }
  if (p.serving) {
    for (std::size_t i = 0; i < p.devices.size(); ++i)
      for (const ir::Precision precision : p.precisions)
        out.serving.push_back(on_device(p, i, [&] { return serving::serve(p.network_at, p.devices[i], options_at(precision, 1), *p.serving); }));
    return out;
  }

  if (p.prompt > 0) {
    for (std::size_t i = 0; i < p.devices.size(); ++i)
      for (const ir::Precision precision : p.precisions)
        for (const std::int64_t batch : p.batches)
          out.generations.push_back(on_device(p, i, [&] {
            return generate(p.network_at, p.devices[i], options_at(precision, batch), p.prompt, p.generate,
                            p.generation_parallel);
          }));
    return out;
  }

  if (!p.explain.empty())
    for (std::size_t i = 0; i < p.devices.size(); ++i)
      for (const ir::Precision precision : p.precisions)
        for (const std::int64_t batch : p.batches)
          out.explanations.push_back(
              on_device(p, i, [&] { return explain_layer(network, p.devices[i], options_at(precision, batch), p.explain); }));

  if (p.layers) {
    for (std::size_t i = 0; i < p.devices.size(); ++i)
      for (const ir::Precision precision : p.precisions)
        for (const std::int64_t batch : p.batches)
          out.reports.push_back(on_device(p, i, [&] { return simulate(network, p.devices[i], options_at(precision, batch)); }));
  } else {
    std::vector<Workload> workloads;   // precision-major, as the reports are
    for (const ir::Precision precision : p.precisions)
      for (const std::int64_t batch : p.batches) workloads.push_back(workload(network, options_at(precision, batch)));
    for (std::size_t i = 0; i < p.devices.size(); ++i)
      for (const Workload& w : workloads)
        out.reports.push_back(on_device(p, i, [&] { return simulate(w, p.devices[i], Detail::Totals); }));
  }

  if (out.reports.size() > 1) out.comparison = compare(out.reports);
  if ((p.breakdown || p.measured) && out.reports.size() != 1)
    throw std::invalid_argument("a breakdown or measured times go with one report: one device, one dtype and one batch");
  if (p.breakdown) {
    const Report& r = out.reports.front();
    out.breakdown = p.breakdown->depth > 0 ? block_rows(r, p.breakdown->depth) : layer_rows(r);
    if (p.breakdown->top > 0) rank_by_time(out.breakdown, p.breakdown->rank_by, p.breakdown->top);
    out.ranked = p.breakdown->top > 0;
  }
  if (p.measured) out.measured = compare_measured(out.reports.front(), *p.measured);

  // Data-parallel scaling: one table per (device, precision, batch).
  for (std::size_t i = 0; i < p.devices.size(); ++i) {
    const ir::Device& dev = p.devices[i];
    const std::vector<int> counts = counts_for(p.scaling, dev);
    if (counts.empty()) continue;
    for (const ir::Precision precision : p.precisions)
      for (const std::int64_t batch : p.batches) {
        ScalingOptions so;
        so.batch = batch;
        so.precision = precision;
        so.devices = counts;
        so.scaling = p.scaling.scaling;
        so.link = p.scaling.link;
        so.overlap = p.scaling.overlap;
        so.dataset_size = p.scaling.dataset_size;
        if (p.scaling.device_counts.empty() && so.scaling == Scaling::Strong) {
          // Rows a system .hw adds by itself stop where the batch can no longer be split; asking for
          // them gets scale()'s error instead.
          std::erase_if(so.devices, [&](int n) { return n > batch; });
          if (so.devices.size() < 2) {
            out.notes.push_back(warning("scaling-batch-too-small",
                                        "scaling: " + dev.id + " is a system of " + std::to_string(dev.count) + " devices; batch " +
                                            std::to_string(batch) + " cannot be split over them (--batch " +
                                            std::to_string(dev.count) + " or more, or --scaling weak, gives its scaling table)"));
            continue;
          }
        }
        out.scalings.push_back(on_device(p, i, [&] { return scale(network, dev, so); }));
      }
  }

  // Rank correlation across networks: each further network at every point of the main one's.
  if (!p.correlate.empty()) {
    for (const NetworkRef& net : p.correlate)
      for (std::size_t i = 0; i < p.devices.size(); ++i)
        for (const ir::Precision precision : p.precisions)
          for (const std::int64_t batch : p.batches)
            out.correlated.push_back(on_device(p, i, [&] { return simulate(*net, p.devices[i], options_at(precision, batch)); }));
    std::vector<Report> all = out.reports;
    all.insert(all.end(), out.correlated.begin(), out.correlated.end());
    out.correlation = rank_correlation(all);
  }
  return out;
}

}  // namespace ridge::engine
