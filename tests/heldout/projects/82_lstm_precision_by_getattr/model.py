from jax import lax
from jax.experimental import rnn

import settings
from data import HIDDEN, INPUT


def encode(x, h, c, weights, lengths):
    precision = getattr(lax.Precision, settings.PRECISION_NAME)
    return rnn.lstm(x, h, c, weights, lengths, INPUT, HIDDEN, 1, 0.0, False, precision=precision)[0]
