#!/usr/bin/python3
"""Every `$ ./build/simulate ...` example in the README prints what the README shows.

For each example in a code block, runs the command (with SIMULATE in place of ./build/simulate, from
the repository root) and checks that every line the README shows under it, `...` elisions aside,
is a line of the output. An example whose input file is not in the repository (the README's
`bad.net`, a `resnet50.onnx` the reader exports), that writes a file, or that pipes or redirects is
skipped and named.
Exits 1 on any difference, printing the README line and where it is.

  tests/docs/readme_examples.py SIMULATE README
"""
import os
import pathlib
import shlex
import subprocess
import sys


def examples(lines):
    """(line number, command, shown lines) of each example: a `$ ./build/simulate` line in a code block,
    or a paragraph opening with `./build/simulate ...` in backticks whose code block follows it."""
    i = 0
    while i < len(lines):
        if lines[i].startswith("`./build/simulate") and "`" in lines[i][1:]:
            block = next((j for j in range(i + 1, min(i + 4, len(lines))) if lines[j].startswith("```")), None)
            if block is not None:
                end = block + 1
                while end < len(lines) and not lines[end].startswith("```"):
                    end += 1
                yield i + 1, lines[i][1:lines[i].index("`", 1)], lines[block + 1:end], block + 2
                i = end
                continue
        if not lines[i].startswith("$ ./build/simulate"):
            i += 1
            continue
        start, cmd = i, lines[i][2:]
        while cmd.endswith("\\"):
            i += 1
            cmd = cmd[:-1] + " " + lines[i].strip()
        end = i + 1
        while end < len(lines) and not lines[end].startswith(("```", "$ ")):
            end += 1
        yield start + 1, cmd, lines[i + 1:end], i + 2
        i = end


def main():
    simulate, readme = sys.argv[1], pathlib.Path(sys.argv[2])
    root = readme.parent
    lines = readme.read_text().split("\n")
    checked, failures = 0, 0
    for number, cmd, shown, first in examples(lines):
        args = shlex.split(cmd)
        missing = [a for a in args[1:] if a.endswith((".net", ".onnx", ".hw")) and not (root / a).exists()]
        writes = [a for a in args if a in ("--svg", "-o", "--output", "--trace", "--emit-net")]
        if any(c in cmd for c in "|>;") or missing or writes:
            why = "no " + missing[0] if missing else ("writes a file" if writes else "pipes or redirects")
            print(f"README:{number}: skipped ({why}): {cmd}")
            continue
        done = subprocess.run([simulate] + args[1:], cwd=root, capture_output=True, text=True,
                              env=dict(os.environ, COLUMNS="120"))
        output = {line.rstrip() for line in (done.stdout + done.stderr).split("\n")}
        checked += 1
        for offset, line in enumerate(shown):
            if line.strip() in ("", "...") or line.rstrip() in output:
                continue
            failures += 1
            print(f"README:{first + offset}: not in the output of `{cmd}`:\n  {line}")
    print(f"{checked} examples checked, {failures} lines differ")
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
