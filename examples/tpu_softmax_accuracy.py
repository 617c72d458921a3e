"""Soft-capped attention softmax (Gemma-2 style) as a Pallas TPU kernel, one row block per step.

Broken: the kernel asks for accuracy contracts on tanh and exp, and Mosaic TPU lowers no
`accuracy=` ("Not implemented: accuracy").
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.experimental import pallas as pl

LOGIT_SOFTCAP = 50.0
BLOCK_ROWS = 128


def _softcapped_softmax_kernel(logits_ref, probs_ref):
    capped = LOGIT_SOFTCAP * lax.tanh(logits_ref[...] / LOGIT_SOFTCAP, accuracy=lax.AccuracyMode.HIGHEST)
    shifted = capped - jnp.max(capped, axis=-1, keepdims=True)
    unnormalized = lax.exp(shifted, accuracy=lax.Tolerance(atol=0.0, rtol=1e-6, ulps=2))
    probs_ref[...] = unnormalized / jnp.sum(unnormalized, axis=-1, keepdims=True)


def softcapped_softmax(logits, *, interpret=False):
    rows, keys = logits.shape
    block = pl.BlockSpec((BLOCK_ROWS, keys), lambda i: (i, 0))
    return pl.pallas_call(
        _softcapped_softmax_kernel,
        out_shape=jax.ShapeDtypeStruct(logits.shape, logits.dtype),
        grid=(rows // BLOCK_ROWS,),
        in_specs=[block],
        out_specs=block,
        interpret=interpret,
    )(logits)


def attention_weights(queries, keys, *, interpret=False):
    logits = queries @ keys.T / queries.shape[-1] ** 0.5
    return softcapped_softmax(logits, interpret=interpret)


# Test hook (contract: examples/README.md).
PLATFORM = "tpu"
EXPECTED_ERROR = "Not implemented: accuracy"
MIN_JAX = (0, 10)


def build(interpret: bool = False):
    rng = np.random.default_rng(0)
    queries = 8.0 * rng.standard_normal((256, 128), np.float32)
    keys = rng.standard_normal((256, 128), np.float32)
    return jax.jit(functools.partial(attention_weights, interpret=interpret)), (queries, keys)


def reference(queries, keys):
    logits = jnp.dot(queries, keys.T, precision=lax.Precision.HIGHEST) / queries.shape[-1] ** 0.5
    return jax.nn.softmax(LOGIT_SOFTCAP * jnp.tanh(logits / LOGIT_SOFTCAP), axis=-1)
