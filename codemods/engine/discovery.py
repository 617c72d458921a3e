"""Stage 1: turn the user's paths into the Python files to look at."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Iterator

# Folders that never hold the user's own code: VCS data, virtualenvs, caches and build output.
SKIPPED_DIRS = frozenset(
    {".git", ".hg", ".svn", ".venv", "venv", ".env", "env", ".tox", ".nox", "__pycache__",
     ".mypy_cache", ".pytest_cache", ".ruff_cache", "build", "dist", "node_modules", ".eggs"}
)


def _is_virtualenv(path: str) -> bool:
    return os.path.exists(os.path.join(path, "pyvenv.cfg"))


def discover(paths: Iterable[Path]) -> Iterator[Path]:
    """Yield each file named directly, and every `*.py` below each folder, in a stable order.

    A file named explicitly is always yielded (the user asked for it), whatever its suffix.
    Missing paths are yielded too, so the reader reports them instead of dropping them silently.
    """
    seen: set[Path] = set()
    for root in paths:
        if not root.is_dir():
            if root not in seen:
                seen.add(root)
                yield root
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(
                d for d in dirnames
                if d not in SKIPPED_DIRS and not d.endswith(".egg-info")
                and not _is_virtualenv(os.path.join(dirpath, d))
            )
            for name in sorted(filenames):
                if name.endswith(".py"):
                    path = Path(dirpath, name)
                    if path not in seen:
                        seen.add(path)
                        yield path
