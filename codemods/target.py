"""Which jax release the JAX1xx rules move code to: the one the code runs on, found where it runs.

In order, the first that answers decides (`jax_target`):

1. `--jax-version` (an adapter's or the editor's `jax_version` argument);
2. `jax-version` in `[tool.jax-codemod]`;
3. the project's environment: the editor's `interpreter`, `$VIRTUAL_ENV`, `$CONDA_PREFIX`, then a
   `.venv` or `venv` folder at the project root (a tool installed with pipx runs outside it);
4. the tool's own environment;
5. the project's pins: `uv.lock`, `poetry.lock`, `pdm.lock`, `requirements*.txt` (`jax==X`), then
   `jax==X` in `project.dependencies`.

An environment's jax is read from its `jax-X.dist-info` folder name, never imported (that costs
seconds); lock files are read only when no environment answers. None of them: the target is
unknown, and the JAX1xx rules cannot run.
"""

from __future__ import annotations

import glob
import os
import re
import sys
from pathlib import Path
from typing import Optional, Sequence

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from codemods import capabilities
from codemods.capabilities import Version, parse_version

TOOL_ENVIRONMENT = "tool environment"
LOCK_FILES = ("uv.lock", "poetry.lock", "pdm.lock")
_DIST_INFO = re.compile(r"jax-([^-]+)\.dist-info", re.IGNORECASE)
_SITE_PACKAGES = ("lib/python*/site-packages", "Lib/site-packages")  # POSIX, Windows
# `jax==0.4.30` or `jax[tpu] == 0.4.30 ; markers  # comment`: the one pin form a requirements file
# or project.dependencies gives a release by.
_PIN = re.compile(r"\s*jax\s*(?:\[[^\]]*\])?\s*==\s*(\d[\w.]*)\s*(?:;.*)?(?:#.*)?", re.IGNORECASE)


def jax_target(root: Optional[Path], *, given: Optional[Version] = None, configured: Optional[Version] = None,
               interpreter: Optional[str] = None,
               dependencies: Sequence[str] = ()) -> tuple[Optional[Version], str]:
    """The target release and what decided it (`--jax-version`, `[tool.jax-codemod]`, `.venv`,
    `$VIRTUAL_ENV`, `tool environment`, `uv.lock`, ...); (None, "") when nothing does. `root` is the
    project's folder (None: none known), `dependencies` its `project.dependencies`."""
    if given is not None:
        return tuple(given), "--jax-version"
    if configured is not None:
        return configured, "[tool.jax-codemod]"
    for prefix, source in _environments(root, interpreter):
        found = environment_jax(prefix)
        if found is not None:
            return found, source
    installed = capabilities.installed_jax_version()
    if installed is not None:
        return installed, TOOL_ENVIRONMENT
    return _pinned(root, dependencies) if root is not None else (None, "")


def _environments(root: Optional[Path], interpreter: Optional[str]) -> list[tuple[Path, str]]:
    """The project's environments, most specific first: (prefix, how it is named in the summary)."""
    found = []
    if interpreter:  # the editor's Python: `.venv/bin/python`, or the environment's folder
        path = Path(interpreter)
        found.append((interpreter_prefix(path) if path.is_file() else path, "interpreter"))
    for variable in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        if os.environ.get(variable):
            found.append((Path(os.environ[variable]), f"${variable}"))
    if root is not None:
        found += [(root / name, name) for name in (".venv", "venv")]
    return found


def interpreter_prefix(executable: Path) -> Path:
    """The environment a Python executable runs in, as Python itself finds it: the folder of the
    `pyvenv.cfg` next to the executable or one folder up, from the path as named (a venv's
    `bin/python` is a symlink to the base interpreter: resolved, it leaves the venv); else, with no
    such file, the installation the resolved executable lives in (`<prefix>/bin/python`)."""
    named = Path(os.path.abspath(executable))
    for folder in (named.parent, named.parent.parent):
        if (folder / "pyvenv.cfg").is_file():
            return folder
    return named.resolve().parent.parent


def environment_jax(prefix: Path) -> Optional[Version]:
    """The jax installed in the environment at `prefix`, from its dist-info folder's name."""
    for pattern in _SITE_PACKAGES:
        for site in sorted(glob.glob(os.path.join(glob.escape(str(prefix)), pattern))):
            try:
                names = os.listdir(site)
            except OSError:
                continue
            for name in names:
                match = _DIST_INFO.fullmatch(name)
                if match:
                    try:
                        return parse_version(match.group(1))
                    except ValueError:
                        continue
    return None


def _pinned(root: Path, dependencies: Sequence[str]) -> tuple[Optional[Version], str]:
    """The release the project's lock files, then requirements files, then dependencies pin."""
    for name in LOCK_FILES:
        versions = locked_versions(root / name)
        if versions:  # the highest, where forks lock several
            return max(versions), name
    for path in sorted(glob.glob(os.path.join(glob.escape(str(root)), "requirements*.txt"))):
        try:
            lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        version, source = _pin_of(lines, os.path.basename(path))
        if version is not None:
            return version, source
    return _pin_of(dependencies, "pyproject.toml")


def locked_versions(path: Path) -> list[Version]:
    """jax's versions in a lock file's `[[package]]` tables (several where forks lock several);
    none when the file is missing or unreadable."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return []
    versions = []
    for package in data.get("package", ()) if isinstance(data.get("package"), list) else ():
        if isinstance(package, dict) and str(package.get("name", "")).lower() == "jax":
            try:
                versions.append(parse_version(str(package.get("version", ""))))
            except ValueError:
                continue
    return versions


def _pin_of(requirements: Sequence[str], source: str) -> tuple[Optional[Version], str]:
    for requirement in requirements:
        match = _PIN.fullmatch(requirement)
        if match:
            return parse_version(match.group(1)), source
    return None, ""
