import jax
import jax.numpy as jnp
from jax.experimental import rnn

INPUT, HIDDEN = 8, 16


def inputs():
    x = jax.random.normal(jax.random.PRNGKey(0), (2, 5, INPUT)).astype(jnp.bfloat16)
    h = jnp.zeros((1, 2, HIDDEN), jnp.bfloat16)
    weights = rnn.init_lstm_weight(jax.random.PRNGKey(1), INPUT, HIDDEN, 1, False).astype(jnp.bfloat16)
    lengths = jnp.array([5, 3], jnp.int32)
    return x, h, h, weights, lengths
