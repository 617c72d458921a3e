"""The hooks of `.pre-commit-hooks.yaml`, run by the real pre-commit on a throwaway git repository.

pre-commit installs a hook the way a user's project gets it: it clones the hook repository at a
commit and pip-installs it into a virtualenv of its own (libcst, typer and setuptools from PyPI), in
which jax is not installed. The hook repository here is a snapshot of this working tree (tracked
files and untracked ones git does not ignore) committed to a temporary repository, because
`pre-commit try-repo <this checkout>` would miss a `.pre-commit-hooks.yaml` that is not committed or
staged yet (its shadow commit takes only tracked changes) and builds a new virtualenv on every call.
One test goes through `try-repo` as a hook author does; the others run `pre-commit run` with a
config naming the snapshot and a session-wide PRE_COMMIT_HOME, so that the hook virtualenv is built
once for the session.

Nothing here imports jax. The hook virtualenv needs PyPI (or a pip index the user configured).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Optional, Sequence

import pytest

REPO = Path(__file__).resolve().parents[1]
MANIFEST = REPO / ".pre-commit-hooks.yaml"
CHECK_HOOK, FIX_HOOK = "jax-codemod-check", "jax-codemod"

BROKEN = """\
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def kernel(x_ref, y_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))


matmul = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
"""
FIXED = BROKEN.replace(
    "precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST)", "precision=lax.Precision.HIGHEST"
)
# A dot at (DEFAULT, HIGH): Mosaic TPU lowers a HIGH dot from jax 0.11.1 on. Which scalar the fix
# writes depends on the target release, which the hook cannot read from its own virtualenv.
DOT_HIGH = BROKEN.replace("lax.Precision.HIGHEST))", "lax.Precision.HIGH))")
# docs/pre-commit.md's advice: the hook's virtualenv has no jax, the args name the target.
PINNED = ("--jax-version", "0.12.0")
CLEAN = """\
import jax.numpy as jnp
from jax import lax


def matmul(x, y):
    return jnp.dot(x, y, precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))
"""

BUILD_TIMEOUT_S = 900  # a cold pip cache downloads libcst, typer and setuptools
RUN_TIMEOUT_S = 120


def _pre_commit_available() -> Optional[str]:
    """Why the tests cannot run, or None."""
    if importlib.util.find_spec("pre_commit") is None:
        return f"pre-commit is not installed for {sys.executable} (pip install -e '.[test]')"
    if shutil.which("git") is None:
        return "git is not on the PATH"
    return None


pytestmark = pytest.mark.skipif(_pre_commit_available() is not None, reason=str(_pre_commit_available()))


def _environment(pre_commit_home: Path) -> dict[str, str]:
    """The caller's environment, without what would leak into or out of these runs: GIT_* variables
    (set when pytest itself runs from a git hook), the user's git configuration (hooksPath,
    gpgsign), pre-commit's SKIP, its home and virtualenv's app-data folder (both under
    `pre_commit_home`). pip keeps the user's configuration and cache. The tool's result cache is
    the session's (tests/conftest.py)."""
    env = {
        k: v for k, v in os.environ.items()
        if not k.startswith(("GIT_", "PRE_COMMIT", "VIRTUALENV_")) and k != "SKIP"
    }
    env.update(
        PRE_COMMIT_HOME=str(pre_commit_home),
        VIRTUALENV_OVERRIDE_APP_DATA=str(pre_commit_home / "virtualenv-app-data"),
        PRE_COMMIT_COLOR="never",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
        GIT_TERMINAL_PROMPT="0",
    )
    return env


def _git(cwd: Path, *args: str, env: dict[str, str]) -> str:
    result = subprocess.run(
        ["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args],
        cwd=cwd, env=env, capture_output=True, text=True,
    )
    assert result.returncode == 0, f"git {' '.join(args)}: {result.stdout}{result.stderr}"
    return result.stdout


class PreCommit:
    """The real pre-commit (`python -m pre_commit` of this interpreter), against one hook repo."""

    def __init__(self, hook_repo: Path, rev: str, home: Path, configs: Path):
        self.hook_repo, self.rev, self.home, self.configs = hook_repo, rev, home, configs
        self.env = _environment(home)

    def __call__(self, cwd: Path, *args: str, timeout: float = RUN_TIMEOUT_S) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "pre_commit", *args, "--color", "never"],
            cwd=cwd, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            timeout=timeout,
        )

    def config(self, hook_id: str, args: Sequence[str] = ()) -> Path:
        """A .pre-commit-config.yaml (JSON is YAML) naming the snapshot, as a user's project would."""
        hook: dict = {"id": hook_id}
        if args:
            hook["args"] = list(args)
        path = self.configs / f"{hook_id}-{len(list(self.configs.iterdir()))}.yaml"
        path.write_text(json.dumps({"repos": [{"repo": str(self.hook_repo), "rev": self.rev, "hooks": [hook]}]}))
        return path

    def run(self, project: Path, hook_id: str, *files: str, args: Sequence[str] = ()) -> subprocess.CompletedProcess:
        return self(project, "run", "--config", str(self.config(hook_id, args)), hook_id, "--files", *files)

    def log(self) -> str:
        log = self.home / "pre-commit.log"
        return log.read_text() if log.exists() else "(no pre-commit.log)"


@pytest.fixture(scope="session")
def pre_commit(tmp_path_factory: pytest.TempPathFactory) -> PreCommit:
    """The working tree committed to a temporary repository, and its hook virtualenv, built once."""
    listing = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO, env={k: v for k, v in os.environ.items() if not k.startswith("GIT_")}, capture_output=True,
    )
    if listing.returncode != 0:
        pytest.skip(f"{REPO} is not a git working tree: cannot snapshot it as a hook repository")
    snapshot = tmp_path_factory.mktemp("hook-repo")
    for name in filter(None, listing.stdout.decode().split("\0")):
        source = REPO / name
        if source.is_file():  # tracked files deleted in the working tree are left out
            (snapshot / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, snapshot / name)
    env = _environment(tmp_path_factory.mktemp("unused-home"))
    _git(snapshot, "init", "-q", env=env)
    _git(snapshot, "add", "-A", env=env)
    _git(snapshot, "-c", "user.name=jax-codemod tests", "-c", "user.email=tests@invalid", "commit", "-q",
         "-m", "snapshot of the working tree", env=env)
    rev = _git(snapshot, "rev-parse", "HEAD", env=env).strip()

    tool = PreCommit(snapshot, rev, tmp_path_factory.mktemp("pre-commit-home"), tmp_path_factory.mktemp("configs"))
    # Both hooks share this one virtualenv (same repo, rev, language and dependencies).
    built = tool(snapshot, "install-hooks", "--config", str(tool.config(CHECK_HOOK)), timeout=BUILD_TIMEOUT_S)
    if built.returncode != 0:
        pytest.fail(f"pre-commit could not build the hook virtualenv:\n{built.stdout}\n{tool.log()}", pytrace=False)
    return tool


@pytest.fixture
def project(tmp_path: Path, pre_commit: PreCommit) -> Path:
    """A user's repository, all staged: a broken Pallas TPU kernel, a clean file (a per-operand pair
    outside any kernel, which XLA lowers) and a kernel whose fix depends on the target jax."""
    root = tmp_path / "project"
    root.mkdir()
    _git(root, "init", "-q", env=pre_commit.env)
    _git(root, "config", "user.name", "jax-codemod tests", env=pre_commit.env)
    _git(root, "config", "user.email", "tests@invalid", env=pre_commit.env)
    (root / "broken.py").write_text(BROKEN)
    (root / "clean.py").write_text(CLEAN)
    (root / "dot_high.py").write_text(DOT_HIGH)
    _git(root, "add", "-A", env=pre_commit.env)
    return root


def _finding(path: str, output: str) -> Optional[re.Match]:
    """The tool's own finding line, so that a crash (also exit 1) never passes for a finding."""
    return re.search(rf"^{re.escape(path)}:8:\d+: JAX001 \[fixed\] jnp\.dot: precision \(DEFAULT, HIGH", output, re.M)


def _hook_line(name: str, verdict: str, output: str) -> bool:
    return re.search(rf"^{re.escape(name)}\.+{verdict}$", output, re.M) is not None


def test_manifest_is_valid_and_names_the_console_script(tmp_path: Path) -> None:
    tomllib = pytest.importorskip("tomllib")
    yaml = pytest.importorskip("yaml")
    validated = subprocess.run(
        [sys.executable, "-m", "pre_commit", "validate-manifest", str(MANIFEST)],
        env=_environment(tmp_path), capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
    )
    assert validated.returncode == 0, validated.stdout + validated.stderr

    hooks = {hook["id"]: hook for hook in yaml.safe_load(MANIFEST.read_text())}
    assert list(hooks) == [CHECK_HOOK, FIX_HOOK]
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    for hook_id, mode in ((CHECK_HOOK, "--check"), (FIX_HOOK, "--write")):
        hook = hooks[hook_id]
        entry = hook["entry"].split()
        assert entry[0] in scripts and mode in entry, hook["entry"]
        assert (hook["language"], hook["types_or"], hook["require_serial"]) == ("python", ["python", "jupyter"], False)
        assert hook["name"] and hook["description"]


def test_try_repo_check_hook_fails_on_the_broken_file_and_leaves_it(pre_commit: PreCommit, project: Path) -> None:
    """`pre-commit try-repo`, as a hook author runs it (it builds a virtualenv of its own)."""
    result = pre_commit(project, "try-repo", str(pre_commit.hook_repo), CHECK_HOOK, "--ref", pre_commit.rev,
                        "--files", "broken.py", "clean.py", timeout=BUILD_TIMEOUT_S)
    assert result.returncode == 1, result.stdout
    assert _hook_line("jax-codemod (check)", "Failed", result.stdout), result.stdout
    assert _finding("broken.py", result.stdout), result.stdout
    assert "clean.py" not in result.stdout
    assert (project / "broken.py").read_text() == BROKEN
    assert "files were modified" not in result.stdout


def test_check_hook_fails_on_the_broken_file_and_leaves_it(pre_commit: PreCommit, project: Path) -> None:
    result = pre_commit.run(project, CHECK_HOOK, "broken.py", "clean.py")
    assert result.returncode == 1, result.stdout
    assert _hook_line("jax-codemod (check)", "Failed", result.stdout), result.stdout
    assert re.search(r"^broken\.py$", result.stdout, re.M), result.stdout  # --check's file list
    assert _finding("broken.py", result.stdout), result.stdout
    assert "clean.py" not in result.stdout
    # pre-commit would have said "files were modified by this hook" too, but check the bytes.
    assert (project / "broken.py").read_text() == BROKEN
    assert (project / "clean.py").read_text() == CLEAN
    assert "files were modified" not in result.stdout


def test_check_hook_passes_on_the_clean_file_once_it_has_a_target(pre_commit: PreCommit, project: Path) -> None:
    """Without a target the JAX1xx rules did not look: the hook fails saying so, never passes."""
    blind = pre_commit.run(project, CHECK_HOOK, "clean.py")
    assert blind.returncode == 1 and "- exit code: 2" in blind.stdout, blind.stdout
    assert "(target jax unknown: the JAX1xx rules did not run;" in blind.stdout, blind.stdout
    result = pre_commit.run(project, CHECK_HOOK, "clean.py", args=PINNED)
    assert result.returncode == 0, result.stdout
    assert _hook_line("jax-codemod (check)", "Passed", result.stdout), result.stdout


def test_fix_hook_rewrites_the_broken_file_then_both_hooks_pass(pre_commit: PreCommit, project: Path) -> None:
    first = pre_commit.run(project, FIX_HOOK, "broken.py", "clean.py")
    assert first.returncode == 1, first.stdout
    assert _hook_line("jax-codemod (fix)", "Failed", first.stdout), first.stdout
    assert "files were modified by this hook" in first.stdout
    assert _finding("broken.py", first.stdout), first.stdout
    assert (project / "broken.py").read_text() == FIXED  # one argument changed, every other byte kept
    assert (project / "clean.py").read_text() == CLEAN

    _git(project, "add", "-A", env=pre_commit.env)  # what the user does after reviewing the rewrite
    for hook_id, name in ((FIX_HOOK, "jax-codemod (fix)"), (CHECK_HOOK, "jax-codemod (check)")):
        again = pre_commit.run(project, hook_id, "broken.py", "clean.py", args=PINNED)
        assert again.returncode == 0, again.stdout
        assert _hook_line(name, "Passed", again.stdout), again.stdout
    assert (project / "broken.py").read_text() == FIXED


@pytest.mark.parametrize(
    ("args", "written", "target"),
    [
        ((), "lax.Precision.HIGHEST", "unknown: the JAX1xx rules did not run; pass --jax-version X, or --ignore JAX1"),
        # no jax in the hook's virtualenv: conservative, and the hook fails saying the JAX1xx rules did not run
        (PINNED, "lax.Precision.HIGH", "0.12.0 from --jax-version"),
    ],
    ids=["no-jax-version", "jax-version-arg"],
)
def test_fix_hook_targets_the_jax_version_given_in_args(
    pre_commit: PreCommit, project: Path, args: tuple[str, ...], written: str, target: str
) -> None:
    result = pre_commit.run(project, FIX_HOOK, "dot_high.py", args=args)
    assert result.returncode == 1, result.stdout
    assert f"(target jax {target})" in result.stdout, result.stdout
    assert (project / "dot_high.py").read_text() == DOT_HIGH.replace(
        "precision=(lax.Precision.DEFAULT, lax.Precision.HIGH)", f"precision={written}"
    )


@pytest.mark.parametrize(("table", "written"), [
    ('jax-version = "0.12.0"\n', "lax.Precision.HIGH"),  # the hook's virtualenv has no jax: the config says
    ('jax-version = "0.12.0"\nprecision-policy = "highest"\n', "lax.Precision.HIGHEST"),
], ids=["jax-version", "precision-policy"])
def test_fix_hook_reads_the_projects_config(pre_commit: PreCommit, project: Path, table: str, written: str) -> None:
    (project / "pyproject.toml").write_text(f"[project]\nname = 'demo'\n\n[tool.jax-codemod]\n{table}")
    result = pre_commit.run(project, FIX_HOOK, "dot_high.py")
    assert result.returncode == 1, result.stdout
    assert "(target jax 0.12.0 from [tool.jax-codemod])" in result.stdout, result.stdout
    assert (project / "dot_high.py").read_text() == DOT_HIGH.replace(
        "precision=(lax.Precision.DEFAULT, lax.Precision.HIGH)", f"precision={written}"
    )



def test_a_hook_selecting_jax1xx_fails_without_a_target_and_reads_the_projects_venv(
        pre_commit: PreCommit, project: Path) -> None:
    """The hook's virtualenv has no jax: with no target the hook fails (never "0 fixes", passed); the
    project's .venv gives one."""
    (project / "upgrade.py").write_text("import jax\ny = jax.tree_map(lambda a: a, {})\n")
    _git(project, "add", "upgrade.py", env=pre_commit.env)
    failed = pre_commit.run(project, CHECK_HOOK, "upgrade.py", args=["--select", "JAX1"])
    assert failed.returncode == 1 and "- exit code: 2" in failed.stdout, failed.stdout
    assert "error: no target jax release" in failed.stdout, failed.stdout
    (project / ".venv" / "lib" / "python3.12" / "site-packages" / "jax-0.12.0.1.dist-info").mkdir(parents=True)
    found = pre_commit.run(project, CHECK_HOOK, "upgrade.py", args=["--select", "JAX1"])
    assert found.returncode == 1 and "upgrade.py:2:5: JAX101 [fixed]" in found.stdout, found.stdout
    assert "(target jax 0.12.0.1 from .venv)" in found.stdout, found.stdout

# A kernel whose precision is a parameter no code in the module binds: a [manual] finding, no fix.
MANUAL_ONLY = """\
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, y_ref, o_ref, *, precision):
    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], precision=precision)


def run(x, y, precision):
    return pl.pallas_call(lambda *refs: kernel(*refs, precision=precision), out_shape=x)(x, y)
"""


@pytest.mark.parametrize("hook_id", [CHECK_HOOK, FIX_HOOK])
def test_both_hooks_fail_while_a_manual_finding_remains(pre_commit: PreCommit, project: Path, hook_id: str) -> None:
    (project / "review.py").write_text(MANUAL_ONLY)
    result = pre_commit.run(project, hook_id, "review.py")
    assert result.returncode == 1, result.stdout
    assert re.search(r"^review\.py:6:\d+: JAX001 \[manual\]", result.stdout, re.M), result.stdout
    assert (project / "review.py").read_text() == MANUAL_ONLY
    assert "files were modified" not in result.stdout


def test_check_hook_reads_staged_notebooks(pre_commit: PreCommit, project: Path) -> None:
    """pre-commit passes a hook only the files its types select: notebooks reach the check hook
    (`types_or: [python, jupyter]`, as ruff's hooks), and its finding names the cell."""
    imports, kernel = BROKEN.split("\n\n\n", 1)
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# A kernel\n"]}] + [
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": [source]}
        for source in (imports + "\n", kernel)]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (project / "kernels.ipynb").write_text(json.dumps(notebook, indent=1) + "\n")
    _git(project, "add", "kernels.ipynb", env=pre_commit.env)
    result = pre_commit.run(project, CHECK_HOOK, "kernels.ipynb")
    assert result.returncode == 1, result.stdout
    assert _hook_line("jax-codemod (check)", "Failed", result.stdout), result.stdout
    assert re.search(r"^kernels\.ipynb:cell 3:\d+:\d+: JAX001 \[fixed\]", result.stdout, re.M), result.stdout
