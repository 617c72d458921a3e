"""Stages 2-6 for each file: prefilter -> parse -> transform -> fix -> verify; then writing.

Files are read once in the main process; those that pass the byte prefilter are parsed with the
stdlib `ast` and analysed, in worker processes when there are several (it is CPU-bound), or on a
Dask cluster's workers (`--executor`, executors.py). Each rule reports findings that carry their
planned fixes; the engine drops suppressed findings, applies the fixes it may (safe ones; unsafe
ones with --unsafe-fixes; those a caller accepts) together, verifies the result, and gives every
fix its own exact edits. Only a file with a fix loads libcst. A file whose transform fails, or whose new source does not parse, is reported and
left untouched.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
import pickle
import stat
import sys
import threading
import warnings
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Optional, Sequence

from codemods.analysis.flow.summary import Site
from codemods.analysis.kernel_scope import KERNEL_MARKER, NO_FACTS, ModuleFacts
from codemods.analysis.module import ModuleIndex
from codemods.analysis.project import ProjectIndex, facts_of, summarise_here, summarised_here, take_joined
from codemods.engine.cache import FileMemo, Known, ResultCache, RunRecord, SharedSummaries, content_hash, facts_key
from codemods.engine import notebook
from codemods.engine.diagnostics import Applicability, Finding, Kind
from codemods.engine import executors
from codemods.engine import discovery
from codemods.engine.discovery import discover
from codemods.engine.fixes import anchor, merge, render, rendered_with_edits
from codemods.engine.positions import Positions
from codemods.engine.programs import programs
from codemods.engine.prefilter import any_rule_for, rules_for
from codemods.engine.report import FileResult
from codemods.engine.rule import SUPPRESSIONS, ParsedFile, Rule
from codemods.engine.source import SourceError, decode, utf8_code, write_atomically
from codemods.engine.suppression import Comment, Used, reach, silencer, silencing, suppressions, with_ignores
from codemods.floor import FloorError
from codemods.settings import Scope, Settings

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

    from codemods.config import Config

# Which findings' fixes to apply, beyond what the settings allow (`--interactive`: the accepted ones).
Accept = Callable[[Finding], bool]


def run(
    paths: "Iterable[Path | str]", transforms: Sequence[Rule], settings: Settings, jobs: int,
    cache: Optional[ResultCache] = None,
    rules_to_skip: Callable[["Path | str"], frozenset[str]] = lambda path: frozenset(),
    progress: Optional[Callable[[int, int], None]] = None,
    project: Optional[Sequence[Path]] = None,
    review: Optional[Callable[[FileResult], Optional[Accept]]] = None,
    discovered: bool = False,
    shard: bool = False,
) -> list[FileResult]:
    """Results for every discovered file, in discovery order (from `cache` where it has them).

    `rules_to_skip(path)`: codes not to run on that file (`per-file-ignores`); `progress(done,
    total)` is told as files are analysed; `project`: every file of the project the paths belong
    to, indexed together so that kernels, helpers and launchers in different modules are found
    (the processed files by default); `review(result)` (`--interactive`) is shown each result in
    order and may answer which of its fixes to apply: the file is then fixed again with those, with
    the same rules and cross-module facts. `discovered`: `paths` are what `discover` returned (the
    CLI's walk, with the project's exclusions), not discovered again: on a tree of thousands of
    files, a real path each cost a fifth of a warm run. `shard`: `paths` are one of
    the parts a whole run is split into (`--shard`): a value a kernel here reads from another part is
    that part's to fix, not said here too (a run over other files says it at the kernel's call).
    Where two import roots hold a module of the same name, each program (`programs`) runs alone."""
    paths = list(paths) if discovered else discover(paths)
    split = programs(paths, project, lambda files: _might_need_analysis(files, transforms, settings))
    if len(split) == 1:
        return _run(split[0][0], transforms, settings, jobs, cache, rules_to_skip, progress, split[0][1], review, shard)
    results: dict[str, FileResult] = {}
    for files, listed in split:  # (progress is told per program)
        for result in _run(files, transforms, settings, jobs, cache, rules_to_skip, progress, listed, review, shard):
            results[result.path] = result
    return [results[str(path)] for path in paths]


def _might_need_analysis(paths: list, transforms: Sequence[Rule], settings: Settings) -> bool:
    """Whether some rule's byte test passes on one of the files, taken to hold kernels where one of
    them says pallas (a file that cannot be read: yes, its error is the run's to report; a FIFO is
    never opened)."""
    try:
        raws = []
        for path in paths:
            _regular(os.stat(path))
            raws.append(_read_file(os.fspath(path)))
    except (OSError, _NotAFile):
        return True
    kernels = any(KERNEL_MARKER in raw for raw in raws)
    return any(any_rule_for(raw, transforms, settings, holds_kernels=kernels) for raw in raws)


def _run(paths: list, transforms: Sequence[Rule], settings: Settings, jobs: int, cache: Optional[ResultCache],
         rules_to_skip: Callable[["Path | str"], frozenset[str]], progress: Optional[Callable[[int, int], None]],
         project: Optional[Sequence[Path]], review: Optional[Callable[[FileResult], Optional[Accept]]],
         shard: bool) -> list[FileResult]:
    """`run` over one program (`programs`): `paths` discovered."""
    # A warm run over files none of which changed replays the last one (not under review: the
    # answers it records are this run's).
    record = RunRecord(cache, transforms, paths, paths if project is None else project, rules_to_skip,
                       lambda path: settings.floor(path).version) \
        if cache is not None and cache.trust_mtime and review is None else None
    replayed = record.replay(_read_file) if record is not None else None
    if replayed is not None:
        return replayed
    files = _Files(FileMemo(cache.directory, settings, transforms) if cache is not None and cache.trust_mtime else None,
                   frozenset(needle for rule in transforms for needle in rule.needles(settings)),
                   record.statuses if record is not None else None)
    with _Pool(jobs) if settings.executor == executors.LOCAL else executors.connect(settings.executor) as pool:
        collecting = gc.isenabled()
        gc.disable()  # until the project facts are known: see _keep_for_the_run
        try:
            results, candidates, analysed, index = _prepare(
                paths, transforms, settings, cache, rules_to_skip, project, files, pool, shard,
                in_turn=jobs <= 1 and pool.local)
        finally:
            _keep_for_the_run(collecting)
        global _PROJECT, _NOTEBOOKS  # read by process_source here, and by forked workers (which inherit them)
        _PROJECT, _NOTEBOOKS = index, files.notebooks
        try:
            for done, ((index_, path, rules, facts, file_settings, _), result) in enumerate(
                    zip(candidates, _results(candidates, files, jobs, pool, index)), 1):
                results[index_] = result
                if cache is not None:
                    cache.put(files.content(path), rules, result, facts, file_settings.jax_floor)
                if progress is not None:
                    progress(done, len(candidates))
            for index_, path, rules, facts in analysed if review is not None else ():
                accept = review(results[index_])
                if accept is not None:
                    results[index_] = process_source(path, files.raw(path), rules, settings, accept=accept,
                                                     facts=facts, prefiltered=True)
            # (while the run's heap is frozen: a collection the writes set off otherwise rescans the
            # whole project index, a quarter of a one-file run on a large tree; and with the collector
            # paused while the state is made and written: its hundreds of thousands of young
            # objects, acyclic, set off collections that cost a fifth of that)
            if cache is not None:
                if index is not None and index.learnt():
                    with _collector_paused():
                        cache.store_project_state(_state_key(index, transforms), index.state())
                if files.memo is not None:
                    files.memo.save()
                if record is not None:
                    record.store(results)
        finally:
            _PROJECT, _NOTEBOOKS = None, {}
            gc.unfreeze()
    return results


def _results(candidates: list[_Candidate], files: _Files, jobs: int, pool: executors.Executor,
             index: Optional[ProjectIndex]) -> Iterator[FileResult]:
    """The candidates' results, in order: from the workers they were handed to as their facts became
    known (see `_prepare`), from a cluster's workers, or analysed now."""
    if not pool.local:  # those not handed out while the link ran (`_prepare`), now
        late = _on_cluster([candidate for candidate in candidates if candidate[5] is None], files, pool, index)
        for *_, future in candidates:
            yield future.result() if future is not None else next(late)
        return
    if candidates and candidates[0][5] is not None:
        for *_, future in candidates:
            yield future.result()
        return
    yield from _map(_process_candidate, [(path, files.raw(path), rules, settings, facts)
                                         for _, path, rules, facts, settings, _ in candidates], jobs)


def _on_cluster(candidates: list[_Candidate], files: _Files, pool: executors.Executor,
                index: Optional[ProjectIndex]) -> Iterator[FileResult]:
    """The candidates' results from a cluster's workers, handed out now: they read each file where
    they share it with this process; the worker that parsed it for the map stage analyses it, on its
    parse, as the local pool's does. One a worker read otherwise is analysed here, on the bytes read."""
    project = pool.project
    shared = [(path, files.key(path), files.content(path), rules, settings, facts,
               project.key if project is not None else None) for _, path, rules, facts, settings, _ in candidates]
    modules = [index.module_of(path) if index is not None else None for _, path, *_ in candidates]
    return (result if result is not None else _process_candidate((path, files.raw(key), rules, settings, facts))
            for (path, key, _, rules, settings, facts, _), result in zip(
                shared, pool.map(_process_shared, shared, project, modules)))


class _HandedOut:
    """A candidate's result from the cluster's map it was handed to with others (`_handed_to_cluster`),
    as a future gives it; the map's results are read in order."""

    def __init__(self, results: Iterator[FileResult], read: list[FileResult], number: int) -> None:
        self._results, self._read, self._number = results, read, number

    def result(self) -> FileResult:
        while len(self._read) <= self._number:
            self._read.append(next(self._results))
        return self._read[self._number]

    def cancel(self) -> bool:
        return False  # (its chunk's other files want their results: this one is not read)


def _handed_to_cluster(candidates: list[_Candidate], files: _Files, pool: executors.Executor,
                       index: Optional[ProjectIndex]) -> list[_Candidate]:
    """`candidates` handed to a cluster's workers now, each with its result to come."""
    results, read = _on_cluster(candidates, files, pool, index), []
    return [(*candidate[:5], _HandedOut(results, read, number)) for number, candidate in enumerate(candidates)]


class _Files:
    """The files of a run: each stat'ed, read and hashed at most once, and an unchanged one (the
    memo's size and mtime) not read at all unless its analysis is needed. Keys are absolute paths
    (strs: hashing Paths costs)."""

    def __init__(self, memo: Optional[FileMemo] = None, needles: "frozenset[notebook.Needle]" = frozenset(),
                 statuses: Optional[dict[str, os.stat_result]] = None) -> None:
        """`statuses`: files already stat'ed this run, by path as given (the run record's)."""
        self.memo = memo
        self._stated = {} if statuses is None else statuses
        self.needles = needles  # the run's rules' (Rule.needles)
        self._searched = notebook.fewest_needles((*needles, KERNEL_MARKER))  # what `silent` looks for
        self._silent: dict[str, bool] = {}  # see `silent`
        self.contents: dict[str, bytes] = {}
        self.notebooks: dict[str, notebook.NotebookSource] = {}  # decoded, by absolute path: see _notebook_code
        self._statuses: dict[str, os.stat_result] = {}
        self._hashes: dict[str, bytes] = {}
        self._keys: dict["Path | str", str] = {}  # see `key`

    def key(self, path: "Path | str") -> str:
        """Its absolute path, worked out once a run (each file is asked about a dozen times)."""
        key = self._keys.get(path)
        if key is None:
            key = self._keys[path] = os.path.abspath(path)
        return key

    def status(self, path: "Path | str") -> os.stat_result:
        """Raises OSError, or _NotAFile for a FIFO named `x.py` (a read would block forever). Stat'ed
        once a run: the run record (see RunRecord.statuses), the memo and the reads share it (a
        status taken here is the record's too, by the path as asked: where no record was replayed,
        it stamps the files with them when it is kept, instead of a second stat of each)."""
        key = self.key(path)
        if key not in self._statuses:
            given = os.fspath(path)
            stated = self._stated.get(given)
            if stated is None:
                stated = self._stated[given] = os.stat(key)
            self._statuses[key] = stated
        status = self._statuses[key]
        _regular(status)
        return status

    def known(self, path: "Path | str") -> Optional[Known]:
        """What the last run learnt about the file, if it has not changed since."""
        key = self.key(path)
        return self.memo.lookup(key, self.status(key)) if self.memo is not None else None

    def raw(self, path: "Path | str") -> bytes:
        key = self.key(path)
        if key not in self.contents:
            self.status(key)
            self.contents[key] = _read_file(key)
        return self.contents[key]

    def silent(self, key: str, raw: bytes) -> bool:
        """Whether a notebook (at the absolute path `key`) holds none of the run's needles, nor the
        word kernel land starts from, and looks whole: then neither the project index nor the
        prefilter decodes it. Its bytes are searched once a run, for both."""
        if key not in self._silent:
            self._silent[key] = not notebook.may_need(raw, self._searched)
        return self._silent[key]

    def no_rule_reads(self, key: str, raw: bytes) -> bool:
        """Whether no rule needs a notebook's code cells: its bytes hold none of the rules' needles
        (`_rules_for_file` does not decode it, and the summary's workers tell the main process so)."""
        return self.silent(key, raw) or not notebook.may_need(raw, self.needles)

    def content(self, path: "Path | str") -> bytes:
        """The hash of the file's bytes: the memo's for an unchanged file (no read). A file read
        to hash it is remembered as read for the project alone (no rules chosen: if the run
        processes it, that entry takes its place), so that the next run does not read it."""
        key = self.key(path)
        if key not in self._hashes:
            known = self.known(key) if key not in self.contents else None
            self._hashes[key] = known.content if known is not None else content_hash(self.raw(key))
            if known is None and self.memo is not None:
                status = self.status(key)
                self.memo.learn(key, status, Known(status.st_size, status.st_mtime_ns, self._hashes[key], "", (), ()),
                                replace=False)
        return self._hashes[key]


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic collector paused while the block runs, where it was running."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def _keep_for_the_run(collecting: bool) -> None:
    """The project index (hundreds of parsed modules on a large tree) and the files' bytes live for
    the whole run. Built with the cyclic collector paused, then frozen: no collection rescans them,
    here or in the forked workers (whose memory pages then stay shared). On site-packages, the
    collections during the build cost a quarter of the run."""
    gc.freeze()
    if collecting:
        gc.enable()


_Analysed = tuple[int, Path, list[Rule], ModuleFacts]
# With the file's settings (its own floor: Settings.for_file) and its analysis, if handed out (a
# future; of a cluster's map, `_HandedOut`).
_Candidate = tuple[int, Path, list[Rule], ModuleFacts, Settings, "Optional[Future | _HandedOut]"]


def _prepare(files: list[Path], transforms: Sequence[Rule], settings: Settings, cache: Optional[ResultCache],
             rules_to_skip: Callable[["Path | str"], frozenset[str]], project: Optional[Sequence[Path]], seen: _Files,
             pool: executors.Executor, shard: bool = False, in_turn: bool = False
             ) -> tuple[list[FileResult], list[_Candidate], list[_Analysed], Optional[ProjectIndex]]:
    """Each file's project facts and the rules its bytes pass (remembered for a file that has not
    changed, else read): its result so far (an error, a cached result, or empty), the files left
    to analyse, and those analysed (cached ones too). Where the project's summary started the
    pool's workers, they work out the facts on the parses they hold, and each file left to analyse
    is handed to them as soon as its facts are known: first those the link running meanwhile
    cannot answer for, then the others once its answers are in. `in_turn` (one process): each file
    is analysed here as soon as its facts are known, while the index still holds the parse they
    read (it keeps a few: base.TREES_KEPT; worked out for every file first, many were parsed
    again)."""
    # Most of a large project processed: its modules are summarised on `jobs` processes. A run of a
    # few of its files needs the facts of a few modules, which the index finds lazily, here, and the
    # value flow of what their answers need.
    few = project is not None and 2 * len(files) < len(project)
    index = project_index(files if project is None else project, transforms, settings, cache, seen,
                          None if few else pool, files if few else None)
    results: list[FileResult] = [FileResult(str(path)) for path in files]
    candidates: list[_Candidate] = []
    analysed: list[_Analysed] = []
    # A run over some of the project's files (not a shard: the other shards fix their own): a kernel's
    # value written in a file outside them is said at the kernel's call, where it is written being the fix;
    # a value written in one of them that other code reads too, where it is written, for a kernel outside them.
    in_run = frozenset(filter(None, map(index.module_of, files))) \
        if index is not None and project is not None and len(files) < len(project) and not shard else None
    settled: Optional[Callable[[str, Site, str], bool]] = None

    def prepare(position: int, path: Path, early: Optional[ModuleFacts] = None) -> None:
        """The file's result so far, and its analysis handed out or queued. `early`: its facts, known
        before the link's answers (`facts_before_the_link`)."""
        nonlocal settled
        key = seen.key(path)
        try:
            status = seen.status(key)
            known = seen.known(key)
            facts = early if early is not None else facts_of(index, path)
            if in_run is not None and (facts.flow.sinks or facts.flow.origins):
                settled = settled or _settled_by_comments(index, transforms, seen, rules_to_skip)
                facts = replace(facts, flow=facts.flow.within(in_run, settled))
            skipped = tuple(sorted(rules_to_skip(path)))
            decided_by = facts_key(facts)  # what chose its rules, with `skipped`
            if known is not None and known.facts == decided_by and known.skipped == skipped:
                rules = [rule for rule in transforms if rule.code in known.rules]
            elif (prefiltered := index.prefiltered(key) if index is not None else None) is not None \
                    and not (facts.holds_kernels and prefiltered[1] is None):
                # (codes, the codes kernel-scoped rules add where it holds kernels: a notebook's; a
                # module's are not tested by the workers, None, and its bytes are tested here below)
                codes = prefiltered[0] + prefiltered[1] if facts.holds_kernels else prefiltered[0]
                rules = [rule for rule in transforms if rule.code in codes and rule.code not in skipped]
            else:
                rules = _rules_for_file(path, seen, transforms, settings, facts, skipped)
            if facts.flow.origins or facts.flow.handed or facts.flow.lost or facts.flow.called:  # the link found a
                # value written or handed on here that reaches kernels, a launch whose body it cannot follow, or a jax
                # function kernel code here calls as a value (`ACTS[name](x)`): whatever its words say
                rules = [rule for rule in transforms  # (in their order, as a later run's memo lists them)
                         if rule in rules or rule.kernel_scoped and (rule.follows or facts.flow.called)
                         and rule.code not in skipped]
            if facts.flow.dtypes or facts.flow.operands or facts.flow.named_dtypes:  # dtypes the link carries: words its bytes may lack
                carried = rules_for(facts.flow.dtype_words(), transforms, settings, holds_kernels=True)
                rules = [rule for rule in transforms if rule in rules or rule in carried and rule.code not in skipped]
        except OSError as error:
            results[position] = FileResult(str(path), error=f"cannot read: {error.strerror or error}")
            return
        except _NotAFile as reason:
            results[position] = FileResult(str(path), skipped=str(reason))
            return
        except notebook.NotebookError as error:
            results[position] = FileResult(str(path), error=str(error))
            return
        if seen.memo is not None:
            seen.memo.learn(key, status, Known(status.st_size, status.st_mtime_ns, seen.content(key), decided_by,
                                               skipped, tuple(rule.code for rule in rules)))
        results[position] = FileResult(str(path))
        if not rules:
            return
        try:
            file_settings = settings.for_file(key)  # its project's floor, read once a project
        except FloorError as error:
            results[position].error = str(error)
            return
        analysed.append((position, path, rules, facts))
        cached = cache.get(path, seen.content(key), rules, facts, lambda: seen.raw(key), file_settings.jax_floor) \
            if cache is not None else None
        if cached is not None:
            results[position] = cached
        else:
            item = (path, seen.raw(key), rules, file_settings, facts)
            future = pool.submit(_process_in_worker, item, len(item[1]), index.module_of(path) if index is not None
                                 else None) if pool.started else _analysed_here(item, index, seen.notebooks) if analysing else None
            candidates.append((*analysed[-1], file_settings, future))

    early: dict[int, ModuleFacts] = {}
    analysing = in_turn and index is not None and not pool.started
    if analysing:
        gc.freeze()  # the index and the link's heap, which no collection of an analysis's cycles need scan
    elif index is not None:  # what does not read the link's answers first: it may run elsewhere meanwhile
        if pool.started and pool.local:  # where the summary's workers hold the parses the searches read
            index.learn_facts_in_workers(files, pool.each, pool.map_owned)
        elif pool.project is not None:  # a cluster's workers, likewise
            _learn_facts_on_cluster(index, files, pool)
        index.learn_facts(files)
        # The files the link cannot answer for, by their import lines: handed out before its answers come.
        early = index.facts_before_the_link(files) if pool.started or pool.project is not None else {}
    for position, facts in early.items():
        prepare(position, files[position], facts)
    if early and not pool.local:  # to a cluster's workers, while the link runs on one of them
        candidates = _handed_to_cluster(candidates, seen, pool, index)
    for position, path in enumerate(files):
        if position not in early:
            prepare(position, path)
    # One the link answered for after all (it read a module through an import its import lines miss): again.
    again = {position for position, facts in early.items() if index is not None and index.facts(files[position]) != facts}
    if again:
        for *_, future in (candidate for candidate in candidates if candidate[0] in again):
            if future is not None:
                future.cancel()
        candidates = [candidate for candidate in candidates if candidate[0] not in again]
        analysed = [entry for entry in analysed if entry[0] not in again]
        for position in sorted(again):
            prepare(position, files[position])
    candidates.sort(key=lambda candidate: candidate[0])
    analysed.sort(key=lambda entry: entry[0])
    return results, candidates, analysed, index


def _settled_by_comments(index: ProjectIndex, transforms: Sequence[Rule], seen: _Files,
                         rules_to_skip: Callable[["Path | str"], frozenset[str]]) -> Callable[[str, Site, str], bool]:
    """Whether, in a file outside the run, the rule that follows `callee` is silenced at `site`
    (`FlowFacts.within`): by a suppression comment on its line, or for the whole file (`per-file-ignores`).
    What a run over every file would say there is then silenced: the fix of a pair written there
    (`--add-noqa` on that file, then pre-commit on the kernel's), or a kernel's call's [manual] finding
    (a comment on a call's first line covers the call); a run over some files says nothing of it either.
    A comment on another line of a kernel's call, where its finding may stand, leaves the note: never
    silent. Each such file is read once, when a site of its is asked about."""
    fixers = {callee: rule for rule in transforms for callee in rule.follows}
    read: dict[str, tuple[dict[int, Comment], frozenset[str]]] = {}

    def silencers(module: str) -> tuple[dict[int, Comment], frozenset[str]]:
        path = index.path_of(module)
        if path is None:
            return {}, frozenset()
        try:
            raw = seen.raw(path)
            code = _notebook_code(seen.key(path), raw, seen.notebooks) if notebook.is_notebook(path) else utf8_code(raw)
        except (OSError, _NotAFile, notebook.NotebookError):
            return {}, rules_to_skip(path)  # then a comment cannot silence it: never silent
        return suppressions(code.decode("utf-8", "replace")), rules_to_skip(path)

    def settled(module: str, site: Site, callee: str) -> bool:
        rule = fixers.get(callee)
        if rule is None:
            return False
        if module not in read:
            read[module] = silencers(module)
        comments, skipped = read[module]
        comment = comments.get(site[0])
        return rule.code in skipped or comment is not None and silencer(comment, rule) is not None
    return settled


def _rules_for_file(path: Path, seen: _Files, transforms: Sequence[Rule], settings: Settings, facts: ModuleFacts,
                    skipped: tuple[str, ...]) -> list[Rule]:
    """The rules the file's bytes pass the prefilter for (a notebook: the Python of its code cells,
    decoded only if its bytes hold a needle). Raises NotebookError for a notebook we cannot read."""
    raw = seen.raw(path)
    if notebook.is_notebook(path):
        key = seen.key(path)
        if key not in seen.notebooks and seen.no_rule_reads(key, raw):
            return []
        raw = _notebook_code(path, raw, seen.notebooks)
    return [rule for rule in rules_for(raw, transforms, settings, facts.holds_kernels) if rule.code not in skipped]


# The project index of the run in progress: modules it parsed are not parsed again; and the
# notebooks it decoded (with the prefilter), not decoded again.
_PROJECT: Optional[ProjectIndex] = None
_NOTEBOOKS: "dict[str, notebook.NotebookSource]" = {}


def index_of_file_run(path: Path, root: Optional[Path], config: "Config", transforms: Sequence[Rule],
                      settings: Settings, unsaved: Optional[bytes] = None) -> Optional[ProjectIndex]:
    """The index `jax-codemod PATH` reads when it runs one file of the project at `root`: what the
    editor, IPython and the libcst and Bowler adapters hand each file they run alone, so that a value
    written in another module is fixed there and a helper XLA code shares is known to be shared.
    `unsaved`: the file's bytes where they are on no disk (an IPython session's cells)."""
    key = os.path.abspath(path)
    files = discovery.project_files(root, config.excluded(), config.notebooks, [Path(key)])
    [(_, files)] = programs([key], files)  # (its own folder's modules first, where others share their names)
    seen = None
    if unsaved is not None:  # (read from here: the index asks no status of a file whose bytes it holds)
        seen = _Files()
        seen.contents[key] = unsaved
    return project_index(files, transforms, settings, seen=seen)


def project_index(files: Sequence[Path], transforms: Sequence[Rule], settings: Settings,
                  cache: Optional[ResultCache] = None, seen: Optional[_Files] = None,
                  pool: Optional[executors.Executor] = None, targets: Optional[Sequence[Path]] = None,
                  ) -> Optional[ProjectIndex]:
    """The cross-module index, when a kernel-scoped rule runs under --scope kernels (otherwise where
    a kernel is launched does not matter), or a rule that follows a call outside kernels (JAX003's
    LSTM) where some module may start its link (`may_start_plain_link`); `explain` and the editor ask
    it for the files they fix.
    `seen`: the run's files, shared so that each file is read, and each notebook decoded, once, and
    an unchanged project's facts come from `cache` without reading its files. `pool`: where the
    modules it has to learn about are summarised, if there are many. `targets`: the files the run
    processes, where they are some of `files` (the value flow then links what their answers need)."""
    if settings.scope is not Scope.KERNELS:
        return None
    seen = _Files() if seen is None else seen
    index = _new_index(files, transforms, settings, seen)
    plain = _following_plainly(transforms)
    if not any(rule.kernel_scoped for rule in transforms) \
            and not (plain and index.may_start_plain_link(lambda raw: any_rule_for(raw, plain, settings))):
        return None  # (JAX003 alone on the trees: only jax's own rnn.py calls the LSTM; no index, no link)
    # What the last run learnt, less what the changed modules may have changed.
    state = cache.project_state(_state_key(index, transforms)) if cache is not None else None
    changed = index.changed(state)
    many = pool is not None and len(changed) >= SUMMARY_MIN_MODULES
    forking = many and pool.local and pool.jobs > 1 and _can_fork()
    cluster = _ClusterProject.of(files, transforms, settings, seen, cache) if many and not pool.local else None
    # (and the calls rules fix outside kernels, JAX003's LSTM: their values cross modules too)
    follows = {name: place for rule in transforms for name, place in rule.follows.items()}

    started = []  # whether the link was started (`restored_and_linked`)

    def restored_and_linked() -> None:
        """Called by the summary as soon as the link's summaries are in (a cold run), or after it:
        the link then runs (in a process of its own, or on a cluster's worker) while the workers
        finish the summary and work out the facts (`_prepare`)."""
        started.append(True)
        index.restore(state, changed)
        # (with no followed call too: the link says which functions other modules' kernels run)
        if forking:
            index.link_flow_elsewhere(follows, targets, pool.fork)
        elif cluster is not None and state is None:  # (a state kept: its link is mostly taken as kept, here)
            index.link_flow_from(_linked_on_cluster(index, follows, targets, cluster, pool))
        else:
            index.link_flow(follows, targets)

    # With a kept state, after the whole summary: restoring reads the changed modules' parts, which
    # its later stages bring (else worked out here), and the kept link is mostly taken as is.
    early = restored_and_linked if state is None else None
    if forking:  # forked at its first task: the index is then in `_SUMMARISING`
        index.summarise(changed, pool.map, early)
    elif cluster is not None and _summarised_on_cluster(index, changed, cluster, pool, early):
        pool.project = cluster  # the facts and the rules go to the workers that hold the parses
    if not started:  # (no summary, a kept state, or a summary a worker's other bytes stopped first)
        restored_and_linked()
    return index


def _following_plainly(transforms: Sequence[Rule]) -> list[Rule]:
    """The rules that follow a call outside kernels (JAX003's LSTM): the link starts from their modules too."""
    return [rule for rule in transforms if rule.follows and not rule.kernel_scoped]


def _new_index(files: Sequence["Path | str"], transforms: Sequence[Rule], settings: Settings, seen: _Files,
               root: Optional[str] = None) -> ProjectIndex:
    """The project index over `files`, reading them through `seen` (this process's, or in a cluster's
    worker the driver's files at the paths they share: `root`, the driver's working directory)."""

    def read(path: str) -> bytes:
        if notebook.is_notebook(path) and index.prefiltered(path) == _NOTHING_TO_READ:
            return b""  # the summary's workers found nothing to decode in it: not read here at all
        try:
            raw = seen.raw(path)
        except (OSError, _NotAFile):
            return b""  # the run reports it when it processes the file; here it is empty
        raw = _indexed(raw)
        return _notebook_kernels(seen.key(path), raw, seen, index.top_names) if notebook.is_notebook(path) \
            else utf8_code(raw)  # the index searches and parses it as UTF-8

    def content(path: Path) -> bytes:
        try:
            return seen.content(path)
        except (OSError, _NotAFile):
            return b""

    def prefilter(path: str) -> Optional[tuple[tuple[str, ...], Optional[tuple[str, ...]]]]:
        """What `_rules_for_file` says of a module, with its facts' holds_kernels false, read and
        tested by the summary's workers; not what it adds where that is true (None): a few files
        hold kernels, whose bytes the main process tests again (`_prepare`), and testing the
        kernel-scoped rules without their gate on every module took more CPU than all the rules
        with it (2.7 s against 2.0 s on the trees), work a run of one job never does. Of a notebook, only
        whether neither the rules nor the index would decode it (_NOTHING_TO_READ: the main process
        then does not read it), else None: the needle searches of thousands of notebooks are most
        of a run over them, and here they take both cores."""
        try:
            raw = seen.raw(path)
        except (OSError, _NotAFile):
            return None  # the main process reports it
        if notebook.is_notebook(path):
            key = seen.key(path)
            decoded = _index_decodes(key, _indexed(raw), seen, index.top_names) or not seen.no_rule_reads(key, raw)
            return None if decoded else _NOTHING_TO_READ
        return tuple(rule.code for rule in rules_for(raw, transforms, settings)), None

    def place(path: str, line: int) -> Optional[str]:
        """A notebook's module line as its own findings name it (`nb.ipynb:cell 3:1`)."""
        from codemods.engine.formats import shown_path  # here: it imports xml.etree, which no other run needs

        try:
            _notebook_code(path, seen.raw(path), seen.notebooks)
        except (OSError, _NotAFile, notebook.NotebookError):
            return None
        cell = seen.notebooks[seen.key(path)].cells.locate(line)
        return f"{shown_path(path)[0]}:cell {cell[0]}:{cell[1]}" if cell is not None else None

    kernel_scoped = [rule for rule in transforms if rule.kernel_scoped]  # the only ones its facts serve
    index = ProjectIndex(files, read, lambda code: any_rule_for(code, kernel_scoped, settings, True), content,
                         prefilter, root, place, kernel_rules=bool(kernel_scoped),
                         plain_follows=bool(_following_plainly(transforms)))
    return index


def _summarised_on_cluster(index: ProjectIndex, changed: set[str], cluster: "_ClusterProject",
                           pool: executors.Executor, then: Optional[Callable[[], None]]) -> bool:
    """`index.summarise` on a cluster's workers (the map stage: each module read, byte-tested,
    prefiltered and summarised there), each worker over an index of its own of the same files,
    read at the paths the nodes share (`_ClusterProject`); whether it all ran there. Where a worker
    reads bytes other than the driver's (a file changed meanwhile), what is left of the stage is
    worked out here, from the driver's bytes, as a run of one job does (the facts are the same:
    see `summarise`), and so are the facts and the rules. `then`: see `summarise`."""
    try:
        index.summarise(changed, lambda function, items: pool.map(function, items, cluster), then)
    except executors.Changed:
        return False  # what the workers answered before is kept: each from the driver's bytes
    return True


def _learn_facts_on_cluster(index: ProjectIndex, files: Sequence[Path], pool: executors.Executor) -> None:
    """`learn_facts_in_workers` on a cluster's workers: each chunk of modules in the worker that
    summarised them, on its parses, after it took what this process joined of the map stage
    (`_Then`: once a worker, whichever runs a chunk). Where a worker reads other bytes, the
    facts are worked out here (`learn_facts`, after)."""
    joined: list[_Then] = []

    def to_each(function: Callable[[bytes], None], item: bytes) -> list:
        joined.append(_Then(pool.project, function, item))
        return []

    try:
        index.learn_facts_in_workers(files, to_each, lambda function, names: pool.map_owned(
            function, names, joined[-1] if joined else pool.project, OWNED_CHUNK))
    except executors.Changed:
        pass


class _Then:
    """A context (`executors.Context`), then `function(item)` once in each worker that enters it:
    what the driver joined of the map stage (`take_joined`), taken into a cluster's worker's index
    before its searches, in a worker that joined later too."""

    def __init__(self, context: "_ClusterProject", function: Callable[[bytes], None], item: bytes) -> None:
        self.context, self.function, self.item = context, function, item
        self.key = context.key + hashlib.sha256(item).hexdigest()

    def enter(self) -> None:
        self.context.enter()
        assert _CLUSTER_INDEX is not None
        if self.key not in _CLUSTER_INDEX[2]:
            self.function(self.item)
            _CLUSTER_INDEX[2].add(self.key)


def _linked_on_cluster(index: ProjectIndex, follows: dict, targets: Optional[Sequence[Path]],
                       cluster: "_ClusterProject", pool: executors.Executor) -> "_LinkOnCluster":
    """The link as one task, on the worker that summarised most of the modules it starts from, handed
    what this process joined of the map stage and the summaries the other workers made: it reads
    and summarises only the modules the link reads on demand, as a local run's forked link does."""
    linker = pool.owner(index.linked())
    item = (follows, [os.path.abspath(target) for target in targets] if targets is not None else None, index.joined(),
            index.made_summaries(name for name in index.linked() if not pool.owns(linker, name)))
    return _LinkOnCluster(index, follows, targets, pool.task(_link_on_cluster, item, cluster, on=linker))


def _link_on_cluster(item: tuple) -> tuple:
    """In a cluster's worker: the link, on its index of the run's files (`ProjectIndex.linked_here`),
    with what the driver joined and the summaries other workers made."""
    assert _CLUSTER_INDEX is not None
    follows, targets, joined, summaries = item
    index = _CLUSTER_INDEX[1]
    take_joined(joined)
    index.take_summaries(summaries)
    return index.linked_here(follows, targets)


class _LinkOnCluster:
    """The link's answers from a cluster's worker (`_link_on_cluster`), as `link_flow_from` reads them;
    made here, from the driver's bytes, where the worker read other bytes (a file changed meanwhile)."""

    def __init__(self, index: ProjectIndex, follows: dict, targets: Optional[Sequence[Path]],
                 answer: "executors.Answer") -> None:
        self._index, self._follows, self._targets, self._answer = index, follows, targets, answer

    def result(self) -> tuple:
        try:
            return self._answer.result()  # type: ignore[return-value]
        except executors.Changed:
            return self._index.linked_here(self._follows, self._targets)


def _indexed(raw: bytes) -> bytes:
    """What the project index reads of a file's bytes: generated code is not analysed
    (MAX_SOURCE_BYTES), and the index does not parse it either."""
    return raw if len(raw) <= MAX_SOURCE_BYTES else b""


def _index_decodes(path: str, raw: bytes, seen: _Files, tops: frozenset[bytes]) -> bool:
    """Whether a notebook may launch a kernel: it says pallas, or jax and one of the project's
    top-level names (`tops`): a kernel launched through a launch helper of the project."""
    return b"jax" in raw and any(top in raw for top in tops) \
        or not seen.silent(path, raw) and notebook.may_need(raw, (KERNEL_MARKER,))


# What the summary's workers answer for a notebook nothing would decode (see `project_index`'s prefilter).
_NOTHING_TO_READ: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())


def _notebook_kernels(path: str, raw: bytes, seen: _Files, tops: frozenset[bytes]) -> bytes:
    """What the project index reads of a notebook: the Python of its code cells if it may launch a
    kernel, else nothing (it is not decoded)."""
    if not _index_decodes(path, raw, seen, tops):
        return b""
    try:
        return _notebook_code(path, raw, seen.notebooks)
    except notebook.NotebookError:
        return b""  # the run reports it when it processes the notebook


def _notebook_code(path: "Path | str", raw: bytes, decoded: dict[str, notebook.NotebookSource]) -> bytes:
    """A notebook's code cells as one module, decoded once per run (`decoded`, by absolute path:
    the prefilter, the project index and the worker that analyses it share the decoding);
    NotebookError when it is not a notebook we read."""
    key = os.path.abspath(path)
    if key not in decoded:
        decoded[key] = notebook.read(Path(path), raw)
    return decoded[key].text.encode()


def _state_key(index: ProjectIndex, transforms: Sequence[Rule]) -> str:
    """Facts depend on the project's modules and on the rules run (their prefilter says what may need a fix)."""
    return index.layout() + "|" + ",".join(rule.code for rule in transforms)


# Larger files are generated code (tables, vendored bundles), not kernels anyone writes by hand:
# parsing one would take seconds and gigabytes for nothing. They are skipped, with a note.
MAX_SOURCE_BYTES = 16 * 1024 * 1024


class _NotAFile(Exception):
    """A path that is not a regular file (a FIFO, a device, a socket): never opened."""


def _read_file(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def _regular(status: os.stat_result) -> None:
    """Raises _NotAFile for what is not a regular file: a FIFO named `x.py` would block a plain read
    forever, so it is never opened."""
    mode = status.st_mode
    if not stat.S_ISREG(mode):
        kind = "a FIFO" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) \
            else "a socket" if stat.S_ISSOCK(mode) else "not a regular file"
        raise _NotAFile(f"{kind}, not read")


# Below this much source the analysis takes less time than starting worker processes (about 1 MB/s
# a core for the ast analysis, against some 50 ms to start a pool): one file, or a handful, run here.
PARALLEL_MIN_BYTES = 256 * 1024


# Fewer modules to learn about than this are summarised here, lazily (see `project_index`): a pool
# costs some 50 ms to start, a module's summary a millisecond or two.
SUMMARY_MIN_MODULES = 100


def _can_fork() -> bool:
    """Whether workers can be forked, inheriting the run's project index and decoded notebooks (see
    _PROJECT): a pool elsewhere (Windows) starts fresh interpreters."""
    import multiprocessing  # here, as below: a run of a few files never pays for it
    return "fork" in multiprocessing.get_all_start_methods()


def _pool(workers: int) -> ProcessPoolExecutor:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork" if _can_fork() else None))


class _Pool:
    """The run's worker processes, started by the project summary's first task (forked then: they
    inherit the index being summarised) and kept for the analysis of the files: a pool costs some
    50 ms to start, and its workers can analyse a file while the main process works out the
    facts of the next. Each worker is a pool of one, so that a module is analysed in the worker
    that summarised it, on the parse the summary kept there (`ProjectIndex.summarise`), unless
    that worker has much more queued than another."""

    local = True  # see executors.Executor
    project = None

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self._workers: list[ProcessPoolExecutor] = []
        self._owners: dict[str, int] = {}  # a module the summary handed to a worker -> that worker
        self._queued = [0] * jobs  # bytes handed to each worker for analysis, not analysed yet
        self._lock = threading.Lock()  # the futures' callbacks update `_queued` from another thread
        self._forked: list[ProcessPoolExecutor] = []  # see `fork`

    @property
    def started(self) -> bool:
        return bool(self._workers)

    def map(self, function: Callable, items: list) -> list:
        """`function` of each item, in order; runs of consecutive items go to the workers in turn, but
        a module an earlier map handed to a worker (an item that names it) goes to that worker,
        which holds its parse (the summary's later stages ask of some modules again; an item names
        a module as `executors.about_module` reads it)."""
        if not self._workers:
            self._workers = [_pool(1) for _ in range(self.jobs)]
            for executor in self._workers:  # each forked now, whether or not this map gives it an item
                executor.submit(int)
        run = max(1, len(items) // (self.jobs * 32))
        modules = [executors.about_module(item) for item in items]
        worker_of = [self._owners.get(module, (position // run) % self.jobs) if module is not None
                     else (position // run) % self.jobs for position, module in enumerate(modules)]
        shares: list[list] = [[] for _ in self._workers]
        for item, module, worker in zip(items, modules, worker_of):
            shares[worker].append(item)
            if module is not None:
                self._owners[module] = worker
        results = [executor.map(function, share, chunksize=run) for executor, share in zip(self._workers, shares)]
        return [next(results[worker]) for worker in worker_of]

    def each(self, function: Callable, item: object) -> list:
        """`function(item)` once in every worker."""
        return [future.result() for future in [executor.submit(function, item) for executor in self._workers]]

    def map_owned(self, function: Callable[[list[str]], list], names: list[str]) -> list:
        """`function(chunk)` of chunks of the modules `names`, each chunk in the worker that
        summarised its modules (a module none did: the workers in turn); the results, one for each
        name, in the order of `names`."""
        shares: list[list[str]] = [[] for _ in self._workers]
        for position, name in enumerate(names):
            shares[self._owners.get(name, position % self.jobs)].append(name)
        chunks = [(worker, share[start:start + OWNED_CHUNK]) for worker, share in enumerate(shares)
                  for start in range(0, len(share), OWNED_CHUNK)]
        futures = [self._workers[worker].submit(function, chunk) for worker, chunk in chunks]
        found = {name: result for (_, chunk), future in zip(chunks, futures)
                 for name, result in zip(chunk, future.result())}
        return [found[name] for name in names]

    def fork(self, function: Callable[[], object]) -> Future:
        """`function()` in a process forked now from this one (it inherits what this one holds, the
        project index), beside the workers: closed with them."""
        forked = _pool(1)
        self._forked.append(forked)
        return forked.submit(function)

    def submit(self, function: Callable, item: object, size: int, module: Optional[str] = None) -> Future:
        """`function(item)` in the worker that summarised `module` if it has at most
        `AFFINITY_SLACK` bytes more queued than the least busy one, else in that one."""
        with self._lock:
            lightest = min(range(self.jobs), key=self._queued.__getitem__)
            owner = self._owners.get(module) if module is not None else None
            worker = owner if owner is not None and self._queued[owner] - self._queued[lightest] <= AFFINITY_SLACK \
                else lightest
            self._queued[worker] += size
        future = self._workers[worker].submit(function, item)
        future.add_done_callback(lambda _: self._analysed(worker, size))
        return future

    def _analysed(self, worker: int, size: int) -> None:
        with self._lock:
            self._queued[worker] -= size

    def __enter__(self) -> "_Pool":
        return self

    def close(self, cancel: bool = False) -> None:
        for executor in self._workers + self._forked:
            executor.shutdown(cancel_futures=cancel)

    def __exit__(self, kind, *_) -> None:
        self.close(cancel=kind is not None)  # an error: what is queued is not run


# Modules a task of `_Pool.map_owned` works out: most of a tree's facts take microseconds, a kernel
# package's searches a second.
OWNED_CHUNK = 64


# How much more source the worker that summarised a module may have queued than the least busy
# worker and still be handed it: its parse is kept there (parsing costs about 0.3 s a MB), but a
# worker that falls behind keeps the other one waiting at the end of the run.
AFFINITY_SLACK = 1 << 20


def _map(function, items: list, jobs: int) -> Iterator[FileResult]:
    """Results in the order of `items` (each `(path, raw, ...)`), each as soon as it and those
    before it are done."""
    if jobs <= 1 or len(items) <= 1 or sum(len(item[1]) for item in items) < PARALLEL_MIN_BYTES:
        yield from map(function, items)
        return
    with _pool(min(jobs, len(items))) as pool:
        # Largest file first: the long analyses start early and the short ones fill the gaps, so no
        # core waits alone on a big module at the end.
        futures: list = [None] * len(items)
        for position in sorted(range(len(items)), key=lambda i: -len(items[i][1])):
            futures[position] = pool.submit(function, items[position])
        for future in futures:
            yield future.result()


def _analysed_here(item: tuple[Path, bytes, Sequence[Rule], Settings, ModuleFacts], index: ProjectIndex,
                   notebooks: "dict[str, notebook.NotebookSource]") -> Future:
    """`_process_candidate` in this process now, its project `index` and the run's decoded `notebooks`
    (see `_prepare`'s `in_turn`)."""
    global _PROJECT, _NOTEBOOKS
    from concurrent.futures import Future  # (as the pool's: a run that needs none never imports it)
    done: Future = Future()
    running = _PROJECT, _NOTEBOOKS
    _PROJECT, _NOTEBOOKS = index, notebooks
    # The collector is paused until every file's facts are known (see `run`). What the file's facts
    # made (the index's memos, the trees it parsed: 3.5 million objects over the trees' 770 files,
    # some 700 of them garbage) is kept for the run: frozen, the collection below does not scan it.
    gc.freeze()
    try:
        done.set_result(_process_candidate(item))
    finally:
        _PROJECT, _NOTEBOOKS = running
    # The cycles of the analysis (an index and its kernel scopes, some 80,000 objects a kernel file)
    # are all that is young here, and freed.
    gc.collect(0)
    return done


def _process_candidate(item: tuple[Path, bytes, Sequence[Rule], Settings, ModuleFacts]) -> FileResult:
    path, raw, rules, settings, facts = item
    return process_source(path, raw, rules, settings, facts=facts, prefiltered=True)


def _process_in_worker(item: tuple[Path, bytes, Sequence[Rule], Settings, ModuleFacts]) -> FileResult:
    """`_process_candidate` in a worker of the run's pool. Before its first file: the worker was
    forked while the main process built the project index with the cyclic collector paused, so
    the collector runs again, never rescanning what the worker inherited (see `_keep_for_the_run`);
    and it yields the CPU to the main process, whose facts for the next files are the run's
    critical path."""
    global _ANALYSING, _PROJECT
    if not _ANALYSING:
        _ANALYSING = True
        _PROJECT = summarised_here()  # the modules the summary parsed here are not parsed again
        gc.freeze()
        gc.enable()
        os.nice(10)
    return _process_candidate(item)


_ANALYSING = False  # in a worker: whether it has analysed a file yet (see _process_in_worker)


def _process_shared(item: tuple[Path, str, bytes, Sequence[Rule], Settings, ModuleFacts, Optional[str]]
                    ) -> Optional[FileResult]:
    """`_process_candidate` in a cluster's worker (executors.py): the file is read at its absolute
    path, which the worker shares with the driver (a checkout on every node, a shared filesystem);
    NotShared where it cannot. None where it reads bytes other than those the driver read (their
    hash: the file changed meanwhile): the driver then analyses the bytes it read, as a local run does."""
    global _PROJECT
    path, key, content, rules, settings, facts, project = item
    raw = _read_shared(key)
    if content_hash(raw) != content:
        return None
    # (the index of the run's project here, where the map stage parsed the file: its parse, not made again;
    # in a worker of several threads another task's may be asked, and answers no parse of other text)
    _PROJECT = _ParseAt(_CLUSTER_INDEX[1], key) if _CLUSTER_INDEX is not None and _CLUSTER_INDEX[0] == project \
        else None  # type: ignore[assignment]
    try:
        return process_source(path, raw, rules, settings, facts=facts, prefiltered=True)
    finally:
        _PROJECT = None


class _ParseAt:
    """A cluster's worker's index as `process_source` asks it for a file's parse: by the absolute path
    the driver read the file at (`key`), whatever this worker's working directory."""

    def __init__(self, index: ProjectIndex, key: str) -> None:
        self._index, self._key = index, key

    def parsed(self, path: "Path | str", text: str) -> Optional[ModuleIndex]:
        return self._index.parsed(self._key, text)


class _ClusterProject:
    """A run's project as a cluster's workers rebuild it (an `executors.Context`, sent to each
    worker once): the files as the driver was given them, the hash of the bytes the driver read
    of each, its working directory, the rules, the settings and the result cache's directory
    (where the whole-program summaries are kept for any node: `SharedSummaries`). A worker keeps
    the index of the last run it worked for."""

    def __init__(self, files: tuple[str, ...], hashes: tuple[bytes, ...], root: str, transforms: Sequence[Rule],
                 settings: Settings, cache_directory: Optional[str]) -> None:
        self.files, self.hashes, self.root = files, hashes, root
        self.transforms, self.settings, self.cache_directory = list(transforms), settings, cache_directory
        self.key = hashlib.sha256(pickle.dumps((files, hashes, root, cache_directory, repr(settings),
                                                [rule.code for rule in transforms]))).hexdigest()

    @classmethod
    def of(cls, files: Sequence["Path | str"], transforms: Sequence[Rule], settings: Settings, seen: _Files,
           cache: Optional[ResultCache]) -> "_ClusterProject":
        """The run's project as the driver read it (`seen`)."""

        def hashed(path: "Path | str") -> bytes:
            try:
                return seen.content(path)
            except (OSError, _NotAFile):
                return b""  # the driver cannot read it: nor may a worker (see `_SharedFiles`)

        return cls(tuple(map(os.fspath, files)), tuple(map(hashed, files)), os.getcwd(), transforms, settings,
                   os.fspath(cache.directory) if cache is not None else None)

    def enter(self) -> None:
        global _CLUSTER_INDEX
        replaced = None
        if _CLUSTER_INDEX is None or _CLUSTER_INDEX[0] != self.key:
            replaced = _CLUSTER_INDEX
            absolute = (os.path.normpath(os.path.join(self.root, path)) for path in self.files)
            index = _new_index(self.files, self.transforms, self.settings,
                               _SharedFiles(dict(zip(absolute, self.hashes))), self.root)
            if self.cache_directory is not None:
                index.share_summaries(SharedSummaries(Path(self.cache_directory)))
            _CLUSTER_INDEX = self.key, index, set()
        summarise_here(_CLUSTER_INDEX[1])
        if replaced is not None:  # the last run's index, frozen by the chunks that built it
            del replaced  # (executors._collector_paused), held by nothing now: its cycles are collected
            gc.unfreeze()
            gc.collect()


# In a cluster's worker: its project's key and index (see `_ClusterProject`), and the keys of the
# `_Then`s it took.
_CLUSTER_INDEX: Optional[tuple[str, ProjectIndex, set[str]]] = None


class _SharedFiles(_Files):
    """In a cluster's worker: the driver's files (by absolute path: the hash of the bytes it read),
    read at the same paths; `executors.Changed` where the bytes are others, NotShared where the
    file cannot be read, and OSError for one the driver could not read either."""

    def __init__(self, hashes: dict[str, bytes]) -> None:
        super().__init__()
        self._driver_hashes = hashes

    def raw(self, path: "Path | str") -> bytes:
        key = self.key(path)
        if key not in self.contents:
            expected = self._driver_hashes.get(key)
            if not expected:
                raise OSError(f"{key}: not read by the driver")
            raw = _read_shared(key)
            if content_hash(raw) != expected:
                raise executors.Changed(key)
            self.contents[key] = raw
        return self.contents[key]

    def content(self, path: "Path | str") -> bytes:
        expected = self._driver_hashes.get(self.key(path))
        if not expected:
            raise OSError(f"{path}: not read by the driver")
        return expected


def _read_shared(key: str) -> bytes:
    """In a cluster's worker: the file at the absolute path `key`, which the nodes share with the
    driver; NotShared where it cannot be read."""
    try:
        return _read_file(key)
    except OSError as error:
        raise executors.NotShared(f"{key} ({error.strerror or error})") from None


def process_source(path: "Path | str", raw: bytes, rules: Sequence[Rule], settings: Settings,
                   proven: Optional[dict[str, frozenset[int]]] = None,
                   accept: Optional[Accept] = None, facts: ModuleFacts = NO_FACTS,
                   prefiltered: bool = False) -> FileResult:
    """prefilter -> parse -> transform -> fix -> verify for one file; nothing is written here.
    `prefiltered`: `rules` already passed the byte test with these facts (the runner's). `path`: a
    str from the runner (its walk keeps strs: Paths for a large tree cost), a Path from the other
    callers; the rules are handed a Path (ParsedFile.path), whoever called.

    The cyclic garbage collector is paused meanwhile: an ast of a large module is a few hundred
    thousand objects, and collections that rescan them all cost a fifth of the analysis."""
    if gc.isenabled():
        with _collector_paused():
            return process_source(path, raw, rules, settings, proven, accept, facts, prefiltered)
    result = FileResult(str(path))
    try:
        settings = settings.for_file(path)  # the floor of the file's own project
    except FloorError as error:
        result.error = str(error)
        return result
    try:  # a notebook is its code cells, as one module (codemods/engine/notebook.py), decoded once a run
        ipynb = (_NOTEBOOKS.get(os.path.abspath(path)) or notebook.read(path, raw)) if notebook.is_notebook(path) else None
    except notebook.NotebookError as error:
        result.error = str(error)
        return result
    # A traceback outranks the byte test; so does a kernel launched from another module.
    python = raw if ipynb is None else ipynb.text.encode()  # a notebook's outputs are not code
    rules = list(rules) if proven or prefiltered else rules_for(python, rules, settings, facts.holds_kernels)
    if not rules:
        return result
    if len(python) > MAX_SOURCE_BYTES:
        result.skipped = f"{len(python) / 2**20:.0f} MiB: larger than {MAX_SOURCE_BYTES // 2**20} MiB, taken for generated code; not analysed"
        return result
    try:
        source = decode(path, raw) if ipynb is None else ipynb
        module = (_PROJECT and _PROJECT.parsed(path, source.text)) or _parse(source.text, facts.through)
        if facts.through and module.through != dict(facts.through):
            # imports read as jax's (ModuleFacts.through): an index of its own, on the same tree
            module = ModuleIndex(module.text, module.tree, dict(facts.through))
    except SourceError as error:
        result.error = str(error) if ipynb is None else ipynb.cells.locate_message(str(error))
        return result
    result.parsed = True
    result.cells = ipynb.cells if ipynb is not None else None
    file = ParsedFile(Path(path), module, settings, proven or {}, facts)
    findings: list[Finding] = []
    checked = [rule for rule in rules if not rule.reviews_suppressions]
    for rule in checked:
        try:
            findings += rule.check(rule, file)
        except Exception as error:  # a bug of ours: report it, never write a half-done file
            return _internal_error(result, f"internal error in {rule.code}: {type(error).__name__}: {error}")
    kept, file.shared[SUPPRESSIONS] = _unsuppressed(findings, checked, source.text, module)
    result.suppressed = len(findings) - len(kept)
    for rule in rules:  # the rules that review the comments, once what they silenced is known
        try:
            kept += rule.check(rule, file) if rule.reviews_suppressions else []
        except Exception as error:
            return _internal_error(result, f"internal error in {rule.code}: {type(error).__name__}: {error}")
    kept.sort(key=Finding.sort_key)
    try:
        for _ in range(2):  # a second time in a notebook, without the fixes that would change IPython syntax
            own = _with_own_edits(kept, source.text, str(path))
            chosen = [(f, alone) for f, alone in own if f.fix is not None and _may_apply(f, settings, accept)]
            code = chosen[0][1] if len(chosen) == 1 else render(
                source.text, merge(f.fix.plan for f, _ in chosen), str(path)) if chosen else source.text
            applied = {id(f) for f, _ in chosen}
            result.findings = [replace(f, fix=f.fix and replace(f.fix, applied=id(f) in applied, plan=None))
                               for f, _ in own]
            if ipynb is None or not _refuse_in_notebook(ipynb.cells, kept, result.findings):
                break
        result.findings.sort(key=Finding.sort_key)  # placed where their fixes are
    except Exception as error:
        return _internal_error(result, f"internal error applying the fix: {type(error).__name__}: {error}")
    if any(f.fix is not None for f in result.findings):  # what the fixes' edits are offsets into
        result.raw, result.encoding = raw, source.encoding
    if code == source.text:
        return result
    problem = _verify(code, source.text, path)
    if problem:
        return _internal_error(result, f"internal error: the rewritten file does not parse ({problem}); left unchanged")
    try:
        new_source = source.encode(code)
    except UnicodeError as error:  # text a fix added that the file's own encoding cannot hold
        return _internal_error(
            result, f"internal error: the rewritten file cannot be encoded as {source.encoding} ({error}); left unchanged")
    except notebook.NotebookError as error:  # fixes that each fit in the notebook but not together
        return _internal_error(result, f"internal error: {error}; left unchanged")
    result.after, result.raw, result.new_source, result.encoding = code, raw, new_source, source.encoding
    return result


def _unsuppressed(findings: list[Finding], rules: Sequence[Rule], text: str,
                  module: ModuleIndex) -> tuple[list[Finding], Used]:
    """The findings no suppression comment silences, and what each comment silenced."""
    used = Used(suppressions(text))
    if not used.comments:
        return list(findings), used
    covers = reach(used.comments, module.calls)
    by_code = {rule.code: rule for rule in rules}
    kept = []
    for finding in findings:
        hit = silencing(finding, by_code[finding.code], used.comments, covers)
        if hit is None:
            kept.append(finding)
        else:
            used.silenced.setdefault(hit[0], set()).add(hit[1])
    return kept, used


def _refuse_in_notebook(cells: notebook.Cells, kept: list[Finding], findings: list[Finding]) -> bool:
    """Turn into [manual] notes (in `kept`) the findings whose fix would change a notebook's IPython
    syntax or span two cells; whether there were any. `findings`: `kept` with their own edits."""
    refused = False
    for index, finding in enumerate(findings):
        why = cells.blocked(finding.fix.edits) if finding.fix is not None else None
        if why is not None:
            kept[index] = replace(kept[index], kind=Kind.MANUAL, fix=None, message=f"{finding.message} (not fixed: {why})")
            refused = True
    return refused


def _may_apply(finding: Finding, settings: Settings, accept: Optional[Accept]) -> bool:
    assert finding.fix is not None
    allowed = finding.fix.applicability is Applicability.SAFE or settings.unsafe_fixes
    return allowed and (accept is None or accept(finding))


def _with_own_edits(findings: list[Finding], text: str, path: str) -> list[tuple[Finding, Optional[str]]]:
    """Each finding with its fix as exact edits: what the fix does alone to the original text (its
    helper and imports included), and that text; its range made the span its fix replaces
    (`fixes.anchor`), before any is chosen, so that `--interactive` accepts what it showed."""
    out: list[tuple[Finding, Optional[str]]] = []
    positions = Positions(text)
    for finding in findings:
        if finding.fix is None:
            out.append((finding, None))
            continue
        assert finding.fix.plan is not None
        alone, edits = rendered_with_edits(text, finding.fix.plan, path)
        placed = anchor(replace(finding, fix=replace(finding.fix, edits=edits)), positions)
        out.append((placed if placed.line == finding.line else replace(placed, silenced_on=finding.line), alone))
    return out


_TOO_COMPLEX = "Python source too complex to parse"


def _parse(text: str, through: tuple[tuple[str, str], ...] = ()) -> ModuleIndex:
    try:
        return ModuleIndex.parse(text, dict(through))
    except SyntaxError as error:
        where = f" (line {error.lineno}, column {error.offset})" if error.lineno else ""
        raise SourceError(f"cannot parse: {error.msg}{where}{_newer_python(text)}") from None
    except (ValueError, RecursionError, MemoryError) as error:  # NUL bytes, absurd nesting
        # some CPython 3.11 builds overflow the parser's stack with a bare MemoryError
        raise SourceError(f"cannot parse: {str(error) or _TOO_COMPLEX}") from None


def _newer_python(text: str) -> str:
    """What to add to the syntax error of a file written for a newer Python than the one the tool
    runs on (pipx and pre-commit install it on their default Python): libcst, which reads the
    grammar of every Python up to 3.14, parses it. Then the message names this interpreter and how
    to install the tool on the newer one; else nothing (a plain syntax error)."""
    if sys.version_info >= (3, 14):
        return ""
    import libcst as cst
    import libcst.matchers as m

    try:
        module = cst.parse_module(text)
    except Exception:  # libcst's ParserSyntaxError (or any failure of its parser): the file is wrong
        return ""
    running = f"Python {sys.version_info.major}.{sys.version_info.minor} ({sys.executable})"
    if sys.version_info < (3, 12) and m.findall(module, m.TypeAlias() | m.TypeParameters()):
        wanted, written = "python3.12", "Python 3.12 syntax (a `type` statement or type parameters)"
    else:
        wanted, written = "python3.X", "the syntax of a newer Python"
    return (f"; it is {written}, and jax-codemod runs on {running}: install it on the project's Python "
            f"(`pipx install --python {wanted} ...`; pre-commit: `language_version: {wanted}`)")


def _internal_error(result: FileResult, message: str) -> FileResult:
    result.error = message
    result.findings.clear()
    return result


def _verify(code: str, original: str, path: Path) -> Optional[str]:
    """Why the rewritten code does not parse: compile() must take it, and libcst too, unless libcst
    already could not read the original (its tokenizer rejects some legal files, such as a form feed
    before a nested block: there compile() alone decides)."""
    import libcst as cst  # only files with a fix get here

    try:
        with warnings.catch_warnings():  # the user's own code may warn (invalid escapes): not ours to say
            warnings.simplefilter("ignore")
            compile(code, str(path), "exec", dont_inherit=True)
        try:
            cst.parse_module(code)
        except cst.ParserSyntaxError:
            if _libcst_parses(original):
                raise
    except (cst.ParserSyntaxError, SyntaxError, ValueError, RecursionError, MemoryError) as error:
        return f"{type(error).__name__}: {error}" if isinstance(error, (RecursionError, MemoryError)) else str(error)
    return None


def _libcst_parses(code: str) -> bool:
    import libcst as cst

    try:
        cst.parse_module(code)
    except (cst.ParserSyntaxError, RecursionError):
        return False
    return True


def write(result: FileResult) -> None:
    """Write a changed file, unless it changed on disk since we read it (then report, write nothing)."""
    path = Path(result.path)
    assert result.new_source is not None
    try:
        if path.read_bytes() != result.raw:
            result.error = "changed on disk during the run; not written"
            return
        if not os.stat(path).st_mode & 0o222:
            result.error = "cannot write: the file is read-only (no write permission bit); not written"
            return
        write_atomically(path, result.new_source)
    except OSError as error:
        result.error = f"cannot write: {error.strerror or error}"


def write_ignores(result: FileResult) -> list[int]:
    """`--add-noqa`: write a suppression comment naming its codes on the line of each of the
    file's findings (nothing else changes); the lines that could not take one. A failure is the
    result's error, as `write`'s."""
    path = Path(result.path)
    codes: dict[int, set[str]] = {}
    for finding in result.findings:
        codes.setdefault(finding.comment_line, set()).add(finding.code)
    try:
        raw = path.read_bytes()
        source = notebook.read(path, raw) if notebook.is_notebook(path) else decode(path, raw)
        text, refused = with_ignores(source.text, codes)
        if text != source.text:
            result.raw, result.new_source = raw, source.encode(text)
            write(result)
    except OSError as error:
        result.error = f"cannot read: {error.strerror or error}"
    except (SourceError, UnicodeError) as error:
        result.error = f"cannot add the suppression comments: {error}"
    return refused if result.error is None else []


def default_jobs() -> int:
    return os.cpu_count() or 1
