#!/usr/bin/env python
"""Run old releases' own test suites on the newest jax, before and after the JAX1xx upgrade.

    python bench/peers.py                   # every peer; writes its section of bench/UPGRADE_SWEEP.md
    python bench/peers.py --peers optax     # a subset (the report is written only with --report)
    python bench/peers.py --keep            # keep the scratch trees (their path is printed)

A peer is a published library's old release written for jax 0.4.x whose sdist carries its tests
(PEERS, pinned). For each one:

  1. its sdist is downloaded once (`pip download --no-deps --no-binary :all:`) into
     bench/.corpus/peers/ (ignored by git) and unpacked there;
  2. a virtualenv next to it (made once, with this Python) gets jax TARGET, pytest and the peer's
     own runtime and test dependencies as its metadata names them, unpinned (a pin that cannot
     install on this Python, or a dependency that cannot work with any jax of today, is left out
     and named in Peer.left_out: its tests then fail for that reason, reported as such);
  3. the unpacked tree is copied twice into a scratch folder outside this repository (the tool
     skips git-ignored files); in the first copy the suite runs as published:
     `python -m pytest -p no:cacheprovider -q --junitxml=...` with a timeout;
  4. in the second copy the tool runs as a user moving to jax TARGET would: a dry run with the
     floor at the target lists the fixes that apply; the floor for the write is the oldest release
     those fixes need (the largest `since` of their rows in codemods/api_changes.py), since the
     peer's metadata declares a far older jax that rightly holds every fix back (that dry run's
     summary is recorded too); then
     `jax-codemod --select JAX1 --jax-version TARGET --jax-floor FLOOR --write --unsafe-fixes`,
     and the same command again (it must change nothing);
  5. the suite runs again in the rewritten copy and the two runs are compared per test (JUnit
     classname::name; a collection error is keyed by its module).

Every test that fails or errors is classified by its error text (the `E` lines of the traceback):
"removed jax name" when an AttributeError / ImportError / ModuleNotFoundError names a jax module
or attribute (or a jax array's removed attribute), with the frame that raised it (the peer's code
or an installed package's); else NumPy 2, a missing module, or the exception line itself.

The goal, checked: after the rewrite no failure or collection error is caused by a removed jax
name, and no test that passed before fails after. A removed name with no public replacement (chex's
`jax.lib.xla_bridge._backends`) cannot be rewritten; there the goal is that the tool reports each
line that raises one as [manual] (never silence), and the table says which of the two was met. Prints the tables; writes them, with the detail
per peer, as the "Peers' own test suites" section of bench/UPGRADE_SWEEP.md (the rest of that file
is bench/upgrade_sweep.py's); exits 1 when the goal is not met for some peer.
"""

from __future__ import annotations

import argparse
import collections
import datetime
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from codemods.api_changes import TABLE  # noqa: E402

CORPUS = REPO / "bench" / ".corpus" / "peers"
REPORT = REPO / "bench" / "UPGRADE_SWEEP.md"
SECTION = "## Peers' own test suites"
TARGET = "0.12.0.1"


@dataclass(frozen=True)
class Peer:
    name: str
    version: str
    deps: tuple[str, ...]  # besides jax, jaxlib and pytest: the metadata's, unpinned
    tests: tuple[str, ...]  # pytest's arguments, relative to the unpacked tree
    left_out: str = ""  # what of its metadata's dependencies was not installed, and why
    note: str = ""  # what a person found out about a failure left after the rewrite

    @property
    def key(self) -> str:
        return f"{self.name}-{self.version}"


PEERS: tuple[Peer, ...] = (
    # chex 0.1.85 (Nov 2023, jax>=0.4.16): requirements/requirements.txt and requirements-test.txt.
    Peer("chex", "0.1.85", ("absl-py", "typing_extensions", "toolz", "numpy", "setuptools", "dm-tree",
                            "cloudpickle"), ("chex",),
         left_out="the test pin cloudpickle==2.2.0 is lifted (it predates Python 3.12)"),
    # optax 0.1.7 (Jul 2023, jax>=0.1.55): pyproject.toml's dependencies and its `test` extra.
    Peer("optax", "0.1.7", ("absl-py", "chex", "numpy", "dm-haiku", "dm-tree"), ("optax",),
         left_out="the test extra's flax==0.5.3 (2022) is not installed: it needs a jax older than 0.4, and "
                  "flax.optim, which equivalence_test.py imports, is gone from every flax release that installs "
                  "with jax " + TARGET),
    # jraph 0.0.6.dev0 (Feb 2022, jax>=0.1.55): setup.py's install_requires; its tests need absl-py.
    Peer("jraph", "0.0.6.dev0", ("absl-py", "numpy"), ("jraph",),
         note="sharded_graphnet_test.py could not be collected before (`from jax.lib import xla_bridge`). After, "
              "3 of its tests fail on `assert num_devices % num_shards == 0`. Its setUp sets XLA_FLAGS to 3 host "
              "devices and clears get_backend's cache, which re-created the CPU backend on the jax of 2022. On jax "
              "0.12 the backends another test file initialised earlier in the session stay: 1 device. Run alone, "
              "the rewritten file passes 6 of 6 (the rewrite's `jax.extend.backend.get_backend.cache_clear()` "
              "is the same function)."),
)


# -- fetching and environments --------------------------------------------------------------------

def run(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(command, capture_output=True, text=True, **kwargs)


def fetch(peer: Peer) -> Path:
    """The unpacked sdist (downloaded and unpacked once)."""
    tree = CORPUS / peer.key
    if tree.is_dir():
        return tree
    CORPUS.mkdir(parents=True, exist_ok=True)
    archives = list(CORPUS.glob(f"{peer.name}-{peer.version}.tar.gz"))
    if not archives:
        done = run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                    f"{peer.name}=={peer.version}", "-d", str(CORPUS)])
        archives = list(CORPUS.glob(f"{peer.name}-{peer.version}.tar.gz"))
        if done.returncode or not archives:
            raise RuntimeError(f"pip download {peer.key} failed: {done.stderr.strip()[-500:]}")
    with tarfile.open(archives[0]) as archive:
        archive.extractall(CORPUS, filter="data")
    if not tree.is_dir():
        raise RuntimeError(f"{archives[0].name} did not unpack into {tree.name}/")
    return tree


def environment(peer: Peer) -> Path:
    """The peer's virtualenv's python, made once per requirement list."""
    venv = CORPUS / f"venv-{peer.key}"
    requirements = [f"jax=={TARGET}", f"jaxlib=={TARGET}", "pytest", *peer.deps]
    marker = venv / ".installed"
    python = venv / "bin" / "python"
    if marker.is_file() and marker.read_text().split() == requirements and python.exists():
        return python
    shutil.rmtree(venv, ignore_errors=True)
    done = run([sys.executable, "-m", "venv", str(venv)])
    if done.returncode == 0:
        done = run([str(python), "-m", "pip", "install", "-q", *requirements])
    if done.returncode:
        raise RuntimeError(f"installing {' '.join(requirements)} for {peer.key} failed: {done.stderr.strip()[-800:]}")
    marker.write_text(" ".join(requirements) + "\n")
    return python


def versions(python: Path, names: tuple[str, ...]) -> dict[str, str]:
    code = ("import importlib.metadata as m, json, sys\nout = {}\nfor n in sys.argv[1:]:\n"
            "    try: out[n] = m.version(n)\n    except m.PackageNotFoundError: pass\nprint(json.dumps(out))")
    done = run([str(python), "-c", code, *names])
    return json.loads(done.stdout) if done.returncode == 0 else {}


# -- running a suite ------------------------------------------------------------------------------

@dataclass
class Case:
    outcome: str  # passed, failed, error, skipped
    text: str = ""  # the failure's message and traceback


@dataclass
class Suite:
    cases: dict[str, Case] = field(default_factory=dict)
    seconds: float = 0.0
    timed_out: bool = False
    problem: str = ""  # no JUnit file: pytest's own tail

    def count(self, outcome: str) -> int:
        return sum(1 for case in self.cases.values() if case.outcome == outcome)

    def collection_errors(self) -> int:
        return sum(1 for key, case in self.cases.items() if case.outcome == "error" and is_collection(key, case))


def is_collection(key: str, case: Case) -> bool:
    return "::" not in key or "collection failure" in case.text[:200]


def run_suite(python: Path, tree: Path, peer: Peer, timeout: float) -> Suite:
    junit = tree / ".peers-junit.xml"
    # --continue-on-collection-errors: else one module that fails to import stops the whole run.
    command = [str(python), "-m", "pytest", "-p", "no:cacheprovider", "-q", "--continue-on-collection-errors",
               f"--junitxml={junit}", *peer.tests]
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["JAX_PLATFORMS"] = "cpu"
    suite = Suite()
    start = time.monotonic()
    process = subprocess.Popen(command, cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        suite.timed_out = True
    suite.seconds = time.monotonic() - start
    if not junit.is_file():
        suite.problem = (output or "").strip()[-800:]
        return suite
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        classname, name = case.get("classname", ""), case.get("name", "")
        key = f"{classname}::{name}" if classname else name
        outcome, text = "passed", ""
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = {"failure": "failed"}.get(child.tag, child.tag)
                text = f"{child.get('message', '')}\n{child.text or ''}"
                break
        suite.cases[key] = Case(outcome, text)
    return suite


# -- classifying a failure ------------------------------------------------------------------------

_JAX = r"jax(?:lib)?(?:\.\w+)*"
REMOVED_JAX_NAME = re.compile(
    rf"AttributeError: module '(?P<m1>{_JAX})' has no attribute '(?P<a1>\w+)'"
    rf"|ImportError: cannot import name '(?P<a2>\w+)' from '(?P<m2>{_JAX})'"
    rf"|ModuleNotFoundError: No module named '(?P<m3>{_JAX})'"
    # jax's own message for a name its _deprecations table retired (raised once the name is gone)
    rf"|AttributeError: (?P<a4>(?:arr|jax)\.[\w.]+) (?:is deprecated|has been deprecated|was removed|has been removed)"
    rf"|AttributeError: '(?P<t5>ArrayImpl|Array|\w*Tracer|\w*Sharding|Device|\w*Mesh)' object has no attribute "
    rf"'(?P<a5>\w+)'")
NUMPY_2 = re.compile(r"NumPy 2\.0|`np\.\w+` was removed|numpy 2")
MISSING_MODULE = re.compile(r"ModuleNotFoundError: No module named '([\w.]+)'")
EXCEPTION = re.compile(r"^(?:[\w.]+\.)?(\w+(?:Error|Exception|Exit)|Failed|AssertionError)\b:?(.*)$")
FRAME = re.compile(r"^(\S+\.py):(\d+): (.+)$", re.M)  # pytest: `path:line: in function` or `...: Error`


@dataclass(frozen=True)
class Cause:
    kind: str  # "removed jax name", "NumPy 2", "missing module", "other"
    detail: str  # the error line (or what it names)
    where: str = ""  # the frame that raised it: the peer's file, or "installed: <package>"
    name: str = ""  # for a removed jax name: the name, qualified (`jax.lib.xla_bridge`, `arr.device_buffers`)


def _removed_name(match: re.Match) -> str:
    found = match.groupdict()
    if found["m1"]:
        return f"{found['m1']}.{found['a1']}"
    if found["m2"]:
        return f"{found['m2']}.{found['a2']}"
    if found["m3"]:
        return found["m3"]
    if found["a4"]:
        return found["a4"]
    return f".{found['a5']}"


def table_rows(name: str, codes_only: bool = False) -> list[str]:
    """The rows of codemods/api_changes.py about `name` (its own, or a name under it), as `CODE (kind)`."""
    name = name.removeprefix("arr")  # jax's message spells an array attribute `arr.device_buffers`
    return [row.code if codes_only else f"{row.code} ({row.change.value})" for row in TABLE
            if any(old == name or old.startswith(name + ".") for old in (*row.old, *row.modules))]


# What a person found out about a removed name a run still meets after the rewrite (shown with it).
JUDGED = {
    "jax.lib.xla_bridge": "chex's fake.py reads the private `jax.lib.xla_bridge._backends` (is the CPU backend "
                          "initialised yet?); the module is gone from 0.8.0 and the private attribute has no public "
                          "replacement (chex 0.1.92 reads `jax._src.xla_bridge._backends`). Row JAX195 reports it.",
    "jax.util": "chex's dataclass.py calls `jax.util.unzip2`, an internal helper jax no longer exports (members "
                "removed in 0.7.0, the module in 0.8.0); no public replacement. Row JAX194 reports it.",
    "jax.device_put_replicated": "gone from 0.10.0 (jax/__init__.py _deprecations: \"Removed for v0.10.0\"); the "
                                 "migration (jax's pmap guide) is `jax.device_put` of a stacked array with a "
                                 "sharding, not a rename. Row JAX193 reports it.",
}


def cause(case: Case, tree: Path) -> Cause:
    lines = [line[1:].strip() for line in case.text.splitlines() if line.startswith("E ")]
    lines = lines or [case.text.strip().splitlines()[0] if case.text.strip() else ""]
    frames = FRAME.findall(case.text)
    # Where: the peer's last frame (the line that named it), and the installed package that raised, if any.
    marker = "site-packages/"
    own = [f"{os.path.relpath(path, tree) if os.path.isabs(path) else path}:{line}"
           for path, line, _ in frames if marker not in path]
    where = own[-1] if own else ""
    if frames and marker in frames[-1][0]:
        where += (" -> " if where else "") + f"installed: {frames[-1][0].split(marker, 1)[1].split('/', 1)[0]}"
    for line in lines:
        match = REMOVED_JAX_NAME.search(line)
        if match:
            return Cause("removed jax name", match.group(0), where, _removed_name(match))
    for line in lines:
        if NUMPY_2.search(line):
            return Cause("NumPy 2", line[:160], where)
    for line in lines:
        match = MISSING_MODULE.search(line)
        if match:
            return Cause("missing module", f"No module named '{match.group(1)}'", where)
    exception = next((line for line in lines if EXCEPTION.match(line)), lines[0] if lines else "")
    return Cause("other", exception[:160], where)


# -- the tool -------------------------------------------------------------------------------------

@dataclass
class Rewrite:
    floor: str = ""
    metadata_summary: str = ""  # the dry run with the peer's own floor: its summary line
    fixed: collections.Counter = field(default_factory=collections.Counter)  # code -> fixes applied
    manual: list[str] = field(default_factory=list)  # path:line: message of each [manual] finding
    files_changed: int = 0
    idempotent: bool = True
    problem: str = ""


def tool_command() -> str:
    tool = shutil.which("jax-codemod", path=str(Path(sys.executable).parent)) or shutil.which("jax-codemod")
    if tool is None:
        sys.exit("jax-codemod is not installed for this Python (make sweep installs it)")
    return tool


def _json(done: subprocess.CompletedProcess) -> dict:
    if done.returncode not in (0, 1) or "Traceback" in done.stderr:
        raise RuntimeError(f"jax-codemod exit {done.returncode}: {(done.stderr or done.stdout).strip()[-800:]}")
    return json.loads(done.stdout)


def rewrite(tool: str, tree: Path, env: dict[str, str]) -> Rewrite:
    result = Rewrite()
    base = [tool, "--select", "JAX1", "--jax-version", TARGET, "--no-cache"]
    try:
        # The peer's own floor (its metadata): what a user sees first.
        done = run([*base, "--unsafe-fixes", "."], cwd=tree, env=env)
        result.metadata_summary = next((line for line in reversed((done.stdout + "\n" + done.stderr).splitlines())
                                        if " scanned, " in line), done.stderr.strip()[-300:])
        # The fixes that apply with the floor at the target, and the oldest release they need.
        planned = _json(run([*base, "--unsafe-fixes", "--jax-floor", TARGET, "--output-format", "json", "."],
                            cwd=tree, env=env))
        since = {row.code: row.since for row in TABLE}
        needed = [since[finding["rule"]] for finding in planned["findings"]
                  if finding.get("fix") and finding["rule"] in since]
        result.floor = ".".join(map(str, max(needed))) if needed else TARGET
        write = [*base, "--write", "--unsafe-fixes", "--jax-floor", result.floor, "--output-format", "json", "."]
        document = _json(run(write, cwd=tree, env=env))
        for finding in document["findings"]:
            if finding["kind"] == "manual":
                result.manual.append(f"{os.path.normpath(finding['path'])}:{finding['start']['line']}: {finding['rule']} "
                                     f"{finding['message']}")
            elif finding.get("fix"):
                result.fixed[finding["rule"]] += 1
        result.files_changed = document["summary"]["changed"]
        again = _json(run(write, cwd=tree, env=env))
        result.idempotent = again["summary"]["changed"] == 0
    except (RuntimeError, ValueError, KeyError) as error:
        result.problem = str(error)
    return result


# -- one peer -------------------------------------------------------------------------------------

@dataclass
class Outcome:
    peer: Peer
    installed: dict[str, str] = field(default_factory=dict)
    before: Suite = field(default_factory=Suite)
    after: Suite = field(default_factory=Suite)
    rewrite: Rewrite = field(default_factory=Rewrite)
    causes_before: dict[str, Cause] = field(default_factory=dict)
    causes_after: dict[str, Cause] = field(default_factory=dict)
    problem: str = ""

    def jax_name(self, causes: dict[str, Cause]) -> list[str]:
        return sorted(key for key, found in causes.items() if found.kind == "removed jax name")

    @property
    def regressions(self) -> list[str]:
        return sorted(key for key, case in self.before.cases.items()
                      if case.outcome == "passed" and self.after.cases.get(key, Case("missing")).outcome != "passed")

    @property
    def fixed_tests(self) -> list[str]:
        return sorted(key for key, case in self.after.cases.items()
                      if case.outcome == "passed" and self.before.cases.get(key, Case("missing")).outcome != "passed")

    def left(self) -> dict[str, tuple[list[str], list[str]]]:
        """Each removed name failures still raise after the rewrite: (the peer's lines that raise it,
        those of them the tool reported [manual])."""
        found: dict[str, tuple[list[str], list[str]]] = {}
        manual_lines = {line.split(": ", 1)[0] for line in self.rewrite.manual}
        for key in self.jax_name(self.causes_after):
            name, where = self.causes_after[key].name, self.causes_after[key].where.split(" -> ")[0]
            lines, reported = found.setdefault(name, ([], []))
            if where and not where.startswith("installed:") and where not in lines:  # a line of the peer's
                lines.append(where)
                if where in manual_lines:
                    reported.append(where)
        return found

    @property
    def goal(self) -> str:
        """"none left" (no failure from a removed name), "each reported [manual]", or "NO"."""
        if (self.problem or self.rewrite.problem or not self.rewrite.idempotent or self.before.problem
                or self.after.problem or self.after.timed_out or self.regressions):
            return "NO"
        left = self.left()
        if not left:
            return "none left"
        manual_codes = {line.split(": ", 2)[1].split()[0] for line in self.rewrite.manual if line.count(": ") >= 2}
        reported = all(lines == reported and set(table_rows(name, codes_only=True)) & manual_codes
                       for name, (lines, reported) in left.items())
        return "each reported [manual]" if reported else "NO"


def check_peer(peer: Peer, tool: str, scratch: Path, timeout: float) -> Outcome:
    outcome = Outcome(peer)
    try:
        tree = fetch(peer)
        python = environment(peer)
    except RuntimeError as error:
        outcome.problem = str(error)
        return outcome
    outcome.installed = versions(python, ("jax", "jaxlib", "numpy", "pytest", *peer.deps))
    before, after = scratch / "before" / peer.key, scratch / "after" / peer.key
    for copy in (before, after):
        shutil.copytree(tree, copy, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    env = {**os.environ, "JAX_CODEMOD_CACHE_DIR": str(scratch / ".cache")}
    print(f"  {peer.key}: running the suite as published", flush=True)
    outcome.before = run_suite(python, before, peer, timeout)
    print(f"  {peer.key}: jax-codemod --write", flush=True)
    outcome.rewrite = rewrite(tool, after, env)
    print(f"  {peer.key}: running the suite after the rewrite (floor {outcome.rewrite.floor})", flush=True)
    outcome.after = run_suite(python, after, peer, timeout)
    outcome.causes_before = {key: cause(case, before) for key, case in outcome.before.cases.items()
                             if case.outcome in ("failed", "error")}
    outcome.causes_after = {key: cause(case, after) for key, case in outcome.after.cases.items()
                            if case.outcome in ("failed", "error")}
    return outcome


# -- the report -----------------------------------------------------------------------------------

def _counts(outcome: Outcome, suite: Suite, causes: dict[str, Cause]) -> str:
    if suite.problem and not suite.cases:
        return "| no result | | | | | | |"
    return (f"| {len(suite.cases)} | {suite.count('passed')} | {suite.count('failed')} | "
            f"{suite.count('error') - suite.collection_errors()} | {suite.collection_errors()} | "
            f"{suite.count('skipped')} | {len(outcome.jax_name(causes))} |")


def table(outcomes: list[Outcome]) -> str:
    rows = ["| peer | run | tests | passed | failed | errors | collection errors | skipped | "
            "caused by a removed jax name |",
            "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for o in outcomes:
        if o.problem:
            rows.append(f"| {o.peer.key} | not run: {o.problem[:200]} | | | | | | | |")
            continue
        rows.append(f"| {o.peer.key} | as published {_counts(o, o.before, o.causes_before)}")
        rows.append(f"| | after jax-codemod (floor {o.rewrite.floor or '?'}) {_counts(o, o.after, o.causes_after)}")
    rows += ["", "| peer | tests fixed by the rewrite | passed before, not after | goal met |",
             "| --- | ---: | ---: | --- |"]
    for o in outcomes:
        rows.append(f"| {o.peer.key} | {len(o.fixed_tests)} | {len(o.regressions)} | {o.goal} |")
    return "\n".join(rows)


def _group(causes: dict[str, Cause], keys: list[str]) -> list[str]:
    """One line per distinct cause: how many tests, one example."""
    groups: dict[tuple[str, str, str], list[str]] = collections.defaultdict(list)
    for key in keys:
        found = causes[key]
        groups[(found.kind, found.detail, found.where)].append(key)
    lines = []
    for (kind, detail, where), members in sorted(groups.items(), key=lambda item: (-len(item[1]), item[0])):
        place = f" (raised in {where})" if where else ""
        lines.append(f"  - {len(members)} × {kind}: `{detail}`{place}; e.g. `{members[0]}`")
    return lines


def details(outcomes: list[Outcome]) -> str:
    parts = []
    for o in outcomes:
        parts.append(f"### {o.peer.key}\n")
        if o.problem:
            parts.append(f"Not run: {o.problem}\n")
            continue
        installed = ", ".join(f"{name} {version}" for name, version in o.installed.items())
        parts.append(f"Installed: {installed}. `pytest {' '.join(o.peer.tests)}` in the unpacked sdist; "
                     f"{o.before.seconds:.0f} s before, {o.after.seconds:.0f} s after."
                     + (f" Left out: {o.peer.left_out}." if o.peer.left_out else "") + "\n")
        for label, suite in (("before", o.before), ("after", o.after)):
            if suite.timed_out:
                parts.append(f"The suite {label} the rewrite timed out (partial results).\n")
            if suite.problem:
                parts.append(f"The suite {label} the rewrite left no JUnit report: `{suite.problem[-300:]}`\n")
        r = o.rewrite
        parts.append(f"With the peer's own metadata floor: `{r.metadata_summary}`\n")
        if r.problem:
            parts.append(f"The rewrite failed: `{r.problem}`\n")
        fixes = ", ".join(f"{code} × {count}" for code, count in sorted(r.fixed.items())) or "none"
        parts.append(f"Rewritten with `--jax-floor {r.floor}` (the oldest release the planned fixes need): "
                     f"{sum(r.fixed.values())} fixes ({fixes}) in {r.files_changed} files; "
                     f"{len(r.manual)} [manual]; a second run {'changes nothing' if r.idempotent else 'CHANGES FILES'}.\n")
        for line in r.manual:
            parts.append(f"  - [manual] {line}")
        if r.manual:
            parts.append("")
        before_jax = o.jax_name(o.causes_before)
        parts.append(f"Before: {len(before_jax)} failing tests or collection errors caused by a removed jax name:")
        parts += _group(o.causes_before, before_jax) or ["  - none"]
        others = sorted(key for key in o.causes_before if key not in before_jax)
        parts.append(f"\nBefore, for other reasons: {len(others)}:")
        parts += _group(o.causes_before, others) or ["  - none"]
        after_jax = o.jax_name(o.causes_after)
        parts.append(f"\nAfter: {len(after_jax)} caused by a removed jax name:")
        parts += _group(o.causes_after, after_jax) or ["  - none"]
        left = o.left()
        if left:
            parts.append("\nThe removed names left, against the table and the tool's [manual] findings:")
        for name, (lines, reported) in sorted(left.items()):
            rows = table_rows(name)
            parts.append(f"  - `{name}` (at {', '.join(sorted(lines)) or '?'}): "
                         + (f"table rows {', '.join(rows)}" if rows else "no row in codemods/api_changes.py")
                         + f"; reported [manual] at {len(reported)} of {len(lines)} of those lines."
                         + (f" {JUDGED[name]}" if name in JUDGED else ""))
        others = sorted(key for key in o.causes_after if key not in after_jax)
        parts.append(f"\nAfter, for other reasons: {len(others)}:")
        parts += _group(o.causes_after, others) or ["  - none"]
        if o.peer.note:
            parts.append(f"\nNote: {o.peer.note}")
        parts.append(f"\nPassed before, not after: {len(o.regressions)}" + (":" if o.regressions else "."))
        for key in o.regressions[:30]:
            case = o.after.cases.get(key)
            why = cause(case, REPO).detail if case is not None and case.outcome in ("failed", "error") else (
                case.outcome if case is not None else "not collected")
            parts.append(f"  - `{key}`: {why}")
        parts.append("")
    return "\n".join(parts)


def write_report(path: Path, text: str) -> None:
    current = path.read_text(encoding="utf-8") if path.is_file() else ""
    head = current.split(SECTION, 1)[0].rstrip()
    path.write_text((head + "\n\n" if head else "") + text, encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--peers", nargs="+", metavar="NAME", help="only these peers (by name)")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per suite run (default 1800)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch trees")
    parser.add_argument("--report", type=Path, help=f"write the section here (default {REPORT.name} for a full run)")
    args = parser.parse_args()
    tool = tool_command()
    scratch = Path(tempfile.mkdtemp(prefix="jax-codemod-peers-"))
    outcomes = []
    try:
        for peer in PEERS:
            if args.peers and peer.name not in args.peers:
                continue
            outcomes.append(check_peer(peer, tool, scratch, args.timeout))
    finally:
        if args.keep:
            print(f"scratch trees kept in {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    text = table(outcomes)
    print(text)
    report = args.report or (REPORT if not args.peers else None)
    if report is not None:
        when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        write_report(report, f"{SECTION}\n\n`python bench/peers.py`, {when}, target jax {TARGET} (method: the "
                             f"module docstring). Each peer's suite as published on jax {TARGET}, then after "
                             f"`jax-codemod --select JAX1 --write --unsafe-fixes` with the floor raised to the "
                             f"oldest release the fixes need.\n\n{text}\n\n{details(outcomes)}")
    return 0 if outcomes and all(o.goal != "NO" for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
