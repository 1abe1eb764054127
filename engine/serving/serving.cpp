#include "engine/serving/serving.hpp"

#include "engine/simulate.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <queue>
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
  if (!l.samples.empty())
    return l.samples[std::uniform_int_distribution<std::size_t>(0, l.samples.size() - 1)(rng)];
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

std::string_view batching_name(Batching b) {
  switch (b) {
    case Batching::Continuous: return "continuous";
    case Batching::Chunked: return "chunked";
    case Batching::Static: return "static";
  }
  return "continuous";
}

std::optional<Batching> batching_from_name(std::string_view name) {
  for (const Batching b : {Batching::Continuous, Batching::Chunked, Batching::Static})
    if (batching_name(b) == name) return b;
  return std::nullopt;
}

std::int64_t default_max_batched_tokens(Batching b) { return b == Batching::Chunked ? 512 : 2048; }

std::string_view router_name(Router r) { return r == Router::RoundRobin ? "round-robin" : "least-outstanding"; }

std::optional<Router> router_from_name(std::string_view name) {
  for (const Router r : {Router::RoundRobin, Router::LeastOutstanding})
    if (router_name(r) == name) return r;
  return std::nullopt;
}

std::string arrivals_name(const Load& load) {
  return !load.trace.empty() ? "trace" : load.burstiness != 1.0 ? "gamma" : "poisson";
}

std::int64_t mean_tokens(const Lengths& l) {
  if (l.samples.empty()) return std::max<std::int64_t>(1, (l.low + l.high + 1) / 2);
  double sum = 0.0;
  for (const std::int64_t x : l.samples) sum += static_cast<double>(x);
  return std::max<std::int64_t>(1, std::llround(sum / static_cast<double>(l.samples.size())));
}

std::vector<Request> requests(const Load& load) {
  if (!load.trace.empty()) {
    if (load.trace.size() > static_cast<std::size_t>(kMaxRequests))
      throw SimulationError("the trace holds more than " + std::to_string(kMaxRequests) + " requests");
    for (std::size_t i = 0; i < load.trace.size(); ++i) {
      const Request& r = load.trace[i];
      check_lengths({r.prompt, r.prompt}, "prompt");
      check_lengths({r.output, r.output}, "output");
      if (!(r.arrival_s >= 0.0) || !std::isfinite(r.arrival_s) || (i > 0 && r.arrival_s < load.trace[i - 1].arrival_s))
        throw SimulationError("the trace's arrival times must be 0 or more and in order (request " + std::to_string(i + 1) + ")");
    }
    return load.trace;
  }
  if (!(load.rate > 0.0) || !std::isfinite(load.rate)) throw SimulationError("the request rate must be above 0");
  if (!(load.duration_s > 0.0) || !std::isfinite(load.duration_s)) throw SimulationError("the duration must be above 0");
  if (!(load.burstiness > 0.0) || !std::isfinite(load.burstiness)) throw SimulationError("the burstiness must be above 0");
  for (const auto& [lengths, what] : {std::pair{&load.prompt, "prompt"}, std::pair{&load.output, "output"}}) {
    check_lengths(lengths->samples.empty() ? *lengths : Lengths{1, 1}, what);
    for (const std::int64_t x : lengths->samples) check_lengths({x, x}, what);
  }
  if (load.rate * load.duration_s > static_cast<double>(kMaxRequests))
    throw SimulationError("rate x duration asks for more than " + std::to_string(kMaxRequests) + " requests");
  std::mt19937_64 rng(load.seed);
  // Gaps of mean 1/rate: exponential (Poisson arrivals), or gamma of shape `burstiness`, as vLLM's
  // benchmark_serving draws them. The exponential stays its own distribution so that a seed gives
  // the same Poisson load as before the gamma was offered.
  std::exponential_distribution<double> poisson(load.rate);
  std::gamma_distribution<double> gamma(load.burstiness, 1.0 / (load.rate * load.burstiness));
  const bool bursts = load.burstiness != 1.0;
  const auto gap = [&] { return bursts ? gamma(rng) : poisson(rng); };
  std::vector<Request> out;
  for (double t = gap(); t < load.duration_s; t += gap()) {
    const std::int64_t prompt = draw(load.prompt, rng);
    out.push_back({t, prompt, draw(load.output, rng)});
  }
  return out;
}

namespace {

enum class Role { Both, Prefill, Decode };

// One replica's scheduler state; the sequences' own state is Simulation's, indexed by request.
struct Replica {
  Role role = Role::Both;
  std::deque<std::size_t> waiting;
  std::vector<std::size_t> running;   // in admission order: the last is preempted first
  std::vector<std::size_t> stepped;   // the iteration in flight: the sequences that have a token when it ends
  std::int64_t used = 0;              // KV cache blocks
  std::int64_t static_size = 0;       // the sequences of the static batch in flight, padding included
  std::int64_t outstanding = 0;       // routed and not finished
  double clock = 0.0;                 // when the iteration in flight ends, or the last one ended
  double busy_s = 0.0, kv_area = 0.0, kv_peak = 0.0;
  bool in_flight = false;

  bool busy() const { return in_flight || !running.empty() || !waiting.empty(); }
};

class Simulation {
 public:
  Simulation(const std::vector<Request>& requests, const StepCost& cost, const Scheduler& s)
      : requests_(requests), cost_(cost), s_(s), capacity_(cost.kv_capacity_tokens / s.block_size),
        cached_(requests.size(), 0), generated_(requests.size(), 0), held_(requests.size(), 0),
        first_(requests.size(), -1.0), finish_(requests.size(), -1.0) {}

  std::int64_t capacity() const { return capacity_; }
  std::int64_t cached(std::size_t i) const { return cached_[i]; }
  // The last iteration planned: its prompt tokens and its decoding sequences.
  std::int64_t prefill_tokens() const { return prefill_tokens_; }
  std::int64_t decodes() const { return decodes_; }
  double first(std::size_t i) const { return first_[i]; }
  double finish(std::size_t i) const { return finish_[i]; }

  // The iteration in flight on `r` ends: its sequences' tokens, and the requests they finish.
  // Returns the number finished; a prefill replica's sequences that go on decoding leave it for
  // `handed_over`, their KV cache kept in cached_.
  std::size_t land(Replica& r, std::vector<std::size_t>& handed_over) {
    std::size_t finished = 0;
    for (const std::size_t i : r.stepped) {
      ++generated_[i];
      if (first_[i] < 0.0) first_[i] = r.clock;
      const bool last = generated_[i] == requests_[i].output;
      if (last) {
        finish_[i] = r.clock;
        ++finished;
      }
      if (last || r.role == Role::Prefill) {
        if (!last) handed_over.push_back(i);
        --r.outstanding;
        r.used -= held_[i];
        held_[i] = 0;
        r.running.erase(std::find(r.running.begin(), r.running.end(), i));
      }
    }
    r.stepped.clear();
    r.in_flight = false;
    return finished;
  }

  // Plans `r`'s next iteration: which sequences run how many tokens, their KV blocks, and its time.
  double iterate(Replica& r, Served& out) {
    prefill_tokens_ = decodes_ = 0;
    switch (s_.batching) {
      case Batching::Static: return static_iteration(r, out);
      case Batching::Chunked: return chunked_iteration(r, out);
      case Batching::Continuous: break;
    }
    return prefill_first_iteration(r, out);
  }

 private:
  std::int64_t blocks(std::int64_t tokens) const { return (tokens + s_.block_size - 1) / s_.block_size; }
  // The tokens a sequence has to run before its next token: its prompt (and, after a preemption, the
  // tokens it made) while it prefills, 1 while it decodes.
  std::int64_t pending(std::size_t i) const { return requests_[i].prompt + generated_[i] - cached_[i]; }

  // A sequence whose pending tokens and next token cannot fit the cache even alone.
  void check_fits(std::size_t i) const {
    if (blocks(pending(i) + 1) > capacity_)
      throw SimulationError("a request of " + std::to_string(pending(i)) + " prompt tokens does not fit the KV cache of " +
                            std::to_string(capacity_ * s_.block_size) + " tokens");
  }

  // Admits the waiting front into `r`: its blocks held, its tokens still to prefill returned.
  std::int64_t admit(Replica& r) {
    const std::size_t i = r.waiting.front();
    r.waiting.pop_front();
    held_[i] = blocks(pending(i));
    r.used += held_[i];
    r.running.push_back(i);
    return pending(i);
  }

  // Frees blocks for every decoding sequence's next token, preempting the last admitted while there
  // are not enough.
  void make_room(Replica& r, Served& out) {
    for (;;) {
      std::int64_t needed = 0;
      for (const std::size_t j : r.running)
        if (pending(j) == 1 && blocks(cached_[j] + 1) > held_[j]) ++needed;
      if (r.used + needed <= capacity_) return;
      if (r.running.size() == 1)
        throw SimulationError("a sequence of " + std::to_string(cached_[r.running.front()]) + " tokens outgrows the KV cache of " +
                              std::to_string(capacity_ * s_.block_size) + " tokens");
      const std::size_t j = r.running.back();
      r.running.pop_back();
      r.used -= held_[j];
      held_[j] = 0;
      cached_[j] = 0;
      r.waiting.push_front(j);
      ++out.preemptions;
    }
  }

  // Runs `tokens` more of sequence i in the iteration; it has a token when the iteration ends if
  // that completes what it had pending.
  void run(Replica& r, std::size_t i, std::int64_t tokens) {
    const bool completes = tokens == pending(i);
    cached_[i] += tokens;
    if (blocks(cached_[i]) > held_[i]) {
      r.used += blocks(cached_[i]) - held_[i];
      held_[i] = blocks(cached_[i]);
    }
    if (completes) r.stepped.push_back(i);
  }

  double decode_all(Replica& r, std::int64_t sequences) {
    decodes_ = sequences;
    double context = 0.0;
    for (const std::size_t j : r.running) context += static_cast<double>(cached_[j]);
    const double dt = cost_.decode(sequences, context / static_cast<double>(r.running.size()));
    for (const std::size_t j : std::vector<std::size_t>(r.running)) run(r, j, 1);
    return dt;
  }

  double prefill_first_iteration(Replica& r, Served& out) {
    std::int64_t sequences = 0, tokens = 0;
    while (!r.waiting.empty()) {
      const std::size_t i = r.waiting.front();
      if (cached_[i] > 0 && pending(i) == 1) {
        // Handed over with its KV cache: it joins the running sequences, nothing to prefill.
        if (static_cast<std::int64_t>(r.running.size()) >= s_.max_num_seqs || r.used + blocks(cached_[i] + 1) > capacity_) break;
        r.waiting.pop_front();
        held_[i] = blocks(cached_[i]);
        r.used += held_[i];
        r.running.push_back(i);
        continue;
      }
      check_fits(i);
      if (static_cast<std::int64_t>(r.running.size()) >= s_.max_num_seqs) break;
      if (sequences > 0 && tokens + pending(i) > s_.max_batched_tokens) break;
      if (r.used + blocks(pending(i)) > capacity_) break;
      const std::int64_t length = admit(r);
      run(r, i, length);
      ++sequences;
      tokens += length;
    }
    if (sequences > 0) {
      ++out.prefill_iterations;
      prefill_tokens_ = tokens;
      return cost_.prefill(sequences, std::max<std::int64_t>(1, (tokens + sequences - 1) / sequences));
    }
    if (r.role == Role::Prefill) throw SimulationError("internal: a prefill replica with nothing to prefill");
    make_room(r, out);
    return decode_all(r, static_cast<std::int64_t>(r.running.size()));
  }

  double static_iteration(Replica& r, Served& out) {
    std::int64_t tokens = 0;
    std::vector<std::size_t> batch;
    while (r.running.empty() && !r.waiting.empty()) {
      const std::size_t i = r.waiting.front();
      const std::int64_t reserve = blocks(requests_[i].prompt + requests_[i].output);
      if (reserve > capacity_)
        throw SimulationError("a request of " + std::to_string(requests_[i].prompt + requests_[i].output) +
                              " tokens does not fit the KV cache of " + std::to_string(capacity_ * s_.block_size) + " tokens");
      if (static_cast<std::int64_t>(batch.size()) >= s_.max_num_seqs || r.used + reserve > capacity_) break;
      batch.push_back(i);
      r.waiting.pop_front();
      held_[i] = reserve;   // the whole prompt and output, reserved
      r.used += reserve;
      tokens += requests_[i].prompt;
    }
    if (!batch.empty()) {
      r.running = batch;
      r.static_size = static_cast<std::int64_t>(batch.size());
      for (const std::size_t i : batch) run(r, i, pending(i));
      ++out.prefill_iterations;
      prefill_tokens_ = tokens;
      return cost_.prefill(r.static_size, std::max<std::int64_t>(1, (tokens + r.static_size - 1) / r.static_size));
    }
    return decode_all(r, r.static_size);
  }

  double chunked_iteration(Replica& r, Served& out) {
    make_room(r, out);
    std::int64_t budget = s_.max_batched_tokens, decodes = 0, chunk_tokens = 0;
    double context = 0.0, past = 0.0;   // decodes' summed context; chunks' token-weighted past
    std::vector<std::size_t> prefilling;
    for (const std::size_t j : r.running) {
      if (pending(j) > 1) {
        prefilling.push_back(j);
        continue;
      }
      context += static_cast<double>(cached_[j]);
      run(r, j, 1);
      ++decodes;
      --budget;
    }
    const auto chunk = [&](std::size_t i) {
      const std::int64_t c = std::min(pending(i), budget);
      past += static_cast<double>(c) * static_cast<double>(cached_[i]);
      run(r, i, c);
      chunk_tokens += c;
      budget -= c;
    };
    for (const std::size_t i : prefilling)
      if (budget > 0) chunk(i);
    while (budget > 0 && !r.waiting.empty()) {
      const std::size_t i = r.waiting.front();
      check_fits(i);
      if (static_cast<std::int64_t>(r.running.size()) >= s_.max_num_seqs || r.used + blocks(pending(i)) > capacity_) break;
      admit(r);
      chunk(i);
    }
    prefill_tokens_ = chunk_tokens;
    decodes_ = decodes;
    if (chunk_tokens == 0) {
      if (decodes == 0) throw SimulationError("internal: a chunked iteration with nothing to run");
      return cost_.decode(decodes, context / static_cast<double>(decodes));
    }
    ++out.prefill_iterations;
    double dt = cost_.chunk(decodes + chunk_tokens, past / static_cast<double>(chunk_tokens));
    if (decodes > 0) dt += cost_.decode(decodes, context / static_cast<double>(decodes)) - cost_.decode(decodes, 0.0);
    return dt;
  }

  const std::vector<Request>& requests_;
  const StepCost& cost_;
  const Scheduler& s_;
  const std::int64_t capacity_;   // blocks, per replica
  std::vector<std::int64_t> cached_, generated_, held_;
  std::vector<double> first_, finish_;
  std::int64_t prefill_tokens_ = 0, decodes_ = 0;
};

}  // namespace

Served serve(const std::vector<Request>& requests, const StepCost& cost, const Scheduler& s, const Slo& slo, const Replicas& replicas,
             bool record) {
  if (s.max_num_seqs < 1 || s.max_batched_tokens < 1 || s.block_size < 1)
    throw SimulationError("the scheduler's sequences, batched tokens and block size must each be 1 or more");
  if (s.batching == Batching::Chunked && s.max_batched_tokens < s.max_num_seqs)
    throw SimulationError("chunked prefill needs at least as many batched tokens (" + std::to_string(s.max_batched_tokens) +
                          ") as sequences (" + std::to_string(s.max_num_seqs) + "), as vLLM asks: every running sequence decodes each iteration");
  if (s.batching == Batching::Chunked && !cost.chunk) throw SimulationError("chunked prefill needs the cost of a prompt chunk");
  if (replicas.count < 1 || replicas.count > kMaxReplicas)
    throw SimulationError("replicas must be between 1 and " + std::to_string(kMaxReplicas));
  if (replicas.disaggregated()) {
    if (replicas.decode < 1 || replicas.total() > kMaxReplicas)
      throw SimulationError("disaggregation needs 1 or more prefill and decode replicas, " + std::to_string(kMaxReplicas) + " in all at most");
    if (s.batching != Batching::Continuous)
      throw SimulationError("disaggregated replicas run continuous batching: prefill replicas prefill, decode replicas decode");
    if (!cost.transfer) throw SimulationError("disaggregation needs the time of a KV cache's hand-over");
  }
  Simulation sim(requests, cost, s);
  const std::int64_t capacity = sim.capacity();
  if (capacity < 1) throw SimulationError("the KV cache holds no block: the weights leave no memory for it");

  const std::size_t n = requests.size();
  Served out;
  out.requests = static_cast<std::int64_t>(n);
  out.kv_capacity_tokens = capacity * s.block_size;
  if (n == 0) return out;

  std::vector<Replica> fleet(static_cast<std::size_t>(replicas.total()));
  if (replicas.disaggregated())
    for (std::size_t k = 0; k < fleet.size(); ++k) fleet[k].role = k < static_cast<std::size_t>(replicas.prefill) ? Role::Prefill : Role::Decode;
  // The replicas a new request may go to, and those a handed-over sequence may.
  std::vector<Replica*> takes_requests, takes_handovers;
  for (Replica& q : fleet) (q.role == Role::Decode ? takes_handovers : takes_requests).push_back(&q);
  std::size_t routed_requests = 0, routed_handovers = 0;
  const auto route = [&](std::vector<Replica*>& to, std::size_t& routed) -> Replica& {
    if (replicas.router == Router::RoundRobin) return *to[routed++ % to.size()];
    return **std::min_element(to.begin(), to.end(), [](const Replica* a, const Replica* b) { return a->outstanding < b->outstanding; });
  };
  // KV caches on their way to a decode replica: (when they arrive, which sequence), earliest first.
  using Handover = std::pair<double, std::size_t>;
  std::priority_queue<Handover, std::vector<Handover>, std::greater<>> in_transit;
  double transfer_total = 0.0;
  std::size_t transfers = 0;
  std::vector<std::size_t> handed_over;
  std::size_t next = 0, completed = 0;
  const auto give = [](Replica& q, std::size_t i, double at) {
    if (!q.busy()) q.clock = std::max(q.clock, at);
    q.waiting.push_back(i);
    ++q.outstanding;
  };
  for (;;) {
    // The next event: an arrival, a KV cache arriving, or the end of the earliest replica's iteration
    // (or its start, where it has just been given work). Arrivals come first on a tie, as vLLM admits
    // what has arrived.
    Replica* r = nullptr;
    for (Replica& q : fleet)
      if (q.busy() && (r == nullptr || q.clock < r->clock)) r = &q;
    const double arrival = next < n ? requests[next].arrival_s : std::numeric_limits<double>::infinity();
    const double handover = in_transit.empty() ? std::numeric_limits<double>::infinity() : in_transit.top().first;
    const double iteration = r ? r->clock : std::numeric_limits<double>::infinity();
    if (next < n && arrival <= handover && arrival <= iteration) {
      give(route(takes_requests, routed_requests), next, arrival);
      ++next;
      continue;
    }
    if (!in_transit.empty() && handover <= iteration) {
      give(route(takes_handovers, routed_handovers), in_transit.top().second, handover);
      in_transit.pop();
      continue;
    }
    if (r == nullptr) break;
    if (r->in_flight) {
      completed += sim.land(*r, handed_over);
      for (const std::size_t i : handed_over) {
        const double dt = cost.transfer(sim.cached(i));
        if (!(dt >= 0.0) || !std::isfinite(dt)) throw SimulationError("a KV cache hand-over's time is not a number of 0 or more");
        transfer_total += dt;
        ++transfers;
        in_transit.push({r->clock + dt, i});
      }
      handed_over.clear();
    }
    if (r->running.empty() && r->waiting.empty()) continue;
    if (++out.iterations > kMaxIterations) throw SimulationError("serving ran past " + std::to_string(kMaxIterations) + " iterations");
    const double dt = sim.iterate(*r, out);
    if (!(dt > 0.0) || !std::isfinite(dt)) throw SimulationError("an iteration's time is not a positive number");
    const double occupancy = static_cast<double>(r->used) / static_cast<double>(capacity);
    if (record)
      out.timeline.push_back({static_cast<int>(r - fleet.data()), r->clock, dt, sim.prefill_tokens(), sim.decodes(),
                              static_cast<std::int64_t>(r->running.size()), static_cast<std::int64_t>(r->waiting.size()), occupancy});
    r->kv_area += dt * occupancy;
    r->kv_peak = std::max(r->kv_peak, occupancy);
    r->busy_s += dt;
    r->clock += dt;
    r->in_flight = true;
  }
  if (transfers > 0) out.transfer_mean_s = transfer_total / static_cast<double>(transfers);

  double end = 0.0;
  for (std::size_t i = 0; i < n; ++i) end = std::max(end, sim.finish(i));
  const double start = requests.front().arrival_s;
  out.makespan_s = end - start;
  std::vector<double> ttft, tpot, latency;
  std::int64_t output_tokens = 0, within = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Request& q = requests[i];
    ttft.push_back(sim.first(i) - q.arrival_s);
    latency.push_back(sim.finish(i) - q.arrival_s);
    output_tokens += q.output;
    const double per_token = q.output > 1 ? (sim.finish(i) - sim.first(i)) / static_cast<double>(q.output - 1) : 0.0;
    if (q.output > 1) tpot.push_back(per_token);
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
  for (std::size_t i = 0; i < n; ++i) steps.push_back({requests[i].arrival_s, 1}), steps.push_back({sim.finish(i), -1});
  std::sort(steps.begin(), steps.end(), [](const auto& a, const auto& b) { return a.first < b.first || (a.first == b.first && a.second > b.second); });
  double area = 0.0, at = start;
  int in_system = 0;
  for (const auto& [time, change] : steps) {
    area += in_system * (time - at);
    at = time;
    in_system += change;
  }
  out.mean_in_system = area / out.makespan_s;
  double kv_area = 0.0, busy = 0.0;
  for (const Replica& q : fleet) {
    kv_area += q.kv_area;
    busy += q.busy_s;
    out.kv_peak = std::max(out.kv_peak, q.kv_peak);
  }
  const double replica_time = static_cast<double>(fleet.size()) * out.makespan_s;
  out.kv_mean = kv_area / replica_time;
  out.utilisation = busy / replica_time;
  return out;
}

}  // namespace ridge::engine::serving
