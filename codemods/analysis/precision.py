"""Reading and writing `lax.Precision` values as source, keeping the user's spelling.

Spellings: `Precision.X` through any alias, strings ('default', 'bfloat16', 'tensorfloat32', ...),
`Precision('highest')`, and pairs of those as tuples or lists.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

import libcst as cst

from codemods.analysis.names import QualifiedNames, canonical_names
from codemods.capabilities import DTYPE_STYLE_NAMES, PRECISION_NAMES, Level

PRECISION_CLASS = "jax.lax.Precision"

_SPELL_ENUM_STYLE = {Level.DEFAULT: "default", Level.HIGH: "high", Level.HIGHEST: "highest"}
_SPELL_DTYPE_STYLE = {Level.DEFAULT: "bfloat16", Level.HIGH: "tensorfloat32", Level.HIGHEST: "float32"}


@dataclass(frozen=True)
class PrecisionLiteral:
    """A precision written out in the source: one level, or a per-operand pair."""

    levels: tuple[Level, ...]
    elements: tuple[cst.BaseExpression, ...]  # the source of each level, to copy its spelling

    @property
    def is_pair(self) -> bool:
        return len(self.levels) == 2

    @property
    def most_accurate(self) -> Level:
        return max(self.levels)

    def describe(self) -> str:
        names = ", ".join(level.name for level in self.levels)
        return f"({names})" if self.is_pair else names


class NoneLiteral:
    """`precision=None`: the lowering's default."""


NONE = NoneLiteral()
Parsed = Union[PrecisionLiteral, NoneLiteral, None]  # None: not a literal we can read


def parse_precision(expression: cst.BaseExpression, names: QualifiedNames) -> Parsed:
    if isinstance(expression, cst.Name) and expression.value == "None":
        return NONE
    if isinstance(expression, (cst.Tuple, cst.List)):
        elements = [e.value for e in expression.elements]
        if len(elements) != 2 or any(isinstance(e, (cst.StarredElement,)) for e in expression.elements):
            return None
        levels = [_scalar_level(e, names) for e in elements]
        if None in levels:
            return None
        return PrecisionLiteral(tuple(levels), tuple(elements))
    level = _scalar_level(expression, names)
    return None if level is None else PrecisionLiteral((level,), (expression,))


def _string_value(expression: cst.BaseExpression) -> Optional[str]:
    if isinstance(expression, cst.SimpleString) and "b" not in expression.prefix.lower():
        value = expression.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _scalar_level(expression: cst.BaseExpression, names: QualifiedNames) -> Optional[Level]:
    text = _string_value(expression)
    if text is not None:
        return PRECISION_NAMES.get(text.lower())
    if isinstance(expression, cst.Attribute):
        for name in canonical_names(names, expression):
            owner, _, member = name.rpartition(".")
            if owner == PRECISION_CLASS and member in Level.__members__:
                return Level[member]
        return None
    if isinstance(expression, cst.Call) and len(expression.args) == 1 and not expression.args[0].keyword:
        if PRECISION_CLASS in canonical_names(names, expression.func):
            return _scalar_level(expression.args[0].value, names)
    return None


def spell(level: Level, like: cst.BaseExpression) -> cst.BaseExpression:
    """`level` written the way `like` (an element of a parsed literal) was written."""
    text = _string_value(like)
    if text is not None:
        vocabulary = _SPELL_DTYPE_STYLE if text.lower() in DTYPE_STYLE_NAMES else _SPELL_ENUM_STYLE
        assert isinstance(like, cst.SimpleString)
        quote = like.quote
        return like.with_changes(value=f"{like.prefix}{quote}{vocabulary[level]}{quote}")
    if isinstance(like, cst.Attribute):
        return like.with_changes(attr=cst.Name(level.name))
    if isinstance(like, cst.Call):
        return like.with_changes(args=[like.args[0].with_changes(value=spell(level, like.args[0].value))])
    raise ValueError(f"not a precision spelling: {like!r}")


def spell_like(literal: PrecisionLiteral, level: Level) -> cst.BaseExpression:
    """Prefer copying an element that already names `level`; otherwise the first element's style."""
    for element, element_level in zip(literal.elements, literal.levels):
        if element_level == level:
            return element
    return spell(level, literal.elements[0])
