"""The ninth new user's trial (bench/TRIAL_2026-12-07e.md) on a real TPU: each entry of the trial's
project (bench/trial_s27/) compiled by Mosaic's own compiler and run on the chip, as written
(`before/`), after `jax-codemod --write --unsafe-fixes` (`after/`) and after `jax-codemod explain
--write --unsafe-fixes` on each traceback left (`explained/`), all three made for jax 0.10.2 by the
h62trial branch's tool (bench/trial_s27/make.sh).

The sixth trial's runner (trial_s24.py) pointed at this trial's folder: the same lines, the same
options (jax 0.10.2 only, each run in its own process, values held to the original run by Pallas'
TPU interpreter on the CPU). The project is written for Python 3.12 (PEP 695 aliases and a generic
function, three lines no fix touches); the TPU machine's Python is 3.11, so there the runner runs a
copy with those three lines spelled the 3.11 way (`Pair = ...`, `T = jax.Array`) and says so. Its
Mosaic GPU entries (`gpu_rms`, `gpu_fori_tanh`, `xla_rms_gpu`) and the cuDNN LSTM (`lstm_train`)
do not run on a TPU: their verdict is tests/gpu/check_gpu.py's kind of machine's.

    python bench/chip/trial_s27.py                 # on the TPU machine: one line per entry
    python bench/chip/trial_s27.py --interpret     # on a CPU: the same, the kernels interpreted
    python bench/chip/trial_s27.py scoped_mm pipeline_mm vmap_factory
"""

import atexit
import os
import pathlib
import shutil
import sys
import tempfile

TRIAL = pathlib.Path(__file__).resolve().parents[1] / "trial_s27"
# the PEP 695 lines, per variant, and their Python 3.11 spelling (same names, same runtime values)
DOWN_PORT = {
    "helix/prec.py": [("type Pair = ", "Pair = "), ("type PrecisionLike = ", "PrecisionLike = ")],
    "helix/ops.py": [("def launch[T: jax.Array](", "T = jax.Array\n\n\ndef launch(")],
}


def _down_ported() -> pathlib.Path:
    """A copy of the trial that Python 3.11 parses: every replacement found exactly once, else an error."""
    copy = pathlib.Path(tempfile.mkdtemp(prefix="trial_s27_py311_")) / "trial_s27"
    shutil.copytree(TRIAL, copy)
    atexit.register(shutil.rmtree, copy.parent, True)
    for variant in ("before", "after", "explained"):
        for name, swaps in DOWN_PORT.items():
            path = copy / variant / name
            text = path.read_text()
            for old, new in swaps:
                if text.count(old) != 1:
                    raise SystemExit(f"{path}: expected one {old!r} to down-port, found {text.count(old)}")
                text = text.replace(old, new)
            path.write_text(text)
    return copy


if "TRIAL_DIR" not in os.environ:  # children inherit the parent's folder
    if sys.version_info < (3, 12):
        os.environ["TRIAL_DIR"] = str(_down_ported())
        print(f"# Python {sys.version.split()[0]}: run from a copy with the PEP 695 lines spelled for 3.11 ({', '.join(DOWN_PORT)})")
    else:
        os.environ["TRIAL_DIR"] = str(TRIAL)
import trial_s24  # noqa: E402 - reads TRIAL_DIR when imported

if __name__ == "__main__":
    sys.exit(trial_s24.main())
