#!/usr/bin/env python
"""Injection over real Pallas kernels: does `jax-codemod` find every call that would fail to lower?

    python bench/inject.py                        # every site of jax's Pallas ops; writes bench/INJECT.md
    python bench/inject.py --sample               # the fixed small subset (tests/test_inject.py)
    python bench/inject.py --limit 20 --jobs 2    # the first 20 sites, two at a time
    python bench/inject.py --tool-root /tmp/head  # run `python -m codemods` from that source tree
                                                  # (e.g. `git archive HEAD | tar -x -C /tmp/head`)

The promise under test: `jax-codemod --check` reports a finding wherever a kernel would fail to lower.
Into every module of `jax/experimental/pallas/ops/` (the ones jax's wheel ships), ONE SITE AT A TIME,
each in a fresh copy of the whole `ops` package (so the tool's project analysis sees the sibling
modules), one of these walls is injected (kind: what, where; the rule that must find it in a Mosaic TPU kernel):

  precision    (JAX001) `precision=(jax.lax.Precision.DEFAULT, jax.lax.Precision.HIGHEST)` (spelled with a
               name the module binds; an existing `precision` replaced) into every contraction: `lax.dot_general`,
               `lax.dot`, `jnp.dot`, `jnp.matmul`, `jnp.einsum`, `pl.dot`, the Triton `dot`,
               `lax.conv_general_dilated`, `lax.conv`, `lax.batch_matmul`
  accuracy     (JAX002) `accuracy=<lax>.AccuracyMode.HIGHEST` into every `lax.<f>` that takes it (rsqrt, exp, ...)
  math         (JAX007) every `jnp.exp`/`lax.exp` renamed `jnp.arctan`/`lax.atan` (no Mosaic TPU lowering)
  narrow       (JAX004) an int8 cast of what a `jnp.max`/`min` (or `.max(axis=...)`) reduces
               (`jnp.max(s.astype(jnp.int8), axis=1)`: "Reductions over int8 not implemented." when lowered),
               or of the operands of a +, -, * on a ref's load, cast back to the ref's dtype
               (`(x_ref[...].astype(jnp.int8) * jnp.int8(s)).astype(x_ref.dtype)`: this lowers, and only
               Mosaic's compiler on the chip refuses it, so the static label decides there)
  x64          (JAX005) x64 turned on at the end of the module (`import jax; jax.config.update("jax_enable_x64",
               True)`: no line moves) and a 32-bit dtype given to `jnp.zeros/ones/empty/full(_like)`,
               `jnp.arange`, `lax.iota`/`broadcasted_iota` dropped where jax's default then is 64-bit
               (`jnp.zeros(s)`, `jnp.arange(n)`), else widened (`jnp.int64`): "64-bit types are not
               supported" when lowered (an int64 iota lowers, and only the chip refuses it)
  debug_print  (JAX008) after each `v = x_ref[...]` (a block loaded from a ref), the line
               `pl.debug_print("v > 0: {}", (v > 0)[0, 0])`: a bool scalar, "Only arrays with 32-bit element
               types can be converted to scalars" when lowered

Then:

  1. the tool, written: jax-codemod --no-cache --jax-version V --output-format json -j 1 --write
     --unsafe-fixes COPY/ops (its findings are the dry run's: they are made before anything is written)
  2. where an entry point of the module lowers on the CPU for TPU (ENTRIES below), the injected copy and
     the written copy are imported in place of `jax.experimental.pallas.ops` and lowered with
     `jax.export.export(jax.jit(f), platforms=["tpu"])` (a fresh subprocess each).

The oracle that says whether a site must be reported never comes from the tool:

  lowering  the injected copy fails with the kind's error (WALL_ERRORS) -> "kernel" (the site runs in a
            Mosaic TPU kernel). It lowers and the injection shows up in the exported StableHLO (more
            often than in the pristine copy: MARK_PATTERNS) -> "xla". It lowers and nothing shows -> the
            site is not reached, or its wall is the chip's alone; the static label decides. Only the
            entries that lower in the pristine copy count (under x64 some of jax's own do not: x64's
            pristine copy has x64 turned on in each module it injects into).
  static    (`static_labels`) a site lexically inside a function handed to a launcher (pl.pallas_call,
            pl.kernel, pl.core_map, pltpu.emit_pipeline, plgpu.kernel, plgpu.emit_pipeline, ...; by name,
            through functools.partial, `x = f if c else g` and `x = f` assignments, or as a decorator),
            or inside a function such a function names, is "kernel" (ops/tpu, or a Mosaic GPU launch
            with accuracy=), "triton" (ops/gpu, pl.pallas_call without Mosaic GPU compiler params),
            "kernel-mgpu" for a contraction in a Mosaic GPU kernel (unverified: "unknown" for scoring);
            any other site is "xla", or "unknown" when a launch in the file has a body the oracle
            cannot name.

Per site: found (a finding on the injected call's lines), fixed (found with a fix that --write applied,
and where the oracle lowers, the written copy lowers), manual ([manual]/[warning] findings), missed (a
"kernel" site with no finding), false (a finding at an "xla"/"triton" site), other_lines_changed (after
--write, a changed line of any file other than the injected call's, beyond what the tool writes on the
pristine package and beyond an inserted helper/import block), crash (exit status not 0/1/2, "internal
error", or a traceback), fix_not_lowering (the oracle lowers, or the site is a kernel's and its
injected copy lowers, and the written copy does not).
Exit 1 on any crash, missed, false, other line changed or fix that does not lower.
"""

from __future__ import annotations

import argparse
import ast
import concurrent.futures
import dataclasses
import datetime
import difflib
import importlib
import importlib.util
import json
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Optional

REPO = Path(__file__).resolve().parents[1]
REPORT = REPO / "bench" / "INJECT.md"
CORPUS = REPO / "bench" / ".corpus" / "sweep" / "unpacked"
JAX_VERSION = "0.12.0.1"
OPS_PACKAGE = "jax.experimental.pallas.ops"
TOOL_TIMEOUT_S = 300
LOWER_TIMEOUT_S = 300

PRECISION_PAIR = "DEFAULT, HIGHEST"                  # how the injected pair prints in StableHLO
ACCURACY_MARK = "result_accuracy_mode<HIGHEST>"      # how the injected accuracy prints in StableHLO
MATH_MARK = "atan"                                   # how the injected arctan prints in StableHLO
# Kind -> the errors that say the injected site is in a Mosaic TPU kernel (the wall, as the lowering
# for TPU on a CPU raises it). narrow: only a reduction's wall is raised by the lowering; the 8-bit
# arithmetic the kind also injects lowers, and Mosaic's compiler refuses it on the chip only (static label).
# x64: an int64 iota lowers likewise and fails on the chip only.
WALL_ERRORS: dict[str, tuple[str, ...]] = {
    "precision": ("Per-operand dot precision unsupported", "Per-operand conv precision unsupported"),
    "accuracy": ("Not implemented: accuracy",),
    "math": ("Unimplemented primitive in Pallas TPU lowering for tc: atan",),
    "narrow": ("Reductions over int8 not implemented",),
    "x64": ("64-bit types are not supported",),
    "debug_print": ("Only arrays with 32-bit element types can be converted to scalars",),
}
KINDS = tuple(WALL_ERRORS)
# Kind -> what the injection leaves in the exported StableHLO where the site runs in XLA code.
MARK_PATTERNS = {
    "precision": re.escape(PRECISION_PAIR),
    "accuracy": re.escape(ACCURACY_MARK),
    "math": re.escape(MATH_MARK),
    "narrow": r"[x<]i8>",
    "x64": r"[x<][fi]64>",
    "debug_print": r"debug_print",
}

# Contractions: qualified name -> index of `precision` when passed positionally (None: keyword only).
CONTRACTIONS: dict[str, Optional[int]] = {
    "jax.lax.dot_general": 3,
    "jax.lax.dot": None,
    "jax.lax.batch_matmul": 2,
    "jax.lax.conv_general_dilated": 9,
    "jax.lax.conv": 4,
    "jax.numpy.dot": None,
    "jax.numpy.matmul": None,
    "jax.numpy.einsum": None,
    "jax.experimental.pallas.dot": 5,
    "jax.experimental.pallas.triton.dot": 5,
}
# lax functions with an `accuracy=` keyword on jax 0.12 (inspect.signature over jax.lax).
TRANSCENDENTALS = {f"jax.lax.{name}" for name in (
    "cbrt", "cos", "erfc", "exp", "exp2", "expm1", "log", "log1p", "log2", "logistic", "rsqrt", "sin",
    "sqrt", "tan", "tanh")}

# Launchers: qualified name -> the backend of its kernel ("tpu", "mgpu", "pallas_call": by folder and
# compiler_params). Their body is the first positional argument (or `kernel=` / `body=`).
LAUNCHERS = {
    "jax.experimental.pallas.pallas_call": "pallas_call",
    "jax.experimental.pallas.kernel": "by_folder",
    "jax.experimental.pallas.core_map": "by_folder",
    "jax.experimental.pallas.run_scoped": "inherit",
    "jax.experimental.pallas.tpu.emit_pipeline": "tpu",
    "jax.experimental.pallas.tpu.emit_pipeline_with_allocations": "tpu",
    "jax.experimental.pallas.tpu.run_on_first_core": "tpu",
    "jax.experimental.pallas.mosaic_gpu.kernel": "mgpu",
    "jax.experimental.pallas.mosaic_gpu.emit_pipeline": "mgpu",
    "jax.experimental.pallas.mosaic_gpu.emit_pipeline_warp_specialized": "mgpu",
}
PARTIAL = {"functools.partial"}
# Kind `math`: the callee renamed to a function Mosaic TPU cannot lower (its module's own spelling kept).
MATH_RENAMES = {"jax.numpy.exp": "arctan", "jax.lax.exp": "atan"}
# Kind `narrow`: an 8-bit cast of what a max/min reduction or a ref load's +, -, * computes on.
NARROW_REDUCTIONS = frozenset({"jax.numpy.max", "jax.numpy.min", "jax.numpy.amax", "jax.numpy.amin"})
NARROW_OPS = (ast.Add, ast.Sub, ast.Mult)
INT8_RANGE = range(-128, 128)
# Kind `x64`: calls given a 32-bit dtype -> where it goes positionally. Under x64 (the module turns it on)
# the dtype is dropped where that leaves jax's 64-bit default (DEFAULT_DTYPES), else widened (WIDENED).
X64_CALLS: dict[str, Optional[int]] = {
    **{f"jax.numpy.{name}": 1 for name in ("zeros", "ones", "empty", "zeros_like", "ones_like", "empty_like")},
    "jax.numpy.full": 2, "jax.numpy.full_like": 2, "jax.numpy.arange": None,
    "jax.lax.iota": 0, "jax.lax.broadcasted_iota": 0,
}
DEFAULT_DTYPES = {"jax.numpy.zeros": "float32", "jax.numpy.ones": "float32", "jax.numpy.empty": "float32",
                  "jax.numpy.arange": "int32"}
WIDENED = {"float32": "float64", "int32": "int64", "uint32": "uint64"}
DTYPE_MODULES = ("jax.numpy", "numpy")
X64_ON = 'jax.config.update("jax_enable_x64", True)'


# ---------------------------------------------------------------------------------------------
# Sites


@dataclasses.dataclass(frozen=True)
class Site:
    rel: str            # path relative to the copied package root, posix
    line: int           # the call's first line (1-based)
    end_line: int
    col: int
    end_col: int
    kind: str           # one of KINDS
    func: str           # qualified callee, e.g. jax.lax.dot_general (the op for a narrow +, -, *)
    callee: str         # as written, e.g. lax.dot_general
    injected: str       # the text injected (the value, the dtype, the statement)
    added: int = 0      # lines the injection inserts after the node's last line (debug_print's statement)

    @property
    def key(self) -> str:
        return f"{self.rel}:{self.line}:{self.kind}"

    @property
    def lines(self) -> tuple[int, int]:
        """The site's first and last line in the injected file: the inserted lines, else the node's."""
        return (self.end_line + 1, self.end_line + self.added) if self.added else (self.line, self.end_line)


def aliases(tree: ast.Module) -> dict[str, str]:
    """Names the module's imports bind -> the qualified module/object (relative imports ignored)."""
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    bound[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    bound[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    for node in tree.body:  # module-level `partial = functools.partial`
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            target = qualify(node.value, bound)
            if target:
                bound[node.targets[0].id] = target
    return bound


def qualify(expr: ast.AST, bound: dict[str, str]) -> Optional[str]:
    if isinstance(expr, ast.Name):
        return bound.get(expr.id)
    if isinstance(expr, ast.Attribute):
        base = qualify(expr.value, bound)
        return f"{base}.{expr.attr}" if base else None
    return None


def _local_names(tree: ast.Module, line: int) -> set[str]:
    """Names bound (parameters, assignments) in the functions that enclose `line`."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and \
                node.lineno <= line <= (node.end_lineno or node.lineno):
            args = node.args
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
                if arg is not None:
                    names.add(arg.arg)
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    names.add(sub.id)
    return names


def spelling(tree: ast.Module, bound: dict[str, str], line: int, kind: str) -> Optional[str]:
    """The injected value, through a name the module binds at module level and no enclosing function
    rebinds: `jax.lax.X` if `jax` is imported, else `<lax>.X`; a precision pair falls back to strings."""
    shadowed = _local_names(tree, line)
    module_level = {name for name, target in bound.items() if name not in shadowed}
    prefix = None
    for name in sorted(module_level):
        if bound[name] == "jax":
            prefix = f"{name}.lax"
            break
    if prefix is None:
        for name in sorted(module_level):
            if bound[name] == "jax.lax":
                prefix = name
                break
    if kind == "precision":
        if prefix is None:
            return '("default", "highest")'
        return f"({prefix}.Precision.DEFAULT, {prefix}.Precision.HIGHEST)"
    return None if prefix is None else f"{prefix}.AccuracyMode.HIGHEST"


def find_sites_in_source(source: str, rel: str) -> list[Site]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    bound = aliases(tree)
    sites = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = qualify(node.func, bound)
        # (lax.exp's accuracy= would not survive the rename: lax.atan takes none)
        if func in MATH_RENAMES and isinstance(node.func, ast.Attribute) and \
                not any(keyword.arg == "accuracy" for keyword in node.keywords):
            callee = ast.get_source_segment(source, node.func) or func
            sites.append(Site(rel, node.lineno, node.end_lineno or node.lineno, node.col_offset, node.end_col_offset,
                              "math", func, callee, callee.rsplit(".", 1)[0] + "." + MATH_RENAMES[func]))
        if func in CONTRACTIONS:
            kind = "precision"
        elif func in TRANSCENDENTALS:
            kind = "accuracy"
        else:
            continue
        value = spelling(tree, bound, node.lineno, kind)
        if value is None:  # nothing the module binds names lax.AccuracyMode there: not injected
            continue
        sites.append(Site(rel, node.lineno, node.end_lineno or node.lineno, node.col_offset, node.end_col_offset, kind, func,
                          ast.get_source_segment(source, node.func) or func, value))
    sites += narrow_sites(source, tree, bound, rel) + x64_sites(source, tree, bound, rel) + \
        debug_print_sites(source, tree, bound, rel)
    return sorted(sites, key=lambda s: (s.rel, s.line, s.col, s.kind))


def bound_spelling(tree: ast.Module, bound: dict[str, str], line: int, target: str) -> Optional[str]:
    """`target` (a module) through a name the module binds at module level and no function around
    `line` rebinds: the name bound to it (`jnp`), else through one bound to a parent (`jax.numpy`)."""
    shadowed = _local_names(tree, line)
    names = sorted(name for name in bound if name not in shadowed)
    exact = next((name for name in names if bound[name] == target), None)
    if exact is not None:
        return exact
    return next((name + target[len(bound[name]):] for name in names if target.startswith(bound[name] + ".")), None)


def _ref_load(node: ast.AST) -> bool:
    """A read of a kernel's ref: `x_ref[...]`, `k_ref[i, :]` (by the `_ref` naming jax's kernels use)."""
    return isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and \
        isinstance(node.value, ast.Name) and node.value.id.endswith("_ref")


def _int_literal(node: ast.AST) -> Optional[int]:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _int_literal(node.operand)
        return None if inner is None else -inner
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else None


def narrow_operands(node: ast.AST, bound: dict[str, str]) -> list[ast.expr]:
    """What kind `narrow` casts to int8 at `node`: the operand of a `jnp.max`/`min` reduction or of a
    `.max(axis=...)`/`.min(...)` method, or the operands of a +, -, * on a ref's load (a Python int
    in int8's range stays as written: jax gives it the array's dtype). [] where `node` is no such op."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, NARROW_OPS):
        operands = [node.left, node.right]
        literals = [value for operand in operands if (value := _int_literal(operand)) is not None]
        if not any(_ref_load(operand) for operand in operands) or any(value not in INT8_RANGE for value in literals) \
                or any(isinstance(operand, ast.Constant) and _int_literal(operand) is None for operand in operands):
            return []
        return [operand for operand in operands if _int_literal(operand) is None]
    if not isinstance(node, ast.Call) or any(isinstance(arg, ast.Starred) for arg in node.args) or \
            any(keyword.arg in (None, "initial", "where", "out") for keyword in node.keywords):
        return []
    if qualify(node.func, bound) in NARROW_REDUCTIONS and node.args:
        return [node.args[0]]
    if isinstance(node.func, ast.Attribute) and node.func.attr in ("max", "min") and not node.args and \
            node.keywords and qualify(node.func, bound) is None:
        return [node.func.value]
    return []


def narrow_sites(source: str, tree: ast.Module, bound: dict[str, str], rel: str) -> list[Site]:
    sites = []
    for node in ast.walk(tree):
        if not narrow_operands(node, bound):
            continue
        jnp = bound_spelling(tree, bound, node.lineno, "jax.numpy")
        if jnp is None:
            continue
        if isinstance(node, ast.BinOp):
            func, callee = f"operator.{type(node.op).__name__.lower()}", ast.get_source_segment(source, node) or ""
        else:
            func = qualify(node.func, bound) or f".{node.func.attr}"  # type: ignore[union-attr]
            callee = ast.get_source_segment(source, node.func) or func
        sites.append(Site(rel, node.lineno, node.end_lineno or node.lineno, node.col_offset, node.end_col_offset,
                          "narrow", func, one_line(callee)[:60], f"{jnp}.int8"))
    return sites


def dtype_argument(call: ast.Call, func: str) -> Optional[ast.AST]:
    """The `dtype=` keyword (the keyword node) or the positional argument X64_CALLS names."""
    keyword = next((keyword for keyword in call.keywords if keyword.arg == "dtype"), None)
    position = X64_CALLS[func]
    if keyword is None and position is not None and len(call.args) > position and \
            not any(isinstance(arg, ast.Starred) for arg in call.args[: position + 1]):
        return call.args[position]
    return keyword


def dtype_name(node: ast.AST, bound: dict[str, str]) -> Optional[str]:
    """"float32" for `jnp.float32`, `np.float32` or "float32"."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    qualified = qualify(node, bound)
    module, _, name = (qualified or "").rpartition(".")
    return name if module in DTYPE_MODULES else None


def x64_sites(source: str, tree: ast.Module, bound: dict[str, str], rel: str) -> list[Site]:
    """Calls given a 32-bit dtype: under x64 the dtype dropped (jax's default is 64-bit then) where
    the call has such a default and the argument goes with its line, else widened."""
    if bound.get("jax", "jax") != "jax":
        return []  # `jax` names something else here: the x64 line could not be written
    sites = []
    for node in ast.walk(tree):
        func = qualify(node.func, bound) if isinstance(node, ast.Call) else None
        if func not in X64_CALLS or any(keyword.arg is None for keyword in node.keywords):  # type: ignore[union-attr]
            continue
        argument = dtype_argument(node, func)  # type: ignore[arg-type]
        value = argument.value if isinstance(argument, ast.keyword) else argument
        dtype = dtype_name(value, bound) if value is not None else None
        if dtype not in WIDENED:
            continue
        callee = ast.get_source_segment(source, node.func) or func  # type: ignore[union-attr]
        if DEFAULT_DTYPES.get(func) == dtype and _droppable(node, argument):  # type: ignore[arg-type]
            injected = "no dtype"
        else:
            written = ast.get_source_segment(source, value) or dtype  # type: ignore[arg-type]
            injected = written.replace(dtype, WIDENED[dtype])
        sites.append(Site(rel, node.lineno, node.end_lineno or node.lineno, node.col_offset, node.end_col_offset,
                          "x64", func, callee, injected))  # type: ignore[arg-type]
    return sites


def _droppable(call: ast.Call, argument: ast.AST) -> bool:
    """The dtype argument can go without removing a line: it follows another argument on its line."""
    ordered = sorted([*call.args, *call.keywords], key=lambda n: (n.lineno, n.col_offset))
    index = ordered.index(argument)  # type: ignore[arg-type]
    return index > 0 and ordered[index - 1].end_lineno == argument.lineno  # type: ignore[attr-defined]


def debug_print_sites(source: str, tree: ast.Module, bound: dict[str, str], rel: str) -> list[Site]:
    """`v = x_ref[...]` statements (a block loaded from a ref), after which a print of its sign is
    inserted: `pl.debug_print("v > 0: {}", (v > 0)[0, 0])`, a bool scalar Mosaic TPU cannot print."""
    lines = source.splitlines()
    sites = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and _ref_load(node.value)) or lines[node.lineno - 1][: node.col_offset].strip():
            continue
        pallas = bound_spelling(tree, bound, node.lineno, "jax.experimental.pallas")
        if pallas is None:
            continue
        name = node.targets[0].id
        statement = f'{pallas}.debug_print("{name} > 0: {{}}", ({name} > 0)[0, 0])'
        sites.append(Site(rel, node.lineno, node.end_lineno or node.lineno, node.col_offset, node.end_col_offset,
                          "debug_print", "jax.experimental.pallas.debug_print", f"{pallas}.debug_print", statement, 1))
    return sites


def one_line(text: str) -> str:
    return " ".join(text.split())


def find_sites(root: Path) -> list[Site]:
    sites = []
    for path in sorted(root.rglob("*.py")):
        sites += find_sites_in_source(path.read_text(encoding="utf-8"), path.relative_to(root).as_posix())
    return sorted(sites, key=lambda s: (s.rel, s.line, s.col, s.kind))


# ---------------------------------------------------------------------------------------------
# Injection: a text edit at ast positions (byte offsets within lines)


def _offset(lines: list[bytes], line: int, col: int) -> int:
    return sum(len(text) for text in lines[: line - 1]) + col


def _span(lines: list[bytes], node: ast.AST) -> tuple[int, int]:
    return (_offset(lines, node.lineno, node.col_offset),  # type: ignore[attr-defined]
            _offset(lines, node.end_lineno, node.end_col_offset))  # type: ignore[attr-defined]


Edit = tuple[int, int, str]  # (start, end, text): byte offsets into the file


def inject(source: str, site: Site) -> str:
    """`source` with the site's injection (see the module docstring); the result must parse."""
    tree = ast.parse(source)
    # The exact span: `lax.dot(a, b).astype(t)` is two calls that start at the same place.
    node = next(node for node in ast.walk(tree) if isinstance(node, (ast.Call, ast.BinOp, ast.Assign))
                and (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
                == (site.line, site.col, site.end_line, site.end_col))
    data = source.encode("utf-8")
    lines = data.splitlines(keepends=True)
    edits = EDITS[site.kind](source, tree, node, site, lines)
    # Last first; edits at one place apply in list order, each before those already there (stable sort).
    for start, end, text in sorted(edits, key=lambda edit: edit[:2], reverse=True):
        data = data[:start] + text.encode("utf-8") + data[end:]
    text = data.decode("utf-8")
    ast.parse(text)  # the injected file must still parse
    return text


def _keyword_edits(source: str, tree: ast.Module, call: ast.Call, site: Site, lines: list[bytes]) -> list[Edit]:
    """precision= / accuracy= added, or the existing argument replaced."""
    keyword = next((kw for kw in call.keywords if kw.arg == site.kind), None)
    position = CONTRACTIONS.get(site.func) if site.kind == "precision" else None
    target: Optional[ast.AST] = keyword.value if keyword is not None else None
    if target is None and position is not None and len(call.args) > position and \
            not any(isinstance(arg, ast.Starred) for arg in call.args[: position + 1]):
        target = call.args[position]
    if target is not None:
        return [(*_span(lines, target), site.injected)]
    last = max([*call.args, *call.keywords], key=lambda n: (n.end_lineno, n.end_col_offset), default=None)
    if last is None:  # f(): insert before the closing parenthesis
        end = _span(lines, call)[1] - 1
        return [(end, end, f"{site.kind}={site.injected}")]
    end = _span(lines, last)[1]
    return [(end, end, f", {site.kind}={site.injected}")]


def _rename_edits(source: str, tree: ast.Module, call: ast.Call, site: Site, lines: list[bytes]) -> list[Edit]:
    """math: the callee renamed."""
    return [(*_span(lines, call.func), site.injected)]


def _narrow_edits(source: str, tree: ast.Module, node: ast.AST, site: Site, lines: list[bytes]) -> list[Edit]:
    """narrow: each operand cast to int8 (`x_ref[...].astype(jnp.int8)`); an operand of a +, -, * that
    is not a ref's load may be a Python number, which has no `.astype`: `jnp.int8(scale)`. The +, -, *
    is cast back to its ref's dtype, as a kernel that computes in int8 does before it stores:
    `(x_ref[...].astype(jnp.int8) * jnp.int8(s)).astype(x_ref.dtype)`."""
    edits = []
    if isinstance(node, ast.BinOp):
        start, end = _span(lines, node)
        ref = next(operand for operand in (node.left, node.right) if _ref_load(operand)).value.id  # type: ignore[attr-defined]
        edits += [(start, start, "("), (end, end, f").astype({ref}.dtype)")]
    for operand in narrow_operands(node, aliases(tree)):
        start, end = _span(lines, operand)
        code = ast.get_source_segment(source, operand) or ""
        if isinstance(node, ast.BinOp) and not _ref_load(operand):
            edits.append((start, end, f"{site.injected}({code})"))
        elif isinstance(operand, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)):
            edits.append((end, end, f".astype({site.injected})"))
        else:
            edits.append((start, end, f"({code}).astype({site.injected})"))
    return edits


def _x64_edits(source: str, tree: ast.Module, call: ast.Call, site: Site, lines: list[bytes]) -> list[Edit]:
    """x64: the dtype dropped or widened, and x64 turned on by a line appended to the module (at its
    end: no line moves)."""
    argument = dtype_argument(call, site.func)
    assert argument is not None
    if site.injected == "no dtype":
        ordered = sorted([*call.args, *call.keywords], key=lambda n: (n.lineno, n.col_offset))
        edits = [(_span(lines, ordered[ordered.index(argument) - 1])[1], _span(lines, argument)[1], "")]
    else:
        value = argument.value if isinstance(argument, ast.keyword) else argument
        edits = [(*_span(lines, value), site.injected)]
    end = sum(len(line) for line in lines)
    return edits + [(end, end, x64_tail(source))]


def x64_tail(source: str) -> str:
    """What turns x64 on at the end of a module (the pristine package's x64 baseline has it too)."""
    return ("" if source.endswith("\n") or not source else "\n") + f"import jax\n{X64_ON}\n"


def _insert_edits(source: str, tree: ast.Module, statement: ast.AST, site: Site, lines: list[bytes]) -> list[Edit]:
    """debug_print: the statement inserted after the node's last line, at its indentation."""
    end = _offset(lines, site.end_line + 1, 0)
    newline = "" if lines[site.end_line - 1].endswith(b"\n") else "\n"
    indent = lines[site.line - 1][: site.col].decode("utf-8")
    return [(end, end, f"{newline}{indent}{site.injected}\n")]


EDITS: dict[str, Callable[..., list[Edit]]] = {
    "precision": _keyword_edits, "accuracy": _keyword_edits, "math": _rename_edits, "narrow": _narrow_edits,
    "x64": _x64_edits, "debug_print": _insert_edits,
}


# ---------------------------------------------------------------------------------------------
# The static oracle


def _scopes(tree: ast.Module) -> dict[ast.AST, ast.AST]:
    """node -> the function (def or lambda) or module whose body holds it (a def's own name and
    decorators belong to the enclosing scope)."""
    scope_of: dict[ast.AST, ast.AST] = {}

    def visit(node: ast.AST, scope: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            scope_of[child] = scope
            inner = child if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) else scope
            if inner is not scope:
                for outer in [*getattr(child, "decorator_list", []), *child.args.defaults,
                              *[d for d in child.args.kw_defaults if d is not None]]:
                    scope_of[outer] = scope
                    visit(outer, scope)
                for part in child.body if isinstance(child.body, list) else [child.body]:
                    scope_of[part] = child
                    visit(part, child)
            else:
                visit(child, scope)
    visit(tree, tree)
    return scope_of


def static_labels(source: str, rel: str) -> dict[int, tuple[str, str]]:
    """line -> (label, why) for every line of the module: see the module docstring.

    A launcher's body argument is followed lexically: a name is looked up in the scope of its use,
    then the enclosing ones (a `def`, or an assignment `x = f` / `x = partial(f, ...)` / `x = f if c
    else g`); a name that is a parameter of the enclosing function is followed to that function's
    call sites in the module. Whatever a kernel function names (a call, a loop body passed on) is
    kernel code too."""
    tree = ast.parse(source)
    bound = aliases(tree)
    parts = rel.split("/")
    folder = "gpu" if "gpu" in parts[:-1] else "tpu" if "tpu" in parts[:-1] else ""
    scope_of = _scopes(tree)
    defs: dict[tuple[ast.AST, str], list[ast.AST]] = {}
    assigned: dict[tuple[ast.AST, str], list[ast.AST]] = {}
    calls_by_name: dict[str, list[ast.Call]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs.setdefault((scope_of[node], node.name), []).append(node)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            assigned.setdefault((scope_of[node], node.targets[0].id), []).append(node.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            calls_by_name.setdefault(node.func.id, []).append(node)

    unresolved: list[str] = []

    def lookup(name: str, scope: ast.AST, depth: int) -> Optional[list[ast.AST]]:
        """The function nodes `name` denotes in `scope` (None: not bound in any enclosing scope)."""
        while True:
            found = list(defs.get((scope, name), []))
            for value in assigned.get((scope, name), []):
                found += bodies(value, depth + 1)
            if found:
                return found
            if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
                params = [*scope.args.posonlyargs, *scope.args.args]
                names = [a.arg for a in params] + [a.arg for a in scope.args.kwonlyargs]
                if name in names:  # a parameter: what the module's callers pass
                    index = names.index(name) if name in [a.arg for a in params] else None
                    for call in calls_by_name.get(scope.name, []):
                        argument = next((kw.value for kw in call.keywords if kw.arg == name), None)
                        if argument is None and index is not None and index < len(call.args):
                            argument = call.args[index]
                        if argument is not None:
                            found += bodies(argument, depth + 1)
                    return found
            if scope is tree:
                return None
            scope = scope_of[scope]

    def bodies(expr: ast.AST, depth: int = 0) -> list[ast.AST]:
        """The function nodes an expression names (Name, partial(f, ...), a if c else b, lambda)."""
        if depth > 8:
            return []
        if isinstance(expr, ast.Lambda):
            return [expr]
        if isinstance(expr, ast.IfExp):
            return bodies(expr.body, depth + 1) + bodies(expr.orelse, depth + 1)
        if isinstance(expr, ast.Call) and qualify(expr.func, bound) in PARTIAL and expr.args:
            return bodies(expr.args[0], depth + 1)
        if isinstance(expr, ast.Name):
            return lookup(expr.id, scope_of.get(expr, tree), depth) or []
        return []

    def backend(launcher: str, call: Optional[ast.Call]) -> str:
        how = LAUNCHERS[launcher]
        if how == "pallas_call":
            if folder == "tpu":
                return "tpu"
            params = next((kw.value for kw in (call.keywords if call else []) if kw.arg == "compiler_params"), None)
            if params is None:
                return "triton"
            name = qualify(params.func, bound) if isinstance(params, ast.Call) else None
            if name and name.startswith("jax.experimental.pallas.mosaic_gpu"):
                return "mgpu"
            if name and name.startswith("jax.experimental.pallas.triton"):
                return "triton"
            return "unknown"
        if how == "by_folder":
            return {"tpu": "tpu", "gpu": "mgpu"}.get(folder, "unknown")
        return how

    kernels: dict[ast.AST, set[str]] = {}  # function node -> backends
    why: dict[ast.AST, str] = {}

    def mark(node: ast.AST, backends: set[str], reason: str) -> bool:
        before = kernels.get(node, set())
        if backends <= before:
            return False
        kernels[node] = before | backends
        why.setdefault(node, reason)
        return True

    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            launcher = qualify(node.func, bound)
            partial_of = qualify(node.args[0], bound) if launcher in PARTIAL and node.args else None
            if launcher in LAUNCHERS:
                body = node.args[0] if node.args else next(
                    (kw.value for kw in node.keywords if kw.arg in ("kernel", "body", "f", "fun")), None)
                if body is None:
                    continue  # a decorator factory call (@pl.kernel(...)): handled below
                targets = bodies(body)
                if not targets:
                    unresolved.append(f"line {node.lineno}: {ast.unparse(body)[:60]}")
                for target in targets:
                    mark(target, {backend(launcher, node)}, f"{ast.unparse(node.func)} at line {node.lineno}")
            elif partial_of in LAUNCHERS and len(node.args) > 1:
                for target in bodies(node.args[1]):
                    mark(target, {backend(partial_of, node)}, f"partial({ast.unparse(node.args[0])}) at line {node.lineno}")
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in node.decorator_list:
                call = decorator if isinstance(decorator, ast.Call) else None
                name = qualify(call.func if call else decorator, bound)
                if name in PARTIAL and call is not None and call.args:
                    inner = qualify(call.args[0], bound)
                    if inner in LAUNCHERS:
                        mark(node, {backend(inner, call)}, f"@partial({ast.unparse(call.args[0])})")
                elif name in LAUNCHERS:
                    mark(node, {backend(name, call)}, f"@{ast.unparse(decorator)[:40]}")

    # What a kernel names (calls or passes on) in this module is kernel code too.
    changed = True
    while changed:
        changed = False
        for node, backends in list(kernels.items()):
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                    for target in bodies(sub):
                        if target is not node:
                            changed |= mark(target, backends, f"named by {getattr(node, 'name', 'a lambda')} "
                                                              f"at line {sub.lineno}")
    for node in list(kernels):
        if kernels[node] != {"inherit"}:
            kernels[node].discard("inherit")

    labels: dict[int, tuple[str, str]] = {}
    default = ("unknown", "outside every kernel body, but a launch has a body the oracle cannot name: "
               + "; ".join(unresolved)) if unresolved else ("xla", "outside every kernel body")
    for line in range(1, source.count("\n") + 2):
        labels[line] = default
    # Innermost kernel function wins: widest first, then overwrite.
    for node in sorted(kernels, key=lambda n: -((n.end_lineno or n.lineno) - n.lineno)):
        backends = kernels[node] or {"unknown"}
        label = {frozenset({"tpu"}): "kernel", frozenset({"triton"}): "triton",
                 frozenset({"mgpu"}): "kernel-mgpu"}.get(frozenset(backends), "unknown")
        name = getattr(node, "name", "lambda")
        for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
            labels[line] = (label, f"in {name} ({'/'.join(sorted(backends))}; {why[node]})")
    return labels


def expected(label: str, kind: str) -> Optional[bool]:
    """Must the tool report this site? None: no requirement (unknown)."""
    if label == "kernel" or (label == "kernel-mgpu" and kind == "accuracy"):
        return True
    if label in ("xla", "triton"):
        return False
    return None


# ---------------------------------------------------------------------------------------------
# Entry points that lower on the CPU for TPU (run in a subprocess: `inject.py --lower-worker`)


def _s(shape, dtype):
    import jax
    return jax.ShapeDtypeStruct(shape, dtype)


def _flash() -> list:
    import jax
    import jax.numpy as jnp
    fa = importlib.import_module(f"{OPS_PACKAGE}.tpu.flash_attention")

    def sizes(block_k):
        return fa.BlockSizes(block_q=128, block_k_major=block_k, block_k=block_k, block_b=1,
                             block_q_major_dkv=128, block_k_major_dkv=128, block_k_dkv=128, block_q_dkv=128,
                             block_k_major_dq=128, block_k_dq=128, block_q_dq=128)
    q1, q2 = _s((1, 2, 128, 128), jnp.float32), _s((1, 2, 256, 128), jnp.float32)
    ab = _s((1, 2, 256, 256), jnp.float32)

    def loss(q, k, v, ab):
        return fa.flash_attention(q, k, v, ab, causal=True, block_sizes=sizes(128)).sum()

    def ref_loss(q, k, v, ab):
        return fa.mha_reference(q, k, v, ab, causal=True).sum()
    return [
        ("fwd, one kv step", lambda q, k, v: fa.flash_attention(q, k, v, block_sizes=sizes(128)), (q1, q1, q1)),
        ("fwd, kv steps", lambda q, k, v, ab: fa.flash_attention(q, k, v, ab, causal=True, block_sizes=sizes(128)),
         (q2, q2, q2, ab)),
        ("grad", jax.grad(loss, argnums=(0, 1, 2)), (q2, q2, q2, ab)),
        ("mha_reference grad", jax.grad(ref_loss, argnums=(0, 1, 2)), (q2, q2, q2, ab)),
    ]


def _matmul() -> list:
    import jax.numpy as jnp
    mm = importlib.import_module(f"{OPS_PACKAGE}.tpu.matmul")
    x = _s((256, 256), jnp.float32)
    return [("matmul", lambda a, b: mm.matmul(a, b, block_shape=(128, 128), block_k=128), (x, x))]


def _gmm() -> list:
    import jax
    import jax.numpy as jnp
    g = importlib.import_module(f"{OPS_PACKAGE}.tpu.megablox.gmm")
    ops = importlib.import_module(f"{OPS_PACKAGE}.tpu.megablox.ops")
    lhs, rhs, sizes = _s((256, 128), jnp.float32), _s((2, 128, 128), jnp.float32), _s((2,), jnp.int32)
    return [
        ("gmm", lambda a, b, c: g.gmm(a, b, c), (lhs, rhs, sizes)),
        ("tgmm", lambda a, b, c: g.tgmm(a, b, c), (_s((128, 256), jnp.float32), _s((256, 128), jnp.float32), sizes)),
        ("ops.gmm grad", jax.grad(lambda a, b, c: ops.gmm(a, b, c).sum(), argnums=(0, 1)), (lhs, rhs, sizes)),
    ]


def _splash() -> list:
    import jax
    import jax.numpy as jnp
    sk = importlib.import_module(f"{OPS_PACKAGE}.tpu.splash_attention.splash_attention_kernel")
    sm = importlib.import_module(f"{OPS_PACKAGE}.tpu.splash_attention.splash_attention_mask")
    mask = sm.MultiHeadMask([sm.CausalMask((256, 256))] * 2)
    q, kv1 = _s((2, 256, 128), jnp.float32), _s((256, 128), jnp.float32)
    out = []
    for fused in (False, True):
        sizes = sk.BlockSizes(block_q=128, block_kv=128, block_kv_compute=128, block_q_dkv=128, block_kv_dkv=128,
                              block_kv_dkv_compute=128, block_q_dq=None if fused else 128,
                              block_kv_dq=None if fused else 128, use_fused_bwd_kernel=fused)
        kernel = sk.make_splash_mha_single_device(mask, block_sizes=sizes)
        out.append((f"mha grad, fused bwd={fused}",
                    jax.grad(lambda q, k, v, kernel=kernel: kernel(q, k, v).sum(), argnums=(0, 1, 2)), (q, q, q)))
    mqa = sk.make_splash_mqa_single_device(mask, block_sizes=sk.BlockSizes(block_q=128, block_kv=128, block_kv_compute=128))
    out.append(("mqa fwd", lambda q, k, v: mqa(q, k, v), (q, kv1, kv1)))
    reference = sk.make_masked_mha_reference(mask)
    out.append(("mha reference grad", jax.grad(lambda q, k, v: reference(q, k, v).sum(), argnums=(0, 1, 2)), (q, q, q)))
    return out


def _paged() -> list:
    import jax.numpy as jnp
    pk = importlib.import_module(f"{OPS_PACKAGE}.tpu.paged_attention.paged_attention_kernel")
    q, pages = _s((2, 8, 128), jnp.float32), _s((2, 16, 16, 128), jnp.float32)
    return [("paged_attention", lambda q, k, v, l, p: pk.paged_attention(q, k, v, l, p, pages_per_compute_block=4),
             (q, pages, pages, _s((2,), jnp.int32), _s((2, 8), jnp.int32)))]


def _ragged() -> list:
    import jax.numpy as jnp
    rk = importlib.import_module(f"{OPS_PACKAGE}.tpu.ragged_paged_attention.kernel")
    i32 = jnp.int32
    return [("ragged_paged_attention",
             lambda *a: rk.ragged_paged_attention(*a, num_kv_pages_per_block=4, num_queries_per_block=16),
             (_s((64, 8, 128), jnp.float32), _s((32, 16, 4, 128), jnp.float32), _s((4,), i32), _s((4, 8), i32),
              _s((5,), i32), _s((1,), i32)))]


ENTRIES: dict[str, Callable[[], list]] = {
    "tpu/flash_attention.py": _flash,
    "tpu/matmul.py": _matmul,
    "tpu/megablox/gmm.py": _gmm,
    "tpu/splash_attention/splash_attention_kernel.py": _splash,
    "tpu/paged_attention/paged_attention_kernel.py": _paged,
    "tpu/ragged_paged_attention/kernel.py": _ragged,
}
ABSTRACT_TPU_KIND = "TPU v5 lite"  # as tests/test_goldens_lower.py: kernels that ask for the chip


def lower_worker(ops_dir: str, rel: str) -> dict:
    """In this (fresh) process: `jax.experimental.pallas.ops` is the copy at ops_dir; lower the entries of rel."""
    import warnings
    warnings.simplefilter("ignore")
    import jax
    import jax.experimental.pallas as pallas
    spec = importlib.util.spec_from_file_location(OPS_PACKAGE, os.path.join(ops_dir, "__init__.py"),
                                                  submodule_search_locations=[ops_dir])
    module = importlib.util.module_from_spec(spec)
    sys.modules[OPS_PACKAGE] = module
    spec.loader.exec_module(module)
    pallas.ops = module
    results = []
    try:
        entries = ENTRIES[rel]()
    except Exception as error:  # the injected module does not even import
        return {"setup_error": f"{type(error).__name__}: {error}"[:500], "entries": []}
    device = jax.sharding.AbstractDevice(device_kind=ABSTRACT_TPU_KIND, platform="tpu", num_cores=1)
    for name, fn, args in entries:
        try:
            with jax.sharding.use_abstract_mesh(jax.sharding.AbstractMesh((1,), ("x",), abstract_device=device)):
                text = jax.export.export(jax.jit(fn), platforms=["tpu"])(*args).mlir_module()
            results.append({"name": name, "ok": True,
                            "marks": {kind: len(re.findall(pattern, text)) for kind, pattern in MARK_PATTERNS.items()}})
        except Exception as error:
            message = f"{type(error).__name__}: {error}"
            hit = next((m for errors in WALL_ERRORS.values() for m in errors if m in message), None)
            results.append({"name": name, "ok": False, "error": hit or message.splitlines()[0][:300],
                            "expected_error": hit is not None})
    return {"entries": results}


def lower(ops_dir: Path, rel: str) -> dict:
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--lower-worker", str(ops_dir), rel],
                          capture_output=True, text=True, timeout=LOWER_TIMEOUT_S, cwd=str(ops_dir.parent),
                          env={**os.environ, "JAX_PLATFORMS": "cpu"})
    last = proc.stdout.strip().splitlines()[-1:] or [""]
    try:
        return json.loads(last[0])
    except json.JSONDecodeError:
        return {"setup_error": f"worker exit {proc.returncode}: {proc.stderr.strip().splitlines()[-1:]}", "entries": []}


# ---------------------------------------------------------------------------------------------
# Running the tool


@dataclasses.dataclass
class Tool:
    root: Optional[Path] = None  # a source tree to run `python -m codemods` from; None: the installed CLI
    jax_version: str = JAX_VERSION

    def command(self, *extra: str) -> list[str]:
        base = [sys.executable, "-m", "codemods"] if self.root else [str(Path(sys.executable).parent / "jax-codemod")]
        return [*base, "--no-cache", "--jax-version", self.jax_version, "--output-format", "json", "-j", "1", *extra]

    def run(self, target: Path, *extra: str) -> dict:
        env = {**os.environ, "JAX_CODEMOD_CACHE_DIR": str(target.parent / ".cache")}
        if self.root:  # first, before what the caller's path names (where the tool's dependencies may be)
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(self.root), os.environ.get("PYTHONPATH")]))
        try:
            proc = subprocess.run(self.command(*extra, str(target)), capture_output=True, text=True,
                                  timeout=TOOL_TIMEOUT_S, cwd=str(target.parent), env=env)
        except subprocess.TimeoutExpired:
            return {"rc": None, "crash": f"timeout after {TOOL_TIMEOUT_S} s", "findings": [], "errors": []}
        out: dict[str, Any] = {"rc": proc.returncode, "crash": None, "findings": [], "errors": []}
        try:
            document = json.loads(proc.stdout)
            out["findings"], out["errors"] = document.get("findings", []), document.get("errors", [])
        except json.JSONDecodeError:
            document = None
        text = proc.stdout + proc.stderr
        if proc.returncode not in (0, 1, 2):
            out["crash"] = f"exit {proc.returncode}: " + _last_line(proc.stderr)
        elif "Traceback (most recent call last)" in proc.stderr:
            out["crash"] = "traceback: " + _last_line(proc.stderr)
        elif "internal error" in text:
            line = next((l for l in text.splitlines() if "internal error" in l), "internal error")
            out["crash"] = line.strip()[:300]
        elif document is None:
            out["crash"] = "no JSON on stdout: " + _last_line(proc.stderr)
        return out


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


# ---------------------------------------------------------------------------------------------
# One site


@dataclasses.dataclass
class Outcome:
    site: Site
    package: str
    static: tuple[str, str]
    lowering: Optional[str] = None     # "kernel" | "xla" | "unreached" | "error: ..." | None (no entry)
    label: str = "unknown"
    findings: list = dataclasses.field(default_factory=list)   # at the site
    crash: Optional[str] = None
    fixed: bool = False
    manual: bool = False
    other_lines: list = dataclasses.field(default_factory=list)
    helper_lines: int = 0
    lowers_after: Optional[bool] = None
    lower_after_error: str = ""
    written_call: str = ""

    @property
    def found(self) -> bool:
        return bool(self.findings)

    @property
    def required(self) -> Optional[bool]:
        return expected(self.label, self.site.kind)

    @property
    def missed(self) -> bool:
        return self.required is True and not self.found

    @property
    def false(self) -> bool:
        return self.required is False and self.found

    @property
    def fix_not_lowering(self) -> bool:
        return self.lowers_after is False

    @property
    def failed(self) -> bool:
        return bool(self.crash or self.missed or self.false or self.other_lines or self.fix_not_lowering)


@dataclasses.dataclass
class Baseline:
    findings: set            # (rel, line, rule)
    written: dict            # rel -> list of hunks (i1, i2, new lines) the tool writes on the pristine package
    lowering: dict           # rel -> worker result of the pristine package
    crash: Optional[str] = None


def copy_package(source: Path, into: Path) -> Path:
    target = into / source.name
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return target


def snapshot(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8", errors="replace")
            for p in sorted(root.rglob("*.py"))}


def hunks(before: str, after: str) -> list[tuple[int, int, tuple[str, ...]]]:
    """(first old line 0-based, end, new lines) of every change."""
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    return [(i1, i2, tuple(b[j1:j2])) for op, i1, i2, j1, j2 in
            difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op != "equal"]


HELPER_LINE = re.compile(r"^\s*(def |import |from |return |#|@|$)|rsqrt_safe|lstm_float32|\"\"\"")


def _is_helper(hunk: tuple[int, int, tuple[str, ...]]) -> bool:
    """A pure insertion of a helper definition or of imports (what JAX002/JAX003 fixes add)."""
    i1, i2, new = hunk
    if i1 != i2:
        return False
    text = "".join(new)
    if re.search(r"^\s*def \w+", text, re.M):
        return True
    return all(re.match(r"^\s*(import |from \S+ import |$)", line) for line in new)


def pristine_baseline(package: str, source_root: Path, tool: Tool, rels: Iterable[str],
                      x64_rels: Iterable[str] = ()) -> Baseline:
    """What the tool finds and writes on the package, and how its entries lower; with x64 turned on
    in `x64_rels` as kind x64 turns it on (that makes jax's default dtypes there 64-bit: what the tool
    fixes then in code the injection did not touch is no other line changed by the site)."""
    with tempfile.TemporaryDirectory(prefix="inject-base-") as scratch:
        root = copy_package(source_root, Path(scratch))
        for rel in x64_rels:
            path = root / rel
            text = path.read_text(encoding="utf-8")
            path.write_text(text + x64_tail(text), encoding="utf-8")
        lowering = {rel: lower(root, rel) for rel in rels if rel in ENTRIES} if package == "jax" else {}
        # One run, as for a site: --write's findings are the dry run's (made before anything is written).
        before = snapshot(root)
        write = tool.run(root, "--write", "--unsafe-fixes")
        after = snapshot(root)
        findings = {(Path(f["path"]).relative_to(root).as_posix(), f["start"]["line"], f["rule"])
                    for f in write["findings"]}
        written = {rel: hunks(before[rel], after.get(rel, "")) for rel in before if before[rel] != after.get(rel)}
        return Baseline(findings, written, lowering, write["crash"])


def usable_entries(base: dict) -> list[int]:
    """The entries that lower in the pristine package (under x64 some of jax's own do not)."""
    return [] if base.get("setup_error") else [i for i, entry in enumerate(base["entries"]) if entry["ok"]]


def lowering_label(base: dict, injected: dict, kind: str) -> str:
    usable = usable_entries(base)
    if not usable:
        return "error: the pristine package does not lower"
    if injected.get("setup_error"):
        return "error: " + injected["setup_error"][:200]
    pairs = [(injected["entries"][i], base["entries"][i]) for i in usable]
    failures = [entry for entry, _ in pairs if not entry["ok"]]
    if any(entry["error"] in WALL_ERRORS[kind] for entry in failures):
        return "kernel"
    if failures:
        return "error: " + failures[0]["error"][:200]
    if any(entry["marks"][kind] > before["marks"][kind] for entry, before in pairs):
        return "xla"
    return "unreached"


def _in_pristine(hunk: tuple[int, int, tuple[str, ...]], site: Site, rel: str) -> tuple[int, int, tuple[str, ...]]:
    """A hunk of the injected file as it reads in the pristine one: below an inserted statement the
    lines move up by what was inserted."""
    i1, i2, new = hunk
    if rel == site.rel and site.added and i1 >= site.end_line + site.added:
        return i1 - site.added, i2 - site.added, new
    return hunk


def process_site(site: Site, package: str, source_root: Path, tool: Tool, baseline: Baseline,
                 static: tuple[str, str], lower_sites: bool = True) -> Outcome:
    outcome = Outcome(site, package, static)
    with tempfile.TemporaryDirectory(prefix="inject-") as scratch:
        root = copy_package(source_root, Path(scratch))
        path = root / site.rel
        original = path.read_text(encoding="utf-8")
        injected = inject(original, site)
        path.write_text(injected, encoding="utf-8")
        can_lower = lower_sites and package == "jax" and site.rel in ENTRIES
        if can_lower:
            outcome.lowering = lowering_label(baseline.lowering.get(site.rel, {"entries": []}), lower(root, site.rel),
                                              site.kind)
        outcome.label = outcome.lowering if outcome.lowering in ("kernel", "xla") else static[0]
        first, last = site.lines
        # One run: --write reports the same findings as the dry run (they are made before anything is
        # written), and halves the time of a site.
        before = snapshot(root)
        write = tool.run(root, "--write", "--unsafe-fixes")
        outcome.crash = write["crash"]
        after = snapshot(root)
        for finding in write["findings"]:
            rel = Path(finding["path"]).relative_to(root).as_posix()
            line = finding["start"]["line"]
            if rel == site.rel and first <= line <= last and \
                    (rel, line, finding["rule"]) not in baseline.findings:
                outcome.findings.append(finding)
        outcome.manual = any(f["kind"] in ("manual", "warning") for f in outcome.findings)
        site_changed = False
        for rel in sorted(set(before) | set(after)):
            if before.get(rel) == after.get(rel):
                continue
            base_hunks = set(baseline.written.get(rel, []))
            for hunk in hunks(before.get(rel, ""), after.get(rel, "")):
                i1, i2, new = hunk
                if rel == site.rel and i1 < last and max(i2, i1 + 1) > first - 1:
                    site_changed = True
                elif _in_pristine(hunk, site, rel) in base_hunks:
                    continue
                elif _is_helper(hunk):
                    outcome.helper_lines += len(new)
                else:
                    old = before.get(rel, "").splitlines()[i1:i2]
                    outcome.other_lines.append(f"{rel}:{i1 + 1}: -{old[:2]} +{[l.rstrip() for l in new[:2]]}")
        written_lines = after.get(site.rel, "").splitlines()
        outcome.written_call = " ".join(l.strip() for l in written_lines[first - 1: last])[:200]
        # A wall the lowering raises (kernel), or one only the chip's compiler raises at a kernel site
        # the entries lower with the injection (unreached): the written copy must lower.
        if can_lower and (outcome.lowering == "kernel" or outcome.lowering == "unreached" and outcome.label == "kernel"):
            result = lower(root, site.rel)
            usable = usable_entries(baseline.lowering.get(site.rel, {"entries": []}))
            failing = [result["entries"][i]["error"] for i in usable if not result["entries"][i]["ok"]] \
                if not result.get("setup_error") else [result["setup_error"]]
            outcome.lowers_after = not failing
            outcome.lower_after_error = failing[0] if failing else ""
        applied = any(f.get("fix") and f["fix"].get("applied") for f in outcome.findings) or (
            site_changed and any(f["kind"] in ("fixed", "dropped") for f in outcome.findings))
        outcome.fixed = bool(outcome.findings) and applied and site_changed and outcome.lowers_after is not False
    return outcome


# ---------------------------------------------------------------------------------------------
# Packages


def jax_ops_root() -> Path:
    spec = importlib.util.find_spec("jax")
    return Path(spec.origin).parent / "experimental" / "pallas" / "ops"


def packages(selected: Optional[list[str]], corpus: Path = CORPUS) -> list[tuple[str, Optional[Path], str]]:
    """(name, root to copy, note). jax's ops first, then the corpus' kernel packages if unpacked
    (`corpus/<distribution>/<package>/`: the sweep's, or bench/.corpus/kernel-packages)."""
    found: list[tuple[str, Optional[Path], str]] = [("jax", jax_ops_root(), "jax/experimental/pallas/ops")]
    if corpus.is_dir():
        for tree in sorted(corpus.iterdir()):
            if tree.name.startswith("jax-") or not tree.is_dir():
                continue
            for top in sorted(p for p in tree.iterdir() if p.is_dir() and (p / "__init__.py").exists()):
                if any("pallas" in f.read_text(errors="replace") for f in top.rglob("*.py")):
                    found.append((f"{tree.name}/{top.name}", top, str(top)))
    if selected:
        found = [p for p in found if p[0] in selected or p[0].split("/")[0] in selected]
    return found


# A fixed small subset: (package, rel, first line of the call, kind); tests/test_inject.py runs it.
SAMPLE = (
    ("jax", "tpu/flash_attention.py", 395, "precision"),     # forward kernel's dot_general (Mosaic TPU)
    ("jax", "tpu/flash_attention.py", 1494, "precision"),    # mha_reference_no_custom_vjp's einsum (XLA)
    ("jax", "tpu/matmul.py", 33, "precision"),               # matmul_kernel's jnp.dot (Mosaic TPU)
    ("jax", "gpu/attention.py", 133, "precision"),           # the Triton forward kernel's plgpu.dot
    ("jax", "gpu/layer_norm.py", 351, "accuracy"),           # lax.rsqrt in the XLA reference
    ("jax", "tpu/flash_attention.py", 447, "math"),          # the forward kernel's jnp.exp, as jnp.arctan
    ("jax", "tpu/flash_attention.py", 1517, "math"),         # mha_reference's jnp.exp (XLA)
    ("jax", "tpu/flash_attention.py", 439, "narrow"),        # the forward kernel's row max, of int8
    ("jax", "tpu/flash_attention.py", 1516, "narrow"),       # mha_reference's row max (XLA)
    ("jax", "tpu/megablox/gmm.py", 282, "x64"),              # _get_store_mask's iota, int64 (Mosaic TPU)
    ("jax", "gpu/paged_attention.py", 131, "x64"),           # a Triton kernel's jnp.zeros, without its dtype
    ("jax", "tpu/flash_attention.py", 388, "debug_print"),   # printed after the forward kernel's load
    ("jax", "gpu/paged_attention.py", 64, "debug_print"),    # printed in a Triton kernel
)


def select_sites(all_sites: list[Site], package: str, sample: bool, limit: Optional[int],
                 kinds: Optional[list[str]] = None, every: int = 1) -> list[Site]:
    sites = all_sites if not kinds else [site for site in all_sites if site.kind in kinds]
    sites = sites[::every]
    if sample:
        wanted = {(rel, line, kind) for name, rel, line, kind in SAMPLE if name == package}
        sites = [s for s in sites if (s.rel, s.line, s.kind) in wanted]
    if limit is not None:
        sites = sites[:limit]
    return sites


def run_package(name: str, root: Path, tool: Tool, sample: bool = False, limit: Optional[int] = None,
                jobs: int = 1, lower_sites: bool = True, log: Callable[[str], None] = print,
                kinds: Optional[list[str]] = None, every: int = 1) -> tuple[list[Outcome], Baseline, int]:
    all_sites = find_sites(root)
    sites = select_sites(all_sites, name, sample, limit, kinds, every)
    rels = sorted({s.rel for s in sites})
    # Kind x64's sites are compared with the package as it is with x64 on in their modules.
    x64_rels = sorted({s.rel for s in sites if s.kind == "x64"})
    other_rels = sorted({s.rel for s in sites if s.kind != "x64"})
    baselines = {}
    if x64_rels:
        baselines["x64"] = pristine_baseline(name, root, tool, x64_rels if lower_sites else [], x64_rels)
    if other_rels or not x64_rels:
        baselines["other"] = pristine_baseline(name, root, tool, other_rels if lower_sites else [])
    baseline = baselines.get("other") or baselines["x64"]
    baseline.crash = next((b.crash for b in baselines.values() if b.crash), None)
    statics: dict[str, dict[int, tuple[str, str]]] = {}
    for rel in rels:
        statics[rel] = static_labels((root / rel).read_text(encoding="utf-8"), rel)
    args = [(site, name, root, tool, baselines["x64" if site.kind == "x64" else "other"], statics[site.rel][site.line],
             lower_sites) for site in sites]
    outcomes: list[Outcome] = []
    if jobs <= 1:
        iterator: Iterable[Outcome] = (process_site(*a) for a in args)
        pool = None
    else:
        # spawn: the caller (pytest) may have started jax's threads, which a fork would copy mid-flight
        pool = concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"))
        iterator = pool.map(_process_site_star, args)
    try:
        for number, outcome in enumerate(iterator, 1):
            outcomes.append(outcome)
            log(site_line(outcome, number, len(args)))
    finally:
        if pool is not None:
            pool.shutdown()
    return outcomes, baseline, len(all_sites)


def _process_site_star(args: tuple) -> Outcome:
    return process_site(*args)


def verdict(o: Outcome) -> str:
    parts = []
    if o.crash:
        parts.append("CRASH")
    if o.missed:
        parts.append("MISSED")
    if o.false:
        parts.append("FALSE")
    if o.other_lines:
        parts.append("OTHER-LINES")
    if o.fix_not_lowering:
        parts.append("FIX-DOES-NOT-LOWER")
    return ",".join(parts) or "ok"


def site_line(o: Outcome, number: int = 0, total: int = 0) -> str:
    s = o.site
    finding = "; ".join(f"{f['rule']} [{f['kind']}] {f['message'][:90]}" for f in o.findings) or "no finding"
    lowering = f" lowering={o.lowering}" if o.lowering else ""
    after = "" if o.lowers_after is None else f" lowers-after={o.lowers_after}"
    prefix = f"[{number}/{total}] " if total else ""
    return (f"{prefix}{verdict(o):8} {o.package}:{s.rel}:{s.line} {s.callee} +{s.kind} label={o.label} "
            f"(static={o.static[0]}{lowering}){after} -> {finding}")


# ---------------------------------------------------------------------------------------------
# Report


COLUMNS = ("sites", "found", "fixed", "manual", "missed", "false", "other_lines_changed", "crashes",
           "fix_not_lowering")


def totals(outcomes: list[Outcome]) -> dict[str, int]:
    return {
        "sites": len(outcomes),
        "found": sum(o.found for o in outcomes),
        "fixed": sum(o.fixed for o in outcomes),
        "manual": sum(o.manual for o in outcomes),
        "missed": sum(o.missed for o in outcomes),
        "false": sum(o.false for o in outcomes),
        "other_lines_changed": sum(bool(o.other_lines) for o in outcomes),
        "crashes": sum(bool(o.crash) for o in outcomes),
        "fix_not_lowering": sum(o.fix_not_lowering for o in outcomes),
    }


def label_counts(outcomes: list[Outcome]) -> str:
    counts: dict[str, int] = {}
    for o in outcomes:
        key = o.label + (" (lowered)" if o.lowering in ("kernel", "xla") else " (static)")
        counts[key] = counts.get(key, 0) + 1
    return ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))


def markdown(results: dict[str, tuple[list[Outcome], Baseline, int]], tool: Tool, elapsed: float,
             options: str, corpus: Path = CORPUS) -> str:
    import jax
    lines = [
        "# Injection over real Pallas kernels (bench/inject.py)",
        "",
        f"Run {datetime.date.today().isoformat()}, jax {jax.__version__} (target `--jax-version {tool.jax_version}`), "
        f"Python {sys.version.split()[0]}, {elapsed:.0f} s, options: `{options or '(none)'}`; tool: "
        + (f"`python -m codemods` from `{tool.root}`" if tool.root else "the installed `jax-codemod`") + ".",
        "",
        "One site at a time, in a fresh copy of the package, a wall injected (the kinds: the docstring of",
        "bench/inject.py); the tool run on the copy (`--write --unsafe-fixes`, whose findings are the dry",
        "run's). The label (must the tool report it?) comes from lowering the module's entry points for",
        "TPU on the CPU where the module has some (`kernel`: the injected copy fails with the wall's",
        "error; `xla`: it lowers with the injection in the StableHLO), else from a static reading of which",
        "functions are handed to a launcher (`static_labels` in bench/inject.py).",
        "",
        "| package | kind | " + " | ".join(COLUMNS) + " |",
        "| --- | --- | " + " | ".join("---" for _ in COLUMNS) + " |",
    ]
    for name, (outcomes, _, _) in results.items():
        for kind in KINDS:
            row = totals([o for o in outcomes if o.site.kind == kind])
            if row["sites"]:
                lines.append(f"| {name} | {kind} | " + " | ".join(str(row[c]) for c in COLUMNS) + " |")
    lines.append("")
    if not corpus.is_dir():
        lines += [f"The corpus ({corpus}, fetched by bench/sweep.py) is not present: "
                  "only jax's own Pallas ops were run.", ""]
    for name, (outcomes, baseline, total) in results.items():
        lines.append(f"**{name}**: {len(outcomes)} of {total} sites run; labels: {label_counts(outcomes)}.")
        if baseline.findings:
            lines.append(f"Findings on the pristine package (not counted): {sorted(baseline.findings)}.")
        if baseline.crash:
            lines.append(f"The pristine package crashed the tool: {baseline.crash}.")
        lines.append("")
    problems = [o for outcomes, _, _ in results.values() for o in outcomes if o.failed]
    lines += ["## Missed, false, crashing sites (and other lines changed, fixes that do not lower)", ""]
    if not problems:
        lines.append("None.")
    for o in problems:
        message = "; ".join(f"{f['rule']} [{f['kind']}] {f['message']}" for f in o.findings) or "no finding"
        lines.append(f"- **{verdict(o)}** `{o.package}:{o.site.rel}:{o.site.line}` `{o.site.callee}` +{o.site.kind}, "
                     f"label {o.label} (static: {o.static[0]}, {o.static[1]}; lowering: {o.lowering or 'no entry'}). "
                     f"Tool: {message}.")
        if o.crash:
            lines.append(f"  Crash: `{o.crash}`")
        for other in o.other_lines[:5]:
            lines.append(f"  Other line changed: `{other}`")
        if o.fix_not_lowering:
            lines.append(f"  Written call `{o.written_call}` does not lower: {o.lower_after_error}")
    unknown = [o for outcomes, _, _ in results.values() for o in outcomes if o.required is None]
    lines += ["", "## Sites without a requirement (label unknown; kernel-mgpu, but for accuracy)", ""]
    lines += [f"- `{o.package}:{o.site.rel}:{o.site.line}` `{o.site.callee}` +{o.site.kind}: {o.static[1]}; "
              f"lowering {o.lowering or 'no entry'}; found={o.found}" for o in unknown] or ["None."]
    lines += ["", "## Every site", "", "```"]
    lines += [site_line(o) for outcomes, _, _ in results.values() for o in outcomes]
    lines += ["```", ""]
    return "\n".join(lines)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--packages", nargs="*", help="jax (its Pallas ops) and/or sweep-corpus package names")
    parser.add_argument("--limit", type=int, help="the first N sites of each package")
    parser.add_argument("--jobs", type=int, default=2, help="sites processed at once (a process pool)")
    parser.add_argument("--sample", action="store_true", help="only the fixed SAMPLE sites")
    parser.add_argument("--every", type=int, default=1, help="every Nth site of each package (a spread sample)")
    parser.add_argument("--no-lower", action="store_true", help="static labels only (no lowering)")
    parser.add_argument("--tool-root", type=Path, help="run `python -m codemods` from this source tree")
    parser.add_argument("--jax-version", default=JAX_VERSION)
    parser.add_argument("--corpus", type=Path, default=CORPUS,
                        help="a folder of unpacked distributions (default: the sweep's); e.g. bench/.corpus/kernel-packages")
    parser.add_argument("--report", type=Path, help=f"Markdown report (default {REPORT.relative_to(REPO)} on a "
                                                    "full run; none with --sample/--limit unless given)")
    parser.add_argument("--list", action="store_true", help="list the sites with their static labels and stop")
    parser.add_argument("--kinds", nargs="*", choices=KINDS, help="only sites of these kinds")
    parser.add_argument("--lower-worker", nargs=2, metavar=("OPS_DIR", "REL"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.lower_worker:
        print(json.dumps(lower_worker(*args.lower_worker)))
        return 0
    tool = Tool(args.tool_root.resolve() if args.tool_root else None, args.jax_version)
    chosen = packages(args.packages, args.corpus)
    if args.list:
        for name, root, _ in chosen:
            statics: dict[str, dict] = {}
            for site in select_sites(find_sites(root), name, args.sample, args.limit, args.kinds, args.every):
                if site.rel not in statics:
                    statics[site.rel] = static_labels((root / site.rel).read_text(), site.rel)
                label = statics[site.rel][site.line]
                print(f"{name}:{site.rel}:{site.line} {site.callee} +{site.kind} {label[0]}  # {label[1]}")
        return 0
    started = time.time()
    results = {}
    for name, root, note in chosen:
        print(f"== {name} ({note})", flush=True)
        results[name] = run_package(name, root, tool, args.sample, args.limit, args.jobs, not args.no_lower,
                                    log=lambda line: print(line, flush=True), kinds=args.kinds, every=args.every)
    elapsed = time.time() - started
    options = " ".join(argv if argv is not None else sys.argv[1:])
    text = markdown(results, tool, elapsed, options, args.corpus)
    report = args.report or (REPORT if not (args.sample or args.limit or args.packages or args.kinds
                                            or args.every > 1) else None)
    if report:
        report.write_text(text)
        print(f"wrote {report}")
    print("\n".join(l for l in text.splitlines() if l.startswith("|")))
    failed = any(o.failed or baseline.crash for outcomes, baseline, _ in results.values() for o in outcomes)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
