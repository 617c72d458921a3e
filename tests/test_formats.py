"""`--output-format json|sarif|github` (codemods/engine/formats.py) on results of the real pipeline.

The results come from `runner.process_source` over small Pallas kernels (no jax needed): a
per-operand precision fixed twice in one file (two hunks), an rsqrt accuracy hint dropped with
its helper inserted far from the call, `**kwargs` reported as [manual], a file that does not
parse, one the prefilter rules out, edits at the end of a file (LF, CRLF, no final newline) and
a Latin-1 file. SARIF is validated against the vendored OASIS schema (tests/sarif/README.md).
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import unquote, urlsplit

import jsonschema
import pytest

from codemods.engine import formats
from codemods.engine.formats import render_github, render_gitlab, render_json, render_rdjson, render_sarif
from codemods.engine.diagnostics import Applicability, Finding, Fix, Kind
from codemods.engine.fixes import text_edits
from codemods.engine.report import FileResult, unified_diff
from codemods.engine.runner import process_source
from codemods.registry import RULES
from codemods.settings import Settings

SETTINGS = Settings(jax_version=(0, 12, 0, 1))
SCHEMA_PATH = Path(__file__).parent / "sarif" / "sarif-schema-2.1.0.json"

MATMUL = b'''\
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def matmul_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))


def matmul(x, y):
    return pl.pallas_call(matmul_kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))(x, y)


def scaled_kernel(x_ref, y_ref, o_ref):
    acc = x_ref[...] * 2.0
    o_ref[...] = jnp.dot(acc, y_ref[...], precision=(lax.Precision.HIGHEST, lax.Precision.DEFAULT))


def scaled(x, y):
    return pl.pallas_call(scaled_kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))(x, y)
'''

NORM = b'''\
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

EPS = 1e-6
BLOCK = 128
ROWS = 8


def rms_norm_kernel(x_ref, o_ref):
    x = x_ref[...]
    mean_sq = jnp.mean(x * x, axis=-1, keepdims=True)
    o_ref[...] = x * lax.rsqrt(mean_sq + EPS, accuracy=lax.AccuracyMode.HIGHEST)


def rms_norm(x):
    return pl.pallas_call(rms_norm_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
'''

KWARGS = b'''\
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(a_ref, b_ref, o_ref, **kwargs):
    o_ref[...] = jnp.dot(a_ref[...], b_ref[...], **kwargs)


f = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
'''

BROKEN = b'''\
from jax.experimental import pallas as pl


def kernel(x_ref precision=1):
    pass
'''

PLAIN = b"print('nothing to see')\n"

# The change is on the file's last line: SARIF regions must not point past the end of the file.
TAIL = b'''\
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def matmul(x, y):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))(x, y)


def kernel(x_ref, y_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))
'''

LATIN1 = b'''\
# -*- coding: latin-1 -*-
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def kernel(x_ref, y_ref, o_ref):
    # produit \xe9l\xe9mentaire
    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))


f = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
'''

SOURCES = {
    "src/matmul.py": MATMUL,
    "src/norm.py": NORM,
    "src/kw.py": KWARGS,
    "src/my kernels/kw #1.py": KWARGS,  # a path the SARIF URI must percent-encode
    "src/broken.py": BROKEN,
    "src/plain.py": PLAIN,
    "src/tail_lf.py": TAIL,
    "src/tail_crlf.py": TAIL.replace(b"\n", b"\r\n"),
    "src/tail_no_newline.py": TAIL.rstrip(b"\n"),
    "src/latin1.py": LATIN1,
}
CHANGED = {"src/matmul.py", "src/norm.py", "src/tail_lf.py", "src/tail_crlf.py", "src/tail_no_newline.py",
           "src/latin1.py"}

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


@pytest.fixture(scope="module")
def results() -> list[FileResult]:
    # Deliberately not in path order: the renderers sort.
    return [process_source(Path(path), raw, RULES, SETTINGS) for path, raw in reversed(SOURCES.items())]


def by_path(results: list[FileResult]) -> dict[str, FileResult]:
    return {result.path: result for result in results}


def line_of(source: bytes, needle: bytes) -> int:
    (index,) = [i for i, line in enumerate(source.split(b"\n"), 1) if needle in line]
    return index


def all_findings(results: list[FileResult]) -> list[tuple[str, Finding]]:
    return sorted(((r.path, f) for r in results for f in r.findings),
                  key=lambda item: (item[0], item[1].line, item[1].column))


def test_the_pipeline_gives_the_findings_these_tests_are_about(results):
    """The scenario itself: if the analysis changes, these tests must be revisited, not silently pass."""
    found = {(path, f.code, f.kind, f.line) for path, f in all_findings(results)}
    assert found == {
        ("src/matmul.py", "JAX001", Kind.FIXED, 8),
        ("src/matmul.py", "JAX001", Kind.FIXED, 17),
        ("src/norm.py", "JAX002", Kind.DROPPED, 14),
        ("src/kw.py", "JAX001", Kind.MANUAL, 7),
        ("src/my kernels/kw #1.py", "JAX001", Kind.MANUAL, 7),
        ("src/tail_lf.py", "JAX001", Kind.FIXED, 12),
        ("src/tail_crlf.py", "JAX001", Kind.FIXED, 12),
        ("src/tail_no_newline.py", "JAX001", Kind.FIXED, 12),
        ("src/latin1.py", "JAX001", Kind.FIXED, 10),
    }
    r = by_path(results)
    assert r["src/broken.py"].error.startswith("cannot parse")
    assert {path for path, result in r.items() if result.new_source is not None} == CHANGED
    # the helper lands after the imports, in a hunk of its own, far from the call it serves
    assert unified_diff("src/norm.py", NORM, r["src/norm.py"].new_source).count(b"\n@@ ") == 2


# -- JSON --


def test_json_lists_every_finding_in_order_with_positions(results):
    document = json.loads(render_json(results, rules=RULES, suppressed=3))
    assert list(document) == ["version", "findings", "errors", "files", "summary"]
    expected = all_findings(results)
    assert [(f["path"], f["start"]["line"], f["start"]["column"]) for f in document["findings"]] == [
        (path, finding.line, finding.column) for path, finding in expected
    ]
    names = {rule.code: rule.name for rule in RULES}
    for entry, (path, finding) in zip(document["findings"], expected):
        assert entry["rule"] == finding.code and entry["name"] == names[finding.code]
        assert entry["kind"] == finding.kind.value
        assert entry["message"] == finding.message
        assert entry["end"] == {"line": finding.end_line, "column": finding.end_column}
    # positions point at the code they are about, in the original source: what the fix replaces
    first = document["findings"][[f["path"] for f in document["findings"]].index("src/matmul.py")]
    line = MATMUL.decode().splitlines()[first["start"]["line"] - 1]
    assert first["start"]["line"] == line_of(MATMUL, b"precision=(lax.Precision.DEFAULT")
    assert line[first["start"]["column"] - 1:first["end"]["column"] - 1] == "(lax.Precision.DEFAULT, lax.Precision.HIGHEST)"


def test_json_errors_files_and_summary(results):
    document = json.loads(render_json(results, rules=RULES, suppressed=3))
    r = by_path(results)
    assert document["errors"] == [{"path": "src/broken.py", "message": r["src/broken.py"].error}]
    # every file with a change or a finding, sorted; not the one the prefilter ruled out, nor the broken one
    assert [f["path"] for f in document["files"]] == sorted(CHANGED | {"src/kw.py", "src/my kernels/kw #1.py"})
    for entry in document["files"]:
        result = r[entry["path"]]
        assert entry["changed"] == (entry["path"] in CHANGED)
        assert entry["encoding"] == result.encoding
        if entry["changed"]:
            assert entry["diff"].encode("utf-8", "surrogateescape") == unified_diff(
                result.path, result.raw, result.new_source)
        else:
            assert entry["diff"] is None
    assert document["summary"] == {
        "scanned": len(SOURCES), "parsed": len(SOURCES) - 2, "changed": len(CHANGED), "errors": 1,
        "findings": 9, "fixes": {"applied": 7, "unsafe_not_applied": 0}, "suppressed": 3,
        "by_kind": {"fixed": 6, "dropped": 1, "manual": 2, "warning": 0},
        "by_rule": {**{rule.code: 0 for rule in RULES}, "JAX001": 8, "JAX002": 1},
    }
    assert document["version"] == 3


def fixes_by(document: dict) -> dict[tuple[str, int], str | None]:
    """Each finding's patch (its fix alone, as a diff), by path and line."""
    return {(f["path"], f["start"]["line"]): f["fix"] and f["fix"]["patch"] for f in document["findings"]}


def test_json_fix_carries_applicability_and_its_exact_edits(results):
    document = json.loads(render_json(results, rules=RULES))
    entries = {(f["path"], f["start"]["line"]): f for f in document["findings"]}
    assert entries[("src/kw.py", 7)]["fix"] is None
    matmul = entries[("src/matmul.py", 8)]["fix"]
    assert matmul["applicability"] == "safe" and matmul["applicable"] is True
    assert matmul["applied"] is False, "a dry run writes nothing"
    (edit,) = matmul["edits"]
    line = MATMUL.decode().splitlines()[7]
    assert edit["start"]["line"] == edit["end"]["line"] == 8
    assert line[edit["start"]["column"] - 1:edit["end"]["column"] - 1] == (
        "(lax.Precision.DEFAULT, lax.Precision.HIGHEST)")
    assert edit["content"] == "lax.Precision.HIGHEST"
    norm = entries[("src/norm.py", 14)]["fix"]
    assert [e["start"]["line"] for e in norm["edits"]] == [5, 14], "the helper, then the call"
    assert norm["edits"][0]["start"] == norm["edits"][0]["end"] and "def rsqrt_safe(x):" in norm["edits"][0]["content"]


def test_json_fix_of_a_finding_is_its_own_change_plus_what_it_needs(results):
    fixes = fixes_by(json.loads(render_json(results, rules=RULES)))
    # not rewritten: no fix
    assert fixes[("src/kw.py", 7)] is None and fixes[("src/my kernels/kw #1.py", 7)] is None
    # two fixes in one file, far apart: each gets only its own hunk
    first, second = fixes[("src/matmul.py", 8)], fixes[("src/matmul.py", 17)]
    for fix, own, other in ((first, "DEFAULT, lax.Precision.HIGHEST", "HIGHEST, lax.Precision.DEFAULT"),
                            (second, "HIGHEST, lax.Precision.DEFAULT", "DEFAULT, lax.Precision.HIGHEST")):
        assert fix.startswith("--- a/src/matmul.py\n+++ b/src/matmul.py\n@@ ")
        assert fix.count("\n@@ ") == 1
        assert re.search(rf"^-.*{re.escape(own)}", fix, re.M) and not re.search(re.escape(other), fix)
    assert "@@ -5,7 +5,7 @@" in first and "@@ -14,7 +14,7 @@" in second
    # the dropped hint needs the helper inserted after the imports: both hunks, applicable alone
    norm = fixes[("src/norm.py", 14)]
    assert norm.count("\n@@ ") == 2
    assert "+def rsqrt_safe(x):\n" in norm
    assert "-    o_ref[...] = x * lax.rsqrt(mean_sq + EPS, accuracy=lax.AccuracyMode.HIGHEST)\n" in norm
    assert "+    o_ref[...] = x * rsqrt_safe(mean_sq + EPS)\n" in norm


def test_json_diff_text_of_a_non_utf8_file_round_trips_to_its_bytes(results):
    text = render_json(results, rules=RULES)
    assert text.isascii()
    fix = fixes_by(json.loads(text))[("src/latin1.py", 10)]
    assert "\udce9l\udce9mentaire" in fix  # Latin-1 é, surrogate-escaped
    result = by_path(results)["src/latin1.py"]
    assert fix.encode("utf-8", "surrogateescape") == unified_diff(result.path, result.raw, result.new_source)


def git(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-c", "core.autocrlf=false", "-c", "core.safecrlf=false", *args],
                          cwd=cwd, capture_output=True, check=True, timeout=60)


def checkout(root: Path) -> None:
    for path, raw in SOURCES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(raw)
    if not (root / ".git").exists():
        git("init", "-q", cwd=root)


@needs_git
def test_json_diffs_and_fixes_apply_with_git(results, tmp_path):
    document = json.loads(render_json(results, rules=RULES))
    checkout(tmp_path)
    r = by_path(results)

    def apply(text: str, *options: str) -> None:
        patch = tmp_path / "p.patch"
        patch.write_bytes(text.encode("utf-8", "surrogateescape"))
        git("apply", *options, str(patch), cwd=tmp_path)

    for entry in document["findings"]:
        if entry["fix"] is not None:
            apply(entry["fix"]["patch"], "--check")
    for entry in document["files"]:
        if entry["diff"] is not None:
            apply(entry["diff"], "--check")
    # a fix applied alone leaves the file the tool would write when it holds all the file's hunks
    fixes = fixes_by(document)
    apply(fixes[("src/norm.py", 14)])
    assert (tmp_path / "src/norm.py").read_bytes() == r["src/norm.py"].new_source
    # fixes with hunks of their own apply one after the other
    apply(fixes[("src/matmul.py", 8)])
    assert b"precision=(lax.Precision.HIGHEST, lax.Precision.DEFAULT)" in (tmp_path / "src/matmul.py").read_bytes()
    apply(fixes[("src/matmul.py", 17)])
    assert (tmp_path / "src/matmul.py").read_bytes() == r["src/matmul.py"].new_source
    # and all the files' diffs together give exactly what --write would
    checkout(tmp_path)
    apply("".join(f["diff"] for f in document["files"] if f["diff"] is not None))
    for path in CHANGED:
        assert (tmp_path / path).read_bytes() == r[path].new_source, path


def fixed(raw: bytes, new: bytes, line: int, end_line: int) -> Finding:
    """A finding whose fix turns `raw` into `new`, as the engine would give it."""
    fix = Fix(Applicability.SAFE, text_edits(raw.decode(), new.decode()), applied=True)
    return Finding("JAX001", Kind.FIXED, line, 1, "m", end_line, 2, fix)


@needs_git
def test_json_each_patch_is_made_against_the_original_and_applies_in_any_order(tmp_path):
    """Two fixes of one file, the first adding lines: each patch is its fix alone, against the
    original text, and `git apply` takes them one after the other in either order."""
    raw = b"".join(b"x%d = %d\n" % (i, i) for i in range(1, 21))
    added = raw.replace(b"x2 = 2\n", b"x2 = 2\nadded = 1\nadded = 2\n")
    changed = raw.replace(b"x15 = 15\n", b"x15 = 16\n")
    new = added.replace(b"x15 = 15\n", b"x15 = 16\n")
    findings = [fixed(raw, added, 2, 3), fixed(raw, changed, 15, 15)]
    result = FileResult("x.py", parsed=True, new_source=new, raw=raw, after=new.decode(), findings=findings)
    first, second = (f["fix"]["patch"] for f in json.loads(render_json([result], rules=RULES))["findings"])
    assert first.count("@@ ") == 1 and "+added = 1\n" in first and "x15" not in first
    assert second == "--- a/x.py\n+++ b/x.py\n@@ -12,7 +12,7 @@\n x12 = 12\n x13 = 13\n x14 = 14\n" \
        "-x15 = 15\n+x15 = 16\n x16 = 16\n x17 = 17\n x18 = 18\n"
    for order in ((second, first), (first, second)):
        (tmp_path / "x.py").write_bytes(raw)
        if not (tmp_path / ".git").exists():
            git("init", "-q", cwd=tmp_path)
        for patch in order:
            (tmp_path / "p.patch").write_text(patch)
            git("apply", "p.patch", cwd=tmp_path)
        assert (tmp_path / "x.py").read_bytes() == new


# -- SARIF --


@pytest.fixture(scope="module")
def schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def validate(log: dict, schema: dict) -> list[str]:
    validator = jsonschema.validators.validator_for(schema)
    checker = validator(schema, format_checker=validator.FORMAT_CHECKER)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in checker.iter_errors(log)]


def test_sarif_validates_against_the_schema(results, schema):
    log = json.loads(render_sarif(results, rules=RULES, tool_version="1.2.3", suppressed=2))
    assert validate(log, schema) == []
    assert log["$schema"] == schema["id"] and log["version"] == "2.1.0"
    # the check has teeth: what the schema forbids is reported
    broken = copy.deepcopy(log)
    broken["runs"][0]["results"][0]["level"] = "manual"
    del broken["runs"][0]["tool"]["driver"]["name"]
    broken["runs"][0]["results"][1]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0
    assert len(validate(broken, schema)) == 3


def test_sarif_tool_rules_and_results(results):
    log = json.loads(render_sarif(results, rules=RULES, tool_version="1.2.3", suppressed=2))
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "jax-codemod" and driver["version"] == "1.2.3"
    assert driver["rules"] == [
        {"id": rule.code, "name": rule.name, "shortDescription": {"text": rule.summary}} for rule in RULES
    ]
    assert run["columnKind"] == "unicodeCodePoints"
    assert run["properties"] == {"suppressed": 2}
    expected = all_findings(results)
    assert len(run["results"]) == len(expected) == 9
    for entry, (path, finding) in zip(run["results"], expected):
        assert entry["ruleId"] == finding.code == driver["rules"][entry["ruleIndex"]]["id"]
        assert entry["kind"] == "fail"
        assert entry["level"] == {"fixed": "note", "dropped": "note", "manual": "warning"}[finding.kind.value]
        assert entry["message"] == {"text": f"[{finding.kind.value}] {finding.message}"}
        assert entry["properties"]["kind"] == finding.kind.value
        (location,) = entry["locations"]
        artifact = location["physicalLocation"]["artifactLocation"]
        assert artifact["uriBaseId"] == "%SRCROOT%"
        assert urlsplit(artifact["uri"]).scheme == "" and " " not in artifact["uri"]
        assert unquote(artifact["uri"]) == path
        assert location["physicalLocation"]["region"] == {
            "startLine": finding.line, "startColumn": finding.column,
            "endLine": finding.end_line, "endColumn": finding.end_column,
        }
        assert ("fixes" in entry) == (finding.kind in (Kind.FIXED, Kind.DROPPED))
        assert entry["properties"].get("applicable") is (finding.fix.applied if finding.fix else None)
        assert entry["properties"].get("applied") is (False if finding.fix else None), "a dry run writes nothing"
    uris = [e["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for e in run["results"]]
    assert "src/my%20kernels/kw%20%231.py" in uris


def test_sarif_reports_the_file_it_could_not_process(results):
    (run,) = json.loads(render_sarif(results, rules=RULES, tool_version="1"))["runs"]
    (invocation,) = run["invocations"]
    assert invocation["executionSuccessful"] is False
    (notification,) = invocation["toolExecutionNotifications"]
    assert notification["level"] == "error"
    assert notification["message"]["text"] == "src/broken.py: " + by_path(results)["src/broken.py"].error
    with pytest.raises(SyntaxError) as parse_error:  # the line Python itself says the file breaks on
        compile(BROKEN, "broken.py", "exec")
    assert notification["locations"] == [
        {"physicalLocation": {"artifactLocation": {"uri": "src/broken.py", "uriBaseId": "%SRCROOT%"},
                              "region": {"startLine": parse_error.value.lineno}}}]
    # The other machine formats place it on that line too.
    (gitlab,) = [entry for entry in json.loads(render_gitlab(results)) if entry["location"]["path"] == "src/broken.py"]
    assert gitlab["location"]["lines"] == {"begin": parse_error.value.lineno}
    (rdjson,) = [d for d in json.loads(render_rdjson(results))["diagnostics"] if d["severity"] == "ERROR"]
    assert rdjson["location"] == {"path": "src/broken.py", "range": {"start": {"line": parse_error.value.lineno}}}
    fine = [r for r in results if r.error is None]
    (run,) = json.loads(render_sarif(fine, rules=RULES, tool_version="1"))["runs"]
    assert run["invocations"] == [{"executionSuccessful": True}]


def apply_replacements(text: str, replacements: list[dict]) -> str:
    """What a SARIF consumer does with a fix: regions in lines and columns of the original text."""
    lines = re.split("(?<=\n)", text)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(line: int, column: int) -> int:
        assert 1 <= line <= len([part for part in lines if part]), "region outside the file"
        assert column <= len(lines[line - 1].rstrip("\r\n")) + 1, "column past the end of its line"
        return starts[line - 1] + column - 1

    spans = []
    for replacement in replacements:
        region = replacement["deletedRegion"]
        spans.append((offset(region["startLine"], region["startColumn"]),
                      offset(region["endLine"], region["endColumn"]),
                      replacement.get("insertedContent", {}).get("text", "")))
    for start, end, inserted in sorted(spans, reverse=True):
        text = text[:start] + inserted + text[end:]
    return text


def test_sarif_fixes_rebuild_the_rewritten_file(results):
    log = json.loads(render_sarif(results, rules=RULES, tool_version="1"))
    json_fixes = fixes_by(json.loads(render_json(results, rules=RULES)))
    per_file: dict[str, list[dict]] = {}
    for entry in log["runs"][0]["results"]:
        if "fixes" not in entry:
            continue
        (fix,) = entry["fixes"]
        (change,) = fix["artifactChanges"]
        path = unquote(change["artifactLocation"]["uri"])
        region = entry["locations"][0]["physicalLocation"]["region"]
        assert entry["properties"]["patch"] == json_fixes[(path, region["startLine"])]
        for replacement in change["replacements"]:
            if replacement not in per_file.setdefault(path, []):
                per_file[path].append(replacement)
    assert set(per_file) == CHANGED
    for path, replacements in per_file.items():
        result = by_path(results)[path]
        assert apply_replacements(result.raw.decode(result.encoding), replacements) == result.after, path
    # the fix of the dropped hint: the helper insertion and the call, nothing else
    (norm,) = [e for e in log["runs"][0]["results"] if e["ruleId"] == "JAX002"]
    inserted = [r["deletedRegion"] for r in norm["fixes"][0]["artifactChanges"][0]["replacements"]]
    line = NORM.decode().splitlines()[13]
    call = line.index("lax.rsqrt")
    assert inserted == [{"startLine": 5, "startColumn": 1, "endLine": 5, "endColumn": 1},
                        {"startLine": 14, "startColumn": call + 1, "endLine": 14, "endColumn": len(line)}]
    assert norm["fixes"][0]["artifactChanges"][0]["replacements"][1]["insertedContent"] == {
        "text": "rsqrt_safe(mean_sq + EPS"}
    # on the file's last line: the region is the changed characters, within the line (no line 13)
    (tail,) = [e for e in log["runs"][0]["results"]
               if e["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "src/tail_lf.py"]
    (replacement,) = tail["fixes"][0]["artifactChanges"][0]["replacements"]
    last_line = TAIL.decode().splitlines()[11]
    pair = "(lax.Precision.DEFAULT, lax.Precision.HIGHEST)"
    assert replacement["deletedRegion"] == {"startLine": 12, "startColumn": last_line.index(pair) + 1,
                                            "endLine": 12, "endColumn": last_line.index(pair) + len(pair) + 1}
    assert replacement["insertedContent"]["text"] == "lax.Precision.HIGHEST"


def synthetic(raw: bytes, new: bytes, line: int, end_line: int) -> FileResult:
    return FileResult("x.py", parsed=True, new_source=new, raw=raw, after=new.decode(),
                      findings=[fixed(raw, new, line, end_line)])


@pytest.mark.parametrize(("raw", "new", "line", "end_line"), [
    (b"a = 1\nb = 2\nc = 3\n", b"a = 1\n", 2, 3),  # the last lines deleted
    (b"a = 1\n", b"a = 1\nb = 2\n", 1, 1),  # lines added at the end
    (b"a = 1\r\nb = 2\r\n", b"a = 1\r\n", 2, 2),  # CRLF
    (b"a = 1\nb = 2", b"a = 1\nb = 3", 2, 2),  # no final newline
    (b"a = 1\nb = 2\n", b"b = 2\n", 1, 1),  # the first line deleted
])
def test_sarif_replacements_at_the_edges_of_a_file(raw, new, line, end_line, schema):
    result = synthetic(raw, new, line, end_line)
    log = json.loads(render_sarif([result], rules=RULES, tool_version="1"))
    assert validate(log, schema) == []
    (entry,) = log["runs"][0]["results"]
    replacements = entry["fixes"][0]["artifactChanges"][0]["replacements"]
    assert apply_replacements(raw.decode(), replacements) == new.decode()


def test_sarif_leaves_out_a_fix_it_cannot_say_exactly_and_keeps_the_patch(schema):
    # the final newline removed: no region reaches past it, so no `fixes`; the patch stays
    result = synthetic(b"a = 1\nb = 2\n", b"a = 1\nc = 3", 2, 2)
    log = json.loads(render_sarif([result], rules=RULES, tool_version="1"))
    assert validate(log, schema) == []
    (entry,) = log["runs"][0]["results"]
    assert "fixes" not in entry
    assert entry["properties"]["patch"] == unified_diff("x.py", result.raw, result.new_source).decode()


def test_sarif_absolute_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    inside = FileResult(str(tmp_path / "pkg" / "a b.py"), parsed=True,
                        findings=[Finding("JAX001", Kind.MANUAL, 3, 1, "m")])
    outside = FileResult("/elsewhere/c.py", parsed=True, findings=[Finding("JAX001", Kind.MANUAL, 3, 1, "m")])
    log = json.loads(render_sarif([inside, outside], rules=RULES, tool_version="1"))
    locations = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in log["runs"][0]["results"]]
    assert locations == [{"uri": "file:///elsewhere/c.py"}, {"uri": "pkg/a%20b.py", "uriBaseId": "%SRCROOT%"}]
    # an unknown end: the region has a start only
    assert log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 3, "startColumn": 1}


# -- GitHub Actions --


def test_github_annotations(results):
    r = by_path(results)

    def message(path: str, line: int) -> str:
        (finding,) = [f for f in r[path].findings if f.line == line]
        return finding.message

    def where(path: str, line: int) -> str:
        (finding,) = [f for f in r[path].findings if f.line == line]
        return f"line={line},col={finding.column},endLine={line},endColumn={finding.end_column}"

    with pytest.raises(SyntaxError) as parse_error:  # where Python itself says the file breaks
        compile(BROKEN, "broken.py", "exec")
    lines = render_github(results, suppressed=4).splitlines()
    assert lines == [
        f"::error file=src/broken.py,line={parse_error.value.lineno},col={parse_error.value.offset},"
        "title=jax-codemod::" + r["src/broken.py"].error,
        f"::warning file=src/kw.py,{where('src/kw.py', 7)},title=JAX001 [manual]::{message('src/kw.py', 7)}",
        f"::notice file=src/latin1.py,{where('src/latin1.py', 10)},title=JAX001 [fixed]::"
        + message("src/latin1.py", 10),
        f"::notice file=src/matmul.py,{where('src/matmul.py', 8)},title=JAX001 [fixed]::"
        + message("src/matmul.py", 8),
        f"::notice file=src/matmul.py,{where('src/matmul.py', 17)},title=JAX001 [fixed]::"
        + message("src/matmul.py", 17),
        f"::warning file=src/my kernels/kw #1.py,{where('src/my kernels/kw #1.py', 7)},title=JAX001 [manual]::"
        + message("src/my kernels/kw #1.py", 7),
        f"::notice file=src/norm.py,{where('src/norm.py', 14)},title=JAX002 [dropped]::"
        + message("src/norm.py", 14),
        f"::notice file=src/tail_crlf.py,{where('src/tail_crlf.py', 12)},title=JAX001 [fixed]::"
        + message("src/tail_crlf.py", 12),
        f"::notice file=src/tail_lf.py,{where('src/tail_lf.py', 12)},title=JAX001 [fixed]::"
        + message("src/tail_lf.py", 12),
        f"::notice file=src/tail_no_newline.py,{where('src/tail_no_newline.py', 12)},title=JAX001 [fixed]::"
        + message("src/tail_no_newline.py", 12),
    ]
    # the real numbers, once: the [manual] **kwargs call spans `jnp.dot(...)` on line 7
    assert lines[1].startswith("::warning file=src/kw.py,line=7,col=18,endLine=7,endColumn=59,title=JAX001 [manual]::")
    # messages keep `:` and `,` (only properties escape them)
    assert "::jnp.dot: precision (DEFAULT, HIGHEST) -> HIGHEST" in lines[3]


def test_github_escaping_as_the_actions_toolkit_does():
    tricky = FileResult("src/a,b:c%.py", parsed=True, findings=[
        Finding("JAX001", Kind.MANUAL, 3, 5, "100% sure: a, b\r\nnext line", 3, 9),
        Finding("JAX003", Kind.WARNING, 10, 2, "spans lines", 12, 4),
        Finding("JAX002", Kind.DROPPED, 20, 1, "end unknown"),
        Finding("JAX001", Kind.FIXED, 1, 1, "an empty span at the start", 1, 1),
    ])
    broken = FileResult("src/bad.py", error="cannot read: 50% of it: gone,\nreally")
    # A notebook's parse error names a cell's line: the annotation stays on the file (its lines are JSON).
    in_a_cell = FileResult("src/nb.ipynb", error="cannot parse: invalid syntax (cell 2, line 1, column 5)")
    assert render_github([tricky, broken, in_a_cell]) == (
        "::notice file=src/a%2Cb%3Ac%25.py,line=1,col=1,endLine=1,endColumn=1,title=JAX001 [fixed]"
        "::an empty span at the start\n"
        "::warning file=src/a%2Cb%3Ac%25.py,line=3,col=5,endLine=3,endColumn=9,title=JAX001 [manual]"
        "::100%25 sure: a, b%0D%0Anext line\n"
        "::warning file=src/a%2Cb%3Ac%25.py,line=10,endLine=12,title=JAX003 [warning]::spans lines\n"
        "::notice file=src/a%2Cb%3Ac%25.py,line=20,col=1,title=JAX002 [dropped]::end unknown\n"
        "::error file=src/bad.py,title=jax-codemod::cannot read: 50%25 of it: gone,%0Areally\n"
        "::error file=src/nb.ipynb,title=jax-codemod::cannot parse: invalid syntax (cell 2, line 1, column 5)\n"
    )
    assert formats.escape_property("a:b,c%d\re\nf") == "a%3Ab%2Cc%25d%0De%0Af"
    assert formats.escape_data("a:b,c%d\re\nf") == "a:b,c%25d%0De%0Af"
    assert render_github([]) == ""


@pytest.mark.parametrize("applicability, applied, label", [
    (Applicability.SAFE, True, "fixed"),
    (Applicability.SAFE, False, "fixed, not applied"),  # declined in --interactive
    (Applicability.UNSAFE, True, "fixed, unsafe"),
    (Applicability.UNSAFE, False, "fixed, unsafe fix: --unsafe-fixes"),
])
def test_the_text_label_says_whether_the_fix_was_applied(applicability: Applicability, applied: bool,
                                                         label: str) -> None:
    finding = Finding("JAX001", Kind.FIXED, 3, 7, "jnp.dot: ...", fix=Fix(applicability, applied=applied))
    assert finding.render("k.py") == f"k.py:3:7: JAX001 [{label}] jnp.dot: ..."
