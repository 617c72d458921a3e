#!/usr/bin/env python
"""The main process's own peak memory and CPU in one run of the tool, its workers' CPU beside them.

    cd TREE && python bench/main_peak.py --no-cache --jobs 2 kernel-packages site-packages > /dev/null

The arguments are the CLI's. bench/run.py records the largest process's peak (wait4's, which a
worker or the process forked for the link may be); this runs the CLI in this process, so that
`getrusage(RUSAGE_SELF)` is the main process's alone (docs/speed.md, the main process's peak).
The line goes to stderr; the CLI's output and exit status are left as they are.
"""

import resource
import sys

from codemods.cli import app


def main() -> int:
    try:
        app(sys.argv[1:])
        status = 0
    except SystemExit as stop:
        status = stop.code if isinstance(stop.code, int) else 1
    own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    sys.stderr.write(f"main process: peak {own.ru_maxrss / 1024:.0f} MiB, CPU {own.ru_utime + own.ru_stime:.2f} s; "
                     f"workers: CPU {workers.ru_utime + workers.ru_stime:.2f} s\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
