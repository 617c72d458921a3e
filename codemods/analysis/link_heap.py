"""The link's memory and worklist (link.py): what each variable, parameter, field, return and call
result may hold, the modules read (those the project gives, and others loaded the first time a name of
theirs is read), and which statements to evaluate again when what they read grows. The layers above
(`link_values`, `link_readers`, `link_binding`, `link`) say what a statement does; this one only keeps
what it wrote and who read it."""

from __future__ import annotations

import re
from collections import deque
from typing import Callable, Iterable, Iterator, Optional

from codemods.analysis.summary import ModuleSummary

# A bound on evaluations, per statement: every value set only grows, so the worklist empties long
# before (a few evaluations per statement on the held-out set and jax's own Pallas source).
_EVALUATIONS_PER_STATEMENT = 64
_REF = re.compile(r"\w_refs?$")  # a parameter named as kernel bodies name their refs
Statement = tuple[str, str, int]  # (module, "assign" | "return" | "call", number)


class Heap:
    """What each key holds (`heap`, keyed by ("var", scope, name), ("field", owner, key), ("ret",
    function), ("res", module, call)), a container's keys, which functions run in which kernels
    (`backends`), and the worklist: a statement is evaluated again only when something it read grew
    (`_get` records what it reads, `_grew` queues who read it)."""

    def __init__(self, modules: dict[str, ModuleSummary],
                 load: Optional[Callable[[str], Optional[ModuleSummary]]] = None,
                 loadable: "frozenset[str] | set[str]" = frozenset()) -> None:
        self.modules: dict[str, ModuleSummary] = {}
        self._load, self._loadable = load, set(loadable) - set(modules)
        self.functions: dict[str, tuple[str, object]] = {}
        self.classes: dict[str, tuple[str, object]] = {}
        self.heap: dict[tuple, set] = {}
        self.keys: dict[tuple, set] = {}  # a container's keys written so far
        self.backends: dict[str, set[str]] = {}  # a function -> the kernels' backends it runs in
        self._queue: deque[Statement] = deque()
        self._queued: set[Statement] = set()
        self._readers_of: dict[tuple, set[Statement]] = {}
        self._current: Optional[Statement] = None
        self._budget = 0
        self._on_demand: set[str] = set()  # the modules read on demand
        self._waiting: dict[str, list[Statement]] = {}  # a function of one -> its statements (`_bind`)
        self._writers: dict[tuple, list[Statement]] = {}  # a module-level name of one -> what sets it (`_get`)
        for summary in modules.values():
            self._add_module(summary)

    def _add_module(self, summary: ModuleSummary, on_demand: bool = False) -> None:
        """A module's definitions, and its statements queued (with their share of the budget). Of a
        module read on demand, a statement waits until what it sets is read, or its function is
        called: what the rest of it would do is not the link's business (numpy's and scipy's
        thousands of statements, read because the project says `np.float32`)."""
        self.modules[summary.name] = summary
        self.functions.update((q, (summary.name, f)) for q, f in summary.functions.items())
        self.classes.update((q, (summary.name, c)) for q, c in summary.classes.items())
        if on_demand:
            self._on_demand.add(summary.name)
        for kind, items in (("assign", summary.assigns), ("return", summary.returns), ("call", summary.calls)):
            for number, item in enumerate(items):
                statement = (summary.name, kind, number)
                scope = item[0][1] if kind == "assign" and item[0][0] == "var" else item[0] if kind == "return" \
                    else item.scope if kind == "call" else None
                if not on_demand or scope is None:
                    self._queue_statement(statement)
                elif scope != summary.name:  # in a function: when it is called
                    self._waiting.setdefault(scope, []).append(statement)
                else:  # a module-level name, or call: when something reads it
                    key = item[0] if kind == "assign" else ("res", summary.name, number)
                    self._writers.setdefault(key, []).append(statement)

    def _queue_statement(self, statement: tuple[str, str, int]) -> None:
        self._queue.append(statement)
        self._queued.add(statement)
        self._budget += _EVALUATIONS_PER_STATEMENT

    def _has(self, module: str) -> bool:
        """Whether `module` is one the link reads: loaded the first time a name of it is read."""
        if module in self.modules:
            return True
        if module not in self._loadable or self._load is None:
            return False
        self._loadable.discard(module)
        summary = self._load(module)
        if summary is None:
            return False
        self._add_module(summary, on_demand=True)
        return True

    def takes_refs(self, function: str) -> bool:
        """Whether a function has a parameter named as kernel bodies name their refs."""
        entry = self.functions.get(function)
        return entry is not None and any(_REF.search(name) for name, _, _ in entry[1].params)

    def _statements(self) -> Iterator[Statement]:
        """The worklist's statements in turn (each the one being evaluated, `_current`, while it is),
        until it empties or the budget is spent."""
        self._budget += _EVALUATIONS_PER_STATEMENT * len(self._queued)
        while self._queue and self._budget > 0:
            self._budget -= 1
            statement = self._current = self._queue.popleft()
            self._queued.discard(statement)
            yield statement
        self._current = None

    def _get(self, key: tuple) -> set:
        """What `key` holds so far; the statement being evaluated is evaluated again when it grows."""
        if self._writers and key in self._writers:  # a name of a module read on demand, read the first time
            for statement in self._writers.pop(key):
                self._queue_statement(statement)
        current = self._current
        if current is not None:
            readers = self._readers_of.get(key)
            if readers is None:
                self._readers_of[key] = {current}
            else:
                readers.add(current)
        held = self.heap.get(key)
        return held if held is not None else set()

    def _grew(self, key: tuple) -> None:
        for statement in self._readers_of.get(key, ()):
            if statement not in self._queued:
                self._queued.add(statement)
                self._queue.append(statement)

    def _keys_of(self, owner: tuple) -> set:
        self._get(("keys", owner))
        return self.keys.get(owner, set())

    def _backends_of(self, function: str) -> set:
        self._get(("backends", function))
        return self.backends.get(function, set())

    def _run_with(self, function: str, backends: "set | frozenset") -> None:
        held = self.backends.setdefault(function, set())
        if not held >= backends:
            held |= backends
            self._grew(("backends", function))

    def _add(self, key: tuple, values: Iterable) -> None:
        held = self.heap.get(key)
        if held is None:
            held = self.heap[key] = set(values)
            if held:
                self._grew(key)
            return
        before = len(held)
        held.update(values)
        if len(held) != before:
            self._grew(key)

    def _field(self, owner: tuple, key: object, values: Iterable) -> None:
        keys = self.keys.setdefault(owner, set())
        if key not in keys:
            keys.add(key)
            self._grew(("keys", owner))
        self._add(("field", owner, key), values)

    def read(self, owner: tuple, key: object) -> set:
        return self._get(("field", owner, key))
