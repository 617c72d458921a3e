"""A one-layer LSTM encoder in bfloat16 (cuDNN through jax.experimental.rnn)."""
import jax
import jax.numpy as jnp
from jax.experimental import rnn
from jax.lax import Precision

from models.config import CFG


def _state(x, lc):
    batch, seq, feat = x.shape
    w = rnn.init_lstm_weight(jax.random.PRNGKey(0), feat, lc.hidden, lc.layers, False)
    h0 = jnp.zeros((lc.layers, batch, lc.hidden), x.dtype)
    lengths = jnp.full((batch,), seq, jnp.int32)
    return w.astype(x.dtype), h0, h0, lengths


def encode(x, cfg=CFG):
    lc = cfg.lstm
    x = x.astype(jnp.bfloat16)
    w, h0, c0, lengths = _state(x, lc)
    y, h, c = rnn.lstm(
        x, h0, c0, w, lengths,
        input_size=x.shape[-1], hidden_size=lc.hidden, num_layers=lc.layers,
        dropout=0.0, bidirectional=False, precision=lc.precision,
    )
    return y


def encode_exact(x, cfg=CFG):
    lc = cfg.lstm
    w, h0, c0, lengths = _state(x, lc)
    y, _, _ = rnn.lstm(x, h0, c0, w, lengths, x.shape[-1], lc.hidden, lc.layers, 0.0, False,
                       precision=Precision.HIGHEST)
    return y
