import jax.numpy as jnp

import config


def score_kernel(q_ref, k_ref, o_ref):
    o_ref[...] = jnp.dot(q_ref[...], k_ref[...], precision=config.SCORE_PRECISION)


def checked_kernel(q_ref, k_ref, o_ref):
    o_ref[...] = jnp.dot(q_ref[...], k_ref[...], precision=config.REF_PRECISION)


def body_kernel(q_ref, k_ref, o_ref):
    o_ref[...] = jnp.dot(q_ref[...], k_ref[...], precision=config.PAIR)


def value_kernel(p_ref, v_ref, o_ref, *, precision):
    o_ref[...] = jnp.dot(p_ref[...], v_ref[...], precision=precision)
