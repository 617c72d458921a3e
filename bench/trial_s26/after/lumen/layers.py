"""nnx-style modules: settings on the instance, the kernel launched by `__call__`."""
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from lumen import config
from lumen.ops import apply


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


class Dense:
    def __init__(self, w, *, precision=lax.Precision.HIGHEST, **kw):
        self.w = w
        self.precision = precision
        self.kw = kw

    def __call__(self, x):
        return apply("mm", x, self.w, precision=self.precision, **self.kw)


class RMSNorm:
    def __init__(self, cfg: config.KernelConfig = config.NORM):
        self.eps = cfg.eps
        self.accuracy = cfg.accuracy

    def _kernel(self, x_ref, o_ref):
        x = x_ref[...]
        ms = jnp.mean(x * x, axis=-1, keepdims=True)
        o_ref[...] = x * rsqrt_safe(ms + self.eps)

    def __call__(self, x):
        return pl.pallas_call(self._kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)


class EluGate:
    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def __call__(self, x):
        return apply("elu", x, alpha=self.alpha) * x
