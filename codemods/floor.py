"""The oldest jax a project supports (its floor), read where projects declare it: a JAX1xx fix must
not write an API that release lacks. Read as Ruff reads `requires-python`, from a project's folder
(each file's nearest that declares one: config.ProjectFloors); the first source that bounds jax
below decides:

1. pyproject.toml: `[project] dependencies` and `optional-dependencies` (PEP 621);
2. pyproject.toml: `[tool.poetry.dependencies]` (Poetry's `^0.4.30`, `~0.4.30`, `>=0.4.30,<0.5`);
3. setup.cfg: `[options] install_requires` and `extras_require`;
4. setup.py: the literal `install_requires` of its `setup()` call (a list, or a name bound to one
   at module level), read with `ast`: the file is never executed;
5. requirements files: `requirements*.txt`, the `.txt` files of a `requirements/` folder, and the
   files they include (`-r other.txt`);
6. lock files: `uv.lock`, `poetry.lock`, `pdm.lock` (the lowest jax locked).

Within a source, the lowest floor of its jax requirements (one per Python, one per file); a jax
requirement with no lower bound there (`jax`, `jax<0.13`) declares none, and the next source is
read. A jax requirement that is no version specifier (`jax>=banana`) is an error naming the file.
`packaging` is not a dependency of the tool: PEP 508 and 440 are read by the few patterns below.
"""

from __future__ import annotations

import ast
import functools
import glob
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional, Sequence

from codemods.capabilities import Version, parse_version
from codemods.target import LOCK_FILES, locked_versions


class FloorError(ValueError):
    """A declared jax requirement that cannot be read; the message names the file and the key."""


@dataclass(frozen=True)
class Floor:
    """The floor one file's fixes are held to, as the summary names it."""

    version: Optional[Version]
    source: str = ""  # where it was read: `pkg/pyproject.toml`, `jax-floor in pyproject.toml`, `--jax-floor`
    project: str = ""  # the folder of the project it holds for (`pkg/`); "": every file's


# PEP 508: a name, extras, then version clauses (or `@ url`), then `; markers`.
_REQUIREMENT = re.compile(r"\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[[^\]]*\])?\s*([^;]*)(?:;.*)?",
                          re.DOTALL)
_CLAUSE = re.compile(r"\s*(~=|===|==|!=|<=|>=|<|>)\s*(\d+(?:\.\d+)*)(\.\*|[A-Za-z0-9._+-]*)\s*")
# Poetry's constraints that mean `>=X` at their low end: `^X`, `~X`, `X` alone.
_POETRY_FLOOR = re.compile(r"\s*(?:\^|~(?!=)|=?(?=\d))\s*(\d[\w.]*)\s*")


def _lower_bound(specifiers: str) -> Optional[Version]:
    """The lowest release `>=0.4.30,<0.13` admits (the largest lower bound), None when unbounded below.
    Raises ValueError on a clause that is no PEP 440 specifier."""
    text = specifiers.strip()
    if text.startswith("(") and text.endswith(")"):
        text = text[1:-1]
    if not text.strip() or text.startswith("@"):
        return None  # any jax, or a URL: no version to read
    bounds = []
    for clause in text.split(","):
        match = _CLAUSE.fullmatch(clause)
        if match is None or (match.group(3) == ".*" and match.group(1) not in ("==", "!=")):
            raise ValueError(f"not a version specifier: {clause.strip()!r}")
        operator, release = match.group(1), match.group(2)
        if operator not in ("!=", "<", "<="):
            bounds.append(parse_version(release))
    return max(bounds, default=None)


def _is_jax(name: str) -> bool:
    return re.sub(r"[-_.]+", "-", name).lower() == "jax"


def declared_jax_floor(dependencies: Sequence[str]) -> Optional[Version]:
    """The lowest jax that PEP 508 requirements admit; None without a jax requirement or with one
    unbounded below. Requirements for other markers (`; python_version < "3.11"`) each count: the
    lowest of their floors. Raises ValueError on a requirement that cannot be read."""
    return _lowest(_jax_floors(dependencies))


def _jax_floors(requirements: Sequence[str], strict: bool = True) -> list[Optional[Version]]:
    """The floor of each jax requirement (None: unbounded below). ValueError on a jax requirement
    that is no version specifier, and (`strict`) on any string that is no PEP 508 requirement."""
    floors = []
    for requirement in requirements:
        match = _REQUIREMENT.fullmatch(requirement)
        if match is None:
            if strict:
                raise ValueError(f"not a PEP 508 requirement: {requirement!r}")
            continue  # a requirements file's URL or local path
        if _is_jax(match.group(1)):
            try:
                floors.append(_lower_bound(match.group(2)))
            except ValueError as error:
                raise ValueError(f"{requirement!r}: {error}") from None
    return floors


def _lowest(floors: Sequence[Optional[Version]]) -> Optional[Version]:
    """The floor several jax requirements declare together: the lowest; none if one is unbounded."""
    return None if not floors or None in floors else min(floors)


def declared_floor(folder: Path, pyproject: Optional[dict] = None,
                   pyproject_path: Optional[Path] = None) -> tuple[Optional[Version], Optional[Path]]:
    """The floor the project in `folder` declares, and the file that declared it; (None, None) when
    none does. `pyproject` is its pyproject.toml, already read (at `pyproject_path`, by default in
    `folder`). Raises FloorError."""
    pyproject_path = pyproject_path or folder / "pyproject.toml"
    sources = ((functools.partial(_pep621, pyproject), pyproject_path),
               (functools.partial(_poetry, pyproject), pyproject_path),
               (_setup_cfg, folder / "setup.cfg"), (_setup_py, folder / "setup.py"))
    for read, path in sources:  # in turn: the files after the one that declares a floor are not read
        floor = _lowest(read(path))
        if floor is not None:
            return floor, path
    by_file = [(floor, path) for path in _requirement_files(folder)
               if (floor := _lowest(_requirements_txt(path))) is not None]
    if by_file:
        return min(by_file)
    for name in LOCK_FILES:
        versions = locked_versions(folder / name)
        if versions:
            return min(versions), folder / name
    return None, None


def _checked(requirements: object, path: Path, key: str, strict: bool = True) -> list[Optional[Version]]:
    """_jax_floors of a list of PEP 508 strings read from `key` of `path` (FloorError)."""
    if not isinstance(requirements, list) or not all(isinstance(r, str) for r in requirements):
        raise FloorError(f"{path}: `{key}` must be a list of strings, not {requirements!r}")
    try:
        return _jax_floors(requirements, strict)
    except ValueError as error:
        raise FloorError(f"{path}: `{key}` {error}") from None


def _pep621(pyproject: Optional[dict], path: Path) -> list[Optional[Version]]:
    project = pyproject.get("project") if isinstance(pyproject, dict) else None
    if not isinstance(project, dict):
        return []
    extras = project.get("optional-dependencies", {})
    if not isinstance(extras, dict):
        raise FloorError(f"{path}: `project.optional-dependencies` must be a table, not {extras!r}")
    lists = [("project.dependencies", project.get("dependencies", [])),
             *((f"project.optional-dependencies.{name}", listed) for name, listed in extras.items())]
    return [floor for key, listed in lists for floor in _checked(listed, path, key)]


def _poetry(pyproject: Optional[dict], path: Path) -> list[Optional[Version]]:
    """`jax = "^0.4.30"`, `jax = {version = ">=0.4.30", extras = ["tpu"]}`, or a list of those (one
    per Python or platform) in `[tool.poetry.dependencies]`."""
    tool = pyproject.get("tool") if isinstance(pyproject, dict) else None
    poetry = tool.get("poetry") if isinstance(tool, dict) else None
    dependencies = poetry.get("dependencies") if isinstance(poetry, dict) else None
    floors: list[Optional[Version]] = []
    for name, value in dependencies.items() if isinstance(dependencies, dict) else ():
        for entry in (value if isinstance(value, list) else [value]) if _is_jax(name) else ():
            constraint = entry.get("version", "") if isinstance(entry, dict) else entry
            if not isinstance(constraint, str):
                raise FloorError(f"{path}: `tool.poetry.dependencies.{name}` is not a version constraint: {entry!r}")
            floors.append(_poetry_floor(constraint, path, name))
    return floors


def _poetry_floor(constraint: str, path: Path, name: str) -> Optional[Version]:
    """The lowest release a Poetry constraint admits: `^0.4.30 || ^0.5` is 0.4.30; `*` is None."""
    floors = []
    for alternative in constraint.split("||"):
        text = alternative.strip()
        caret = _POETRY_FLOOR.fullmatch(text)
        try:
            floors.append(parse_version(caret.group(1)) if caret else
                          None if text in ("", "*") else _lower_bound(",".join(text.replace(",", " ").split())))
        except ValueError as error:
            raise FloorError(f"{path}: `tool.poetry.dependencies.{name}` {constraint!r}: {error}") from None
    return _lowest(floors)


def _setup_cfg(path: Path) -> list[Optional[Version]]:
    """`install_requires` and `extras_require` of setup.cfg's `[options]`, one requirement a line."""
    import configparser  # here: only a project with a setup.cfg pays its import

    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, configparser.Error):
        return []
    lists = [("options.install_requires", parser.get("options", "install_requires", fallback=""))]
    if parser.has_section("options.extras_require"):
        lists += [(f"options.extras_require.{key}", value) for key, value in parser.items("options.extras_require")]
    return [floor for key, value in lists
            for floor in _checked([line.strip() for line in value.splitlines() if line.strip()], path, key, strict=False)]


def _setup_py(path: Path) -> list[Optional[Version]]:
    """The literal `install_requires` (and `extras_require`) of `setup(...)`: a list or tuple of
    strings, or a module-level name bound to one. Anything computed is not read."""
    try:
        module = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return []
    bound = {target.id: node.value for node in module.body if isinstance(node, ast.Assign)
             for target in node.targets if isinstance(target, ast.Name)}
    floors = []
    for call in ast.walk(module):
        if not (isinstance(call, ast.Call) and _called_name(call.func) == "setup"):
            continue
        for keyword in call.keywords:
            value = bound.get(keyword.value.id, keyword.value) if isinstance(keyword.value, ast.Name) else keyword.value
            lists = [value] if keyword.arg == "install_requires" else \
                list(value.values) if keyword.arg == "extras_require" and isinstance(value, ast.Dict) else []
            for listed in lists:
                try:
                    requirements = ast.literal_eval(listed)
                except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                    continue  # computed: not read
                if isinstance(requirements, (list, tuple)):
                    floors += _checked(list(requirements), path, keyword.arg, strict=False)
    return floors


def _called_name(func: ast.expr) -> str:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _requirement_files(folder: Path) -> list[Path]:
    """`requirements*.txt` and `requirements/*.txt` in `folder`, sorted (the files they include
    are read with them)."""
    found = []
    for pattern in ("requirements*.txt", os.path.join("requirements", "*.txt")):
        found += sorted(glob.glob(os.path.join(glob.escape(str(folder)), pattern)))
    return [Path(path) for path in found if os.path.isfile(path)]


def _requirements_txt(path: Path) -> list[Optional[Version]]:
    """The jax floors of a requirements file and of the files it includes (`-r`), each read once."""
    floors = []
    for requirement, where in _requirement_lines(path, set()):
        try:
            floors += _jax_floors([requirement], strict=False)
        except ValueError as error:
            raise FloorError(f"{where}: {error}") from None
    return floors


_INCLUDE = re.compile(r"(?:-r|--requirement)(?:\s+|=)(\S+)")
_OPTION = re.compile(r"\s+--?[A-Za-z].*$")  # `--hash=...` after a requirement (pip-compile)


def _requirement_lines(path: Path, seen: set[Path]) -> Iterator[tuple[str, Path]]:
    """The requirements of a pip requirements file, as pip reads it: continuation lines joined,
    comments and options dropped, `-r` includes followed (relative to the including file)."""
    resolved = path.resolve()
    if resolved in seen:
        return
    seen.add(resolved)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return
    for line in re.sub(r"\\\r?\n", " ", text).splitlines():
        line = re.sub(r"(^|\s)#.*$", "", line).strip()
        include = _INCLUDE.fullmatch(line)
        if include:
            yield from _requirement_lines(path.parent / include.group(1), seen)
        elif line and not line.startswith("-"):
            yield _OPTION.sub("", line), path
