"""Stages 2-6 for each file: prefilter -> parse -> transform -> verify; then writing.

Files are read once in the main process; the few that pass the byte prefilter are parsed and
transformed in worker processes (libcst parsing is CPU-bound). A file whose transform fails, or
whose new source does not parse, is reported and left untouched.
"""

from __future__ import annotations

import difflib
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Sequence

from codemods.engine.discovery import discover
from codemods.engine.prefilter import select_for_file, summarize
from codemods.engine.report import FileResult, Finding
from codemods.engine.source import SourceError, decode, write_atomically
from codemods.settings import Settings

if TYPE_CHECKING:
    from codemods.rules import Rule


def run(
    paths: Iterable[Path], transforms: Sequence[Rule], settings: Settings, jobs: int
) -> list[FileResult]:
    """Results for every discovered file, in discovery order."""
    results: list[FileResult] = []
    candidates: list[tuple[int, Path, bytes, list[Rule]]] = []
    for path in discover(paths):
        try:
            raw = path.read_bytes()
        except OSError as error:
            results.append(FileResult(str(path), error=f"cannot read: {error.strerror or error}"))
            continue
        results.append(FileResult(str(path)))
        rules = [rule for rule in transforms if rule.might_apply(raw, settings)]
        if rules:  # the ast prefilter runs in the workers, spread over the cores
            candidates.append((len(results) - 1, path, raw, rules))
    for index, result in zip(
        (index for index, _, _, _ in candidates),
        _map(_process_candidate, [(p, raw, rules, settings) for _, p, raw, rules in candidates], jobs),
    ):
        results[index] = result
    return results


def _map(function, items: list, jobs: int) -> Iterable:
    if jobs <= 1 or len(items) <= 1:
        return map(function, items)
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    with ProcessPoolExecutor(min(jobs, len(items)), mp_context=context) as pool:
        return list(pool.map(function, items, chunksize=1))


def _process_candidate(item: tuple[Path, bytes, Sequence[Rule], Settings]) -> FileResult:
    return process_source(*item)


def worth_parsing(raw: bytes, rules: Sequence[Rule], settings: Settings) -> list[Rule]:
    """The rules that survive both prefilters (bytes, then the stdlib ast) for this file."""
    rules = [rule for rule in rules if rule.might_apply(raw, settings)]
    return select_for_file(rules, summarize(raw), settings) if rules else []


def process_source(
    path: Path, raw: bytes, transforms: Sequence[Rule], settings: Settings
) -> FileResult:
    result = FileResult(str(path))
    transforms = worth_parsing(raw, transforms, settings)
    if not transforms:
        return result
    import libcst as cst  # only now: most runs never need it
    from libcst.codemod import CodemodContext

    try:
        source = decode(path, raw)
        module = cst.parse_module(source.text)
    except SourceError as error:
        result.error = str(error)
        return result
    except cst.ParserSyntaxError as error:
        result.error = f"cannot parse: {error.message} (line {error.raw_line}, column {error.raw_column + 1})"
        return result
    result.parsed = True
    code = source.text
    stages: list[list[tuple[str, int, int, int]]] = []  # opcodes mapping each stage back to its input
    parsed = module  # straight from the parser: no node object appears twice in it
    for rule in transforms:
        transform = rule.load()(CodemodContext(filename=str(path)), settings)
        transform.unique_nodes = module is parsed
        try:
            new_module = transform.transform_module(module)
        except Exception as error:  # a bug of ours: report it, never write a half-done file
            result.error = f"internal error in {rule.code}: {type(error).__name__}: {error}"
            result.findings.clear()
            return result
        result.findings.extend(_map_back(f, stages) for f in transform.findings)
        if new_module is not module:  # the same object back: nothing changed, skip printing it
            new_code = new_module.code
            if new_code != code:
                stages.append(_line_opcodes(new_code, code))
                code = new_code
        module = new_module
    if code == source.text:
        return result
    try:
        cst.parse_module(code)
        if _compiles(source.text, path):  # this Python may not know newer syntax the file uses
            compile(code, str(path), "exec", dont_inherit=True)
    except (cst.ParserSyntaxError, SyntaxError, ValueError) as error:
        result.error = f"internal error: the rewritten file does not parse ({error}); left unchanged"
        result.findings.clear()
        return result
    result.before, result.after, result.raw, result.new_source = source.text, code, raw, source.encode(code)
    return result


def _compiles(code: str, path: Path) -> bool:
    try:
        compile(code, str(path), "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def _line_opcodes(new: str, old: str) -> list[tuple[str, int, int, int]]:
    matcher = difflib.SequenceMatcher(None, new.splitlines(), old.splitlines(), autojunk=False)
    return [(tag, i1, i2, j1) for tag, i1, i2, j1, _ in matcher.get_opcodes()]


def _map_back(finding: Finding, stages: list[list[tuple[str, int, int, int]]]) -> Finding:
    """Report positions in the file as the user wrote it, not as an earlier transform left it."""
    line = finding.line
    for opcodes in reversed(stages):
        for tag, i1, i2, j1 in opcodes:
            if i1 <= line - 1 < i2:
                line = j1 + (line - 1 - i1 if tag == "equal" else 0) + 1
                break
    return finding if line == finding.line else replace(finding, line=line)


def write(result: FileResult) -> None:
    """Write a changed file, unless it changed on disk since we read it (then report, write nothing)."""
    path = Path(result.path)
    assert result.new_source is not None
    try:
        if path.read_bytes() != result.raw:
            result.error = "changed on disk during the run; not written"
            return
        write_atomically(path, result.new_source)
    except OSError as error:
        result.error = f"cannot write: {error.strerror or error}"


def default_jobs() -> int:
    return os.cpu_count() or 1
