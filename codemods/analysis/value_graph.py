"""The values of a module's value flow (value_flow.py) and the graph they flow over: keys (nodes,
bindings, derived keys such as a container's elements), the values each may hold, edges ("the values
of X flow into Y") and rules (run for each value reaching a key), solved by a worklist to a fixpoint.
The constraints that build the graph are value_flow.py's (names, definitions), value_calls.py's and
value_containers.py's; the queries the kernel scope asks are here."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Optional, Union

from codemods.analysis.module import Binding, FunctionNode


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
NOTHING = ("nothing",)  # a key nothing flows into: the index `enumerate` pairs with each element
DISCARDED = ("discarded",)  # where results nobody reads go (what a launched body returns)


def elements(origin: object) -> tuple:
    """The key of what a sequence made at `origin` holds, at any position."""
    return ("elements", origin)


def partial_target(call: ast.Call) -> object:
    """The key of what `functools.partial(f, ...)` wraps: its first argument."""
    return call.args[0] if call.args and not isinstance(call.args[0], ast.Starred) else NOTHING


class ValueGraph:
    """The keys, the values each may hold and how they flow; `solve` propagates to the fixpoint."""

    def __init__(self) -> None:
        self.values: dict[object, set[Value]] = {}
        self._edges: dict[object, set[object]] = {}
        self._watchers: dict[object, list[Callable[[Value], None]]] = {}
        self._pending: list[tuple[object, Value]] = []
        self._derived: set[object] = set()  # synthetic keys whose rules are set up
        self._sources: Optional[dict[object, list[object]]] = None  # the graph backwards, when asked

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
            sources = [*self._sources.get(current, ()), *(partial_target(value.call)
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
                    target = partial_target(value.call)
                    pending += [(value, chain) for value in self.values.get(target, ())]
            else:
                yield value, partials

    # -- the engine --

    def add(self, key: object, value: Value) -> None:
        if key is None or key is NOTHING or key is DISCARDED:  # a binding the index does not hold; no value
            return
        found = self.values.setdefault(key, set())
        if value not in found:
            found.add(value)
            self._pending.append((key, value))

    def flow(self, source: object, target: object) -> None:
        if source is target or target is None:
            return
        targets = self._edges.setdefault(source, set())
        if target not in targets:
            targets.add(target)
            for value in list(self.values.get(source, ())):
                self.add(target, value)

    def watch(self, key: object, rule: Callable[[Value], None]) -> None:
        self._watchers.setdefault(key, []).append(rule)
        for value in list(self.values.get(key, ())):
            rule(value)

    def solve(self) -> None:
        while self._pending:
            key, value = self._pending.pop()
            for target in list(self._edges.get(key, ())):
                self.add(target, value)
            for rule in list(self._watchers.get(key, ())):
                rule(value)

    # -- derived keys --

    def stored(self, origin: object) -> tuple:
        """What code stores into a list after it is built (`BODIES[0] = f`, `BODIES.append(f)`): its
        elements too, and at every position a read by index may find (the literal's positions
        alone would miss it)."""
        self.flow(("stored", origin), elements(origin))
        return ("stored", origin)

    def shifted(self, value: Sequence) -> None:
        """`BODIES.pop(0)`, `.sort()`, `del BODIES[0]`, ...: what a list holds moves to other positions,
        so a read by position may find any of it."""
        self.flow(elements(value.origin), self.stored(value.origin))

    def at_position(self, value: Sequence, position: int, target: object) -> None:
        """`target = value[position]`, where the sequence's positions are known: that position, and
        what was stored into it since, if it is a list."""
        self.flow(value.positions[position], target)  # type: ignore[index]
        if isinstance(value.origin, ast.List):
            self.flow(("stored", value.origin), target)

    def iterated(self, key: object) -> tuple:
        """What iterating the values of `key` yields."""
        derived = ("iterated", key)
        if derived not in self._derived:
            self._derived.add(derived)

            def rule(value: Value) -> None:
                if isinstance(value, Sequence):
                    self.flow(elements(value.origin), derived)
                elif isinstance(value, Mapping):
                    self.flow(("keys", value.origin), derived)
                elif isinstance(value, (Foreign, ForeignResult, Unknown)):
                    self.add(derived, value)  # an element of another module's value: that value, for its index
            self.watch(key, rule)
        return derived

