"""ridge.simulate and ridge.search make the same run as the program (issue #34): keywords named as
simulate's options, one set of rules behind both (simulate/run_options.hpp), and for each kind of run
(one simulation, a sweep, data-parallel scaling, decoder inference, a parallel strategy, a search)
the JSON document `simulate --format json` prints for the same command line."""
import json
import os
import subprocess

import pytest

import ridge

SIMULATE = os.environ.get("RIDGE_SIMULATE", "build/simulate")


def program(*args):
    done = subprocess.run([SIMULATE, *args, "--format", "json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def program_error(*args):
    done = subprocess.run([SIMULATE, *args], capture_output=True, text=True)
    assert done.returncode != 0
    return done.stderr.strip().removeprefix("simulate: error: ")


RUNS = [
    # (simulate's command line, the same run from Python)
    (["resnet18", "a100-sxm4-40gb", "--batch", "8"],
     lambda: ridge.simulate("resnet18", "a100-sxm4-40gb", batch=8)),
    (["resnet18", "a100-sxm4-40gb", "t4", "--batch", "1,64", "--dtype", "fp32,fp16", "--optimizer", "adam"],
     lambda: ridge.simulate("resnet18", ["a100-sxm4-40gb", "t4"], batch=[1, 64], dtype=["fp32", "fp16"], optimizer="adam")),
    (["resnet50", "a100-sxm4-40gb", "--batch", "64", "--devices", "8", "--overlap", "--scaling", "weak"],
     lambda: ridge.simulate("resnet50", "a100-sxm4-40gb", batch=64, devices=8, overlap=True, scaling="weak")),
    (["llama2_7b", "a100-sxm4-80gb", "--dtype", "fp16", "--prompt", "128", "--generate", "8", "--runtime", "vllm"],
     lambda: ridge.simulate("llama2_7b", "a100-sxm4-80gb", dtype="fp16", prompt=128, generate=8, runtime="vllm")),
    (["resnet50", "b200", "--dtype", "mxfp4", "--batch", "64", "--sparsity", "2:4", "--runtime", "tensorrt"],
     lambda: ridge.simulate("resnet50", "b200", dtype="mxfp4", batch=64, sparsity="2:4", runtime="tensorrt")),
    (["resnet50", "a100-sxm4-40gb", "--dtype", "tf32", "--batch", "64", "--memory-format", "nchw"],
     lambda: ridge.simulate("resnet50", "a100-sxm4-40gb", dtype="tf32", batch=64, memory_format="nchw")),
    (["gpt2", "a100-sxm4-40gb", "--dtype", "fp16", "--prompt", "128", "--generate", "32"],
     lambda: ridge.simulate("gpt2", "a100-sxm4-40gb", dtype="fp16", prompt=128, generate=32)),
    (["llama2_7b", "h100-sxm5", "--dtype", "bf16", "--serve", "--rate", "3", "--duration", "20", "--prompt-tokens", "100..400",
      "--output-tokens", "64", "--slo-ttft", "0.5", "--slo-tpot", "0.05", "--seed", "3"],
     lambda: ridge.serve("llama2_7b", "h100-sxm5", dtype="bf16", rate=3, duration=20, prompt_tokens=(100, 400),
                         output_tokens=64, slo_ttft=0.5, slo_tpot=0.05, seed=3)),
    (["llama2_7b", "h100-sxm5", "--dtype", "bf16", "--serve", "--rate", "6", "--duration", "10", "--batching", "chunked",
      "--max-batched-tokens", "1024", "--replicas", "2", "--router", "least-outstanding", "--burstiness", "0.5"],
     lambda: ridge.serve("llama2_7b", "h100-sxm5", dtype="bf16", rate=6, duration=10, batching="chunked", max_batched_tokens=1024,
                         replicas=2, router="least-outstanding", burstiness=0.5)),
    (["llama2_70b", "dgx-h100", "--dtype", "bf16", "--serve", "--rate", "2", "--duration", "10", "--tensor-parallel", "2",
      "--disaggregate", "1:2"],
     lambda: ridge.serve("llama2_70b", "dgx-h100", dtype="bf16", rate=2, duration=10, tensor_parallel=2, disaggregate=(1, 2))),
    (["llama2_70b", "dgx-a100-80gb", "--dtype", "bf16", "--prompt", "128", "--generate", "16", "--tensor-parallel", "4"],
     lambda: ridge.simulate("llama2_70b", "dgx-a100-80gb", dtype="bf16", prompt=128, generate=16, tensor_parallel=4)),
    (["gpt2_medium", "a100-sxm4-80gb", "--dtype", "bf16", "--batch", "64", "--tensor-parallel", "2",
      "--pipeline-parallel", "2", "--data-parallel", "2", "--micro-batch", "2", "--sequence-parallel", "--zero", "1"],
     lambda: ridge.simulate("gpt2_medium", "a100-sxm4-80gb", dtype="bf16", batch=64, tensor_parallel=2, pipeline_parallel=2,
                            data_parallel=2, micro_batch=2, sequence_parallel=True, zero=1)),
    (["gpt2_medium", "dgx-a100-80gb", "--dtype", "bf16", "--batch", "32", "--search", "--top", "3"],
     lambda: ridge.search("gpt2_medium", "dgx-a100-80gb", dtype="bf16", batch=32, top=3)),
    (["resnet50", "a100-sxm4-40gb", "--batch", "8", "--depth", "1", "--top", "3", "--pass", "forward"],
     lambda: ridge.simulate("resnet50", "a100-sxm4-40gb", batch=8, depth=1, top=3, rank_by="forward")),
]


@pytest.mark.parametrize("args,call", RUNS, ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_python_json_is_the_programs(args, call):
    assert json.loads(call().to_json()) == program(*args)


def test_a_parallel_plan_and_a_generation_are_read_as_python_values():
    plan = ridge.simulate("gpt2_medium", "a100-sxm4-80gb", dtype="bf16", batch=64, tensor_parallel=2, pipeline_parallel=2,
                          data_parallel=2).parallel
    first = plan["strategies"][0]
    assert (first["tensor_parallel"], first["pipeline_parallel"], first["data_parallel"]) == (2, 2, 2)
    found = ridge.search("gpt2_medium", "dgx-a100-80gb", dtype="bf16", batch=32, top=3).parallel
    times = [s["step_s"] for s in found["strategies"]]
    assert len(times) == 3 and times == sorted(times)          # fastest first
    assert ridge.simulate("resnet18", "t4").parallel is None
    g = ridge.simulate("gpt2", "a100-sxm4-40gb", prompt=128, generate=32).generation
    assert len(g) == 1 and g["prompt"] == [128]


def test_measured_times_are_paired_as_the_program_pairs_them(tmp_path):
    csv_file = tmp_path / "m.csv"
    csv_file.write_text("layer,pass,seconds\nconv1,forward,0.0001\nlinear1,backward,0.00002\n")
    doc = program("resnet18", "t4", "--measured", str(csv_file))
    from_file = ridge.simulate("resnet18", "t4", measured=csv_file)
    from_tuples = ridge.simulate("resnet18", "t4", measured=[("conv1", "forward", 1e-4), ("linear1", "backward", 2e-5)])
    assert json.loads(from_file.to_json()) == doc == json.loads(from_tuples.to_json())
    rows = {r["name"]: r for r in from_tuples.measured.rows()}
    assert rows["conv1"]["measured_fwd_s"] == 1e-4 and rows["linear1"]["measured_bwd_s"] == 2e-5
    with pytest.raises(ridge.RidgeError, match="is not a layer, forward or backward"):
        ridge.simulate("resnet18", "t4", measured=[("conv1", "sideways", 1e-4)])


def test_an_unknown_memory_format_is_refused_by_name():
    with pytest.raises(ridge.RidgeError, match="--memory-format: 'nhcw' is not nhwc or nchw"):
        ridge.simulate("resnet18", "t4", memory_format="nhcw")


@pytest.mark.parametrize("args,call", [
    (["gpt2", "t4", "--prompt", "16"], lambda: ridge.simulate("gpt2", "t4", prompt=16, generate=None)),
    (["gpt2_medium", "a100-sxm4-80gb", "t4", "--tensor-parallel", "2"],
     lambda: ridge.simulate("gpt2_medium", ["a100-sxm4-80gb", "t4"], tensor_parallel=2)),
    (["gpt2_medium", "dgx-a100-80gb", "--tensor-parallel", "2", "--devices", "8"],
     lambda: ridge.simulate("gpt2_medium", "dgx-a100-80gb", tensor_parallel=2, devices=8)),
    (["gpt2_medium", "dgx-a100-80gb", "--search", "--devices", "2,4"],
     lambda: ridge.search("gpt2_medium", "dgx-a100-80gb", devices=[2, 4])),
])
def test_a_rule_says_the_same_to_both(args, call):
    """One rule, one message, naming the option as the program spells it (run_options.cpp)."""
    said = program_error(*args)
    with pytest.raises(ridge.RidgeError) as e:
        call()
    assert str(e.value) == said


def test_the_text_is_what_the_program_prints():
    # explain= reaches Python as the program's text; so does every table.
    args = ["resnet18", "a100-sxm4-40gb", "--batch", "8", "--explain", "basic1.conv1"]
    done = subprocess.run([SIMULATE, *args], capture_output=True, text=True, check=True)
    r = ridge.simulate("resnet18", "a100-sxm4-40gb", batch=8, explain="basic1.conv1")
    assert r.to_text() == done.stdout
    assert "tiles" in r.to_text() or "PALEO" in r.to_text()
