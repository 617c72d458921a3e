"""`jax-codemod probe` runs its rows in child processes (codemods/probe_isolated.py): a row whose attempt
kills its process, as libtpu's compiler does on a TPU ("Signedness cannot be inferred", SIGABRT), is
observed "aborted" and the rows after it still run; the parent starts no jax backend meanwhile (only one
process may hold a TPU). The lists of rows are tests/probe_fakes.py's."""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from codemods import probe, probe_isolated

TESTS = Path(__file__).resolve().parent


@pytest.fixture
def tried(monkeypatch, tmp_path):
    """Returns what the rows' attempts have logged. A child takes its parent's sys.path, which finds
    tests/probe_fakes.py under pytest; PYTHONPATH is for the fresh parent of the backend test."""
    log = tmp_path / "tried.txt"
    monkeypatch.setenv("PROBE_FAKES_LOG", str(log))
    monkeypatch.setenv("PROBE_FAKES_PARENT", str(os.getpid()))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(TESTS), *filter(None, [os.environ.get("PYTHONPATH")])]))
    return lambda: log.read_text().split() if log.exists() else []


def _seen(observations):
    return [(o.probe.case, o.outcome, o.detail) for o in observations]


def test_a_row_that_kills_its_process_is_aborted_and_the_rows_after_it_run(tried):
    assert _seen(probe.observe("probe_fakes:rows")) == [
        ("first", probe.ACCEPTED, ""),
        ("aborts", probe.ABORTED, "Signedness cannot be inferred (SIGABRT)"),
        ("raises", probe.REJECTED, "ValueError: Unsupported dot precision: HIGH"),
        ("exits", probe.ABORTED, "exit status 3"),
        ("last", probe.ACCEPTED, ""),
    ]
    assert tried() == ["first", "aborts", "raises", "exits", "last"]  # each once, none in the parent


def test_why_a_child_died():
    assert probe_isolated.why_it_died(-6, "") == "SIGABRT"
    assert probe_isolated.why_it_died(-40, "") == "signal 40"  # a real-time signal Python does not name
    assert probe_isolated.why_it_died(-11, "warming up\n  Segmentation fault here  \n\n") == (
        "Segmentation fault here (SIGSEGV)")
    assert probe_isolated.why_it_died(1, "F1207 1] first\nF1207 07:40:57.1  42 x.cc:1] second\n*** trace\n") == (
        "second (exit status 1)")
    assert probe_isolated.why_it_died(-6, "x" * 300) == f"{'x' * 160} (SIGABRT)"


def test_a_child_that_dies_before_any_row_stops_the_probe_with_its_reason(tried, monkeypatch, capsys):
    with pytest.raises(probe_isolated.ProbeProcessDied, match=r"ended before row 0 \(fake op first\) began: SIGABRT"):
        probe.observe("probe_fakes:dies_before_a_row")
    assert tried() == []

    monkeypatch.setattr(probe, "observe", functools.partial(probe.observe, "probe_fakes:dies_before_a_row"))
    assert probe.main() == 2
    assert "jax-codemod probe: the probe's process ended before row 0" in capsys.readouterr().err


def test_a_child_that_lists_the_rows_in_another_order_is_not_believed(tried):
    with pytest.raises(probe_isolated.ProbeProcessDied, match="began 'fake op last', expected 'fake op first'"):
        probe.observe("probe_fakes:in_another_order")


def test_the_outcome_shows_in_the_table_and_its_json(tried, monkeypatch, capsys):
    pytest.importorskip("jax")  # the API table's half of main()
    monkeypatch.setattr(probe, "observe", functools.partial(probe.observe, "probe_fakes:rows"))
    assert probe.main(json_output=True) == 0
    rows = {row["case"]: row for row in json.loads(capsys.readouterr().out)["rows"]}
    assert (rows["aborts"]["observed"], rows["aborts"]["believed"], rows["aborts"]["agree"]) == (
        probe.ABORTED, probe.ABORTED, True)
    assert rows["aborts"]["detail"] == "Signedness cannot be inferred (SIGABRT)"

    assert probe.main() == 0
    assert re.search(r"^fake +op +aborts +aborted +aborted +ok$", capsys.readouterr().out, re.MULTILINE)


@pytest.mark.jax
def test_the_parent_starts_no_backend_until_the_children_are_done(tried):
    """In a fresh process: the real list is built there, its rows lowered in children; the parent has
    started no jax backend and asked on_a_tpu() nothing when observe() returns."""
    pytest.importorskip("jax")
    script = ("import json; from jax._src import xla_bridge; from codemods import probe\n"
              "seen = probe.observe('probe_fakes:real_then_aborts')\n"
              "print(json.dumps({'started': xla_bridge.backends_are_initialized(),"
              " 'asked': probe.on_a_tpu.cache_info().misses, 'outcomes': [o.outcome for o in seen]}))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    said = json.loads(done.stdout.splitlines()[-1])
    assert (said["started"], said["asked"]) == (False, 0)
    # dot DEFAULT lowers on every release, HIGH from 0.11.1 (rejected before): both lowered, in a child.
    assert said["outcomes"][0] == probe.ACCEPTED and said["outcomes"][1] in (probe.ACCEPTED, probe.REJECTED)
    assert said["outcomes"][2] == probe.ABORTED
