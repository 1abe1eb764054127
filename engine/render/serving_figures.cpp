#include "engine/render/serving_figures.hpp"

#include "engine/render/json_writer.hpp"
#include "engine/render/svg_writer.hpp"
#include "engine/render/units.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace ridge::engine::render {
namespace {

constexpr double kMicro = 1e6;
constexpr int kBins = 600;
constexpr std::size_t kMostReplicasDrawn = 12;

std::string kind(const serving::Iteration& it) {
  if (it.prefill_tokens > 0 && it.decodes > 0) return "chunked";
  return it.prefill_tokens > 0 ? "prefill" : "decode";
}

std::string title(const serving::DeploymentRun& run) {
  const Report& r = run.unloaded.prefill;
  return r.network + " on " + r.device.name + ", " + std::string(ir::precision_name(r.precision)) + ": " +
         std::to_string(run.deployment.replicas.total()) + " x TP " + std::to_string(run.deployment.parallel.tensor) + " x PP " +
         std::to_string(run.deployment.parallel.pipeline) + ", " + std::string(serving::batching_name(run.deployment.scheduler.batching)) +
         " batching";
}

void check_recorded(const serving::DeploymentRun& run) {
  if (run.served.timeline.empty() && run.served.requests > 0)
    throw std::invalid_argument("the deployment's iterations were not recorded (Deployment::record)");
}

}  // namespace

std::string serving_trace(const serving::DeploymentRun& run) {
  check_recorded(run);
  JsonWriter w;
  w.begin_object();
  w.key("displayTimeUnit").value("ms");
  w.key("otherData").begin_object().key("deployment").value(title(run)).key("requests").value(static_cast<double>(run.served.requests))
      .key("makespan_s").value(run.served.makespan_s).end_object();
  w.key("traceEvents").begin_array();
  w.begin_object().key("name").value("process_name").key("ph").value("M").key("pid").value(0);
  w.key("args").begin_object().key("name").value(title(run)).end_object().end_object();
  for (std::int64_t i = 0; i < run.deployment.replicas.total(); ++i) {
    w.begin_object().key("name").value("thread_name").key("ph").value("M").key("pid").value(0).key("tid").value(static_cast<double>(i + 1));
    w.key("args").begin_object().key("name").value("replica " + std::to_string(i)).end_object().end_object();
  }
  for (const serving::Iteration& it : run.served.timeline) {
    const double tid = it.replica + 1;
    w.begin_object().key("name").value(kind(it)).key("cat").value("iteration").key("ph").value("X")
        .key("ts").value(it.start_s * kMicro).key("dur").value(it.duration_s * kMicro).key("pid").value(0).key("tid").value(tid);
    w.key("args").begin_object().key("prefill_tokens").value(static_cast<double>(it.prefill_tokens))
        .key("decodes").value(static_cast<double>(it.decodes)).end_object().end_object();
    const std::string replica = " (replica " + std::to_string(it.replica) + ")";
    w.begin_object().key("name").value("KV cache %" + replica).key("ph").value("C").key("ts").value(it.start_s * kMicro).key("pid").value(0);
    w.key("args").begin_object().key("in use").value(100 * it.kv_occupancy).end_object().end_object();
    w.begin_object().key("name").value("sequences" + replica).key("ph").value("C").key("ts").value(it.start_s * kMicro).key("pid").value(0);
    w.key("args").begin_object().key("running").value(static_cast<double>(it.running)).key("waiting")
        .value(static_cast<double>(it.waiting)).end_object().end_object();
  }
  w.end_array();
  w.end_object();
  return w.take();
}

std::string serving_svg(const serving::DeploymentRun& run) {
  check_recorded(run);
  const std::vector<serving::Iteration>& timeline = run.served.timeline;
  const std::size_t replicas = std::min<std::size_t>(static_cast<std::size_t>(run.deployment.replicas.total()), kMostReplicasDrawn);
  double start = 0.0, end = 1.0;
  if (!timeline.empty()) {
    start = timeline.front().start_s;
    for (const serving::Iteration& it : timeline) end = std::max(end, it.start_s + it.duration_s);
  }
  const double span = std::max(end - start, 1e-9), bin = span / kBins;
  // Time-weighted means per bin and replica: each iteration's values hold over its duration.
  std::vector<std::vector<double>> kv(replicas, std::vector<double>(kBins, 0.0)), running = kv;
  double most_running = 1.0;
  for (const serving::Iteration& it : timeline) {
    if (static_cast<std::size_t>(it.replica) >= replicas) continue;
    const double a = it.start_s - start, b = a + it.duration_s;
    for (int k = std::max(0, static_cast<int>(a / bin)); k < kBins && k * bin < b; ++k) {
      const double overlap = std::min(b, (k + 1) * bin) - std::max(a, k * bin);
      if (overlap <= 0) continue;
      kv[it.replica][k] += 100 * it.kv_occupancy * overlap / bin;
      running[it.replica][k] += static_cast<double>(it.running) * overlap / bin;
    }
    most_running = std::max(most_running, static_cast<double>(it.running));
  }

  constexpr double width = 960, height = 640, left = 90, right = 900;
  svg::Document doc(width, height);
  doc.text(width / 2, 28, "KV cache and running sequences over time", 18, "middle", "#111", 0, true);
  doc.text(width / 2, 50, title(run), 13, "middle", "#444");
  const auto panel = [&](double top, double bottom, double y_max, const std::string& y_title,
                         const std::vector<std::vector<double>>& series) {
    doc.rect(left, top, right - left, bottom - top, "#fcfcfc", {"#444", 1.0, ""});
    for (int k = 0; k <= 4; ++k) {
      const double v = y_max * k / 4, y = bottom - (bottom - top) * k / 4;
      doc.line(left, y, right, y, {"#e0e0e0", 0.8, ""});
      doc.text(left - 8, y + 4, fixed(v, y_max < 10 ? 1 : 0), 12, "end");
    }
    doc.text(left - 55, (top + bottom) / 2, y_title, 14, "middle", "#222", -90);
    for (std::size_t r = 0; r < series.size(); ++r) {
      svg::Points line;
      for (int k = 0; k < kBins; ++k)
        line.emplace_back(left + (right - left) * (k + 0.5) / kBins, bottom - (bottom - top) * std::min(series[r][k] / y_max, 1.0));
      doc.polyline(line, {svg::palette(r), 1.5, ""});
    }
  };
  panel(80, 300, 100.0, "KV cache in use (%)", kv);
  panel(340, 560, 4 * std::ceil(most_running / 4), "sequences running", running);   // whole ticks
  for (int k = 0; k <= 5; ++k) {
    const double x = left + (right - left) * k / 5;
    doc.line(x, 560, x, 566, {"#444", 1.0, ""});
    doc.text(x, 580, si(span * k / 5, "s"), 12, "middle");
  }
  doc.text((left + right) / 2, 604, "time since the first arrival (means over " + si(bin, "s") + " bins)", 14, "middle");
  for (std::size_t r = 0; r < replicas; ++r) {
    doc.line(left + 10 + 90.0 * static_cast<double>(r), 625, left + 34 + 90.0 * static_cast<double>(r), 625, {svg::palette(r), 2.0, ""});
    doc.text(left + 38 + 90.0 * static_cast<double>(r), 629, "replica " + std::to_string(r), 11);
  }
  return doc.str();
}

}  // namespace ridge::engine::render
