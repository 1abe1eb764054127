// libFuzzer target for request traces (lang/trace.hpp): bytes -> parse -> serve the requests under
// each scheduler, on one replica and on two, with iteration times given as constants (the serving
// simulator must finish, or refuse with SimulationError, on whatever a trace holds).
#include "tests/fuzz/fuzz_common.hpp"

#include "engine/serving/serving.hpp"
#include "lang/trace.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ridge;
  namespace serving = engine::serving;
  const std::string text(reinterpret_cast<const char*>(data), size);
  lang::TraceColumns t;
  try {
    t = lang::parse_trace("fuzz.csv", text, {"arrival_s", "prompt_tokens", "output_tokens"});
  } catch (const lang::Error&) {
    return 0;
  }
  serving::Load load;
  for (std::size_t i = 0; i < t.rows; ++i) load.trace.push_back({t.arrival_s[i], t.prompt_tokens[i], t.output_tokens[i]});
  serving::StepCost cost;
  cost.prefill = [](std::int64_t n, std::int64_t tokens) { return 1e-3 + 1e-6 * static_cast<double>(n * tokens); };
  cost.decode = [](std::int64_t n, double context) { return 1e-3 + 1e-6 * static_cast<double>(n) * (1 + 1e-3 * context); };
  cost.chunk = [](std::int64_t tokens, double past) { return 1e-3 + 1e-6 * static_cast<double>(tokens) * (1 + 1e-3 * past); };
  cost.kv_capacity_tokens = 1 << 21;
  for (const serving::Batching b : {serving::Batching::Continuous, serving::Batching::Chunked, serving::Batching::Static})
    for (const std::int64_t replicas : {1, 2}) {
      serving::Scheduler s;
      s.batching = b;
      s.max_batched_tokens = serving::default_max_batched_tokens(b);
      try {
        const serving::Served served = serving::serve(serving::requests(load), cost, s, {}, {replicas, serving::Router::LeastOutstanding});
        if (served.completed != served.requests) __builtin_trap();   // every request finishes
      } catch (const engine::SimulationError&) {
      }
    }
  return 0;
}
