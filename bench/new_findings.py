#!/usr/bin/env python
"""List the findings the current jax-codemod reports that a baseline revision did not, on real packages.

    .venv/bin/python bench/new_findings.py                          # all of sweep.PACKAGES, baseline 2197d3f
    .venv/bin/python bench/new_findings.py --report /tmp/new_findings.md
    .venv/bin/python bench/new_findings.py --packages jax tokamax --baseline /tmp/jcm-base

The packages are bench/sweep.py's PACKAGES, fetched and unpacked by its fetch() into
bench/.corpus/sweep/ (jax may come from the installed site-packages, as there).

For each package, two scratch copies of the unpacked tree are made (one per tool, at the same
relative path, so the reported paths are equal) and each tool is run in its copy's parent folder:

  current:   PYTHONPATH=<this checkout>  python -m codemods --no-cache --jax-version V --output-format json PKG
  baseline:  PYTHONPATH=<baseline tree>  python -m codemods  (same arguments)

with this Python (the venv's), JAX_CODEMOD_CACHE_DIR in the scratch folder and a timeout per run.
Neither runs in this checkout (python -m puts the current folder first on sys.path, before
PYTHONPATH), and before the runs each PYTHONPATH is checked to import its own `codemods`.

Findings are compared as multisets keyed by (path, line, rule, kind, message). The report (Markdown,
on stdout and with --report in a file) gives per package the counts old/new, then each finding
only the current tool reports (NEW) and each only the baseline reports (GONE), with three lines of
source around it, then crashes (exit status other than 0/1/2, a traceback, a timeout, JSON that
does not parse, an "internal error"), error count changes and files either run modified (a dry
run should modify none).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
import sweep  # noqa: E402  (bench/sweep.py: PACKAGES, Package, fetch, snapshot, JAX_VERSION)

DEFAULT_BASELINE = Path("/tmp/jcm-base")
DEFAULT_BASELINE_REV = "2197d3f"
RUN_TIMEOUT_S = 600

Key = tuple[str, int, str, str, str]  # path, line, rule, kind, message


@dataclass
class ToolRun:
    label: str
    returncode: Optional[int] = None
    seconds: float = 0.0
    findings: list[dict[str, Any]] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    crash: list[str] = field(default_factory=list)
    modified: list[str] = field(default_factory=list)  # files of the copy the run changed/created/removed

    def keys(self) -> Counter:
        return Counter(_key(f) for f in self.findings)


def _key(finding: dict[str, Any]) -> Key:
    path = finding["path"]
    if "cell" in finding:
        path = f"{path}:cell {finding['cell']}"
    return (path, finding["start"]["line"], finding["rule"], finding["kind"], finding["message"])


def check_import(root: Path, cwd: Path, python: str) -> str:
    """The codemods/__init__.py that `python -m codemods` run with PYTHONPATH=root in cwd imports."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    proc = subprocess.run([python, "-c", "import codemods; print(codemods.__file__)"],
                          cwd=cwd, env=env, capture_output=True, text=True)
    found = proc.stdout.strip()
    expected = str((root / "codemods" / "__init__.py").resolve())
    if proc.returncode != 0 or str(Path(found).resolve()) != expected:
        sys.exit(f"PYTHONPATH={root} imports {found or proc.stderr.strip()!r}, not {expected}")
    return found


def run_tool(label: str, root: Path, cwd: Path, target: str, python: str, jobs: Optional[int],
             env: dict[str, str], timeout: int) -> ToolRun:
    run = ToolRun(label)
    args = [python, "-m", "codemods", "--no-cache", "--jax-version", sweep.JAX_VERSION,
            "--output-format", "json"]
    if jobs:
        args += ["--jobs", str(jobs)]
    args.append(target)
    before = sweep.snapshot(cwd / target)
    start = time.perf_counter()
    try:
        proc = subprocess.run(args, cwd=cwd, env={**env, "PYTHONPATH": str(root)}, capture_output=True,
                              timeout=timeout)
        run.returncode, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as expired:
        run.seconds = time.perf_counter() - start
        run.crash.append(f"timed out after {timeout} s")
        return run
    run.seconds = time.perf_counter() - start
    out, err = stdout.decode("utf-8", "replace"), stderr.decode("utf-8", "replace")
    if run.returncode not in (0, 1, 2):
        run.crash.append(f"exit status {run.returncode}")
    if "Traceback (most recent call last)" in err:
        at = err.index("Traceback (most recent call last)")
        run.crash.append("Python traceback on stderr:\n" + err[at:at + 3000])
    try:
        document = json.loads(out)
    except json.JSONDecodeError as error:
        run.crash.append(f"stdout is not JSON ({error}); stderr tail: {err[-1500:]}")
        return run
    run.findings = document.get("findings", [])
    run.errors = [(e["path"], e["message"]) for e in document.get("errors", [])]
    run.summary = document.get("summary", {})
    for path, message in run.errors:
        if "internal error" in message:
            run.crash.append(f"{path}: {message}")
    after = sweep.snapshot(cwd / target)
    run.modified = sorted(p for p in set(before) | set(after)
                          if before.get(p) != after.get(p) and not p.startswith(".jax-codemod"))
    return run


def context(copy_parent: Path, finding: dict[str, Any], around: int = 1) -> str:
    """The finding's line and `around` lines either side, numbered, the finding's line marked."""
    path = copy_parent / finding["path"]
    line = finding["start"]["line"]
    try:
        if "cell" in finding:
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
            source = cells[finding["cell"] - 1]["source"]
            lines = ("".join(source) if isinstance(source, list) else source).splitlines()
        else:
            lines = path.read_bytes().decode("utf-8", "replace").splitlines()
    except (OSError, ValueError, KeyError, IndexError) as error:
        return f"    (no source: {error})"
    out = []
    for number in range(max(1, line - around), min(len(lines), line + around) + 1):
        mark = ">" if number == line else " "
        out.append(f"    {mark}{number:5d} | {lines[number - 1]}")
    return "\n".join(out) if out else "    (line out of range)"


@dataclass
class Compared:
    package: sweep.Package
    old: Optional[ToolRun] = None
    new: Optional[ToolRun] = None
    added: list[dict[str, Any]] = field(default_factory=list)
    gone: list[dict[str, Any]] = field(default_factory=list)
    copy_parent: Optional[Path] = None
    base_parent: Optional[Path] = None


def compare(old: ToolRun, new: ToolRun) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    old_keys, new_keys = old.keys(), new.keys()
    extra_new, extra_old = new_keys - old_keys, old_keys - new_keys

    def pick(findings: list[dict[str, Any]], extra: Counter) -> list[dict[str, Any]]:
        chosen = []
        remaining = Counter(extra)
        for finding in sorted(findings, key=lambda f: (_key(f)[0], _key(f)[1], f["start"]["column"], _key(f)[2:])):
            k = _key(finding)
            if remaining[k] > 0:
                remaining[k] -= 1
                chosen.append(finding)
        return chosen

    return pick(new.findings, extra_new), pick(old.findings, extra_old)


def by_kind(run: Optional[ToolRun]) -> str:
    if run is None or run.crash and not run.findings:
        return "crash" if run and run.crash else "-"
    counts = Counter(f["kind"] for f in run.findings)
    detail = ", ".join(f"{kind} {counts[kind]}" for kind in ("fixed", "dropped", "manual", "warning") if counts[kind])
    return f"{len(run.findings)}" + (f" ({detail})" if detail else "")


def render(results: list[Compared], skipped: list[tuple[str, str]], header: str) -> str:
    out = [f"# New findings: current jax-codemod vs baseline\n\n{header}\n"]
    out.append("| package | files | old findings | new findings | +new | -gone | old errors | new errors | old s | new s | crash |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        old, new = r.old, r.new
        crash = "yes" if (old and old.crash) or (new and new.crash) else ""
        out.append(f"| {r.package.key} | {(new.summary if new else {}).get('scanned', '?')} | {by_kind(old)} | "
                   f"{by_kind(new)} | {len(r.added)} | {len(r.gone)} | {len(old.errors) if old else '-'} | "
                   f"{len(new.errors) if new else '-'} | {old.seconds if old else 0:.0f} | "
                   f"{new.seconds if new else 0:.0f} | {crash} |")
    for name, why in skipped:
        out.append(f"| {name} | skipped: {why} | | | | | | | | | |")
    total_added = sum(len(r.added) for r in results)
    total_gone = sum(len(r.gone) for r in results)
    out.append(f"\nTotal: {total_added} new, {total_gone} gone.\n")

    for r in results:
        old, new = r.old, r.new
        assert old is not None and new is not None
        notes = []
        for run in (old, new):
            for crash in run.crash:
                notes.append(f"- **crash ({run.label})**: {crash}")
            if run.modified:
                notes.append(f"- **{run.label} modified files** (a dry run should not): {', '.join(run.modified[:10])}")
        if len(old.errors) != len(new.errors) or set(old.errors) != set(new.errors):
            for path, message in sorted(set(new.errors) - set(old.errors)):
                notes.append(f"- error only in current: `{path}`: {message}")
            for path, message in sorted(set(old.errors) - set(new.errors)):
                notes.append(f"- error only in baseline: `{path}`: {message}")
        if not (r.added or r.gone or notes):
            continue
        out.append(f"## {r.package.key}\n")
        out.append(f"old {len(old.findings)} / new {len(new.findings)} findings; "
                   f"errors old {len(old.errors)} / new {len(new.errors)}\n")
        out.extend(notes)
        if notes:
            out.append("")
        for title, findings, parent in (("NEW", r.added, r.copy_parent), ("GONE", r.gone, r.base_parent)):
            if not findings:
                continue
            out.append(f"### {title} ({len(findings)})\n")
            for i, f in enumerate(findings, 1):
                where = f["path"] + (f":cell {f['cell']}" if "cell" in f else "")
                out.append(f"{i}. `{where}:{f['start']['line']}:{f['start']['column']}` "
                           f"{f['rule']} [{f['kind']}]\n")
                out.append("   > " + f["message"].replace("\n", "\n   > ") + "\n")
                assert parent is not None
                out.append("   ```\n" + "\n".join("   " + line[4:] for line in context(parent, f).splitlines())
                           + "\n   ```\n")
    return "\n".join(out) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--packages", nargs="+", metavar="NAME", help="Only these distributions (default: all).")
    parser.add_argument("--baseline", type=Path, default=DEFAULT_BASELINE,
                        help=f"Root of the baseline checkout (default {DEFAULT_BASELINE}; created with "
                             f"`git worktree add --detach {DEFAULT_BASELINE} {DEFAULT_BASELINE_REV}` if missing).")
    parser.add_argument("--current", type=Path, default=REPO, help="Root of the current checkout (default: this one).")
    parser.add_argument("--report", type=Path, help="Also write the Markdown report here.")
    parser.add_argument("--jobs", type=int, default=1, help="jax-codemod --jobs for each run (default 1; 0: its own).")
    parser.add_argument("--serial", action="store_true", help="Run the two tools one after the other "
                        "(default: both at once, one package at a time).")
    parser.add_argument("--timeout", type=int, default=RUN_TIMEOUT_S, help="Seconds per run (default 600).")
    parser.add_argument("--python", default=sys.executable, help="Python that runs both tools (default: this one).")
    args = parser.parse_args()

    unknown = set(args.packages or ()) - {name for name, _ in sweep.PACKAGES}
    if unknown:
        sys.exit(f"not in the pinned list: {', '.join(sorted(unknown))}")
    if not (args.baseline / "codemods").is_dir():
        proc = subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(args.baseline),
                               DEFAULT_BASELINE_REV], capture_output=True, text=True)
        if proc.returncode != 0:
            sys.exit(f"no baseline at {args.baseline}: {proc.stderr.strip()}")
    scratch = Path(tempfile.mkdtemp(prefix="jcm-new-findings-"))
    (scratch / "new").mkdir()
    (scratch / "old").mkdir()
    current_file = check_import(args.current.resolve(), scratch / "new", args.python)
    baseline_file = check_import(args.baseline.resolve(), scratch / "old", args.python)

    def describe(root: Path) -> str:
        proc = subprocess.run(["git", "-C", str(root), "describe", "--always", "--dirty"], capture_output=True, text=True)
        return proc.stdout.strip() or "?"

    header = (f"{datetime.datetime.now().isoformat(timespec='seconds')}; target jax {sweep.JAX_VERSION}; "
              f"python {args.python}\n\n"
              f"- current: `{current_file}` at {describe(args.current)}\n"
              f"- baseline: `{baseline_file}` at {describe(args.baseline)}\n"
              f"- each run: `python -m codemods --no-cache --jax-version {sweep.JAX_VERSION} --output-format json"
              f"{' --jobs ' + str(args.jobs) if args.jobs else ''} PKG`, timeout {args.timeout} s\n"
              f"- findings compared as multisets of (path, line, rule, kind, message); context: the line ±1 "
              f"(`>` marks the finding's line)")
    print(header.replace("\n\n", "\n"), file=sys.stderr, flush=True)

    env = {**os.environ, "JAX_CODEMOD_CACHE_DIR": str(scratch / ".cache")}
    env.pop("PYTHONPATH", None)
    results: list[Compared] = []
    skipped: list[tuple[str, str]] = []
    try:
        for name, pin in sweep.PACKAGES:
            if args.packages and name not in args.packages:
                continue
            package = sweep.Package(name, pin)
            sweep.fetch(package)
            if package.skipped or package.tree is None:
                skipped.append((package.key, package.skipped or "no tree"))
                print(f"{package.key}: skipped ({package.skipped})", file=sys.stderr, flush=True)
                continue
            result = Compared(package, copy_parent=scratch / "new", base_parent=scratch / "old")
            for side in ("new", "old"):
                shutil.rmtree(scratch / side / package.key, ignore_errors=True)
                shutil.copytree(package.tree, scratch / side / package.key, symlinks=True,
                                ignore=shutil.ignore_patterns(".sweep-unpacked"))
            jobs = args.jobs or None
            calls = (("current", args.current.resolve(), scratch / "new"),
                     ("baseline", args.baseline.resolve(), scratch / "old"))
            if args.serial:
                runs = [run_tool(label, root, cwd, package.key, args.python, jobs, env, args.timeout)
                        for label, root, cwd in calls]
            else:
                with ThreadPoolExecutor(2) as pool:
                    runs = list(pool.map(lambda c: run_tool(c[0], c[1], c[2], package.key, args.python, jobs, env,
                                                            args.timeout), calls))
            result.new, result.old = runs
            result.added, result.gone = compare(result.old, result.new)
            results.append(result)
            crash = " CRASH" if result.old.crash or result.new.crash else ""
            print(f"{package.key}: old {len(result.old.findings)} ({result.old.seconds:.0f} s), new "
                  f"{len(result.new.findings)} ({result.new.seconds:.0f} s): +{len(result.added)} "
                  f"-{len(result.gone)}{crash}", file=sys.stderr, flush=True)
        report = render(results, skipped, header)  # reads the context from the scratch copies
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(report)
    if args.report:
        args.report.write_text(report)
        print(f"written: {args.report}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
