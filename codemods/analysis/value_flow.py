"""What each expression of a module may evaluate to: the functions, partials, containers and
launchers that flow through it (an inclusion-based, Andersen-style value flow).

Kernel bodies reach their launch in every way Python composes values: aliases, partials (of
partials), tuples and dicts and their subscripts, unpacking, loops over `zip`/`enumerate`/`.items()`,
comprehensions, factories, launch helpers, decorators, class attributes and `self.` members. Rather
than one case per spelling, each construct adds "the values of X flow into Y" (or a rule that fires
for each value reaching X), and a worklist propagates values to a fixpoint. The analysis is flow-
and context-insensitive: a name holds every value any of its bindings may hold, a function's
parameter every value any call passes. Every value is made from a node of this module, so the
sets are finite and the solve terminates on any input (cycles included); nothing here recurses on
the user's code.

What the module cannot see is a value of its own: an import (`Foreign`, with the mention that reads
it, for the project index to follow), what a call of one returns (`ForeignResult`), `getattr`,
`*args` (`Unknown`). A parameter holds what the module's own calls pass; what callers elsewhere pass
is asked of the graph backwards (`parameters_into`: a launch helper). A launch whose body is left
with none of these is reported by the rules, never taken for plain code silently.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Optional, Union

from codemods.analysis.module import FUNCTIONS, Binding, FunctionNode, ModuleIndex
from codemods.analysis.names import PARTIAL


# -- the values --

@dataclass(frozen=True)
class Function:
    node: FunctionNode


@dataclass(frozen=True)
class Bound:
    """A method read from an instance (`self.body`): its first parameter is already bound."""
    node: FunctionNode


@dataclass(frozen=True)
class Class:
    node: ast.ClassDef


@dataclass(frozen=True)
class Instance:
    node: ast.ClassDef


@dataclass(frozen=True)
class Partial:
    """`functools.partial(f, *bound, **bound)`: the call, whose first argument is what it wraps."""
    call: ast.Call


@dataclass(frozen=True)
class Launcher:
    """A kernel launcher (`pl.pallas_call`) or a launch helper, with the calls that configured it
    so far (`pl.kernel(mesh=...)` used as a decorator)."""
    name: str
    calls: tuple[ast.Call, ...] = ()


@dataclass(frozen=True)
class Sequence:
    """A tuple, list, set, iterator or generator: `positions` when its length and order are known."""
    origin: object
    positions: Optional[tuple[object, ...]] = None


@dataclass(frozen=True)
class Mapping:
    origin: object


@dataclass(frozen=True)
class Foreign:
    """A value from outside the module, read at `mention` (`kernels.body`, an imported `body`)."""
    mention: ast.AST


@dataclass(frozen=True)
class ForeignResult:
    """What calling a value from outside the module returns (`make_body(...)`, imported)."""
    mention: ast.AST


@dataclass(frozen=True)
class Unknown:
    reason: str
    node: ast.AST


Value = Union[Function, Bound, Class, Instance, Partial, Launcher, Sequence, Mapping, Foreign, ForeignResult,
              Unknown]
_NOTHING = ("nothing",)  # a key nothing flows into: the index `enumerate` pairs with each element
_DISCARDED = ("discarded",)  # where results nobody reads go (what a launched body returns)


@dataclass(frozen=True)
class Launch:
    """A launcher applied to a body: where the body's values are, and the calls that configure it."""
    body: object  # a key of the flow
    launcher: str
    calls: tuple[ast.Call, ...]
    site: ast.AST  # the call (or decorated def) that launches


# Imports no project's kernel body comes from (jax's own launchers are matched by name, not as values):
# following every array their functions return would cost more than the rest of the analysis.
LIBRARIES = frozenset(sys.stdlib_module_names) | {
    "jax", "jaxlib", "numpy", "scipy", "ml_dtypes", "einops", "flax", "optax", "chex", "equinox", "haiku",
    "triton", "torch", "tensorflow", "absl", "opt_einsum", "typing_extensions", "numba",
}
_BUILTIN_SEQUENCES = {"reversed", "sorted", "list", "tuple", "set", "frozenset", "iter"}


class ValueFlow:
    """The value flow of one module. `launchers`: qualified name -> (body position, body keywords)."""

    def __init__(self, module: ModuleIndex, launchers: dict[str, tuple[Optional[int], tuple[str, ...]]]) -> None:
        self.module = module
        self._launchers = launchers
        self._launcher_names = {name.rsplit(".", 1)[-1] for name in launchers}  # a set lookup before resolving
        self.values: dict[object, set[Value]] = {}
        self._edges: dict[object, set[object]] = {}
        self._watchers: dict[object, list[Callable[[Value], None]]] = {}
        self._pending: list[tuple[object, Value]] = []
        self._derived: set[object] = set()  # synthetic keys whose rules are set up
        self._applied: set[tuple] = set()
        self._sources: Optional[dict[object, list[object]]] = None  # the graph backwards, when asked
        self.launches: list[Launch] = []
        self._target_bindings: dict[ast.AST, Binding] = {}
        self._collect_bindings()
        self._generate()
        self._solve()

    # -- queries --

    def of(self, key: object) -> frozenset[Value]:
        return frozenset(self.values.get(key, ()))

    def parameters_into(self, key: object) -> list[ast.arg]:
        """The parameters whose values flow into `key` (through names, containers, partials, ...):
        what callers this module does not show pass for them reaches it too. Backwards over the
        graph, each key once."""
        if self._sources is None:
            self._sources = {}
            for source, targets in self._edges.items():
                for target in targets:
                    self._sources.setdefault(target, []).append(source)
        found, seen, pending = [], {key}, [key]
        while pending:
            current = pending.pop()
            if isinstance(current, Binding) and isinstance(current.node, ast.arg):
                found.append(current.node)
            sources = [*self._sources.get(current, ()), *(self._partial_target(value.call)
                       for value in self.values.get(current, ()) if isinstance(value, Partial))]
            for source in sources:
                if source not in seen:
                    seen.add(source)
                    pending.append(source)
        return found

    def displays_into(self, key: object) -> list[Union[ast.Tuple, ast.List]]:
        """The tuple and list displays written in this module whose value may reach `key` (a
        precision pair carried through names, partials, containers and calls), in source order."""
        return sorted((value.origin for value in self.values.get(key, ())
                       if isinstance(value, Sequence) and isinstance(value.origin, (ast.Tuple, ast.List))),
                      key=lambda display: (display.lineno, display.col_offset))

    def binding_of(self, target: ast.AST) -> Optional[Binding]:
        """The binding a def, parameter or assignment target makes (a key of the flow)."""
        return self._target_bindings.get(target)

    def functions(self, values: Iterable[Value]) -> Iterator[tuple[FunctionNode, tuple[ast.Call, ...]]]:
        """The functions of this module among `values`, through partials (with the partials that
        bind each, outermost first)."""
        for leaf, partials in self.leaves(values):
            if isinstance(leaf, (Function, Bound)):
                yield leaf.node, partials

    def leaves(self, values: Iterable[Value]) -> Iterator[tuple[Value, tuple[ast.Call, ...]]]:
        """Every value that is not a partial among `values`, through partials (as `functions`)."""
        pending = [(value, ()) for value in values]
        seen: set = set()
        while pending:
            value, partials = pending.pop()
            if (value, partials) in seen:
                continue
            seen.add((value, partials))
            if isinstance(value, Partial):
                chain = (*partials, value.call)
                if value.call not in partials and len(chain) <= 16:
                    target = self._partial_target(value.call)
                    pending += [(value, chain) for value in self.values.get(target, ())]
            else:
                yield value, partials

    # -- the engine --

    def _add(self, key: object, value: Value) -> None:
        if key is None or key is _NOTHING or key is _DISCARDED:  # a binding the index does not hold; no value
            return
        found = self.values.setdefault(key, set())
        if value not in found:
            found.add(value)
            self._pending.append((key, value))

    def _flow(self, source: object, target: object) -> None:
        if source is target or target is None:
            return
        targets = self._edges.setdefault(source, set())
        if target not in targets:
            targets.add(target)
            for value in list(self.values.get(source, ())):
                self._add(target, value)

    def _watch(self, key: object, rule: Callable[[Value], None]) -> None:
        self._watchers.setdefault(key, []).append(rule)
        for value in list(self.values.get(key, ())):
            rule(value)

    def _solve(self) -> None:
        while self._pending:
            key, value = self._pending.pop()
            for target in list(self._edges.get(key, ())):
                self._add(target, value)
            for rule in list(self._watchers.get(key, ())):
                rule(value)

    # -- derived keys --

    def _elements(self, origin: object) -> tuple:
        return ("elements", origin)

    def _stored(self, origin: object) -> tuple:
        """What code stores into a list after it is built (`BODIES[0] = f`, `BODIES.append(f)`): its
        elements too, and at every position a read by index may find (the literal's positions
        alone would miss it)."""
        self._flow(("stored", origin), self._elements(origin))
        return ("stored", origin)

    def _shifted(self, value: "Sequence") -> None:
        """`BODIES.pop(0)`, `.sort()`, `del BODIES[0]`, ...: what a list holds moves to other positions,
        so a read by position may find any of it."""
        self._flow(self._elements(value.origin), self._stored(value.origin))

    def _at_position(self, value: "Sequence", position: int, target: object) -> None:
        """`target = value[position]`, where the sequence's positions are known: that position, and
        what was stored into it since, if it is a list."""
        self._flow(value.positions[position], target)  # type: ignore[index]
        if isinstance(value.origin, ast.List):
            self._flow(("stored", value.origin), target)

    def _iterated(self, key: object) -> tuple:
        """What iterating the values of `key` yields."""
        derived = ("iterated", key)
        if derived not in self._derived:
            self._derived.add(derived)

            def rule(value: Value) -> None:
                if isinstance(value, Sequence):
                    self._flow(self._elements(value.origin), derived)
                elif isinstance(value, Mapping):
                    self._flow(("keys", value.origin), derived)
                elif isinstance(value, (Foreign, ForeignResult, Unknown)):
                    self._add(derived, value)  # an element of another module's value: that value, for its index
            self._watch(key, rule)
        return derived

    def _partial_target(self, call: ast.Call) -> object:
        return call.args[0] if call.args and not isinstance(call.args[0], ast.Starred) else _NOTHING

    # -- constraints --

    def _collect_bindings(self) -> None:
        for scope in self.module.scopes:
            for bindings in scope.bindings.values():
                for binding in bindings:
                    self._target_bindings.setdefault(binding.node, binding)

    def _generate(self) -> None:
        """One pass over the nodes the module index already walked (no second tree walk); a name's
        loads come from its bindings' references (no scope lookups)."""
        scope = self.module.module_scope
        # Module names bound only to a library (`jnp`, `lax`, `pl`): what is read through them holds
        # no value of this analysis, so `jnp.dot(...)` and `x.shape` through them need no rule.
        self._library_names = {name for name, bindings in scope.bindings.items() if all(
            b.imported is not None and not b.imported.startswith(".") and b.imported.split(".")[0] in LIBRARIES
            for b in bindings)}
        self._partial_names = {"partial"} | {name for name, bindings in scope.bindings.items() if any(
            b.imported == "functools.partial" or _terminal(b.value) == "partial" for b in bindings)}
        for binding in self._target_bindings.values():  # first: a call asks whether its name is a launcher
            self._loads(binding)
        handlers = _HANDLERS
        for node in self.module.parent:
            handler = handlers.get(node.__class__)
            if handler is not None:
                handler(self, node)

    def _loads(self, binding: Binding) -> None:
        """What each load of a name reads: an import's value (a launcher, or another module's value),
        else what the binding holds. A launcher is resolved once per binding, not per load."""
        if binding.imported is not None:
            launcher = None
            if binding.imported.rsplit(".", 1)[-1] in self._launcher_names and binding.references:
                launcher = self.module.matching_name(binding.references[0], self._launchers)
            foreign = binding.imported.startswith(".") or binding.imported.split(".")[0] not in LIBRARIES
            for reference in binding.references:
                if foreign:
                    self._add(reference, Foreign(reference))
                if launcher is not None:
                    self._add(reference, Launcher(launcher))
            return
        if isinstance(binding.value, (ast.Name, ast.Attribute)) and binding.references:  # `launch = pl.pallas_call`
            launcher = self.module.matching_name(binding.references[0], self._launchers)
            if launcher is not None:
                self._add(binding, Launcher(launcher))
        for reference in binding.references:
            self._flow(binding, reference)

    def _resolve_launcher(self, node: ast.AST) -> None:
        name = self.module.matching_name(node, self._launchers)
        if name is not None:
            self._add(node, Launcher(name))

    def _attribute(self, node: ast.Attribute) -> None:
        if node.ctx.__class__ is not ast.Load:
            return
        attr = node.attr
        if attr in self._launcher_names:  # a set lookup before resolving the name
            self._resolve_launcher(node)
        if self._of_a_library(node.value):
            return

        def rule(value: Value) -> None:
            if isinstance(value, (Foreign, ForeignResult)):
                self._add(node, Foreign(node))
            elif isinstance(value, (Class, Instance)):
                self._flow(("member", value.node, attr), node)
                if isinstance(value, Instance):
                    self._flow(("bound", value.node, attr), node)
            elif isinstance(value, Unknown):
                self._add(node, Unknown(value.reason, value.node))
        self._watch(node.value, rule)

    def _subscript(self, node: ast.Subscript) -> None:
        if node.ctx.__class__ is ast.Del:  # `del BODIES[0]`
            self._watch(node.value, lambda value: self._shifted(value) if isinstance(value, Sequence) else None)
            return
        if node.ctx.__class__ is not ast.Load or self._of_a_library(node.value):
            return
        index = node.slice
        position = constant_index(index)

        def rule(value: Value) -> None:
            if isinstance(value, Sequence):
                if isinstance(index, ast.Slice):  # `BODIES[1:]`: the same elements, at positions not known
                    self._add(node, Sequence(value.origin))
                elif position is not None and value.positions is not None and -len(value.positions) <= position \
                        < len(value.positions):
                    self._at_position(value, position, node)
                else:
                    self._flow(self._elements(value.origin), node)
            elif isinstance(value, Mapping):
                self._flow(("values", value.origin), node)
            elif isinstance(value, (Foreign, ForeignResult, Unknown)):  # `BODIES[1]` of another module: BODIES
                self._add(node, value)
        self._watch(node.value, rule)

    def _sequence(self, node: Union[ast.Tuple, ast.List, ast.Set]) -> None:
        if getattr(node, "ctx", ast.Load()).__class__ is not ast.Load:
            return
        starred = any(isinstance(element, ast.Starred) for element in node.elts)
        self._add(node, Sequence(node, None if starred or isinstance(node, ast.Set) else tuple(node.elts)))
        for element in node.elts:
            if isinstance(element, ast.Starred):
                self._flow(self._iterated(element.value), self._elements(node))
            else:
                self._flow(element, self._elements(node))

    def _dict(self, node: ast.Dict) -> None:
        self._add(node, Mapping(node))
        for key, value in zip(node.keys, node.values):
            if key is None:  # `{**other}`
                self._merge_mapping(value, node)
            else:
                self._flow(key, ("keys", node))
                self._flow(value, ("values", node))

    def _merge_mapping(self, source: object, origin: object) -> None:
        def rule(value: Value) -> None:
            if isinstance(value, Mapping):
                self._flow(("keys", value.origin), ("keys", origin))
                self._flow(("values", value.origin), ("values", origin))
        self._watch(source, rule)

    def _comprehension(self, node: ast.AST) -> None:
        for generator in node.generators:  # type: ignore[attr-defined]
            self._unpack(generator.target, self._iterated(generator.iter))
        if isinstance(node, ast.DictComp):
            self._add(node, Mapping(node))
            self._flow(node.key, ("keys", node))
            self._flow(node.value, ("values", node))
        else:
            self._add(node, Sequence(node))
            self._flow(node.elt, self._elements(node))  # type: ignore[attr-defined]

    def _passthrough(self, node: ast.AST) -> None:
        """`a if c else b`, `a or b`, `(x := v)`, `await v`: the value of a part."""
        if isinstance(node, ast.IfExp):
            parts = [node.body, node.orelse]
        elif isinstance(node, ast.BoolOp):
            parts = node.values
        elif isinstance(node, ast.NamedExpr):
            parts = [node.value]
            self._unpack(node.target, node.value)
        else:
            parts = [node.value]  # type: ignore[attr-defined]
        for part in parts:
            self._flow(part, node)

    def _binop(self, node: ast.BinOp) -> None:
        if isinstance(node.op, (ast.Add, ast.BitOr)):  # `BODIES + (extra,)`, `TABLE | {...}`: the containers
            self._flow(node.left, node)
            self._flow(node.right, node)

    def _function(self, node: FunctionNode) -> None:
        holder = self.module.parent.get(node)
        owner = holder if isinstance(holder, ast.ClassDef) else None
        arguments = node.args
        positional = [*arguments.posonlyargs, *arguments.args]
        for arg in filter(None, (arguments.vararg, arguments.kwarg)):
            self._add(self._target_bindings.get(arg), Unknown("`*args` / `**kwargs`", arg))
        defaults = [None] * (len(positional) - len(arguments.defaults)) + list(arguments.defaults)
        for arg, default in [*zip(positional, defaults), *zip(arguments.kwonlyargs, arguments.kw_defaults)]:
            if default is not None:
                self._flow(default, self._target_bindings.get(arg))
        if isinstance(node, ast.Lambda):
            self._add(node, Function(node))
            self._flow(node.body, ("return", node))
            return
        method = owner is not None and not any(
            isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)
        if method and positional:
            first = self._target_bindings.get(positional[0])
            classmethod_ = any(isinstance(d, ast.Name) and d.id == "classmethod" for d in node.decorator_list)
            self._add(first, Class(owner) if classmethod_ else Instance(owner))
            self._add(("bound", owner, node.name), Bound(node))
        binding = self._target_bindings.get(node)
        current: object = ("def", node)
        self._add(current, Function(node))
        for decorator in reversed(node.decorator_list):  # innermost first
            result = ("decorated", decorator)
            self._call_site(decorator, [current], {}, result, node)
            self._flow(current, result)  # a wrapper (`jax.jit`) still calls the function
            current = result
        self._flow(current, binding)

    def _return(self, node: ast.Return) -> None:
        function = self.module.parent.get(node)
        while function is not None and not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            function = self.module.parent.get(function)
        if function is not None and node.value is not None:
            self._flow(node.value, ("return", function))

    def _class(self, node: ast.ClassDef) -> None:
        self._add(self._target_bindings.get(node), Class(node))
        for statement in node.body:
            targets: list[ast.AST] = []
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                targets = [statement]
            elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
                targets = [n for t in (statement.targets if isinstance(statement, ast.Assign) else [statement.target])
                           for n in ast.walk(t) if isinstance(n, ast.Name)]
            for target in targets:
                binding = self._target_bindings.get(target)
                if binding is not None:
                    self._flow(binding, ("member", node, binding.name))

    def _assign(self, node: ast.AST) -> None:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                self._unpack(target, node.value)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            self._unpack(node.target, node.value)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            self._flow(node.value, self._target_bindings.get(node.target))
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self._unpack(node.target, self._iterated(node.iter))

    def _unpack(self, target: ast.AST, source: object) -> None:
        """`target = <the values of source>`, for any target: a name, a tuple to unpack, `x[k]`, `obj.attr`."""
        if isinstance(target, ast.Name):
            binding = self._target_bindings.get(target)
            if binding is not None:
                self._flow(source, binding)
        elif isinstance(target, (ast.Tuple, ast.List)):
            # `a, *rest = ...`: `rest` is a list of what the starred part takes.
            parts = [self._elements(("rest", element)) if isinstance(element, ast.Starred) else ("part", element)
                     for element in target.elts]
            for element, part in zip(target.elts, parts):
                if isinstance(element, ast.Starred):
                    self._add(("part", element), Sequence(("rest", element)))
                    self._unpack(element.value, ("part", element))
                else:
                    self._unpack(element, part)
            starred = any(isinstance(element, ast.Starred) for element in target.elts)

            def rule(value: Value) -> None:
                if isinstance(value, Sequence) and value.positions is not None and not starred \
                        and len(value.positions) == len(parts):
                    for position, part in enumerate(parts):
                        self._at_position(value, position, part)
                elif isinstance(value, Sequence):
                    for part in parts:
                        self._flow(self._elements(value.origin), part)
                elif isinstance(value, Mapping):
                    for part in parts:
                        self._flow(("keys", value.origin), part)
                elif isinstance(value, (Foreign, ForeignResult, Unknown)):
                    for part in parts:
                        self._add(part, value)
            self._watch(source, rule)
        elif isinstance(target, ast.Subscript):
            def store(value: Value) -> None:
                if isinstance(value, Sequence):
                    self._flow(source, self._stored(value.origin))
                elif isinstance(value, Mapping):
                    self._flow(source, ("values", value.origin))
                    self._flow(target.slice, ("keys", value.origin))
            self._watch(target.value, store)
        elif isinstance(target, ast.Attribute):
            def member(value: Value) -> None:
                if isinstance(value, (Instance, Class)):
                    self._flow(source, ("member", value.node, target.attr))
            self._watch(target.value, member)

    # -- calls --

    def _call(self, node: ast.Call) -> None:
        module = self.module
        func = node.func
        if isinstance(func, ast.Name) and not module.bindings(func) and self._builtin(node, func.id):
            return
        if _terminal(func) in self._partial_names and module.callee(node, PARTIAL):
            self._add(node, Partial(node))
            # What it binds reaches the parameters now: the partial may be called where this module
            # does not see it (exported, or handed to another module).
            self._call_site(self._partial_target(node), list(node.args[1:]),
                            {k.arg: k.value for k in node.keywords}, _DISCARDED, node)
            return
        if self._of_a_library(func) and _terminal(func) not in self._launcher_names \
                and not any(isinstance(value, Launcher) for value in self.values.get(func, ())):
            return  # `jnp.dot(...)`: a library's function returns no value of this analysis
        if isinstance(func, ast.Attribute) and func.attr in _CONTAINER_METHODS:
            self._container_method(node, func)
        self._call_site(func, list(node.args), {k.arg: k.value for k in node.keywords}, node, node)

    def _of_a_library(self, node: ast.AST) -> bool:
        """`jnp`, `lax.Precision`, `pl.BlockSpec`: read through a module name bound only to a library
        (a launcher read so is matched by name, apart)."""
        while node.__class__ is ast.Attribute:
            node = node.value  # type: ignore[attr-defined]
        return node.__class__ is ast.Name and node.id in self._library_names  # type: ignore[attr-defined]

    def _builtin(self, node: ast.Call, name: str) -> bool:
        args = node.args
        if name == "zip":
            self._add(node, Sequence(node))
            self._add(self._elements(node), Sequence(("zip", node), tuple(self._iterated(a) for a in args)))
        elif name == "enumerate" and args:
            self._add(node, Sequence(node))
            self._add(self._elements(node), Sequence(("enumerate", node), (_NOTHING, self._iterated(args[0]))))
        elif name in _BUILTIN_SEQUENCES and args:
            self._add(node, Sequence(node))
            self._flow(self._iterated(args[0]), self._elements(node))
        elif name == "dict":
            self._add(node, Mapping(node))
            for keyword in node.keywords:
                if keyword.arg is None:
                    self._merge_mapping(keyword.value, node)
                else:
                    self._flow(keyword.value, ("values", node))
            if args:
                self._merge_mapping(args[0], node)

                def pairs(value: Value) -> None:
                    if isinstance(value, Sequence) and value.positions and len(value.positions) == 2:
                        self._flow(value.positions[0], ("keys", node))
                        self._flow(value.positions[1], ("values", node))
                self._watch(self._iterated(args[0]), pairs)
        elif name == "map" and len(args) >= 2:
            self._add(node, Sequence(node))
            self._call_site(args[0], [self._iterated(a) for a in args[1:]], {}, self._elements(node), node)
        elif name in ("staticmethod", "classmethod") and args:  # a function still (through the class)
            self._flow(args[0], node)
        elif name == "next" and args:
            self._flow(self._iterated(args[0]), node)
        elif name in ("getattr", "eval", "vars", "globals", "locals", "__import__"):
            self._add(node, Unknown(f"`{name}(...)`", node))
        else:
            return False
        return True

    def _container_method(self, node: ast.Call, func: ast.Attribute) -> None:
        method, args = func.attr, node.args

        def rule(value: Value) -> None:
            if isinstance(value, Mapping):
                origin = value.origin
                if method == "values":
                    self._add(node, Sequence(("values", node)))
                    self._flow(("values", origin), self._elements(("values", node)))
                elif method == "keys":
                    self._add(node, Sequence(("keys", node)))
                    self._flow(("keys", origin), self._elements(("keys", node)))
                elif method == "items":
                    self._add(node, Sequence(("items", node)))
                    self._add(self._elements(("items", node)),
                              Sequence(("item", origin), (("keys", origin), ("values", origin))))
                elif method in ("get", "pop", "setdefault"):
                    self._flow(("values", origin), node)
                    if len(args) > 1:
                        self._flow(args[1], node if method == "get" else ("values", origin))
                elif method == "update":
                    for arg in args:
                        self._merge_mapping(arg, origin)
                    for keyword in node.keywords:
                        self._flow(keyword.value, ("values", origin))
                elif method == "copy":
                    self._add(node, value)
            elif isinstance(value, (Foreign, ForeignResult)):  # `TABLE.values()` of another module: TABLE
                if method in ("get", "pop"):
                    self._add(node, value)
                elif method in ("values", "keys", "items"):
                    self._add(node, Sequence(("foreign", node)))
                    element = value if method != "items" else Sequence(("item", node), (("held", node), ("held", node)))
                    self._add(("held", node), value)
                    self._add(self._elements(("foreign", node)), element)
            elif isinstance(value, Sequence):
                if method in ("append", "add") and args:
                    self._flow(args[-1], self._stored(value.origin))
                elif method == "insert" and len(args) == 2:
                    self._flow(args[1], self._stored(value.origin))
                elif method == "extend" and args:
                    self._flow(self._iterated(args[0]), self._stored(value.origin))
                elif method == "pop":
                    self._flow(self._elements(value.origin), node)
                elif method == "copy":
                    self._add(node, value)
                if method in _SHIFTING:
                    self._shifted(value)
        self._watch(func.value, rule)

    def _call_site(self, callee: object, args: list, keywords: dict, result: object, site: ast.AST) -> None:
        """Apply every value of `callee` to `args` (keys, or Starred nodes) and `keywords` (name ->
        key; None for `**kwargs`); what it returns flows into `result`."""
        self._watch(callee, lambda value: self._apply(value, args, keywords, result, site, ()))

    def _apply(self, value: Value, args: list, keywords: dict, result: object, site: ast.AST,
               chain: tuple[ast.Call, ...]) -> None:
        key = (value, id(site), id(result), chain)
        if key in self._applied:
            return
        self._applied.add(key)
        if isinstance(value, (Function, Bound)):
            self._bind_arguments(value.node, args, keywords, skip=1 if isinstance(value, Bound) else 0)
            self._flow(("return", value.node), result)
        elif isinstance(value, Partial):
            call = value.call
            if call in chain or len(chain) >= 16:
                return
            bound = list(call.args[1:])
            merged = {**{k.arg: k.value for k in call.keywords}, **keywords}
            self._watch(self._partial_target(call), lambda inner: self._apply(
                inner, [*bound, *args], merged, result, site, (*chain, call)))
        elif isinstance(value, Launcher):
            self._launch(value, args, keywords, result, site, chain)
        elif isinstance(value, Class):
            self._add(result, Instance(value.node))
            self._flow(("bound", value.node, "__init__"), ("init", value.node, id(site)))
            self._call_site(("init", value.node, id(site)), args, keywords, _DISCARDED, site)
        elif isinstance(value, Instance):
            self._call_site(("bound", value.node, "__call__"), args, keywords, result, site)
        elif isinstance(value, (Foreign, ForeignResult)):
            self._add(result, ForeignResult(value.mention))
        elif isinstance(value, Unknown):
            self._add(result, Unknown("calls a value this analysis does not follow", value.node))

    def _bind_arguments(self, function: FunctionNode, args: list, keywords: dict, skip: int) -> None:
        arguments = function.args
        positional = [*arguments.posonlyargs, *arguments.args][skip:]
        named = {arg.arg: arg for arg in [*arguments.args, *arguments.kwonlyargs]}
        for index, argument in enumerate(args):
            if isinstance(argument, ast.Starred):  # `f(*xs)`: any later parameter may take an element
                for arg in positional[index:]:
                    self._flow(self._iterated(argument.value), self._target_bindings.get(arg))
                break
            if index < len(positional):
                self._flow(argument, self._target_bindings.get(positional[index]))
        for name, argument in keywords.items():
            if name is None:  # `f(**options)`
                continue
            if name in named:
                self._flow(argument, self._target_bindings.get(named[name]))

    def _launch(self, launcher: Launcher, args: list, keywords: dict, result: object, site: ast.AST,
                chain: tuple[ast.Call, ...]) -> None:
        position, names = self._launchers[launcher.name]
        if launcher.calls:  # configured by an earlier call (`pl.kernel(mesh=...)`): now given the body
            position, names = 0, ()
        calls = (*launcher.calls, *chain, *([site] if isinstance(site, ast.Call) else []))
        body = None
        if position is not None and position < len(args) and not isinstance(args[position], ast.Starred):
            body = args[position]
        else:
            body = next((keywords[name] for name in names if name in keywords), None)
        if body is None:  # `pl.kernel(mesh=...)` as a decorator, `pl.core_map(mesh)`: the body comes next
            if not any(isinstance(a, ast.Starred) for a in args) and None not in keywords:
                self._add(result, Launcher(launcher.name, calls))
            return
        self.launches.append(Launch(body, launcher.name, calls, site))
        # The launcher calls the body: what a partial binds reaches the body's parameters.
        self._call_site(body, [], {}, _DISCARDED, site)


def constant_index(index: ast.expr) -> Optional[int]:
    """The integer an index is written as: `1`, and `-1` too (a `UnaryOp`, not a constant, in the
    tree: read as unknown, `BODIES[-1]` took every element for the body). None for anything else."""
    sign = 1
    if isinstance(index, ast.UnaryOp) and isinstance(index.op, (ast.USub, ast.UAdd)):
        sign, index = (-1 if isinstance(index.op, ast.USub) else 1), index.operand
    if isinstance(index, ast.Constant) and isinstance(index.value, int) and not isinstance(index.value, bool):
        return sign * index.value
    return None


# The methods that move a list's elements to other positions.
_SHIFTING = frozenset({"pop", "remove", "reverse", "sort", "clear", "insert"})
_CONTAINER_METHODS = {"values", "keys", "items", "get", "setdefault", "update", "copy", "append", "add", "extend",
                      *_SHIFTING}

_HANDLERS: dict[type, Callable] = {
    ast.Attribute: ValueFlow._attribute, ast.Subscript: ValueFlow._subscript,
    ast.Tuple: ValueFlow._sequence, ast.List: ValueFlow._sequence, ast.Set: ValueFlow._sequence,
    ast.Dict: ValueFlow._dict, ast.ListComp: ValueFlow._comprehension, ast.SetComp: ValueFlow._comprehension,
    ast.GeneratorExp: ValueFlow._comprehension, ast.DictComp: ValueFlow._comprehension,
    ast.IfExp: ValueFlow._passthrough, ast.BoolOp: ValueFlow._passthrough, ast.NamedExpr: ValueFlow._passthrough,
    ast.Await: ValueFlow._passthrough, ast.BinOp: ValueFlow._binop,
    ast.FunctionDef: ValueFlow._function, ast.AsyncFunctionDef: ValueFlow._function, ast.Lambda: ValueFlow._function,
    ast.ClassDef: ValueFlow._class, ast.Assign: ValueFlow._assign, ast.AnnAssign: ValueFlow._assign,
    ast.AugAssign: ValueFlow._assign, ast.For: ValueFlow._assign, ast.AsyncFor: ValueFlow._assign,
    ast.Call: ValueFlow._call, ast.Return: ValueFlow._return,
}


def _terminal(node: object) -> Optional[str]:
    """`partial` for `functools.partial` or `partial`."""
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None


def returned_values(function: ast.AST) -> Iterator[ast.expr]:
    """Values of the `return` statements that belong to `function` itself, not to nested defs."""
    pending = list(function.body)  # type: ignore[attr-defined]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Return):
            if node.value is not None:
                yield node.value
        elif not isinstance(node, (*FUNCTIONS, ast.ClassDef)):
            pending.extend(ast.iter_child_nodes(node))
