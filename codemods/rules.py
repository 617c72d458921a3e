"""The transforms as the engine sees them before parsing: codes, names and the cheap tests.

This module stays free of libcst: importing libcst is about half the tool's start-up, and a run in
which no file passes the prefilters (most runs over large trees) never needs it. Each rule names
the libcst command that does the work; it is imported on first use, in the process that parses.
"""

from __future__ import annotations

import ast
import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Optional

from codemods.capabilities import PRECISION_NAMES, Level, Version, accuracy_rejected_anywhere, lowered_precisions
from codemods.engine.prefilter import SyntaxSummary, called_name, has_keyword, may_pass
from codemods.settings import Scope, Settings

if TYPE_CHECKING:
    from codemods.base import JaxCodemod

# Every kernel launcher lives under jax.experimental.pallas: a file without this word has no kernel.
KERNEL_MARKER = b"pallas"

Candidate = Callable[[str, ast.Call, SyntaxSummary, Settings], bool]


@dataclass(frozen=True)
class Rule:
    code: str  # e.g. "JAX001"
    name: str  # e.g. "per-operand-precision"
    description: str
    words: tuple[bytes, ...]  # byte strings that must all occur in a file for the rule to apply
    kernel_scoped: bool  # only rewrites inside Pallas kernel bodies (under --scope kernels)
    # On the stdlib ast: may a call to a function named `name` (last component, aliases resolved)
    # be something this rule rewrites or reports?
    candidate: Candidate
    command: str  # "module:Class" of the libcst command

    def might_apply(self, raw: bytes, settings: Settings) -> bool:
        """The first prefilter, on bytes: most files are ruled out here."""
        words = self.words
        if self.kernel_scoped and settings.scope is Scope.KERNELS:
            words = (*words, KERNEL_MARKER)
        return all(word in raw for word in words)

    def worth_parsing(self, summary: SyntaxSummary, settings: Settings) -> bool:
        """The second prefilter, on the stdlib `ast`: a call that may be a target exists (in a kernel)."""
        kernels_only = self.kernel_scoped and settings.scope is Scope.KERNELS
        if kernels_only and not summary.mentions_launcher:
            return False
        return any(
            self.candidate(name, call, summary, settings) and (not kernels_only or summary.may_run_in_kernel(call))
            for name, call in summary.calls
        )

    def load(self) -> type["JaxCodemod"]:
        module, _, name = self.command.partition(":")
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



def _precision_candidate(name: str, call: ast.Call, summary: SyntaxSummary, settings: Settings) -> bool:
    """A contraction or convolution whose precision may be passed, unless it already lowers as written."""
    may_carry = any(
        qualified.rsplit(".", 1)[-1] == name and may_pass(call, "precision", op.precision_position)
        for qualified, op in OPS.items()
    )
    return may_carry and not _lowers_as_written(name, call, settings.jax_version)


def accepted_precisions(kind: str, version: Optional[Version]) -> frozenset[Level]:
    """Single scalars the target's Mosaic TPU lowering takes for `kind` (conservative if it cannot lower it)."""
    accepted = lowered_precisions("mosaic_tpu", kind, version) or lowered_precisions("mosaic_tpu", kind, None)
    assert accepted is not None
    return accepted


def _lowers_as_written(name: str, call: ast.Call, version: Optional[Version]) -> bool:
    """On the stdlib `ast`: whether `plan` would leave this call alone wherever it sits, for every op
    called `name`. Only spellings that need no name resolution count: `None` and plain string
    literals (or pairs of them); anything else may need a rewrite or a finding, so libcst decides."""
    for qualified, op in OPS.items():
        if qualified.rsplit(".", 1)[-1] != name:
            continue
        value = _ast_precision_arg(call, op.precision_position)
        if value is None:
            if any(keyword.arg is None for keyword in call.keywords):  # **kwargs: reported for review
                return False
            continue
        if isinstance(value, ast.Constant) and value.value is None:
            continue
        elements = value.elts if isinstance(value, (ast.Tuple, ast.List)) else [value]
        if len(elements) not in (1, 2) or (len(elements) == 1 and elements[0] is not value):
            return False
        levels = {_ast_string_level(element) for element in elements}
        if len(levels) != 1 or None in levels or not levels <= accepted_precisions(op.kind, version):
            return False
    return True


def _ast_precision_arg(call: ast.Call, position: Optional[int]) -> Optional[ast.expr]:
    """What `find_arg(call, position, ("precision",))` finds, on the stdlib `ast`."""
    for keyword in call.keywords:
        if keyword.arg == "precision":
            return keyword.value
    if position is None:
        return None
    for index, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            return None
        if index == position:
            return arg
    return None


def _ast_string_level(node: ast.expr) -> Optional[Level]:
    """The level a plain one-line string literal names; None for anything else (implicit
    concatenation, prefixes and escapes are left to libcst: the span must be the quotes and text)."""
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str) and node.lineno == node.end_lineno):
        return None
    if node.end_col_offset - node.col_offset != len(node.value.encode()) + 2:
        return None
    return PRECISION_NAMES.get(node.value.lower())


# -- JAX002 and JAX003 --


def _accuracy_candidate(name: str, call: ast.Call, summary: SyntaxSummary, settings: Settings) -> bool:
    hinted = name in accuracy_rejected_anywhere(None) or name == "partial"
    return hinted and has_keyword(call, "accuracy")


def _lstm_candidate(name: str, call: ast.Call, summary: SyntaxSummary, settings: Settings) -> bool:
    """Any lstm call (one without precision may still run under a bf16 default), or a
    `functools.partial(rnn.lstm, ...)` that configures one (imported aliases resolved)."""
    if name == "partial" and call.args:
        return summary.resolve(called_name(call.args[0])) == "lstm"
    return name == "lstm"


PER_OPERAND_PRECISION = Rule(
    "JAX001", "per-operand-precision",
    "Collapse per-operand or unsupported precisions in Pallas TPU kernels to one scalar the lowering accepts.",
    (b"recision",), True, _precision_candidate, "codemods.per_operand_precision:PerOperandPrecision",
)
ACCURACY_HINTS = Rule(
    "JAX002", "accuracy-hints",
    "Drop accuracy= hints Pallas Mosaic kernels reject; route rsqrt through a float32-accurate helper.",
    (b"accuracy",), True, _accuracy_candidate, "codemods.accuracy_hints:AccuracyHints",
)
BF16_LSTM = Rule(
    "JAX003", "bf16-lstm",
    "Run cuDNN LSTM calls at bf16 (DEFAULT) precision in float32 with Precision.HIGHEST, keeping the callers' dtypes.",
    (b"lstm",), False, _lstm_candidate, "codemods.bf16_lstm:Bf16Lstm",
)
RULES: tuple[Rule, ...] = (PER_OPERAND_PRECISION, ACCURACY_HINTS, BF16_LSTM)
