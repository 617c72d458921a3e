"""A random sample of the mutants `make mutants` generated, for `make mutants MUTANTS_SAMPLE=N`.

mutmut checks about 0.13 mutants a second with two workers on a 2-core machine (the tests of each
mutant's function, in a forked process): the 12,573 mutants of 2026-12-02 are about 27 hours. A
uniform random sample of a few hundred gives the score within a few points (bench/mutation_score.py
prints the 95% interval), and its survivors are the tests to write first. The seed makes the sample reproducible: the same
mutants are drawn again after the tests that should kill them are written.

    python bench/mutation_sample.py --generate     # write mutants/ (as `mutmut run` does first)
    python bench/mutation_sample.py 300            # names of 300 mutants, one per line
    python bench/mutation_sample.py 300 --seed 7   # another sample
    python bench/mutation_sample.py 60 --only 'codemods.engine.patches.*'   # from one module
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import random
from pathlib import Path


def mutant_names(mutants: Path) -> list[str]:
    """Every mutant mutmut generated under `mutants/`, in a stable order."""
    names: list[str] = []
    for meta in sorted(mutants.rglob("*.py.meta")):
        names += sorted(json.loads(meta.read_text()).get("exit_code_by_key", {}))
    return names


def generate() -> None:
    """Write mutants/ as `mutmut run` does before it runs anything (mutmut 3.8's own steps: the
    version is pinned), so that the sample is drawn from every mutant."""
    from mutmut import __main__ as mutmut

    mutmut.set_mutant_under_test("mutant_generation")
    Path("mutants").mkdir(exist_ok=True)
    mutmut.copy_src_dir()
    mutmut.copy_also_copy_files()
    mutmut.setup_source_paths()
    mutmut.store_lines_covered_by_tests()
    mutmut.create_mutants(os.cpu_count() or 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("size", type=int, nargs="?", help="how many mutants to draw")
    parser.add_argument("--generate", action="store_true", help="only generate the mutants (mutants/)")
    parser.add_argument("--seed", type=int, default=18, help="the random seed (default: 18)")
    parser.add_argument("--mutants", type=Path, default=Path("mutants"), help="mutmut's folder (default: mutants)")
    parser.add_argument("--only", metavar="GLOB", action="append", default=[],
                        help="draw from the mutants whose name matches GLOB (mutmut's: 'codemods.engine.patches.*')")
    args = parser.parse_args(argv)
    if args.generate:
        generate()
        return 0
    if args.size is None:
        parser.error("give the sample's size")
    names = [name for name in mutant_names(args.mutants)
             if not args.only or any(fnmatch.fnmatch(name, glob) for glob in args.only)]
    if not names:
        parser.error(f"no mutants under {args.mutants}/: mutmut generates them first")
    for name in sorted(random.Random(args.seed).sample(names, min(args.size, len(names)))):
        print(name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
