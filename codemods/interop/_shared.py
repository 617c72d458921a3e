"""What both adapters share: the project's settings and index for a file, and running the engine on its bytes."""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Optional, Sequence

from codemods import config as project_config
from codemods.analysis.kernel_scope import NO_FACTS, ModuleFacts
from codemods.analysis.project import ProjectIndex, facts_of
from codemods.engine.runner import index_of_file_run, process_source
from codemods.engine.report import FileResult
from codemods.engine.rule import Rule
from codemods.registry import RULES
from codemods.settings import Settings


class InteropError(RuntimeError):
    """The engine failed on a file it could read (a bug of ours), or the project's config is wrong:
    the runner reports it, nothing is written."""


@functools.lru_cache(maxsize=None)
def _config_of_folder(folder: str) -> project_config.Config:
    return project_config.load(project_config.find([Path(folder)]), RULES)


def project_choices(filename: Optional[str], rules: Sequence[Rule], **given) -> tuple[list[Rule], Settings]:
    """The rules and settings `jax-codemod fix` would use on `filename`: the `[tool.jax-codemod]`
    config found from the file's folder, with `given` (the adapter's own arguments, as for
    `config.resolve`) winning, and the config's per-file-ignores applied. `rules` narrower than
    every rule is the adapter's selection (a libcst command for one rule). Raises InteropError."""
    path = Path(os.path.abspath(filename or "."))
    try:
        config = _config_of_folder(str(path if path.is_dir() else path.parent))
        select = given.pop("select", ()) or ([rule.code for rule in rules] if set(rules) != set(RULES) else ())
        chosen, settings = project_config.resolve(config, RULES, select=select, **given)
    except (project_config.ConfigError, ValueError) as error:
        raise InteropError(f"jax-codemod: {error}") from None
    ignored = config.ignored_rules(path)
    return [rule for rule in chosen if rule.code not in ignored], settings


# The project index of each project a run meets, by its folder, rules and settings: built at the first
# file, before the adapter writes any (libcst and Bowler write each file as they go), as `jax-codemod`
# reads every module before it writes one.
_INDEXES: dict[tuple, Optional[ProjectIndex]] = {}


def _facts(filename: str, rules: Sequence[Rule], settings: Settings) -> ModuleFacts:
    """What the project says about the file: `jax-codemod FILE`'s facts (a value written in another
    module, a helper plain XLA code shares, a kernel launched elsewhere)."""
    path = Path(os.path.abspath(filename))
    config = _config_of_folder(str(path.parent))
    key = (config.project_root or path, tuple(rule.code for rule in rules), settings)
    if key not in _INDEXES:
        _INDEXES[key] = index_of_file_run(path, config.project_root, config, rules, settings)
    index = _INDEXES[key]
    return facts_of(index, path)


def rewrite(filename: Optional[str], raw: bytes, rules: Sequence[Rule], settings: Settings) -> FileResult:
    """The engine's result for one file, with its project's facts; raises InteropError on an internal
    error (never on bad input: a file the engine cannot decode or parse comes back with `.error` set
    and `.parsed` False)."""
    facts = _facts(filename, rules, settings) if filename else NO_FACTS
    result = process_source(Path(filename or "<stdin>"), raw, rules, settings, facts=facts)
    if result.error is not None and result.parsed:
        raise InteropError(f"jax-codemod: {result.path}: {result.error}")
    return result
