"""A Dask worker preload (`dask worker --preload bench/worker_profile.py`; `bench/executors.py
--profile-workers` starts its workers so): the CPU time of the thread that runs each of the tool's
chunks (`executors._each`), by the chunk's function, so that the rest of the worker process's CPU
is Dask's own (its event loop, messages, (un)pickling, heartbeats, system monitor and profiler)."""

from __future__ import annotations

import resource
import time
from collections import Counter

from codemods.engine import executors

_EACH = executors._each
_CPU_S: Counter = Counter()  # the chunks' function -> their thread's CPU seconds
_CHUNKS: Counter = Counter()


def _timed(function, items, context=None):
    started = time.thread_time()
    try:
        return _EACH(function, items, context)
    finally:
        _CPU_S[function.__name__] += time.thread_time() - started
        _CHUNKS[function.__name__] += 1


def dask_setup(worker) -> None:
    executors._each = _timed  # what the driver's chunks name (cloudpickle sends `_each` by reference)


def taken() -> dict:
    """What this worker's chunks took since the last call, and its process's CPU so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    answer = {"chunks_cpu_s": dict(_CPU_S), "chunks": dict(_CHUNKS), "process_cpu_s": usage.ru_utime + usage.ru_stime}
    _CPU_S.clear()
    _CHUNKS.clear()
    return answer
