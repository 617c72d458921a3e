"""Whole packages: kernel bodies, helpers and launchers in different modules (codemods/analysis/project/).

Each case under tests/fixtures/packages/<case>/ holds an `in/` tree, the `out/` tree the tool writes
(every fix applied) and `findings` (paths relative to `in/`). Regenerate with `--update-goldens`,
then read the diff. Beyond the goldens: the rewritten package lowers for TPU where the original
fails (JAX itself decides), the findings of one file, of a shard or of a cache hit equal the whole
run's, and bad input in one module never stops the analysis of the others.
"""

from __future__ import annotations

import ast
import collections
import json
import filecmp
import importlib
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Callable

import pytest

from codemods.analysis.kernel_scope import NO_LAUNCH_FOUND, ModuleFacts
from codemods.analysis.project import ProjectIndex
from codemods.engine.cache import ResultCache
from codemods.engine.diagnostics import Kind, apply_text_edits
from codemods.engine.discovery import Shard, discover
from codemods.engine.report import render_findings
from codemods.engine import runner
from codemods.engine.runner import run
from codemods.registry import select
from codemods.settings import Scope, Settings
from tests.test_project_index import read_bytes

PACKAGES = Path(__file__).parent / "fixtures" / "packages"
CASES = sorted(path for path in PACKAGES.iterdir() if (path / "in").is_dir())
SETTINGS = Settings((0, 12, 0, 1), unsafe_fixes=True)


def _run(root: Path, files=None, cache=None, shard: bool = False) -> list:
    """The tool over the package at `root` (or only over `files` of it, the package still indexed)."""
    project = discover([root])
    return run(files or [root], select(), SETTINGS, jobs=1, cache=cache, project=project, shard=shard)


def _as_the_whole_run(alone: list, whole: list, label: str) -> None:
    """A run over some files gives the whole run's findings for them, and one more kind: at a kernel's
    call whose value is fixed in a file the run does not process, a [manual] note saying so."""
    elsewhere = [f for f in alone if "a file this run does not process" in f.message]
    assert all(f.kind is Kind.MANUAL for f in elsewhere), label
    assert [f for f in alone if f not in elsewhere] == whole, label


def _findings(results: list, root: Path) -> str:
    text = render_findings(results)
    return text.replace(str(root) + os.sep, "").replace(str(root), ".")


@pytest.fixture
def copy_of(tmp_path: Path):
    def copy(case: Path, part: str = "in") -> Path:
        target = tmp_path / case.name / part
        shutil.copytree(case / part, target)
        return target
    return copy


@pytest.mark.parametrize("case", CASES, ids=lambda path: path.name)
def test_package_golden(case: Path, copy_of, update_goldens: bool) -> None:
    root = copy_of(case)
    results = _run(root)
    assert not [r for r in results if r.error], [r.error for r in results if r.error]
    for result in results:
        if result.new_source is not None:
            Path(result.path).write_bytes(result.new_source)
    findings = _findings(results, root)
    if update_goldens:
        shutil.rmtree(case / "out", ignore_errors=True)
        shutil.copytree(root, case / "out", ignore=shutil.ignore_patterns("__pycache__"))
        (case / "findings").write_text(findings)
    comparison = filecmp.dircmp(root, case / "out", ignore=["__pycache__"])
    assert _differences(comparison) == [], "the rewritten package differs from out/"
    assert findings == (case / "findings").read_text()


def _differences(comparison: filecmp.dircmp) -> list[str]:
    found = [*comparison.left_only, *comparison.right_only, *comparison.diff_files]
    for sub in comparison.subdirs.values():
        found += _differences(sub)
    return found


@pytest.mark.parametrize("case", CASES, ids=lambda path: path.name)
def test_one_file_and_shards_see_what_the_whole_run_sees(case: Path, copy_of) -> None:
    """Pre-commit names one file, CI matrices run shards: the kernel launched from another module
    is found either way, and nothing is reported twice or lost. One file alone also says, at a
    kernel's call, that its value is fixed in a file the run does not process ([manual]: its
    `--check` fails, as the whole run's does); a shard leaves that to the shard holding the file."""
    root = copy_of(case)
    whole = {r.path: r.findings for r in _run(root)}
    for path in discover([root]):
        (alone,) = _run(root, [path])
        _as_the_whole_run(alone.findings, whole[str(path)], f"{path.relative_to(root)} alone")
    for index in (1, 2, 3):
        shard = Shard(index, 3)
        files = [path for path in discover([root]) if shard.holds(path, root)]
        for result in _run(root, files, shard=True) if files else []:
            assert result.findings == whole[result.path], f"shard {index}/3: {result.path}"


# Lone modules (no package), as a repository of scripts, tests and examples holds them: `kern.py`'s
# body is launched in `launch.py` through a re-export in `bodies.py` (launch.py never imports kern);
# `other.py`, which launches a kernel of its own, passes a pair through the helper `kern.py` calls.
# The link follows values without telling callers apart: `shared.pick` returns to kern.py what
# other.py passes it too, so kern.py's answer depends on a module that neither it nor its importers
# import. `solo.py` launches its own kernel with a pair from `solo_config.py`, and imports no other
# module of the project; nor does `tiles.py`, which launches a kernel without a dot.
SCRIPTS = {
    "shared.py": "def pick(precision):\n    return precision\n",
    "kern.py": "import jax.numpy as jnp\n\nimport shared\n\n\ndef body(x_ref, o_ref):\n"
               "    o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=shared.pick(None))\n",
    "bodies.py": "from kern import body  # noqa: F401 - re-exported\n",
    "launch.py": "import jax\nfrom jax.experimental import pallas as pl\n\nimport bodies\n\n\ndef run(x):\n"
                 "    return pl.pallas_call(bodies.body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)\n",
    "other.py": "import jax\nimport jax.numpy as jnp\nfrom jax import lax\nfrom jax.experimental import pallas as pl\n\n"
                "import shared\n\nPAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)\n\n\ndef reference(x):\n"
                "    return jnp.dot(x, x, precision=shared.pick(PAIR))\n\n\ndef copy_body(x_ref, o_ref):\n"
                "    o_ref[...] = x_ref[...]\n\n\ndef copy(x):\n"
                "    return pl.pallas_call(copy_body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)\n",
    "solo.py": "import jax\nimport jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n\n"
               "from solo_config import PAIR\n\n\ndef body(x_ref, o_ref):\n"
               "    o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=PAIR)\n\n\ndef run(x):\n"
               "    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)\n",
    "solo_config.py": "from jax import lax\n\nPAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)\n",
    "tiles.py": "import jax\nfrom jax.experimental import pallas as pl\n\n\ndef copy_body(x_ref, o_ref):\n"
                "    o_ref[...] = x_ref[...]\n\n\ndef copy(x):\n"
                "    return pl.pallas_call(copy_body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)\n",
}
# Two more scripts of their own, so that what a run over kern.py links (the five modules that launch, hold
# or reach its body, linked as a package's are: `flow.flat_imports`) is less than half the project's.
SCRIPTS.update({f"tiles_{copy}.py": SCRIPTS["tiles.py"] for copy in "bc"})


def _scripts(tmp_path: Path) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    for name, code in SCRIPTS.items():
        (tmp_path / name).write_text(code)
    return tmp_path


def test_one_file_answers_as_the_whole_run_where_a_helper_mixes_its_callers(tmp_path: Path) -> None:
    """A run over one file links fewer modules (`ProjectIndex._link_scope`), and its answers are the
    whole run's: kern.py's depends on other.py, which is neither kern.py's importer nor launches it."""
    root = _scripts(tmp_path)
    whole = {r.path: r.findings for r in _run(root)}
    (finding,) = whole[str(root / "kern.py")]
    assert "written in `other`" in finding.message and finding.kind is Kind.MANUAL, finding
    for path in discover([root]):
        (alone,) = _run(root, [path])
        _as_the_whole_run(alone.findings, whole[str(path)], f"{path.name} alone")
    for index in (1, 2, 3):
        files = [path for path in discover([root]) if Shard(index, 3).holds(path, root)]
        for result in _run(root, files, shard=True) if files else []:
            assert result.findings == whole[result.path], f"shard {index}/3: {result.path}"


def test_a_run_over_one_file_links_only_what_its_answers_need(tmp_path: Path) -> None:
    """solo.py's answers need solo.py (and solo_config.py, which it imports); kern.py's need what may
    reach what its link reads (the shared helper: other.py), not solo.py nor tiles.py; the whole
    project's, every module."""
    root = _scripts(tmp_path)
    project = discover([root])

    def read(targets):
        index = runner.project_index(project, select(), SETTINGS, targets=targets)
        assert index is not None
        return index.flow_modules, {path.name: index.facts(path).flow for path in project}

    everything, whole = read(None)
    assert everything == {"solo", "solo_config", "tiles", "tiles_b", "tiles_c", "launch", "other", "kern", "bodies", "shared"}
    for name, modules in (("solo.py", {"solo", "solo_config"}),
                          ("kern.py", everything - {"solo", "solo_config", "tiles", "tiles_b", "tiles_c"})):
        linked, flow = read([root / name])
        assert linked == modules and flow[name] == whole[name], name


def test_an_import_its_import_lines_miss_makes_a_run_over_one_file_link_the_whole_project(tmp_path: Path) -> None:
    """`_link_scope` reads import lines; an import after a semicolon is not one, but the link reads
    the module it imports (the shared helper, which other.py passes a pair): what the link read lies
    outside what the scope allowed for, so the whole project is linked, and answers as before."""
    root = _scripts(tmp_path)
    (root / "hidden.py").write_text(
        "import jax\nimport jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n\nSTEPS = 1; import shared\n\n\n"
        "def body(x_ref, o_ref):\n    o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=shared.pick(None))\n\n\n"
        "def run(x):\n    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)\n")
    whole = {r.path: r.findings for r in _run(root)}
    (finding,) = whole[str(root / "hidden.py")]
    assert "written in `other`" in finding.message, finding
    assert _run(root, [root / "hidden.py"])[0].findings == whole[str(root / "hidden.py")]


def test_answers_kept_from_a_run_over_one_file_serve_only_runs_they_answer_for(tmp_path: Path) -> None:
    """The project state keeps what the link started from: a whole run after a run over kern.py
    (nothing changed between them) links the whole project, whose answers a run over solo.py takes
    (the fix of the pair solo.py's kernel reads is solo_config.py's, from the link)."""
    root = _scripts(tmp_path / "scripts")
    cache = ResultCache(tmp_path / "cache", SETTINGS)
    cold = {r.path: r.findings for r in _run(root)}
    assert cold[str(root / "solo_config.py")]
    _as_the_whole_run(_run(root, [root / "kern.py"], cache)[0].findings, cold[str(root / "kern.py")], "kern.py")
    assert {r.path: r.findings for r in _run(root, cache=cache)} == cold
    _as_the_whole_run(_run(root, [root / "solo.py"], cache)[0].findings, cold[str(root / "solo.py")], "solo.py")


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "JAX_CODEMOD_CACHE_DIR": str(cwd / ".cache")}
    return subprocess.run([sys.executable, "-m", "codemods", *args, "--jax-version", "0.12.0.1"], cwd=cwd,
                          capture_output=True, text=True, env=env)


def test_pre_commit_on_the_kernel_module_alone_sees_the_launch_in_another_module(tmp_path: Path) -> None:
    """`pre-commit` names the staged file; the project root (here, its pyproject.toml) is indexed."""
    root = tmp_path / "project"
    shutil.copytree(PACKAGES / "kernels_across_modules" / "in", root)
    (root / "pyproject.toml").write_text("[project]\nname = 'tiles'\n")
    checked = _cli(root, "--check", "--force-exclude", "tiles/kernels.py")
    assert checked.returncode == 1 and "tiles/kernels.py" in checked.stdout, checked.stdout + checked.stderr
    for index in (1, 2):  # wherever the shard boundary falls, the kernels module is fixed in its shard
        _cli(root, "--write", "--unsafe-fixes", f"--shard={index}/2", ".")
    after = _cli(root, "--check", "--unsafe-fixes", ".")
    # Nothing left to write; the shared helper's [manual] note keeps --check failing (as Ruff's).
    assert after.returncode == 1 and "0 would change" in after.stderr, after.stdout + after.stderr
    assert "1 needs manual review" in after.stderr and after.stdout == ""


def test_a_cached_result_is_invalidated_by_an_edit_of_the_launching_module(copy_of, tmp_path: Path) -> None:
    """The kernels module does not change; the module that launches its body does."""
    root = copy_of(PACKAGES / "kernels_across_modules")
    cache = ResultCache(tmp_path / "cache", SETTINGS)
    kernels = root / "tiles" / "kernels.py"
    assert _run(root, [kernels], cache)[0].findings
    api = root / "tiles" / "api.py"
    api.write_text(api.read_text().replace("run(kernels.gated_body, x, w)", "kernels.gated_body"))
    fresh = _run(root, [kernels], cache)[0]
    # No launch of the body is left: only the note that a launch this analysis does not follow may run it.
    assert [(f.kind, NO_LAUNCH_FOUND in f.message) for f in fresh.findings if "matmul" in f.message] == \
        [(Kind.MANUAL, True)], "a stale cached result was reused"


def test_project_facts_cached_for_some_rules_are_not_used_for_others(copy_of, tmp_path: Path) -> None:
    root = copy_of(PACKAGES / "kernels_across_modules")
    cache = ResultCache(tmp_path / "cache", SETTINGS)
    project = discover([root])
    run([root], select(["JAX002"]), SETTINGS, jobs=1, cache=cache, project=project)
    cached = {r.path: r.findings for r in run([root], select(), SETTINGS, jobs=1, cache=cache, project=project)}
    assert cached == {r.path: r.findings for r in _run(root)}


@pytest.mark.parametrize("case", CASES, ids=lambda path: path.name)
def test_each_module_is_read_and_parsed_once_in_a_whole_run(case: Path, copy_of, monkeypatch) -> None:
    """The project index's read and parse of a module are the ones its rules use (one pass, not two)."""
    root = copy_of(case)
    sources = {path.read_text(): path for path in root.rglob("*.py")}
    parses: collections.Counter = collections.Counter()
    reads: collections.Counter = collections.Counter()
    parse, read = ast.parse, runner._read_file

    def counting_parse(source, *args, **kwargs):
        text = source.decode() if isinstance(source, bytes) else source
        parses[sources.get(text)] += 1
        return parse(source, *args, **kwargs)

    def counting_read(path):
        reads[Path(path).resolve()] += 1
        return read(path)

    monkeypatch.setattr(ast, "parse", counting_parse)
    monkeypatch.setattr(runner, "_read_file", counting_read)
    _run(root)
    del parses[None]
    fixed = {path for path in sources.values() if path.read_text() != (case / "out" / path.relative_to(root)).read_text()}
    assert fixed and fixed <= set(parses) and set(parses.values()) == {1}, parses
    assert set(reads) == {path.resolve() for path in sources.values()} and set(reads.values()) == {1}, reads


def test_a_module_no_kernel_reaches_is_not_parsed_for_its_facts(tmp_path: Path, monkeypatch) -> None:
    """Its precision may fail only in a kernel, and no kernel module imports it: the index answers
    from the import lines alone (a monorepo's plain modules cost no parse)."""
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "kernels.py").write_text(
        "from jax.experimental import pallas as pl\n\n\ndef body(x_ref, o_ref):\n    o_ref[...] = x_ref[...]\n")
    plain = tmp_path / "proj" / "numerics.py"
    plain.write_text("import jax.numpy as jnp\n\n\ndef mm(a, b):\n    return jnp.dot(a, b, precision=('high', 'highest'))\n")
    parse = ast.parse
    parsed: list = []
    monkeypatch.setattr(ast, "parse", lambda source, *a, **k: parsed.append(source) or parse(source, *a, **k))
    index = ProjectIndex(sorted((tmp_path / "proj").glob("*.py")), read_bytes, lambda code: True)
    assert index.facts(plain) == ModuleFacts() and plain.read_text() not in parsed


def test_bad_modules_do_not_stop_the_analysis(tmp_path: Path) -> None:
    """An import cycle, a module that does not parse, a relative import above the root and a name
    from a C extension: the kernel launched across modules is still found."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("from . import a\n")
    (package / "a.py").write_text("from . import b\nfrom ... import nothing\nfrom math import sqrt\n")
    (package / "b.py").write_text("from . import a\n")
    (package / "broken.py").write_text("from jax.experimental import pallas\ndef (:\n    return jnp.dot(precision=1)\n")
    (package / "body.py").write_text(
        "import jax.numpy as jnp\nfrom jax import lax\nfrom . import a, broken\n\n\n"
        "def body(x_ref, o_ref):\n"
        "    o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))\n")
    (package / "launch.py").write_text(
        "import jax\nimport jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n"
        "from math import sqrt\nfrom . import a\nfrom .body import body\nfrom .. import outside\n\n\n"
        "def go(x):\n    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))(x)\n"
        "\n\ndef other(x):\n    return pl.pallas_call(sqrt, out_shape=x)(x)\n")
    results = {Path(r.path).name: r for r in _run(tmp_path)}
    assert results["broken.py"].error and "cannot parse" in results["broken.py"].error
    assert [f.kind.value for f in results["body.py"].findings] == ["fixed"]


def _body_and_launch(root: Path, bound: str, matmul_parameters: str = "") -> list:
    """A package `pk` of two modules: `bodies.py` (never says pallas, writes no precision: its body's
    `precision=prec`), and `launch.py`, which launches that body through `partial(mm_body, <bound>)`;
    the tool's results over it."""
    package = root / "pk"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "bodies.py").write_text(
        "import jax.numpy as jnp\n\n\ndef mm_body(x_ref, y_ref, o_ref, *, prec, names=(), scale=1.0):\n"
        "    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], precision=prec) * scale\n")
    (package / "launch.py").write_text(
        "import functools\nimport jax\nfrom jax import lax\nfrom jax.experimental import pallas as pl\n"
        "from .bodies import mm_body\n\nP = lax.Precision\n\n\n"
        f"def matmul(x, y{matmul_parameters}):\n    body = functools.partial(mm_body, {bound})\n"
        "    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x, y)\n")
    return _run(root)


def test_a_body_whose_precision_another_module_passes_is_said_to_need_review(tmp_path: Path) -> None:
    """`precision=prec` takes what the launch in another module binds at run time. The body is
    kernel code all the same, and its module's rule says it cannot see the value (its module was
    not even parsed: `--check` passed)."""
    results = {Path(r.path).name: r for r in _body_and_launch(tmp_path, "prec=prec", ", prec")}
    [finding] = results["bodies.py"].findings
    assert (finding.code, finding.kind.value, finding.line) == ("JAX001", "manual", 5)
    assert "`prec` is a kernel parameter whose value is not bound in this module" in finding.message


@pytest.mark.parametrize("bound, found", [
    ("prec=(P.DEFAULT, P.HIGHEST)", ["[fixed] precision (DEFAULT, HIGHEST) -> HIGHEST (per-operand precision is "
                                     "rejected in Mosaic TPU kernels): it reaches jnp.dot in a kernel at `pk.bodies`"]),
    ("prec=P.HIGHEST, names=('float32', 'bfloat16')", []),  # a pair of strings under another name: not a precision
    ("prec=P.HIGHEST, scale=2.0", []),
], ids=["a-pair-of-members", "a-pair-of-strings", "a-number"])
def test_a_value_bound_to_another_modules_body_is_a_precision_if_it_is_a_pair_of_members(
        tmp_path: Path, bound: str, found: list) -> None:
    """The launching module binds the body's parameter by its own name (`prec`, not `precision`)."""
    said = [line for line in _findings(_body_and_launch(tmp_path, bound), tmp_path).splitlines()
            if line.startswith("pk/launch.py:")]
    assert len(said) == len(found) and all(text in line for text, line in zip(found, said)), said


# A body in `bodies.py` hands its precision to a helper in `ops.py` that passes it on
# (`precision=precision`): neither module writes `precision=` with a value. Each way of handing it
# a pair; `launch.py` launches `KERNELS["mixed"]`.
_HANDED_TO_A_HELPER = {
    "a-pair-passed-by-position": (
        "def body(x_ref, w_ref, o_ref):\n    o_ref[...] = ops.matmul(x_ref[...], w_ref[...], (P.DEFAULT, P.HIGHEST))\n\n\n"
        "KERNELS = {'mixed': body}\n"),
    "a-partial-in-a-dict": (
        "def body(x_ref, w_ref, o_ref, *, prec):\n    o_ref[...] = ops.matmul(x_ref[...], w_ref[...], prec)\n\n\n"
        "KERNELS = {'mixed': functools.partial(body, prec=(P.DEFAULT, P.HIGHEST))}\n"),
    "a-partial-in-a-comprehension": (
        "def body(x_ref, w_ref, o_ref, *, prec):\n    o_ref[...] = ops.matmul(x_ref[...], w_ref[...], prec)\n\n\n"
        "VARIANTS = [('mixed', (P.DEFAULT, P.HIGHEST)), ('fast', P.DEFAULT)]\n"
        "KERNELS = {name: functools.partial(body, prec=p) for name, p in VARIANTS}\n"),
}


# The helper passes it on by keyword, or by position (then its module says no word of precision).
_HELPERS = {
    "by-keyword": "import jax.numpy as jnp\n\n\ndef matmul(x, w, precision):\n    return jnp.dot(x, w, precision=precision)\n",
    "by-position": "from jax import lax\n\n\ndef matmul(x, w, p):\n"
                   "    return lax.dot_general(x, w, (((1,), (0,)), ((), ())), p)\n",
    # its default is what callers that leave it out get, not what these callers pass
    "with-a-default-of-None": "import jax.numpy as jnp\n\n\ndef matmul(x, w, precision=None):\n"
                              "    return jnp.dot(x, w, precision=precision)\n",
}


def _handed_to_a_helper(root: Path, bodies: str, helper: str) -> Path:
    package = root / "hh"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "ops.py").write_text(helper)
    (package / "bodies.py").write_text("import functools\n\nfrom jax.lax import Precision as P\n\nfrom . import ops\n\n\n"
                                       + bodies)
    (package / "launch.py").write_text(
        "import jax\nfrom jax.experimental import pallas as pl\n\nfrom . import bodies\n\n\n"
        "def run(x, w):\n    return pl.pallas_call(bodies.KERNELS['mixed'], "
        "out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x, w)\n")
    return package


@pytest.mark.parametrize("helper", _HELPERS.values(), ids=_HELPERS.keys())
@pytest.mark.parametrize("bodies", _HANDED_TO_A_HELPER.values(), ids=_HANDED_TO_A_HELPER.keys())
def test_a_pair_handed_to_a_helper_in_another_module_is_said_to_need_review(tmp_path: Path, bodies: str,
                                                                            helper: str) -> None:
    """A new user's package (a session's trial): `--check` passed and nothing was parsed, because
    the helper only passes its parameter on and the body's module writes no `precision=`. The
    helper's dot is kernel code whose precision its callers set: [manual], and `--check` fails.
    The whole-program value flow follows the pair from where it is written to the helper (a literal
    argument, a partial in a dict or made by a comprehension over a table of variants): it is fixed
    there, and the package lowers."""
    _handed_to_a_helper(tmp_path, bodies, helper)
    _fixed_and_lowered(tmp_path, "hh.launch", [("bodies.py", "JAX001", "fixed")])


# -- JAX lowers the rewritten package --

jax = pytest.importorskip("jax")


# Two (8, 128) x (128, 128) operands, as the generated and hand-written packages below take.
MATMUL_OPERANDS = ((8, 128), (128, 128))


def _lowering_error(root: Path, module: str, platform: str, shapes=MATMUL_OPERANDS) -> "str | None":
    """The error lowering `<module>.run` of the package under `root` raises for `platform` (None:
    it lowers); the package is imported fresh and forgotten after."""
    from tests import jax_support

    package = module.split(".")[0]
    sys.path.insert(0, str(root))
    try:
        function = importlib.import_module(module).run
        return jax_support.lowering_error(jax.jit(function), [jax.ShapeDtypeStruct(s, "float32") for s in shapes],
                                          platform)
    finally:
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
            del sys.modules[name]


def _package(root: Path, name: str, modules: dict[str, str]) -> Path:
    """The package `name` under `root`: an empty `__init__.py` and `modules` (file name: code)."""
    package = root / name
    package.mkdir()
    (package / "__init__.py").write_text("")
    for file, code in modules.items():
        (package / file).write_text(code)
    return package


def _fixed_and_lowered(root: Path, module: str, expected: list[tuple[str, str, str]]) -> None:
    """`<module>.run` of the package under `root` fails to lower for TPU (a per-operand pair); the
    tool, unsafe fixes on, reports `expected` ((file, code, kind) of each finding); written, the
    package lowers if every finding is a fix."""
    from tests import jax_support

    assert "Per-operand dot precision unsupported" in (_lowering_error(root, module, "tpu") or "")
    results = run([root], select(), Settings(jax_support.JAX_VERSION, unsafe_fixes=True), jobs=1)
    assert [(Path(r.path).name, f.code, f.kind.value) for r in results for f in r.findings] == expected
    for result in results:
        if result.new_source is not None:
            Path(result.path).write_bytes(result.new_source)
    if all(kind == "fixed" for _, _, kind in expected):
        assert _lowering_error(root, module, "tpu") is None


def _import_package(root: Path, name: str):
    sys.path.insert(0, str(root))
    try:
        for module in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[module]
        return importlib.import_module(f"{name}.api")
    finally:
        sys.path.remove(str(root))


# For each package: its module of launches, the launches that lower once fixed, those that still fail
# (with the [manual] finding that says why), and the operands.
LOWERED = {
    "kernels_across_modules": ("tiles", ("matmul", "gated", "aliased", "through_partial"), {"shared": "[manual] `shared_mix` runs in kernels and in plain XLA code"},
                               ((8, 128), (128, 128))),
    "launches_by_value_flow": ("flowpkg", ("zipped", "zipped_b", "unpacked", "factory", "tiled", "by_key", "numbered",
                                           "member"), {}, ((8, 128), (128, 128))),
    "unresolved_launches": ("dynpkg", ("gate",), {"mix": "[manual] jnp.dot: precision `(P.DEFAULT, P.HIGHEST)` may run in a kernel",
                                          "norm": "[manual] lax.rsqrt: accuracy=lax.AccuracyMode.HIGHEST may run in a kernel"},
                            ((8, 128), (128, 128))),
    "launches_across_modules_by_value": ("xmod", ("through_module_alias", "through_relative_module", "through_reexport",
                                                  "helper_elsewhere", "alias_elsewhere", "stored_elsewhere",
                                                  "alias_two_modules_away", "accuracy_bound_by_partial", "runner_class",
                                                  "class_attribute", "instance_member", "factory_argument",
                                                  "bound_in_its_module", "bound_by_a_pair_at_launch",
                                                  # fixed where written since the ninth trial's N1 (they were [manual])
                                                  "passed_to_a_helper", "bound_at_launch"),
                                         {},
                                         ((8, 128), (128, 128))),
    "factory_and_constant_across_modules": ("attn", ("attention", "scaled"), {}, ((128, 128), (128, 128))),
    "launchers_across_modules": ("launchy", ("through_partial", "through_partial_keyword", "through_helper"), {},
                                 ((8, 128), (128, 128))),
    # `unpacked`: the **PAIR its partial spreads is followed by the whole-program value flow, fixed where written
    "helpers_spelled_other_ways": ("spell", ("contract", "scaled", "bare", "nested", "default", "kwonly",
                                             "handed", "handed_by_default", "guarded", "unpacked"),
                                   {"shared_partial": "[manual] `mm_shared` runs in kernels and in plain XLA code, and "
                                                      "needs a rewrite for its kernel uses (other modules; plain XLA code: "
                                                      "other modules)"},
                                   ((8, 128), (128, 128))),
    # accuracy= handed on in **kwargs: dropped where it is written; the mapping plain XLA code reads too is a note
    "accuracy_across_modules": ("hintpkg", ("through_two_kwargs_layers", "dict_entry", "dict_call"),
                                {"shared_with_xla": "[manual] lax.log: **kwargs carry an accuracy= hint, which Mosaic TPU "
                                                    "rejects (\"Not implemented: accuracy\"): written in `hintpkg.numerics` "
                                                    "on line 6, which `jax.lax.log` outside kernels (hintpkg.api:24) also reads"},
                                ((8, 128),)),
}


def test_every_package_has_a_lowering_test() -> None:
    assert sorted(LOWERED) == sorted(case.name for case in CASES)


@pytest.mark.jax
@pytest.mark.parametrize("case", CASES, ids=lambda path: path.name)
def test_the_rewritten_package_lowers_for_tpu_and_the_original_does_not(case: Path, copy_of) -> None:
    """The tool's output for the installed jax; a launch it cannot fix still fails, and its finding says so."""
    from tests import jax_support

    package, fixed, unfixed, shapes = LOWERED[case.name]
    root = copy_of(case)
    results = run([root], select(), Settings(jax_support.JAX_VERSION, unsafe_fixes=True), jobs=1)
    for result in results:
        if result.new_source is not None:
            Path(result.path).write_bytes(result.new_source)
    operands = [jax.ShapeDtypeStruct(shape, "float32") for shape in shapes]
    original = _import_package(case / "in", package)
    rewritten = _import_package(root, package)
    for name in (*fixed, *unfixed):
        assert jax_support.lowering_error(jax.jit(getattr(original, name)), operands, "tpu"), name
    for name in fixed:
        assert jax_support.lowering_error(jax.jit(getattr(rewritten, name)), operands, "tpu") is None, name
    for name, finding in unfixed.items():
        assert jax_support.lowering_error(jax.jit(getattr(rewritten, name)), operands, "tpu"), name
        assert finding in _findings(results, root)


@pytest.mark.jax
def test_plain_xla_code_that_reads_an_accuracy_hint_a_kernel_reads_too_lowers_as_before(copy_of) -> None:
    """The hints dropped for the kernels of `accuracy_across_modules` leave its XLA code's hints (one
    read from the mapping a kernel spreads too) as they were: XLA honours them."""
    from tests import jax_support

    case = PACKAGES / "accuracy_across_modules"
    root = copy_of(case)
    results = run([root], select(), Settings(jax_support.JAX_VERSION, unsafe_fixes=True), jobs=1)
    assert any(result.new_source is not None for result in results)
    for result in results:
        if result.new_source is not None:
            Path(result.path).write_bytes(result.new_source)
    operand = jax.ShapeDtypeStruct((8, 128), "float32")
    for name in ("log_reference", "tanh_reference"):
        lowered = [jax.jit(getattr(_import_package(tree, "hintpkg"), name)).lower(operand).as_text()
                   for tree in (case / "in", root)]
        assert lowered[0] == lowered[1], name
        assert "accuracy" in lowered[0], name  # the hint is there to keep


def test_a_warm_run_over_an_unchanged_project_parses_nothing(copy_of, tmp_path: Path, monkeypatch) -> None:
    """The project facts and every file's result come from the cache (the pre-commit and CI case)."""
    root = copy_of(PACKAGES / "helpers_spelled_other_ways")
    cache = ResultCache(tmp_path / "cache", SETTINGS)
    cold = _run(root, cache=cache)
    parse = ast.parse
    parsed: list = []
    monkeypatch.setattr(ast, "parse", lambda source, *a, **k: parsed.append(source) or parse(source, *a, **k))
    warm = _run(root, cache=cache)
    assert [(r.path, r.findings) for r in warm] == [(r.path, r.findings) for r in cold]
    assert parsed == []


def test_a_package_entered_for_its_own_sake_leads_only_to_its_own_modules(tmp_path: Path, monkeypatch) -> None:
    """`from pkg import kernels` enters pkg/__init__.py; its import of another project package does
    not make that package kernel code (nor worth a parse)."""
    for folder in ("pkg", "other"):
        (tmp_path / folder).mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("import other.numerics\n")
    (tmp_path / "pkg" / "kernels.py").write_text("from jax.experimental import pallas as pl\n")
    (tmp_path / "main.py").write_text("from pkg import kernels\nfrom jax.experimental import pallas as pl\n")
    (tmp_path / "other" / "__init__.py").write_text("")
    numerics = tmp_path / "other" / "numerics.py"
    numerics.write_text("import jax.numpy as jnp\n\n\ndef mm(a, b):\n    return jnp.dot(a, b, precision=('high', 'highest'))\n")
    parse = ast.parse
    parsed: list = []
    monkeypatch.setattr(ast, "parse", lambda source, *a, **k: parsed.append(source) or parse(source, *a, **k))
    index = ProjectIndex(sorted(tmp_path.rglob("*.py")), read_bytes, lambda code: True)
    assert index.facts(numerics) == ModuleFacts() and numerics.read_text() not in parsed


def _library_like(root: Path, plain_users: int) -> Path:
    """pkg.ops.mm, used in a kernel of pkg.kern and by `plain_users` plain modules; ops imports from
    its own package, so its import lines name `pkg` as its users' do."""
    package = root / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "consts.py").write_text("SCALE = 2\n")
    (package / "ops.py").write_text(
        "import jax.numpy as jnp\nfrom jax import lax\n\nfrom pkg import consts\n\n\ndef mm(a, b):\n"
        "    return consts.SCALE * jnp.dot(a, b, precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))\n")
    (package / "kern.py").write_text(
        "import jax\nimport jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n\nfrom pkg import ops\n\n\n"
        "def body(x_ref, w_ref, o_ref):\n    o_ref[...] = ops.mm(x_ref[...], w_ref[...])\n\n\n"
        "run = pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))\n")
    for number in range(plain_users):
        (package / f"user_{number}.py").write_text("from pkg import ops\n\n\ndef f(a, b):\n    return ops.mm(a, b)\n")
    return package / "ops.py"


@pytest.mark.parametrize("plain_users, followed", [(15, True), (16, False)])
def test_a_name_more_than_sixteen_modules_use_is_taken_for_a_library_api(tmp_path: Path, plain_users: int,
                                                                           followed: bool) -> None:
    """Up to 16 other modules (the kernel's and 15 plain ones) are searched: mm runs in a kernel and
    in plain code, so it is reported, not rewritten. One more and the index stops following the name
    (jax's own `lax.dot_general` in a site-packages tree): no facts, no finding. The module itself,
    whose imports name its package too, is never counted among its users."""
    ops = _library_like(tmp_path, plain_users)
    results = _run(tmp_path)
    (result,) = [r for r in results if r.path == str(ops)]
    shared = [f for f in result.findings if "runs in kernels and in plain XLA code" in f.message]
    assert bool(shared) is followed, result.findings
    assert result.new_source is None


@pytest.mark.jax
@pytest.mark.parametrize("helper", _HELPERS.values(), ids=_HELPERS.keys())
@pytest.mark.parametrize("bodies", _HANDED_TO_A_HELPER.values(), ids=_HANDED_TO_A_HELPER.keys())
def test_a_pair_handed_to_a_helper_in_another_module_does_not_lower(tmp_path: Path, bodies: str, helper: str) -> None:
    """The [manual] finding above is no false alarm: each spelling fails on Mosaic TPU as the seed does."""
    _handed_to_a_helper(tmp_path, bodies, helper)
    error = _lowering_error(tmp_path, "hh.launch", "tpu")
    assert error is not None and "Per-operand dot precision unsupported" in error, error


def _accuracy_handed_to_a_helper(root: Path) -> None:
    """A Mosaic GPU kernel hands an accuracy hint to a helper of another module that passes it on
    (`accuracy=accuracy`, default None): that helper's rsqrt is kernel code."""
    _package(root, "gh", {
        "norms.py": "import jax.numpy as jnp\nfrom jax import lax\n\n\ndef inv_rms(x, accuracy=None):\n"
        "    return lax.rsqrt(jnp.mean(x * x) + 1e-6, accuracy=accuracy)\n",
        "launch.py": "import jax\nfrom jax import lax\nfrom jax.experimental.pallas import mosaic_gpu as plgpu\n\n"
        "from .norms import inv_rms\n\n\ndef run(x):\n"
        "    @plgpu.kernel(out_type=jax.ShapeDtypeStruct(x.shape, x.dtype))\n    def kernel(x_ref, o_ref):\n"
        "        o_ref[...] = x_ref[...] * inv_rms(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)\n\n"
        "    return kernel(x)\n",
    })


def _hint_dropped_and_lowered(tmp_path: Path, make: Callable[[Path], None], module: str, file: str) -> None:
    """Two copies of the package `make` writes: in the second the tool drops its one accuracy hint
    (in `file`), and `<module>.run` lowers for Mosaic GPU there, where the first raises."""
    from tests import jax_support

    if jax_support.JAX_VERSION < (0, 10):
        pytest.skip("accuracy= on lax.rsqrt: jax 0.10 and later")
    original, rewritten = tmp_path / "original", tmp_path / "rewritten"
    for root in (original, rewritten):
        root.mkdir()
        make(root)
    results = run([rewritten], select(), Settings(jax_support.JAX_VERSION), jobs=1)
    assert [(Path(r.path).name, f.code, f.kind.value) for r in results for f in r.findings] == [(file, "JAX002", "dropped")]
    for result in results:
        if result.new_source is not None:
            Path(result.path).write_bytes(result.new_source)
    errors = {root: _lowering_error(root, module, "cuda", ((16, 256),)) for root in (original, rewritten)}
    assert errors[original] is not None and "accuracy" in errors[original], errors[original]
    assert errors[rewritten] is None


@pytest.mark.jax
@pytest.mark.parametrize("written", [
    "from jax import lax\n\nfrom . import acts\n\nOPTS = {'accuracy': lax.AccuracyMode.HIGHEST}\n",
    # the import the fix leaves unused is on the line above the entry: one line diff of the file took
    # both for one edit, and the finding was placed on the import (1:1), its own edits that one
    "from . import acts\nfrom jax.lax import AccuracyMode\nOPTS = {'accuracy': AccuracyMode.HIGHEST}\n",
], ids=["attribute", "imported-name-above"])
def test_a_hint_a_mosaic_gpu_kernel_reads_from_its_wrappers_kwargs_is_dropped_where_written_and_it_lowers(
        tmp_path: Path, written: str) -> None:
    """A Mosaic GPU kernel closes over its wrapper's **kwargs and spreads them into lax.exp; another
    module splats a dict holding accuracy= into the wrapper. The entry becomes None in that dict
    (unsafe), the import that held the hint's name goes, the finding stands on the entry with its
    own edits, and the package lowers for Mosaic GPU where the original raises."""
    from tests import jax_support

    if jax_support.JAX_VERSION < (0, 10):
        pytest.skip("accuracy= on lax.exp: jax 0.10 and later")
    modules = {
        "acts.py": "import jax\nfrom jax import lax\nfrom jax.experimental.pallas import mosaic_gpu as plgpu\n\n\n"
        "def exp(x, **exp_kwargs):\n    @plgpu.kernel(out_type=jax.ShapeDtypeStruct(x.shape, x.dtype))\n"
        "    def kernel(x_ref, o_ref):\n        o_ref[...] = lax.exp(x_ref[...], **exp_kwargs)\n\n    return kernel(x)\n",
        "launch.py": f"{written}\n\ndef run(x):\n    return acts.exp(x, **OPTS)\n",
    }
    original, rewritten = tmp_path / "original", tmp_path / "rewritten"
    for root in (original, rewritten):
        root.mkdir()
        _package(root, "gs", modules)
    results = run([rewritten], select(), Settings(jax_support.JAX_VERSION, unsafe_fixes=True), jobs=1)
    assert [(Path(r.path).name, f.code, f.kind.value) for r in results for f in r.findings] == [
        ("launch.py", "JAX002", "dropped")]
    for result in results:
        if result.new_source is not None:
            Path(result.path).write_bytes(result.new_source)
    after = (rewritten / "gs" / "launch.py").read_text()
    assert "OPTS = {'accuracy': None}" in after and "AccuracyMode" not in after and "lax" not in after
    (finding,) = results[[Path(r.path).name for r in results].index("launch.py")].findings
    entry = written.count("\n", 0, written.index("OPTS")) + 1
    assert (finding.line, finding.column) == (entry, len("OPTS = {'accuracy': ") + 1)
    assert len(finding.fix.edits) == 2 and apply_text_edits(modules["launch.py"], finding.fix.edits) == after
    errors = {root: _lowering_error(root, "gs.launch", "cuda", ((16, 256),)) for root in (original, rewritten)}
    assert errors[original] is not None and "accuracy" in errors[original], errors[original]
    assert errors[rewritten] is None


@pytest.mark.jax
@pytest.mark.parametrize("imported, plgpu", [("from gk.compat import plgpu", "plgpu"),
                                             ("from gk import compat", "compat.plgpu")], ids=["name", "attribute"])
def test_a_kernel_launched_with_a_re_exported_launcher_in_a_module_that_never_says_pallas(
        tmp_path: Path, imported: str, plgpu: str) -> None:
    """`compat.py` re-exports Mosaic GPU's module; `kern.py` launches its own body with `plgpu.kernel`
    and never says pallas: no kernel of the project reaches it, so its facts were empty, its rules
    read `plgpu.kernel` as the project's, and the hint got the note for a body with no launch found
    where the fix is known. The hint is dropped and the rewritten package lowers for Mosaic GPU."""
    _hint_dropped_and_lowered(tmp_path, lambda root: _package(root, "gk", {
        "compat.py": "from jax.experimental.pallas import mosaic_gpu as plgpu\n",
        "kern.py": f"import jax\nfrom jax import lax\n\n{imported}\n\n\ndef run(x):\n"
        f"    @{plgpu}.kernel(out_type=jax.ShapeDtypeStruct(x.shape, x.dtype))\n    def kernel(x_ref, o_ref):\n"
        "        o_ref[...] = lax.rsqrt(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)\n\n    return kernel(x)\n",
    }), "gk.kern", "kern.py")


@pytest.mark.jax
def test_an_accuracy_handed_to_a_helper_in_another_module_is_dropped_and_the_kernel_lowers(tmp_path: Path) -> None:
    """Silent before (`--check` passed; Mosaic GPU raises "Not implemented: accuracy"): the helper's
    hint is dropped, and the rewritten package lowers for Mosaic GPU where the original does not."""
    _hint_dropped_and_lowered(tmp_path, _accuracy_handed_to_a_helper, "gh.launch", "norms.py")


@pytest.mark.jax
def test_a_pair_bound_under_another_name_for_a_runner_of_another_module_is_fixed(tmp_path: Path) -> None:
    """`Runner(partial(body, p=PAIR))`: the launching module says neither pallas nor `precision=`
    (the runner and the body live elsewhere); it was not analysed, and `--check` passed. Now the
    pair is fixed where it is written, and the rewritten package lowers."""
    from tests import jax_support

    _package(tmp_path, "rr", {
        "util.py": "import jax\nfrom jax.experimental import pallas as pl\n\n\nclass Runner:\n    def __init__(self, body):\n"
        "        self.body = body\n\n    def __call__(self, x, w):\n"
        "        return pl.pallas_call(self.body, out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype))(x, w)\n",
        "kern.py": "import jax.numpy as jnp\n\n\ndef body(x_ref, w_ref, o_ref, *, p=None):\n"
        "    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=p)\n",
        "api.py": "import functools\nfrom jax import lax\nfrom rr.kern import body\nfrom rr.util import Runner\n\n\n"
        "def run(x, w):\n"
        "    return Runner(functools.partial(body, p=(lax.Precision.DEFAULT, lax.Precision.HIGHEST)))(x, w)\n",
    })
    assert "Per-operand dot precision unsupported" in (_lowering_error(tmp_path, "rr.api", "tpu") or "")
    results = run([tmp_path], select(), Settings(jax_support.JAX_VERSION, unsafe_fixes=True), jobs=1)
    assert [(Path(r.path).name, f.code, f.kind.value, f.line) for r in results for f in r.findings] == \
        [("api.py", "JAX001", "fixed", 8)]
    for result in results:
        if result.new_source is not None:
            Path(result.path).write_bytes(result.new_source)
    assert _lowering_error(tmp_path, "rr.api", "tpu") is None


# A plain-XLA reference and a kernel body in one tuple, launched at `{index}`.
_TUPLE_OF_IMPLEMENTATIONS = (
    "import jax\nimport jax.numpy as jnp\nfrom jax import lax\nfrom jax.experimental import pallas as pl\n"
    "from jax.experimental.pallas import tpu as pltpu\n\nP = lax.Precision\n\n\n"
    "def reference(x, w):\n    return jnp.dot(x, w, precision=(P.DEFAULT, P.HIGHEST))\n\n\n"
    "def body(x_ref, w_ref, o_ref):\n    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=(P.DEFAULT, P.HIGH))\n\n\n"
    "IMPLEMENTATIONS = (reference, body)\n\n\ndef run(x, w):\n"
    "    return pl.pallas_call(IMPLEMENTATIONS[{index}], out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype),\n"
    "                          compiler_params=pltpu.CompilerParams())(x, w)\n")


@pytest.mark.jax
@pytest.mark.parametrize("index", ["-1", "1"])
def test_a_body_launched_from_a_tuple_by_a_constant_index_is_the_only_kernel_there(tmp_path: Path, index: str) -> None:
    """`pl.pallas_call(IMPLEMENTATIONS[-1])` with `IMPLEMENTATIONS = (reference, body)`: `-1` is a
    `UnaryOp` in the tree, read as an unknown index, so the plain-XLA `reference` was kernel code
    too and got a safe fix that changed its numerics. Only the body is fixed now; the reference is
    left byte for byte, and the rewritten package lowers."""
    package = _package(tmp_path, "ix", {"api.py": _TUPLE_OF_IMPLEMENTATIONS.replace("{index}", index)})
    reference = (package / "api.py").read_text().splitlines()[10]
    assert "(P.DEFAULT, P.HIGHEST)" in reference
    _fixed_and_lowered(tmp_path, "ix.api", [("api.py", "JAX001", "fixed")])
    assert (package / "api.py").read_text().splitlines()[10] == reference


_KERNELS_WITH_A_CONSTANT = (
    "import jax\nimport jax.numpy as jnp\nfrom jax import lax\nfrom jax.experimental import pallas as pl\n"
    "from jax.experimental.pallas import tpu as pltpu\n\nMIXED = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)\n\n\n"
    "def body(x_ref, w_ref, o_ref):\n    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=MIXED)\n\n\n"
    "def run(x, w):\n    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype),\n"
    "                          compiler_params=pltpu.CompilerParams())(x, w)\n")
# How plain XLA code in `reference.py` reads the kernel module's constant (with what `__init__.py` says).
_READ_BY_XLA_CODE = {
    "imported-by-name": ("", "from shp.kernels import MIXED\n", "MIXED"),
    "as-an-attribute": ("", "from shp import kernels\n", "kernels.MIXED"),
    "re-exported": ("from .kernels import MIXED\n", "from shp import MIXED as M\n", "M"),
    "star-imported": ("", "from shp.kernels import *  # noqa: F403\n", "MIXED"),
}


@pytest.mark.parametrize("init, imported, read", _READ_BY_XLA_CODE.values(), ids=_READ_BY_XLA_CODE.keys())
def test_a_constant_another_module_reads_in_plain_xla_code_is_not_rewritten(tmp_path: Path, init: str, imported: str,
                                                                           read: str) -> None:
    """`MIXED` is a kernel's precision in `kernels.py` and plain XLA code's in `reference.py`: a safe
    fix wrote `HIGHEST` into the constant, and the XLA reference's numerics changed. The same use
    within one module was refused; now the other module's read is seen too: a [manual] note that
    names it, `--check` fails, and `--write` leaves both modules byte for byte."""
    package = _package(tmp_path, "shp", {
        "kernels.py": _KERNELS_WITH_A_CONSTANT,
        "reference.py": f"import jax.numpy as jnp\n\n{imported}\n\ndef reference(x, w):\n"
                        f"    return jnp.dot(x, w, precision={read})\n",
    })
    (package / "__init__.py").write_text(init)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'shp'\n")
    before = {path: path.read_bytes() for path in package.iterdir()}
    checked = _cli(tmp_path, "--check", ".")
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert "shp/kernels.py:11:60: JAX001 [manual] jnp.dot: precision `MIXED` can be (DEFAULT, HIGHEST), written in " \
           "`shp.kernels` on line 7, which `jax.numpy.dot` outside kernels (shp.reference:" in checked.stderr, checked.stderr
    assert "0 fixes" in checked.stderr
    _cli(tmp_path, "--write", "--unsafe-fixes", ".")
    assert {path: path.read_bytes() for path in package.iterdir()} == before


@pytest.mark.jax
@pytest.mark.parametrize("read", ["precision=MIXED", "(((1,), (0,)), ((), ())), MIXED"], ids=["by-keyword", "by-position"])
def test_a_constant_another_module_reads_as_a_mosaic_kernels_precision_too_is_fixed(tmp_path: Path, read: str) -> None:
    """Where every other module reads the constant as a Mosaic TPU kernel's precision (`precision=`,
    or `lax.dot_general`'s by position), the fix is what they need too: the constant is rewritten,
    and both modules' kernels lower."""
    other = _KERNELS_WITH_A_CONSTANT.replace("MIXED = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)\n",
                                             "from shk.api import MIXED\n")
    if read != "precision=MIXED":
        other = other.replace("jnp.dot(x_ref[...], w_ref[...], precision=MIXED)",
                              f"lax.dot_general(x_ref[...], w_ref[...], {read})")
    _package(tmp_path, "shk", {"api.py": _KERNELS_WITH_A_CONSTANT, "other.py": other})
    # (other.py's kernel reads the imported constant: the project-wide value flow sees it fixed in api.py)
    _fixed_and_lowered(tmp_path, "shk.api", [("api.py", "JAX001", "fixed")])
    assert _lowering_error(tmp_path, "shk.api", "tpu") is None and _lowering_error(tmp_path, "shk.other", "tpu") is None


# A launching wrapper in `ops.py` that takes the precision as its own parameter and gives it to its
# kernel: the kernel closes over it, or a partial binds it.
_PRECISION_WRAPPERS = {
    "closed-over": "def matmul(x, w, precision=None):\n"
                   "    def kernel(x_ref, w_ref, o_ref):\n"
                   "        o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=precision)\n\n"
                   "    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype),\n"
                   "                          compiler_params=pltpu.CompilerParams())(x, w)\n",
    "closed-over-by-an-op-that-takes-it-by-position": (
        "def matmul(x, w, precision=None):\n"
        "    def kernel(x_ref, w_ref, o_ref):\n"
        "        o_ref[...] = lax.dot_general(x_ref[...], w_ref[...], (((1,), (0,)), ((), ())), precision)\n\n"
        "    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype),\n"
        "                          compiler_params=pltpu.CompilerParams())(x, w)\n"),
    "bound-by-a-partial": "def _kernel(x_ref, w_ref, o_ref, *, precision):\n"
                          "    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=precision)\n\n\n"
                          "def matmul(x, w, precision=None):\n"
                          "    return pl.pallas_call(functools.partial(_kernel, precision=precision),\n"
                          "                          out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype),\n"
                          "                          compiler_params=pltpu.CompilerParams())(x, w)\n",
}
_OPS_HEAD = ("import functools\n\nimport jax\nimport jax.numpy as jnp\nfrom jax import lax\nfrom jax.experimental import pallas as pl\n"
             "from jax.experimental.pallas import tpu as pltpu\n\n\n")
# How the calling module passes the pair, and how it names the wrapper.
_WRAPPER_CALLS = {
    "a-constant-by-module": ("from wr import ops\n\nPAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)\n\n\n",
                             "ops.matmul(x, w, precision=PAIR)"),
    "a-literal-by-name": ("from .ops import matmul as mm\n\n\n",
                          "mm(x, w, precision=(lax.Precision.HIGHEST, lax.Precision.DEFAULT))"),
    "a-constant-by-position": ("from wr.ops import matmul\n\nPAIR = (lax.Precision.DEFAULT, lax.Precision.HIGH)\n\n\n",
                               "matmul(x, w, PAIR)"),
    "a-partial-of-it": ("import functools\n\nfrom wr import ops\n\n"
                        "mixed = functools.partial(ops.matmul, precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))\n\n\n",
                        "mixed(x, w)"),
}


def _wrapped(root: Path, wrapper: str, head: str, called: str) -> Path:
    return _package(root, "wr", {"ops.py": _OPS_HEAD + wrapper,
                                 "api.py": f"from jax import lax\n\n{head}def run(x, w):\n    return {called}\n"})


@pytest.mark.jax
@pytest.mark.parametrize("head, called", _WRAPPER_CALLS.values(), ids=_WRAPPER_CALLS.keys())
@pytest.mark.parametrize("wrapper", _PRECISION_WRAPPERS.values(), ids=_PRECISION_WRAPPERS.keys())
def test_a_pair_another_module_hands_to_a_launching_wrapper_is_fixed_where_it_is_written(
        tmp_path: Path, wrapper: str, head: str, called: str) -> None:
    """`ops.matmul(x, w, precision=PAIR)` from another module, where `matmul` gives its parameter to
    its kernel: the most common spelling of all was silent (no finding, `--check` passed, the kernel
    failed to lower). The value is fixed where the caller writes it, and the package lowers."""
    _wrapped(tmp_path, wrapper, head, called)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'wr'\n")
    checked = _cli(tmp_path, "--check", ".")
    assert checked.returncode == 1 and "wr/api.py:" in checked.stdout + checked.stderr, checked.stderr
    _fixed_and_lowered(tmp_path, "wr.api", [("api.py", "JAX001", "fixed")])


def test_a_constant_handed_to_a_wrapper_that_a_third_module_reads_too_is_a_note(tmp_path: Path) -> None:
    """`PAIR` goes to `ops.matmul`'s kernel, and plain XLA code in `third.py` imports it too: a fix
    of the constant would change that code, so the caller gets a [manual] note naming it."""
    head, called = _WRAPPER_CALLS["a-constant-by-module"]
    package = _wrapped(tmp_path, _PRECISION_WRAPPERS["closed-over"], head, called)
    (package / "third.py").write_text("import jax.numpy as jnp\n\nfrom wr.api import PAIR\n\n\n"
                                      "def reference(x, w):\n    return jnp.dot(x, w, precision=PAIR)\n")
    results = run([tmp_path], select(), SETTINGS, jobs=1)
    # (and the kernel's call in ops.py: the whole-program value flow names the pair and its readers there)
    assert sorted((Path(r.path).name, f.kind.value) for r in results for f in r.findings) == [
        ("api.py", "manual"), ("ops.py", "manual")]
    [finding] = [finding for result in results for finding in result.findings if result.path.endswith("api.py")]
    assert finding.message.endswith("; `PAIR` is read by `wr.third` too")
    assert [r.new_source for r in results if r.new_source is not None] == []


def test_a_pair_handed_to_a_wrapper_whose_plain_code_reads_it_too_is_a_note(tmp_path: Path) -> None:
    """The wrapper's XLA path reads the parameter too (`if interpret: return jnp.dot(...)`): a
    scalar written by the caller would change it, so the caller gets a [manual] note, no fix."""
    plain = _PRECISION_WRAPPERS["bound-by-a-partial"].replace(
        "    return pl.pallas_call(", "    if interpret:\n        return jnp.dot(x, w, precision=precision)\n"
        "    return pl.pallas_call(").replace("precision=None):", "precision=None, interpret=False):")
    head, called = _WRAPPER_CALLS["a-constant-by-module"]
    _wrapped(tmp_path, plain, head, called)
    results = run([tmp_path], select(), SETTINGS, jobs=1)
    assert sorted((Path(r.path).name, f.kind.value) for r in results for f in r.findings) == [
        ("api.py", "manual"), ("ops.py", "manual")]
    [finding] = [finding for result in results for finding in result.findings if result.path.endswith("api.py")]
    assert "reaches `ops.matmul`, whose kernel in another module takes it as its precision" in finding.message
    assert "code there that is no kernel's precision reads it too" in finding.message
    assert [r.new_source for r in results if r.new_source is not None] == []


@pytest.mark.jax
def test_a_function_that_takes_no_refs_read_at_an_unknown_index_is_a_note_not_a_fix(tmp_path: Path) -> None:
    """`pl.pallas_call(IMPLEMENTATIONS[mode])`: every element may be the body, so every one was
    taken for kernel code, and the plain-XLA `reference(x, w)` got a safe fix that changed its
    numerics. An element that takes no refs is now code the launch may run: a [manual] note, left
    byte for byte; the body (it takes refs) is still fixed, and the written package lowers."""
    from tests import jax_support

    source = (_TUPLE_OF_IMPLEMENTATIONS.replace("IMPLEMENTATIONS[{index}]", "IMPLEMENTATIONS[mode]")
              .replace("def run(x, w):", "def run(x, w, mode=1):"))
    package = _package(tmp_path, "ix", {"api.py": source})
    reference = (package / "api.py").read_text().splitlines()[10]
    results = run([tmp_path], select(), Settings(jax_support.JAX_VERSION, unsafe_fixes=True), jobs=1)
    assert [(f.line, f.kind.value) for r in results for f in r.findings] == [(11, "manual"), (15, "fixed")]
    [note] = [f for r in results for f in r.findings if f.kind.value == "manual"]
    assert "this code may run in a Mosaic TPU kernel launched through a launch that may run one of several functions " \
           "(ix.api:22)" in note.message
    for result in results:
        if result.new_source is not None:
            Path(result.path).write_bytes(result.new_source)
    assert (package / "api.py").read_text().splitlines()[10] == reference
    assert _lowering_error(tmp_path, "ix.api", "tpu") is None


# `self.kernel = <util's body>` in a class of another module, launched as `Model().kernel` from a third.
_INSTANCE_MEMBERS = {
    "the-body": ("def body(x_ref, w_ref, o_ref):\n    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=PAIR)\n",
                 "body"),
    "a-factory's-body": ("def make():\n    def body(x_ref, w_ref, o_ref):\n"
                         "        o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=PAIR)\n    return body\n",
                         "make()"),
    "a-dict's-body": ("def body(x_ref, w_ref, o_ref):\n    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=PAIR)\n"
                      "\n\nBODIES = {'main': body}\n", "BODIES['main']"),
    "a-partial-of-a-factory's-body": (
        "def make():\n    def body(x_ref, w_ref, o_ref, *, scale=1.0):\n"
        "        o_ref[...] = scale * jnp.dot(x_ref[...], w_ref[...], precision=PAIR)\n    return body\n",
        "functools.partial(make(), scale=2.0)"),
}


@pytest.mark.jax
@pytest.mark.parametrize("util, held", _INSTANCE_MEMBERS.values(), ids=_INSTANCE_MEMBERS.keys())
def test_a_body_an_instance_of_another_module_holds_is_kernel_code(tmp_path: Path, util: str, held: str) -> None:
    """Found by the property test (silent: the body was taken for plain code, a method's mention
    counting as a plain use): the pair in util.py is fixed and the rewritten package lowers."""
    package = tmp_path / "im"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "util.py").write_text("import jax.numpy as jnp\nfrom jax import lax\n\n"
                                     "PAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)\n\n\n" + util)
    name = held.removeprefix("functools.partial(").split("(")[0].split("[")[0]
    (package / "kern.py").write_text(f"import functools\n\nfrom im.util import {name}\n\n\nclass Model:\n"
                                     f"    def __init__(self):\n        self.kernel = {held}\n")
    (package / "api.py").write_text("import jax\nfrom jax.experimental import pallas as pl\nfrom im.kern import Model\n\n\n"
                                    "def run(x, w):\n    return pl.pallas_call(Model().kernel, "
                                    "out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype))(x, w)\n")
    _fixed_and_lowered(tmp_path, "im.api", [("util.py", "JAX001", "fixed")])


@pytest.mark.jax
def test_each_precision_a_module_binds_to_another_modules_body_is_decided_on_its_own(tmp_path: Path) -> None:
    """One launching module binds five precisions to a body of another module, in this order: an
    equal pair that lowers (left), a pair Mosaic TPU rejects (fixed), None (left), a parameter
    (a note), and another rejected pair (fixed). Each is decided on its own: what was decided for
    one never stops the look at the ones after it, and the rewritten module lowers."""
    from tests import jax_support

    package = _package(tmp_path, "many", {
        "kern.py": "import jax.numpy as jnp\n\n\ndef body(x_ref, w_ref, o_ref, *, precision=None):\n"
        "    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=precision)\n",
    })
    launches = "\n".join(
        f"    {name} = pl.pallas_call(functools.partial(kern.body, precision={value}), out_shape=shape)(x, w)"
        for name, value in [("same", "(P.HIGHEST, P.HIGHEST)"), ("pair", "(P.DEFAULT, P.HIGH)"), ("none", "None"),
                            ("given", "given"), ("last", "(P.HIGH, P.HIGHEST)")])
    (package / "api.py").write_text(
        "import functools\nimport jax\nfrom jax import lax\nfrom jax.experimental import pallas as pl\nfrom many import kern\n\n"
        "P = lax.Precision\n\n\ndef launch_all(x, w, given):\n    shape = jax.ShapeDtypeStruct((8, 128), x.dtype)\n"
        f"{launches}\n    return same + pair + none + given + last\n\n\n"
        "def run(x, w):\n    return launch_all(x, w, P.HIGHEST)\n")
    assert "Per-operand dot precision unsupported" in (_lowering_error(tmp_path, "many.api", "tpu") or "")
    results = run([tmp_path], select(), Settings(jax_support.JAX_VERSION, unsafe_fixes=True), jobs=1)
    assert [(Path(r.path).name, f.code, f.kind.value, f.line) for r in results for f in r.findings] == \
        [("api.py", "JAX001", "fixed", 13), ("api.py", "JAX001", "manual", 15), ("api.py", "JAX001", "fixed", 16)]
    for result in results:
        if result.new_source is not None:
            Path(result.path).write_bytes(result.new_source)
    assert _lowering_error(tmp_path, "many.api", "tpu") is None


def test_a_pair_bound_to_a_body_of_another_module_that_only_triton_runs_is_left(tmp_path: Path) -> None:
    """Triton lowers a per-operand pair (as TF32): a body of another module that only a Triton
    launch runs keeps the pair its launching module binds; rewriting it would change a kernel
    that works. Under `--scope all` every pair is made one scalar, kernel or not."""
    _package(tmp_path, "tri", {
        "kern.py": "import jax.numpy as jnp\n\n\ndef body(x_ref, w_ref, o_ref, *, precision=None):\n"
        "    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=precision)\n",
        "api.py": "import functools\nimport jax\nfrom jax import lax\nfrom jax.experimental import pallas as pl\n"
        "from jax.experimental.pallas import triton as plgpu\nfrom tri import kern\n\n\ndef run(x, w):\n"
        "    body = functools.partial(kern.body, precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))\n"
        "    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype),\n"
        "                          compiler_params=plgpu.CompilerParams(num_warps=4))(x, w)\n",
    })
    results = run([tmp_path], select(), SETTINGS, jobs=1)
    assert [f for r in results for f in r.findings] == []
    everywhere = run([tmp_path], select(["JAX001"]), replace(SETTINGS, scope=Scope.ALL), jobs=1)
    assert [(Path(r.path).name, f.kind.value) for r in everywhere for f in r.findings] == [("api.py", "fixed")]


@pytest.mark.jax
@pytest.mark.parametrize("filled, launched", [("BODIES[0] = {held}", "BODIES[0]"), ("BODIES.insert(0, {held})", "BODIES[0]"),
                                              ("BODIES.append({held})", "BODIES[-1]")])
@pytest.mark.parametrize("held", ["body", "functools.partial(body, precision=PAIR)"])
def test_a_list_of_bodies_another_module_fills_after_building_it_is_kernel_code(
        tmp_path: Path, filled: str, launched: str, held: str) -> None:
    """`BODIES = [None]` then `BODIES[0] = body` (or `.insert`, `.append`) in one module, launched
    from the list in another: the body is kernel code. The launching module read the list as
    written (`[None]`), and `--check` passed while the kernel failed to lower. A pair written in
    the body is fixed (and the package lowers); so is one bound by a partial stored in the list:
    the whole-program value flow follows the store and the list's methods (it was a [manual] note
    for `.insert` and `.append` before it modelled them), and the package lowers."""
    in_body = "PAIR" if held == "body" else "precision"
    _package(tmp_path, "fill", {
        "util.py": "import functools\nimport jax.numpy as jnp\nfrom jax import lax\n\n"
        "PAIR = (lax.Precision.DEFAULT, lax.Precision.HIGH)\n\n\ndef body(x_ref, w_ref, o_ref, *, precision=None):\n"
        f"    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision={in_body})\n\n\n"
        f"BODIES = [None]\n{filled.format(held=held)}\n",
        "api.py": "import jax\nfrom jax.experimental import pallas as pl\nfrom fill.util import BODIES\n\n\n"
        f"def run(x, w):\n    return pl.pallas_call({launched}, out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype))(x, w)\n",
    })
    _fixed_and_lowered(tmp_path, "fill.api", [("util.py", "JAX001", "fixed")])


@pytest.mark.jax
@pytest.mark.parametrize("holder, launched", [("class Holder:\n    kernel = staticmethod(Model().kernel)\n", "Holder.kernel"),
                                              ("KERNELS = [Model().kernel]\n", "KERNELS[0]"),
                                              ("KERNELS = [m.kernel for m in [Model()]]\n", "KERNELS[0]")])
def test_an_instance_member_held_by_another_launched_value_is_kernel_code(tmp_path: Path, holder: str,
                                                                         launched: str) -> None:
    """`self.kernel = body` in a class of one module, whose instance's member a class attribute or
    a list of that module holds, launched from a third: the body is kernel code. The holder's
    launch reached the class, but not which of its members, and `--check` passed."""
    _package(tmp_path, "held", {
        "util.py": "import jax.numpy as jnp\nfrom jax import lax\n\n\ndef body(x_ref, w_ref, o_ref):\n"
        "    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))\n",
        "kern.py": "from held.util import body\n\n\nclass Model:\n    def __init__(self):\n        self.kernel = body\n\n\n"
        + holder,
        "api.py": f"import jax\nfrom jax.experimental import pallas as pl\nfrom held.kern import {launched.split('.')[0].split('[')[0]}\n\n\n"
        f"def run(x, w):\n    return pl.pallas_call({launched}, out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype))(x, w)\n",
    })
    _fixed_and_lowered(tmp_path, "held.api", [("util.py", "JAX001", "fixed")])


@pytest.mark.jax
@pytest.mark.parametrize("held", ["Model().kernel", "functools.partial(Model().kernel)"])
def test_an_instance_member_of_another_modules_instance_member_is_kernel_code(tmp_path: Path, held: str) -> None:
    """`self.kernel = body` in `util.Model`; `self.kernel = Model().kernel` (or a partial of it) in
    `kern.Outer`; `Outer().kernel` launched in `api`. The second member was taken for a call's
    result used in plain code, and `--check` passed while the kernel failed to lower."""
    _package(tmp_path, "chain", {
        "util.py": "import jax.numpy as jnp\nfrom jax import lax\n\n\ndef body(x_ref, w_ref, o_ref):\n"
        "    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))\n\n\n"
        "class Model:\n    def __init__(self):\n        self.kernel = body\n",
        "kern.py": "import functools\nfrom chain.util import Model\n\n\nclass Outer:\n    def __init__(self):\n"
        f"        self.kernel = {held}\n",
        "api.py": "import jax\nfrom jax.experimental import pallas as pl\nfrom chain.kern import Outer\n\n\n"
        "def run(x, w):\n    return pl.pallas_call(Outer().kernel, out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype))(x, w)\n",
    })
    _fixed_and_lowered(tmp_path, "chain.api", [("util.py", "JAX001", "fixed")])


@pytest.mark.jax
@pytest.mark.parametrize("filled", ["BODIES[0] = util.body", "BODIES.insert(0, util.body)"])
def test_a_list_a_module_fills_with_another_modules_body_is_kernel_code(tmp_path: Path, filled: str) -> None:
    """`BODIES[0] = util.body` at the top of `kern`, `BODIES[0]` launched in `api`: the mention of
    `util.body` was taken for plain code (the statement binds no name), and `--check` passed."""
    _package(tmp_path, "three", {
        "util.py": "import jax.numpy as jnp\nfrom jax import lax\n\n\ndef body(x_ref, w_ref, o_ref):\n"
        "    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))\n",
        "kern.py": f"from three import util\n\nBODIES = [None]\n{filled}\n",
        "api.py": "import jax\nfrom jax.experimental import pallas as pl\nfrom three.kern import BODIES\n\n\n"
        "def run(x, w):\n    return pl.pallas_call(BODIES[0], out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype))(x, w)\n",
    })
    _fixed_and_lowered(tmp_path, "three.api", [("util.py", "JAX001", "fixed")])


@pytest.mark.jax
@pytest.mark.parametrize("forwarder, called", [
    ("from fwd.launch import tpu_call\n\n\ndef run(body, x, w):\n    return tpu_call(body, x, w)\n", "ops.run"),
    ("import functools\nfrom fwd.launch import tpu_call\n\nrun = functools.partial(tpu_call)\n", "ops.run"),
    ("from fwd import launch\n\n\nclass Runner:\n    def __init__(self, body):\n        self.body = body\n\n"
     "    def __call__(self, x, w):\n        return launch.tpu_call(self.body, x, w)\n", "ops.Runner"),
    ("", "launch.tpu_call_f32"),  # a partial of the helper, beside it
    ("from fwd.ops_inner import run as _run\n\n\ndef run(body, x, w):\n    return _run(body, x, w)\n", "ops.run"),
    ("from fwd.launch import tpu_call as _tc\n\n\ndef run(body, x, w):\n    return _tc(body, x, w)\n", "ops.run"),
    ("import functools\nfrom fwd import launch\n\n\nclass Runner:\n    def __init__(self, body, scale=1):\n"
     "        self.body = body\n\n    def __call__(self, x, w):\n        return launch.tpu_call(self.body, x, w)\n\n\n"
     "make_runner = functools.partial(Runner, scale=2)\n", "ops.make_runner"),
    ("from fwd.launch import tpu_call\n\nrun = tpu_call\n", "ops.run"),
    ("from fwd.launch import tpu_call\n\nrun = lambda body, x, w: tpu_call(body, x, w)\n", "ops.run"),
    ("from fwd.launch import tpu_call\n\n\nclass Ops:\n    @staticmethod\n    def run(body, x, w):\n"
     "        return tpu_call(body, x, w)\n", "ops.Ops.run"),
    ("from fwd.launch import tpu_call\n\n\nclass Ops:\n    @classmethod\n    def run(cls, body, x, w):\n"
     "        return tpu_call(body, x, w)\n", "ops.Ops.run"),
    ("from fwd.launch import tpu_call\n\n\nclass Ops:\n    def run(self, body, x, w):\n        return tpu_call(body, x, w)\n"
     "\n\nOPS = Ops()\n", "ops.OPS.run"),
], ids=["def", "partial", "class", "partial-beside-the-helper", "two-modules-deep", "through-an-alias",
        "partial-of-a-class-beside-it", "another-name", "lambda", "staticmethod", "classmethod", "method-of-an-instance"])
def test_a_launch_helper_handed_on_through_other_modules_launches_kernel_code(
        tmp_path: Path, forwarder: str, called: str) -> None:
    """`launch.tpu_call(body, ...)` calls `pl.pallas_call(body, ...)`; a def, a partial or a class of
    another module hands its own parameter on to it (or to such a helper, two modules deep), and a
    fourth module launches a body of a fifth through that: the body is kernel code. Only the first
    helper was known, and `--check` passed while the kernel failed to lower."""
    _package(tmp_path, "fwd", {
        "util.py": "import jax.numpy as jnp\nfrom jax import lax\n\n\ndef body(x_ref, w_ref, o_ref):\n"
        "    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))\n",
        "launch.py": "import functools\nimport jax\nfrom jax.experimental import pallas as pl\n\n\ndef tpu_call(body, x, w):\n"
        "    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype))(x, w)\n\n\n"
        "tpu_call_f32 = functools.partial(tpu_call)\n",
        "ops_inner.py": "from fwd.launch import tpu_call\n\n\ndef run(body, x, w):\n    return tpu_call(body, x, w)\n",
        "ops.py": forwarder,
        "api.py": f"from fwd import launch, ops\nfrom fwd.util import body\n\n\ndef run(x, w):\n"
        f"    return {called}(body{')(x, w)' if called in ('ops.Runner', 'ops.make_runner') else ', x, w)'}\n",
    })
    _fixed_and_lowered(tmp_path, "fwd.api", [("util.py", "JAX001", "fixed")])


@pytest.mark.jax
@pytest.mark.parametrize("compat, imported, lax", [
    ("from jax import lax\n", "from reex.compat import lax", "lax"),
    ("import jax.lax as lax\n", "from .compat import lax", "lax"),
    ("from reex.inner import lax\n", "from reex.compat import lax", "lax"),  # re-exported twice
    ("from jax import lax as _lax\n\nlax = _lax\n", "from reex.compat import lax", "lax"),
    ("import jax\n\nlax = jax.lax\n", "from .compat import lax", "lax"),
    ("from jax import lax\n", "from reex import compat", "compat.lax"),
    ("from reex.inner import lax\n", "from . import compat as c", "c.lax"),
    ("import jax.lax as lax\n", "import reex.compat", "reex.compat.lax"),
    ("try:\n    from jax import lax\nexcept ImportError:\n    lax = None\n", "from .compat import lax", "lax"),
    ("import sys\n\nif sys.version_info >= (3, 10):\n    from jax import lax\nelse:\n    lax = None\n",
     "from reex import compat", "compat.lax"),
], ids=["absolute", "relative", "two-steps", "bound-to-an-import", "bound-to-an-attribute", "module-attribute",
        "module-attribute-two-steps", "dotted-module-attribute", "imported-in-a-try", "imported-under-an-if"])
def test_a_jax_module_re_exported_by_a_project_module_is_jax_in_kernel_code(tmp_path: Path, compat: str,
                                                                              imported: str, lax: str) -> None:
    """`compat.py` imports `lax` from jax (or binds a name to it), a kernel body's module imports it
    from `compat`, or imports `compat` and says `compat.lax`: the pair in the body is jax's. The
    call read as `reex.compat.lax.dot`, nothing was reported, and `--check` passed while the kernel
    failed to lower."""
    _package(tmp_path, "reex", {
        "inner.py": "from jax import lax\n",
        "compat.py": compat,
        "util.py": f"import jax.numpy as jnp\n{imported}\n\n\ndef body(x_ref, w_ref, o_ref):\n"
        f"    o_ref[...] = {lax}.dot(x_ref[...], w_ref[...], precision=({lax}.Precision.DEFAULT, {lax}.Precision.HIGH))\n",
        "api.py": "import jax\nfrom jax.experimental import pallas as pl\nfrom reex.util import body\n\n\ndef run(x, w):\n"
        "    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype))(x, w)\n",
    })
    _fixed_and_lowered(tmp_path, "reex.api", [("util.py", "JAX001", "fixed")])


@pytest.mark.jax
@pytest.mark.parametrize("compat, imported, pl", [
    ("from jax.experimental import pallas as pl\n", "from reex.compat import pl", "pl"),
    ("try:\n    from jax.experimental import pallas as pl\nexcept ImportError:\n    pl = None\n",
     "from .compat import pl", "pl"),
    ("import jax.experimental.pallas as pallas\n\npl = pallas\n", "from reex.compat import pl", "pl"),
    ("from jax.experimental import pallas as pl\n", "from reex import compat", "compat.pl"),
], ids=["imported", "imported-in-a-try", "bound-to-an-import", "module-attribute"])
def test_a_launch_through_pallas_re_exported_by_a_project_module_launches_another_modules_body(
        tmp_path: Path, compat: str, imported: str, pl: str) -> None:
    """`api.py` launches `util.body` with the `pl` a compat module re-exports: the body is kernel code.
    The project index read api.py without the imports it reads through compat (the rules read them):
    no launch was found there, and the body got a [manual] "no launch of it was found" where the
    fix is known (a new user's trial)."""
    _package(tmp_path, "reex", {
        "compat.py": compat,
        "util.py": "import jax.numpy as jnp\nfrom jax import lax\n\n\ndef body(x_ref, w_ref, o_ref):\n"
        "    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))\n",
        "api.py": f"import jax\n{imported}\nfrom reex import util\n\n\ndef run(x, w):\n"
        f"    return {pl}.pallas_call(util.body, out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype))(x, w)\n",
    })
    _fixed_and_lowered(tmp_path, "reex.api", [("util.py", "JAX001", "fixed")])


_METHODS_LAUNCHED = {
    "staticmethod": ("    @staticmethod\n    def body(x_ref, w_ref, o_ref):\n", "", "util.Kernels.body"),
    "method-of-an-instance": ("    def body(self, x_ref, w_ref, o_ref):\n", "", "util.Kernels().body"),
    "classmethod-imported-class": ("    @classmethod\n    def body(cls, x_ref, w_ref, o_ref):\n", "", "Kernels.body"),
    # a top-level name for the member: the module's value, not an import (a mutant that read
    # `matmul` as a re-export survived the suite)
    "a-module-level-name-for-it": ("    @staticmethod\n    def body(x_ref, w_ref, o_ref):\n", "\n\nmatmul = Kernels.body\n",
                                   "util.matmul"),
}


@pytest.mark.jax
@pytest.mark.parametrize("method, after, launched", _METHODS_LAUNCHED.values(), ids=_METHODS_LAUNCHED.keys())
def test_a_method_of_another_modules_class_launched_as_a_body_is_kernel_code(tmp_path: Path, method: str, after: str,
                                                                           launched: str) -> None:
    """`pl.pallas_call(util.Kernels.body)`, `util.Kernels().body`: the method is the kernel body. A
    class was asked about its attributes and `__init__` only, so its methods got a [manual] "no
    launch found" where the fix is known (a new user's trial)."""
    _package(tmp_path, "meth", {
        "util.py": "import jax.numpy as jnp\nfrom jax import lax\n\n\nclass Kernels:\n" + method +
        "        o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))\n"
        + after,
        "api.py": "import jax\nfrom jax.experimental import pallas as pl\nfrom meth import util\nfrom meth.util import Kernels"
        f"\n\n\ndef run(x, w):\n    return pl.pallas_call({launched}, out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype))(x, w)\n",
    })
    _fixed_and_lowered(tmp_path, "meth.api", [("util.py", "JAX001", "fixed")])


@pytest.mark.jax
def test_a_kernel_a_classs_init_defines_and_holds_is_launched_from_another_module(tmp_path: Path) -> None:
    """`Model.__init__` defines the body (a closure over its configuration) and keeps it as
    `self.kernel`; another module launches `util.Model(2.0).kernel`. What `__init__` holds is what a
    launch of the class's instances runs (a mutant that left `__init__` out survived the suite)."""
    _package(tmp_path, "held_init", {
        "util.py": "import jax.numpy as jnp\nfrom jax import lax\n\n\nclass Model:\n    def __init__(self, scale):\n"
        "        def kernel(x_ref, w_ref, o_ref):\n            o_ref[...] = scale * jnp.dot(x_ref[...], w_ref[...], "
        "precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))\n        self.kernel = kernel\n",
        "api.py": "import jax\nfrom jax.experimental import pallas as pl\nfrom held_init import util\n\n\ndef run(x, w):\n"
        "    return pl.pallas_call(util.Model(2.0).kernel, out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype))(x, w)\n",
    })
    _fixed_and_lowered(tmp_path, "held_init.api", [("util.py", "JAX001", "fixed")])


# A launcher beside `pl.pallas_call`, spelled other than a def or a partial: (launch.py's code, the call in api.py).
_LAUNCHERS_SPELLED = {
    "another-name-for-pallas_call": ("call = pl.pallas_call\n", "launch.call(body, out_shape=SHAPE)(x, w)"),
    "lambda": ("tpu = lambda body, x, w: pl.pallas_call(body, out_shape=SHAPE)(x, w)\n", "launch.tpu(body, x, w)"),
    "annotated-lambda": ("from typing import Callable\n\ntpu: Callable = lambda body, x, w: pl.pallas_call(body, out_shape=SHAPE)(x, w)\n",
                         "launch.tpu(body, x, w)"),
    "staticmethod": ("\nclass Tpu:\n    @staticmethod\n    def call(body, x, w):\n"
                     "        return pl.pallas_call(body, out_shape=SHAPE)(x, w)\n", "launch.Tpu.call(body, x, w)"),
    "method-of-an-instance": ("\nclass Tpu:\n    def call(self, body, x, w):\n"
                              "        return pl.pallas_call(body, out_shape=SHAPE)(x, w)\n\n\nTPU = Tpu()\n",
                              "launch.TPU.call(body, x, w)"),
}


@pytest.mark.jax
@pytest.mark.parametrize("launcher, call", _LAUNCHERS_SPELLED.values(), ids=_LAUNCHERS_SPELLED.keys())
def test_a_launcher_of_another_module_spelled_otherwise_launches_kernel_code(tmp_path: Path, launcher: str, call: str) -> None:
    """A launcher another module defines as a lambda (annotated or not), a static method, a method of
    a module-level instance, or another name for `pl.pallas_call`: the body launched through it is
    kernel code. Only defs, classes, decorator factories and partials were known, and `--check`
    passed while the kernel failed to lower (an annotated lambda, until session 11: a [manual]
    note where the fix was known)."""
    _package(tmp_path, "spelt", {
        "util.py": "import jax.numpy as jnp\nfrom jax import lax\n\n\ndef body(x_ref, w_ref, o_ref):\n"
        "    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))\n",
        "launch.py": "import jax\nfrom jax.experimental import pallas as pl\n\nSHAPE = jax.ShapeDtypeStruct((8, 128), jax.numpy.float32)\n" + launcher,
        "api.py": f"from spelt import launch\nfrom spelt.launch import SHAPE\nfrom spelt.util import body\n\n\n"
        f"def run(x, w):\n    return {call}\n",
    })
    _fixed_and_lowered(tmp_path, "spelt.api", [("util.py", "JAX001", "fixed")])


@pytest.mark.jax
@pytest.mark.parametrize("launch, api, kind", [
    ("", "import importlib\nfrom nolaunch.launch import tpu_call\n\n\ndef run(x, w):\n"
         "    return tpu_call(importlib.import_module('nolaunch.util').body, x, w)\n", "manual"),
    ("\n\nLAUNCHERS = {'tpu': tpu_call}\n", "from nolaunch.launch import LAUNCHERS\nfrom nolaunch.util import body\n\n\n"
                                               "def run(x, w):\n    return LAUNCHERS['tpu'](body, x, w)\n", "fixed"),
], ids=["importlib", "a-table-of-launchers"])
def test_a_body_launched_in_a_way_the_analysis_does_not_follow_gets_a_manual_note(tmp_path: Path, launch: str, api: str,
                                                                                   kind: str) -> None:
    """`importlib.import_module(...).body` or `LAUNCHERS['tpu'](body)`: no launch of `body` is found
    by the module's analysis, but it takes refs as kernel bodies do, so its pair is a [manual] note
    and `--check` fails (it passed while the kernel failed to lower). The whole-program value flow
    follows the table of launchers: there the pair is fixed, and the package lowers."""
    _package(tmp_path, "nolaunch", {
        "util.py": "import jax.numpy as jnp\nfrom jax import lax\n\n\ndef body(x_ref, w_ref, o_ref):\n"
        "    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))\n",
        "launch.py": "import jax\nfrom jax.experimental import pallas as pl\n\n\ndef tpu_call(body, x, w):\n"
        "    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype))(x, w)\n" + launch,
        "api.py": api,
    })
    _fixed_and_lowered(tmp_path, "nolaunch.api", [("util.py", "JAX001", kind)])


@pytest.mark.jax
def test_kernels_a_decorator_registers_in_a_table_and_launched_by_name_get_a_manual_note(tmp_path: Path) -> None:
    """The registry a new user's package kept (`@register("mm")` stores the body in `KERNELS`, and
    `pl.pallas_call(KERNELS[name], ...)` launches it): the analysis does not follow the table, and
    `--check` passed while the kernel failed to lower. The body takes refs: a [manual] note now."""
    _package(tmp_path, "reg", {
        "registry.py": "KERNELS = {}\n\n\ndef register(name):\n    def deco(fn):\n        KERNELS[name] = fn\n"
        "        return fn\n    return deco\n",
        "bodies.py": "import jax.numpy as jnp\nfrom jax import lax\nfrom reg.registry import register\n\n\n@register('mm')\n"
        "def mm_kernel(x_ref, w_ref, o_ref):\n"
        "    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))\n",
        "api.py": "import jax\nfrom jax.experimental import pallas as pl\nimport reg.bodies  # noqa: F401\n"
        "from reg.registry import KERNELS\n\n\ndef run(x, w, name='mm'):\n"
        "    return pl.pallas_call(KERNELS[name], out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype))(x, w)\n",
    })
    # (the whole-program value flow follows the registry's store and the launch's lookup: fixed, and it lowers)
    _fixed_and_lowered(tmp_path, "reg.api", [("bodies.py", "JAX001", "fixed")])


@pytest.mark.jax
@pytest.mark.parametrize("imported, launched", [
    ("from unres import util", "getattr(util, name)"),
    ("from unres.util import *", "body"),
    ("from unres import util", "vars(util)[name]"),
], ids=["getattr", "star-import", "vars"])
def test_a_launch_whose_body_cannot_be_resolved_makes_another_modules_bodies_manual(
        tmp_path: Path, imported: str, launched: str) -> None:
    """A launch whose body the analysis cannot follow (`getattr(util, name)`, a name a star import
    binds, a call's result) in a module that imports `util`: `util.body`, which takes refs as
    kernel bodies do, may be it. Its pair is a [manual] note, so `--check` fails (it passed while
    the kernel failed to lower). The note names that launch (a body with no launch found at all
    gets a note too: a mutant that dropped the launch from the search survived the suite)."""
    from tests import jax_support

    _package(tmp_path, "unres", {
        "util.py": "import jax.numpy as jnp\nfrom jax import lax\n\n\ndef body(x_ref, w_ref, o_ref):\n"
        "    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))\n",
        "api.py": f"import jax\nfrom jax.experimental import pallas as pl\n{imported}\n\n\ndef run(x, w, name='body'):\n"
        f"    return pl.pallas_call({launched}, out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype))(x, w)\n",
    })
    [finding] = [f for r in run([tmp_path], select(), Settings(jax_support.JAX_VERSION), jobs=1) for f in r.findings]
    if launched == "body":  # the whole-program value flow reads the star import: the launch is resolved
        _fixed_and_lowered(tmp_path, "unres.api", [("util.py", "JAX001", "fixed")])
        return
    assert "may run in a kernel: the launch on line 7 of unres.api runs a body this analysis cannot resolve" \
        in finding.message
    _fixed_and_lowered(tmp_path, "unres.api", [("util.py", "JAX001", "manual")])


def test_an_unresolved_launch_through_another_modules_launcher_names_that_launch(tmp_path: Path) -> None:
    """api.py never says pallas: it launches `getattr(util, name)` through `launch.tpu`, a launcher
    of another module. The note on util.body names that launch (a mutant that asked only modules
    saying pallas fell back on the note for a body with no launch found, and survived)."""
    from tests import jax_support

    _package(tmp_path, "unres", {
        "util.py": "import jax.numpy as jnp\nfrom jax import lax\n\n\ndef body(x_ref, w_ref, o_ref):\n"
        "    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))\n",
        "launch.py": "from jax.experimental import pallas as pl\n\n\ndef tpu(body, x, w):\n"
        "    return pl.pallas_call(body, out_shape=x)(x, w)\n",
        "api.py": "from unres import launch, util\n\n\ndef run(x, w, name='body'):\n"
        "    return launch.tpu(getattr(util, name), x, w)\n",
    })
    [finding] = [f for r in run([tmp_path], select(), Settings(jax_support.JAX_VERSION), jobs=1) for f in r.findings]
    assert (finding.kind.value, finding.line) == ("manual", 6)
    assert "may run in a kernel: the launch on line 5 of unres.api runs a body this analysis cannot resolve" \
        in finding.message


def test_a_body_nested_in_a_function_a_launch_reaches_by_getattr_names_that_launch(tmp_path: Path) -> None:
    """`pl.pallas_call(getattr(util, name)(), ...)`: the body nested in `util.make`, which takes refs,
    may be what the call returns. Its note names that launch, not "no launch of it was found" (the
    trial of 2026-12-07c's M1: the module's analysis did not ask the link, which says so)."""
    from tests import jax_support

    _package(tmp_path, "unres", {
        "util.py": "import jax.numpy as jnp\nfrom jax import lax\n\n\ndef make():\n    def body(x_ref, w_ref, o_ref):\n"
        "        o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))\n"
        "    return body\n",
        "api.py": "import jax\nfrom jax.experimental import pallas as pl\nfrom unres import util\n\n\ndef run(x, w, name='make'):\n"
        "    return pl.pallas_call(getattr(util, name)(), out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype))(x, w)\n",
    })
    [finding] = [f for r in run([tmp_path], select(), Settings(jax_support.JAX_VERSION), jobs=1) for f in r.findings]
    assert (finding.kind.value, finding.line) == ("manual", 7)
    assert "may run in a kernel: the launch on line 7 of unres.api runs a body this analysis cannot resolve " \
        "(getattr with a computed name), and `body` may be it" in finding.message, finding.message


@pytest.mark.jax
@pytest.mark.parametrize("api", [
    "from deco import launch\nfrom deco.util import body\n\n\ndef run(x, w):\n    return launch.tpu_kernel(x)(body)(x, w)\n",
    "from deco.launch import tpu_kernel\nfrom deco.util import body\n\n\ndef run(x, w):\n"
    "    return tpu_kernel(like=x)(body)(x, w)\n",
    "from deco import launch, util\n\n\ndef run(x, w):\n    @launch.tpu_kernel(x)\n    def kernel(x_ref, w_ref, o_ref):\n"
    "        util.body(x_ref, w_ref, o_ref)\n    return kernel(x, w)\n",
    "from deco import launch\nfrom deco.util import body\n\n\ndef run(x, w):\n    return launch.tpu_kernel_of(x)(body)(x, w)\n",
], ids=["called", "called-by-keyword", "decorator", "a-partial-of-it-beside-it"])
def test_a_decorator_factory_of_another_module_launches_kernel_code(tmp_path: Path, api: str) -> None:
    """`def tpu_kernel(like): def deco(body): return pl.pallas_call(body, ...); return deco` in
    `launch`: `tpu_kernel(x)(body)` and `@tpu_kernel(x)` in another module launch the body, as
    `pl.kernel(mesh=...)` does. Only a def that launched its own parameter was known, and `--check`
    passed while the kernel failed to lower."""
    _package(tmp_path, "deco", {
        "util.py": "import jax.numpy as jnp\nfrom jax import lax\n\n\ndef body(x_ref, w_ref, o_ref):\n"
        "    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))\n",
        "launch.py": "import functools\nimport jax\nfrom jax.experimental import pallas as pl\n\n\ndef tpu_kernel(like):\n"
        "    def deco(body):\n        return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct((8, 128), like.dtype))\n"
        "    return deco\n\n\ntpu_kernel_of = functools.partial(tpu_kernel)\n",
        "api.py": api,
    })
    _fixed_and_lowered(tmp_path, "deco.api", [("util.py", "JAX001", "fixed")])


@pytest.mark.jax
@pytest.mark.parametrize("table, called", [("OPS = {'mm': mm}", "OPS['mm']"), ("HELPERS = [mm]", "HELPERS[0]"),
                                           ("HELPERS = [mm]", "HELPERS.copy()[0]")],
                         ids=["dict", "list", "a-call-then-an-index"])
def test_a_helper_a_kernel_calls_through_a_container_is_kernel_code(tmp_path: Path, table: str, called: str) -> None:
    """A kernel that calls its helper through a container (`OPS['mm'](a, b)`) runs the helper: the
    helper's pair is fixed, since only kernel code reads the container (writing the helper in it is
    no call; a new user's trial, 2026-12-06: it was a `[manual]` "runs in kernels and in plain XLA
    code" with no XLA caller). It passed `--check` while the kernel failed, before that."""
    _package(tmp_path, "table", {
        "api.py": "import jax\nimport jax.numpy as jnp\nfrom jax import lax\nfrom jax.experimental import pallas as pl\n\n\n"
        "def mm(a, b):\n    return jnp.dot(a, b, precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))\n\n\n"
        f"{table}\n\n\ndef body(x_ref, w_ref, o_ref):\n    o_ref[...] = {called}(x_ref[...], w_ref[...])\n\n\n"
        "def run(x, w):\n    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype))(x, w)\n",
    })
    _fixed_and_lowered(tmp_path, "table.api", [("api.py", "JAX001", "fixed")])


@pytest.mark.parametrize("reader", ["from table import api\n\n\ndef reference(x, w):\n    return api.OPS['mm'](x, w)\n",
                                    "from table.api import OPS\n\n\ndef reference(x, w):\n    return OPS['mm'](x, w)\n"],
                         ids=["module-attribute", "imported-name"])
def test_a_helper_in_a_table_plain_xla_code_elsewhere_reads_is_not_rewritten(tmp_path: Path, reader: str) -> None:
    """The table of the test above, also read by plain XLA code in another module: the helper runs
    there too, so its pair is `[manual]` and nothing is written (XLA honours the pair)."""
    _package(tmp_path, "table", {
        "api.py": "import jax\nimport jax.numpy as jnp\nfrom jax import lax\nfrom jax.experimental import pallas as pl\n\n\n"
        "def mm(a, b):\n    return jnp.dot(a, b, precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))\n\n\n"
        "OPS = {'mm': mm}\n\n\ndef body(x_ref, w_ref, o_ref):\n    o_ref[...] = OPS['mm'](x_ref[...], w_ref[...])\n\n\n"
        "def run(x, w):\n    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype))(x, w)\n",
        "reference.py": reader,
    })
    results = run([tmp_path], select(), Settings((0, 12, 0, 1), unsafe_fixes=True), jobs=1)
    assert [(Path(r.path).name, f.code, f.kind.value) for r in results for f in r.findings] == \
        [("api.py", "JAX001", "manual")]
    assert all(r.new_source is None for r in results)


@pytest.mark.parametrize("imported, launched", [("from nbl import launch", "launch.tpu_call"),
                                                ("from nbl import ops", "ops.run")],
                         ids=["a-launch-helper", "a-helper-handed-on"])
def test_a_notebook_that_launches_through_a_helper_of_the_project_is_analysed(
        tmp_path: Path, imported: str, launched: str) -> None:
    """A notebook that never says pallas but launches its kernel through the project's launch helper
    (or one handed on by another module): its kernel's accuracy hint is reported. The index read only
    notebooks that say pallas, so the notebook's kernel was plain code and `--check` passed (a
    new user's trial). Its lowering is the single-module kernel's, which the goldens lower."""

    _package(tmp_path, "nbl", {
        "launch.py": "import jax\nfrom jax.experimental import pallas as pl\n\n\ndef tpu_call(body, x):\n"
        "    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype))(x)\n",
        "ops.py": "from nbl.launch import tpu_call\n\n\ndef run(body, x):\n    return tpu_call(body, x)\n",
    })
    cells = [("markdown", "# proto"), ("code", f"import jax\nfrom jax import lax\n{imported}"),
             ("code", "def body(x_ref, o_ref):\n    o_ref[...] = lax.exp(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)\n\n"
                      f"y = {launched}(body, x)")]
    (tmp_path / "proto.ipynb").write_text(json.dumps({
        "cells": [{"cell_type": kind, "metadata": {}, "source": source,
                   **({"execution_count": None, "outputs": []} if kind == "code" else {})} for kind, source in cells],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n")
    results = run([tmp_path], select(), SETTINGS, jobs=1)
    assert [(Path(r.path).name, f.code, f.kind.value) for r in results for f in r.findings] == [
        ("proto.ipynb", "JAX002", "dropped")]


CONFIG_DOTS = ("import jax.numpy as jnp\nfrom jax import lax\n\n\n"
               "def fast_dot(a, b):\n    return jnp.dot(a, b, precision=lax.Precision.DEFAULT)\n\n\n"
               "def accurate_dot(a, b):\n    return jnp.dot(a, b, precision=(lax.Precision.HIGH, lax.Precision.HIGHEST))\n\n\n"
               'DOTS = {"fast": fast_dot, "accurate": accurate_dot}\n')
CONFIG_CLASS = ("import dataclasses\nfrom typing import Callable\n\nfrom cfgdot import dots\n\n\n"
                "@dataclasses.dataclass(frozen=True)\nclass MatmulConfig:\n    block: int = 128\n"
                "    dot_fn: Callable = dots.accurate_dot\n")
CONFIG_KERNELS = ("import functools\n\nimport jax\nfrom jax.experimental import pallas as pl\n{imported}\n"
                  "from cfgdot.dots import DOTS\n\n\n"
                  "def _cfg_kernel(x_ref, w_ref, o_ref, *, dot_fn):\n    o_ref[...] = dot_fn(x_ref[...], w_ref[...])\n\n\n"
                  "def _table_kernel(x_ref, w_ref, o_ref):\n    o_ref[...] = DOTS[\"accurate\"](x_ref[...], w_ref[...])\n\n\n"
                  "def matmul_cfg(x, w, cfg{default}):\n"
                  "    return pl.pallas_call(functools.partial(_cfg_kernel, dot_fn=cfg.dot_fn),\n"
                  "                          out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype))(x, w)\n\n\n"
                  "def matmul_table(x, w):\n"
                  "    return pl.pallas_call(_table_kernel, out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype))(x, w)\n")


@pytest.mark.jax
@pytest.mark.parametrize("built", ["in-the-kernels-module", "by-a-plain-caller"])
@pytest.mark.parametrize("xla_read", [None, "cfg.dot_fn(x, w)", "getattr(cfg, 'dot_fn')(x, w)"],
                         ids=["kernels-only", "xla-calls-the-field", "xla-getattr"])
def test_a_helper_a_config_dataclass_stores_is_fixed_where_only_kernels_read_the_field(
        tmp_path: Path, built: str, xla_read: "str | None") -> None:
    """`dot_fn: Callable = dots.accurate_dot` in a config dataclass, read only by
    `partial(kernel, dot_fn=cfg.dot_fn)`; a table kernel calls the helper too. Making the config
    (in a wrapper's default, or in a plain caller, whose module no kernel reaches) was taken for a
    plain XLA use: `[manual]` "runs in kernels and in plain XLA code", and the package kept failing
    (a new user's trial, W1). Storing a function is not calling it: the field's reads decide. The
    helper is fixed and the package lowers for TPU; where XLA code calls the field (or reads it by
    name), the note stays and the helper is left as written."""
    in_module = built == "in-the-kernels-module"
    modules = {
        "dots.py": CONFIG_DOTS, "config.py": CONFIG_CLASS,
        "kernels.py": CONFIG_KERNELS.format(imported="\nfrom cfgdot.config import MatmulConfig" if in_module else "",
                                            default="=MatmulConfig()" if in_module else ""),
        "api.py": "from cfgdot import kernels\n" + ("" if in_module else "from cfgdot.config import MatmulConfig\n")
        + "\n\ndef run(x, w):\n    return kernels.matmul_cfg(x, w" + ("" if in_module else ", MatmulConfig()")
        + ") + kernels.matmul_table(x, w)\n",
    }
    if xla_read is not None:
        modules["reference.py"] = ("from cfgdot.config import MatmulConfig\n\n\n"
                                   f"def reference(x, w, cfg=MatmulConfig()):\n    return {xla_read}\n")
    _package(tmp_path, "cfgdot", modules)
    _fixed_and_lowered(tmp_path, "cfgdot.api", [("dots.py", "JAX001", "manual" if xla_read else "fixed")])
    assert ((tmp_path / "cfgdot" / "dots.py").read_text() == CONFIG_DOTS) == bool(xla_read)


@pytest.mark.parametrize("change", ["a-new-module", "an-edit"])
def test_a_field_read_added_in_plain_code_reaches_a_warm_run(tmp_path: Path, change: str) -> None:
    """Whether a helper a config class stores is kernel code depends on every read of the field,
    in any module (one handed the config need not import its class): XLA code that starts calling
    `cfg.dot_fn`, in a new module or an edited one, turns the cached fix into the `[manual]` note."""
    reference = ("from cfgdot.config import MatmulConfig\n\n\n"
                 "def reference(x, w, cfg=MatmulConfig()):\n    return {}\n")
    modules = {"dots.py": CONFIG_DOTS, "config.py": CONFIG_CLASS,
               "kernels.py": CONFIG_KERNELS.format(imported="\nfrom cfgdot.config import MatmulConfig",
                                                   default="=MatmulConfig()")}
    if change == "an-edit":
        modules["reference.py"] = reference.format("x")
    package = _package(tmp_path, "cfgdot", modules)
    cache = ResultCache(tmp_path / "cache", SETTINGS)
    dots = package / "dots.py"
    assert [f.kind for f in _run(tmp_path, [dots], cache)[0].findings] == [Kind.FIXED]
    (package / "reference.py").write_text(reference.format("cfg.dot_fn(x, w)"))
    assert [f.kind for f in _run(tmp_path, [dots], cache)[0].findings] == [Kind.MANUAL], "a stale answer was reused"
    assert [f.kind for f in _run(tmp_path, [dots])[0].findings] == [Kind.MANUAL]
