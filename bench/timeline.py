#!/usr/bin/env python
"""When each process of a `--jobs J` run is busy, and with what: the CLI run in this process, the
index's phases, the pool's maps and each worker's tasks logged with their wall interval and thread
CPU (the wrappers are inherited by the forked workers and the link's process), and every process's
CPU sampled from /proc each 0.1 s. Where a core idles (a barrier, the serial link) and what the
parallel run does that one process does not show here, not in a profile of the main process.

    cd TREE && python bench/timeline.py [--log FILE] --output-format json --no-cache --jobs 2 kernel-packages site-packages > /dev/null

The report goes to stderr: each process's CPU, the phases of the main process and of the link's
process (start, end, CPU), each worker's tasks by function (count, busy seconds, CPU, first start,
last end), and a strip of each process's CPU use per second.
"""

from __future__ import annotations

import collections
import functools
import os
import sys
import threading
import time

import psutil

from codemods.analysis.project import ProjectIndex, workers
from codemods.cli import app
from codemods.engine import runner

LOG = "/tmp/timeline.log"
_T0 = time.perf_counter()

# (owner, attribute): the functions whose every call is logged, wherever it runs.
TRACED = [
    (runner, "_new_index"), (runner, "project_index"), (runner, "_prepare"), (runner, "_results"),
    (ProjectIndex, "summarise"), (ProjectIndex, "_kernel_land"), (ProjectIndex, "linked"),
    (ProjectIndex, "_learn_sayers"), (ProjectIndex, "restore"), (ProjectIndex, "link_flow_elsewhere"),
    (ProjectIndex, "learn_facts_in_workers"), (ProjectIndex, "learn_facts"), (ProjectIndex, "facts_before_the_link"),
    (ProjectIndex, "_settle_link"), (ProjectIndex, "linked_here"), (ProjectIndex, "link_flow"),
    (ProjectIndex, "_complete"), (ProjectIndex, "_flow_key_of"), (ProjectIndex, "joined"),
    (runner._Pool, "map"), (runner._Pool, "each"), (runner._Pool, "map_owned"), (runner._Pool, "fork"),
    (workers, "_summary"), (workers, "_needy_summary"), (workers, "_linked_summary"), (workers, "_names_said"),
    (workers, "_facts_summary"), (workers, "take_joined"), (workers, "_prefilter_summary"),
    (runner, "_process_in_worker"),
]
# Functions a worker calls once per item: logged, but not as a phase of their own.
TASKS = {"_summary", "_needy_summary", "_linked_summary", "_names_said", "_facts_summary", "take_joined",
         "_prefilter_summary", "_process_in_worker"}
_depth = threading.local()


def _traced(owner, name):
    real = getattr(owner, name)
    label = name if isinstance(owner, type(os)) else f"{owner.__name__}.{name}"

    @functools.wraps(real)
    def traced(*args, **kwargs):
        depth = getattr(_depth, "value", 0)
        _depth.value = depth + 1
        started, cpu = time.perf_counter(), time.thread_time()
        try:
            return real(*args, **kwargs)
        finally:
            _depth.value = depth
            ended = time.perf_counter()
            if ended - started >= 0.05 or name in TASKS:  # (the many calls that answer at once: not logged)
                with open(LOG, "a") as out:
                    out.write(f"{os.getpid()}\t{depth}\t{label}\t{started - _T0:.4f}\t{ended - _T0:.4f}\t"
                              f"{time.thread_time() - cpu:.4f}\n")
    return traced


def _sample(into: list, stop: threading.Event) -> None:
    me = psutil.Process()
    while not stop.is_set():
        now = time.perf_counter() - _T0
        for process in [me] + me.children(recursive=True):
            try:
                times = process.cpu_times()
            except psutil.Error:
                continue
            into.append((now, process.pid, times.user + times.system))
        stop.wait(0.1)


def main() -> int:
    global LOG
    arguments = sys.argv[1:]
    if "--log" in arguments:
        at = arguments.index("--log")
        LOG = arguments[at + 1]
        del arguments[at:at + 2]
    open(LOG, "w").close()
    for owner, name in TRACED:
        setattr(owner, name, _traced(owner, name))
    samples: list = []
    stop = threading.Event()
    sampler = threading.Thread(target=_sample, args=(samples, stop), daemon=True)
    sampler.start()
    started, cpu = time.perf_counter(), time.process_time()
    try:
        app(arguments)
    except SystemExit:
        pass
    wall = time.perf_counter() - started
    stop.set()
    sampler.join()
    children = os.times()
    report(wall, time.process_time() - cpu, children.children_user + children.children_system, samples)
    return 0


def report(wall: float, main_cpu: float, children_cpu: float, samples: list) -> None:
    out = sys.stderr
    rows = [line.rstrip("\n").split("\t") for line in open(LOG)]
    me = os.getpid()
    last: dict[int, float] = {}
    first_seen: dict[int, float] = {}
    for now, pid, cpu in samples:
        last[pid] = cpu
        first_seen.setdefault(pid, now)
    roles: dict[int, str] = {me: "main"}
    for pid, _, label, *_ in rows:
        if label in ("ProjectIndex.linked_here",):
            roles[int(pid)] = "link"
    for pid in sorted(last, key=first_seen.get):
        roles.setdefault(pid, f"worker{sum(1 for role in roles.values() if role.startswith('worker'))}")
    out.write(f"wall {wall:.2f} s; CPU main {main_cpu:.2f} s, children (waited) {children_cpu:.2f} s; "
              f"sampled: " + ", ".join(f"{roles[pid]} {cpu:.2f}" for pid, cpu in last.items()) + "\n")
    out.write("phases (not per-item tasks): process depth function start end wall cpu\n")
    for pid, depth, label, start, end, cpu in sorted(rows, key=lambda row: float(row[3])):
        if label.rsplit(".", 1)[-1] not in TASKS:
            out.write(f"  {roles.get(int(pid), pid):8s} {depth} {'  ' * int(depth)}{label:40s} {float(start):7.2f} "
                      f"{float(end):7.2f} {float(end) - float(start):7.2f} {float(cpu):7.2f}\n")
    tasks: dict = collections.defaultdict(lambda: [0, 0.0, 0.0, 1e9, 0.0])
    for pid, depth, label, start, end, cpu in rows:
        if label.rsplit(".", 1)[-1] in TASKS:
            entry = tasks[(roles.get(int(pid), pid), label)]
            entry[0] += 1
            entry[1] += float(end) - float(start)
            entry[2] += float(cpu)
            entry[3] = min(entry[3], float(start))
            entry[4] = max(entry[4], float(end))
    out.write("tasks: process function count busy cpu first last\n")
    for (role, label), (count, busy, cpu, first, last_end) in sorted(tasks.items(), key=lambda item: item[1][3]):
        out.write(f"  {role:8s} {label:28s} {count:6d} {busy:7.2f} {cpu:7.2f} {first:7.2f} {last_end:7.2f}\n")
    # CPU per second of each process: 0-9 tenths of a core ('#' a whole one).
    series: dict = collections.defaultdict(dict)
    for now, pid, cpu in samples:
        series[pid][int(now)] = cpu
    out.write("CPU each second (tenths of a core; # = 1 core):\n")
    for pid in sorted(series, key=first_seen.get):
        seconds = series[pid]
        strip, before = [], None
        for second in range(int(wall) + 1):
            now = seconds.get(second)
            if now is None or before is None:
                strip.append(" ")
            else:
                used = min(10, round((now - before) * 10))
                strip.append("#" if used >= 10 else str(used))
            before = now if now is not None else before
        out.write(f"  {roles[pid]:8s} {''.join(strip)}\n")


if __name__ == "__main__":
    sys.exit(main())
