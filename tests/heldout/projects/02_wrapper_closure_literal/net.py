from jax import lax

from layers import dense


def forward(x, w1, w2):
    h = dense(x, w1, precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))  # value
    return dense(h, w2)
