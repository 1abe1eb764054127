#!/usr/bin/python3
"""Every `>>> ` session in a ```python block of the README and the manuals prints what the page shows.

Runs each block with doctest (ELLIPSIS: `...` in an output stands for what is left out;
NORMALIZE_WHITESPACE), from the repository root as a reader would, with the ridge module found first
in PYTHON_DIR (build/python). One namespace per block. A page without sessions passes. When a session
imports a module this Python does not have (torch, torchvision, pandas), the page is skipped with exit
status 77, which CTest reports as skipped.

  tests/docs/python_examples.py PYTHON_DIR FILE.md...
"""
import doctest
import importlib.util
import os
import pathlib
import re
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]
SKIP = 77


def sessions(text):
    """(line number of the block's first line, block text) of each ```python block holding a `>>> ` line."""
    for m in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M):
        if ">>> " in m.group(1):
            yield text.count("\n", 0, m.start(1)), m.group(1)


def imported(block):
    names = set()
    for line in block.splitlines():
        m = re.match(r">>> (?:import|from) ([\w., ]+?)(?: import .*)?$", line)
        if m:
            names |= {n.strip().split(".")[0] for n in m.group(1).split(",")}
    return names


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    sys.path.insert(0, os.path.abspath(sys.argv[1]))
    os.chdir(REPO)
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    ran, skipped = 0, []
    for page in map(pathlib.Path, sys.argv[2:]):
        name = os.path.relpath(page.resolve(), REPO)
        for line, block in sessions(page.read_text()):
            missing = sorted(m for m in imported(block) if importlib.util.find_spec(m) is None)
            if missing:
                skipped.append(f"{name}:{line + 1}: skipped (no {', '.join(missing)})")
                continue
            if "pandas" in sys.modules:   # each block starts from pandas' default display
                sys.modules["pandas"].reset_option("all")
            test = parser.get_doctest(block, {}, f"{name}:{line + 1}", str(page), line)
            runner.run(test)
            ran += 1
    for s in skipped:
        print(s)
    failed, tried = runner.summarize(verbose=False)
    print(f"{ran} sessions run ({tried} statements), {failed} failed, {len(skipped)} skipped")
    if failed:
        return 1
    return SKIP if skipped and not ran else 0


if __name__ == "__main__":
    sys.exit(main())
