#!/usr/bin/env python
"""Warm project facts against cold ones on real kernel packages, after random edits (issue 34).

    python bench/incremental.py                 # 30 edits over the pinned kernel packages
    python bench/incremental.py --edits 100 --seed 3 --tree /path/to/tree

A copy of the tree is indexed cold (every module's facts, the rules' own prefilter, as a run
under --scope kernels asks them), then edited one module at a time the way people edit kernels:
a comment (at the end, or a line at the top: the code below moves), a precision changed or dropped,
a launch line deleted, a def renamed, an import added, an unrelated word. After each edit the index
restored from the previous state (through the result cache, as a run restores it: before the link,
whose kept answers it may take or move) must give every module exactly the facts a cold index
gives, the link's answers included; the script prints the time of each (the warm one
computes only what the edit can have changed) and exits 1 on the first difference, naming the
module and the edit. Not a test: it takes minutes (a cold index of the tree per edit).
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from codemods.engine.cache import ResultCache  # noqa: E402
from codemods.engine.runner import _state_key, project_index  # noqa: E402
from codemods.registry import select  # noqa: E402
from codemods.settings import Settings  # noqa: E402
from run import copy_py_files, kernel_packages  # noqa: E402

EDITS = {
    "comment": lambda text, rng: text + f"\n# tuned {rng.randrange(10**6)}\n",
    "moved": lambda text, rng: f"# moved {rng.randrange(10**6)}\n" + text,
    "word": lambda text, rng: text + f"\nunrelated_{rng.randrange(10**6)} = 0\n",
    "precision": lambda text, rng: re.sub(r"precision\s*=\s*[^,)\n]+", "precision=jax.lax.Precision.HIGHEST", text, count=1),
    "drop precision": lambda text, rng: re.sub(r",\s*precision\s*=\s*[^,)\n]+", "", text, count=1),
    "drop launch": lambda text, rng: re.sub(r"^.*pallas_call.*$", "pass", text, count=1, flags=re.MULTILINE),
    "rename def": lambda text, rng: re.sub(r"^def (\w+)", r"def \1_renamed", text, count=1, flags=re.MULTILINE),
    "import": lambda text, rng: "import os\n" + text,
}


def facts_of_every_module(files: list[Path]) -> tuple[dict, object, float]:
    start = time.perf_counter()
    index = project_index(files, select(), Settings())
    assert index is not None
    facts = {str(path): index.facts(path) for path in files}
    return facts, index, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, help="A tree of .py files (default: the pinned kernel packages).")
    parser.add_argument("--edits", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    scratch = Path(tempfile.mkdtemp(prefix="jax-codemod-incremental-"))
    try:
        tree = copy_py_files(args.tree or kernel_packages(), scratch / "tree")
        files = sorted(tree.rglob("*.py"))
        kernel_files = [path for path in files if b"pallas" in path.read_bytes()]
        print(f"{len(files)} modules, {len(kernel_files)} say pallas; seed {args.seed}")
        facts, index, cold_time = facts_of_every_module(files)
        warm_times, cold_times, done = [], [cold_time], 0
        while done < args.edits:
            path = rng.choice(kernel_files if rng.random() < 0.7 else files)
            kind = rng.choice(sorted(EDITS))
            text = path.read_text(errors="surrogateescape")
            edited = EDITS[kind](text, rng)
            if edited == text:
                continue
            cache = ResultCache(scratch / "cache", Settings())
            cache.store_project_state(_state_key(index, select()), index.state())
            path.write_text(edited, errors="surrogateescape")
            start = time.perf_counter()
            warm_index = project_index(files, select(), Settings(), cache=cache)
            assert warm_index is not None
            warm = {str(p): warm_index.facts(p) for p in files}
            warm_times.append(time.perf_counter() - start)
            cold, index, cold_time = facts_of_every_module(files)
            cold_times.append(cold_time)
            done += 1
            different = [name for name in cold if cold[name] != warm[name]]
            print(f"{done:3} {kind:<15} {path.relative_to(tree)}: "
                  f"warm {warm_times[-1]:.2f} s, cold {cold_time:.2f} s; "
                  f"facts that changed: {sum(cold[name] != facts[name] for name in cold)}", flush=True)
            if different:
                for name in different[:5]:
                    print(f"  DIFFERENT {name}\n    cold {cold[name]}\n    warm {warm[name]}")
                sys.exit(1)
            facts = cold
        print(f"\nall {done} edits: warm facts == cold facts for every module; warm median "
              f"{statistics.median(warm_times):.2f} s (max {max(warm_times):.2f} s), cold median "
              f"{statistics.median(cold_times):.2f} s")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
