"""What an expression of a summary may hold, for the link (link.py): names through imports,
re-exports and `from m import *`, attributes of modules, classes and instances (through their bases),
items of containers and `**kwargs`, and what an assignment stores. Reads and writes the link's
memory (`link_heap`) only."""

from __future__ import annotations

from typing import Iterator, Optional

from codemods.analysis.flow.link_heap import Heap
from codemods.analysis.flow.summary import Expr

_PRECISION = "jax.lax.Precision"
_CONTAINER_READS = frozenset({"get", "pop", "setdefault", "__getitem__", "values", "items"})
_KWARGS_READS = frozenset({"get", "pop", "__getitem__", "values", "items", "keys", "copy"})  # (write nothing)
# What a container's methods write into it (`_container_method`), as value_flow.py models them too;
# and a list's methods that move what it holds to other positions (value_flow._SHIFTING).
_CONTAINER_WRITES = frozenset({"append", "add", "insert", "extend", "update", "setdefault", "__setitem__"})
_SHIFTING = frozenset({"pop", "remove", "reverse", "sort", "clear", "insert"})
_CONTAINER_METHODS = _CONTAINER_READS | _CONTAINER_WRITES | _SHIFTING | {"copy"}
# The values `_attribute` may find an attribute of (of any other, none).
_WITH_ATTRIBUTES = frozenset({"module", "ext", "obj", "inst", "class", "map", "kwargs", "seq", "unknown"})
# Those whose attributes are looked up (through a module's names, an installed package's modules, a
# class's bases), kept until what they read grows (`_memoized`).
_LOOKED_UP = frozenset({"module", "ext", "inst", "class"})
# The sites a dataclass's instances are told apart at (`instance_at`): past them, one instance for all its
# sites (ejkernel's configs are made at up to 17; `rich.segment.Segment` at 61, the link a quarter longer).
_SITES_PER_CLASS = 16
_ENUMS = frozenset(f"enum.{name}" for name in ("Enum", "IntEnum", "StrEnum", "Flag", "IntFlag"))


class Values(Heap):
    """Expressions evaluated to the values they may hold (see link.py for the values' shapes), and
    who reads a container's entries by code of its own (`readers`, `[...]` and `.get(...)` of it)."""

    def __init__(self, *args, **kwargs) -> None:
        self._attributes: dict[str, dict[str, Expr]] = {}  # a class's attributes by name (see `_class_attribute`)
        self.readers: dict[tuple, set[str]] = {}  # a seq or mapping -> who reads it besides followed calls
        self._made: dict[str, set] = {}  # a dataclass -> the sites its instances are made at (`instance_at`)
        # The `**kwargs` code writes into, not only calls (`kw["precision"] = ...`, `kw.update(...)`, `fill(kw)`):
        # what they hold is not only what each caller passes (`link_answers._by_caller`)
        self.kwargs_written: set[tuple] = set()
        super().__init__(*args, **kwargs)

    def _store(self, target: Expr, values: set, module: str) -> None:
        """`name = ...`, `obj.attr = ...` (an instance's, a class's or a module's), `box[key] = ...`."""
        if target[0] == "var":
            self._add(self._local(target), values)
            return
        for owner in self._eval(target[1], module):
            if target[0] == "attr":
                self.store_attribute(owner, target[2], values)
            elif target[0] == "item":
                self.store_item(owner, target[2], values)

    def store_attribute(self, owner: tuple, name: str, values: set) -> None:
        """`owner.name = ...` (also `setattr(owner, "name", ...)`): a module's name, an instance's or a
        class's attribute. An instance made at a known site (`("inst", q, module, site)`) keeps its own
        fields, and the class's instance (`("inst", q)`, any instance: `self` of a method the project never
        calls) holds every instance's; what is written into that one any instance may hold (`_every`)."""
        if owner[0] == "module":
            self._add(("var", owner[1], name), values)
        elif owner[0] == "class":
            self._field(owner, name, values)
        elif owner[0] == "inst":
            self._field(owner, name, values)
            if len(owner) > 2:
                self._field(owner[:2], name, values)
            elif self._has_fields(owner[1]) and len(self._made.get(owner[1], ())) <= _SITES_PER_CLASS:
                self._field(_every(owner), name, values)  # (of a class made at too many sites, not read)

    def instance_at(self, qualified: str, module: str, site: object) -> tuple:
        """The instance of a dataclass (a NamedTuple) a call at `site` makes, or a copy there: its own;
        of a class made at more than `_SITES_PER_CLASS` sites, the class's (and those made before hold
        its fields from then on: `field_owners`)."""
        made = self._made.setdefault(qualified, set())
        if (module, site) not in made:
            made.add((module, site))
            if len(made) == _SITES_PER_CLASS + 1:
                self._grew(("merged", qualified))
        return ("inst", qualified) if len(made) > _SITES_PER_CLASS else ("inst", qualified, module, site)

    def field_owners(self, instance: tuple) -> tuple:
        """Where the fields an instance holds are kept: a class's instance's own (every instance's); one
        made at a site, its own and what was written into any instance, or, its class made at too many
        sites, the class's instance's."""
        if len(instance) == 2:
            return (instance,)
        self._get(("merged", instance[1]))
        return (instance[:2],) if len(self._made[instance[1]]) > _SITES_PER_CLASS else (instance, _every(instance))

    def _has_fields(self, qualified: str) -> bool:
        entry = self.classes.get(qualified)
        return entry is not None and entry[1].fields is not None

    def replaced(self, instance: tuple, keywords: list, module: str, site: object) -> set:
        """`dataclasses.replace(instance, name=...)`, `instance._replace(name=...)`: a copy, made at the
        call's site, holding the instance's fields but those it sets. Of a class the summary does not
        take for a dataclass (`flax.struct.dataclass`), whose instances are one value, that one with
        the fields set."""
        if not self._has_fields(instance[1]):
            self.set_fields(instance, set(self._keys_of(instance)), keywords)
            return {instance}
        copy = self.instance_at(instance[1], module, site)
        written = {keyword for keyword, _ in keywords}
        held = set(self._keys_of(instance))
        for name in held - written:
            self.store_attribute(copy, name, self.read(instance, name))
        self.set_fields(copy, {name for name, _ in self.classes[instance[1]][1].fields} | held, keywords)
        return {copy}

    def set_fields(self, instance: tuple, names: set, keywords: list) -> None:
        """The fields keywords set (`Cfg(precision=...)`, `dataclasses.replace(cfg, **changes)`): a `**`
        mapping's entries by name, any of the fields `names` for one of keys not known, and where it
        is an installed package's or an unknown value, that value (named at the kernel)."""
        for keyword, values in keywords:
            if keyword is not None:
                self.store_attribute(instance, keyword, values)
                continue
            for mapping in values:
                keys = {key for key in self._keys_of(mapping) if isinstance(key, str)} if mapping[0] in ("map", "kwargs") else set()
                for name in names | keys:
                    found = self._item(mapping, name)
                    if found:
                        self.store_attribute(instance, name, found)

    def store_item(self, owner: tuple, key: object, values: set) -> None:
        """`owner[key] = ...` (also `owner.__setitem__(key, ...)`): a mapping's entry, or a list's
        position (none known for a key not known or out of its range)."""
        if owner[0] == "kwargs":
            self.kwargs_written.add(owner)
        if owner[0] in ("map", "kwargs"):
            self._field(owner, key, values)
        elif owner[0] == "seq":
            self._field(owner, _position(owner, key), values)

    def evaluated(self, expr: Expr, module: str) -> set:
        """What an expression of `module`'s summary may hold, the link solved (an answer reads the dtype a
        name of another module holds: `x.astype(config.QDTYPE)`)."""
        return self._eval(expr, module)

    def _eval(self, expr: Expr, module: str) -> set:
        kind = expr[0]
        if kind == "lit":
            return {expr}
        if kind == "var":
            if expr[1] not in self.modules:  # a function's variable
                return set(self._get(self._local(expr)))
            return self._module_name(expr[1], expr[2])
        if kind == "dotted":
            return self._resolve(expr[1])
        if kind == "attr":
            if expr[2] == "value" and expr[1][0] == "attr":  # `Mode.EXACT.value`: an Enum member's value?
                return self._member_values(expr[1], module) or self._attributes_of(self._eval(expr[1], module), "value")
            found = self._attributes_of(self._eval(expr[1], module), expr[2])
            # a hint's member (summary.py): an installed package's value, tagged with where it is written
            return found if len(expr) == 3 else {(*value, module, expr[3]) if value[0] == "ext" else value
                                                 for value in found}
        if kind == "item":
            owners = self._eval(expr[1], module)
            for owner in owners:  # `options["accuracy"]`: code of its own reads the mapping's entries
                if owner[0] in ("map", "kwargs"):
                    self.readers.setdefault(owner, set()).add(f"`[...]` of it in {module}")
            return {found for value in owners for found in self._item(value, expr[2])}
        if kind == "call":
            return self._get(self._local(("res", module, expr[1])))
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
        if kind == "def":  # (a function a wrapping decorator being run defines: made for that call of it)
            context = self._defined_here(expr[1])
            return {expr} if context is None else {(*expr, context)}
        if kind == "class":
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
        """What an imported name holds: a module's, or an installed package's name (`("ext", dotted)`):
        kept as attribute lookups are (`_attribute`)."""
        return self._memoized(("resolve", dotted, self._current[3] if self._current is not None else None),
                              lambda: self._resolved(dotted))

    def _resolved(self, dotted: str) -> set:
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):
            prefix = ".".join(parts[:cut])
            if self._has(prefix):
                values = {("module", prefix)}
                for name in parts[cut:]:
                    values = self._attributes_of(values, name)
                return values
        owner, _, member = dotted.rpartition(".")
        return {_precision_member(owner, member) or ("ext", dotted)}

    def _member_values(self, member: Expr, module: str) -> set:
        """`Cls.MEMBER.value` of an `enum.Enum` subclass: what the class body assigns MEMBER. Read by the
        enum too (never rewritten there: a member given another's value becomes its alias)."""
        found: set = set()
        for owner in self._eval(member[1], module):
            if owner[0] == "class" and self._is_enum(owner[1]):
                for value in self._class_attribute(owner[1], member[2], None):
                    self.readers.setdefault(value, set()).add(
                        f"the enum `{owner[1]}` (it is `{member[2]}`'s value; rewriting it may make two members aliases)")
                    found.add(value)
        return found

    def _is_enum(self, qualified: str, depth: int = 0) -> bool:
        entry = self.classes.get(qualified)
        return entry is not None and depth < 8 and any(
            value[0] == "ext" and value[1] in _ENUMS or value[0] == "class" and self._is_enum(value[1], depth + 1)
            for base in entry[1].bases for value in self._eval(base, entry[0]))

    def _attributes_of(self, owners: set, name: str) -> set:
        """`_attribute` of each of `owners`, joined: what installed code gave (most of a large
        value set) stays itself, and a value with no attributes gives nothing, without a call each."""
        found: set = set()
        for value in owners:
            kind = value[0]
            if kind == "obj":
                found.add(value)
            elif kind in _WITH_ATTRIBUTES:
                found |= self._attribute(value, name)
        return found

    def _attribute(self, value: tuple, name: str) -> set:
        if value[0] in _LOOKED_UP:
            return self._memoized(("attribute", value, name, self._current[3] if self._current is not None else None),
                                  lambda: self._attribute_of(value, name))
        return self._attribute_of(value, name)

    def _attribute_of(self, value: tuple, name: str) -> set:
        kind = value[0]
        if kind == "module":
            return self._module_name(value[1], name)
        if kind == "ext":  # (a name chain longer than any module path is something computed: `x = x.parent`)
            return self._resolve(f"{value[1]}.{name}") if value[1].count(".") < 8 else {("obj", value[1])}
        if kind == "obj":  # what installed code gave stays that, whatever is read from it: the set stays finite
            return {value}
        if kind == "inst":  # (a NamedTuple's `_replace`, which no class of the project defines: `replaced`)
            found = self._class_attribute(value[1], name, value).union(
                *(self.read(owner, name) for owner in self.field_owners(value)))
            return found or ({("method", value, name)} if name == "_replace" else set())
        if kind == "class":
            return self._class_attribute(value[1], name, None)
        if kind in ("map", "kwargs") and name in _CONTAINER_READS:
            self.readers.setdefault(value, set()).add(f"`.{name}(...)` of it")
            return {("method", value, name)}
        if kind in ("map", "kwargs", "seq") and name in _CONTAINER_METHODS:
            return {("method", value, name)}  # (a write, or a list's read: `_container_method`)
        if kind == "unknown":
            return {value}
        return set()

    def _class_attribute(self, qualified: str, name: str, instance: Optional[tuple], depth: int = 0,
                         looked_up: Optional[str] = None) -> set:
        """`looked_up`: the class the lookup started from (a subclass of `qualified`, or itself)."""
        entry = self.classes.get(qualified)
        if entry is None or depth > 8:
            return set()
        module, cls = entry
        attributes = self._attributes.get(qualified)
        if attributes is None:  # the last assignment of each name wins
            attributes = self._attributes[qualified] = dict(cls.attributes)
        expr = attributes.get(name)
        if expr is not None:
            owner = ("class", instance[1] if instance is not None else looked_up or qualified)
            method = self._class_method(expr, module)
            if method is not None:  # `@classmethod`: bound to the class, `cls(...)` makes an instance of it
                return {("bound", method, owner)}
            values = self._eval(expr, module)
            if instance is None:
                return values
            return {("bound", value[1], instance) if value[0] == "def" else value for value in values}
        return {found for base in cls.bases for value in self._eval(base, module) if value[0] == "class"
                for found in self._class_attribute(value[1], name, instance, depth + 1, looked_up or qualified)}

    def _class_method(self, expr: Expr, module: str) -> Optional[str]:
        """The function a class attribute `@classmethod` decorates (as the summary records a decorator:
        a call of `builtins.classmethod` with the function), else None."""
        if expr[0] != "call" or not isinstance(expr[1], int):
            return None
        made = self.modules[module].calls[expr[1]]
        if made.callee != ("dotted", "builtins.classmethod") or len(made.args) != 1 or made.args[0][1][0] != "def":
            return None
        return made.args[0][1][1]

    def _write_entries(self, target: tuple, args: list, keywords: list) -> None:
        """`dict(options, key=..., **more)` and `target.update(...)`: the entries written into `target`
        (a mapping's copied, `.items()` of one too; those of an iterable of pairs are not followed: an
        unknown value under keys not known, never nothing)."""
        copied = [(None, args[0][1])] if args and not args[0][0] else []  # `dict(options)`: as `dict(**options)`
        for keyword, values in copied + list(keywords):
            if keyword is not None:
                self._field(target, keyword, values)
                continue
            for mapping in values:
                mapping = mapping[1] if mapping[0] == "items" else mapping
                if mapping[0] in ("map", "kwargs"):
                    for key in list(self._keys_of(mapping)):
                        self._field(target, key, self.read(mapping, key))
                elif keyword is None and mapping[0] != "lit":
                    self._field(target, None, {("unknown", "the entries of `dict(...)` or `.update(...)` of an iterable")})

    def _container_method(self, container: tuple, name: str, args: list, keywords: list) -> set:
        """`box.append(x)`, `box.insert(0, x)`, `box.extend(xs)`, `d.setdefault(key, x)`, `d.update(...)`,
        `box.__setitem__(key, x)`: what the method stores into the container (a list's new elements at
        no known position, as `box[i] = x` does), and what it gives back (`box.pop()`, `d.get(key)`: what
        the container holds)."""
        if container[0] == "kwargs" and name not in _KWARGS_READS:
            self.kwargs_written.add(container)
        if name == "values":  # `d.values()`: what iterating it gives is what the mapping holds
            return {container}
        if name == "items":  # `d.items()`: iterated, (key, value) entries of the mapping
            return {("items", container)}
        if name == "copy":
            return {container}
        if name == "update":  # `d.update(options, key=...)`: written into it
            self._write_entries(container, args, keywords)
            return {("lit", None)}
        if container[0] == "seq" and name in _SHIFTING:  # what it holds may now be at any position
            self._field(container, None, self._item(container, None))
        if name in ("append", "add") and args:
            self._field(container, None, args[-1][1])
        elif name == "insert" and len(args) == 2:
            self._field(container, None, args[1][1])
        elif name == "extend" and args:
            self._field(container, None, {found for value in args[0][1] for found in self._item(value, None)})
        elif name == "setdefault" and len(args) == 2:
            for key in literal_keys(args[0][1]):
                self._field(container, key, args[1][1])
        elif name == "__setitem__" and len(args) == 2:
            for key in literal_keys(args[0][1]) or {None}:
                self.store_item(container, key, args[1][1])
        if name in ("get", "pop", "setdefault", "__getitem__"):  # the entries of the keys it names
            keys = (literal_keys(args[0][1]) if args else set()) or {None}
            found = {value for key in keys for value in self._item(container, key)}
            if name in ("get", "pop") and len(args) > 1:  # and the default it gives where there is none
                found |= args[1][1]
            return found | ({("lit", None)} if name == "get" and len(args) == 1 else set())
        return {("lit", None)}

    def _item(self, value: tuple, key: object) -> set:
        kind = value[0]
        if kind == "seq":  # (what was stored at no known position, `box.append(x)`, at any)
            if isinstance(key, int) and -value[3] <= key < value[3]:
                return self.read(value, key % value[3]) | self.read(value, None)
            return {found for known in self._keys_of(value) for found in self.read(value, known)}
        if kind in ("map", "kwargs", "args"):
            if key is None:
                return {found for known in self._keys_of(value) for found in self.read(value, known)}
            return self.read(value, key) | self.read(value, None)
        if kind == "items":  # an entry of `d.items()`, and its key (0) or value (1)
            return {("entry", value[1])}
        if kind == "entry":
            keys = {("lit", known) for known in self._keys_of(value[1]) if isinstance(known, (str, int))}
            return (keys if key in (0, None) else set()) | (self._item(value[1], None) if key in (1, None) else set())
        if kind == "class" and not self._is_enum(value[1]):  # `Runner[T]`: a generic class given its type
            return {value}  # argument (PEP 695, typing.Generic); an enum's `Mode["FAST"]` is a member
        if kind in ("unknown", "obj", "ext"):  # (`lax.Precision["HIGH"]`: the enum's member by its name)
            return {value} if kind != "ext" else {_precision_member(value[1], key) or ("obj", value[1])}
        return set()

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


def _every(instance: tuple) -> tuple:
    """Where the fields written into a class's instance (`("inst", q)`: any of them) are kept apart from
    those it holds from instances made at known sites: what each of those may hold too."""
    return ("every", instance[1])


def literal_keys(values: set) -> set:
    """The keys a key's values name: a str or int literal's, None for any other (a key not known)."""
    return {value[1] if value[0] == "lit" and isinstance(value[1], (str, int)) else None for value in values}


def _position(sequence: tuple, key: object) -> object:
    """Where `sequence[key] = ...` stores, among the literal's positions: none known (None) for a key
    not known or out of its range."""
    length = sequence[3]
    return key % length if isinstance(key, int) and -length <= key < length else None


def _precision_member(owner: str, member: object) -> Optional[tuple]:
    """The level `owner.member` or `owner[member]` names where `owner` is jax's `Precision`."""
    if owner.endswith(_PRECISION.rsplit(".", 1)[1]) and member in ("DEFAULT", "HIGH", "HIGHEST"):
        return ("level", member)
    return None
