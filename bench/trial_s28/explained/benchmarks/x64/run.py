"""python run.py: index kernels, x64 on."""
import config  # noqa: F401 - turns x64 on
import kernels
import utils
from orca import ops


def even(x):
    return utils.launch(kernels.even_kernel, x)


def argmin(x):
    return utils.launch(kernels.argmin_kernel, x)


def gate(x):
    return ops.gate(x)
