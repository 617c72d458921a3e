"""The link's memory and worklist (link.py): what each variable, parameter, field, return and call
result may hold, the modules read (those the project gives, and others loaded the first time a name of
theirs is read), and which statements to evaluate again when what they read grows. The layers above
(`link_values`, `link_readers`, `link_binding`, `link`) say what a statement does; this one only keeps
what it wrote and who read it."""

from __future__ import annotations

import re
from collections import deque
from typing import Callable, Iterable, Iterator, Optional

from codemods.analysis.kernel_scope import LAUNCHERS
from codemods.analysis.flow.summary import Expr, ModuleSummary, Site

# A bound on evaluations, per statement: every value set only grows, so the worklist empties long
# before (a few evaluations per statement on the held-out set and jax's own Pallas source).
_EVALUATIONS_PER_STATEMENT = 64
_REF = re.compile(r"\w_refs?$")  # a parameter named as kernel bodies name their refs
_JIT = "jax.jit"  # (a wrapper calling `jax.jit(fn)` calls `fn`: `wrapping_decorators`)
# A launch helper or wrapping decorator run for one call of it: (the function, the module and site of the
# call, how many calls deep its callee is: `deco(...)(fn)` 1); see `launch_helpers` and `wrapping_decorators`.
Context = tuple[str, str, Site, int]
# (module, "assign" | "return" | "call", number, the context it is evaluated in: None for all calls at once)
Statement = tuple[str, str, int, Optional[Context]]


def launch_helpers(summary: ModuleSummary) -> set[str]:
    """The module's launch helpers: functions with parameters whose own code calls a launcher by its name
    (`def _launch(body, x, **kw): pl.pallas_call(partial(body, **kw), ...)`) and that define nothing
    inside them, so that only their own statements read and write their variables. The link runs each
    once per call site of it (one level of call-site sensitivity, bounded by the calls of it in the
    project): a body and the keywords one caller passes meet each other only, not every caller's."""
    launching = {call.scope for call in summary.calls if spelt_name(call.callee) in LAUNCHERS}
    defined = (*summary.functions, *summary.classes)
    return {function for function in launching if function in summary.functions
            and summary.functions[function].params
            and not any(name.startswith(function + ".") for name in defined)}


def wrapping_decorators(summary: ModuleSummary, helpers: set[str]) -> set[str]:
    """The module's wrapping decorators: functions (not nested in another) that return a function they
    define whose code calls a function the enclosing code was given (`def traced(fn): @wraps(fn) def
    wrapper(*a, **k): return fn(*a, **k)`, a decorator factory's `def logged(name): def deco(fn):
    ...`; `jax.jit(fn)`, itself or kept in a variable, is `fn`: ejkernel's `ejit`). The link runs
    each, with all it defines inside, once per call site of it, as a launch helper (`launch_helpers`):
    a wrapper made for one decorated function calls that one with its own callers' arguments, not
    every decorated function with every caller's (a registry decorator wraps hundreds of kernels; one
    `ejit` for all made each call of a decorated function a call of every one). Not one that defines
    a class or a launch helper inside (their code may run outside the call's context)."""
    defined: dict[str, set[str]] = {}  # a function -> the names of those defined in it
    for name in summary.functions:
        if ".<locals>." in name:
            enclosing, _, own = name.rpartition(".<locals>.")
            defined.setdefault(enclosing, set()).add(own)

    def jitted(expr: Expr) -> bool:  # `jax.jit(fn, ...)`
        return expr[0] == "call" and isinstance(expr[1], int) and spelt_name(summary.calls[expr[1]].callee) == _JIT \
            and bool(summary.calls[expr[1]].args)

    kept = {target: value for target, value in summary.assigns if target[0] == "var" and jitted(value)}
    found = set()
    for call in summary.calls:
        callee, scope = kept.get(call.callee, call.callee), call.scope
        if jitted(callee):  # the wrapper calls `jax.jit(fn)`, or a variable of the decorator's holding it
            callee = summary.calls[callee[1]].args[0][1]
        if callee[0] != "var" or ".<" not in scope or callee[1] == scope or not scope.startswith(callee[1] + "."):
            continue
        root = scope.split(".<", 1)[0]
        enclosing = summary.functions.get(callee[1])
        if root in summary.functions and _family(callee[1], root) and enclosing is not None and \
                any(name == callee[2] for name, _, _ in enclosing.params):
            found.add(root)
    returning = {function for function, value in summary.returns if function in found
                 and _mentions(value, function, defined.get(function, set()))}

    def made_here(expr: Expr) -> bool:  # a function a wrapping decorator defines, named
        return expr[0] == "var" and expr[2] in defined.get(expr[1], ())

    # One that registers what it makes (`REGISTRY[name] = wrapper`, `Spec(impl=wrapper)`, `table.append(
    # wrapper)`) is run once for all its calls: a lookup in that table gives every registered one anyway.
    handed = [call.scope for call in summary.calls if call.callee[0] != "call" and
              spelt_name(call.callee) != "functools.update_wrapper" and any(
                  made_here(value) for value in (*(value for _, value in call.args), *(value for _, value in call.keywords)))]
    stored = [value[1] for target, value in summary.assigns if target[0] != "var" and made_here(value)]
    nested = [name for name in (*summary.classes, *helpers, *handed, *stored) if ".<" in name or name in found]
    return {root for root in returning - helpers if not any(_family(name, root) for name in nested)}


def _mentions(value: Expr, function: str, defined: set[str]) -> bool:
    """Whether `value`, returned by `function`, may be a function it defines (`wrapper`,
    `functools.wraps(fn)(wrapper)`, a lambda)."""
    pending = [value]
    while pending:
        expr = pending.pop()
        if expr[0] == "var" and expr[1] == function and expr[2] in defined or \
                expr[0] == "def" and expr[1].startswith(function + ".<"):
            return True
        pending.extend(part for part in expr[1:] if isinstance(part, tuple) and part and isinstance(part[0], str))
    return False


def _in_order(summary: ModuleSummary) -> list[tuple[str, int, object]]:
    """The summary's statements (kind, number, item) about as the code runs them: each assignment and
    return right after the last call its value makes, those that make none first (assignments) or last
    (returns). A statement that reads what one queued after it writes is evaluated again."""
    after: dict[int, list] = {}
    first: list = []
    last: list = []
    for kind, items in (("assign", summary.assigns), ("return", summary.returns)):
        for number, item in enumerate(items):
            made = _last_call(item)
            (after.setdefault(made, []) if made is not None else first if kind == "assign" else last).append(
                (kind, number, item))
    ordered = first
    for number, call in enumerate(summary.calls):
        ordered.append(("call", number, call))
        ordered.extend(after.get(number, ()))
    return ordered + last


def _last_call(exprs: tuple) -> Optional[int]:
    """The last call (its number) the expressions `exprs` make, not looking into the calls' arguments."""
    found, pending = None, [exprs]
    while pending:
        expr = pending.pop()
        if expr and expr[0] == "call" and isinstance(expr[1], int):
            found = expr[1] if found is None else max(found, expr[1])
        else:
            pending.extend(part for part in expr if isinstance(part, tuple))
    return found


def _family(scope: str, root: str) -> bool:
    """Whether `scope` is `root` or a function, lambda or class defined inside it."""
    return scope == root or scope.startswith(root + ".<")


def _root(scope: Optional[str], roots: set[str]) -> Optional[str]:
    """The launch helper or wrapping decorator whose code `scope` is, if any."""
    if scope is None or scope in roots:
        return scope
    head = scope.split(".<", 1)[0]
    return head if head in roots else None


def _helper_of(scope: Optional[str], read: tuple, summary: ModuleSummary, roots: set[str]) -> Optional[str]:
    """The launch helper or wrapping decorator a statement is of: its scope's, or, for an assignment of
    another scope's name (`global LAST; LAST = kw`) or of none (`box[key] = ...`, `obj.attr = ...`: a
    summary gives no scope), the one whose variables or calls it reads (`read`: its target and value)."""
    found = _root(scope, roots)
    if found is not None:
        return found
    pending = list(read)
    while pending:
        expr = pending.pop()
        if not isinstance(expr, tuple) or not expr:
            continue
        found = _root(expr[1], roots) if expr[0] == "var" else _root(summary.calls[expr[1]].scope, roots) \
            if expr[0] == "call" and isinstance(expr[1], int) else None
        if found is not None:
            return found
        pending.extend(part for part in expr[1:] if isinstance(part, tuple))
    return None


def spelt_name(expr: Expr) -> Optional[str]:
    """The name an expression spells, imports resolved (`pl.pallas_call`: jax.experimental.pallas.pallas_call)."""
    if expr[0] == "dotted":
        return expr[1]
    inner = spelt_name(expr[1]) if expr[0] == "attr" else None
    return f"{inner}.{expr[2]}" if inner is not None else None


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
        # (a function, the call of a wrapping decorator it was made for) -> the backends it runs in there
        self._backends_in: dict[tuple, set[str]] = {}
        self._queue: deque[Statement] = deque()
        self._queued: set[Statement] = set()
        self._readers_of: dict[tuple, set[Statement]] = {}
        self._current: Optional[Statement] = None
        self._budget = 0
        self._on_demand: set[str] = set()  # the modules read on demand
        self._waiting: dict[str, list[Statement]] = {}  # a function of one -> its statements (`_bind`)
        self._writers: dict[tuple, list[Statement]] = {}  # a module-level name of one -> what sets it (`_get`)
        self.launch_helpers: set[str] = set()
        self.decorators: set[str] = set()  # wrapping decorators (`wrapping_decorators`)
        # a launch helper or wrapping decorator -> its statements, those of the code it defines too (`_enter`)
        self._helper_statements: dict[str, list[Statement]] = {}
        self._entered: dict[str, set[Optional[Context]]] = {}  # a helper or decorator -> the calls it runs for
        # Lookups worked out once and kept while nothing they read grows (`_memoized`): (lookup) -> (what it
        # found, the keys it read, their readers' sets, the statements already in each of those); a key ->
        # the lookups that read it; the keys the lookup being worked out reads (None: none is); how many
        # times a key grew so far.
        self._memos: dict[tuple, tuple[set, list, list, set]] = {}
        self._memo_users: dict[tuple, list[tuple]] = {}
        self._reading: Optional[list] = None
        self._growths = 0
        self._stamps: dict[tuple, int] = {}  # a container -> how many times its entries or keys grew so far
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
        helpers = launch_helpers(summary) if not on_demand else set()
        self.launch_helpers |= helpers
        decorators = wrapping_decorators(summary, helpers) if not on_demand else set()
        self.decorators |= decorators
        helpers = helpers | decorators
        for kind, number, item in _in_order(summary):
            statement = (summary.name, kind, number, None)
            scope = item[0][1] if kind == "assign" and item[0][0] == "var" else item[0] if kind == "return" \
                else item.scope if kind == "call" else None
            helper = _helper_of(scope, item if kind == "assign" else (), summary, helpers) if helpers else None
            if helper is not None:  # for each call of it (`_enter`)
                self._helper_statements.setdefault(helper, []).append(statement)
            elif not on_demand or scope is None:
                self._queue_statement(statement)
            elif scope != summary.name:  # in a function: when it is called
                self._waiting.setdefault(scope, []).append(statement)
            else:  # a module-level name, or call: when something reads it
                key = item[0] if kind == "assign" else ("res", summary.name, number)
                self._writers.setdefault(key, []).append(statement)

    def _enter(self, helper: str, context: Optional[Context]) -> None:
        """A launch helper's (or wrapping decorator's) statements queued to run for `context` (a call of
        it; None: every call at once)."""
        entered = self._entered.setdefault(helper, set())
        if context not in entered:
            entered.add(context)
            for module, kind, number, _ in self._helper_statements.get(helper, ()):
                self._queue_statement((module, kind, number, context))

    def _local(self, key: tuple) -> tuple:
        """`key` as the statement being evaluated sees it: a launch helper's (a wrapping decorator's, and
        the functions it defines') variable, call result, return or partial (one its own code builds)
        for the call it runs for (`Context`), its own key; any other key as it is."""
        context = self._current[3] if self._current is not None else None
        if context is None:
            return key
        kind = key[0]
        if kind in ("var", "ret") and _family(key[1], context[0]) or kind == "partial" or \
                kind == "res" and _family(self.modules[key[1]].calls[key[2]].scope, context[0]):
            return (*key, context)
        return key

    def _defined_here(self, function: str) -> Optional[Context]:
        """The context a function defined inside the wrapping decorator being run is made in (None
        for any other): the value it is carries it (`("def", function, context)`)."""
        context = self._current[3] if self._current is not None else None
        return context if context is not None and function != context[0] and _family(function, context[0]) else None

    def _queue_statement(self, statement: Statement) -> None:
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
        if self._reading is not None:
            self._reading.append(key)
        current = self._current
        if current is not None:
            readers = self._readers_of.get(key)
            if readers is None:
                self._readers_of[key] = {current}
            else:
                readers.add(current)
        held = self.heap.get(key)
        return held if held is not None else set()

    def _memoized(self, lookup: tuple, work: Callable[[], set]) -> set:
        """What `work()` finds (a set its callers only read), kept by `lookup` until a key it read grows: a
        statement that finds it kept becomes a reader of those keys, as working it out again would make
        it. Not kept where a key grew while it was worked out (it may have read what it then wrote)."""
        kept = self._memos.get(lookup)
        if kept is not None:
            found, read, readers, registered = kept
            current = self._current
            # (a readers' set only grows: a statement in all of them once stays so; of the lookups kept
            # on the trees, 97% are found by a statement that read them before)
            if current is not None and current not in registered:
                for statement_readers in readers:
                    statement_readers.add(current)
                registered.add(current)
            if self._reading is not None:
                self._reading.extend(read)
            return found
        outer, growths = self._reading, self._growths
        self._reading = read = []
        try:
            found = work()
        finally:
            self._reading = outer
        if outer is not None:
            outer.extend(read)
        if self._growths == growths:
            self._memos[lookup] = (found, read, [self._readers_of.setdefault(key, set()) for key in read], set())
            for key in read:
                self._memo_users.setdefault(key, []).append(lookup)
        return found

    def _grew(self, key: tuple) -> None:
        self._growths += 1
        if key[0] in ("field", "keys"):  # (a container's entries or keys grew: `_stamps`)
            self._stamps[key[1]] = self._stamps.get(key[1], 0) + 1
        stale = self._memo_users.pop(key, None)
        if stale is not None:
            for lookup in stale:
                self._memos.pop(lookup, None)
        for statement in self._readers_of.get(key, ()):
            if statement not in self._queued:
                self._queued.add(statement)
                self._queue.append(statement)

    def _keys_of(self, owner: tuple) -> set:
        self._get(("keys", owner))
        return self.keys.get(owner, set())

    def _backends_of(self, function: str) -> set:
        """The backends `function` runs in: for the wrapping decorator being run (or a function it
        defines), those of this call of it (a wrapper one kernel calls runs the function it wraps
        there, not every wrapper's)."""
        context = self._current[3] if self._current is not None else None
        if context is not None and context[0] in self.decorators and _family(function, context[0]):
            self._get(("backends", function, context))
            return self._backends_in.get((function, context), set())
        self._get(("backends", function))
        return self.backends.get(function, set())

    def _run_with(self, function: str, backends: "set | frozenset", context: Optional[Context] = None) -> None:
        """`function` runs in `backends` (`context`: for that call of the wrapping decorator it is of)."""
        for key, held in ((("backends", function), self.backends.setdefault(function, set())),
                          *([(("backends", function, context), self._backends_in.setdefault((function, context), set()))]
                            if context is not None else [])):
            if not held >= backends:
                held |= backends
                self._grew(key)

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
