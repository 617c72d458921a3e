"""Older helpers, written against jax 0.4."""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.experimental.pjit import with_sharding_constraint


def tile_kernel(x_ref, o_ref):
    o_ref[...] = pltpu.repeat(x_ref[...], 2, 1)


def tile(x):
    return pl.pallas_call(tile_kernel, out_shape=jax.ShapeDtypeStruct((x.shape[0], 2 * x.shape[1]), x.dtype))(x)


def structure(tree):
    return jax.tree_structure(tree)


def constrain(x, sharding):
    return with_sharding_constraint(x, sharding)


def leaf_count(tree):
    return structure(tree).num_leaves + jnp.zeros(()).astype(jnp.int32)
