"""`jax-codemod explain`: from the traceback a user just got to the call that failed, and its fix.

JAX prints, above the exception, the user's own frames that produced the failing operation
(`JaxStackTraceBeforeTransformation`). The error names the rule (by its message), and the innermost
user frame that holds a matching call is the call to fix: proof that it runs in a kernel on a backend
that rejects it, even where the static kernel-scope analysis cannot see the kernel (a helper imported
from another module, a kernel reached through a registry, a launcher wrapped in the user's own
function). There the rule applies as if the kernel had been found; every other safety rule holds.

Log paths may come from another machine or checkout: a path that does not exist here is matched on
the longest suffix that exists under the root (`/ci/build/src/pkg/kernel.py` -> `src/pkg/kernel.py`).
A frame whose file is missing, or whose line no longer holds such a call (the file changed since the
traceback), is reported, never guessed.

Every error placed gets an answer: its fix (a diff, or written), the finding that says why a person
must change it, the `# jax-codemod: ignore` comment that silences it, or a line saying the rule found
nothing to change there. What `run` returns (`Outcome`, the exit status) says which.

pytest's tracebacks are read in every style (`--tb=auto`, `long`, `short`, `line`, `native`), and
a CI log's lines past GitHub Actions' timestamps.

Notebook tracebacks are read too, pasted as text with or without ANSI colours: terminal IPython and
Jupyter (`Cell In[7], line 3`, `File ~/x.py:12, in f()`, the failing line marked `---->`), older
IPython and Colab (`<ipython-input-7-abc> in f()`), plain Python frames of a cell
(`File "<ipython-input-7-abc>", line 3` or ipykernel's `/tmp/ipykernel_1234/567.py`). A cell's frame
is placed in the notebook given (`Notebook`: `--notebook nb.ipynb`, or the IPython extension's
session), `In [7]` being the code cell whose execution count is 7; without one, the message says to
pass `--notebook`.
"""

from __future__ import annotations

import ast
import collections
import enum
import functools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Callable, Iterable, Mapping, Optional, Sequence, TextIO

from codemods import api_changes
from codemods.analysis.module import ModuleIndex
from codemods.analysis.names import display
from codemods.analysis.project import facts_of
from codemods.capabilities import DIVISION_REJECTION, MATH_UNLOWERED, UNIMPLEMENTED, format_version
from codemods.engine import notebook as notebooks
from codemods.engine.diagnostics import Finding
from codemods.engine.formats import shown_path
from codemods.engine.rule import ParsedFile, Rule
from codemods.engine.source import SourceError, decode, read_text
from codemods.engine.suppression import reach, silencing, suppressions
from codemods.settings import Settings

# The errors the rules fix, by the words JAX uses (and their variants across releases).
ERRORS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # A dot algorithm preset dies in Mosaic TPU's lowering, which indexes the precision as a pair, and a
    # lax.DotAlgorithm names its input type where a Precision should be.
    ("JAX001", re.compile(r"Per-operand (?:dot|conv) precision unsupported|Unsupported (?:dot|conv) precision: \w+"
                          r"|'DotAlgorithmPreset' object is not subscriptable"
                          r"|Unsupported dot precision: <class '[\w.]+'>")),
    ("JAX002", re.compile(r"Not implemented: accuracy")),
    ("JAX003", re.compile(r"bfloat16 support not implemented for LSTM")),
    # A value indexed at a traced position in a Mosaic TPU kernel (JAX006); other primitives are other walls.
    ("JAX006", re.compile(r"Unimplemented primitive in Pallas TPU lowering for tc: dynamic_slice\b")),
    # Integer vector ops on 8- and 16-bit lanes: Mosaic TPU's compiler on the chip (its message holds
    # the MLIR op and its vector type), or the Pallas lowering for max/min reductions.
    ("JAX004", re.compile(r"Only vector<i16> and vector<i32> are supported, but got 'i8'"
                          r"|failed to legalize operation '(?:arith\.(?:shli|shrsi|shrui|maxsi|minsi|maxui|minui)"
                          r"|math\.absi)'(?=[^\n]*xi(?:8|16)>)"
                          r"|Target does not support this comparison"
                          r"|Reductions over (?:u?int(?:8|16)|unsigned integers) not implemented")),
    # 64-bit values in a Mosaic TPU kernel under jax_enable_x64: a value, argmax's int64 index (two
    # releases' words), an int64 iota (Mosaic's compiler, on the chip), a 64-bit value stored to a
    # 32-bit ref (any backend: the store's check at trace time).
    ("JAX005", re.compile(r"64-bit types are not supported|Only index_dtype=int32 is supported"
                          r"|Unsupported combination of input dtype \(\w+\) and index_dtype \(int64\) for reduce_index"
                          r"|Only 8-, 16- and 32-bit Iota supported"
                          r"|Invalid dtype for `swap`\. Ref dtype: \w+\. Value dtype: u?(?:int|float)64")),
    # pl.debug_print's arguments in a Mosaic TPU kernel: a narrow vector indexed down to a scalar, and a
    # scalar its placeholders do not take (two releases' words).
    ("JAX008", re.compile(r"Only arrays with 32-bit element types can be converted to scalars"
                          r"|All arguments must be 32-bit integers(?: or floats)? when using placeholders")),
    # Math Mosaic TPU or Triton has no lowering for (`jax.nn.elu` in the user's frame reaches it as expm1), and
    # Triton's bfloat16 and float16 division.
    ("JAX007", re.compile("|".join(re.escape(UNIMPLEMENTED[backend].format("")) + "(?:" + "|".join(sorted(
        frozenset().union(*(names for _, names in MATH_UNLOWERED[backend])))) + r")\b"
        for backend in sorted(MATH_UNLOWERED)) + "|" + DIVISION_REJECTION)),
)
# The upgrade errors (the JAX1xx rows): a jax name that is gone, named by Python's own message.
_MISSING = re.compile(r"\b(?:AttributeError|ImportError|ModuleNotFoundError): (?P<message>"
                      r"module '(?P<module>[\w.]+)' has no attribute '(?P<name>\w+)'"
                      r"|cannot import name '(?P<imported>\w+)' from '(?P<source>[\w.]+)'"
                      r"|No module named '(?P<missing>[\w.]+)'"
                      r"|'\w+' object has no attribute '(?P<attribute>\w+)')")
# A keyword argument a release removed (JAX140's `jnp.clip(a_min=)`), named by Python's TypeError.
_KEYWORD = re.compile(r"\bTypeError: (?P<message>(?P<function>\w+)\(\) got an unexpected keyword argument '\w+')")
# A row whose old spelling fails in a call it is handed to, with Python's own message (JAX173).
_RAISED_LATER = tuple((row.code, row.raised_later) for row in api_changes.TABLE if row.raised_later)
_WARNING = re.compile(r"\b\w*Warning: (?P<message>.*\bjax\..*?)\s*$")  # jax's deprecation warnings
# A warning as Python's `warnings` prints it, and pytest's warnings summary (indented):
# `path.py:12: DeprecationWarning: jax.tree_map is deprecated ...`, the line's code below it.
_WARNING_LINE = re.compile(r"^\s*(?P<path>\S.*?):(?P<line>\d+): (?P<warning>\w*Warning: .*)$")
_JAX_NAME = re.compile(r"\bjax(?:\.\w+)+")
_FRAME = re.compile(r'^\s*File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<function>.+?)\s*$')
# Python's header, and IPython's (`NotImplementedError     Traceback (most recent call last)`).
_TRACEBACK = re.compile(r"^\s*(?:[\w.]+\s+)?Traceback \(most recent call last\):?\s*$")
# IPython's verbose frames: a cell (`Cell In[7], line 3, in f()`; 8.0-8.4: `Input In [7], in f()`),
# a file (`File ~/x.py:12, in f()`), IPython 7 / Colab (`<ipython-input-7-abc> in f()`, `/x.py in f()`).
_IPYTHON_CELL = re.compile(r"^\s*(?:Cell|Input) In ?\[(?P<cell>\d+)\](?:, line (?P<line>\d+))?(?:, in (?P<function>.+?))?\s*$")
_IPYTHON_FILE = re.compile(r"^\s*File (?P<path>[^\s\"].*?):(?P<line>\d+)(?:, in (?P<function>.+?))?\s*$")
_IPYTHON_7 = re.compile(r"^(?P<path><ipython-input-\d+-\w+>|(?:[A-Za-z]:)?[~/\\]\S*\.py) in (?P<function>.+?)\s*$")
_ARROW = re.compile(r"^\s*-*> ?\s*(?P<line>\d+) ?(?P<code>.*)$")  # `----> 3 code`, `-> 3062 code`
# A magic's line as IPython runs it (`%timeit f()`: `get_ipython().run_line_magic('timeit', 'f()')`).
_MAGIC_CALL = re.compile(r"\bget_ipython\(\)\.run_line_magic\(")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# A CI log's line prefix: GitHub Actions' timestamp (`2026-12-06T04:07:33.1234567Z `).
_CI_PREFIX = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?", re.M)
# pytest's tracebacks (--tb=auto, long, short, line). A test's section starts with its header
# (`____ test_x ____`; a collection error's `Traceback:`) and ends at the next section or `====`
# line; its error is on `E   ` lines. A frame is a location, `path:12: in f` (short, the code on
# the next line) or `path:12: ` / `path:12: AttributeError` (long, after its source, the failing
# line marked `>`); --tb=line prints one line, `path:12: AttributeError: message`.
_PYTEST_SECTION = re.compile(r"^(?:_{3,} .+ _{3,}|={3,}.*|Traceback:)\s*$")
_PYTEST_LOCATION = re.compile(r"^(?P<path>(?:[A-Za-z]:)?[^\s:][^:]*):(?P<line>\d+):"
                              r"(?: in (?P<function>.+?)| (?P<exception>[\w.]+))?\s*$")
_PYTEST_LINE = re.compile(r"^(?P<path>(?:[A-Za-z]:)?[^\s:][^:]*):(?P<line>\d+): (?P<error>[\w.]+: .*)$")
_PYTEST_ERROR = re.compile(r"^E {2,}(?P<error>.*)$")
_PYTEST_FAILING = re.compile(r"^>\s+(?P<code>\S.*?)\s*$")  # long style: the frame's line
_PYTEST_DEF = re.compile(r"^\s*(?:async\s+)?def (?P<function>\w+)\(")  # long style: the frame's function
# A notebook cell's file: `<ipython-input-7-abc>` (IPython), `/tmp/ipykernel_1234/567.py` (ipykernel).
_CELL_FILE = re.compile(r"^<ipython-input-(?P<cell>\d+)-\w*>$|ipykernel_\d+[/\\]\d+\.py$")
_EXCEPTION = re.compile(r"^(?:[\w.]+(?:Error|Exception|Transformation|Warning)|[\w.]+Error)\b.*:")
# Mosaic's compiler names the failing op's place in the kernel as an MLIR location, under its error:
# `at location: loc("add:"("add/add"(callsite("body"("/k.py":34:25 to :30) at "run"("/k.py":63:21 to :47))))`,
# innermost first. A log may hold no other frame of the kernel (the compiler's JaxRuntimeError alone).
_MLIR_LOCATION = re.compile(r"^\s*at location: loc\(")
_MLIR_PLACE = re.compile(r'"(?P<path>[^"]+\.py)":(?P<line>\d+):\d+')
# Frames of jax itself (and of Python's machinery) never hold the user's call.
_LIBRARY = re.compile(r"[/\\](?:jax|jaxlib)[/\\](?:_src|experimental|interpreters|mlir)?|<frozen |^<")


class Outcome(enum.Enum):
    """How an `explain` run ended; the command exits 0, 1 or 2 (codemods/cli.py)."""

    FIXED = 0  # every error placed is fixed on disk
    PENDING = 1  # an error stays, and the output says what to do: a fix shown, not written (a dry run,
    # an unsafe fix); a finding with no fix; the `# jax-codemod: ignore` comment that keeps it
    UNRESOLVED = 2  # an error could not be placed, its file not processed, or its rule found nothing there


@dataclass(frozen=True)
class Frame:
    path: str
    line: int
    function: str
    code: Optional[str]  # the source line the traceback quotes, when it does
    cell: Optional[int] = None  # a notebook cell's frame: its execution count (`In [7]`), when known

    @property
    def in_notebook(self) -> bool:
        return self.cell is not None or bool(_CELL_FILE.search(self.path))

    @property
    def where(self) -> str:
        if self.cell is not None:
            return f"In [{self.cell}], line {self.line}"
        return f"{self.path}:{self.line}"


@dataclass
class JaxError:
    rule: str
    message: str
    frames: list[Frame]  # outermost first, as Python prints them
    note: str = ""  # why the log may lack the user's frames (pytest's --tb=line)


@dataclass
class Placement:
    error: JaxError
    path: Optional[Path] = None  # the file and line of the call to fix, when placed
    line: int = 0
    reasons: list[str] = field(default_factory=list)  # why frames were passed over
    cells: list[Frame] = field(default_factory=list)  # notebook cells' frames, passed over for want of the notebook


@dataclass
class Notebook:
    """The notebook a traceback's cells ran in: `--notebook nb.ipynb`, or an IPython session's cells
    (codemods/ipython.py). `In [7]` is the code cell whose execution count is 7."""

    path: Path
    raw: bytes
    files: Mapping[str, int] = field(default_factory=dict)  # a cell's file name -> its execution count (a live session)

    @classmethod
    def load(cls, path: Path) -> "Notebook":
        return cls(path, path.read_bytes())

    def __post_init__(self) -> None:
        import json

        self.source = notebooks.read(self.path, self.raw)  # NotebookError: not a notebook we read
        self.counts: dict[int, int] = {}  # execution count -> cell number (every cell counted from 1)
        for number, cell in enumerate(json.loads(self.source.json_text)["cells"], 1):
            count = cell.get("execution_count") if isinstance(cell, dict) and cell.get("cell_type") == "code" else None
            if isinstance(count, int):
                self.counts.setdefault(count, number)
        self.module = ModuleIndex.parse(self.source.text)
        # The module's lines as the cells hold them (IPython lines too, which the module has as placeholders).
        self.written = "".join(cell.source + "\n" * cell.newline_added for cell in self.source.cells.cells)

    def line_of(self, frame: Frame) -> "int | str":
        """The line of the notebook's module that `frame` names, or why there is none."""
        cells = {cell.number: cell for cell in self.source.cells.cells}
        count = frame.cell if frame.cell is not None else self.files.get(frame.path)
        named = _CELL_FILE.match(frame.path)
        if count is None and named and named["cell"]:
            count = int(named["cell"])
        if count is not None and self.counts.get(count) in cells:
            cell = cells[self.counts[count]]
        else:
            # ipykernel's file of a cell is named by a hash of its code; a notebook saved with no execution
            # count at all (run, not saved since) names none: the one cell holding the code the traceback
            # quotes. (One saved with other counts ran again since: not guessed.)
            holding = [cell for cell in cells.values() if frame.code is not None
                       and frame.line <= len(cell.source.splitlines())
                       and cell.source.splitlines()[frame.line - 1].strip() == frame.code]
            if len(holding) == 1 and (count is None or not self.counts):
                cell = holding[0]
            elif count is None:
                return f"{frame.where}: cannot tell which cell of {self.path} ran as this file"
            else:
                return (f"In [{count}]: no code cell of {self.path} has execution count {count} (is the "
                        "notebook saved as it ran?)")
        if frame.line > max(1, len(cell.source.splitlines())):
            return f"{frame.where}: cell {cell.number} of {self.path} has fewer lines (changed since the traceback)"
        return cell.first_line + frame.line


def upgrade_rows(name: str) -> list[str]:
    """The JAX1xx rows whose old spelling is `name` (`jax.tree_map`, `.device_buffer`, `jax.config`),
    else those whose old spellings live in the module `name` (`jax.lib.xla_bridge`), if it is one
    that goes: no replacement lives in it (`No module named 'jax'` is no upgrade's error)."""
    exact = [row.code for row in api_changes.TABLE if name in row.old or name in row.modules]
    if any((row.new or "").startswith(name + ".") for row in api_changes.TABLE):
        return exact
    # Its members' rows first: they fix the lines that use a member with a replacement (JAX112
    # `xla_bridge.get_backend`); the module's own row (JAX195) speaks for every other use.
    members = [row.code for row in api_changes.TABLE if any(old.rpartition(".")[0] == name for old in row.old)]
    return [*members, *(code for code in exact if code not in members)]


def keyword_rows(function: str) -> list[str]:
    """The JAX1xx rows whose old spelling fails with a TypeError and is a function named `function`:
    Python's message names only the function, the row's rule finds the call on the traceback's line."""
    def fails_with_type_error(row: api_changes.ApiChange) -> bool:
        failures = [row.failure] if isinstance(row.failure, str) else [failure for _, failure in row.failure]
        return any(failure.startswith("TypeError") for failure in failures)

    return [row.code for row in api_changes.TABLE
            if fails_with_type_error(row) and any(old.rpartition(".")[2] == function for old in row.old)]


def _errors_of(line: str) -> list[tuple[str, str]]:
    """The rules that fix the error (or jax's warning) stated on an exception line, each with the
    words that say it: one rule, or the rows of a gone module's names (the line of the frame tells
    which of them it is)."""
    for rule, pattern in ERRORS:
        match = pattern.search(line)
        if match:
            return [(rule, match.group())]
    missing = _MISSING.search(line)
    if missing:
        found = missing.groupdict()
        name = ("." + found["attribute"] if found["attribute"] else found["missing"]
                or f"{found['module'] or found['source']}.{found['name'] or found['imported']}")
        return [(code, missing["message"]) for code in upgrade_rows(name)]
    keyword = _KEYWORD.search(line)
    if keyword:
        return [(code, keyword["message"]) for code in keyword_rows(keyword["function"])]
    stated = [(code, message) for code, message in _RAISED_LATER if message in line]
    if stated:
        return stated
    warned = _WARNING.search(line)
    for name in _JAX_NAME.findall(warned["message"]) if warned else ():  # the first jax name with a row
        codes = upgrade_rows(name.rstrip("."))
        if codes:
            return [(code, warned["message"]) for code in codes]  # type: ignore[index]
    return []


def parse_log(text: str) -> list[JaxError]:
    """Every traceback in `text` that ends in an error one of the rules fixes.

    JAX prints one error twice (the user's frames, then jax's own): both come back; `place`
    settles on the first that points at a call, and `explain` reports each call once. IPython's
    tracebacks (colours removed) are read as Python's."""
    errors: list[JaxError] = []
    frames: list[Frame] = []
    lines = _CI_PREFIX.sub("", _ANSI.sub("", text)).splitlines()
    in_traceback = False
    pending: Optional[Frame] = None  # an IPython frame waiting for its `---->` line
    # pytest: the errors of the `E` lines, given their frames when the test's section ends; the
    # `>` line and `def` of a long-style frame, which its location line follows.
    raised: list[tuple[str, str]] = []
    failing: Optional[str] = None
    function = "<module>"

    def flush() -> None:
        nonlocal pending
        if pending is not None and pending.line > 0:
            frames.append(pending)
        pending = None

    def end_of_test() -> None:
        errors.extend(JaxError(rule, message, list(frames)) for rule, message in raised)
        raised.clear()

    raised_here: list[JaxError] = []  # the errors of the last exception line, which a location may follow
    for index, line in enumerate(lines):
        if _MLIR_LOCATION.match(line) and raised_here:
            places = list(dict.fromkeys((m["path"], int(m["line"])) for m in _MLIR_PLACE.finditer(line)))
            for error in raised_here:  # frames are listed outermost first
                error.frames = error.frames + [Frame(path, number, "<kernel>", None) for path, number in reversed(places)]
            continue
        if _PYTEST_SECTION.match(line):
            end_of_test()
            frames, in_traceback, pending, failing, function = [], False, None, None, "<module>"
            continue
        error_line = _PYTEST_ERROR.match(line)
        if error_line:
            raised += [found for found in _errors_of(error_line["error"]) if found not in raised]
            continue
        if _PYTEST_FAILING.match(line):
            failing = _PYTEST_FAILING.match(line)["code"]  # type: ignore[index]
            continue
        defined = _PYTEST_DEF.match(line)
        if defined and not in_traceback:
            function = defined["function"]
        location = _PYTEST_LOCATION.match(line) if not in_traceback else None
        if location:
            following = lines[index + 1] if index + 1 < len(lines) else ""
            short = location["function"] is not None
            code = following.strip() if short and following.startswith("    ") else failing
            frames.append(Frame(location["path"], int(location["line"]), location["function"] or function,
                                code or None))
            failing, function = None, "<module>"
            continue
        one_line = _PYTEST_LINE.match(line) if not in_traceback else None
        if one_line and not _WARNING_LINE.match(line):
            frame = Frame(one_line["path"], int(one_line["line"]), "<module>", None)
            errors += [JaxError(rule, message, [frame], "pytest's --tb=line shows only the frame that raised: run "
                                "pytest with --tb=short or --tb=long for the frames of your code")
                       for rule, message in _errors_of(one_line["error"])]
            continue
        warned = _WARNING_LINE.match(line)
        if warned:  # a warning printed by `warnings` (not raised): one frame, the line it names
            following = lines[index + 1] if index + 1 < len(lines) else ""
            deeper = len(following) - len(following.lstrip()) > len(line) - len(line.lstrip())
            named = _CELL_FILE.search(warned["path"])
            frame = Frame(warned["path"], int(warned["line"]), "<module>", following.strip() if deeper else None,
                          int(named["cell"]) if named and named["cell"] else None)
            errors += [JaxError(rule, message, [frame]) for rule, message in _errors_of(warned["warning"])]
            continue
        if _TRACEBACK.match(line):
            frames, in_traceback, pending, raised_here = [], True, None, []
            continue
        if not in_traceback:
            continue
        frame = _FRAME.match(line)
        if frame:
            flush()
            following = lines[index + 1] if index + 1 < len(lines) else ""
            code = following.strip() if following.startswith((" ", "\t")) and not _FRAME.match(following) else None
            named = _CELL_FILE.match(frame["path"])
            cell = int(named["cell"]) if named and named["cell"] else None
            frames.append(Frame(frame["path"], int(frame["line"]), frame["function"], code or None, cell))
            continue
        verbose = _IPYTHON_CELL.match(line) or _IPYTHON_FILE.match(line) or _IPYTHON_7.match(line)
        if verbose:
            flush()
            found = verbose.groupdict()
            path = found.get("path") or f"In [{found['cell']}]"
            if found.get("path", "").startswith("~"):
                path = str(Path(path).expanduser())
            named = _CELL_FILE.match(path)
            cell = int(found["cell"]) if found.get("cell") else int(named["cell"]) if named and named["cell"] else None
            pending = Frame(path, int(found.get("line") or 0), found.get("function") or "<module>", None, cell)
            continue
        arrow = _ARROW.match(line)
        if arrow and pending is not None:
            if pending.line in (0, int(arrow["line"])):
                pending = Frame(pending.path, int(arrow["line"]), pending.function, arrow["code"].strip() or None,
                                pending.cell)
            continue
        if _EXCEPTION.match(line.strip()) and not line.startswith((" ", "\t")):
            flush()
            raised_here = [JaxError(rule, message, frames) for rule, message in _errors_of(line)]
            errors += raised_here
            in_traceback = False
    end_of_test()
    return errors


def resolve(path: str, root: Path) -> Optional[Path]:
    """The file a log path names here: itself, else the longest suffix of it that exists under `root`."""
    direct = Path(path)
    if direct.is_file():
        return direct
    parts = Path(path.replace("\\", "/")).parts
    for start in range(len(parts)):  # a relative path (`src/k.py`, run from the root) is itself a suffix
        candidate = root.joinpath(*parts[start:])
        if candidate.is_file():
            return candidate
    return None


def _named(path: Path) -> Path:
    """`path` as `fix` names a file in its diff and reports, whatever spelling the log or `--root`
    gave it: relative to the current folder when it lies under it, else absolute."""
    return Path(shown_path(str(path))[0])


def place(error: JaxError, root: Path, holds_call, notebook: Optional[Notebook] = None,
          reached: Optional[Callable[[str, Path, int], bool]] = None) -> Placement:
    """The innermost user frame whose line holds a call `error.rule` would rewrite.

    `holds_call(rule, module, line) -> bool` is the rule's own test (codemods.explain_rules);
    `reached(rule, path, line) -> bool`, asked of a line that holds none, whether the project's link
    finds such a call reaching it as a value (`op(x)`, `op` a table's partial of `lax.rsqrt`). A
    notebook cell's frame is placed in `notebook` (its module's line); without one it is noted."""
    placement = Placement(error)
    innermost = True
    for frame in reversed(error.frames):
        first, innermost = innermost, False
        if frame.in_notebook:
            if notebook is None:
                placement.cells.append(frame)
                continue
            line = notebook.line_of(frame)
            if isinstance(line, str):
                placement.reasons.append(line)
                continue
            path, module, where = notebook.path, notebook.module, frame.where
            text = notebook.written  # a magic's line as the traceback quotes it, not as analysed
        else:
            if _LIBRARY.search(frame.path):
                if first and error.rule == "JAX007" and frame.path.endswith(".py") \
                        and "/jax/" in frame.path.replace("\\", "/"):
                    # JAX's trace of a jitted jax function (jax.nn.elu, jnp.cumsum) starts inside it
                    placement.reasons.append(
                        f"its innermost frame is jax's own `{frame.function}` ({frame.path}:{frame.line}), a jitted "
                        "function whose caller JAX's traceback does not show: `jax-codemod --select "
                        f"{error.rule}` on the kernel's files finds the call")
                continue
            path = resolve(frame.path, root)
            if path is None:
                placement.reasons.append(f"{frame.path}:{frame.line} ({frame.function}): the file is not here")
                continue
            try:
                text = read_text(path)
                module = ModuleIndex.parse(text)
            except (OSError, SourceError, SyntaxError, ValueError, RecursionError) as problem:
                placement.reasons.append(f"{_named(path)}:{frame.line}: cannot read it ({problem})")
                continue
            line, where = frame.line, f"{_named(path)}:{frame.line}"
        current = text.splitlines()[line - 1].strip() if line <= len(text.splitlines()) else None
        if frame.code is not None and current is not None and current != frame.code \
                and not (_MAGIC_CALL.search(frame.code) and frame.in_notebook and "%" in current):
            placement.reasons.append(f"{where}: changed since the traceback "
                                     f"(it showed `{frame.code}`, the file now has `{current}`)")
            continue
        if holds_call(error.rule, module, line):
            placement.path, placement.line = _named(path), line
            return placement
        for target, target_line in _imported_values(module, line, path, root):  # a partial another module binds
            try:
                imported = ModuleIndex.parse(read_text(target))
            except (OSError, SourceError, SyntaxError, ValueError, RecursionError):
                continue
            if holds_call(error.rule, imported, target_line):
                placement.path, placement.line = _named(target), target_line
                return placement
        if reached is not None and reached(error.rule, path, line):
            placement.path, placement.line = _named(path), line
            return placement
        placement.reasons.append(f"{where} ({frame.function}): no call there that {error.rule} rewrites")
    return placement


def _imported_values(module: ModuleIndex, line: int, path: Path, root: Path) -> Iterable[tuple[Path, int]]:
    """What calls on `line` call through an import of a value another module of the project binds
    (`project(x)` with `from shared_math import project`, there `project = functools.partial(...)`):
    that file and the line of the value. JAX's traceback names the call, never the partial, which
    runs no frame of its own."""
    for call in module.calls:
        if not call.lineno <= line <= call.end_lineno:
            continue
        for name in module.qualified_names(call.func):
            found = _module_file(name, path, root)
            if found is None:
                continue
            target, attribute = found
            try:
                tree = ast.parse(read_text(target))
            except (OSError, SourceError, SyntaxError, ValueError, RecursionError):
                continue
            for statement in tree.body:
                if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None and any(
                        isinstance(t, ast.Name) and t.id == attribute
                        for t in (statement.targets if isinstance(statement, ast.Assign) else [statement.target])):
                    yield target, statement.value.lineno


def _module_file(qualified: str, path: Path, root: Path) -> Optional[tuple[Path, str]]:
    """`shared_math.project` -> (the file `shared_math.py` beside `path` or under `root`, "project");
    a relative name (`..ops.mm`) from `path`'s package; `.f` (`from . import f`) -> (the package's
    `__init__.py`, "f")."""
    level = len(qualified) - len(qualified.lstrip("."))
    parts = qualified.lstrip(".").split(".")
    if level and len(parts) == 1 and level <= len(path.parents):  # `from . import f`: a name of the package
        init = path.parents[level - 1] / "__init__.py"
        return (init, parts[0]) if init.is_file() else None
    if len(parts) < 2:
        return None
    bases = [path.parents[level - 1]] if level and level <= len(path.parents) else \
        [path.parent, *[folder for folder in path.parents if folder == root or root in folder.parents], root]
    for base in bases:
        folder = base.joinpath(*parts[:-2]) if len(parts) > 2 else base
        for candidate in (folder / f"{parts[-2]}.py", folder / parts[-2] / "__init__.py"):
            if candidate.is_file():
                return candidate, parts[-1]
    return None


def run(text: str, root: Path, rules: Mapping[str, Rule], settings: Settings, *, write: bool,
        out: BinaryIO, err: TextIO, selected: Optional[Iterable[Rule]] = None,
        ignored_rules: Callable[[Path], frozenset[str]] = lambda path: frozenset(),
        notebook: Optional[Notebook] = None, results: Optional[list] = None,
        project: Sequence[Path] = (), index=None) -> Outcome:
    """`jax-codemod explain`: place each error of the log, fix it (diffs on `out`, or written with
    `write`, only under `root`), say on `err` what became of each. `selected` and `ignored_rules`
    are the project's choice of rules (`--select`/`--ignore`, the config's `per-file-ignores`): an
    error of a rule left out is placed and named, not fixed. `notebook`: where cells' frames are
    placed (its path is the file written); `results` collects each processed file's FileResult;
    `project`: the project's files, indexed so that a helper a kernel elsewhere calls gets the facts
    `fix` gives it (a precision in its parameter's default is then fixed there, as `fix` fixes it);
    `index`: that index where the caller holds one (the IPython extension's, whose session is one
    more module of the project: `notebook` is its file)."""
    from codemods.engine import runner
    from codemods.engine.programs import programs
    from codemods.engine.report import file_diff, fix_diff, render_findings, unified_diff

    chosen = set(rules) if selected is None else {rule.code for rule in selected}

    def holds_call(code: str, module: ModuleIndex, line: int) -> bool:
        return _span(rules[code], module, settings, line) is not None

    errors = parse_log(text)
    if not errors:
        err.write("explain: no error jax-codemod fixes in this log (it knows: per-operand or unsupported "
                  "precision, \"Not implemented: accuracy\", bf16 LSTM, 8- and 16-bit integer vector ops on "
                  "Mosaic TPU, math Mosaic TPU cannot lower (\"Unimplemented primitive in Pallas TPU lowering for "
                  "tc: expm1\" ...), and a removed or deprecated jax name in an AttributeError, ImportError, "
                  "ModuleNotFoundError or DeprecationWarning, a removed keyword argument in a TypeError)\n")
        return Outcome.UNRESOLVED

    def indexed(path: Path):
        """The project's index for the chosen rules: the caller's, else made the first time it is asked,
        listed from `path`'s folder where folders share module names (`programs`: one traceback is
        one process, whose imports are that folder's)."""
        nonlocal index
        if index is None:
            [(_, listed)] = programs([path], project) if project else [((), project)]
            index = runner.project_index(listed, [rules[code] for code in chosen], settings)
        return index

    @functools.lru_cache(maxsize=None)
    def in_project() -> frozenset[str]:
        return frozenset(map(os.path.abspath, project))

    def reached(code: str, path: Path, line: int) -> bool:
        """A call `code` follows, reaching `line` as a value (the link's answer for it is at its site
        there): `_written_elsewhere` then finds where that value is written, as `fix` does."""
        if code not in chosen or not rules[code].follows \
                or project and os.path.abspath(path) not in in_project():
            return False  # (a frame outside the project, jax's or a harness's: no facts; nor its folder's index)
        known = indexed(path)  # (None: no rule chosen needs one, `--scope all`)
        flow = known.facts(path).flow if known is not None else None
        return flow is not None and any(sink.site[0] == line and sink.callee in rules[code].follows
                                        for sink in flow.sinks)

    placements = [place(error, root, holds_call, notebook, reached) for error in errors]
    placed = {(p.error.rule, p.path, p.line): p for p in placements if p.path is not None}
    messages = {p.error.message for p in placed.values()}
    unplaced: dict[str, Placement] = {}  # JAX prints each error twice: one line for it
    for placement in placements:
        if placement.path is None and placement.error.message not in messages:
            unplaced.setdefault(placement.error.message, placement)
    for placement in unplaced.values():
        why = "; ".join(placement.reasons) or ("" if placement.cells else "no frame of the user's code in the traceback"
                                               + (f" ({placement.error.note})" if placement.error.note else ""))
        if placement.cells:
            where = "; ".join(frame.where for frame in placement.cells)
            why = (f"it comes from notebook cells ({where}): pass --notebook NB.ipynb, the notebook they ran in, "
                   "to place and fix it" + (f"; {why}" if why else ""))
        err.write(f"explain: cannot place `{placement.error.message}`: {why}\n")
    by_file: dict[Path, dict[str, set[int]]] = {}
    pending = unresolved = bool(unplaced)
    for rule, path, line in placed:
        if rule not in chosen or rule in ignored_rules(path):
            pending = True
            why = "not selected" if rule not in chosen else f"ignored for {path}"
            cell = notebook.source.cells.locate(line) if notebook is not None and path == notebook.path else None
            where = f"{path}:{line}" if cell is None else f"{path}:cell {cell[0]}:{cell[1]}"
            err.write(f"{where}: {rule}: the traceback's `{placed[(rule, path, line)].error.message}` comes "
                      f"from this call, but {rule} is {why} (--select/--ignore, [tool.jax-codemod]): the error "
                      "stays\n")
            continue
        by_file.setdefault(path, {}).setdefault(rule, set()).add(line)
    if by_file:
        indexed(next(iter(by_file)))
    # A kernel's call whose precision is a value written in another file (a caller's constant): that
    # file's fix of it, as `fix` writes it, answers the call. Shown (or written) first.
    origins = _written_elsewhere(by_file, index, rules, settings)
    origin_rules = {origin.resolve(): code for origin, (code, _, _) in origins.items()}  # a placed file's too
    fixed_where_written, unsafe_where_written, silenced_where_written, left = _fix_where_written(
        origins, {path.resolve() for path in by_file}, index, rules, settings, root, write=write and not unplaced,
        out=out, err=err, results=results, notebook=notebook)
    pending = pending or left
    written_here = {origin.resolve(): lines for origin, (_, lines, _) in origins.items()}  # in a placed file
    for path, proven in by_file.items():
        in_notebook = notebook is not None and path == notebook.path
        raw = notebook.raw if in_notebook else path.read_bytes()
        codes = [*proven, *(code for code in [origin_rules.get(path.resolve())] if code and code not in proven)]

        def process(accept=None):
            return runner.process_source(path, raw, [rules[code] for code in codes], settings,
                                         {code: frozenset(lines) for code, lines in proven.items()}, accept=accept,
                                         facts=facts_of(index, path))
        result = process()
        text, module, spans = "", None, {}
        if not (result.error or result.skipped):
            text = notebook.source.text if in_notebook else decode(path, raw).text
            module = ModuleIndex.parse(text)
            spans = {code: {line: _span(rules[code], module, settings, line) or (line, line) for line in lines}
                     for code, lines in proven.items()}
        # The fixes of calls the traceback does not name (another kernel's, in the same file) are
        # neither shown nor written: only what answers the failing calls, what is `_around` them, and
        # the values written here that a failing call elsewhere is given. A line counts the others.
        answering = set()
        for code, by_line in spans.items():
            findings = [finding for finding in result.findings if finding.code == code]
            around = _around(module, by_line.values())
            answering |= {_key(finding) for finding in findings if any(_inside(finding, span) for span in around)}
            answering |= {_key(finding) for answer in _answers(rules[code], module, settings, findings, by_line).values()
                          for finding in answer}
        here = written_here.get(path.resolve(), set())
        others = collections.Counter(finding.code for finding in result.findings
                                     if _key(finding) not in answering and finding.line not in here)
        if others:
            result = process(accept=lambda finding: _key(finding) in answering or finding.line in here)
            result.findings = [finding for finding in result.findings
                               if _key(finding) in answering or finding.line in here]
        if results is not None:
            results.append(result)

        def located(line: int) -> str:  # `path:line`; in a notebook `nb.ipynb:cell 5:2`
            where = notebook.source.cells.locate(line) if in_notebook else None
            return f"{path}:{line}" if where is None else f"{path}:cell {where[0]}:{where[1]}"
        for code, lines in proven.items():
            for line in sorted(lines):
                message = placed[(code, path, line)].error.message
                err.write(f"{located(line)}: {code}: the traceback's `{message}` comes from this call\n")
        err.write(render_findings([result]))
        if module is None:
            err.write(f"{path}: error: {result.error}\n" if result.error else f"{path}: skipped: {result.skipped}\n")
            unresolved = True
            continue
        # What each placed call got: its findings, silenced ones included (found again only when the
        # engine silenced some), so that a comment that keeps a call from being fixed is named.
        everything = result.findings
        if result.suppressed:
            file = ParsedFile(path, module, settings, {code: frozenset(lines) for code, lines in proven.items()})
            everything = [finding for code in proven for finding in rules[code].check(rules[code], file)]
        kept = {_key(finding): finding for finding in result.findings}
        comments, source = suppressions(text), text.splitlines()
        covers = reach(comments, module.calls)
        for code, lines in proven.items():
            mine = [finding for finding in everything if finding.code == code]
            elsewhere = [finding for finding in mine if not any(_inside(finding, span) for span in spans[code].values())]
            answers = _answers(rules[code], module, settings, mine, spans[code])
            for line in sorted(lines):
                # A silenced finding elsewhere counts even so (the call's own hint may be fixed, and
                # the one it takes through a partial silenced).
                answer = answers[line]
                live = [kept[_key(finding)] for finding in answer if _key(finding) in kept]
                silencers = sorted({at[0] for finding in answer + elsewhere if _key(finding) not in kept
                                    and (at := silencing(finding, rules[code], comments, covers)) is not None})
                for at in silencers:
                    where = "" if at == line else f" (on line {at}, where its fix goes)"
                    err.write(f"{located(line)}: {code}: suppressed by `{_comment(source, at)}`{where}: the error "
                              f"stays; remove the comment (or {code} from it) and run explain again to fix it\n")
                # (where the value it is given is written, in another file)
                silenced_there = [] if live else silenced_where_written.get((path, line), [])
                for comment, at in silenced_there:
                    err.write(f"{located(line)}: {code}: the value it is given is written in {at}, where "
                              f"`{comment}` suppresses its fix: the error stays; remove the comment (or {code} "
                              "from it) and run explain again to fix it\n")
                if silencers or silenced_there:
                    pending = True
                elif any(finding.fix is not None for finding in live):
                    continue  # fixed, or its fix is shown below
                elif (path, line) in fixed_where_written or (path, line) in unsafe_where_written:
                    # (a note of its own stays: other values the call may be given, which a person must change)
                    pending = pending or bool(live) or (path, line) in unsafe_where_written
                    for places, how in ((fixed_where_written, "fixed there (above)"),
                                        (unsafe_where_written, "its fix there (above) is unsafe: --unsafe-fixes "
                                                               "applies it")):
                        if (path, line) in places:
                            err.write(f"{located(line)}: {code}: the value it is given is written in "
                                      f"{', '.join(places[(path, line)])}: {how}"
                                      + ("; the note above stays" if live else "") + "\n")
                elif live:
                    pending = True
                    err.write(f"{located(line)}: {code}: no fix can be written for this call: a person must change "
                              "it, as the finding above says\n")
                else:
                    unresolved = True
                    err.write(f"{located(line)}: {code}: " + (_untargeted(code, settings) or (
                        f"{rules[code].name} finds nothing to change at this call, so the error stays; please "
                        "report this traceback and file")) + "\n")
            more = _unnamed(rules[code], path, module, settings, len(mine))
            if more:
                err.write(f"{path}: {code}: {more} more reference(s) to the same old spelling in this file, which the "
                          f"log does not name: `jax-codemod --select {code} --write {path}` fixes them too\n")
            if others[code]:
                err.write(f"{path}: {code}: {others[code]} other finding(s) in this file, at calls the log does not name "
                          f"(not shown here): `jax-codemod --select {code} {path}` shows them\n")
        if result.new_source is not None:
            refusal = _not_writable(path, root) if write else None
            if write and not unplaced and refusal is None:
                runner.write(result)
            else:
                pending = True
                out.write(file_diff(result) if in_notebook else unified_diff(str(path), raw, result.new_source))
                if refusal is not None:
                    err.write(f"{path}: not written: {refusal}; the fix is the diff above\n")
        for finding in result.findings:
            if finding.unapplied_fix:  # unsafe: shown as its own diff, applied only with --unsafe-fixes
                pending = True
                out.write(fix_diff(result, finding) or b"")
    if unresolved:
        return Outcome.UNRESOLVED
    return Outcome.PENDING if pending else Outcome.FIXED


_ROWS = {row.code: row for row in api_changes.TABLE}


def _written_elsewhere(by_file: Mapping[Path, Mapping[str, set[int]]], index, rules: Mapping[str, Rule],
                       settings: Settings) -> dict[Path, tuple[str, set[int], list]]:
    """The files (other than the placed call's) where the values a placed call is given are written
    and may be rewritten (every reader is kernel code, as the whole-program link found): each with
    the rule, the lines of those values, and the placed calls (path, line) they reach."""
    if index is None:
        return {}
    found: dict[Path, tuple[str, set[int], list]] = {}
    for path, proven in by_file.items():
        try:
            module = ModuleIndex.parse(read_text(path))
        except (OSError, SourceError, SyntaxError, ValueError, RecursionError):
            continue
        flow = index.facts(path).flow
        for code, lines in proven.items():
            for line in lines:
                start, end = _span(rules[code], module, settings, line) or (line, line)
                for sink in flow.sinks if flow is not None else ():
                    if not start <= sink.site[0] <= end:
                        continue
                    for reach in sink.pairs:
                        written_in = index.path_of(reach.module)
                        origin = _named(Path(written_in)) if written_in is not None else None
                        if reach.fixable and origin is not None and origin.resolve() != path.resolve():
                            entry = found.setdefault(origin, (code, set(), []))
                            entry[1].add(reach.site[0])
                            if (path, line) not in entry[2]:  # (two values written there reach one call)
                                entry[2].append((path, line))
    return found


def _fix_where_written(origins: Mapping[Path, tuple[str, set[int], list]], placed: set[Path], index,
                       rules: Mapping[str, Rule], settings: Settings, root: Path, *, write: bool, out: BinaryIO,
                       err: TextIO, results: Optional[list], notebook: Optional[Notebook] = None,
                       ) -> tuple[dict, dict, dict, bool]:
    """Fix the values `_written_elsewhere` found, in their files (only those lines): each placed
    call's places, fixed and unsafe (not applied), as `path:line`, and the comments that suppress
    a fix there, (comment, `path:line`); and whether a fix is left to apply. A file the log also
    places an error in is shown and written once, with the rest of its fixes. `notebook`'s bytes
    are its own (an IPython session's cells are on no disk)."""
    from codemods.engine import runner
    from codemods.engine.report import file_diff, fix_diff, in_cell, render_findings

    fixed: dict[tuple[Path, int], list[str]] = {}
    unsafe: dict[tuple[Path, int], list[str]] = {}
    silenced: dict[tuple[Path, int], list[tuple[str, str]]] = {}
    left = False
    for origin, (code, lines, calls) in origins.items():
        raw = notebook.raw if notebook is not None and origin == notebook.path else origin.read_bytes()
        # (its bytes may lack the rule's words, `("bfloat16", "float32")`: the link found its value, as the runner's
        # `prepare` keeps the rule for a file whose facts hold origins)
        result = runner.process_source(origin, raw, [rules[code]], settings, facts=index.facts(origin),
                                       accept=lambda finding, lines=lines: finding.line in lines, prefiltered=True)
        result.findings = [finding for finding in result.findings if finding.line in lines]
        for finding in result.findings:
            if finding.fix is not None:
                cell = in_cell(result, finding.line)
                for call in calls:
                    (unsafe if finding.unapplied_fix else fixed).setdefault(call, []).append(
                        f"{origin}:{finding.line}" if cell is None else f"{origin}:cell {cell[0]}:{cell[1]}")
        if result.suppressed and not notebooks.is_notebook(origin):  # `--add-noqa` on the value: named at the call
            text = decode(origin, raw).text
            module = ModuleIndex.parse(text)
            comments, source = suppressions(text), text.splitlines()
            covers = reach(comments, module.calls)
            for finding in rules[code].check(rules[code], ParsedFile(origin, module, settings, facts=index.facts(origin))):
                at = silencing(finding, rules[code], comments, covers) if finding.line in lines else None
                for call in calls if at is not None else ():
                    silenced.setdefault(call, []).append((_comment(source, at[0]), f"{origin}:{at[0]}"))
        if origin.resolve() in placed:
            continue  # shown, and written, with the rest of that file
        if results is not None:
            results.append(result)
        err.write(render_findings([result]))
        for finding in result.findings:
            if finding.unapplied_fix:  # unsafe: shown as its own diff, applied only with --unsafe-fixes
                left = True
                out.write(fix_diff(result, finding) or b"")
        if result.new_source is not None:
            refusal = _not_writable(origin, root) if write else None
            if write and refusal is None:
                runner.write(result)
            else:
                left = True
                out.write(file_diff(result))
                if refusal is not None:
                    err.write(f"{origin}: not written: {refusal}; the fix is the diff above\n")
    return fixed, unsafe, silenced, left


def _comment(source: Sequence[str], line: int) -> str:
    """The suppression comment on `line` (1-based) of `source`, from the `#` that opens it."""
    text = source[line - 1]
    return text[text.rfind("#", 0, text.find("jax-codemod:")):].strip()


def _untargeted(code: str, settings: Settings) -> Optional[str]:
    """Why a JAX1xx row changes nothing on the target release (None: not a row, or it does): the
    log came from a newer jax than the target."""
    row, target = _ROWS.get(code), settings.jax_version
    if row is None or target is not None and row.state(target) != "works":
        return None
    retired = ", ".join(f"{what} in jax {format_version(v)}" for what, v in
                        (("deprecated", row.deprecated), ("removed", row.removed)) if v is not None)
    told = "the target jax is unknown" if target is None else f"the target, jax {format_version(target)}, still has it"
    return (f"{display(row.old[0])} is {retired}, but {told}: pass --jax-version (the jax that printed this log) or "
            "set jax-version in [tool.jax-codemod]")


def _unnamed(rule: Rule, path: Path, module: ModuleIndex, settings: Settings, named: int) -> int:
    """How many findings a JAX1xx rule has in the file beyond the `named` ones the log's lines name
    (explain fixes only those; `fix` takes them all). 0 for the other rules."""
    if rule.code not in _ROWS:
        return 0
    return max(0, len(rule.check(rule, ParsedFile(path, module, settings))) - named)


def _not_writable(path: Path, root: Path) -> Optional[str]:
    """Why `explain --write` must not write `path` (None: it may). A log can name any file on the
    machine (someone else's run, a library on sys.path): only the project's own files are written."""
    resolved, project = path.resolve(), root.resolve()
    installed = {"site-packages", "dist-packages"}.intersection(resolved.parts)
    if installed:
        return f"it is inside an installed package ({installed.pop()})"
    if project != resolved and project not in resolved.parents:
        return f"it is outside the project root {project} (--root)"
    return None


def _span(rule: Rule, module: ModuleIndex, settings: Settings, line: int) -> Optional[tuple[int, int]]:
    """The lines of the calls on `line` that `rule` rewrites or reports (None: there is none)."""
    file = ParsedFile(Path("<traceback>"), module, settings)
    if rule.locate is not None:
        return rule.locate(rule, file, line)
    calls = [call for call in module.calls if call.lineno <= line <= call.end_lineno] if rule.matches else []
    calls = [call for call in calls if rule.matches(rule, file, call)]
    return (min(call.lineno for call in calls), max(call.end_lineno for call in calls)) if calls else None


def _answers(rule: Rule, module: ModuleIndex, settings: Settings, findings: Sequence[Finding],
             spans: Mapping[int, tuple[int, int]]) -> dict[int, list[Finding]]:
    """What answers each placed call (by its line; `spans`: its lines): the findings inside it;
    failing any, those where a value it is given is written (a parameter default, a constant, the
    partial that binds it): inside none of the placed calls and, for a rule that finds calls by
    `matches`, at no call of the rule's own that the log does not name (another kernel's), unless a
    placed call calls it by the name it is bound to (`exp_hi = functools.partial(lax.exp, ...)`)."""
    elsewhere = [finding for finding in findings if not any(_inside(finding, span) for span in spans.values())]
    inside = {line: [finding for finding in findings if _inside(finding, span)] for line, span in spans.items()}
    if elsewhere and not all(inside.values()) and rule.locate is None and rule.matches is not None:
        file = ParsedFile(Path("<traceback>"), module, settings)
        bound = {id(value) for value in _bound_values(module, _calls_in(module, spans.values()))}
        unnamed = [call for call in module.calls if id(call) not in bound and rule.matches(rule, file, call)]
        elsewhere = [finding for finding in elsewhere
                     if not any(_inside(finding, (call.lineno, call.end_lineno)) for call in unnamed)]
    return {line: inside[line] or elsewhere for line in spans}


def _around(module: ModuleIndex, spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """The lines where a fix shown with the placed calls (`spans`) may be besides: the functions
    holding them (a kernel stops at its first failing call: the next one fails once it is fixed), and
    the values bound to the names they call (`exp_hi = functools.partial(lax.exp, ...)`)."""
    calls = _calls_in(module, spans)
    nodes = [*(module.enclosing.get(call) for call in calls), *_bound_values(module, calls)]
    return [(node.lineno, node.end_lineno or node.lineno) for node in nodes if node is not None]


def _calls_in(module: ModuleIndex, spans: Iterable[tuple[int, int]]) -> list[ast.Call]:
    spans = list(spans)
    return [call for call in module.calls if any(_inside_lines(call.lineno, span) for span in spans)]


def _bound_values(module: ModuleIndex, calls: Iterable[ast.Call]) -> list[ast.expr]:
    """The values bound to the names `calls` call (`exp_hi(x)`: its `functools.partial(...)`)."""
    return [binding.value for call in calls if isinstance(call.func, ast.Name)
            for binding in module.bindings(call.func) if binding.value is not None]


def _inside(finding: Finding, span: tuple[int, int]) -> bool:
    return _inside_lines(finding.line, span)


def _inside_lines(line: int, span: tuple[int, int]) -> bool:
    return span[0] <= line <= span[1]


def _key(finding: Finding) -> tuple:
    return finding.code, finding.line, finding.column, finding.message
