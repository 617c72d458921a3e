"""What both adapters share: the default target release, and running the engine on one file's bytes."""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence, Union

from codemods.capabilities import Version, installed_jax_version, parse_version
from codemods.engine.report import FileResult
from codemods.engine.runner import process_source
from codemods.engine.rule import Rule
from codemods.settings import Settings


class InteropError(RuntimeError):
    """The engine failed on a file it could read (a bug of ours): the runner reports it, nothing is written."""


def target_version(value: Union[str, Version, None]) -> Optional[Version]:
    """`--jax-version` as given (text or tuple), else the installed jax."""
    if value is None:
        return installed_jax_version()
    return parse_version(value) if isinstance(value, str) else tuple(value)


def rewrite(filename: Optional[str], raw: bytes, rules: Sequence[Rule], settings: Settings) -> FileResult:
    """The engine's result for one file; raises InteropError on an internal error (never on bad input:
    a file the engine cannot decode or parse comes back with `.error` set and `.parsed` False)."""
    result = process_source(Path(filename or "<stdin>"), raw, rules, settings)
    if result.error is not None and result.parsed:
        raise InteropError(f"jax-codemod: {result.path}: {result.error}")
    return result
