"""JAX003: cuDNN LSTM calls at bf16 precision, run in float32 with Precision.HIGHEST instead."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

from codemods.analysis.flow.flow_facts import NO_PRECISION, SinkAnswer
from codemods.analysis.module import FUNCTIONS, ordered_arguments
from codemods.analysis.module_helpers import reference_helper
from codemods.analysis.names import Argument, display, find_arg, has_star, one_line, root_name, value_of
from codemods.analysis.precision import (
    NONE, PrecisionLiteral, only_value, parse_precision, quoted, spell, spell_like, string_value,
)
from codemods.base import JaxTransform
from codemods.capabilities import Level, lowered_precisions
from codemods.engine.diagnostics import Kind
from codemods.engine.fixes import FixPlan
from codemods.engine.rule import Rule

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

    node: ast.Call  # the config.update(...) or default_matmul_precision(...) call
    literal: PrecisionLiteral


class Bf16Lstm(JaxTransform):
    def plan(self) -> None:
        self._configs: list[_DefaultPrecision] = []
        self._contexts: dict[ast.AST, _DefaultPrecision] = {}
        self._collect_default_precisions()
        for call in self.module.calls:
            applied = self.module.applied(call, (LSTM,))
            if applied is not None:
                self._plan_call(call, bound=bool(applied[2]))

    def matches(self, call: ast.Call) -> bool:
        return self.module.applied(call, (LSTM,)) is not None

    def _plan_call(self, call: ast.Call, bound: bool) -> None:
        """`rnn.lstm(...)`, or with `bound` `functools.partial(rnn.lstm, ...)` (its arguments follow the callee)."""
        arg = find_arg(call, PRECISION_POSITION + bound, ("precision",))
        if arg is None and has_star(call):
            self.report(call, Kind.MANUAL, f"{LSTM_NAME}: *args or **kwargs may carry precision DEFAULT, "
                        f"which cuDNN rejects ({CUDNN_ERROR}); if so, {_FIX_HINT}")
            return
        value = value_of(arg) if arg is not None else None
        parsed = NONE if value is None else parse_precision(value, self.module)
        named = ""
        if parsed is None and isinstance(value, ast.Name) and (constant := only_value(value, self.module)) is not None:
            # `precision=PREC` after `PREC = Precision.DEFAULT`: the call is rewritten, not PREC
            parsed = parse_precision(constant, self.module)
            named = f" (`{value.id}`, set on line {self.module.position(constant)[0]})"
        if parsed is NONE:
            self._plan_default(call, arg, bound)
        elif isinstance(parsed, PrecisionLiteral):
            if not self._cudnn_accepts(parsed):
                highest = spell_like(parsed, Level.HIGHEST, self.module)
                self._rewrite(call, arg, bound, highest, f"precision {parsed.describe()}{named}")
        elif not any(name.startswith(_ALGORITHMS) for name in self.module.qualified_names(value)) \
                and not self._plan_from_flow(call, arg, bound, value):
            answer = self._flow_sink(call)
            known = f" (across the project it may be {' or '.join(answer.unknown)})" if answer and answer.unknown else ""
            self.report(value, Kind.MANUAL, f"{LSTM_NAME}: precision `{one_line(self.module.segment(value))}` is "
                        f"not a literal{known}; if it can be DEFAULT ('bfloat16'), cuDNN raises {CUDNN_ERROR}: {_FIX_HINT}")

    def _plan_from_flow(self, call: ast.Call, arg: Argument, bound: bool, value: ast.expr) -> bool:
        """A precision that is no literal here, every value of which the project's value flow knows
        (a constant imported, a config's field, a wrapper's parameter: analysis/flow/link.py): the
        call is rewritten where one of them is DEFAULT, left alone where none is; False where the
        flow does not know them all. The fix is the call's, as for a constant of this module: the
        inputs must become float32 there, and the value stays for what else reads it."""
        answer = self._flow_sink(call)
        if answer is None or answer.unknown or not answer.levels:
            return False
        default = self._default_precision_at(call) if NO_PRECISION in answer.levels else None
        if NO_PRECISION in answer.levels and default is None:
            return False  # None under a default precision this module does not set: not known
        rejected = sorted(level for level in answer.levels if level != NO_PRECISION and not self._cudnn_takes(Level[level]))
        if default is not None and not self._cudnn_accepts(default.literal):
            rejected.append(f"None under the bf16 default matmul precision set on line {self.module.position(default.node)[0]}")
        if rejected:
            shown = one_line(self.module.segment(value))
            self._rewrite(call, arg, bound, self._spell_highest(call, None),
                          f"precision `{shown}` (can be {' or '.join(rejected)}, followed across the project)")
        return True

    def _flow_sink(self, call: ast.Call) -> Optional[SinkAnswer]:
        """What the link found reaching the call: asked whether plain code calls its function or not
        (an entry point's runs with its defaults), unlike a kernel op's (`flow_answer`)."""
        return self.analysis.facts.flow.sink_at((call.lineno, call.col_offset))

    def _plan_default(self, call: ast.Call, arg: Optional[Argument], bound: bool) -> None:
        """precision None or omitted: the default matmul precision decides."""
        default = self._default_precision_at(call)
        if default is None:
            self.report(call, Kind.WARNING, f"{LSTM_NAME}: precision None may fail under a bf16 default precision "
                        f"(jax_default_matmul_precision='bfloat16' raises {CUDNN_ERROR}); if so, {_FIX_HINT}")
        elif not self._cudnn_accepts(default.literal):
            line, _ = self.module.position(default.node)
            where = f"precision None under the bf16 default matmul precision set on line {line}"
            self._rewrite(call, arg, bound, self._spell_highest(call, default), where)

    def _cudnn_accepts(self, literal: PrecisionLiteral) -> bool:
        """cuDNN takes one precision per LSTM and reads the first of a pair."""
        return self._cudnn_takes(literal.levels[0])

    def _cudnn_takes(self, level: Level) -> bool:
        accepted = lowered_precisions("cudnn", "lstm", self.settings.jax_version)
        return accepted is not None and level in accepted

    # -- the rewrite --

    def _rewrite(self, call: ast.Call, arg: Optional[Argument], bound: bool, highest: str, what: str) -> None:
        from codemods.engine.call_rewrites import route_through

        fix = FixPlan()
        helper = self.use_helper(fix, reference_helper(HELPER))
        index = None if arg is None else ordered_arguments(call).index(arg)
        self.rewrite(fix, call, route_through(helper, bound, index, highest))
        # Safe: the call cannot run as written, and float32 at HIGHEST is at least as accurate as
        # the bf16 it asked for; the caller gets its own dtypes back.
        self.report(call, Kind.FIXED, f"{LSTM_NAME}: {what} -> HIGHEST, through {helper} (float32 inputs, outputs "
                    f"in the inputs' dtypes): cuDNN has no bf16 LSTM ({CUDNN_ERROR})", fix)

    # -- the default matmul precision --

    def _collect_default_precisions(self) -> None:
        for call in self.module.calls:
            name = self.module.callee(call, (CONFIG_UPDATE, DEFAULT_PRECISION_CONTEXT))
            if name is None:
                continue
            values = [a for a in call.args if not isinstance(a, ast.Starred)]
            if name == CONFIG_UPDATE and len(values) == 2 and string_value(values[0], self.module) == DEFAULT_PRECISION_OPTION:
                value = values[1]
            elif name == DEFAULT_PRECISION_CONTEXT and len(values) == 1:
                value = values[0]
            else:
                continue
            literal = parse_precision(value, self.module)
            if not isinstance(literal, PrecisionLiteral):
                continue
            setting = _DefaultPrecision(call, literal)
            item = self.module.parent.get(call)
            if name == CONFIG_UPDATE:
                self._configs.append(setting)
            elif isinstance(item, ast.withitem):
                self._contexts[self.module.parent[item]] = setting

    def _default_precision_at(self, call: ast.Call) -> Optional[_DefaultPrecision]:
        """The innermost `with default_matmul_precision(...)` around the call in its function; else
        the module's config (any bf16 setting wins: the call may run under it)."""
        node: Optional[ast.AST] = call
        while node is not None and not isinstance(node, FUNCTIONS):
            if node in self._contexts:
                return self._contexts[node]
            node = self.module.parent.get(node)
        settings = [*self._configs, *self._contexts.values()]
        return next((s for s in settings if not self._cudnn_accepts(s.literal)), next(iter(self._configs), None))

    def _spell_highest(self, call: ast.Call, default: Optional[_DefaultPrecision]) -> str:
        """HIGHEST as the module writes precisions: like a `Precision.X` it uses (when that name
        reaches the call), else in the vocabulary of its default-precision string, else
        'highest' in the module's quotes."""
        at_call = root_name(call.func)
        call_scope = self.module.scope_of.get(at_call) if at_call is not None else None
        module_scope = self.module.module_scope
        for attribute in _attributes_in_source_order(self.module.tree):
            literal = parse_precision(attribute, self.module)
            root = root_name(attribute)
            if (isinstance(literal, PrecisionLiteral) and root is not None and call_scope is not None
                    and root.id in module_scope.bindings
                    and call_scope.lookup(root.id) == module_scope.bindings[root.id]):
                return spell(Level.HIGHEST, attribute, self.module)
        if default is not None:
            return spell(Level.HIGHEST, default.literal.elements[0], self.module)
        return quoted("highest", self.module)


# -- small readers --


def _attributes_in_source_order(tree: ast.AST) -> list[ast.Attribute]:
    attributes = [node for node in ast.walk(tree) if isinstance(node, ast.Attribute)]
    return sorted(attributes, key=lambda n: (n.lineno, n.col_offset, -n.end_lineno, -n.end_col_offset))


RULE = Rule(
    code="JAX003",
    name="bf16-lstm",
    summary="Run cuDNN LSTM calls at bf16 (DEFAULT) precision in float32 with Precision.HIGHEST, keeping the callers' dtypes.",
    what="""
        Routes each `jax.experimental.rnn.lstm` call whose precision is DEFAULT (`Precision.DEFAULT`,
        'default', 'bfloat16', 'fastest', a pair led by DEFAULT, `Precision('bfloat16')`) through a
        small module helper, `lstm_float32`, and sets the precision to HIGHEST in the module's own
        spelling. The helper casts x, h_0, c_0 and weights to float32, calls the LSTM it is given and
        casts y, h_n and c_n back to the dtypes of x, h_0 and c_0, so a bf16 model or scan carry keeps
        its types. seq_lengths is passed through untouched (it must stay int32). An LSTM configured once
        with `functools.partial(rnn.lstm, ..., precision=...)` is rewritten the same way, to
        `functools.partial(lstm_float32, rnn.lstm, ..., precision=HIGHEST)`. A precision named by a
        module constant set once (`LSTM_PRECISION = lax.Precision.DEFAULT`) is read as its value: the
        call is rewritten, the constant left for the code that may read it. So is one that crosses
        modules, as the project's value flow follows it (a constant imported, a config dataclass's
        field, a wrapper's `precision` parameter its callers fill): rewritten where any value it can
        take is DEFAULT, left alone where none is, and a [manual] finding names what the flow cannot
        know (`getattr` with a computed name, an installed package's value). A call without a
        precision is rewritten only when the module sets a bf16 default matmul precision
        (`jax.config.update("jax_default_matmul_precision", "bfloat16")` or
        `with jax.default_matmul_precision("bfloat16")`); otherwise it gets a warning. The fix is
        safe: the call cannot run as written, and float32 at HIGHEST is at least as accurate.
    """,
    why="""
        cuDNN's LSTM has no bf16 path: jax reads DEFAULT as bf16 and raises "bfloat16 support not
        implemented for LSTM" while tracing, on every backend. float32 storage with HIGHEST is the
        path cuDNN supports; HIGH (TF32) and HIGHEST calls are left alone.
    """,
    example="""
        y, h, c = rnn.lstm(x, h0, c0, w, lengths, 8, 16, 1, 0.0, False, precision=P.DEFAULT)
        ->  y, h, c = lstm_float32(rnn.lstm, x, h0, c0, w, lengths, 8, 16, 1, 0.0, False, precision=P.HIGHEST)
        functools.partial(rnn.lstm, input_size=8, hidden_size=16, ..., precision=P.DEFAULT)
        ->  functools.partial(lstm_float32, rnn.lstm, input_size=8, hidden_size=16, ..., precision=P.HIGHEST)
    """,
    words=(b"lstm",),
    kernel_scoped=False,
    follows={LSTM: (PRECISION_POSITION, "precision")},
    check=Bf16Lstm.check,
    matches=Bf16Lstm.matches_call,
)
