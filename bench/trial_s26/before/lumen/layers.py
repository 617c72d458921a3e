"""nnx-style modules: settings on the instance, the kernel launched by `__call__`."""
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from lumen import config
from lumen.ops import apply


class Dense:
    def __init__(self, w, *, precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST), **kw):
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
        o_ref[...] = x * lax.rsqrt(ms + self.eps, accuracy=self.accuracy)

    def __call__(self, x):
        return pl.pallas_call(self._kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)


class EluGate:
    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def __call__(self, x):
        return apply("elu", x, alpha=self.alpha) * x
