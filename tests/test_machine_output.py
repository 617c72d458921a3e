"""Machine-readable stdout parses alone, whatever else the run is asked to do.

A CI job pipes `--output-format X` into a file a review tool reads: one stray line on stdout (a
file list from `--check`, a diff, a progress message) and the tool rejects the whole report. Each
format is run under each flag that changes what a run prints or writes, over a project holding a
safe fix, an unsafe fix, a [manual] finding, a notebook, a clean file, a file that does not parse
and one that does not decode; stdout must parse as that format and name what the run found.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from xml.etree import ElementTree

import jsonschema
import pytest
from typer.testing import CliRunner

from codemods.cli import app
from tests.test_formats import SCHEMA_PATH
from tests.test_review_formats import SCHEMAS, _junit_problems

FIXTURES = Path(__file__).parent / "fixtures"
UNSAFE = FIXTURES / "accuracy" / "accuracy_mode_import_becomes_unused.in.py"  # JAX002, unsafe only
NOTEBOOK = {"cells": [{"cell_type": "code", "execution_count": None, "id": "c1", "metadata": {}, "outputs": [],
                       "source": ["import jax\n", "y = jax.tree_map(abs, [1])"]}],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}

FLAGS = {
    "dry-run": (),
    "check": ("--check",),
    "write": ("--write",),
    "write-unsafe": ("--write", "--unsafe-fixes"),
    "quiet": ("--quiet",),
    "exit-zero": ("--exit-zero",),
    "diff-base": ("--diff-base", "HEAD"),
    "warm-cache": ("WARM",),  # the same run twice, the second from the cache
}


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("machine") / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "safe.py").write_text("import jax\n\ny = jax.tree_map(abs, [1])\n")
    (root / "pkg" / "manual.py").write_text("import jax\n\nxs = jax.device_put_replicated(1, jax.devices())\n")
    (root / "pkg" / "clean.py").write_text("import jax\n\ny = jax.tree.map(abs, [1])\n")
    shutil.copy(UNSAFE, root / "pkg" / "unsafe.py")
    (root / "nb.ipynb").write_text(json.dumps(NOTEBOOK, indent=1) + "\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q",
                    "--allow-empty", "-m", "base"], check=True)
    # Untracked, so `--diff-base HEAD` names them all; the two bad files come last, as the run goes on.
    (root / "pkg" / "broken.py").write_text("import jax\ny = jax.tree_map(abs, [1]\n")
    (root / "pkg" / "latin1.py").write_bytes(b"import jax\nname = '\xe9'\ny = jax.tree_map(abs, [1])\n")
    return root


def run(project: Path, output: str, flags: tuple[str, ...], monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(project)
    monkeypatch.setenv("JAX_CODEMOD_CACHE_DIR", str(project.parent / "cache"))
    warm = flags == ("WARM",)
    args = ["--select", "JAX0,JAX1", "--jax-version", "0.12.0.1", "--output-format", output,
            *(() if warm else flags), *(() if warm or "--diff-base" in flags else (".",))]
    invoke = lambda: CliRunner().invoke(app, args, catch_exceptions=False)  # noqa: E731
    if warm:
        invoke()
    return invoke()


def _schema_errors(document, schema_path: Path) -> list[str]:
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    checker = jsonschema.validators.validator_for(schema)(schema)
    return [error.message for error in checker.iter_errors(document)]


def parsed(output: str, stdout: str) -> str:
    """stdout parsed as `output` (AssertionError if it does not); the text that names the findings."""
    if output == "json":
        document = json.loads(stdout)
        return json.dumps([finding["rule"] for finding in document["findings"]])
    if output == "sarif":
        document = json.loads(stdout)
        assert _schema_errors(document, SCHEMA_PATH) == []
        return json.dumps([result["ruleId"] for result in document["runs"][0]["results"]])
    if output in ("rdjson", "gitlab"):
        document = json.loads(stdout)
        assert _schema_errors(document, SCHEMAS[output]) == []
        return stdout
    if output == "junit":
        assert _junit_problems(stdout) == []
        return ElementTree.tostring(ElementTree.fromstring(stdout), encoding="unicode")
    assert output == "github"
    lines = stdout.splitlines()
    assert lines and all(re.match(r"::(error|warning|notice)( [^:]*)?::", line) for line in lines), stdout
    return stdout


@pytest.mark.parametrize("flags", FLAGS.values(), ids=FLAGS.keys())
@pytest.mark.parametrize("output", ["json", "sarif", "rdjson", "gitlab", "junit", "github"])
def test_stdout_is_the_report_alone(template: Path, tmp_path: Path, output: str, flags: tuple[str, ...],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "proj"
    shutil.copytree(template, project, symlinks=True)
    result = run(project, output, flags, monkeypatch)
    assert result.exit_code == 2, result.stderr  # the two bad files: errors, reported, the run went on
    named = parsed(output, result.stdout)
    for code in ("JAX101", "JAX193", "JAX002"):  # safe, [manual] and unsafe, whatever was written
        assert code in named, (code, result.stdout[:2000])
    if output == "json":
        errors = {Path(entry["path"]).name for entry in json.loads(result.stdout)["errors"]}
        assert errors == {"broken.py", "latin1.py"}
    if "--write" in flags:  # written, and the report still parses
        assert "jax.tree.map" in (project / "pkg" / "safe.py").read_text()
