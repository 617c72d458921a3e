"""The model's layers: each wraps one kernel of qkern."""
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

from models import config
from qkern import dbg, index, mathk, quant
from qkern.launch import launch


def qmax_local(x):
    return launch(quant.rowmax_kernel, x, out_dtype=jnp.int32)


def qmax_param(x, cfg=config.DEFAULT):
    body = functools.partial(quant.rowmax_as, dtype=cfg.qdtype)
    return launch(body, x, out_dtype=jnp.int32)


def qmax_operand(x):
    return launch(quant.rowmax_raw, x.astype(jnp.int8), out_dtype=jnp.int32)


def qshift16(x):
    return launch(quant.shift16_kernel, x, out_dtype=jnp.int32)


def qadd8(a, b):
    a8, b8 = a.astype(jnp.int8), b.astype(jnp.int8)
    return launch(quant.add8_kernel, a8, b8)


def rows(x):
    spec_in = pl.BlockSpec((16, 128), lambda i: (0, 0))
    spec_out = pl.BlockSpec((8, 128), lambda i: (i, 0))
    return launch(index.rows_kernel, x, grid=(2,), in_specs=[spec_in], out_specs=spec_out)


def rows_helper(x):
    spec_in = pl.BlockSpec((16, 128), lambda i: (0, 0))
    spec_out = pl.BlockSpec((8, 128), lambda i: (i, 0))
    return launch(index.rows_helper_kernel, x, grid=(2,), in_specs=[spec_in], out_specs=spec_out)


def atan(x):
    return launch(mathk.atan_kernel, x)


def act(x, act_fn=config.ACT):
    return launch(functools.partial(mathk.act_kernel, act=act_fn), x)


def spinv(x):
    return launch(mathk.spinv_kernel, x)


def cumsum(x, cfg=config.DEFAULT):
    return launch(functools.partial(mathk.cumsum_kernel, axis=cfg.scan_axis), x)


def erfc(x, **kw):
    return launch(functools.partial(mathk.erfc_kernel, **kw), x)


def debug_scaled(x):
    return launch(dbg.scaled_kernel, x)


def tree_sum(params):
    return jax.tree_util.tree_reduce(lambda a, b: a + b, jax.tree.map(jnp.sum, params))
