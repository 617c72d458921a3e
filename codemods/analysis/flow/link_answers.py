"""The whole-program value flow's answers, read off a solved link (link.py): for each followed call in
kernel code, the pairs that reach it (where written, who else reads them) and what it cannot know;
for each pair literal whose every reader is a Mosaic TPU kernel's followed call, that it may be
rewritten where it is written; for one plain XLA code reads too, who reads it (never rewritten).
A followed `accuracy=` (a hint, not a pair) that reaches a call through `**options` is answered
the same way, by where it is written (`_hint_answers`): the keyword of a call (`wrapper(x,
accuracy=...)`) or the entry of a dict (`{"accuracy": ...}`, `dict(accuracy=...)`), to drop there
where every reader is a Mosaic kernel's followed call."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterable, Iterator, NamedTuple, Optional, Protocol

from codemods.analysis.flow.flow_facts import (
    Called, INSTALLED, INSTALLED_VALUE, NO_FLOW, NO_PRECISION, Backends, FlowFacts, Handed, LostLaunch, OriginAnswer, Reach, Site, SinkAnswer,
)
from codemods.analysis.flow.graph import closure
from codemods.analysis.flow.kernel_dtypes import kernel_parameter_dtypes, named_dtypes, narrow_operands
from codemods.analysis.kernel_scope import BODY, FACTORY, HELPER, MAYBE as MAYBE_BODY, MOSAIC_GPU, MOSAIC_TPU
from codemods.capabilities import PRECISION_NAMES


@dataclass
class KeywordArgument:
    """What a call passes as a followed keyword (`wrapper(x, precision=blocks.MLP)`) and the functions
    it calls with it: for a call of another module's wrapper to be told a scalar, or that the pair it
    hands on reaches a kernel (`_scalar_keywords`, `_handed_pairs`)."""
    values: set = field(default_factory=set)
    callees: set[str] = field(default_factory=set)


class Linker(Protocol):
    """What the answers read of a solved link (link.Linker)."""

    modules: dict
    functions: dict  # a function's qualified name -> (its module, its summary)
    heap: dict[tuple, set]  # what each variable, parameter, field may hold (`("ret", function)`: what it returns)
    backends: dict[str, set[str]]  # a function -> the backends of the kernels it runs in (MAYBE ones too)
    calls: set[tuple[str, str]]  # (caller, callee) of every call of a function
    invoked: set[str]  # the functions code of the project calls or launches
    follows: dict[str, tuple]  # a followed callee -> (its argument's position, its keyword)
    sinks: dict[tuple[str, Site], tuple[str, str, set]]  # (module, site) -> (callee, function, values)
    called: dict[tuple[str, Site], tuple[str, dict[str, dict[str, set]]]]  # jax functions called as values
    readers: dict[tuple, set[str]]  # a literal or mapping -> who reads it besides followed calls in kernel code
    keys: dict[tuple, set]  # a heap value (a partial, a mapping) -> the keys of its fields
    passed: dict[tuple, dict[tuple, set]]  # (mapping, key) -> {where it is written: values}
    callers: dict[str, set[tuple[str, Site, int]]]  # a function -> the calls binding its parameters
    kwargs_written: set[tuple]  # the `**kwargs` code writes into (`kw.update(...)`): not all from calls
    bound: set[tuple[str, Site, str]]  # (module, call site, function): that call binds a keyword to a parameter
    spreads: dict[tuple[str, Site], set]  # a followed call -> the mappings it spreads
    keyword_arguments: dict[tuple[str, Site, str], KeywordArgument]  # (module, call, followed keyword) ->
    launches: set[tuple[str, str]]  # (scope, body) of each launch
    launched: dict[tuple[str, Site], tuple[str, set, set, set]]  # the call giving a launch its body -> (launcher,
    # backends, body values, where a launch helper calls the launcher)

    def read(self, owner: tuple, key: object) -> set: ...

    def read_by(self, value: tuple, reader: str) -> None: ...

    def settle_readers(self) -> None: ...

    def takes_refs(self, function: str) -> bool: ...

    def plain_callers(self) -> Iterable[tuple[str, str]]: ...

    def partial_readers(self) -> dict[tuple[str, tuple], set[str]]: ...

# A backend of its own for code a launch the flow does not follow may run ("?" and how it is launched):
# the followed calls there are reported, never fixed where their value is written.
MAYBE = "?"
HINT = "accuracy"  # the followed keyword answered by where it is written, not by its value
_HINT_REJECTERS = frozenset({MOSAIC_TPU, MOSAIC_GPU})


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


def _plain_levels(linker: Linker, values: set) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What may reach a followed call outside kernels: the precisions (`SinkAnswer.levels`), and why
    part of it is none the flow can name."""
    levels: set[str] = set()
    unknown: set[str] = set()
    for value in values:
        if value == ("lit", None):
            levels.add(NO_PRECISION)
            continue
        named = _levels({value}) or (_levels(linker.read(value, 0)) if value[0] == "seq" and value[3] == 2 else ())
        levels.update(named)
        if not named:
            unknown.add(_describe_unknown(value) or _unread_element(linker, value)
                        or f"a value that names no precision ({value[0]})")
    return tuple(sorted(levels)), tuple(sorted(unknown))


def _unread_element(linker: Linker, value: tuple) -> Optional[str]:
    """A two-element literal an element of which the flow cannot read (`(P.DEFAULT, LEVEL)`, `LEVEL`
    computed): it may be a pair the kernel rejects, so it is unknown, not passed over."""
    if value[0] != "seq" or value[3] != 2:
        return None
    unread = sorted({why for position in (0, 1) for element in linker.read(value, position)
                     if (why := _describe_unknown(element)) is not None})
    return f"a pair ({value[1]}:{value[2][0]}) whose element may be {unread[0]}" if unread else None


def _describe_unknown(value: tuple) -> Optional[str]:
    kind = value[0]
    if kind == "unknown":
        return str(value[1])
    if kind == "obj":
        return f"what `{value[1]}` gives {INSTALLED}"
    if kind == "ext" and not value[1].startswith("builtins."):
        return f"`{value[1]}`, {INSTALLED_VALUE}"
    if kind == "map" and len(value) == 4:  # what the code computes, at run time: no literal to rewrite
        return f"{value[3]} ({value[1]}:{value[2][0]})"
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
    calls = _edges(linker.calls | set(linker.plain_callers()))
    roots = {caller for caller in calls if not linker.backends.get(caller) and (
        caller in linker.invoked or caller in linker.modules or not linker.takes_refs(caller))}
    return closure({callee for root in roots for callee in calls[root]}, lambda function: calls.get(function, ()))


def _edges(pairs: Iterable[tuple[str, str]]) -> dict[str, set[str]]:
    """(caller, callee) pairs as each caller's callees."""
    edges: dict[str, set[str]] = {}
    for caller, callee in pairs:
        edges.setdefault(caller, set()).add(callee)
    return edges


_KERNEL, _PLAIN = 1, 2  # whose code a function or call is (`_code_of`): kernels', plain code's, or both (`|`)


def _split_by_caller(linker: Linker, plain: set[str], module: str, site: Site, callee: str,
                     function: str) -> tuple[set, set]:
    """A followed call in a function plain code and kernels both run (`helpers.mm(a, b, **kw)`), whose
    followed keyword comes from its own `**kwargs` only: the values only kernels' callers pass it, however
    deep through other such functions' `**kwargs` (`mm_acc(**kw)`), and those only plain code's callers
    pass (the XLA reference's own pair): each read by that code alone. Empty where not known."""
    keyword = linker.follows[callee][1]
    if linker.spreads.get((module, site)) != {("kwargs", function)}:
        return set(), set()
    split = _by_caller(linker, plain, ("kwargs", function), keyword, set())
    if split is None:
        return set(), set()
    kernel, plain_code = split
    return kernel - plain_code, plain_code - kernel


def _by_caller(linker: Linker, plain: set[str], kwargs: tuple, key: str, seen: set) -> Optional[tuple[set, set]]:
    """What `kwargs` (a function's `**kwargs`) holds as `key` from calls in kernel code, and from calls
    in plain code (a value both pass is in both); None where not all of it is known to come from calls
    (code writes into it, `kw.update(...)`; entries of keys not known; a cycle)."""
    if kwargs in seen or len(kwargs) != 2 or kwargs in linker.kwargs_written or linker.read(kwargs, None):
        return None
    seen.add(kwargs)
    found: tuple[set, set] = (set(), set())

    def add(values: set, code: int) -> None:
        for side, mark in zip(found, (_KERNEL, _PLAIN)):
            if code & mark:
                side.update(values)

    for source, values in linker.passed.get((kwargs, key), {}).items():
        add(values, _code_at(linker, plain, source[1], source[2]) if source[0] == "at" else _KERNEL | _PLAIN)
    for mapping, sites in linker.passed.get((kwargs, None), {}).items():
        codes = {_code_at(linker, plain, *at) if at is not None else _KERNEL | _PLAIN for at in sites}
        if mapping[0] == "kwargs" and all(at is not None and _scope_at(linker, *at) == mapping[1] for at in sites) \
                and codes == {_KERNEL | _PLAIN}:  # a function's own **kwargs spread on, in code both run
            inner = _by_caller(linker, plain, mapping, key, seen)
            if inner is None:
                return None
            add(inner[0], _KERNEL)
            add(inner[1], _PLAIN)
        else:
            code = _KERNEL if codes == {_KERNEL} else _PLAIN if codes == {_PLAIN} else _KERNEL | _PLAIN
            add(linker.read(mapping, key) | linker.read(mapping, None), code)
    add(linker.read(kwargs, key) - found[0] - found[1], _KERNEL | _PLAIN)  # (none: each comes from a call)
    return found


def _scope_at(linker: Linker, module: str, site: Site) -> Optional[str]:
    return next((call.scope for call in linker.modules[module].calls if call.site == site), None) \
        if module in linker.modules else None


def _code_at(linker: Linker, plain: set[str], module: str, site: Site) -> int:
    """Whose code the call at `site` is (`_code_of` its function's; both for a launcher's call binding its
    body's keywords, or a call not found)."""
    scope = _scope_at(linker, module, site)
    return _KERNEL | _PLAIN if scope is None or (module, site) in linker.launched else _code_of(linker, plain, scope)


def _code_of(linker: Linker, plain: set[str], function: str) -> int:
    """Whose code `function` is: kernels' only (the link follows every one running it), plain code's only,
    or both (plain code runs it too, or a launch the link does not follow may). The one question each
    split of a shared function's callers asks: `_by_caller` (pairs through `**kwargs`) and the hint
    flow's (`_in_kernels`, `_HintFlow.read_call`'s partials, `_note_reads`)."""
    held = linker.backends.get(function, set())
    if not held:
        return _PLAIN
    return _KERNEL | _PLAIN if function in plain or any(backend.startswith(MAYBE) for backend in held) else _KERNEL


def _split_backends(held: set[str]) -> tuple[Backends, tuple[str, ...]]:
    """A function's backends (`Linker.backends`): those of the kernels the link follows it into, and how
    launches it does not follow may run it (the `MAYBE` ones, without the mark)."""
    return (frozenset(backend for backend in held if not backend.startswith(MAYBE)),
            tuple(sorted(backend[len(MAYBE):] for backend in held if backend.startswith(MAYBE))))


def answers(linker: Linker) -> dict[str, FlowFacts]:
    """Each module's flow facts from a solved link (modules with none are left out)."""
    plain = _plain(linker)
    sinks: dict[str, list[SinkAnswer]] = {}
    reached: dict[tuple, list[tuple[str, Site, str, Backends]]] = {}
    read_plainly: set[tuple] = set()  # pairs plain XLA code reads as its precision
    doubted: dict[tuple, list[tuple[str, Site, str, tuple[str, ...]]]] = {}  # pairs read where a launch not followed may run
    for (module, site), (callee, function, values) in sorted(linker.sinks.items()):
        if linker.follows.get(callee, (None, ""))[1] == HINT:
            continue  # `_hint_answers`
        held = linker.backends.get(function, set())
        backends, maybe = _split_backends(held)
        kernel_only, plain_only = _split_by_caller(linker, plain, module, site, callee, function) \
            if held and function in plain else (set(), set())
        if not held or function in plain:
            for value in values - kernel_only:  # plain XLA code reads it
                linker.read_by(value, f"`{callee}` outside kernels ({module}:{site[0]})")
                if _pair(linker, value) is not None:
                    read_plainly.add(value)
        values = values - plain_only
        if not held:
            levels, unknown = _plain_levels(linker, values)
            sinks.setdefault(module, []).append(SinkAnswer(site, callee, backends, (), unknown, function in plain,
                                                           levels=levels))
            continue
        pairs, unknown = [], []
        for value in values:
            levels = _pair(linker, value)
            if levels is not None:
                pairs.append(value)
                reached.setdefault(value, []).append((module, site, callee, backends if not maybe else frozenset()))
                if maybe:
                    doubted.setdefault(value, []).append((module, site, callee, maybe))
                continue
            why = _describe_unknown(value) or _unread_element(linker, value)
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
            doubted.pop(value, None)
    for value in read_plainly | set(doubted):  # read by XLA code, and by kernels only through launches the
        # link does not follow, if at all: no fix found another way (the project index's) may rewrite it
        origins.setdefault(value[1], []).append(_doubted(value[2], tuple(sorted(linker.readers.get(value, ()))),
                                                         doubted.get(value, ())))
    for module, found in sinks.items():
        resolved = tuple(replace(sink, pairs=_reaches(linker, sink.pairs)) for sink in found)
        answers[module] = FlowFacts(sinks=resolved)
    for module, found in origins.items():
        answers[module] = replace(answers.get(module, NO_FLOW), origins=tuple(sorted(found, key=lambda o: o.site)))
    _hint_answers(linker, plain, answers)
    _scalar_keywords(linker, answers)
    _handed_pairs(linker, reached, answers)
    _lost_launches(linker, answers)
    _foreign_kernels(linker, plain, answers)
    _called_values(linker, answers)
    for module, dtypes in kernel_parameter_dtypes(linker.functions, linker.backends, linker.heap).items():
        answers[module] = replace(answers.get(module, NO_FLOW), dtypes=tuple(dtypes))
    for module, (operands, refs) in narrow_operands(linker.launched, linker.modules, linker.functions, linker.read,
                                                       linker.callers, linker.evaluated).items():
        answers[module] = replace(answers.get(module, NO_FLOW), operands=tuple(operands), refs=tuple(refs))
    for module, named in named_dtypes(linker.modules, linker.evaluated).items():
        answers[module] = replace(answers.get(module, NO_FLOW), named_dtypes=tuple(named))
    return answers


def _called_values(linker: Linker, answers: dict[str, FlowFacts]) -> None:
    """Calls in kernel code of a jax function reached as a value (`ACTS[name](x)`, `act(x)` with `act`
    bound by a partial to a table's entry), which the module's own analysis cannot name (`FlowFacts.called`):
    each function, the literals a keyword bound to it may be ("?" for another value), and the tables and
    partials of the project that hold it."""
    found: dict[str, list[Called]] = {}
    holders: Optional[dict[str, set[tuple[str, bool]]]] = None  # a jax function -> where the project keeps it
    for (module, site), (function, functions) in sorted(linker.called.items()):
        backends = _split_backends(linker.backends.get(function, set()))[0]
        if not backends:
            continue
        for name, keywords in sorted(functions.items()):
            if holders is None:  # (only where a kernel calls one: a walk over the link's containers)
                holders = _holders(linker)
            bound = tuple((keyword, tuple(sorted({repr(value[1]) if value[0] == "lit" else "?" for value in values})))
                          for keyword, values in sorted(keywords.items()))
            held = holders.get(name, set())
            found.setdefault(module, []).append(Called(site, name, backends, bound, tuple(sorted(text for text, _ in held)),
                                                       bool(held) and all(partial for _, partial in held)))
    for module, called in found.items():
        answers[module] = replace(answers.get(module, NO_FLOW), called=tuple(called))


def _holders(linker: Linker) -> dict[str, set[tuple[str, bool]]]:
    """Each jax function the project holds in a container or partial: where ("the entry 'elu' of the
    dict in `pkg.tables` on line 6"), and whether it is a partial."""
    found: dict[str, set[tuple[str, bool]]] = {}
    for owner, keys in linker.keys.items():
        if owner[0] not in ("map", "seq", "partial") or len(owner) != (4 if owner[0] == "seq" else 3):
            continue
        for key in keys if owner[0] != "partial" else {"fn"} & keys:  # (not what it binds: passed on, not written)
            for value in linker.read(owner, key):
                if value[0] == "ext" and value[1].startswith("jax."):
                    what = (f"a functools.partial of it" if owner[0] == "partial" else
                            f"the entry {key!r} of the dict" if owner[0] == "map" else f"the element {key} of the sequence")
                    found.setdefault(value[1], set()).add((f"{what} in `{owner[1]}` on line {owner[2][0]}",
                                                           owner[0] == "partial"))
    return found


def _foreign_kernels(linker: Linker, plain: set[str], answers: dict[str, FlowFacts]) -> None:
    """Each module's functions that a launch in another module runs as its body, or that kernel code
    of another module calls (`FlowFacts.kernels`), by their qualified names there (`make.<locals>.body`
    a factory returns, `Block.kernel` a method): its own analysis sees neither, and the project index
    asks who launches a function only where it holds a call JAX001-JAX003 fix. A lambda is not named
    (its name is a count of the summary's, which the module's analysis does not keep): the function
    returning it is, as a factory (`make` returning `lambda x_ref, o_ref: _kernel(x_ref, o_ref, k)`).
    One held otherwise (`KERNELS = {"sinh": lambda ...}`) keeps its name, which that module's analysis
    does not resolve: it runs there, and a function the lambda calls that takes refs is [manual] (no
    launch of it is found)."""
    def module_of(scope: str) -> str:
        return linker.functions[scope][0] if scope in linker.functions else scope

    found: dict[str, dict[str, tuple[Backends, str, str, bool]]] = {}

    def note(function: str, why: str, role: str, backends: Backends = frozenset()) -> None:
        module = linker.functions[function][0]
        name = function[len(module) + 1:]
        backends = backends or _split_backends(linker.backends.get(function, set()))[0]
        if not backends or name in found.setdefault(module, {}):
            return
        factory = function.rpartition(".<lambda")[0]
        if role == BODY and factory in linker.functions and ("def", function) in linker.heap.get(("ret", factory), ()):
            note(factory, why, FACTORY, backends)
        else:
            found[module][name] = (backends, why, role, role != FACTORY and function in plain)

    for scope, body in sorted(linker.launches):
        if body in linker.functions and module_of(scope) != linker.functions[body][0]:
            note(body, f"launched by {scope}", BODY)
    for caller, callee in sorted(linker.calls):
        if callee in linker.functions and linker.backends.get(caller) and module_of(caller) != linker.functions[callee][0]:
            note(callee, f"called from {caller}, which kernels run", HELPER)
    for function, spec in _maybe_bodies(linker, answers):
        module = linker.functions[function][0]
        found.setdefault(module, {}).setdefault(function[len(module) + 1:], spec)
    for module, kernels in found.items():
        answers[module] = replace(answers.get(module, NO_FLOW), kernels=tuple(
            (name, *spec) for name, spec in sorted(kernels.items())))


def _maybe_bodies(linker: Linker, answers: dict[str, FlowFacts]) -> Iterator[tuple[str, tuple[Backends, str, str, bool]]]:
    """The functions a launch whose body the link cannot follow (`LostLaunch`: `getattr(blocks, kind)`)
    may run, in the project modules its module imports: each that takes refs as kernel bodies do and
    that no launch the link follows runs (MAYBE: what fails in a kernel there is [manual]). Its own
    module's analysis notes those of the launch's module."""
    by_module: dict[str, list[str]] = {}
    for function, (module, _) in sorted(linker.functions.items()):
        if "<lambda" not in function and linker.takes_refs(function) and not any(
                not backend.startswith(MAYBE) for backend in linker.backends.get(function, ())):
            by_module.setdefault(module, []).append(function)
    for module, facts in sorted(answers.items()):
        imported = {_module_named(linker, expr[1]) for _, expr in linker.modules[module].assigns
                    if expr[0] == "dotted"} - {module, None} if facts.lost and module in linker.modules else set()
        for lost in facts.lost:
            why = f"the launch on line {lost.site[0]} of {module} runs a body this analysis cannot resolve " \
                  f"({' or '.join(lost.unknown)})"
            for function in [function for other in sorted(imported) for function in by_module.get(other, ())]:
                yield function, (frozenset(lost.backends), why, MAYBE_BODY, False)


def _module_named(linker: Linker, dotted: str) -> Optional[str]:
    """The module of the project `dotted` (an imported name) is, or is a name of."""
    while dotted and dotted not in linker.modules:
        dotted = dotted.rpartition(".")[0]
    return dotted or None


def _doubted(site: Site, readers: tuple[str, ...], kernels: Iterable[tuple[str, Site, str, tuple[str, ...]]]) -> OriginAnswer:
    """A value written at `site` that no followed Mosaic TPU kernel reads, only `kernels` in code launches
    the link does not follow may run (with those launches), and `readers`: nothing to fix where it is
    written; a run over it without those kernels' files says so there (`FlowFacts.within`)."""
    kernels = sorted(kernels)
    return OriginAnswer(site, (), readers, maybe=tuple(sorted({kernel[:3] for kernel in kernels})),
                        launches=tuple(sorted({launch for *_, launches in kernels for launch in launches})))


_CALLABLE = frozenset({"def", "bound", "partial", "inst"})  # values a launch runs as its body
_NO_FUNCTION = "no function it can find: what fills it is code it does not read"


def _lost_launches(linker: Linker, answers: dict[str, FlowFacts]) -> None:
    """Calls giving a launch a body the link cannot follow: it may be a value it does not know
    (`getattr(bodies, name)`, `globals()[name]`), or it holds something the link knows and no function
    (`None` alone, or nothing: what fills it is code the link does not read). A launch whose body is a
    parameter only callers outside the project bind is not one (`Linker._record_launch`): its
    callers are. Nor is a call handing a launch helper a value it does not know: the project index
    reads that call as a launch it cannot resolve, and notes each body it may run (`_maybe_launched`),
    unless one calls code of another module (`beyond`), which those notes do not reach."""
    found: dict[str, list[LostLaunch]] = {}
    beyond = _bodies_reaching_other_modules(linker) if linker.launched else ()
    for (module, site), (launcher, backends, values, through) in sorted(linker.launched.items()):
        unknown = {why for value in values if value[0] == "unknown" and (why := _describe_unknown(value))}
        if not any(value[0] in _CALLABLE for value in values):
            unknown |= {why for value in values if (why := _describe_unknown(value))} \
                or {_NO_FUNCTION}
        if unknown and not (through and unknown != {_NO_FUNCTION} and not beyond):
            found.setdefault(module, []).append(LostLaunch(site, launcher, frozenset(backends), tuple(sorted(unknown)),
                                                           tuple(sorted(through)), beyond))
    for module, lost in found.items():
        answers[module] = replace(answers.get(module, NO_FLOW), lost=tuple(lost))


def _bodies_reaching_other_modules(linker: Linker) -> tuple[str, ...]:
    """Functions that take refs as kernel bodies do, run by no launch the link follows, whose calls
    reach a followed call given a value in another module (`body` calling `util.mm`, whose dot has a
    pair): a launch whose body is lost may run one, and the notes a module's own analysis writes for
    such a launch (each function it may run, with what it calls in that module) do not reach there."""
    calls = _edges(linker.calls)
    needy: dict[str, set[str]] = {}  # a function -> the modules of the followed calls given a value in it
    for (module, _), (_, function, values) in linker.sinks.items():
        if any(value != ("lit", None) for value in values):
            needy.setdefault(function, set()).add(module)
    if not needy:
        return ()
    found = []
    for function, (module, _) in sorted(linker.functions.items()):
        if not linker.takes_refs(function) or any(not backend.startswith(MAYBE)
                                                  for backend in linker.backends.get(function, ())):
            continue
        reached = closure({function} | calls.get(function, set()), lambda f: calls.get(f, ()))
        if any(modules - {module} for f in reached for modules in [needy.get(f, set())]):
            found.append(f"`{function}`")
    return tuple(found)


def _handed_pairs(linker: Linker, reached: dict[tuple, list], answers: dict[str, FlowFacts]) -> None:
    """Calls handing another module's function a pair (as a followed keyword, `ops.matmul(x, w,
    precision=MIXED)`) that it carries into Mosaic TPU kernels, where other code reads the pair too (so
    no fix is written where it is written): said at the call, which a run over the caller's files
    processes, as well as at the kernel (the caller of a `**kwargs` wrapper was silent)."""
    into = _edges(linker.calls | linker.launches)  # a function -> what it calls or launches
    found: dict[str, list[Handed]] = {}
    for (module, site, keyword), passed in sorted(linker.keyword_arguments.items()):
        for value in passed.values:
            kernels = [(at, call_site, callee) for at, call_site, callee, backends in reached.get(value, ())
                       if MOSAIC_TPU in backends]
            if not kernels or not linker.readers.get(value) or value[1] == module:
                continue  # fixed where it is written, or said where it is written (this module)
            targets = {linker.sinks[(at, call_site)][1] for at, call_site, _ in kernels}
            if closure(passed.callees, lambda f: into.get(f, ())) & targets:
                found.setdefault(module, []).append(Handed(site, keyword, _reaches(linker, (value,))[0],
                                                           tuple(sorted(kernels))))
    for module, handed in found.items():
        answers[module] = replace(answers.get(module, NO_FLOW), handed=tuple(sorted(
            handed, key=lambda h: (h.site, h.keyword, h.reach.module, h.reach.site))))


def _scalar_keywords(linker: Linker, answers: dict[str, FlowFacts]) -> None:
    """Calls that pass a followed keyword only scalar precisions (or None) the link knows: a wrapper
    of another module given `precision=blocks.MLP` needs no word where `blocks.MLP` is `"bfloat16"`."""
    found: dict[str, list[tuple[Site, str, tuple[str, ...]]]] = {}
    for (module, site, keyword), passed in sorted(linker.keyword_arguments.items()):
        if passed.values and all(value == ("lit", None) or _levels({value}) for value in passed.values):
            found.setdefault(module, []).append((site, keyword, _levels(passed.values)))
    for module, scalars in found.items():
        answers[module] = replace(answers.get(module, NO_FLOW), scalars=tuple(scalars))


def _hint(value: tuple) -> bool:
    """A value an `accuracy=` hint may be that asks for something: anything but None."""
    return value != ("lit", None)


def _written(linker: Linker, spread: set, key: str) -> tuple[dict[tuple, tuple[set, set]], list[str]]:
    """Where the `key` a call reads from the mappings it spreads may be written: {(module, site):
    (values, who else reads a mapping on the way there)}, and why part of it is not known."""
    written: dict[tuple, tuple[set, set]] = {}
    unknown: list[str] = []
    stack: list[tuple[tuple, frozenset]] = [(mapping, frozenset()) for mapping in spread]
    seen = set()
    while stack:
        mapping, on_the_way = stack.pop()
        if mapping in seen:
            continue
        seen.add(mapping)
        on_the_way |= linker.readers.get(mapping, set()) | linker.readers.get((mapping, key), set())
        if mapping[0] == "map" and len(mapping) == 3:  # (a comprehension's: no entry written to drop, below)
            held = {value for value in linker.read(mapping, key) | linker.read(mapping, None) if _hint(value)}
            if held:
                values, readers = written.setdefault((mapping[1], mapping[2]), (set(), set()))
                values.update(held)
                readers.update(on_the_way)
        elif mapping[0] == "kwargs":
            if mapping[1] not in linker.invoked:  # an entry point: its callers may be anywhere
                unknown.append(f"what the callers of `{mapping[1]}` outside the project pass in its **kwargs")
            stack += [(spread_in, on_the_way) for spread_in in linker.passed.get((mapping, None), ())]
            for source, held in linker.passed.get((mapping, key), {}).items():
                if not any(map(_hint, held)):
                    continue
                # (a partial's keyword is no call's: located by the hint itself, `Linker._located_hints`)
                for at, hints in ([((source[1], source[2]), set(filter(_hint, held)))] if source[0] == "at" else
                                  [((hint[1], hint[2]), {hint}) for hint in held if hint[0] == "hint"]):
                    values, readers = written.setdefault(at, (set(), set()))
                    values.update(hints)
                    readers.update(on_the_way)
                if source[0] != "at" and any(_hint(hint) and hint[0] != "hint" for hint in held):
                    unknown.append(str(source[1]))
        elif (why := _describe_unknown(mapping)) is not None:
            unknown.append(why)
    return written, unknown


def _partial_keywords(linker: Linker, partials: Iterable[tuple]) -> list[tuple]:
    """What `partials` bind as keywords (`partial(body, accuracy=HINT)`): where the body is one nothing
    the link follows launches, or one it does not know, they reach none of the followed calls' values."""
    return [value for owner in partials for key in sorted(linker.keys.get(owner, ()), key=repr)
            if isinstance(key, tuple) and key[0] == "kw" for value in linker.read(owner, key)]


def _unknown_bodies(linker: Linker) -> list[tuple]:
    """The partials Mosaic launches run as their bodies, of a function the link does not know
    (`partial(REGISTRY[0], accuracy=HINT)`): a hint one binds may reach a body nothing launches."""
    return [partial for backends, body in ((linker.launched[at][1], linker.launched[at][2]) for at in sorted(linker.launched))
            if set(backends) & _HINT_REJECTERS for partial in sorted(
                value for value in body if value[0] == "partial" and not any(
                    fn[0] in _CALLABLE for fn in linker.read(value, "fn")))]


def _members(hints: Iterable[tuple], said_in: set[str]) -> Iterator[tuple[str, Site]]:
    """Where the hints' members (`lax.AccuracyMode.HIGHEST`, `Linker` tags them) among `hints`, passed
    on by name or not, are written, those written in a module other than `said_in`: the kernel's, and
    the one that passes it on (whose own findings, or notes, say it where it is written)."""
    for hint in hints:
        member = hint[3] if hint[0] == "hint" else hint
        if member[0] == "ext" and len(member) == 4 and member[2] not in said_in:
            yield member[2], member[3]


def _hint_answers(linker: Linker, plain: set[str], answers: dict[str, FlowFacts]) -> None:
    """Each followed hint's call (`HINT`) in kernel code: where the hints that reach it through
    `**options` are written, and whether each may be dropped there (every reader a Mosaic kernel's
    followed call, not plain code's); the call keywords and dict entries to drop, in the modules
    that write them. Every call is read before any is answered: a place that writes a hint is
    answered from all the calls that read it (`_HintFlow`)."""
    flow = _HintFlow(linker, plain)
    for (module, site), (callee, function, values) in sorted(linker.sinks.items()):
        if linker.follows.get(callee, (None, ""))[1] == HINT:
            flow.read_call(module, site, callee, function, values)
    flow.answer_calls(answers)
    flow.answer_origins(answers)


class _HintRead(NamedTuple):
    """A followed hint call reading a hint written elsewhere (`_HintFlow.reads`)."""
    module: str
    site: Site
    callee: str
    others: set[str]  # who else reads it: plain code's call, code a launch not followed may run, on the way
    rejects: bool  # the kernel's lowering rejects the hint (Mosaic's)
    drop_where_written: bool  # rather than at the call: it reaches the call through **options, or kernel
    # code passes it to a function plain code runs too


class _HintCall(NamedTuple):
    """A followed hint call in code some kernel runs: what its `SinkAnswer` is made of (`answer_calls`)."""
    site: Site
    callee: str
    backends: Backends
    written: dict[tuple, tuple[set, set]]  # where the hints reaching it through **options are written (`_written`)
    in_kernels: list[tuple]  # an op plain code runs too: where the hints kernel code passes it are written
    unknown: tuple[str, ...]
    reached: bool
    maybe: tuple[str, ...]
    shared: bool  # plain code runs the op too
    held: list[tuple]  # partials of the op written outside kernel code passing it the hints (`_held_partial`)


def _others(reads: Iterable[_HintRead]) -> tuple[str, ...]:
    """Who reads a hint besides the followed calls of kernels."""
    return tuple(sorted({other for read in reads for other in read.others}))


def _hints_reaching(linker: Linker, module: str, site: Site, values: set) -> tuple[dict, list[tuple], set, list[str]]:
    """Where the hints reaching a followed hint call are written: through `**options` (`_written`), or
    passed by name (`accuracy=cfg.accuracy`, the op's own keyword: read at the call, located where
    written by `Linker._located_hints`, and dropped at the call); what `**options` holds, which none
    passed by name is; and why part of it is not known."""
    written, unknown = _written(linker, linker.spreads.get((module, site), set()), HINT)
    unknown += [why for value in values if _hint(value) and value[0] == "unknown" and (why := _describe_unknown(value))]
    located = {value for held, _ in written.values() for value in held}
    by_name = [value for value in values if value[0] == "hint" and value not in located]
    if (module, site) in linker.spreads and not unknown and any(
            _hint(value) and value not in located and value[0] != "hint" for value in values):
        unknown.append("a mapping the analysis does not follow to where it is written")
    return written, by_name, located, unknown


def _other_reader(linker: Linker, plain: set[str], call: tuple[str, Site, str], function: str,
                  maybe: tuple[str, ...]) -> Optional[str]:
    """Who reads the hints at a followed call besides a kernel the link follows: plain code, or code a
    launch it does not follow may run; None in kernel code (a Triton kernel's too: Triton ignores the
    hint, so dropping it changes nothing there)."""
    module, site, callee = call
    if not linker.backends.get(function) or function in plain:
        return f"`{callee}` outside kernels ({module}:{site[0]})"
    if maybe:
        return f"`{callee}` in code a launch the analysis does not follow may run ({module}:{site[0]})"
    return None


def _in_kernels(linker: Linker, plain: set[str], function: str, direct: dict[tuple, str]) -> list[tuple]:
    """An op plain code runs too (`act(x, accuracy=None)`, each caller passing its own): where the hints
    passed by name that may reach it in kernel code are written, all but those plain code's own calls
    of it pass (those reach plain code's)."""
    return sorted(origin for origin, scope in direct.items()
                  if _code_of(linker, plain, scope) & _KERNEL or (*origin, function) not in linker.bound)


def _unlaunched(linker: Linker, plain: set[str], function: str) -> tuple[str, ...]:
    """Why a hint call's function may be a kernel body nothing launches as the link sees (it takes refs,
    and no kernel, plain code or caller runs it): its module's analysis says [manual] there."""
    if linker.backends.get(function) or function in plain or function in linker.invoked \
            or not linker.takes_refs(function):
        return ()
    return (f"a launch the analysis does not find (`{function}` takes refs as kernel bodies do)",)


class _HintFlow:
    """The followed hint calls of a run, read one by one (`read_call`), then answered: each call in
    kernel code (`answer_calls`), and each place a hint is written (`answer_origins`), from every
    call that reads it: to drop there, or why not."""

    def __init__(self, linker: Linker, plain: set[str]) -> None:
        self.linker, self.plain = linker, plain
        self.unknown_bodies = _unknown_bodies(linker)
        self.reads: dict[tuple, list[_HintRead]] = {}  # where a hint is written -> the calls reading it
        self.doubted: dict[tuple, list[tuple[str, Site, str, tuple[str, ...]]]] = {}  # read through **options
        # only where a launch the link does not follow may run it (`_doubted`)
        self.dropped: dict[tuple, set[tuple[str, Site, str]]] = {}  # a hint's member's site -> where the whole run drops it
        self.doubted_members: dict[tuple, list[tuple[str, Site, str, tuple[str, ...]]]] = {}  # -> kernels' calls, as `doubted`
        self.calls: dict[str, list[_HintCall]] = {}  # a module -> its hint calls in code some kernel runs
        self._partials: Optional[dict[tuple, Optional[set[str]]]] = None  # (`_held_partial`)

    def read_call(self, module: str, site: Site, callee: str, function: str, values: set) -> None:
        """One followed hint call: who reads the hints reaching it where they are written, where their
        members are dropped, and what its own answer says where some kernel runs it."""
        held = self.linker.backends.get(function, set())
        backends, maybe = _split_backends(held)
        call = (module, site, callee)
        written, by_name, located, unknown = _hints_reaching(self.linker, module, site, values)
        direct = {(hint[1], hint[2]): hint[4] for hint in by_name}  # where written -> the scope passing it
        held_by = {origin: readers for origin, scope in direct.items() if _code_of(self.linker, self.plain, scope) & _PLAIN
                   and (readers := self._held_partial(origin)) is not None}
        rejects = bool(backends & _HINT_REJECTERS)
        self._note_reads(call, written, direct, _other_reader(self.linker, self.plain, call, function, maybe),
                         rejects, maybe, held_by)
        shared = bool(backends) and function in self.plain
        in_kernels = _in_kernels(self.linker, self.plain, function, direct) if shared else []
        unlaunched = _unlaunched(self.linker, self.plain, function)
        if rejects or maybe or unlaunched:
            passed = by_name + (self._bound_by_partials(function) if unlaunched else [])
            places = [*((at, held_values) for at, (held_values, _) in written.items()),
                      *([(at, [value for value in passed if (value[1], value[2]) == at]) for at in in_kernels]
                        if shared else [((module, site), [value for value in passed if (value[1], value[2]) not in held_by]),
                                        *((at, [value for value in passed if (value[1], value[2]) == at]) for at in held_by)])]
            self._note_members(call, places, rejects, maybe or unlaunched)
        if shared and any(_hint(value) and value[0] not in ("hint", "unknown") and value not in located
                          for value in values):
            unknown.append("a hint the analysis does not locate where it is written")
        if held:  # reached: some value, or mappings the link knows all of (and then no hint is None's)
            self.calls.setdefault(module, []).append(_HintCall(
                site, callee, backends, written, in_kernels, tuple(sorted(set(unknown))),
                bool(values) or (module, site) in self.linker.spreads, maybe, shared,
                sorted(held_by) if not shared and len(held_by) == len(direct) else []))

    def _note_reads(self, call: tuple[str, Site, str], written: dict, direct: dict[tuple, str], other: Optional[str],
                    rejects: bool, maybe: tuple[str, ...], held_by: dict[tuple, set[str]]) -> None:
        """The call as a reader of each hint reaching it, where that is written: through `**options`, to
        drop there; passed by a call in kernel code (`mathx.act(x, accuracy=...)` in a kernel), it
        reaches the op in that kernel's call only, whoever else runs the function: where plain code
        runs the op too, with its own hint, the op cannot drop it, the call that passes it does; bound
        by a partial of the op written outside kernel code (`held_by`: a table's entry), to drop there
        where every call of it is a kernel's and no code the flow does not follow is handed it."""
        for origin, (_, readers) in written.items():
            self.reads.setdefault(origin, []).append(_HintRead(*call, readers | ({other} if other else set()),
                                                               rejects, True))
            if maybe and not rejects:
                self.doubted.setdefault(origin, []).append((*call, maybe))
        for origin, scope in direct.items():
            passed_by_a_kernel = _code_of(self.linker, self.plain, scope) == _KERNEL
            self.reads.setdefault(origin, []).append(_HintRead(
                *call, ({other} if other and not passed_by_a_kernel else set()) | held_by.get(origin, set()), rejects,
                bool(other) and passed_by_a_kernel or origin in held_by))

    def _held_partial(self, origin: tuple) -> Optional[set[str]]:
        """Where a hint passed by name is written (module, site): when that is a partial of followed hint
        calls' ops only (`OPS = {"rsqrt": partial(lax.rsqrt, accuracy=...)}`), who reads the partial
        besides its calls, the code the flow does not follow it is handed to (`Readers.partial_readers`);
        None for any other call (one passing it on, a partial of a function of the project, whose
        parameter other code may read)."""
        if self._partials is None:
            linker, handed = self.linker, self.linker.partial_readers()
            self._partials = {}
            for owner in linker.keys:
                if owner[0] == "partial":
                    functions = linker.read(owner, "fn")
                    ops = bool(functions) and all(function[0] == "ext" and linker.follows.get(
                        function[1], (None, ""))[1] == HINT for function in functions)
                    at = (owner[1], owner[2])
                    self._partials[at] = handed.get(at, set()) if ops and self._partials.get(at, set()) is not None \
                        else None
        return self._partials.get(origin)

    def _bound_by_partials(self, function: str) -> list[tuple]:
        """What partials of `function`, a body nothing launches as the link sees, and those of bodies the
        link does not know (`_unknown_bodies`) bind as keywords: hints that may reach its call."""
        linker = self.linker
        of_function = (owner for owner in linker.keys if owner[0] == "partial" and any(
            fn[:2] == ("def", function) for fn in linker.read(owner, "fn")))
        return _partial_keywords(linker, [*of_function, *self.unknown_bodies])

    def _note_members(self, call: tuple[str, Site, str], places: list, rejects: bool, doubts: tuple[str, ...]) -> None:
        """Where each hint's member reaching `call` is dropped, `places` (its entry or call in `**options`,
        the call that passes it to an op plain code runs too, or else the op), for the member's own
        module to say: to drop where the kernel rejects it, else why not (`doubts`: launches not
        followed, or none found)."""
        module, _, callee = call
        for at, hints in places:
            for member in _members(hints, {at[0], module}):
                if rejects:
                    self.dropped.setdefault(member, set()).add((*at, callee))
                else:
                    self.doubted_members.setdefault(member, []).append((*call, doubts))

    def _reach(self, origin: tuple, spread: bool) -> Reach:
        """Where a hint reaching a followed call is written: may it be dropped there (every reader a
        kernel's; passed by name: the call that passes it is to drop it), and who else reads it."""
        reads = self.reads[origin]
        others = _others(reads)
        return Reach(origin[0], origin[1], (), not others and (spread or any(read.drop_where_written for read in reads)),
                     others)

    def answer_calls(self, answers: dict[str, FlowFacts]) -> None:
        """Each hint call in kernel code, with where the hints reaching it are written, among its module's sinks."""
        for module, calls in self.calls.items():
            resolved = tuple(SinkAnswer(call.site, call.callee, call.backends, tuple(
                [self._reach(origin, True) for origin in sorted(call.written)]
                + [self._reach(origin, False) for origin in [*call.in_kernels, *call.held]]),
                call.unknown, call.reached, call.maybe, call.shared) for call in calls)
            facts = answers.get(module, NO_FLOW)
            answers[module] = replace(facts, sinks=tuple(sorted(facts.sinks + resolved, key=lambda sink: sink.site)))

    def answer_origins(self, answers: dict[str, FlowFacts]) -> None:
        """Each place a hint is written, in its module: to drop there where only kernels read it (see
        `_HintRead`), or that other code reads it too; read only where launches not followed may run;
        a hint's member dropped (or not) where it is passed on."""
        origins: dict[str, list[OriginAnswer]] = {}
        for (module, site), reads in self.reads.items():
            others = _others(reads)
            if any(read.rejects for read in reads) and (others or any(read.drop_where_written for read in reads)):
                origins.setdefault(module, []).append(OriginAnswer(site, tuple(sorted(
                    {(read.module, read.site, read.callee) for read in reads})), others))
            elif (module, site) in self.doubted:
                origins.setdefault(module, []).append(_doubted(site, (), self.doubted[module, site]))
        for module, site in sorted(self.dropped.keys() | self.doubted_members.keys()):
            origins.setdefault(module, []).append(replace(_doubted(site, (), self.doubted_members.get((module, site), ())),
                                                          dropped=tuple(sorted(self.dropped.get((module, site), ())))))
        for module, written_here in origins.items():
            facts = answers.get(module, NO_FLOW)
            answers[module] = replace(facts, origins=tuple(sorted(facts.origins + tuple(written_here), key=lambda o: o.site)))
