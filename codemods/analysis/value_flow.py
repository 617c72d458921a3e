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

The module's constraints are in three parts over one graph (value_graph.py: the values, the solver
and its queries): this module's names, definitions and assignments, value_calls.py's calls and
value_containers.py's containers.
"""

from __future__ import annotations

import ast
import sys
from typing import Any, Callable, Iterator, Optional

from codemods.analysis.module import FUNCTIONS, Binding, FunctionNode, ModuleIndex
from codemods.analysis.names import PARTIAL
from codemods.analysis.value_calls import CallConstraints, Launch
from codemods.analysis.value_containers import CONTAINER_METHODS, ContainerConstraints, constant_index, of_a_library
from codemods.analysis.value_graph import (
    DISCARDED, Bound, Class, Foreign, ForeignResult, Function, Instance, Launcher, Mapping, Partial, Sequence, Unknown,
    Value, ValueGraph, partial_target,
)

# (Launch, constant_index, Mapping and Sequence are read from here by the kernel scope and the tests.)
__all__ = ["Bound", "Class", "Foreign", "ForeignResult", "Function", "Instance", "LIBRARIES", "Launch", "Launcher",
           "Mapping", "Partial", "Sequence", "Unknown", "Value", "ValueFlow", "constant_index", "returned_values"]

# Imports no project's kernel body comes from (jax's own launchers are matched by name, not as values):
# following every array their functions return would cost more than the rest of the analysis.
LIBRARIES = frozenset(sys.stdlib_module_names) | {
    "jax", "jaxlib", "numpy", "scipy", "ml_dtypes", "einops", "flax", "optax", "chex", "equinox", "haiku",
    "triton", "torch", "tensorflow", "absl", "opt_einsum", "typing_extensions", "numba",
}


class ValueFlow(ValueGraph):
    """The value flow of one module. `launchers`: qualified name -> (body position, body keywords)."""

    def __init__(self, module: ModuleIndex, launchers: dict[str, tuple[Optional[int], tuple[str, ...]]]) -> None:
        super().__init__()
        self.module = module
        self._launchers = launchers
        self._launcher_names = {name.rsplit(".", 1)[-1] for name in launchers}  # a set lookup before resolving
        self._target_bindings: dict[ast.AST, Binding] = {}
        self._collect_bindings()
        scope = module.module_scope
        # Module names bound only to a library (`jnp`, `lax`, `pl`): what is read through them holds
        # no value of this analysis, so `jnp.dot(...)` and `x.shape` through them need no rule.
        self._library_names = {name for name, bindings in scope.bindings.items() if all(
            b.imported is not None and not b.imported.startswith(".") and b.imported.split(".")[0] in LIBRARIES
            for b in bindings)}
        self._partial_names = {"partial"} | {name for name, bindings in scope.bindings.items() if any(
            b.imported == "functools.partial" or _terminal(b.value) == "partial" for b in bindings)}
        self.calls = CallConstraints(self, self._target_bindings, launchers)
        self.containers = ContainerConstraints(self, self._target_bindings, self.calls, self._library_names)
        self.launches: list[Launch] = self.calls.launches
        self._generate()
        self.solve()

    def binding_of(self, target: ast.AST) -> Optional[Binding]:
        """The binding a def, parameter or assignment target makes (a key of the flow)."""
        return self._target_bindings.get(target)

    # -- constraints: names, definitions, assignments; calls and containers by their parts --

    def _collect_bindings(self) -> None:
        for scope in self.module.scopes:
            for bindings in scope.bindings.values():
                for binding in bindings:
                    self._target_bindings.setdefault(binding.node, binding)

    def _generate(self) -> None:
        """One pass over the nodes the module index already walked (no second tree walk); a name's
        loads come from its bindings' references (no scope lookups)."""
        for binding in self._target_bindings.values():  # first: a call asks whether its name is a launcher
            self._loads(binding)
        containers = self.containers
        handlers: dict[type, Callable[[Any], None]] = {
            ast.Attribute: self._attribute, ast.Subscript: containers.subscript,
            ast.Tuple: containers.sequence, ast.List: containers.sequence, ast.Set: containers.sequence,
            ast.Dict: containers.dict, ast.ListComp: containers.comprehension, ast.SetComp: containers.comprehension,
            ast.GeneratorExp: containers.comprehension, ast.DictComp: containers.comprehension,
            ast.IfExp: self._passthrough, ast.BoolOp: self._passthrough, ast.NamedExpr: self._passthrough,
            ast.Await: self._passthrough, ast.BinOp: self._binop,
            ast.FunctionDef: self._function, ast.AsyncFunctionDef: self._function, ast.Lambda: self._function,
            ast.ClassDef: self._class, ast.Assign: self._assign, ast.AnnAssign: self._assign,
            ast.AugAssign: self._assign, ast.For: self._assign, ast.AsyncFor: self._assign,
            ast.Call: self._call, ast.Return: self._return,
        }
        for node in self.module.parent:
            handler = handlers.get(node.__class__)
            if handler is not None:
                handler(node)

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
                    self.add(reference, Foreign(reference))
                if launcher is not None:
                    self.add(reference, Launcher(launcher))
            return
        if isinstance(binding.value, (ast.Name, ast.Attribute)) and binding.references:  # `launch = pl.pallas_call`
            launcher = self.module.matching_name(binding.references[0], self._launchers)
            if launcher is not None:
                self.add(binding, Launcher(launcher))
        for reference in binding.references:
            self.flow(binding, reference)

    def _resolve_launcher(self, node: ast.AST) -> None:
        name = self.module.matching_name(node, self._launchers)
        if name is not None:
            self.add(node, Launcher(name))

    def _attribute(self, node: ast.Attribute) -> None:
        if node.ctx.__class__ is not ast.Load:
            return
        attr = node.attr
        if attr in self._launcher_names:  # a set lookup before resolving the name
            self._resolve_launcher(node)
        if of_a_library(node.value, self._library_names):
            return

        def rule(value: Value) -> None:
            if isinstance(value, (Foreign, ForeignResult)):
                self.add(node, Foreign(node))
            elif isinstance(value, (Class, Instance)):
                self.flow(("member", value.node, attr), node)
                if isinstance(value, Instance):
                    self.flow(("bound", value.node, attr), node)
            elif isinstance(value, Unknown):
                self.add(node, Unknown(value.reason, value.node))
        self.watch(node.value, rule)

    def _passthrough(self, node: ast.AST) -> None:
        """`a if c else b`, `a or b`, `(x := v)`, `await v`: the value of a part."""
        if isinstance(node, ast.IfExp):
            parts = [node.body, node.orelse]
        elif isinstance(node, ast.BoolOp):
            parts = node.values
        elif isinstance(node, ast.NamedExpr):
            parts = [node.value]
            self.containers.unpack(node.target, node.value)
        else:
            parts = [node.value]  # type: ignore[attr-defined]
        for part in parts:
            self.flow(part, node)

    def _binop(self, node: ast.BinOp) -> None:
        if isinstance(node.op, (ast.Add, ast.BitOr)):  # `BODIES + (extra,)`, `TABLE | {...}`: the containers
            self.flow(node.left, node)
            self.flow(node.right, node)

    def _function(self, node: FunctionNode) -> None:
        holder = self.module.parent.get(node)
        owner = holder if isinstance(holder, ast.ClassDef) else None
        arguments = node.args
        positional = [*arguments.posonlyargs, *arguments.args]
        for arg in filter(None, (arguments.vararg, arguments.kwarg)):
            self.add(self._target_bindings.get(arg), Unknown("`*args` / `**kwargs`", arg))
        defaults = [None] * (len(positional) - len(arguments.defaults)) + list(arguments.defaults)
        for arg, default in [*zip(positional, defaults), *zip(arguments.kwonlyargs, arguments.kw_defaults)]:
            if default is not None:
                self.flow(default, self._target_bindings.get(arg))
        if isinstance(node, ast.Lambda):
            self.add(node, Function(node))
            self.flow(node.body, ("return", node))
            return
        method = owner is not None and not any(
            isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)
        if method and positional:
            first = self._target_bindings.get(positional[0])
            classmethod_ = any(isinstance(d, ast.Name) and d.id == "classmethod" for d in node.decorator_list)
            self.add(first, Class(owner) if classmethod_ else Instance(owner))
            self.add(("bound", owner, node.name), Bound(node))
        binding = self._target_bindings.get(node)
        current: object = ("def", node)
        self.add(current, Function(node))
        for decorator in reversed(node.decorator_list):  # innermost first
            result = ("decorated", decorator)
            self.calls.call_site(decorator, [current], {}, result, node)
            self.flow(current, result)  # a wrapper (`jax.jit`) still calls the function
            current = result
        self.flow(current, binding)

    def _return(self, node: ast.Return) -> None:
        function = self.module.parent.get(node)
        while function is not None and not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            function = self.module.parent.get(function)
        if function is not None and node.value is not None:
            self.flow(node.value, ("return", function))

    def _class(self, node: ast.ClassDef) -> None:
        self.add(self._target_bindings.get(node), Class(node))
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
                    self.flow(binding, ("member", node, binding.name))

    def _assign(self, node: ast.AST) -> None:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                self.containers.unpack(target, node.value)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            self.containers.unpack(node.target, node.value)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            self.flow(node.value, self._target_bindings.get(node.target))
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self.containers.unpack(node.target, self.iterated(node.iter))

    def _call(self, node: ast.Call) -> None:
        module = self.module
        func = node.func
        if isinstance(func, ast.Name) and not module.bindings(func) and self.containers.builtin(node, func.id):
            return
        if _terminal(func) in self._partial_names and module.callee(node, PARTIAL):
            self.add(node, Partial(node))
            # What it binds reaches the parameters now: the partial may be called where this module
            # does not see it (exported, or handed to another module).
            self.calls.call_site(partial_target(node), list(node.args[1:]),
                                 {k.arg: k.value for k in node.keywords}, DISCARDED, node)
            return
        if of_a_library(func, self._library_names) and _terminal(func) not in self._launcher_names \
                and not any(isinstance(value, Launcher) for value in self.values.get(func, ())):
            return  # `jnp.dot(...)`: a library's function returns no value of this analysis
        if isinstance(func, ast.Attribute) and func.attr in CONTAINER_METHODS:
            self.containers.container_method(node, func)
        self.calls.call_site(func, list(node.args), {k.arg: k.value for k in node.keywords}, node, node)


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
