import jax.numpy as jnp
from jax.experimental import rnn

from config import LSTM_PRECISION
from data import HIDDEN, INPUT


def encode(x, h, c, weights, lengths):
    y, _, _ = rnn.lstm(x, h, c, weights, lengths, INPUT, HIDDEN, 1, 0.0, False, precision=LSTM_PRECISION)
    return y


def head(y, w):
    return jnp.dot(y, w, precision=LSTM_PRECISION)
