"""python run.py: the attention example."""
import jax
import numpy as np

import config
import kernels
import utils
from orca import ops
from orca.config import MatmulConfig


def scores(q, k):
    return utils.launch(kernels.score_kernel, q, k)


def checked_scores(q, k):
    out = utils.launch(kernels.checked_kernel, q, k)
    return out, utils.reference_scores(q, k)


def body_scores(q, k):
    return utils.launch(kernels.body_kernel, q, k)


def project(x, w):
    return ops.matmul(x, w, MatmulConfig(precision=config.PROJ_PRECISION))


def values(p, v):
    return ops.launch(kernels.value_kernel, p, v, precision=jax.lax.Precision.HIGHEST)


if __name__ == "__main__":
    q = np.ones((8, 128), np.float32)
    print(jax.jit(scores)(q, q.T @ q[:, :128]).shape)
