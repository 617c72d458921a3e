"""`make mutants` runs the tests from mutants/, a copy of the package and the tests plus what
`[tool.mutmut] also_copy` names (pyproject.toml). A file under bench/ a test reads and the copy
lacks fails the test there, or its module's collection, and mutmut stops at its stats pass ("failed
to collect stats"): bench/inject.py on 2026-12-03, bench/chip/ (tests/test_x64_explain_direct.py's
traceback) and bench/inject_dynamic_index.py on 2026-12-06."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_every_bench_file_a_test_reads_is_copied_to_mutants() -> None:
    also_copy = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["mutmut"]["also_copy"]
    read = {f"bench/{name}" for path in (REPO / "tests").rglob("*.py")
            for name in re.findall(r'"bench"\s*/\s*"([\w.-]+)"', path.read_text())}
    assert read, "no test reads a bench/ file: the pattern above no longer finds them"
    missing = sorted(name for name in read
                     if not any(name == entry.rstrip("/") or name.startswith(entry) for entry in also_copy))
    assert missing == []
