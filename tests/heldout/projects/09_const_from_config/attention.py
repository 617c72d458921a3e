import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

from config import ATTN_LOGITS_PRECISION, SCALE


def _logits_kernel(q_ref, k_ref, o_ref):
    o_ref[...] = SCALE * jnp.einsum("qd,kd->qk", q_ref[...], k_ref[...], precision=ATTN_LOGITS_PRECISION)  # wall


def logits(q, k):
    return pl.pallas_call(
        _logits_kernel,
        out_shape=jax.ShapeDtypeStruct((q.shape[0], k.shape[0]), jnp.float32),
        compiler_params=pltpu.CompilerParams(),
    )(q, k)
