from jax import lax

from config import LayerConfig
from layer import Dense

MODEL_CONFIG = LayerConfig(precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))  # value


def make_dense():
    return Dense(MODEL_CONFIG)
