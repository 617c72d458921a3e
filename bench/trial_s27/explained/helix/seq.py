"""A bf16 LSTM encoder."""
import jax
import jax.numpy as jnp
from jax.experimental import rnn


def lstm_float32(lstm, x, h_0, c_0, weights, seq_lengths, *args, **kwargs):
    """Runs `lstm` on float32 copies of its inputs; outputs come back in the inputs' dtypes.

    cuDNN has no bfloat16 LSTM ("bfloat16 support not implemented for LSTM"), so callers pass
    precision=HIGHEST. y, h_n and c_n keep the dtypes of x, h_0 and c_0: bf16 models and scan
    carries keep their types. seq_lengths stays int32. Added by jax-codemod (JAX003).
    """
    y, h_n, c_n = lstm(
        x.astype(jnp.float32),
        h_0.astype(jnp.float32),
        c_0.astype(jnp.float32),
        weights.astype(jnp.float32),
        seq_lengths,
        *args,
        **kwargs,
    )
    return y.astype(x.dtype), h_n.astype(h_0.dtype), c_n.astype(c_0.dtype)


HIDDEN = 32


def init(key, feat):
    return rnn.init_lstm_weight(key, feat, HIDDEN, 1, False)


def encode(weights, x, precision=None):
    batch = x.shape[0]
    h0 = jnp.zeros((1, batch, HIDDEN), x.dtype)
    c0 = jnp.zeros((1, batch, HIDDEN), x.dtype)
    lengths = jnp.full((batch,), x.shape[1], jnp.int32)
    y, _, _ = lstm_float32(rnn.lstm, x, h0, c0, weights.astype(x.dtype), lengths, x.shape[-1], HIDDEN, 1, 0.0, False,
                           precision="highest")
    return y
