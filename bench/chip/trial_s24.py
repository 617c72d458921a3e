"""The sixth new user's trial (bench/TRIAL_2026-12-07b.md) on a real TPU: each entry of the trial's
project compiled by Mosaic's own compiler and run on the chip, as written (`before/`), after
`jax-codemod --write --unsafe-fixes` (`after/`) and after `jax-codemod explain --write --unsafe-fixes`
on each traceback left (`explained/`), all three made for jax 0.10.2 and committed beside this file.

Self-contained: jax 0.10.2 only (no libcst, no codemods). The runs share a process, each with the
project's modules imported afresh (the chip's runtime starts once, ~15 s, not once a run); a kernel
that aborts the process (an integer scalar printed by pl.debug_print without placeholders did on a
TPU v5e) is reported and a new process takes the runs after it. The references, interpreted on the
CPU, run side by side in processes of their own first. Values are held to the original program run by Pallas'
TPU interpreter on the CPU (float32, HIGHEST): error = max |chip - interpreter| / max |interpreter|.

    python bench/chip/trial_s24.py                 # on the TPU machine: one line per entry
    python bench/chip/trial_s24.py --interpret     # on a CPU: the same, the kernels interpreted
    python bench/chip/trial_s24.py atan rows       # some entries only
    python bench/chip/trial_s24.py --variants after
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from typing import Iterator

# the trial's folder: trial_s24, or the one a later trial's runner names (trial_s25.py; children inherit it)
HERE = pathlib.Path(os.environ.get("TRIAL_DIR") or pathlib.Path(__file__).resolve().parent / "trial_s24")
VARIANTS = ("before", "after", "explained")
TIMEOUT_S = 300


def _one(variant: str, name: str, interpret: bool, out: str) -> None:
    """In a child process: run one entry of one variant, write its values to `out` (.npz), print a JSON line.
    The project's modules are imported afresh and jax_enable_x64 put back after, so that one process can
    run many entries (--batch) as separate processes would."""
    import jax
    import numpy as np
    from jax.experimental.pallas import tpu as pltpu

    x64 = jax.config.jax_enable_x64
    for module in [m for m, v in sys.modules.items() if str(HERE) in str(getattr(v, "__file__", None) or "")]:
        del sys.modules[module]
    sys.path.insert(0, str(HERE / variant))
    os.chdir(HERE / variant)
    import entry

    try:
        fn, args = entry.load(name)
        if interpret:
            with jax.default_device(jax.devices("cpu")[0]), pltpu.force_tpu_interpret_mode(), \
                    jax.default_matmul_precision("highest"):
                value = jax.block_until_ready(jax.jit(fn)(*args))
        else:
            value = jax.block_until_ready(jax.jit(fn)(*args))
        leaves = [np.asarray(leaf) for leaf in jax.tree.leaves(value)]
        np.savez(out, *leaves)
        print(json.dumps({"ok": True, "device": str(jax.devices()[0].platform)}), flush=True)
    except Exception as error:  # noqa: BLE001 - reported, as the chip's wall
        text = (str(error).strip().splitlines() or [""])[0][:160]
        print(json.dumps({"ok": False, "error": f"{type(error).__name__}: {text}"}), flush=True)
    finally:
        sys.path.remove(str(HERE / variant))
        jax.config.update("jax_enable_x64", x64)


def _spawn(variant: str, name: str, interpret: bool, out: str) -> dict:
    """One run in its own process: its JSON line, or what ended it. An interpreted run opens no TPU
    (starting the chip's runtime takes seconds, and a process left holding it would lock out the next)."""
    command = [sys.executable, __file__, "--one", variant, name, out] + (["--interpret"] if interpret else [])
    env = dict(os.environ, JAX_PLATFORMS="cpu") if interpret else None
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S, env=env)
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": f"timed out after {TIMEOUT_S} s"}
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        tail = (done.stderr.strip().splitlines() or [""])[-1][:160]
        return {"ok": False, "error": f"process ended with {done.returncode} ({tail})"}
    return json.loads(lines[-1])


def _batch(runs: list[tuple[str, str, str]], interpret: bool) -> Iterator[dict]:
    """Every (variant, entry, out) in as few processes as live through them: on the chip each process
    pays the runtime's start (~15 s) once. A run that ends its process (libtpu aborted) is
    reported as `_spawn` reports it and a new process takes the runs after it."""
    done = 0
    while done < len(runs):
        command = [sys.executable, __file__, "--batch", json.dumps(runs[done:])] + (["--interpret"] if interpret else [])
        env = dict(os.environ, JAX_PLATFORMS="cpu") if interpret else None
        with tempfile.TemporaryFile("w+") as stderr:
            child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, text=True, env=env)
            for line in child.stdout:
                if line.startswith("{"):
                    done += 1
                    yield json.loads(line)
            child.wait()
            stderr.seek(0)
            tail = (stderr.read().strip().splitlines() or [""])[-1][:160]
        if done < len(runs):
            done += 1
            yield {"ok": False, "error": f"process ended with {child.returncode} ({tail})"}


def _error(got: str, want: str) -> str:
    import numpy as np

    a, b = np.load(got), np.load(want)
    if len(a.files) != len(b.files):
        return "values: a different number of outputs"
    worst = 0.0
    for key in b.files:
        x, y = a[key].astype(np.float64), b[key].astype(np.float64)
        if x.shape != y.shape:
            return f"values: shape {x.shape} against {y.shape}"
        scale = max(float(np.max(np.abs(y))) if y.size else 0.0, 1e-30)
        worst = max(worst, float(np.max(np.abs(x - y))) / scale if y.size else 0.0)
    return f"err {worst:.1e}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("entries", nargs="*")
    parser.add_argument("--interpret", action="store_true", help="interpret the kernels on the CPU")
    parser.add_argument("--variants", default=",".join(VARIANTS), help="which of before,after,explained to run")
    parser.add_argument("--one", nargs=3, metavar=("VARIANT", "ENTRY", "OUT"), help=argparse.SUPPRESS)
    parser.add_argument("--batch", help=argparse.SUPPRESS)  # JSON [[variant, entry, out], ...]
    options = parser.parse_args()
    if options.one:
        _one(*options.one[:2], options.interpret, options.one[2])
        return 0
    if options.batch:
        for variant, name, out in json.loads(options.batch):
            _one(variant, name, options.interpret, out)
        return 0
    sys.path.insert(0, str(HERE / "before"))
    import entry

    names = options.entries or list(entry.ENTRIES)
    variants = options.variants.split(",")
    print(f"# {'interpreted on the CPU' if options.interpret else 'on the chip'}; error against the original run by the interpreter")
    with tempfile.TemporaryDirectory() as scratch, ThreadPoolExecutor(os.cpu_count()) as pool:
        def out(name: str, variant: str) -> str:
            return os.path.join(scratch, f"{name}.{variant}.npz")

        # the interpreter's runs (CPU only) side by side first; then the chip's, one process at a time
        wants = list(pool.map(lambda name: _spawn("before", name, True, out(name, "reference")), names))
        runs = [(variant, name, out(name, variant)) for name in names for variant in variants]
        results = _batch(runs, options.interpret)
        for name, want in zip(names, wants):
            cells = []
            for variant in variants:
                got = next(results)
                cell = f"{variant}: ran" if got["ok"] else f"{variant}: FAILS {got['error']}"
                if got["ok"] and want["ok"]:
                    cell += f" ({_error(out(name, variant), out(name, 'reference'))})"
                cells.append(cell)
            print(f"{name:14s} " + " | ".join(cells), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
