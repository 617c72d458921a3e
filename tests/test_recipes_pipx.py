"""The README's and docs/monorepo.md's upgrade recipes, run exactly as the pages print them, with the
tool installed as the README installs it: `pipx install /path/to/jax-codemod`, a virtualenv of its
own holding the tool and its dependencies and no jax. On a project that has no environment or pin
of its own either, each recipe must apply (or write to its patches) the fixes its dry run shows.

tests/test_docs.py runs every command with this interpreter's `jax-codemod`, whose virtualenv has
jax: there the tool's own jax was the target, which hid that these recipes applied none of the
fixes on a pipx install (the JAX1xx rules were off, a warning on stderr, exit 0; issue 49).
Marked `slow`: the tool's virtualenv is built with pip, once per module (about 10 s with a warm
pip cache)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_docs import (BIN, COMMAND_TIMEOUT_S, DOCS, README, SHELLS, Block, _environment, _snapshot, blocks,
                             commands, scratch_template)  # noqa: F401 (scratch_template is a fixture)

pytestmark = pytest.mark.slow
INSTALL_TIMEOUT_S = 600  # a cold pip cache downloads libcst, typer and setuptools

# The scratch project's src/model.py (tests/test_docs.py MODEL) and what moving it to jax 0.12 makes of it.
OLD_LINE = "-    leaves = jax.tree_leaves(jax.tree_map(jnp.linalg.norm, params))"
NEW_LINE = "+    leaves = jax.tree.leaves(jax.tree.map(jnp.linalg.norm, params))"


def recipe(page: Path, heading: str) -> Block:
    """The first shell block below `heading` on `page`: the recipe a reader of that section copies."""
    lines = page.read_text(encoding="utf-8").split("\n")
    start = lines.index(heading) + 1
    return next(block for block in blocks(page) if block.line > start and block.language in SHELLS)


RECIPES = {
    "readme-one-shot": (README, "### One-shot migration"),
    "readme-monorepo": (README, "### Monorepo upgrade"),
    "monorepo-headline": (DOCS / "monorepo.md", "# Upgrading a monorepo: one patch, one pull request per owner"),
}


@pytest.fixture(scope="module")
def pipx_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin folder of `pipx install /path/to/jax-codemod`: a fresh virtualenv, the tool installed
    from a clone of this working tree (not editable), its dependencies from the index, no jax."""
    home = tmp_path_factory.mktemp("pipx")
    clone = home / "jax-codemod"
    clone.mkdir()
    _snapshot(clone, _environment(home))
    venv = home / "venvs" / "jax-codemod"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=INSTALL_TIMEOUT_S)
    python = venv / "bin" / "python"
    installed = subprocess.run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check", str(clone)],
                               capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S)
    if installed.returncode != 0:
        pytest.fail(f"pip could not install the tool into a fresh virtualenv:\n{installed.stdout}{installed.stderr}",
                    pytrace=False)
    probe = "import importlib.metadata as m, importlib.util as u; print(u.find_spec('jax'), m.version('jax-codemod'))"
    found = subprocess.run([python, "-c", probe], capture_output=True, text=True, check=True)
    assert found.stdout.startswith("None "), found.stdout  # no jax: the target is not the tool's
    return venv / "bin"


def _pipx_environment(home: Path, tool: Path) -> dict[str, str]:
    """test_docs's environment with the pipx install's bin first on the PATH and this
    interpreter's (which has jax) left out."""
    env = _environment(home)
    kept = [entry for entry in env["PATH"].split(os.pathsep) if entry and Path(entry) != BIN]
    env["PATH"] = os.pathsep.join([str(tool), *kept])
    env["JAX_CODEMOD_CACHE_DIR"] = str(home / "cache")
    return env


@pytest.mark.parametrize("name", RECIPES)
def test_the_upgrade_recipes_apply_their_fixes_on_a_pipx_install(name: str, pipx_bin: Path, scratch_template: Path,
                                                                  tmp_path: Path) -> None:
    block = recipe(*RECIPES[name])
    steps = commands(block)
    assert steps and all(command.split()[0] in ("jax-codemod", "git") for command, _ in steps), steps
    project = tmp_path / "project"
    shutil.copytree(scratch_template, project, symlinks=True)
    assert not (project / ".venv").exists() and not (project / "pyproject.toml").exists()  # no target of its own
    env = _pipx_environment(tmp_path, pipx_bin)
    assert shutil.which("jax-codemod", path=env["PATH"]) == str(pipx_bin / "jax-codemod")
    outputs = []
    for command, _ in steps:
        done = subprocess.run(["bash", "-c", command], cwd=project, env=env, capture_output=True, text=True,
                              timeout=COMMAND_TIMEOUT_S, stdin=subprocess.DEVNULL)
        where = f"{block.id}: `{command}` exited {done.returncode}\n{done.stdout}{done.stderr}"
        assert done.returncode in (0, 1), where
        assert "no target jax" not in done.stderr and "did not run" not in done.stderr, where
        assert "Traceback (most recent call last)" not in done.stderr, where
        outputs.append(done)
    if name == "readme-one-shot":  # dry run, --write, git diff: shown, then applied, then reviewed
        dry_run, written, diff = outputs
        assert OLD_LINE in dry_run.stdout and NEW_LINE in dry_run.stdout, dry_run.stdout
        assert "src/model.py:8:14: JAX102 [fixed]" in written.stderr, written.stderr
        assert OLD_LINE in diff.stdout and NEW_LINE in diff.stdout, diff.stdout
        assert "tree_map" not in (project / "src" / "model.py").read_text()
    else:  # one dry run that writes a patch per owner and SUMMARY.md
        (command, _), = steps
        folder = project / re.search(r"--write-patches (\S+)", command).group(1)
        patches = "".join(path.read_text() for path in sorted(folder.glob("*.patch")))
        assert OLD_LINE in patches and NEW_LINE in patches, patches
        summary = (folder / "SUMMARY.md").read_text()
        assert "JAX101" in summary and "JAX102" in summary and "(target jax 0.12.0.1 from --jax-version)" in summary, \
            summary
