"""The tenth new user's trial (bench/TRIAL_2026-12-07f.md) on a real TPU: each entry of the trial's
monorepo (bench/trial_s28/: the `orca` library, script folders under examples/ and benchmarks/ that
share module names, tests/, notebooks) compiled by Mosaic's own compiler and run on the chip, as
written (`before/`), after `jax-codemod --write --unsafe-fixes` (`after/`) and after `jax-codemod
explain --write --unsafe-fixes` on each traceback left (`explained/`), all three made for jax 0.10.2
by the h64trial branch's tool (bench/trial_s28/make.sh).

The sixth trial's runner (trial_s24.py) pointed at this trial's folder: the same lines, the same
options (jax 0.10.2 only, values held to the original run by Pallas' TPU interpreter on the CPU).
The project is written in Python 3.11 syntax: no down-port. Each entry imports from its own folder
(entry.py's `load` puts it first on sys.path, as `python run.py` there would).

    python bench/chip/trial_s28.py                 # on the TPU machine: one line per entry
    python bench/chip/trial_s28.py --interpret     # on a CPU: the same, the kernels interpreted
    python bench/chip/trial_s28.py sm_body attn_scores x64_argmin
"""

import os
import pathlib
import sys

os.environ.setdefault("TRIAL_DIR", str(pathlib.Path(__file__).resolve().parents[1] / "trial_s28"))
import trial_s24  # noqa: E402 - reads TRIAL_DIR when imported

if __name__ == "__main__":
    sys.exit(trial_s24.main())
