"""Launchers: the library's kernels and any kernel a script hands in."""
import functools

import jax
from jax.experimental import pallas as pl

from orca import kernels, tables
from orca.config import ActConfig, MatmulConfig


def launch(body, *xs, out=None, **kwargs):
    """Launch `body` over whole arrays; keyword arguments go to the kernel."""
    shape = out if out is not None else jax.ShapeDtypeStruct(xs[0].shape, xs[0].dtype)
    return pl.pallas_call(functools.partial(body, **kwargs), out_shape=shape)(*xs)


def matmul(x, w, cfg: MatmulConfig = MatmulConfig()):
    return launch(kernels.mm_kernel, x, w, precision=cfg.precision, scale=cfg.scale)


@functools.partial(jax.jit, static_argnames="family")
def matmul_family(x, w, family="fast"):
    return launch(kernels.mm_kernel, x, w, precision=tables.PRECISIONS[family])


def act(x, cfg: ActConfig = ActConfig()):
    return launch(kernels.act_kernel, x, **cfg.hint)


def gate(x):
    return launch(kernels.gate_kernel, x)
