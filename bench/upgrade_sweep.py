#!/usr/bin/env python
"""Run the JAX1xx upgrade rules over the pinned JAX ecosystem packages and check what they write.

    python bench/upgrade_sweep.py                       # the packages of bench/sweep.py; writes bench/UPGRADE_SWEEP.md
    python bench/upgrade_sweep.py --packages flax qwix  # a subset (the report is written only with --report)
    python bench/upgrade_sweep.py --trees DIR ...       # any folders instead (e.g. a site-packages copy)

The packages are bench/sweep.py's (pinned, downloaded once into bench/.corpus/sweep/). For each, a
scratch copy gets:

  1. the old spellings counted, independently of the rules' own scan: every attribute chain and
     import in a file that parses, whose qualified name (through the module's imports and
     assignments, as the one analysis resolves them) is an old name of a mechanical row (not
     `[manual]` rows, not rows whose old name stays valid such as jnp.clip), outside version guards;
  2. `jax-codemod --select JAX1 --write --unsafe-fixes --no-cache --jax-version 0.12.0.1 --output-format json`;
  3. the old spellings counted again: each one left must sit on a line with a JAX1xx [manual]
     finding (a person's), else it is a miss;
  4. every changed file compiled; 5. the same command again: it must change nothing (idempotence).

Prints a Markdown table and writes it to bench/UPGRADE_SWEEP.md; exits 1 on a miss, a crash, an
output that does not compile or a second run that changes something.
"""

from __future__ import annotations

import argparse
import ast
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sweep  # noqa: E402  (the pinned packages, fetching, file walking)

from codemods.analysis.module import ModuleIndex  # noqa: E402
from codemods.api_changes import TABLE, Change  # noqa: E402
from codemods.upgrades.scan import guarded  # noqa: E402

REPORT = sweep.REPO / "bench" / "UPGRADE_SWEEP.md"
TARGET = "0.12.0.1"
# Old names whose every reference must be rewritten or reported: the mechanical rows' (a name that
# stays valid, such as jnp.clip or pl.BlockSpec, is old only in some calls; [manual] rows are a person's).
OLD_NAMES = frozenset(old for row in TABLE if row.change is not Change.MANUAL and row.new != row.old[0]
                      for old in row.old if old.startswith("jax."))


def old_spellings(path: Path) -> list[int]:
    """The lines of a file's unguarded references to old names (empty when it does not parse)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module = ModuleIndex.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, ValueError, UnicodeDecodeError, RecursionError, MemoryError):
        return []
    lines = []
    for binding in module.imports:
        if (binding.imported or "") in OLD_NAMES and not guarded(module, binding.node):
            lines.append(binding.node.lineno)
    for mentions in module.mentions.values():
        for node in mentions:
            if not isinstance(getattr(node, "ctx", None), ast.Load):
                continue
            if isinstance(node, ast.Name):
                continue  # a bare name is a reference where it is bound: its import, or the value assigned
            if module.qualified_names(node) & OLD_NAMES and not guarded(module, node):
                lines.append(node.lineno)
    return sorted(lines)


@dataclass
class Outcome:
    name: str
    files: int = 0
    before: int = 0
    after: int = 0
    fixes: int = 0
    manual: int = 0
    changed: int = 0
    misses: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return bool(self.misses or self.problems)


def sweep_tree(name: str, tree: Path, scratch: Path, tool: str, env: dict[str, str]) -> Outcome:
    copy = scratch / name
    shutil.copytree(tree, copy, symlinks=True, ignore=shutil.ignore_patterns(".sweep-unpacked", "__pycache__"))
    outcome = Outcome(name)
    files = list(sweep.py_files(copy))
    outcome.files = len(files)
    outcome.before = sum(len(old_spellings(path)) for path in files)
    original = sweep.snapshot(copy)
    command = [tool, "--select", "JAX1", "--write", "--unsafe-fixes", "--no-cache", "--jax-version", TARGET,
               "--output-format", "json", str(copy)]
    first = subprocess.run(command, capture_output=True, text=True, env=env, cwd=scratch)
    if first.returncode not in (0, 1, 2) or "Traceback" in first.stderr:
        outcome.problems.append(f"crash (exit {first.returncode}): {first.stderr.strip()[-500:]}")
        return outcome
    document = json.loads(first.stdout)
    manual_lines = set()
    for finding in document.get("findings", []):
        if finding["kind"] == "manual":
            manual_lines.add((os.path.abspath(finding["path"]), finding["start"]["line"]))
        elif finding.get("fix"):
            outcome.fixes += 1
    outcome.manual = sum(1 for finding in document.get("findings", []) if finding["kind"] == "manual")
    outcome.problems += [f"{error['path']}: {error['message']}" for error in document.get("errors", [])
                         if "internal error" in error["message"]]
    written = sweep.snapshot(copy)
    changed = [path for path, digest in written.items() if original.get(path) != digest]
    outcome.changed = len(changed)
    for relative in changed:
        problem = sweep.compiles((copy / relative).read_bytes(), relative)
        if problem:
            outcome.problems.append(f"{relative}: the output does not compile: {problem}")
    for path in files:
        for line in old_spellings(path):
            outcome.after += 1
            if (os.path.abspath(path), line) not in manual_lines:
                outcome.misses.append(f"{path.relative_to(copy)}:{line}")
    second = subprocess.run(command, capture_output=True, text=True, env=env, cwd=scratch)
    if sweep.snapshot(copy) != written or second.returncode not in (0, 1, 2):
        outcome.problems.append("the second run changed the tree (or crashed)")
    return outcome


def table(outcomes: list[Outcome]) -> str:
    rows = ["| package | .py files | old spellings before | after (each with a [manual] finding) | fixes | "
            "[manual] | files changed | misses | compiles, idempotent |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for o in outcomes:
        rows.append(f"| {o.name} | {o.files} | {o.before} | {o.after} | {o.fixes} | {o.manual} | {o.changed} | "
                    f"{len(o.misses)} | {'yes' if not o.problems else 'NO'} |")
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--packages", nargs="+", metavar="NAME", help="only these pinned distributions")
    parser.add_argument("--trees", nargs="+", type=Path, metavar="DIR", help="sweep these folders instead")
    parser.add_argument("--report", type=Path, help=f"write the report here (default {REPORT.name} for a full run)")
    args = parser.parse_args()
    tool = shutil.which("jax-codemod", path=str(Path(sys.executable).parent)) or shutil.which("jax-codemod")
    if tool is None:
        sys.exit("jax-codemod is not installed for this Python (make sweep installs it)")
    if args.trees:
        trees = [(path.name, path) for path in args.trees]
    else:
        trees = []
        for name, pin in sweep.PACKAGES:
            if args.packages and name not in args.packages:
                continue
            package = sweep.Package(name, pin)
            sweep.fetch(package)
            if package.tree is not None:
                trees.append((package.key, package.tree))
            else:
                print(f"  {package.key}: skipped ({package.skipped})", flush=True)
    scratch = Path(tempfile.mkdtemp(prefix="jax-codemod-upgrade-sweep-"))
    env = {**os.environ, "JAX_CODEMOD_CACHE_DIR": str(scratch / ".cache")}
    outcomes = []
    try:
        for name, tree in trees:
            outcome = sweep_tree(name, tree, scratch, tool, env)
            outcomes.append(outcome)
            print(f"  {name}: {outcome.before} old spellings -> {outcome.after} left, {outcome.fixes} fixes, "
                  f"{len(outcome.misses)} misses: {'FAILED' if outcome.failed else 'ok'}", flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    text = table(outcomes)
    problems = [f"- {o.name}: miss at {miss}" for o in outcomes for miss in o.misses[:20]]
    problems += [f"- {o.name}: {problem}" for o in outcomes for problem in o.problems[:20]]
    print(text)
    print("\n".join(problems) or "no misses, every output compiles, a second run changes nothing")
    report = args.report or (REPORT if not args.packages and not args.trees else None)
    if report is not None:
        when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        report.write_text(f"# The JAX1xx upgrade sweep\n\n`python bench/upgrade_sweep.py`, {when}, target jax "
                          f"{TARGET} (method: the module docstring).\n\n{text}\n\n"
                          + ("\n".join(problems) or "No misses; every output compiles; a second run changes nothing.")
                          + "\n")
    return 1 if any(o.failed for o in outcomes) else 0


if __name__ == "__main__":
    sys.exit(main())
