#!/usr/bin/python3
"""Every `$ ./build/simulate ...` example in the README and the manuals prints what the page shows.

For each example in a code block, runs the command as a reader would, from a scratch directory that
holds the repository's top-level folders (links to them) and the files a reader is assumed to have
made (FIXTURES: the `bad.net` with a typo, the `bad.hw` with three mistakes, the `resnet50.onnx`
exported from torchvision), with SIMULATE in place of ./build/simulate; a command with a pipe, a redirection or a `;` runs in bash.
Every line the page shows under the command must be a line of the output, `...` elisions aside: a
line that is `...` stands for lines left out, and `...` inside a line for the characters left out.
An example whose input file exists nowhere is skipped and named.

Exits 1 on any difference, printing the page's line and where it is, or when a page shows examples
and none of them ran. A page without examples passes.

  tests/docs/readme_examples.py SIMULATE FILE.md...
"""
import os
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parents[2]
# Files the pages assume the reader has, by the name the pages use: a stand-in from the repository.
FIXTURES = {
    "bad.net": "tests/docs/bad.net",                        # docs/language.md: a typo's diagnostic
    "bad.hw": "tests/docs/bad.hw",                          # docs/language.md: several syntax errors at once
    "resnet50.onnx": "tests/onnx/models/resnet50.onnx",     # docs/onnx.md: torchvision's export (weights stripped)
}

OUTPUT_OPTIONS = ("-o", "--output", "--emit-net", "--svg", "--trace")


def examples(lines):
    """(line number, command, shown lines, line number of the first shown) of each example: a
    `$ ./build/simulate` line in a code block, or a paragraph opening with `./build/simulate ...` in
    backticks whose code block follows it."""
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


def reader_directory(where):
    """A scratch directory that looks like the repository root to the examples."""
    for entry in REPO.iterdir():
        if entry.name != ".git":
            (where / entry.name).symlink_to(entry)
    for name, path in FIXTURES.items():
        if not (where / name).exists():
            (where / name).symlink_to(REPO / path)


def matches(shown, output):
    if shown in output:
        return True
    if "..." not in shown:
        return False
    pattern = re.compile(".*".join(re.escape(part) for part in shown.split("...")))
    return any(pattern.fullmatch(line) for line in output)


def check(page, simulate, where):
    name = os.path.relpath(page, REPO) if page.resolve().is_relative_to(REPO) else str(page)
    lines = page.read_text().split("\n")
    found, checked, failures = 0, 0, 0
    for number, cmd, shown, first in examples(lines):
        found += 1
        args = shlex.split(cmd)
        shell = any(c in cmd for c in "|>;")
        # The files the command writes (`--emit-net r50.net ...; cat r50.net` reads one back) are not inputs.
        written = {args[k + 1] for k in range(len(args) - 1) if args[k] in OUTPUT_OPTIONS}
        missing = [a for a in args[1:] if a.endswith((".net", ".onnx", ".hw")) and a not in written
                   and not (where / a).exists()]
        if missing:
            print(f"{name}:{number}: skipped (no {missing[0]}): {cmd}")
            continue
        env = dict(os.environ, COLUMNS="120")
        if shell:
            done = subprocess.run(["bash", "-c", cmd.replace("./build/simulate", shlex.quote(simulate))], cwd=where,
                                  capture_output=True, text=True, env=env)
        else:
            done = subprocess.run([simulate] + args[1:], cwd=where, capture_output=True, text=True, env=env)
        output = {line.rstrip() for line in (done.stdout + done.stderr).split("\n")}
        checked += 1
        for offset, line in enumerate(shown):
            if line.strip() in ("", "...") or matches(line.rstrip(), output):
                continue
            failures += 1
            print(f"{name}:{first + offset}: not in the output of `{cmd}`:\n  {line}")
    print(f"{name}: {checked} of {found} examples checked, {failures} lines differ")
    return failures == 0 and (checked > 0 or found == 0)


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    simulate = os.path.abspath(sys.argv[1])
    ok = True
    with tempfile.TemporaryDirectory(prefix="ridge-docs-") as scratch:
        where = pathlib.Path(scratch)
        reader_directory(where)
        for page in sys.argv[2:]:
            ok = check(pathlib.Path(page).resolve(), simulate, where) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
