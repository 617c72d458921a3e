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
from typing import Iterable, Iterator, Optional

from codemods.analysis.module import FUNCTIONS, MAX_ALIAS_DEPTH, Binding, FunctionNode, ModuleIndex, ordered_arguments
from codemods.analysis.names import PARTIAL, find_arg, value_of

# Every kernel launcher lives under jax.experimental.pallas: a file without this word launches no kernel.
KERNEL_MARKER = b"pallas"
MOSAIC_TPU, MOSAIC_GPU, TRITON = "mosaic_tpu", "mosaic_gpu", "triton"
Backends = frozenset[str]


@dataclass(frozen=True)
class Launcher:
    body_position: Optional[int]  # where the kernel body sits among its arguments; None: decorator only
    backends: Backends  # what it can lower for when nothing at the launch says which
    # Arguments that say which backend: keyword -> position (None: keyword only).
    selectors: tuple[tuple[str, Optional[int]], ...] = ()
    body_keyword: str = "body"  # the body's parameter name


_PALLAS = "jax.experimental.pallas."
_BY_PARAMS = (("compiler_params", None), ("backend", None))
_BY_MESH = (("mesh", None),)
LAUNCHERS: dict[str, Launcher] = {
    # No compiler params: Mosaic TPU on a TPU, Triton on a GPU (shared/NOTES.md, "Kernel backends").
    _PALLAS + "pallas_call": Launcher(0, frozenset({MOSAIC_TPU, TRITON}), _BY_PARAMS, "kernel"),
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
    direct: set[FunctionNode] = field(default_factory=set)  # bodies handed to a launcher (not helpers)
    # Module-level values (partials of ops) that kernels in other modules call: their backends, and
    # whether plain XLA code elsewhere calls them too.
    foreign_uses: dict[Binding, tuple[Backends, bool]] = field(default_factory=dict)
    # Launch arguments that name no function of this module (`pl.pallas_call(kernels.body)`).
    foreign_bodies: list[tuple[ast.AST, str, Backends]] = field(default_factory=list)
    # Functions that pass a parameter on as a kernel body (`def run(body): pl.pallas_call(body, ...)`),
    # with that parameter and the backends the launch reaches: launchers of their own.
    launch_helpers: dict[FunctionNode, tuple[ast.arg, Backends]] = field(default_factory=dict)
    # Module-level partials of a launcher (`tpu_call = functools.partial(pl.pallas_call, ...)`): the
    # body's position in their calls, its keyword, and the backends they reach. Launchers too.
    partial_launchers: dict[str, tuple[int, str, Backends]] = field(default_factory=dict)
    # functools.partial(body, ...) calls that bind a kernel's arguments, for value resolution.
    partial_bindings: dict[FunctionNode, list[ast.Call]] = field(default_factory=dict)
    # Values `functools.partial(kernel, ...)` binds a kernel's parameters to, with the kernel's
    # backends: a function handed so (`partial(kernel, epilogue=finish)`) runs where the kernel runs.
    handed: dict[ast.expr, Backends] = field(default_factory=dict)
    # Kernel bodies whose launch passes `compiler_params` as a dict (`dict(mosaic=...)`), a spelling
    # jax >= 0.10.2 rejects ("unhashable type: 'dict'"); and kernel bodies (with every function they
    # call) launched with `plgpu.CompilerParams(approx_math=True)`, where Mosaic GPU approximates
    # rsqrt, sqrt, tanh, exp, log, sin, cos, ... Read by the rules (JAX001, JAX002) to say so.
    dict_compiler_params: set[FunctionNode] = field(default_factory=set)
    approx_math: set[FunctionNode] = field(default_factory=set)

    def kernel_of(self, node: ast.AST) -> Optional[FunctionNode]:
        """The kernel body `node` (a call, a name or an attribute) runs in (itself or an enclosing
        function), if any."""
        while isinstance(node, ast.Attribute):
            node = node.value
        function = self.module.enclosing.get(node)
        while function is not None:
            if function in self.kernels:
                return function
            function = self.module.function_parent.get(function)
        return None

    def backends_of(self, node: ast.AST) -> Backends:
        """The backends the kernel around `node` may be lowered for (empty outside kernels); for a
        value bound to a name (`exp_hi = functools.partial(lax.exp, ...)`), also those of every
        kernel that uses the name: that is where it runs."""
        found: Backends = frozenset()
        seen, pending = {node}, [node]
        while pending:  # a name rebound from itself (`s = s if c else t`) uses its own value: a cycle
            node = pending.pop()
            kernel = self.kernel_of(node)
            found |= self.backends.get(kernel, frozenset()) if kernel is not None else frozenset()
            binding = self.module.binding_of_value(node)
            if binding in self.foreign_uses:
                found |= self.foreign_uses[binding][0]
            fresh = [use for use in self.uses_of(node) if use not in seen]
            seen.update(fresh)
            pending += fresh
        return found

    def uses_of(self, node: ast.AST) -> list[ast.AST]:
        """The loads of the name `node` is bound to by `name = node`; in a class body, also the
        `Class.name` and `self.name` attributes that read it."""
        binding = self.module.binding_of_value(node)
        if binding is None:
            return []
        if binding.scope.kind != "class":
            return list(binding.references)
        owner = binding.scope.node
        uses: list[ast.AST] = list(binding.references)
        for mentions in self.module.mentions.values():
            for mention in mentions:
                if isinstance(mention, ast.Attribute) and mention.attr == binding.name \
                        and isinstance(mention.value, ast.Name) and owner in classes_read(self.module, mention.value):
                    uses.append(mention)
        return uses

    def used_outside_kernels(self, node: ast.AST) -> list[ast.AST]:
        """Loads of the name `node` is bound to that sit outside kernel bodies (plain XLA code), when
        kernels use it too: a rewrite of `node` would change both."""
        uses = self.uses_of(node)
        outside = [use for use in uses if self.kernel_of(use) is None]
        binding = self.module.binding_of_value(node)
        if binding in self.foreign_uses:  # used in other modules: their kernels, maybe their plain code
            _, shared_elsewhere = self.foreign_uses[binding]
            return outside or ([node] if shared_elsewhere else [])
        return outside if len(outside) < len(uses) else []


@dataclass(frozen=True)
class ModuleFacts:
    """What the rest of the project says about one module (codemods/analysis/project.py): which of
    its top-level functions other modules launch as kernel bodies or call from kernels, which of
    those plain XLA code elsewhere uses too, and the launch helpers other modules define."""

    kernels: tuple[tuple[str, Backends, str, str], ...] = ()  # (def name, backends, why, one of ROLES)
    shared: frozenset[str] = frozenset()
    launchers: tuple[tuple[str, Optional[int], str, Backends], ...] = ()  # (qualified name, position, keyword, backends)

    @property
    def holds_kernels(self) -> bool:
        """Kernels run here without the module saying pallas: its functions are launched or called
        from kernels elsewhere, or it launches its own through another module's launcher."""
        return bool(self.kernels or self.launchers)


NO_FACTS = ModuleFacts()
# What another module does with a function: hands it to a launcher, calls it from a kernel, or
# launches what it returns (a kernel factory).
BODY, HELPER, FACTORY = "body", "helper", "factory"


def find_kernels(module: ModuleIndex, facts: ModuleFacts = NO_FACTS) -> KernelScope:
    return _KernelFinder(module, facts).result


class _KernelFinder:
    def __init__(self, module: ModuleIndex, facts: ModuleFacts) -> None:
        self.module = module
        self.result = KernelScope(module)
        helpers = {name: (position, keyword, launched) for name, position, keyword, launched in facts.launchers}
        self._launches: dict[int, list[ast.Call]] = {}  # id(body expression or decorator) -> its launch calls
        self._handed_to_kernels: dict[ast.expr, FunctionNode] = {}
        entries: list[tuple[ast.expr, str, Backends]] = []
        kernels, backends = self.result.kernels, self.result.backends
        for function in module.function_parent:
            for decorator in getattr(function, "decorator_list", ()):
                found = self._launcher_in_decorator(decorator)
                if found:
                    name, launched = found
                    kernels[function] = f"decorated with {name.rsplit('.', 1)[-1]}"
                    self._note_launch(function, self._launches.get(id(decorator), ()))
                    backends[function] = backends.get(function, frozenset()) | launched
        for name, launched, why, role in facts.kernels:  # launched or called from kernels in other modules
            for binding in module.module_scope.bindings.get(name, ()):
                if isinstance(binding.node, FUNCTIONS) and role == FACTORY:
                    entries += [(returned, why, launched) for returned in returned_values(binding.node)]
                elif isinstance(binding.node, FUNCTIONS):
                    entries.append((binding.node, why, launched))  # type: ignore[arg-type]
                elif binding.value is not None:  # `exp_hi = functools.partial(...)` another module's kernels call
                    self.result.foreign_uses[binding] = (launched, name in facts.shared)
        for call in module.calls:
            launcher = module.callee(call, LAUNCHERS)
            helper = module.callee(call, helpers) if helpers and launcher is None else None
            if launcher is not None:
                entries += self._body_of(launcher, call, [call])
            elif helper is not None:  # a launch helper another module defines
                position, keyword, launched = helpers[helper]
                body = find_arg(call, position, (keyword,))
                if body is not None:
                    entries.append((value_of(body), f"passed to {helper.rsplit('.', 1)[-1]}", launched))
            elif isinstance(call.func, ast.Call):
                entries += self._body_of(*self._partial_launcher(call.func, call))
            elif isinstance(call.func, ast.Name):  # maybe `tiled = partial(pl.pallas_call, ...)`; `tiled(body)`
                for value in self._assigned_values(call.func):
                    if isinstance(value, ast.Call):
                        entries += self._body_of(*self._partial_launcher(value, call))
            entries += self._mapped_bodies(call)
        helpers_seen: set[tuple[FunctionNode, ast.arg]] = set()
        while entries:
            expression, why, launched = entries.pop()
            resolved = False
            for function in self._resolve(expression, MAX_ALIAS_DEPTH):
                resolved = True
                kernels.setdefault(function, why)
                self._note_launch(function, self._launches.get(id(expression), ()))
                backends[function] = backends.get(function, frozenset()) | launched
            if not resolved:  # maybe a body imported from another module: the project index follows it
                self.result.foreign_bodies.append((expression, why, launched))
                for value in self._partial_arguments(expression):  # `partial(kernels.body, finish=f)`
                    self.result.handed[value] = self.result.handed.get(value, frozenset()) | launched
            for helper, param in self._parameters(expression):
                # A launch helper (`def run(body): return pl.pallas_call(body, ...)`): what its callers
                # pass for that parameter is a kernel body.
                if (helper, param) not in helpers_seen:
                    helpers_seen.add((helper, param))
                    self.result.launch_helpers[helper] = (param, launched)
                    entries += [(argument, f"{why} through {_label(helper)}", launched)
                                for argument in self._arguments_for(helper, param)]
        direct = set(kernels)
        pending = list(direct)
        for value, launched in list(self.result.handed.items()):  # handed to another module's kernel
            for function in self._resolve(value, 0):
                kernels.setdefault(function, "passed to a kernel body")
                backends[function] = backends.get(function, frozenset()) | launched
                pending.append(function)
        while pending:  # until every function a kernel reaches carries every backend it may run on
            kernel = pending.pop()
            reached = [(function, "called from") for inner in module.functions_within(kernel)
                       for mention in module.mentions.get(inner, ()) for function in self._functions_named(mention)]
            reached += [(function, "passed to") for value in self._handed_to(kernel)
                        for function in self._resolve(value, 0)]
            for function, how in reached:
                before = backends.get(function, frozenset())
                if function not in kernels:
                    kernels[function] = f"{how} a kernel body ({_label(kernel)})"
                if function not in direct and not backends[kernel] <= before:
                    backends[function] = before | backends[kernel]
                    pending.append(function)
        for value, kernel in self._handed_to_kernels.items():
            self.result.handed[value] = self.result.handed.get(value, frozenset()) | backends[kernel]
        direct -= {f for f in direct if getattr(f, "name", None) in {n for n, _, _, role in facts.kernels if role == HELPER}}
        self.result.direct = direct
        self.result.shared = {f for f in kernels if f not in direct and (
            self._used_outside_kernels(f) or getattr(f, "name", None) in facts.shared)}
        self._spread_approx_math()
        self._find_partial_launchers()

    def _find_partial_launchers(self) -> None:
        for name, bindings in self.module.module_scope.bindings.items():
            for binding in bindings:
                if not isinstance(binding.value, ast.Call):
                    continue
                launcher, _, _ = self._partial_launcher(binding.value, binding.value)
                spec = LAUNCHERS.get(launcher or "")
                if spec is None or spec.body_position is None or len(binding.value.args) - 1 > spec.body_position:
                    continue  # not a launcher, or one whose body is bound already
                position = spec.body_position - (len(binding.value.args) - 1)
                self.result.partial_launchers[name] = (position, spec.body_keyword,
                                                       self._launch_backends(launcher, [binding.value]))

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
        self._launches[id(value_of(body))] = launch
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
        original = expression
        if isinstance(expression, ast.Call):
            if self.module.callee(expression, PARTIAL) and expression.args:
                launch = [expression]
                expression = value_of(expression.args[0])
            else:
                launch = [expression]
                expression = expression.func
        name = self.module.matching_name(expression, LAUNCHERS)
        self._launches[id(original)] = launch
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
                    found = self._backends_of_value(value_of(argument), MAX_ALIAS_DEPTH)
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

    # -- what a launch's compiler params say beyond the backend (dict spelling, approx_math) --

    def _note_launch(self, function: FunctionNode, launch: Iterable[ast.Call]) -> None:
        for call in launch:
            argument = find_arg(call, None, ("compiler_params",))
            values = [value_of(argument)] if argument is not None else []
            for _ in range(MAX_ALIAS_DEPTH):  # through `params = ...` variables
                values += [v for value in values if isinstance(value, ast.Name) for v in self._assigned_values(value)
                           if v not in values]
            for value in values:
                if isinstance(value, ast.Dict) or (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                                                   and value.func.id == "dict" and not self.module.bindings(value.func)):
                    self.result.dict_compiler_params.add(function)
                elif isinstance(value, ast.Call) and self._backends_of_value(value, 0) == {MOSAIC_GPU} and any(
                        k.arg == "approx_math" and not (isinstance(k.value, ast.Constant) and not k.value.value)
                        for k in value.keywords):
                    self.result.approx_math.add(function)

    def _spread_approx_math(self) -> None:
        """What an approx_math kernel calls runs under approx_math too."""
        pending = list(self.result.approx_math)
        while pending:
            for inner in self.module.functions_within(pending.pop()):
                for mention in self.module.mentions.get(inner, ()):
                    for function in self._functions_named(mention):
                        if function in self.result.kernels and function not in self.result.approx_math:
                            self.result.approx_math.add(function)
                            pending.append(function)

    # -- resolution: entry expressions to function nodes --

    def _mapped_bodies(self, call: ast.Call) -> list[tuple[ast.expr, str, Backends]]:
        """`map(pl.pallas_call, (k1, k2))`: each element is a kernel body."""
        if not (isinstance(call.func, ast.Name) and call.func.id == "map" and not self.module.bindings(call.func)
                and len(call.args) == 2 and not call.keywords):
            return []
        function, launch = call.args[0], []
        if isinstance(function, ast.Call) and self.module.callee(function, PARTIAL) and function.args \
                and len(function.args) == 1:  # map(functools.partial(pl.pallas_call, out_shape=...), bodies)
            function, launch = function.args[0], [function]
        launcher = self.module.matching_name(function, LAUNCHERS)
        if launcher is None or LAUNCHERS[launcher].body_position != 0:
            return []
        launched = self._launch_backends(launcher, launch)
        return [(element, f"mapped by {launcher.rsplit('.', 1)[-1]}", launched)
                for element in self._elements(call.args[1])]

    def _elements(self, expression: ast.expr) -> list[ast.expr]:
        """The elements of a literal tuple, list or set (or a dict's values), through a name bound once."""
        if isinstance(expression, ast.Name):
            values = list(self._assigned_values(expression))
            expression = values[0] if len(values) == 1 else expression
        if isinstance(expression, ast.Call) and isinstance(expression.func, ast.Attribute) \
                and expression.func.attr == "values" and not expression.args:
            return self._elements(expression.func.value) if isinstance(expression.func.value, (ast.Name, ast.Dict)) else []
        if isinstance(expression, ast.Dict):
            return list(expression.values)
        if isinstance(expression, (ast.Tuple, ast.List, ast.Set)):
            return [e for e in expression.elts if not isinstance(e, ast.Starred)]
        return []

    def _parameters(self, expression: ast.expr) -> Iterator[tuple[FunctionNode, ast.arg]]:
        """The parameters (and their functions) a body expression may be: `body` in `def run(body)`."""
        if isinstance(expression, ast.Call) and self.module.callee(expression, PARTIAL) and expression.args:
            expression = expression.args[0]
        if isinstance(expression, ast.Name):
            for binding in self.module.bindings(expression):
                if binding.is_parameter:
                    yield self.module.parent[self.module.parent[binding.node]], binding.node  # type: ignore[misc]

    def _arguments_for(self, function: FunctionNode, param: ast.arg) -> list[ast.AST]:
        """What callers in this module pass for `param`: call arguments, partial() bindings, the
        default, the function a decorator use decorates, the elements `map(function, ...)` feeds it."""
        found: list[ast.AST] = []
        arguments = function.args
        positional = [*arguments.posonlyargs, *arguments.args]
        index = positional.index(param) if param in positional else None
        references: list[ast.AST] = [function] if isinstance(function, ast.Lambda) else []
        if not isinstance(function, ast.Lambda):
            scope = self.module.scope_of_definition(function)
            for binding in scope.bindings.get(function.name, ()) if scope is not None else ():
                if binding.node is function:
                    references += binding.references
        for reference in references:
            holder = self.module.parent.get(reference)
            if isinstance(holder, ast.Call) and holder.func is reference:
                argument = find_arg(holder, index, (param.arg,))
                if argument is not None:
                    found.append(value_of(argument))
            elif isinstance(holder, ast.Call) and self.module.callee(holder, PARTIAL) and holder.args \
                    and holder.args[0] is reference:
                argument = find_arg(holder, None if index is None else index + 1, (param.arg,))
                if argument is not None:
                    found.append(value_of(argument))
            elif isinstance(holder, ast.Call) and isinstance(holder.func, ast.Name) and holder.func.id == "map" \
                    and holder.args and holder.args[0] is reference and index == 0 and len(holder.args) == 2:
                found += self._elements(holder.args[1])
            elif isinstance(holder, FUNCTIONS) and reference in getattr(holder, "decorator_list", ()) and index == 0:
                found.append(holder)  # `@run` over a def: the def is the body
        default = default_value(function, param)
        if default is not None:
            found.append(default)
        return found

    def _resolve(self, expression: ast.AST, depth: int) -> Iterator[FunctionNode]:
        """Function definitions `expression` may evaluate to, following partial(), aliases, loops
        over literals and dict-literal dispatch (`BODIES[name]`)."""
        if isinstance(expression, FUNCTIONS):
            yield expression  # type: ignore[misc]
        elif isinstance(expression, ast.Attribute) and isinstance(expression.value, ast.Name):
            # `self.kernel`, `Block.kernel`: a method of a class in this module.
            for owner in classes_read(self.module, expression.value):
                for statement in owner.body:
                    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name == expression.attr:
                        yield statement
        elif isinstance(expression, ast.Subscript) and depth > 0:
            for element in self._elements(expression.value):
                yield from self._resolve(element, depth - 1)
        elif isinstance(expression, ast.Call) and self.module.callee(expression, PARTIAL):
            ordered = ordered_arguments(expression)
            if ordered and not isinstance(ordered[0], ast.Starred) and not _is_double_star(ordered[0]):
                for function in self._resolve(value_of(ordered[0]), depth):
                    bindings = self.result.partial_bindings.setdefault(function, [])
                    if expression not in bindings:  # a partial a kernel names twice is still one binding
                        bindings.append(expression)
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
                for binding in self.module.bindings(expression):
                    for value in binding.iterated:
                        yield from self._resolve(value, depth - 1)

    def _functions_named(self, mention: ast.AST) -> Iterator[FunctionNode]:
        """Functions a name or `obj.attr` inside a kernel may call (an attribute by its last name)."""
        if isinstance(mention, ast.Name):  # a def, or what the name is bound to (`project = lambda ...`)
            yield from self._resolve(mention, MAX_ALIAS_DEPTH)
        elif isinstance(mention, ast.Attribute):
            scope = self.module.scope_of.get(mention)
            for binding in scope.lookup(mention.attr) if scope is not None else ():
                if isinstance(binding.node, FUNCTIONS):
                    yield binding.node  # type: ignore[misc]

    def _handed_to(self, kernel: FunctionNode) -> list[ast.expr]:
        """What `functools.partial(kernel, ...)` binds the kernel's parameters to: a function among
        them (`partial(kernel, epilogue=finish)`) runs inside the kernel when the kernel calls it.
        (A parameter's default is a mention of the kernel's own: followed as a call is.)"""
        handed = [value for partial in self.result.partial_bindings.get(kernel, ())
                  for value in self._partial_arguments(partial)]
        self._handed_to_kernels.update(dict.fromkeys(handed, kernel))
        return handed

    def _partial_arguments(self, expression: ast.expr) -> list[ast.expr]:
        """The values `functools.partial(body, ...)` binds (none for another expression)."""
        if not (isinstance(expression, ast.Call) and self.module.callee(expression, PARTIAL)):
            return []
        return [value_of(argument) for argument in ordered_arguments(expression)[1:]
                if not isinstance(argument, ast.Starred)]

    def _assigned_values(self, name: ast.Name) -> Iterator[ast.expr]:
        """The right-hand sides of plain `name = value` assignments `name` may refer to."""
        for binding in self.module.bindings(name):
            if binding.value is not None:
                yield binding.value

    # -- functions shared with plain XLA code --

    def _used_outside_kernels(self, function: FunctionNode) -> bool:
        if isinstance(function, ast.Lambda):  # `project = lambda ...`: the uses of that name
            binding = self.module.binding_of_value(function)
            bindings = [binding] if binding is not None else []
        else:
            scope = self.module.scope_of_definition(function)
            bindings = [b for b in scope.bindings.get(function.name, ()) if b.node is function] if scope else []
        return self._used_plainly(bindings, MAX_ALIAS_DEPTH)

    def _used_plainly(self, bindings: list[Binding], depth: int) -> bool:
        """Whether a reference to one of `bindings` sits outside kernels. Handing a function to a
        kernel is no such use, and an alias (`contract = project`) is used where its own name is."""
        for binding in bindings:
            for reference in binding.references:
                if reference in self.result.handed or self._inside_kernel(self.module.enclosing.get(reference)):
                    continue
                alias = self.module.binding_of_value(reference)
                if alias is None or depth == 0 or self._used_plainly([alias], depth - 1):
                    return True
        return False

    def _inside_kernel(self, function: Optional[FunctionNode]) -> bool:
        while function is not None:
            if function in self.result.kernels:
                return True
            function = self.module.function_parent.get(function)
        return False


def classes_read(module: ModuleIndex, name: ast.Name) -> list[ast.ClassDef]:
    """The classes `name` may be: the class itself, or the first parameter (`self`, `cls`) of one
    of its methods."""
    found = []
    for binding in module.bindings(name):
        if isinstance(binding.node, ast.ClassDef):
            found.append(binding.node)
        elif binding.is_parameter:
            function = module.parent[module.parent[binding.node]]
            arguments = [*function.args.posonlyargs, *function.args.args]
            owner = module.parent.get(function)
            if arguments and arguments[0] is binding.node and isinstance(owner, ast.ClassDef):
                found.append(owner)
    return found


def default_value(function: FunctionNode, param: ast.arg) -> Optional[ast.expr]:
    """The default of a parameter, if it has one."""
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    if param in positional:
        index = positional.index(param) - (len(positional) - len(arguments.defaults))
        return arguments.defaults[index] if index >= 0 else None
    if param in arguments.kwonlyargs:
        return arguments.kw_defaults[arguments.kwonlyargs.index(param)]
    return None


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
