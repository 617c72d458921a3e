"""The mutation score of `make mutants`, per module and overall, from mutmut's files in mutants/.

mutmut 3 keeps one `mutants/<source>.py.meta` (JSON) per mutated module; its `exit_code_by_key`
maps each mutant to the exit code of the test run against it (None: not run yet). A mutant is
killed when a test failed (a timeout counts as killed, as mutmut counts it; so does a crash of
the test process). "No tests" (no test calls the function) counts as a survivor. The score is
killed / (total - not checked - skipped); a module with unchecked mutants is marked partial.

    python bench/mutation_score.py                  # the table
    python bench/mutation_score.py --survivors      # and the surviving mutants, by function
    python bench/mutation_score.py --diffs DIR      # DIR/<module>.txt: each survivor's diff (mutmut show)
    python bench/mutation_score.py --fail-under 90  # exit 1 below 90% overall (default: always 0)
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

# mutmut.stats.status_by_exit_code of mutmut 3.8 (pyproject.toml pins it); any other code is "suspicious".
STATUS_BY_EXIT_CODE: dict[int | None, str] = {
    1: "killed", 3: "killed", 0: "survived", 5: "no tests", 2: "check was interrupted by user",
    None: "not checked", 33: "no tests", 34: "skipped", 35: "suspicious", 36: "timeout",
    37: "caught by type check", -24: "timeout", 24: "timeout", 152: "timeout", 255: "timeout",
    -11: "segfault", -9: "segfault",
}
KILLED = {"killed", "timeout", "segfault", "caught by type check"}
SURVIVED = {"survived", "no tests"}
COLUMNS = ("killed", "timeout", "survived", "no tests", "other", "unchecked", "total", "score")


def status(exit_code: int | None) -> str:
    return STATUS_BY_EXIT_CODE.get(exit_code, "suspicious")


def load(mutants: Path) -> dict[str, dict[str, str]]:
    """{source path: {mutant name: status}} for every .meta file under mutants/."""
    modules: dict[str, dict[str, str]] = {}
    for meta in sorted(mutants.rglob("*.py.meta")):
        data = json.loads(meta.read_text())
        keys = data.get("exit_code_by_key", {})
        if keys:
            modules[meta.relative_to(mutants).as_posix()[: -len(".meta")]] = {
                name: status(code) for name, code in keys.items()}
    return modules


def row(statuses: Counter) -> dict[str, object]:
    total = sum(statuses.values())
    killed = sum(statuses[s] for s in KILLED)
    survived = sum(statuses[s] for s in SURVIVED)
    unchecked, skipped = statuses["not checked"], statuses["skipped"]
    checked = total - unchecked - skipped
    return {
        "killed": killed - statuses["timeout"], "timeout": statuses["timeout"],
        "survived": statuses["survived"], "no tests": statuses["no tests"],
        "other": total - killed - survived - unchecked,  # suspicious, interrupted, skipped
        "unchecked": unchecked, "total": total,
        "score": f"{100 * killed / checked:.1f}%" + (" partial" if unchecked else "") if checked else "n/a",
        "_killed": killed, "_checked": checked,
    }


def wilson(killed: int, checked: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a sampled kill rate (sound near 100%, unlike the normal one)."""
    p = killed / checked
    centre = (p + z * z / (2 * checked)) / (1 + z * z / checked)
    half = z * ((p * (1 - p) / checked + z * z / (4 * checked * checked)) ** 0.5) / (1 + z * z / checked)
    return max(0.0, centre - half), min(1.0, centre + half)


def function_of(mutant: str) -> str:
    """codemods.engine.cache.xǁResultCacheǁget__mutmut_3 -> ResultCache.get"""
    mangled = mutant.partition("__mutmut_")[0].rpartition(".")[2]
    if mangled.startswith("xǁ"):
        return mangled[2:].replace("ǁ", ".")
    return mangled.removeprefix("x_")


def write_diffs(modules: dict[str, dict[str, str]], folder: Path) -> None:
    """What `mutmut show` prints for each survivor, one file per module (run from the repository root)."""
    from mutmut.mutation.diff_apply import get_diff_for_mutant

    folder.mkdir(parents=True, exist_ok=True)
    for path, statuses in modules.items():
        survivors = [name for name, s in statuses.items() if s in SURVIVED]
        target = folder / (path.removesuffix(".py").replace("/", ".") + ".txt")
        if not survivors:
            target.unlink(missing_ok=True)
            continue
        with target.open("w", encoding="utf-8") as out:
            for name in survivors:
                out.write(f"# {name}: {statuses[name]}\n{get_diff_for_mutant(name, path=path)}\n\n")
        print(f"{target}: {len(survivors)} surviving mutants")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mutants", type=Path, default=Path("mutants"), help="mutmut's folder (default: mutants)")
    parser.add_argument("--survivors", action="store_true", help="list the surviving mutants by function")
    parser.add_argument("--diffs", type=Path, metavar="DIR",
                        help="write DIR/<module>.txt with the diff of each surviving mutant")
    parser.add_argument("--fail-under", type=float, metavar="PCT", help="exit 1 when the overall score is lower")
    args = parser.parse_args(argv)

    modules = load(args.mutants)
    if not modules:
        print(f"no mutmut results under {args.mutants}/: run `make mutants` first", file=sys.stderr)
        return 1 if args.fail_under is not None else 0

    rows = {path: row(Counter(statuses.values())) for path, statuses in modules.items()}
    overall = row(Counter(s for statuses in modules.values() for s in statuses.values()))
    width = max(len("overall"), *map(len, rows))
    header = f"{'module':<{width}}  " + "  ".join(f"{c:>9}" for c in COLUMNS)
    print(header)
    print("-" * len(header))
    for path, r in rows.items():
        print(f"{path:<{width}}  " + "  ".join(f"{r[c]!s:>9}" for c in COLUMNS))
    print("-" * len(header))
    print(f"{'overall':<{width}}  " + "  ".join(f"{overall[c]!s:>9}" for c in COLUMNS))
    if overall["unchecked"] and overall["_checked"]:  # a sample (make mutants MUTANTS_SAMPLE=N)
        low, high = wilson(overall["_killed"], overall["_checked"])
        print(f"\nsample: {overall['_killed']} of {overall['_checked']} checked mutants killed, "
              f"{100 * overall['_killed'] / overall['_checked']:.1f}% (95% interval {100 * low:.1f}%-{100 * high:.1f}%)")

    if args.survivors:
        for path, statuses in modules.items():
            by_function: dict[str, list[str]] = defaultdict(list)
            for name, s in statuses.items():
                if s in SURVIVED:
                    by_function[function_of(name)].append(f"{name} ({s})" if s != "survived" else name)
            if by_function:
                print(f"\n{path}: {sum(map(len, by_function.values()))} surviving")
                for function, names in sorted(by_function.items()):
                    print(f"  {function} ({len(names)}): " + " ".join(n.rpartition("__mutmut_")[2] for n in names))
        print("\n`mutmut show <module>.<mangled name>__mutmut_<n>` (from the repository root) prints a mutant's diff.")

    if args.diffs:
        write_diffs(modules, args.diffs)

    if args.fail_under is not None and overall["_checked"]:
        return 0 if 100 * overall["_killed"] / overall["_checked"] >= args.fail_under else 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
