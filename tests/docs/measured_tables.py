#!/usr/bin/python3
"""Every table the README quotes from validate/scripts/measured_compare.py is what the script prints.

A block in the README between
    <!-- measured_compare: ARGS -->
and
    <!-- end measured_compare -->
must equal the output of `measured_compare.py ARGS --simulate SIMULATE` (its `## ` headings written one
level deeper, `#### `, as the README nests them). A change to the kernel model that moves a measured
error then fails here until the README says so. Exits 1 on a difference, printing the first one.

  tests/docs/measured_tables.py SIMULATE README
"""
import difflib
import pathlib
import re
import shlex
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]


def main():
    simulate, readme = sys.argv[1], pathlib.Path(sys.argv[2])
    text = readme.read_text()
    blocks = re.findall(r"<!-- measured_compare: (.*?) -->\n(.*?)\n<!-- end measured_compare -->", text, re.S)
    if not blocks:
        print(f"{readme}: no measured_compare block", file=sys.stderr)
        return 1
    failed = 0
    for args, shown in blocks:
        cmd = [sys.executable, str(REPO / "validate" / "scripts" / "measured_compare.py")] + shlex.split(args) + ["--simulate", simulate]
        done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
        if done.returncode != 0:
            print(f"{' '.join(cmd)} failed: {done.stderr.strip()}", file=sys.stderr)
            failed += 1
            continue
        printed = re.sub(r"^## ", "#### ", done.stdout.strip(), flags=re.M)
        if printed != shown.strip():
            diff = difflib.unified_diff(shown.strip().splitlines(), printed.splitlines(), "README", "measured_compare.py", lineterm="", n=0)
            print("\n".join(list(diff)[:20]), file=sys.stderr)
            failed += 1
    print(f"{len(blocks)} measured_compare block(s), {failed} differing")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
