"""Which code runs inside a Pallas kernel body.

Only kernel bodies go through the Mosaic lowerings that reject per-operand precision and accuracy
hints; the same call outside a kernel is honoured by XLA and must not change. A function is a kernel
body when it is handed to a kernel launcher (call or decorator form, directly, through a variable,
or through `functools.partial`), and so is every function such a body refers to in the same module.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Optional, Union

import libcst as cst
from libcst.metadata import (
    Assignment,
    VisitorMetadataProvider,
    ParentNodeProvider,
    ScopeProvider,
)

from codemods.analysis.names import callee, find_arg, matching_name, qualified_names
from codemods.engine.prefilter import LAUNCHERS

FunctionNode = Union[cst.FunctionDef, cst.Lambda]

PARTIAL = frozenset({"functools.partial"})

_BODY_KEYWORDS = ("kernel", "body", "f")
_MAX_ALIAS_DEPTH = 8  # `k = partial(body, ...)`, `k2 = k`, ... chains longer than this are not followed


@dataclass
class KernelScope:
    """The answer for one module: kernel bodies, and how to find the one enclosing a call."""

    kernels: dict[FunctionNode, str] = field(default_factory=dict)  # body -> why it is one
    calls: list[cst.Call] = field(default_factory=list)  # every call, in source order
    # Functions that kernels call but that plain XLA code uses too: rewriting them would change
    # the XLA path, so transforms report their calls instead.
    shared: set[FunctionNode] = field(default_factory=set)
    enclosing: dict[cst.Call, FunctionNode] = field(default_factory=dict)
    parent: dict[FunctionNode, Optional[FunctionNode]] = field(default_factory=dict)
    # functools.partial(body, ...) calls that bind a kernel's arguments, for value resolution.
    partial_bindings: dict[FunctionNode, list[cst.Call]] = field(default_factory=dict)

    def kernel_of(self, call: cst.Call) -> Optional[FunctionNode]:
        """The kernel body `call` runs in (itself or an enclosing function), if any."""
        function = self.enclosing.get(call)
        while function is not None:
            if function in self.kernels:
                return function
            function = self.parent.get(function)
        return None


class KernelScopeProvider(VisitorMetadataProvider["KernelScope"]):
    """Attaches one `KernelScope` to the Module node."""

    METADATA_DEPENDENCIES = (ScopeProvider, ParentNodeProvider)

    def __init__(self) -> None:
        super().__init__()
        self.result = KernelScope()
        self._stack: list[FunctionNode] = []
        self._entries: list[tuple[cst.BaseExpression, str]] = []
        self._references: dict[FunctionNode, list[cst.Name]] = {}
        self._innermost: dict[cst.Name, Optional[FunctionNode]] = {}  # function each name sits in
        self._calls_through_names: list[cst.Call] = []

    def _names(self, node: cst.CSTNode):
        return qualified_names(self.metadata, node)

    # -- traversal: remember where each call and name sits, and collect kernel entry points --

    def _enter(self, node: FunctionNode) -> None:
        self.result.parent[node] = self._stack[-1] if self._stack else None
        self._stack.append(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        for decorator in node.decorators:
            launcher = self._launcher_in_decorator(decorator.decorator)
            if launcher:
                self.result.kernels[node] = f"decorated with {launcher}"
        self._enter(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._stack.pop()

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._enter(node)

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self._stack.pop()

    def visit_Name(self, node: cst.Name) -> None:
        self._innermost[node] = self._stack[-1] if self._stack else None
        for function in self._stack:
            self._references.setdefault(function, []).append(node)

    def visit_Call(self, node: cst.Call) -> None:
        self.result.calls.append(node)
        if self._stack:
            self.result.enclosing[node] = self._stack[-1]
        launcher = callee(self._names, node, LAUNCHERS)
        if launcher is not None:
            self._add_launch(launcher, node)
        elif isinstance(node.func, cst.Call):
            self._add_launch(*self._partial_launcher(node.func, node))
        elif isinstance(node.func, cst.Name):  # maybe `tiled = partial(pl.pallas_call, ...)`; `tiled(body)`
            self._calls_through_names.append(node)

    def _add_launch(self, launcher: Optional[str], call: cst.Call) -> None:
        if launcher is None or LAUNCHERS[launcher] is None:
            return
        body = find_arg(call, LAUNCHERS[launcher], _BODY_KEYWORDS)
        if body is not None:
            self._entries.append((body.value, f"passed to {launcher.rsplit('.', 1)[-1]}"))

    def _partial_launcher(self, partial: cst.Call, outer: cst.Call) -> tuple[Optional[str], cst.Call]:
        """`functools.partial(pl.pallas_call, ...)(body)`: the launcher, and the call holding its body
        (the partial itself when it already binds the body positionally)."""
        if not (callee(self._names, partial, PARTIAL) and partial.args and not partial.args[0].keyword):
            return None, outer
        launcher = matching_name(self._names, partial.args[0].value, LAUNCHERS)
        bound = [arg for arg in partial.args[1:] if arg.keyword is None]
        holder = partial.with_changes(args=partial.args[1:]) if bound else outer
        return launcher, holder

    def _launcher_in_decorator(self, expression: cst.BaseExpression) -> Optional[str]:
        if isinstance(expression, cst.Call):
            if callee(self._names, expression, PARTIAL) and expression.args:
                expression = expression.args[0].value
            else:
                expression = expression.func
        name = matching_name(self._names, expression, LAUNCHERS)
        return name.rsplit(".", 1)[-1] if name else None

    # -- resolution: entry expressions to function nodes, then everything kernels refer to --

    def leave_Module(self, original_node: cst.Module) -> None:
        for call in self._calls_through_names:
            assert isinstance(call.func, cst.Name)
            for value in self._assigned_values(call.func):
                if isinstance(value, cst.Call):
                    self._add_launch(*self._partial_launcher(value, call))
        for expression, why in self._entries:
            for function in self._resolve(expression, _MAX_ALIAS_DEPTH):
                self.result.kernels.setdefault(function, why)
        entries = set(self.result.kernels)
        pending = list(entries)
        while pending:
            kernel = pending.pop()
            for name in self._references.get(kernel, ()):
                for function in self._resolve(name, 0):
                    if function not in self.result.kernels:
                        self.result.kernels[function] = f"called from a kernel body ({_label(kernel)})"
                        pending.append(function)
        self.result.shared = {
            function for function in self.result.kernels
            if function not in entries and self._used_outside_kernels(function)
        }
        self.set_metadata(original_node, self.result)

    def _used_outside_kernels(self, function: FunctionNode) -> bool:
        if not isinstance(function, cst.FunctionDef):
            return False
        scope = self.get_metadata(ScopeProvider, function, None)
        if scope is None:
            return False
        for assignment in scope[function.name.value]:
            if isinstance(assignment, Assignment) and assignment.node is function:
                for access in assignment.references:
                    if not self._inside_kernel(self._innermost.get(access.node)):
                        return True
        return False

    def _inside_kernel(self, function: Optional[FunctionNode]) -> bool:
        while function is not None:
            if function in self.result.kernels:
                return True
            function = self.result.parent.get(function)
        return False

    def _resolve(self, expression: cst.BaseExpression, depth: int) -> Iterator[FunctionNode]:
        """Function definitions `expression` may evaluate to, following partial() and aliases."""
        if isinstance(expression, cst.Lambda):
            yield expression
        elif isinstance(expression, cst.Call) and callee(self._names, expression, PARTIAL):
            if expression.args and not expression.args[0].star:
                for function in self._resolve(expression.args[0].value, depth):
                    self.result.partial_bindings.setdefault(function, []).append(expression)
                    yield function
        elif isinstance(expression, cst.Call) and depth > 0:
            # A kernel factory: `pallas_call(make_kernel(...))` runs what make_kernel returns.
            for factory in self._resolve(expression.func, 0):
                if isinstance(factory, cst.FunctionDef):
                    for returned in _returned_values(factory):
                        yield from self._resolve(returned, depth - 1)
        elif isinstance(expression, cst.Name):
            for assignment in self._assignments(expression):
                if isinstance(assignment.node, cst.FunctionDef):
                    yield assignment.node
            if depth > 0:
                for value in self._assigned_values(expression):
                    yield from self._resolve(value, depth - 1)

    def _assignments(self, name: cst.Name) -> list[Assignment]:
        scope = self.get_metadata(ScopeProvider, name, None)
        return [a for a in (scope[name.value] if scope else ()) if isinstance(a, Assignment)]

    def _assigned_values(self, name: cst.Name) -> Iterator[cst.BaseExpression]:
        """The right-hand sides of plain `name = value` assignments `name` may refer to."""
        for assignment in self._assignments(name):
            if isinstance(assignment.node, cst.Name):
                value = self._assigned_value(assignment.node)
                if value is not None:
                    yield value

    def _assigned_value(self, target: cst.Name) -> Optional[cst.BaseExpression]:
        assign_target = self.get_metadata(ParentNodeProvider, target, None)
        if isinstance(assign_target, cst.AssignTarget):
            assign = self.get_metadata(ParentNodeProvider, assign_target, None)
            if isinstance(assign, cst.Assign):
                return assign.value
        return None


def _returned_values(function: cst.FunctionDef) -> Iterator[cst.BaseExpression]:
    """Values of the `return` statements that belong to `function` itself, not to nested defs."""

    class Returns(cst.CSTVisitor):
        def __init__(self) -> None:
            self.values: list[cst.BaseExpression] = []

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is function

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

        def visit_Return(self, node: cst.Return) -> None:
            if node.value is not None:
                self.values.append(node.value)

    returns = Returns()
    function.visit(returns)
    yield from returns.values


def _label(function: FunctionNode) -> str:
    return function.name.value if isinstance(function, cst.FunctionDef) else "lambda"
