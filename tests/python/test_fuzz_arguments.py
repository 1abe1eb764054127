"""The Python entry points' argument checking, fuzzed (issue #41): whatever a caller passes to
simulate(), sweep(), network() and device(), the call returns a result or raises RidgeError (a
ValueError) naming what was wrong; never another exception (pybind's TypeError, OverflowError, a
crash). Hypothesis (Debian's python3-hypothesis) generates the arguments; the example count is
bounded so the suite stays fast, and the seed is derandomised so a run is reproducible."""
import math

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ridge

NET = """network tiny(width = 8) {
  input x: [3, 8, 8]
  return x -> conv(width, 3, pad: 1) -> relu -> flatten -> linear(10)
}
"""

# Anything a caller might pass: right and wrong types, edge numbers, nested lists, strings.
scalars = st.one_of(
    st.none(), st.booleans(),
    st.integers(min_value=-2**70, max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["fp32", "fp16", "bf16", "tf32", "int8", "fp8", "fp64", "sgd", "adam", "adamw",
                     "none", "selective", "full", "micro", "flat", "int4", "nvlink", "strong", "weak"]),
)
values = st.one_of(scalars, st.lists(scalars, max_size=4), st.tuples(scalars, scalars))

FUZZ = settings(max_examples=400, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@pytest.fixture(scope="module")
def tiny():
    return ridge.network(text=NET, name="tiny.net")


def accepted_or_refused(call):
    try:
        return call()
    except ridge.RidgeError:
        return None


@FUZZ
@given(batch=values, dtype=values, optimizer=values, recompute=values, kernel_model=values,
       devices=values, overlap=values, layers=values)
def test_simulate_keywords_are_checked(batch, dtype, optimizer, recompute, kernel_model, devices, overlap, layers):
    net = ridge.network(text=NET, name="tiny.net")
    accepted_or_refused(lambda: ridge.simulate(net, "a100-sxm4-40gb", batch=batch, dtype=dtype, optimizer=optimizer,
                                               recompute=recompute, kernel_model=kernel_model, devices=devices,
                                               overlap=overlap, layers=layers))


@FUZZ
@given(width=values, extra=st.dictionaries(st.text(min_size=1, max_size=8), scalars, max_size=2))
def test_network_parameters_are_checked(width, extra):
    def call():
        return ridge.simulate(ridge.network(text=NET, name="tiny.net", width=width, **extra), "a100-sxm4-40gb")
    accepted_or_refused(call)


@FUZZ
@given(network=values, device=values)
def test_what_names_a_network_or_device_is_checked(network, device):
    accepted_or_refused(lambda: ridge.simulate(network, device))


@FUZZ
@given(text=st.text(max_size=200))
def test_any_text_as_a_network_or_device(text):
    accepted_or_refused(lambda: ridge.network(text=text, name="fuzz.net"))
    accepted_or_refused(lambda: ridge.device(text=text, name="fuzz.hw"))


@FUZZ
@given(batches=values, dtypes=values)
def test_sweep_lists_are_checked(batches, dtypes):
    net = ridge.network(text=NET, name="tiny.net")
    accepted_or_refused(lambda: ridge.sweep(net, ["a100-sxm4-40gb", "t4"], batches=_as_tuple(batches),
                                            dtypes=_as_tuple(dtypes)))


def _as_tuple(v):
    return tuple(v) if isinstance(v, (list, tuple)) else (v,)
