"""What the whole-program value flow (link.py) answers about one module: plain data, part of the
module's facts (and so of each file's cache key)."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Callable, Collection, Iterator, Optional

from codemods.analysis.flow.summary import Site

Backends = frozenset[str]  # of the kernels a call runs in: "mosaic_tpu", "mosaic_gpu", "triton"


@dataclass(frozen=True)
class Reach:
    """A pair literal that may reach a followed call: where it is written and what it may be."""
    module: str
    site: Site
    levels: tuple[tuple[str, ...], ...]  # per operand, the precisions it may name
    fixable: bool  # every reader is a followed call in kernel code
    readers: tuple[str, ...] = ()  # the others, described ("`print` in reference.py:9")
    in_run: bool = True  # its module is one of the run's files (a run over some files: `FlowFacts.within`)
    place: str = ""  # in a notebook: its cell and line, as the notebook's own findings say it (`FlowFacts.placed`)

    def written(self) -> str:
        """Where it is written: "written in `pkg.cfg` on line 8", in a notebook "written in nb.ipynb:cell 3:1"."""
        return f"written in {self.place}" if self.place else f"written in `{self.module}` on line {self.site[0]}"

    def shared(self, rewriting: str) -> str:
        """Why it is not rewritten where it is written (`rewriting`: the rewrite, "dropping it")."""
        return (f"{self.written()}, which {', '.join(self.readers)} also "
                f"read{'s' if len(self.readers) == 1 else ''} ({rewriting} there would change what that code reads)")

    def outside_the_run(self, rewriting: str) -> str:
        """Why a value fixed where it is written is said at the kernel's call: that file is not in the run."""
        return (f"{self.written()}, a file this run does not process ({rewriting} "
                "there is the fix: run the tool on that file too)")


# A notebook's code named in a note, `(<notebook /abs/nb.ipynb>:7)`: its module and line in the cells joined
_NOTEBOOK_NOTE = re.compile(r"\((<notebook [^>]*>):(\d+)\)")

# How an unknown value an installed package's call gives, or an installed package's value, is described
INSTALLED, INSTALLED_VALUE = "(an installed package's code)", "an installed package's value"
NO_PRECISION = "None"  # a precision of None reaching a followed call outside kernels (`SinkAnswer.levels`)
# A parameter of a top-level function Mosaic TPU kernels run, and the dtypes it may hold (kernel_dtypes.py):
# (function, parameter, dtypes by their numpy names, whether values that name no dtype reach it too)
ParameterDtypes = tuple[str, str, tuple[str, ...], bool]


@dataclass(frozen=True)
class SinkAnswer:
    """A followed call in kernel code: its callee, the backends it lowers for, the pairs that reach it."""
    site: Site
    callee: str
    backends: Backends
    pairs: tuple[Reach, ...]
    unknown: tuple[str, ...]  # why a value reaching it is not known
    # Some value reaches it; outside kernels: plain XLA code of the project calls its function.
    reached: bool
    maybe: tuple[str, ...] = ()  # launches the flow does not follow that may run it (`getattr(...)` at a line)
    # A hint's call in kernel code that plain code runs too: then `pairs` and `unknown` say what may reach
    # it in kernel code, passed by name (`act(x, accuracy=...)`) or by **options, not only the latter.
    plain: bool = False
    # Outside kernels: the precisions that may reach it, as `Level` names (NO_PRECISION: None), a pair by
    # its first element (what a call taking one precision reads, cuDNN's LSTM); `unknown` says what
    # reaches it that names none. For rules that fix such calls where they are (JAX003).
    levels: tuple[str, ...] = ()

    def computed(self) -> tuple[str, ...]:
        """Its unknown values the code computes at run time (`getattr`, `dict(zip(names, values))`), not
        an installed package's: one of those is passed by a keyword written at a call or partial, whose
        module's analysis says so there."""
        return tuple(why for why in self.unknown if not why.endswith((INSTALLED, INSTALLED_VALUE)))


@dataclass(frozen=True)
class OriginAnswer:
    """A pair literal that reaches Mosaic TPU kernels' followed calls (module, site, callee): rewritten
    where it is written, unless other code reads it too (`readers`, described as Reach's)."""
    site: Site
    reaches: tuple[tuple[str, Site, str], ...]
    readers: tuple[str, ...] = ()
    # In a run over some files (`FlowFacts.within`): the `reaches` in files it does not process, where
    # the kernel's call says [manual] (other code reads it): said here too, for `--check` to fail
    unseen: tuple[tuple[str, Site, str], ...] = ()
    # Kernels' calls reading it only in code that launches the link does not follow may run (`launches`),
    # no Mosaic TPU kernel's it follows: nothing to fix where it is written, each call's finding [manual]
    maybe: tuple[tuple[str, Site, str], ...] = ()
    launches: tuple[str, ...] = ()
    # A hint's member written here (`HINT = lax.AccuracyMode.HIGHEST`) that reaches kernels' calls as a
    # keyword or **options of another module, where it is dropped (module, site, callee): the call or
    # entry that passes it on; nothing to do here, but a run without that module says so here
    dropped: tuple[tuple[str, Site, str], ...] = ()


@dataclass(frozen=True)
class Handed:
    """A call here handing a kernel wrapper of another module a pair, as a followed keyword, that reaches
    Mosaic TPU kernels and is not fixed where it is written (other code reads it): said at the call."""
    site: Site
    keyword: str
    reach: Reach
    sinks: tuple[tuple[str, Site, str], ...]  # (module, site, callee) of the kernel calls it reaches


@dataclass(frozen=True)
class LostLaunch:
    """A call here giving a launch a body the link cannot follow, and what it may be instead (`getattr
    with a computed name`; no function, where what fills it is code the link does not read): the
    launcher's call, or a launch helper's (`through`: the helper and where it calls the launcher). The
    kernel it launches is not checked, so the rules say so at the call: never silent."""
    site: Site
    launcher: str
    backends: Backends
    unknown: tuple[str, ...]
    through: tuple[str, ...] = ()
    # Bodies it may run that call code of another module holding a followed call (`body` calling
    # `util.mm`): what a module's own notes on a launch it cannot resolve do not reach
    beyond: tuple[str, ...] = ()


@dataclass(frozen=True)
class Called:
    """A call here, in kernel code, of a jax function reached as a value (a table's entry, a partial, a
    default: `ACTS[name](x)`), which the module's own analysis cannot name: for the rules' walls."""
    site: Site
    function: str  # `jax.nn.elu`
    backends: Backends
    keywords: tuple[tuple[str, tuple[str, ...]], ...]  # bound or passed: the literals each may be (repr), "?" else
    holders: tuple[str, ...]  # where the project keeps it as a value ("the entry 'elu' of the dict in `m` on line 6")
    # Held by partials only (`EXP_HI = functools.partial(lax.exp, accuracy=...)`): one a kernel calls by the name
    # it is bound to is the partial's module's to report (the project index follows that name's uses)
    partials_only: bool = False

    def held(self) -> str:
        """Where it is held, for a finding: " (the entry 'elu' of the dict in `m` on line 6)"; "" if not known."""
        return f" ({'; '.join(self.holders)})" if self.holders else ""


@dataclass(frozen=True)
class FlowFacts:
    """What the link says about one module (plain data: part of the facts a file's cache key holds)."""
    sinks: tuple[SinkAnswer, ...] = ()
    origins: tuple[OriginAnswer, ...] = ()
    # Calls here passing a followed keyword only scalar precisions: (call, keyword, the levels it names)
    scalars: tuple[tuple[Site, str, tuple[str, ...]], ...] = ()
    handed: tuple[Handed, ...] = ()
    lost: tuple[LostLaunch, ...] = ()
    # Its functions that kernels launched or run by another module's code run (the link goes forward
    # from every launch it follows): (name, qualified as the summary does: `body`, `Block.kernel`,
    # `make.<locals>.body`; backends, why, role: "body" or "helper", whether plain XLA code calls it
    # too). Its kernel-scoped rules take them for kernel code, whatever their calls.
    kernels: tuple[tuple[str, Backends, str, str, bool], ...] = ()
    called: tuple[Called, ...] = ()
    dtypes: tuple[ParameterDtypes, ...] = ()
    # Its top-level bodies a Mosaic TPU launch of another module passes an operand cast to a narrow dtype:
    # (body, the dtypes, where those launches are: "(module:line)" each); which ref gets it, in `refs`
    # (kernel_dtypes.py)
    operands: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = ()
    # Of those bodies, the ref parameters each launch the link follows places an operand at, a narrow cast
    # by one (kernel_dtypes.RefOperands): (body, parameter, ((dtype or "": none, or not followed), where) ...)
    refs: tuple[tuple[str, str, tuple[tuple[str, tuple[str, ...]], ...]], ...] = ()
    # The names of other modules this module's dtype arguments read that hold one narrow dtype, as the link
    # has it: (qualified name, dtype) (`lax.convert_element_type(x, config.QDTYPE)`; kernel_dtypes.py)
    named_dtypes: tuple[tuple[str, str], ...] = ()

    def parameter_dtypes(self, function: str, parameter: str) -> Optional[tuple[tuple[str, ...], bool]]:
        """The dtypes the link says a kernel's top-level `function` may be given as `parameter`, and
        whether values that name none reach it too; None where it says none."""
        return next(((dtypes, other) for at, name, dtypes, other in self.dtypes
                     if at == function and name == parameter), None)

    def scalar_levels(self, site: Site, keyword: str) -> Optional[tuple[str, ...]]:
        """The precisions a call here passes as `keyword`, where the link knows each to be a scalar (or
        None: no level); None where it does not."""
        return next((levels for at, name, levels in self.scalars if at == site and name == keyword), None)

    def dtype_words(self) -> bytes:
        """The dtypes the link carries into its kernels' parameters, and other modules' names it reads
        hold, as a rule's prefilter reads words."""
        return b" ".join(sorted({dtype.encode() for *_, dtypes, _ in (*self.dtypes, *self.operands)
                                 for dtype in dtypes} | {dtype.encode() for _, dtype in self.named_dtypes}))

    def fixed_where_written(self, site: Site, callees: Collection[str]) -> bool:
        """Whether the link found every reader of the value written here at `site`: followed calls of
        `callees` in Mosaic TPU kernels, none other (its fix belongs where it is written)."""
        return any(origin.site == site and origin.reaches and not origin.readers
                   and any(callee in callees for _, _, callee in origin.reaches) for origin in self.origins)

    def handed_at(self, site: Site, keyword: str) -> bool:
        """Whether the call here at `site` hands another module's kernel wrapper, as `keyword`, a pair
        other code reads too (`Handed`: said at the call)."""
        return any(handed.site == site and handed.keyword == keyword for handed in self.handed)

    def sink_at(self, site: Site) -> Optional[SinkAnswer]:
        return self._sinks_by_site.get(site)

    @cached_property
    def _sinks_by_site(self) -> dict[Site, SinkAnswer]:
        """Asked once per followed call of the module: a table, not a scan of every answer each time."""
        return {sink.site: sink for sink in self.sinks}

    def within(self, modules: "frozenset[str] | set[str]",
               settled: Callable[[str, Site, str], bool] = lambda module, site, callee: False) -> "FlowFacts":
        """These answers for a run over `modules` only: a pair fixed where it is written in another
        module is marked (`Reach.in_run`), for the kernel's call to say where its fix is, never silent;
        so is a pair written here that other code reads too, at kernels' calls in other modules
        (`OriginAnswer.unseen`), whose [manual] findings the run does not show, or a hint's member written
        here that the whole run drops there (`OriginAnswer.dropped`).
        Unless `settled(module, site, callee)`: a comment there silences that fix (where the value is
        written) or that finding (at a kernel's call), so a run over every file says nothing of it, and
        neither does a run over some."""
        def outside(reach: Reach, callee: str) -> bool:
            return reach.module not in modules and not settled(reach.module, reach.site, callee)

        def unseen(origin: OriginAnswer) -> OriginAnswer:
            kernels = (*(origin.reaches if origin.readers else ()), *origin.maybe, *origin.dropped)
            return replace(origin, unseen=tuple(kernel for kernel in kernels
                                                if kernel[0] not in modules and not settled(*kernel)))

        origins = tuple(map(unseen, self.origins))
        if not any(outside(reach, sink.callee) for sink in self.sinks for reach in sink.pairs) and not any(
                origin.unseen for origin in origins):
            return self
        return replace(self, sinks=tuple(replace(sink, pairs=tuple(
            replace(reach, in_run=not outside(reach, sink.callee)) for reach in sink.pairs)) for sink in self.sinks),
            origins=origins)

    def unfollowed(self, modules: "frozenset[str] | set[str]", importers: Callable[[str], tuple[str, ...]]) -> "FlowFacts":
        """These answers where the link's answers for `modules` are not kept (code it did not read imports
        them, `importers(module)`: it may read their values too): a pair written there is not fixed
        there, so the kernel's call says so, never silent."""
        def unseen(reach: Reach) -> Reach:
            if reach.module not in modules:
                return reach
            described = f"code the analysis does not follow ({', '.join(f'`{name}`' for name in importers(reach.module)[:3])})"
            return replace(reach, fixable=False, readers=(*reach.readers, described))

        if not any(reach.module in modules for sink in self.sinks for reach in sink.pairs):
            return self
        return replace(self, sinks=tuple(replace(sink, pairs=tuple(map(unseen, sink.pairs))) for sink in self.sinks))

    def placed(self, place: Callable[[str, int], Optional[str]]) -> "FlowFacts":
        """These answers with each value written in a notebook named by its cell and line (`place(module,
        line)`: "nb.ipynb:cell 3:1"; None for a module of files), as the notebook's own findings are; so
        is a notebook's code named in the notes of who else reads a value ("`print` (nb.ipynb:cell 3:2)",
        where the link wrote the notebook's module and its line in the cells joined)."""
        def said(notes: tuple[str, ...]) -> tuple[str, ...]:
            return tuple(_NOTEBOOK_NOTE.sub(lambda found: f"({place(found[1], int(found[2])) or found[0][1:-1]})", note)
                         for note in notes)

        def named(reach: Reach) -> Reach:
            where = place(reach.module, reach.site[0])
            return replace(reach, place=where or reach.place, readers=said(reach.readers))

        if not any(place(reach.module, reach.site[0]) for reach in self._reaches()) and not any(
                "(<notebook " in note for note in self._notes()):
            return self
        return replace(self, sinks=tuple(replace(sink, pairs=tuple(map(named, sink.pairs)), unknown=said(sink.unknown),
                                                 maybe=said(sink.maybe)) for sink in self.sinks),
                       origins=tuple(replace(origin, readers=said(origin.readers), launches=said(origin.launches))
                                     for origin in self.origins),
                       handed=tuple(replace(handed, reach=named(handed.reach)) for handed in self.handed),
                       lost=tuple(replace(lost, unknown=said(lost.unknown), through=said(lost.through),
                                          beyond=said(lost.beyond)) for lost in self.lost),
                       operands=tuple((body, dtypes, said(where)) for body, dtypes, where in self.operands),
                       refs=tuple((body, parameter, tuple((dtype, said(where)) for dtype, where in passed))
                                  for body, parameter, passed in self.refs))

    def _notes(self) -> Iterator[str]:
        """Every note that may name where code is: who else reads a value, what is not known and why."""
        for reach in self._reaches():
            yield from reach.readers
        for sink in self.sinks:
            yield from (*sink.unknown, *sink.maybe)
        for origin in self.origins:
            yield from (*origin.readers, *origin.launches)
        for lost in self.lost:
            yield from (*lost.unknown, *lost.through, *lost.beyond)
        for *_, where in self.operands:
            yield from where
        for *_, passed in self.refs:
            for _, where in passed:
                yield from where

    def _reaches(self) -> Iterator[Reach]:
        for sink in self.sinks:
            yield from sink.pairs
        for handed in self.handed:
            yield handed.reach

    def as_data(self) -> list:
        """The same as JSON-able lists, in an order that does not depend on hashing (a cache key)."""
        return [[[sink.site, sink.callee, sorted(sink.backends),
                  [_reach_data(reach) for reach in sink.pairs],
                  sink.unknown, sink.reached, sink.maybe, sink.plain, sink.levels] for sink in self.sinks],
                [[origin.site, origin.reaches, origin.readers, origin.unseen, origin.maybe, origin.launches, origin.dropped]
                 for origin in self.origins],
                [[site, keyword, levels] for site, keyword, levels in self.scalars],
                [[handed.site, handed.keyword, _reach_data(handed.reach), handed.sinks] for handed in self.handed],
                [[lost.site, lost.launcher, sorted(lost.backends), lost.unknown, lost.through, lost.beyond]
                 for lost in self.lost],
                [[name, sorted(backends), why, role, plain] for name, backends, why, role, plain in self.kernels],
                [[called.site, called.function, sorted(called.backends), called.keywords, called.holders,
                  called.partials_only] for called in self.called],
                [list(parameter) for parameter in self.dtypes], [list(operand) for operand in self.operands],
                [[body, parameter, [[dtype, list(where)] for dtype, where in passed]] for body, parameter, passed in self.refs],
                [list(named) for named in self.named_dtypes]]

    @staticmethod
    def from_data(data: list) -> "FlowFacts":
        """`as_data` read back (the project state keeps the link's answers); ValueError otherwise."""
        try:
            sinks, origins, scalars, handed, lost, kernels, called, dtypes, operands, refs, named_dtypes = data
            return FlowFacts(
                tuple(SinkAnswer(tuple(site), callee, frozenset(backends),
                                 tuple(_reach_of(reach) for reach in pairs),
                                 tuple(unknown), reached, tuple(maybe), plain, tuple(levels))
                      for site, callee, backends, pairs, unknown, reached, maybe, plain, levels in sinks),
                tuple(OriginAnswer(tuple(site), _sites(reaches), tuple(readers), _sites(unseen), _sites(maybe),
                                   tuple(launches), _sites(dropped))
                      for site, reaches, readers, unseen, maybe, launches, dropped in origins),
                tuple((tuple(site), keyword, tuple(levels)) for site, keyword, levels in scalars),
                tuple(Handed(tuple(site), keyword, _reach_of(reach), _sites(sinks)) for site, keyword, reach, sinks in handed),
                tuple(LostLaunch(tuple(site), launcher, frozenset(backends), tuple(unknown), tuple(through),
                                 tuple(beyond)) for site, launcher, backends, unknown, through, beyond in lost),
                tuple((name, frozenset(backends), why, role, plain) for name, backends, why, role, plain in kernels),
                tuple(Called(tuple(site), function, frozenset(backends), tuple((k, tuple(v)) for k, v in keywords),
                             tuple(holders), partials) for site, function, backends, keywords, holders, partials in called),
                tuple((function, name, tuple(named), other) for function, name, named, other in dtypes),
                tuple((body, tuple(named), tuple(where)) for body, named, where in operands),
                tuple((body, parameter, tuple((dtype, tuple(where)) for dtype, where in passed))
                      for body, parameter, passed in refs),
                tuple((name, dtype) for name, dtype in named_dtypes))
        except (TypeError, ValueError) as error:
            raise ValueError(f"not flow facts: {error}") from error


def _sites(reaches: list) -> tuple[tuple[str, Site, str], ...]:
    return tuple((module, tuple(at), callee) for module, at, callee in reaches)


def _reach_data(reach: Reach) -> list:
    return [reach.module, reach.site, reach.levels, reach.fixable, reach.readers, reach.in_run, reach.place]


def _reach_of(data: list) -> Reach:
    module, at, levels, fixable, readers, in_run, place = data
    return Reach(module, tuple(at), tuple(tuple(names) for names in levels), fixable, tuple(readers), in_run, place)


NO_FLOW = FlowFacts()
