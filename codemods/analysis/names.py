"""Names as the rules compare them, and reading a call's arguments (stdlib `ast`, no libcst)."""

from __future__ import annotations

import ast
import re
from typing import Collection, Iterable, Optional, Union

# Modules that re-export the same objects under another path; matching folds them onto one name.
_ALIASED_PREFIXES = (
    ("jax._src.lax.lax.", "jax.lax."),
    ("jax._src.lax.convolution.", "jax.lax."),
    ("jax._src.numpy.lax_numpy.", "jax.numpy."),
    ("jax._src.numpy.tensor_contractions.", "jax.numpy."),
    ("jax._src.pallas.primitives.", "jax.experimental.pallas."),
    ("jax._src.pallas.pallas_call.", "jax.experimental.pallas."),
    ("jax._src.pallas.helpers.", "jax.experimental.pallas."),
    ("jax._src.pallas.core.", "jax.experimental.pallas."),
    ("jax._src.pallas.mosaic_gpu.core.", "jax.experimental.pallas.mosaic_gpu."),
    ("jax._src.pallas.mosaic_gpu.pipeline.", "jax.experimental.pallas.mosaic_gpu."),
    ("jax._src.pallas.mosaic.pipeline.", "jax.experimental.pallas.tpu."),
)

# How people usually spell these modules, for messages.
_DISPLAY_PREFIXES = (
    ("jax.numpy.", "jnp."),
    ("jax.lax.", "lax."),
    ("jax.experimental.pallas.mosaic_gpu.", "plgpu."),
    ("jax.experimental.pallas.tpu.", "pltpu."),
    ("jax.experimental.pallas.triton.", "plt."),
    ("jax.experimental.pallas.", "pl."),
    ("jax.experimental.rnn.", "rnn."),
)

PARTIAL = frozenset({"functools.partial"})

Argument = Union[ast.expr, ast.keyword]  # an entry of a call's argument list


def display(name: str) -> str:
    """`jax.numpy.dot` -> `jnp.dot`: the short form messages use."""
    for prefix, short in _DISPLAY_PREFIXES:
        if name.startswith(prefix):
            return short + name[len(prefix):]
    return name


def canonical(name: str) -> str:
    for prefix, public in _ALIASED_PREFIXES:
        if name.startswith(prefix):
            return public + name[len(prefix):]
    return name


def qualify(module: str, names: Iterable[str]) -> frozenset[str]:
    return frozenset(f"{module}.{name}" for name in names)


def find_arg(call: ast.Call, position: Optional[int], keywords: Collection[str]) -> Optional[Argument]:
    """The argument at `position` or passed under one of `keywords` (an ast.keyword then).

    None when absent, or when a `*args` before it hides which value lands there (a keyword
    after a `*args` is still found)."""
    for keyword in call.keywords:
        if keyword.arg is not None and keyword.arg in keywords:
            return keyword
    if position is None:
        return None
    for index, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            return None
        if index == position:
            return arg
    return None


def value_of(argument: Argument) -> ast.expr:
    return argument.value if isinstance(argument, ast.keyword) else argument


def has_double_star(call: ast.Call) -> bool:
    return any(keyword.arg is None for keyword in call.keywords)


def has_star(call: ast.Call) -> bool:
    return has_double_star(call) or any(isinstance(arg, ast.Starred) for arg in call.args)


def root_name(node: ast.AST) -> Optional[ast.Name]:
    """The name an attribute chain starts from (`a` of `a.b.c`); None where it starts elsewhere."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node if isinstance(node, ast.Name) else None


def is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def atom(node: ast.expr, code: str) -> str:
    """`code`, the source of `node`, as an operand (of an attribute, an operator): parenthesised unless
    it is a name, attribute, subscript or call."""
    return code if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)) else f"({code})"


def one_line(code: str) -> str:
    """A value's source on one line for a finding, without the padding of its line breaks."""
    code = re.sub(r"\s*\n\s*", " ", code)
    return re.sub(r",?\s+([)\]}])", r"\1", re.sub(r"([(\[{])\s+", r"\1", code))
