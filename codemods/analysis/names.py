"""Alias-aware names: what `L.rsqrt`, `jnp.dot` or `P.HIGH` refer to, whatever the imports say."""

from __future__ import annotations

import re
from typing import Callable, Collection, Iterable, Optional

import libcst as cst
from libcst.metadata import QualifiedName, ScopeProvider

QualifiedNames = Callable[[cst.CSTNode], Collection[QualifiedName]]

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
    ("jax.experimental.pallas.", "pl."),
    ("jax.experimental.rnn.", "rnn."),
)


def display(name: str) -> str:
    """`jax.numpy.dot` -> `jnp.dot`: the short form messages use."""
    for prefix, short in _DISPLAY_PREFIXES:
        if name.startswith(prefix):
            return short + name[len(prefix):]
    return name


def qualified_names(metadata, node: cst.CSTNode) -> set[QualifiedName]:
    """What QualifiedNameProvider would say for `node`, asked of its scope on demand.

    `metadata` is a metadata-dependent's `.metadata` mapping (it must depend on ScopeProvider)."""
    scope = metadata[ScopeProvider].get(node)
    return set(scope.get_qualified_names_for(node)) if scope is not None else set()


def canonical(name: str) -> str:
    for prefix, public in _ALIASED_PREFIXES:
        if name.startswith(prefix):
            return public + name[len(prefix):]
    return name


def canonical_names(qualified_names: QualifiedNames, node: cst.CSTNode) -> set[str]:
    return {canonical(q.name) for q in qualified_names(node)}


def matching_name(
    qualified_names: QualifiedNames, node: cst.CSTNode, wanted: Collection[str]
) -> Optional[str]:
    """The canonical name `node` refers to, if it is one of `wanted`."""
    for name in canonical_names(qualified_names, node):
        if name in wanted:
            return name
    return None


def callee(qualified_names: QualifiedNames, call: cst.Call, wanted: Collection[str]) -> Optional[str]:
    return matching_name(qualified_names, call.func, wanted)


def qualify(module: str, names: Iterable[str]) -> frozenset[str]:
    return frozenset(f"{module}.{name}" for name in names)


def find_arg(call: cst.Call, position: Optional[int], keywords: Collection[str]) -> Optional[cst.Arg]:
    """The argument at `position` or passed under one of `keywords`.

    None when absent, or when a `*args` before it hides which value lands there (a keyword
    after a `*args` is still found)."""
    positional: Optional[int] = 0  # None once a `*args` hides where positional values land
    for arg in call.args:
        if arg.keyword is not None:
            if arg.keyword.value in keywords:
                return arg
        elif arg.star:
            positional = None
        elif positional is not None:
            if positional == position:
                return arg
            positional += 1
    return None


def source_of(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def one_line(node: cst.CSTNode) -> str:
    """A value's source on one line for a finding, without the padding of its line breaks."""
    code = re.sub(r"\s*\n\s*", " ", source_of(node))
    return re.sub(r",?\s+([)\]}])", r"\1", re.sub(r"([(\[{])\s+", r"\1", code))
