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

from dataclasses import dataclass
from typing import Optional

import libcst as cst
from libcst.metadata import Assignment, GlobalScope, ParentNodeProvider, ScopeProvider

from codemods.analysis.kernel_scope import FunctionNode
from codemods.analysis.names import callee, display, find_arg, one_line
from codemods.analysis.precision import NONE, PrecisionLiteral, parse_precision, spell_like
from codemods.base import JaxCodemod
from codemods.capabilities import Level, format_version, lowered_precisions
from codemods.engine.report import Kind
from codemods.rules import OPS, PER_OPERAND_PRECISION, Op, accepted_precisions
from codemods.settings import PrecisionPolicy


@dataclass
class _Use:
    """A precision value that reaches a kernel op, and the level it must become."""

    literal: PrecisionLiteral
    level: Level
    message: str


class PerOperandPrecision(JaxCodemod):
    RULE = PER_OPERAND_PRECISION

    def plan(self, module: cst.Module) -> None:
        self._fixes: dict[cst.BaseExpression, _Use] = {}
        self._kernel_precisions: set[cst.BaseExpression] = set()
        pending: list[tuple[cst.Call, str, Op, cst.BaseExpression]] = []
        for call in self.calls():
            name = callee(self.names, call, OPS)
            if name is None:
                continue
            op = OPS[name]
            arg = find_arg(call, op.precision_position, ("precision",))
            kwargs = any(a.star == "**" for a in call.args)
            if (arg is None and not kwargs) or not self.in_scope(call):
                continue
            if arg is None:
                self.report(call, Kind.MANUAL, f"{display(name)}: **kwargs may carry a precision this kernel cannot lower")
                continue
            self._kernel_precisions.add(arg.value)
            pending.append((call, name, op, arg.value))
        for call, name, op, value in pending:
            self._plan_value(call, name, op, value)
        for source, use in self._fixes.items():
            target = spell_like(use.literal, use.level)
            self.edit(source, lambda _node, target=target: target)
            self.report(source, Kind.FIXED, use.message)

    def _plan_value(self, call: cst.Call, name: str, op: Op, value: cst.BaseExpression) -> None:
        parsed = parse_precision(value, self.names)
        if parsed is NONE:
            return
        if isinstance(parsed, PrecisionLiteral):
            self._schedule(value, parsed, name, op)
            return
        sources = self._literal_sources(value, call)
        if isinstance(sources, str):
            self.report(value, Kind.MANUAL, f"{display(name)}: precision `{one_line(value)}` {sources}; "
                        "make sure it is a single scalar the Mosaic TPU lowering accepts")
            return
        for source, literal in sources:
            self._schedule(source, literal, name, op)

    def _schedule(self, source: cst.BaseExpression, literal: PrecisionLiteral, name: str, op: Op) -> None:
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

    def _literal_sources(self, value: cst.BaseExpression, call: cst.Call):
        """The literals a name stands for, or a string saying why they cannot be rewritten."""
        if not isinstance(value, cst.Name):
            return "is not a literal"
        scope = self.get_metadata(ScopeProvider, value, None)
        assignments = [a for a in (scope[value.value] if scope else ()) if isinstance(a, Assignment)]
        if len(assignments) != 1:
            return "is not a literal" if not assignments else "is assigned more than once"
        assignment = assignments[0]
        parent = self.get_metadata(ParentNodeProvider, assignment.node, None)
        if isinstance(assignment.node, cst.Param) or isinstance(parent, cst.Param):
            param = assignment.node if isinstance(assignment.node, cst.Param) else parent
            owner = self.get_metadata(ParentNodeProvider, self.get_metadata(ParentNodeProvider, param))
            kernel = self.target_kernel(call)
            if owner is not kernel:
                return "is a parameter of an enclosing function, set by its callers"
            return self._parameter_sources(param, kernel)
        if isinstance(assignment.scope, GlobalScope) and isinstance(parent, cst.AssignTarget):
            assign = self.get_metadata(ParentNodeProvider, parent, None)
            literal = parse_precision(assign.value, self.names) if isinstance(assign, cst.Assign) else None
            if not isinstance(literal, PrecisionLiteral):
                return "is a module constant that is not a precision literal"
            if any(access.node not in self._kernel_precisions for access in assignment.references):
                return "is a module constant also used outside kernel precisions (rewriting it would change XLA code)"
            return [(assign.value, literal)]
        return "is not a literal"

    def _parameter_sources(self, param: cst.Param, kernel: FunctionNode):
        """A kernel parameter: the values bound by functools.partial(kernel, ...) and its default."""
        name = param.name.value
        values = [arg.value for binding in self.kernel_scope.partial_bindings.get(kernel, ())
                  for arg in binding.args if arg.keyword is not None and arg.keyword.value == name]
        if param.default is not None:
            values.append(param.default)
        if not values:
            return "is a kernel parameter whose value is not bound in this module"
        sources = []
        for source in values:
            literal = parse_precision(source, self.names)
            if literal is NONE:
                continue
            if not isinstance(literal, PrecisionLiteral):
                return f"is a kernel parameter bound to `{one_line(source)}`, not a literal"
            sources.append((source, literal))
        return sources
