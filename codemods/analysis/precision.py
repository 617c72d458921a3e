"""Reading and writing `lax.Precision` values as source, keeping the user's spelling.

Spellings: `Precision.X` through any alias, strings ('default', 'bfloat16', 'tensorfloat32', ...),
`Precision('highest')`, `Precision["HIGHEST"]` (the enum looked up by member name), and pairs of
those as tuples or lists. Values are read from the stdlib `ast`; new values are written as text
copied from the user's own elements.
"""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass
from typing import Optional, Union

from codemods.analysis.module import ModuleIndex
from codemods.capabilities import DTYPE_STYLE_NAMES, PRECISION_NAMES, Level

PRECISION_CLASS = "jax.lax.Precision"

_SPELL_ENUM_STYLE = {Level.DEFAULT: "default", Level.HIGH: "high", Level.HIGHEST: "highest"}
_SPELL_DTYPE_STYLE = {Level.DEFAULT: "bfloat16", Level.HIGH: "tensorfloat32", Level.HIGHEST: "float32"}
_STRING_PREFIX = "rRuUbBfF"


@dataclass(frozen=True)
class PrecisionLiteral:
    """A precision written out in the source: one level, or a per-operand pair."""

    levels: tuple[Level, ...]
    elements: tuple[ast.expr, ...]  # the source of each level, to copy its spelling

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


def parse_precision(expression: ast.expr, module: ModuleIndex) -> Parsed:
    if isinstance(expression, ast.Constant) and expression.value is None:
        return NONE
    if isinstance(expression, (ast.Tuple, ast.List)):
        elements = expression.elts
        if len(elements) != 2 or any(isinstance(e, ast.Starred) for e in elements):
            return None
        levels = [scalar_level(e, module, follow_names=True) for e in elements]
        if None in levels:
            return None
        return PrecisionLiteral(tuple(levels), tuple(elements))  # type: ignore[arg-type]
    level = scalar_level(expression, module)
    return None if level is None else PrecisionLiteral((level,), (expression,))


def string_value(expression: ast.expr, module: ModuleIndex) -> Optional[str]:
    """The text of a single plain string literal (not bytes, not an f-string, not `"a" "b"`)."""
    if not (isinstance(expression, ast.Constant) and isinstance(expression.value, str)):
        return None
    tokens = [
        token for token in tokenize.generate_tokens(io.StringIO(module.segment(expression)).readline)
        if token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT)
    ]
    return expression.value if len(tokens) == 1 and tokens[0].type == tokenize.STRING else None


def scalar_level(expression: ast.expr, module: ModuleIndex, follow_names: bool = False) -> Optional[Level]:
    """The level `expression` names. With `follow_names`, a name bound once to a level counts
    (`HI = Precision.HIGHEST`, then `(LO, HI)`); a name alone is left to the caller, which rewrites
    the value where it is written."""
    if follow_names and isinstance(expression, ast.Name):
        value = only_value(expression, module)
        return None if value is None else scalar_level(value, module)
    text = string_value(expression, module)
    if text is not None:
        return PRECISION_NAMES.get(text.lower())
    if isinstance(expression, ast.Attribute):
        for name in module.qualified_names(expression):
            owner, _, member = name.rpartition(".")
            if owner == PRECISION_CLASS and member in Level.__members__:
                return Level[member]
        return None
    if isinstance(expression, ast.Subscript) and PRECISION_CLASS in module.qualified_names(expression.value):
        member = string_value(expression.slice, module)  # by member name only: `Precision["high"]` is a KeyError
        return Level[member] if member in Level.__members__ else None
    if isinstance(expression, ast.Call) and len(expression.args) == 1 and not expression.keywords:
        argument = expression.args[0]
        if not isinstance(argument, ast.Starred) and PRECISION_CLASS in module.qualified_names(expression.func):
            return scalar_level(argument, module)
    return None


def spell(level: Level, like: ast.expr, module: ModuleIndex) -> str:
    """`level` written the way `like` (an element of a parsed literal) was written."""
    code = module.segment(like)
    text = string_value(like, module)
    if text is not None:
        vocabulary = _SPELL_DTYPE_STYLE if text.lower() in DTYPE_STYLE_NAMES else _SPELL_ENUM_STYLE
        return _quoted_like(code, vocabulary[level])
    if isinstance(like, ast.Attribute):
        return code[: len(code) - len(like.attr)] + level.name
    if isinstance(like, ast.Subscript):  # `P["HIGH"]`: the member's name, in the key's own quotes
        start, _ = module.span(like)
        key_start, key_end = module.span(like.slice)
        key = _quoted_like(code[key_start - start:key_end - start], level.name)
        return code[:key_start - start] + key + code[key_end - start:]
    value = only_value(like, module) if isinstance(like, ast.Name) else None
    if value is not None:  # `HI` bound to `P.HIGHEST`: written as `P.HIGH`
        return spell(level, value, module)
    if isinstance(like, ast.Call):
        start, _ = module.span(like)
        inner_start, inner_end = module.span(like.args[0])
        return code[: inner_start - start] + spell(level, like.args[0], module) + code[inner_end - start:]
    raise ValueError(f"not a precision spelling: {code!r}")


def _quoted_like(literal: str, text: str) -> str:
    """`text` as a string literal with the prefix and quotes of the string literal `literal`."""
    prefix = literal[: len(literal) - len(literal.lstrip(_STRING_PREFIX))]
    body = literal[len(prefix):]
    quote = body[:3] if body[:3] in ('"""', "'''") else body[0]
    return f"{prefix}{quote}{text}{quote}"


def quoted(text: str, module: ModuleIndex) -> str:
    """`text` (a plain word) as a new string literal in the module's own quotes, so a fix reads as
    its author would have written it: the quote most of the module's plain one-line strings use (the
    majority, not the first: one pasted-in line does not set a file's style), the first one's on a
    tie, double quotes where none says (black's choice). Not counted, as they show no choice: triple
    quotes (docstrings take them whatever the style), a string holding a quote or a backslash (its
    quotes may be forced), f-strings (Python 3.12 tokenizes them apart: left out on every version)."""
    counts = {'"': 0, "'": 0}
    first = None
    for token in tokenize.generate_tokens(io.StringIO(module.text).readline):
        if token.type != tokenize.STRING:
            continue
        prefix = token.string[: len(token.string) - len(token.string.lstrip(_STRING_PREFIX))]
        body = token.string[len(prefix):]
        if "f" in prefix.lower() or body[:3] in ('"""', "'''") or any(c in body[1:-1] for c in "\"'\\"):
            continue
        counts[body[0]] += 1
        first = first or body[0]
    quote = max(counts, key=lambda q: (counts[q], q == first)) if first else '"'
    return f"{quote}{text}{quote}"


def spell_like(literal: PrecisionLiteral, level: Level, module: ModuleIndex) -> str:
    """Prefer copying an element that already names `level`; otherwise the first element's style."""
    for element, element_level in zip(literal.elements, literal.levels):
        if element_level == level:
            return module.segment(element)
    return spell(level, literal.elements[0], module)


def only_value(name: ast.Name, module: ModuleIndex) -> Optional[ast.expr]:
    """What a name is bound to when it is bound once, by `name = value`."""
    bindings = module.bindings(name)
    return bindings[0].value if len(bindings) == 1 else None
