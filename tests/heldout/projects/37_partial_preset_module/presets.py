import functools

from jax import lax

import kernels

mixed_body = functools.partial(kernels.body, precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))  # value
exact_body = functools.partial(kernels.body, precision=lax.Precision.HIGHEST)
