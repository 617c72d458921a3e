"""codemods/probe.py and codemods/probe_api.py directly: what `jax-codemod probe` prints for a
report, how an attempt's ending is classified, what each table row is believed to be, and what
the checks of the API table try (issue 35, item 3: the survivors of their mutation sample).

The reports here are made by hand, so most of this file needs no jax; the tests that lower or
import jax are marked `jax`, as tests/test_probe.py's are.
"""

from __future__ import annotations

import json

import pytest

from codemods import api_changes, capabilities, probe, probe_api
from codemods.capabilities import Level

R = probe.Row
A = probe_api.Row

LOWERING = probe.Report("0.12.0", (
    R("mosaic_tpu", "dot", "precision=HIGHEST", "accepted", "accepted", True, ""),
    R("triton", "dot", "precision=HIGH", "rejected", "accepted", False, "ValueError: no"),
    R("mosaic_gpu", "exp", "accuracy=HIGHEST", "unsupported", "rejected", False, ""),
    R("triton", "conv", "precision=HIGHEST", "not probed", "unsupported", True, "No GPU"),
    R("triton", "dot", "precision=DEFAULT", "not probed", "accepted", True, "second reason"),
))
API = probe_api.Report("0.12.0", (
    A("JAX101", "jax.tree_map", "fails", "fails", True, "AttributeError: gone"),
    A("JAX140", "jnp.clip(x, a_min=0.0)", "warns", "works", False, "DeprecationWarning: a_min"),
    A("JAX120", "x.device_buffer", "not probed", "fails", True, "imported before"),
))


# --- what the probe prints --------------------------------------------------------------------

def test_the_lowering_table_as_text():
    assert probe.render_text(LOWERING) == (
        "jax 0.12.0: observed lowering vs codemods/capabilities.py\n"
        "\n"
        "backend     op    case               observed     believed\n"
        "mosaic_tpu  dot   precision=HIGHEST  accepted     accepted     ok\n"
        "triton      dot   precision=HIGH     rejected     accepted     MISMATCH\n"
        "mosaic_gpu  exp   accuracy=HIGHEST   unsupported  rejected     MISMATCH\n"
        "triton      conv  precision=HIGHEST  not probed   unsupported  unchecked\n"
        "triton      dot   precision=DEFAULT  not probed   accepted     unchecked\n"
        "\n"
        "MISMATCH: 2 of 5 rows disagree; update codemods/capabilities.py for jax 0.12.0:\n"
        "  triton dot precision=HIGH: observed rejected, believed accepted (ValueError: no)\n"
        "  mosaic_gpu exp accuracy=HIGHEST: observed unsupported, believed rejected\n"
        "triton: not probed on this machine: No GPU, needs a GPU"
    )


def test_the_api_table_as_text():
    assert probe_api.render_text(API) == (
        "jax 0.12.0: observed API vs codemods/api_changes.py\n"
        "\n"
        "code    case                    observed    believed\n"
        "JAX101  jax.tree_map            fails       fails     ok\n"
        "JAX140  jnp.clip(x, a_min=0.0)  warns       works     MISMATCH\n"
        "JAX120  x.device_buffer         not probed  fails     unchecked\n"
        "\n"
        "MISMATCH: 1 of 3 API rows disagree; update codemods/api_changes.py for jax 0.12.0:\n"
        "  JAX140 jnp.clip(x, a_min=0.0): observed warns, believed works (DeprecationWarning: a_min)\n"
        "JAX120 x.device_buffer: not probed: imported before"
    )


def test_agreement_is_said_with_what_was_not_probed():
    agreeing = probe.Report("0.12.0", tuple(row for row in LOWERING.rows if row.agree))
    assert probe.describe_disagreements(agreeing) == "All 3 rows agree (2 of them not probed)."
    seen = probe.Report("0.12.0", agreeing.rows[:1])
    assert probe.describe_disagreements(seen) == "All 1 rows agree."
    api = probe_api.Report("0.12.0", tuple(row for row in API.rows if row.agree))
    assert probe_api.describe_disagreements(api) == "All 2 API rows agree (1 of them not probed)."
    assert probe_api.describe_disagreements(probe_api.Report("0.12.0", api.rows[:1])) == (
        "All 1 API rows agree.")


def test_the_first_reason_a_backend_was_not_probed_is_the_one_said():
    assert LOWERING.not_probed == {"triton": "No GPU"}
    assert probe.describe_not_probed(LOWERING) == ["triton: not probed on this machine: No GPU, needs a GPU"]
    assert API.not_probed == (API.rows[2],)
    assert LOWERING.disagreements == LOWERING.rows[1:3]
    assert not LOWERING.agree and not API.agree


def test_both_tables_as_json():
    decoded = json.loads(probe.report_to_json(LOWERING, API))
    assert decoded["jax_version"] == "0.12.0"
    assert decoded["agree"] is False
    assert decoded["not_probed"] == ["triton: not probed on this machine: No GPU, needs a GPU"]
    assert decoded["rows"][1] == {"backend": "triton", "op": "dot", "case": "precision=HIGH",
                                  "observed": "rejected", "believed": "accepted", "agree": False,
                                  "detail": "ValueError: no"}
    assert len(decoded["rows"]) == 5
    assert decoded["api"] == {
        "agree": False,
        "not_probed": ["JAX120 x.device_buffer: not probed: imported before"],
        "rows": [{"code": "JAX101", "case": "jax.tree_map", "observed": "fails", "believed": "fails",
                  "agree": True, "detail": "AttributeError: gone"},
                 {"code": "JAX140", "case": "jnp.clip(x, a_min=0.0)", "observed": "warns",
                  "believed": "works", "agree": False, "detail": "DeprecationWarning: a_min"},
                 {"code": "JAX120", "case": "x.device_buffer", "observed": "not probed",
                  "believed": "fails", "agree": True, "detail": "imported before"}],
    }
    assert probe.report_to_json(LOWERING, API).startswith('{\n  "jax_version": "0.12.0",\n')
    agreeing = probe.Report("0.12.0", LOWERING.rows[:1])
    api_agreeing = probe_api.Report("0.12.0", API.rows[:1])
    assert json.loads(probe.report_to_json(agreeing, api_agreeing))["agree"] is True
    assert json.loads(probe.report_to_json(agreeing, API))["agree"] is False
    assert json.loads(probe.report_to_json(LOWERING, api_agreeing))["agree"] is False


# --- what the probe tries ---------------------------------------------------------------------

def test_the_precision_probes_and_their_cases():
    seen = [(p.backend, p.op, p.case) for p in probe._precision_probes()]
    assert seen == [
        ("mosaic_tpu", "dot", "precision=DEFAULT"), ("mosaic_tpu", "dot", "precision=HIGH"),
        ("mosaic_tpu", "dot", "precision=HIGHEST"), ("mosaic_tpu", "dot", "precision=(DEFAULT, HIGHEST)"),
        ("mosaic_tpu", "conv", "precision=DEFAULT"), ("mosaic_tpu", "conv", "precision=HIGH"),
        ("mosaic_tpu", "conv", "precision=HIGHEST"), ("mosaic_tpu", "conv", "precision=(DEFAULT, HIGHEST)"),
        ("triton", "conv", "precision=HIGHEST"),
        ("mosaic_gpu", "dot", "precision=HIGHEST"), ("mosaic_gpu", "dot", "precision=(DEFAULT, HIGHEST)"),
        ("mosaic_gpu", "conv", "precision=HIGHEST"), ("mosaic_gpu", "conv", "precision=(DEFAULT, HIGHEST)"),
    ]
    for p in probe._precision_probes():
        assert (p.rejection, p.other_failure) == (probe.PRECISION_REJECTION, probe.UNSUPPORTED)


def test_the_accuracy_probes():
    probes = probe._accuracy_probes()
    assert [(p.backend, p.op) for p in probes] == [
        (backend, name) for backend in ("mosaic_tpu", "mosaic_gpu", "triton") for name in probe.ACCURACY_FUNCTIONS]
    assert {(p.case, p.rejection, p.other_failure) for p in probes} == {
        ("accuracy=HIGHEST", probe.ACCURACY_REJECTION, probe.UNSUPPORTED)}

def test_a_triton_module_without_exactly_one_dot_is_an_error():
    with pytest.raises(RuntimeError, match=r"^expected one tt\.dot in the Triton module, found 0$"):
        probe._dot_input_precision("module {\n}\n")
    two = "  %1 = tt.dot %a, %b\n  %2 = tt.dot %c, %d\n"
    with pytest.raises(RuntimeError, match="found 2$"):
        probe._dot_input_precision(two)
    assert probe._dot_input_precision("  %1 = tt.dot %a, %b, inputPrecision = tf32 : x\n") == "tf32"
    assert probe._dot_input_precision("  %1 = tt.dot %a, %b : x\n") == probe.IEEE


def _check(attempt, replacement=False):
    return probe_api.Check("JAX999", "the case", attempt, replacement)


def test_a_changed_meaning_fails_with_its_own_words():
    def changed():
        raise probe_api._Changed("make_mesh makes Explicit axes")

    seen = probe_api._run(_check(changed))
    assert (seen.outcome, seen.detail, seen.errors) == (probe_api.FAILS, "make_mesh makes Explicit axes", ())


def _probe(attempt, rejection=probe.PRECISION_REJECTION, other=probe.UNSUPPORTED):
    return probe.Probe("triton", "dot", "precision=HIGH", attempt, rejection, other, lambda version: probe.ACCEPTED)


def _raise(error):
    def attempt():
        raise error

    return attempt


def test_how_an_attempt_ends_is_classified():
    seen = probe._observe(_probe(lambda: probe._Seen(probe.IGNORED, "same module")))
    assert (seen.outcome, seen.detail) == (probe.IGNORED, "same module")
    seen = probe._observe(_probe(lambda: probe._Seen(probe.TF32)))
    assert (seen.outcome, seen.detail) == (probe.TF32, "")
    seen = probe._observe(_probe(lambda: None))
    assert (seen.outcome, seen.detail) == (probe.ACCEPTED, "")
    seen = probe._observe(_probe(_raise(probe._Unwritable(probe.ABSENT, "jax.lax.cbrt does not exist"))))
    assert (seen.outcome, seen.detail) == (probe.ABSENT, "jax.lax.cbrt does not exist")
    seen = probe._observe(_probe(_raise(probe._NotProbed("No supported GPU devices found"))))
    assert (seen.outcome, seen.detail) == (probe.NOT_PROBED, "No supported GPU devices found")
    seen = probe._observe(_probe(_raise(ValueError("  Unsupported lhs precision HIGH\nmore\n"))))
    assert (seen.outcome, seen.detail) == (probe.REJECTED, "ValueError: Unsupported lhs precision HIGH")
    seen = probe._observe(_probe(_raise(NotImplementedError("no lowering for dot"))))
    assert (seen.outcome, seen.detail) == (probe.UNSUPPORTED, "NotImplementedError: no lowering for dot")
    seen = probe._observe(_probe(_raise(KeyError()), other=probe.ACCEPTED))
    assert (seen.outcome, seen.detail) == (probe.ACCEPTED, "KeyError: ")
    seen = probe._observe(_probe(_raise(RuntimeError("x" * 300))))
    assert seen.detail == "RuntimeError: " + "x" * 186
    assert seen.probe.case == "precision=HIGH"


def test_what_agrees_and_how_a_setting_is_named():
    assert probe._agrees(probe.ACCEPTED, probe.ACCEPTED)
    assert not probe._agrees(probe.ACCEPTED, probe.REJECTED)
    assert probe._agrees(probe.NOT_PROBED, probe.REJECTED)
    assert probe._agrees(probe.UNSUPPORTED, probe.NOT_REJECTED)  # not rejected: anything but rejected
    assert probe._agrees(probe.ACCEPTED, probe.NOT_REJECTED)
    assert not probe._agrees(probe.REJECTED, probe.NOT_REJECTED)
    assert probe._describe((Level.HIGH,)) == "precision=HIGH"
    assert probe._describe((Level.DEFAULT, Level.HIGHEST)) == "precision=(DEFAULT, HIGHEST)"
    assert probe._triton_input_precision((Level.HIGHEST,)) == probe.IEEE
    assert probe._triton_input_precision((Level.HIGHEST, Level.HIGH)) == probe.TF32
    assert probe._triton_input_precision((Level.DEFAULT,)) == probe.TF32


def test_observations_compared_with_the_table_of_a_release():
    probes = [
        probe.Probe("mosaic_tpu", "dot", "precision=HIGHEST", None, "", "", lambda version: probe.ACCEPTED),
        probe.Probe("triton", "exp", "accuracy=HIGHEST", None, "", "",
                    lambda version: probe.REJECTED if version >= (0, 11) else probe.NOT_REJECTED),
    ]
    observations = [probe.Observation(probes[0], probe.REJECTED, "ValueError: no"),
                    probe.Observation(probes[1], probe.IGNORED, "")]
    report = probe.compare(observations, "0.10.2")
    assert report.jax_version == "0.10.2"
    assert report.rows == (
        R("mosaic_tpu", "dot", "precision=HIGHEST", probe.REJECTED, probe.ACCEPTED, False, "ValueError: no"),
        R("triton", "exp", "accuracy=HIGHEST", probe.IGNORED, probe.NOT_REJECTED, True, ""),
    )
    assert probe.compare(observations, "0.11.1").rows[1].believed == probe.REJECTED

def test_what_the_table_is_believed_to_say(monkeypatch):
    asked = []

    def lowered_precisions(backend, op, version):
        asked.append((backend, op, version))
        return None if op == "conv" else frozenset({Level.DEFAULT, Level.HIGHEST})

    monkeypatch.setattr(capabilities, "lowered_precisions", lowered_precisions)
    monkeypatch.setattr(capabilities, "PER_OPERAND_PRECISION_LOWERED", frozenset({"triton"}))
    H, D, HH = Level.HIGH, Level.DEFAULT, Level.HIGHEST
    believed = {(backend, op, setting): probe._believed_precision(backend, op, setting)((0, 11, 1))
                for backend, op, setting in [
                    ("mosaic_tpu", "conv", (HH,)), ("mosaic_tpu", "dot", (HH,)), ("mosaic_tpu", "dot", (H,)),
                    ("mosaic_tpu", "dot", (D, HH)), ("mosaic_tpu", "dot", (HH, HH)),
                    ("triton", "dot", (D, HH)), ("triton", "dot", (D, H))]}
    assert believed == {
        ("mosaic_tpu", "conv", (HH,)): probe.UNSUPPORTED,
        ("mosaic_tpu", "dot", (HH,)): probe.ACCEPTED,
        ("mosaic_tpu", "dot", (H,)): probe.REJECTED,
        ("mosaic_tpu", "dot", (D, HH)): probe.REJECTED,  # a pair, where pairs do not lower
        ("mosaic_tpu", "dot", (HH, HH)): probe.ACCEPTED,  # one level twice is no pair
        ("triton", "dot", (D, HH)): probe.ACCEPTED,
        ("triton", "dot", (D, H)): probe.REJECTED,
    }
    assert asked[0] == ("mosaic_tpu", "conv", (0, 11, 1))

    monkeypatch.setattr(capabilities, "NOT_LOWERED", {"mosaic_gpu": ()})
    monkeypatch.setattr(capabilities, "not_lowered", lambda backend, version: frozenset({"erf"}))
    monkeypatch.setattr(capabilities, "accuracy_rejected",
                        lambda backend, version: frozenset({"exp"}) if version >= (0, 11) else frozenset())
    accuracy = {(backend, name, version): probe._believed_accuracy(backend, name)(version)
                for backend in ("mosaic_gpu", "triton") for name in ("erf", "exp", "sin")
                for version in ((0, 10, 2), (0, 11, 1))}
    assert accuracy == {
        ("mosaic_gpu", "erf", (0, 10, 2)): probe.UNSUPPORTED, ("mosaic_gpu", "erf", (0, 11, 1)): probe.UNSUPPORTED,
        ("mosaic_gpu", "exp", (0, 10, 2)): probe.NOT_REJECTED, ("mosaic_gpu", "exp", (0, 11, 1)): probe.REJECTED,
        ("mosaic_gpu", "sin", (0, 10, 2)): probe.NOT_REJECTED, ("mosaic_gpu", "sin", (0, 11, 1)): probe.NOT_REJECTED,
        ("triton", "erf", (0, 10, 2)): probe.NOT_REJECTED, ("triton", "erf", (0, 11, 1)): probe.NOT_REJECTED,
        ("triton", "exp", (0, 10, 2)): probe.NOT_REJECTED, ("triton", "exp", (0, 11, 1)): probe.REJECTED,
        ("triton", "sin", (0, 10, 2)): probe.NOT_REJECTED, ("triton", "sin", (0, 11, 1)): probe.NOT_REJECTED,
    }

# --- probe_api: what each row is checked by ---------------------------------------------------

def _row(code="JAX901", old=("jax.old_name",), new="jax.new_name", **fields):
    fields = {"since": (0, 5, 0), "deprecated": (0, 6, 0), "removed": (0, 8, 0), **fields}
    return api_changes.ApiChange(code, "a-row", old, new, api_changes.Change.RENAME, fields.pop("since"),
                                 fields.pop("deprecated"), fields.pop("removed"), "", **fields)


def test_a_rows_checks_old_spellings_first_then_replacements():
    row = _row(old=("jax.old_name", "jax.oldmod", ".attr", "jax.new_name"), import_as="jax.compat.old_name",
               modules=("jax.oldmod", "jax.othermod"))
    assert [(c.code, c.case, c.replacement) for c in probe_api.checks(row)] == [
        ("JAX901", "jax.old_name", False),
        ("JAX901", "import jax.oldmod", False),
        ("JAX901", "jax.new_name", False),
        ("JAX901", "import jax.othermod", False),
        ("JAX901", "jax.compat.old_name (replacement)", True),
    ]
    assert probe_api._unobservable(row, probe_api.checks(row)) is None
    imported = _row(old=("jax.old_name",), modules=("json",))  # imported before: cannot be seen
    seen = [probe_api._run(c) for c in probe_api.checks(imported) if c.case == "import json"]
    assert [o.outcome for o in seen] == [probe_api.NOT_PROBED]
    old_module = _row(old=("json",), modules=("json",))
    seen = [probe_api._run(c) for c in probe_api.checks(old_module)]
    assert [(o.check.case, o.outcome) for o in seen][0] == ("import json", probe_api.NOT_PROBED)
    twice = _row(new="jax.same", import_as="jax.same")
    assert [c.case for c in probe_api.checks(twice)] == ["jax.old_name", "jax.same (replacement)"]
    unqualified = _row(old=("jax.old_name",), new="numpy.thing", import_as=None)
    assert [c.case for c in probe_api.checks(unqualified)] == ["jax.old_name"]


def test_a_row_no_check_observes_says_why():
    row = _row(old=(".attr", "other"), new=None)
    assert probe_api.checks(row) == []
    assert probe_api._unobservable(row, []) == (
        "no check observes .attr, other: not a qualified name or module, and no call check in "
        "codemods/probe_api.py CALL_CHECKS")
    only_replacements = [probe_api.Check("JAX901", "x", lambda: None, True)]
    assert probe_api._unobservable(row, only_replacements) is not None


@pytest.mark.jax
def test_a_row_no_check_observes_is_reported_not_probed():
    pytest.importorskip("jax")
    row = _row(old=(".attr", "other"), new=None)
    observations = probe_api.observe([row])
    assert [(o.check.code, o.check.case, o.check.replacement, o.outcome) for o in observations] == [
        ("JAX901", ".attr / other", False, probe_api.NOT_PROBED)]
    assert observations[0].detail == probe_api._unobservable(row, [])


def test_a_row_whose_calls_observe_the_old_spelling_reaches_the_name_as_a_replacement():
    clip = next(row for row in api_changes.TABLE if row.code == "JAX140")
    assert [(c.case, c.replacement) for c in probe_api.checks(clip)] == [
        ("jax.numpy.clip (the name stays)", True),
        ("jnp.clip(x, a_min=0.0)", False),
        ("jnp.clip(x, min=0.0, max=1.0)", True),
    ]
    assert probe_api._CALLS_OWN_THE_OLD_SPELLING == {
        "JAX120", "JAX121", "JAX127", "JAX128", "JAX129", "JAX134", "JAX138", "JAX140", "JAX172", "JAX173", "JAX191"}
    x64 = next(row for row in api_changes.TABLE if row.code == "JAX111")
    assert [(c.case, c.replacement) for c in probe_api.checks(x64)] == [
        ("jax.experimental.enable_x64", False), ("jax.experimental.disable_x64", False),
        ("with jax.enable_x64(True): int64", True), ("with jax.enable_x64(False): int32", True),
        ("jax.enable_x64 (replacement)", True)]


def test_reaching_a_name_and_importing_a_module(monkeypatch):
    import functools
    import sys
    import types
    import warnings

    module = types.ModuleType("fake_jax_module")

    @functools.cache
    def module_getattr(name):
        if name == "gone":
            warnings.warn("gone is deprecated", DeprecationWarning)
            return 42
        raise AttributeError(name)

    module.__getattr__ = module_getattr
    module.here = "here"
    monkeypatch.setitem(sys.modules, "fake_jax_module", module)
    assert probe_api._reach("fake_jax_module.here")() == "here"
    check = probe_api.Check("JAX901", "fake_jax_module.gone", probe_api._reach("fake_jax_module.gone"), False)
    for _ in range(2):  # warns every time: the module's cache is cleared first
        seen = probe_api._run(check)
        assert (seen.outcome, seen.detail) == (probe_api.WARNS, "DeprecationWarning: gone is deprecated")
    seen = probe_api._run(probe_api.Check("JAX901", "x", probe_api._reach("fake_jax_module.absent"), False))
    assert (seen.outcome, seen.detail) == (probe_api.FAILS, "AttributeError: absent")
    assert seen.errors == ("AttributeError", "Exception")

    import json as json_module
    assert probe_api._import("json", False)() is json_module
    with pytest.raises(probe_api._Unobservable, match=r"^json was imported before the probe: its "
                       r"import-time warnings cannot be seen again \(run `jax-codemod probe` in a fresh process\)$"):
        probe_api._import("json", True)()
    seen = probe_api._run(probe_api.Check("JAX901", "import json", probe_api._import("json", True), False))
    assert seen.outcome == probe_api.NOT_PROBED and seen.detail.startswith("json was imported before")
    seen = probe_api._run(probe_api.Check("JAX901", "import x", probe_api._import("no_such_module_here", True), False))
    assert seen.outcome == probe_api.FAILS
    assert seen.errors == ("ModuleNotFoundError", "ImportError", "Exception")


def test_how_a_check_ends_is_classified():
    import warnings

    def warns_other():
        warnings.warn("not a deprecation", UserWarning)

    def warns_twice():
        warnings.warn("first\nsecond line", DeprecationWarning)
        warnings.warn("second", DeprecationWarning)

    def ended(attempt):
        seen = probe_api._run(_check(attempt))
        return seen.outcome, seen.detail, seen.errors

    assert ended(warns_other) == (probe_api.WORKS, "", ())
    assert ended(warns_twice) == (probe_api.WARNS, "DeprecationWarning: first", ())
    assert ended(_raise(ValueError("\n  bad value \n more"))) == (
        probe_api.FAILS, "ValueError: bad value ", ("ValueError", "Exception"))
    assert ended(_raise(ValueError(""))) == (probe_api.FAILS, "ValueError: ", ("ValueError", "Exception"))
    assert probe_api._first_line("y" * 300) == "y" * 200
    assert probe_api._qualified("jax.x") and not probe_api._qualified("jaxlib.x")
    assert not probe_api._qualified(None) and not probe_api._qualified("")


# --- probe_api: the comparison ----------------------------------------------------------------

def _seen(outcome, replacement=False, detail="d", errors=()):
    return probe_api.Observation(probe_api.Check("JAX901", "c", lambda: None, replacement), outcome, detail, errors)


def test_an_old_spelling_compared_with_its_row():
    row = _row(failure="ImportError or AttributeError")
    compare = probe_api._compare_one
    assert compare(_seen(probe_api.WORKS), row, (0, 5, 9)) == A("JAX901", "c", "works", "works", True, "d")
    assert compare(_seen(probe_api.WORKS), row, (0, 6, 0)) == A("JAX901", "c", "works", "warns", False, "d")
    assert compare(_seen(probe_api.NOT_PROBED), row, (0, 9, 0)) == A("JAX901", "c", "not probed", "fails", True, "d")
    assert compare(_seen(probe_api.FAILS, errors=("ModuleNotFoundError", "ImportError", "Exception")),
                   row, (0, 8, 0)).agree
    assert compare(_seen(probe_api.FAILS), row, (0, 8, 0)).agree  # a changed default names no exception
    wrong = compare(_seen(probe_api.FAILS, errors=("TypeError", "Exception")), row, (0, 8, 0))
    assert wrong == A("JAX901", "c", "fails", "fails", False,
                      "d; the table says it fails with ImportError or AttributeError")
    assert not probe_api._fails_as_claimed(("Error",), "TypeError")  # a whole word, not part of one
    by_release = _row(failure=(((0, 8, 0), "AttributeError"), ((0, 9, 0), "ImportError")))
    assert compare(_seen(probe_api.FAILS, errors=("ImportError",)), by_release, (0, 9, 1)).agree
    assert not compare(_seen(probe_api.FAILS, errors=("ImportError",)), by_release, (0, 8, 5)).agree


def test_a_replacement_compared_with_its_row():
    row = _row(superseded=(0, 10, 0))
    compare = probe_api._compare_one
    assert compare(_seen(probe_api.FAILS, True), row, (0, 4, 0)) == A(
        "JAX901", "c", "not probed", "-", True,
        "jax 0.4.0 predates the replacement (since 0.5.0): the table claims nothing here")
    assert compare(_seen(probe_api.WORKS, True), row, (0, 5, 0)) == A("JAX901", "c", "works", "works", True, "d")
    assert compare(_seen(probe_api.WORKS, True), row, (0, 10, 0)) == A("JAX901", "c", "works", "warns", False, "d")
    assert compare(_seen(probe_api.WARNS, True), row, (0, 10, 1)).agree
    assert not compare(_seen(probe_api.WARNS, True), _row(), (0, 10, 1)).agree
    report = probe_api.compare([_seen(probe_api.WORKS, True), _seen(probe_api.WORKS)], "0.6.1", table=[row])
    assert report.jax_version == "0.6.1"
    assert [(r.believed, r.agree) for r in report.rows] == [("works", True), ("warns", False)]


# --- lowering with the installed jax ----------------------------------------------------------

@pytest.mark.jax
def test_the_lstm_probes_and_a_triton_hint_that_changes_nothing():
    pytest.importorskip("jax")
    assert [(p.backend, p.op, p.case, p.rejection, p.other_failure) for p in probe._lstm_probes()] == [
        ("cudnn", "lstm", f"precision={level}", probe.LSTM_REJECTION, probe.ACCEPTED)
        for level in ("DEFAULT", "HIGH", "HIGHEST")]
    exp = next(p for p in probe._accuracy_probes() if (p.backend, p.op) == ("triton", "exp"))
    with probe._quiet():
        seen = probe._observe(exp)
    assert (seen.outcome, seen.detail) == (probe.IGNORED, "Triton module identical with and without accuracy=")


@pytest.mark.jax
def test_the_probes_that_lower_nothing_reach_the_lowering():
    """Triton has no conv lowering; the probe's kernel must be one jax accepts up to the lowering, or
    the row would say unsupported for a reason of the probe's own (shapes that do not fit)."""
    pytest.importorskip("jax")
    conv = next(p for p in probe._precision_probes() if (p.backend, p.op) == ("triton", "conv"))
    with probe._quiet():
        seen = probe._observe(conv)
    assert seen.outcome == probe.UNSUPPORTED
    assert seen.detail.startswith(
        "NotImplementedError: Unimplemented primitive in Pallas Triton lowering: conv_general_dilated")
    # Mosaic GPU: no contraction lowers; each probe gets as far as the lowering of its primitive.
    for gpu in (p for p in probe._precision_probes() if p.backend == "mosaic_gpu"):
        with probe._quiet():
            seen = probe._observe(gpu)
        primitive = "dot_general" if gpu.op == "dot" else "conv_general_dilated"
        assert seen.outcome == probe.UNSUPPORTED
        assert seen.detail.startswith(
            f"NotImplementedError: Unimplemented primitive in Pallas Mosaic GPU lowering: {primitive} "), seen.detail


@pytest.mark.jax
def test_the_old_meaning_of_layout_fails_in_words_that_say_so():
    pytest.importorskip("jax")
    old = next(check for check in probe_api.checks(next(r for r in api_changes.TABLE if r.code == "JAX125"))
               if check.case == "Layout(sharding=None) (the old meaning)")
    seen = probe_api._run(old)
    if seen.outcome == probe_api.FAILS:  # jax 0.7.0 on: Layout is the former DeviceLocalLayout
        assert seen.detail.startswith("Layout(sharding=None): ")
        assert seen.detail.endswith(": Layout is the former DeviceLocalLayout")
        assert seen.errors == ()


@pytest.mark.jax
def test_an_accuracy_attempt_without_lowering(monkeypatch):
    """The attempt's own steps, with the lowering replaced: a function jax.lax lacks, one without
    accuracy=, a backend that only lowers, and Triton's two lowerings compared."""
    pytest.importorskip("jax")
    lowered = []

    def lower(body, operands, out):
        lowered.append(len(operands))
        return f"module {len(lowered) if changes else 0}"

    for backend in probe.KERNEL_LOWERINGS:
        monkeypatch.setitem(probe.KERNEL_LOWERINGS, backend, lower)
    changes = True
    seen = probe._observe(probe.Probe("triton", "exp", "c", probe._accuracy_attempt("triton", "exp"), "", "", None))
    assert (seen.outcome, seen.detail, lowered) == (probe.ACCEPTED, "accuracy= changes the Triton module", [1, 1])
    changes = False
    seen = probe._observe(probe.Probe("triton", "exp", "c", probe._accuracy_attempt("triton", "exp"), "", "", None))
    assert (seen.outcome, seen.detail) == (probe.IGNORED, "Triton module identical with and without accuracy=")
    lowered.clear()
    assert probe._accuracy_attempt("mosaic_tpu", "exp")() is None
    assert lowered == [1]  # one lowering, with the hint
    with pytest.raises(probe._Unwritable, match=r"^jax\.lax\.no_such_function does not exist$") as absent:
        probe._accuracy_attempt("mosaic_tpu", "no_such_function")()
    assert absent.value.outcome == probe.ABSENT
    with pytest.raises(probe._Unwritable, match=r"^jax\.lax\.atan2 takes no accuracy=$") as no_hint:
        probe._accuracy_attempt("mosaic_tpu", "atan2")()
    assert no_hint.value.outcome == probe.NO_ACCURACY_PARAM


# Written for the survivors of the seed-38 sample (session 11).

def _call_check(code: str, case: str) -> probe_api.Check:
    return next(check for check in probe_api.checks(next(row for row in api_changes.TABLE if row.code == code))
                if check.case == case)


@pytest.mark.jax
def test_the_old_clip_keyword_is_seen_warning_on_a_jax_that_still_takes_it(monkeypatch):
    """jax 0.4.27 to 0.9 took `jnp.clip(x, a_min=...)` with a DeprecationWarning (JAX140): the check
    clips a real array, so on such a jax it observes the keyword's warning, not an error of its own."""
    import warnings

    jnp = pytest.importorskip("jax.numpy")
    real = jnp.clip

    def clip(x, min=None, max=None, *, a_min=None, a_max=None):
        if a_min is not None or a_max is not None:
            warnings.warn("The a_min and a_max arguments to clip are deprecated", DeprecationWarning, stacklevel=2)
        return real(x, min=a_min if min is None else min, max=a_max if max is None else max)

    monkeypatch.setattr(jnp, "clip", clip)
    seen = probe_api._run(_call_check("JAX140", "jnp.clip(x, a_min=0.0)"))
    assert (seen.outcome, seen.detail) == (
        probe_api.WARNS, "DeprecationWarning: The a_min and a_max arguments to clip are deprecated")


@pytest.mark.jax
def test_a_jit_that_no_longer_takes_in_shardings_is_seen_failing(monkeypatch):
    """JAX130's replacement is the keyword: on a jax whose jit refused `in_shardings`, its check
    fails with jax's error."""
    jax = pytest.importorskip("jax")
    real = jax.jit

    def jit(fun, **options):
        if "in_shardings" in options:
            raise TypeError("jit() got an unexpected keyword argument 'in_shardings'")
        return real(fun, **options)

    monkeypatch.setattr(jax, "jit", jit)
    seen = probe_api._run(_call_check("JAX130", "jax.jit(f, in_shardings=None)(x)"))
    assert (seen.outcome, seen.detail) == (
        probe_api.FAILS, "TypeError: jit() got an unexpected keyword argument 'in_shardings'")
