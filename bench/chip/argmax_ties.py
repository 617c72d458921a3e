"""Which index Mosaic TPU's argmax returns where a row's maximum is tied, against XLA's (the first).

The sixth trial's x64_argbest ran on a TPU v5e after JAX005's fix with an error of 3.1 of its scale
against the interpreter: its input repeats each row's maximum. Each case in its own process.

    python bench/chip/argmax_ties.py            # on the TPU machine
    python bench/chip/argmax_ties.py --interpret
"""

from __future__ import annotations

import json
import subprocess
import sys

CASES = ("distinct", "ties", "ties_min")


def _one(case: str, interpret: bool) -> None:
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.experimental import pallas as pl

    if case == "distinct":
        x = np.random.RandomState(0).permutation(8 * 128).reshape(8, 128).astype(np.float32)
    else:
        x = ((np.arange(8 * 128, dtype=np.float32).reshape(8, 128) % 37) - 18) / 7.0
    reduce = jax.lax.argmin if case == "ties_min" else jax.lax.argmax

    def kernel(x_ref, o_ref):
        best = reduce(x_ref[...], 1, jnp.int32)
        o_ref[...] = jnp.broadcast_to(best[:, None], o_ref.shape)

    run = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, jnp.int32), interpret=interpret)
    got = np.asarray(jax.jit(run)(x))[:, 0]
    want = np.asarray(reduce(jnp.asarray(x), 1, jnp.int32))
    ties = [int(np.sum(row == row.max() if reduce is jax.lax.argmax else row == row.min())) for row in x]
    print(json.dumps({"case": case, "kernel": got.tolist(), "xla": want.tolist(), "tied per row": ties}))


def each_in_its_own_process(script: str, cases, one) -> int:
    """`one(case, interpret)` in a child process per case (`script --one CASE`), its JSON line
    printed, or how the child ended: a case that aborts the chip's compiler ends only its own."""
    if "--one" in sys.argv:
        one(sys.argv[sys.argv.index("--one") + 1], "--interpret" in sys.argv)
        return 0
    for case in cases:
        done = subprocess.run([sys.executable, script, "--one", case, *sys.argv[1:]], capture_output=True, text=True,
                              timeout=300)
        lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
        print(lines[-1] if lines else f'{{"case": "{case}", "ended": {done.returncode}, "tail": {json.dumps(done.stderr.strip()[-300:])}}}')
    return 0


def main() -> int:
    return each_in_its_own_process(__file__, CASES, _one)


if __name__ == "__main__":
    sys.exit(main())
