"""JAX003: cuDNN LSTM calls at bf16 precision, run in float32 with Precision.HIGHEST instead.

What it does
    Routes each `jax.experimental.rnn.lstm` call whose precision is DEFAULT (`Precision.DEFAULT`,
    'default', 'bfloat16', 'fastest', a pair led by DEFAULT, `Precision('bfloat16')`) through a
    small module helper, `lstm_float32`, and sets the precision to HIGHEST in the module's own
    spelling. The helper casts x, h_0, c_0 and weights to float32, calls the LSTM it is given and
    casts y, h_n and c_n back to the dtypes of x, h_0 and c_0, so a bf16 model or scan carry keeps
    its types. seq_lengths is passed through untouched (it must stay int32). An LSTM configured once
    with `functools.partial(rnn.lstm, ..., precision=...)` is rewritten the same way, to
    `functools.partial(lstm_float32, rnn.lstm, ..., precision=HIGHEST)`. A call without a
    precision is rewritten only when the module sets a bf16 default matmul precision
    (`jax.config.update("jax_default_matmul_precision", "bfloat16")` or
    `with jax.default_matmul_precision("bfloat16")`); otherwise it gets a warning.
Why
    cuDNN's LSTM has no bf16 path: jax reads DEFAULT as bf16 and raises "bfloat16 support not
    implemented for LSTM" while tracing, on every backend. float32 storage with HIGHEST is the
    path cuDNN supports; HIGH (TF32) and HIGHEST calls are left alone.
Example
    y, h, c = rnn.lstm(x, h0, c0, w, lengths, 8, 16, 1, 0.0, False, precision=P.DEFAULT)
    ->  y, h, c = lstm_float32(rnn.lstm, x, h0, c0, w, lengths, 8, 16, 1, 0.0, False, precision=P.HIGHEST)
    functools.partial(rnn.lstm, input_size=8, hidden_size=16, ..., precision=P.DEFAULT)
    ->  functools.partial(lstm_float32, rnn.lstm, input_size=8, hidden_size=16, ..., precision=P.HIGHEST)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

import libcst as cst
import libcst.matchers as m
from libcst.metadata import ParentNodeProvider, ScopeProvider

from codemods.analysis.kernel_scope import PARTIAL
from codemods.analysis.module_helpers import reference_helper, use_helper
from codemods.analysis.names import (
    QualifiedNames, callee, canonical_names, display, find_arg, matching_name, one_line, source_of,
)
from codemods.analysis.precision import NONE, PrecisionLiteral, parse_precision, spell, spell_like
from codemods.base import JaxCodemod
from codemods.capabilities import Level, lowered_precisions
from codemods.engine.report import Kind
from codemods.rules import BF16_LSTM

LSTM = "jax.experimental.rnn.lstm"
PRECISION_POSITION = 10  # lstm(x, h_0, c_0, weights, seq_lengths, input_size, ..., bidirectional, precision)
CONFIG_UPDATE = "jax.config.update"
DEFAULT_PRECISION_OPTION = "jax_default_matmul_precision"
DEFAULT_PRECISION_CONTEXT = "jax.default_matmul_precision"
# Values jax hands to cuDNN as an algorithm, not a precision level: they pass the bf16 check.
_ALGORITHMS = ("jax.lax.DotAlgorithmPreset.", "jax.lax.DotAlgorithm")
CUDNN_ERROR = '"bfloat16 support not implemented for LSTM"'
_FIX_HINT = "cast x, h_0, c_0 and weights to float32 and pass precision=HIGHEST"

LSTM_NAME = display(LSTM)
HELPER = "lstm_float32"  # in codemods/helpers_source.py


@dataclass(frozen=True)
class _DefaultPrecision:
    """Where the module sets the default matmul precision, and to what."""

    node: cst.Call  # the config.update(...) or default_matmul_precision(...) call
    literal: PrecisionLiteral


class Bf16Lstm(JaxCodemod):
    RULE = BF16_LSTM

    def plan(self, module: cst.Module) -> None:
        self._module = module
        self._configs: list[_DefaultPrecision] = []
        self._contexts: dict[cst.With, _DefaultPrecision] = {}
        self._collect_default_precisions()
        for call in self.calls():
            if callee(self.names, call, (LSTM,)) is not None:
                self._plan_call(call, bound=False)
            elif _binds_lstm(self.names, call):
                self._plan_call(call, bound=True)

    def _plan_call(self, call: cst.Call, bound: bool) -> None:
        """`rnn.lstm(...)`, or with `bound` `functools.partial(rnn.lstm, ...)` (its arguments follow the callee)."""
        arg = find_arg(call, PRECISION_POSITION + bound, ("precision",))
        if arg is None and any(a.star for a in call.args):
            self.report(call, Kind.MANUAL, f"{LSTM_NAME}: *args or **kwargs may carry precision DEFAULT, "
                        f"which cuDNN rejects ({CUDNN_ERROR}); if so, {_FIX_HINT}")
            return
        value = arg.value if arg is not None else None
        parsed = NONE if value is None else parse_precision(value, self.names)
        if parsed is NONE:
            self._plan_default(call, arg, bound)
        elif isinstance(parsed, PrecisionLiteral):
            if not self._cudnn_accepts(parsed):
                self._rewrite(call, arg, bound, spell_like(parsed, Level.HIGHEST), f"precision {parsed.describe()}")
        elif not any(name.startswith(_ALGORITHMS) for name in canonical_names(self.names, value)):
            self.report(value, Kind.MANUAL, f"{LSTM_NAME}: precision `{one_line(value)}` is not a literal; if it can "
                        f"be DEFAULT ('bfloat16'), cuDNN raises {CUDNN_ERROR}: {_FIX_HINT}")

    def _plan_default(self, call: cst.Call, arg: Optional[cst.Arg], bound: bool) -> None:
        """precision None or omitted: the default matmul precision decides."""
        default = self._default_precision_at(call)
        if default is None:
            self.report(call, Kind.WARNING, f"{LSTM_NAME}: precision None may fail under a bf16 default precision "
                        f"(jax_default_matmul_precision='bfloat16' raises {CUDNN_ERROR}); if so, {_FIX_HINT}")
        elif not self._cudnn_accepts(default.literal):
            line = self.position(default.node).line
            where = f"precision None under the bf16 default matmul precision set on line {line}"
            self._rewrite(call, arg, bound, self._spell_highest(call, default), where)

    def _cudnn_accepts(self, literal: PrecisionLiteral) -> bool:
        """cuDNN takes one precision per LSTM and reads the first of a pair."""
        accepted = lowered_precisions("cudnn", "lstm", self.settings.jax_version)
        return accepted is not None and literal.levels[0] in accepted

    # -- the rewrite --

    def _rewrite(
        self, call: cst.Call, arg: Optional[cst.Arg], bound: bool, highest: cst.BaseExpression, what: str
    ) -> None:
        helper = use_helper(self, self._module, reference_helper(HELPER))
        index = None if arg is None else call.args.index(arg)

        def route(node: cst.CSTNode) -> cst.CSTNode:
            assert isinstance(node, cst.Call)
            args = list(node.args)
            if index is None:
                args = _append(args, cst.Arg(highest, keyword=cst.Name("precision"), equal=_NO_SPACE_EQUAL))
            else:
                args[index] = args[index].with_changes(value=highest)
            return _route_through(node.with_changes(args=args), helper, bound)

        self.edit(call, route)
        self.report(call, Kind.FIXED, f"{LSTM_NAME}: {what} -> HIGHEST, through {helper} (float32 inputs, outputs "
                    f"in the inputs' dtypes): cuDNN has no bf16 LSTM ({CUDNN_ERROR})")

    # -- the default matmul precision --

    def _collect_default_precisions(self) -> None:
        for call in self.calls():
            name = callee(self.names, call, (CONFIG_UPDATE, DEFAULT_PRECISION_CONTEXT))
            values = [a.value for a in call.args if a.keyword is None]
            if name == CONFIG_UPDATE and len(values) == 2 and _string(values[0]) == DEFAULT_PRECISION_OPTION:
                value = values[1]
            elif name == DEFAULT_PRECISION_CONTEXT and len(values) == 1:
                value = values[0]
            else:
                continue
            literal = parse_precision(value, self.names)
            if not isinstance(literal, PrecisionLiteral):
                continue
            setting = _DefaultPrecision(call, literal)
            item = self.get_metadata(ParentNodeProvider, call)
            block = self.get_metadata(ParentNodeProvider, item) if isinstance(item, cst.WithItem) else None
            if name == CONFIG_UPDATE:
                self._configs.append(setting)
            elif isinstance(block, cst.With):
                self._contexts[block] = setting

    def _default_precision_at(self, call: cst.Call) -> Optional[_DefaultPrecision]:
        """The innermost `with default_matmul_precision(...)` around the call in its function; else
        the module's config (any bf16 setting wins: the call may run under it)."""
        node: Optional[cst.CSTNode] = call
        while node is not None and not isinstance(node, (cst.FunctionDef, cst.Lambda)):
            if node in self._contexts:
                return self._contexts[node]
            node = self.get_metadata(ParentNodeProvider, node, None)
        settings = [*self._configs, *self._contexts.values()]
        return next((s for s in settings if not self._cudnn_accepts(s.literal)), next(iter(self._configs), None))

    def _spell_highest(self, call: cst.Call, default: _DefaultPrecision) -> cst.BaseExpression:
        """HIGHEST as the module writes precisions: like a `Precision.X` it uses (when that name
        reaches the call), else in the vocabulary of its default-precision string."""
        at_call = self.get_metadata(ScopeProvider, call)
        at_module = self.get_metadata(ScopeProvider, self._module)
        for attribute in m.findall(self._module, m.Attribute(attr=m.Name())):
            literal = parse_precision(attribute, self.names)
            root = _root_name(attribute)
            if (isinstance(literal, PrecisionLiteral) and root is not None and at_call is not None
                    and root in at_module and set(at_call[root]) == set(at_module[root])):
                return spell(Level.HIGHEST, attribute)
        return spell(Level.HIGHEST, default.literal.elements[0])


# -- argument lists --

_NO_SPACE = cst.SimpleWhitespace("")
_NO_SPACE_EQUAL = cst.AssignEqual(whitespace_before=_NO_SPACE, whitespace_after=_NO_SPACE)
_COMMA_SPACE = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


def _append(args: Sequence[cst.Arg], new: cst.Arg) -> list[cst.Arg]:
    """`new` after the last argument, separated like the arguments before it. What followed the
    last argument (its comment, a trailing comma, the line break before the parenthesis) stays."""
    *rest, last = args
    separator = _bare(rest[-1].comma) if rest and isinstance(rest[-1].comma, cst.Comma) else _COMMA_SPACE
    trailing = last.comma if isinstance(last.comma, cst.Comma) else None
    after_last = trailing.whitespace_after if trailing else last.whitespace_after_arg
    between = separator.whitespace_after
    if isinstance(after_last, cst.ParenthesizedWhitespace) and isinstance(between, cst.ParenthesizedWhitespace):
        # keep the comment on the last argument's line; the new argument starts the next line
        separator = separator.with_changes(
            whitespace_after=after_last.with_changes(last_line=between.last_line, indent=between.indent)
        )
    if not trailing:  # what followed the last argument now follows the new one
        last = last.with_changes(whitespace_after_arg=_NO_SPACE)
    last = last.with_changes(comma=separator)
    closing = _bare_whitespace(after_last)
    if trailing:
        return [*rest, last, new.with_changes(comma=trailing.with_changes(whitespace_after=closing))]
    return [*rest, last, new.with_changes(whitespace_after_arg=closing)]


def _bare(comma: cst.Comma) -> cst.Comma:
    return comma.with_changes(whitespace_after=_bare_whitespace(comma.whitespace_after))


def _bare_whitespace(whitespace: cst.BaseParenthesizableWhitespace) -> cst.BaseParenthesizableWhitespace:
    """The same line break and indentation, without the comments."""
    if isinstance(whitespace, cst.ParenthesizedWhitespace):
        return whitespace.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=[])
    return whitespace


def _route_through(call: cst.Call, helper: str, bound: bool) -> cst.Call:
    """`f(a, ...)` -> `helper(f, a, ...)`; with `bound`, `partial(f, ...)` -> `partial(helper, f, ...)`.
    Arguments continued under the opening parenthesis move with it, so a visually aligned call
    stays aligned."""
    first = call.args[0]
    comma = _bare(first.comma) if isinstance(first.comma, cst.Comma) else _COMMA_SPACE
    if bound:  # the parenthesis stays where it is
        return call.with_changes(args=[cst.Arg(cst.Name(helper), comma=comma), *call.args])
    callee_arg = cst.Arg(call.func, comma=comma)
    args = [callee_arg, *call.args]
    if not isinstance(call.whitespace_before_args, cst.ParenthesizedWhitespace):
        shift = len(helper) - len(source_of(call.func))
        args = [_shift_arg(arg, shift) for arg in args]
    return call.with_changes(func=cst.Name(helper), args=args)


def _shift_arg(arg: cst.Arg, by: int) -> cst.Arg:
    comma = arg.comma
    if isinstance(comma, cst.Comma):
        comma = comma.with_changes(whitespace_after=_shift(comma.whitespace_after, by))
    return arg.with_changes(comma=comma, whitespace_after_arg=_shift(arg.whitespace_after_arg, by))


def _shift(whitespace: cst.BaseParenthesizableWhitespace, by: int) -> cst.BaseParenthesizableWhitespace:
    if not isinstance(whitespace, cst.ParenthesizedWhitespace):
        return whitespace
    moved = lambda ws: cst.SimpleWhitespace(" " * max(0, len(ws.value) + by))  # noqa: E731
    lines = [line.with_changes(whitespace=moved(line.whitespace)) if line.comment else line
             for line in whitespace.empty_lines]
    return whitespace.with_changes(empty_lines=lines, last_line=moved(whitespace.last_line))


# -- small readers --


def _binds_lstm(names: QualifiedNames, call: cst.Call) -> bool:
    """`functools.partial(rnn.lstm, ...)`, under any alias of either."""
    first = call.args[0] if call.args else None
    return (first is not None and first.keyword is None and not first.star
            and callee(names, call, PARTIAL) is not None and matching_name(names, first.value, (LSTM,)) is not None)


def _root_name(expression: cst.BaseExpression) -> Optional[str]:
    while isinstance(expression, cst.Attribute):
        expression = expression.value
    return expression.value if isinstance(expression, cst.Name) else None


def _string(expression: cst.BaseExpression) -> Optional[str]:
    value = expression.evaluated_value if isinstance(expression, cst.SimpleString) else None
    return value if isinstance(value, str) else None
