"""Every precision an expression of one module may be, with where each is written: through names,
`a if c else b`, pairs whose elements are set several ways, a local function's returns, and a
parameter's default, `functools.partial` bindings and the arguments this module's calls pass.

A scalar precision is no value of the module's value flow (value_flow.py carries functions,
partials and containers): it is read here from the bindings, and a pair written as a tuple or list
the value flow carries through partials and containers (`pairs_flowing_into`). What the module
cannot bound (another module's value, a parameter its callers set elsewhere, a computed value) is
`Unbounded`, with why, for a rule to say so rather than nothing; what other modules write is the
whole-program link's (flow_facts.py).
"""

from __future__ import annotations

import ast
import itertools
from typing import Optional

from codemods.analysis.kernel_scope import KernelScope, argument_for, default_value, passed_for
from codemods.analysis.module import FunctionNode, ModuleIndex
from codemods.analysis.names import has_star, one_line, root_name
from codemods.analysis.precision import NONE, Parsed, PrecisionLiteral, parse_precision, string_value
from codemods.analysis.presets import dot_algorithm
from codemods.analysis.value_flow import returned_values

MAX_DEPTH = 6  # how far a value is followed through parameters, variables and returns


class Unbounded(Exception):
    """A value the analysis cannot bound; the message says why."""


class PrecisionValues:
    """The precisions values of `module` may be, given its kernel scope (partial bindings, kernels)."""

    def __init__(self, module: ModuleIndex, kernels: KernelScope) -> None:
        self.module = module
        self.kernels = kernels

    def possible(self, value: ast.expr, depth: int = MAX_DEPTH,
                 seen: frozenset[int] = frozenset()) -> list[tuple[ast.expr, Parsed]]:
        """Every precision `value` can be, with where it is written. Raises Unbounded."""
        parsed = parse_precision(value, self.module)
        if parsed is not None:
            return [(value, parsed)]
        if depth <= 0 or id(value) in seen:
            raise Unbounded("it is followed too far") if depth <= 0 else Unbounded("it depends on itself")
        seen = seen | {id(value)}
        if isinstance(value, ast.IfExp):
            return [*self.possible(value.body, depth - 1, seen), *self.possible(value.orelse, depth - 1, seen)]
        if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == 2:
            # `(FAST, P.HIGHEST)` with FAST set two ways: every pair its elements can make.
            first, second = (self.possible(element, depth - 1, seen) for element in value.elts)
            return [(value, PrecisionLiteral((a.levels[0], b.levels[0]), value.elts))  # type: ignore[arg-type]
                    for (_, a), (_, b) in itertools.product(first, second)
                    if isinstance(a, PrecisionLiteral) and isinstance(b, PrecisionLiteral)
                    and not a.is_pair and not b.is_pair]
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
            functions = [b.node for b in self.module.bindings(value.func) if isinstance(b.node, ast.FunctionDef)]
            if len(functions) == 1:
                return [found for returned in returned_values(functions[0])
                        for found in self.possible(returned, depth - 1, seen)]
        preset = dot_algorithm(value, self.module)
        if preset is not None:  # what it becomes depends on the op and operands, which the value does not show
            raise Unbounded(f"it can be {preset.describe()}, a dot algorithm preset, which Mosaic TPU kernels "
                            "reject; JAX001 rewrites one written at the dot call itself")
        if not isinstance(value, ast.Name):
            imported = _imported_module(value, self.module)
            if imported is not None:  # `compat.MIXED`
                raise Unbounded(f"`{one_line(self.module.segment(value))}` is read from the imported `{imported}`; a "
                                "precision is followed within its own module only")
            raise Unbounded(f"`{one_line(self.module.segment(value))}` is computed")
        bindings = self.module.bindings(value)
        if not bindings:
            raise Unbounded(f"`{value.id}` comes from outside this module")
        found: list[tuple[ast.expr, Parsed]] = []
        for binding in bindings:
            if binding.value is not None:
                found += self.possible(binding.value, depth - 1, seen)
            elif binding.is_parameter:
                found += [v for source in self.arguments_for(binding.node)  # type: ignore[arg-type]
                          for v in self.possible(source, depth - 1, seen)]
            elif isinstance(binding.statement, ast.ImportFrom):
                origin = "." * binding.statement.level + (binding.statement.module or "")
                raise Unbounded(f"`{value.id}` is imported from `{origin}`; a precision is followed within its own "
                                "module only")
            else:
                raise Unbounded(f"`{value.id}` is set in a way this analysis does not follow")
        return found

    def may_be_a_member_pair(self, value: ast.expr) -> bool:
        """Whether `value` can be a per-operand pair of Precision members, as far as the module shows
        (`partial(kernels.body, prec=PAIR)`): a precision whatever the parameter it is bound to is
        called. Strings are left out (`dtype=("float32", "bfloat16")` is no precision)."""
        try:
            values = self.possible(value)
        except Unbounded:
            return False
        return any(isinstance(literal, PrecisionLiteral) and literal.is_pair
                   and all(string_value(element, self.module) is None for element in literal.elements)
                   for _, literal in values)

    def arguments_for(self, param: ast.arg) -> list[ast.expr]:
        """What a parameter can be: its default, its partial() bindings, and the arguments of every
        call of its function in this module. Raises Unbounded where callers may be elsewhere."""
        function = self.module.parent[self.module.parent[param]]
        if isinstance(function, ast.Lambda):
            raise Unbounded("it is a lambda's parameter")
        values = self.bound_values(function, param)  # type: ignore[arg-type]
        references = self.module.references_to(function)  # type: ignore[arg-type]
        kernels = self.kernels
        if not references and (not values or function in kernels.kernels and function not in kernels.direct
                               and self.default_unwritten(function, param)):  # type: ignore[arg-type]
            # nothing here calls it (a helper other modules' kernels call): they set it, a default
            # of None is only what they leave out
            raise Unbounded(f"`{param.arg}` is a parameter of `{function.name}`, whose callers are outside this "
                            "module")
        partial_callees = {binding.args[0] for bindings in kernels.partial_bindings.values()
                           for binding in bindings if binding.args}
        for reference in references:  # every call of it in view, each passing it (or its default stands)
            call = self.module.parent.get(reference)
            if not (isinstance(call, ast.Call) and call.func is reference):
                if reference not in partial_callees:
                    raise Unbounded(f"`{function.name}` is passed around, so not every call of it is in view")
                continue
            if has_star(call):
                raise Unbounded(f"a call of `{function.name}` passes *args or **kwargs")
            if argument_for(call, function, param) is None and default_value(function, param) is None:  # type: ignore[arg-type]
                raise Unbounded(f"a call of `{function.name}` leaves `{param.arg}` out")
        return [*values, *passed_for(self.module, function, param)]  # type: ignore[arg-type]

    def bound_values(self, function: FunctionNode, param: ast.arg) -> list[ast.expr]:
        """What the module itself binds a parameter to: functools.partial(function, name=...) and its default."""
        values = [keyword.value for binding in self.kernels.partial_bindings.get(function, ())
                  for keyword in binding.keywords if keyword.arg == param.arg]
        default = default_value(function, param)
        return values if default is None else [*values, default]

    def passed_by_callers(self, function: FunctionNode, param: ast.arg) -> bool:
        """Whether its callers set `param` (not only its default): a call of `function` in this
        module passes it, or nothing here calls it (kernel code other modules' kernels call) and its
        default is None or absent (a written default is what it runs with where they leave it out)."""
        if isinstance(function, ast.Lambda):
            return False
        references = self.module.references_to(function)
        if not references:  # only what they pass can make it other than its default, unless that is written
            return self.default_unwritten(function, param)
        return bool(passed_for(self.module, function, param))

    def default_unwritten(self, function: FunctionNode, param: ast.arg) -> bool:
        """`param` has no default, or None: what it runs with is what its callers pass."""
        default = default_value(function, param)
        return default is None or parse_precision(default, self.module) is NONE

    def pairs_flowing_into(self, value: ast.expr) -> list[tuple[ast.expr, PrecisionLiteral]]:
        """The pairs written as tuples or lists that the module's value flow carries into `value`
        (through partials, containers and calls `possible` does not follow), in source order."""
        flow = self.kernels.flow
        found = []
        for written in flow.displays_into(value) if flow is not None else ():
            literal = parse_precision(written, self.module)
            if isinstance(literal, PrecisionLiteral):
                found.append((written, literal))
        return found


def _imported_module(value: ast.expr, module: ModuleIndex) -> Optional[str]:
    """What the root of an attribute (`compat` of `compat.MIXED`) imports; None if it is no import."""
    root = root_name(value) if isinstance(value, ast.Attribute) else None
    return None if root is None else \
        next((binding.imported for binding in module.bindings(root) if binding.imported is not None), None)
