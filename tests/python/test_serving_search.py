"""The deployment search (ridge.serve(search=True), simulate --serve --search) run in shards on any
concurrent.futures.Executor and on Dask: the union of the shards, ranked, is the one-process search."""
import concurrent.futures
import json
import os
import subprocess

import pytest

import ridge

SIMULATE = os.environ.get("RIDGE_SIMULATE", "build/simulate")
LOAD = dict(dtype="bf16", rate=20, duration=20, output_tokens=64, slo_ttft=0.3, slo_tpot=0.02)
DEVICES = ["h100-sxm5", "a100-sxm4-40gb"]


def rows(table):
    return [{k: v for k, v in r.items()} for r in table.rows()]


def test_the_search_is_the_programs():
    r = ridge.serve("llama2_7b", DEVICES, search=True, **LOAD)
    out = subprocess.run([SIMULATE, "llama2_7b", *DEVICES, "--dtype", "bf16", "--serve", "--search", "--rate", "20",
                          "--duration", "20", "--output-tokens", "64", "--slo-ttft", "0.3", "--slo-tpot", "0.02",
                          "--format", "json"], capture_output=True, text=True, check=True).stdout
    assert json.loads(out)["serving"] == json.loads(r.to_json())["serving"]
    first = r.serving.rows()[0]
    assert first["meets_slo"]
    assert "Deployment search" in r.to_text()


@pytest.mark.parametrize("shards", [1, 3, 8])
def test_shards_on_a_thread_pool_rank_as_one_search(shards):
    whole = rows(ridge.serve("llama2_7b", DEVICES, search=True, **LOAD).serving)
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        split = ridge.serve("llama2_7b", DEVICES, search=True, executor=pool, shards=shards, **LOAD)
    assert rows(split.serving) == whole
    with pytest.raises(ridge.RidgeError, match="holds only its tables"):
        split.to_json()


def test_a_search_runs_on_a_dask_local_cluster():
    import distributed   # python3-distributed: .ci/setup installs it
    whole = rows(ridge.serve("llama2_7b", DEVICES, search=True, **LOAD).serving)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None, processes=True) as cluster, \
            distributed.Client(cluster) as client:
        split = ridge.serve("llama2_7b", DEVICES, search=True, executor=client.get_executor(), **LOAD)
    assert rows(split.serving) == whole


def test_an_executor_needs_a_search():
    with pytest.raises(ridge.RidgeError, match="search=True"):
        ridge.serve("llama2_7b", "h100-sxm5", executor=concurrent.futures.ThreadPoolExecutor(1))
