"""Who reads a value besides the followed calls, for the link (link.py): the containers handed to
code the flow does not follow (an installed package's call, a builtin) and all they hold, worked out
once the fixpoint is done; and the functions such code may call, held in what plain code hands it."""

from __future__ import annotations

from typing import Iterator

from codemods.analysis.flow.link_values import Values

HOLDERS = frozenset({"seq", "map", "inst", "kwargs", "args"})  # values that hold others
_READ_DEPTH = 64  # values walked from one handed to code the flow does not follow


class Readers(Values):
    """The values handed to code the flow does not follow (`read_by`), and by whom; `readers` from
    them once the fixpoint is done (`settle_readers`)."""

    def __init__(self, *args, **kwargs) -> None:
        self._escaped: dict[tuple, set[str]] = {}  # a value handed to code the flow does not follow -> who
        # A holder plain code hands to code the flow does not follow -> the scopes that hand it: the
        # functions it holds may be called there (`plain_callers`).
        self._escaped_plainly: dict[tuple, set[str]] = {}
        self._partials_escaped: dict[tuple, set[str]] = {}  # a partial plain code hands on itself -> who
        super().__init__(*args, **kwargs)

    def read_by(self, value: tuple, reader: str) -> None:
        """`reader` (code the flow does not follow) reads `value` and all it holds (`settle_readers`); a
        partial plain code hands it (`jax.vmap(OPS["rsqrt"])`) may be called there (`partial_readers`)."""
        if value[0] in HOLDERS:
            self._escaped.setdefault(value, set()).add(reader)
        elif value[0] == "partial":
            self._partials_escaped.setdefault(value, set()).add(reader)

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

    def partial_readers(self) -> dict[tuple[str, tuple], set[str]]:
        """(module, site) of each partial handed to code the flow does not follow, itself outside kernel
        code or held in what any code hands it (`jax.tree.map(f, OPS)`) -> who: it may be called there,
        with what it binds. Asked once the fixpoint is done."""
        found: dict[tuple[str, tuple], set[str]] = {}
        for value, by in [*self._escaped.items(), *self._partials_escaped.items()]:
            for held in self._held_in(value):
                if held[0] == "partial":
                    found.setdefault((held[1], held[2]), set()).update(by)
        return found

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
            # (an instance made at a known site: what was written into any instance too)
            owners = self.field_owners(holder) if holder[0] == "inst" else (holder,)
            for owner, key in [(owner, key) for owner in owners for key in self.keys.get(owner, ())]:
                for inner in self.heap.get(("field", owner, key), ()):
                    if inner[0] not in HOLDERS:
                        yield inner
                    elif inner not in seen:
                        seen.add(inner)
                        stack.append(inner)
