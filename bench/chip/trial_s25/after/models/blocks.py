"""The model's layers: each wraps one kernel of tkern."""
import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from models.config import CFG
from tkern import AttnKernels, dense, factories


def _launch(body, *args, out_dtype=None, cols=None):
    x = args[0]
    shape = (x.shape[0], cols or x.shape[1])
    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct(shape, out_dtype or x.dtype))(*args)


def attn_scores(q, k, cfg=CFG):
    return AttnKernels(cfg.attn).scores(q, k)


def attn_softmax(s, cfg=CFG):
    kern = AttnKernels(cfg.attn)
    return pl.pallas_call(kern.softmax_kernel, out_shape=jax.ShapeDtypeStruct(s.shape, s.dtype))(s)


def attn_pv(p, v):
    out = jax.ShapeDtypeStruct((p.shape[0], v.shape[1]), jnp.float32)
    return pl.pallas_call(AttnKernels.pv_kernel, out_shape=out)(p, v)


def erfc_gate(x, cfg=CFG):
    return AttnKernels(cfg.attn).erfc_gate(x)


def rms(x, cfg=CFG):
    return _launch(factories.make_rms_kernel(cfg.eps), x)


def proj(x, w, cfg=CFG):
    return _launch(factories.make_proj_kernel(cfg.mlp.proj_precision), x, w, cols=w.shape[1])


def gelu_tol(x):
    tol = lax.Tolerance(atol=1e-6, rtol=0.0, ulps=4)
    return _launch(factories.make_gelu_kernel(), x)


def angle(x):
    return _launch(factories.make_angle_kernel(0.5), x)


def dense_f32(x, w):
    return _launch(dense.dense_kernel, x, w, cols=w.shape[1], out_dtype=jnp.float32)


def dense_bf16(x, w):
    xb, wb = x.astype(jnp.bfloat16), w.astype(jnp.bfloat16)
    return _launch(dense.dense_kernel, xb, wb, cols=w.shape[1], out_dtype=jnp.float32)


def dense_pair(x, w):
    return _launch(dense.dense_pair_kernel, x, w, cols=w.shape[1])


def ffn(x, w, cfg=CFG):
    body = functools.partial(dense.ffn_kernel, precision=cfg.mlp.up_precision)
    return _launch(body, x, w, cols=w.shape[1], out_dtype=jnp.float32)


def wrap(x):
    from tkern import trig

    return _launch(trig.make_wrap_kernel(2.0), x)


def hyper(x):
    from tkern.trig import Hyperbolic

    return _launch(Hyperbolic(0.5).sinh_kernel, x)
