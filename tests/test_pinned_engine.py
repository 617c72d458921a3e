"""Engine behaviours that a one-line change could break while the rest of the suite stays green.

Each test here was checked by making such a change in a scratch checkout and watching the test
fail: `--diff-base` (the revision diffed against, edits not committed, untracked files, path
arguments and excludes), `--shard` (independent of where the checkout is and of the current
folder), the result cache's key and what a hit gives back, suppression comments, each prefilter
word and the unpacked-argument pattern, the summary's suppressed count and SARIF's tool version
through the command line, and a run with nothing to fix never loading libcst.

The command runs as `python -m codemods` with PYTHONPATH at the checkout whose `codemods` this
session imports, so a scratch checkout's tests run its own code. Nothing here imports jax.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import codemods
from codemods import registry
from codemods.capabilities import installed_version
from codemods.engine import cache as cache_module
from codemods.engine import runner
from codemods.engine.cache import ResultCache
from codemods.engine.diagnostics import Kind
from codemods.engine.prefilter import rules_for
from codemods.settings import PrecisionPolicy, Scope, Settings

CHECKOUT = Path(codemods.__file__).resolve().parents[1]
TARGET = "0.12.0.1"
SETTINGS = Settings((0, 12, 0, 1))
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

# A Pallas kernel whose dot Mosaic TPU rejects (a per-operand pair): one JAX001 fix.
BROKEN = '''\
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def kernel(x_ref, y_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))


matmul = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
'''
# The same kernel as the fix leaves it: nothing to change.
VALID = BROKEN.replace("(lax.Precision.DEFAULT, lax.Precision.HIGHEST)", "lax.Precision.HIGHEST")


def cli(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    """`python -m codemods ARGS` from `cwd`, on this checkout's code, aimed at TARGET."""
    if "--jax-version" not in args and (not args or args[0] not in ("explain", "rules")):
        args = (*args, "--jax-version", TARGET)
    environment = {**os.environ, **(env or {}),
                   "PYTHONPATH": os.pathsep.join(filter(None, [str(CHECKOUT), os.environ.get("PYTHONPATH")]))}
    result = subprocess.run([sys.executable, "-m", "codemods", *args], cwd=cwd, env=environment,
                            capture_output=True, timeout=120)
    result.cwd = cwd  # type: ignore[attr-defined]  # where `listed` resolves relative names
    return result


def listed(result: subprocess.CompletedProcess) -> list[str]:
    """The files `--check` lists, relative to the folder it ran in, /-separated (`--diff-base` names
    them by absolute path)."""
    cwd = os.path.realpath(result.cwd)  # type: ignore[attr-defined]
    return sorted(Path(os.path.relpath(os.path.realpath(os.path.join(cwd, line)), cwd)).as_posix()
                  for line in result.stdout.decode().split())


def git(*args: str, cwd: Path) -> str:
    proc = subprocess.run(["git", "-c", "core.autocrlf=false", *args], cwd=cwd, capture_output=True, check=True)
    return proc.stdout.decode().strip()


def repository(root: Path, files: dict[str, str]) -> str:
    """A git repository at `root` with `files` committed; returns that commit."""
    root.mkdir(parents=True, exist_ok=True)
    git("init", "-q", cwd=root)
    git("config", "user.email", "pin@example.com", cwd=root)
    git("config", "user.name", "pin", cwd=root)
    git("config", "commit.gpgsign", "false", cwd=root)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    git("add", "-A", cwd=root)
    git("commit", "-qm", "base", cwd=root)
    return git("rev-parse", "HEAD", cwd=root)


def commit_file(root: Path, name: str, text: str, message: str) -> str:
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    (root / name).write_text(text)
    git("add", name, cwd=root)
    git("commit", "-qm", message, cwd=root)
    return git("rev-parse", "HEAD", cwd=root)


# -- --diff-base REV --


@needs_git
def test_diff_base_sees_what_was_committed_after_the_revision(tmp_path: Path) -> None:
    """The pull request's own commits are the change: a broken kernel added (or an old file broken)
    in a commit after REV is found, though HEAD already holds it."""
    base = repository(tmp_path, {"fine.py": VALID, "edited.py": VALID})
    commit_file(tmp_path, "added.py", BROKEN, "add a broken kernel")
    commit_file(tmp_path, "edited.py", BROKEN, "break an old one")
    result = cli("--check", "--diff-base", base, cwd=tmp_path)
    assert result.returncode == 1, result.stderr.decode()
    assert listed(result) == ["added.py", "edited.py"]
    against_head = cli("--check", "--diff-base", "HEAD", cwd=tmp_path)
    assert against_head.returncode == 0 and listed(against_head) == [], "nothing changed since HEAD"


@needs_git
def test_diff_base_includes_edits_not_committed(tmp_path: Path) -> None:
    base = repository(tmp_path, {"unstaged.py": VALID, "staged.py": VALID, "untouched.py": BROKEN})
    (tmp_path / "unstaged.py").write_text(BROKEN)
    (tmp_path / "staged.py").write_text(BROKEN)
    git("add", "staged.py", cwd=tmp_path)
    for rev in (base, "HEAD"):
        result = cli("--check", "--diff-base", rev, cwd=tmp_path)
        assert result.returncode == 1, result.stderr.decode()
        assert listed(result) == ["staged.py", "unstaged.py"], rev


@needs_git
def test_diff_base_includes_untracked_files_but_not_ignored_ones(tmp_path: Path) -> None:
    base = repository(tmp_path, {".gitignore": "scratch_*.py\n", "old.py": BROKEN})
    (tmp_path / "new_kernel.py").write_text(BROKEN)
    (tmp_path / "scratch_kernel.py").write_text(BROKEN)
    result = cli("--check", "--diff-base", base, cwd=tmp_path)
    assert result.returncode == 1, result.stderr.decode()
    assert listed(result) == ["new_kernel.py"]


@needs_git
def test_diff_base_keeps_only_changed_files_under_the_paths_given(tmp_path: Path) -> None:
    base = repository(tmp_path, {"a/__init__.py": "", "b/__init__.py": ""})
    for name in ("a/k.py", "a/deep/k.py", "b/k.py", "top.py"):
        commit_file(tmp_path, name, BROKEN, f"add {name}")
    assert listed(cli("--check", "--diff-base", base, "a", cwd=tmp_path)) == ["a/deep/k.py", "a/k.py"]
    assert listed(cli("--check", "--diff-base", base, "b/k.py", "top.py", cwd=tmp_path)) == ["b/k.py", "top.py"]
    assert listed(cli("--check", "--diff-base", base, cwd=tmp_path)) == ["a/deep/k.py", "a/k.py", "b/k.py", "top.py"]
    # From a subfolder: the paths are the user's, relative to where they stand.
    assert listed(cli("--check", "--diff-base", base, ".", cwd=tmp_path / "a")) == ["deep/k.py", "k.py"]


@needs_git
def test_diff_base_applies_the_excludes(tmp_path: Path) -> None:
    config = "[project]\nname = 'demo'\n\n[tool.jax-codemod]\nextend-exclude = [\"vendored/*\"]\n"
    base = repository(tmp_path, {"pyproject.toml": config})
    for name in ("src/k.py", "vendored/k.py", "generated/k.py"):
        commit_file(tmp_path, name, BROKEN, f"add {name}")
    plain = cli("--check", "--diff-base", base, cwd=tmp_path)
    assert listed(plain) == ["generated/k.py", "src/k.py"], "the config's extend-exclude holds under --diff-base"
    excluded = cli("--check", "--diff-base", base, "--exclude", "generated/*", cwd=tmp_path)
    assert listed(excluded) == ["src/k.py"], "--exclude holds under --diff-base"
    assert excluded.returncode == 1


# -- --shard K/N --


def _tree(root: Path, config: bool) -> None:
    for index in range(16):
        folder = root / "pkg" / f"sub{index % 4}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"k{index}.py").write_text(BROKEN)
    (root / "pyproject.toml").write_text("[project]\nname = 'demo'\n" + ("\n[tool.jax-codemod]\n" if config else ""))


def _partition(root: Path, cwd: Path, target: str, count: int = 3) -> list[list[str]]:
    """Each shard's files, relative to `root`."""
    parts = []
    for index in range(1, count + 1):
        out = cli("--check", "--no-cache", "--shard", f"{index}/{count}", target, cwd=cwd)
        assert out.returncode in (0, 1), out.stderr.decode()
        parts.append(sorted(Path(os.path.relpath(cwd / line, root)).as_posix() for line in out.stdout.decode().split()))
    assert sum(map(len, parts)) == 16 and all(parts), parts
    return parts


@pytest.mark.parametrize("config", [True, False], ids=["with-config", "without-config"])
def test_shard_of_a_file_does_not_depend_on_where_the_checkout_is(tmp_path: Path, config: bool) -> None:
    """Two CI machines check the repository out in different folders: each file lands in the same shard."""
    first, second = tmp_path / "checkout" / "repo", tmp_path / "elsewhere" / "deeper" / "copy"
    _tree(first, config)
    _tree(second, config)
    assert _partition(first, first, ".") == _partition(second, second, ".")


def test_shard_of_a_file_does_not_depend_on_the_current_folder_with_a_config(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    _tree(root, config=True)
    from_root = _partition(root, root, ".")
    assert _partition(root, tmp_path, "repo") == from_root
    assert _partition(root, root / "pkg" / "sub1", "../..") == from_root


def test_shard_of_a_file_does_not_depend_on_the_current_folder_without_a_config(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    _tree(root, config=False)
    from_root = _partition(root, root, ".")
    assert _partition(root, tmp_path, "repo") == from_root
    assert _partition(root, root / "pkg" / "sub1", "../..") == from_root


# -- the result cache --


KERNEL_WITH_HINT = BROKEN.replace(
    "lax.Precision.HIGHEST))\n",
    "lax.Precision.HIGHEST))\n    o_ref[...] += lax.exp(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)\n")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "kernel.py").write_text(KERNEL_WITH_HINT)
    return tmp_path


from tests.test_cache import _poison, _run  # noqa: E402  (the cache tests' helpers)


def _from_cache(results) -> bool:
    return any(f.message == "FROM THE CACHE" for r in results for f in r.findings)


@pytest.fixture
def poisoned(project: Path, tmp_path: Path) -> Path:
    """A cache holding the (marked) result of a run under SETTINGS with every rule."""
    cache_dir = tmp_path / "cache"
    _run(project, ResultCache(cache_dir, SETTINGS))
    assert _poison(cache_dir) == 1
    assert _from_cache(_run(project, ResultCache(cache_dir, SETTINGS))), "the same run hits"
    return cache_dir


@pytest.mark.parametrize("settings", [
    Settings((0, 12, 0, 1), precision_policy=PrecisionPolicy.HIGHEST),
    Settings((0, 12, 0, 1), helpers_module="mycompany.jax_compat"),
    Settings((0, 12, 0, 1), unsafe_fixes=True),
    Settings((0, 12, 0, 1), Scope.ALL),
    Settings((0, 11, 2)),
    Settings((0, 12, 0)),
    Settings(None),
], ids=["precision-policy", "helpers-module", "unsafe-fixes", "scope", "jax-0.11.2", "jax-0.12.0", "jax-unknown"])
def test_the_cache_key_changes_with_every_option(project: Path, poisoned: Path, settings: Settings) -> None:
    assert not _from_cache(_run(project, ResultCache(poisoned, settings), settings))


@pytest.mark.parametrize("codes", [["JAX001"], ["JAX002"], ["JAX001", "JAX003"], ["JAX002", "JAX003"]])
def test_the_cache_key_changes_with_the_rules_run(project: Path, poisoned: Path, codes: list[str]) -> None:
    results = _run(project, ResultCache(poisoned, SETTINGS), rules=registry.select(codes))
    assert not _from_cache(results)
    assert sorted({f.code for f in results[0].findings}) == sorted(set(codes) - {"JAX003"})


def test_the_cache_key_changes_with_the_tools_own_source(project: Path, poisoned: Path, monkeypatch) -> None:
    monkeypatch.setattr(cache_module, "tool_fingerprint", lambda: "another build of the tool")
    assert not _from_cache(_run(project, ResultCache(poisoned, SETTINGS)))


def test_the_tools_fingerprint_covers_the_bytes_of_its_source(tmp_path: Path, monkeypatch) -> None:
    """The fingerprint the key holds changes when any source file of the package changes."""
    copies = {}
    for name in ("same", "also_same", "edited"):
        copies[name] = tmp_path / name / "codemods"
        shutil.copytree(CHECKOUT / "codemods", copies[name], ignore=shutil.ignore_patterns("__pycache__"))
    rule = copies["edited"] / "rules" / "per_operand_precision.py"
    rule.write_text(rule.read_text().replace("HIGHEST", "HIGHEST ", 1))  # one byte, same file names

    def fingerprint(package: Path) -> str:
        monkeypatch.setattr(cache_module, "__file__", str(package / "engine" / "cache.py"))
        cache_module.tool_fingerprint.cache_clear()
        try:
            return cache_module.tool_fingerprint()
        finally:
            cache_module.tool_fingerprint.cache_clear()

    same = fingerprint(copies["same"])
    assert same == fingerprint(copies["also_same"]), "the fingerprint does not depend on where the tool is"
    assert fingerprint(copies["edited"]) != same


def test_a_cache_hit_keeps_the_suppressed_count(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "kernel.py").write_text(KERNEL_WITH_HINT.replace(
        "accuracy=lax.AccuracyMode.HIGHEST)\n", "accuracy=lax.AccuracyMode.HIGHEST)  # jax-codemod: ignore\n"))
    cache = ResultCache(tmp_path / "cache", SETTINGS)
    first = _run(tmp_path, cache)
    assert first[0].suppressed == 1 and [f.code for f in first[0].findings] == ["JAX001"]
    assert _poison(tmp_path / "cache") == 1
    again = _run(tmp_path, cache)
    assert _from_cache(again), "the second run is answered from the cache"
    assert again[0].suppressed == 1


def test_a_cache_hit_keeps_the_suppressed_count_in_the_summary(tmp_path: Path) -> None:
    (tmp_path / "kernel.py").write_text(KERNEL_WITH_HINT.replace(
        "accuracy=lax.AccuracyMode.HIGHEST)\n", "accuracy=lax.AccuracyMode.HIGHEST)  # jax-codemod: ignore\n"))
    env = {"JAX_CODEMOD_CACHE_DIR": str(tmp_path / "cache")}
    first = cli(".", cwd=tmp_path, env=env)
    assert _poison(tmp_path / "cache") == 1
    second = cli(".", cwd=tmp_path, env=env)
    assert b"FROM THE CACHE" in second.stderr, "the second run is answered from the cache"
    for result in (first, second):
        assert result.returncode == 1
        assert b", 1 suppressed (target jax" in result.stderr, result.stderr.decode()


# -- suppression comments --


TWO_LINES = '''\
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def kernel(x_ref, y_ref, o_ref):
    a = jnp.dot(x_ref[...], y_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST)){first}
    b = lax.exp(jnp.dot(x_ref[...], y_ref[...], precision=(lax.Precision.HIGH, lax.Precision.HIGHEST)), accuracy=lax.AccuracyMode.HIGHEST){second}
    o_ref[...] = a + b


matmul = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
'''


def _findings(first: str = "", second: str = "") -> tuple[list[tuple[str, int]], int, str]:
    source = TWO_LINES.format(first=first, second=second)
    result = runner.process_source(Path("k.py"), source.encode(), registry.select(), Settings((0, 12, 0, 1), unsafe_fixes=True))
    assert result.error is None, result.error
    return [(f.code, f.line) for f in result.findings], result.suppressed, result.after or source


ALL_FINDINGS = [("JAX001", 8), ("JAX001", 9), ("JAX002", 9)]


def test_without_comments_every_finding_is_kept() -> None:
    assert _findings() == (ALL_FINDINGS, 0, _findings()[2])


@pytest.mark.parametrize("comment", ["  # jax-codemod: ignore", "  # jax-codemod: ignore[JAX001]"])
def test_a_comment_silences_only_its_own_line(comment: str) -> None:
    kept, suppressed, after = _findings(first=comment)
    assert kept == [("JAX001", 9), ("JAX002", 9)] and suppressed == 1
    assert "precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST)" in after, "a silenced finding's fix goes with it"
    assert "precision=(lax.Precision.HIGH, lax.Precision.HIGHEST)" not in after, "the other line is still fixed"


@pytest.mark.parametrize("comment", [
    "  # jax-codemod: ignore[JAX001, JAX002]", "  # jax-codemod: ignore[JAX001,JAX002]",
    "  # jax-codemod: ignore[JAX002 , JAX001]", "  # jax-codemod: ignore[jax001, jax002]",
    "  # jax-codemod: ignore",
])
def test_a_comma_list_silences_every_code_it_names(comment: str) -> None:
    kept, suppressed, _ = _findings(second=comment)
    assert kept == [("JAX001", 8)] and suppressed == 2


@pytest.mark.parametrize("comment, kept_code", [
    ("  # jax-codemod: ignore[jax001]", "JAX002"), ("  # jax-codemod: ignore[Jax002]", "JAX001"),
    ("  # jax-codemod: ignore[JAX002]", "JAX001"), ("  # jax-codemod: ignore[JAX001]", "JAX002"),
])
def test_lower_case_codes_silence_and_unlisted_codes_do_not(comment: str, kept_code: str) -> None:
    kept, suppressed, _ = _findings(second=comment)
    assert kept == [("JAX001", 8), (kept_code, 9)] and suppressed == 1


@pytest.mark.parametrize("comment", ["  # jax-codemod: ignore[JAX003]", "  # jax-codemod: ignore[JAX01]",
                                     "  # jax-codemod: ignore[]"])
def test_a_code_not_listed_does_not_silence(comment: str) -> None:
    kept, suppressed, _ = _findings(first=comment, second=comment)
    assert kept == ALL_FINDINGS and suppressed == 0


@pytest.mark.parametrize("selector", ["JAX0", "jax00", "per-operand-precision,accuracy-hints"])
def test_a_prefix_or_a_name_silences_as_select_takes_it(selector: str) -> None:
    kept, suppressed, _ = _findings(second=f"  # jax-codemod: ignore[{selector}]")
    assert kept == [("JAX001", 8)] and suppressed == 2


# -- the summary and SARIF through the command line --


def test_the_summary_counts_every_suppressed_finding(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(TWO_LINES.format(first="", second="  # jax-codemod: ignore"))
    (tmp_path / "b.py").write_text(TWO_LINES.format(first="  # jax-codemod: ignore[JAX001]", second=""))
    (tmp_path / "c.py").write_text(TWO_LINES.format(first="", second=""))
    result = cli("--no-cache", ".", cwd=tmp_path)
    assert result.returncode == 1
    assert re.search(rb", 3 suppressed \(target jax 0\.12\.0\.1 from [^)]+\)\n$", result.stderr), result.stderr.decode()
    sarif = json.loads(cli("--no-cache", "--output-format", "sarif", ".", cwd=tmp_path).stdout)
    assert sarif["runs"][0]["properties"] == {"suppressed": 3}
    document = json.loads(cli("--no-cache", "--output-format", "json", ".", cwd=tmp_path).stdout)
    assert document["summary"]["suppressed"] == 3


def test_sarif_names_the_tools_own_version(tmp_path: Path) -> None:
    (tmp_path / "k.py").write_text(BROKEN)
    result = cli("--no-cache", "--output-format", "sarif", ".", cwd=tmp_path)
    assert result.returncode == 1, result.stderr.decode()
    driver = json.loads(result.stdout)["runs"][0]["tool"]["driver"]
    version = installed_version("jax_codemod") or installed_version("jax-codemod")
    assert version and version[0].isdigit()
    assert driver["name"] == "jax-codemod" and driver["version"] == version
    assert cli("--version", cwd=tmp_path).stdout.decode().strip() == f"jax-codemod {version}"


# -- no libcst without a fix --


NOTHING_TO_FIX = '''
import sys
from codemods.cli import app

try:
    app(sys.argv[1:])
except SystemExit as done:
    code = done.code
assert code == 0, code
loaded = sorted(name for name in sys.modules if name == "libcst" or name.startswith("libcst."))
assert not loaded, loaded
print("no libcst")
'''


def test_a_run_with_nothing_to_fix_never_imports_libcst(tmp_path: Path) -> None:
    (tmp_path / "plain.py").write_text("import numpy as np\n\n\ndef mean(x):\n    return np.mean(x)\n")
    (tmp_path / "valid_kernel.py").write_text(VALID)  # analysed (it passes the prefilter), nothing to fix
    (tmp_path / "hint_outside.py").write_text("from jax import lax\n\n\ndef f(x):\n    return lax.exp(x, accuracy=None)\n")
    environment = {**os.environ, "PYTHONPATH": str(CHECKOUT)}
    for extra in ([], ["--output-format", "json"], ["--check"]):
        proc = subprocess.run([sys.executable, "-c", NOTHING_TO_FIX, "--no-cache", "--jax-version", TARGET, *extra, "."],
                              cwd=tmp_path, env=environment, capture_output=True, timeout=120)
        assert proc.returncode == 0 and proc.stdout.strip().endswith(b"no libcst"), proc.stderr.decode()


# -- the prefilter: each word, and unpacked arguments --


PREFILTER_HEADER = '''\
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
{imports}
OPTIONS = {{}}


def kernel(x_ref, y_ref, o_ref):
    o_ref[...] = {call}


call = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
'''
# The rules on by default (JAX900, opt-in, reads suppression comments: tests/test_review_formats.py).
EVERY_WORD = sorted({word for rule in registry.select() for word in rule.words})
# For each prefilter word, a kernel call that needs a fix and spells no other word of any rule.
ONE_WORD = {
    b"recision": ("JAX001", "jnp.matmul(x_ref[...], y_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))",
                  "precision=lax.Precision.HIGH)", TARGET),
    b"conv": ("JAX001", 'lax.conv(x_ref[...], y_ref[...], (1, 1), "SAME", ("default", "high"))', '"SAME", "highest")',
              TARGET),
    b"batch_matmul": ("JAX001", 'lax.batch_matmul(x_ref[...], y_ref[...], ("default", "high"))',
                      'y_ref[...], "high")', TARGET),
    b"dot": ("JAX001", 'pl.dot(x_ref[...], y_ref[...], False, False, None, ("default", "high"))',
             'None, "high")', "0.11.2"),
    b"accuracy": ("JAX002", "lax.exp(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)", "lax.exp(x_ref[...])", TARGET),
    b"dynamic_slice": ("JAX006", "lax.dynamic_slice(x_ref[...], (0, 0), (8, 128))", "x_ref[pl.ds(0, 8), pl.ds(0, 128)]",
                       TARGET),
    b"dynamic_index_in_dim": ("JAX006", "lax.dynamic_index_in_dim(x_ref[...], 0)", "x_ref[pl.ds(0, 1)]", TARGET),
    b"program_id": ("JAX006", "x_ref[...][pl.program_id(0)]", "o_ref[...] = x_ref[pl.program_id(0)]", TARGET),
    b"loop": ("JAX006", "lax.fori_loop(0, 8, lambda t, c: c + x_ref[...][t], y_ref[...])", "c + x_ref[t]", TARGET),
    b"scan": ("JAX006", "lax.scan(lambda c, t: (c + x_ref[...][t], c), y_ref[...], jnp.arange(8))[0]",
              "(c + x_ref[t], c)", TARGET),
    b"int8": ("JAX004", "x_ref[...].astype(jnp.int8) << 1",
              "(x_ref[...].astype(jnp.int8).astype(jnp.int32) << 1).astype(jnp.int8)", TARGET),
    b"int16": ("JAX004", "x_ref[...].astype(jnp.int16) >> 1",
               "(x_ref[...].astype(jnp.int16).astype(jnp.int32) >> 1).astype(jnp.int16)", TARGET),
    **{word.encode(): ("JAX007", call, fixed, TARGET) for word, call, fixed in (
        ("expm1", "jnp.expm1(x_ref[...])", "expm1_tpu(x_ref[...])"),
        ("erfc", "lax.erfc(x_ref[...])", "erfc_tpu(x_ref[...])"),
        ("atan", "lax.atan(x_ref[...])", "lax.atan2(x_ref[...], 1.0)"),
        ("arctan", "jnp.arctan(x_ref[...])", "jnp.arctan2(x_ref[...], 1.0)"),
        ("asin", "lax.asin(x_ref[...])", "arcsin_tpu(x_ref[...])"),
        ("arcsin", "jnp.arcsin(x_ref[...])", "arcsin_tpu(x_ref[...])"),
        ("acos", "lax.acos(x_ref[...])", "arccos_tpu(x_ref[...])"),
        ("arccos", "jnp.arccos(x_ref[...])", "arccos_tpu(x_ref[...])"),
        ("sinh", "jnp.sinh(x_ref[...])", "sinh_tpu(x_ref[...])"),
        ("cosh", "jnp.cosh(x_ref[...])", "cosh_tpu(x_ref[...])"),
        ("cumsum", "jnp.cumsum(x_ref[...], axis=1)", "cumsum_tpu(x_ref[...], 1)"),
        ("cumprod", "lax.cumprod(x_ref[...])", "cumprod_tpu(x_ref[...], 0)"),
        ("cumulative_", "jnp.cumulative_sum(x_ref[...], axis=0)", "cumsum_tpu(x_ref[...], 0)"),
        # (a plain pl.pallas_call may reach Triton, where a float16 division does not lower)
        ("float16", "x_ref[...].astype(jnp.float16) / y_ref[...].astype(jnp.float16)",
         "divide_triton(x_ref[...].astype(jnp.float16), y_ref[...].astype(jnp.float16))"),
        # No rewrite: a [manual] finding, the call as written.
        ("lgamma", "lax.lgamma(x_ref[...])", "lax.lgamma(x_ref[...])"),
        ("gammaln", "jax.scipy.special.gammaln(x_ref[...])", "jax.scipy.special.gammaln(x_ref[...])"),
        ("digamma", "lax.digamma(x_ref[...])", "lax.digamma(x_ref[...])"))},
}
MANUAL_ONLY = {b"lgamma", b"gammaln", b"digamma"}  # words whose calls get a [manual] finding, no fix
LSTM_ONLY = '''\
import jax
from jax.experimental import rnn


def encode(x, h, c, w, lengths):
    return rnn.lstm(x, h, c, w, lengths, 8, 16, 1, 0.0, False, "bfloat16")
'''


def _words_in(source: bytes) -> list[bytes]:
    return [word for word in EVERY_WORD if word in source]


@pytest.mark.parametrize("word", sorted(ONE_WORD), ids=lambda word: word.decode())
def test_a_file_holding_one_prefilter_word_alone_is_fixed(word: bytes) -> None:
    code, call, fixed, version = ONE_WORD[word]
    imports = "from jax.experimental import rnn\n" if word == b"accuracy" else ""
    source = PREFILTER_HEADER.format(imports=imports, call=call).encode()
    assert _words_in(source) == [word] and b"*" not in source
    settings = Settings(tuple(map(int, version.split("."))), unsafe_fixes=True)
    rule = registry.select([code])[0]
    seed_rules = registry.select(["JAX0"])  # the JAX0xx rules' words (pl.dot is JAX150's too)
    assert rule in rules_for(source, seed_rules, settings)
    result = runner.process_source(Path("k.py"), source, seed_rules, settings)
    assert result.error is None and [(f.code, f.kind) for f in result.findings] == \
        [(code, Kind.DROPPED if code == "JAX002" else Kind.MANUAL if word in MANUAL_ONLY else Kind.FIXED)]
    assert fixed in (result.after or source.decode()), result.after


def test_a_file_holding_the_word_lstm_alone_is_fixed() -> None:
    source = LSTM_ONLY.encode()
    assert _words_in(source) == [b"float16", b"lstm"]  # ("bfloat16" says JAX007's float16: no kernel here)
    result = runner.process_source(Path("k.py"), source, registry.RULES, SETTINGS)
    assert [(f.code, f.kind) for f in result.findings] == [("JAX003", Kind.FIXED)]
    assert 'lstm_float32(rnn.lstm, x, h, c, w, lengths, 8, 16, 1, 0.0, False, "float32")' in result.after, result.after


def test_every_prefilter_word_is_pinned() -> None:
    """A word added to a rule's list gets its own case above."""
    assert set(EVERY_WORD) == {*ONE_WORD, b"lstm"}


@pytest.mark.parametrize("code, call", [
    ("JAX002", "lax.exp(x_ref[...],  # the hint comes from the caller\n        **OPTIONS)"),
    ("JAX002", "lax.exp(\n        # the hint comes from the caller\n        # (see OPTIONS)\n        **OPTIONS)"),
    ("JAX001", "jnp.matmul(x_ref[...], y_ref[...],  # spread\n        **OPTIONS)"),
    ("JAX001", "jnp.einsum('ij,jk->ik', x_ref[...], y_ref[...],  # options\n        # from the caller\n        **OPTIONS)"),
], ids=["accuracy-kwargs-after-comment", "accuracy-kwargs-after-comments", "precision-kwargs-after-comment",
        "precision-kwargs-after-comments"])
def test_unpacked_arguments_after_a_comment_pass_the_prefilter(code: str, call: str) -> None:
    """`f(x,  # why\\n **options)`: the comment between the comma and the `**` does not hide the call."""
    source = PREFILTER_HEADER.format(imports="", call=call).encode()
    assert _words_in(source) == []
    assert not re.search(rb"[(,]\s*\*", source), "only the spelling with a comment unpacks arguments"
    settings = SETTINGS
    rule = registry.select([code])[0]
    seed_rules = registry.select(["JAX0"])  # the JAX0xx rules' words (pl.dot is JAX150's too)
    assert rule in rules_for(source, seed_rules, settings)
    result = runner.process_source(Path("k.py"), source, seed_rules, settings)
    assert [(f.code, f.kind) for f in result.findings] == [(code, Kind.MANUAL)]
    assert "may carry" in result.findings[0].message


# -- sampled survivors (issue 18): each test here failed with its one-line bug --


def test_the_cache_lives_under_the_users_cache_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("JAX_CODEMOD_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cache_module.default_directory() == tmp_path / ".cache" / "jax-codemod"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_module.default_directory() == tmp_path / "xdg" / "jax-codemod"


def test_a_call_routed_through_a_helper_keeps_its_first_comma() -> None:
    from codemods.engine.call_rewrites import route_through

    change = route_through("lstm_float32", False, None, "P.HIGHEST")
    # the callee takes the first argument's separator; the new precision the last one's
    assert change("rnn.lstm(x,h0,  c0)") == "lstm_float32(rnn.lstm,x,h0,  c0,  precision=P.HIGHEST)"


@needs_git
def test_diff_base_from_a_subfolder_finds_its_untracked_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """git lists untracked files relative to the folder it runs in: it runs at the top of the work
    tree, and the files are named relative to the current folder where they are under it."""
    from codemods.engine import discovery

    top = tmp_path.resolve()
    repository(top, {"pkg/old.py": VALID, "top.py": VALID})
    for name in ("pkg/old.py", "pkg/new.py", "top.py"):
        (top / name).write_text(BROKEN)
    monkeypatch.chdir(top / "pkg")
    assert discovery.changed_since("HEAD", []) == [Path("new.py"), Path("old.py"), top / "top.py"]


def test_diff_base_outside_git_and_a_failing_git_say_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from codemods.engine import discovery

    monkeypatch.chdir(tmp_path)
    with pytest.raises(discovery.DiscoveryError, match="--diff-base needs a git work tree"):
        discovery.changed_since("HEAD", [])
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q",
                    "--allow-empty", "-m", "x"], check=True)
    run = subprocess.run

    def failing_diff(args, **kwargs):
        if args[:2] == ["git", "diff"]:
            return subprocess.CompletedProcess(args, 128, b"", b"fatal: bad \xff object\n")
        return run(args, **kwargs)

    monkeypatch.setattr(discovery.subprocess, "run", failing_diff)
    with pytest.raises(discovery.DiscoveryError, match="--diff-base HEAD: git diff failed: fatal: bad \ufffd object"):
        discovery.changed_since("HEAD", [])


def test_a_fixs_edits_are_the_smallest_that_make_the_change() -> None:
    from codemods.engine.fixes import text_edits
    from codemods.engine.diagnostics import TextEdit

    assert text_edits("a = 1\nb = 2\nc = 3\n", "a = 1\nb = 20\nc = 3\n") == (TextEdit(11, 11, "0"),)


def test_an_import_named_in_all_is_kept_when_a_fix_stops_using_it() -> None:
    source = KERNEL_WITH_HINT.replace("import jax\n", 'import jax\nfrom jax.lax import AccuracyMode\n\n__all__ = ["AccuracyMode"]\n', 1)
    source = source.replace("lax.AccuracyMode.HIGHEST", "AccuracyMode.HIGHEST")
    unsafe = Settings((0, 12, 0, 1), unsafe_fixes=True)  # dropping an exp hint is unsafe
    result = runner.process_source(Path("k.py"), source.encode(), registry.select(["JAX002"]), unsafe)
    assert result.after is not None and "AccuracyMode.HIGHEST" not in result.after
    assert "from jax.lax import AccuracyMode\n" in result.after


def test_a_fix_that_breaks_is_an_internal_error_naming_the_file(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(runner, "rendered_with_edits", boom)  # (a fix's text and its own edits)
    result = runner.process_source(Path("k.py"), BROKEN.encode(), registry.RULES, SETTINGS)
    assert result.error == "internal error applying the fix: RuntimeError: boom" and result.new_source is None
    monkeypatch.setattr(runner, "rendered_with_edits", lambda text, plan, path: (text + "\n)\n", ()))
    result = runner.process_source(Path("kernels/k.py"), BROKEN.encode(), registry.RULES, SETTINGS)
    assert result.error is not None and result.error.startswith("internal error: the rewritten file does not parse")
    assert "(k.py, line 13)" in result.error and result.new_source is None


def test_parallel_workers_are_forked_where_the_platform_forks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forked workers inherit what the main process built (the project index, its parsed modules,
    frozen out of the collector): a spawned or forkserver worker (Python 3.14's default) would
    re-import the tool and parse the project again for each file it is given."""
    import multiprocessing

    contexts = []

    class RecordingPool:  # the pool's interface as _map uses it, run in this process
        def __init__(self, workers, mp_context=None):
            contexts.append(mp_context)

        def __enter__(self):
            return self

        def __exit__(self, *exc_info):
            return False

        def submit(self, function, item):
            submitted.append(item[0])
            future = concurrent.futures.Future()
            future.set_result(function(item))
            return future

    import concurrent.futures

    submitted: list[str] = []
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", RecordingPool)  # _map imports it when it needs it
    items = [("a", b"y"), ("b", b"x" * runner.PARALLEL_MIN_BYTES), ("c", b"zz")]
    assert list(runner._map(lambda item: item[0], items, jobs=2)) == ["a", "b", "c"]  # in the order given
    assert submitted == ["b", "c", "a"]  # the largest first: no core waits alone on a big file at the end
    expected = "fork" if "fork" in multiprocessing.get_all_start_methods() else multiprocessing.get_start_method()
    assert len(contexts) == 1 and contexts[0].get_start_method() == expected
