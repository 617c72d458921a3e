"""Token-sequence classifier on jax.experimental.rnn's cuDNN LSTM, with bfloat16 parameters.

Broken: bf16 params at precision=DEFAULT ask cuDNN for a bf16 LSTM, which jax rejects while
tracing, on any backend ("bfloat16 support not implemented for LSTM").
"""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.experimental import rnn

VOCAB_SIZE = 100
EMBED_SIZE = 32
HIDDEN_SIZE = 64
NUM_LAYERS = 1
NUM_CLASSES = 4


def init_params(rng, dtype=jnp.bfloat16):
    lstm_size = rnn.get_num_params_in_lstm(EMBED_SIZE, HIDDEN_SIZE, NUM_LAYERS, False)
    bound = HIDDEN_SIZE**-0.5  # PyTorch's LSTM init
    return {
        "embedding": (0.5 * rng.standard_normal((VOCAB_SIZE, EMBED_SIZE))).astype(dtype),
        "lstm": rng.uniform(-bound, bound, lstm_size).astype(dtype),
        "head": (rng.standard_normal((HIDDEN_SIZE, NUM_CLASSES)) * bound).astype(dtype),
    }


def classify(params, tokens, lengths):
    """Logits from the last hidden state of each (right-padded) sequence."""
    embedded = params["embedding"][tokens]
    h_0 = jnp.zeros((NUM_LAYERS, tokens.shape[0], HIDDEN_SIZE), embedded.dtype)
    c_0 = jnp.zeros_like(h_0)
    _, h_n, _ = rnn.lstm(
        embedded,
        h_0,
        c_0,
        params["lstm"],
        lengths,
        input_size=EMBED_SIZE,
        hidden_size=HIDDEN_SIZE,
        num_layers=NUM_LAYERS,
        dropout=0.0,
        bidirectional=False,
        precision=lax.Precision.DEFAULT,
    )
    return h_n[-1] @ params["head"]


# Test hook (contract: examples/README.md).
PLATFORM = "cpu"  # jax raises while tracing, on any backend; the fixed model lowers on cudnn_lstm_on_cpu
EXPECTED_ERROR = "bfloat16 support not implemented for LSTM"
MIN_JAX = (0, 10)


def build(interpret: bool = False):
    del interpret  # no Pallas kernel here
    rng = np.random.default_rng(0)
    tokens = rng.integers(0, VOCAB_SIZE, (4, 8), np.int32)
    lengths = np.array([8, 5, 3, 7], np.int32)
    return jax.jit(classify), (init_params(rng), tokens, lengths)


def reference(params, tokens, lengths):
    params = jax.tree.map(lambda p: p.astype(jnp.float32), params)
    embedded = params["embedding"][tokens]
    h_0 = jnp.zeros((NUM_LAYERS, tokens.shape[0], HIDDEN_SIZE))
    weights = rnn.unpack_lstm_weights(params["lstm"], EMBED_SIZE, HIDDEN_SIZE, NUM_LAYERS, False)
    with jax.default_matmul_precision("float32"):
        _, h_n, _ = rnn.lstm_ref(
            embedded, h_0, h_0, *weights, lengths, EMBED_SIZE, HIDDEN_SIZE, NUM_LAYERS, 0.0, False
        )
    return jnp.dot(h_n[-1], params["head"], precision=lax.Precision.HIGHEST)
