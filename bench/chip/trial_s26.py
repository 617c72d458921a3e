"""The eighth new user's trial (bench/TRIAL_2026-12-07d.md) on a real TPU: each entry of the trial's
project (bench/trial_s26/) compiled by Mosaic's own compiler and run on the chip, as written
(`before/`), after `jax-codemod --write --unsafe-fixes` (`after/`) and after `jax-codemod explain
--write --unsafe-fixes` on each traceback left (`explained/`), all three made for jax 0.10.2 by the
h61trial branch's tool.

The sixth trial's runner (trial_s24.py) pointed at this trial's folder: the same lines, the same
options (jax 0.10.2 only, each run in its own process, values held to the original run by Pallas'
TPU interpreter on the CPU):

    python bench/chip/trial_s26.py                 # on the TPU machine: one line per entry
    python bench/chip/trial_s26.py --interpret     # on a CPU: the same, the kernels interpreted
    python bench/chip/trial_s26.py requant_i8 step_print
"""

import os
import pathlib
import sys

os.environ["TRIAL_DIR"] = str(pathlib.Path(__file__).resolve().parents[1] / "trial_s26")
import trial_s24  # noqa: E402 - reads TRIAL_DIR when imported

if __name__ == "__main__":
    sys.exit(trial_s24.main())
