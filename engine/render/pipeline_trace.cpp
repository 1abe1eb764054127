#include "engine/render/pipeline_trace.hpp"

#include "engine/parallel/schedule.hpp"
#include "engine/render/json_writer.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace ridge::engine::render {

namespace {

constexpr double kMicro = 1e6;

void slice(JsonWriter& w, const std::string& name, const char* cat, int tid, double start_s, double dur_s) {
  w.begin_object().key("name").value(name).key("cat").value(cat).key("ph").value("X").key("ts").value(start_s * kMicro)
      .key("dur").value(dur_s * kMicro).key("pid").value(0).key("tid").value(tid).end_object();
}

void thread_name(JsonWriter& w, int tid, const std::string& name) {
  w.begin_object().key("name").value("thread_name").key("ph").value("M").key("pid").value(0).key("tid").value(tid);
  w.key("args").begin_object().key("name").value(name).end_object().end_object();
}

}  // namespace

std::string pipeline_trace(const parallel::PlanReport& plan, const parallel::PipelineSchedule& schedule) {
  if (plan.strategies.empty()) throw std::invalid_argument("no strategy to trace");
  const parallel::StepResult& s = plan.strategies.front();
  const int P = s.strategy.pipeline;

  JsonWriter w;
  w.begin_object();
  w.key("displayTimeUnit").value("ms");
  w.key("otherData").begin_object().key("network").value(plan.network).key("device").value(plan.device)
      .key("strategy").value(parallel::describe(s.strategy)).key("step_s").value(s.step_s)
      .key("schedule").value(s.strategy.interleave > 1 ? "interleaved 1F1B" : "1F1B")
      .end_object();
  w.key("traceEvents").begin_array();
  w.begin_object().key("name").value("process_name").key("ph").value("M").key("pid").value(0);
  w.key("args").begin_object().key("name").value(parallel::describe(s.strategy)).end_object().end_object();
  for (int i = 0; i < P; ++i) thread_name(w, i + 1, "pipeline stage " + std::to_string(i));
  thread_name(w, P + 1, "data parallel, update, overhead");
  for (const parallel::PipelineSlice& x : schedule.slices)
    slice(w, (x.forward ? "F" : "B") + std::to_string(x.micro_batch) + (s.strategy.interleave > 1 ? "." + std::to_string(x.chunk) : ""),
          x.forward ? "forward" : "backward", x.device + 1, x.start_s, x.duration_s);
  double t = schedule.end_s;
  if (s.data_parallel_exposed_s > 0) slice(w, "data-parallel communication (exposed)", "communication", P + 1, t, s.data_parallel_exposed_s);
  t += s.data_parallel_exposed_s;
  if (s.update_s > 0) slice(w, "optimizer update", "update", P + 1, t, s.update_s);
  t += s.update_s;
  if (s.overhead_s > 0) slice(w, "per-step overhead", "overhead", P + 1, t, s.overhead_s);
  w.end_array();
  w.end_object();
  return w.take();
}

}  // namespace ridge::engine::render
