"""Plain-XLA reference of the layers (no Pallas): the tests compare the kernels with it."""
import jax
import jax.numpy as jnp
from jax import lax
from jax.lax import Precision

from models.config import CFG
from tkern import helpers
from tkern.prec import prec_for


def scores_ref(q, k, cfg=CFG):
    return jnp.dot(q, k.T, precision=cfg.attn.precision) * cfg.attn.scale


def softmax_ref(s, cfg=CFG):
    e = lax.exp(s - jnp.max(s, axis=-1, keepdims=True), accuracy=lax.AccuracyMode.HIGHEST)
    return e / jnp.sum(e, axis=-1, keepdims=True)


def gelu_ref(x):
    inner = 0.7978845608 * (x + 0.044715 * x * x * x)
    return 0.5 * x * (1.0 + lax.tanh(inner, accuracy=lax.Tolerance(atol=1e-6, rtol=0.0, ulps=4)))


def ffn_ref(x, w):
    h = helpers.mm_acc(x, w, precision=(Precision.HIGHEST, Precision.DEFAULT))
    return jnp.maximum(h, 0.0)


def dense_ref(x, w):
    return jnp.dot(x, w, precision=prec_for(x.dtype), preferred_element_type=jnp.float32)


def param_norm(params):
    leaves = jax.tree_leaves(params)
    return sum(jnp.sum(leaf * leaf) for leaf in leaves)
