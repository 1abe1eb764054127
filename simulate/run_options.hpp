// The options of a run, named as simulate's command line names them, and the one place their rules
// live. simulate's command line and the Python module (ridge.simulate's keywords, ridge.search) each
// fill a RunOptions and get their engine::Plan from plan_run(), so a rule (which options go together,
// which values are allowed, how many simulations one run may ask for) is written once and says the
// same thing to both.
//
//   RunOptions o;                       // simulate NET HW --batch 8 --tensor-parallel 4 --pipeline-parallel 2
//   o.batch = {8};
//   o.tensor_parallel = 4, o.pipeline_parallel = 2;
//   const engine::Plan plan = plan_run(load_run_network("models/gpt3_1_3b.net", {}), {device}, {}, o);
#pragma once

#include "engine/run.hpp"

#include "lang/parse.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ridge::simulate {

struct RunOptions {
  std::vector<std::int64_t> batch{1};            // --batch
  std::vector<std::string> dtype{"fp32"};        // --dtype
  std::string optimizer = "sgd";                 // --optimizer sgd | adam | adamw
  std::string recompute = "none";                // --recompute none | selective | full
  bool master_weights = true;                    // false: --no-master-weights
  std::string kernel_model = "micro";            // --kernel-model micro | flat
  std::string weights;                           // --weights int8 | int4 (empty: as --dtype)
  std::string sparsity;                          // --sparsity 2:4 (empty: dense weights)
  std::string memory_format = "nhwc";            // --memory-format nhwc | nchw (image tensors on a GPU)
  std::int64_t prompt = 0, generate = 0;         // --prompt, --generate (decoder inference)
  std::string explain;                           // --explain LAYER
  bool layers = true;                            // per-layer rows (false: totals only, a sweep's fast path)

  // One report's breakdown and measured times.
  int depth = 0;                                 // --depth: layers summed per block, this deep
  bool schedule = false;                         // --trace of a parallel plan: its pipeline schedule
  int top = 0;                                   // --top: the K layers (or blocks) that take the most time;
                                                 //   with --search, the K fastest strategies (10 when 0)
  std::string pass = "train";                    // --pass forward | backward | train: what --top ranks by
  std::optional<std::vector<engine::Measurement>> measured;   // --measured, loaded: paired with one report's layers

  // Data-parallel scaling; with --search, the device count to fill.
  std::vector<int> devices;                      // --devices: counts; one count N with devices_up_to: 1, 2, 4, ..., N
  bool devices_up_to = false;
  std::string link;                              // --link
  std::string scaling = "strong";                // --scaling strong | weak
  bool overlap = false;                          // --overlap
  std::int64_t dataset_size = 0;                 // --dataset-size (0: no epoch time)

  // Parallel training: a strategy (any of T, P, D given) or a search.
  int tensor_parallel = 0, pipeline_parallel = 0, data_parallel = 0;   // 0: not given
  std::int64_t micro_batch = 1;                  // --micro-batch
  std::int64_t global_batch = 0;                 // --global-batch (0: --batch)
  int interleave = 1;                            // --interleave
  bool sequence_parallel = false;                // --sequence-parallel
  int zero = 0;                                  // --zero 0..3
  bool search = false;                           // --search
  std::int64_t max_micro_batch = 64;             // --max-micro-batch

  // Serving (--serve): one deployment (R replicas of T x P devices) under a request load (engine/serving/).
  bool serve = false;                            // --serve
  double rate = 1.0;                             // --rate: requests per second
  double duration = 60.0;                        // --duration: seconds of arrivals
  double burstiness = 1.0;                       // --burstiness: gamma shape of the gaps (1: Poisson)
  std::string requests;                          // --requests FILE.csv: a trace's arrivals and lengths replayed
  std::string prompt_tokens = "512";             // --prompt-tokens N, LOW..HIGH (uniform) or FILE.csv (sampled)
  std::string output_tokens = "128";             // --output-tokens likewise
  std::uint64_t seed = 1;                        // --seed
  double slo_ttft = 0.0, slo_tpot = 0.0;         // --slo-ttft, --slo-tpot: seconds (0: none)
  std::string batching = "continuous";           // --batching continuous | chunked | static
  std::int64_t max_num_seqs = 256;               // --max-num-seqs (vLLM's default)
  std::int64_t max_batched_tokens = 0;           // --max-batched-tokens (0: vLLM's default for the batching)
  std::int64_t replicas = 1;                     // --replicas
  std::string router = "round-robin";            // --router round-robin | least-outstanding
  std::int64_t max_replicas = 16;                // --max-replicas: with --search, the most replicas tried
  std::string disaggregate;                      // --disaggregate P:D: P prefill and D decode replicas
  std::string runtime;                           // --runtime NAME|FILE: the software stack (runtimes/NAME.rt)
  int search_shard = 0, search_shards = 1;       // one shard of a serving search (Python's executor runs them)

  bool parallel() const { return search || tensor_parallel > 0 || pipeline_parallel > 0 || data_parallel > 0; }
};

// What a run is made of, loaded by the caller (from files, text or Python objects).
struct RunInputs {
  engine::NetworkRef network;
  // The network elaborated again at other (seq_len, past), for --prompt/--generate; empty where it
  // cannot be (an imported .onnx graph has no `past` parameter).
  engine::NetworkAt network_at;
  std::vector<ir::Device> devices;
  std::vector<std::string> device_files;         // for messages; may be empty
  std::vector<engine::NetworkRef> correlate;     // further networks ranked against `network`
};

// A .net elaborated again with `seq_len` and `past` set over `overrides` (for --prompt/--generate):
// `elaborate` parses it with the overrides it is given (from a file or from text).
engine::NetworkAt network_at(std::function<ir::Network(const lang::Overrides&)> elaborate, lang::Overrides overrides);

// A network file (.net, .onnx, or a zoo name) with its parameter overrides, as a run takes it. An .onnx
// file is imported with `onnx`'s allow_unknown and batch_axis (its dimensions come from the overrides);
// `free_nodes` receives the nodes counted as free under allow_unknown.
RunInputs load_run_network(const std::string& path, const lang::Overrides& overrides, const lang::OnnxOptions& onnx = {},
                           std::vector<std::string>* free_nodes = nullptr);

// The rules that need no input loaded (values in range, names known, options that go together), so a
// bad option is reported before any file is read. plan_run() checks them too.
void check(const RunOptions& options);

// The plan, or std::invalid_argument naming the option (as the program spells it) that is wrong or
// does not go with another. Devices that share an id get "-2", "-3" so rows and figures stay apart.
engine::Plan plan_run(RunInputs inputs, const RunOptions& options);

// One precision by name ("bf16"), or std::invalid_argument naming --dtype and the precisions there are.
ir::Precision precision_named(const std::string& name);

// The network parameters a command line sets: --set NAME=VALUE (each once) and --seq-len N (seq_len).
lang::Overrides parameter_overrides(const std::vector<std::string>& sets, std::int64_t seq_len);

// A CSV of layer,forward|backward,seconds (calibrate --measurements writes one). Throws naming the
// file and line of a bad row.
std::vector<engine::Measurement> load_measurements(const std::string& path);

// The text forms the command line takes: "1,8,64", "fp32,fp16", "8" (1, 2, 4, 8) or "1,2,3,4".
// Each throws std::invalid_argument naming its option and the bad item.
std::vector<std::int64_t> parse_batches(const std::string& text);
std::vector<std::string> parse_list(const std::string& text);
void parse_devices(const std::string& text, RunOptions& options);

}  // namespace ridge::simulate
