"""ResNet-style stem + residual 3x3 conv block, the block fused into a Pallas TPU kernel.

Broken: the kernel asks for a per-operand conv precision, which Mosaic TPU cannot lower
("Per-operand conv precision unsupported"). The stem runs in plain XLA, where the same
per-operand precision is honoured and must be left alone.
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.experimental import pallas as pl

CONV_DIMS = ("NHWC", "HWIO", "NHWC")


def stem(images, stem_kernel):
    """2x2/stride-2 patchify conv, left to XLA."""
    return lax.conv_general_dilated(
        images,
        stem_kernel,
        window_strides=(2, 2),
        padding="VALID",
        dimension_numbers=CONV_DIMS,
        precision=(lax.Precision.DEFAULT, lax.Precision.HIGH),
    )


def _residual_block_kernel(x_ref, kernel_ref, bias_ref, out_ref):
    x = x_ref[...]
    y = lax.conv_general_dilated(
        x,
        kernel_ref[...],
        window_strides=(1, 1),
        padding="SAME",
        dimension_numbers=CONV_DIMS,
        precision=(lax.Precision.DEFAULT, lax.Precision.HIGH),
    )
    out_ref[...] = jnp.maximum(y + bias_ref[...], 0.0) + x


def residual_block(x, kernel, bias, *, interpret=False):
    """relu(conv3x3(x) + bias) + x, one image per grid step."""
    batch, height, width, channels = x.shape
    image_spec = pl.BlockSpec((1, height, width, channels), lambda n: (n, 0, 0, 0))
    return pl.pallas_call(
        _residual_block_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(batch,),
        in_specs=[
            image_spec,
            pl.BlockSpec(kernel.shape, lambda n: (0, 0, 0, 0)),
            pl.BlockSpec(bias.shape, lambda n: (0, 0)),
        ],
        out_specs=image_spec,
        interpret=interpret,
    )(x, kernel, bias)


def forward(params, images, *, interpret=False):
    features = stem(images, params["stem"])
    return residual_block(features, params["block_kernel"], params["block_bias"], interpret=interpret)


def init_params(rng, in_channels=3, channels=128):
    return {
        "stem": rng.standard_normal((2, 2, in_channels, channels), np.float32) / (4 * in_channels) ** 0.5,
        "block_kernel": rng.standard_normal((3, 3, channels, channels), np.float32) / (9 * channels) ** 0.5,
        "block_bias": 0.1 * rng.standard_normal((1, channels), np.float32),
    }


# Test hook (contract: examples/README.md).
PLATFORM = "tpu"
EXPECTED_ERROR = "Per-operand conv precision unsupported"
MIN_JAX = (0, 11, 1)  # 0.11.0 and older have no Mosaic TPU conv lowering at all


def build(interpret: bool = False):
    rng = np.random.default_rng(0)
    images = rng.standard_normal((2, 16, 16, 3), np.float32)
    return jax.jit(functools.partial(forward, interpret=interpret)), (init_params(rng), images)


def reference(params, images):
    conv = functools.partial(lax.conv_general_dilated, dimension_numbers=CONV_DIMS, precision=lax.Precision.HIGHEST)
    features = conv(images, params["stem"], window_strides=(2, 2), padding="VALID")
    block = conv(features, params["block_kernel"], window_strides=(1, 1), padding="SAME")
    return jnp.maximum(block + params["block_bias"], 0.0) + features
