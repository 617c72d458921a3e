#!/usr/bin/env python
"""Ray and Dask side by side on this tool's own map work (issue 52; the results: docs/executors.md).

    python bench/executors.py --dask-python V1/bin/python --ray-python V2/bin/python [--rounds 3] [TREE]

TREE: the kernel packages by default (bench/.corpus/kernel-packages, which `python bench/run.py`
unpacks on first use).

Each engine runs in its own virtualenv (both with jax-codemod installed, `pip install -e .`), in a
subprocess per round, the engines alternating round by round; every ratio is taken inside one
subprocess, against the local process pool timed there just before (the machine is shared: times
move, ratios within one run hold). Measured in each subprocess:
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
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

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
    from codemods.analysis.summary import summarise

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tree", nargs="?", type=Path, default=DEFAULT_TREE)
    parser.add_argument("--dask-python", required=False)
    parser.add_argument("--ray-python", required=False)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--one", choices=("dask", "ray"), help=argparse.SUPPRESS)  # a subprocess's round
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.tree)))
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
