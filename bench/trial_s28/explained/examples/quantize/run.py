"""python run.py: int8 requantisation."""
import jax.numpy as jnp

import config
import kernels
import utils


def requant(x):
    return utils.launch(kernels.body_kernel, x)


def absmax(x):
    return utils.launch(kernels.absmax_kernel, x.astype(config.QDTYPE), jnp.int32)


def sizes(tree):
    return jnp.asarray(utils.count(tree))
