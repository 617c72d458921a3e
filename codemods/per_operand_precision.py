"""JAX001: precisions a Pallas Mosaic TPU kernel cannot lower, collapsed to one it can.

What it does
    Inside Pallas kernel bodies, rewrites the `precision=` of contractions and convolutions to the
    single scalar the target jax's Mosaic TPU lowering accepts for that op and that is at least as
    accurate as the most accurate operand: `(DEFAULT, HIGH)` on a conv becomes `HIGHEST`; on a dot
    it becomes `HIGH` where the release lowers HIGH, else `HIGHEST`.
Why
    Mosaic TPU takes one contract precision per op. A per-operand pair raises
    "Per-operand conv precision unsupported" (or the dot twin) and some scalars raise
    "Unsupported conv precision: HIGH". Outside kernels XLA honours per-operand precision, so
    that code is left alone.
Example
    lax.conv_general_dilated(x, w, (1, 1), "SAME", precision=(P.DEFAULT, P.HIGH))
    ->  lax.conv_general_dilated(x, w, (1, 1), "SAME", precision=P.HIGHEST)
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional, Union

from codemods.analysis.module import FunctionNode
from codemods.analysis.names import display, find_arg, has_double_star, one_line, value_of
from codemods.analysis.precision import NONE, PrecisionLiteral, parse_precision, spell_like
from codemods.base import JaxTransform
from codemods.capabilities import Level, format_version, lowered_precisions
from codemods.engine.report import Kind
from codemods.rules import OPS, PER_OPERAND_PRECISION, Op, accepted_precisions
from codemods.settings import PrecisionPolicy

Sources = Union[str, list[tuple[ast.expr, PrecisionLiteral]]]  # literals to rewrite, or why there are none


@dataclass
class _Use:
    """A precision value that reaches a kernel op, and the level it must become."""

    literal: PrecisionLiteral
    level: Level
    message: str


class PerOperandPrecision(JaxTransform):
    RULE = PER_OPERAND_PRECISION

    def plan(self) -> None:
        self._fixes: dict[ast.expr, _Use] = {}
        self._kernel_precisions: set[ast.expr] = set()
        pending: list[tuple[ast.Call, str, Op, ast.expr]] = []
        for call in self.module.calls:
            name = self.module.callee(call, OPS)
            if name is None:
                continue
            op = OPS[name]
            arg = find_arg(call, op.precision_position, ("precision",))
            if (arg is None and not has_double_star(call)) or not self.in_scope(call):
                continue
            if arg is None:
                self.report(call, Kind.MANUAL, f"{display(name)}: **kwargs may carry a precision this kernel cannot lower")
                continue
            self._kernel_precisions.add(value_of(arg))
            pending.append((call, name, op, value_of(arg)))
        for call, name, op, value in pending:
            self._plan_value(call, name, op, value)
        for source, use in self._fixes.items():
            self.replace(source, spell_like(use.literal, use.level, self.module))
            self.report(source, Kind.FIXED, use.message)

    def _plan_value(self, call: ast.Call, name: str, op: Op, value: ast.expr) -> None:
        parsed = parse_precision(value, self.module)
        if parsed is NONE:
            return
        if isinstance(parsed, PrecisionLiteral):
            self._schedule(value, parsed, name, op)
            return
        sources = self._literal_sources(value, call)
        if isinstance(sources, str):
            self.report(value, Kind.MANUAL, f"{display(name)}: precision `{one_line(self.module.segment(value))}` "
                        f"{sources}; make sure it is a single scalar the Mosaic TPU lowering accepts")
            return
        for source, literal in sources:
            self._schedule(source, literal, name, op)

    def _schedule(self, source: ast.expr, literal: PrecisionLiteral, name: str, op: Op) -> None:
        level = self._target_level(op.kind, literal)
        if level is None:
            return
        version = format_version(self.settings.jax_version)
        reason = ("per-operand precision is rejected" if len(set(literal.levels)) > 1
                  else f"{literal.levels[0].name} is not lowered for {op.kind} on jax {version}")
        message = f"{display(name)}: precision {literal.describe()} -> {level.name} ({reason} in Mosaic TPU kernels)"
        if lowered_precisions("mosaic_tpu", op.kind, self.settings.jax_version) is None:
            message += f"; note: jax {version} cannot lower {op.kind} in Mosaic TPU kernels at all"
        previous = self._fixes.get(source)
        if previous is None or previous.level < level:
            self._fixes[source] = _Use(literal, level, message)

    def _target_level(self, kind: str, literal: PrecisionLiteral) -> Optional[Level]:
        """The scalar to write, or None when the literal already lowers."""
        accepted = accepted_precisions(kind, self.settings.jax_version)
        if len(set(literal.levels)) == 1 and literal.levels[0] in accepted:
            return None
        if self.settings.precision_policy is PrecisionPolicy.HIGHEST:
            return Level.HIGHEST
        return min(level for level in accepted if level >= literal.most_accurate)

    # -- values that are not literals at the call: follow them within the module --

    def _literal_sources(self, value: ast.expr, call: ast.Call) -> Sources:
        """The literals a name stands for, or a string saying why they cannot be rewritten."""
        if not isinstance(value, ast.Name):
            return "is not a literal"
        bindings = self.module.bindings(value)
        if len(bindings) != 1:
            return "is not a literal" if not bindings else "is assigned more than once"
        binding = bindings[0]
        if binding.is_parameter:
            owner = self.module.parent[self.module.parent[binding.node]]
            kernel = self.target_kernel(call)
            if owner is not kernel:
                return "is a parameter of an enclosing function, set by its callers"
            return self._parameter_sources(binding.node, kernel)  # type: ignore[arg-type]
        if binding.scope is self.module.module_scope and binding.value is not None:
            literal = parse_precision(binding.value, self.module)
            if not isinstance(literal, PrecisionLiteral):
                return "is a module constant that is not a precision literal"
            if any(reference not in self._kernel_precisions for reference in binding.references):
                return "is a module constant also used outside kernel precisions (rewriting it would change XLA code)"
            return [(binding.value, literal)]
        return "is not a literal"

    def _parameter_sources(self, param: ast.arg, kernel: FunctionNode) -> Sources:
        """A kernel parameter: the values bound by functools.partial(kernel, ...) and its default."""
        name = param.arg
        values = [keyword.value for binding in self.analysis.kernels.partial_bindings.get(kernel, ())
                  for keyword in binding.keywords if keyword.arg == name]
        default = _default_of(kernel, param)
        if default is not None:
            values.append(default)
        if not values:
            return "is a kernel parameter whose value is not bound in this module"
        sources: list[tuple[ast.expr, PrecisionLiteral]] = []
        for source in values:
            literal = parse_precision(source, self.module)
            if literal is NONE:
                continue
            if not isinstance(literal, PrecisionLiteral):
                return f"is a kernel parameter bound to `{one_line(self.module.segment(source))}`, not a literal"
            sources.append((source, literal))
        return sources


def _default_of(function: FunctionNode, param: ast.arg) -> Optional[ast.expr]:
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    if param in positional:
        index = positional.index(param) - (len(positional) - len(arguments.defaults))
        return arguments.defaults[index] if index >= 0 else None
    if param in arguments.kwonlyargs:
        return arguments.kw_defaults[arguments.kwonlyargs.index(param)]
    return None
