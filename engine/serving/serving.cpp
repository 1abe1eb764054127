#include "engine/serving/serving.hpp"

#include "engine/simulate.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <random>
#include <string>
#include <utility>

namespace ridge::engine::serving {
namespace {

void check_lengths(const Lengths& l, const char* what) {
  constexpr std::int64_t kMaxTokens = std::int64_t{1} << 20;
  if (l.low < 1 || l.high < l.low || l.high > kMaxTokens)
    throw SimulationError(std::string(what) + " tokens must be between 1 and " + std::to_string(kMaxTokens) +
                          ", the low end first");
}

std::int64_t draw(const Lengths& l, std::mt19937_64& rng) {
  if (l.low == l.high) return l.low;
  return std::uniform_int_distribution<std::int64_t>(l.low, l.high)(rng);
}

// Nearest rank, as vLLM's benchmark_serving reports percentiles of its requests.
Percentiles percentiles(std::vector<double> v) {
  Percentiles p;
  if (v.empty()) return p;
  std::sort(v.begin(), v.end());
  double sum = 0.0;
  for (const double x : v) sum += x;
  p.mean = sum / static_cast<double>(v.size());
  const auto rank = [&](double q) {
    const auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
    return v[std::max<std::size_t>(k, 1) - 1];
  };
  p.p50 = rank(0.50);
  p.p90 = rank(0.90);
  p.p99 = rank(0.99);
  return p;
}

}  // namespace

std::vector<Request> requests(const Load& load) {
  if (!(load.rate > 0.0) || !std::isfinite(load.rate)) throw SimulationError("the request rate must be above 0");
  if (!(load.duration_s > 0.0) || !std::isfinite(load.duration_s)) throw SimulationError("the duration must be above 0");
  check_lengths(load.prompt, "prompt");
  check_lengths(load.output, "output");
  if (load.rate * load.duration_s > static_cast<double>(kMaxRequests))
    throw SimulationError("rate x duration asks for more than " + std::to_string(kMaxRequests) + " requests");
  std::mt19937_64 rng(load.seed);
  std::exponential_distribution<double> gap(load.rate);
  std::vector<Request> out;
  for (double t = gap(rng); t < load.duration_s; t += gap(rng)) {
    const std::int64_t prompt = draw(load.prompt, rng);
    out.push_back({t, prompt, draw(load.output, rng)});
  }
  return out;
}

Served serve(const std::vector<Request>& requests, const StepCost& cost, const Scheduler& s, const Slo& slo) {
  if (s.max_num_seqs < 1 || s.max_batched_tokens < 1 || s.block_size < 1)
    throw SimulationError("the scheduler's sequences, batched tokens and block size must each be 1 or more");
  const std::int64_t capacity = cost.kv_capacity_tokens / s.block_size;   // blocks
  if (capacity < 1) throw SimulationError("the KV cache holds no block: the weights leave no memory for it");
  const auto blocks = [&](std::int64_t tokens) { return (tokens + s.block_size - 1) / s.block_size; };

  const std::size_t n = requests.size();
  Served out;
  out.requests = static_cast<std::int64_t>(n);
  out.kv_capacity_tokens = capacity * s.block_size;
  if (n == 0) return out;

  std::vector<std::int64_t> cached(n, 0), generated(n, 0);
  std::vector<double> first(n, -1.0), finish(n, -1.0);
  std::deque<std::size_t> waiting;
  std::vector<std::size_t> running;   // in admission order: the last is preempted first
  std::int64_t used = 0;              // blocks
  std::int64_t static_size = 0;       // the sequences of the static batch in flight, padding included
  std::size_t next = 0, completed = 0;
  double t = requests.front().arrival_s, kv_area = 0.0;

  while (completed < n) {
    while (next < n && requests[next].arrival_s <= t) waiting.push_back(next++);
    if (running.empty() && waiting.empty()) {
      t = requests[next].arrival_s;
      continue;
    }
    if (++out.iterations > kMaxIterations)
      throw SimulationError("serving ran past " + std::to_string(kMaxIterations) + " iterations");

    // A prefill iteration, first come first served, while the sequences, the token budget and the
    // KV cache allow.
    std::vector<std::size_t> batch;
    std::int64_t tokens = 0;
    const bool static_batching = s.batching == Batching::Static;
    while (static_batching && running.empty() && !waiting.empty()) {
      // A static batch: while it fits, with every sequence's prompt and output reserved.
      const std::size_t i = waiting.front();
      const std::int64_t reserve = blocks(requests[i].prompt + requests[i].output);
      if (reserve > capacity)
        throw SimulationError("a request of " + std::to_string(requests[i].prompt + requests[i].output) +
                              " tokens does not fit the KV cache of " + std::to_string(capacity * s.block_size) + " tokens");
      if (static_cast<std::int64_t>(batch.size()) >= s.max_num_seqs || used + reserve > capacity) break;
      batch.push_back(i);
      tokens += requests[i].prompt;
      used += reserve;
      cached[i] = requests[i].prompt;
      waiting.pop_front();
    }
    if (static_batching && !batch.empty()) static_size = static_cast<std::int64_t>(batch.size());
    while (!static_batching && !waiting.empty()) {
      const std::size_t i = waiting.front();
      const std::int64_t length = requests[i].prompt + generated[i];   // a preempted sequence's tokens again
      if (blocks(length + 1) > capacity)
        throw SimulationError("a request of " + std::to_string(length) + " prompt tokens does not fit the KV cache of " +
                              std::to_string(capacity * s.block_size) + " tokens");
      if (static_cast<std::int64_t>(running.size() + batch.size()) >= s.max_num_seqs) break;
      if (!batch.empty() && tokens + length > s.max_batched_tokens) break;
      if (used + blocks(length) > capacity) break;
      batch.push_back(i);
      tokens += length;
      used += blocks(length);
      cached[i] = length;
      waiting.pop_front();
    }

    double dt = 0.0;
    std::vector<std::size_t> stepped;
    if (!batch.empty()) {
      ++out.prefill_iterations;
      const auto sequences = static_cast<std::int64_t>(batch.size());
      dt = cost.prefill(sequences, std::max<std::int64_t>(1, (tokens + sequences - 1) / sequences));
      for (const std::size_t i : batch) running.push_back(i);
      stepped = batch;
    } else {
      // Room for every running sequence's next token, preempting the last admitted while there is not
      // (a static batch reserved its room).
      for (; !static_batching;) {
        std::int64_t needed = 0;
        for (const std::size_t j : running)
          if (cached[j] % s.block_size == 0) ++needed;
        if (used + needed <= capacity) break;
        if (running.size() == 1)
          throw SimulationError("a sequence of " + std::to_string(cached[running.front()]) +
                                " tokens outgrows the KV cache of " + std::to_string(capacity * s.block_size) + " tokens");
        const std::size_t j = running.back();
        running.pop_back();
        used -= blocks(cached[j]);
        cached[j] = 0;
        waiting.push_front(j);
        ++out.preemptions;
      }
      double context = 0.0;
      for (const std::size_t j : running) context += static_cast<double>(cached[j]);
      const auto sequences = static_batching ? static_size : static_cast<std::int64_t>(running.size());
      dt = cost.decode(sequences, context / static_cast<double>(running.size()));
      for (const std::size_t j : running) {
        if (!static_batching && cached[j] % s.block_size == 0) ++used;
        ++cached[j];
      }
      stepped = running;
    }
    if (!(dt > 0.0) || !std::isfinite(dt)) throw SimulationError("an iteration's time is not a positive number");
    kv_area += dt * static_cast<double>(used) / static_cast<double>(capacity);
    out.kv_peak = std::max(out.kv_peak, static_cast<double>(used) / static_cast<double>(capacity));
    t += dt;
    // Each sequence of the iteration has its next token.
    for (const std::size_t i : stepped) {
      ++generated[i];
      if (first[i] < 0.0) first[i] = t;
      if (generated[i] == requests[i].output) {
        finish[i] = t;
        ++completed;
        used -= static_batching ? blocks(requests[i].prompt + requests[i].output) : blocks(cached[i]);
        running.erase(std::find(running.begin(), running.end(), i));
      }
    }
  }

  const double start = requests.front().arrival_s;
  out.makespan_s = t - start;
  std::vector<double> ttft, tpot, latency;
  std::int64_t output_tokens = 0, within = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Request& r = requests[i];
    ttft.push_back(first[i] - r.arrival_s);
    latency.push_back(finish[i] - r.arrival_s);
    output_tokens += r.output;
    const double per_token = r.output > 1 ? (finish[i] - first[i]) / static_cast<double>(r.output - 1) : 0.0;
    if (r.output > 1) tpot.push_back(per_token);
    if ((slo.ttft_s <= 0.0 || ttft.back() <= slo.ttft_s) && (slo.tpot_s <= 0.0 || per_token <= slo.tpot_s)) ++within;
  }
  out.ttft = percentiles(ttft);
  out.tpot = percentiles(tpot);
  out.e2e = percentiles(latency);
  out.completed = static_cast<std::int64_t>(completed);
  out.requests_per_s = static_cast<double>(n) / out.makespan_s;
  out.output_tokens_per_s = static_cast<double>(output_tokens) / out.makespan_s;
  out.slo_attainment = static_cast<double>(within) / static_cast<double>(n);
  out.goodput_requests_per_s = static_cast<double>(within) / out.makespan_s;
  // The number in the system, integrated over time from its steps: +1 at each arrival, -1 at each
  // last token (an arrival first where the two coincide).
  std::vector<std::pair<double, int>> steps;
  for (std::size_t i = 0; i < n; ++i) steps.push_back({requests[i].arrival_s, 1}), steps.push_back({finish[i], -1});
  std::sort(steps.begin(), steps.end(), [](const auto& a, const auto& b) { return a.first < b.first || (a.first == b.first && a.second > b.second); });
  double area = 0.0, at = start;
  int in_system = 0;
  for (const auto& [time, change] : steps) {
    area += in_system * (time - at);
    at = time;
    in_system += change;
  }
  out.mean_in_system = area / out.makespan_s;
  out.kv_mean = kv_area / out.makespan_s;
  return out;
}

}  // namespace ridge::engine::serving
