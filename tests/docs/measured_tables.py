#!/usr/bin/python3
"""Every table the documentation quotes from validate/scripts/measured_compare.py or megatron_compare.py
is what the script prints (and nemo_compare.py's, dle_scaling_compare.py's, generation_compare.py's, serving_compare.py's, host_compare.py's and catalogue_table.py's).

A block in a markdown file between
    <!-- SCRIPT: ARGS -->
and
    <!-- end SCRIPT -->
where SCRIPT is measured_compare, megatron_compare, nemo_compare, dle_scaling_compare, generation_compare, serving_compare, fsdp_compare, host_compare or catalogue_table, must equal the output of
`validate/scripts/SCRIPT.py ARGS --simulate SIMULATE`, its `## ` headings written at the depth the
block's own first heading has (docs/gpu.md nests them under a `## ` section, as `### `). A change to
the kernel model that moves an error then fails here until the page says so.
Files without a block are passed over; at least one of the files given must have one, so that the
blocks cannot all vanish unseen. Exits 1 on a difference, printing the first lines of each.

  tests/docs/measured_tables.py SIMULATE FILE.md...
"""
import difflib
import pathlib
import re
import shlex
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]


def main():
    simulate, files = sys.argv[1], [pathlib.Path(f) for f in sys.argv[2:]]
    if not files:
        print(__doc__, file=sys.stderr)
        return 2
    found, failed = 0, 0
    for page in files:
        text = page.read_text()
        blocks = re.findall(r"<!-- (measured_compare|megatron_compare|nemo_compare|dle_scaling_compare|generation_compare|serving_compare|fsdp_compare|host_compare|catalogue_table):?(.*?) -->\n(.*?)\n<!-- end \1 -->", text, re.S)
        found += len(blocks)
        for script, args, shown in blocks:
            cmd = [sys.executable, str(REPO / "validate" / "scripts" / (script + ".py"))] + shlex.split(args) + ["--simulate", simulate]
            done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
            if done.returncode != 0:
                print(f"{page}: {' '.join(cmd)} failed: {done.stderr.strip()}", file=sys.stderr)
                failed += 1
                continue
            heading = re.search(r"^(#+) ", shown, re.M)
            printed = re.sub(r"^## ", (heading.group(1) if heading else "##") + " ", done.stdout.strip(), flags=re.M)
            if printed != shown.strip():
                diff = difflib.unified_diff(shown.strip().splitlines(), printed.splitlines(), str(page), script + ".py",
                                            lineterm="", n=0)
                print("\n".join(list(diff)[:20]), file=sys.stderr)
                failed += 1
        if blocks:
            print(f"{page}: {len(blocks)} block(s) of validate/scripts output")
    if not found:
        print("no block of validate/scripts output in " + ", ".join(map(str, files)), file=sys.stderr)
        return 1
    print(f"{found} block(s), {failed} differing")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
