"""Reference code of the helpers that transforms route calls through: the one copy of it.

Transforms insert these functions into the modules they rewrite (codemods.analysis.module_helpers
reads this file as text; the tool never imports it, nor jax). With `--helpers-module pkg.jax_compat`
they import them from `pkg/jax_compat.py` instead: create that module by copying this file.
"""

import jax.numpy as jnp
from jax import lax


def rsqrt_safe(x):
    """`lax.rsqrt(x)` with float32 accuracy, in a form Pallas Mosaic kernels can lower.

    Mosaic GPU and Mosaic TPU reject `lax.rsqrt(x, accuracy=...)` ("Not implemented: accuracy"),
    and Mosaic GPU may lower a plain rsqrt to an approximation. One Newton-Raphson step on it
    keeps the accuracy the hint asked for (within 1 ulp of the exact result); zero, negative,
    infinite and NaN inputs keep rsqrt's own inf, NaN, 0 and NaN, as XLA gives them.
    Added by jax-codemod (JAX002).
    """
    y = lax.rsqrt(x)
    # (x * y) * y rather than 0.5 * x * y * y: halving a tiny x first underflows.
    refined = y + 0.5 * y * (1.0 - (x * y) * y)
    return lax.select((y > 0) & (y < float("inf")), refined, y)


def lstm_float32(lstm, x, h_0, c_0, weights, seq_lengths, *args, **kwargs):
    """Runs `lstm` on float32 copies of its inputs; outputs come back in the inputs' dtypes.

    cuDNN has no bfloat16 LSTM ("bfloat16 support not implemented for LSTM"), so callers pass
    precision=HIGHEST. y, h_n and c_n keep the dtypes of x, h_0 and c_0: bf16 models and scan
    carries keep their types. seq_lengths stays int32. Added by jax-codemod (JAX003).
    """
    y, h_n, c_n = lstm(
        x.astype(jnp.float32),
        h_0.astype(jnp.float32),
        c_0.astype(jnp.float32),
        weights.astype(jnp.float32),
        seq_lengths,
        *args,
        **kwargs,
    )
    return y.astype(x.dtype), h_n.astype(h_0.dtype), c_n.astype(c_0.dtype)
