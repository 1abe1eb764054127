#!/usr/bin/env python3
"""Mutation testing for Ridge (issue #33): do the tests catch realistic bugs in the formulas?

Copies the repository's tracked files into a scratch folder (never touching your tree or build
folder), configures one Release build there (no LibTorch, no Python module, no benchmarks), builds it
and runs the tests once (the baseline). Then, for each mutation of tests/mutation/mutations.txt:
applies it, rebuilds incrementally with ninja, runs the test programs (stopping at the first test that
fails and passed in the baseline), records killed / survived / build-error, and reverts it.

Prints a table and the survivors, writes the results (JSON) and exits 0 whatever the outcome (an
on-demand tool, not a CI gate); 2 when it cannot run at all (a bad mutation list, a baseline that does
not build).

  tests/mutation/run.py                      # every mutation (about half an hour on 2 cores)
  tests/mutation/run.py --only g-wave-ceil p-bubble --jobs 2
  tests/mutation/run.py --list               # check the list against the tree; build nothing
  tests/mutation/run.py --dir /tmp/ridge-mut # reuse (or keep) a scratch folder between runs
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_REPO = HERE.parent.parent
CMAKE_OPTIONS = ["-DCMAKE_BUILD_TYPE=Release", "-DRIDGE_BUILD_VALIDATE=OFF", "-DRIDGE_BUILD_PYTHON=OFF",
                 "-DRIDGE_BUILD_BENCHMARKS=OFF"]
SKIP_LABELS = {"slow", "python"}


# ----------------------------------------------------------------------------- the mutation list

class Mutation:
    def __init__(self, fields, line):
        self.line = line
        self.id = fields.get("id", "")
        self.file = fields.get("file", "")
        self.bug = fields.get("bug", "")
        self.old = fields.get("old")
        self.new = fields.get("new")

    @property
    def area(self):
        f = self.file
        if f.startswith("engine/costs/"):
            return "costs"
        if f.startswith("engine/parallel/"):
            return "parallel"
        # The op-class table holds the default PPP the timing reads.
        if f.startswith("engine/kernels/") or f in ("engine/timing.cpp", "lang/ir/op_classes.hpp"):
            return "timing"
        if f == "engine/simulate.cpp":
            return "memory"
        if f == "engine/generation.cpp":
            return "generation"
        if f.startswith("lang/ir/"):
            return "shapes"
        if f.startswith("lang/onnx/"):
            return "onnx"
        return f.split("/")[0]


def parse_mutations(path):
    """Entries of `key: value` lines separated by blank lines; a repeated old/new key adds a line."""
    entries, fields, start = [], {}, None
    for number, raw in enumerate(Path(path).read_text().splitlines(), 1):
        if raw.startswith("#"):
            continue
        if not raw.strip():
            if fields:
                entries.append(Mutation(fields, start))
            fields, start = {}, None
            continue
        m = re.match(r"(id|file|bug|old|new): ?(.*)$", raw)
        if not m:
            raise SystemExit(f"{path}:{number}: expected 'id:', 'file:', 'bug:', 'old:' or 'new:', got {raw!r}")
        key, value = m.group(1), m.group(2)
        start = start or number
        if key in fields:
            if key not in ("old", "new"):
                raise SystemExit(f"{path}:{number}: '{key}' given twice in one entry")
            fields[key] += "\n" + value
        else:
            fields[key] = value if key in ("old", "new") else value.strip()
    if fields:
        entries.append(Mutation(fields, start))
    return entries


def read_source(root, name, source):
    """A file's text: in the tree at `root`, or (source "head") at the repository's HEAD; None if absent."""
    if source == "head":
        r = run(["git", "-C", str(root), "show", f"HEAD:{name}"], capture_output=True)
        return r.stdout if r.returncode == 0 else None
    path = Path(root) / name
    return path.read_text() if path.is_file() else None


def check_mutations(mutations, root, source="worktree"):
    """Problems with the list against the source tree at `root`, one line each."""
    problems, seen = [], set()
    for m in mutations:
        where = f"mutations.txt:{m.line} ({m.id or 'no id'})"
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]*", m.id):
            problems.append(f"{where}: the id must be letters, digits, '-' and '_'")
        if m.id in seen:
            problems.append(f"{where}: the id is used twice")
        seen.add(m.id)
        if not m.file or m.old is None or m.new is None or not m.bug:
            problems.append(f"{where}: needs file, bug, old and new")
            continue
        if m.old == m.new:
            problems.append(f"{where}: old and new are the same")
        text = read_source(root, m.file, source)
        if text is None:
            problems.append(f"{where}: no file {m.file}")
            continue
        count = text.count(m.old)
        if count != 1:
            problems.append(f"{where}: the original text occurs {count} times in {m.file} (it must occur once)")
    return problems


# ----------------------------------------------------------------------------- the scratch copy

def run(cmd, **kw):
    return subprocess.run(cmd, text=True, **kw)


def copy_tree(repo, dest, source):
    """The repository's files at HEAD (`head`), or its tracked and unignored files as they are now.

    Into an existing copy (a reused --dir) only the files whose content differs are written, with the
    current time, so that ninja rebuilds what changed and nothing else (a file's own mtime, or git
    archive's commit time, could be older than the build and leave it stale)."""
    dest.mkdir(parents=True, exist_ok=True)
    if source == "head":
        with tempfile.TemporaryDirectory(prefix="ridge-mutation-head-") as staging:
            archive = subprocess.Popen(["git", "-C", str(repo), "archive", "HEAD"], stdout=subprocess.PIPE)
            subprocess.run(["tar", "-x", "-C", staging], stdin=archive.stdout, check=True)
            archive.stdout.close()
            if archive.wait() != 0:
                raise SystemExit("git archive HEAD failed")
            root = Path(staging)
            sync_files(root, dest, [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()])
        return
    listed = run(["git", "-C", str(repo), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                 capture_output=True, check=True).stdout
    sync_files(repo, dest, [name for name in listed.split("\0") if name and (repo / name).is_file()])


def sync_files(root, dest, names):
    """Writes each file of `root` named in `names` to `dest` where it is missing or differs."""
    for name in names:
        src, target = root / name, dest / name
        data = src.read_bytes()
        if target.is_file() and target.read_bytes() == data:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        shutil.copymode(src, target)


def configure_and_build(src, build, jobs, log):
    if not (build / "build.ninja").exists():
        print("configuring ...", flush=True)
        r = run(["cmake", "-S", str(src), "-B", str(build), "-G", "Ninja"] + CMAKE_OPTIONS,
                stdout=log, stderr=subprocess.STDOUT)
        if r.returncode != 0:
            raise SystemExit(f"cmake failed; see {log.name}")
    return build_once(build, jobs, log, timeout=None)


def build_once(build, jobs, log, timeout):
    cmd = ["ninja", "-C", str(build)] + (["-j", str(jobs)] if jobs else [])
    try:
        r = run(cmd, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, "the build timed out"
    log.write(r.stdout + r.stderr)
    log.flush()
    if r.returncode == 0:
        return True, ""
    lines = (r.stdout + r.stderr).strip().splitlines()
    errors = [l for l in lines if "error" in l]
    first = errors[0] if errors else lines[-1] if lines else "ninja failed"
    return False, first.replace(str(build.parent) + "/src/", "")[:200]


# ----------------------------------------------------------------------------- the tests

class Program:
    """One test program: a Catch2 executable run whole (its test cases read from its XML report), or a
    plain command (CTest's) whose exit status is the verdict."""

    def __init__(self, name, command, cwd, catch):
        self.name, self.command, self.cwd, self.catch = name, command, cwd, catch
        self.seconds = 0.0
        self.known_failures = set()   # test cases that fail in the baseline
        self.broken = False           # no verdict in the baseline: left out

    def run(self, timeout):
        """(failed test cases, crashed or timed out?, seconds)."""
        cmd = self.command + (["-w", "NoAssertions", "-r", "xml"] if self.catch else [])
        start = time.monotonic()
        try:
            r = run(cmd, cwd=self.cwd, capture_output=True, timeout=timeout, errors="replace")
        except subprocess.TimeoutExpired:
            return set(), "timed out", time.monotonic() - start
        seconds = time.monotonic() - start
        if not self.catch:
            return ({self.name} if r.returncode != 0 else set()), None, seconds
        try:
            root = ET.fromstring(r.stdout)
        except ET.ParseError:
            return set(), f"crashed (exit {r.returncode})", seconds
        failed = set()
        for case in root.iter("TestCase"):
            result = case.find("OverallResult")
            if result is not None and result.get("success") != "true":
                failed.add(case.get("name"))
        if r.returncode != 0 and not failed:
            return set(), f"exit {r.returncode} with no failing test case", seconds
        return failed, None, seconds


def discover(build):
    """The programs behind CTest's tests, without the labels `slow` and `python`."""
    r = run(["ctest", "--test-dir", str(build), "--show-only=json-v1"], capture_output=True, check=True)
    programs = {}
    for test in json.loads(r.stdout)["tests"]:
        props = {p["name"]: p["value"] for p in test.get("properties", [])}
        labels = set(props.get("LABELS", []))
        if labels & SKIP_LABELS or "command" not in test:
            continue
        command = test["command"]
        exe = Path(command[0])
        catch = exe.parent == build / "tests" and exe.name.endswith("_tests")
        key = str(exe) if catch else test["name"]
        if key not in programs:
            programs[key] = Program(exe.name if catch else test["name"], [str(exe)] if catch else command,
                                    props.get("WORKING_DIRECTORY", str(build)), catch)
    return list(programs.values())


def baseline(programs, timeout):
    print("baseline tests ...", flush=True)
    for p in programs:
        failed, trouble, seconds = p.run(timeout)
        p.seconds = seconds
        if trouble:
            p.broken = True
            print(f"  {p.name}: {trouble} in the baseline; left out")
        elif failed:
            p.known_failures = failed
            print(f"  {p.name}: {len(failed)} test case(s) fail in the baseline; a mutant must fail another: "
                  + "; ".join(sorted(failed))[:300])
        else:
            print(f"  {p.name}: passes ({seconds:.1f} s)")
    # Fastest first: a killed mutant stops at the first program that catches it.
    return sorted((p for p in programs if not p.broken), key=lambda p: p.seconds)


def run_tests(programs, timeout):
    """(killed?, which test) over the programs, stopping at the first new failure."""
    for p in programs:
        failed, trouble, _ = p.run(timeout)
        if trouble:
            return True, f"{p.name}: {trouble}"
        new = failed - p.known_failures
        if new:
            return True, f"{p.name}: {sorted(new)[0]}" + (f" (+{len(new) - 1} more)" if len(new) > 1 else "")
    return False, ""


# ----------------------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", type=Path, default=DEFAULT_REPO, help="the repository (default: this script's)")
    ap.add_argument("--mutations", type=Path, default=HERE / "mutations.txt")
    ap.add_argument("--only", nargs="+", metavar="ID", help="run these mutations only")
    ap.add_argument("--list", action="store_true", help="list the mutations, check them against the tree, build nothing")
    ap.add_argument("--jobs", type=int, default=0, help="ninja's -j (default: ninja's own)")
    ap.add_argument("--dir", type=Path, help="the scratch folder (kept; reused when it holds a build)")
    ap.add_argument("--keep-dir", action="store_true", help="keep the scratch folder (a fresh temporary one)")
    ap.add_argument("--from", dest="source", choices=["worktree", "head"], default="worktree",
                    help="copy the tracked and unignored files as they are now (default), or the files at HEAD")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per test program (default 300)")
    ap.add_argument("--build-timeout", type=float, default=1800, help="seconds per mutant's rebuild (default 1800)")
    ap.add_argument("--results", type=Path, help="the results file (default: in the system's temporary folder)")
    args = ap.parse_args()

    repo = args.repo.resolve()
    mutations = parse_mutations(args.mutations)
    if args.only:
        unknown = sorted(set(args.only) - {m.id for m in mutations})
        if unknown:
            raise SystemExit("no mutation " + ", ".join(unknown) + " (--list lists them)")
        mutations = [m for m in mutations if m.id in set(args.only)]

    if args.list:
        for m in mutations:
            print(f"{m.id:26} {m.area:11} {m.file:34} {m.bug}")
        problems = check_mutations(mutations, repo, args.source)
        counts = {}
        for m in mutations:
            counts[m.area] = counts.get(m.area, 0) + 1
        print(f"\n{len(mutations)} mutations: " + ", ".join(f"{a} {n}" for a, n in sorted(counts.items())))
        for p in problems:
            print("PROBLEM " + p)
        print(f"every mutation applies to the {'work tree' if args.source == 'worktree' else 'HEAD commit'}" if not problems else f"{len(problems)} problem(s)")
        return 2 if problems else 0

    work = args.dir.resolve() if args.dir else Path(tempfile.mkdtemp(prefix="ridge-mutation-"))
    keep = args.keep_dir or args.dir is not None
    src, build = work / "src", work / "build"
    results_path = args.results or Path(tempfile.gettempdir()) / f"ridge-mutation-{time.strftime('%Y%m%d-%H%M%S')}.json"
    print(f"scratch folder: {work}" + ("" if keep else " (removed at the end; --keep-dir keeps it)"), flush=True)
    try:
        print(f"copying {repo} ({args.source}) ...", flush=True)
        copy_tree(repo, src, args.source)
        problems = check_mutations(mutations, src)
        if problems:
            # A text that no longer matches is reported as `no-match` below; the rest still run.
            print("\n".join("PROBLEM " + p for p in problems))
            if any("occurs" not in p for p in problems):
                print("the mutation list is malformed: fix it (run.py --list)")
                return 2
        with open(work / "build.log", "a") as log:
            started = time.monotonic()
            ok, why = configure_and_build(src, build, args.jobs, log)
            if not ok:
                print(f"the unmutated tree does not build: {why}\nsee {work / 'build.log'}")
                keep = True
                return 2
            print(f"baseline build: {time.monotonic() - started:.0f} s", flush=True)
            programs = baseline(discover(build), args.timeout)

            results = []
            for i, m in enumerate(mutations, 1):
                path = src / m.file
                original = path.read_text()
                print(f"[{i}/{len(mutations)}] {m.id} ... ", end="", flush=True)
                if original.count(m.old) != 1:
                    print("no-match")
                    results.append({"id": m.id, "area": m.area, "file": m.file, "bug": m.bug, "status": "no-match",
                                    "detail": f"the original text occurs {original.count(m.old)} times",
                                    "seconds": 0.0, "build_seconds": 0.0})
                    continue
                start = time.monotonic()
                build_s = 0.0
                try:
                    path.write_text(original.replace(m.old, m.new, 1))
                    built, why = build_once(build, args.jobs, log, args.build_timeout)
                    build_s = time.monotonic() - start
                    if not built:
                        status, detail = "build-error", why
                    else:
                        killed, detail = run_tests(programs, args.timeout)
                        status = "killed" if killed else "survived"
                finally:
                    path.write_text(original)
                seconds = time.monotonic() - start
                print(f"{status} ({seconds:.0f} s: build {build_s:.0f} s)" + (f" by {detail}" if status == "killed" else
                                                                             f": {detail}" if detail else ""), flush=True)
                results.append({"id": m.id, "area": m.area, "file": m.file, "bug": m.bug, "status": status,
                                "detail": detail, "seconds": round(seconds, 1), "build_seconds": round(build_s, 1)})
            # Leave the scratch build as the unmutated tree built (a kept folder is ready for the next run).
            if keep and mutations:
                build_once(build, args.jobs, log, args.build_timeout)
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)

    report(results, results_path, repo)
    return 0


def report(results, results_path, repo):
    print()
    print(f"{'id':26} {'area':11} {'status':12} {'s':>5}  detail")
    for r in results:
        print(f"{r['id']:26} {r['area']:11} {r['status']:12} {r['seconds']:5.0f}  {r['detail'][:90]}")
    by_status = {}
    for r in results:
        by_status[r["status"]] = by_status.get(r["status"], 0) + 1
    killed, counted = by_status.get("killed", 0), by_status.get("killed", 0) + by_status.get("survived", 0)
    score = f"{100.0 * killed / counted:.0f} %" if counted else "-"
    print(f"\n{len(results)} mutations: " + ", ".join(f"{n} {s}" for s, n in sorted(by_status.items())) +
          f"; mutation score {score} (killed / (killed + survived))")
    areas = sorted({r["area"] for r in results})
    for a in areas:
        rs = [r for r in results if r["area"] == a]
        print(f"  {a:11} {sum(r['status'] == 'killed' for r in rs)}/{len(rs)} killed")
    survivors = [r for r in results if r["status"] == "survived"]
    if survivors:
        print("\nsurvivors (no test fails with these bugs):")
        for r in survivors:
            print(f"  {r['id']} ({r['file']}): {r['bug']}")
    commit = run(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"], capture_output=True).stdout.strip()
    results_path.write_text(json.dumps({"commit": commit, "date": time.strftime("%Y-%m-%d %H:%M"),
                                        "summary": by_status, "mutations": results}, indent=1) + "\n")
    print(f"\nresults: {results_path}")


if __name__ == "__main__":
    sys.exit(main())
