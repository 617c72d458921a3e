"""Where a jax call takes the dtype its result has: the argument's position and keyword
(`jnp.zeros(s, jnp.int8)`, `lax.convert_element_type(x, new_dtype=jnp.int8)`, `x.astype(dtype=...)`).

One table for every reader (JAX004's narrow values and the link's operand casts, JAX005's 64-bit
dtypes, `visible_dtypes.value_dtype`): a dtype written by keyword or by position is read alike by each.
"""

from __future__ import annotations

import ast
from typing import Collection, Optional

from codemods.analysis.names import find_arg, value_of

# Qualified name -> (position, keyword) of the dtype argument, as jax's signatures place it.
DTYPE_ARGUMENTS: dict[str, tuple[int, str]] = {
    **{f"jax.numpy.{name}": (1, "dtype") for name in (
        "zeros", "ones", "empty", "asarray", "array", "astype", "zeros_like", "ones_like", "empty_like", "identity")},
    **{f"jax.numpy.{name}": (2, "dtype") for name in ("full", "full_like", "sum", "prod", "mean", "cumsum", "cumprod")},
    **{f"jax.numpy.{name}": (3, "dtype") for name in ("arange", "eye")},
    "jax.lax.convert_element_type": (1, "new_dtype"), "jax.lax.iota": (0, "dtype"),
    "jax.lax.broadcasted_iota": (0, "dtype"), "jax.lax.full": (2, "dtype"),
}
ASTYPE = (0, "dtype")  # an array's `.astype(d)` method


def dtype_place(func_names: Collection[str], method: Optional[str]) -> Optional[tuple[int, str]]:
    """Where a call takes its dtype: the table's place for a function it names, else an `.astype`
    method's (`method`: the attribute the call's callee ends with, if it is one)."""
    return next((DTYPE_ARGUMENTS[name] for name in sorted(func_names) if name in DTYPE_ARGUMENTS),
                ASTYPE if method == "astype" else None)


def dtype_argument(call: ast.Call, func_names: Collection[str]) -> Optional[ast.expr]:
    """The dtype `call` passes (`func_names`: the qualified names of its callee), None where it passes
    none or is no call the table knows."""
    place = dtype_place(func_names, call.func.attr if isinstance(call.func, ast.Attribute) else None)
    argument = find_arg(call, place[0], (place[1],)) if place is not None else None
    return value_of(argument) if argument is not None else None
