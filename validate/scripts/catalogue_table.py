#!/usr/bin/python3
"""The device catalogue as one table (hw/README.md shows it; tests/docs/measured_tables.py holds the
page to this output): for every hw/*.hw, what `simulate` reads from it, through the program itself
(`simulate models/alexnet.net hw/FILE.hw --dtype D --format json`, the `runs` row): its kind, devices,
memory, DRAM bandwidth, the fp32 and bf16 peaks it uses for matrix products (the matrix units', else
the vector lanes'), the bf16 ridge point (FLOP per byte where the roofline bends) and the price per
device-hour where the file gives one. Every figure's source is in its file.

  validate/scripts/catalogue_table.py [--simulate build/simulate]
"""
import argparse
import concurrent.futures
import json
import pathlib
import re
import subprocess

REPO = pathlib.Path(__file__).resolve().parents[2]


def row(simulate, path):
    def run(dtype):
        done = subprocess.run([simulate, "models/alexnet.net", str(path.relative_to(REPO)), "--dtype", dtype, "--format", "json"],
                              cwd=REPO, capture_output=True, text=True)
        return json.loads(done.stdout)["runs"][0] if done.returncode == 0 else None
    fp32, bf16 = run("fp32"), run("bf16")
    text = path.read_text()
    count = re.search(r"^\s*system\.count\s*=\s*(\d+)", text, re.M)
    price = re.search(r"^\s*price\s*=\s*([0-9.]+)\s*USD/h", text, re.M)
    return path.stem, fp32, bf16, int(count.group(1)) if count else 1, float(price.group(1)) if price else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--simulate", default=str(REPO / "build" / "simulate"))
    a = ap.parse_args()
    files = sorted((REPO / "hw").glob("*.hw"))
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        rows = list(pool.map(lambda p: row(a.simulate, p), files))
    print("| file | kind | devices | memory (GiB) | DRAM (GB/s) | fp32 (TFLOP/s) | bf16 (TFLOP/s) | bf16 ridge (FLOP/B) | USD/h |")
    print("|---|---|--:|--:|--:|--:|--:|--:|--:|")
    for stem, fp32, bf16, count, price in rows:
        r = fp32 or bf16
        memory = f"{r['device_memory_bytes'] / 2**30:,.0f}" if r and r.get("device_memory_bytes") else "-"
        cells = [f"`{stem}`", r["device_kind"] if r else "-", str(count), memory, f"{r['bandwidth'] / 1e9:,.0f}" if r else "-",
                 f"{fp32['peak_flops'] / 1e12:,.1f}" if fp32 else "-", f"{bf16['peak_flops'] / 1e12:,.1f}" if bf16 else "-",
                 f"{bf16['ridge_point']:,.0f}" if bf16 else "-", f"{price:.3f}" if price else "-"]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
