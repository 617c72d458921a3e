"""`[tool.jax-codemod]` in pyproject.toml: a project's settings, so every run in CI, pre-commit and
on laptops makes the same choices. Found as Ruff finds `[tool.ruff]`: the nearest pyproject.toml
with that table, walking up from the paths given (or the current folder). The command line wins
over the file. Any mistake in the file is an error naming the file and the key: a typo must not
silently fall back to defaults.

    [tool.jax-codemod]
    select = ["JAX0"]                 # codes, code prefixes or names
    ignore = []
    scope = "kernels"                 # or "all"
    jax-version = "0.12.0.1"
    precision-policy = "nearest"      # or "highest"
    helpers-module = "mycompany.jax_compat"
    unsafe-fixes = false              # true: --write applies unsafe fixes too
    exclude = [".git", "third_party"] # replaces the default list of skipped folders
    extend-exclude = ["generated/*"]  # adds to it
    per-file-ignores = { "tests/*" = ["JAX002"] }
    jax-floor = "0.4.30"              # the lowest jax the project supports (see below)
    notebooks = true                  # false: folders are not searched for Jupyter notebooks

The JAX1xx fixes must not write an API that the oldest jax the project supports lacks. That floor is
read as Ruff reads `requires-python`, in the folder of the pyproject.toml that holds
`[tool.jax-codemod]`, else (no file holds one) of the nearest pyproject.toml, else the project root:
the lowest release its jax requirement admits (`jax>=0.4.30`, `jax[tpu]>=0.4.30,<0.13`, `jax~=0.4.30`
and `jax==0.4.30` all give 0.4.30), from `[project] dependencies`, Poetry's dependencies, setup.cfg,
setup.py's literal `install_requires`, requirements files or a lock file (codemods/floor.py says in
which order). `jax-floor` overrides what is read there. That is the run's floor; each file is held
to its own project's (`ProjectFloors`: the nearest folder above it that declares one, so that a
monorepo's projects each keep theirs), and to the run's where none does. `--jax-floor` holds for
every file.
"""

from __future__ import annotations

import ast
import difflib
import fnmatch
import functools
import keyword
import os
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Optional, Sequence

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from codemods.capabilities import Version, parse_version
from codemods.engine.discovery import SKIPPED_DIRS, project_root
from codemods.engine import executors
from codemods.engine.rule import Rule
from codemods import registry
from codemods.floor import Floor, FloorError, declared_floor
from codemods.settings import PrecisionPolicy, Scope, Settings
from codemods.target import LOCK_FILES, jax_target

SECTION = "jax-codemod"


class ConfigError(Exception):
    """A config file we will not guess about; the message names the file and the key."""


@dataclass(frozen=True)
class Config:
    path: Optional[Path] = None  # the pyproject.toml read, if any
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    scope: Optional[Scope] = None
    jax_version: Optional[Version] = None
    precision_policy: Optional[PrecisionPolicy] = None
    helpers_module: Optional[str] = None
    create_helpers_module: bool = False  # write the helpers module when the project has none
    unsafe_fixes: bool = False
    exclude: tuple[str, ...] = tuple(sorted(SKIPPED_DIRS))
    extend_exclude: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    jax_floor: Optional[Version] = None  # `jax-floor`, else the floor the project's files declare
    notebooks: bool = True  # discover `*.ipynb` files in folders
    jax_floor_source: str = ""  # where jax_floor was read, for the summary (`pyproject.toml`, `setup.py`)
    # The project's folder (its `.venv`, lock files: codemods/target.py), None: none was found; and
    # its pyproject.toml's `project.dependencies`.
    project_root: Optional[Path] = None
    dependencies: tuple[str, ...] = ()

    @property
    def root(self) -> Path:
        """Where relative patterns are anchored: the config's folder, else the current one."""
        return self.path.parent if self.path else Path.cwd()

    def matcher(self, patterns: Sequence[str]) -> Callable[["Path | str"], bool]:
        """A test of whether a path (file or folder) matches one of the globs, by its name or by its
        path relative to the project root, as Ruff matches `exclude`. Built once: discovery asks it
        of every file and folder of the tree."""
        return _Matcher(patterns, self.root)

    def excluded(self, extra: Sequence[str] = ()) -> Callable[["Path | str"], bool]:
        """The test discovery asks of every file and folder: `exclude`, `extend-exclude` and `extra`
        (the command line's `--exclude`), as one matcher. Every entry point builds it here."""
        return self.matcher([*self.exclude, *self.extend_exclude, *extra])

    def ignored_rules(self, path: "Path | str") -> frozenset[str]:
        """The rule codes `per-file-ignores` switches off for `path` (asked of every file)."""
        return frozenset(code for matches, codes in self._per_file_matchers if matches(path) for code in codes)

    @functools.cached_property
    def _per_file_matchers(self) -> list[tuple["_Matcher", tuple[str, ...]]]:
        return [(_Matcher([pattern], self.root), codes) for pattern, codes in self.per_file_ignores]


class _Matcher:
    def __init__(self, patterns: Sequence[str], root: Path) -> None:
        literal = {p for p in patterns if not any(c in p for c in "*?[") and "/" not in p}
        globs = [p.rstrip("/") for p in patterns if p not in literal]
        self._names = frozenset(literal)
        self._glob = re.compile("|".join(fnmatch.translate(p) for p in globs)) if globs else None
        self._under = re.compile("|".join(fnmatch.translate(p + "/*") for p in globs)) if globs else None
        self._root = os.path.abspath(root) + os.sep
        self._folders: dict[str, str] = {}  # folder -> absolute: asked once per folder, not per file

    def _absolute(self, folder: str) -> str:
        if folder not in self._folders:
            self._folders[folder] = os.path.abspath(folder)
        return self._folders[folder]

    def __call__(self, path: "Path | str") -> bool:
        text = os.fspath(path)
        folder, name = os.path.split(text)
        if name in self._names:
            return True
        absolute = os.path.join(self._absolute(folder), name) if name not in ("", ".", "..") else os.path.abspath(text)
        inside = absolute.startswith(self._root)
        relative = (absolute[len(self._root):] if inside else text).replace(os.sep, "/")
        if inside and self._names and not self._names.isdisjoint(relative.split("/")):
            return True  # a file under an excluded folder of the project, named explicitly
        if self._glob is None or self._under is None:
            return False
        return bool(self._glob.match(name) or self._glob.match(relative) or self._under.match(relative))


@dataclass(frozen=True)
class Found:
    """What `find` read, each file once."""

    path: Optional[Path] = None  # the nearest pyproject.toml with a [tool.jax-codemod] table; None: none has one
    table: object = None  # that table
    # The pyproject.toml that says which jax the project supports (that one, else the nearest), and
    # its `[project] dependencies` (None when it lists none).
    project: Optional[Path] = None
    dependencies: object = None
    root: Optional[Path] = None  # the project's folder (discovery.project_root)
    # That pyproject.toml, read: where codemods/floor.py reads the floor (PEP 621's tables, Poetry's).
    project_data: object = field(default=None, compare=False, repr=False)


def find(paths: Sequence[Path]) -> Found:
    """The nearest pyproject.toml with a [tool.jax-codemod] table, from the first path upwards, the
    pyproject.toml whose dependencies declare the project's jax (see the module docstring), and the
    project's folder."""
    found = _find(paths)
    return replace(found, root=project_root(paths, found.path.parent if found.path else None))


def _find(paths: Sequence[Path]) -> Found:
    start = Path(os.path.abspath(paths[0] if paths else Path.cwd()))
    nearest = Found()
    for folder in [start, *start.parents] if start.is_dir() else list(start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            try:
                data = tomllib.loads(candidate.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
                raise ConfigError(f"{candidate}: cannot read: {error}") from None
            project = data.get("project")
            dependencies = project.get("dependencies") if isinstance(project, dict) else None
            if SECTION in data.get("tool", {}):
                return Found(candidate, data["tool"][SECTION], candidate, dependencies, project_data=data)
            if nearest.project is None:
                nearest = Found(project=candidate, dependencies=dependencies, project_data=data)
    return nearest


_DOTTED_NAME = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)*")


def checked_module_name(name: Optional[str]) -> Optional[str]:
    """`name` when it is a dotted module name (`pkg.compat`); the fixes write `from <name> import ...`,
    so anything else would put arbitrary text into every file. Raises ValueError."""
    if name is not None and (not _DOTTED_NAME.fullmatch(name) or any(keyword.iskeyword(part) for part in name.split("."))):
        raise ValueError(f"is not a dotted module name (like `mypkg.jax_compat`): {name!r}")
    return name


def resolve(config: Config, rules: Sequence[Rule], *, select: Sequence[str] = (), ignore: Sequence[str] = (),
            jax_version: "str | Version | None" = None, jax_floor: "str | Version | None" = None,
            scope: Optional[Scope] = None, precision_policy: Optional[PrecisionPolicy] = None,
            helpers_module: Optional[str] = None, unsafe_fixes: Optional[bool] = None,
            interpreter: Optional[str] = None, executor: Optional[str] = None) -> tuple[list[Rule], Settings]:
    """The rules to run and the settings to run them with: what an entry point was given (its command
    line, an adapter's arguments; None or empty: not given) over the project's config, over the
    defaults; the target jax as codemods/target.py finds it (`interpreter`: the editor's Python), the
    floor from `jax_floor`, else the project's (its config, else its dependencies). Every entry point
    comes through here, so `fix`, `explain`, pre-commit, the server, IPython, libcst's runner and
    Bowler make the same choices for the same project. Raises ValueError (the message names the
    option) for an unknown rule, a bad version, a bad module name or an executor this tool lacks."""
    chosen = registry.select(select or config.select, ignore or config.ignore, rules)
    jax_version, jax_floor = _version("--jax-version", jax_version), _version("--jax-floor", jax_floor)
    try:
        helpers = checked_module_name(helpers_module)
    except ValueError as error:
        raise ValueError(f"--helpers-module {error}") from None
    target, source = jax_target(config.project_root, given=jax_version, configured=config.jax_version,
                                interpreter=interpreter, dependencies=config.dependencies)
    # The floor given here holds for every file; else each file's project's (ProjectFloors), this
    # project's where none above the file declares one.
    floor_of = None if jax_floor else ProjectFloors(
        Floor(config.jax_floor, config.jax_floor_source, _folder_shown(config.project_root)), config.project_root)
    settings = Settings(
        jax_version=target,
        jax_version_source=source,
        scope=Scope(scope) if scope else config.scope or Scope.KERNELS,
        precision_policy=PrecisionPolicy(precision_policy) if precision_policy else
        config.precision_policy or PrecisionPolicy.NEAREST,
        helpers_module=helpers or config.helpers_module,
        unsafe_fixes=config.unsafe_fixes if unsafe_fixes is None else unsafe_fixes,
        jax_floor=jax_floor or config.jax_floor,
        jax_floor_source="--jax-floor" if jax_floor else config.jax_floor_source,
        floor_of=floor_of,
        executor=executors.checked(executor) if executor else executors.LOCAL,
    )
    return chosen, settings


# The files in a folder that may declare its project's jax (codemods/floor.py reads them), besides
# `requirements*.txt` and a `requirements/` folder.
_DECLARING = frozenset(("pyproject.toml", "setup.cfg", "setup.py", *LOCK_FILES))


class ProjectFloors:
    """Each file's floor, as a monorepo's projects declare theirs: the floor of the nearest folder at
    or above the file whose files declare one (`jax-floor` in its [tool.jax-codemod], else its jax
    requirement: codemods/floor.py), looking up to the project root or the repository root (a folder
    holding `.git`), whichever comes first; else `fallback`, the run's floor. Each folder is read
    once, and each file's folder resolved once: a tree of thousands of files in a few projects reads
    a few pyproject.toml files. Raises FloorError for a declaration that cannot be read."""

    def __init__(self, fallback: Floor, root: Optional[Path]) -> None:
        self._fallback = fallback
        self._root = os.path.abspath(root) if root is not None else None
        self._resolved: dict[str, Floor] = {}  # absolute folder -> the floor of the files in it
        self._given: dict[str, Floor] = {}  # the same, by the folder as paths spell it: asked of every file

    def __call__(self, path: "str | os.PathLike[str]") -> Floor:
        folder = os.path.dirname(os.fspath(path))
        floor = self._given.get(folder)
        if floor is None:
            floor = self._given[folder] = self._of_folder(os.path.abspath(folder or os.curdir))
        return floor

    def _of_folder(self, folder: str) -> Floor:
        floor = self._resolved.get(folder)
        if floor is None:
            names = _names(folder)
            floor = self._declared(folder, names)
            if floor is None:
                parent = os.path.dirname(folder)
                stop = folder == self._root or ".git" in names or parent == folder
                floor = self._fallback if stop else self._of_folder(parent)
                if floor.version is None and _is_project(names):  # named for the nearest project that declares none
                    floor = replace(floor, project=_folder_shown(Path(folder)))
            self._resolved[folder] = floor
        return floor

    @staticmethod
    def _declared(folder: str, names: frozenset[str]) -> Optional[Floor]:
        """The floor the files of `folder` declare, None if none does (most folders: no file to read)."""
        if not _is_project(names - {".git"}):
            return None
        pyproject = Path(folder, "pyproject.toml")
        data = None
        if "pyproject.toml" in names:
            try:
                data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
                raise FloorError(f"{pyproject}: cannot read: {error}") from None
            table = data.get("tool", {}).get(SECTION) if isinstance(data.get("tool"), dict) else None
            configured = table.get("jax-floor") if isinstance(table, dict) else None
            if configured is not None:
                try:
                    version = parse_version(configured) if isinstance(configured, str) else None
                except ValueError:
                    version = None
                if version is None:
                    raise FloorError(f"{pyproject}: `tool.{SECTION}.jax-floor` is not a jax version: {configured!r}")
                return Floor(version, f"jax-floor in {_shown(pyproject)}", _folder_shown(Path(folder)))
        declared, path = declared_floor(Path(folder), data, pyproject)
        return Floor(declared, _shown(path), _folder_shown(Path(folder))) if declared is not None else None


def _is_project(names: frozenset[str]) -> bool:
    return not names.isdisjoint(_DECLARING) or ".git" in names or any(name.startswith("requirements") for name in names)


def _names(folder: str) -> frozenset[str]:
    try:
        return frozenset(os.listdir(folder))
    except OSError:
        return frozenset()


def _folder_shown(folder: Optional[Path]) -> str:
    """A project's folder as the summary names it: `pkg/`, `./` for the current one."""
    return os.path.join(_shown(folder or Path.cwd()), "")


def _version(option: str, value: "str | Version | None") -> Optional[Version]:
    if isinstance(value, str):
        try:
            return parse_version(value)
        except ValueError as error:
            raise ValueError(f"{option}: {error}") from None
    return tuple(value) if value else None


KEYS = ("select", "ignore", "scope", "jax-version", "precision-policy", "helpers-module", "create-helpers-module",
        "unsafe-fixes", "exclude", "extend-exclude", "per-file-ignores", "jax-floor", "notebooks")


def helpers_module_ready(config: Config, settings: Settings, *, create: bool, write: bool) -> Optional[Path]:
    """The fixes import the helpers from `settings.helpers_module`: a module the project lacks would
    leave them an import that fails. ConfigError naming it, unless `create` (or the config's
    `create-helpers-module`) says to write it, with codemods/helpers_source.py's code: then the file
    written (only when `write`; None otherwise, and when the module exists)."""
    name = settings.helpers_module
    if name is None:
        return None
    root = config.project_root or Path.cwd()
    parts = name.split(".")
    candidates = [base.joinpath(*parts).with_suffix(".py") for base in (root, root / "src")] + \
        [base.joinpath(*parts, "__init__.py") for base in (root, root / "src")]
    if any(path.is_file() for path in candidates):
        return None
    if not (create or config.create_helpers_module):
        raise ConfigError(f"--helpers-module {name}: no such module in the project {root} (looked for "
                          f"{candidates[0].relative_to(root)} and {candidates[2].relative_to(root)}); create it, or pass "
                          "--create-helpers-module (`create-helpers-module = true` in [tool.jax-codemod]) to have it written")
    if not write:
        return None
    from importlib import resources  # here: only writing the helpers module pays its import (tempfile, random)

    source = resources.files("codemods").joinpath("helpers_source.py").read_text()
    code = "".join(source.splitlines(True)[ast.parse(source).body[0].end_lineno:])  # its docstring left out
    path = candidates[0]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'"""The helpers jax-codemod\'s fixes call (JAX002/JAX003), from its helpers_source.py."""\n{code}')
    return path


def _floor(found: Found, configured: Optional[Version]) -> tuple[Optional[Version], str]:
    """The project's floor and where it was read: `jax-floor`, else the files that declare its
    dependencies, in the folder of its pyproject.toml, else its root (codemods/floor.py)."""
    if configured is not None:
        return configured, f"jax-floor in {_shown(found.path)}"
    folder = found.project.parent if found.project is not None else found.root
    if folder is None:
        return None, ""
    try:
        declared, path = declared_floor(folder, found.project_data, found.project)
    except FloorError as error:
        raise ConfigError(str(error)) from None
    return declared, _shown(path) if declared is not None else ""


def _shown(path: Optional[Path]) -> str:
    """A file's path as the summary names it: relative to the current folder when under it."""
    relative = os.path.relpath(path) if path is not None else ""
    return relative if not relative.startswith("..") else str(path)


def load(found: Found, rules: Sequence[Rule]) -> Config:
    """The Config of a `find` result (defaults, and the declared jax floor, when no file has a table)."""
    listed = found.dependencies if isinstance(found.dependencies, list) else []
    project = dict(project_root=found.root, dependencies=tuple(d for d in listed if isinstance(d, str)))
    if found.path is None:
        floor, source = _floor(found, None)
        return Config(jax_floor=floor, jax_floor_source=source, **project)
    path, data = found.path, found.table
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: `tool.{SECTION}` must be a table")
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        key = unknown[0]
        close = difflib.get_close_matches(key.replace("_", "-").lower(), KEYS, n=1, cutoff=0.7)
        hint = f"; did you mean `{close[0]}`?" if close else ""
        raise ConfigError(f"{path}: unknown key `tool.{SECTION}.{key}`{hint} (known: {', '.join(KEYS)})")
    reader = _Reader(path, data, rules)
    floor, floor_source = _floor(found, reader.version("jax-floor"))
    config = Config(
        path=path,
        select=reader.codes("select"),
        ignore=reader.codes("ignore"),
        scope=reader.choice("scope", Scope),
        jax_version=reader.version("jax-version"),
        precision_policy=reader.choice("precision-policy", PrecisionPolicy),
        helpers_module=reader.module_name("helpers-module"),
        create_helpers_module=reader.boolean("create-helpers-module"),
        unsafe_fixes=reader.boolean("unsafe-fixes"),
        exclude=reader.strings("exclude", Config.exclude),
        extend_exclude=reader.strings("extend-exclude", ()),
        per_file_ignores=reader.per_file_ignores("per-file-ignores"),
        jax_floor=floor,
        jax_floor_source=floor_source,
        notebooks=reader.boolean("notebooks", default=True),
        **project,
    )
    return config


@dataclass
class _Reader:
    path: Path
    data: dict
    rules: Sequence[Rule]

    def _get(self, key: str):
        return self.data.get(key)

    def _fail(self, key: str, why: str) -> ConfigError:
        return ConfigError(f"{self.path}: `tool.{SECTION}.{key}` {why}")

    def strings(self, key: str, default: tuple[str, ...]) -> tuple[str, ...]:
        value = self._get(key)
        if value is None:
            return default
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self._fail(key, f"must be a list of strings, not {value!r}")
        return tuple(value)

    def codes(self, key: str) -> tuple[str, ...]:
        codes = self.strings(key, ())
        for code in codes:
            self._known(key, code)
        return codes

    def _known(self, key: str, selector: str) -> list[str]:
        """The codes a selector (code, prefix or name) names; an unknown one is an error."""
        found = [rule.code for rule in registry.matching(selector, self.rules)]
        if not found:
            raise self._fail(key, f"names an unknown rule code, prefix or name {selector!r} "
                                  f"({registry.known_near([selector], self.rules)})")
        return found

    def string(self, key: str) -> Optional[str]:
        value = self._get(key)
        if value is not None and not isinstance(value, str):
            raise self._fail(key, f"must be a string, not {value!r}")
        return value

    def module_name(self, key: str) -> Optional[str]:
        try:
            return checked_module_name(self.string(key))
        except ValueError as error:
            raise self._fail(key, str(error)) from None

    def boolean(self, key: str, default: bool = False) -> bool:
        value = self._get(key)
        if value is not None and not isinstance(value, bool):
            raise self._fail(key, f"must be true or false, not {value!r}")
        return default if value is None else value

    def choice(self, key: str, kind):
        value = self.string(key)
        if value is None:
            return None
        try:
            return kind(value)
        except ValueError:
            raise self._fail(key, f"must be one of {', '.join(k.value for k in kind)}, not {value!r}") from None

    def version(self, key: str) -> Optional[Version]:
        value = self.string(key)
        try:
            return None if value is None else parse_version(value)
        except ValueError:
            raise self._fail(key, f"is not a jax version: {value!r}") from None

    def per_file_ignores(self, key: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
        value = self._get(key)
        if value is None:
            return ()
        if not isinstance(value, dict):
            raise self._fail(key, f"must be a table of glob = [codes], not {value!r}")
        entries = []
        for pattern, codes in value.items():
            if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
                raise self._fail(f"{key}.{pattern}", f"must be a list of rule codes, not {codes!r}")
            resolved = [found for code in codes for found in self._known(f"{key}.{pattern}", code)]
            entries.append((pattern, tuple(dict.fromkeys(resolved))))
        return tuple(entries)
