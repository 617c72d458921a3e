"""The whole-program value flow's answers, read off a solved link (link.py): for each followed call in
kernel code, the pairs that reach it (where written, who else reads them) and what it cannot know;
for each pair literal whose every reader is a Mosaic TPU kernel's followed call, that it may be
rewritten where it is written; for one plain XLA code reads too, who reads it (never rewritten)."""

from __future__ import annotations

from typing import Optional, Protocol

from codemods.analysis.flow_facts import NO_FLOW, Backends, FlowFacts, OriginAnswer, Reach, Site, SinkAnswer
from codemods.analysis.kernel_scope import MOSAIC_TPU
from codemods.capabilities import PRECISION_NAMES



class Linker(Protocol):
    """What the answers read of a solved link (link.Linker)."""

    modules: dict
    backends: dict[str, set[str]]  # a function -> the backends of the kernels it runs in (MAYBE ones too)
    calls: set[tuple[str, str]]  # (caller, callee) of every call of a function
    invoked: set[str]  # the functions code of the project calls or launches
    sinks: dict[tuple[str, Site], tuple[str, str, set]]  # (module, site) -> (callee, function, values)
    readers: dict[tuple, set[str]]  # a literal -> who reads it besides followed calls in kernel code

    def read(self, owner: tuple, key: object) -> set: ...

    def read_by(self, value: tuple, reader: str) -> None: ...

    def settle_readers(self) -> None: ...

    def takes_refs(self, function: str) -> bool: ...

# A backend of its own for code a launch the flow does not follow may run ("?" and how it is launched):
# the followed calls there are reported, never fixed where their value is written.
MAYBE = "?"


def _levels(values: set) -> tuple[str, ...]:
    found = set()
    for value in values:
        if value[0] == "level":
            found.add(value[1])
        elif value[0] == "lit" and isinstance(value[1], str) and value[1].lower() in PRECISION_NAMES:
            found.add(PRECISION_NAMES[value[1].lower()].name)
    return tuple(sorted(found))


def _pair(linker: Linker, value: tuple) -> Optional[tuple[tuple[str, ...], ...]]:
    """A two-element literal whose elements name precisions that may differ."""
    if value[0] != "seq" or value[3] != 2:
        return None
    first, second = (_levels(linker.read(value, position)) for position in (0, 1))
    if not first or not second or (len(first) == len(second) == 1 and first == second):
        return None
    return (first, second)


def _describe_unknown(value: tuple) -> Optional[str]:
    kind = value[0]
    if kind == "unknown":
        return str(value[1])
    if kind == "obj":
        return f"what `{value[1]}` gives (an installed package's code)"
    if kind == "ext" and not value[1].startswith("builtins."):
        return f"`{value[1]}`, an installed package's value"
    return None


def _reaches(linker: Linker, pairs: tuple) -> tuple[Reach, ...]:
    found = [Reach(value[1], value[2], _pair(linker, value) or (), not linker.readers.get(value),
                   tuple(sorted(linker.readers.get(value, ())))) for value in pairs]
    return tuple(sorted(found, key=lambda reach: (reach.module, reach.site)))


def _plain(linker: Linker) -> set[str]:
    """Functions plain XLA code calls: called from code no kernel runs (module-level code, a
    function something calls, or one nothing calls that takes no refs: an API's entry), and what
    those call. A function that takes refs and that nothing calls or launches as the flow sees
    may be a kernel body launched in a way it does not follow: not plain."""
    roots = {caller for caller, _ in linker.calls if not linker.backends.get(caller) and (
        caller in linker.invoked or caller in linker.modules or not linker.takes_refs(caller))}
    plain = {callee for caller, callee in linker.calls if caller in roots}
    grown = True
    while grown:
        more = {callee for caller, callee in linker.calls if caller in plain} - plain
        plain |= more
        grown = bool(more)
    return plain


def answers(linker: Linker) -> dict[str, FlowFacts]:
    """Each module's flow facts from a solved link (modules with none are left out)."""
    plain = _plain(linker)
    sinks: dict[str, list[SinkAnswer]] = {}
    reached: dict[tuple, list[tuple[str, Site, str, Backends]]] = {}
    read_plainly: set[tuple] = set()  # pairs plain XLA code reads as its precision
    for (module, site), (callee, function, values) in sorted(linker.sinks.items()):
        held = linker.backends.get(function, set())
        backends = frozenset(backend for backend in held if not backend.startswith(MAYBE))
        maybe = tuple(sorted(backend[len(MAYBE):] for backend in held if backend.startswith(MAYBE)))
        if not held or function in plain:
            for value in values:  # plain XLA code reads it
                linker.read_by(value, f"`{callee}` outside kernels ({module}:{site[0]})")
                if _pair(linker, value) is not None:
                    read_plainly.add(value)
        if not held:
            sinks.setdefault(module, []).append(SinkAnswer(site, callee, backends, (), (), function in plain))
            continue
        pairs, unknown = [], []
        for value in values:
            levels = _pair(linker, value)
            if levels is not None:
                pairs.append(value)
                reached.setdefault(value, []).append((module, site, callee, backends if not maybe else frozenset()))
                continue
            why = _describe_unknown(value)
            if why is not None:
                unknown.append(why)
        sinks.setdefault(module, []).append(SinkAnswer(site, callee, backends, tuple(pairs), tuple(sorted(set(unknown))),
                                                       bool(values), maybe))
    linker.settle_readers()
    answers: dict[str, FlowFacts] = {}
    origins: dict[str, list[OriginAnswer]] = {}
    for value, reaches in reached.items():
        if any(MOSAIC_TPU in backends for *_, backends in reaches):
            origins.setdefault(value[1], []).append(OriginAnswer(value[2], tuple(sorted(
                {(module, site, callee) for module, site, callee, _ in reaches})), tuple(sorted(linker.readers.get(value, ())))))
            read_plainly.discard(value)
    for value in read_plainly:  # read by XLA code, and by kernels only through launches the link does not
        # follow, if at all: no fix found another way (the project index's) may rewrite it
        origins.setdefault(value[1], []).append(OriginAnswer(value[2], (), tuple(sorted(linker.readers[value]))))
    for module, found in sinks.items():
        resolved = tuple(SinkAnswer(sink.site, sink.callee, sink.backends, _reaches(linker, sink.pairs), sink.unknown,
                                    sink.reached, sink.maybe) for sink in found)
        answers[module] = FlowFacts(sinks=resolved)
    for module, found in origins.items():
        answers[module] = FlowFacts(answers.get(module, NO_FLOW).sinks, tuple(sorted(found, key=lambda o: o.site)))
    return answers
