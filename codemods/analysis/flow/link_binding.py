"""Arguments bound to parameters, for the link (link.py): positional ones, `*args` spread element by
element where the tuple's length is known, keywords, `**mapping` entry by entry, defaults, a method's
instance, a dataclass's fields; and where each keyword a function's `**kwargs` holds was written, for
the answers to say where to fix it (`passed`)."""

from __future__ import annotations

from typing import Callable, Iterable, Optional

from codemods.analysis.flow.link_heap import Context
from codemods.analysis.flow.link_readers import Readers
from codemods.analysis.flow.summary import DOUBLE_STAR, KEYWORD_ONLY, STAR, Call, Site


class Binding(Readers):
    """Binds a call's arguments to a function's parameters (`_bind`), recording the functions code of
    the project calls (`invoked`), where each `**kwargs` entry was written (`passed`) and which call
    binds a keyword to a named parameter (`bound`)."""

    _launching = False  # a launch's body being bound (`Linker._launch`): the call is the launcher's

    def __init__(self, *args, **kwargs) -> None:
        self.invoked: set[str] = set()
        # Where what a function's `**kwargs` holds was written: (kwargs, key) -> {source: values}, a source
        # ("at", module, call site) for `f(key=...)` or ("unknown", why); (kwargs, None) -> the mappings
        # spread into it (`f(**options)`; an installed package's or an unknown value too) -> the calls
        # spreading it (module, call site; None: a partial's, or no call's).
        self.passed: dict[tuple, dict[tuple, set]] = {}
        # (module, call site, function): that call binds a keyword to a parameter of the function
        self.bound: set[tuple[str, Site, str]] = set()
        # A function -> the calls binding its parameters: (module, call site, how many of its positional
        # parameters come before the call's first argument: a partial's, a method's instance), for what a
        # launch's operand is to be read back to what its callers pass (kernel_dtypes.narrow_operands)
        self.callers: dict[str, set[tuple[str, Site, int]]] = {}
        self._signatures: dict[str, tuple] = {}  # a function -> what binding its parameters needs (`_signature`)
        # A `**mapping` entry bound to a function's parameter: (function, mapping, key, its keys for a launch
        # helper's call) -> how many values the entry held when bound (`_bind_keywords`)
        self._spread_bound: dict[tuple, int] = {}
        # A `**mapping` a statement bound to a function: (statement, function, mapping, its keys for a launch
        # helper's call) -> (the mapping's `_stamps` then, the parameters it bound)
        self._spreads_bound: dict[tuple, tuple[int, set[str]]] = {}
        super().__init__(*args, **kwargs)

    def _bind(self, function: str, args: Iterable, keywords: Iterable, instance: Optional[tuple],
              call: Optional[Call] = None, caller: Optional[str] = None, context: Optional[Context] = None) -> None:
        """`call` (in module `caller`): where the keywords it writes are written (`passed`); a keyword
        a partial bound is not, and is recorded as written nowhere known. A launch helper's (wrapping
        decorator's) parameters are bound for that call only (`launch_helpers`); a function such a
        decorator defines, for the call it was made in (`context`, the value called carries it)."""
        self.invoked.add(function)
        for statement in self._waiting.pop(function, ()):
            self._queue_statement(statement)
        signature = self._signature(function)
        if signature is None:
            return
        module, positional, star, double, names, defaults = signature
        if call is not None and caller is not None and not self._launching and len(args) >= len(call.args):
            self.callers.setdefault(function, set()).add((caller, call.site, len(args) - len(call.args) + (instance is not None)))
        context = context or self._context_of(function, call, caller)
        root = function.split(".<", 1)[0]
        if function in self.launch_helpers or function in self.decorators:
            self._enter(function, context)
        elif context is None and root in self.decorators:  # made where no call of the decorator is followed
            self._enter(root, None)
        here = (context,) if context is not None else ()  # a launch helper's keys for this call of it
        given: set[str] = set()
        if instance is not None and positional:
            self._add(("var", function, positional[0][0], *here), {instance})
            given.add(positional[0][0])
            positional = positional[1:]
        self._bind_positional(function, args, positional, star, given, here)
        if star:
            self._add(("var", function, star, *here), {("args", function, *here)})
        if double:
            self._add(("var", function, double, *here), {("kwargs", function, *here)})
        self._bind_keywords(function, keywords, call, caller, names, double, given, here)
        for name, default in defaults:
            if name not in given:
                self._add(("var", function, name, *here), self._eval(default, module))

    def _bind_entry_points(self, called: set[str], chosen: Callable[[str], bool]) -> None:
        """The functions of the modules `chosen` that nothing `called` bound with their defaults (a library's
        API), to run as entry points."""
        entered = {root: sorted(contexts, key=lambda c: (c is not None, c or ())) for root, contexts in self._entered.items()}
        for q in sorted(set(self.functions) - called - self.invoked):
            module, function = self.functions[q]
            if chosen(module):
                # (a method: on an instance of its class, whose `__init__` runs with its defaults too; a function
                # a wrapping decorator defines, as made by each call of the decorator)
                root = q.split(".<", 1)[0]
                for context in entered.get(root, [None]) if root != q else [None]:
                    self._bind(q, (), (), ("inst", function.owner) if function.owner is not None else None, context=context)

    def _bind_positional(self, function: str, args: Iterable, positional: list, star: Optional[str], given: set[str],
                         here: tuple) -> None:
        """The positional arguments of a call of `function`, each to its parameter (`given`) or its `*args`: a
        starred tuple of known length element by element, another starred one to any parameter left."""
        position = 0
        for starred, values in args:
            lengths = {value[3] for value in values if value[0] == "seq"}
            if starred and values and len(lengths) == 1 and all(value[0] == "seq" and None not in self._keys_of(value)
                                                                for value in values):
                for element in range(lengths.pop()):  # *(a, b): a tuple of known length, element by element
                    held = {found for value in values for found in self.read(value, element)}
                    if position < len(positional):
                        self._add(("var", function, positional[position][0], *here), held)
                        given.add(positional[position][0])
                        position += 1
                    elif star:
                        self._field(("args", function, *here), None, held)
                continue
            if starred:  # *values: each element may land on any parameter from here on
                elements = {found for value in values for found in self._item(value, None)}
                for name, _, _ in positional[position:]:
                    self._add(("var", function, name, *here), elements)
                if star:
                    self._field(("args", function, *here), None, elements)
                position = len(positional)
                continue
            if position < len(positional):
                name = positional[position][0]
                self._add(("var", function, name, *here), values)
                given.add(name)
                position += 1
            elif star:
                self._field(("args", function, *here), None, values)

    def _bind_keywords(self, function: str, keywords: Iterable, call: Optional[Call], caller: Optional[str],
                       names: set[str], double: Optional[str], given: set[str], here: tuple) -> None:
        """The keywords of a call of `function`, with where each is written: a keyword of `call`, one a partial
        bound (written nowhere known), an entry of a `**mapping` (its keys not known: any parameter not given)."""
        written = {name for name, _ in call.keywords if name is not None} if call is not None and keywords else set()
        for keyword, values in keywords:
            if keyword is not None:
                at = ("at", caller, call.site) if call is not None and keyword in written else ("unknown", "a partial's keyword")
                self._keyword(function, keyword, values, names, double, given, at, here)
                continue
            for value in values:  # **mapping
                if double and value[0] in ("map", "kwargs", "obj", "ext", "unknown"):  # (installed or unknown: named)
                    self.passed.setdefault((("kwargs", function, *here), None), {}).setdefault(value, set()).add(
                        (caller, call.site) if call is not None and caller is not None and not self._launching else None)
                if value[0] in ("map", "kwargs"):
                    # (this statement bound it before and nothing was written into it since: its entries
                    # are where they were bound, and it reads them already)
                    spread, stamp = (self._current, function, value, here), self._stamps.get(value, 0)
                    kept = self._spreads_bound.get(spread)
                    if kept is not None and kept[0] == stamp and self._reading is None:
                        given |= kept[1]
                        continue
                    keys = list(self._keys_of(value))
                    if None not in keys:
                        self._spreads_bound[spread] = (stamp, names.intersection(keys))
                    for key in keys:
                        if isinstance(key, str):
                            held, entry = self.read(value, key), (function, value, key, here)
                            # (bound before, holding as many values: value sets only grow, so the parameter
                            # holds them all already; a mapping of some 190 keys, re-bound at each growth of one)
                            if self._spread_bound.get(entry) == len(held):
                                if key in names:
                                    given.add(key)
                                continue
                            self._spread_bound[entry] = len(held)
                            self._keyword(function, key, held, names, double, given, value, here)
                        elif key is None:  # entries of keys not known (a comprehension's): any parameter not given
                            held = self.read(value, None)
                            for name in names - given:
                                self._add(("var", function, name, *here), held)
                            if double:
                                self._field(("kwargs", function, *here), None, held)
                elif value[0] == "unknown":
                    for name in names - given:
                        self._add(("var", function, name, *here), {value})

    def _signature(self, function: str) -> Optional[tuple]:
        """What binding arguments to `function`'s parameters needs of them, worked out at its first call
        (a function is bound some ten times): its module, its positional parameters, the names of its
        `*` and `**` parameters, its named parameters' names, and those with a default with it."""
        signature = self._signatures.get(function)
        if signature is None:
            entry = self.functions.get(function)
            if entry is None:
                return None
            module, summary = entry
            params = summary.params
            signature = self._signatures[function] = (
                module, [param for param in params if param[1] not in (KEYWORD_ONLY, STAR, DOUBLE_STAR)],
                next((name for name, kind, _ in params if kind == STAR), None),
                next((name for name, kind, _ in params if kind == DOUBLE_STAR), None),
                {name for name, kind, _ in params if kind not in (STAR, DOUBLE_STAR)},
                [(name, default) for name, _, default in params if default is not None])
        return signature

    def _keyword(self, function: str, keyword: str, values: set, names: set, double: Optional[str], given: set,
                 source: tuple, here: tuple) -> None:
        if keyword in names:
            self._add(("var", function, keyword, *here), values)
            given.add(keyword)
            if source[0] == "at":
                self.bound.add((source[1], source[2], function))
            if source[0] in ("map", "kwargs"):  # a mapping's entry read by name: code of its own reads it
                self.readers.setdefault((source, keyword), set()).add(f"`{function}` (its parameter `{keyword}`)")
        elif double:
            self._field(("kwargs", function, *here), keyword, values)
            if source[0] not in ("map", "kwargs"):  # (a mapping spread into it: `passed[kwargs, None]`)
                self.passed.setdefault((("kwargs", function, *here), keyword), {}).setdefault(source, set()).update(values)

    def _context_of(self, function: str, call: Optional[Call], caller: Optional[str]) -> Optional[Context]:
        """The context a call runs `function` in: its own where `function` is a launch helper or a
        wrapping decorator. A call of what a call returned starts where that call does (`@ejit(...)`:
        `ejit(...)`, then its partial of `ejit` applied to the function): how deep it is tells them apart."""
        if call is None or caller is None or not (function in self.launch_helpers or function in self.decorators):
            return None
        depth, callee = 0, call.callee
        while callee[0] == "call" and isinstance(callee[1], int):
            depth, callee = depth + 1, self.modules[caller].calls[callee[1]].callee
        return (function, caller, call.site, depth)

    def _returned(self, function: str, call: Call, caller: str, context: Optional[Context] = None) -> set:
        """What `function` returns to `call` (in module `caller`); `context`: as `_bind`'s."""
        context = context or self._context_of(function, call, caller)
        return self._get(("ret", function) if context is None else ("ret", function, context))

    def _bind_fields(self, instance: tuple, fields: tuple, args: list, keywords: list) -> None:
        """A dataclass's (a NamedTuple's) fields from a call of it: `*values` may land on any field from
        its position on."""
        for position, ((name, _), (starred, values)) in enumerate(zip(fields, args)):
            if starred:
                elements = {found for value in values for found in self._item(value, None)}
                for later, _ in fields[position:]:
                    self.store_attribute(instance, later, elements)
                break
            self.store_attribute(instance, name, values)
        self.set_fields(instance, {name for name, _ in fields}, keywords)

    def _arity(self, partial: tuple) -> int:
        return sum(1 for key in self._keys_of(partial) if isinstance(key, tuple) and key[0] == "arg")

    def _bound_names(self, partial: tuple) -> list[str]:
        return sorted(key[1] for key in self._keys_of(partial) if isinstance(key, tuple) and key[0] == "kw")
