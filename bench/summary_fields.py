"""Blank each field of the module summary (codemods/analysis/flow/summary.py) where it is produced, one at
a time in a scratch copy of the repository, and run the summary's and the link's direct tests: each field
must fail one of them (issue 50's proof: "every summary field has a test that fails without it").

    .venv/bin/python bench/summary_fields.py                      # the direct tests (a few minutes)
    .venv/bin/python bench/summary_fields.py tests/test_link.py   # other tests
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUMMARY = "codemods/analysis/flow/summary.py"
TESTS = ["tests/test_summary_direct.py", "tests/test_link_direct.py", "tests/test_link_answers_direct.py"]
_BUILT = ("return ModuleSummary(name, builder.functions, builder.classes, tuple(builder.assigns), "
          "tuple(builder.returns),\n                         tuple(builder.calls), tuple(builder.stars))")
_PARTS = {"name": "name", "functions": "builder.functions", "classes": "builder.classes",
          "assigns": "tuple(builder.assigns)", "returns": "tuple(builder.returns)", "calls": "tuple(builder.calls)",
          "star_imports": "tuple(builder.stars)"}
_CALL = "self.calls.append(Call(site, scope.qualified if not scope.is_class else scope.parent.qualified,"
_CALL_PARTS = "                               callee, args, keywords))"
_FUNCTION = "self.functions[qualified] = Function(tuple(params), owner)"


def _module_summary(field: str, blank: str) -> tuple[str, str]:
    return _BUILT, "return ModuleSummary(" + ", ".join({**_PARTS, field: blank}.values()) + ")"


# field -> (the producer's text, the same with the field blanked)
BLANKS = {
    **{f"ModuleSummary.{field}": _module_summary(field, '""' if field == "name" else "{}" if field in (
        "functions", "classes") else "()") for field in _PARTS},
    "Call.site": ("self.calls.append(Call(site,", "self.calls.append(Call((0, 0),"),
    "Call.scope": (_CALL, "self.calls.append(Call(site, self.name,"),
    "Call.callee": (_CALL_PARTS, _CALL_PARTS.replace("callee,", '("lit", None),')),
    "Call.args": (_CALL_PARTS, _CALL_PARTS.replace("args,", "(),")),
    "Call.args (starred)": ("args = tuple((isinstance(argument, ast.Starred), self._expr",
                            "args = tuple((False, self._expr"),
    "Call.keywords": (_CALL_PARTS, _CALL_PARTS.replace("keywords))", "()))")),
    "Function.params": (_FUNCTION, _FUNCTION.replace("tuple(params)", "()")),
    "Function.params (kind)": (_FUNCTION, _FUNCTION.replace("tuple(params)", "tuple((n, POSITIONAL, d) for n, _, d in params)")),
    "Function.params (default)": (_FUNCTION, _FUNCTION.replace("tuple(params)", "tuple((n, k, None) for n, k, _ in params)")),
    "Function.owner": (_FUNCTION, _FUNCTION.replace("owner)", "None)")),
    "Class.bases": ("self.classes[qualified] = Class(bases,", "self.classes[qualified] = Class((),"),
    "Class.attributes": ("self.classes[qualified] = Class(bases, tuple(attributes),",
                         "self.classes[qualified] = Class(bases, (),"),
    "Class.fields": ("tuple(fields) if is_dataclass else None)", "None)"),
}


def main(tests: list[str]) -> int:
    missed = []
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / "repo"
        for field, (producer, blanked) in BLANKS.items():
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(ROOT, copy, symlinks=True, ignore=shutil.ignore_patterns(
                ".venv*", "mutants", ".git", "__pycache__", ".corpus"))
            text = (copy / SUMMARY).read_text()
            assert text.count(producer) == 1, f"{field}: the producer's text is not in {SUMMARY} once"
            (copy / SUMMARY).write_text(text.replace(producer, blanked))
            # (run in the copy: its `codemods` comes first on sys.path)
            result = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-n", "0", "-p", "no:cacheprovider",
                                     *tests], cwd=copy, capture_output=True, text=True)
            failed = next((line for line in result.stdout.splitlines() if line.startswith("FAILED")), None)
            print(f"{field:28} {failed or 'NO TEST FAILS'}", flush=True)
            if result.returncode == 0:
                missed.append(field)
    print(f"{len(BLANKS) - len(missed)} of {len(BLANKS)} fields fail a test when blanked"
          + (f"; none fails for {', '.join(missed)}" if missed else ""))
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:] or TESTS))
