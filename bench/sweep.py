#!/usr/bin/env python
"""Run the installed jax-codemod over pinned JAX ecosystem packages and check what it writes.

    python bench/sweep.py                      # every package; writes bench/SWEEP.md
    python bench/sweep.py --packages flax jax  # a subset (the report is written only with --report)
    python bench/sweep.py --keep               # keep the scratch copy (its path is printed)

For each package of PACKAGES (pinned; `pip download --no-deps` once into bench/.corpus/sweep/, ignored
by git, wheels unpacked as zips, sdists as tar.gz) a copy is made in a scratch folder and the
installed CLI runs on it, one package at a time:

  1. `jax-codemod --no-cache --jax-version V COPY/PKG`                    dry run, default --scope kernels
     (text output: the [manual] and fix counts of a normal run)
  2. `jax-codemod --scope all --write --unsafe-fixes --no-cache --jax-version V --output-format json COPY/PKG`
  3. the same command again                                              idempotence

and checks, for every package:

  crashes       exit status other than 0/1/2, a Python traceback on stderr, or an "internal error";
  unparsable    the tool's "cannot parse" / "cannot decode" errors, with their reasons;
  idempotent    run 3 exits 0 (2 only for the same unparsable files as run 2), changes nothing it
                reports, and no byte of the tree differs from what run 2 left;
  compiles      every file run 2 changed compiles with this Python (a file whose input did not
                compile is excluded and counted);
  structural    for every changed file, the AST of the output equals that of the input except for
                the tool's own edits (see `structural_diff`), each such edit lies on a line the tool
                reported as fixed/dropped and each fixed/dropped finding has its edit; the files the
                tool reports as changed are exactly the files whose bytes differ.

Prints a Markdown table and writes it, with the method, to bench/SWEEP.md. Exits 1 if a crash, a
non-idempotent file, an output that does not compile or a structural difference was found; a
package that cannot be downloaded is skipped and named in the report.
"""

from __future__ import annotations

import argparse
import ast
import datetime
import hashlib
import inspect
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import warnings
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Optional

REPO = Path(__file__).resolve().parents[1]
CACHE = REPO / "bench" / ".corpus" / "sweep"
REPORT = REPO / "bench" / "SWEEP.md"
HELPERS_SOURCE = REPO / "codemods" / "helpers_source.py"
JAX_VERSION = "0.12.0.1"
RUN_TIMEOUT_S = 1800

# (distribution, pinned version). Pins: the newest release on PyPI when the sweep was written.
PACKAGES: tuple[tuple[str, str], ...] = (
    ("jax", JAX_VERSION),
    ("flax", "0.12.12"),
    ("optax", "0.2.8"),
    ("equinox", "0.13.8"),
    ("dm-haiku", "0.0.17"),
    ("keras", "3.15.1"),
    ("orbax-checkpoint", "0.12.8"),
    ("chex", "0.1.92"),
    ("penzai", "0.2.5"),
    ("diffrax", "0.7.2"),
    ("tokamax", "0.0.17"),
    ("ejkernel", "0.0.80.3"),
    ("easydel", "0.3.0"),
    ("qwix", "0.1.8"),
    ("jax-triton", "0.4.1"),
    ("maxtext", "0.2.5"),
    ("deltanet-tpu", "0.3.0"),
    ("flywheel-tpu", "0.3.0"),
)

FINDING_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<rule>JAX\d{3}) \[(?P<kind>\w+)\] ")
ERROR_LINE = re.compile(r"^(?P<path>.+?): error: (?P<message>.*)$")
SUMMARY_LINE = re.compile(r"^(?P<scanned>\d+) files? scanned, (?P<parsed>\d+) parsed, (?P<changed>\d+) "
                          r"(?:would change|changed)")
UNPARSABLE = ("cannot parse", "cannot decode")
HELPER_NAME = re.compile(r"^(?P<base>rsqrt_safe|lstm_float32)(?:_\d+)?$")
PRECISION_MEMBERS = {"DEFAULT", "HIGH", "HIGHEST"}
PRECISION_STRINGS = {"default", "high", "highest", "fastest", "bfloat16", "bfloat16_3x", "tensorfloat32", "float32"}
FIX_KINDS = ("fixed", "dropped")


# ---------------------------------------------------------------------------------------------
# Fetching and unpacking


@dataclass
class Package:
    name: str
    version: str
    archive: Optional[Path] = None
    tree: Optional[Path] = None  # the unpacked package (read-only input of the sweep)
    source: str = ""  # where the files came from
    skipped: Optional[str] = None  # why the package is not in the sweep

    @property
    def key(self) -> str:
        return f"{self.name}-{self.version}"


def fetch(package: Package) -> None:
    """Download the pinned release once (wheel preferred, as pip does) and unpack it."""
    folder = CACHE / "downloads" / package.key
    archives = sorted(p for p in folder.glob("*") if p.suffix in (".whl", ".gz", ".zip")) if folder.is_dir() else []
    if not archives:
        folder.mkdir(parents=True, exist_ok=True)
        proc = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check", "-q",
             "-d", str(folder), f"{package.name}=={package.version}"],
            capture_output=True, text=True,
        )
        archives = sorted(p for p in folder.glob("*") if p.suffix in (".whl", ".gz", ".zip"))
        if proc.returncode != 0 or not archives:
            lines = [line for line in (proc.stderr + proc.stdout).splitlines()
                     if line.strip() and "is ignored: it is neither a file nor a directory" not in line]
            why = lines[-1].strip() if lines else f"pip exit {proc.returncode}"
            if package.name == "jax" and _installed_jax(package):
                return
            package.skipped = f"pip download failed: {why}"
            return
    package.archive = archives[0]
    package.source = f"PyPI, {package.archive.name}"
    tree = CACHE / "unpacked" / package.key
    marker = tree / ".sweep-unpacked"
    if not marker.exists():
        shutil.rmtree(tree, ignore_errors=True)
        tree.mkdir(parents=True)
        try:
            if package.archive.suffix in (".whl", ".zip"):
                with zipfile.ZipFile(package.archive) as archive:
                    archive.extractall(tree)
            else:
                with tarfile.open(package.archive) as archive:
                    archive.extractall(tree, filter="data")
        except (zipfile.BadZipFile, tarfile.TarError, OSError) as error:
            package.skipped = f"cannot unpack {package.archive.name}: {error}"
            return
        marker.write_text(package.archive.name + "\n")
    package.tree = tree


def _installed_jax(package: Package) -> bool:
    """Fallback for jax only: the jax package of this Python's site-packages, if it is the pinned one."""
    from importlib import metadata

    try:
        distribution = metadata.distribution("jax")
    except metadata.PackageNotFoundError:
        return False
    if distribution.version != package.version:
        return False
    source = Path(str(distribution.locate_file("jax")))
    tree = CACHE / "unpacked" / f"{package.key}-site-packages"
    if not (tree / ".sweep-unpacked").exists():
        shutil.rmtree(tree, ignore_errors=True)
        shutil.copytree(source, tree / "jax", ignore=shutil.ignore_patterns("__pycache__"))
        (tree / ".sweep-unpacked").write_text(str(source) + "\n")
    package.tree = tree
    package.source = f"installed site-packages ({source}); the download failed"
    return True


def py_files(root: Path) -> Iterator[Path]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith(".py"):
                yield Path(dirpath) / name


def snapshot(root: Path) -> dict[str, str]:
    """sha256 of every regular file below root, by path relative to root."""
    digests = {}
    for dirpath, _, filenames in os.walk(root):
        for name in filenames:
            path = Path(dirpath) / name
            if path.is_file() and not path.is_symlink():
                digests[path.relative_to(root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digests


# ---------------------------------------------------------------------------------------------
# Running the tool


@dataclass
class Run:
    command: list[str]
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    crash: list[str] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (path, message)
    findings: list[dict[str, Any]] = field(default_factory=list)  # rule, kind, path, line
    summary: dict[str, int] = field(default_factory=dict)
    changed_paths: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)  # stderr lines that are neither findings nor errors

    def count(self, *kinds: str) -> int:
        return sum(finding["kind"] in kinds for finding in self.findings)


def run_tool(tool: str, args: list[str], cwd: Path, env: dict[str, str], json_output: bool) -> Run:
    command = [tool, *args]
    start = time.perf_counter()
    try:
        proc = subprocess.run(command, cwd=cwd, env=env, capture_output=True, timeout=RUN_TIMEOUT_S)
        returncode, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as expired:
        returncode, stdout, stderr = -999, expired.stdout or b"", expired.stderr or b""
    run = Run(command, returncode, stdout.decode("utf-8", "replace"), stderr.decode("utf-8", "replace"),
              time.perf_counter() - start)
    if returncode == -999:
        run.crash.append(f"timed out after {RUN_TIMEOUT_S} s")
    elif returncode not in (0, 1, 2):
        run.crash.append(f"exit status {returncode}")
    if "Traceback (most recent call last)" in run.stderr:
        run.crash.append("Python traceback on stderr:\n" + _traceback(run.stderr))
    if json_output:
        _read_json(run)
    else:
        _read_text(run)
    for path, message in run.errors:
        if "internal error" in message:
            run.crash.append(f"{path}: {message}")
    return run


def _traceback(stderr: str) -> str:
    start = stderr.index("Traceback (most recent call last)")
    return stderr[start:start + 3000]


def _read_text(run: Run) -> None:
    for line in run.stderr.splitlines():
        if match := FINDING_LINE.match(line):
            run.findings.append({"rule": match["rule"], "kind": match["kind"], "path": match["path"],
                                 "line": int(match["line"])})
        elif match := ERROR_LINE.match(line):
            run.errors.append((match["path"], match["message"]))
        elif match := SUMMARY_LINE.match(line):
            run.summary = {key: int(value) for key, value in match.groupdict().items()}
        elif line.strip():
            run.notes.append(line)
    if not run.summary and not run.crash:
        run.crash.append("no summary line on stderr")


def _read_json(run: Run) -> None:
    try:
        document = json.loads(run.stdout)
    except json.JSONDecodeError as error:
        if not run.crash:
            run.crash.append(f"stdout is not JSON ({error})")
        return
    run.findings = [{"rule": f["rule"], "kind": f["kind"], "path": f["path"], "line": f["start"]["line"]}
                    for f in document["findings"]]
    run.errors = [(e["path"], e["message"]) for e in document["errors"]]
    run.summary = {key: document["summary"][key] for key in ("scanned", "parsed", "changed")}
    run.changed_paths = {f["path"] for f in document["files"] if f["changed"]}
    for line in run.stderr.splitlines():
        if line.strip() and not SUMMARY_LINE.match(line) and not ERROR_LINE.match(line):
            run.notes.append(line)


# ---------------------------------------------------------------------------------------------
# The structural check


class Mismatch(Exception):
    def __init__(self, message: str, node: Optional[ast.AST] = None) -> None:
        line = getattr(node, "lineno", None)
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line


@dataclass(frozen=True)
class Edit:
    """One difference the tool is allowed to make, at these lines of the input."""

    kind: str
    first: int
    last: int


def _precision_scalar(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr in PRECISION_MEMBERS
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.lower() in PRECISION_STRINGS
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
        callee = node.func
        named = callee.attr if isinstance(callee, ast.Attribute) else getattr(callee, "id", "")
        return named == "Precision" and _precision_scalar(node.args[0])
    return False


def precision_literal(node: ast.AST) -> bool:
    """A precision written out: `P.HIGH`, 'bfloat16', `Precision('high')`, or a pair of those."""
    if isinstance(node, (ast.Tuple, ast.List)):
        return len(node.elts) == 2 and all(_precision_scalar(e) for e in node.elts)
    return _precision_scalar(node)


def _helper(node: ast.AST, base: str) -> bool:
    return isinstance(node, ast.Name) and bool(m := HELPER_NAME.match(node.id)) and m["base"] == base


def _terminal_name(node: ast.AST) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def _is_partial(node: ast.AST) -> bool:
    return _terminal_name(node) == "partial"


def _span(node: ast.AST) -> tuple[int, int]:
    return node.lineno, getattr(node, "end_lineno", None) or node.lineno  # type: ignore[attr-defined]


class Comparer:
    """Compares an input AST with an output AST, allowing only the tool's own kinds of edit:

    - a precision literal replaced by another (JAX001: at the call, in a module constant, a default,
      a partial() binding; JAX003: the precision of a call routed through lstm_float32, also `None`);
    - `accuracy=` dropped from a call; `functools.partial(f, accuracy=h)` replaced by `f` (JAX002);
    - an `rsqrt` callee replaced by `rsqrt_safe[_N]` (JAX002);
    - `f(args)` -> `lstm_float32[_N](f, args)` and `partial(f, ...)` -> `partial(lstm_float32[_N], f, ...)`,
      with a `precision=` appended where there was none (JAX003).

    Every allowed difference is recorded as an Edit with the input lines it spans."""

    def __init__(self) -> None:
        self.edits: list[Edit] = []

    def compare(self, a: Any, b: Any, context: Optional[ast.AST] = None) -> None:
        if isinstance(a, list) or isinstance(b, list):
            if not (isinstance(a, list) and isinstance(b, list)) or len(a) != len(b):
                raise Mismatch(f"{_describe(a)} became {_describe(b)}", context)
            for x, y in zip(a, b):
                self.compare(x, y, context)
            return
        if not isinstance(a, ast.AST) or not isinstance(b, ast.AST):
            if a != b or type(a) is not type(b):
                raise Mismatch(f"{a!r} became {b!r}", context)
            return
        if precision_literal(a) and precision_literal(b):
            if ast.dump(a) != ast.dump(b):
                self.edits.append(Edit("precision", *_span(a)))
            return
        if isinstance(a, ast.Call) and _is_partial(a.func) and not isinstance(b, ast.Call):
            self._unwrapped_partial(a, b)
            return
        if type(a) is not type(b):
            raise Mismatch(f"{type(a).__name__} became {type(b).__name__}: {_source(a)} -> {_source(b)}", a)
        if isinstance(a, ast.Call):
            self._call(a, b)
            return
        for name in a._fields:
            self.compare(getattr(a, name, None), getattr(b, name, None), a if hasattr(a, "lineno") else context)

    def _unwrapped_partial(self, a: ast.Call, b: ast.AST) -> None:
        keywords = [k.arg for k in a.keywords]
        if len(a.args) != 1 or keywords != ["accuracy"]:
            raise Mismatch(f"call {_source(a)} became {_source(b)}", a)
        if _helper(b, "rsqrt_safe") and _terminal_name(a.args[0]) == "rsqrt":
            self.edits.append(Edit("rsqrt", *_span(a)))
        else:
            self.compare(a.args[0], b, a)
        self.edits.append(Edit("accuracy", *_span(a)))

    def _call(self, a: ast.Call, b: ast.Call) -> None:
        routed = False
        a_args, b_args = list(a.args), list(b.args)
        if _helper(b.func, "lstm_float32") and not _helper(a.func, "lstm_float32"):
            if not b_args:
                raise Mismatch(f"{_source(b)} has no callee argument", a)
            self.compare(a.func, b_args.pop(0), a)
            routed = True
        elif b_args and _helper(b_args[0], "lstm_float32") and not (a_args and _helper(a_args[0], "lstm_float32")):
            if not _is_partial(b.func):
                raise Mismatch(f"lstm_float32 passed to {_source(b.func)}, not to partial()", a)
            self.compare(a.func, b.func, a)
            b_args.pop(0)
            routed = True
        elif _helper(b.func, "rsqrt_safe") and not _helper(a.func, "rsqrt_safe"):
            if _terminal_name(a.func) != "rsqrt":
                raise Mismatch(f"{_source(a.func)} became {b.func.id}", a)  # type: ignore[attr-defined]
            self.edits.append(Edit("rsqrt", *_span(a)))
        else:
            self.compare(a.func, b.func, a)
        if routed:
            self.edits.append(Edit("lstm", *_span(a)))
        if len(a_args) != len(b_args):
            raise Mismatch(f"arguments of {_source(a.func)} changed: {_source(a)} -> {_source(b)}", a)
        for x, y in zip(a_args, b_args):
            if routed and (_is_none(x) or precision_literal(x)) and precision_literal(y) \
                    and ast.dump(x) != ast.dump(y):  # the precision, positional: reported at the call
                self.edits.append(Edit("precision", *_span(a)))
                continue
            self.compare(x, y, a)
        a_keywords, b_keywords = list(a.keywords), list(b.keywords)
        b_names = [k.arg for k in b_keywords]
        a_names = [k.arg for k in a_keywords]
        if "accuracy" in a_names and "accuracy" not in b_names:
            a_keywords = [k for k in a_keywords if k.arg != "accuracy"]
            self.edits.append(Edit("accuracy", *_span(a)))
        if routed and "precision" in b_names and "precision" not in a_names:
            b_keywords = [k for k in b_keywords if k.arg != "precision"]
            self.edits.append(Edit("precision added", *_span(a)))
        if [k.arg for k in a_keywords] != [k.arg for k in b_keywords]:
            raise Mismatch(f"keywords of {_source(a.func)} changed: {_source(a)} -> {_source(b)}", a)
        for x, y in zip(a_keywords, b_keywords):
            if (routed and x.arg == "precision" and ast.dump(x.value) != ast.dump(y.value)
                    and (precision_literal(x.value) or _is_none(x.value)) and precision_literal(y.value)):
                self.edits.append(Edit("precision", *_span(a)))  # reported at the call
                continue
            self.compare(x.value, y.value, a)


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _source(node: Any) -> str:
    try:
        text = ast.unparse(node)
    except Exception:  # noqa: BLE001
        text = repr(node)
    return text if len(text) <= 160 else text[:157] + "..."


def _describe(value: Any) -> str:
    if isinstance(value, list):
        return f"{len(value)} items [{', '.join(_source(v) for v in value[:3])}{', ...' if len(value) > 3 else ''}]"
    return _source(value)


def _import_names(statement: ast.stmt) -> list[tuple[Any, ...]]:
    if isinstance(statement, ast.Import):
        return [("import", alias.name, alias.asname) for alias in statement.names]
    assert isinstance(statement, ast.ImportFrom)
    return [("from", statement.level, statement.module, alias.name, alias.asname) for alias in statement.names]


def _bound_name(spec: tuple[Any, ...]) -> str:
    if spec[0] == "import":
        return spec[2] or spec[1].split(".")[0]
    return spec[4] or spec[3]


def _names_read(tree: ast.AST) -> set[str]:
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    names |= {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)}
    return names


def _reference_helpers() -> dict[str, ast.FunctionDef]:
    tree = ast.parse(HELPERS_SOURCE.read_text())
    return {s.name: s for s in tree.body if isinstance(s, ast.FunctionDef)}


def _same_helper(reference: ast.FunctionDef, written: ast.FunctionDef) -> bool:
    """The written helper is the reference one, up to its name and the module's aliases of jnp/lax."""
    renames: dict[str, str] = {}
    a_nodes, b_nodes = list(ast.walk(reference)), list(ast.walk(written))
    if len(a_nodes) != len(b_nodes):
        return False
    for x, y in zip(a_nodes, b_nodes):
        if type(x) is not type(y):
            return False
        for name in x._fields:
            u, v = getattr(x, name, None), getattr(y, name, None)
            if isinstance(u, list) and isinstance(v, list) and len(u) != len(v):
                return False
            if isinstance(u, ast.AST) or isinstance(u, list) and u and isinstance(u[0], ast.AST):
                continue
            if x is reference and name == "name":
                continue
            if isinstance(x, ast.Name) and name == "id" and u != v:
                if u not in ("jnp", "lax") or renames.setdefault(u, v) != v:
                    return False
                continue
            if isinstance(x, ast.Constant) and isinstance(u, str) and isinstance(v, str):
                u, v = inspect.cleandoc(u), inspect.cleandoc(v)  # a docstring re-indented like the module
            if u != v:
                return False
    return True


@dataclass
class Structure:
    problems: list[str] = field(default_factory=list)
    edits: list[Edit] = field(default_factory=list)
    imports_added: list[str] = field(default_factory=list)
    imports_removed: list[str] = field(default_factory=list)
    helpers: list[str] = field(default_factory=list)


def structural_diff(before: ast.Module, after: ast.Module, fix_lines: list[int]) -> Structure:
    """What changed between two module ASTs, and every difference the tool may not make.

    Top-level statements are split into imports, helper definitions the output adds
    (`def rsqrt_safe*` / `def lstm_float32*`, a name the input does not bind at top level) and the
    rest. The rest must pair up one to one, in order, and each pair be equal but for the edits
    `Comparer` allows. Imports are compared as a multiset of imported names: a name may be added; a
    name may be removed only if the output no longer reads it. An added helper must be the reference
    helper of codemods/helpers_source.py (up to its name and the module's spelling of jnp/lax), and
    every helper name the output calls must be bound. Each edit must span a line with a fixed or
    dropped finding (`fix_lines`) and each such finding must fall in an edit."""
    result = Structure()
    top_names = {s.name for s in before.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    references = _reference_helpers()
    imports_before = [spec for s in before.body if isinstance(s, (ast.Import, ast.ImportFrom)) for spec in _import_names(s)]
    imports_after = [spec for s in after.body if isinstance(s, (ast.Import, ast.ImportFrom)) for spec in _import_names(s)]
    rest_before = [s for s in before.body if not isinstance(s, (ast.Import, ast.ImportFrom))]
    rest_after = []
    for statement in after.body:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(statement, ast.FunctionDef) and (m := HELPER_NAME.match(statement.name)) \
                and statement.name not in top_names:
            result.helpers.append(statement.name)
            if not _same_helper(references[m["base"]], statement):
                result.problems.append(f"line {statement.lineno}: inserted helper {statement.name} differs from "
                                       f"codemods/helpers_source.py")
            continue
        rest_after.append(statement)
    comparer = Comparer()
    if len(rest_before) != len(rest_after):
        result.problems.append(f"{len(rest_before)} top-level statements (imports and added helpers aside) became "
                               f"{len(rest_after)}")
    for x, y in zip(rest_before, rest_after):
        try:
            comparer.compare(x, y, x)
        except Mismatch as mismatch:
            result.problems.append(str(mismatch))
    result.edits = comparer.edits
    remaining = list(imports_after)
    for spec in imports_before:
        if spec in remaining:
            remaining.remove(spec)
        else:
            result.imports_removed.append(_import_text(spec))
            if _bound_name(spec) in _names_read(after):
                result.problems.append(f"import of {_bound_name(spec)} removed ({_import_text(spec)}) but the "
                                       f"output still uses the name")
    result.imports_added = [_import_text(spec) for spec in remaining]
    bound = {_bound_name(spec) for spec in imports_after}
    bound |= {s.name for s in after.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    called = {node.id for node in ast.walk(after) if isinstance(node, ast.Name) and HELPER_NAME.match(node.id)}
    called -= {node.id for node in ast.walk(before) if isinstance(node, ast.Name)}
    for name in sorted(called - bound):
        result.problems.append(f"{name} is used but not defined or imported at top level")
    for edit in result.edits:
        if not any(edit.first <= line <= edit.last for line in fix_lines):
            result.problems.append(f"lines {edit.first}-{edit.last}: {edit.kind} edit with no fixed/dropped finding")
    for line in fix_lines:
        if not any(edit.first <= line <= edit.last for edit in result.edits):
            result.problems.append(f"line {line}: fixed/dropped finding with no edit in the output")
    return result


def _import_text(spec: tuple[Any, ...]) -> str:
    if spec[0] == "import":
        return f"import {spec[1]}" + (f" as {spec[2]}" if spec[2] else "")
    module = "." * spec[1] + (spec[2] or "")
    return f"from {module} import {spec[3]}" + (f" as {spec[4]}" if spec[4] else "")


def parse_bytes(data: bytes, path: str) -> Optional[ast.Module]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.parse(data, path)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None


def compiles(data: bytes, path: str) -> Optional[str]:
    """None if `data` compiles with this Python, else why not."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(data, path, "exec", dont_inherit=True)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
            return f"{type(error).__name__}: {error}"
    return None


def self_test() -> tuple[int, list[str]]:
    """The structural check run on the tool's own golden outputs (tests/fixtures/*/NAME.in.py ->
    NAME.out.py, fixed/dropped lines from NAME.findings): every pair must pass, or the check is out
    of date with the tool and the sweep's verdicts cannot be trusted."""
    checked, problems = 0, []
    for source in sorted((REPO / "tests" / "fixtures").glob("*/*.in.py")):
        output = source.with_name(source.name[: -len(".in.py")] + ".out.py")
        findings = source.with_name(source.name[: -len(".in.py")] + ".findings")
        if not output.exists() or output.read_bytes() == source.read_bytes():
            continue
        lines = []
        if findings.exists():
            for line in findings.read_text().splitlines():
                if (match := FINDING_LINE.match(line)) and match["kind"] in FIX_KINDS:
                    lines.append(int(match["line"]))
        before, after = parse_bytes(source.read_bytes(), str(source)), parse_bytes(output.read_bytes(), str(output))
        if before is None or after is None:
            continue
        checked += 1
        name = source.relative_to(REPO).as_posix()
        problems += [f"{name}: {problem}" for problem in structural_diff(before, after, sorted(set(lines))).problems]
    return checked, problems


# ---------------------------------------------------------------------------------------------
# One package


@dataclass
class Result:
    package: Package
    py_on_disk: int = 0
    kernels: Optional[Run] = None
    write: Optional[Run] = None
    again: Optional[Run] = None
    changed: list[str] = field(default_factory=list)  # files whose bytes run 2 changed
    unparsable: list[tuple[str, str]] = field(default_factory=list)
    other_errors: list[tuple[str, str]] = field(default_factory=list)
    crashes: list[str] = field(default_factory=list)
    idempotence: list[str] = field(default_factory=list)
    compile_failures: list[str] = field(default_factory=list)
    compile_excluded: list[str] = field(default_factory=list)
    structure: list[str] = field(default_factory=list)
    edits: dict[str, int] = field(default_factory=dict)
    imports_added: list[str] = field(default_factory=list)
    imports_removed: list[str] = field(default_factory=list)
    helpers: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return bool(self.crashes or self.idempotence or self.compile_failures or self.structure)


def sweep_package(package: Package, scratch: Path, tool: str, env: dict[str, str], jobs: Optional[int]) -> Result:
    assert package.tree is not None
    result = Result(package)
    copy = scratch / package.key
    shutil.copytree(package.tree, copy, symlinks=True, ignore=shutil.ignore_patterns(".sweep-unpacked"))
    result.py_on_disk = sum(1 for _ in py_files(copy))
    jobs_args = ["--jobs", str(jobs)] if jobs else []
    # The three seed rules: the structural check knows their edits only (the JAX1xx upgrade rules'
    # renames and call rewrites are checked on real code by their own run, issue 19's note).
    common = ["--select", "JAX0", "--no-cache", "--jax-version", JAX_VERSION, *jobs_args]
    result.kernels = run_tool(tool, [*common, package.key], scratch, env, json_output=False)
    original = snapshot(copy)
    write_args = ["--scope", "all", "--write", "--unsafe-fixes", *common, "--output-format", "json", package.key]
    result.write = run_tool(tool, write_args, scratch, env, json_output=True)
    written = snapshot(copy)
    result.again = run_tool(tool, write_args, scratch, env, json_output=True)
    rewritten = snapshot(copy)

    for label, run in (("kernels dry run", result.kernels), ("--write", result.write), ("second --write", result.again)):
        result.crashes += [f"{label}: {crash}" for crash in run.crash]
    errors = {*result.kernels.errors, *result.write.errors}
    result.unparsable = sorted(e for e in errors if e[1].startswith(UNPARSABLE))
    result.other_errors = sorted(e for e in errors if not e[1].startswith(UNPARSABLE) and "internal error" not in e[1])

    # Which files changed: by bytes, and as the tool reports it.
    result.changed = sorted(path for path in original if written.get(path) != original[path])
    created = sorted(set(written) - set(original))
    if created:
        result.structure.append(f"files created by --write: {', '.join(created[:5])}")
    reported = {path.removeprefix(package.key + "/") for path in result.write.changed_paths}
    if not result.write.crash and reported != set(result.changed):
        result.structure.append(f"files reported changed {sorted(reported - set(result.changed))[:5]} and files "
                                f"changed on disk {sorted(set(result.changed) - reported)[:5]} differ")

    # Idempotence.
    again = result.again
    if again.returncode not in (0, 2) or (again.returncode == 2 and set(again.errors) != set(result.write.errors)):
        result.idempotence.append(f"second --write exited {again.returncode} (errors: {again.errors[:3]})")
    if again.summary.get("changed"):
        result.idempotence.append(f"second --write reports {again.summary['changed']} changed file(s): "
                                  f"{sorted(again.changed_paths)[:5]}")
    if again.count(*FIX_KINDS):
        result.idempotence.append(f"second --write reports {again.count(*FIX_KINDS)} fix(es)")
    differing = sorted(path for path in set(written) | set(rewritten) if written.get(path) != rewritten.get(path))
    if differing:
        result.idempotence.append(f"second --write changed {', '.join(differing[:5])}")

    # Compiles, and the structural check, for every changed file.
    fix_lines: dict[str, list[int]] = {}
    for finding in result.write.findings:
        if finding["kind"] in FIX_KINDS:
            fix_lines.setdefault(finding["path"].removeprefix(package.key + "/"), []).append(finding["line"])
    for relative in result.changed:
        before = (package.tree / relative).read_bytes()
        after = (copy / relative).read_bytes()
        if compiles(before, relative) is not None:
            result.compile_excluded.append(relative)
            continue
        problem = compiles(after, relative)
        if problem:
            result.compile_failures.append(f"{relative}: {problem}")
            continue
        tree_before, tree_after = parse_bytes(before, relative), parse_bytes(after, relative)
        assert tree_before is not None and tree_after is not None
        structure = structural_diff(tree_before, tree_after, sorted(set(fix_lines.get(relative, []))))
        result.structure += [f"{relative}: {problem}" for problem in structure.problems]
        for edit in structure.edits:
            result.edits[edit.kind] = result.edits.get(edit.kind, 0) + 1
        result.imports_added += [f"{relative}: {text}" for text in structure.imports_added]
        result.imports_removed += [f"{relative}: {text}" for text in structure.imports_removed]
        result.helpers += [f"{relative}: {name}" for name in structure.helpers]
    return result


# ---------------------------------------------------------------------------------------------
# Report


def _cell(ok: bool, detail: str = "") -> str:
    return ("yes" if ok else "**NO**") + (f" ({detail})" if detail else "")


def table(results: list[Result], skipped: list[Package]) -> str:
    header = ("| package | version | .py files | parsed | changed (kernels / all) | fixes (kernels / all) "
              "| manual (kernels / all) | errors / unparsable | idempotent | compiles | structural check |")
    rows = [header, "|" + " --- |" * header.count(" | ") + " --- |"]
    totals = [0] * 11
    for r in results:
        k, w = r.kernels, r.write
        assert k is not None and w is not None
        scanned = w.summary.get("scanned", 0)
        files = f"{scanned}" + (f" ({r.py_on_disk} on disk)" if r.py_on_disk != scanned else "")
        counts = [scanned, r.py_on_disk, w.summary.get("parsed", 0), k.summary.get("changed", 0), len(r.changed),
                  k.count(*FIX_KINDS), w.count(*FIX_KINDS), k.count("manual"), w.count("manual"),
                  len(r.unparsable) + len(r.other_errors), len(r.crashes)]
        totals = [t + c for t, c in zip(totals, counts)]
        errors = f"{len(r.unparsable) + len(r.other_errors)}" + (f", **{len(r.crashes)} crash(es)**" if r.crashes else "")
        compiled = len(r.changed) - len(r.compile_excluded)
        rows.append(
            f"| {r.package.name} | {r.package.version} | {files} | {counts[2]} | {counts[3]} / {counts[4]} "
            f"| {counts[5]} / {counts[6]} | {counts[7]} / {counts[8]} | {errors} "
            f"| {_cell(not r.idempotence)} "
            f"| {_cell(not r.compile_failures, f'{compiled - len(r.compile_failures)}/{compiled}' + (f', {len(r.compile_excluded)} excluded' if r.compile_excluded else ''))} "
            f"| {_cell(not r.structure, f'{len(r.changed)} file(s)' if r.changed else 'nothing changed')} |"
        )
    files = f"{totals[0]}" + (f" ({totals[1]} on disk)" if totals[0] != totals[1] else "")
    ok = lambda attribute: all(not getattr(r, attribute) for r in results)  # noqa: E731
    rows.append(
        f"| **total** ({len(results)} packages) | | {files} | {totals[2]} | {totals[3]} / {totals[4]} "
        f"| {totals[5]} / {totals[6]} | {totals[7]} / {totals[8]} | {totals[9]}"
        + (f", **{totals[10]} crash(es)**" if totals[10] else "")
        + f" | {_cell(ok('idempotence'))} | {_cell(ok('compile_failures'))} | {_cell(ok('structure'))} |"
    )
    for package in skipped:
        rows.append(f"| {package.name} | {package.version} | skipped: {package.skipped} | | | | | | | | |")
    return "\n".join(rows)


def details(results: list[Result], timings: list[tuple[str, float]]) -> str:
    lines: list[str] = []
    problems = [(r.package.key, label, item) for r in results for label, items in (
        ("crash", r.crashes), ("not idempotent", r.idempotence), ("does not compile", r.compile_failures),
        ("structural", r.structure)) for item in items]
    lines.append("### Problems\n")
    if problems:
        lines += [f"- {key}: {label}: {item}" for key, label, item in problems]
    else:
        lines.append("None: no crash, every changed file idempotent, compiling and structurally clean.")
    lines.append("\n### Changed files (`--scope all --write`)\n")
    changed = [(r, path) for r in results for path in r.changed]
    if changed:
        for r in results:
            if not r.changed:
                continue
            kinds = ", ".join(f"{count} {kind}" for kind, count in sorted(r.edits.items()))
            lines.append(f"- {r.package.key}: {', '.join(r.changed)} (edits: {kinds or 'none'})")
            for label, items in (("imports added", r.imports_added), ("imports removed (unused after the fix)",
                                 r.imports_removed), ("helpers inserted", r.helpers)):
                if items:
                    lines.append(f"  - {label}: {'; '.join(items)}")
            if r.compile_excluded:
                lines.append(f"  - inputs that do not compile (excluded): {', '.join(r.compile_excluded)}")
    else:
        lines.append("None.")
    lines.append("\n### Errors (files the tool could not process)\n")
    errors = [(r.package.key, path, message) for r in results for path, message in r.unparsable + r.other_errors]
    if errors:
        lines += [f"- {path}: {message}" for _, path, message in errors]
    else:
        lines.append("None.")
    findings: dict[tuple[str, str, str], int] = {}
    for r in results:
        for scope, run in (("kernels", r.kernels), ("all", r.write)):
            for finding in run.findings if run else ():
                key = (scope, finding["rule"], finding["kind"])
                findings[key] = findings.get(key, 0) + 1
    lines.append("\n### Findings by rule and kind\n")
    lines.append("| scope | rule | kind | count |\n| --- | --- | --- | --- |")
    lines += [f"| {scope} | {rule} | {kind} | {count} |" for (scope, rule, kind), count in sorted(findings.items())]
    notes = [(r.package.key, line) for r in results for run in (r.kernels, r.write, r.again) if run for line in run.notes]
    if notes:
        lines.append("\n### Other lines the tool printed on stderr\n")
        lines += [f"- {key}: `{line[:200]}`" for key, line in dict.fromkeys(notes)]
    lines.append("\n### Sources\n")
    lines += [f"- {r.package.key}: {r.package.source}" for r in results]
    lines.append("\n### Timings (wall clock, s)\n")
    lines.append("| package | kernels dry run | --scope all --write | second --write |\n| --- | --- | --- | --- |")
    for r in results:
        assert r.kernels and r.write and r.again
        lines.append(f"| {r.package.key} | {r.kernels.seconds:.2f} | {r.write.seconds:.2f} | {r.again.seconds:.2f} |")
    sums = [sum(getattr(r, name).seconds for r in results) for name in ("kernels", "write", "again")]
    lines.append(f"| **total** | {sums[0]:.1f} | {sums[1]:.1f} | {sums[2]:.1f} |")
    lines.append("")
    lines += [f"- {name}: {seconds:.1f} s" for name, seconds in timings]
    return "\n".join(lines)


METHOD = """\
## Method

`make sweep` (`bench/sweep.py`; not part of `make test`). Each pinned release is fetched once with
`pip download --no-deps` into `bench/.corpus/sweep/` (ignored by git) and unpacked (wheels as zips,
sdists as tar.gz). The unpacked trees are copied into a scratch folder outside any git work tree,
and the installed `jax-codemod` runs on each package's copy (`COPY/PKG`), with
`JAX_CODEMOD_CACHE_DIR` in the scratch folder:

1. `jax-codemod --no-cache --jax-version {jax} COPY/PKG`: the default `--scope kernels` dry run, text
   output. Its findings give the *kernels* counts.
2. `jax-codemod --scope all --write --no-cache --jax-version {jax} --output-format json COPY/PKG`:
   every file rewritten in place. Its findings give the *all* counts.
3. The same command again, on what run 2 wrote.

Columns. *.py files*: the files the tool scanned (its default excludes skip folders such as
`build/`, `env/`: the number on disk is shown where it differs). *parsed*: files the tool parsed (a
file without any of the words the rules look for is skipped unparsed). *changed*: files run 1 would
change / files whose bytes run 2 changed. *fixes*: `fixed` + `dropped` findings; *manual*:
`[manual]` findings. *errors / unparsable*: the tool's `cannot parse` / `cannot decode` (and any other
per-file) errors, listed below with their reasons.

Before the packages, the structural check below runs on the tool's own golden pairs
(`tests/fixtures/*/NAME.in.py` -> `NAME.out.py`, fixed lines from `NAME.findings`): each must pass,
else the check is out of date with the tool and the sweep fails. Timings are wall clock on a
machine shared with other work (2 cores): compare them within one run only.

Checks (the sweep exits 1 if one fails):

- **crashes**: an exit status other than 0, 1 or 2, a Python traceback on stderr, or an
  `internal error` in any run; counted in *errors / unparsable* and listed under Problems.
- **idempotent**: run 3 exits 0 (or 2 with exactly run 2's errors, i.e. the same unparsable files),
  reports no change and no fix, and no file of the tree differs after it (sha256 of every file).
- **compiles**: every file run 2 changed is `compile()`d with this Python; a file whose input did
  not compile is excluded and counted.
- **structural check**: for every changed file, input and output are parsed with `ast`. Top-level
  statements are split into imports, helper definitions the output adds (`def rsqrt_safe*`,
  `def lstm_float32*`, names the input does not define) and the rest. The rest must pair up one to
  one and be equal field by field except for the tool's own edits: a precision literal
  (`P.HIGH`, `'bfloat16'`, `Precision('high')` or a pair) replaced by another (JAX001, wherever the
  literal is written), an `accuracy=` keyword dropped or `functools.partial(f, accuracy=h)` replaced by
  `f` (JAX002), an `rsqrt` callee replaced by `rsqrt_safe` (JAX002), `f(...)` routed through
  `lstm_float32(f, ...)` (also inside `partial`) with its precision replaced or appended (JAX003).
  Each such edit must span a line the tool reported as fixed/dropped, and each fixed/dropped finding
  must fall in an edit. Imports are compared as a multiset of imported names: names may be added; a
  name may be removed only if the output no longer uses it. An inserted helper must equal the one in
  `codemods/helpers_source.py` (up to its name and the module's spelling of `jnp`/`lax`), and every
  helper the output calls must be bound at top level. The files the tool reports as changed must be
  exactly the files whose bytes differ.
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--packages", nargs="+", metavar="NAME", help="Only these distributions (default: all).")
    parser.add_argument("--report", type=Path, help=f"Write the report here (default {REPORT.relative_to(REPO)}, "
                        "only when every package is swept).")
    parser.add_argument("--jobs", type=int, help="Passed to jax-codemod --jobs (default: its own, all cores).")
    parser.add_argument("--keep", action="store_true", help="Keep the scratch copy.")
    args = parser.parse_args()

    started = time.perf_counter()
    timings: list[tuple[str, float]] = []
    tool = shutil.which("jax-codemod", path=str(Path(sys.executable).parent)) or shutil.which("jax-codemod")
    if tool is None:
        sys.exit("jax-codemod is not installed for this Python (make sweep installs it)")
    version = subprocess.run([tool, "--version"], capture_output=True, text=True).stdout.strip()
    wanted = [(name, pin) for name, pin in PACKAGES if not args.packages or name in args.packages]
    unknown = set(args.packages or ()) - {name for name, _ in PACKAGES}
    if unknown:
        sys.exit(f"not in the pinned list: {', '.join(sorted(unknown))}")

    checked, checker_problems = self_test()
    print(f"structural check on the tool's golden fixtures: {checked} changed pairs, "
          f"{len(checker_problems)} problem(s)", flush=True)
    for problem in checker_problems:
        print(f"  {problem}", flush=True)

    packages = [Package(name, pin) for name, pin in wanted]
    print(f"fetching {len(packages)} packages into {CACHE.relative_to(REPO)}/ ...", flush=True)
    clock = time.perf_counter()
    for package in packages:
        fetch(package)
        print(f"  {package.key}: {package.skipped or package.source}", flush=True)
    timings.append(("fetch + unpack", time.perf_counter() - clock))
    swept = [p for p in packages if not p.skipped]
    skipped = [p for p in packages if p.skipped]
    if not swept:
        print("nothing to sweep: every download failed", file=sys.stderr)
        return 1

    scratch = Path(tempfile.mkdtemp(prefix="jax-codemod-sweep-"))
    env = {**os.environ, "JAX_CODEMOD_CACHE_DIR": str(scratch / ".cache")}
    results: list[Result] = []
    try:
        print(f"sweeping with {tool} ({version}), target jax {JAX_VERSION}, scratch {scratch}", flush=True)
        clock = time.perf_counter()
        for package in swept:
            result = sweep_package(package, scratch, tool, env, args.jobs)
            results.append(result)
            assert result.write is not None
            status = "FAILED" if result.failed else "ok"
            print(f"  {package.key}: {result.write.summary.get('scanned', '?')} files, {len(result.changed)} changed, "
                  f"{len(result.unparsable)} unparsable: {status}", flush=True)
        timings.append(("sweep (3 runs per package + checks)", time.perf_counter() - clock))
    finally:
        if args.keep:
            print(f"scratch copy kept: {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    timings.append(("total", time.perf_counter() - started))

    rows = table(results, skipped)
    failed = any(r.failed for r in results) or bool(checker_problems)
    checker = (f"Structural check self-test: the {checked} changed golden pairs of `tests/fixtures/` "
               + ("pass." if not checker_problems else
                  "**do not all pass** (the check is out of date with the tool):\n\n"
                  + "\n".join(f"- {problem}" for problem in checker_problems)))
    git = subprocess.run(["git", "-C", str(REPO), "describe", "--always", "--dirty"], capture_output=True, text=True)
    context = (f"{datetime.date.today().isoformat()}; Python {platform.python_version()}; jax {JAX_VERSION} "
               f"(target `--jax-version {JAX_VERSION}`); {version} at {git.stdout.strip() or 'unknown revision'}; "
               f"{os.cpu_count()} cores")
    report = "\n\n".join([
        "# Sweep: jax-codemod over the JAX ecosystem",
        "Generated by `make sweep` (`bench/sweep.py`); do not edit by hand.",
        f"Last run: {context}. Result: **{'FAILED' if failed else 'passed'}**.",
        rows,
        checker,
        details(results, timings),
        METHOD.format(jax=JAX_VERSION),
    ]) + "\n"
    print()
    print(rows)
    print()
    print(details(results, timings))
    destination = args.report or (REPORT if not args.packages else None)
    if destination:
        destination.write_text(report)
        print(f"\nwritten: {destination}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
