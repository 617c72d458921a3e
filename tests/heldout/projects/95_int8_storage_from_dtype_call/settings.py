"""Storage settings shared by the ops and their tests."""
import jax.numpy as jnp

STORAGE = jnp.dtype("int8")
