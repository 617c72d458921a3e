#!/usr/bin/env python
"""The executors of issue 52, measured (the results: docs/executors.md).

    python bench/executors.py --side-by-side TREES [--rounds 3]      # the tool: local vs Dask, 1 and 2 workers
    python bench/executors.py --scale PACKAGE [--copies 1,2,4,8]     # cost per file over N copies of a package
    python bench/executors.py --profile-driver TREES                 # where the driver's CPU goes (Dask, 2 workers)
    python bench/executors.py --profile-workers TREES [--workers 2]  # where the workers' CPU goes, and the timeline
    python bench/executors.py --dask-python V1/bin/python --ray-python V2/bin/python [--rounds 3] [TREE]

--side-by-side and --scale run this Python's jax-codemod (`pip install -e '.[dask]'`) as a user does
(`python -m codemods --no-cache`, a process a run, cold), against Dask clusters started here with Dask's
own commands (`dask scheduler`, `dask worker --nworkers N --nthreads 1`), every configuration in
each round, in an order that turns round by round (the machine may be shared: compare inside a
round). Each run: its wall time, the CPU time of the driver (with the local pool's workers, which
it waits for) and of the Dask workers (their own rusage, asked before and after), and a hash of
its output (diff and findings), which must be the same for every configuration.
  --side-by-side TREES   `jax-codemod .` in TREES (kernel packages + site-packages, a pyproject.toml
                         at their root): the local executor with --jobs 1 and 2, Dask with 1 and 2 workers
  --profile-driver TREES `jax-codemod .` in TREES on Dask with 2 workers, the driver under cProfile:
                         where its CPU goes (the functions with the most time of their own)
  --profile-workers TREES  `jax-codemod .` in TREES on Dask with --workers N (1 by default), each
                         worker timing the tool's chunks by function (bench/worker_profile.py,
                         preloaded; the rest of its CPU is Dask's own), and the timeline of the
                         run from Dask's task stream: each function's first start, last end, busy time
  --scale PACKAGE        a tree of N copies of the package folder PACKAGE (each renamed, its name
                         rewritten in its code, so that the copies are N packages of one project),
                         local --jobs 2 and Dask with 2 workers: wall and CPU time per file, for each N

Without them: Ray and Dask side by side on this tool's own map work (the choice of engine). TREE:
the kernel packages by default (bench/.corpus/kernel-packages, which `python bench/run.py`
unpacks on first use). Each engine runs in its own virtualenv (both with jax-codemod installed,
`pip install -e .`), in a subprocess per round, the engines alternating round by round; every
ratio is taken inside one subprocess, against the local process pool timed there just before
(the machine is shared: times move, ratios within one run hold). Measured in each subprocess:
  start-up      a local cluster of 2 worker processes, until both answer; and its shutdown
  no-op tasks   2,000 tasks that return their argument: one task each, and in chunks
  rules         each file's rules over TREE (runner._process_candidate, the items the runner builds:
                path, bytes, rules, settings, facts), 16 chunks (8 per worker), vs a local pool of 2;
                each the best of 2 tries, local and engine in turns
  summaries     each module's whole-program summary (analysis/summary.py), the same way
  large input   a 16 MB bytes argument to one task: inside the task, and put in the engine's store
  identity      the results (FileResult, ModuleSummary) equal those computed serially, item by item
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TREE = ROOT / "bench" / ".corpus" / "kernel-packages"
CHUNKS_PER_WORKER = 8
REPEATS = 2
WORKERS = 2


def _each(function, items):
    return [function(item) for item in items]


def _identity(item):
    return item


def _size(blob):
    return len(blob)


def _summary(item):
    from codemods.analysis.flow.summary import summarise

    text, name = item
    return summarise(text, name)


def _chunks(items: list) -> list[list]:
    size = max(1, -(-len(items) // (WORKERS * CHUNKS_PER_WORKER)))
    return [items[start:start + size] for start in range(0, len(items), size)]


def _work(tree: Path) -> tuple[list, list]:
    """The rules' items (as runner.run hands them to its workers) and the summaries' items of TREE."""
    from codemods.engine import runner
    from codemods.engine.prefilter import rules_for
    from codemods.registry import RULES
    from codemods.settings import Settings

    settings = Settings((0, 12, 0, 1), unsafe_fixes=True)
    files = sorted(tree.rglob("*.py"))  # not `discover`: it skips bench/.corpus/, a hidden folder
    index = runner.project_index(files, RULES, settings)
    rules_items, summary_items = [], []
    for path in files:
        raw = Path(path).read_bytes()
        facts = index.facts(path)
        rules = rules_for(raw, RULES, settings, facts.holds_kernels)
        if rules:
            rules_items.append((path, raw, rules, settings, facts))
        text = raw.decode("utf-8", "replace")
        summary_items.append((text, os.path.relpath(path, tree).removesuffix(".py").replace(os.sep, ".")))
    return rules_items, summary_items


def _timed(function):
    start = time.perf_counter()
    value = function()
    return time.perf_counter() - start, value


class _Dask:
    name = "dask"

    def start(self) -> None:
        from distributed import Client, LocalCluster

        self.cluster = LocalCluster(n_workers=WORKERS, threads_per_worker=1, processes=True, dashboard_address=None)
        self.client = Client(self.cluster)
        self.client.wait_for_workers(WORKERS)
        self.client.run(os.getpid)  # both answer

    def map(self, function, items: list, chunked: bool = True) -> list:
        if not chunked:
            return self.client.gather(self.client.map(function, items, pure=False))
        futures = [self.client.submit(_each, function, chunk, pure=False) for chunk in _chunks(items)]
        return [result for chunk in self.client.gather(futures) for result in chunk]

    def large(self, blob: bytes) -> tuple[float, float]:
        inline = _timed(lambda: self.client.submit(_size, blob, pure=False).result())[0]
        stored = _timed(lambda: self.client.submit(_size, self.client.scatter(blob), pure=False).result())[0]
        return inline, stored

    def stop(self) -> None:
        self.client.close()
        self.cluster.close()


class _Ray:
    name = "ray"

    def start(self) -> None:
        import ray

        ray.init(num_cpus=WORKERS, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
        self.ray = ray
        self.remote_each = ray.remote(_each)
        self.remote_one = ray.remote(lambda function, item: function(item))
        self.remote_size = ray.remote(_size)
        ray.get([self.remote_size.remote(b"") for _ in range(WORKERS)])  # both workers up

    def map(self, function, items: list, chunked: bool = True) -> list:
        if not chunked:
            return self.ray.get([self.remote_one.remote(function, item) for item in items])
        return [result for chunk in self.ray.get([self.remote_each.remote(function, chunk) for chunk in _chunks(items)])
                for result in chunk]

    def large(self, blob: bytes) -> tuple[float, float]:
        inline = _timed(lambda: self.ray.get(self.remote_size.remote(blob)))[0]
        stored = _timed(lambda: self.ray.get(self.remote_size.remote(self.ray.put(blob))))[0]
        return inline, stored

    def stop(self) -> None:
        self.ray.shutdown()


def _local_map(function, items: list) -> list:
    """The local baseline: a fork pool of 2, the same chunks (as the runner's pool)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(WORKERS, mp_context=multiprocessing.get_context("fork")) as pool:
        return [result for chunk in pool.map(_each, [function] * len(_chunks(items)), _chunks(items))
                for result in chunk]


def measure(engine_name: str, tree: Path) -> dict:
    """One round of one engine (in its own virtualenv)."""
    rules_items, summary_items = _work(tree)
    from codemods.engine.runner import _process_candidate

    engine = {"dask": _Dask, "ray": _Ray}[engine_name]()
    out: dict = {"engine": engine_name, "files": len(summary_items), "rule_files": len(rules_items)}
    out["start_s"] = _timed(engine.start)[0]
    try:
        noop = list(range(2000))
        out["noop_one_task_each_ms"] = 1000 * _timed(lambda: engine.map(_identity, noop, chunked=False))[0] / len(noop)
        out["noop_chunked_ms"] = 1000 * _timed(lambda: engine.map(_identity, noop))[0] / len(noop)
        serial_rules = [_process_candidate(item) for item in rules_items]
        serial_summaries = [_summary(item) for item in summary_items]
        for stage, function, items, serial in (("rules", _process_candidate, rules_items, serial_rules),
                                               ("summaries", _summary, summary_items, serial_summaries)):
            local_s = engine_s = one_each_s = float("inf")
            for _ in range(REPEATS):  # each the best of REPEATS, taken in turns: a load spike hits one try
                took, local = _timed(lambda: _local_map(function, items))
                local_s = min(local_s, took)
                took, remote = _timed(lambda: engine.map(function, items))
                engine_s = min(engine_s, took)
                one_each_s = min(one_each_s, _timed(lambda: engine.map(function, items, chunked=False))[0])
            out[stage] = {"local_2_s": local_s, "engine_2_s": engine_s, "engine_one_task_each_s": one_each_s,
                          "ratio": engine_s / local_s, "identical": remote == serial and local == serial}
        blob = os.urandom(16 << 20)
        out["large_16mb_inline_s"], out["large_16mb_store_s"] = engine.large(blob)
    finally:
        out["stop_s"] = _timed(engine.stop)[0]
    return out


class _Cluster:
    """A Dask scheduler and `workers` worker processes of one thread, started by Dask's commands (as
    on a real cluster, and in tests/test_executors.py), and a client to ask the workers their CPU time."""

    def __init__(self, workers: int, folder: Path, preload: Optional[Path] = None) -> None:
        from distributed import Client

        address = folder / f"scheduler-{workers}{'-' + preload.stem if preload else ''}.json"
        logs = Path(os.environ.get("EXECUTORS_LOGS", folder))  # (Dask's own output: where a cluster fails to start)
        self.processes = [subprocess.Popen([sys.executable, "-m", f"distributed.cli.dask_{command}", *args],
                                           stdout=subprocess.DEVNULL,
                                           stderr=(logs / f"dask-{command}-{workers}.log").open("wb"))
                          # (on 127.0.0.1: in the TPU host's sandbox the scheduler's HTTP server, bound to the
                          # host's address, got no socket: "TCP Server ... not started yet?")
                          for command, args in (("scheduler", ["--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                                               "--scheduler-file", str(address)]),
                                                ("worker", ["--host", "127.0.0.1", "--nworkers", str(workers), "--nthreads", "1",
                                                            "--no-dashboard", "--scheduler-file", str(address),
                                                            *(["--preload", str(preload)] if preload else [])]))]
        self.client = Client(scheduler_file=str(address), timeout=120, set_as_default=False)
        self.client.wait_for_workers(workers, timeout=120)
        self.client.run(_import_the_tool)  # as a cluster's long-lived workers have, after their first run
        self.spec = "dask://" + json.loads(address.read_text())["address"].removeprefix("tcp://")

    def cpu_s(self) -> float:
        """The CPU time the workers have used so far."""
        return sum(self.client.run(_cpu_s).values())

    def stop(self) -> None:
        self.client.close()
        for process in reversed(self.processes):
            process.terminate()
            process.wait(timeout=60)


def _import_the_tool() -> None:
    import codemods.engine.runner  # noqa: F401
    import codemods.registry  # noqa: F401


def _cpu_s() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _run_tool(cwd: Path, jobs: int, cluster: "Optional[_Cluster]", profile: Optional[Path] = None) -> dict:
    """One cold run of the tool in `cwd` (`.`): wall and CPU seconds, and a hash of its output
    (`profile`: the driver's cProfile written there)."""
    arguments = ["--no-cache", "--jobs", str(jobs), "--executor", cluster.spec if cluster is not None else "local", "."]
    # (under cProfile the app is run, not `main`, which ends with os._exit: the profile is written)
    command = [sys.executable, "-m", "codemods", *arguments] if profile is None else \
        [sys.executable, "-c", f"import cProfile, sys; from codemods import cli; sys.argv[1:] = {arguments!r}; "
                               f"cProfile.run('cli.app()', {str(profile)!r})"]
    workers_before = cluster.cpu_s() if cluster is not None else 0.0
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        process = subprocess.Popen(command, cwd=cwd, stdout=out, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        out.seek(0), err.seek(0)
        output, errors = out.read(), err.read()
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        sys.exit(f"{' '.join(command)} failed in {cwd}:\n{errors.decode(errors='replace')[-2000:]}")
    driver = usage.ru_utime + usage.ru_stime
    workers = cluster.cpu_s() - workers_before if cluster is not None else 0.0
    return {"wall_s": wall, "driver_cpu_s": driver, "workers_cpu_s": workers, "cpu_s": driver + workers,
            "output": hashlib.sha256(output + b"\0" + errors).hexdigest()[:16]}


def _rounds(configurations: dict, rounds: int, cwd: Path) -> dict[str, list[dict]]:
    """Each configuration (name -> (jobs, cluster)) run once a round, the order turned each round."""
    runs: dict[str, list[dict]] = {name: [] for name in configurations}
    names = list(configurations)
    for number in range(rounds):
        for name in names[number % len(names):] + names[:number % len(names)]:
            runs[name].append(_run_tool(cwd, *configurations[name]))
            print(json.dumps({"round": number + 1, "run": name, "in": str(cwd), **runs[name][-1]}), flush=True)
    return runs


def _median_range(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def side_by_side(trees: Path, rounds: int, folder: Path) -> None:
    """The issue's bench: the local executor and Dask with 1 and 2 workers, on the same tree, in one run."""
    clusters = {workers: _Cluster(workers, folder) for workers in (1, 2)}
    try:
        configurations = {"local, --jobs 1": (1, None), "local, --jobs 2": (2, None),
                          "dask, 1 worker": (1, clusters[1]), "dask, 2 workers": (2, clusters[2])}
        runs = _rounds(configurations, rounds, trees)
    finally:
        for cluster in clusters.values():
            cluster.stop()
    print(f"\n{trees}: {rounds} rounds, median (range)")
    for name, results in runs.items():
        print(f"  {name:<18} wall {_median_range([r['wall_s'] for r in results])} s, CPU "
              f"{_median_range([r['cpu_s'] for r in results])} s (driver {_median_range([r['driver_cpu_s'] for r in results])})")

    def ratio(top: str, bottom: str, key: str = "wall_s") -> str:  # inside each round
        return _median_range([a[key] / b[key] for a, b in zip(runs[top], runs[bottom])])

    print(f"  Dask 1 worker / local --jobs 1, wall: {ratio('dask, 1 worker', 'local, --jobs 1')} (issue: <= 1.3)")
    print(f"  Dask 2 workers / local --jobs 2, wall: {ratio('dask, 2 workers', 'local, --jobs 2')}")
    print(f"  Dask 1 worker / Dask 2 workers, wall: {ratio('dask, 1 worker', 'dask, 2 workers')} (issue: >= 1.6)")
    print(f"  local --jobs 1 / --jobs 2, wall: {ratio('local, --jobs 1', 'local, --jobs 2')}")
    print(f"  Dask 1 worker / local --jobs 1, CPU: {ratio('dask, 1 worker', 'local, --jobs 1', 'cpu_s')}")
    _same_output(runs, trees.name)


def _same_output(runs: dict[str, list[dict]], of: str) -> None:
    outputs = {result["output"] for results in runs.values() for result in results}
    print(f"  {of}: the output (diff and findings) the same in every run: {len(outputs) == 1}")


def profile_driver(trees: Path, folder: Path, top: int = 30) -> None:
    """Where the driver's CPU goes with Dask and 2 workers: one run under cProfile, the functions
    with the most time of their own."""
    import pstats

    cluster = _Cluster(2, folder)
    try:
        run = _run_tool(trees, 2, cluster, folder / "driver.prof")
    finally:
        cluster.stop()
    print(f"\n{trees}: Dask, 2 workers, one run under cProfile: driver CPU {run['driver_cpu_s']:.1f} s, "
          f"workers {run['workers_cpu_s']:.1f} s")
    stats = pstats.Stats(str(folder / "driver.prof"))
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)


def profile_workers(trees: Path, workers: int, folder: Path) -> None:
    """Where the Dask workers' CPU goes: one run with `workers` workers, each timing the tool's chunks
    by their function (bench/worker_profile.py, preloaded), the rest of its CPU being Dask's own; and
    the run's timeline from Dask's task stream (each function's first start, last end and busy time):
    what waits for what."""
    cluster = _Cluster(workers, folder, Path(__file__).resolve().parent / "worker_profile.py")
    try:
        before = cluster.client.run(_worker_taken)  # (what importing the tool took: not the run's)
        cluster.client.get_task_stream(start=time.time())  # (the scheduler records from now)
        start = time.time()
        run = _run_tool(trees, workers, cluster)
        stream = cluster.client.get_task_stream(start=start)
        taken = cluster.client.run(_worker_taken)
    finally:
        cluster.stop()
    print(f"\n{trees}: Dask, {workers} worker(s), one run: wall {run['wall_s']:.1f} s, CPU {run['cpu_s']:.1f} s "
          f"(driver {run['driver_cpu_s']:.1f} s, workers {run['workers_cpu_s']:.1f} s)")
    for worker, answer in sorted(taken.items()):
        chunks = sum(answer["chunks_cpu_s"].values())
        process = answer["process_cpu_s"] - before[worker]["process_cpu_s"]
        print(f"  {worker}: CPU {process:.1f} s, Dask's own {process - chunks:.1f} s, its chunks' threads "
              f"{chunks:.1f} s (" + ", ".join(
            f"{name} {seconds:.1f} s in {answer['chunks'][name]}" for name, seconds in
            sorted(answer["chunks_cpu_s"].items(), key=lambda item: -item[1])) + ")")
    spans: dict[str, list] = {}
    busy: dict[str, float] = {}
    for task in stream:
        for part in (part for part in task["startstops"] if part["action"] == "compute"):
            span = spans.setdefault(task["key"].rsplit("-", 1)[0], [part["start"], part["stop"], 0.0, 0])
            span[0], span[1] = min(span[0], part["start"]), max(span[1], part["stop"])
            span[2], span[3] = span[2] + part["stop"] - part["start"], span[3] + 1
            busy[task["worker"]] = busy.get(task["worker"], 0.0) + part["stop"] - part["start"]
    print("  timeline (seconds from the run's start; busy: the chunks' wall time, summed):")
    for name, (first, last, seconds, count) in sorted(spans.items(), key=lambda item: item[1][0]):
        print(f"    {name:<18} {count:>4} chunks  {first - start:6.1f} to {last - start:6.1f}, busy {seconds:6.1f}")
    for worker, seconds in sorted(busy.items()):
        print(f"    {worker}: busy {seconds:.1f} s of the run's {run['wall_s']:.1f} s")


def _worker_taken() -> dict:
    """In a worker: what its chunks took (bench/worker_profile.py), its process's CPU so far."""
    return sys.modules["worker_profile"].taken()


def _copies(package: Path, copies: int, root: Path) -> Path:
    """A project of `copies` copies of `package`, the k-th named `NAME_k`, NAME rewritten in its code."""
    name = package.name
    word = re.compile(rf"\b{re.escape(name)}\b")
    tree = root / f"copies-{copies}"
    for copy in range(1, copies + 1):
        for source in package.rglob("*.py"):
            target = tree / f"{name}_{copy}" / source.relative_to(package)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(word.sub(f"{name}_{copy}", source.read_text("utf-8", "surrogateescape")).encode(
                "utf-8", "surrogateescape"))
    (tree / "pyproject.toml").write_text("[tool.jax-codemod]\n")
    return tree


def scale_curve(package: Path, copies: list[int], rounds: int, folder: Path) -> None:
    """The simulated scale curve: cost per file over N copies of a package, local --jobs 2 and Dask with 2 workers."""
    cluster = _Cluster(2, folder)
    curve = {}
    try:
        for count in copies:
            tree = _copies(package, count, folder)
            files = sum(1 for _ in tree.rglob("*.py"))
            curve[count] = (files, _rounds({"local, --jobs 2": (2, None), "dask, 2 workers": (2, cluster)}, rounds, tree))
    finally:
        cluster.stop()
    print(f"\n{package.name}: N copies, {rounds} rounds, median (range), milliseconds per file")
    for count, (files, runs) in curve.items():
        print(f"  N = {count} ({files} files): " + "; ".join(
            f"{name} wall {_median_range([1000 * r['wall_s'] / files for r in results])}, "
            f"CPU {_median_range([1000 * r['cpu_s'] / files for r in results])}" for name, results in runs.items()))
    for count, (_, runs) in curve.items():
        _same_output(runs, f"N = {count}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tree", nargs="?", type=Path, default=DEFAULT_TREE)
    parser.add_argument("--dask-python", required=False)
    parser.add_argument("--ray-python", required=False)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--side-by-side", type=Path, metavar="TREES")
    parser.add_argument("--scale", type=Path, metavar="PACKAGE")
    parser.add_argument("--copies", default="1,2,4,8")
    parser.add_argument("--profile-driver", type=Path, metavar="TREES")
    parser.add_argument("--profile-workers", type=Path, metavar="TREES")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--one", choices=("dask", "ray"), help=argparse.SUPPRESS)  # a subprocess's round
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.tree)))
        return
    if args.side_by_side or args.scale or args.profile_driver or args.profile_workers:
        with tempfile.TemporaryDirectory(prefix="jax-codemod-executors-") as folder:
            print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average {os.getloadavg()}", flush=True)
            if args.side_by_side:
                side_by_side(args.side_by_side.resolve(), args.rounds, Path(folder))
            if args.profile_driver:
                profile_driver(args.profile_driver.resolve(), Path(folder))
            if args.profile_workers:
                profile_workers(args.profile_workers.resolve(), args.workers, Path(folder))
            if args.scale:
                scale_curve(args.scale.resolve(), [int(count) for count in args.copies.split(",")], args.rounds, Path(folder))
            print(f"load average after: {os.getloadavg()}")
        return
    pythons = {"dask": args.dask_python, "ray": args.ray_python}
    rounds: dict[str, list[dict]] = {name: [] for name, python in pythons.items() if python}
    for number in range(args.rounds):
        for name in (list(rounds) if number % 2 == 0 else list(reversed(rounds))):
            done = subprocess.run([pythons[name], __file__, "--one", name, str(args.tree)], capture_output=True,
                                  text=True, check=True)
            rounds[name].append(json.loads(done.stdout.strip().splitlines()[-1]))
            print(json.dumps(rounds[name][-1]), flush=True)

    def median(name: str, *keys: str) -> float:
        values = []
        for result in rounds[name]:
            for key in keys:
                result = result[key]
            values.append(result)
        return statistics.median(values)

    print(f"\n{'median of ' + str(args.rounds) + ' rounds':<36}" + "".join(f"{name:>12}" for name in rounds))
    for label, keys, scale in (("cluster start (s)", ("start_s",), 1), ("cluster stop (s)", ("stop_s",), 1),
                               ("no-op task, one each (ms)", ("noop_one_task_each_ms",), 1),
                               ("no-op task, chunked (ms)", ("noop_chunked_ms",), 1),
                               ("rules: local pool of 2 (s)", ("rules", "local_2_s"), 1),
                               ("rules: engine, 2 workers (s)", ("rules", "engine_2_s"), 1),
                               ("rules: engine / local", ("rules", "ratio"), 1),
                               ("rules: engine, a task a file (s)", ("rules", "engine_one_task_each_s"), 1),
                               ("summaries: local pool of 2 (s)", ("summaries", "local_2_s"), 1),
                               ("summaries: engine, 2 workers (s)", ("summaries", "engine_2_s"), 1),
                               ("summaries: engine / local", ("summaries", "ratio"), 1),
                               ("summaries: a task a module (s)", ("summaries", "engine_one_task_each_s"), 1),
                               ("16 MB argument, in the task (s)", ("large_16mb_inline_s",), 1),
                               ("16 MB argument, in the store (s)", ("large_16mb_store_s",), 1)):
        print(f"{label:<36}" + "".join(f"{median(name, *keys) * scale:>12.3f}" for name in rounds))
    for name in rounds:
        same = all(result[stage]["identical"] for result in rounds[name] for stage in ("rules", "summaries"))
        print(f"{name}: results identical to the serial ones in every round: {same}")


if __name__ == "__main__":
    main()
