"""A bf16 LSTM encoder."""
import jax
import jax.numpy as jnp
from jax.experimental import rnn

HIDDEN = 32


def init(key, feat):
    return rnn.init_lstm_weight(key, feat, HIDDEN, 1, False)


def encode(weights, x, precision=None):
    batch = x.shape[0]
    h0 = jnp.zeros((1, batch, HIDDEN), x.dtype)
    c0 = jnp.zeros((1, batch, HIDDEN), x.dtype)
    lengths = jnp.full((batch,), x.shape[1], jnp.int32)
    y, _, _ = rnn.lstm(x, h0, c0, weights.astype(x.dtype), lengths, x.shape[-1], HIDDEN, 1, 0.0, False,
                       precision=precision)
    return y
