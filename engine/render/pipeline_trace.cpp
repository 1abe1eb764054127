#include "engine/render/pipeline_trace.hpp"

#include "engine/render/json_writer.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace ridge::engine::render {

namespace {

constexpr double kMicro = 1e6;
constexpr std::int64_t kMaxSlices = 200'000;

struct Op {
  bool forward;
  std::int64_t micro_batch;
};

// Stage i of P in 1F1B: min(P - i - 1, m) warm-up forwards, then one forward and one backward in turn,
// then the remaining backwards (Narayanan et al. SC'21, Figure 4, top).
std::vector<Op> one_f_one_b(int stage, int stages, std::int64_t m) {
  std::vector<Op> ops;
  const std::int64_t warmup = std::min<std::int64_t>(stages - stage - 1, m);
  std::int64_t f = 0, b = 0;
  for (; f < warmup; ++f) ops.push_back({true, f});
  while (f < m) {
    ops.push_back({true, f++});
    ops.push_back({false, b++});
  }
  while (b < m) ops.push_back({false, b++});
  return ops;
}

void slice(JsonWriter& w, const std::string& name, const char* cat, int tid, double start_s, double dur_s) {
  w.begin_object().key("name").value(name).key("cat").value(cat).key("ph").value("X").key("ts").value(start_s * kMicro)
      .key("dur").value(dur_s * kMicro).key("pid").value(0).key("tid").value(tid).end_object();
}

void thread_name(JsonWriter& w, int tid, const std::string& name) {
  w.begin_object().key("name").value("thread_name").key("ph").value("M").key("pid").value(0).key("tid").value(tid);
  w.key("args").begin_object().key("name").value(name).end_object().end_object();
}

}  // namespace

std::string pipeline_trace(const parallel::PlanReport& plan) {
  if (plan.strategies.empty()) throw std::invalid_argument("no strategy to trace");
  const parallel::StepResult& s = plan.strategies.front();
  const int P = s.strategy.pipeline;
  const std::int64_t m = s.micro_batches;
  if (2 * m * P > kMaxSlices)
    throw std::invalid_argument("--trace: " + std::to_string(P) + " stages x " + std::to_string(m) +
                                " micro-batches are more slices than a trace viewer opens; trace a smaller batch");
  // Each stage runs its ops in order; an op waits for its stage and for its input: the previous stage's
  // forward of the micro-batch, or the next stage's backward (the last stage: its own forward).
  std::vector<std::vector<Op>> ops;
  for (int i = 0; i < P; ++i) ops.push_back(one_f_one_b(i, P, m));
  std::vector<std::vector<double>> f_end(P, std::vector<double>(m, -1)), b_end(P, std::vector<double>(m, -1));
  std::vector<std::size_t> next(P, 0);
  std::vector<double> free_at(P, 0.0);
  struct Done {
    int stage;
    Op op;
    double start;
  };
  std::vector<Done> done;
  for (bool progress = true; progress;) {
    progress = false;
    for (int i = 0; i < P; ++i) {
      while (next[i] < ops[i].size()) {
        const Op op = ops[i][next[i]];
        const double ready = op.forward ? (i == 0 ? 0.0 : f_end[i - 1][op.micro_batch])
                                        : (i == P - 1 ? f_end[i][op.micro_batch] : b_end[i + 1][op.micro_batch]);
        if (ready < 0) break;   // its input is not computed yet
        const double start = std::max(ready, free_at[i]);
        const double end = start + (op.forward ? s.forward_s : s.backward_s);
        (op.forward ? f_end : b_end)[i][op.micro_batch] = end;
        free_at[i] = end;
        done.push_back({i, op, start});
        ++next[i];
        progress = true;
      }
    }
  }
  const double pipeline_end = *std::max_element(free_at.begin(), free_at.end());

  JsonWriter w;
  w.begin_object();
  w.key("displayTimeUnit").value("ms");
  w.key("otherData").begin_object().key("network").value(plan.network).key("device").value(plan.device)
      .key("strategy").value(parallel::describe(s.strategy)).key("step_s").value(s.step_s)
      .key("schedule").value(s.strategy.interleave > 1 ? "1F1B, drawn without interleaving (its bubble is the plan's)" : "1F1B")
      .end_object();
  w.key("traceEvents").begin_array();
  w.begin_object().key("name").value("process_name").key("ph").value("M").key("pid").value(0);
  w.key("args").begin_object().key("name").value(parallel::describe(s.strategy)).end_object().end_object();
  for (int i = 0; i < P; ++i) thread_name(w, i + 1, "pipeline stage " + std::to_string(i));
  thread_name(w, P + 1, "data parallel, update, overhead");
  for (const Done& d : done)
    slice(w, (d.op.forward ? "F" : "B") + std::to_string(d.op.micro_batch), d.op.forward ? "forward" : "backward", d.stage + 1,
          d.start, d.op.forward ? s.forward_s : s.backward_s);
  double t = pipeline_end;
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
