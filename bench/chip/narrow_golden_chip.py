"""JAX004 on a real TPU: what `make test` can only lower, compiled by Mosaic's own compiler and run.

One process (one program at a time holds the chip), jax 0.10.2 as the TPU machine has it:
  golden  tests/fixtures/narrow/*: each launch of the .in.py fails on the chip as its findings say (a
          MosaicError from the compiler, or the lowering's reduction error), and the .out.py compiles,
          runs, and gives the very bits Pallas' interpreter gives for the .in.py on the CPU (a launch
          with a [manual] finding, left as written, fails there still);
  ops     every case of tests/test_narrow_dtypes_jax.py (each op on int8, uint8 and int16 operands,
          rewritten by the tool here): the op as written fails on the chip, the rewrite runs and is
          bit-identical to the op as written run by the interpreter, over every pair of 8-bit values;
  probe   `jax-codemod probe`'s narrow rows (codemods/probe.py: each op on each dtype, compiled here):
          the chip agrees with capabilities.NARROW_LOWERING_REJECTED and NARROW_COMPILED_REJECTED.

    python3 bench/chip/narrow_golden_chip.py        # on the TPU machine; exit 0 when every row passed
"""

from __future__ import annotations

import functools
import sys
import types
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax.experimental import pallas as pl  # noqa: E402

from tests import jax_support  # noqa: E402
from tests import test_narrow_dtypes_jax as ops  # noqa: E402

GOLDEN = ops.GOLDEN
CPU = jax.devices("cpu")[0]


def first_line(error: BaseException) -> str:
    return type(error).__name__ + ": " + " ".join(str(error).split())[:160]


def on_chip(fn, *args):
    """(result, None) or (None, the error) for `fn` compiled and run on the default device (the TPU)."""
    try:
        return np.asarray(jax.jit(fn)(*args)), None
    except Exception as error:  # noqa: BLE001 - the chip's error is the datum
        return None, first_line(error)


def interpreted(program, entry, *args):
    """The program's launch run by Pallas' interpreter on the CPU."""
    program.pl = types.SimpleNamespace(**{**vars(pl), "pallas_call": functools.partial(pl.pallas_call, interpret=True)})
    try:
        with jax.default_device(CPU):
            return np.asarray(getattr(program, entry)(*[jax.device_put(arg, CPU) for arg in args]))
    finally:
        program.pl = pl


def golden_rows() -> list[tuple[str, bool, str]]:
    rows = []
    x = jnp.asarray(ops.GOLDEN_INPUT)
    for golden, launches in ops.GOLDEN_LAUNCHES.items():
        original = jax_support.load_program(GOLDEN.parent / f"{golden}.in.py", f"narrow_{golden}_in")
        rewritten = jax_support.load_program(GOLDEN.parent / f"{golden}.out.py", f"narrow_{golden}_out")
        for entry in launches:
            _, before = on_chip(getattr(original, entry), x)
            after, error = on_chip(getattr(rewritten, entry), x)
            want = interpreted(original, entry, x)
            same = after is not None and np.array_equal(after, want)
            passed = before is not None and (error is not None if (golden, entry) in ops.GOLDEN_MANUAL else same)
            rows.append((f"{golden} {entry}", passed, f".in: {before or 'RAN (expected a failure)'} | .out: "
                         f"{error or ('bit-identical' if same else 'DIFFERS')}"))
    return rows


def op_rows() -> list[tuple[str, bool, str]]:
    rows = []
    for dtype, name in ops.CASES:
        source = ops.KERNEL.format(dtype=dtype, expression=ops.OPS[name])
        rewritten = ops._rewrite(source)
        a, b = (jnp.asarray(side) for side in ops._grid(dtype))
        results = []
        for text in (source, rewritten):
            kernel = jax_support.load_program(text, f"narrow_op_{abs(hash(text))}").kernel
            out = jax.eval_shape(lambda x, y, k=kernel: ops.kernel_value(k, x, y), a, b)
            results.append(functools.partial(pl.pallas_call, kernel,
                                             out_shape=jax.ShapeDtypeStruct(a.shape, out.dtype)))
        _, before = on_chip(results[0](), a, b)
        after, error = on_chip(results[1](), a, b)
        with jax.default_device(CPU):
            want = np.asarray(jax.jit(results[0](interpret=True))(jax.device_put(a, CPU), jax.device_put(b, CPU)))
        same = after is not None and np.array_equal(after, want)
        rows.append((f"{dtype} {name}", before is not None and same,
                     f"as written: {before or 'RAN (the table says it fails)'} | rewrite: "
                     f"{error or ('bit-identical' if same else 'DIFFERS')}"))
    return rows


def probe_rows() -> list[tuple[str, bool, str]]:
    from codemods import probe

    report = probe.compare([probe._observe(row) for row in probe._narrow_probes()], jax.__version__)
    return [(f"probe {row.case} {row.op}", row.agree, f"observed {row.observed}, table {row.believed} {row.detail[:90]}")
            for row in report.rows]


def main() -> int:
    print("jax", jax.__version__, jax.devices()[0].device_kind, flush=True)
    if jax.default_backend() != "tpu":
        print("no TPU here: nothing to show")
        return 2
    return report(golden_rows() + op_rows() + probe_rows(), 28)


def report(rows: list[tuple[str, bool, str]], width: int) -> int:
    """Each row, then the count; the exit status (1 when a row failed)."""
    for name, passed, detail in rows:
        print(f"{'PASS' if passed else 'FAIL'} {name:{width}s} {detail}", flush=True)
    failed = sum(not passed for _, passed, _ in rows)
    print(f"{len(rows) - failed} of {len(rows)} rows passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
