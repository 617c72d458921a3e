import jax.numpy as jnp
from jax import lax

_DOT_OPTS = dict(precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST), preferred_element_type=jnp.float32)  # value
