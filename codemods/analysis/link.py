"""The whole-program value flow: module summaries joined by one small fixpoint.

`summary.py` says, module by module, what each name, parameter, attribute and call may hold in
symbolic terms. `link` resolves those terms across modules (imports and re-exports to definitions,
call sites to parameters, `**kwargs` and `*args` to what forwards them, partials, classes and their
instances, containers) and iterates until no value set grows. What it answers, for the calls a rule
follows (`follows`: a precision argument of `jnp.dot` and its kin):

- each such call in kernel code, with the backends its kernel lowers for, and every pair literal
  its argument may hold (where it is written) or why part of it cannot be known (`getattr`,
  `importlib`, an installed package's call): never nothing where something may reach;
- each pair literal every reader of which is a followed call in kernel code: the literal may be
  rewritten where it is written; otherwise who else reads it (plain XLA code, an installed package).

Values are tuples: ("lit", v), ("level", name), ("def", q), ("class", q), ("inst", q), ("module", m),
("ext", dotted) an installed package's name, ("obj", dotted) what calling one returned, ("seq", m,
site, n), ("map", m, site), ("map", m, site, what) a mapping of keys not known (a comprehension's
result, `zip`'s and the rows it builds), ("partial", m, site), ("kwargs", q) / ("args", q) a function's `**`/`*`
parameter, ("bound", q, inst), ("method", container, name), ("items", mapping) what `mapping.items()`
gives and ("entry", mapping) one of its (key, value) entries, ("launcher", dotted, backends) a
launcher's decorator (`plgpu.kernel(out_type=...)`) before it is applied to the body, ("hint", m,
site, value, scope) a followed hint (`accuracy=`) written as the keyword of the call at `site` in function
`scope` (`Config(accuracy=...)`, `partial(body, accuracy=...)`, the op's own): located, as a pair literal
is, ("unknown", why).
"""

from __future__ import annotations

import re
from collections import deque
from typing import Callable, Iterable, Iterator, Mapping, Optional

from codemods.analysis.flow_facts import FlowFacts
from codemods.analysis.kernel_scope import BACKEND_MODULES, BACKEND_WORDS, LAUNCHERS, Backends
from codemods.analysis.link_answers import HINT, MAYBE, answers
from codemods.analysis.summary import DOUBLE_STAR, KEYWORD_ONLY, STAR, Call, Expr, ModuleSummary, Site

# A bound on evaluations, per statement: every value set only grows, so the worklist empties long
# before (a few evaluations per statement on the held-out set and jax's own Pallas source).
_EVALUATIONS_PER_STATEMENT = 64
_PRECISION = "jax.lax.Precision"
# Installed callables that hand back (a value built from) their first argument.
_IDENTITY = frozenset({"jax.named_call", "jax.jit", "jax.checkpoint", "jax.remat", "jax.named_scope",
                       "builtins.tuple", "builtins.list", "builtins.staticmethod", "functools.cache",
                       "builtins.reversed", "builtins.sorted", "builtins.iter"})
_REF = re.compile(r"\w_refs?$")  # a parameter named as kernel bodies name their refs
_PARTIAL = "functools.partial"
_FIELD = "dataclasses.field"
_DICT = "builtins.dict"
_ENUMERATE = "builtins.enumerate"
_ZIP = "builtins.zip"
_GETATTR = "builtins.getattr"
_CONTAINER_READS = frozenset({"get", "pop", "setdefault", "__getitem__", "values", "items"})
_HOLDERS = frozenset({"seq", "map", "inst", "kwargs", "args"})  # values that hold others
_READ_DEPTH = 64  # values walked from one handed to code the flow does not follow


def link(summaries: Iterable[ModuleSummary], follows: Mapping[str, tuple[Optional[int], str]],
         load: Optional[Callable[[str], Optional[ModuleSummary]]] = None,
         loadable: "frozenset[str] | set[str]" = frozenset()) -> tuple[dict[str, FlowFacts], frozenset[str]]:
    """Each module's flow facts (modules with none are left out), and the modules read: those of
    `summaries`, and of `loadable`, those whose names the others read (`load(name)` gives the
    summary: what a caller imports, only as far as it is read)."""
    linker = Linker({summary.name: summary for summary in summaries}, follows, load, loadable).solve()
    return answers(linker), frozenset(linker.modules)


class Linker:
    """The fixpoint's state: what each variable, parameter, field, return and call result may hold
    (`heap`, keyed by ("var", scope, name), ("field", owner, key), ("ret", function), ("res", module,
    call)), which functions run in which kernels (`backends`), and what the followed calls receive."""

    def __init__(self, modules: dict[str, ModuleSummary], follows: Mapping[str, tuple[Optional[int], str]],
                 load: Optional[Callable[[str], Optional[ModuleSummary]]] = None,
                 loadable: "frozenset[str] | set[str]" = frozenset()) -> None:
        self.modules: dict[str, ModuleSummary] = {}
        self.follows = follows
        self._followed_keywords = frozenset(keyword for _, keyword in follows.values() if keyword != HINT)
        self._hints_followed = any(keyword == HINT for _, keyword in follows.values())
        self._load, self._loadable = load, set(loadable) - set(modules)
        self.functions: dict[str, tuple[str, object]] = {}
        self.classes: dict[str, tuple[str, object]] = {}
        self._attributes: dict[str, dict[str, Expr]] = {}  # a class's attributes by name (see `_class_attribute`)
        self.heap: dict[tuple, set] = {}
        self.keys: dict[tuple, set] = {}  # a container's keys written so far
        self.backends: dict[str, set[str]] = {}  # a function -> the kernels' backends it runs in
        self.invoked: set[str] = set()
        self.calls: set[tuple[str, str]] = set()  # (caller, callee) of every call (not a launch) of a function
        self._launching = False
        self._unwrapping: set[tuple] = set()  # partials being called through (see `_invoke`)
        self.sinks: dict[tuple[str, Site], tuple[str, str, set]] = {}  # (module, site) -> (callee, function, values)
        self.readers: dict[tuple, set[str]] = {}  # a seq or mapping -> who reads it besides followed calls
        self._escaped: dict[tuple, set[str]] = {}  # a value handed to code the flow does not follow -> who
        # A holder plain code hands to code the flow does not follow -> the scopes that hand it: the
        # functions it holds may be called there (`plain_callers`).
        self._escaped_plainly: dict[tuple, set[str]] = {}
        # Where what a function's `**kwargs` holds was written: (kwargs, key) -> {source: values}, a source
        # ("at", module, call site) for `f(key=...)` or ("unknown", why); (kwargs, None) -> the mappings
        # spread into it (`f(**options)`; an installed package's or an unknown value too). And the
        # mappings each followed call spreads (`spreads`).
        self.passed: dict[tuple, dict[tuple, set]] = {}
        self.spreads: dict[tuple[str, Site], set] = {}
        # What each call passes as a followed keyword (`wrapper(x, precision=blocks.MLP)`): (module, site,
        # keyword) -> values, for a call of another module's wrapper to be told a scalar (`link_answers`).
        self.keyword_values: dict[tuple[str, Site, str], set] = {}
        self.keyword_callees: dict[tuple[str, Site, str], set[str]] = {}  # the same calls -> the functions called
        self.launches: set[tuple[str, str]] = set()  # (scope, body) of every launch of a function
        # (module, call site, function): that call binds a keyword to a parameter of the function
        self.bound: set[tuple[str, Site, str]] = set()
        # The worklist: a statement (its module, kind and number) is evaluated again only when
        # something it read grew (`_get` records what it reads, `_grew` queues who read it).
        self._queue: deque[tuple[str, str, int]] = deque()
        self._queued: set[tuple[str, str, int]] = set()
        self._readers_of: dict[tuple, set[tuple[str, str, int]]] = {}
        self._current: Optional[tuple[str, str, int]] = None
        self._budget = 0
        self._on_demand: set[str] = set()  # the modules read on demand
        self._waiting: dict[str, list[tuple[str, str, int]]] = {}  # a function of one -> its statements (`_bind`)
        self._writers: dict[tuple, list[tuple[str, str, int]]] = {}  # a module-level name of one -> what sets it (`_get`)
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

    # -- the fixpoint --

    def solve(self) -> "Linker":
        self._solve()
        called = set(self.invoked)  # what code of the project calls (or launches)
        for q in sorted(set(self.functions) - called):  # entry points run with their defaults
            if self.functions[q][0] not in self._on_demand:
                self._bind(q, (), (), None)
        self._solve()
        self.invoked = called
        return self

    def takes_refs(self, function: str) -> bool:
        """Whether a function has a parameter named as kernel bodies name their refs."""
        entry = self.functions.get(function)
        return entry is not None and any(_REF.search(name) for name, _, _ in entry[1].params)

    def _solve(self) -> None:
        self._budget += _EVALUATIONS_PER_STATEMENT * len(self._queued)
        while self._queue and self._budget > 0:
            self._budget -= 1
            statement = self._current = self._queue.popleft()
            self._queued.discard(statement)
            name, kind, number = statement
            module = self.modules[name]
            if kind == "assign":
                target, value = module.assigns[number]
                self._store(target, self._eval(value, name), name)
            elif kind == "return":
                function, value = module.returns[number]
                self._add(("ret", function), self._eval(value, name))
            else:
                self._add(("res", name, number), self._call(module.calls[number], name))
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

    def _store(self, target: Expr, values: set, module: str) -> None:
        """`name = ...`, `obj.attr = ...` (an instance's, a class's or a module's), `box[key] = ...`."""
        if target[0] == "var":
            self._add(target, values)
            return
        for owner in self._eval(target[1], module):
            if target[0] == "attr" and owner[0] == "module":
                self._add(("var", owner[1], target[2]), values)
            elif target[0] == "attr" and owner[0] in ("inst", "class"):
                self._field(owner, target[2], values)
            elif target[0] == "item" and owner[0] in ("map", "seq", "kwargs"):
                self._field(owner, target[2], values)

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

    # -- expressions --

    def _eval(self, expr: Expr, module: str) -> set:
        kind = expr[0]
        if kind == "lit":
            return {expr}
        if kind == "var":
            if expr[1] not in self.modules:  # a function's variable
                return set(self._get(expr))
            return self._module_name(expr[1], expr[2])
        if kind == "dotted":
            return self._resolve(expr[1])
        if kind == "attr":
            return {found for value in self._eval(expr[1], module) for found in self._attribute(value, expr[2])}
        if kind == "item":
            owners = self._eval(expr[1], module)
            for owner in owners:  # `options["accuracy"]`: code of its own reads the mapping's entries
                if owner[0] in ("map", "kwargs"):
                    self.readers.setdefault(owner, set()).add(f"`[...]` of it in {module}")
            return {found for value in owners for found in self._item(value, expr[2])}
        if kind == "call":
            return self._get(("res", module, expr[1]))
        if kind == "seq":
            value = ("seq", module, expr[1], len(expr[2]))
            for position, element in enumerate(expr[2]):
                self._field(value, position, self._eval(element, module))
            return {value}
        if kind == "map":
            value = ("map", module, expr[1])
            for key, element in expr[2]:
                self._field(value, key, self._eval(element, module))
            return {value}
        if kind == "comp":  # a mapping of keys not known, holding what the element may be
            value = ("map", module, expr[1], "a comprehension")
            self._field(value, None, self._eval(expr[2], module))
            return {value}
        if kind in ("def", "class"):
            return {expr}
        if kind == "either":
            return {found for option in expr[1] for found in self._eval(option, module)}
        return {expr}  # unknown

    def _module_name(self, module: str, name: str) -> set:
        """What a module's name holds, read in it or from outside: what it binds, a submodule of that
        name, or what its `from m import *` brings in."""
        return self._get(("var", module, name)) | self._module_value(module, name) | self._star_imported(module, name)

    def _star_imported(self, scope: str, name: str, depth: int = 0) -> set:
        """A module's name it never binds, from its `from m import *` (a name other modules read too)."""
        summary = self.modules.get(scope)
        if summary is None or depth > 8:
            return set()
        return {found for star in summary.star_imports if self._has(star)
                for found in self._get(("var", star, name)) | self._star_imported(star, name, depth + 1)}

    def _module_value(self, module: str, name: str) -> set:
        """`pkg.sub` read as a name of `pkg`: the submodule."""
        return {("module", f"{module}.{name}")} if self._has(f"{module}.{name}") else set()

    def _resolve(self, dotted: str) -> set:
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):
            prefix = ".".join(parts[:cut])
            if self._has(prefix):
                values = {("module", prefix)}
                for name in parts[cut:]:
                    values = {found for value in values for found in self._attribute(value, name)}
                return values
        level = dotted.rsplit(".", 1)
        if len(level) == 2 and level[0].endswith(_PRECISION.rsplit(".", 1)[1]) and level[1] in ("DEFAULT", "HIGH", "HIGHEST"):
            return {("level", level[1])}
        return {("ext", dotted)}

    def _attribute(self, value: tuple, name: str) -> set:
        kind = value[0]
        if kind == "module":
            return self._module_name(value[1], name)
        if kind == "ext":  # (a name chain longer than any module path is something computed: `x = x.parent`)
            return self._resolve(f"{value[1]}.{name}") if value[1].count(".") < 8 else {("obj", value[1])}
        if kind == "obj":  # what installed code gave stays that, whatever is read from it: the set stays finite
            return {value}
        if kind == "inst":
            return self.read(value, name) | self._class_attribute(value[1], name, value)
        if kind == "class":
            return self._class_attribute(value[1], name, None)
        if kind in ("map", "kwargs") and name in _CONTAINER_READS:
            self.readers.setdefault(value, set()).add(f"`.{name}(...)` of it")
            return {("method", value, name)}
        if kind == "unknown":
            return {value}
        return set()

    def _class_attribute(self, qualified: str, name: str, instance: Optional[tuple], depth: int = 0) -> set:
        entry = self.classes.get(qualified)
        if entry is None or depth > 8:
            return set()
        module, cls = entry
        attributes = self._attributes.get(qualified)
        if attributes is None:  # the last assignment of each name wins
            attributes = self._attributes[qualified] = dict(cls.attributes)
        expr = attributes.get(name)
        if expr is not None:
            values = self._eval(expr, module)
            if instance is None:
                return values
            return {("bound", value[1], instance) if value[0] == "def" else value for value in values}
        return {found for base in cls.bases for value in self._eval(base, module) if value[0] == "class"
                for found in self._class_attribute(value[1], name, instance, depth + 1)}

    def _item(self, value: tuple, key: object) -> set:
        kind = value[0]
        if kind == "seq":
            if isinstance(key, int) and -value[3] <= key < value[3]:
                return set(self.read(value, key % value[3]))
            return {found for position in range(value[3]) for found in self.read(value, position)}
        if kind in ("map", "kwargs", "args"):
            if key is None:
                return {found for known in self._keys_of(value) for found in self.read(value, known)}
            return self.read(value, key) | self.read(value, None)
        if kind == "items":  # an entry of `d.items()`, and its key (0) or value (1)
            return {("entry", value[1])}
        if kind == "entry":
            keys = {("lit", known) for known in self._keys_of(value[1]) if isinstance(known, (str, int))}
            return (keys if key in (0, None) else set()) | (self._item(value[1], None) if key in (1, None) else set())
        if kind in ("unknown", "obj", "ext"):
            return {value} if kind != "ext" else {("obj", value[1])}
        return set()

    # -- calls --

    def _call(self, call: Call, module: str) -> set:
        args = [(starred, self._eval(expr, module)) for starred, expr in call.args]
        keywords = [(name, self._eval(expr, module)) for name, expr in call.keywords]
        callees = self._eval(call.callee, module)
        for name, values in keywords:
            if name in self._followed_keywords:
                self.keyword_values.setdefault((module, call.site, name), set()).update(values)
                self.keyword_callees.setdefault((module, call.site, name), set()).update(
                    function for callee in callees for function in self._functions_in(callee))
        if self._hints_followed and any(name == HINT for name, _ in call.keywords):
            keywords = [(name, self._located_hints(values, module, call) if name == HINT else values)
                        for name, values in keywords]
        results: set = set()
        for callee in callees:
            results |= self._invoke(callee, args, keywords, call, module)
        return results

    @staticmethod
    def _located_hints(values: set, module: str, call: Call) -> set:
        """A hint passed by keyword (`Config(accuracy=...)`, `partial(body, accuracy=...)`, the op's own
        `lax.exp(x, accuracy=...)`), each value that asks for something tagged with where it is written:
        who reads it is then known there (`link_answers._hint_answers`)."""
        return {("hint", module, call.site, value, call.scope) if value[0] in ("lit", "ext", "obj")
                and value != ("lit", None) else value for value in values}

    def _invoke(self, callee: tuple, args: list, keywords: list, call: Call, module: str) -> set:
        kind = callee[0]
        caller = call.scope
        if kind in ("def", "bound") and not self._launching:
            self.calls.add((caller, callee[1]))
        if kind == "def":
            self._run_in(callee[1], caller)
            self._bind(callee[1], args, keywords, None, call, module)
            return self._get(("ret", callee[1]))
        if kind == "bound":
            self._run_in(callee[1], caller)
            self._bind(callee[1], args, keywords, callee[2], call, module)
            return self._get(("ret", callee[1]))
        if kind == "partial":
            if callee in self._unwrapping:  # `f = partial(f, ...)` in a loop: a partial of itself
                return set()
            bound_args = [(False, self.read(callee, ("arg", position))) for position in range(self._arity(callee))]
            bound_keywords = [(name, self.read(callee, ("kw", name))) for name in self._bound_names(callee)]
            spread = self.read(callee, ("spread",))
            if spread:
                bound_keywords.append((None, spread))
            self._unwrapping.add(callee)
            try:
                return {found for function in self.read(callee, "fn")
                        for found in self._invoke(function, bound_args + args, bound_keywords + keywords, call, module)}
            finally:
                self._unwrapping.discard(callee)
        if kind == "class":
            instance = ("inst", callee[1])
            initializer = self._class_attribute(callee[1], "__init__", instance)
            for method in initializer:
                self._invoke(method, args, keywords, call, module)
            fields = self.classes[callee[1]][1].fields if callee[1] in self.classes else None
            if not initializer and fields is not None:
                self._bind_fields(instance, fields, args, keywords)
            return {instance}
        if kind == "inst":
            return {found for method in self._class_attribute(callee[1], "__call__", callee)
                    for found in self._invoke(method, args, keywords, call, module)}
        if kind == "method":
            if callee[2] == "values":  # `d.values()`: what iterating it gives is what the mapping holds
                return {callee[1]}
            if callee[2] == "items":  # `d.items()`: iterated, (key, value) entries of the mapping
                return {("items", callee[1])}
            return {found for values in (self._item(callee[1], None),) for found in values}
        if kind == "ext":
            return self._installed(callee[1], args, keywords, call, module)
        if kind == "unknown":  # it may be a launcher (`getattr(launchers, f"launch_{backend}")`)
            where = f"{MAYBE}{callee[1]} ({module}:{call.site[0]})"
            for _, values in [*args, *keywords]:
                for value in values:
                    if value[0] in ("def", "bound", "partial", "inst"):
                        self._launch(value, frozenset({where}), call, module)
            self._escape(args, keywords, call, module, "a value it does not follow", maybe_launch=True)
            return {callee}
        if kind == "obj":
            self._escape(args, keywords, call, module, callee[1])
            return {callee}
        if kind == "launcher":  # a launcher's decorator applied to the body
            for value in args[0][1] if args else ():
                self._launch(value, callee[2], call, module)
            return {("obj", callee[1])}
        return set()

    def _installed(self, name: str, args: list, keywords: list, call: Call, module: str) -> set:
        """A call of an installed package's function: the few whose effect the flow knows, and followed calls."""
        given = dict((keyword, values) for keyword, values in keywords if keyword is not None)
        if name == _PARTIAL and args:
            value = ("partial", module, call.site)
            self._field(value, "fn", args[0][1])
            for position, (_, values) in enumerate(args[1:]):
                self._field(value, ("arg", position), values)
            for keyword, values in keywords:
                self._field(value, ("kw", keyword) if keyword is not None else ("spread",), values)
            return {value}
        if name in _IDENTITY and args:
            return set(args[0][1])
        if name == _ZIP and args and not any(starred for starred, _ in args):
            # iterated, rows of the elements at one position of each: (what each may hold, in order)
            row = ("map", module, call.site, "a row `zip` builds")
            for position, (_, values) in enumerate(args):
                self._field(row, position, {found for value in values for found in self._item(value, None)})
            rows = ("map", module, call.site, "`zip`")
            self._field(rows, None, {row})
            return {rows}
        if name == _ENUMERATE and args:  # iterated, (position, element) entries, as `.items()` of the sequence gives
            return {("items", value) for value in args[0][1] if value[0] in ("seq", "map")}
        if name == _FIELD:
            return set(given.get("default", set()))
        if name == _DICT:
            value = ("map", module, call.site)
            for keyword, values in keywords:
                self._field(value, keyword, values)
            return {value}
        if name == _GETATTR and len(args) >= 2:
            names = [value[1] for value in args[1][1] if value[0] == "lit" and isinstance(value[1], str)]
            return {found for owner in args[0][1] for attribute in names for found in self._attribute(owner, attribute)}
        launcher = LAUNCHERS.get(name)
        if launcher is not None:
            body = given.get(launcher.body_keyword) or self._positional(args, launcher.body_position)
            backends = self._selected(launcher.selectors, given) or launcher.backends
            if not body:  # `@plgpu.kernel(out_type=...)`, `@pl.core_map(mesh)`: the body comes with the next call
                return {("launcher", name, backends)}
            # One of several functions (`IMPLEMENTATIONS[mode]`): one that takes no refs is more likely
            # plain code than a body, so it may run there, not surely (a pair in it is [manual]).
            several = len({value for value in body if value[0] in ("def", "bound", "partial", "inst")}) > 1
            for value in body:
                unsure = several and value[0] in ("def", "bound") and not self.takes_refs(value[1])
                self._launch(value, frozenset({f"{MAYBE}a launch that may run one of several functions "
                                               f"({module}:{call.site[0]})"}) if unsure else backends, call, module)
            return {("obj", name)}
        followed = self.follows.get(name)
        if followed is not None:
            position, keyword = followed
            values = given.get(keyword) or self._positional(args, position)
            for spread in (held for name_, held in keywords if name_ is None):  # `**options`
                values = values | {found for mapping in spread for found in self._item(mapping, keyword)}
                self.spreads.setdefault((module, call.site), set()).update(spread)
            self.sinks.setdefault((module, call.site), (name, call.scope, set()))[2].update(values)
            return {("obj", name)}
        self._escape(args, keywords, call, module, name)
        return {("obj", name)}

    def _positional(self, args: list, position: Optional[int]) -> set:
        """What may sit at `position` among a call's arguments: past a `*spread`, any of its elements."""
        if position is None:
            return set()
        for index, (starred, values) in enumerate(args):
            if starred:
                return {found for value in values for found in self._item(value, position - index if index <= position
                                                                         else None)}
            if index == position:
                return set(values)
        return set()

    def _selected(self, selectors: tuple, given: dict) -> Backends:
        found: set[str] = set()
        for keyword, _ in selectors:
            for value in given.get(keyword, ()):
                dotted = value[1] if value[0] in ("obj", "ext") and isinstance(value[1], str) else ""
                found |= {backend for prefix, backend in BACKEND_MODULES if dotted.startswith(prefix)}
                if value[0] == "lit" and isinstance(value[1], str) and value[1].lower() in BACKEND_WORDS:
                    found.add(BACKEND_WORDS[value[1].lower()])
                if value[0] == "map":
                    found |= {BACKEND_WORDS[key] for key in self._keys_of(value) if key in BACKEND_WORDS}
        return frozenset(found)

    def _launch(self, body: tuple, backends: Backends, call: Call, module: str) -> None:
        """A kernel body handed to a launcher: it (and all it calls) runs in kernels for `backends`."""
        for function in self._functions_in(body):
            self._run_with(function, backends)
            self.launches.add((call.scope, function))
        self._launching = True
        try:
            self._invoke(body, [], [], call, module)
        finally:
            self._launching = False

    def _functions_in(self, callable_value: tuple) -> Iterator[str]:
        """The functions calling `callable_value` runs: itself, a partial's function, an instance's `__call__`."""
        targets, seen = [callable_value], set()
        while targets:
            value = targets.pop()
            if value in seen:  # a partial of itself
                continue
            seen.add(value)
            if value[0] in ("def", "bound"):
                yield value[1]
            elif value[0] == "partial":
                targets.extend(self.read(value, "fn"))
            elif value[0] == "inst":  # a callable instance
                targets.extend(self._class_attribute(value[1], "__call__", value))

    def plain_callers(self) -> Iterator[tuple[str, str]]:
        """(scope, function) for each function held in a container plain code hands to code the flow
        does not follow (`jax.tree.map(apply, HELPERS)`): it may call them there. Asked once the
        fixpoint is done, when the containers hold all they will."""
        for value, scopes in self._escaped_plainly.items():
            for held in self._held_in(value):
                if held[0] in ("def", "bound", "partial"):
                    yield from ((scope, function) for scope in scopes for function in self._functions_in(held))

    def _held_in(self, value: tuple) -> Iterator[tuple]:
        """The holder `value` (a container, `**kwargs`, an instance), the holders it holds however deep,
        as far as `_READ_DEPTH` of them, and the other values they hold: what code the flow does not
        follow may reach from it."""
        seen, stack = {value}, [value]
        while stack and len(seen) <= _READ_DEPTH:
            holder = stack.pop()
            yield holder
            for key in self.keys.get(holder, ()):
                for inner in self.heap.get(("field", holder, key), ()):
                    if inner[0] not in _HOLDERS:
                        yield inner
                    elif inner not in seen:
                        seen.add(inner)
                        stack.append(inner)

    def _run_in(self, function: str, caller: str) -> None:
        """A call from kernel code runs in that kernel."""
        outer = self._backends_of(caller)
        if outer:
            self._run_with(function, outer)

    def _escape(self, args: list, keywords: list, call: Call, module: str, name: str, maybe_launch: bool = False) -> None:
        """Values handed to code the flow does not follow. A function handed on from kernel code runs
        there (`lax.fori_loop(0, n, body, x)`, `@pl.when(c)`), and from plain code, handed to an
        installed package's code, runs as plain code (`jax.jit(f)`, `jax.tree.map(f, HELPERS)`), unless
        the callee may be a launcher (`maybe_launch`: `_invoke` says so); a pair handed on is read there."""
        in_kernel = self._backends_of(call.scope)
        # Python's builtins hand functions on without calling them (`zip`, `classmethod`, `print`).
        runs_plainly = not in_kernel and not maybe_launch and not name.startswith("builtins.")
        reader = ""
        for _, held in [*args, *keywords]:
            for value in held:
                if value[0] in ("def", "bound", "partial"):
                    if in_kernel:
                        self._launch(value, frozenset(in_kernel), call, module)
                    elif runs_plainly:
                        self.calls.update((call.scope, function) for function in self._functions_in(value))
                elif value[0] in _HOLDERS:
                    reader = reader or f"`{name.removeprefix('builtins.')}` ({module}:{call.site[0]})"
                    self.read_by(value, reader)
                    if runs_plainly:
                        self._escaped_plainly.setdefault(value, set()).add(call.scope)

    def read_by(self, value: tuple, reader: str) -> None:
        """`reader` (code the flow does not follow) reads `value` and all it holds (`settle_readers`)."""
        if value[0] in _HOLDERS:
            self._escaped.setdefault(value, set()).add(reader)

    def settle_readers(self) -> None:
        """`readers`: each tuple, list or dict literal (or `**kwargs`) -> who reads it besides followed calls, from the
        values handed to such readers and what they hold (worked out once the fixpoint is done,
        not at each evaluation of each call: that walked every container handed to installed code
        again and again, a quarter of a large project's link)."""
        readers = self.readers  # (with those found on the way: `kw.get(...)`, `box[...]`, a parameter)
        for value, by in self._escaped.items():
            for held in self._held_in(value):
                if held[0] in ("seq", "map", "kwargs"):
                    readers.setdefault(held, set()).update(by)

    # -- binding arguments to parameters --

    def _bind(self, function: str, args: Iterable, keywords: Iterable, instance: Optional[tuple],
              call: Optional[Call] = None, caller: Optional[str] = None) -> None:
        """`call` (in module `caller`): where the keywords it writes are written (`passed`); a keyword
        a partial bound is not, and is recorded as written nowhere known."""
        self.invoked.add(function)
        for statement in self._waiting.pop(function, ()):
            self._queue_statement(statement)
        written = {name for name, _ in call.keywords if name is not None} if call is not None else set()
        entry = self.functions.get(function)
        if entry is None:
            return
        module, summary = entry
        params = list(summary.params)
        given: set[str] = set()
        positional = [param for param in params if param[1] not in (KEYWORD_ONLY, STAR, DOUBLE_STAR)]
        star = next((param[0] for param in params if param[1] == STAR), None)
        double = next((param[0] for param in params if param[1] == DOUBLE_STAR), None)
        if instance is not None and positional:
            self._add(("var", function, positional[0][0]), {instance})
            given.add(positional[0][0])
            positional = positional[1:]
        position = 0
        for starred, values in args:
            lengths = {value[3] for value in values if value[0] == "seq"}
            if starred and values and len(lengths) == 1 and all(value[0] == "seq" for value in values):
                for element in range(lengths.pop()):  # *(a, b): a tuple of known length, element by element
                    held = {found for value in values for found in self.read(value, element)}
                    if position < len(positional):
                        self._add(("var", function, positional[position][0]), held)
                        given.add(positional[position][0])
                        position += 1
                    elif star:
                        self._field(("args", function), None, held)
                continue
            if starred:  # *values: each element may land on any parameter from here on
                elements = {found for value in values for found in self._item(value, None)}
                for name, _, _ in positional[position:]:
                    self._add(("var", function, name), elements)
                if star:
                    self._field(("args", function), None, elements)
                position = len(positional)
                continue
            if position < len(positional):
                name = positional[position][0]
                self._add(("var", function, name), values)
                given.add(name)
                position += 1
            elif star:
                self._field(("args", function), None, values)
        if star:
            self._add(("var", function, star), {("args", function)})
        if double:
            self._add(("var", function, double), {("kwargs", function)})
        names = {param[0] for param in params if param[1] not in (STAR, DOUBLE_STAR)}
        for keyword, values in keywords:
            if keyword is not None:
                at = ("at", caller, call.site) if call is not None and keyword in written else ("unknown", "a partial's keyword")
                self._keyword(function, keyword, values, names, double, given, at)
                continue
            for value in values:  # **mapping
                if double and value[0] in ("map", "kwargs", "obj", "ext", "unknown"):  # (installed or unknown: named)
                    self.passed.setdefault((("kwargs", function), None), {}).setdefault(value, set())
                if value[0] in ("map", "kwargs"):
                    for key in list(self._keys_of(value)):
                        if isinstance(key, str):
                            self._keyword(function, key, self.read(value, key), names, double, given, value)
                elif value[0] == "unknown":
                    for name in names - given:
                        self._add(("var", function, name), {value})
        for name, _, default in params:
            if default is not None and name not in given:
                self._add(("var", function, name), self._eval(default, module))

    def _keyword(self, function: str, keyword: str, values: set, names: set, double: Optional[str], given: set,
                 source: tuple) -> None:
        if keyword in names:
            self._add(("var", function, keyword), values)
            given.add(keyword)
            if source[0] == "at":
                self.bound.add((source[1], source[2], function))
            if source[0] in ("map", "kwargs"):  # a mapping's entry read by name: code of its own reads it
                self.readers.setdefault((source, keyword), set()).add(f"`{function}` (its parameter `{keyword}`)")
        elif double:
            self._field(("kwargs", function), keyword, values)
            if source[0] not in ("map", "kwargs"):  # (a mapping spread into it: `passed[kwargs, None]`)
                self.passed.setdefault((("kwargs", function), keyword), {}).setdefault(source, set()).update(values)

    def _bind_fields(self, instance: tuple, fields: tuple, args: list, keywords: list) -> None:
        for (name, _), (starred, values) in zip(fields, args):
            if not starred:
                self._field(instance, name, values)
        names = {name for name, _ in fields}
        for keyword, values in keywords:
            if keyword in names:
                self._field(instance, keyword, values)

    def _arity(self, partial: tuple) -> int:
        return sum(1 for key in self._keys_of(partial) if isinstance(key, tuple) and key[0] == "arg")

    def _bound_names(self, partial: tuple) -> list[str]:
        return sorted(key[1] for key in self._keys_of(partial) if isinstance(key, tuple) and key[0] == "kw")
