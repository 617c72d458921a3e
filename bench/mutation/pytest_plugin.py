"""A pytest plugin that `make mutants` loads (pyproject.toml, [tool.mutmut] pytest_add_cli_args).

mutmut runs a mutant against the tests that called its function during its stats pass, and it
sees only the calls made in the pytest process. Many tests run the tool in a subprocess with
PYTHONPATH set to the checkout, which under mutmut is mutants/: such a child imports the mutated
package and runs the mutant named by the MUTANT_UNDER_TEST it inherits, so it can kill mutants,
but mutmut would never pick the test (explain and `--diff-base`/`--shard` are reached that way
only). sitecustomize.py, copied to mutants/ here, records what such children call during the
stats pass; this plugin adds it to the hits of the test that ran, before mutmut reads them.

mutants/ also goes first on PYTHONPATH, for the children of tests that do not set it (they would
import the installed package, the working tree, not its copy) and for `python mutants/cli.py`
(the script's folder reaches the mutated package, but Python reads sitecustomize before it
adds that folder: without it the child's trampolines crash in mutmut's config loader).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
MUTANTS = HERE.parents[1]  # mutants/bench/mutation/pytest_plugin.py
CHILD_STATS = MUTANTS / ".mutmut-child-stats"


def _in_stats_pass() -> bool:
    from mutmut.mutation.trampoline import get_mutant_under_test

    return get_mutant_under_test() == "stats"


def pytest_configure(config: pytest.Config) -> None:
    if MUTANTS.name != "mutants" or not (MUTANTS / "codemods").is_dir():
        return  # not under mutmut
    if "__mutmut_" in os.environ.get("MUTANT_UNDER_TEST", ""):
        bridge = sys.modules.get("jax._src.xla_bridge")
        if bridge is not None and getattr(bridge, "_backends", None):
            # Forked after jax started its threads: the first computation would hang until the
            # timeout, which mutmut counts as a kill. 35 is mutmut's "suspicious".
            sys.stderr.write("jax was started before this mutant's process was forked "
                             "(a test module computes at import?): see [tool.mutmut] in pyproject.toml\n")
            os._exit(35)
    shutil.copyfile(HERE / "sitecustomize.py", MUTANTS / "sitecustomize.py")
    path = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    if path[0] != str(MUTANTS):
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(MUTANTS), *path]))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    if not CHILD_STATS.is_dir() or not _in_stats_pass():
        return
    from mutmut.state import state

    for record in CHILD_STATS.glob("*.txt"):
        state()._stats.update(record.read_text(encoding="utf-8").split())
        record.unlink()


def _only_these_tests(config: pytest.Config, items: list[pytest.Item]) -> None:
    """MUTANTS_TESTS (`make mutants MUTANTS_TESTS='tests/test_a.py tests/test_b.py::test_c'`): the
    stats pass and mutmut's listing of the tests see only the tests whose id starts with one of
    these words, so a run over one module costs the tests that can reach it, not the whole suite
    (20 minutes). mutmut then knows no other test: a mutant only those can kill counts as
    surviving, so the score is a lower bound of the whole suite's. A later run without it finds
    the other tests new and runs the stats pass for them alone."""
    wanted = os.environ.get("MUTANTS_TESTS", "").split()
    if not wanted or MUTANTS.name != "mutants":
        return
    from mutmut.mutation.trampoline import get_mutant_under_test

    if get_mutant_under_test() not in ("stats", "list_all_tests"):
        return
    kept = [item for item in items if item.nodeid.startswith(tuple(wanted))]
    if len(kept) < len(items):
        left = [item for item in items if not item.nodeid.startswith(tuple(wanted))]
        config.hook.pytest_deselected(items=left)
        items[:] = kept


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under a mutant, run its fastest tests first, as mutmut's fork runner does and its fork
    server (`process_isolation = "forkserver"`) does not: it passes the tests in a set's order,
    so a mutant that a 0.01 s test kills could first spend a minute lowering kernels with jax.
    With `-x` the first failure ends the run; a surviving mutant still runs every test."""
    _only_these_tests(config, items)
    if "__mutmut_" not in os.environ.get("MUTANT_UNDER_TEST", ""):
        return
    from mutmut.state import state

    durations = state().duration_by_test
    items.sort(key=lambda item: durations.get(item.nodeid, float("inf")))
