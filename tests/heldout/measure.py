"""Issue 50's held-out set, measured: what the tool does to small projects whose wall crosses modules.

Each folder under tests/heldout/projects/ is a small project (2-4 modules) written the way JAX teams
write Pallas TPU code, with an `entry.py` (`run()` builds inputs and calls the kernel; an optional
`reference()` runs the project's plain-XLA code) and an `expect.toml` (whether the kernel fails to
lower as written, and which outcomes a correct tool may reach). For each project, in a copy:

1. `run` is lowered for TPU (`jax.export`, platforms=["tpu"]) and `reference` traced and run on
   this CPU;
2. the tool runs in the project folder, as a user runs it: `--check`, then `--write --unsafe-fixes`,
   then `--check` again over what it wrote;
3. both are lowered, traced and run again, and the project gets one outcome:

   fixed      it failed with a wall's error before and lowers after
   manual     it still fails, and the last `--check` exits 1 with a finding of a wall's rule in the project
   SILENT     it still fails, and the last `--check` passes (no finding): the promise broken
   WRONG      the plain-XLA reference changed (its jaxpr, where the precision XLA uses on a TPU is
              written, or its values on this CPU), or the rewrite broke the program (it no longer
              imports or runs, it fails otherwise than with a wall's error, or a kernel that lowered
              no longer does), or a kernel dot/conv that lowers now asks for less than the most
              accurate operand asked for before (traced precisions), or the tool crashed
   untouched  it lowered before and after, the tool changed nothing and `--check` passed
   noted      it lowered before and after, nothing changed, but `--check` reported a finding
   changed    it lowered before and after, and the tool rewrote something

   And, for a project that fails before, what `jax-codemod explain --write --unsafe-fixes` does with the
   traceback the failing run printed (the log a user pastes), in the same copy before the steps above:
   fixed (it lowers after), pending (exit 1: it still fails, a finding says what to change), unplaced
   (exit 2: the reason said), SILENT (exit 0 while it still fails), WRONG (as above).

The reference is compared by its jaxpr as well as its values because on a CPU float32 dots run at
full precision whatever they ask for: `(DEFAULT, HIGHEST)` rewritten to `HIGHEST` gives the same
numbers here, and bfloat16 passes on a TPU.

Everything runs in this one process (the tool's CLI in-process, one import of jax and libcst), so the
set costs seconds, not an interpreter per project. Usage:

    .venv/bin/python tests/heldout/measure.py [--markdown FILE] [--json FILE] [PROJECT ...]
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import difflib
import importlib
import io
import json
import os
import re
import shutil
import sys
import tempfile
import time
import tomllib
import traceback
import warnings
from pathlib import Path
from typing import Callable, Optional

HERE = Path(__file__).resolve().parent
PROJECTS = HERE / "projects"
REPOSITORY = HERE.parent.parent
if str(REPOSITORY) not in sys.path:
    sys.path.insert(0, str(REPOSITORY))

os.environ.setdefault("XLA_FLAGS", "--xla_backend_optimization_level=0")

import jax  # noqa: E402
import numpy as np  # noqa: E402

from codemods.cli import app  # noqa: E402
from tests import jax_support  # noqa: E402

FLOAT32_LSTM = jax_support.LstmCall(("float32",) * 4 + ("int32",), cudnn_allow_tf32=False)

WALL_ERRORS = re.compile(r"Per-operand (dot|conv) precision unsupported|Unsupported \w+ precision|Not implemented: accuracy"
                         r"|bfloat16 support not implemented for LSTM|Reductions over u?int(8|16) not implemented"
                         r"|Unimplemented primitive in Pallas TPU lowering|64-bit types are not supported")
# a finding of another rule (a JAX1xx upgrade) does not report the wall
WALL_RULES = ("JAX001", "JAX002", "JAX003", "JAX004", "JAX005", "JAX006", "JAX007")
OUTCOMES = ("fixed", "manual", "SILENT", "WRONG", "untouched", "noted", "changed")
EXPLAINED = ("fixed", "pending", "unplaced", "SILENT", "WRONG")
_MANUAL_AT = "manual-with-finding-at-"


class HarnessError(Exception):
    """The project itself is not what its expect.toml says (a bug of the set, not of the tool)."""


class NotExercised(Exception):
    """The installed jax cannot run the project as the set expects (its expect.toml's `needs_jax`)."""


@dataclasses.dataclass
class Expect:
    """A project's expect.toml."""

    what: str  # the spelling, in a few words
    kernel_fails_before: bool
    acceptable: list[str]  # "fixed", "untouched", "manual-with-finding-at-FILE:LINE", ...
    # "tpu": `run` lowered for TPU; "cudnn": `run` calls jax.experimental.rnn.lstm (JAX003), lowered for
    # the CPU with tests/jax_support.py's stand-in for cuDNN (jax rejects a bf16 LSTM while tracing)
    lowered_for: str = "tpu"
    needs_jax: str = "0"  # the oldest jax whose Mosaic TPU lowers the fixed program (a conv: 0.11.1)

    @classmethod
    def read(cls, folder: Path) -> "Expect":
        data = tomllib.loads((folder / "expect.toml").read_text())
        expect = cls(data["what"], data["kernel_fails_before"], list(data["acceptable"]), data.get("lowered_for", "tpu"),
                     data.get("needs_jax", "0"))
        if expect.lowered_for not in ("tpu", "cudnn"):
            raise HarnessError(f"{folder.name}/expect.toml: unknown lowered_for {expect.lowered_for!r}")
        for entry in expect.acceptable:
            if entry not in ("fixed", "untouched") and not entry.startswith(_MANUAL_AT):
                raise HarnessError(f"{folder.name}/expect.toml: unknown outcome {entry!r}")
            if entry.startswith(_MANUAL_AT):
                path, _, line = entry[len(_MANUAL_AT):].rpartition(":")
                if not (folder / path).is_file() or not 0 < int(line) <= len((folder / path).read_text().splitlines()):
                    raise HarnessError(f"{folder.name}/expect.toml: {entry!r} names no line of the project")
        return expect


@dataclasses.dataclass
class Lowered:
    """What a project's entry did: the lowering error (None: it lowers) and its reference."""

    error: Optional[str]  # None, "wall: ...", or "broken: ..." (anything else)
    kernel_precisions: Optional[list] = None  # each dot/conv inside a Pallas kernel: (op, precision)
    reference_jaxpr: Optional[str] = None
    reference_values: Optional[list] = None
    reference_error: Optional[str] = None
    run_values: Optional[list] = None  # --on-chip: what `run` gave on the chip
    interpreted: Optional[list] = None  # --on-chip: `run` by Pallas' TPU interpreter on the CPU (float32, HIGHEST)
    every_precision: Optional[list] = None  # each dot/conv of `run`, in a kernel or not: (op, precision)
    lstm_launches: Optional[list] = None  # lowered_for "cudnn": what each LSTM launch was given (LstmCall)
    log: str = ""  # the traceback of its error, as Python prints it


@dataclasses.dataclass
class Checked:
    exit_code: int
    findings: list[tuple[str, int, str, str, str]]  # (path, line, rule, kind, message)
    stderr: str


@dataclasses.dataclass
class Result:
    name: str
    expect: Expect
    outcome: str
    detail: str
    before: Lowered
    after: Lowered
    first_check: Checked
    last_check: Checked
    changed: list[str]
    seconds: float
    explained: str = ""  # what `explain` made of the traceback (EXPLAINED), where it failed before
    explain_said: str = ""  # its last line

    @property
    def as_expected(self) -> bool:
        if self.outcome == "manual":
            places = {f"{_MANUAL_AT}{path}:{line}" for path, line, *_ in self.last_check.findings}
            return bool(places & set(self.expect.acceptable))
        return self.outcome in self.expect.acceptable


def _short(message: str, limit: int = 90) -> str:
    line = next((l for l in message.splitlines() if l.strip()), "")
    return line[:limit] + ("..." if len(line) > limit else "")


@contextlib.contextmanager
def _imported_entry(folder: Path):
    """The project's entry module, imported from `folder`; its modules are forgotten afterwards, and
    jax's x64 setting put back (a project may turn it on, process-wide)."""
    names = {p.stem if p.is_file() else p.name for p in folder.iterdir()
             if (p.suffix == ".py" or (p / "__init__.py").is_file())}
    # Modules of the same names imported by someone else (another project, a test of this process)
    # step aside while the project's own are imported, and come back afterwards.
    aside = {n: sys.modules.pop(n) for n in list(sys.modules) if n.split(".")[0] in names}
    sys.path.insert(0, str(folder))
    # A rewritten module of the same size and modification second must not load a stale .pyc.
    writes_bytecode, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    importlib.invalidate_caches()
    x64 = jax.config.jax_enable_x64
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield importlib.import_module("entry")
    finally:
        jax.config.update("jax_enable_x64", x64)
        sys.dont_write_bytecode = writes_bytecode
        sys.path.remove(str(folder))
        for name in [n for n in sys.modules if n.split(".")[0] in names]:
            del sys.modules[name]
        sys.modules.update(aside)


def _wall_or_broken(error: BaseException) -> str:
    seen, cause = set(), error
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, NotImplementedError) and WALL_ERRORS.search(str(cause)):
            return f"wall: {_short(str(cause))}"
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return f"broken: {type(error).__name__}: {_short(str(error))}"


def _kernel_precisions(jaxpr, in_kernel: bool, found: list) -> list:
    """(primitive, precision) of every dot_general and conv inside a pallas_call's body, in order."""
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        if in_kernel and name in ("dot_general", "conv_general_dilated"):
            found.append((name, eqn.params.get("precision")))
        for value in eqn.params.values():
            for sub in value if isinstance(value, (list, tuple)) else [value]:
                inner = getattr(sub, "jaxpr", sub)  # a ClosedJaxpr's Jaxpr, or a Jaxpr
                if hasattr(inner, "eqns"):
                    _kernel_precisions(inner, in_kernel or name == "pallas_call", found)
    return found


_LEVEL = {"DEFAULT": 0, "HIGH": 1, "HIGHEST": 2}


def _levels(precision) -> list[int]:
    """A traced precision param (None, a Precision, or a pair of them) as levels, DEFAULT = 0."""
    items = precision if isinstance(precision, (tuple, list)) else [precision]
    return [_LEVEL[getattr(item, "name", "DEFAULT")] if item is not None else 0 for item in items]


def _weakened(before: Lowered, after: Lowered) -> Optional[str]:
    """A kernel op the rewrite left asking for less than its most accurate operand asked for before."""
    if after.error is not None or not before.kernel_precisions or after.kernel_precisions is None:
        return None  # only a kernel that lowers now asks for one scalar to compare
    if [op for op, _ in before.kernel_precisions] != [op for op, _ in after.kernel_precisions]:
        return None  # the rewrite changed the kernel's ops: nothing to pair them by
    for (op, was), (_, now) in zip(before.kernel_precisions, after.kernel_precisions):
        if min(_levels(now)) < max(_levels(was)):
            return f"a kernel {op} asked for {was} and now for {now}: less accurate"
    return None


def _lstm_weakened(before: Lowered, after: Lowered) -> Optional[str]:
    """An LSTM that failed before and runs now, launched otherwise than JAX003 promises: float32
    inputs at HIGHEST (cudnn_allow_tf32 False), cuDNN having no bf16 LSTM."""
    if before.error is None or after.error is not None or not after.lstm_launches:
        return None
    for launch in after.lstm_launches:
        if launch != FLOAT32_LSTM:
            return f"an LSTM now runs on {launch.dtypes} (cudnn_allow_tf32={launch.cudnn_allow_tf32}), not float32 at HIGHEST"
    return None


# --on-chip: `run` is compiled by Mosaic and run on a TPU instead of lowered for one on this CPU, and a
# fixed kernel's values are held to Pallas' interpreter's (float32) for the original program. Where
# every dot of `run` asks for HIGH or more after the fix, within CHIP_RTOL of the scale: far less than
# one bfloat16 pass (2**-8) that a weakened fix (DEFAULT) would show. Where the program itself leaves a
# dot at DEFAULT (one bfloat16 pass on a TPU), within BF16_RTOL only.
ON_CHIP = False
NOT_EXERCISED: list[str] = []  # --on-chip: projects this jax cannot run as the set expects
CHIP_RTOL = 1e-3
BF16_RTOL = 2e-2


def _leaves(value) -> list:
    return [np.asarray(leaf) for leaf in jax.tree.leaves(jax.block_until_ready(value))]


def _interpreted(run) -> Optional[list]:
    """`run` with its Pallas TPU kernels run by jax's TPU interpreter on the CPU, or None where it cannot."""
    from jax.experimental.pallas import tpu as pltpu

    jax.clear_caches()  # a trace made for the chip would be reused: the interpreter is not in its key
    try:
        with jax.default_device(jax.devices("cpu")[0]), pltpu.force_tpu_interpret_mode(), \
                jax.default_matmul_precision("highest"):
            return _leaves(jax.jit(run)())
    except Exception:  # noqa: BLE001 - then the chip's values are not compared
        return None
    finally:
        jax.clear_caches()


def chip_error(after: Lowered, before: Lowered) -> Optional[float]:
    """The largest difference between the chip's values and the interpreter's, relative to their scale."""
    if after.run_values is None or before.interpreted is None or len(after.run_values) != len(before.interpreted):
        return None
    worst = 0.0
    for got, want in zip(after.run_values, before.interpreted):
        want = want.astype(np.float64)
        scale = max(float(np.max(np.abs(want))) if want.size else 0.0, 1e-30)
        worst = max(worst, float(np.max(np.abs(got.astype(np.float64) - want))) / scale if want.size else 0.0)
    return worst


def lower(folder: Path, lowered_for: str = "tpu") -> Lowered:
    """Lower the project's `run` for TPU on this CPU (--on-chip: compile and run it on the TPU, and run
    it by the interpreter); trace and run its `reference`, if any. `lowered_for` "cudnn": `run` is
    lowered for the CPU with a stand-in for cuDNN's LSTM, each launch recorded."""
    if lowered_for == "cudnn":
        with jax_support.cudnn_lstm_on_cpu() as recorder:
            lowered = _lower(folder, platform="cpu")
        lowered.lstm_launches = recorder.calls
        return lowered
    return _lower(folder)


def _lower(folder: Path, platform: str = "tpu") -> Lowered:
    try:
        with _imported_entry(folder) as entry:
            try:
                if ON_CHIP and platform == "tpu":
                    values = _leaves(jax.jit(entry.run)())
                else:
                    jax.export.export(jax.jit(entry.run), platforms=[platform])()
                    values = None
                lowered = Lowered(None, run_values=values)
            except Exception as error:  # noqa: BLE001 - every failure is classified
                lowered = Lowered(_wall_or_broken(error), log="".join(traceback.format_exception(error)))
            if ON_CHIP and platform == "tpu" and lowered.error:
                lowered.interpreted = _interpreted(entry.run)
            try:
                jaxpr = jax.make_jaxpr(entry.run)().jaxpr
                lowered.kernel_precisions = _kernel_precisions(jaxpr, False, [])
                lowered.every_precision = _kernel_precisions(jaxpr, True, [])
            except Exception:  # noqa: BLE001 - then the fix's precision is not compared
                pass
            reference = getattr(entry, "reference", None)
            if reference is not None:
                try:
                    lowered.reference_jaxpr = str(jax.make_jaxpr(reference)())
                    lowered.reference_values = [np.asarray(leaf) for leaf in jax.tree.leaves(jax.jit(reference)())]
                except Exception as error:  # noqa: BLE001
                    lowered.reference_error = f"{type(error).__name__}: {_short(str(error))}"
            return lowered
    except Exception as error:  # noqa: BLE001 - the import itself failed
        return Lowered(f"broken: import: {type(error).__name__}: {_short(str(error))}")


def tool(folder: Path, *options: str) -> Checked:
    """`jax-codemod OPTIONS .` run in `folder`, in this process, as a user runs it there."""
    code, out, err = _cli(folder, [*options, "--output-format", "json", "--jax-version", jax.__version__, "--no-cache",
                                   "--jobs", "1", "."])
    findings = []
    if out.strip():
        for item in json.loads(out).get("findings", []):
            findings.append((item["path"], item["start"]["line"], item["rule"], item["kind"], item["message"]))
    return Checked(code, findings, err)


def _cli(folder: Path, args: list[str]) -> tuple[int, str, str]:
    """The tool's command line run in `folder`, in this process: its exit code (3: it crashed), stdout, stderr."""
    out, err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8"), io.StringIO()  # (explain's diffs are bytes)
    here = os.getcwd()
    os.chdir(folder)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                app(args=args, prog_name="jax-codemod")
                code = 0
            except SystemExit as stop:
                code = stop.code if isinstance(stop.code, int) else 1
            except Exception:  # noqa: BLE001 - the tool crashed: a WRONG outcome, not the harness's end
                traceback.print_exc()
                code = 3
    finally:
        os.chdir(here)
    out.flush()
    return code, out.buffer.getvalue().decode(), err.getvalue()


def explained(folder: Path, before: Lowered, expect: Expect) -> tuple[str, str]:
    """What `explain --write --unsafe-fixes LOG` makes of the traceback `before` printed, run in `folder`
    as a user runs it (EXPLAINED, and its last words); the project's files are put back after."""
    original = _files(folder)
    log = folder.parent / f"{folder.name}.log"
    log.write_text(before.log)
    code, _, err = _cli(folder, ["explain", "--write", "--unsafe-fixes", "--jax-version", jax.__version__, str(log)])
    after = lower(folder, expect.lowered_for)
    for path in set(_files(folder)) - set(original):
        (folder / path).unlink()
    for path, text in original.items():
        (folder / path).write_text(text)
    said = _short(err.strip().splitlines()[-1] if err.strip() else "nothing said", 160)
    wrong = [w for w in [_reference_change(before, after) if before.reference_jaxpr is not None else None,
                         after.error[len("broken: "):] if after.error and after.error.startswith("broken") else None,
                         f"explain exited {code}: {said}" if code not in (0, 1, 2) else None] if w]
    if wrong:
        return "WRONG", "; ".join(wrong)
    if after.error is None:
        return "fixed", said
    return {0: "SILENT", 1: "pending", 2: "unplaced"}[code], said


def _files(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text() for p in sorted(folder.rglob("*.py"))}


def _reference_change(before: Lowered, after: Lowered) -> Optional[str]:
    if after.reference_error:
        return f"the reference no longer runs: {after.reference_error}"
    if before.reference_jaxpr != after.reference_jaxpr:
        diff = [l for l in difflib.unified_diff((before.reference_jaxpr or "").splitlines(),
                                                (after.reference_jaxpr or "").splitlines(), lineterm="", n=0)
                if l[:1] in "+-" and l[:3] not in ("+++", "---")]
        return "the XLA reference's jaxpr changed: " + " / ".join(_short(l.strip(), 70) for l in diff[:2])
    values_before, values_after = before.reference_values or [], after.reference_values or []
    if len(values_before) != len(values_after) or not all(map(np.array_equal, values_before, values_after)):
        return "the XLA reference's values changed"
    return None


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split(".")[:3])


def measure(source: Path, scratch: Path) -> Result:
    start = time.perf_counter()
    expect = Expect.read(source)
    if _release(jax.__version__) < _release(expect.needs_jax):
        raise NotExercised(f"{source.name}: needs jax >= {expect.needs_jax}, this is {jax.__version__}")
    folder = scratch / source.name
    shutil.copytree(source, folder, ignore=shutil.ignore_patterns("__pycache__", "expect.toml"))
    original = _files(folder)
    before = lower(folder, expect.lowered_for)
    if before.error and before.error.startswith("broken"):
        raise HarnessError(f"{source.name}: fails as written for another reason: {before.error}")
    if before.reference_error:
        raise HarnessError(f"{source.name}: the reference fails as written: {before.reference_error}")
    if bool(before.error) != expect.kernel_fails_before:
        raise HarnessError(f"{source.name}: kernel_fails_before = {expect.kernel_fails_before}, but lowering "
                           f"gave {before.error or 'no error'}")
    explain = explained(folder, before, expect) if before.error else ("", "")
    first = tool(folder, "--check")
    wrote = tool(folder, "--write", "--unsafe-fixes")
    last = tool(folder, "--check")
    rewritten = _files(folder)
    changed = sorted(p for p in rewritten if rewritten[p] != original.get(p))
    after = lower(folder, expect.lowered_for)
    wrong = [f"the tool exited {c.exit_code}: {_short(c.stderr)}" for c in (first, wrote, last) if c.exit_code not in (0, 1)]
    wrong += [f"internal error at {p}:{l}" for c in (first, wrote, last) for p, l, _, k, m in c.findings if "internal error" in m.lower()]
    if before.reference_jaxpr is not None:
        wrong += [w for w in [_reference_change(before, after)] if w]
    if after.error and after.error.startswith("broken"):
        wrong.append(f"the rewrite broke the program: {after.error[len('broken: '):]}")
    elif before.error is None and after.error is not None:
        wrong.append(f"lowered before, not after: {after.error}")
    wrong += [w for w in [_weakened(before, after), _lstm_weakened(before, after)] if w]
    error = chip_error(after, before) if ON_CHIP and before.error else None
    tolerance = CHIP_RTOL if all(min(_levels(p)) > 0 for _, p in after.every_precision or []) else BF16_RTOL
    if error is not None and error > tolerance:
        wrong.append(f"on the chip it differs from the interpreter's original by {error:.1e} of its scale "
                     f"(> {tolerance})")
    findings = sorted({f"{p}:{l}" for p, l, *_ in last.findings})
    if wrong:
        outcome, detail = "WRONG", "; ".join(wrong)
    elif before.error and after.error is None:
        outcome, detail = "fixed", f"rewrote {', '.join(changed) or 'nothing'}"
        if ON_CHIP:
            detail += "; ran on the chip, " + (f"{error:.1e} of the scale from the interpreter's original "
                                               f"(<= {tolerance})"
                                               if error is not None else "no interpreter value to compare")
    elif before.error:
        walls = [f for f in last.findings if f[2] in WALL_RULES]
        outcome = "manual" if last.exit_code == 1 and walls else "SILENT"
        detail = f"{after.error[len('wall: '):]}; findings: {', '.join(findings) or 'none'}"
        if outcome == "SILENT" and first.findings:
            detail += f" (the first --check had {len(first.findings)}: its fixes did not make it lower)"
    elif changed:
        outcome, detail = "changed", f"rewrote {', '.join(changed)}"
    elif last.exit_code or first.exit_code:
        outcome, detail = "noted", f"findings: {', '.join(findings) or 'none'}"
    else:
        outcome, detail = "untouched", ""
    return Result(source.name, expect, outcome, detail, before, after, first, last, changed,
                  time.perf_counter() - start, *explain)


def measure_all(names: list[str], each: Callable[[Result], None] = lambda result: None) -> list[Result]:
    """Measure the projects named (all where none), handing each result to `each` as it is made."""
    sources = [PROJECTS / n for n in names] if names else sorted(p for p in PROJECTS.iterdir() if p.is_dir())
    with tempfile.TemporaryDirectory(prefix="heldout-") as scratch:
        results = []
        for source in sources:
            try:
                results.append(measure(source, Path(scratch)))
                each(results[-1])
            except NotExercised as error:
                NOT_EXERCISED.append(str(error))
            except HarnessError as error:
                if not ON_CHIP:
                    raise
                # The chip's jax is older than the set's (a conv has no Mosaic lowering before 0.11.1).
                NOT_EXERCISED.append(f"{source.name}: {error}")
        return results


def totals(results: list[Result]) -> str:
    counts = {o: sum(r.outcome == o for r in results) for o in OUTCOMES}
    parts = [f"{counts[o]} {o}" for o in OUTCOMES if counts[o] or o in ("SILENT", "WRONG")]
    expected = sum(r.as_expected for r in results)
    explained = {o: sum(r.explained == o for r in results) for o in EXPLAINED}
    explain = ", ".join(f"{explained[o]} {o}" for o in EXPLAINED if explained[o] or o in ("SILENT", "WRONG"))
    return (f"{len(results)} projects: {', '.join(parts)}; {expected} as expected; explain on the "
            f"{sum(explained.values())} tracebacks: {explain} (jax {jax.__version__})")


def markdown(results: list[Result]) -> str:
    rows = ["| project | spelling | before | --check | after | outcome | as expected | detail | explain |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    rows += [_row(r) for r in results]
    skipped = "".join(f"\nnot exercised: {line}" for line in NOT_EXERCISED)
    return "\n".join(rows) + f"\n\n{totals(results)}\n{skipped}" + ("\n" if skipped else "")


def _row(r: Result) -> str:
    check = f"exit {r.first_check.exit_code}, {len(r.first_check.findings)} finding(s)"
    before = "fails" if r.before.error else "lowers"
    after = "lowers" if r.after.error is None else ("fails" if r.after.error.startswith("wall") else "broken")
    detail = r.detail.replace("|", "\\|")
    return (f"| {r.name} | {r.expect.what} | {before} | {check} | {after} | {r.outcome} | "
            f"{'yes' if r.as_expected else 'no'} | {detail} | {r.explained or '-'} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("projects", nargs="*", help="project folder names (default: all)")
    parser.add_argument("--markdown", type=Path, help="also write the table to this file")
    parser.add_argument("--json", type=Path, help="write {name: outcome, ...} and the totals to this file")
    parser.add_argument("--on-chip", action="store_true",
                        help="on a TPU machine: compile and run `run` there, and hold a fixed kernel's values "
                             f"to the interpreter's for the original (within {CHIP_RTOL} of the scale)")
    parser.add_argument("--rows", type=Path, help="append each project's table row to this file as it is measured "
                                                   "(a run cut off by a time limit keeps what it measured)")
    parser.add_argument("--show", action="store_true", help="print each project's findings (the last --check) to stderr")
    args = parser.parse_args()
    global ON_CHIP
    ON_CHIP = args.on_chip
    if ON_CHIP and jax.default_backend() != "tpu":
        parser.error("--on-chip needs a TPU (jax's default backend is " + jax.default_backend() + ")")
    started = time.perf_counter()
    def each(result: Result) -> None:
        if args.rows:
            with args.rows.open("a") as rows:
                rows.write(_row(result) + "\n")

    results = measure_all(args.projects, each)
    table = markdown(results)
    for r in results if args.show else ():
        print(f"== {r.name}: {r.outcome}", file=sys.stderr)
        for path, line, rule, kind, message in r.last_check.findings:
            print(f"   {path}:{line}: {rule} [{kind}] {message}", file=sys.stderr)
    print(table, end="")
    print(f"measured in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    if args.markdown:
        args.markdown.write_text(table)
    if args.json:
        args.json.write_text(json.dumps({
            "jax": jax.__version__,
            "projects": {r.name: {"outcome": r.outcome, "as_expected": r.as_expected, "detail": r.detail,
                                  "explained": r.explained, "explain_said": r.explain_said,
                                  "seconds": round(r.seconds, 2)} for r in results},
            "totals": totals(results),
        }, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
