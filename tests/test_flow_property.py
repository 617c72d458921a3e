"""The tool's promise, as a property over generated packages (tests/flow_programs.py's grammar).

For every launch of a generated package (1-3 modules, bodies reaching their Mosaic TPU / Mosaic GPU
launch through aliases, partials, containers, loops, comprehensions, factories, launch helpers,
runners and imports; the value handed on by the op's keyword, another name or position, written
at its use or in another module (a constant, a table, a dataclass field or constructor argument, an
attribute `__init__` or a subclass sets) and carried to the op by a launching wrapper's parameter,
a closure, `**opts` or `*args` forwarded by helpers, or `self.` of a layer class or its subclass;
maybe read by plain-XLA code too): the tool (`--write --unsafe-fixes` for the installed jax) never
crashes, and

- a launch whose original fails to lower with one of the walls' errors ("Per-operand dot/conv
  precision unsupported", "Unsupported ... precision", "Not implemented: accuracy") either lowers
  once rewritten, or a check run over the rewritten package still reports a finding (of any kind,
  `[manual]` included: `--check` exits 1) on the wall's line, the line that writes or names its
  value, or the launch's line;
- a launch whose original lowers still lowers once rewritten;
- every plain-XLA function that reads a kernel's value (`reference_<i>`) lowers on this CPU to the
  same StableHLO before and after (no fix may change what XLA code reads).

Counterexamples the tool still fails are listed in KNOWN_GAPS (each shrunk, with the problem it
shows): the strategy leaves their families out, and `test_known_gaps_still_fail` asserts each still
fails, so a fix shows (then move it to FORMER_GAPS, which `test_former_gaps_hold_the_promise` checks).

JAX decides: each launch is lowered with `jax.export` for "tpu" or "cuda" on this CPU. A generated
program that fails for another reason is a bug of the generator (the test fails and says so).

Default profile: derandomized, 120 examples (29-42 s on the loaded, shared 2-core machine of
2026-12-06; back to back, 40.6 s against 42.9 s for the 150 examples of the grammar before the value
roads; a failure stops at the first counterexample, which hypothesis then shrinks). `JAX_CODEMOD_PROPERTY_EXAMPLES=1000` runs more
(`make sweep`). To collect counterexamples rather than
stop at the first, with each launch shrunk by hand to its simplest failing form and grouped into
families (the shrunk launch's shape):

    .venv/bin/python tests/test_flow_property.py --explore 300 [--seed 3] [--shrink-limit 40]

(about 1.5 min for 300 examples and 40 shrinks; the shrunk launches are printed to stderr as they come).
"""

from __future__ import annotations

import dataclasses
import importlib
import itertools
import os
import re
import shutil
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Optional

if __name__ == "__main__":  # script mode: the repository root on the path
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pytest

from codemods.engine.report import FileResult
from codemods.engine.runner import run
from codemods.registry import select
from codemods.settings import Settings
from tests.flow_programs import FORMER_GAPS, KNOWN_GAPS, PAIR, LaunchSpec, Program, known_gap, simpler, strategies

hypothesis = pytest.importorskip("hypothesis")
jax = pytest.importorskip("jax")
from hypothesis import HealthCheck, given  # noqa: E402
from hypothesis import settings as hypothesis_settings  # noqa: E402

from tests import jax_support  # noqa: E402

EXAMPLES = int(os.environ.get("JAX_CODEMOD_PROPERTY_EXAMPLES", "120"))
WALL_ERRORS = re.compile(r"Per-operand (dot|conv) precision unsupported|Unsupported \w+ precision|Not implemented: accuracy")
OPERANDS = (jax.ShapeDtypeStruct((8, 128), "float32"), jax.ShapeDtypeStruct((128, 128), "float32"))
_MARK = re.compile(r"# L(\d+):(wall|launch)")
_packages = itertools.count()

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@dataclasses.dataclass
class Problem:
    kind: str  # "crash", "unfixed" (still fails, nothing reported there), "broken" (lowered before, not after),
    # "xla-changed" (a plain-XLA reader of a kernel's value lowers differently after), "generator"
    launch: Optional[int]
    detail: str


@dataclasses.dataclass
class Outcome:
    problems: list[Problem]
    sources: dict[str, str]  # the original package, path -> text
    findings: str  # what the tool said in the --write run
    after: dict[str, str]  # the rewritten package


def check(program: Program) -> Outcome:
    """Run the tool over the program's package and lower every launch before and after."""
    package = f"flowpkg_{os.getpid()}_{next(_packages)}"
    files = program.render(package)
    problems: list[Problem] = []
    with tempfile.TemporaryDirectory(prefix="flow-") as tmp:
        original, rewritten = Path(tmp, "original"), Path(tmp, "rewritten")
        for root in (original, rewritten):
            for name, text in files.items():
                path = root / package / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
        settings = Settings(jax_support.JAX_VERSION, unsafe_fixes=True)
        first = run([rewritten], select(), settings, jobs=1)
        problems += _crashes(first, "--write run")
        for result in first:
            if result.new_source is not None:
                Path(result.path).write_bytes(result.new_source)
        second = run([rewritten], select(), settings, jobs=1)
        problems += _crashes(second, "check run")
        after = {path.name: path.read_text() for path in sorted((rewritten / package).glob("*.py"))}
        reported = {(Path(r.path).name, f.line) for r in second for f in r.findings}
        marked = _marked_lines(after)
        platforms = [spec.platform for spec in program.launches]
        before_errors, before_xla = _lower_all(original, package, platforms, program.references)
        after_errors, after_xla = _lower_all(rewritten, package, platforms, program.references)
        for (module, function), before, now in zip(program.references, before_xla, after_xla):
            if before != now:
                launch = int(function.rsplit("_", 1)[1])
                problems.append(Problem("xla-changed", launch, f"plain XLA `{module}.{function}` lowers differently "
                                                               f"after the rewrite:\n{before}\n---\n{now}"))
        for index, spec in enumerate(program.launches):
            before, now = before_errors[index], after_errors[index]
            if before is not None and not WALL_ERRORS.search(before):
                problems.append(Problem("generator", index, f"the original fails otherwise: {before}"))
            elif spec.wall != (before is not None):
                problems.append(Problem("generator", index, f"wall={spec.wall} but the original gave {before!r}"))
            elif before is None and now is not None:
                problems.append(Problem("broken", index, f"lowered before the rewrite, now: {now}"))
            elif before is not None and now is not None and not (marked.get(index, set()) & reported):
                problems.append(Problem("unfixed", index, f"still fails ({_short(now)}), and no finding on its "
                                                           f"wall or launch lines {sorted(marked.get(index, ()))}"))
        findings = _render(first, rewritten / package)
    return Outcome(problems, files, findings, after)


def _crashes(results: list[FileResult], when: str) -> list[Problem]:
    out = [Problem("crash", None, f"{when}: {Path(r.path).name}: {r.error}") for r in results if r.error]
    out += [Problem("crash", None, f"{when}: {Path(r.path).name}:{f.line}: {f.message}")
            for r in results for f in r.findings if "internal error" in f.message.lower()]
    return out


def _marked_lines(after: dict[str, str]) -> dict[int, set]:
    marked: dict[int, set] = {}
    for name, text in after.items():
        for number, line in enumerate(text.splitlines(), 1):
            for match in _MARK.finditer(line):
                marked.setdefault(int(match.group(1)), set()).add((name, number))
    return marked


def _lower_all(root: Path, package: str, platforms: list[str],
               references: list[tuple[str, str]]) -> tuple[list[Optional[str]], list[str]]:
    """Each launch's lowering error (None: it lowers; an import that fails fails every launch), and
    each plain-XLA reference's StableHLO on this CPU (or its error)."""
    sys.path.insert(0, str(root))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                api = importlib.import_module(f"{package}.api")
            except Exception as error:  # the rewrite broke the package
                failed = f"import failed: {type(error).__name__}: {error}"
                return [failed] * len(platforms), [failed] * len(references)
            errors = []
            for index, platform in enumerate(platforms):
                launch = getattr(api, f"launch_{index}")
                try:
                    errors.append(jax_support.lowering_error(jax.jit(launch), OPERANDS, platform))
                except Exception as error:
                    errors.append(f"{type(error).__name__}: {error}")
            xla = []
            for module, function in references:
                try:
                    reference = getattr(importlib.import_module(f"{package}.{module}"), function)
                    xla.append(jax.jit(reference).lower(*OPERANDS).as_text())
                except Exception as error:
                    xla.append(f"{type(error).__name__}: {error}")
            return errors, xla
    finally:
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
            del sys.modules[name]


def _short(message: str) -> str:
    return message.splitlines()[0][:120] if message else message


def _render(results: list[FileResult], root: Path) -> str:
    lines = []
    for result in results:
        for finding in sorted(result.findings, key=lambda f: f.sort_key()):
            lines.append(finding.render(str(Path(result.path).relative_to(root))))
    return "\n".join(lines)


def report(program: Program, outcome: Outcome) -> str:
    parts = [program.describe(), ""]
    parts += [f"[{p.kind}] launch_{p.launch}: {p.detail}" if p.launch is not None else f"[{p.kind}] {p.detail}"
              for p in outcome.problems]
    parts += ["", "the tool said (--write --unsafe-fixes):", outcome.findings or "(nothing)", ""]
    for name, text in outcome.sources.items():
        if text.strip():
            parts += [f"# ---- {name}", text]
    return "\n".join(parts)


PROGRAMS = strategies(jax_support.JAX_VERSION)


@pytest.mark.jax
@hypothesis_settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
                     suppress_health_check=list(HealthCheck))
@given(PROGRAMS)
def test_every_wall_is_fixed_or_reported(program: Program) -> None:
    outcome = check(program)
    assert not outcome.problems, report(program, outcome)


@pytest.mark.jax
@pytest.mark.parametrize("name", sorted(KNOWN_GAPS))
def test_known_gaps_still_fail(name: str) -> None:
    """Each known gap is a real counterexample of its family (the strategy leaves the family out):
    when this fails, the gap is fixed; remove it from KNOWN_GAPS and `known_gap`."""
    spec, kind, _ = KNOWN_GAPS[name]
    assert known_gap(spec) == name
    program = Program((spec,))
    outcome = check(program)
    assert [problem.kind for problem in outcome.problems] == [kind], report(program, outcome)


@pytest.mark.jax
@pytest.mark.parametrize("name", sorted(FORMER_GAPS))
def test_former_gaps_hold_the_promise(name: str) -> None:
    """Each gap fixed since (its shrunk launch) is fixed or reported, and no XLA reader changes."""
    program = Program((FORMER_GAPS[name],))
    outcome = check(program)
    assert not outcome.problems, report(program, outcome)


@pytest.mark.jax
def test_a_rewrite_that_changes_what_xla_code_reads_is_caught(tmp_path: Path) -> None:
    """The property's XLA comparison sees a shared value rewritten under plain XLA code (the wrong
    fix of issue 50: `MIXED` in `kernels.py` rewritten to HIGHEST under `reference.py`)."""
    spec = LaunchSpec("tpu", "dot", True, PAIR, "wrapper", 0, None, "def", "kern", "from_abs", (), "direct", "api",
                      "from_abs", origin="constant", origin_module="util", shared="reference")
    program = Program((spec,))
    package = f"flowpkg_{os.getpid()}_{next(_packages)}"
    lowered = []
    for name, rewrite in (("same", ""), ("rewritten", "lax.Precision.HIGHEST")):
        for file, text in program.render(package).items():
            if rewrite and file == "util.py":
                text = text.replace(PAIR, rewrite)
            (tmp_path / name / package).mkdir(parents=True, exist_ok=True)
            (tmp_path / name / package / file).write_text(text)
        lowered.append(_lower_all(tmp_path / name, package, ["tpu"], program.references))
    (same_errors, same_xla), (rewritten_errors, rewritten_xla) = lowered
    assert program.references == [("reference", "reference_0")]
    assert same_errors[0] is not None and rewritten_errors == [None]  # the rewrite fixes the kernel ...
    assert "precision = [DEFAULT, HIGHEST]" in same_xla[0] and same_xla != rewritten_xla  # ... and changes XLA code


# ---------------------------------------------------------------------------------------------
# Explore mode: collect counterexamples, shrink each failing launch, group them into families
# ---------------------------------------------------------------------------------------------

def _fails(program: Program, index: int, kind: str) -> bool:
    return any(p.kind == kind and p.launch in (index, None) for p in check(program).problems)


def shrink(program: Program, index: int, kind: str) -> tuple[Program, int]:
    """Fewer launches, then a simpler failing launch, while the problem of `kind` stays."""
    while len(program.launches) > 1:
        for other in range(len(program.launches)):
            if other == index:
                continue
            candidate = Program(program.launches[:other] + program.launches[other + 1:])
            new_index = index - (other < index)
            if _fails(candidate, new_index, kind):
                program, index = candidate, new_index
                break
        else:
            break
    progress = True
    while progress:
        progress = False
        for spec in simpler(program.launches[index]):
            candidate = Program(program.launches[:index] + (spec,) + program.launches[index + 1:])
            if _fails(candidate, index, kind):
                program, progress = candidate, True
                break
    return program, index


def _tokens(description: str) -> frozenset:
    return frozenset(re.sub(r"\b(util|kern)\b", "other", description).replace("/", " ").split())


def family_of(program: Program, index: int, kind: str) -> str:
    files = program.render("p")
    others = "".join(f" + other launch {program.describe(i)}" for i in range(len(program.launches)) if i != index)
    key = f"[{kind}] {program.describe(index)}{others}"
    if not ("util.py" in files and "kern.py" in files):  # one module besides api: which one it is does not matter
        key = re.sub(r"\b(util|kern)\b", "other", key)
    return key


def explore(examples: int, seed: int, shrink_limit: int = 40) -> int:
    from hypothesis import Phase
    from hypothesis import seed as hypothesis_seed

    failing: list[tuple[Program, Problem]] = []

    @hypothesis_settings(max_examples=examples, deadline=None, database=None, phases=[Phase.generate],
                         suppress_health_check=list(HealthCheck))
    @hypothesis_seed(seed)
    @given(PROGRAMS)
    def collect(program: Program) -> None:
        for problem in check(program).problems:
            failing.append((program, problem))

    collect()
    print(f"{examples} examples, {len(failing)} problems", file=sys.stderr)
    families: dict[str, tuple[Program, int, Problem]] = {}
    shrunk: list[tuple[str, frozenset]] = []  # (kind, the tokens of a shrunk failing launch)
    failing.sort(key=lambda item: sum(map(len, item[0].render("p").values())))
    for program, problem in failing:
        if problem.launch is None or problem.kind == "generator":
            key = f"[{problem.kind}] {problem.detail}"
            families.setdefault(key, (program, problem.launch or 0, problem))
            continue
        # A launch that holds every piece of a known family's shrunk launch is taken for that family
        # (shrinking costs a dozen tool runs and lowerings).
        tokens = _tokens(program.describe(problem.launch))
        if any(kind == problem.kind and known <= tokens for kind, known in shrunk) or len(shrunk) >= shrink_limit:
            continue
        small, index = shrink(program, problem.launch, problem.kind)
        print(f"shrunk: {family_of(small, index, problem.kind)}", file=sys.stderr, flush=True)
        shrunk.append((problem.kind, _tokens(small.describe(index))))
        key = family_of(small, index, problem.kind)
        if key not in families or sum(map(len, small.render("p").values())) < sum(
                map(len, families[key][0].render("p").values())):
            families[key] = (small, index, problem)
    for number, (key, (program, index, problem)) in enumerate(sorted(families.items()), 1):
        outcome = check(program)
        print(f"\n{'=' * 100}\nfamily {number}: {key}\n{'=' * 100}")
        print(report(program, outcome))
    print(f"\n{len(families)} families from {len(failing)} problems in {examples} examples", file=sys.stderr)
    return 1 if families else 0


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--explore", type=int, metavar="N", required=True, help="examples to run")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--shrink-limit", type=int, default=40, help="shrink at most this many counterexamples")
    arguments = parser.parse_args()
    warnings.simplefilter("ignore", DeprecationWarning)
    sys.exit(explore(arguments.explore, arguments.seed, arguments.shrink_limit))
