"""JAX005 on a real TPU: the x64 goldens compiled by Mosaic's own compiler and run (`make test` lowers them
on a CPU only, and an int64 iota lowers there but fails the chip's compiler).

One process, jax 0.10.2 as the TPU machine has it:
  explicit_dtypes_without_x64  x64 off: the .in.py and the .out.py both run, with the same bits;
  x64_enabled_in_module        x64 on (the module turns it on): each launch of the .in.py fails on the
                               chip, each of the .out.py compiles, runs, and gives the bits Pallas'
                               interpreter gives for the .in.py on the CPU (cast to the launch's dtype);
                               a launch its findings leave [manual] fails as written.
  x64_launch_operands          the same, for values XLA code makes for the launches' operands.

    python3 bench/chip/x64_golden_chip.py        # on the TPU machine; exit 0 when every row passed
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

from narrow_golden_chip import interpreted, on_chip, report  # noqa: E402
from tests import jax_support  # noqa: E402

FIXTURES = REPO / "tests" / "fixtures" / "x64"
# Distinct values in each row (an argmax has one answer), small integers (exact in every dtype here);
# then values that repeat each row's maximum: Mosaic TPU's own argmax returns the last of them, jnp's
# the first (bench/chip/argmax_ties_v5e.txt), and the fix's argmax_tpu must give the first.
X = (np.random.default_rng(0).permuted(np.tile(np.arange(128), (8, 1)), axis=1) - 64).astype(np.float32)
X_TIES = ((np.arange(8 * 128).reshape(8, 128) % 37) - 18).astype(np.float32)
# Launches the golden's findings leave [manual]: they fail as written.
MANUAL = {("x64_launch_operands", "last_best_column")}


def rows_of(golden: str, entries: list[str], must_fail: bool) -> list[tuple[str, bool, str]]:
    original = jax_support.load_program(FIXTURES / f"{golden}.in.py", f"x64_{golden}_in")
    rewritten = jax_support.load_program(FIXTURES / f"{golden}.out.py", f"x64_{golden}_out")
    rows = []
    for entry in entries:
        for label, values in (("", X), (" (ties)", X_TIES)):
            x = jnp.asarray(values)
            ran_before, before = on_chip(getattr(original, entry), x)
            after, error = on_chip(getattr(rewritten, entry), x)
            want = interpreted(original, entry, x)
            same = after is not None and np.array_equal(after, want.astype(after.dtype))
            failed_as_said = (before is not None) if must_fail else (ran_before is not None)
            if (golden, entry) in MANUAL:
                same = error is not None
            rows.append((f"{golden} {entry}{label}", failed_as_said and same,
                         f".in: {before or 'ran'} | .out: {error or ('same bits as the interpreter' if same else 'DIFFERS')}"))
    return rows


def main() -> int:
    print("jax", jax.__version__, jax.devices()[0].device_kind, flush=True)
    if jax.default_backend() != "tpu":
        print("no TPU here: nothing to show")
        return 2
    rows = rows_of("explicit_dtypes_without_x64", ["run"], must_fail=False)  # before x64 is turned on
    source = (FIXTURES / "x64_enabled_in_module.in.py").read_text()
    rows += rows_of("x64_enabled_in_module", re.findall(r"^(\w+) = launch\(", source, re.M), must_fail=True)
    rows += rows_of("x64_launch_operands", ["grouped", "best_column", "shifted_column", "last_best_column"],
                    must_fail=True)
    return report(rows, 44)


if __name__ == "__main__":
    sys.exit(main())
