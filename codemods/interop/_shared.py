"""What both adapters share: the project's settings for a file, and running the engine on its bytes."""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Optional, Sequence

from codemods import config as project_config
from codemods.engine.report import FileResult
from codemods.engine.runner import process_source
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


def rewrite(filename: Optional[str], raw: bytes, rules: Sequence[Rule], settings: Settings) -> FileResult:
    """The engine's result for one file; raises InteropError on an internal error (never on bad input:
    a file the engine cannot decode or parse comes back with `.error` set and `.parsed` False)."""
    result = process_source(Path(filename or "<stdin>"), raw, rules, settings)
    if result.error is not None and result.parsed:
        raise InteropError(f"jax-codemod: {result.path}: {result.error}")
    return result
