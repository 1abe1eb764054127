"""simulate's outputs as a user's script loads them: the JSON document has one shape whatever the
options, every row says which simulation it belongs to, and each CSV file is one tidy table that
Python's csv module and pandas read without arguments, under the JSON's field names."""
import csv
import io
import json
import os
import subprocess

import pytest

SIMULATE = os.environ.get("RIDGE_SIMULATE", "build/simulate")
IDENTITY = ["network", "device", "device_id", "batch", "dtype"]
MEMBERS = ["schema", "runs", "layers", "scaling", "generation", "serving", "correlation", "breakdown", "measured", "notes",
           "parallel", "files"]
ROWS_WITH_IDENTITY = ["runs", "layers", "scaling", "generation", "serving", "breakdown", "measured"]


def simulate(*args, cwd=None):
    done = subprocess.run([SIMULATE, *args], capture_output=True, text=True, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return done


def document(*args):
    doc = json.loads(simulate(*args, "--format", "json").stdout)
    assert list(doc) == MEMBERS
    assert doc["schema"] == "ridge/1"
    for member in ROWS_WITH_IDENTITY:
        for row in doc[member]:
            assert list(row)[:5] == IDENTITY, member
            assert all(row[k] is not None for k in IDENTITY), member
    for member in MEMBERS[1:-2]:
        assert isinstance(doc[member], list)
        if doc[member]:
            keys = list(doc[member][0])
            assert all(list(row) == keys for row in doc[member]), f"{member}: rows of one table share columns"
    return doc


@pytest.mark.parametrize("args,counts", [
    (["resnet18", "a100-sxm4-40gb"], {"runs": 1, "scaling": 0}),
    (["resnet18", "a100-sxm4-40gb", "t4", "--batch", "1,8"], {"runs": 4, "scaling": 0}),
    (["resnet18", "a100-sxm4-40gb", "--batch", "64", "--devices", "4"], {"runs": 1, "scaling": 3}),
    (["resnet18", "dgx-a100-80gb", "--batch", "64"], {"runs": 1, "scaling": 4}),   # a system's own rows
    (["resnet18", "vgg11", "mobilenet_v2", "t4", "--batch", "1,32"], {"runs": 6, "scaling": 0}),
])
def test_one_json_shape_whatever_the_options(args, counts):
    doc = document(*args)
    for member, n in counts.items():
        assert len(doc[member]) == n, member
    layers_per_run = {}
    for row in doc["layers"]:
        key = tuple(row[k] for k in IDENTITY)
        layers_per_run[key] = layers_per_run.get(key, 0) + 1
    main = {tuple(r[k] for k in IDENTITY) for r in doc["runs"] if r["network"] == args[0]}
    assert set(layers_per_run) == main   # every report of the main network has its layers


def test_correlation_and_generation_and_parallel_are_members_of_the_same_document():
    doc = document("resnet18", "vgg11", "mobilenet_v2", "t4", "--batch", "1,32")
    assert [row["variable"] for row in doc["correlation"]] == list(doc["correlation"][0])[1:]
    doc = document("llama2_7b", "h100-sxm5", "--dtype", "fp16", "--prompt", "128", "--generate", "20")
    assert len(doc["generation"]) == 1 and doc["generation"][0]["kv_cache_bytes"] == 524288 * 147  # 128 + 20 - 1 cached
    doc = document("gpt", "superpod-a100-80gb", "--dtype", "bf16", "--optimizer", "adam", "--tensor-parallel", "2",
                   "--pipeline-parallel", "2", "--data-parallel", "2", "--global-batch", "16", "--micro-batch", "2")
    assert doc["parallel"]["devices"] == 8


def check_csv(text, json_rows, key=IDENTITY):
    rows = list(csv.DictReader(io.StringIO(text)))
    assert rows, "a table with rows"
    assert list(rows[0]) == list(json_rows[0]), "the CSV header is the JSON field names"
    assert len(rows) == len(json_rows)
    for row, expected in zip(rows, json_rows):
        for k in key:
            assert row[k] == str(expected[k]), k
    return rows


def test_each_csv_file_is_one_tidy_table(tmp_path):
    args = ["resnet18", "a100-sxm4-40gb", "--batch", "64", "--devices", "4"]
    doc = document(*args)
    done = simulate(*args, "--format", "csv", "-o", str(tmp_path / "r.csv"))
    assert str(tmp_path / "r-scaling.csv") in done.stderr
    check_csv((tmp_path / "r.csv").read_text(), doc["layers"])
    check_csv((tmp_path / "r-scaling.csv").read_text(), doc["scaling"])
    # Several simulations: one row each, the runs table.
    sweep = ["resnet18", "a100-sxm4-40gb", "t4", "--batch", "1,8"]
    check_csv(simulate(*sweep, "--format", "csv").stdout, document(*sweep)["runs"])
    # Several networks: the correlation beside the output; on standard output there is no name to put
    # it beside, and no file is written that the user did not name (issue #34).
    corr = ["resnet18", "vgg11", "t4"]
    done = simulate(*corr, "--format", "csv", "-o", str(tmp_path / "c.csv"))
    assert str(tmp_path / "c-correlation.csv") in done.stderr
    check_csv((tmp_path / "c-correlation.csv").read_text(), document(*corr)["correlation"], key=["variable"])
    scratch = tmp_path / "stdout"
    scratch.mkdir()
    done = simulate(*corr, "--format", "csv", cwd=scratch)
    assert "the correlation table (CSV) is left out" in done.stderr
    assert list(scratch.iterdir()) == []


def test_pandas_reads_them_without_arguments(tmp_path):
    pandas = pytest.importorskip("pandas")
    args = ["resnet50", "a100-sxm4-40gb", "h100-sxm5", "--batch", "8,64", "--dtype", "fp16"]
    doc = document(*args)
    layers = pandas.DataFrame(doc["layers"])
    runs = pandas.DataFrame(doc["runs"])
    assert len(runs) == 4
    by_run = layers.groupby(IDENTITY)["time_fwd_s"].sum().reset_index()
    merged = by_run.merge(runs, on=IDENTITY, suffixes=("_layers", ""))
    assert len(merged) == 4
    assert (merged["time_fwd_s_layers"] - merged["time_fwd_s"]).abs().max() < 1e-9   # layers add up to the run
    simulate(*args, "--format", "csv", "-o", str(tmp_path / "runs.csv"))
    frame = pandas.read_csv(tmp_path / "runs.csv")
    assert list(frame.columns) == list(runs.columns)
    assert frame["time_train_step_s"].tolist() == pytest.approx(runs["time_train_step_s"].tolist(), rel=1e-15)


def test_the_manual_lists_the_columns_the_outputs_have(tmp_path):
    manual = os.path.join(os.environ.get("RIDGE_SOURCE_DIR", "."), "docs", "output.md")
    text = open(manual, encoding="utf-8").read()
    section = text[text.index("## Output schema"):]
    end = section.find("\n## ", 1)
    section = section if end < 0 else section[:end]
    listed = {}
    for line in section.splitlines():
        if line.startswith("- `") and "): " in line:
            name = line[3:line.index("`", 3)]
            listed[name] = line.split("): ", 1)[1].split(", ")
    runs = document("resnet18", "vgg11", "dgx-a100-80gb", "--batch", "64")
    generation = document("llama2_7b", "h100-sxm5", "--dtype", "fp16", "--prompt", "16", "--generate", "4")
    served = document("llama2_7b", "h100-sxm5", "--serve", "--duration", "5")
    top = document("resnet18", "t4", "--top", "3")
    measured = tmp_path / "m.csv"
    measured.write_text("layer,pass,seconds\nconv1,forward,0.0001\n")
    paired = document("resnet18", "t4", "--measured", str(measured))
    for member, doc in [("runs", runs), ("layers", runs), ("scaling", runs), ("notes", runs),
                        ("generation", generation), ("serving", served), ("breakdown", top), ("measured", paired)]:
        assert listed[member] == list(doc[member][0]), member
    assert listed["correlation"][0] == "variable" and list(runs["correlation"][0])[0] == "variable"


def test_the_manual_lists_every_note_id_with_its_severity():
    """docs/output.md lists each note's ID under its severity, exactly the IDs the engine and simulate
    give (engine/note.hpp: note(...) and warning(...))."""
    import glob
    import re
    source = os.environ.get("RIDGE_SOURCE_DIR", ".")
    used = {}
    for path in glob.glob(os.path.join(source, "engine", "**", "*.cpp"), recursive=True) + \
            glob.glob(os.path.join(source, "simulate", "*.cpp")):
        for severity, ident in re.findall(r'\b(note|warning)\("([a-z0-9-]+)"', open(path, encoding="utf-8").read()):
            used[ident] = severity
    text = open(os.path.join(source, "docs", "output.md"), encoding="utf-8").read()
    listed = {}
    for severity in ("note", "warning"):
        line = next(l for l in text.splitlines() if l.startswith(f"- {severity}: "))
        for ident in line.split(": ", 1)[1].split(", "):
            listed[ident] = severity
    assert listed == used
