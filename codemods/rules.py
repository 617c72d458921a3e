"""The transforms as the engine sees them before parsing: codes, names and the byte prefilter.

This module stays free of libcst and of the analysis: importing it costs nothing, and a run in
which no file passes the byte test never loads more. Each rule names its transform class
("module:Class"), imported on first use, in the process that analyses the file.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from codemods.capabilities import Level, Version, lowered_precisions
from codemods.settings import Scope, Settings

if TYPE_CHECKING:
    from codemods.base import JaxTransform

# Every kernel launcher lives under jax.experimental.pallas: a file without this word has no kernel.
KERNEL_MARKER = b"pallas"


@dataclass(frozen=True)
class Rule:
    code: str  # e.g. "JAX001"
    name: str  # e.g. "per-operand-precision"
    description: str
    # A file in which none of these byte strings occurs, and no pattern matches, has nothing this
    # rule rewrites or reports.
    words: tuple[bytes, ...]
    kernel_scoped: bool  # only rewrites inside Pallas kernel bodies (under --scope kernels)
    transform: str  # "module:Class" of the transform
    # (a byte string any match contains, the pattern): the substring test is ten times faster.
    patterns: tuple[tuple[bytes, "re.Pattern[bytes]"], ...] = ()

    def might_apply(self, raw: bytes, settings: Settings) -> bool:
        """The prefilter, on bytes: most files are ruled out here, before they are parsed."""
        if self.kernel_scoped and settings.scope is Scope.KERNELS and KERNEL_MARKER not in raw:
            return False
        return any(word in raw for word in self.words) or any(
            needle in raw and pattern.search(raw) for needle, pattern in self.patterns)

    def load(self) -> type["JaxTransform"]:
        module, _, name = self.transform.partition(":")
        return getattr(importlib.import_module(module), name)


# -- JAX001: contractions and convolutions, and where their precision may sit --

@dataclass(frozen=True)
class Op:
    kind: str  # the capability-table op: "dot" or "conv"
    precision_position: Optional[int]  # where precision may sit positionally; None: keyword-only


_LAX = {
    "dot_general": Op("dot", 3),
    "dot": Op("dot", None),
    "batch_matmul": Op("dot", 2),
    "conv_general_dilated": Op("conv", 9),
    "conv": Op("conv", 4),
    "conv_with_general_padding": Op("conv", 6),
}
_NUMPY = {name: Op("dot", None) for name in ("dot", "matmul", "einsum", "inner", "tensordot", "vdot")}
_PALLAS = {"dot": Op("dot", 5)}
OPS: dict[str, Op] = {
    **{f"jax.lax.{name}": op for name, op in _LAX.items()},
    **{f"jax.numpy.{name}": op for name, op in _NUMPY.items()},
    **{f"jax.experimental.pallas.{name}": op for name, op in _PALLAS.items()},
    **{f"jax.experimental.pallas.triton.{name}": op for name, op in _PALLAS.items()},
}


def accepted_precisions(kind: str, version: Optional[Version]) -> frozenset[Level]:
    """Single scalars the target's Mosaic TPU lowering takes for `kind` (conservative if it cannot lower it)."""
    accepted = lowered_precisions("mosaic_tpu", kind, version) or lowered_precisions("mosaic_tpu", kind, None)
    assert accepted is not None
    return accepted


# `**kwargs` (and, where precision may be positional, `*args`) may carry a precision or an accuracy
# hint without the word appearing: such calls in a kernel get a [manual] note, so a file that
# unpacks arguments into a call (`f(x, *rest)`, `g(**options)`) is never ruled out by the words alone.
_UNPACKED_ARGUMENT = rb"[(,](?:\s|#[^\n]*\n)*\*"
# A precision may also sit positionally (`lax.dot_general(x, y, dims, "high")`) without the word:
# files that name an op taking it there are analysed too.
PER_OPERAND_PRECISION = Rule(
    "JAX001", "per-operand-precision",
    "Collapse per-operand or unsupported precisions in Pallas TPU kernels to one scalar the lowering accepts.",
    (b"recision", b"dot_general", b"conv", b"batch_matmul", b"dot"), True,
    "codemods.per_operand_precision:PerOperandPrecision",
    ((b"*", re.compile(_UNPACKED_ARGUMENT + rb"{1,2}\s*[A-Za-z_(]")),),
)
ACCURACY_HINTS = Rule(
    "JAX002", "accuracy-hints",
    "Drop accuracy= hints Pallas Mosaic kernels reject; route rsqrt through a float32-accurate helper.",
    (b"accuracy",), True, "codemods.accuracy_hints:AccuracyHints",
    ((b"**", re.compile(_UNPACKED_ARGUMENT + rb"\*\s*[A-Za-z_(]")),),
)
BF16_LSTM = Rule(
    "JAX003", "bf16-lstm",
    "Run cuDNN LSTM calls at bf16 (DEFAULT) precision in float32 with Precision.HIGHEST, keeping the callers' dtypes.",
    (b"lstm",), False, "codemods.bf16_lstm:Bf16Lstm",
)
RULES: tuple[Rule, ...] = (PER_OPERAND_PRECISION, ACCURACY_HINTS, BF16_LSTM)
