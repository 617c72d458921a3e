"""The API-change table (codemods/api_changes.py) must say what the installed jax does.

One test per row: every old spelling is reached (or run) with the installed jax and must do what
`row.state(installed)` says, failing as `row.failure` says; every replacement must resolve from
`row.since` on. The pure tests pin when a row applies, without jax.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from codemods import api_changes, capabilities
from codemods.api_changes import ApiChange, Change
from codemods.capabilities import Version

ROWS = {row.code: row for row in api_changes.TABLE}
LATER: Version = (99,)  # any release after every row's


def _just_below(version: Version) -> Version:
    """A release before `version` and after every release before it: (0, 8, 0) -> (0, 7, 999)."""
    last = max(i for i, part in enumerate(version) if part > 0)
    return (*version[:last], version[last] - 1, 999)


def _row(**fields) -> ApiChange:
    base = dict(code="JAX999", name="test-row", old=("jax.old",), new="jax.new", change=Change.RENAME,
                since=(0, 5, 0), deprecated=(0, 6, 0), removed=(0, 7, 0), source="test")
    return ApiChange(**{**base, **fields})


# --- when a row applies: no jax needed ----------------------------------------------------------

@pytest.mark.parametrize("code", ROWS)
def test_state_changes_at_deprecated_and_removed(code):
    row = ROWS[code]
    if row.deprecated is not None:
        assert row.state(_just_below(row.deprecated)) == "works"
        assert row.state(row.deprecated) == ("fails" if row.removed and row.removed <= row.deprecated else "warns")
    if row.removed is not None:
        assert row.state(row.removed) == "fails"
        assert row.state(LATER) == "fails"
        before = row.state(_just_below(row.removed))
        assert before == ("warns" if row.deprecated and row.deprecated < row.removed else "works")
    else:
        assert row.state(LATER) == ("warns" if row.deprecated else "works")


@pytest.mark.parametrize("code", ROWS)
def test_applies_from_the_later_of_retirement_and_replacement(code):
    """From max(deprecated-or-removed, since) on, never below since, never when the floor predates since."""
    row = ROWS[code]
    oldest = min([row.since, *(since for _, since in row.also)])  # the oldest spelling of the replacement
    start = max(min(v for v in (row.deprecated, row.removed) if v is not None), oldest)
    assert not row.applies(_just_below(start))
    assert not row.applies(_just_below(oldest))
    assert row.applies(start) and row.applies(LATER)
    assert row.applies(LATER, floor=row.since) and row.applies(LATER, floor=LATER)
    assert not row.applies(LATER, floor=_just_below(oldest))
    assert not row.applies(None)


def test_a_replacement_newer_than_the_retirement_waits_for_its_release():
    """jnp.trapz was gone in 0.4.24, jnp.trapezoid only came in 0.4.26: no fix between."""
    trapz = ROWS["JAX143"]
    assert trapz.since == (0, 4, 26) and trapz.removed == (0, 4, 24)
    assert trapz.state((0, 4, 24)) == "fails"
    assert not trapz.applies((0, 4, 24)) and not trapz.applies((0, 4, 25))
    assert trapz.applies((0, 4, 26))


def test_a_row_never_retired_never_applies():
    row = _row(deprecated=None, removed=None)
    assert row.state(LATER) == "works"
    assert not row.applies(LATER)


def test_a_floor_below_the_replacement_takes_its_older_spelling():
    """jax.tree.map came in 0.4.25; jax.tree_util.tree_map runs from 0.3.0 to the newest jax."""
    tree_map = ROWS["JAX101"]
    assert tree_map.spellings((0, 4, 25)) == ("jax.tree.map", "jax.tree_util.tree_map")
    assert tree_map.spellings((0, 3, 0)) == ("jax.tree_util.tree_map",) and tree_map.applies(LATER, (0, 3, 0))
    assert tree_map.spellings((0, 2, 0)) == () and not tree_map.applies(LATER, (0, 2, 0))


def test_a_row_that_moves_members_replaces_each_by_its_own_name():
    core = ROWS["JAX122"]
    assert core.replacement_of("jax.core.Primitive") == "jax.extend.core.Primitive"
    assert core.replacement_of("jax.core.Jaxpr", "jax.other") == "jax.other.Jaxpr"
    assert ROWS["JAX101"].replacement_of("jax.tree_map") == "jax.tree.map"  # one replacement for every old name


def test_the_floor_keeps_a_newer_replacement_out():
    """JAX111: jax.enable_x64 exists from 0.8.0; a project that supports 0.4.30 cannot use it."""
    x64 = ROWS["JAX111"]
    assert x64.applies((0, 12, 0, 1), floor=(0, 8, 0))
    assert not x64.applies((0, 12, 0, 1), floor=(0, 4, 30))
    assert not x64.applies((0, 12, 0, 1), floor=(0, 7, 999))


# Every release a row names: where what a row decides can change.
RELEASES = sorted({v for row in api_changes.TABLE for v in (row.since, row.deprecated, row.removed, row.superseded)
                   if v is not None} | {(0, 12, 0, 1)})


@pytest.mark.parametrize("code", ROWS)
def test_no_fix_lands_on_a_spelling_its_target_retires(code):
    """What a row's fix writes (its replacement, and that read with a member another row retires:
    `pltpu.MemorySpace` + `.ANY`), followed through every later row, exists on every target and
    floor the row fixes for; or the fix is held back by the floor (`later.since` above it)."""
    row = ROWS[code]
    if row.new is None or not row.new.startswith("jax."):
        return
    for target in RELEASES:
        for floor in (None, *RELEASES):
            if floor is not None and floor > target or not row.applies(target, floor) \
                    or row.superseded is not None and target >= row.superseded:
                continue
            for retired in row.old:
                # what the fix writes (an older spelling under a floor; a moved member's own name)
                new = row.replacement_of(retired, (row.spellings(floor, target) or (row.new,))[0])
                assert new is not None
                assert not [r for r in api_changes.retiring(new, LATER) if r is not row], new  # none retires it ever
                written = [[]] + [old[len(new) + 1:].split(".") for other in api_changes.TABLE if other is not row
                                  for old in other.old if old.startswith(new + ".")]
                for members in written:
                    spelling, took = api_changes.landing(new, members, target, floor)
                    lands = ".".join([spelling, *members[took:]])
                    later = [r for r in api_changes.retiring(lands, target) if r is not row]
                    assert all(floor is not None and floor < r.since for r in later), (target, floor, lands, later)


def test_a_rename_lands_where_the_target_has_the_name():
    """pltpu.TPUMemorySpace -> pltpu.MemorySpace; its member ANY left the enum in 0.8.2 for pl.ANY."""
    memory_space = "jax.experimental.pallas.tpu.MemorySpace"
    assert api_changes.landing(memory_space, ["ANY"], (0, 8, 1)) == (memory_space, 0)
    assert api_changes.landing(memory_space, ["ANY"], (0, 8, 2)) == ("jax.experimental.pallas.ANY", 1)
    assert api_changes.landing(memory_space, ["HOST", "value"], (0, 12, 0, 1)) == ("jax.experimental.pallas.HOST", 1)
    assert api_changes.landing(memory_space, ["VMEM"], (0, 12, 0, 1)) == (memory_space, 0)
    # pl.HOST came in 0.7.0: a project that supports 0.6.2 keeps the spelling (and the fix is held back)
    assert api_changes.landing(memory_space, ["HOST"], (0, 12, 0, 1), floor=(0, 6, 2)) == (memory_space, 0)


# --- the table against the installed jax ------------------------------------------------------

@pytest.fixture(scope="module")
def probe_modules():
    pytest.importorskip("jax")
    from codemods import probe, probe_api

    return probe, probe_api


@pytest.fixture(scope="module")
def observations(probe_modules):
    """Reaching the names is cheap but imports half of jax: once for every row."""
    return probe_modules[1].observe()


@pytest.fixture(scope="module")
def installed(probe_modules):
    return probe_modules[0].installed_jax_version()


@pytest.mark.jax
@pytest.mark.parametrize("code", ROWS)
def test_row_matches_installed_jax(code, observations, installed, probe_modules):
    probe_api = probe_modules[1]
    mine = [o for o in observations if o.check.code == code]
    report = probe_api.compare(mine, installed)
    assert report.agree, probe_api.describe_disagreements(report)
    unseen = [row for o, row in zip(mine, report.rows)
              if not o.check.replacement and row.observed == probe_api.NOT_PROBED]
    if unseen:  # agreement is claimed only for what was observed
        pytest.skip("; ".join(probe_api.describe_not_probed(report)))


def _swapped(table, code, **fields):
    return tuple(dataclasses.replace(row, **fields) if row.code == code else row for row in table)


@pytest.mark.jax
def test_a_wrong_row_is_caught(observations, installed, probe_modules):
    """Guards the guard: a wrong release, a wrong failure and a missing replacement all disagree."""
    probe_api = probe_modules[1]
    table = _swapped(api_changes.TABLE, "JAX101", deprecated=None, removed=None)  # jax.tree_map "works"
    table = _swapped(table, "JAX112", failure="AttributeError")  # it is a ModuleNotFoundError
    table = _swapped(table, "JAX140", removed=LATER)  # jnp.clip(a_min=) "still warns"
    table = _swapped(table, "JAX151", new="jax.experimental.pallas.tpu.NoSuchParams")
    rows = [row for row in table if row.code in ("JAX101", "JAX112", "JAX140", "JAX151")]
    report = probe_api.compare(probe_api.observe(rows), installed, table)

    wrong = {(row.code, row.case) for row in report.disagreements}
    assert wrong == {("JAX101", "jax.tree_map"), ("JAX112", "jax.lib.xla_bridge.get_backend"),
                     ("JAX140", "jnp.clip(x, a_min=0.0)"),
                     ("JAX151", "jax.experimental.pallas.tpu.NoSuchParams (replacement)")}
    message = probe_api.describe_disagreements(report)
    assert "JAX101 jax.tree_map: observed fails, believed works" in message
    assert "the table says it fails with AttributeError" in message
    assert "update codemods/api_changes.py" in message


@pytest.mark.jax
def test_a_row_nothing_observes_is_not_probed(installed, probe_modules):
    """A pseudo name with no call check claims nothing: it is listed, never counted as agreeing."""
    probe_api = probe_modules[1]
    row = _row(old=("with something",), new=None, change=Change.MANUAL)
    report = probe_api.compare(probe_api.observe([row]), installed, [row])
    assert [(r.case, r.observed) for r in report.rows] == [("with something", probe_api.NOT_PROBED)]
    assert report.not_probed and "no check observes with something" in report.not_probed[0].detail
    assert "(1 of them not probed)" in probe_api.describe_disagreements(report)


@pytest.mark.jax
def test_a_deprecated_name_warns_however_often_it_was_reached(installed, probe_modules):
    """jax warns once per process for a deprecated name (its module __getattr__ is cached): the
    probe must still see the warning after user code, or an earlier probe, reached the name."""
    import warnings

    probe_api = probe_modules[1]
    pjit = ROWS["JAX130"]
    assert pjit.state(capabilities.parse_version(installed)) == "warns"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from jax.experimental.pjit import pjit as reached  # noqa: F401
    for _ in range(2):
        seen = probe_api.observe([pjit])[0]
        assert (seen.check.case, seen.outcome) == ("jax.experimental.pjit.pjit", probe_api.WARNS)


@pytest.mark.jax
def test_a_module_imported_before_the_probe_is_not_probed(installed, probe_modules):
    """Its import-time warning is gone for this process: nothing is claimed about it."""
    import jax.numpy  # noqa: F401

    probe_api = probe_modules[1]
    row = _row(old=("jax.numpy",), modules=("jax.numpy",), new=None)
    report = probe_api.compare(probe_api.observe([row]), installed, [row])
    assert [(r.case, r.observed) for r in report.rows] == [("import jax.numpy", probe_api.NOT_PROBED)]
    assert "imported before the probe" in report.rows[0].detail


@pytest.mark.jax
def test_probe_command_reports_the_api_table(observations, probe_modules, monkeypatch, capsys):
    probe, probe_api = probe_modules
    monkeypatch.setattr(probe, "observe", lambda: [])  # the capability half: tests/test_probe.py
    monkeypatch.setattr(probe_api, "observe", lambda: observations)
    assert probe.main() == 0
    text = capsys.readouterr().out
    assert "observed API vs codemods/api_changes.py" in text
    assert f"All {len(observations)} API rows agree." in text

    assert probe.main(json_output=True) == 0
    decoded = json.loads(capsys.readouterr().out)
    assert decoded["agree"] is True and decoded["api"]["agree"] is True
    assert {row["code"] for row in decoded["api"]["rows"]} == set(ROWS)

    monkeypatch.setattr(api_changes, "TABLE", _swapped(api_changes.TABLE, "JAX101", removed=LATER))
    assert probe.main(json_output=True) == 1
    decoded = json.loads(capsys.readouterr().out)
    assert decoded["agree"] is False and decoded["api"]["agree"] is False
