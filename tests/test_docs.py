"""The README and docs/ say what works, and it does.

- Every shell command in a code block marked `sh`, `bash`, `shell` or `console` (there, the `$ `
  lines) runs in a scratch copy of a small project: `examples/`, a `src/` package with a kernel and
  old JAX spellings, a notebook, a `train.py` that fails with a JAX error, a CODEOWNERS file and a
  git history with an `origin/main`. It must exit 0 or 1 (a dry run's "changes pending" is 1) and
  print no traceback; a `console` block's output lines must each be printed. A block that cannot run
  here says so just before it, where a reader does not see it: `<!-- skip-test: the reason -->`.
  Blocks that push, install or run make are never run (UNRUNNABLE), and say why in the skip.
  A `<!-- file: NAME -->` comment before a block puts that block in the scratch project as NAME
  (the README's kernel), so what the reader sees is what the commands run on.
- Every relative link of the README and docs/ resolves to a file, and its `#anchor` to a heading;
  every page under docs/ is reachable from the README.
- docs/rules/ is what docs/generate.py renders from the rules (`--update-goldens` rewrites it).
- Each `[tool.jax-codemod]` example is a config the tool accepts; configuration.md lists every key.
- The pre-commit snippet of docs/pre-commit.md works as written (marked `slow`: pre-commit builds
  the hook's virtualenv with pip, twice).

The commands run with this interpreter's bin folder first on the PATH (its `jax-codemod`, `python`,
`pre-commit`), and take about half a minute in all.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
DOCS = REPO / "docs"
PAGES = [README, *sorted(DOCS.rglob("*.md"))]
SHELLS = {"sh", "bash", "shell", "console"}
BIN = Path(sys.executable).parent
COMMAND_TIMEOUT_S = 180

# Commands no test may run, whatever the page says: the block is skipped with the reason.
UNRUNNABLE = (
    (re.compile(r"\bgit push\b"), "pushes to a remote"),
    (re.compile(r"^\s*pipx? install\b", re.M), "installs into your environment"),
    (re.compile(r"^\s*make\b", re.M), "runs a make target (make test is CI's own command: .ci/run)"),
    (re.compile(r"\bpre-commit install\b"), "installs a git hook"),
)


def _relative(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


# -- reading markdown --

@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # of the opening fence, 1-based
    language: str
    text: str
    skip: Optional[str]  # `<!-- skip-test: reason -->` just before the fence
    file: Optional[str]  # `<!-- file: name -->` just before the fence

    @property
    def id(self) -> str:
        return f"{_relative(self.page)}:{self.line}"


_FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([\w+-]*)")
_MARKER = re.compile(r"^<!--\s*(skip-test|file):\s*(.*?)\s*-->\s*$")


def blocks(page: Path) -> list[Block]:
    lines = page.read_text(encoding="utf-8").split("\n")
    found, index = [], 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        fence, language, start = opening.group(2), opening.group(3).lower(), index
        index += 1
        body = []
        while index < len(lines) and not lines[index].strip().startswith(fence):
            body.append(lines[index])
            index += 1
        index += 1
        before = next((lines[i] for i in range(start - 1, -1, -1) if lines[i].strip()), "")
        marker = _MARKER.match(before.strip())
        found.append(Block(page, start + 1, language, "\n".join(body) + "\n",
                           skip=marker.group(2) if marker and marker.group(1) == "skip-test" else None,
                           file=marker.group(2) if marker and marker.group(1) == "file" else None))
    return found


def prose(page: Path) -> list[tuple[int, str]]:
    """The page's lines outside code blocks, numbered."""
    fenced = set()
    for block in blocks(page):
        fenced.update(range(block.line, block.line + block.text.count("\n") + 1))
    return [(number, line) for number, line in enumerate(page.read_text(encoding="utf-8").split("\n"), 1)
            if number not in fenced]


def _complete(script: str) -> bool:
    """Whether bash reads `script` as whole commands (a loop or an `if` over several lines is one)."""
    return subprocess.run(["bash", "-n", "-c", script], capture_output=True).returncode == 0


def commands(block: Block) -> list[tuple[str, list[str]]]:
    """The block's commands, each with the output lines a `console` block shows for it. A command
    is a line, or the lines bash needs to read a whole command (a `for` loop, a continuation line)."""
    result: list[tuple[str, list[str]]] = []
    pending = ""
    for line in block.text.split("\n"):
        if block.language == "console":
            if line.startswith("$ "):
                result.append((line[2:], []))
            elif line.strip() and result:
                result[-1][1].append(line.rstrip())
            continue
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        pending += line + "\n"
        if not line.rstrip().endswith("\\") and _complete(pending):
            result.append((pending.rstrip("\n"), []))
            pending = ""
    if pending:
        result.append((pending.rstrip("\n"), []))  # bash will say what is wrong with it
    return result


SHELL_BLOCKS = [block for page in PAGES for block in blocks(page) if block.language in SHELLS]


# -- the scratch project --

MODEL = '''\
"""Old spellings the JAX1xx rules move."""

import jax
import jax.numpy as jnp


def tree_norm(params):
    leaves = jax.tree_leaves(jax.tree_map(jnp.linalg.norm, params))
    return jnp.sqrt(sum(leaf**2 for leaf in leaves))
'''

TRAIN = '''\
"""A program that fails as a user's does: the Pallas TPU kernel of examples/tpu_matmul.py, lowered."""

import jax

from examples import tpu_matmul

fn, args = tpu_matmul.build()
jax.export.export(fn, platforms=["tpu"])(*args)
'''


def _notebook(cells: list[str]) -> str:
    return json.dumps({
        "cells": [{"cell_type": "code", "execution_count": None, "id": f"cell-{i}", "metadata": {},
                   "outputs": [], "source": source.splitlines(True)} for i, source in enumerate(cells)],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
        "nbformat": 4, "nbformat_minor": 5,
    }, indent=1) + "\n"


def _environment(home: Path) -> dict[str, str]:
    """The caller's environment without what would decide for the commands (a virtualenv or conda
    prefix would be the target jax; git's and pre-commit's settings), this interpreter's bin first."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GIT_", "PRE_COMMIT", "VIRTUALENV_")) and k not in ("VIRTUAL_ENV", "CONDA_PREFIX", "SKIP")}
    env.update(
        PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1", GIT_TERMINAL_PROMPT="0",
        GIT_AUTHOR_NAME="docs", GIT_AUTHOR_EMAIL="docs@invalid",
        GIT_COMMITTER_NAME="docs", GIT_COMMITTER_EMAIL="docs@invalid",
        PRE_COMMIT_HOME=str(home / "pre-commit"), PRE_COMMIT_COLOR="never",
        VIRTUALENV_OVERRIDE_APP_DATA=str(home / "virtualenv-app-data"),
        PYTHONDONTWRITEBYTECODE="1",
    )
    return env


def _git(cwd: Path, env: dict[str, str], *args: str) -> str:
    done = subprocess.run(["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args],
                          cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stdout}{done.stderr}"
    return done.stdout


@pytest.fixture(scope="session")
def scratch_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project the commands run on, committed, with `origin/main` at its commit."""
    if shutil.which("git") is None:
        pytest.skip("git is not on the PATH")
    root = tmp_path_factory.mktemp("docs-template") / "project"
    shutil.copytree(REPO / "examples", root / "examples", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "src").mkdir()
    (root / "src" / "model.py").write_text(MODEL)
    shutil.copy(REPO / "examples" / "tpu_matmul.py", root / "src" / "kernels.py")
    (root / "train.py").write_text(TRAIN)
    (root / "notebooks").mkdir()
    kernel = (REPO / "examples" / "tpu_matmul.py").read_text().split("\n\n\n")
    (root / "notebooks" / "prototype.ipynb").write_text(_notebook([cell + "\n" for cell in kernel if cell.strip()]))
    (root / "CODEOWNERS").write_text("*  @ml-platform\nsrc/  @kernels-team\n")
    for page in PAGES:
        for block in blocks(page):
            if block.file:
                (root / block.file).write_text(block.text)
    env = _environment(root.parent)
    _git(root, env, "init", "-q")
    _git(root, env, "add", "-A")
    _git(root, env, "commit", "-q", "-m", "the scratch project")
    _git(root, env, "update-ref", "refs/remotes/origin/main", "HEAD")
    return root


def _reason_not_to_run(block: Block) -> Optional[str]:
    if block.skip:
        return block.skip
    return next((reason for pattern, reason in UNRUNNABLE if pattern.search(block.text)), None)


@pytest.mark.parametrize("block", SHELL_BLOCKS, ids=[block.id for block in SHELL_BLOCKS])
def test_every_shell_command_of_the_docs_runs(block: Block, scratch_template: Path, tmp_path: Path) -> None:
    reason = _reason_not_to_run(block)
    if reason:
        pytest.skip(f"{block.id}: {reason}")
    steps = commands(block)
    assert steps, f"{block.id}: a shell block without a command"
    project = tmp_path / "project"
    shutil.copytree(scratch_template, project, symlinks=True)
    env = _environment(tmp_path)
    for command, shown in steps:
        done = subprocess.run(["bash", "-c", command], cwd=project, env=env, capture_output=True, text=True,
                              timeout=COMMAND_TIMEOUT_S, stdin=subprocess.DEVNULL)
        output = done.stdout + done.stderr
        where = f"{block.id}: `{command}` exited {done.returncode}\n{output}"
        assert done.returncode in (0, 1), where
        assert "Traceback (most recent call last)" not in output and "internal error" not in output, where
        printed = {line.rstrip() for line in output.split("\n")}
        missing = [line for line in shown if line not in printed]
        assert not missing, f"{where}\nshown on the page but not printed: {missing}"


def test_the_shell_blocks_are_found_and_most_run() -> None:
    """The parser sees the blocks (a fence it misread would silently test nothing)."""
    ids = {block.id.split(":")[0] for block in SHELL_BLOCKS}
    assert {"README.md", "docs/usage.md", "docs/upgrading-jax.md", "docs/explain.md"} <= ids, ids
    running = [block for block in SHELL_BLOCKS if not _reason_not_to_run(block)]
    assert len(running) >= len(SHELL_BLOCKS) // 2, [block.id for block in SHELL_BLOCKS if _reason_not_to_run(block)]
    readme = [block for block in SHELL_BLOCKS if block.page == README and not _reason_not_to_run(block)]
    assert any(block.language == "console" for block in readme)


def test_the_readme_is_read_in_five_minutes() -> None:
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= 300, f"README.md has {lines} lines: move the details to docs/"
    text = README.read_text(encoding="utf-8")
    for command in ("make demo", "make test", "--diff-base", "--output-format github", "--split-by codeowners",
                    "--write-patches", "[tool.jax-codemod]", "pipx install"):
        assert command in text, command


def test_the_readme_and_the_monorepo_page_write_the_patches_to_the_same_place_outside_the_tree() -> None:
    """The README wrote them to `patches/` inside the work tree, where a branch commits them;
    docs/monorepo.md, whose loop commits each patch on a branch of its own, outside."""
    folders = {page.name: re.findall(r"--write-patches (\S+)", page.read_text(encoding="utf-8"))
               for page in (README, DOCS / "monorepo.md")}
    assert folders["README.md"] and folders["monorepo.md"], folders
    assert {folder for found in folders.values() for folder in found} == {"../jax-upgrade"}, folders


def test_every_command_and_option_is_documented() -> None:
    """`jax-codemod --help` and the docs name the same commands and options."""
    import typer.main

    from codemods.cli import app

    text = "".join(page.read_text(encoding="utf-8") for page in PAGES)
    missing = [f"jax-codemod {name}" for name in typer.main.get_command(app).commands
               if f"jax-codemod {name}" not in text]
    for name, command in typer.main.get_command(app).commands.items():
        missing += [f"{name} {flag}" for param in command.params for flag in (*param.opts, *param.secondary_opts)
                    if flag.startswith("--") and flag not in text]
    assert not missing, f"not in the README or docs/: {missing}"


# -- links --

def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lowercase, markup and punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    text = re.sub(r"<[^>]+>", "", text)
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for _, line in prose(page):
        heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            base = slug(heading.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def links(page: Path) -> list[tuple[int, str]]:
    """(line, target) of each markdown link outside code, code spans left out."""
    return [(number, target) for number, line in prose(page)
            for target in _LINK.findall(re.sub(r"`[^`]*`", "", line))]


@pytest.mark.parametrize("page", PAGES, ids=[_relative(page) for page in PAGES])
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for number, target in links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        destination = (page.parent / path).resolve() if path else page
        if not destination.exists():
            broken.append(f"{_relative(page)}:{number}: {target}: no such file")
        elif anchor and destination.suffix == ".md" and anchor not in anchors(destination):
            broken.append(f"{_relative(page)}:{number}: {target}: no heading `#{anchor}` in {destination.name}")
    assert not broken, "\n".join(broken)


def test_every_docs_page_is_reachable_from_the_readme() -> None:
    reached, queue = {README}, [README]
    while queue:
        page = queue.pop()
        for _, target in links(page):
            path = target.partition("#")[0]
            if not path or re.match(r"^[a-z][a-z0-9+.-]*:", path):
                continue
            destination = (page.parent / path).resolve()
            if destination.suffix == ".md" and destination.is_file() and destination not in reached:
                reached.add(destination)
                queue.append(destination)
    orphans = [_relative(page) for page in PAGES if page not in reached]
    assert not orphans, f"no link leads to {orphans}"


def test_slugs_are_githubs() -> None:
    assert slug("`explain` on a notebook's traceback") == "explain-on-a-notebooks-traceback"
    assert slug("In IPython and Jupyter: the fix when a cell fails") == "in-ipython-and-jupyter-the-fix-when-a-cell-fails"
    assert slug("Moving to a newer JAX (JAX1xx)") == "moving-to-a-newer-jax-jax1xx"
    assert slug("`[tool.jax-codemod]`") == "tooljax-codemod"


# -- generated pages --

def _generator():
    spec = importlib.util.spec_from_file_location("docs_generate", DOCS / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_rule_pages_are_what_the_rules_say(update_goldens: bool) -> None:
    """docs/rules/ follows the rules' definitions; `pytest tests/test_docs.py --update-goldens` (or
    `python docs/generate.py`) rewrites it."""
    generate = _generator()
    if update_goldens:
        generate.write()
    stale = generate.stale()
    assert not stale, f"stale pages {stale}: run `python docs/generate.py` (or pytest --update-goldens)"


def test_each_rule_page_holds_what_jax_codemod_rules_prints() -> None:
    from codemods import registry

    generate = _generator()
    for rule in registry.RULES:
        page = (DOCS / "rules" / f"{rule.code}.md").read_text(encoding="utf-8")
        assert page.startswith(generate.GENERATED) and f"# {rule.code}: {rule.name}\n" in page
        assert f"[{rule.code}]({rule.code}.md)" in (DOCS / "rules" / "index.md").read_text(encoding="utf-8")
        assert generate._text(rule.example) in page


def test_a_rule_whose_call_changes_shape_says_what_changes() -> None:
    """`jnp.clip -> jnp.clip` said nothing: the summary, page and `jax-codemod rules` of every row
    whose fix rewrites a call's arguments name the change, in the words of its handler's tables."""
    from codemods import api_changes, registry
    from codemods.rules.jax_upgrades import CHANGES
    from codemods.upgrades import core_calls

    arguments = {row.code for row in api_changes.TABLE if row.change is api_changes.Change.ARGUMENTS}
    assert arguments == set(CHANGES)
    for rule in registry.RULES:
        said = re.match(r"(.+?) -> (.+?) \(", rule.summary)
        assert not said or said[1] != said[2], rule.summary
    clip = (DOCS / "rules" / "JAX140.md").read_text(encoding="utf-8")
    for old, new in core_calls._CLIP_OLD.items():
        assert f"{old}=" in clip and (old == "a" or f"{new}=" in clip)
    assert "jnp.clip(a=, a_min=, a_max=) -> jnp.clip(a, min=, max=)" in clip
    assert "pl.BlockSpec(index_map, block_shape) -> pl.BlockSpec(block_shape, index_map)" in \
        (DOCS / "rules" / "JAX173.md").read_text(encoding="utf-8")


def test_the_editors_rule_links_are_these_pages() -> None:
    """The language server links each diagnostic's code to its rule's page (codemods/server.py)."""
    pytest.importorskip("pygls")
    from codemods import registry
    from codemods.server import documentation_url

    for rule in registry.RULES:
        assert documentation_url(rule.code) == (DOCS / "rules" / f"{rule.code}.md").as_uri()
        assert (DOCS / "rules" / f"{rule.code}.md").is_file()


def test_the_generator_escapes_markdown_outside_code() -> None:
    generate = _generator()
    assert generate._prose("jax/__init__.py and `jax/__init__.py`, tree_map, *args, <m>") == \
        "jax/\\_\\_init\\_\\_.py and `jax/__init__.py`, tree_map, \\*args, \\<m>"


# -- configuration examples --

TOML_EXAMPLES = [block for page in PAGES for block in blocks(page)
                 if block.language == "toml" and "[tool.jax-codemod]" in block.text]


@pytest.mark.parametrize("block", TOML_EXAMPLES, ids=[block.id for block in TOML_EXAMPLES])
def test_every_config_example_is_accepted(block: Block, tmp_path: Path) -> None:
    from codemods import config, registry

    (tmp_path / "pyproject.toml").write_text(block.text)
    loaded = config.load(config.find([tmp_path]), registry.RULES)
    assert loaded.path == tmp_path / "pyproject.toml"


def test_configuration_lists_every_key() -> None:
    from codemods.config import KEYS

    text = (DOCS / "configuration.md").read_text(encoding="utf-8")
    reference = [block for block in TOML_EXAMPLES if block.page == DOCS / "configuration.md"][0].text
    for key in KEYS:
        assert f"| `{key}` |" in text, key
        assert re.search(rf"^(# )?{re.escape(key)} = ", reference, re.M), key  # set, or shown commented out


# -- pre-commit --

BROKEN_KERNEL = """\
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def kernel(x_ref, y_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))


matmul = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
"""
CHECKOUT = "/path/to/jax-codemod"  # what the page names the reader's clone


def _snapshot(into: Path, env: dict[str, str]) -> str:
    """This working tree (tracked files and untracked ones git does not ignore) as a repository of
    one commit: what a reader's clone holds. `try-repo` on the checkout itself would build from its
    tracked files only, without a new module not yet added (tests/test_pre_commit.py does the same)."""
    listing = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             cwd=REPO, env=env, capture_output=True)
    if listing.returncode != 0:
        pytest.skip(f"{REPO} is not a git working tree")
    for name in filter(None, listing.stdout.decode().split("\0")):
        if (REPO / name).is_file():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, into / name)
    _git(into, env, "init", "-q")
    _git(into, env, "add", "-A")
    _git(into, env, "commit", "-q", "-m", "a clone of jax-codemod")
    return _git(into, env, "rev-parse", "HEAD").strip()


@pytest.mark.slow
def test_the_pre_commit_snippet(tmp_path: Path) -> None:
    """docs/pre-commit.md as a reader follows it: the config as shown (the clone's path put in), then
    `pre-commit autoupdate`, `pre-commit run --all-files` and the page's `try-repo` command."""
    yaml = pytest.importorskip("yaml")
    if importlib.util.find_spec("pre_commit") is None or shutil.which("git") is None:
        pytest.skip("needs pre-commit (pip install -e '.[test]') and git")
    page = DOCS / "pre-commit.md"
    snippet = next(block for block in blocks(page) if block.language == "yaml" and "repos:" in block.text)
    (repo,) = yaml.safe_load(snippet.text)["repos"]
    assert (repo["repo"], repo["rev"]) == (CHECKOUT, "<commit>"), "the page's placeholders changed: update this test"
    hook_ids = [hook["id"] for hook in repo["hooks"]]
    manifest = [hook["id"] for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())]
    assert hook_ids and set(hook_ids) <= set(manifest), (hook_ids, manifest)
    steps = [command for block in blocks(page) if block.language in SHELLS for command, _ in commands(block)]
    assert "pre-commit autoupdate" in steps[0] and "pre-commit run --all-files" in steps[1], steps
    try_repo = next(command for command in steps if command.startswith("pre-commit try-repo"))

    env = _environment(tmp_path)
    clone = tmp_path / "jax-codemod"
    clone.mkdir()
    rev = _snapshot(clone, env)
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "model.py").write_text(BROKEN_KERNEL)
    (project / ".pre-commit-config.yaml").write_text(snippet.text.replace(CHECKOUT, str(clone)))
    _git(project, env, "init", "-q")
    _git(project, env, "add", "-A")

    def run(command: str, timeout: int = 900) -> subprocess.CompletedProcess:
        return subprocess.run(shlex.split(command.split("#")[0]), cwd=project, env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)

    updated = run(steps[0], timeout=300)
    assert updated.returncode == 0, updated.stdout
    assert f"rev: {rev}" in (project / ".pre-commit-config.yaml").read_text(), updated.stdout

    checked = run(steps[1])
    assert checked.returncode == 1, checked.stdout  # the hook fails on the broken kernel, and says why
    assert "src/model.py:8:" in checked.stdout and "JAX001" in checked.stdout, checked.stdout
    assert "(target jax 0.12.0 from --jax-version)" in checked.stdout, checked.stdout  # the snippet's args
    assert (project / "src" / "model.py").read_text() == BROKEN_KERNEL or "jax-codemod-check" not in hook_ids

    tried = run(try_repo.replace(CHECKOUT, str(clone)))
    assert tried.returncode == 1, tried.stdout
    assert "src/model.py:8:" in tried.stdout and "JAX001" in tried.stdout, tried.stdout
