"""A run over one file agrees with the run over every file, as a property over generated packages
(tests/flow_programs.py's grammar): pre-commit, `--diff-base` and an editor run the tool on the
files changed, and the README promises their findings equal the whole run's for those files.

For every generated package, for each of its files run alone (the project discovered whole):

- the whole run's findings in that file are among the run's (its notes for what lies outside the
  run come on top: docs/how-it-decides.md, the subset-run paragraph);
- a file that writes a wall's value (a line marked `L<i>:wall` holding the literal) has a finding
  whenever the whole run has one on launch i's marked lines: `--check` on the writer alone fails as
  the whole run's does (bench/TRIAL_2026-12-07.md G1, where it passed; and for an `accuracy=` hint
  written as `lax.AccuracyMode.HIGHEST` and passed on by name, `OriginAnswer.dropped`).

No lowering: what JAX says of these packages is test_flow_property's. Derandomized, 60 examples by
default (about 4 s of CPU; `JAX_CODEMOD_PROPERTY_EXAMPLES` runs more). Session 24 (2026-12-07):
150 examples, 200 writers checked, 25 in the known gap, none else. h59hintgap (2026-12-07): the gap
closed, 150 examples, none.
"""

from __future__ import annotations

import itertools
import os
import tempfile
import textwrap
from pathlib import Path

import pytest

from codemods.engine.diagnostics import Kind
from codemods.engine.discovery import discover
from codemods.engine.runner import run
from codemods.registry import select
from codemods.settings import Settings
from tests.flow_programs import WALL_VALUES, Program, strategies

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given  # noqa: E402
from hypothesis import settings as hypothesis_settings  # noqa: E402

from tests import jax_support  # noqa: E402
from tests.test_flow_property import _marked_lines  # noqa: E402

EXAMPLES = int(os.environ.get("JAX_CODEMOD_PROPERTY_EXAMPLES", "60"))
_LITERALS = tuple(value for values in WALL_VALUES.values() for value in values)
_packages = itertools.count()

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def disagreements(program: Program) -> list[str]:
    """Where a run over one file of the program's package says less than the run over every file."""
    package = f"subsetpkg_{os.getpid()}_{next(_packages)}"
    files = program.render(package)
    marked = _marked_lines(files)
    writers = {(launch, name) for launch, lines in marked.items() for name, number in lines
               if f"L{launch}:wall" in files[name].splitlines()[number - 1]
               and any(literal in files[name].splitlines()[number - 1] for literal in _LITERALS)}
    settings = Settings(jax_support.JAX_VERSION, unsafe_fixes=True)
    found = []
    with tempfile.TemporaryDirectory(prefix="subset-") as tmp:
        root = Path(tmp)
        (root / "pyproject.toml").write_text("[project]\nname = 'p'\n")
        for name, text in files.items():
            (root / package).mkdir(exist_ok=True)
            (root / package / name).write_text(text)
        whole = {Path(r.path).name: {(f.line, f.code, f.kind) for f in r.findings}
                 for r in run([root], select(), settings, jobs=1, project=discover([root]))}
        for name in files:
            [alone] = run([root / package / name], select(), settings, jobs=1, project=discover([root]))
            said = {(f.line, f.code, f.kind) for f in alone.findings}
            found += [f"{name} alone lacks the whole run's {sorted(whole[name] - said)}"] \
                if not whole.get(name, set()) <= said else []
            for launch, spec in enumerate(program.launches):
                reported = {(other, code, kind) for other, findings in whole.items() for line, code, kind in findings
                            if (other, line) in marked.get(launch, set())}
                if (launch, name) in writers and spec.wall and reported and not said:
                    found.append(f"{name} writes launch_{launch}'s value: alone it says nothing, the whole run "
                                 f"says {sorted((other, code, kind.value) for other, code, kind in reported)}")
    return found


@pytest.mark.jax
@hypothesis_settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
                     suppress_health_check=list(HealthCheck))
@given(strategies(jax_support.JAX_VERSION))
def test_a_run_over_one_file_says_what_the_whole_run_says_of_it(program: Program) -> None:
    problems = disagreements(program)
    assert not problems, program.describe() + "\n" + "\n".join(problems)


# How `pkg/ops.py`'s kernel reads `HINT` of `pkg/consts.py`: (the kernel's line, where the whole run drops
# it: file, line; and its other findings, [manual] where the hint is passed on to `pkg/util.py`'s `act`)
_HINT_ROADS = {
    "op": ("o_ref[...] = lax.exp(x_ref[...], accuracy=HINT)", ("ops.py", 7), []),
    "helper_keyword": ("o_ref[...] = act(x_ref[...], accuracy=HINT)", ("util.py", 5), [("ops.py", 7)]),
    "helper_position": ("o_ref[...] = act(x_ref[...], HINT)", ("util.py", 5), []),
    "options": ('o_ref[...] = lax.exp(x_ref[...], **{"accuracy": HINT})', ("ops.py", 7), []),
    "table": ('o_ref[...] = lax.exp(x_ref[...], accuracy=TABLE["main"])', ("ops.py", 7), []),
    "alias": ("o_ref[...] = lax.exp(x_ref[...], accuracy=HINT)", ("ops.py", 7), []),  # `Mode.HIGHEST`
    # a body no code of the project launches: [manual] at the op, not dropped (bound by a partial, too)
    "unlaunched": ("o_ref[...] = lax.exp(x_ref[...], accuracy=HINT)", ("ops.py", 7), []),
    "unlaunched_partial": ("o_ref[...] = lax.exp(x_ref[...], accuracy=accuracy)", ("ops.py", 7), []),
    # launched as a partial of a function the link does not know (`BODIES[NAME]`), binding the hint
    "unlaunched_unknown_body": ("o_ref[...] = lax.exp(x_ref[...], accuracy=accuracy)", ("ops.py", 7), []),
}
_TAILS = {"unlaunched_partial": "BOUND = partial(body, accuracy=HINT)\n",
          "unlaunched_unknown_body": "BODIES = dict(globals())\n"}
_LAUNCHES = {"unlaunched": "x", "unlaunched_partial": "x",
             "unlaunched_unknown_body": "pl.pallas_call(partial(BODIES[NAME], accuracy=HINT), out_shape=x)(x)"}


@pytest.mark.parametrize("road", sorted(_HINT_ROADS))
def test_a_run_over_the_writer_of_a_hint_passed_on_by_name_says_where_the_whole_run_drops_it(
        tmp_path: Path, monkeypatch, road: str) -> None:
    """`HINT = lax.AccuracyMode.HIGHEST` in `consts.py`, read by name by a Mosaic kernel of `ops.py`: the
    whole run drops it where it is passed on (the op's keyword, a helper's, an entry of **options). A run
    over `consts.py` alone said nothing, `--check` passing while the kernel fails (pre-commit on a change
    to it); now [manual] where it is written, naming that call (or the op's [manual], where no launch of its
    kernel is found)."""
    from typer.testing import CliRunner

    from codemods.cli import app

    monkeypatch.chdir(tmp_path)
    kernel_line, (dropped_in, line), others = _HINT_ROADS[road]
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "consts.py").write_text(
        "from jax import lax\n" + ("from jax.lax import AccuracyMode as Mode\nHINT = Mode.HIGHEST\n" if road == "alias"
                                   else "\nHINT = lax.AccuracyMode.HIGHEST\n") + "TABLE = {\"fast\": None, \"main\": HINT}\n")
    (tmp_path / "pkg" / "util.py").write_text(
        "from jax import lax\n\n\ndef act(x, accuracy=None):\n    return lax.exp(x, accuracy=accuracy)\n")
    (tmp_path / "pkg" / "ops.py").write_text(textwrap.dedent(f"""\
        from jax import lax
        from jax.experimental import pallas as pl
        from pkg.consts import HINT, TABLE
        from pkg.util import act

        def body(x_ref, o_ref, accuracy=None):
            {kernel_line}

        def run(x):
            return {_LAUNCHES.get(road, "pl.pallas_call(body, out_shape=x)(x)")}
        from functools import partial
        NAME = "body"
    """) + _TAILS.get(road, ""))
    settings = Settings((0, 12, 0, 1))
    whole = run([tmp_path], select(["JAX002"]), settings, jobs=1, project=discover([tmp_path]))
    found = sorted((Path(r.path).name, f.line) for r in whole for f in r.findings)
    assert found == sorted([(dropped_in, line), *others])
    [alone] = run([tmp_path / "pkg" / "consts.py"], select(["JAX002"]), settings, jobs=1, project=discover([tmp_path]))
    [finding] = alone.findings
    assert finding.kind is Kind.MANUAL and finding.line == 3 and alone.new_source is None
    said = f"at `pkg.{dropped_in[:-3]}` line {line}, a file this run does not process"
    assert (said + ", in code that may run in a Mosaic kernel launched through a launch the analysis does not find"
            if road.startswith("unlaunched") else f"passed on {said}") in finding.message, finding.message
    checked = CliRunner().invoke(app, ["--check", "--no-cache", "--select", "JAX002", "--jax-version", "0.12.0.1",
                                       "pkg/consts.py"], catch_exceptions=False)
    assert checked.exit_code == 1, checked.output
    # a run that holds the file where it is dropped says it there, and nothing more in the writer
    [alone, with_it] = run([tmp_path / "pkg" / "consts.py", tmp_path / "pkg" / dropped_in], select(["JAX002"]),
                           settings, jobs=1, project=discover([tmp_path]))
    assert alone.findings == [] and [(f.line, f.kind) for f in with_it.findings] == [
        (line, Kind.MANUAL if road.startswith("unlaunched") else Kind.DROPPED)]
