"""python run.py: softmax kernels against XLA and orca."""
import jax
import numpy as np

import config
import kernels
import ops
import utils
from orca import ops as orca_ops
from orca.config import ActConfig


def body(q, k):
    return utils.launch(kernels.body_kernel, q, k)


def softmax(x):
    return utils.launch(kernels.softmax_kernel, x)


def softmax_hinted(x):
    return utils.launch(kernels.softmax_kernel, x, **config.HINT)


def tail(x):
    return utils.launch(kernels.tail_kernel, x)


def swish(x):
    return orca_ops.act(x, ActConfig(hint=config.HINT))


def family(x, w):
    return orca_ops.matmul_family(x, w, family="mixed")


def xla_softmax(x):
    return ops.softmax_xla(x)


if __name__ == "__main__":
    x = np.random.rand(8, 128).astype(np.float32)
    for fn in (softmax, xla_softmax):
        print(fn.__name__, utils.timeit(jax.jit(fn), x))
