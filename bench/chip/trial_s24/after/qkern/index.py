"""Kernels that pick rows at the grid step."""
from jax.experimental import pallas as pl

from qkern import tables


def rows_kernel(x_ref, o_ref):
    v = x_ref[...]
    i = pl.program_id(0)
    o_ref[...] = x_ref[pl.ds(i * 8, 8)]


def rows_helper_kernel(x_ref, o_ref):
    o_ref[...] = tables.take_rows(x_ref[...], pl.program_id(0))
