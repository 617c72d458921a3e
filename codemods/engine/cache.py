"""Results of earlier runs, by file content: an unchanged file is not analysed again, nor read.

Pre-commit hooks, editors and monorepo CI run the tool over files that have not changed since
the last run; as in Ruff, the analysis of each such file is looked up instead of redone. An entry
is keyed by everything the result depends on: a hash of the file's bytes, the options (target jax,
scope, policy, helpers module), the jax floor of the file's own project, the rules run, this
Python's version (its parser decides what parses) and a fingerprint of the tool's own source and
of libcst's version (libcst lays out argument-list edits). Paths are not in the key: the result
does not depend on them, so a moved file hits.

A warm run reads no file that has not changed (`FileMemo`): what a run learnt about each path
(its size and modification time, its content hash, the rules its bytes passed with the facts that
decided them) is kept in one manifest per settings, as git's index and Ruff's cache do. A file
whose size or mtime differs, or whose mtime was too recent to trust when it was recorded (the
same second as the run: an edit in that second would leave it unchanged), is read and hashed.
A run over the same files as an earlier one, none of them changed, replays that run's results
(`RunRecord`) without looking further. `trust_mtime=False` keys everything by content alone.

The project's cross-module facts are kept too, one entry per project layout
(ProjectIndex.state, in marshal), with what each fact read: an edit recomputes the facts it can
change. The manifest is saved under a lock, so runs at the same time lose none of its entries.

Entries are small files (JSON; the project state and the manifest in marshal) written atomically under `$JAX_CODEMOD_CACHE_DIR`, else
`$XDG_CACHE_HOME/jax-codemod`, else `~/.cache/jax-codemod`; `--no-cache` bypasses them and
`jax-codemod clean` removes them (deleting the folder is always safe). Only a run's analysis is cached, never a write.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import marshal
import os
import stat
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Callable, Iterator, NamedTuple, Optional, Sequence

from codemods.analysis.kernel_scope import NO_FACTS, ModuleFacts
from codemods.analysis.flow.summary import ModuleSummary, as_data, from_data
from codemods.analysis.kept_summaries import KeptSummaries
from codemods.analysis.project import ProjectState
from codemods.capabilities import Version, installed_version
from codemods.engine import notebook
from codemods.engine.diagnostics import Applicability, Finding, Fix, Kind, TextEdit
from codemods.engine.report import FileResult
from codemods.engine.rule import Rule
from codemods.settings import Settings

FORMAT = 13  # bump when the entry layout changes


def default_directory() -> Path:
    configured = os.environ.get("JAX_CODEMOD_CACHE_DIR")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base, "jax-codemod")


# What the cache writes, and nothing else: `clean` removes only these (the folder may be one a user
# pointed $JAX_CODEMOD_CACHE_DIR at, holding other files).
_ENTRY_SUFFIXES = (".json", ".project", ".summaries", ".files", ".run", ".summary", ".lock", ".tmp")


def clean(directory: Path) -> tuple[int, int, list[Path]]:
    """Remove the cache's entries under `directory`: (files removed, their bytes, what was left,
    not being the cache's). Folders left empty go too."""
    removed, size, left = 0, 0, []
    if not directory.is_dir():
        return removed, size, left
    for folder in sorted(directory.iterdir()):
        if not (folder.is_dir() and not folder.is_symlink() and len(folder.name) == 2
                and all(c in "0123456789abcdef" for c in folder.name)):
            left.append(folder)
            continue
        for entry in sorted(folder.iterdir()):
            if entry.is_file() and not entry.is_symlink() and entry.suffix in _ENTRY_SUFFIXES:
                size += entry.stat().st_size
                entry.unlink()
                removed += 1
            else:
                left.append(entry)
        if not any(folder.iterdir()):
            folder.rmdir()
    if not any(directory.iterdir()):
        directory.rmdir()
    return removed, size, left


@functools.lru_cache(maxsize=None)
def tool_fingerprint() -> str:
    """A hash of the tool's source files, this Python's version and libcst's version."""
    digest = hashlib.sha256(f"{FORMAT}\0{sys.version}\0{installed_version('libcst')}".encode())
    package = Path(__file__).resolve().parents[1]
    for path in sorted(package.rglob("*.py")):
        digest.update(str(path.relative_to(package)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


class ResultCache:
    def __init__(self, directory: Path, settings: Settings, trust_mtime: bool = True) -> None:
        """`trust_mtime=False` (`--no-trust-mtime`): where a file can change and keep its size and
        mtime (a checkout or copy that restores mtimes), every file is read and hashed, and no
        run is replayed; unchanged files are still not analysed again."""
        self.directory = directory
        self.trust_mtime = trust_mtime
        self._salt = hashlib.sha256(f"{tool_fingerprint()}\0{settings!r}".encode()).digest()
        self._summaries_read: dict[str, str] = {}  # layout -> the `.summaries` entry its state named when read

    def _entry(self, content: bytes, rules: Sequence[Rule], facts: ModuleFacts, floor: Optional[Version] = None) -> Path:
        # The project's facts about this module are part of what its result depends on: an edit in
        # the module that launches its kernels changes them, and so the key; and so does the floor of
        # its own project (Settings.for_file: a monorepo's projects each declare theirs).
        codes = ",".join(rule.code for rule in rules).encode()
        key = hashlib.sha256(self._salt + codes + b"\0" + facts_key(facts).encode() + b"\0" + repr(floor).encode()
                             + b"\0" + content).hexdigest()
        return self.directory / key[:2] / f"{key[2:]}.json"

    def get(self, path: Path, content: bytes, rules: Sequence[Rule], facts: ModuleFacts,
            read: Callable[[], bytes], floor: Optional[Version] = None) -> Optional[FileResult]:
        """The result of an earlier run of `rules` over the bytes whose hash is `content`, under the
        jax floor `floor`, if there was one. `read()` gives the bytes, asked only for a result with a
        fix (its edits are offsets into them)."""
        try:
            return _result_of(path, json.loads(self._entry(content, rules, facts, floor).read_text(encoding="utf-8")),
                              read)
        except (OSError, ValueError):
            return None  # missing or unreadable: analyse again

    def project_state(self, layout: str) -> Optional[ProjectState]:
        """What the last run over a project with this layout learnt (ProjectIndex.state)."""
        try:
            data = marshal.loads(self._project_entry(layout).read_bytes())
            contents, facts, parts, tables, table_dependencies, (summary_hashes, summaries), flow, imports = data
            if not isinstance(summary_hashes, dict) or not isinstance(summaries, str) \
                    or not all(isinstance(summary_hash, bytes) for summary_hash in summary_hashes.values()):
                raise ValueError("not kept summaries")
            self._summaries_read[layout] = summaries
            # One ModuleFacts per distinct entry (28 for the trees' 6,834 modules, most of them none): the
            # facts are frozen, and making each module's was a tenth of the load.
            made: dict[tuple, ModuleFacts] = {}
            return ProjectState(contents, {name: (made.get(entry) or made.setdefault(entry, ModuleFacts(*entry)),
                                                  frozenset(dependencies))
                                           for name, (entry, dependencies) in facts.items()},
                                parts, tables, frozenset(table_dependencies),
                                KeptSummaries(summary_hashes, path=os.fspath(self.directory / summaries) if summaries else None),
                                flow, imports)
        except (OSError, ValueError, EOFError, TypeError, AttributeError, LookupError):
            return None  # none, unreadable or of another shape: the project is analysed afresh

    def store_project_state(self, layout: str, state: ProjectState) -> None:
        """Keep `state` for the next run (marshal: plain data, fast to load for thousands of
        modules, and no code runs when it is read, unlike pickle). Sets of dependencies are kept as
        tuples: marshal sorts a frozenset's items to write it (13 times the time of a tuple's, most
        of a one-file run's store on a tree of thousands of modules). The summaries' blob is a
        `.summaries` entry of its own, named by the summary hashes it holds, which the state names:
        written only where a summary changed, and read only where one is asked for (KeptSummaries;
        two thirds of the state's bytes on the trees). The one the state named before goes then."""
        facts = {name: ((f.kernels, f.shared, f.launchers, f.through, f.read_elsewhere, f.precision_wrappers),
                        tuple(dependencies))
                 for name, (f, dependencies) in state.facts.items()}
        kept = state.summaries
        if kept.blob:
            summaries = self._summaries_name(kept.hashes)
            if not (self.directory / summaries).is_file():
                self._write_bytes(self.directory / summaries, kept.blob)
        else:  # as read (or none)
            summaries = os.path.relpath(kept.path, self.directory) if kept.path is not None else ""
        data = (state.contents, facts, state.parts, state.tables, tuple(state.table_dependencies),
                (kept.hashes, summaries), state.flow, state.imports)
        self._write_bytes(self._project_entry(layout), marshal.dumps(data))
        before = self._summaries_read.get(layout)
        if before and before != summaries:
            with contextlib.suppress(OSError):  # (a run reading it meanwhile makes its summaries again)
                (self.directory / before).unlink()

    def _summaries_name(self, hashes: dict[str, bytes]) -> str:
        """The `.summaries` entry of the summaries with these hashes (relative to the directory)."""
        digest = hashlib.sha256(self._salt + b"summaries\0")
        for name, summary_hash in sorted(hashes.items()):
            digest.update(name.encode() + b"\0" + summary_hash + b"\0")
        key = digest.hexdigest()
        return os.path.join(key[:2], f"{key[2:]}.summaries")

    def _project_entry(self, layout: str) -> Path:
        key = hashlib.sha256(self._salt + b"project\0" + layout.encode()).hexdigest()
        return self.directory / key[:2] / f"{key[2:]}.project"

    def put(self, content: bytes, rules: Sequence[Rule], result: FileResult, facts: ModuleFacts = NO_FACTS,
            floor: Optional[Version] = None) -> None:
        """Store a result (`content`: the hash of the file's bytes; `floor`: the file's jax floor); a
        cache that cannot be written is no reason to fail a run."""
        self._write(self._entry(content, rules, facts, floor), _data_of(result))

    @staticmethod
    def _write(entry: Path, data: object) -> None:
        """Write a JSON entry atomically; a cache that cannot be written is no reason to fail a run."""
        ResultCache._write_bytes(entry, json.dumps(data).encode())

    @staticmethod
    def _write_bytes(entry: Path, data: bytes) -> None:
        import tempfile  # here: a run that writes nothing (`--no-cache`) never imports it (nor random)

        try:
            entry.parent.mkdir(parents=True, exist_ok=True)
            fd, temporary = tempfile.mkstemp(dir=entry.parent, suffix=".tmp")
        except OSError:
            return
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(temporary, entry)
        except OSError:
            Path(temporary).unlink(missing_ok=True)


class SharedSummaries:
    """Whole-program summaries (analysis/flow/summary.py) in the result cache's directory, by the
    hash of a module's bytes, its name, whether it is a package and the tool's fingerprint (what a
    summary is a function of: no path, no project), for a cluster's workers: where the directory is
    on a filesystem the nodes share, a summary any node made is every node's, in any run
    (`ProjectIndex.share_summaries`). Each is a small marshal file (`.summary`), written atomically;
    `jax-codemod clean` removes them with the rest."""

    def __init__(self, directory: Path) -> None:
        self._directory = directory
        self._salt = hashlib.sha256(f"{tool_fingerprint()}\0summary\0".encode()).digest()

    def made(self, content: bytes, name: str, is_package: bool,
             make: Callable[[], "Optional[ModuleSummary]"]) -> "Optional[ModuleSummary]":
        key = hashlib.sha256(self._salt + content + f"\0{name}\0{is_package}".encode()).hexdigest()
        entry = self._directory / key[:2] / f"{key[2:]}.summary"
        try:
            data = marshal.loads(entry.read_bytes())
            return None if data is None else from_data(data)
        except (OSError, ValueError, EOFError, TypeError):
            summary = make()  # none kept, or of another shape
            ResultCache._write_bytes(entry, marshal.dumps(None if summary is None else as_data(summary)))
            return summary


def _data_of(result: FileResult) -> dict:
    """What an entry keeps of a result: not its bytes (a fix's are read again when it is replayed)."""
    return {"parsed": result.parsed, "error": result.error, "encoding": result.encoding, "suppressed": result.suppressed,
            "skipped": result.skipped, "after": result.after if result.new_source is not None else None,
            "findings": [_entry_of(f) for f in result.findings]}


_NOTHING = _data_of(FileResult(""))  # a file with no finding, no change and no error


def _result_of(path: "Path | str", data: dict, read: Callable[[], bytes]) -> FileResult:
    """The result an entry keeps, for the file at `path`; `read()` gives its bytes, asked only
    for a result with a fix (its edits are offsets into them). ValueError for an entry of
    another shape, or a notebook that no longer reads."""
    try:
        findings = [_finding(f) for f in data["findings"]]
        after = data["after"]
        has_fix = any(f.fix is not None for f in findings)
        # A notebook's findings are placed in its cells; a fixed module goes back into them
        # (codemods/engine/notebook.py).
        cells = notebook.is_notebook(path) and data["parsed"] and bool(findings)
        raw = read() if has_fix or cells else b""
        ipynb = notebook.read(path, raw) if cells else None
        new_source = None if after is None else ipynb.encode(after) if ipynb else after.encode(data["encoding"])
        return FileResult(str(path), parsed=data["parsed"], new_source=new_source, raw=raw if has_fix else b"",
                          after=after or "", findings=findings, error=data["error"], encoding=data["encoding"],
                          suppressed=data["suppressed"], skipped=data["skipped"],
                          cells=ipynb.cells if ipynb is not None else None)
    except (KeyError, TypeError, LookupError, AttributeError, notebook.NotebookError) as error:
        raise ValueError(f"not a result entry: {error}") from error


def content_hash(raw: bytes) -> bytes:
    return hashlib.sha256(raw).digest()


def facts_key(facts: ModuleFacts) -> str:
    return _NO_FACTS_KEY if facts is NO_FACTS else json.dumps(_facts_entry(facts))  # most modules': NO_FACTS


class Known(NamedTuple):
    """What a run learnt about one file: trusted while its size and mtime are what they were. A
    named tuple: a warm run over a large tree reads one for each of thousands of files (a frozen
    dataclass's each cost as much as reading the manifest)."""

    size: int
    mtime_ns: int
    content: bytes  # sha256 of its bytes
    facts: str  # facts_key of the facts its rules were chosen with
    skipped: tuple[str, ...]  # the codes per-file-ignores took off it
    rules: tuple[str, ...]  # the codes its bytes passed the prefilter for


class FileMemo:
    """The manifest of a warm run (see the module's docstring): one marshal file per settings and
    rule set (a large tree's thousands of entries read in a third of JSON's time), read once,
    written once at the end of a run, merged with what another run wrote meanwhile (two
    concurrent runs lose no entry of their own, and corrupt nothing: the write is atomic)."""

    def __init__(self, directory: Path, settings: Settings, rules: Sequence[Rule]) -> None:
        salt = f"{tool_fingerprint()}\0{settings!r}\0" + ",".join(rule.code for rule in rules)
        key = hashlib.sha256(salt.encode()).hexdigest()
        self._path = directory / key[:2] / f"{key[2:]}.files"
        # Entries whose mtime is at or after this (less a second for coarse filesystems) are not trusted.
        self._started_ns = time.time_ns() - 1_000_000_000
        self._known = self._load()
        self._learnt: dict[str, Known] = {}

    def _load(self) -> dict[str, Known]:
        try:
            return {path: Known(*entry) for path, entry in marshal.loads(self._path.read_bytes()).items()}
        except (OSError, ValueError, EOFError, TypeError, AttributeError):  # AttributeError: not a dict
            return {}

    def lookup(self, path: str, status: os.stat_result) -> Optional[Known]:
        known = self._known.get(path)
        if known is not None and known.size == status.st_size and known.mtime_ns == status.st_mtime_ns:
            return known
        return None

    def learn(self, path: str, status: os.stat_result, known: Known, replace: bool = True) -> None:
        """Record `known` for the next run, unless the file's mtime is too recent to trust.
        `replace=False`: unless the run already learnt something of it."""
        if status.st_mtime_ns < self._started_ns and self._known.get(path) != known \
                and (replace or path not in self._learnt):
            self._learnt[path] = known

    def save(self) -> None:
        """Merge what this run learnt into the manifest on disk. The read and the write are one
        step under a lock, so that a run saving at the same time loses none of its entries."""
        if not self._learnt:
            return
        with _locked(self._path.with_suffix(".lock")):
            merged = {**self._load(), **self._learnt}
            ResultCache._write_bytes(self._path, marshal.dumps({path: tuple(known) for path, known in merged.items()}))


class RunRecord:
    """A whole run's results, replayed while none of its files, nor of its project, has changed.

    A warm run over an unchanged tree (a CI job with a restored cache, pre-commit on a clean tree)
    then stats each file and stops: no project index, no manifest, no per-file entry is read.
    The record is keyed by the settings, the rules, the folder and the files named (so another
    set of files, a shard or a PR's changes, has its own); it holds each file's size, mtime, the
    codes `per-file-ignores` takes off it and the jax floor of its project (a sub-project's
    pyproject.toml can change it while no file named changes), and is trusted only if every mtime was older than
    the recording run's start (less a second: an edit in the same second as the run could leave
    both unchanged). Any difference and the run goes the usual way, file by file."""

    def __init__(self, cache: ResultCache, rules: Sequence[Rule], files: Sequence["Path | str"],
                 project: Sequence["Path | str"], skipped: Callable[["Path | str"], frozenset[str]],
                 floor: Callable[[str], Optional[Version]] = lambda path: None) -> None:
        self._files = list(map(os.fspath, files))
        self._project = self._files if project is files else list(map(os.fspath, project))
        self._skipped = skipped
        self._floor = floor  # a file's jax floor (Settings.floor); raises ValueError where it cannot be read
        # Each file's status, by its path as given, stat'ed once: `replay` and `store` share it, and
        # so does the run (`_Files`). Taken before the run reads the file, so that an edit after it
        # shows as a change next time.
        self.statuses: dict[str, os.stat_result] = {}
        named = "\0".join([os.getcwd(), *self._files, "", *self._project])
        key = hashlib.sha256(cache._salt + ",".join(rule.code for rule in rules).encode() + b"\0"
                             + named.encode("utf-8", "surrogateescape")).hexdigest()
        self._path = cache.directory / key[:2] / f"{key[2:]}.run"
        self._started_ns = time.time_ns() - 1_000_000_000

    def _stamps(self) -> Optional[list[tuple]]:
        """Each file's (size, mtime, skipped codes, floor), the project's after the run's; None if one
        is missing or not a regular file, or a floor cannot be read (the usual way reports it)."""
        stamps: list[tuple] = []
        try:
            for path in self._files:
                status = self._status(path)
                if not stat.S_ISREG(status.st_mode):
                    return None
                codes = self._skipped(path)
                stamps.append((status.st_size, status.st_mtime_ns, ",".join(sorted(codes)) if codes else "",
                               self._floor(path)))
            for path in () if self._project is self._files else self._project:
                status = self._status(path)
                stamps.append((status.st_size, status.st_mtime_ns))
        except (OSError, ValueError):  # ValueError: a floor that cannot be read (FloorError)
            return None
        return stamps

    def _status(self, path: str) -> os.stat_result:
        status = self.statuses.get(path)
        if status is None:
            status = self.statuses[path] = os.stat(path)
        return status

    def replay(self, read: Callable[[str], bytes]) -> Optional[list[FileResult]]:
        """The recorded results, in the files' order, if nothing has changed; else None. `read(path)`
        gives a file's bytes, asked only for a result with a fix (as in `ResultCache.get`)."""
        try:
            stamps, kept = marshal.loads(self._path.read_bytes())
        except (OSError, ValueError, EOFError, TypeError):
            return None
        if stamps != self._stamps():
            return None
        results = [FileResult(path) for path in self._files]
        try:
            for position, data in kept:
                path = self._files[position]
                results[position] = _result_of(path, data, lambda: read(path))
        except (OSError, ValueError, TypeError, IndexError):
            return None
        return results

    def store(self, results: Sequence[FileResult]) -> None:
        """Record `results` (one per file, in order), unless a file's mtime is too recent to trust or
        a file failed (a read refused for want of permission: a chmod leaves the mtime as it was)."""
        stamps = self._stamps()
        if stamps is None or len(results) != len(self._files) or any(result.error for result in results) \
                or any(stamp[1] >= self._started_ns for stamp in stamps):
            return
        kept = [(position, data) for position, data in enumerate(map(_data_of, results)) if data != _NOTHING]
        try:
            ResultCache._write_bytes(self._path, marshal.dumps((stamps, kept)))
        except ValueError:  # a finding field marshal cannot hold: no record, the per-file cache still has it
            return


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock on `path` (created) while the block runs, where the system has one
    (fcntl); a cache that cannot be locked is written unlocked, as it was: atomically."""
    try:
        import fcntl
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path, "a+b")
    except (ImportError, OSError):
        yield
        return
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def _facts_entry(facts: ModuleFacts) -> dict:
    return {"kernels": [[name, sorted(backends), why, role] for name, backends, why, role in facts.kernels],
            "shared": sorted(facts.shared),
            "launchers": [[name, position, keyword, sorted(backends)] for name, position, keyword, backends in facts.launchers],
            "through": [list(pair) for pair in facts.through],
            "read_elsewhere": [[name, list(readers)] for name, readers in facts.read_elsewhere],
            "precision_wrappers": [[name, position, keyword, sorted(backends), plain]
                                   for name, position, keyword, backends, plain in facts.precision_wrappers],
            "flow": facts.flow.as_data(), "x64_elsewhere": list(facts.x64_elsewhere)}


_NO_FACTS_KEY = json.dumps(_facts_entry(NO_FACTS))


def _entry_of(finding: Finding) -> dict:
    entry = {**asdict(finding), "kind": finding.kind.value}
    if finding.fix is not None:
        entry["fix"] = {"applicability": finding.fix.applicability.value, "applied": finding.fix.applied,
                        "edits": [[e.start, e.end, e.content] for e in finding.fix.edits]}
    return entry


def _finding(entry: dict) -> Finding:
    fix = entry.pop("fix")
    if fix is not None:
        fix = Fix(Applicability(fix["applicability"]), tuple(TextEdit(*e) for e in fix["edits"]), fix["applied"])
    return Finding(**{**entry, "kind": Kind(entry["kind"]), "fix": fix})
