"""Settings of the quantize example."""
import jax.numpy as jnp

QDTYPE = jnp.int8
SHIFT = 2
PAIR = None   # same name as examples/attention's PAIR, unrelated
