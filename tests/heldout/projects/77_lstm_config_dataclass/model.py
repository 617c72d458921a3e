from jax.experimental import rnn

from data import INPUT


def encode(cfg, x, h, c, weights, lengths):
    y, h_n, _ = rnn.lstm(x, h, c, weights, lengths, INPUT, cfg.hidden, 1, cfg.dropout, False,
                         precision=cfg.precision)
    return y, h_n
