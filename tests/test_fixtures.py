"""Golden files: every `tests/fixtures/<family>/<case>.in.py` against its `.out.py` and `.findings`.

A case's first line may hold CLI options for that case, e.g.
`# jax-codemod: --jax-version 0.10.2 --scope all` (`--jax-floor 0.3.0`: the lowest jax the case's
project supports; `--select` adds rules to the folder's own, for a call two rules rewrite together). Without `--jax-version` cases target
jax 0.12.0.1, so the goldens do not depend on the installed jax. Every fix is applied, unsafe ones
included (as with `--unsafe-fixes`): the `.out.py` shows every rewrite the tool can make, and the
`.findings` say which fixes are unsafe (tests/test_fixes.py checks what `--write` alone gives). Regenerate with
`pytest tests/test_fixtures.py --update-goldens`, then read the diff.
"""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path

import pytest

from codemods.capabilities import parse_version
from codemods.engine.report import render_findings
from codemods.engine.runner import process_source
from codemods.registry import select
from codemods.settings import PrecisionPolicy, Scope, Settings

FIXTURES = Path(__file__).parent / "fixtures"
FAMILIES = {"precision": "JAX001", "accuracy": "JAX002", "lstm": "JAX003", "upgrades": "JAX1",
            "narrow": "JAX004", "dynamic_index": "JAX006", "math": "JAX007", "x64": "JAX005", "debug_print": "JAX008"}
HEADER = "# jax-codemod:"
DEFAULT_TARGET = "0.12.0.1"

CASES = sorted(FIXTURES.glob("*/*.in.py"))


def _options(source: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(exit_on_error=False)
    parser.add_argument("--jax-version", default=DEFAULT_TARGET)
    parser.add_argument("--jax-floor")
    parser.add_argument("--scope", type=Scope, default=Scope.KERNELS)
    parser.add_argument("--precision-policy", type=PrecisionPolicy, default=PrecisionPolicy.NEAREST)
    parser.add_argument("--helpers-module")
    parser.add_argument("--select", default="")
    first_line = source.split("\n", 1)[0]
    args = shlex.split(first_line[len(HEADER):]) if first_line.startswith(HEADER) else []
    return parser.parse_args(args)


def case_settings(source: str) -> Settings:
    options = _options(source)
    return Settings(parse_version(options.jax_version), options.scope, options.precision_policy, options.helpers_module,
                    unsafe_fixes=True, jax_floor=parse_version(options.jax_floor) if options.jax_floor else None)


def case_rules(path: Path, source: str) -> list:
    """The rules a case runs: its folder's family, and those its header's `--select` adds."""
    return select([FAMILIES[path.parent.name], *(code for code in _options(source).select.split(",") if code)])


def rewrite(path: Path, source: bytes) -> tuple[bytes, str]:
    """The transform of the case's family applied to `source`: new bytes and rendered findings."""
    text = source.decode()
    result = process_source(Path(path.name), source, case_rules(path, text), case_settings(text))
    assert result.error is None, result.error
    return (result.new_source or source), render_findings([result])


def _id(path: Path) -> str:
    return f"{path.parent.name}/{path.name[: -len('.in.py')]}"


def test_fixture_folders_name_transforms() -> None:
    unknown = {path.parent.name for path in CASES} - set(FAMILIES)
    assert not unknown, f"fixture folders without a transform: {unknown}"


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_golden(case: Path, update_goldens: bool) -> None:
    expected_out = case.with_name(case.name.replace(".in.py", ".out.py"))
    expected_findings = case.with_name(case.name.replace(".in.py", ".findings"))
    output, findings = rewrite(case, case.read_bytes())
    if update_goldens:
        expected_out.write_bytes(output)
        expected_findings.write_text(findings)
    assert output.decode() == expected_out.read_text(), f"rewrite of {case.name} differs from its .out.py"
    assert findings == expected_findings.read_text(), f"findings for {case.name} differ from its .findings"


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_golden_is_idempotent(case: Path) -> None:
    """Running the tool on its own output changes nothing."""
    expected_out = case.with_name(case.name.replace(".in.py", ".out.py"))
    source = expected_out.read_bytes()
    output, _ = rewrite(expected_out, source)
    assert output == source, f"a second run changes {expected_out.name}"
