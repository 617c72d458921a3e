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

MOSAIC_TPU, MOSAIC_GPU, TRITON = "mosaic_tpu", "mosaic_gpu", "triton"
Backends = frozenset[str]


@dataclass(frozen=True)
class Launcher:
    body_position: Optional[int]  # where the kernel body sits among its arguments; None: decorator only
    backends: Backends  # what it can lower for when nothing at the launch says which
    # Arguments that say which backend: keyword -> position (None: keyword only).
    selectors: tuple[tuple[str, Optional[int]], ...] = ()


_PALLAS = "jax.experimental.pallas."
_BY_PARAMS = (("compiler_params", None), ("backend", None))
_BY_MESH = (("mesh", None),)
LAUNCHERS: dict[str, Launcher] = {
    # No compiler params: Mosaic TPU on a TPU, Triton on a GPU (shared/NOTES.md, "Kernel backends").
    _PALLAS + "pallas_call": Launcher(0, frozenset({MOSAIC_TPU, TRITON}), _BY_PARAMS),
    _PALLAS + "kernel": Launcher(0, frozenset({MOSAIC_TPU, MOSAIC_GPU}), _BY_MESH + _BY_PARAMS),
    _PALLAS + "core_map": Launcher(None, frozenset({MOSAIC_TPU, MOSAIC_GPU}), (("mesh", 0),) + _BY_PARAMS),
    _PALLAS + "mosaic_gpu.kernel": Launcher(0, frozenset({MOSAIC_GPU})),
    _PALLAS + "mosaic_gpu.emit_pipeline": Launcher(0, frozenset({MOSAIC_GPU})),
    _PALLAS + "mosaic_gpu.emit_pipeline_warp_specialized": Launcher(0, frozenset({MOSAIC_GPU})),
    _PALLAS + "tpu.emit_pipeline": Launcher(0, frozenset({MOSAIC_TPU})),
    _PALLAS + "tpu.emit_pipeline_with_allocations": Launcher(0, frozenset({MOSAIC_TPU})),
}
BACKEND_NAMES = {MOSAIC_TPU: "Mosaic TPU", MOSAIC_GPU: "Mosaic GPU", TRITON: "Triton"}


def describe_backends(backends: Backends) -> str:
    """`{"mosaic_tpu", "triton"}` -> "Mosaic TPU and Triton"."""
    return " and ".join(sorted(BACKEND_NAMES.get(backend, backend) for backend in backends))


# The backend whose module defines a CompilerParams class or a mesh (users alias all three
# `CompilerParams` under other names: the module, not the name, says which).
_BACKEND_MODULES = (
    (_PALLAS + "tpu.", MOSAIC_TPU), ("jax._src.pallas.mosaic.", MOSAIC_TPU),
    (_PALLAS + "mosaic_gpu.", MOSAIC_GPU), ("jax._src.pallas.mosaic_gpu.", MOSAIC_GPU),
    (_PALLAS + "triton.", TRITON), ("jax._src.pallas.triton.", TRITON),
)
# `compiler_params=dict(mosaic=...)` / `{"triton": {...}}`, and `backend="..."`: the older spellings.
_BACKEND_WORDS = {"mosaic": MOSAIC_TPU, "mosaic_tpu": MOSAIC_TPU, "tpu": MOSAIC_TPU,
                  "mosaic_gpu": MOSAIC_GPU, "triton": TRITON}

_BODY_KEYWORDS = ("kernel", "body", "f")
_MAX_ALIAS_DEPTH = 8  # `k = partial(body, ...)`, `k2 = k`, ... chains longer than this are not followed


@dataclass
class KernelScope:
    """The answer for one module: kernel bodies, and how to find the one enclosing a call."""

    module: ModuleIndex
    kernels: dict[FunctionNode, str] = field(default_factory=dict)  # body -> why it is one
    # The backends each kernel body (and each function it calls) may be lowered for.
    backends: dict[FunctionNode, Backends] = field(default_factory=dict)
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

    def backends_of(self, node: ast.AST) -> Backends:
        """The backends the kernel around `node` may be lowered for (empty outside kernels)."""
        kernel = self.kernel_of(node)
        return self.backends.get(kernel, frozenset()) if kernel is not None else frozenset()


def find_kernels(module: ModuleIndex) -> KernelScope:
    return _KernelFinder(module).result


class _KernelFinder:
    def __init__(self, module: ModuleIndex) -> None:
        self.module = module
        self.result = KernelScope(module)
        entries: list[tuple[ast.expr, str, Backends]] = []
        kernels, backends = self.result.kernels, self.result.backends
        for function in module.function_parent:
            for decorator in getattr(function, "decorator_list", ()):
                found = self._launcher_in_decorator(decorator)
                if found:
                    name, launched = found
                    kernels[function] = f"decorated with {name.rsplit('.', 1)[-1]}"
                    backends[function] = backends.get(function, frozenset()) | launched
        for call in module.calls:
            launcher = module.callee(call, LAUNCHERS)
            if launcher is not None:
                entries += self._body_of(launcher, call, [call])
            elif isinstance(call.func, ast.Call):
                entries += self._body_of(*self._partial_launcher(call.func, call))
            elif isinstance(call.func, ast.Name):  # maybe `tiled = partial(pl.pallas_call, ...)`; `tiled(body)`
                for value in self._assigned_values(call.func):
                    if isinstance(value, ast.Call):
                        entries += self._body_of(*self._partial_launcher(value, call))
        for expression, why, launched in entries:
            for function in self._resolve(expression, _MAX_ALIAS_DEPTH):
                kernels.setdefault(function, why)
                backends[function] = backends.get(function, frozenset()) | launched
        direct = set(kernels)
        pending = list(direct)
        while pending:  # until every function a kernel reaches carries every backend it may run on
            kernel = pending.pop()
            for inner in module.functions_within(kernel):
                for mention in module.mentions.get(inner, ()):
                    for function in self._functions_named(mention):
                        before = backends.get(function, frozenset())
                        if function not in kernels:
                            kernels[function] = f"called from a kernel body ({_label(kernel)})"
                        if function not in direct and not backends[kernel] <= before:
                            backends[function] = before | backends[kernel]
                            pending.append(function)
        self.result.shared = {f for f in kernels if f not in direct and self._used_outside_kernels(f)}

    # -- entry points --

    def _body_of(self, launcher: Optional[str], holder: ast.Call, launch: list[ast.Call]
                 ) -> list[tuple[ast.expr, str, Backends]]:
        """The kernel body `holder` passes to `launcher`, and the backends the launch (`launch`: the
        calls whose arguments configure it) can reach."""
        if launcher is None or LAUNCHERS[launcher].body_position is None:
            return []
        body = find_arg(holder, LAUNCHERS[launcher].body_position, _BODY_KEYWORDS)
        if body is None:
            return []
        return [(value_of(body), f"passed to {launcher.rsplit('.', 1)[-1]}", self._launch_backends(launcher, launch))]

    def _partial_launcher(self, partial: ast.Call, outer: ast.Call
                          ) -> tuple[Optional[str], ast.Call, list[ast.Call]]:
        """`functools.partial(pl.pallas_call, ...)(body)`: the launcher, the call holding its body
        (the partial itself when it already binds the body positionally) and the launch's calls."""
        if not (self.module.callee(partial, PARTIAL) and partial.args and _first_is_positional(partial)):
            return None, outer, []
        launcher = self.module.matching_name(value_of(partial.args[0]), LAUNCHERS)
        bound = partial.args[1:]
        holder = ast.Call(func=partial.func, args=bound, keywords=partial.keywords) if bound else outer
        return launcher, holder, [partial, outer]

    def _launcher_in_decorator(self, expression: ast.expr) -> Optional[tuple[str, Backends]]:
        launch: list[ast.Call] = []
        if isinstance(expression, ast.Call):
            if self.module.callee(expression, PARTIAL) and expression.args:
                launch = [expression]
                expression = value_of(expression.args[0])
            else:
                launch = [expression]
                expression = expression.func
        name = self.module.matching_name(expression, LAUNCHERS)
        return (name, self._launch_backends(name, launch)) if name else None

    # -- which backends a launch can reach --

    def _launch_backends(self, launcher: str, launch: list[ast.Call]) -> Backends:
        """What the launch's compiler params, backend or mesh say; else all the launcher can reach."""
        spec = LAUNCHERS[launcher]
        for keyword, position in spec.selectors:
            for call in launch:
                # A partial's own positional arguments are shifted by the callee it binds.
                shift = 1 if self.module.callee(call, PARTIAL) else 0
                argument = find_arg(call, None if position is None else position + shift, (keyword,))
                if argument is not None:
                    found = self._backends_of_value(value_of(argument), _MAX_ALIAS_DEPTH)
                    if found:
                        return found & spec.backends or found
        return spec.backends

    def _backends_of_value(self, value: ast.expr, depth: int) -> Optional[Backends]:
        """The backend a compiler-params object, mesh or backend name belongs to (None: unknown)."""
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            found = _BACKEND_WORDS.get(value.value.lower())
            return frozenset({found}) if found else None
        if isinstance(value, ast.Dict):
            words = {_BACKEND_WORDS.get(k.value) for k in value.keys if isinstance(k, ast.Constant)}
            return frozenset(words - {None}) or None  # type: ignore[arg-type]
        if isinstance(value, ast.Call):
            if isinstance(value.func, ast.Name) and value.func.id == "dict" and not self.module.bindings(value.func):
                words = {_BACKEND_WORDS.get(k.arg or "") for k in value.keywords}
                return frozenset(words - {None}) or None  # type: ignore[arg-type]
            value = value.func
        if isinstance(value, ast.Name) and depth > 0:
            found = [self._backends_of_value(v, depth - 1) for v in self._assigned_values(value)]
            if found and all(found):
                return frozenset().union(*found)  # type: ignore[arg-type]
        for name in self.module.qualified_names(value):
            for prefix, backend in _BACKEND_MODULES:
                if name.startswith(prefix):
                    return frozenset({backend})
        return None

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
                    for returned in returned_values(factory):
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


def returned_values(function: ast.AST) -> Iterator[ast.expr]:
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
