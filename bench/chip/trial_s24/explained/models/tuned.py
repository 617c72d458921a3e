"""The tuned launch: the options the perf team settled on."""
from jax.experimental.pallas import tpu as pltpu

from qkern import mathk
from qkern.launch import launch

LAUNCH_OPTS = dict(compiler_params=pltpu.CompilerParams(vmem_limit_bytes=32 * 1024 * 1024))


def tuned_atan(x):
    return launch(mathk.atan_kernel, x, **LAUNCH_OPTS)
