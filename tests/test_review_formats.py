"""Every output format on every golden: each validates against its format's schema or validator,
and each highlights exactly the span its fix replaces (codemods/engine/fixes.py `anchor`).

The goldens (tests/fixtures/*/*.in.py) run as tests/test_fixtures.py runs them, once with the
unsafe fixes applied and once without (so that "unsafe, not applied" is in the outputs). Schemas:
tests/sarif/ (OASIS SARIF 2.1.0), tests/review_formats/ (rdjson, GitLab Code Quality; where they
come from is in its README).
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import jsonschema
import pytest

from codemods.engine import formats, positions
from codemods.engine.diagnostics import Applicability, Finding, Fix, Kind, TextEdit
from codemods.engine.report import FileResult, render_finding
from codemods.engine.runner import process_source
from codemods.registry import RULES, select
from codemods import server

sys.path.insert(0, str(Path(__file__).parent))
from test_fixtures import CASES, case_rules, case_settings  # noqa: E402

HERE = Path(__file__).parent
SCHEMAS = {
    "sarif": HERE / "sarif" / "sarif-schema-2.1.0.json",
    "rdjson": HERE / "review_formats" / "rdjson.schema.json",
    "gitlab": HERE / "review_formats" / "gitlab-code-quality.schema.json",
}
RDFORMAT_VALIDATOR = "@umbrelladocs/rdformat-validator@1.0.1"


def _run(case: Path, unsafe_fixes: bool) -> FileResult:
    text = case.read_text()
    settings = dataclasses.replace(case_settings(text), unsafe_fixes=unsafe_fixes)
    return process_source(Path(case.relative_to(HERE.parent).as_posix()), case.read_bytes(), case_rules(case, text),
                          settings)


@pytest.fixture(scope="module")
def goldens(monkeypatch_module) -> list[FileResult]:
    monkeypatch_module.chdir(HERE.parent)  # paths shown relative, as in CI
    return [_run(case, unsafe) for case in CASES for unsafe in (True, False)]


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def _outputs(results: list[FileResult]) -> dict[str, str]:
    return {name: formats.render(name, results, rules=RULES, tool_version="1.0") for name in formats.FORMATS}


def _errors(document, name: str) -> list[str]:
    schema = json.loads(SCHEMAS[name].read_text(encoding="utf-8"))
    validator = jsonschema.validators.validator_for(schema)
    checker = validator(schema, format_checker=validator.FORMAT_CHECKER)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in checker.iter_errors(document)]


# -- each format validates --


@pytest.mark.parametrize("name", ["sarif", "rdjson", "gitlab"])
def test_every_golden_validates_against_the_formats_schema(goldens, name: str) -> None:
    document = json.loads(_outputs(goldens)[name])
    assert _errors(document, name) == []


@pytest.mark.parametrize("name, break_it, count", [
    ("rdjson", lambda d: d["diagnostics"][0]["location"]["range"]["start"].update(line=0), 1),
    ("rdjson", lambda d: d["diagnostics"][0].update(severity="NOTE"), 1),
    ("gitlab", lambda d: d[0].pop("fingerprint"), 1),
    ("gitlab", lambda d: d[0].update(severity="warning"), 1),
])
def test_the_schemas_have_teeth(goldens, name: str, break_it, count: int) -> None:
    document = json.loads(_outputs(goldens[:2])[name])
    break_it(document)
    assert len(_errors(document, name)) == count


@pytest.fixture(scope="module")
def rdformat_validator(tmp_path_factory) -> list[str]:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are not installed: the rdjson schema test stands alone")
    folder = tmp_path_factory.mktemp("rdformat")
    installed = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix", str(folder),
                                RDFORMAT_VALIDATOR], capture_output=True, text=True, timeout=300)
    if installed.returncode != 0:
        pytest.skip(f"npm could not install {RDFORMAT_VALIDATOR}: {installed.stderr.strip()[-300:]}")
    script = folder / "node_modules" / "@umbrelladocs" / "rdformat-validator" / "bin" / "rdformat-validator.js"
    return ["node", str(script), "--strict", "--no-extra-fields"]


def test_rdjson_of_every_golden_passes_the_rdformat_validator(goldens, rdformat_validator, tmp_path) -> None:
    report = tmp_path / "goldens.rdjson"
    report.write_text(_outputs(goldens)["rdjson"])
    checked = subprocess.run([*rdformat_validator, str(report)], capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # the validator has teeth
    report.write_text(json.dumps({"diagnostics": [{"message": 1, "location": {"path": "a.py"}}]}))
    assert subprocess.run([*rdformat_validator, str(report)], capture_output=True, timeout=300).returncode != 0


def _junit_problems(xml: str) -> list[str]:
    """What the JUnit XSD requires of a report: testsuites > testsuite (name, tests) > testcase
    (name, classname), a message on failure and error, and counts that add up."""
    root = ElementTree.fromstring(xml)
    problems = [] if root.tag == "testsuites" else [f"root is {root.tag}"]
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for suite in root:
        if suite.tag != "testsuite" or not suite.get("name"):
            problems.append(f"not a named testsuite: {suite.tag} {suite.attrib}")
        cases = list(suite)
        counted = {"tests": len(cases), "failures": sum(c.find("failure") is not None for c in cases),
                   "errors": sum(c.find("error") is not None for c in cases)}
        for key, value in counted.items():
            totals[key] += value
            if suite.get(key) != str(value):
                problems.append(f"{suite.get('name')}: {key}={suite.get(key)}, counted {value}")
        for case in cases:
            if case.tag != "testcase" or not case.get("name") or not case.get("classname"):
                problems.append(f"not a testcase with name and classname: {case.tag} {case.attrib}")
            problems += [f"{case.get('name')}: {child.tag} without a message"
                         for child in case if child.tag in ("failure", "error") and not child.get("message")]
    problems += [f"testsuites {key}={root.get(key)}, counted {value}" for key, value in totals.items()
                 if root.get(key) != str(value)]
    return problems


def test_junit_of_every_golden_has_the_structure_the_xsd_requires(goldens) -> None:
    xml = _outputs(goldens)["junit"]
    assert _junit_problems(xml) == []
    findings = sum(len(result.findings) for result in goldens)
    assert ElementTree.fromstring(xml).get("failures") == str(findings)
    assert _junit_problems(xml.replace(' failures="', ' failures="9', 1)) != []  # the check has teeth


def test_an_empty_run_is_one_passing_testcase_and_empty_reports() -> None:
    outputs = _outputs([])
    assert _junit_problems(outputs["junit"]) == []
    assert ElementTree.fromstring(outputs["junit"]).get("tests") == "1"
    assert json.loads(outputs["gitlab"]) == [] and json.loads(outputs["rdjson"])["diagnostics"] == []


_COMMAND = re.compile(r"^::(notice|warning|error) file=[^,:]+(,line=\d+(,col=\d+)?(,endLine=\d+(,endColumn=\d+)?)?)?"
                      r",title=[^:]+::.+$")


def test_github_of_every_golden_is_one_well_formed_workflow_command_a_line(goldens) -> None:
    lines = _outputs(goldens)["github"].splitlines()
    assert lines and [line for line in lines if not _COMMAND.match(line)] == []


# -- each format highlights the span the fix replaces --


def _main_edit(result: FileResult, finding: Finding) -> TextEdit:
    """The fix's edit whose span is the finding's (the test: exactly one such edit exists)."""
    text = positions.Positions(result.text())
    start = text.offset(finding.line, finding.column)
    end = text.offset(finding.end_line, finding.end_column)
    (edit,) = [e for e in finding.fix.edits if (e.start, e.end) == (start, end)]
    return edit


def _fixed(goldens) -> list[tuple[FileResult, Finding]]:
    found = [(r, f) for r in goldens for f in r.findings if f.fix is not None and f.fix.edits]
    assert len(found) > 300, "the goldens hold the fixes these tests are about"
    return found


def test_every_fix_replaces_exactly_the_span_of_its_finding(goldens) -> None:
    """Text and JSON: 1-based line and column, as Ruff's, for the finding and its edits alike."""
    document = json.loads(_outputs(goldens)["json"])
    entries = {(f["path"], f["rule"], f["message"], f["start"]["line"], f["start"]["column"]): f
               for f in document["findings"]}
    for result, finding in _fixed(goldens):
        edit = _main_edit(result, finding)
        text = positions.Positions(result.text())
        shown = f"{result.path}:{finding.line}:{finding.column}: {finding.code}"
        assert render_finding(result, finding).startswith(shown)
        assert text.position(edit.start) == (finding.line, finding.column)
        entry = entries[(result.path, finding.code, finding.message, finding.line, finding.column)]
        spans = [(e["start"], e["end"]) for e in entry["fix"]["edits"]]
        assert (entry["start"], entry["end"]) in spans, f"{shown}: highlighted {entry['start']}..{entry['end']}"


def test_sarif_rdjson_and_github_highlight_the_span_their_fix_replaces(goldens) -> None:
    module_files = goldens  # goldens are .py files (a notebook's findings carry no fixes in SARIF, rdjson, github)
    sarif = json.loads(_outputs(module_files)["sarif"])["runs"][0]["results"]
    with_fixes = [entry for entry in sarif if "fixes" in entry]
    assert len(with_fixes) > 300
    for entry in with_fixes:
        region = entry["locations"][0]["physicalLocation"]["region"]
        deleted = [r["deletedRegion"] for r in entry["fixes"][0]["artifactChanges"][0]["replacements"]]
        assert region in deleted, f"{entry['ruleId']} {region} not among {deleted}"
    rdjson = json.loads(_outputs(module_files)["rdjson"])["diagnostics"]
    suggested = [d for d in rdjson if "suggestions" in d]
    assert len(suggested) == len(with_fixes)
    for diagnostic in suggested:
        assert diagnostic["location"]["range"] in [s["range"] for s in diagnostic["suggestions"]], diagnostic
    for result, finding in _fixed(module_files):
        edit = _main_edit(result, finding)
        text = positions.Positions(result.text())
        (line, column), (end_line, end_column) = text.position(edit.start), text.position(edit.end)
        # One annotation per finding: two findings of a line with the same message (two annotations
        # `x: jnp.DeviceArray, y: jnp.DeviceArray`) differ by where they start.
        annotations = [a for a in formats.render_github([result]).splitlines()
                       if f"title={finding.code} " in a and a.endswith(formats.escape_data(finding.message))]
        on_line = [a for a in annotations if f"line={line}," in a]
        (annotation,) = [a for a in on_line if f"line={line},col={column}," in a] if len(on_line) > 1 else on_line
        if line == end_line:
            assert f"line={line},col={column},endLine={end_line},endColumn={end_column}," in annotation


def test_the_language_server_highlights_the_span_its_quick_fix_replaces(goldens) -> None:
    """LSP positions: 0-based lines, UTF-16 code units."""
    for result, finding in _fixed(goldens):
        lines = server.Lines(result.text())
        diagnostic = lines.range(*server.finding_span(lines, finding))
        quick_fix = server.lsp_edits(lines, finding.fix.edits)
        assert diagnostic in [edit.range for edit in quick_fix], f"{result.path}:{finding.line}: {finding.code}"


def test_columns_count_each_formats_units_after_a_character_outside_the_bmp() -> None:
    """`é𝄞` is 2 characters, 3 UTF-16 code units, 6 UTF-8 bytes: the fix's span (`f(a)`, the 15th
    character) starts after it."""
    text = 'x = "é𝄞"; y = f(a)\n'
    start = text.index("f(a)")
    fix = Fix(Applicability.SAFE, edits=(TextEdit(start, start + 4, "g(a)"),), applied=True)
    finding = Finding("JAX001", Kind.FIXED, 1, start + 1, "f -> g", 1, start + 5, fix=fix)
    result = FileResult("k.py", parsed=True, raw=text.encode(), findings=[finding], new_source=b"")
    rdjson = json.loads(formats.render_rdjson([result]))["diagnostics"][0]
    assert rdjson["location"]["range"] == {"start": {"line": 1, "column": 19}, "end": {"line": 1, "column": 23}}
    assert rdjson["suggestions"] == [{"range": rdjson["location"]["range"], "text": "g(a)"}]
    json_finding = json.loads(formats.render_json([result], rules=RULES))["findings"][0]
    assert json_finding["start"] == {"line": 1, "column": 15} == json_finding["fix"]["edits"][0]["start"]
    lsp = server.Lines(text).range(start, start + 4)
    assert (lsp.start.line, lsp.start.character, lsp.end.character) == (0, 15, 19)


# -- what a run did with each fix --


def _finding(applicability: Applicability, applied: bool) -> Finding:
    fix = Fix(applicability, edits=(TextEdit(0, 1, "y"),), applied=applied)
    return Finding("JAX002", Kind.DROPPED, 1, 1, "dropped accuracy=", 1, 2, fix=fix)


@pytest.mark.parametrize("written", [False, True])
def test_json_says_applicable_and_applied_truthfully(written: bool) -> None:
    results = [FileResult("k.py", parsed=True, raw=b"x\n", new_source=b"y\n", written=written,
                          findings=[_finding(Applicability.SAFE, True), _finding(Applicability.UNSAFE, False)])]
    fixes = [f["fix"] for f in json.loads(formats.render_json(results, rules=RULES))["findings"]]
    assert [(f["applicability"], f["applicable"], f["applied"]) for f in fixes] == [
        ("safe", True, written), ("unsafe", False, False)]


def test_every_format_shows_an_unsafe_fix_left_out() -> None:
    result = FileResult("k.py", parsed=True, raw=b"x\n", findings=[_finding(Applicability.UNSAFE, False)])
    marker = "unsafe fix: --unsafe-fixes"
    outputs = _outputs([result])
    fix = json.loads(outputs.pop("json"))["findings"][0]["fix"]
    assert (fix["applicability"], fix["applicable"], fix["applied"]) == ("unsafe", False, False)
    assert "title=JAX002 [dropped%2C unsafe fix%3A --unsafe-fixes]" in outputs.pop("github")  # escaped, as GitHub reads it
    for name, output in outputs.items():
        assert marker in output, f"{name} does not say the unsafe fix was not applied"
    assert marker in render_finding(result, result.findings[0])
    lines = server.Lines("x\n")
    assert marker in server.Engine(lambda *_: None)._diagnostic(
        server.Part("file:///k.py", lines), 0, 1, result.findings[0]).message


# -- suppression comments: names, and JAX900 --


KERNEL = '''\
from jax import lax
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[...] = lax.logistic(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)  # jax-codemod: ignore[{first}]
    y = x_ref[...]  # jax-codemod: ignore[{second}]
    z = x_ref[...]  # jax-codemod: ignore


def run(x):
    return pl.pallas_call(kernel, out_shape=x)(x)
'''


def _suppressed(first: str, second: str, selectors: list[str]) -> tuple[FileResult, list[str]]:
    from codemods.settings import Settings

    source = KERNEL.format(first=first, second=second).encode()
    result = process_source(Path("k.py"), source, select(selectors), Settings(jax_version=(0, 12, 0, 1)))
    return result, [render_finding(result, f) for f in result.findings]


@pytest.mark.parametrize("selector", ["accuracy-hints", "JAX002", "jax00", "Accuracy-Hints"])
def test_a_suppression_takes_codes_prefixes_and_names_as_select_does(selector: str) -> None:
    result, shown = _suppressed(selector, "JAX001", [])
    assert (result.suppressed, shown) == (1, [])


def test_jax900_reports_unknown_and_unused_suppressions_and_is_opt_in() -> None:
    assert "JAX900" not in [rule.code for rule in select([])]
    result, shown = _suppressed("accuracy-hints, acuracy-hint", "JAX001", ["JAX0", "JAX900"])
    assert shown == [
        "k.py:6:81: JAX900 [warning] unused suppression comment (names no known rule: acuracy-hint): "
        "remove it or what it names",
        "k.py:7:23: JAX900 [warning] unused suppression comment (silences no finding: JAX001): "
        "remove it or what it names",
        "k.py:8:23: JAX900 [warning] unused suppression comment (silences no finding): remove it or what it names",
    ]
    assert result.suppressed == 1
