"""The parts of the index worked out in worker processes (forked from the one that holds the index,
they inherit it), and the entry points those processes run."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Callable, Iterable, Optional, TypeVar

from codemods.analysis.project.base import ProjectBase
from codemods.analysis.project.facts import FactsSearch
from codemods.analysis.project.flow import LinkedFlow
from codemods.analysis.project.modules import MARKER, _Module, _NOT_SUMMARISED, _absolute
from codemods.analysis.project.scan import _words
from codemods.analysis.flow.summary import ModuleSummary


class WorkerSummary(ProjectBase):
    """The index's map work: each module's parts, summarised in workers (`summarise`)."""

    def summarise(self, names: Iterable[str], map_in_workers: Callable[[Callable[[str], tuple], list[str]], list],
                  then: Optional[Callable[[], None]] = None) -> None:
        """Work out the parts of the modules `names` that no other module decides in worker
        processes, where most of a cold tree's index goes. First each module's: whether it says
        pallas, its import lines, a package's top-level table, a pallas module's launch helpers and
        precision wrappers.
        Then, with kernel land known from those, each module in it: whether a rule's prefilter
        passes its code and, if so, its needy names (a parse). A module that says pallas is in
        kernel land whatever the others say: its needy names come with the first answer, from the
        parse its launch helpers took. What is left here is the search across modules, which reads
        the results: the facts are those the lazy index gives, with the same dependencies. Of a
        notebook, only the `prefilter` answer (its code is decoded, if at all, here).
        `map_in_workers(function, items)`: `function` of each item, in order, computed in processes
        forked from this one while `_SUMMARISING` is this index (the first fork happens inside the
        first call). Call it before `restore` (or call that in `then`). `then()` is called as soon as what the link reads
        is in (the flow summaries of the linked modules, and the needy names of those in kernel
        land, from the same parse), before the needy names of the other modules and who says them:
        a link started there (`link_flow_elsewhere`) runs while the workers work those out."""
        global _SUMMARISING
        names = list(names)
        pending = [name for name in names if not name.startswith("<")]  # a notebook: decoded here, once
        notebooks = [name for name in names if name.startswith("<")] if self._prefilter is not None else []
        _SUMMARISING = self
        try:
            for name, (marked, import_texts, top_level, launchers, wrappers, needy_parts, prefiltered) in zip(
                    pending, map_in_workers(_summary, pending)):
                module = self._modules[name]
                module.prefiltered = prefiltered
                self._part_values[(name, MARKER)] = marked
                module.import_texts, module.top_level = import_texts, top_level
                if launchers is not None:
                    self._launchers[name] = launchers
                if wrappers is not None:
                    self._wrappers[name] = wrappers
                if needy_parts is not None:
                    self._learn_needy_parts(module, needy_parts)
            for name, prefiltered in zip(notebooks, map_in_workers(_prefilter_summary, notebooks)):
                self._modules[name].prefiltered = prefiltered  # before kernel land reads them
            # the modules whose facts may say more than "nothing" (none without a kernel-scoped rule: `facts`)
            land = self._kernel_land() if self._kernel_rules else set()
            wanted = {name for name in pending if name in land and not self._marked(self._modules[name])}
            linked = [name for name in pending if name in self.linked()]
            for name, (needy_parts, flow) in zip(linked, map_in_workers(
                    _linked_summary, [(name, name in wanted) for name in linked])):
                self._modules[name].flow_summary = flow
                if needy_parts is not None:
                    self._learn_needy_parts(self._modules[name], needy_parts)
            if then is not None:
                then()
            rest = [name for name in pending if name in wanted and name not in self.linked()]
            for name, needy_parts in zip(rest, map_in_workers(_needy_summary, rest)):
                self._learn_needy_parts(self._modules[name], needy_parts)
            self._learn_sayers(pending, map_in_workers)
        finally:
            _SUMMARISING = None

    def _learn_sayers(self, names: list[str], map_in_workers: Callable) -> None:
        """Which of the modules `names` say each needy name, found in the workers: the search across
        modules asks that of thousands of importers per name (everything that imports jax, on a
        site-packages tree), serially, and one pass over each module's words answers it for all
        the names at once."""
        named = frozenset(name.encode() for module in self._modules.values() for name in module.needy or ())
        if not named:
            return
        chunks = [(names[start:start + _SAYERS_CHUNK], named) for start in range(0, len(names), _SAYERS_CHUNK)]
        for (chunk, _), said in zip(chunks, map_in_workers(_names_said, chunks)):
            for name, words in zip(chunk, said):
                self._modules[name].said = words
                for word in words:
                    self._sayers.setdefault(word, []).append(name)
        self._named = named
        self._unsummarised = [name for name, module in self._modules.items() if module.said is None]

    def learn_facts_in_workers(self, paths: "Iterable[Path | str]", to_each: Callable[[Callable, object], list],
                               map_owned: Callable[[Callable, list[str]], list]) -> None:
        """`learn_facts` for the modules at `paths`, worked out in the summary's workers: their
        searches parse and index the modules they read, which the worker that summarised a module
        still holds (here, 923 modules of the trees were parsed again). First `to_each(function,
        item)` (`function(item)` once in every worker) hands each worker what this process joined
        of the summary (`joined`); then `map_owned(function, names)` works out each chunk of
        names in the worker that summarised them (the others in any). A fact comes back with what
        it read and the values of the parts it read, so that the state kept is the one a search
        here leaves. The facts do not depend on where they are worked out (`_fact_through_cycles`)."""
        # (a notebook's here: this process decodes its code cells, once, for the index and the rules)
        wanted = [module.name for module in map(self._by_path.get, map(_absolute, paths))
                  if module is not None and not module.name.startswith("<") and module.name not in self._facts]
        if not wanted or not self._kernel_rules:  # (without a kernel-scoped rule, none: `_own_facts`)
            return
        to_each(take_joined, self.joined())
        for name, (facts, dependencies, parts) in zip(wanted, map_owned(_facts_summary, wanted)):
            self._facts[name], self._fact_dependencies[name] = facts, dependencies
            self._part_values.update(parts)
        self._learnt = True

    def joined(self) -> bytes:
        """What this process learnt from the workers' summaries and from kernel land, as plain data
        (pickled once for all the workers, who take it with `take_joined`): the tables the searches
        and the link read (`_JOINED_TABLES`) and each module's light fields."""
        return pickle.dumps(({attribute: getattr(self, attribute) for attribute in _JOINED_TABLES},
                             {name: tuple(getattr(module, field) for field in _JOINED_FIELDS)
                              for name, module in self._modules.items()}), pickle.HIGHEST_PROTOCOL)

    def _summary_of(self, module: _Module) -> tuple:
        """See `summarise` (in a worker: no computation is in progress, so nothing is recorded)."""
        marked = self._marked(module)
        return (marked, self._import_texts(module), self._top_level(module) if module.is_package else None,
                self._launch_helpers(module) if marked else None,  # a package's table: its re-exports
                self._precision_wrappers(module) if marked else None,
                self._needy_parts(module) if marked else None,
                self._prefilter(module.path) if self._prefilter is not None else None)

    def prefiltered(self, path: "Path | str") -> object:
        """The answer of `prefilter` (see `__init__`) for the file at `path`, if the summary worked it
        out (a run over most of a large project): the main process, where each file's facts are
        worked out in turn, then neither reads nor tests the bytes of thousands of files."""
        module = self._by_path.get(_absolute(path))
        return module.prefiltered if module is not None else None

    def _needy_parts(self, module: _Module) -> tuple:
        """Whether a rule's prefilter passes its code, its needy names if so, and if that took a
        parse, its top-level table and what holds each name (read here, not parsed again in the
        search)."""
        relevant = self._is_relevant(module)
        needy = self._needy_names(module) if relevant else None
        parsed = module.tree is not None or module.index is not None
        return relevant, needy, self._top_level(module) if parsed else None, self._holders(module) if needy else None, \
            module.ref_takers, module.constants

    def _learn_needy_parts(self, module: _Module, parts: tuple) -> None:
        relevant, needy, top_level, holders, module.ref_takers, module.constants = parts
        module.relevant, module.needy = relevant, needy
        module.top_level = top_level if top_level is not None else module.top_level
        module.holders = holders if holders is not None else module.holders


# The index whose modules worker processes summarise (see `ProjectIndex.summarise`): forked, they inherit it.
_SUMMARISING: Optional[WorkerSummary] = None


_T = TypeVar("_T")


def _in_worker(name: str, compute: Callable[[WorkerSummary, _Module], _T]) -> _T:
    """`compute(index, module)` for the module `name` of the index being summarised, in a worker;
    the module's bytes and trees are forgotten after (a worker goes through thousands of modules,
    and only the answers are sent back), but for a module a rule's prefilter passes: the rules
    analyse it, in this worker as a rule (see `summarised_here`)."""
    assert _SUMMARISING is not None
    module = _SUMMARISING._modules[name]
    # It keeps the trees the summary parses: the rules analyse the relevant modules here, on their
    # parses, and a tree read again would be parsed again (the main process drops them: base.TREES_KEPT).
    _SUMMARISING._drops_trees = False
    try:
        return compute(_SUMMARISING, module)
    finally:
        if not module.relevant:
            module.raw = module.tree = module.index = None


def summarise_here(index: WorkerSummary) -> None:
    """Make `index` the one this process's summary tasks read: in a cluster's worker, which builds
    its own over the files it shares with the driver (forked workers inherit the driver's)."""
    global _SUMMARISING
    _SUMMARISING = index


def summarised_here() -> Optional[WorkerSummary]:
    """In a worker the summary forked: its copy of the index, with the parses of the modules it
    summarised that the rules will analyse (`ProjectIndex.parsed`); None elsewhere."""
    return _SUMMARISING


def _summary(name: str) -> tuple:
    return _in_worker(name, WorkerSummary._summary_of)


# What a worker takes over from the main process before it works out facts (`learn_facts_in_workers`):
# the index's tables of plain data, and each module's fields the summary learnt. Not the memos that
# hold modules or parses (`_functions`, `_scopes`, `_forwarders`: worked out again where needed, with
# the same dependencies), the bytes, the trees, the link's state.
_JOINED_TABLES = ("_importing", "_reachable", "_linked", "_launching", "_launchers", "_wrappers", "_part_values",
                  "_named", "_sayers", "_unsummarised", "_table_dependencies", "_outside_imports", "_usages",
                  "_import_graph", "_module_imports", "_package_importers")
_JOINED_FIELDS = ("needy", "ref_takers", "constants", "relevant", "parse_failed", "content", "import_texts", "said",
                  "top_level", "holders", "prefiltered")


def take_joined(joined: bytes) -> None:
    """In a worker: what the main process joined (`WorkerSummary.joined`), over this worker's copy
    of the index (a forked one, or a cluster's worker's own), whose parses stay."""
    assert _SUMMARISING is not None
    tables, fields = pickle.loads(joined)
    for attribute, value in tables.items():
        setattr(_SUMMARISING, attribute, value)
    for name, values in fields.items():
        module = _SUMMARISING._modules[name]
        for field, value in zip(_JOINED_FIELDS, values):
            if value is not None:
                setattr(module, field, value)


def _facts_summary(names: list[str]) -> list[tuple]:
    """In a worker: each module's facts but for the link's answers, what they read, and the values
    of the parts read (see `learn_facts_in_workers`)."""
    assert _SUMMARISING is not None
    index = _SUMMARISING
    found = []
    for name in names:
        facts = FactsSearch._own_facts(index, index._modules[name])  # type: ignore[arg-type]
        dependencies = index._fact_dependencies[name]
        found.append((facts, dependencies,
                      {dependency: index._part_values[dependency] for dependency in dependencies
                       if dependency in index._part_values}))
    return found


def _prefilter_summary(name: str) -> object:
    """The `prefilter` answer alone, for a notebook (its code is decoded, if at all, in the main process)."""
    assert _SUMMARISING is not None and _SUMMARISING._prefilter is not None
    return _SUMMARISING._prefilter(_SUMMARISING._modules[name].path)


def _needy_summary(name: str) -> tuple:
    return _in_worker(name, WorkerSummary._needy_parts)


def _linked_summary(item: tuple[str, bool]) -> tuple[Optional[tuple], Optional[ModuleSummary]]:
    """A linked module's needy names (if `item[1]`: it is in kernel land) and its flow summary, on one
    parse (see `ProjectIndex.summarise`)."""
    name, needy = item
    return _in_worker(name, lambda index, module: (
        WorkerSummary._needy_parts(index, module) if needy else None, LinkedFlow._flow_summary(index, module)))


def _names_said(chunk: tuple[list[str], frozenset[bytes]]) -> list[frozenset[bytes]]:
    """Of `named`, the words each module of the chunk says (see `ProjectIndex._learn_sayers`)."""
    names, named = chunk
    return [_in_worker(name, lambda index, module: named.intersection(_words(index._bytes(module))))
            for name in names]


_SAYERS_CHUNK = 64  # modules per task: the needy names are sent with each
