"""The ninth new user's trial (bench/TRIAL_2026-12-07e.md) on a real TPU: each entry of the trial's
project (bench/trial_s27/) compiled by Mosaic's own compiler and run on the chip, as written
(`before/`), after `jax-codemod --write --unsafe-fixes` (`after/`) and after `jax-codemod explain
--write --unsafe-fixes` on each traceback left (`explained/`), all three made for jax 0.10.2 by the
h62trial branch's tool (bench/trial_s27/make.sh).

The sixth trial's runner (trial_s24.py) pointed at this trial's folder: the same lines, the same
options (jax 0.10.2 only, each run in its own process, values held to the original run by Pallas'
TPU interpreter on the CPU). The project needs Python 3.12 (PEP 695 aliases and generics). Its
Mosaic GPU entries (`gpu_rms`, `gpu_fori_tanh`, `xla_rms_gpu`) and the cuDNN LSTM (`lstm_train`)
do not run on a TPU: their verdict is tests/gpu/check_gpu.py's kind of machine's.

    python bench/chip/trial_s27.py                 # on the TPU machine: one line per entry
    python bench/chip/trial_s27.py --interpret     # on a CPU: the same, the kernels interpreted
    python bench/chip/trial_s27.py scoped_mm pipeline_mm vmap_factory
"""

import os
import pathlib
import sys

os.environ["TRIAL_DIR"] = str(pathlib.Path(__file__).resolve().parents[1] / "trial_s27")
import trial_s24  # noqa: E402 - reads TRIAL_DIR when imported

if __name__ == "__main__":
    sys.exit(trial_s24.main())
