"""What the accelerator checks share (tests/gpu/check_gpu.py, tests/tpu/check_tpu.py): a row of the
result table, the table, the in-process rewrite, and the text helpers. Imports neither jax nor the
codemod at module level, so that each script can say "cannot run" before it needs them.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import importlib.util
import os
import sys
import traceback
from pathlib import Path
from typing import Callable, Optional, Union

REPO = Path(__file__).resolve().parents[1]


@dataclasses.dataclass
class Row:
    example: str
    original: str = "-"
    rewritten: str = "-"
    max_err: str = "-"
    result: str = "FAIL"
    details: list[str] = dataclasses.field(default_factory=list)  # tracebacks, for the log

    @property
    def failed(self) -> bool:
        return self.result.startswith("FAIL")

    @property
    def skipped(self) -> bool:
        return self.result.startswith(("skipped", "not exercised"))


def checked(jax, name: str, body: Callable[[Row], None]) -> Row:
    """The row `body` fills in; a step that breaks fails its row (with the traceback for the log), and
    the run goes on to the next. jax's caches are emptied after each: every row starts cold."""
    row = Row(name)
    try:
        body(row)
    except Exception as error:
        row.result = f"FAIL: {one_line(error)}"
        row.details.append(traceback.format_exc())
    finally:
        jax.clear_caches()
    return row


def table(header: str, rows: list[Row], first_column: str = "example") -> str:
    lines = [
        header,
        "",
        f"| {first_column} | original | rewritten | max abs err vs XLA | result |",
        "| --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        cells = (row.example, row.original, row.rewritten, row.max_err, row.result)
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    lines += ["", summary(rows)]
    return "\n".join(lines)


def summary(rows: list[Row]) -> str:
    failed = sum(row.failed for row in rows)
    skipped = sum(row.skipped for row in rows)
    return (f"{len(rows) - failed - skipped} of {len(rows)} passed"
            + (f", {skipped} SKIPPED (not exercised)" if skipped else "")
            + (f", {failed} FAILED" if failed else ""))


def print_tails(rows: list[Row]) -> None:
    """Each failing row's traceback (last lines) on stderr, before the table, so that the end of
    the output is always the table."""
    for row in rows:
        for detail in row.details:
            print(f"## {row.example} (last lines)\n" + tail(detail, 25) + "\n", file=sys.stderr)
    sys.stderr.flush()


def exit_status(rows: list[Row], allow_skip: bool) -> int:
    """1 when a row failed; 3 when one was not exercised (unless allowed: a path this machine cannot
    run is not a pass); else 0."""
    if any(row.failed for row in rows):
        return 1
    skipped = [row.example for row in rows if row.skipped]
    if skipped and not allow_skip:
        print(f"not exercised here: {', '.join(skipped)} (exit 3; --allow-skip accepts that)", file=sys.stderr)
        return 3
    return 0


def details(rows: list[Row]) -> str:
    return "\n\n".join(f"## {row.example}\n" + "\n".join(row.details) for row in rows if row.details)


def import_jax(simulate: bool, wheels_readme: str):
    """jax, imported after `simulate` has pinned it to the CPU; None (said on stdout) when jax, libcst
    or numpy is missing, so that the script says "cannot run" before its table, not in it."""
    if simulate:
        os.environ["JAX_PLATFORMS"] = "cpu"
    try:
        import jax
        import libcst  # noqa: F401  (the codemod needs it)
        import numpy  # noqa: F401
    except ImportError as error:
        print(f"cannot run: {error} (carry the wheels: {wheels_readme})")
        return None
    return jax


def load_by_path(name: str, path: Path):
    """A module of this repository by file path (tests/jax_support.py, bench/inject.py): a package of
    the same name installed elsewhere cannot shadow it."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def load_jax_support():
    return load_by_path("jax_support", REPO / "tests" / "jax_support.py")


def rewrite(path: Path, jax_version, source: Optional[Union[str, bytes]] = None, unsafe_fixes: bool = False):
    """Every transform over `path` (or `source`, named `path`), targeting `jax_version`, in process
    (with `unsafe_fixes`, as `--write --unsafe-fixes`)."""
    from codemods.engine.runner import process_source
    from codemods.registry import RULES
    from codemods.settings import Settings

    data = path.read_bytes() if source is None else source.encode() if isinstance(source, str) else source
    result = process_source(path, data, RULES, Settings(jax_version=jax_version, unsafe_fixes=unsafe_fixes))
    if result.error is not None:
        raise RuntimeError(f"the codemod failed on {path.name}: {result.error}")
    if result.new_source is None:
        raise RuntimeError(f"the codemod found nothing to fix in {path.name}")
    return result


def max_abs_error(actual, expected, support) -> tuple[float, str]:
    """The largest absolute difference over (pytrees of) arrays, and the tolerance of each actual
    leaf's dtype (jax_support.assert_close's)."""
    import jax
    import numpy as np

    worst, tolerances = 0.0, set()
    for got, want in zip(jax.tree.leaves(actual), jax.tree.leaves(expected)):
        got_np = np.asarray(got)
        diff = np.abs(got_np.astype(np.float32) - np.asarray(want, np.float32))
        worst = max(worst, float(np.max(diff)) if diff.size else 0.0)
        tolerances.add(f"{support._tolerance(got_np.dtype):.1e} {got_np.dtype}")
    return worst, ", ".join(sorted(tolerances))


def version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def one_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return shorten(f"{type(error).__name__}: {text[0] if text else ''}")


def shorten(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def tail(text: str, lines: int) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])
