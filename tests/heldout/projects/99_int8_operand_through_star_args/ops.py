"""Launch a registered kernel by name; its operands forwarded as they come."""
import jax
from jax.experimental import pallas as pl

import kernels  # noqa: F401  (registers the kernels)
from registry import KERNELS


def _call(kernel, *args, out_shape=None, **pallas_kw):
    out_shape = out_shape or jax.ShapeDtypeStruct(args[0].shape, args[0].dtype)
    return pl.pallas_call(kernel, out_shape=out_shape, **pallas_kw)(*args)


def apply(name, *args, out_shape=None, **pallas_kw):
    return _call(KERNELS[name], *args, out_shape=out_shape, **pallas_kw)
