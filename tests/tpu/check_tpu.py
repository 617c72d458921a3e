#!/usr/bin/env python3
"""Run the codemod's Mosaic TPU rewrites for real on a TPU: compiled by Mosaic's own compiler
(libtpu), run, and compared with plain XLA.

Lowering (`jax.export` for "tpu", what `make test` does on a CPU) stops before Mosaic's compiler
passes, which can still refuse a kernel (a bfloat16 operand at HIGHEST: "Bad lhs type"). Here, in
ONE process (one program at a time may hold the chip), three sections:

  examples  each example whose PLATFORM is "tpu": the original raises its EXPECTED_ERROR on the chip;
            the rewrite (in process, targeting the installed jax) compiles, runs and matches the
            example's `reference` at its tolerance. tpu_matmul runs again with bfloat16 operands: the
            fix's finding says which precision to write for them, and that is what must run.
  goldens   every Mosaic TPU launch of tests/test_goldens_lower.py: the .in.py fails as its findings
            say, the .out.py compiles and runs on seeded positive inputs, and matches the same program
            run by Pallas' TPU interpreter on the CPU (plain XLA ops, float32 throughout).
  kernels   jax's own Pallas TPU ops as installed (flash attention forward and backward, matmul,
            megablox gmm, splash, paged and ragged paged attention; bench/inject.py's entries): each
            contraction site given a per-operand pair, one at a time; the injected op raises on the
            chip, the tool's written copy runs, and its error against the op run by the interpreter
            on the CPU is within twice the error of the op as shipped, measured in the same run.

    python3 tests/tpu/check_tpu.py                       # on the TPU machine (tests/tpu/README.md)
    python3 tests/tpu/check_tpu.py --simulate-on-cpu     # the same logic on a CPU, no TPU result
    python3 tests/tpu/check_tpu.py --sections goldens --out table.md

Each row says what the chip did; the table comes last (and goes to --out, with the failures'
tracebacks beside it). Exit status: 0 every row passed, 1 some row failed, 2 it could not run (no
TPU, or jax / libcst missing), 3 some row was not exercised (`--allow-skip` accepts that).
--simulate-on-cpu goes through the same steps with cross-platform lowering in place of compiling
and the interpreter in place of the chip: it proves this script, nothing about a TPU.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import datetime
import importlib
import importlib.util
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable, Optional

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
from tests.device_check import (  # noqa: E402
    Row, checked, details, exit_status, import_jax, load_by_path, load_jax_support, max_abs_error, one_line, print_tails, rewrite, shorten,
    table, version,
)

NO_TPU = 2
SECTIONS = ("examples", "goldens", "kernels")
# A golden's kernel may keep DEFAULT contractions (one bfloat16 pass) the tool did not touch: its
# output is held to bfloat16 rounding against the interpreter's float32, relative to its scale.
GOLDEN_RTOL = 2e-2
# What the fix's finding tells a user with bfloat16 operands (per_operand_precision._dtype_note).
BF16_EPSILON = 2.0 ** -7
BF16_ADVICE = re.compile(r"for bfloat16 operands write (\w+) instead")


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--simulate-on-cpu", action="store_true",
                        help="no TPU: lower for 'tpu' instead of compiling, interpret instead of running; "
                        "checks this script's logic, proves nothing about a TPU")
    parser.add_argument("--sections", default=",".join(SECTIONS),
                        help=f"comma-separated, of {', '.join(SECTIONS)} (default: all)")
    parser.add_argument("--goldens", default="", help="only goldens whose case contains this text")
    parser.add_argument("--kernels", default="",
                        help="only jax Pallas op modules whose path contains this text (e.g. tpu/matmul.py)")
    parser.add_argument("--sites", type=int, default=0, help="at most this many sites per op module (0: all)")
    parser.add_argument("--out", type=Path, help="write the table here (and the tracebacks to OUT.details.txt)")
    parser.add_argument("--allow-skip", action="store_true", help="exit 0 even if some row was not exercised")
    parser.add_argument("examples", nargs="*", type=Path,
                        help="example files (default: those of examples/ whose PLATFORM is \"tpu\")")
    options = parser.parse_args(argv)
    sections = [name.strip() for name in options.sections.split(",") if name.strip()]
    unknown = sorted(set(sections) - set(SECTIONS))
    if unknown:
        parser.error(f"unknown section(s): {', '.join(unknown)}")
    simulate = options.simulate_on_cpu
    jax = import_jax(simulate, "tests/tpu/README.md")
    if jax is None:
        return NO_TPU

    if simulate:
        device_line = "CPU, SIMULATED (lowered for 'tpu', interpreted): no TPU result"
    else:
        try:
            device = jax.devices()[0]
        except RuntimeError as error:
            device = None
            why = one_line(error)
        else:
            why = f"jax's default backend is {device.platform}"
        if device is None or device.platform != "tpu":
            print(f"no TPU: {why} (--simulate-on-cpu checks the script itself without one)")
            return NO_TPU
        device_line = device.device_kind

    checker = Checker(jax, load_jax_support(), simulate)
    rows: list[Row] = []
    if "examples" in sections:
        rows += checker.examples(options.examples or checker.support.EXAMPLE_PATHS)
    if "goldens" in sections:
        rows += checker.goldens(options.goldens)
    if "kernels" in sections:
        if not simulate:  # a site the tool leaves as it was compiles what the op as shipped compiled: reuse it
            cache = tempfile.mkdtemp(prefix="check_tpu_cache")
            jax.config.update("jax_compilation_cache_dir", cache)
            jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
        rows += checker.kernels(options.kernels, options.sites)

    header = (
        f"TPU check {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}: {device_line}; "
        f"jax {jax.__version__} (jaxlib {version('jaxlib')}, libtpu {version('libtpu')}, libcst {version('libcst')}); "
        f"Python {platform.python_version()}; references: examples, plain XLA at HIGHEST on the same device; goldens "
        "and kernels, the program with its kernels run by Pallas' TPU interpreter on the CPU"
    )
    text = table(header, rows, first_column="case")
    print_tails(rows)
    print(text)
    if options.out:
        options.out.write_text(text + "\n")
        if details(rows):
            options.out.with_suffix(".details.txt").write_text(details(rows) + "\n")
    return exit_status(rows, options.allow_skip)


class Checker:
    def __init__(self, jax, support, simulate: bool):
        self.jax = jax
        self.support = support
        self.simulate = simulate
        self.cpu = jax.devices("cpu")[0]

    # -- the steps, on the chip or simulated ------------------------------------------------------

    def failure(self, fn, args) -> Optional[str]:
        """None when Mosaic compiles the program (simulated: lowers it for "tpu"), else the error."""
        try:
            if self.simulate:
                with self.support.abstract_tpu():
                    self.support.lower(fn, args, "tpu")
            else:
                fn.lower(*args).compile()
        except Exception as error:  # noqa: BLE001 - the error is the observation
            return f"{type(error).__name__}: {error}"
        return None

    def run(self, make_fn: Callable, args):
        """The result of the program `make_fn()` builds, on the chip (simulated: interpreted)."""
        if self.simulate:
            return self.interpreted(make_fn, args)
        return self.jax.block_until_ready(make_fn()(*args))

    def interpreted(self, make_fn: Callable, args):
        """The program with every Pallas TPU kernel run by jax's TPU interpreter on the CPU: plain XLA
        ops in float32 (the CPU makes no bf16 passes), the reference for a kernel that has none.
        The program is built inside: jax 0.10.2 reads the mode when pallas_call is called."""
        try:
            with self.interpreter():
                return self.jax.block_until_ready(make_fn()(*self.jax.device_put(args, self.cpu)))
        except ValueError as error:  # a kernel that asks which TPU runs it (emit_pipeline) gets the chip's kind
            if "Unsupported TPU device kind" not in str(error):
                raise
            with self.interpreter(), self.support.abstract_tpu():
                return self.jax.block_until_ready(make_fn()(*self.jax.device_put(args, self.cpu)))

    @contextlib.contextmanager
    def interpreter(self):
        from jax.experimental.pallas import tpu as pltpu

        jax = self.jax
        jax.clear_caches()  # a trace made for the chip would be reused: the interpreter is not in its key
        with jax.default_device(self.cpu), pltpu.force_tpu_interpret_mode(), jax.default_matmul_precision("highest"):
            yield
        jax.clear_caches()

    def check(self, name: str, body: Callable[[Row], None]) -> Row:
        return checked(self.jax, name, body)

    # -- examples ---------------------------------------------------------------------------------

    def examples(self, paths: list[Path]) -> list[Row]:
        rows = []
        for path in paths:
            if 'PLATFORM = "tpu"' not in path.read_text():  # read, not imported: a GPU example needs GPU modules
                continue
            rows.append(self.check(path.stem, lambda row, path=path: self._example(path, row, bfloat16=False)))
            if path.stem == "tpu_matmul":
                rows.append(self.check(f"{path.stem} (bfloat16 operands)",
                                       lambda row, path=path: self._example(path, row, bfloat16=True)))
        return rows

    def _example(self, path: Path, row: Row, bfloat16: bool) -> None:
        jax, support = self.jax, self.support
        original = support.load_program(path, path.stem)
        too_old = support.jax_too_old(original)
        if too_old:
            row.result = f"not exercised: {too_old}; the TPU machine's package index has no newer jax"
            return
        problems: list[str] = []
        fn, args = original.build(interpret=False)
        if bfloat16:
            args = jax.tree.map(lambda a: a.astype(jax.numpy.bfloat16), args)
        raised = self.failure(fn, args)
        if raised is None:
            row.original = "compiled (no error)"
            problems.append(f"original did not raise {original.EXPECTED_ERROR!r}")
        elif original.EXPECTED_ERROR in raised:
            row.original = f"raises `{original.EXPECTED_ERROR}`"
        else:
            row.original = f"raises `{shorten(raised)}`"
            problems.append(f"original raised {shorten(raised)!r}, expected {original.EXPECTED_ERROR!r}")

        result = rewrite(path, support.JAX_VERSION, unsafe_fixes=True)
        after, followed = result.after, ""
        if bfloat16:
            after, followed = _follow_bf16_advice(
                after, [(finding.code, finding.line, finding.message) for finding in result.findings], problems)
        rewritten = support.load_program(after, f"{path.stem}_rewritten")
        fn, _ = rewritten.build(interpret=False)
        codes = ", ".join(sorted({f"{finding.code} {finding.kind.value}" for finding in result.findings}))
        failed = self.failure(fn, args)
        if failed is not None:
            row.rewritten = f"fails: `{shorten(failed, 120)}` ({codes}{followed})"
            problems.append("the rewrite does not compile")
            row.details.append(failed)
            row.result = "FAIL: " + "; ".join(problems)
            return
        # The example's XLA code outside the kernels at HIGHEST too, as in its reference: on a TPU a
        # DEFAULT `queries @ keys.T` is one bfloat16 pass, which is not what the rewrite changed.
        with jax.default_matmul_precision("highest"):
            actual = self.run(lambda: rewritten.build(interpret=False)[0], args)
        how = "interpreted; lowers for tpu" if self.simulate else "ran: Mosaic TPU kernel"
        row.rewritten = f"{how} ({codes}{followed})"
        # On the chip itself: its XLA and its kernels share exp, tanh and gelu's arithmetic, so what
        # differs is the kernel's contraction precision (simulated: the CPU).
        reference_device = self.cpu if self.simulate else jax.devices()[0]
        with jax.default_device(reference_device), jax.default_matmul_precision("highest"):
            expected = rewritten.reference(*jax.device_put(args, reference_device))
        max_err, tolerance = max_abs_error(actual, expected, support)
        row.max_err = f"{max_err:.2e} (tol {tolerance})"
        # bfloat16 operands: the kernel rounds each layer's output to bfloat16 and XLA rounds at other
        # points of the same two-layer network, so a few bfloat16 epsilons apart.
        tolerance = {"rtol": 4 * BF16_EPSILON, "atol": 4 * BF16_EPSILON} if bfloat16 else {}
        try:
            support.assert_close(actual, expected, **tolerance)
        except AssertionError as error:
            problems.append(f"does not match the XLA reference: {one_line(error)}")
            row.details.append(str(error))
        row.result = "FAIL: " + "; ".join(problems) if problems else "pass"

    # -- goldens ----------------------------------------------------------------------------------

    def goldens(self, only: str) -> list[Row]:
        from tests import test_goldens_lower as goldens

        launches = [(case, launch) for case, launches in sorted(goldens.GOLDENS.items()) for launch in launches
                    if launch.backend == goldens.TPU and only in case]
        with tempfile.TemporaryDirectory() as root, goldens.installed_golden_packages(Path(root)):
            return [self.check(f"{case}.{launch.entry[:40]}", lambda row, case=case, launch=launch:
                               self._golden(goldens, case, launch, row)) for case, launch in launches]

    def _golden(self, goldens, case: str, launch, row: Row) -> None:
        import numpy as np

        jax = self.jax
        source, output, findings, stored = goldens.golden_for_this_release(case)
        claims = goldens.claims_for([text for line, text in findings if launch.lines is None or line in launch.lines],
                                    goldens.TPU)
        stem = case.replace("/", "_")
        # Eighths in [0.5, 1.5]: exact in bfloat16, and so are their products and sums in float32, so
        # every contraction precision gives the same result: what is compared is Mosaic's code, not
        # the kernel's (or the fix's) choice of precision. Positive: sqrt and log stay real.
        rng = np.random.default_rng(0)
        args = [jax.numpy.asarray((rng.integers(4, 13, shape) / 8).astype(np.float32)) for shape in launch.shapes]
        known = goldens.KNOWN_FAILURES.get((case, launch.entry, launch.backend))
        if known is not None and known[0].contains(self.support.JAX_VERSION):
            row.result = f"skipped: {known[2]}"
            return
        before = self.failure(goldens.entry_function(source, f"{stem}_in", launch), args)
        fn = goldens.entry_function(output, f"{stem}_out", launch)
        after = self.failure(fn, args)
        row.original = "compiles" if before is None else f"fails: `{shorten(before, 90)}`"
        problems = []
        if claims.fixed and before is None:
            problems.append("fixed for Mosaic TPU, yet the input compiles")
        if claims.lowers_as_written and before is not None:
            problems.append("a finding says Mosaic TPU lowers it as written")
        if after is not None:
            row.rewritten = f"fails: `{shorten(after, 90)}`"
            quoted = [quote for finding in claims.manual for quote in goldens._QUOTED.findall(finding)]
            if claims.cannot_lower and any(error in after for error in claims.cannot_lower):
                row.rewritten += " (as a finding says)"
            elif claims.manual and (not quoted or any(quote in after for quote in quoted)) and after == before:
                row.rewritten += " ([manual], as found)"
            else:
                problems.append("the output does not compile and no finding says why")
                row.details.append(after)
            row.result = "FAIL: " + "; ".join(problems) if problems else "pass"
            return
        actual = self.run(lambda: goldens.entry_function(output, f"{stem}_run", launch), args)
        row.rewritten = "interpreted; lowers for tpu" if self.simulate else "ran"
        expected = self.interpreted(lambda: goldens.entry_function(output, f"{stem}_ref", launch), args)
        error, scale = _relative_error(actual, expected)
        row.max_err = f"{error * scale:.2e} ({error:.1e} of max {scale:.2g})"
        if np.isnan(error):
            row.max_err = "NaN in the program's own math (the interpreter's too)"
        elif error > GOLDEN_RTOL:
            problems.append(f"differs from the interpreter by {error:.1e} of its scale (> {GOLDEN_RTOL})")
        row.result = "FAIL: " + "; ".join(problems) if problems else "pass"

    # -- jax's own Pallas TPU ops -----------------------------------------------------------------

    def kernels(self, only: str, per_module: int) -> list[Row]:
        inject = _load_inject()
        rows = []
        with tempfile.TemporaryDirectory() as scratch:
            scratch_dir = Path(scratch)
            pristine = inject.copy_package(inject.jax_ops_root(), scratch_dir / "pristine")
            chosen = {rel: _kernel_sites_first(inject, pristine, rel, per_module) for rel in inject.ENTRIES if only in rel}
            # The tool's runs touch no chip: all of them at once, on the machine's cores, before the chip's work.
            sites = [site for rel_sites in chosen.values() for site in rel_sites]
            # Injected here, one after another (ast is not safe in threads on Python 3.11: "AST
            # constructor recursion depth mismatch"); the tool's subprocesses side by side.
            folders = [_inject(inject, scratch_dir / str(number), pristine, site) for number, site in enumerate(sites)]
            with concurrent.futures.ThreadPoolExecutor(max(1, (os.cpu_count() or 2) - 1)) as pool:
                prepared = dict(zip(sites, pool.map(lambda folders: _write(*folders, self.support.JAX_VERSION), folders)))
            for rel, rel_sites in chosen.items():
                shipped = _Shipped()
                rows.append(self.check(f"{rel} as shipped", lambda row, rel=rel, shipped=shipped:
                                       shipped.measure(self, inject, pristine, rel, row)))
                if shipped.entries:
                    rows += [self.check(f"{rel}:{site.line} {site.callee}", lambda row, site=site:
                                        self._site(inject, shipped, site, prepared[site], row)) for site in rel_sites]
        return rows

    def _site(self, inject, shipped: "_Shipped", site, prepared, row: Row) -> None:
        if isinstance(prepared, Exception):
            raise prepared
        injected_dir, written_dir, findings = prepared
        mine = [f for f in findings if f["path"].endswith(site.rel) and site.line <= f["start"]["line"] <= site.end_line]
        row.rewritten = ", ".join(f"{f['rule']} {f['kind']}" for f in mine) or "no finding"

        raised = [error for error in _compile_errors(self, inject, injected_dir, site.rel) if error is not None]
        problems = []
        pair = [error for error in raised if "Per-operand" in error]
        row.original = f"raises `{shorten(pair[0], 70)}`" if pair else (
            f"fails otherwise: `{shorten(raised[0], 70)}`" if raised else "no entry reaches it")
        if raised and not pair:
            problems.append("the injected op fails with another error than the pair's")
        if pair and not mine:
            problems.append("the tool reported nothing at a site that fails")
        outputs = _outputs(self, inject, written_dir, site.rel, interpret=self.simulate)
        from codemods.probe import COMPILE_REJECTION

        if any(isinstance(output, str) and re.search(COMPILE_REJECTION, output) for _, output in outputs):
            # An operand Mosaic's compiler refuses at the fix's precision (bfloat16): the finding says
            # what to write for such operands; written so, the op must run.
            path = written_dir / site.rel
            advised, followed = _follow_bf16_advice(
                path.read_text(encoding="utf-8"), [(f["rule"], f["start"]["line"], f["message"]) for f in mine], problems)
            path.write_text(advised, encoding="utf-8")
            row.rewritten += f" ({followed.lstrip('; ')}: the fix fails to compile, its finding says so)" if followed else ""
            outputs = _outputs(self, inject, written_dir, site.rel, interpret=self.simulate)
        worst = []
        for (name, shipped_err, reference), (_, output) in zip(shipped.entries, outputs):
            if isinstance(output, str):
                problems.append(f"{name}: the written copy fails: {shorten(output, 90)}")
                row.details.append(output)
                continue
            error, _ = _relative_error(output, reference)
            if shipped_err is None:  # no interpreter reference: held to the op as shipped, at bfloat16 rounding
                worst.append(f"{name} {error:.1e} vs shipped")
                if not error <= GOLDEN_RTOL:
                    problems.append(f"{name}: {error:.1e} away from the op as shipped (> {GOLDEN_RTOL})")
                continue
            worst.append(f"{name} {error:.1e} (shipped {shipped_err:.1e})")
            if not error <= 2 * shipped_err + 1e-6:
                problems.append(f"{name}: error {error:.1e} against the interpreter, shipped op {shipped_err:.1e}")
        row.max_err = "; ".join(worst) or "-"
        if not pair and not problems:
            row.result = "pass (no entry reaches this site: the written copy still runs)"
            return
        row.result = "FAIL: " + "; ".join(problems) if problems else "pass"


class _Shipped:
    """One op module as jax ships it: per entry, its output on the chip, the reference (the op run by
    the interpreter on the CPU) and the shipped op's relative error against it (None where the
    interpreter cannot run the op: the reference is then the shipped op itself)."""

    def __init__(self):
        self.entries: list[tuple[str, Optional[float], object]] = []

    def measure(self, checker: Checker, inject, pristine: Path, rel: str, row: Row) -> None:
        chip = _outputs(checker, inject, pristine, rel, interpret=checker.simulate)
        references = _outputs(checker, inject, pristine, rel, interpret=True)
        failed = [f"{name}: {shorten(output, 120)}" for name, output in chip if isinstance(output, str)]
        if failed and checker.simulate:  # the interpreter stands in for the chip: nothing to run its sites on
            row.result = "not exercised: the interpreter cannot run the op as shipped: " + "; ".join(failed)
            return
        if failed:
            row.result = "FAIL: the op as shipped does not run: " + "; ".join(failed)
            return
        errors, notes = [], []
        for (name, output), (_, reference) in zip(chip, references):
            if isinstance(reference, str):
                notes.append(f"{name}: no interpreter reference ({shorten(reference, 80)})")
                self.entries.append((name, None, output))
                continue
            error = _relative_error(output, reference)[0]
            errors.append(f"{name} {error:.1e}")
            self.entries.append((name, error, reference))
        row.original = "ran" if not checker.simulate else "interpreted"
        row.max_err = "; ".join(errors) or "-"
        row.result = "pass" + (f" ({'; '.join(notes)}: its sites are compared with the op as shipped)" if notes else "")


def _outputs(checker: Checker, inject, ops_dir: Path, rel: str, interpret: bool) -> list[tuple[str, object]]:
    """Per entry of `rel`, with jax's ops package loaded from ops_dir: its name and its output on the
    chip (interpret: by the interpreter on the CPU), or its error as text."""
    jax = checker.jax
    results = []
    with checker.interpreter() if interpret else contextlib.nullcontext(), _ops_package(inject, ops_dir):
        for name, fn, args in _concrete_entries(jax, inject, rel):
            try:
                if interpret:
                    args = jax.device_put(args, checker.cpu)
                results.append((name, jax.block_until_ready(jax.jit(fn)(*args))))
            except Exception as error:  # noqa: BLE001 - the error is the observation
                results.append((name, f"{type(error).__name__}: {error}"))
    jax.clear_caches()
    return results


def _compile_errors(checker: Checker, inject, ops_dir: Path, rel: str) -> list[Optional[str]]:
    """Per entry of `rel`, with jax's ops package loaded from ops_dir: None if it compiles (simulated:
    lowers for "tpu"), else the error."""
    with _ops_package(inject, ops_dir):
        errors = [checker.failure(checker.jax.jit(fn), args) for _, fn, args in _concrete_entries(checker.jax, inject, rel)]
    checker.jax.clear_caches()
    return errors


# Valid integer operands of the entries that take them (group sizes, sequence lengths, page tables),
# in argument order; float operands are seeded normals.
_INTEGER_OPERANDS: dict[str, Callable[[], list]] = {
    "gmm": lambda: [[128, 128]],
    "tgmm": lambda: [[128, 128]],
    "ops.gmm grad": lambda: [[128, 128]],
    "paged_attention": lambda: [[100, 128], [[*range(8)], [*range(8, 16)]]],
    "ragged_paged_attention": lambda: [[40, 64, 100, 128], [[*range(i * 8, i * 8 + 8)] for i in range(4)],
                                       [0, 16, 32, 48, 64], [4]],
}


def _concrete_entries(jax, inject, rel: str) -> list:
    import numpy as np

    rng = np.random.default_rng(0)
    entries = []
    for name, fn, shapes in inject.ENTRIES[rel]():
        integers = iter(_INTEGER_OPERANDS.get(name, list)())
        args = []
        for shape in shapes:
            if np.issubdtype(shape.dtype, np.integer):
                args.append(jax.numpy.asarray(np.asarray(next(integers), shape.dtype).reshape(shape.shape)))
            else:
                args.append(jax.numpy.asarray((0.5 * rng.standard_normal(shape.shape)).astype(shape.dtype)))
        entries.append((name, fn, tuple(args)))
    return entries


@contextlib.contextmanager
def _ops_package(inject, ops_dir: Path):
    """`jax.experimental.pallas.ops` is the copy at ops_dir while in scope (as inject's lower worker)."""
    import jax.experimental.pallas as pallas

    def forget():
        for name in [n for n in sys.modules if n == inject.OPS_PACKAGE or n.startswith(inject.OPS_PACKAGE + ".")]:
            del sys.modules[name]

    saved = getattr(pallas, "ops", None)
    forget()
    spec = importlib.util.spec_from_file_location(inject.OPS_PACKAGE, ops_dir / "__init__.py",
                                                  submodule_search_locations=[str(ops_dir)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[inject.OPS_PACKAGE] = module
    spec.loader.exec_module(module)
    pallas.ops = module
    try:
        yield module
    finally:
        forget()
        if saved is not None:
            pallas.ops = saved


def _kernel_sites_first(inject, pristine: Path, rel: str, limit: int) -> list:
    """The module's contraction sites, those bench/inject.py's static oracle puts in a kernel first
    (where a limit cuts, it cuts the XLA ones)."""
    labels = inject.static_labels((pristine / rel).read_text(encoding="utf-8"), rel)
    sites = sorted((site for site in inject.find_sites(pristine) if site.kind == "precision" and site.rel == rel),
                   key=lambda site: (labels.get(site.line, ("",))[0] != "kernel", site.line))
    return sites[:limit] if limit else sites


def _inject(inject, folder: Path, pristine: Path, site):
    """(a copy of the package with the site's pair injected, where the tool's copy of it will be),
    or the exception that stopped it."""
    try:
        injected_dir = folder / "injected"
        shutil.copytree(pristine, injected_dir)
        path = injected_dir / site.rel
        path.write_text(inject.inject(path.read_text(encoding="utf-8"), site), encoding="utf-8")
        return injected_dir, folder / "written"
    except Exception as error:  # noqa: BLE001 - the site's row reports it
        return error, None


def _write(injected_dir, written_dir, jax_version):
    """(the injected package, the same written by the tool, the tool's findings), or the exception
    that stopped it (raised again in the site's row)."""
    if isinstance(injected_dir, Exception):
        return injected_dir
    try:
        shutil.copytree(injected_dir, written_dir)
        return injected_dir, written_dir, _tool_write(written_dir, jax_version)
    except Exception as error:  # noqa: BLE001 - the site's row reports it
        return error


def _tool_write(root: Path, jax_version) -> list[dict]:
    """`jax-codemod --write --unsafe-fixes` over the copied ops package (the project analysis sees its
    sibling modules); the findings, from its JSON. The tool never imports jax: no second process
    touches the chip."""
    from codemods.capabilities import format_version

    command = [sys.executable, "-m", "codemods", "--no-cache", "--jax-version", format_version(jax_version),
               "--output-format", "json", "-j", "1", "--write", "--unsafe-fixes", str(root)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
           "JAX_PLATFORMS": "cpu"}
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=str(root.parent), timeout=300)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"the tool exited {done.returncode}: {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout)["findings"]


def _follow_bf16_advice(source: str, findings: list[tuple[str, int, str]], problems: list[str]) -> tuple[str, str]:
    """`source` with each JAX001 fix's precision replaced by what its finding says to write for
    bfloat16 operands (findings as (code, line, message); the line the fix wrote, its level's name
    swapped), and what was followed."""
    lines = source.splitlines(keepends=True)
    followed = []
    for code, line, message in findings:
        advice = BF16_ADVICE.search(message)
        written = re.search(r"-> (\w+) \(", message)
        if code != "JAX001" or advice is None or written is None:
            continue
        if written.group(1) not in lines[line - 1]:
            problems.append(f"line {line} does not hold the {written.group(1)} its finding names")
            continue
        lines[line - 1] = lines[line - 1].replace(written.group(1), advice.group(1), 1)
        followed.append(f"{written.group(1)} -> {advice.group(1)} on line {line}")
    if not followed:
        problems.append("no finding says what to write for bfloat16 operands")
    return "".join(lines), "; bf16 advice followed: " + ", ".join(followed) if followed else ""


def _relative_error(actual, expected) -> tuple[float, float]:
    """max |actual - expected| over the leaves, as a fraction of max |expected|, and that scale;
    NaN when the reference holds NaN where the result does too."""
    import jax
    import numpy as np

    worst, scale = 0.0, 0.0
    for got, want in zip(jax.tree.leaves(actual), jax.tree.leaves(expected)):
        got, want = np.asarray(got, np.float32), np.asarray(want, np.float32)
        if np.isnan(want).any() or np.isnan(got).any():
            if np.array_equal(np.isnan(got), np.isnan(want)):
                return float("nan"), float("nan")
            return float("inf"), float("nan")  # NaN on one side only: as far apart as can be
        scale = max(scale, float(np.max(np.abs(want))) if want.size else 0.0)
        worst = max(worst, float(np.max(np.abs(got - want))) if want.size else 0.0)
    return (worst / scale if scale else worst), scale


def _load_inject():
    """bench/inject.py: its sites, injection and the ops' entries."""
    return load_by_path("inject", REPO / "bench" / "inject.py")


if __name__ == "__main__":
    sys.exit(main())
