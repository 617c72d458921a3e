import jax

import data
import model

# Fast matmuls everywhere: set once, for the whole program.
jax.config.update("jax_default_matmul_precision", "bfloat16")


def run():
    return model.encode(*data.inputs())
