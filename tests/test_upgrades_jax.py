"""The JAX1xx goldens against the installed jax: the rewritten code runs, the original does not.

Each `tests/fixtures/upgrades/<case>.in.py` is executed, and so is its `.out.py`, in a fresh
interpreter each, with jax's DeprecationWarnings turned into errors; a case may define `main()`,
which is then called (it exercises the code: a jitted function, a kernel lowered for TPU, ...).
- The `.out.py` imports and its `main()` runs without an error or a DeprecationWarning.
- The `.in.py` fails or warns, when one of the rows its findings name is deprecated or removed on
  the installed jax (the rows say which: codemods/api_changes.py, checked by the probe).
- When no such row is retired on the installed jax, the `.in.py` runs quietly (as the rows say).
- Where the `.in.py` runs (a deprecated spelling that still works, warnings allowed), its `main()`
  returns what the `.out.py`'s returns: the rewrite changes the spelling, not the result.
- The `.in.py` runs on a release where its old spellings worked (jax 0.4.30, or the release its
  `# proved on: jax X` line names; `make test` builds those environments), and its `main()` returns
  what the `.out.py`'s returns on the installed jax (0.12.0.1, and 0.10.2 in the oldest run). A golden
  whose spellings were all gone before 0.4.30 says so (`# proved on: none`), and the test checks that.
- A golden that declares a floor (`# jax-codemod: --jax-floor 0.3.0`): its `.out.py` runs quietly on
  that old release too, with the same result (a fix valid from the floor to the target).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from pathlib import Path

import pytest

import numpy as np

from codemods import registry
from codemods.api_changes import TABLE
from codemods.capabilities import parse_version
from codemods.engine.runner import process_source
from codemods.settings import Settings
from tests import jax_support, warm_python
from tests.test_upgrades import MANUAL_REMOVALS

pytestmark = pytest.mark.jax

UPGRADES = Path(__file__).parent / "fixtures" / "upgrades"
CASES = sorted(UPGRADES.glob("*.in.py"))
ROWS = {row.code: row for row in TABLE}

# Runs one file: its module body, then main() if it has one. Prints a JSON line: what happened.
RUNNER = r"""
import json, runpy, sys, warnings
import numpy as np
path, strict = sys.argv[1], sys.argv[2] == "strict"
outcome = {"error": None, "warnings": [], "result": None}
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    if strict:
        warnings.simplefilter("error", DeprecationWarning)
    try:
        namespace = runpy.run_path(path, run_name="golden")
        if "main" in namespace:
            value = namespace["main"]()
            leaves = [np.asarray(leaf).tolist() for leaf in __import__("jax").tree_util.tree_leaves(value)]
            outcome["result"] = leaves
    except BaseException as error:
        outcome["error"] = f"{type(error).__name__}: {error}"
outcome["warnings"] = [f"{w.category.__name__}: {w.message}" for w in caught
                       if issubclass(w.category, DeprecationWarning)]
print(json.dumps(outcome, default=repr))
"""


REPO = Path(__file__).resolve().parents[1]
# Where the old releases' environments are (`make test` builds them in the checkout); `make mutants`
# points here from its copy of the tests, mutants/.
PROOF_ROOT = Path(os.environ.get("JAX_CODEMOD_PROOF_ROOT", REPO))
PROVED_ON = "# proved on: "
OLDEST_PROOF = "0.4.30"  # the oldest jax with Python 3.11 wheels that the Makefile installs


def _run(path: Path, strict: bool, python: str = sys.executable) -> dict:
    process = warm_python.run(["-c", RUNNER, path, "strict" if strict else "lenient"], python=python,
                              env={**os.environ, "JAX_PLATFORMS": "cpu"}, timeout=300)
    assert process.returncode == 0, process.stderr[-2000:]
    return json.loads(process.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="session")
def run_rewrite(tmp_path_factory):
    """Runs a golden's `.out.py` on the installed jax, strictly, once per test run: both tests below
    need it. Kept in the run's shared temporary folder (the parent of each xdist worker's), so a
    worker reuses what another ran; keyed by the file's bytes, never reused by a later run."""
    shared = tmp_path_factory.getbasetemp()
    shared = shared.parent if os.environ.get("PYTEST_XDIST_WORKER") else shared

    def run(case: Path) -> dict:
        out = case.with_name(case.name.replace(".in.py", ".out.py"))
        kept = shared / f"upgrade-run-{hashlib.sha256(out.read_bytes()).hexdigest()[:24]}.json"
        if kept.exists():
            return json.loads(kept.read_text())
        outcome = _run(out, strict=True)
        partial = kept.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(json.dumps(outcome))
        os.replace(partial, kept)  # whole or absent, for a worker that reads it meanwhile
        return outcome
    return run


def _codes(case: Path) -> set[str]:
    findings = case.with_name(case.name.replace(".in.py", ".findings")).read_text()
    return set(re.findall(r": (JAX1\d{2,3}) \[", findings))


def test_there_are_upgrade_goldens() -> None:
    assert len(CASES) >= 5


@pytest.mark.parametrize("case", CASES, ids=lambda path: path.name[: -len(".in.py")])
def test_the_rewritten_golden_runs_and_the_original_does_not(case: Path, run_rewrite) -> None:
    installed = jax_support.JAX_VERSION
    out = run_rewrite(case)
    assert out["error"] is None and not out["warnings"], out
    retired = {code for code in _codes(case) if ROWS[code].state(installed) != "works"}
    original = _run(case, strict=False)
    if not retired:  # every old spelling here still works quietly on this release, as the rows say
        assert original["error"] is None and not original["warnings"], original
    else:
        assert original["error"] is not None or original["warnings"], original
    if original["error"] is None and out["result"] is not None:
        assert original["result"] == out["result"]


def _proof_release(case: Path) -> str:
    """`0.4.30`, the release a `# proved on: jax X` line names, or `none: <why>`."""
    line = next((line for line in case.read_text().splitlines() if line.startswith(PROVED_ON)), None)
    if line is None:
        return OLDEST_PROOF
    value = line[len(PROVED_ON):]
    return value if value.startswith("none") else value.removeprefix("jax ")


def _same(left, right) -> bool:
    """The same results, up to float rounding between releases."""
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(_same(a, b) for a, b in zip(left, right))
    if isinstance(left, str) or isinstance(right, str):  # a dtype's name, a platform
        return left == right
    return bool(np.allclose(np.asarray(left, dtype=float), np.asarray(right, dtype=float), rtol=1e-5, atol=1e-6))


@pytest.mark.parametrize("case", CASES, ids=lambda path: path.name[: -len(".in.py")])
def test_the_original_ran_where_its_spellings_worked_and_the_rewrite_gives_its_result(case: Path, run_rewrite) -> None:
    release = _proof_release(case)
    codes = _codes(case)
    if release.startswith("none"):
        gone = {code for code in codes if ROWS[code].state(parse_version(OLDEST_PROOF)) != "fails"}
        assert not gone, f"{sorted(gone)} still worked on jax {OLDEST_PROOF}: prove them there"
        return
    python = PROOF_ROOT / f".venv-jax{release}" / "bin" / "python"
    assert python.exists(), f"{python} is missing: `make test` builds it (PROOF_RELEASES in the Makefile)"
    failing = {code for code in codes if ROWS[code].state(parse_version(release)) == "fails"}
    assert not failing, f"{sorted(failing)} no longer worked on jax {release}, as the table says"
    original = _run(case, strict=False, python=str(python))
    assert original["error"] is None, original
    out = run_rewrite(case)
    assert out["error"] is None and not out["warnings"], out
    assert original["result"] is not None and _same(original["result"], out["result"]), (original, out)


FLOOR_CASES = [case for case in CASES if "--jax-floor" in case.read_text().split("\n", 1)[0]]


@pytest.mark.parametrize("case", FLOOR_CASES, ids=lambda path: path.name[: -len(".in.py")])
def test_a_rewrite_for_a_floor_runs_on_the_oldest_release_too(case: Path, run_rewrite) -> None:
    """A golden that declares the lowest jax its project supports (`--jax-floor`): its `.out.py` runs
    quietly on the old release it is proved on, and on 0.4.30, as on the installed one, with the same
    result: each fix wrote a spelling both ends run."""
    for release in dict.fromkeys([_proof_release(case), OLDEST_PROOF]):
        python = PROOF_ROOT / f".venv-jax{release}" / "bin" / "python"
        assert python.exists(), f"{python} is missing: `make test` builds it (PROOF_RELEASES in the Makefile)"
        old = _run(case.with_name(case.name.replace(".in.py", ".out.py")), strict=True, python=str(python))
        assert old["error"] is None and not old["warnings"], (release, old)
        assert _same(old["result"], run_rewrite(case)["result"]), (release, old, run_rewrite(case))


def test_there_is_a_floor_golden() -> None:
    assert FLOOR_CASES


@pytest.mark.parametrize("source, code", [(source, code) for source, code, _ in MANUAL_REMOVALS],
                         ids=[code for _, code, _ in MANUAL_REMOVALS])
def test_a_removed_module_or_member_does_on_the_installed_jax_what_its_finding_says(source: str, code: str,
                                                                                  tmp_path: Path) -> None:
    """Each member of an emptied module and each removed module (dm-haiku 0.0.12 stops at
    jax.interpreters.xla.xe): run on the installed jax (in a process of its own: what it imports
    stays out of this one), it raises the error its finding names for that release, or warns where
    the finding says deprecated."""
    result = process_source(Path("m.py"), source.encode(), registry.select([code]), Settings(jax_support.JAX_VERSION))
    (finding,) = result.findings
    script = tmp_path / "m.py"
    script.write_text(source)
    ran = _run(script, strict=False)
    if "deprecated since jax" in finding.message:
        assert ran["error"] is None and ran["warnings"], (ran, finding.message)
    else:
        raised = (ran["error"] or "").split(":")[0]
        assert f"(raises {raised} on jax " in finding.message, (ran, finding.message)
