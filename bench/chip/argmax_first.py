"""A Mosaic TPU argmax/argmin that returns the first tied index, as XLA's (and jnp.argmax's docs) do.

bench/chip/argmax_ties.py showed Mosaic TPU's own argmax returns the last of a tied maximum on a TPU v5e.
The form below takes the maximum, then the least index that holds it (a NaN counts as the maximum, as
in XLA). Each case compiled and run on the chip in its own process, against XLA on the same chip.

    python bench/chip/argmax_first.py            # on the TPU machine
    python bench/chip/argmax_first.py --interpret
"""

from __future__ import annotations

import json
import pathlib
import sys

CASES = ("max_ties", "min_ties", "max_nan", "min_nan", "max_int32", "max_axis0", "max_bf16")


def first_arg(x, axis, largest):
    import jax
    import jax.numpy as jnp

    best = (jnp.max if largest else jnp.min)(x, axis=axis, keepdims=True)
    hit = (x == best) | (x != x)
    index = jax.lax.broadcasted_iota(jnp.int32, x.shape, axis)
    return jnp.min(jnp.where(hit, index, x.shape[axis]), axis=axis)


def _one(case: str, interpret: bool) -> None:
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.experimental import pallas as pl

    x = ((np.arange(8 * 128, dtype=np.float32).reshape(8, 128) % 37) - 18) / 7.0
    if "nan" in case:
        x[2, 50] = x[2, 70] = x[5, 3] = np.nan
    if case == "max_int32":
        x = (x * 7).astype(np.int32)
    if case == "max_bf16":
        x = x.astype(jnp.bfloat16)
    axis = 0 if case == "max_axis0" else 1
    largest = case.startswith("max")

    def kernel(x_ref, o_ref):
        got = first_arg(x_ref[...], axis, largest)
        o_ref[...] = jnp.broadcast_to(got[None, :] if axis == 0 else got[:, None], o_ref.shape)

    run = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.int32), interpret=interpret)
    out = np.asarray(jax.jit(run)(x))
    got = out[0, :] if axis == 0 else out[:, 0]
    want = np.asarray((jax.lax.argmax if largest else jax.lax.argmin)(jnp.asarray(x), axis, jnp.int32))
    print(json.dumps({"case": case, "equal": bool((got == want).all()), "kernel": got.tolist()[:8], "xla": want.tolist()[:8]}))


def main() -> int:
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    from argmax_ties import each_in_its_own_process

    return each_in_its_own_process(__file__, CASES, _one)


if __name__ == "__main__":
    sys.exit(main())
