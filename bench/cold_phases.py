#!/usr/bin/env python
"""Where a cold run's CPU goes, by phase, and how many times each module is parsed: the CLI run in
this process (so `--jobs 1` only: a worker's parses are not counted), `ast.parse` and the module
index counted by caller, and (with --profile) cProfile's cumulative time of each phase's entry point.

    cd TREE && python bench/cold_phases.py [--profile] [--trees-kept N] --no-cache --jobs 1 kernel-packages site-packages > /dev/null

The arguments after the script's own are the CLI's. The table goes to stderr: each phase's own
function, its calls and cumulative CPU (under cProfile, so about twice the plain run's: read the
shares); then the module parses (an `ast.parse` of more than one statement's worth of code), how
many distinct modules, and how many were parsed more than once, by the callers that parsed them
again. The parse floor (`bench/parse_floor.py`) parses each file that passes the rules' byte test once.
"""

from __future__ import annotations

import ast
import collections
import cProfile
import hashlib
import os
import pstats
import resource
import sys
import time

import codemods
from codemods.analysis.project import base
from codemods.cli import app

# The phases of a run at --jobs 1, each by the function that is its entry point (module path, line
# name): cProfile's cumulative time of each, which nest (the link summarises modules on demand).
PHASES = [
    ("project index: reading, words, import lines", "codemods/engine/runner.py", "_new_index"),
    ("the link (summaries on demand + fixpoint)", "codemods/analysis/project/flow.py", "link_flow"),
    ("  summaries (summary.py)", "codemods/analysis/flow/summary.py", "summarise_tree"),
    ("  the fixpoint (link.py)", "codemods/analysis/flow/link.py", "solve"),
    ("each file's facts (learn_facts)", "codemods/analysis/project/facts.py", "learn_facts"),
    ("each file's analysis (process_source)", "codemods/engine/runner.py", "process_source"),
    ("  the module index (ModuleIndex)", "codemods/analysis/module.py", "__init__"),
    ("  the rules (Transform.check)", "codemods/base.py", "check"),
    ("  each fix's own edits", "codemods/engine/runner.py", "_with_own_edits"),
    ("ast.parse (all callers)", "ast.py", "parse"),
    ("prefilter (rules_for)", "codemods/engine/prefilter.py", "rules_for"),
]

# The callers that parse a module's import lines alone (not a parse of the module).
IMPORT_LINES = {"_import_statements"}
_import_line_parses = [0]
# The functions that only pass a parse on: the count names whoever called them.
PASSING = {"_parsed", "_tree", "_index", "parse", "_parse", "_summarised", "_flow_summary"}
_parses: "collections.Counter[bytes]" = collections.Counter()
_again_by: "collections.Counter[str]" = collections.Counter()
_first_by: "collections.Counter[str]" = collections.Counter()
_real_parse = ast.parse


def _counting_parse(source, *args, **kwargs):
    """ast.parse, counting each module's parses by the digest of its code and the caller."""
    if len(source) > 200 and not args[1:2] == ("eval",) and kwargs.get("mode", "exec") == "exec":
        code = source.encode("utf-8", "surrogatepass") if isinstance(source, str) else bytes(source)
        digest = hashlib.blake2b(code, digest_size=16).digest()
        caller = sys._getframe(1)
        if caller.f_code.co_name in IMPORT_LINES:  # a module's import statements, not the module
            _import_line_parses[0] += 1
            return _real_parse(source, *args, **kwargs)
        while caller.f_back is not None and caller.f_code.co_name in PASSING:  # who asked for the parse
            caller = caller.f_back
        where = f"{os.path.relpath(caller.f_code.co_filename, _ROOT)}:{caller.f_code.co_name}"
        (_again_by if _parses[digest] else _first_by)[where] += 1
        _parses[digest] += 1
    return _real_parse(source, *args, **kwargs)


PROFILE_OUT = os.path.join(os.environ.get("TMPDIR", "/tmp"), "cold_phases.prof")
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(codemods.__file__)))  # the revision measured (PYTHONPATH)


def main() -> int:
    arguments = sys.argv[1:]
    profiling = "--profile" in arguments
    arguments = [argument for argument in arguments if argument != "--profile"]
    if "--trees-kept" in arguments:  # what the main process keeps of the trees it parsed (base.TREES_KEPT), to weigh
        at = arguments.index("--trees-kept")
        base.TREES_KEPT = int(arguments[at + 1])
        del arguments[at:at + 2]
    ast.parse = _counting_parse
    # CPU time, not wall: on a loaded machine the wall clock counts the other processes' turns.
    profile = cProfile.Profile(time.process_time) if profiling else None
    start, started = time.process_time(), time.perf_counter()
    status = 0
    try:
        if profile is not None:
            profile.enable()
        app(arguments)
    except SystemExit as stop:
        status = stop.code if isinstance(stop.code, int) else 1
    finally:
        if profile is not None:
            profile.disable()
    cpu, wall = time.process_time() - start, time.perf_counter() - started
    out = sys.stderr
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out.write(f"CPU {cpu:.2f} s, wall {wall:.2f} s{' (under cProfile)' if profiling else ''}, "
              f"the main process's peak {peak:.0f} MiB\n")
    if profile is not None:
        profile.dump_stats(PROFILE_OUT)
        out.write(f"(the profile: {PROFILE_OUT}, for pstats)\n")
        stats = pstats.Stats(profile).stats  # {(file, line, name): (cc, nc, tt, ct, callers)}
        for label, path, name in PHASES:
            calls = cumulative = 0.0
            for (file, _, function), (_, count, _, total, _) in stats.items():
                if function == name and file.endswith(path):
                    calls += count
                    cumulative += total
            out.write(f"{label:48s} {int(calls):8d} calls {cumulative:8.2f} s\n")
    twice = sum(1 for count in _parses.values() if count > 1)
    out.write(f"module parses: {sum(_parses.values())} of {len(_parses)} distinct modules; "
              f"{twice} parsed more than once ({sum(_parses.values()) - len(_parses)} parses again)\n")
    out.write(f"  and {_import_line_parses[0]} parses of a module's import lines alone\n")
    for label, counter in (("first parse by", _first_by), ("parsed again by", _again_by)):
        for where, count in counter.most_common(8):
            out.write(f"  {label} {where}: {count}\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
