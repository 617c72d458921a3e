"""Seeded fuzzing of the engine (`process_source` with every rule), on both scopes and both jax releases.

Three parts, all deterministic (fixed seeds; hypothesis derandomized, no example database):

1. hypothesmith modules (`from_grammar()`, `from_node()`): as generated, with jax-looking fragments
   spliced in at statement boundaries (at the statement's own indentation, so they land inside
   functions, classes and blocks, next to whatever names the random code binds), and spliced
   themselves into a generated kernel module (below).
2. Kernel modules from `generate_kernel(seed)` below: launchers, import aliases, precision and accuracy
   spellings, helpers, nested defs and lambdas, comments inside calls, odd whitespace (tabs, form
   feeds, trailing blanks, line breaks inside argument lists) and line endings (LF, CRLF, mixed).
3. A sample of those kernels that launch on Mosaic TPU and hold only dots and accuracy-hinted
   exp/tanh/rsqrt: the tool's output (for the installed jax) is imported and lowered for "tpu".

Invariants (`check_invariants`) for every module, scope and release: no internal error; a fix is
reported iff the file changes; the new source compiles; a second run changes nothing; every changed
input line belongs to an import, a call that carries a precision/accuracy (or positional precision,
or an LSTM), or a precision value, and keeps the text around those on its line; every inserted line is
an import, a helper the tool adds, or a replacement for such a call line; line endings of a uniform
file are kept. For generated kernels an oracle from the documented rules (docs/fixes.md, docs/how-it-decides.md) also says whether the file must
change, must stay byte-identical, or either (`KernelModule.expected_change`); part 3 checks that
oracle against the compiler too (a due fix: the original fails to lower).

Tool bugs these found each have a minimal reproducer at the end of this file, a regression test
now that they are fixed. None is open: an open one would be a strict xfail naming the exception it
raises (`raises=`), never a bare AssertionError that any other failure of its seeds would satisfy.

Reproduce a generated case from the repository root:
`python -c "from tests.test_fuzz import generate_kernel as g; print(g(17).text)"`.
Runtime: about 20-25 s on each of the two test venvs (2 cores), most of it parts 1 and 2.
"""

from __future__ import annotations

import ast
import difflib
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from typing import Optional

import pytest

from codemods.engine.diagnostics import Kind
from codemods.engine.report import FileResult
from codemods.engine.runner import process_source
from codemods.registry import RULES
from codemods.settings import Scope, Settings

hypothesis = pytest.importorskip("hypothesis")
hypothesmith = pytest.importorskip("hypothesmith")
from hypothesis import HealthCheck, given  # noqa: E402
from hypothesis import settings as hypothesis_settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

VERSIONS = ((0, 12, 0, 1), (0, 10, 2))
# Unsafe fixes on: the invariants are about every rewrite the tool can make (safe or not: tests/test_fixes.py).
SETTINGS = [Settings(jax_version=version, scope=scope, unsafe_fixes=True)
            for version in VERSIONS for scope in (Scope.KERNELS, Scope.ALL)]
MOSAIC_TPU_DOT_HIGH_SINCE = (0, 11, 1)  # docs/fixes.md: Mosaic TPU lowers a dot at HIGH from jax 0.11.1
FIXING = (Kind.FIXED, Kind.DROPPED)

pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning", "ignore::DeprecationWarning")


# ---------------------------------------------------------------------------------------------
# Invariants
# ---------------------------------------------------------------------------------------------

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def split_lines(text: str) -> list[str]:
    """Lines as Python counts them (\\n, \\r\\n, \\r; not form feeds), each with its ending."""
    return _LINE.findall(text)


# Where precision may sit positionally (0-based), by the callee's last name (codemods/rules/per_operand_precision.py's OPS).
_POSITIONAL_PRECISION = {"dot_general": 3, "batch_matmul": 2, "conv_general_dilated": 9, "conv": 4,
                         "conv_with_general_padding": 6, "dot": 5}
_PRECISION_STRINGS = {"default", "bfloat16", "fastest", "high", "tensorfloat32", "bfloat16_3x", "highest", "float32"}


def _callee_name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def _looks_like_precision(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr in ("DEFAULT", "HIGH", "HIGHEST")
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value in _PRECISION_STRINGS
    if isinstance(node, ast.Call):  # Precision('high'), also through an alias: P('high')
        return _callee_name(node) == "Precision" or (len(node.args) == 1 and _looks_like_precision(node.args[0]))
    if isinstance(node, (ast.Tuple, ast.List)):
        return bool(node.elts) and all(_looks_like_precision(element) for element in node.elts)
    return False


@dataclass
class Editable:
    """What of an input a fix may change: whole lines, and on the lines of rewritable calls and
    precision values only what lies inside them (the text before the first and after the last such
    span on a line must survive)."""

    lines: set[int] = field(default_factory=set)  # 1-based
    call_lines: set[int] = field(default_factory=set)  # the lines of calls and values (not imports)
    lstm_starts: set[int] = field(default_factory=set)  # where an LSTM call starts (JAX003 adds an argument)
    prefixes: dict[int, str] = field(default_factory=dict)  # line -> text before its first span
    suffixes: dict[int, str] = field(default_factory=dict)  # line -> text after its last span, line ending included


def editable_parts(text: str) -> Editable:
    """Imports; calls with a `precision=`/`accuracy=` keyword, a positional precision, or an LSTM
    callee; precision-looking values (enum members, precision strings, `Precision(...)`, pairs of
    those), which the tool rewrites where a variable or default is written."""
    result = Editable()
    lines = split_lines(text)
    spans: list[tuple[int, int, int, int]] = []  # (start line, start column, end line, end column), str columns

    def column(line: int, byte_offset: int) -> int:
        return len(lines[line - 1].encode("utf-8")[:byte_offset].decode("utf-8", "replace"))

    for node in ast.walk(ast.parse(text)):
        if not hasattr(node, "lineno") or getattr(node, "end_lineno", None) is None:
            continue
        span = range(node.lineno, node.end_lineno + 1)
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            result.lines.update(span)
        elif isinstance(node, ast.Call) and (
            any(keyword.arg in ("precision", "accuracy") for keyword in node.keywords)
            or len(node.args) > _POSITIONAL_PRECISION.get(_callee_name(node), 99)
            or "lstm" in _callee_name(node).lower()
        ) or _looks_like_precision(node):
            result.lines.update(span)
            result.call_lines.update(span)
            if isinstance(node, ast.Call) and "lstm" in _callee_name(node).lower():
                result.lstm_starts.add(node.lineno)
            spans.append((node.lineno, column(node.lineno, node.col_offset),
                          node.end_lineno, column(node.end_lineno, node.end_col_offset)))
    for line in result.call_lines:
        if not any(first < line <= last for first, _, last, _ in spans):  # the line starts outside every span
            result.prefixes[line] = lines[line - 1][: min(c for first, c, _, _ in spans if first == line)]
        if not any(first <= line < last for first, _, last, _ in spans):  # and ends outside every span
            result.suffixes[line] = lines[line - 1][max(c for _, _, last, c in spans if last == line):]
    return result


def _added_lines(before: str, after: str) -> set[int]:
    """Lines of `after` (1-based) that hold imports or module-level functions `before` did not define."""
    defined = {node.name for node in ast.parse(before).body if isinstance(node, ast.FunctionDef)}
    lines: set[int] = set()
    for node in ast.parse(after).body:
        new_function = isinstance(node, ast.FunctionDef) and node.name not in defined
        if new_function or isinstance(node, (ast.Import, ast.ImportFrom)):
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            lines.update(range(first, node.end_lineno + 1))
    return lines


def check_confined(before: str, after: str) -> None:
    """Every changed line of `before` is editable, and keeps the text around its calls; every new line
    of `after` is an import, an added helper, or stands for a rewritten call line (no more of them
    than the call lines replaced). Blank lines may come and go only next to imports and helpers."""
    old, new = split_lines(before), split_lines(after)
    editable = editable_parts(before)
    added = _added_lines(before, after)
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        old_numbers = range(i1 + 1, i2 + 1)
        new_numbers = range(j1 + 1, j2 + 1)
        near_imports = any(n in editable.lines and n not in editable.call_lines for n in old_numbers) or any(
            n in added for n in new_numbers
        )
        where = f"input lines {i1 + 1}-{i2}, output lines {j1 + 1}-{j2}: {old[i1:i2]!r} -> {new[j1:j2]!r}"
        for n in old_numbers:
            blank = not old[n - 1].strip()
            assert n in editable.lines or (blank and near_imports), f"changed a line it may not touch; {where}"
            prefix, suffix = editable.prefixes.get(n), editable.suffixes.get(n)
            assert prefix is None or any(line.startswith(prefix) for line in new[j1:j2]), f"changed {prefix!r}; {where}"
            assert suffix is None or any(line.endswith(suffix) for line in new[j1:j2]), f"changed {suffix!r}; {where}"
        free = [n for n in new_numbers if n not in added and not (not new[n - 1].strip() and near_imports)]
        replaced_calls = [n for n in old_numbers if n in editable.call_lines]
        # JAX003 passes the LSTM as the helper's first argument: one more line in a broken-up call
        routed = sum(1 for n in old_numbers if n in editable.lstm_starts)
        assert len(free) <= len(replaced_calls) + routed, f"inserted lines that are no rewrite of a call; {where}"


def line_endings(text: str) -> set[str]:
    return {line[len(line.rstrip("\r\n")):] for line in split_lines(text) if line.endswith(("\n", "\r"))}


def run_tool(raw: bytes, settings: Settings) -> FileResult:
    return process_source(Path("fuzz_case.py"), raw, RULES, settings)


def check_invariants(raw: bytes, settings: Settings) -> FileResult:
    result = run_tool(raw, settings)
    context = f"{settings.scope.value}, jax {settings.jax_version}"
    if result.error is not None:
        assert not result.error.startswith("internal error"), f"{context}: {result.error}"
        assert result.new_source is None
        return result
    fixes = [f for f in result.findings if f.applied]
    assert all(f.kind in FIXING for f in fixes) and all(f.fix for f in result.findings if f.kind in FIXING)
    if result.new_source is None:
        assert not fixes, f"{context}: reports fixes but changes nothing: {fixes}"
        return result
    assert fixes, f"{context}: changes the file without reporting a fix"
    assert result.new_source != raw
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compile(result.new_source, "fuzz_case.py", "exec", dont_inherit=True)
    before = raw.decode("utf-8")
    assert result.new_source.decode("utf-8") == result.after
    endings = line_endings(before)
    if len(endings) == 1:
        assert line_endings(result.after) <= endings, f"{context}: line endings {endings} not kept:\n{result.after!r}"
    check_confined(before, result.after)
    again = run_tool(result.new_source, settings)
    assert again.error is None, f"{context}: second run: {again.error}"
    assert again.new_source is None, f"{context}: not idempotent:\n{again.after}"
    return result


# ---------------------------------------------------------------------------------------------
# A generator of kernel modules
# ---------------------------------------------------------------------------------------------

TPU, GPU, TRITON = "mosaic_tpu", "mosaic_gpu", "triton"
DEFAULT, HIGH, HIGHEST = 0, 1, 2
LEVEL_NAMES = ("DEFAULT", "HIGH", "HIGHEST")
LEVEL_STRINGS = (("default", "bfloat16"), ("high", "tensorfloat32"), ("highest", "float32"))
DOT_OPS = ("dot", "matmul", "einsum", "dot_general")
ACCURACY_OPS = ("exp", "tanh", "log", "rsqrt")
LAUNCHERS = ("call", "partial", "variable", "plgpu", "core_map_tpu", "core_map_gpu", "emit_pipeline", "none")


@dataclass
class Site:
    """One call the generator wrote, and what the docs say should happen to it."""

    op: str  # dot, matmul, einsum, dot_general, conv, exp, tanh, log, rsqrt, lstm
    hint: Optional[str]  # "precision", "accuracy", "kwargs" or None (a call the tool must leave alone)
    levels: Optional[tuple[int, ...]] = None  # precision: () for None, (L,) scalar, (L1, L2) pair
    readable: bool = True  # the value is one the tool reads (enum, string, Precision(...), None)
    variable: bool = False  # written as a module constant
    outside: bool = False  # in plain XLA code, not in a kernel
    reach: frozenset[str] = frozenset()  # backends of the kernels that run it
    shared_with_xla: bool = False  # a module helper that plain XLA code calls too (docs/how-it-decides.md: reported, not rewritten)

    def precision_needs_fix(self, version: tuple) -> Optional[bool]:
        """Does Mosaic TPU reject this precision (docs/rules/JAX001.md)? None: the oracle does not know."""
        if not self.readable:
            return None
        if not self.levels:
            return False
        if len(self.levels) == 2 and self.levels[0] != self.levels[1]:
            return True
        level = self.levels[0]
        if self.op == "conv":
            return level == HIGH
        return level == HIGH and version < MOSAIC_TPU_DOT_HIGH_SINCE

    def cannot_lower(self, backend: str, version: tuple) -> bool:
        """docs/how-it-decides.md: Mosaic GPU lowers no contraction, Triton no conv, Mosaic TPU no conv before 0.11.1."""
        conv = self.op == "conv"
        return backend == GPU or (conv and backend == TRITON) or (conv and backend == TPU and version < (0, 11, 1))

    def needs_fix(self, scope: Scope, version: tuple) -> Optional[bool]:
        if self.hint == "precision" and self.op == "lstm":
            if len(self.levels or ()) != 1 or not self.readable or self.variable:
                return None  # JAX003 reads literals only: a variable gets a [manual] note
            return self.levels[0] == DEFAULT
        if scope is Scope.KERNELS and self.shared_with_xla:
            return False
        if self.hint == "precision":
            if scope is Scope.KERNELS and TPU not in self.reach:
                return False
            if scope is Scope.ALL and self.outside and self.variable:
                return None
            if scope is Scope.KERNELS and self.reach and all(self.cannot_lower(b, version) for b in self.reach):
                return None  # docs/how-it-decides.md: a [manual] note, no fix (but a list precision is still rewritten)
            return self.precision_needs_fix(version)
        if self.hint == "accuracy":
            if scope is Scope.KERNELS and not self.reach & {TPU, GPU}:
                return False
            return None if not self.readable else True
        return False


@dataclass
class KernelModule:
    seed: int
    text: str
    sites: list[Site]
    lowerable: bool  # part 3: run(x, y) launches one pallas_call on Mosaic TPU; only dots and hinted exp/tanh/rsqrt
    launchers: list[str] = field(default_factory=list)

    def expected_change(self, settings: Settings) -> Optional[bool]:
        """True: the file must change; False: it must come out byte-identical; None: either."""
        answers = [site.needs_fix(settings.scope, settings.jax_version) for site in self.sites]
        if True in answers:
            return True
        if None in answers:
            return None
        return False


class _Lines:
    """Source lines with their indentation depth; statement starts may get a form feed later."""

    def __init__(self) -> None:
        self.items: list[tuple[int, str, bool]] = []  # (depth, text, starts a statement)

    def add(self, depth: int, text: str) -> None:
        first, *rest = text.split("\n")
        self.items.append((depth, first, True))
        self.items.extend((-1, line, False) for line in rest)  # continuation lines carry their own whitespace

    def blank(self) -> None:
        self.items.append((-2, "", False))


class _Generator:
    def __init__(self, seed: int, plain_layout: bool = False) -> None:
        self.seed = seed
        self.plain_layout = plain_layout
        self.rng = Random(seed)
        r = self.rng
        self.imports: list[str] = ["import functools", "import jax"]
        self.lax, lax_import = r.choice([("lax", "from jax import lax"), ("L", "from jax import lax as L"),
                                         ("lax", "import jax.lax as lax"), ("jax.lax", None)])
        if lax_import:
            self.imports.append(lax_import)
        self.np, np_import = r.choice([("jnp", "import jax.numpy as jnp"), ("np", "import jax.numpy as np"),
                                       ("jnp", "from jax import numpy as jnp")])
        self.imports.append(np_import)
        self.imports.append(r.choice(["from jax.experimental import pallas as pl", "import jax.experimental.pallas as pl"]))
        self.imports.append("from jax.experimental.pallas import tpu as pltpu")
        self.precision_names = [f"{self.lax}.Precision", "jax.lax.Precision"]
        choice = r.choice([None, "P", "Precision"])
        if choice:
            self.imports.append(f"from jax.lax import Precision as P" if choice == "P" else "from jax.lax import Precision")
            self.precision_names += [choice] * 3
        self.accuracy_names = [f"{self.lax}.AccuracyMode"]
        if r.random() < 0.3:
            self.imports.append("from jax.lax import AccuracyMode")
            self.accuracy_names += ["AccuracyMode"] * 2
        self.units = ["    ", "    ", "  ", "\t"]
        self.constants: list[str] = []
        self.sites: list[Site] = []
        self.counter = 0
        self.need_rnn = False
        self.triton: Optional[str] = None

    # -- spellings --

    def name(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}_{self.counter}"

    def quote(self, text: str) -> str:
        mark = self.rng.choice(["'", '"'])
        return f"{mark}{text}{mark}"

    def precision_scalar(self, level: int, style: str) -> str:
        r = self.rng
        if style == "string":
            return self.quote(r.choice(LEVEL_STRINGS[level]))
        if style == "constructor":
            return f"{r.choice(self.precision_names)}({self.quote(r.choice(LEVEL_STRINGS[level]))})"
        return f"{r.choice(self.precision_names)}.{LEVEL_NAMES[level]}"

    def precision_value(self) -> tuple[str, tuple[int, ...]]:
        r = self.rng
        kind = r.choice(["scalar", "scalar", "pair", "pair", "none"])
        if kind == "none":
            return "None", ()
        style = r.choice(["enum", "enum", "string", "constructor"])
        if kind == "scalar":
            level = r.choice([DEFAULT, HIGH, HIGHEST])
            return self.precision_scalar(level, style), (level,)
        levels = (r.choice([DEFAULT, HIGH, HIGHEST]), r.choice([DEFAULT, HIGH, HIGHEST]))
        # jax takes a pair of two enums or of two strings, as a tuple or a list
        pair_style = style if style == "string" else None
        parts = [self.precision_scalar(level, pair_style or r.choice(["enum", "constructor"])) for level in levels]
        separator = r.choice([", ", ",", " , ", ",\n" + r.choice(["    ", "\t", "          "])])
        open_, close = r.choice([("(", ")"), ("[", "]")])
        return f"{open_}{separator.join(parts)}{r.choice(['', ','])}{close}", levels

    def accuracy_value(self) -> tuple[str, bool]:
        r = self.rng
        value = r.choice([
            f"{r.choice(self.accuracy_names)}.HIGHEST",
            f"{r.choice(self.accuracy_names)}.DEFAULT",
            f"{self.lax}.Tolerance(atol=0., rtol=1e-6)",
            f"{self.lax}.Tolerance(atol=0.0, rtol=1e-6, ulps=2)",
            "None",
        ])
        return value, value != "None"

    # -- calls --

    def render_call(self, func: str, args: list[str], depth: int) -> str:
        """`func(args)` laid out one of several ways; continuation lines carry their own whitespace."""
        r = self.rng
        style = r.choice(["flat", "flat", "spaced", "broken", "hanging", "commented"])
        if style == "flat":
            return f"{func}({', '.join(args)})"
        if style == "spaced":
            return f"{func}({r.choice(['', ' ', '  '])}" + r.choice([" ,", ",  ", " , "]).join(args) + f"{r.choice(['', ' '])})"
        inner = r.choice(["    ", "\t", "        ", " ", "\t  "])
        base = "".join(r.choice(["    ", "\t"]) for _ in range(depth))
        if style == "hanging":
            width = len(func) + 1
            return f"{func}({args[0]}," + "".join(f"\n{' ' * (width + 4 * depth)}{a}," for a in args[1:-1]) + (
                f"\n{' ' * (width + 4 * depth)}{args[-1]})" if len(args) > 1 else ")")
        comments = ["  # keep precision as written", "# tab\tseparated", "  # é ünïcode", "  # (not, a, pair)",
                    "  # accuracy=HIGHEST was asked for", ""]
        parts = []
        for index, arg in enumerate(args):
            last = index == len(args) - 1
            comma = "," if not last or r.random() < 0.5 else ""
            comment = r.choice(comments) if style == "commented" else ""
            parts.append(f"\n{base}{inner}{arg}{comma}{comment}")
        closing = f"\n{base})" if "#" in parts[-1] or r.random() < 0.5 else ")"
        return f"{func}(" + "".join(parts) + closing

    def keyword(self, name: str, value: str) -> str:
        return f"{name}{self.rng.choice(['=', '=', ' = ', '= '])}{value}"

    def site_call(self, site: Site, depth: int, a: str = "a", b: str = "b") -> str:
        """The call for `site` (its hint filled in), as an expression of shape (8, 128)."""
        r = self.rng
        args: list[str]
        if site.op in ("dot", "matmul"):
            func, args = f"{self.np}.{site.op}", [a, b]
        elif site.op == "einsum":
            func, args = f"{self.np}.einsum", [self.quote("ij,jk->ik"), a, b]
        elif site.op == "dot_general":
            func, args = f"{self.lax}.dot_general", [a, b, "(((1,), (0,)), ((), ()))"]
        elif site.op == "conv":
            func = f"{self.lax}.conv_general_dilated"
            args = [f"{a}[None]", f"{b}[None]", "(1,)", '"SAME"', "None", "None", '("NCH", "OIH", "NCH")', "1", "1"]
        elif site.op == "lstm":
            func = "rnn.lstm"
            args = [f"{a}[None]", f"{a}[None]", f"{a}[None]", f"{b}[0]", f"{b}[0, :1]", "128", "128", "1", "0.0", "False"]
        else:
            qualified = r.random() < 0.15
            func, args = (f"jax.lax.{site.op}" if qualified else f"{self.lax}.{site.op}"), [a]
        if site.hint == "precision":
            value, site.levels = self.precision_value()
            if r.random() < 0.2:
                site.variable = True
                constant = self.name("PREC")
                self.constants.append(f"{constant} = {value}")
                value = constant
            if site.op in ("dot_general", "conv") and r.random() < 0.6:
                args.append(value)  # positional: dot_general's 4th, conv_general_dilated's 10th
            else:
                args.append(self.keyword("precision", value))
        elif site.hint == "accuracy":
            value, site.readable = self.accuracy_value()
            if r.random() < 0.2 and value != "None":
                constant = self.name("ACC")
                self.constants.append(f"{constant} = {value}")
                value = constant
            args.append(self.keyword("accuracy", value))
        elif site.hint == "kwargs":
            constant = self.name("OPTIONS")
            self.constants.append(f"{constant} = {{}}")
            args.append(f"**{constant}")
        text = self.render_call(func, args, depth)
        return f"{text}[0]" if site.op == "lstm" else text

    def new_site(self) -> Site:
        r = self.rng
        op = r.choice(DOT_OPS + ("dot", "dot_general", "conv") + ACCURACY_OPS + ACCURACY_OPS)
        if op in ACCURACY_OPS:
            hint = r.choice(["accuracy", "accuracy", "accuracy", None, "kwargs"])
        else:
            hint = r.choice(["precision", "precision", "precision", None])
        return Site(op, hint)

    # -- the module --

    def kernel_body(self, body: _Lines, depth: int, kernel_sites: list[tuple[Site, str]]) -> None:
        body.add(depth, "a = x_ref[...]")
        body.add(depth, "b = y_ref[...]")
        if self.rng.random() < 0.3:
            body.blank()
        body.add(depth, "acc = a" + self.rng.choice(["", "  ", "\t# accumulator"]))
        for site, place in kernel_sites:
            if place == "body":
                body.add(depth, f"acc = acc + {self.site_call(site, depth)}")
            elif place == "nested":
                inner = self.name("_inner")
                body.add(depth, f"def {inner}(a, b):")
                body.add(depth + 1, f"return {self.site_call(site, depth + 1)}")
                body.add(depth, f"acc = acc + {inner}(a, b)")
            elif place == "lambda":
                fn = self.name("f")
                body.add(depth, f"{fn} = lambda a, b: {self.site_call(site, depth)}")
                body.add(depth, f"acc = acc + {fn}(a, b)")
            else:  # a module helper's name
                body.add(depth, f"acc = acc + {place}(a, b)")
        body.add(depth, "o_ref[...] = acc")

    def generate(self) -> KernelModule:
        r = self.rng
        count = r.choice([1, 1, 1, 2])
        launchers = [r.choice(LAUNCHERS) for _ in range(count)]
        params = [r.choice([None, None, "tpu", "triton"]) if launcher in ("call", "partial", "variable") else None
                  for launcher in launchers]
        reach = []
        for launcher, param in zip(launchers, params):
            if launcher in ("call", "partial", "variable"):
                reach.append(frozenset({TPU, TRITON} if param is None else {TPU} if param == "tpu" else {TRITON}))
            elif launcher in ("plgpu", "core_map_gpu"):
                reach.append(frozenset({GPU}))
            elif launcher in ("core_map_tpu", "emit_pipeline"):
                reach.append(frozenset({TPU}))
            else:
                reach.append(frozenset())
        if "plgpu" in launchers or "core_map_gpu" in launchers:
            self.imports.append("from jax.experimental.pallas import mosaic_gpu as plgpu")
        if "triton" in params:
            self.triton = r.choice(["pltriton", "jax.experimental.pallas.triton"])
            self.imports.append("from jax.experimental.pallas import triton as pltriton" if self.triton == "pltriton"
                                else "import jax.experimental.pallas.triton")

        # sites: in kernels (directly, nested, lambda, module helper) or outside
        per_kernel: list[list[tuple[Site, str]]] = [[] for _ in launchers]
        outside: list[Site] = []
        helper_defs: list[tuple[str, Site, list[int]]] = []
        for _ in range(r.randint(1, 4)):
            site = self.new_site()
            where = r.randrange(count + 1) if r.random() < 0.2 else r.randrange(count)
            if where == count:
                site.outside = True
                outside.append(site)
            else:
                place = r.choice(["body", "body", "nested", "lambda", "helper"])
                if place == "helper":
                    users = sorted({where, r.randrange(count)})
                    name = self.name("_helper")
                    helper_defs.append((name, site, users))
                    site.reach = frozenset().union(*(reach[u] for u in users))
                    site.shared_with_xla = any(not reach[u] for u in users)  # a "kernel" nothing launches
                    for u in users:
                        per_kernel[u].append((site, name))
                else:
                    site.reach = reach[where]
                    per_kernel[where].append((site, place))
            self.sites.append(site)
        if r.random() < 0.15:
            site = Site("lstm", "precision", outside=True)
            self.need_rnn = True
            outside.append(site)
            self.sites.append(site)
        for site in outside:
            site.reach = frozenset()
        if self.need_rnn:
            self.imports.append("from jax.experimental import rnn")

        blocks: list[_Lines] = []
        for name, site, _ in helper_defs:
            lines = _Lines()
            lines.add(0, f"def {name}(a, b):")
            lines.add(1, f"return {self.site_call(site, 1)}")
            blocks.append(lines)
        out_shape = f"jax.ShapeDtypeStruct((8, 128), {self.np}.float32)"
        for index, (launcher, param) in enumerate(zip(launchers, params)):
            lines = _Lines()
            kernel = f"kernel_{index}"
            params_text = ""
            if param == "tpu":
                params_text = r.choice([", compiler_params=pltpu.CompilerParams()",
                                        ", compiler_params=pltpu.CompilerParams(vmem_limit_bytes=32 * 1024 * 1024)"])
            elif param == "triton":
                params_text = f", compiler_params={self.triton}.CompilerParams({r.choice(['', 'num_warps=4'])})"
            run = f"run_{index}" if index else "run"
            if launcher == "partial":
                lines.add(0, f"@functools.partial(pl.pallas_call, out_shape={out_shape}{params_text})")
            if launcher in ("core_map_tpu", "core_map_gpu"):
                mesh = 'pltpu.create_tensorcore_mesh("core")' if launcher == "core_map_tpu" else \
                    'plgpu.Mesh(num_threads=1, thread_name="thread")'
                lines.add(0, f"def {kernel}(x_ref, y_ref, o_ref):")
                lines.add(1, f"@pl.core_map({mesh})")
                lines.add(1, "def _():")
                self.kernel_body(lines, 2, per_kernel[index])
            else:
                lines.add(0, f"def {kernel}(x_ref, y_ref, o_ref):")
                self.kernel_body(lines, 1, per_kernel[index])
            lines.blank()
            if launcher == "call":
                lines.add(0, f"def {run}(x, y):")
                if params_text and r.random() < 0.3:  # the params through a local variable
                    lines.add(1, f"params = {params_text.partition('=')[2]}")
                    params_text = ", compiler_params=params"
                lines.add(1, f"return pl.pallas_call({kernel}, out_shape={out_shape}{params_text})(x, y)")
            elif launcher == "partial":
                lines.add(0, f"def {run}(x, y):")
                lines.add(1, f"return {kernel}(x, y)")
            elif launcher == "variable":
                launch = self.name("launch")
                lines.add(0, f"{launch} = pl.pallas_call({kernel}, out_shape={out_shape}{params_text})")
                lines.blank()
                lines.add(0, f"def {run}(x, y):")
                lines.add(1, f"return {launch}(x, y)")
            elif launcher == "plgpu":
                lines.add(0, f"def {run}(x, y):")
                lines.add(1, f"return plgpu.kernel({kernel}, out_type={out_shape})(x, y)")
            elif launcher == "emit_pipeline":
                outer = f"outer_{index}"
                spec = "pl.BlockSpec((8, 128), lambda i: (0, 0))"
                lines.add(0, f"def {outer}(x_hbm, y_hbm, o_hbm):")
                lines.add(1, f"pltpu.emit_pipeline({kernel}, grid=(1,), in_specs=[{spec}, "
                             f"pl.BlockSpec((128, 128), lambda i: (0, 0))], out_specs={spec})(x_hbm, y_hbm, o_hbm)")
                lines.blank()
                lines.add(0, f"def {run}(x, y):")
                lines.add(1, f"any_spec = pl.BlockSpec(memory_space=pl.ANY)")
                lines.add(1, f"return pl.pallas_call({outer}, out_shape={out_shape}, in_specs=[any_spec, any_spec], "
                             "out_specs=any_spec)(x, y)")
            blocks.append(lines)
        if outside:
            lines = _Lines()
            lines.add(0, "def reference(x, y):")
            lines.add(1, "a, b = x, y")
            lines.add(1, "acc = a")
            for site in outside:
                lines.add(1, f"acc = acc + {self.site_call(site, 1)}")
            lines.add(1, "return acc")
            blocks.append(lines)

        lowerable = (
            count == 1 and launchers[0] in ("call", "partial", "variable") and params[0] != "triton"
            and not outside
            and any(site.hint in ("precision", "accuracy") for site in self.sites)
            and all(
                (site.op in ("dot", "dot_general") and site.hint in ("precision", None) and not site.variable)
                or (site.op in ("exp", "tanh", "rsqrt") and site.hint in ("accuracy", None))
                for site in self.sites
            )
        )
        text = self.assemble(blocks)
        return KernelModule(self.seed, text, self.sites, lowerable, launchers)

    def assemble(self, blocks: list[_Lines]) -> str:
        r = self.rng
        header = _Lines()
        if r.random() < 0.3:
            header.add(0, self.quote("Generated kernel module (jax-codemod fuzzing)."))
        if r.random() < 0.3 and not self.plain_layout:
            header.add(0, "# -*- coding: utf-8 -*-  precision matters here")
        imports = self.imports[:]
        r.shuffle(imports)
        for line in imports:
            header.add(0, line)
        header.blank()
        for constant in self.constants:
            header.add(0, constant)
        everything = [header] + blocks
        ending_mode = r.choice(["\n", "\n", "\r\n", "mixed"])
        form_feeds = r.random() < 0.2
        if self.plain_layout:
            ending_mode, form_feeds = "\n", False
        trailing = r.random() < 0.3
        out: list[str] = []
        for block_index, block in enumerate(everything):
            unit = r.choice(self.units)
            if block_index:
                out.append("\f" if form_feeds and r.random() < 0.5 else "")
                out.append("")
            for depth, text, statement in block.items:
                if depth == -2:
                    out.append(r.choice(["", "", unit]) if trailing else "")
                    continue
                if depth == -1:  # continuation line of a call: written with tabs or spaces already
                    out.append(text)
                    continue
                line = unit * depth + text
                if statement and form_feeds and r.random() < 0.3:
                    line = "\f" + line
                if trailing and r.random() < 0.2 and "#" not in text:
                    line += r.choice([" ", "\t", "   "])
                out.append(line)
        endings = [ending_mode if ending_mode != "mixed" else r.choice(["\n", "\r\n"]) for _ in out]
        text = "".join(line + ending for line, ending in zip(out, endings))
        if r.random() < 0.1:
            text = text.rstrip("\r\n")  # no newline at end of file
        return text


def generate_kernel(seed: int, plain_layout: bool = False) -> KernelModule:
    """The kernel module of `seed`; `plain_layout`: the same module with LF endings only, no form feeds
    and no comment above the imports (what part 1 hosts random code in)."""
    return _Generator(seed, plain_layout).generate()


# ---------------------------------------------------------------------------------------------
# Part 2: generated kernel modules
# ---------------------------------------------------------------------------------------------

KERNEL_SEEDS = range(200)


@pytest.mark.parametrize("seed", KERNEL_SEEDS)
def test_generated_kernel_module(seed: int) -> None:
    module = generate_kernel(seed)
    raw = module.text.encode("utf-8")
    assert _compiles(module.text), "the generator wrote invalid Python"
    for settings in SETTINGS:
        result = check_invariants(raw, settings)
        assert result.error is None, result.error
        expected = module.expected_change(settings)
        context = f"seed {seed}, {settings.scope.value}, jax {settings.jax_version}; findings: " + "; ".join(
            f.render("case") for f in result.findings)
        if expected is True:
            assert result.new_source is not None, f"{context}: must change"
        elif expected is False:
            assert result.new_source is None, f"{context}: must stay byte-identical:\n{result.after}"


# ---------------------------------------------------------------------------------------------
# Part 1: hypothesmith modules with jax-looking fragments spliced in
# ---------------------------------------------------------------------------------------------

# Inserted at a statement's own indentation (inside functions, classes, loops, ...). They name
# nothing the random code defines, and the random code may rebind `lax`, `pl`, `jnp` around them.
FRAGMENTS = (
    "from jax import lax\nimport jax.numpy as jnp\nfrom jax.experimental import pallas as pl",
    "import functools\nfrom jax.experimental import pallas as pl\nfrom jax.experimental.pallas import tpu as pltpu\n"
    "from jax.lax import Precision as P",
    "def _fuzz_kernel(x_ref, y_ref, o_ref):\n"
    "    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))\n"
    "_fuzz_call = pl.pallas_call(_fuzz_kernel, out_shape=None)",
    "@functools.partial(pl.pallas_call, out_shape=None, compiler_params=pltpu.CompilerParams())\n"
    "def _fuzz_kernel_2(x_ref, o_ref):\n"
    "    o_ref[...] = lax.rsqrt(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)",
    "_fuzz_call_3 = pl.pallas_call(lambda x_ref, o_ref: lax.exp(x_ref[...], accuracy=lax.Tolerance(atol=0., rtol=1e-6)),"
    " out_shape=None)",
    "def _fuzz_kernel_4(x_ref, w_ref, o_ref):\n"
    "    o_ref[...] = lax.tanh(\n"
    "        x_ref[...],  # input\n"
    "        accuracy=lax.AccuracyMode.HIGHEST,\n"
    "    ) + lax.dot_general(x_ref[...], w_ref[...], (((1,), (0,)), ((), ())), [P.HIGH, P.DEFAULT])\n"
    "pl.pallas_call(_fuzz_kernel_4, out_shape=None)",
    "_fuzz_y = lax.conv_general_dilated(a, b, (1,), 'SAME', None, None, None, 1, 1, ('bfloat16', 'float32'))",
    "from jax.experimental import rnn\n"
    "_fuzz_out = rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False, precision=lax.Precision.DEFAULT)",
    "jax.config.update('jax_default_matmul_precision', 'bfloat16')\n"
    "_fuzz_out_2 = rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False)",
    "def _fuzz_kernel_5(x_ref, o_ref, **kw):\n"
    "    def inner(v):\n"
    "        return lax.log(v, accuracy=ACCURACY) + jnp.einsum('ij,jk', v, v, precision='tensorfloat32')\n"
    "    o_ref[...] = inner(x_ref[...]) + lax.exp(x_ref[...], **kw)\n"
    "pl.core_map(pltpu.create_tensorcore_mesh('core'))(_fuzz_kernel_5)",
)


def _statement_starts(source: str) -> list[tuple[int, str]]:
    """(0-based line, indentation) of every statement that starts its line."""
    lines = split_lines(source)
    starts = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.stmt) and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            line = lines[node.lineno - 1]
            indent = line[: len(line) - len(line.lstrip(" \t"))]
            if line.encode("utf-8")[: node.col_offset].strip(b" \t") == b"" and "\f" not in indent:
                starts.append((node.lineno - 1, indent))
    return sorted(set(starts))


def _compiles(source: str) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(source, "<fuzz>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            return False
    return True


def splice(host: str, piece: str, where: int) -> str:
    """`piece` inserted before the statement of `host` that `where` picks (at its indentation), or at
    the end; an insertion that does not compile falls back to the end, and then to `host` itself."""
    lines = split_lines(host)
    ending = next((line[len(line.rstrip("\r\n")):] for line in lines if line.endswith(("\n", "\r"))), "\n")
    starts = _statement_starts(host)
    if starts and where % (len(starts) + 1) < len(starts):
        line, indent = starts[where % (len(starts) + 1)]
        block = "".join(indent + text + ending for text in split_lines(piece.rstrip("\r\n") + "\n"))
        candidate = "".join(lines[:line]) + block + "".join(lines[line:])
        if _compiles(candidate):
            return candidate
    tail = host if not lines or lines[-1].endswith(("\n", "\r")) else host + ending
    candidate = tail + piece
    return candidate if _compiles(candidate) else host


@hypothesis_settings(
    derandomize=True, database=None, max_examples=80, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
                           HealthCheck.large_base_example],
)
@given(
    source=st.one_of(hypothesmith.from_grammar(), hypothesmith.from_node()),
    imports=st.lists(st.tuples(st.integers(0, 1000), st.sampled_from([0, 1])), min_size=1, max_size=2),
    insertions=st.lists(st.tuples(st.integers(0, 1000), st.integers(2, len(FRAGMENTS) - 1)), min_size=1, max_size=3),
    kernel=st.tuples(st.integers(0, 10**6), st.integers(0, 1000)),
)
def test_hypothesmith_modules(
    source: str, imports: list[tuple[int, int]], insertions: list[tuple[int, int]], kernel: tuple[int, int]
) -> None:
    """The random module as is; with fragments spliced into it; spliced into a generated kernel module."""
    try:
        source.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: not a file anyone can write
        return
    if not _compiles(source):
        return
    spliced = source
    for where, k in imports + insertions:
        spliced = splice(spliced, FRAGMENTS[k], where)
    seed, where = kernel
    hosted = splice(generate_kernel(seed, plain_layout=True).text, source, where)
    for text in dict.fromkeys([source, spliced, hosted]):
        raw = text.encode("utf-8")
        for settings in SETTINGS:
            check_invariants(raw, settings)


# ---------------------------------------------------------------------------------------------
# Part 3: generated Mosaic TPU kernels lower after the rewrite (the installed jax)
# ---------------------------------------------------------------------------------------------

def _lowerable_seeds(count: int) -> list[int]:
    seeds: list[int] = []
    seed = 0
    while len(seeds) < count:
        if generate_kernel(seed).lowerable:
            seeds.append(seed)
        seed += 1
    return seeds


LOWERING_SEEDS = _lowerable_seeds(20)


@pytest.mark.jax
@pytest.mark.parametrize("seed", LOWERING_SEEDS)
def test_generated_tpu_kernel_lowers(seed: int) -> None:
    jax = pytest.importorskip("jax")
    from tests import jax_support

    module = generate_kernel(seed)
    settings = Settings(jax_support.JAX_VERSION, unsafe_fixes=True)
    result = run_tool(module.text.encode("utf-8"), settings)  # the invariants: test_generated_kernel_module
    assert result.error is None, result.error
    operands = [jax.ShapeDtypeStruct((8, 128), "float32"), jax.ShapeDtypeStruct((128, 128), "float32")]
    output = result.after if result.new_source is not None else module.text
    program = jax_support.load_program(output, f"fuzz_kernel_{seed}")
    assert jax_support.lowering_error(jax.jit(program.run), operands, "tpu") is None, output
    expected = module.expected_change(settings)
    if expected is False:  # the oracle, against the compiler: nothing to fix, and it lowers as written
        assert result.new_source is None
    if expected is True:  # a fix is due: the original does not lower
        original = jax_support.load_program(module.text, f"fuzz_kernel_{seed}_original")
        try:
            failure = jax_support.lowering_error(jax.jit(original.run), operands, "tpu")
        except TypeError as error:  # a list pair: jax wants hashable parameters before Mosaic sees them
            failure = str(error)
        assert failure is not None, "the oracle expects a fix, but the original lowers"


# ---------------------------------------------------------------------------------------------
# Bugs the fuzzers found, as minimal reproducers: regression tests once fixed; an open one is a
# strict xfail with `raises=` naming its exception
# ---------------------------------------------------------------------------------------------

JAX_0_12 = Settings(jax_version=(0, 12, 0, 1), unsafe_fixes=True)


def test_bug_crlf_inside_a_rewritten_call() -> None:
    raw = (b"from jax import lax\r\nfrom jax.experimental import pallas as pl\r\n\r\n\r\n"
           b"def kernel(x_ref, o_ref):\r\n    o_ref[...] = lax.exp(\r\n        x_ref[...],\r\n"
           b"        accuracy=lax.AccuracyMode.HIGHEST)\r\n\r\n\r\nrun = pl.pallas_call(kernel, out_shape=None)\r\n")
    result = run_tool(raw, JAX_0_12)
    assert result.new_source is not None
    assert b"\n" not in result.new_source.replace(b"\r\n", b""), result.new_source  # today: b"lax.exp(\n ..."


def test_bug_form_feed_before_a_nested_block() -> None:
    raw = (b"from jax import lax\nfrom jax.experimental import pallas as pl\n\n\n"
           b"def kernel(x_ref, o_ref):\n\f    for i in range(2):\n"
           b"        o_ref[...] = lax.exp(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)\n\n\n"
           b"run = pl.pallas_call(kernel, out_shape=None)\n")
    result = run_tool(raw, JAX_0_12)
    assert result.error is None, result.error  # today: "internal error: the rewritten file does not parse"
    assert result.new_source is not None


def test_bug_form_feed_on_the_first_indented_line() -> None:
    raw = (b"import jax\nfrom jax.experimental import pallas as pl\n\n\n"
           b"def kernel(x_ref, o_ref):\n\f    o_ref[...] = jax.lax.rsqrt(x_ref[...], accuracy=jax.lax.AccuracyMode.HIGHEST)\n"
           b"\n\nrun = pl.pallas_call(kernel, out_shape=None)\n")
    result = run_tool(raw, JAX_0_12)
    assert result.error is None, result.error  # was: "... ValueError: Got an invalid value for default_indent: '\x0c    '"
    assert result.new_source is not None
    assert result.new_source.count(b"\f") == raw.count(b"\f"), result.new_source  # none on the helper's lines


def test_bug_form_feeds_changed_when_an_import_changes() -> None:
    dropped = (b"from jax import lax\nfrom jax.lax import AccuracyMode\nfrom jax.experimental import pallas as pl\n\n\n"
               b"def kernel(x_ref, o_ref):\n    o_ref[...] = lax.exp(x_ref[...], accuracy=AccuracyMode.HIGHEST)\n\n\n"
               b"\fdef run(x):\n    return pl.pallas_call(kernel, out_shape=None)(x)\n")  # AccuracyMode's import goes
    doubled = (b"import jax\nfrom jax.experimental import pallas as pl\n\n\n"
               b"def run(x):\n    return pl.pallas_call(kernel, out_shape=None)(x)\n\n\n"
               b"def kernel(x_ref, o_ref):\n\f    x = jax.lax.rsqrt(x_ref[...], accuracy=jax.lax.AccuracyMode.HIGHEST)\n"
               b"    o_ref[...] = x\n")  # rsqrt_safe needs `from jax import lax`
    for raw in (dropped, doubled):
        result = run_tool(raw, JAX_0_12)
        assert result.new_source is not None
        # was: "\fdef run" lost its form feed; "    o_ref[...] = x" gained one
        assert result.new_source.count(b"\f") == raw.count(b"\f"), result.new_source


def test_bug_comment_above_a_removed_import() -> None:
    raw = (b"import jax\n# accuracy modes for the kernels below\nfrom jax.lax import AccuracyMode\nfrom jax import lax\n"
           b"from jax.experimental import pallas as pl\n\n\n"
           b"def kernel(x_ref, o_ref):\n    o_ref[...] = lax.exp(x_ref[...], accuracy=AccuracyMode.HIGHEST)\n\n\n"
           b"run = pl.pallas_call(kernel, out_shape=None)\n")
    result = run_tool(raw, JAX_0_12)
    assert result.new_source is not None
    check_confined(raw.decode(), result.after)  # today: the comment goes with the import


def test_bug_positional_string_precision_passes_the_prefilter() -> None:
    # Mosaic TPU on jax 0.10.2 raises "Unsupported dot precision: HIGH" for this kernel (checked with
    # jax_support.lowering_error); with a comment saying "precision" anywhere in the file the tool fixes it.
    raw = (b"from jax import lax\nfrom jax.experimental import pallas as pl\n\n\n"
           b"def kernel(x_ref, y_ref, o_ref):\n"
           b"    o_ref[...] = lax.dot_general(x_ref[...], y_ref[...], (((1,), (0,)), ((), ())), 'tensorfloat32')\n\n\n"
           b"matmul = pl.pallas_call(kernel, out_shape=None)\n")
    result = run_tool(raw, Settings(jax_version=(0, 10, 2), unsafe_fixes=True))
    assert result.new_source is not None, "the HIGH dot was not rewritten"
