#include "simulate/command_line.hpp"

#include "engine/render/formats.hpp"

namespace ridge::simulate {

void add_options(CLI::App& app, CommandLine& c) {
  RunOptions& r = c.run;
  app.add_option("network", c.network, "network file (.net, or an .onnx model)")->required();
  app.add_option("devices", c.devices, "device files (.hw)")->required();
  app.add_option("-b,--batch", c.batch, "batch size, or a comma-separated list (1,8,64,256)");
  app.add_option("-d,--dtype", c.dtype, "precision (" + ir::precision_names(" ") + "), or a comma-separated list (fp32,fp16)");
  app.add_option("-s,--set", c.sets, "override a network parameter: name=value");
  std::vector<std::string> format_names;
  for (const engine::render::Format& f : engine::render::formats()) format_names.emplace_back(f.name);
  app.add_option("-f,--format", c.format, "output format")->check(CLI::IsMember(format_names));
  app.add_option("-p,--pass", r.pass, "which pass the table shows")->check(CLI::IsMember({"forward", "backward", "train"}));
  app.add_flag("--wide", c.wide, "the table shows bytes, arithmetic intensity and roofline time of every pass (over 200 columns)");
  app.add_option("--depth", r.depth, "the table sums layers per block, N levels of their dotted names deep (layer1.bottleneck1: 2)")
      ->check(CLI::Range(1, 64));
  app.add_option("-o,--output", c.output, "write to FILE (atomically) instead of stdout");
  app.add_option("--seq-len", c.seq_len, "tokens per sample: sets the network's seq_len parameter")->check(CLI::Range(1, 1 << 20));
  app.add_option("--optimizer", r.optimizer, "training optimizer: sgd (with momentum), adam, adamw")
      ->check(CLI::IsMember({"sgd", "adam", "adamw"}));
  app.add_option("--recompute", r.recompute, "activation recomputation: none, selective (attention), full")
      ->check(CLI::IsMember({"none", "selective", "full"}));
  app.add_flag("--no-master-weights", c.no_master_weights,
               "below fp32, train without the fp32 master weights and fp32 optimizer states of mixed precision");
  app.add_option("--kernel-model", r.kernel_model,
                 "GPU kernel time: micro (tiles and waves from the .hw's arch.* facts, where it gives them) or flat (one PPP per op class)")
      ->check(CLI::IsMember({"micro", "flat"}));
  app.add_option("--explain", r.explain, "print how one layer's time is derived (its GEMMs' tiles, waves, limits; or PALEO's terms)");
  app.add_option("--runtime", r.runtime, "the software stack: a runtimes/NAME.rt (pytorch-eager, pytorch-python, vllm, tensorrt-llm, ...) or "
                                         "a FILE.rt: its launch overhead, attention kernel, logits, fusions, host time per op or pass");
  app.add_option("--weights", r.weights, "weight-only quantisation for inference: int8 or int4 (compute stays in --dtype)")
      ->check(CLI::IsMember({"int8", "int4"}));
  app.add_option("--sparsity", r.sparsity, "2:4: weights pruned to 2 of every 4 values, run at twice the matrix rate at inference "
                                           "(devices whose .hw declares sparsity = \"2:4\")")
      ->check(CLI::IsMember({"2:4"}));
  app.add_option("--memory-format", r.memory_format,
                 "image tensors on a GPU: nhwc (channels-last, the default: what tensor-core convolutions read) or nchw "
                 "(PyTorch's default contiguous format: the library transposes around every tensor-core convolution)")
      ->check(CLI::IsMember({"nhwc", "nchw", "channels_last", "contiguous"}));
  app.add_option("--prompt", r.prompt, "decoder inference: prompt tokens prefilled (with --generate)")->check(CLI::Range(1, 1 << 20));
  app.add_option("--generate", r.generate, "decoder inference: tokens generated one at a time against the KV cache")
      ->check(CLI::Range(1, 1 << 20));
  // Serving: a deployment under a request load.
  app.add_flag("--serve", r.serve, "serve a request load with vLLM's scheduler (continuous batching, paged KV cache) on "
                                   "--replicas x --tensor-parallel x --pipeline-parallel devices; the `serving` table");
  app.add_option("--rate", r.rate, "--serve: requests per second, Poisson arrivals (default 1)")->check(CLI::PositiveNumber);
  app.add_option("--duration", r.duration, "--serve: seconds of arrivals (default 60)")->check(CLI::PositiveNumber);
  app.add_option("--burstiness", r.burstiness, "--serve: gamma-distributed gaps of this shape (vLLM's benchmark: below 1 burstier; "
                                               "default 1, Poisson)")->check(CLI::PositiveNumber);
  app.add_option("--requests", r.requests, "--serve: replay a CSV of arrival_s,prompt_tokens,output_tokens (in place of --rate and the lengths)");
  app.add_option("--prompt-tokens", r.prompt_tokens, "--serve: prompt tokens per request, N, LOW..HIGH (uniform) or FILE.csv "
                                                     "(its prompt_tokens column, sampled); default 512");
  app.add_option("--output-tokens", r.output_tokens, "--serve: output tokens per request, N, LOW..HIGH or FILE.csv (default 128)");
  app.add_option("--seed", r.seed, "--serve: the load's random seed (default 1): a run repeats exactly");
  app.add_option("--slo-ttft", r.slo_ttft, "--serve: time-to-first-token goal in seconds, for goodput")->check(CLI::NonNegativeNumber);
  app.add_option("--slo-tpot", r.slo_tpot, "--serve: time-per-output-token goal in seconds, for goodput")->check(CLI::NonNegativeNumber);
  app.add_option("--batching", r.batching, "--serve: continuous (vLLM's default, prefills first), chunked (Sarathi-Serve's "
                                         "chunked prefill: decodes first, prompts in chunks) or static (batches of --max-num-seqs, "
                                         "each admitted when the last has finished)")
      ->check(CLI::IsMember({"continuous", "chunked", "static"}));
  app.add_option("--max-num-seqs", r.max_num_seqs, "--serve: sequences running at once at most (vLLM's default 256)")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--max-batched-tokens", r.max_batched_tokens, "--serve: tokens one iteration takes (default 2048; chunked 512)")
      ->check(CLI::Range(1, 1 << 24));
  app.add_option("--replicas", r.replicas, "--serve: replicas of the model, each on --tensor-parallel x --pipeline-parallel devices")
      ->check(CLI::Range(1, 4096));
  app.add_option("--disaggregate", r.disaggregate, "--serve: P:D, prefill replicas and decode replicas (Splitwise, DistServe): "
                                                   "each KV cache handed over on the system's link");
  app.add_option("--max-replicas", r.max_replicas, "--serve --search: the most replicas a deployment may have (default 16)")
      ->check(CLI::Range(1, 4096));
  app.add_option("--router", r.router, "--serve: how requests reach replicas: round-robin (default) or least-outstanding")
      ->check(CLI::IsMember({"round-robin", "least-outstanding"}));
  app.add_option("--dim", c.dims, "bind a symbolic dimension of an .onnx model: NAME=VALUE");
  app.add_flag("--allow-unknown", c.allow_unknown, ".onnx: count nodes of ops Ridge cannot model as free (listed on stderr)");
  app.add_option("--batch-axis", c.batch_axis,
                 ".onnx: the input's batch axis (default 0; 1 for a sequence-first model's [T, batch, features])")
      ->check(CLI::Range(0, 7));
  app.add_option("--emit-net", c.emit_net, "also write the network as .net text to FILE (an imported .onnx, for one)");

  // Figures and measured times.
  app.add_option("--svg", c.report.svg,
                 "write a roofline SVG (one device, batch, dtype); with sweeps, FILE names the figures "
                 "FILE-roofline-DEV-DTYPE-bN.svg, FILE-throughput-vs-batch.svg, FILE-latency-vs-flops.svg");
  app.add_option("--trace", c.report.trace, "write one simulated training step as Chrome trace-event JSON (Perfetto)");
  app.add_option("--measured", c.report.measured, "measured layer times (CSV layer,pass,seconds) to plot on the roofline");

  // Data-parallel scaling.
  app.add_option("--devices", c.device_counts, "data-parallel over N devices (rows 1, 2, 4, ..., N) or a list 1,2,3,4");
  app.add_option("--link", r.link, "the link between devices, as named in the .hw (nvlink, pcie, ethernet, infiniband)");
  app.add_option("--scaling", r.scaling, "strong: split the batch; weak: the batch is per device")
      ->check(CLI::IsMember({"strong", "weak"}));
  app.add_flag("--overlap", r.overlap, "overlap the gradient all-reduce with backward");
  app.add_option("--dataset-size", r.dataset_size, "samples per epoch, for epoch time")->check(CLI::PositiveNumber);

  // Parallel training: a strategy, or a search.
  app.add_option("--tensor-parallel", r.tensor_parallel, "tensor-parallel size T (Megatron: heads and MLP split T ways; also for --prompt/--generate)")
      ->check(CLI::Range(1, 1 << 16));
  app.add_option("--pipeline-parallel", r.pipeline_parallel, "pipeline stages P (layers split P ways, 1F1B schedule; also for --prompt/--generate)")
      ->check(CLI::Range(1, 1 << 16));
  app.add_option("--data-parallel", r.data_parallel, "data-parallel replicas D (T x P x D devices)")->check(CLI::Range(1, 1 << 20));
  app.add_option("--micro-batch", r.micro_batch, "samples per micro-batch m (default 1)")->check(CLI::Range(1, 1 << 24));
  app.add_option("--global-batch", r.global_batch, "samples per step B over all replicas (default: --batch)")
      ->check(CLI::Range(1, 1 << 24));
  app.add_option("--interleave", r.interleave, "virtual pipeline stages per device v (interleaved 1F1B)")->check(CLI::Range(1, 1 << 10));
  app.add_flag("--sequence-parallel", r.sequence_parallel, "Megatron sequence parallelism beside tensor parallelism");
  app.add_option("--zero", r.zero, "ZeRO stage: 0 none, 1 optimizer states, 2 + gradients, 3 + weights sharded over D")
      ->check(CLI::Range(0, 3));
  app.add_flag("--search", r.search, "try every strategy of --devices devices (default: the .hw's system.count) that fits; with --serve, "
                                     "the cheapest deployment (replicas x TP x PP x --max-num-seqs x device file) meeting --slo-ttft/--slo-tpot");
  app.add_option("--top", r.top,
                 "with --search, the K fastest strategies (default 10); otherwise the table shows the K layers (or --depth "
                 "blocks) that take the most time, with their share of it")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--max-micro-batch", r.max_micro_batch, "--search: the largest micro-batch tried (default 64)")
      ->check(CLI::Range(1, 1 << 24));
}

void finish(CommandLine& c) {
  c.run.batch = parse_batches(c.batch);
  c.run.dtype = parse_list(c.dtype);
  if (!c.device_counts.empty()) parse_devices(c.device_counts, c.run);
  c.run.master_weights = !c.no_master_weights;
  c.run.schedule = !c.report.trace.empty();
  // Read once, before anything is simulated: the table, the JSON and the rooflines all show them.
  if (!c.report.measured.empty()) c.run.measured = load_measurements(c.report.measured);
}

lang::Overrides overrides(const CommandLine& c) {
  lang::Overrides o = parameter_overrides(c.sets, c.seq_len);
  o.merge(lang::parse_overrides(c.dims, "--dim"));
  if (c.run.prompt > 0) o["seq_len"] = std::to_string(c.run.prompt);
  return o;
}

}  // namespace ridge::simulate
