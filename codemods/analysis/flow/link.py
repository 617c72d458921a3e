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
("ext", dotted) an installed package's name (("ext", dotted, m, site): a hint's member, where written), ("obj", dotted) what calling one returned, ("seq", m,
site, n), ("map", m, site), ("map", m, site, what) a mapping of keys not known (a comprehension's
result, `zip`'s and the rows it builds), ("partial", m, site), ("kwargs", q) / ("args", q) a function's `**`/`*`
parameter, ("bound", q, inst), ("method", container, name), ("items", mapping) what `mapping.items()`
gives and ("entry", mapping) one of its (key, value) entries, ("launcher", dotted, backends) a
launcher's decorator (`plgpu.kernel(out_type=...)`) before it is applied to the body, ("hint", m,
site, value, scope) a followed hint (`accuracy=`) written as the keyword of the call at `site` in function
`scope` (`Config(accuracy=...)`, `partial(body, accuracy=...)`, the op's own): located, as a pair literal
is, ("unknown", why). A launch helper's partials, `**` and `*` parameters (and its variables, call
results and return, as keys) end with the call it runs for (`link_heap.launch_helpers`).
"""

from __future__ import annotations

from typing import Callable, Iterable, Mapping, Optional

from codemods.analysis.flow.flow_facts import FlowFacts
from codemods.analysis.kernel_backends import Launcher
from codemods.analysis.kernel_scope import BACKEND_MODULES, BACKEND_WORDS, LAUNCHERS, Backends
from codemods.analysis.flow.link_answers import HINT, MAYBE, KeywordArgument, answers
from codemods.analysis.flow.link_binding import Binding
from codemods.analysis.flow.link_heap import Context, spelt_name
from codemods.analysis.flow.link_readers import HOLDERS
from codemods.analysis.flow.link_values import literal_keys
from codemods.analysis.flow.summary import Call, Expr, ModuleSummary, Site
from codemods.analysis.visible_dtypes import DTYPE_CALL

# Installed callables that hand back (a value built from) their first argument (`jnp.dtype("int8")`: the
# dtype it names, as a kernel's parameter may be given it: kernel_dtypes.py).
# The maps over a function (`jax.vmap(f)(xs)`) call it with what they are called with, sliced: as far as
# the values it is given go, the function itself.
_IDENTITY = frozenset({"jax.named_call", "jax.jit", "jax.checkpoint", "jax.remat", "jax.named_scope",
                       "jax.vmap", "jax.pmap", "jax.shard_map", "jax.experimental.shard_map.shard_map",
                       "builtins.tuple", "builtins.list", "builtins.staticmethod", "functools.cache",
                       "builtins.reversed", "builtins.sorted", "builtins.iter", DTYPE_CALL})
# `jax.tree_util.Partial` is `functools.partial` whose bound arguments are a pytree's leaves
_PARTIALS = frozenset({"functools.partial", "jax.tree_util.Partial"})
_WRAPS = "functools.wraps"  # (it reads the attributes of the function it is given, never calls it)
_WRAPPING = frozenset({_WRAPS, "functools.update_wrapper"})
_FIELD = "dataclasses.field"
_REPLACE = "dataclasses.replace"
_DICT = "builtins.dict"
_ENUMERATE = "builtins.enumerate"
_NEXT = "builtins.next"
_SETS = frozenset({"builtins.set", "builtins.frozenset"})
_ZIP = "builtins.zip"
_GETATTR = "builtins.getattr"
# `box[key] = x` and `obj.name = x` spelt as calls (`box.__setitem__(key, x)` is a container's method)
_SETITEM = frozenset({"operator.setitem", "builtins.list.__setitem__", "builtins.dict.__setitem__"})
_SETATTR = frozenset({"builtins.setattr", "builtins.object.__setattr__"})


def link(summaries: Iterable[ModuleSummary], follows: Mapping[str, tuple[Optional[int], str]],
         load: Optional[Callable[[str], Optional[ModuleSummary]]] = None,
         loadable: "frozenset[str] | set[str]" = frozenset()) -> tuple[dict[str, FlowFacts], frozenset[str]]:
    """Each module's flow facts (modules with none are left out), and the modules read: those of
    `summaries`, and of `loadable`, those whose names the others read (`load(name)` gives the
    summary: what a caller imports, only as far as it is read)."""
    linker = Linker({summary.name: summary for summary in summaries}, follows, load, loadable).solve()
    return answers(linker), frozenset(linker.modules)


class Linker(Binding):
    """The fixpoint: each statement of each summary evaluated (`_solve`) until no value set grows;
    what calls do (a function's, a partial's, a class's, an installed package's), which functions run
    in which kernels (launches, and what kernel code calls or hands on), and what the followed calls
    receive (`sinks`)."""

    def __init__(self, modules: dict[str, ModuleSummary], follows: Mapping[str, tuple[Optional[int], str]],
                 load: Optional[Callable[[str], Optional[ModuleSummary]]] = None,
                 loadable: "frozenset[str] | set[str]" = frozenset()) -> None:
        self.follows = follows
        self._followed_keywords = frozenset(keyword for _, keyword in follows.values() if keyword != HINT)
        self._hints_followed = any(keyword == HINT for _, keyword in follows.values())
        self.calls: set[tuple[str, str]] = set()  # (caller, callee) of every call (not a launch) of a function
        self._launching = False
        self._unwrapping: set[tuple] = set()  # partials being called through (see `_invoke`)
        self.sinks: dict[tuple[str, Site], tuple[str, str, set]] = {}  # (module, site) -> (callee, function, values)
        # A jax function a call reaches as a value (a table's entry, a partial, a default), not by its name:
        # (module, site) -> (function, {its name: {keyword: values}}), for the rules' walls (`_called_values`)
        self.called: dict[tuple[str, Site], tuple[str, dict[str, dict[str, set]]]] = {}
        self.spreads: dict[tuple[str, Site], set] = {}  # a followed call -> the mappings it spreads (`**options`)
        self.keyword_arguments: dict[tuple[str, Site, str], KeywordArgument] = {}  # (module, call, followed keyword)
        self.launches: set[tuple[str, str]] = set()  # (scope, body) of every launch of a function
        # Where each launch's body is given: the launcher's call, or for a launch helper run for one call of
        # it, that call (module, site) -> (the launcher, the backends, every value its body may be, where the
        # launcher is called: `(module:line)`, for a launch through a helper)
        self.launched: dict[tuple[str, Site], tuple[str, set, set, set]] = {}
        super().__init__(modules, load, loadable)

    def solve(self) -> "Linker":
        self._solve()
        # A launch helper no code calls runs all the same, as any function's code does, its
        # parameters empty: what it calls or launches is invoked by code of the project.
        for helper in sorted((self.launch_helpers | self.decorators) - self._entered.keys()):
            self._enter(helper, None)
        self._solve()
        called = set(self.invoked)  # what code of the project calls (or launches)
        self._bind_entry_points(called, lambda module: module not in self._on_demand)
        self._solve()
        # A module read on demand that writes a value a followed call reads (`OPS = {"rsqrt": partial(...)}`,
        # a pair): its functions nothing calls may read that value too (XLA code of its own), so they run too.
        writing = {value[1] for _, _, values in self.sinks.values() for value in values
                   if value[0] in ("seq", "hint") and value[1] in self._on_demand}
        if writing:
            self._bind_entry_points(called, writing.__contains__)
            self._solve()
        self.invoked = called
        return self

    def _solve(self) -> None:
        for name, kind, number, _ in self._statements():
            module = self.modules[name]
            if kind == "assign":
                target, value = module.assigns[number]
                self._store(target, self._eval(value, name), name)
            elif kind == "return":
                function, value = module.returns[number]
                self._add(self._local(("ret", function)), self._eval(value, name))
            else:
                self._add(self._local(("res", name, number)), self._call(module.calls[number], name))

    def _call(self, call: Call, module: str) -> set:
        args = [(starred, self._eval(expr, module)) for starred, expr in call.args]
        keywords = [(name, self._eval(expr, module)) for name, expr in call.keywords]
        callees = self._eval(call.callee, module)
        for name, values in keywords:
            if name in self._followed_keywords:
                passed = self.keyword_arguments.setdefault((module, call.site, name), KeywordArgument())
                passed.values.update(values)
                passed.callees.update(function for callee in callees for function in self._functions_in(callee))
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
        if kind == "def":  # (and the context a wrapping decorator's call made it in)
            context = callee[2] if len(callee) > 2 else None
            self._run_in(callee[1], caller, context or self._context_of(callee[1], call, module))
            self._bind(callee[1], args, keywords, None, call, module, context)
            return self._returned(callee[1], call, module, context)
        if kind == "bound":
            self._run_in(callee[1], caller, self._context_of(callee[1], call, module))
            self._bind(callee[1], args, keywords, callee[2], call, module)
            return self._returned(callee[1], call, module)
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
            # A dataclass's (NamedTuple's) instance is its site's own, the call binding its fields into it;
            # one of a class with an `__init__` is the class's: `self` is one variable for all its calls,
            # so every instance would hold what any is given anyway (and the link ran a third longer).
            fields = self.classes[callee[1]][1].fields if callee[1] in self.classes else None
            if fields is not None and not self._class_attribute(callee[1], "__init__", None):
                instance = self.instance_at(callee[1], module, call.site)
                self._bind_fields(instance, fields, args, keywords)
                return {instance}
            instance = ("inst", callee[1])
            for method in self._class_attribute(callee[1], "__init__", instance):
                self._invoke(method, args, keywords, call, module)
            return {instance}
        if kind == "inst":
            return {found for method in self._class_attribute(callee[1], "__call__", callee)
                    for found in self._invoke(method, args, keywords, call, module)}
        if kind == "method" and callee[1][0] == "inst":  # `options._replace(precision=...)`
            return self.replaced(callee[1], keywords, module, call.site)
        if kind == "method":
            return self._container_method(callee[1], callee[2], args, keywords)
        if kind == "ext":
            if callee[1].startswith("jax.") and not self._launching and spelt_name(call.callee) != callee[1]:
                bound = self.called.setdefault((module, call.site), (call.scope, {}))[1].setdefault(callee[1], {})
                for name, values in keywords:
                    bound.setdefault(name or "**", set()).update(values)
            return self._installed(callee[1], args, keywords, call, module)
        if kind == "unknown":  # it may be a launcher (`getattr(launchers, f"launch_{backend}")`)
            where = f"{MAYBE}{callee[1]} ({module}:{call.site[0]})"
            for _, values in [*args, *keywords]:
                for value in values:
                    if value[0] in ("def", "bound", "partial", "inst"):
                        self._launch(value, frozenset({where}), call, module)
            self._escape(args, keywords, call, module, "a value it does not follow", maybe_launch=True)
            return {callee}
        if kind == "obj" and callee[1] == _WRAPS and args and self._wrapping():  # `functools.wraps(fn)(wrapper)`
            return set(args[0][1])
        if kind == "obj":
            self._escape(args, keywords, call, module, callee[1])
            return {callee}
        if kind == "launcher":  # a launcher's decorator applied to the body
            self._record_launch(callee[1], callee[2], args[0][1] if args else set(), call, module,
                                call.args[0][1] if call.args else None)
            for value in args[0][1] if args else ():
                self._launch(value, callee[2], call, module)
            return {("obj", callee[1])}
        return set()

    def _installed(self, name: str, args: list, keywords: list, call: Call, module: str) -> set:
        """A call of an installed package's function: the few whose effect the flow knows, and followed calls."""
        given = dict((keyword, values) for keyword, values in keywords if keyword is not None)
        if name in _PARTIALS and args:
            value = self._local(("partial", module, call.site))
            self._field(value, "fn", args[0][1])
            for position, (_, values) in enumerate(args[1:]):
                self._field(value, ("arg", position), values)
            for keyword, values in keywords:
                self._field(value, ("kw", keyword) if keyword is not None else ("spread",), values)
            return {value}
        if name in _IDENTITY and args:
            return set(args[0][1])
        if name == _REPLACE and args and all(value[0] == "inst" for value in args[0][1]):  # (none yet: it grows)
            return {found for value in args[0][1] for found in self.replaced(value, keywords, module, call.site)}
        if name in _WRAPPING and self._wrapping():  # the wrapper; the function it wraps is not called
            return {("obj", name)} if name == _WRAPS else set(args[0][1]) if args else set()
        if name == _ZIP and args and not any(starred for starred, _ in args):
            # iterated, rows of the elements at one position of each: (what each may hold, in order)
            row = ("map", module, call.site, "a row `zip` builds")
            for position, (_, values) in enumerate(args):
                self._field(row, position, {found for value in values for found in self._item(value, None)})
            rows = ("map", module, call.site, "`zip`")
            self._field(rows, None, {row})
            return {rows}
        if name in _SETITEM and len(args) == 3 and not any(starred for starred, _ in args):  # `box[key] = x`
            for owner in args[0][1]:
                self._container_method(owner, "__setitem__", args[1:], [])
            return {("lit", None)}
        if name in _SETATTR and len(args) == 3 and not any(starred for starred, _ in args) and \
                all(isinstance(attribute, str) for attribute in literal_keys(args[1][1])):  # `obj.name = x`
            for owner in args[0][1]:  # (a name not known: handed on, below)
                for attribute in literal_keys(args[1][1]):
                    self.store_attribute(owner, attribute, args[2][1])
            return {("lit", None)}
        if name in _SETS:  # what it is made from, where given; else a new empty one, filled by `.add`
            return set(args[0][1]) if args else {("seq", module, call.site, 0)}
        if name == _NEXT and args:  # an element of what it iterates (`iter(x)` is `x` here), or its default
            return {found for value in args[0][1] for found in self._item(value, None)} | \
                (set(args[1][1]) if len(args) > 1 else set())
        if name == _ENUMERATE and args:  # iterated, (position, element) entries, as `.items()` of the sequence gives
            return {("items", value) for value in args[0][1] if value[0] in ("seq", "map")}
        if name == _FIELD:  # `field(default_factory=Cfg)`: what `Cfg()` makes, as `Cfg()` written as the default
            made = {found for factory in given.get("default_factory", set())
                    for found in self._invoke(factory, [], [], call, module)}
            return set(given.get("default", set())) | made
        if name == _DICT:
            value = ("map", module, call.site)
            self._write_entries(value, args, keywords)
            return {value}
        if name == _GETATTR and len(args) >= 2:
            names = [value[1] for value in args[1][1] if value[0] == "lit" and isinstance(value[1], str)]
            return {found for owner in args[0][1] for attribute in names for found in self._attribute(owner, attribute)}
        launcher = LAUNCHERS.get(name)
        if launcher is not None:
            return self._launch_call(name, launcher, args, given, call, module)
        followed = self.follows.get(name)
        if followed is not None:
            return self._followed_call(name, followed, args, keywords, given, call, module)
        self._escape(args, keywords, call, module, name)
        return {("obj", name)}

    def _launch_call(self, name: str, launcher: Launcher, args: list, given: dict, call: Call, module: str) -> set:
        """A launcher's call (`pl.pallas_call(body, ...)`): the body it is given runs in kernels of the backends
        it selects; one given no body yet (`@pl.core_map(mesh)`) is a launcher its next call gives one."""
        body = given.get(launcher.body_keyword) or self._positional(args, launcher.body_position)
        backends = self._selected(launcher.selectors, given) or launcher.backends
        if not body:  # `@plgpu.kernel(out_type=...)`, `@pl.core_map(mesh)`: the body comes with the next call;
            # one given but holding nothing yet (`pl.pallas_call(kernel, ...)` evaluated before `kernel =
            # partial(...)`): the call is evaluated again when it grows (it was taken for a decorator, and
            # the kernel's own arguments, `call(x, w)`, for a body)
            given_body = launcher.body_keyword in given or any(starred for starred, _ in args) or (
                launcher.body_position is not None and len(args) > launcher.body_position)
            if not given_body:
                return {("launcher", name, backends)}
            body = set()  # (recorded: one that never grows is lost, `REGISTRY["main"]` of an empty dict)
        # One of several functions (`IMPLEMENTATIONS[mode]`): one that takes no refs is more likely
        # plain code than a body, so it may run there, not surely (a pair in it is [manual]).
        several = len({value for value in body if value[0] in ("def", "bound", "partial", "inst")}) > 1
        written = dict(call.keywords).get(launcher.body_keyword) if launcher.body_keyword in given else \
            call.args[launcher.body_position][1] if launcher.body_position is not None \
            and launcher.body_position < len(call.args) else None
        self._record_launch(name, backends, body, call, module, written)
        for value in body:
            unsure = several and value[0] in ("def", "bound") and not self.takes_refs(value[1])
            self._launch(value, frozenset({f"{MAYBE}a launch that may run one of several functions "
                                           f"({module}:{call.site[0]})"}) if unsure else backends, call, module)
        return {("obj", name)}

    def _followed_call(self, name: str, followed: tuple, args: list, keywords: list, given: dict, call: Call,
                       module: str) -> set:
        """A followed call (`lax.dot(x, w, precision=...)`): what its followed argument or keyword may be,
        `**options` spread into it included, is its sink's (`sinks`, `spreads`)."""
        position, keyword = followed
        values = given.get(keyword) or self._positional(args, position)
        for spread in (held for name_, held in keywords if name_ is None):  # `**options`
            values = values | {found for mapping in spread for found in self._item(mapping, keyword)}
            self.spreads.setdefault((module, call.site), set()).update(spread)
        self.sinks.setdefault((module, call.site), (name, call.scope, set()))[2].update(values)
        return {("obj", name)}

    def _wrapping(self) -> bool:
        """Whether the statement being evaluated is a wrapping decorator's, run for one call of it: there
        `functools.wraps(fn)(wrapper)` is the wrapper (`link_heap.wrapping_decorators`); elsewhere, as
        before, what an installed function gives (a registry's decorator, run once for all its calls,
        would make every registered function run wherever one of them is looked up)."""
        context = self._current[3] if self._current is not None else None
        return context is not None and context[0] in self.decorators

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

    def _record_launch(self, launcher: str, backends: Backends, body: set, call: Call, module: str,
                       written: Optional[Expr]) -> None:
        """What a launcher's call may launch (`written`: its body's expression), for the answers to say
        where the body is not followed. Kept by the call that gives the body: the launcher's, or, for a
        launch helper run for one call of it whose body reads the helper's parameters, that call (whose
        module's own analysis may already take it for a launch it cannot resolve)."""
        context = self._current[3] if self._current is not None else None
        context = context if context is not None and context[0] in self.launch_helpers else None  # (not a decorator's)
        reads = self._parameters_read(written, call.scope, module)
        if reads and not body and (context is None or self._passes_parameters(context, reads)):
            return  # a parameter only callers outside the project bind (or ones passing theirs): their code is
        given = context is not None and bool(reads)
        entry = (context[1], context[2]) if given else (module, call.site)
        _, held_backends, values, through = self.launched.setdefault(entry, (launcher, set(), set(), set()))
        held_backends.update(backends)
        values.update(body)
        if given:
            through.add(f"`{context[0]}` ({module}:{call.site[0]})")

    def _parameters_read(self, expr: Optional[Expr], function: str, module: str) -> set[str]:
        """The parameters of `function` that `expr` (of `module`) reads."""
        params = {name for name, _, _ in self.functions[function][1].params} if function in self.functions else set()
        return parameters_read(expr, function, params, self.modules[module])

    def _passes_parameters(self, context: tuple, names: set[str]) -> bool:
        """Whether the call a launch helper runs for passes, as its parameters `names`, parameters of
        the function it is in (`def run(body): return tpu_call(body)`, which nothing calls)."""
        helper, module, site, _ = context
        call = next((made for made in self.modules[module].calls if made.site == site), None)
        if call is None or helper not in self.functions:
            return True
        params = [name for name, kind, _ in self.functions[helper][1].params]
        keywords = dict(call.keywords)
        passed = [keywords.get(name) if name in keywords else
                  call.args[params.index(name)][1] if params.index(name) < len(call.args) else None for name in names]
        return any(self._parameters_read(expr, call.scope, module) for expr in passed)

    def _launch(self, body: tuple, backends: Backends, call: Call, module: str) -> None:
        """A kernel body handed to a launcher: it (and all it calls) runs in kernels for `backends`."""
        for function in self._functions_in(body):
            self._run_with(function, backends)
            root = function.split(".<", 1)[0]
            for context in list(self._entered.get(root, ())) if root in self.decorators else ():  # (each call's)
                if context is not None:
                    self._run_with(function, backends, context)
            self.launches.add((call.scope, function))
        self._launching = True
        try:
            self._invoke(body, [], [], call, module)
        finally:
            self._launching = False

    def _run_in(self, function: str, caller: str, context: Optional[Context] = None) -> None:
        """A call from kernel code runs in that kernel (`context`: the call of a wrapping decorator
        the function is run for)."""
        outer = self._backends_of(caller)
        if outer:
            self._run_with(function, outer, context if context is not None and context[0] in self.decorators else None)

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
                    elif runs_plainly and value[0] != "partial":  # (a function itself, most of them)
                        self.calls.add((call.scope, value[1]))
                    elif runs_plainly:  # (it will be called: what it binds reaches the function)
                        self.calls.update((call.scope, function) for function in self._functions_in(value))
                        self._invoke(value, [], [], call, module)
                    if value[0] == "partial" and not in_kernel:
                        self.read_by(value, f"`{name.removeprefix('builtins.')}` ({module}:{call.site[0]})")
                elif value[0] in HOLDERS:
                    reader = reader or f"`{name.removeprefix('builtins.')}` ({module}:{call.site[0]})"
                    self.read_by(value, reader)
                    if runs_plainly:
                        self._escaped_plainly.setdefault(value, set()).add(call.scope)


def parameters_read(expr: Optional[Expr], function: str, params: set[str], summary: ModuleSummary) -> set[str]:
    """Those of `params`, parameters of `function`, that `expr` (of the module `summary`) reads, through
    the calls it makes (`functools.partial(body, **options)`)."""
    found: set[str] = set()
    pending, seen = [expr], set()
    while pending:
        part = pending.pop()
        if not isinstance(part, tuple) or not part or part in seen:
            continue
        seen.add(part)
        if part[0] == "var" and part[1] == function and part[2] in params:
            found.add(part[2])
        elif part[0] == "call" and isinstance(part[1], int):
            made = summary.calls[part[1]]
            pending += [made.callee, *(value for _, value in made.args), *(value for _, value in made.keywords)]
        else:
            pending += [inner for inner in part[1:] if isinstance(inner, tuple)]
    return found
