"""What a call does in a module's value flow (value_flow.py): the values it passes reach the
parameters of every function, partial, class or instance the callee may be, and what they return
reaches the call; a launcher given its body records a `Launch`."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

from codemods.analysis.module import Binding, FunctionNode
from codemods.analysis.value_graph import (
    DISCARDED, Bound, Class, Foreign, ForeignResult, Function, Instance, Launcher, Partial, Unknown, Value, ValueGraph,
    partial_target,
)


@dataclass(frozen=True)
class Launch:
    """A launcher applied to a body: where the body's values are, and the calls that configure it."""
    body: object  # a key of the flow
    launcher: str
    calls: tuple[ast.Call, ...]
    site: ast.AST  # the call (or decorated def) that launches


class CallConstraints:
    """Calls, on `graph`: `target_bindings` holds each parameter's binding (a key); `launchers` maps a
    launcher's qualified name to its body's position and keywords; what launches is kept in `launches`."""

    def __init__(self, graph: ValueGraph, target_bindings: dict[ast.AST, Binding],
                 launchers: dict[str, tuple[Optional[int], tuple[str, ...]]]) -> None:
        self.graph = graph
        self._target_bindings = target_bindings
        self._launchers = launchers
        self._applied: set[tuple] = set()
        self.launches: list[Launch] = []

    def call_site(self, callee: object, args: list, keywords: dict, result: object, site: ast.AST) -> None:
        """Apply every value of `callee` to `args` (keys, or Starred nodes) and `keywords` (name ->
        key; None for `**kwargs`); what it returns flows into `result`."""
        self.graph.watch(callee, lambda value: self._apply(value, args, keywords, result, site, ()))

    def _apply(self, value: Value, args: list, keywords: dict, result: object, site: ast.AST,
               chain: tuple[ast.Call, ...]) -> None:
        key = (value, id(site), id(result), chain)
        if key in self._applied:
            return
        self._applied.add(key)
        if isinstance(value, (Function, Bound)):
            self._bind_arguments(value.node, args, keywords, skip=1 if isinstance(value, Bound) else 0)
            self.graph.flow(("return", value.node), result)
        elif isinstance(value, Partial):
            call = value.call
            if call in chain or len(chain) >= 16:
                return
            bound = list(call.args[1:])
            merged = {**{k.arg: k.value for k in call.keywords}, **keywords}
            self.graph.watch(partial_target(call), lambda inner: self._apply(
                inner, [*bound, *args], merged, result, site, (*chain, call)))
        elif isinstance(value, Launcher):
            self._launch(value, args, keywords, result, site, chain)
        elif isinstance(value, Class):
            self.graph.add(result, Instance(value.node))
            self.graph.flow(("bound", value.node, "__init__"), ("init", value.node, id(site)))
            self.call_site(("init", value.node, id(site)), args, keywords, DISCARDED, site)
        elif isinstance(value, Instance):
            self.call_site(("bound", value.node, "__call__"), args, keywords, result, site)
        elif isinstance(value, (Foreign, ForeignResult)):
            self.graph.add(result, ForeignResult(value.mention))
        elif isinstance(value, Unknown):
            self.graph.add(result, Unknown("calls a value this analysis does not follow", value.node))

    def _bind_arguments(self, function: FunctionNode, args: list, keywords: dict, skip: int) -> None:
        arguments = function.args
        positional = [*arguments.posonlyargs, *arguments.args][skip:]
        named = {arg.arg: arg for arg in [*arguments.args, *arguments.kwonlyargs]}
        for index, argument in enumerate(args):
            if isinstance(argument, ast.Starred):  # `f(*xs)`: any later parameter may take an element
                for arg in positional[index:]:
                    self.graph.flow(self.graph.iterated(argument.value), self._target_bindings.get(arg))
                break
            if index < len(positional):
                self.graph.flow(argument, self._target_bindings.get(positional[index]))
        for name, argument in keywords.items():
            if name is None:  # `f(**options)`
                continue
            if name in named:
                self.graph.flow(argument, self._target_bindings.get(named[name]))

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
                self.graph.add(result, Launcher(launcher.name, calls))
            return
        self.launches.append(Launch(body, launcher.name, calls, site))
        # The launcher calls the body: what a partial binds reaches the body's parameters.
        self.call_site(body, [], {}, DISCARDED, site)
