"""The ridge module's API: loading from names, paths and text, one call for many configurations,
tables as DataFrames, errors as exceptions carrying the file:line:col diagnostic, the GIL released."""
import json
import os
import re
import subprocess
import threading

import pytest

import ridge

SIMULATE = os.environ.get("RIDGE_SIMULATE", "build/simulate")
IDENTITY = ["network", "device", "device_id", "batch", "dtype"]

NET = """network tiny {
  input x: [3, 32, 32]
  return x -> conv(16, 3, pad: 1) -> relu -> adaptive_avgpool(1) -> flatten -> linear(10)
}
"""

HW = """device "Test GPU" {
  kind = gpu
  source = "a made-up device for this test"
  peak.fp32 = 10 TFLOP/s
  memory.bandwidth = 500 GB/s
  memory.size = 16 GiB
}
"""


def test_a_zoo_network_on_a_catalogue_device():
    r = ridge.simulate("resnet50", "a100-sxm4-40gb", batch=64, dtype="fp16")
    assert r.total("params") == 25_557_032                      # torchvision resnet50
    assert r.total("macs") / 64 / 1e9 == pytest.approx(4.09, abs=0.005)   # torchvision docs: 4.09 GFLOPS
    layers = r.layers
    assert layers.columns[:5] == IDENTITY
    assert len(layers) == ridge.network("resnet50").layer_count
    assert set(layers["dtype"]) == {"fp16"} and set(layers["batch"]) == {64}
    assert sum(layers["macs"]) == pytest.approx(r.total("macs"), rel=1e-12)


def test_one_call_sweeps_devices_batches_and_dtypes():
    devices, batches, dtypes = ["a100-sxm4-40gb", "h100-sxm5"], [1, 64], ["fp32", "fp16"]
    r = ridge.sweep("resnet18", devices, batches=batches, dtypes=dtypes)
    totals = r.totals
    assert len(totals) == 8
    rows = {(row["device_id"], row["batch"], row["dtype"]) for row in totals.rows()}
    assert len(rows) == 8
    assert len(r.layers) == 0                                  # a sweep's fast path: totals only
    with pytest.raises(ridge.RidgeError, match="8 simulations"):
        r.total("time_fwd_s")
    # The same numbers as whole simulations with their layers.
    whole = ridge.simulate("resnet18", devices, batch=batches, dtype=dtypes)
    assert len(whole.layers) == 8 * ridge.network("resnet18").layer_count
    assert whole.totals.rows() == totals.rows()


def test_tables_become_dataframes():
    pandas = pytest.importorskip("pandas")
    r = ridge.simulate("resnet18", ["a100-sxm4-40gb", "h100-sxm5"], batch=[8, 64])
    df = r.totals.to_pandas()
    assert isinstance(df, pandas.DataFrame)
    assert list(df.columns[:5]) == IDENTITY
    assert len(df) == 4
    fastest = df.sort_values("time_train_step_s").iloc[0]
    assert fastest["device_id"] == "h100-sxm5" and fastest["batch"] == 8
    layers = r.layers.to_pandas()
    assert layers.groupby("device_id")["macs"].sum().nunique() == 1   # same work on every device


def test_networks_and_devices_from_text():
    dev = ridge.device(text=HW, name="test.hw")
    net = ridge.network(text=NET, name="tiny.net")
    r = ridge.simulate(net, dev, batch=4)
    # conv 3->16 3x3 with bias: 448 parameters; linear 16->10: 170.
    assert r.total("params") == 448 + 170
    assert r.totals["device"] == ["Test GPU"]


def test_parameters_reach_the_network():
    short = ridge.simulate("gpt2", "a100-sxm4-40gb", seq_len=128)
    long = ridge.simulate("gpt2", "a100-sxm4-40gb", seq_len=512)
    assert short.total("tokens_per_sample") == 128 and long.total("tokens_per_sample") == 512
    assert short.total("params") == long.total("params") == 124_439_808   # GPT-2 small, tied head once


def test_errors_carry_the_diagnostic():
    with pytest.raises(ridge.RidgeError) as e:
        ridge.network(text=NET.replace("relu", "rleu"), name="tiny.net")
    message = str(e.value)
    assert message.startswith("tiny.net:3:")
    assert "did you mean 'relu'" in message
    assert "^" in message                                      # the caret under the line
    assert isinstance(e.value, ValueError)
    with pytest.raises(ridge.RidgeError, match=r"test.hw:4:\d+"):
        ridge.device(text=HW.replace("peak.fp32 = 10 TFLOP/s", "peak.fp32 = ten TFLOP/s"), name="test.hw")
    with pytest.raises(ridge.RidgeError, match="not one of"):
        ridge.simulate("resnet18", "a100-sxm4-40gb", dtype="fp99")
    with pytest.raises(ridge.RidgeError, match="cannot open"):
        ridge.simulate("no_such_network", "a100-sxm4-40gb")


def test_a_file_that_is_no_network_is_refused_without_echoing_its_lines(tmp_path):
    # Issue #41: network(path) quoted the first lines of any file it was handed.
    secret = tmp_path / "notes.txt"
    secret.write_text("password: hunter2\nsecond line\n")
    with pytest.raises(ridge.RidgeError) as e:
        ridge.network(str(secret))
    message = str(e.value)
    assert message.startswith(str(secret) + ":1:1:")
    assert "not a .net source" in message
    assert "hunter2" not in message and "second line" not in message


def test_the_json_is_the_command_lines():
    # One schema: the module's JSON and `simulate --format json` are the same document.
    r = ridge.simulate("resnet18", ["a100-sxm4-40gb", "t4"], batch=[1, 8], dtype="fp16")
    cli = subprocess.run([SIMULATE, "resnet18", "a100-sxm4-40gb", "t4", "--batch", "1,8", "--dtype", "fp16",
                          "--format", "json"], check=True, capture_output=True, text=True).stdout
    assert json.loads(r.to_json()) == json.loads(cli)


def test_scaling_and_correlation_in_one_call():
    r = ridge.simulate("resnet50", "dgx-a100-80gb", batch=64, devices=8, correlate=["resnet18", "vgg11"])
    scaling = r.scaling
    assert scaling["devices"] == [1, 2, 4, 8]
    assert scaling.columns[:5] == IDENTITY
    assert len(r.totals) == 3                                  # the three networks
    assert len(r.correlation) > 0


def test_the_engine_runs_without_the_gil():
    # A long run in a thread; the main thread keeps running Python meanwhile. Were the GIL held, the
    # spinning loop would stop for the whole run.
    net = ridge.network("resnet50")
    done = threading.Event()
    spins = 0

    def work():
        ridge.simulate(net, "a100-sxm4-40gb", batch=list(range(1, 801)))
        done.set()

    worker = threading.Thread(target=work)
    worker.start()
    while not done.is_set():
        spins += 1
    worker.join()
    assert spins > 10_000


def test_counts_that_are_not_whole_numbers_in_range_raise_ridge_error():
    # Issue #41: int() took batch=8.5 as 8 and True as 1, [] ran nothing, devices=-4 went through, and
    # 2**64 raised pybind's TypeError. Each names its keyword now, as the program names its option.
    for bad, said in [(8.5, "batch: 8.5 is not a whole number"), (True, "batch: True is not a whole number"),
                      ([], "batch: give at least one value"), (2 ** 64, "batch: 18446744073709551616 is not between 1 and"),
                      (0, "batch: 0 is not between 1 and")]:
        with pytest.raises(ridge.RidgeError, match=re.escape(said)):
            ridge.simulate("resnet18", "a100-sxm4-40gb", batch=bad)
    with pytest.raises(ridge.RidgeError, match=re.escape("devices: -4 is not between 1 and 65536")):
        ridge.simulate("resnet18", "a100-sxm4-40gb", devices=-4)
    with pytest.raises(ridge.RidgeError, match=re.escape("devices: 2.0 is not a whole number")):
        ridge.simulate("resnet18", "a100-sxm4-40gb", devices=[1, 2.0])
