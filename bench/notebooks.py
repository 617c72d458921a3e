"""What a notebook costs: the same code as `.py` files and as `.ipynb` notebooks, side by side.

    python bench/notebooks.py [--repeat 3]

Two trees are made in a scratch folder from the kernel packages `bench/run.py` downloads (697 files):
each module as a `.py` file and as a notebook whose code cells are its top-level statements (split at
blank lines before an unindented line), with a stored output per cell (a 2 KB stream). A third tree
holds the site-packages modules that mention no jax, as notebooks: nothing there reaches a rule, so
it is compared with grep over the same notebooks. Cold runs (`--no-cache`), best of `--repeat`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from run import GREP_PY, kernel_packages  # noqa: E402  (bench/run.py: the same corpus and grep)

REPO = Path(__file__).resolve().parents[1]
# The least a Python tool pays to rule out a notebook that holds no rule's word: read it and search
# it for each of the rules' needles (Rule.needles; one of several parts, `(_ref, precision)`, is
# there only where all are), as the runner does before decoding anything; one process.
NEEDLE_FLOOR = """
import os, sys
from codemods.engine.notebook import holds
from codemods.registry import RULES
from codemods.settings import Settings
needles = {needle for rule in RULES for needle in rule.needles(Settings())}
for folder, _, names in os.walk(sys.argv[1]):
    for name in names:
        with open(os.path.join(folder, name), "rb") as handle:
            raw = handle.read()
        any(holds(raw, needle) for needle in needles)
"""
_TOP = re.compile(r"\n\n(?=\S)")


def as_notebook(source: str) -> str:
    cells = [chunk + "\n" for chunk in _TOP.split(source) if chunk.strip()]
    output = {"name": "stdout", "output_type": "stream", "text": ["x" * 2048 + "\n"]}
    notebook = {"cells": [{"cell_type": "code", "execution_count": i + 1, "id": f"c{i}", "metadata": {},
                           "outputs": [output], "source": cell.splitlines(keepends=True)} for i, cell in enumerate(cells)],
                "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                             "language_info": {"name": "python"}},
                "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(notebook, indent=1) + "\n"


def make_trees(scratch: Path) -> tuple[Path, Path, Path]:
    py, ipynb, plain = scratch / "py", scratch / "ipynb", scratch / "plain-notebooks"
    for source in kernel_packages().rglob("*.py"):
        relative = source.relative_to(kernel_packages())
        text = source.read_text(encoding="utf-8", errors="replace")
        (py / relative).parent.mkdir(parents=True, exist_ok=True)
        (py / relative).write_text(text)
        (ipynb / relative).parent.mkdir(parents=True, exist_ok=True)
        (ipynb / relative.with_suffix(".ipynb")).write_text(as_notebook(text))
    site = Path(sysconfig.get_paths()["purelib"])
    for source in sorted(site.rglob("*.py")):
        text = source.read_text(encoding="utf-8", errors="replace")
        if "jax" in text or "pallas" in text:
            continue
        target = plain / source.relative_to(site).with_suffix(".ipynb")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(as_notebook(text))
    return py, ipynb, plain


def best(command: list[str], repeat: int, cwd: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="jax-codemod-notebooks-"))
    try:
        py, ipynb, plain = make_trees(scratch)
        count = lambda root, suffix: sum(1 for _ in root.rglob(f"*{suffix}"))  # noqa: E731
        tool = [sys.executable, "-m", "codemods", "-q", "--no-cache"]
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "codemods")], check=True)
        py_time = best([*tool, str(py)], args.repeat, scratch)
        nb_time = best([*tool, str(ipynb)], args.repeat, scratch)
        plain_time = best([*tool, str(plain)], args.repeat, scratch)
        grep = [shutil.which("grep") or "grep", *[a.replace("*.py", "*.ipynb") for a in GREP_PY], str(plain)]
        grep_time = best(grep, args.repeat, scratch)
        floor_time = best([sys.executable, "-c", NEEDLE_FLOOR, str(plain)], args.repeat, scratch)
        print(f"kernel packages as .py ({count(py, '.py')} files): {py_time:.2f} s")
        print(f"the same as notebooks ({count(ipynb, '.ipynb')} files, {sum(f.stat().st_size for f in ipynb.rglob('*.ipynb')) / 2**20:.0f} MB): "
              f"{nb_time:.2f} s = {nb_time / py_time:.2f}x")
        print(f"notebooks without jax ({count(plain, '.ipynb')} files, "
              f"{sum(f.stat().st_size for f in plain.rglob('*.ipynb')) / 2**20:.0f} MB): {plain_time:.2f} s vs grep "
              f"{grep_time:.2f} s = {plain_time / grep_time:.1f}x")
        print(f"  their floor in Python (read each, search the rules' needles, nothing else): {floor_time:.2f} s = "
              f"{floor_time / grep_time:.1f}x grep")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
