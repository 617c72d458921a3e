"""Which code runs inside a Pallas kernel body.

Only kernel bodies go through the Mosaic lowerings that reject per-operand precision and accuracy
hints; the same call outside a kernel is honoured by XLA and must not change. A function is a kernel
body when it is handed to a kernel launcher (call or decorator form, directly, through a variable,
through `functools.partial`, or as what a kernel factory returns), and so is every function such a
body refers to in the same module.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Iterator, Optional

from codemods.analysis.module import FUNCTIONS, FunctionNode, ModuleIndex, ordered_arguments
from codemods.analysis.names import PARTIAL, find_arg, value_of

# Kernel launcher -> position of the kernel body among its arguments; None: used only as a decorator.
LAUNCHERS: dict[str, Optional[int]] = {
    "jax.experimental.pallas.pallas_call": 0,
    "jax.experimental.pallas.kernel": 0,
    "jax.experimental.pallas.core_map": None,
    "jax.experimental.pallas.mosaic_gpu.kernel": 0,
    "jax.experimental.pallas.mosaic_gpu.emit_pipeline": 0,
    "jax.experimental.pallas.mosaic_gpu.emit_pipeline_warp_specialized": 0,
    "jax.experimental.pallas.tpu.emit_pipeline": 0,
    "jax.experimental.pallas.tpu.emit_pipeline_with_allocations": 0,
}

_BODY_KEYWORDS = ("kernel", "body", "f")
_MAX_ALIAS_DEPTH = 8  # `k = partial(body, ...)`, `k2 = k`, ... chains longer than this are not followed


@dataclass
class KernelScope:
    """The answer for one module: kernel bodies, and how to find the one enclosing a call."""

    module: ModuleIndex
    kernels: dict[FunctionNode, str] = field(default_factory=dict)  # body -> why it is one
    # Functions that kernels call but that plain XLA code uses too: rewriting them would change
    # the XLA path, so transforms report their calls instead.
    shared: set[FunctionNode] = field(default_factory=set)
    # functools.partial(body, ...) calls that bind a kernel's arguments, for value resolution.
    partial_bindings: dict[FunctionNode, list[ast.Call]] = field(default_factory=dict)

    def kernel_of(self, node: ast.AST) -> Optional[FunctionNode]:
        """The kernel body `node` (a call or a name) runs in (itself or an enclosing function), if any."""
        function = self.module.enclosing.get(node)
        while function is not None:
            if function in self.kernels:
                return function
            function = self.module.function_parent.get(function)
        return None


def find_kernels(module: ModuleIndex) -> KernelScope:
    return _KernelFinder(module).result


class _KernelFinder:
    def __init__(self, module: ModuleIndex) -> None:
        self.module = module
        self.result = KernelScope(module)
        entries: list[tuple[ast.expr, str]] = []
        for function in module.function_parent:
            for decorator in getattr(function, "decorator_list", ()):
                launcher = self._launcher_in_decorator(decorator)
                if launcher:
                    self.result.kernels[function] = f"decorated with {launcher}"
        for call in module.calls:
            launcher = module.callee(call, LAUNCHERS)
            if launcher is not None:
                entries += self._body_of(launcher, call)
            elif isinstance(call.func, ast.Call):
                entries += self._body_of(*self._partial_launcher(call.func, call))
            elif isinstance(call.func, ast.Name):  # maybe `tiled = partial(pl.pallas_call, ...)`; `tiled(body)`
                for value in self._assigned_values(call.func):
                    if isinstance(value, ast.Call):
                        entries += self._body_of(*self._partial_launcher(value, call))
        kernels = self.result.kernels
        for expression, why in entries:
            for function in self._resolve(expression, _MAX_ALIAS_DEPTH):
                kernels.setdefault(function, why)
        direct = set(kernels)
        pending = list(direct)
        while pending:
            kernel = pending.pop()
            for inner in module.functions_within(kernel):
                for mention in module.mentions.get(inner, ()):
                    for function in self._functions_named(mention):
                        if function not in kernels:
                            kernels[function] = f"called from a kernel body ({_label(kernel)})"
                            pending.append(function)
        self.result.shared = {f for f in kernels if f not in direct and self._used_outside_kernels(f)}

    # -- entry points --

    def _body_of(self, launcher: Optional[str], holder: ast.Call) -> list[tuple[ast.expr, str]]:
        if launcher is None or LAUNCHERS[launcher] is None:
            return []
        body = find_arg(holder, LAUNCHERS[launcher], _BODY_KEYWORDS)
        return [] if body is None else [(value_of(body), f"passed to {launcher.rsplit('.', 1)[-1]}")]

    def _partial_launcher(self, partial: ast.Call, outer: ast.Call) -> tuple[Optional[str], ast.Call]:
        """`functools.partial(pl.pallas_call, ...)(body)`: the launcher, and the call holding its body
        (the partial itself when it already binds the body positionally)."""
        if not (self.module.callee(partial, PARTIAL) and partial.args and _first_is_positional(partial)):
            return None, outer
        launcher = self.module.matching_name(value_of(partial.args[0]), LAUNCHERS)
        bound = partial.args[1:]
        holder = ast.Call(func=partial.func, args=bound, keywords=partial.keywords) if bound else outer
        return launcher, holder

    def _launcher_in_decorator(self, expression: ast.expr) -> Optional[str]:
        if isinstance(expression, ast.Call):
            if self.module.callee(expression, PARTIAL) and expression.args:
                expression = value_of(expression.args[0])
            else:
                expression = expression.func
        name = self.module.matching_name(expression, LAUNCHERS)
        return name.rsplit(".", 1)[-1] if name else None

    # -- resolution: entry expressions to function nodes --

    def _resolve(self, expression: ast.expr, depth: int) -> Iterator[FunctionNode]:
        """Function definitions `expression` may evaluate to, following partial() and aliases."""
        if isinstance(expression, ast.Lambda):
            yield expression
        elif isinstance(expression, ast.Call) and self.module.callee(expression, PARTIAL):
            ordered = ordered_arguments(expression)
            if ordered and not isinstance(ordered[0], ast.Starred) and not _is_double_star(ordered[0]):
                for function in self._resolve(value_of(ordered[0]), depth):
                    self.result.partial_bindings.setdefault(function, []).append(expression)
                    yield function
        elif isinstance(expression, ast.Call) and depth > 0:
            # A kernel factory: `pallas_call(make_kernel(...))` runs what make_kernel returns.
            for factory in self._resolve(expression.func, 0):
                if not isinstance(factory, ast.Lambda):
                    for returned in _returned_values(factory):
                        yield from self._resolve(returned, depth - 1)
        elif isinstance(expression, ast.Name):
            for binding in self.module.bindings(expression):
                if isinstance(binding.node, FUNCTIONS):
                    yield binding.node  # type: ignore[misc]
            if depth > 0:
                for value in self._assigned_values(expression):
                    yield from self._resolve(value, depth - 1)

    def _functions_named(self, mention: ast.AST) -> Iterator[FunctionNode]:
        """Functions a name or `obj.attr` inside a kernel may call (an attribute by its last name)."""
        if isinstance(mention, ast.Name):
            yield from self._resolve(mention, 0)
        elif isinstance(mention, ast.Attribute):
            scope = self.module.scope_of.get(mention)
            for binding in scope.lookup(mention.attr) if scope is not None else ():
                if isinstance(binding.node, FUNCTIONS):
                    yield binding.node  # type: ignore[misc]

    def _assigned_values(self, name: ast.Name) -> Iterator[ast.expr]:
        """The right-hand sides of plain `name = value` assignments `name` may refer to."""
        for binding in self.module.bindings(name):
            if binding.value is not None:
                yield binding.value

    # -- functions shared with plain XLA code --

    def _used_outside_kernels(self, function: FunctionNode) -> bool:
        if isinstance(function, ast.Lambda):
            return False
        scope = self.module.scope_of_definition(function)
        for binding in scope.bindings.get(function.name, ()) if scope is not None else ():
            if binding.node is function:
                for reference in binding.references:
                    if not self._inside_kernel(self.module.enclosing.get(reference)):
                        return True
        return False

    def _inside_kernel(self, function: Optional[FunctionNode]) -> bool:
        while function is not None:
            if function in self.result.kernels:
                return True
            function = self.module.function_parent.get(function)
        return False


def _first_is_positional(call: ast.Call) -> bool:
    return ordered_arguments(call)[0] is call.args[0]


def _is_double_star(argument: ast.AST) -> bool:
    return isinstance(argument, ast.keyword) and argument.arg is None


def _returned_values(function: ast.AST) -> Iterator[ast.expr]:
    """Values of the `return` statements that belong to `function` itself, not to nested defs."""
    pending = list(function.body)  # type: ignore[attr-defined]
    while pending:
        node = pending.pop(0)
        if isinstance(node, ast.Return):
            if node.value is not None:
                yield node.value
        elif not isinstance(node, FUNCTIONS):
            pending.extend(ast.iter_child_nodes(node))


def _label(function: FunctionNode) -> str:
    return "lambda" if isinstance(function, ast.Lambda) else function.name
