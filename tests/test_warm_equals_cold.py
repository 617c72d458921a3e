"""Warm equals cold (issue 50's proof): after any sequence of edits, a run that reads the result cache
and the project state of the runs before it (summaries and the link's answers, kept by content
hash) gives every file's findings and fixed text exactly as a run with a fresh cache does.

Each example starts from one of the held-out projects (tests/heldout/projects/: kernels, wrappers,
launchers and precision values in different modules), runs the tool cold, then applies a seeded
random chain of edits, each a change a user makes: a precision pair's level changed, an import
added (a module, or `*` from it) or removed, a function renamed (in its module only, or everywhere),
a module deleted or added (a copy of another), a file touched without change, a comment added (at
the end, or as a line anywhere: the code below moves down), a space after a `(` (what follows
moves right), the fixes written (`--write --unsafe-fixes`). After each edit the warm run (the same cache folder; one
process or two, at random, two summarising the changed modules in workers) must equal a cold one (a
fresh folder). Static analysis only: nothing is lowered (what the fixes lower to is tests/heldout's
and test_link's). Each file's mtime moves forward a second per edit, in the past, as a user's edits
between runs do (the cache trusts an unchanged size and mtime; a run with every mtime older than its
start may be replayed whole); a quarter of the edits are left with the time they were written at
(too recent to trust: the file is read and hashed).
`JAX_CODEMOD_PROPERTY_EXAMPLES=N` runs more chains (`make sweep`).
"""

from __future__ import annotations

import os
import random
import re
import time
from pathlib import Path

import pytest

from codemods import registry
from codemods.engine.cache import ResultCache
from codemods.engine.discovery import discover
from codemods.engine import runner
from codemods.engine.runner import run
from codemods.settings import Settings

PROJECTS = sorted(path for path in (Path(__file__).parent / "heldout" / "projects").iterdir() if path.is_dir())
CHAINS = max(1, int(os.environ.get("JAX_CODEMOD_PROPERTY_EXAMPLES", "150")) // 12)
EDITS = 8
SETTINGS = Settings((0, 12, 0, 1), unsafe_fixes=True)
RULES = registry.select()
_LEVEL = re.compile(r"Precision\.(DEFAULT|HIGHEST|HIGH)\b")
_IMPORT = re.compile(r"^(?:import \w[\w.]*(?: as \w+)?|from [\w.]+ import [\w, ]+)$", re.M)
_DEF = re.compile(r"^\s*def (\w+)\(", re.M)


class Tree:
    """The project's files (name -> text) on disk, each written with an mtime of its own in the past,
    or, `recent`, left as written (too recent for the cache to trust: it reads the file)."""

    def __init__(self, root: Path, files: dict[str, str]) -> None:
        self.root, self.files, self.recent = root, dict(files), False
        self._clock = time.time_ns() - 10**15  # about 11 days ago, a second per edit from there
        for name in files:
            self._write(name)

    def _write(self, name: str) -> None:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.files[name])
        self._clock += 10**9
        if not self.recent:
            os.utime(path, ns=(self._clock, self._clock))

    def set(self, name: str, text: str) -> None:
        self.files[name] = text
        self._write(name)

    def delete(self, name: str) -> None:
        del self.files[name]
        (self.root / name).unlink()


def _edit(rng: random.Random, tree: Tree, fixed: dict[str, str]) -> str:
    """One user's edit of the tree (`fixed`: each file's text with the last run's fixes); what it
    did, for the message of a failure."""
    modules = sorted(tree.files)
    name = rng.choice(modules)
    text = tree.files[name]
    kind = rng.choice(["pair", "pair", "import", "unimport", "rename", "delete", "add", "touch", "comment", "write",
                       "moved", "widened"])
    if kind == "write" and fixed:  # `--write --unsafe-fixes`: every fix applied
        for module, new in fixed.items():
            tree.set(module, new)
        return f"the fixes written ({', '.join(sorted(fixed))})"
    if kind == "pair" and (levels := list(_LEVEL.finditer(text))):
        level = rng.choice(levels)
        new = rng.choice([other for other in ("DEFAULT", "HIGH", "HIGHEST") if other != level.group(1)])
        tree.set(name, text[:level.start(1)] + new + text[level.end(1):])
        return f"{name}: Precision.{level.group(1)} at {level.start()} -> {new}"
    if kind == "import" and len(modules) > 1:
        other = rng.choice([module for module in modules if module != name])[:-3].replace("/", ".").removesuffix(".__init__")
        line = rng.choice([f"import {other}", f"from {other} import *"])
        tree.set(name, f"{line}\n{text}")
        return f"{name}: {line} added"
    if kind == "unimport" and (imports := list(_IMPORT.finditer(text))):
        line = rng.choice(imports)
        tree.set(name, text[:line.start()] + text[line.end():].removeprefix("\n"))
        return f"{name}: {line.group()!r} removed"
    if kind == "rename" and (defs := list(_DEF.finditer(text))):
        old = rng.choice(defs).group(1)
        new = f"{old}_renamed"
        everywhere = rng.random() < 0.5
        for module in (modules if everywhere else [name]):
            renamed = re.sub(rf"\b{old}\b", new, tree.files[module])
            if renamed != tree.files[module]:
                tree.set(module, renamed)
        return f"{old} renamed to {new} in {'every module' if everywhere else name}"
    if kind == "delete" and len(modules) > 1:
        tree.delete(name)
        return f"{name} deleted"
    if kind == "add":
        new = str(Path(name).with_name(f"extra{len(tree.files)}_{rng.randrange(100)}.py"))
        tree.set(new, text)
        return f"{new} added (a copy of {name})"
    if kind == "comment":
        tree.set(name, f"{text}\n# edited {rng.randrange(10**6)}\n")
        return f"{name}: a comment added"
    if kind == "moved":  # the code below moves down a line (its summary's sites only, mostly)
        lines = text.splitlines(keepends=True)
        at = rng.randrange(len(lines) + 1)
        tree.set(name, "".join(lines[:at] + ["# moved\n"] + lines[at:]))
        return f"{name}: a comment line inserted as line {at + 1}"
    if kind == "widened" and (opening := [found.start() for found in re.finditer(r"\(", text)]):
        at = rng.choice(opening) + 1  # what follows on that line moves right
        tree.set(name, text[:at] + " " + text[at:])
        return f"{name}: a space after the ( at {at - 1}"
    tree.set(name, text)  # touched: a new mtime, the same bytes
    return f"{name} touched"


def _outcome(root: Path, cache: Path, jobs: int = 1) -> dict[str, tuple]:
    """Every file's findings (all they say) and fixed text, by its path in the project."""
    files = discover([root])
    results = run(files, RULES, SETTINGS, jobs=jobs, cache=ResultCache(cache, SETTINGS), project=files, discovered=True)
    return {Path(result.path).relative_to(root).as_posix(): (result.error, result.new_source, sorted(
        (f.line, f.column, f.end_line, f.end_column, f.code, f.kind.value, f.message, f.held_back,
         None if f.fix is None else (f.fix.applicability.value, f.fix.applied, tuple(map(repr, f.fix.edits))))
        for f in result.findings)) for result in results}


# A pool forked right after another shut down may find one of its threads still exiting, and jax's
# threads run where an earlier test of the process computed: harmless (the workers run the tool's
# Python only, never the old pool's queues or jax); CPython 3.12 and jax warn all the same.
@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")
@pytest.mark.filterwarnings("ignore:os.fork\\(\\) was called:RuntimeWarning")
@pytest.mark.parametrize("seed", range(CHAINS))
def test_after_any_edits_a_warm_run_gives_what_a_cold_run_gives(seed: int, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # Two processes summarise the changed modules in workers (as on a large project) from one module up.
    monkeypatch.setattr(runner, "SUMMARY_MIN_MODULES", 1)
    rng = random.Random(seed)
    project = PROJECTS[seed * 13 % len(PROJECTS)]  # 59, a prime: each project once in 59 chains, packages among the first 12
    root, warm_cache = tmp_path / "project", tmp_path / "warm-cache"
    root.mkdir()
    tree = Tree(root, {path.relative_to(project).as_posix(): path.read_text() for path in sorted(project.rglob("*.py"))})
    warm = _outcome(root, warm_cache)
    done = []
    for step in range(EDITS):
        tree.recent = rng.random() < 0.25
        fixed = {name: new.decode() for name, (_, new, _) in warm.items() if new is not None}
        done.append(_edit(rng, tree, fixed) + (" (just now)" if tree.recent else ""))
        warm = _outcome(root, warm_cache, jobs=rng.choice([1, 2]))
        cold = _outcome(root, tmp_path / f"cold-cache-{step}")
        assert warm == cold, f"seed {seed}, {project.name}, after: " + "; ".join(done)
