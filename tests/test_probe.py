"""The capability table must say what the installed jax's kernel lowerings actually do.

A new jax release that lowers more (or less) fails here instead of silently producing rewrites
that are too conservative or that crash the kernel.
"""

import json

import pytest

pytest.importorskip("jax")

from codemods import capabilities, probe  # noqa: E402

pytestmark = pytest.mark.jax


@pytest.fixture(scope="module")
def observations():
    """Lowering is the slow part and does not depend on the table, so do it once."""
    return probe.observe()


@pytest.fixture
def wrong_table(monkeypatch):
    """A table that forgets dot HIGHEST and believes the wrong accuracy rejections."""
    monkeypatch.setattr(capabilities, "PRECISIONS", {
        **capabilities.PRECISIONS,
        ("mosaic_tpu", "dot"): [(capabilities.ALL, capabilities.DEFAULT_ONLY)],
    })
    monkeypatch.setattr(capabilities, "ACCURACY_REJECTED", {
        **capabilities.ACCURACY_REJECTED,
        "mosaic_gpu": [(capabilities.ALL, frozenset({"atan2"}))],
    })


def test_capability_table_matches_installed_jax(observations):
    report = probe.compare(observations, probe.installed_jax_version())
    assert report.agree, probe.describe_disagreements(report)


def test_a_wrong_table_is_caught(observations, wrong_table):
    """Guards the guard: the comparison must be able to fail."""
    report = probe.compare(observations, probe.installed_jax_version())

    wrong = {(row.backend, row.op, row.case) for row in report.disagreements}
    assert ("mosaic_tpu", "dot", "precision=HIGHEST") in wrong
    assert ("mosaic_gpu", "rsqrt", "accuracy=HIGHEST") in wrong
    # lax.atan2 takes no accuracy=, so no release can observe the rejection the table claims.
    assert ("mosaic_gpu", "atan2", "accuracy=HIGHEST") in wrong
    message = probe.describe_disagreements(report)
    assert "mosaic_tpu dot precision=HIGHEST: observed accepted, believed rejected" in message
    assert "update codemods/capabilities.py" in message


def test_main_exit_status_and_output(observations, monkeypatch, capsys):
    monkeypatch.setattr(probe, "observe", lambda: observations)
    assert probe.main() == 0
    assert "All " in capsys.readouterr().out

    assert probe.main(json_output=True) == 0
    decoded = json.loads(capsys.readouterr().out)
    assert decoded["jax_version"] == probe.installed_jax_version()
    assert decoded["agree"] is True
    assert {row["backend"] for row in decoded["rows"]} == {"mosaic_tpu", "mosaic_gpu", "cudnn"}


def test_main_fails_on_a_wrong_table(observations, wrong_table, monkeypatch, capsys):
    monkeypatch.setattr(probe, "observe", lambda: observations)
    assert probe.main() == 1
    assert "MISMATCH" in capsys.readouterr().out
