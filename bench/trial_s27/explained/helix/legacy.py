"""Older helpers, written against jax 0.4."""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.lax import with_sharding_constraint


def tile_kernel(x_ref, o_ref):
    o_ref[...] = jnp.concatenate([x_ref[...]] * 2, axis=1)


def tile(x):
    return pl.pallas_call(tile_kernel, out_shape=jax.ShapeDtypeStruct((x.shape[0], 2 * x.shape[1]), x.dtype))(x)


def structure(tree):
    return jax.tree.structure(tree)


def constrain(x, sharding):
    return with_sharding_constraint(x, sharding)


def leaf_count(tree):
    return structure(tree).num_leaves + jnp.zeros(()).astype(jnp.int32)
