#!/usr/bin/env python3
"""Run the codemod's rewritten GPU examples for real on an NVIDIA GPU and compare with XLA.

For every example in examples/ whose PLATFORM is "cuda" (a Pallas Mosaic GPU kernel) and for the
cuDNN LSTM example, this script

  1. runs the unmodified program on the GPU and checks that it raises the seed's
     NotImplementedError (EXPECTED_ERROR);
  2. rewrites the source in-process with every transform, targeting the installed jax;
  3. runs the rewritten program with `build(interpret=False)`: the real Mosaic GPU kernel, the
     real cuDNN LSTM (no stand-in; the lowered program must call cuDNN's RNN, with float32
     operands and TF32 off);
  4. compares the result with the example's `reference` (plain XLA at HIGHEST, on the CPU
     backend) at the tolerances of tests/jax_support.assert_close;

then prints a markdown table (also written to $OUT/gpu_check.md when OUT is set, with full
tracebacks in $OUT/gpu_check_details.txt).

    python3 tests/gpu/check_gpu.py                    # on the GPU machine (see tests/gpu/README.md)
    python3 tests/gpu/check_gpu.py --simulate-on-cpu  # the same logic on a CPU, no GPU result

Exit status: 0 every row passed, 1 some row failed, 2 it could not run (no GPU, or jax / libcst
missing), 3 some row was skipped (e.g. Mosaic GPU on a GPU older than Hopper): that path was not
exercised, which is not a pass unless `--allow-skip` says so. Not a pytest module: CI has no GPU; `--simulate-on-cpu` exercises the
script's own logic anywhere (Pallas interpret mode, cross-platform lowering for "cuda", and the
cuDNN CPU stand-in of tests/jax_support).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
from pathlib import Path
from typing import Optional

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
from tests.device_check import (  # noqa: E402
    Row, checked, details, exit_status, import_jax, load_jax_support, max_abs_error, one_line, print_tails, rewrite, shorten, table, version,
)

LSTM_ERROR = "bfloat16 support not implemented for LSTM"
NO_GPU = 2


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--simulate-on-cpu",
        action="store_true",
        help="no GPU: interpret the kernels, lower them for 'cuda' without running, stand in for "
        "cuDNN; checks this script's logic, proves nothing about a GPU",
    )
    parser.add_argument(
        "--allow-skip", action="store_true",
        help="exit 0 even if some row was skipped (a path this machine cannot exercise)",
    )
    parser.add_argument(
        "examples", nargs="*", type=Path,
        help="example files (default: the Mosaic GPU and LSTM examples in examples/)",
    )
    options = parser.parse_args(argv)
    simulate = options.simulate_on_cpu

    # Before jax is imported: leave the GPU's memory to others, or keep jax off it entirely.
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    jax = import_jax(simulate, "tests/gpu/README.md")
    if jax is None:
        return NO_GPU

    if simulate:
        device = jax.devices("cpu")[0]
        device_line = "CPU, SIMULATED (interpret mode, 'cuda' lowering only, cuDNN stand-in): no GPU result"
    else:
        device, why = _nvidia_gpu(jax)
        if device is None:
            print(f"no GPU: {why} (--simulate-on-cpu checks the script itself without one)")
            return NO_GPU
        capability = getattr(device, "compute_capability", None)
        device_line = f"{device.device_kind}" + (f" (sm_{capability.replace('.', '')})" if capability else "")

    support = load_jax_support()
    paths = options.examples or _gpu_examples(support)
    checker = Checker(jax, support, device, simulate)
    rows = [checker.check(path) for path in paths]

    header = (
        f"GPU check {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}: {device_line}; "
        f"jax {jax.__version__} (jaxlib {version('jaxlib')}, libcst {version('libcst')}); Python {platform.python_version()}; "
        "reference: plain XLA at HIGHEST on the CPU backend"
    )
    text = table(header, rows)
    print_tails(rows)
    print(text)
    out = os.environ.get("OUT")
    if out:
        Path(out, "gpu_check.md").write_text(text + "\n")
        if details(rows):
            Path(out, "gpu_check_details.txt").write_text(details(rows) + "\n")
    return exit_status(rows, options.allow_skip)


def _nvidia_gpu(jax):
    """(the first CUDA device, None), or (None, why not): no plugin, no driver, no NVIDIA GPU."""
    try:
        devices = jax.devices("cuda")
    except Exception as error:  # RuntimeError "Unknown backend cuda", or a plugin that failed to start
        return None, one_line(error)
    return (devices[0], None) if devices else (None, "jax lists no CUDA device")



def _gpu_examples(support) -> list[Path]:
    chosen = []
    for path in support.EXAMPLE_PATHS:
        program = support.load_program(path, f"_probe_{path.stem}")
        if program.PLATFORM == "cuda" or program.EXPECTED_ERROR == LSTM_ERROR:
            chosen.append(path)
    return chosen


class Checker:
    def __init__(self, jax, support, device, simulate: bool):
        self.jax = jax
        self.support = support
        self.device = device
        self.simulate = simulate

    def check(self, path: Path) -> Row:
        return checked(self.jax, path.stem, lambda row: self._check(path, row))

    def _check(self, path: Path, row: Row) -> None:
        jax, support = self.jax, self.support
        original = support.load_program(path, path.stem)
        is_lstm = original.EXPECTED_ERROR == LSTM_ERROR
        mosaic_gpu = original.PLATFORM == "cuda"
        if not (mosaic_gpu or is_lstm):
            row.result = f"skipped: not a Mosaic GPU or LSTM example (PLATFORM {original.PLATFORM!r})"
            return
        too_old = support.jax_too_old(original)
        if too_old:
            row.result = f"skipped: {too_old}"
            return
        capability = getattr(self.device, "compute_capability", None)
        if mosaic_gpu and not self.simulate and capability and float(capability) < 9.0:
            row.result = f"skipped: Mosaic GPU needs Hopper (sm_90+), this is sm_{capability}"
            return
        problems: list[str] = []

        # 1. The unmodified program raises the seed's error.
        with jax.default_device(self.device):
            raised = self._original_error(original, mosaic_gpu)
        if raised is None:
            row.original = "ran (no error)"
            problems.append(f"original did not raise {original.EXPECTED_ERROR!r}")
        elif raised == original.EXPECTED_ERROR:
            row.original = f"raises `{raised}`"
        else:
            row.original = f"raises `{shorten(raised)}`"
            problems.append(f"original raised {raised!r}, expected {original.EXPECTED_ERROR!r}")

        # 2. Rewrite.
        result = rewrite(path, self.support.JAX_VERSION)
        rewritten = support.load_program(result.after, f"{path.stem}_rewritten")
        codes = sorted({f"{finding.code} {finding.kind.value}" for finding in result.findings})

        # 3. Run it for real (simulated: interpreted, and lowered for 'cuda').
        with jax.default_device(self.device):
            if is_lstm:
                actual, args, how = self._run_lstm(rewritten, problems)
            else:
                actual, args, how = self._run_kernel(rewritten, mosaic_gpu, problems)
        row.rewritten = f"{how} ({', '.join(codes)})" if codes else how

        # 4. Compare with plain XLA at HIGHEST on the CPU backend.
        with jax.default_device(jax.devices("cpu")[0]), jax.default_matmul_precision("highest"):
            expected = rewritten.reference(*args)
        max_err, tolerance = max_abs_error(actual, expected, support)
        row.max_err = f"{max_err:.2e} (tol {tolerance})"
        try:
            support.assert_close(actual, expected)
        except AssertionError as error:
            problems.append(f"does not match the XLA reference: {one_line(error)}")
            row.details.append(str(error))

        row.result = "FAIL: " + "; ".join(problems) if problems else "pass"

    def _original_error(self, program, mosaic_gpu: bool) -> Optional[str]:
        """The NotImplementedError message the unmodified program raises, or None if it runs."""
        if self.simulate and mosaic_gpu:
            # Interpret mode would run the body in XLA, which honours accuracy hints: use the
            # real Mosaic GPU lowering rules through cross-platform lowering instead.
            fn, args = program.build(interpret=False)
            return self.support.lowering_error(fn, args, "cuda")
        fn, args = program.build(interpret=self.simulate)
        try:
            self.jax.block_until_ready(fn(*args))
        except Exception as error:
            found = self.support._find_not_implemented(error)
            if found is None:
                raise
            return str(found)
        return None

    def _run_kernel(self, program, mosaic_gpu: bool, problems: list[str]):
        jax = self.jax
        fn, args = program.build(interpret=False)
        if self.simulate:  # the real Mosaic GPU lowering rules, without a GPU
            text = self.support.lower(fn, args, "cuda").mlir_module()
        else:
            text = fn.lower(*args).as_text()
        if mosaic_gpu and "mosaic_gpu" not in text:
            problems.append("the lowered program has no Mosaic GPU custom call")
        if self.simulate:
            fn, args = program.build(interpret=True)
            return jax.block_until_ready(fn(*args)), args, "interpreted; lowers for cuda"
        return jax.block_until_ready(fn(*args)), args, "ran: Mosaic GPU kernel"

    def _run_lstm(self, program, problems: list[str]):
        """Run the model through cuDNN (simulated: the CPU stand-in) and check what cuDNN got."""
        jax = self.jax
        fn, args = program.build(interpret=False)
        if self.simulate:
            with self.support.cudnn_lstm_on_cpu():
                calls = _rnn_calls(jax.make_jaxpr(fn)(*args))
                actual = jax.block_until_ready(fn(*args))
            where = "cuDNN CPU stand-in"
        else:
            if "dnn_rnn" not in fn.lower(*args).as_text():
                problems.append("the lowered program does not call cuDNN's RNN")
            calls = _rnn_calls(jax.make_jaxpr(fn)(*args))
            actual = jax.block_until_ready(fn(*args))
            where = "ran: cuDNN LSTM"
        if not calls:
            problems.append("no LSTM launch in the rewritten program")
        for dtypes, allow_tf32 in calls:
            if any(dtype != "float32" for dtype in dtypes[:4]):
                problems.append(f"cuDNN was given {dtypes[:4]}, not float32")
            if allow_tf32:
                problems.append("cuDNN was allowed TF32 (precision is not HIGHEST)")
        seen = "; ".join(f"{'/'.join(sorted(set(d[:4])))}, tf32 {'on' if tf32 else 'off'}" for d, tf32 in calls)
        return actual, args, f"{where} [{seen}]"


def _rnn_calls(closed_jaxpr) -> list[tuple[tuple[str, ...], bool]]:
    """(operand dtypes, cudnn_allow_tf32) of every rnn_fwd launch in a jaxpr, nested ones too."""
    calls = []

    def walk(jaxpr):
        for eqn in jaxpr.eqns:
            if eqn.primitive.name == "rnn_fwd":
                calls.append(
                    (tuple(str(v.aval.dtype) for v in eqn.invars), bool(eqn.params["cudnn_allow_tf32"]))
                )
            for value in eqn.params.values():
                for item in value if isinstance(value, (tuple, list)) else (value,):
                    inner = getattr(item, "jaxpr", item)  # ClosedJaxpr -> Jaxpr
                    if hasattr(inner, "eqns"):
                        walk(inner)

    walk(closed_jaxpr.jaxpr)
    return calls


if __name__ == "__main__":
    sys.exit(main())
