"""Where the map stages run (`--executor`): the run's local worker processes, or a Dask cluster.

The runner hands its map work (the project summary's tasks, each file's rules) to one `Executor`.
`local`, the default, is the runner's own forked pool (`runner._Pool`): its workers inherit the
project index being built, so the summary runs there too. `dask://HOST:PORT` sends the project
index's map stage (each worker builds an index of its own over the same files, from a `Context`
sent to it once), the link (one task) and each file's rules to the workers of a running Dask
scheduler (the `dask` extra); they read the files from the paths they share with the driver and
check that their bytes are those the driver read. The search across modules and the writes happen
on the driver, as in a local run. docs/executors.md says why Dask and not Ray, with the measurements.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import threading
from collections import Counter
from typing import Callable, Iterable, Iterator, Optional, Protocol

LOCAL = "local"
DASK = "dask://"
# The schemes of the engines measured and not chosen (docs/executors.md): refused with the reason.
_NOT_CHOSEN = {"ray://": "Ray was measured and not chosen (docs/executors.md): run a Dask scheduler "
                         "(`dask scheduler`) and pass --executor dask://HOST:PORT"}
# How long the driver waits for the scheduler, and then for its first worker: an address nobody
# answers at is an error within this, not a hang.
CONNECT_TIMEOUT_S = 10
# Tasks per worker a map is cut into, as the local pool's `map`: a Dask task costs the driver and the
# scheduler 4-8 ms on a loaded 2-core machine, an item of a chunk 0.2 ms, a file's rules some 40 ms;
# 8 chunks a worker left one worker on a run of large files at the end (docs/executors.md).
TASKS_PER_WORKER = 32


class ExecutorError(Exception):
    """The executor cannot run the map (its extra missing, its scheduler unreachable, the cluster lost
    the work): the run stops before anything is written."""


class NotShared(Exception):
    """Raised in a worker that cannot read a file at the path the driver read it from: the nodes do
    not share the checkout (the run stops; analysing every file on the driver would be silently slow)."""


class Changed(Exception):
    """Raised in a worker that reads other bytes at a path than the driver read (the file changed
    meanwhile): what the worker would make of them is not the driver's to keep."""


class Context(Protocol):
    """What every task of a map needs beside its item (a project's file list, say), sent to each
    worker once: `enter()` runs in the worker before each chunk."""

    key: str  # names the context: equal keys, equal contexts

    def enter(self) -> None:
        """Make the context the worker's current one."""


class Executor(Protocol):
    """What the runner asks of where its map work runs."""

    jobs: int  # workers (cores) the work is spread over
    # The run's project as the workers rebuild it, once its map stage ran there (a cluster's): the
    # facts and the rules' maps go with it to the workers that hold the modules' parses.
    project: "Optional[Context]"

    @property
    def started(self) -> bool:
        """Whether files are handed out one at a time as their facts become known (the local pool's
        `submit`, once the summary forked its workers); otherwise they go through `map`."""

    @property
    def local(self) -> bool:
        """Whether the workers are this machine's processes, handed the bytes the driver read and,
        where fork exists, forked from it: then they inherit the project index being built, which the
        summary's tasks (each naming a module of it) need."""

    def map(self, function: Callable, items: list, context: "Optional[Context]" = None,
            about: "Optional[list[Optional[str]]]" = None) -> "Iterator | list":
        """`function` of each item (picklable), in the items' order; `context`: entered first in the
        worker, and `about`: the module each item is about, kept where it was done (only where the
        workers are not `local`: forked ones inherit what the driver holds, and the local pool
        keeps its own owners)."""

    def close(self, cancel: bool = False) -> None:
        """Stop the workers (`cancel`: what is queued is not run)."""


def about_module(item: object) -> Optional[str]:
    """The module a map's item is about, where it names one: a str, or a tuple's first element
    (the module with what to work out of it)."""
    if isinstance(item, tuple) and item:
        item = item[0]
    return item if isinstance(item, str) else None


def checked(spec: str) -> str:
    """`spec` if it names an executor this tool has; ValueError naming the option otherwise."""
    if spec == LOCAL:
        return spec
    if spec.startswith(DASK) and len(spec) > len(DASK):
        return spec
    for scheme, why in _NOT_CHOSEN.items():
        if spec.startswith(scheme):
            raise ValueError(f"--executor {spec}: {why}")
    raise ValueError(f"--executor {spec}: expected `local` or `dask://HOST:PORT`")


def connect(spec: str) -> "DaskExecutor":
    """The executor `spec` names, other than `local` (the runner's own pool); ExecutorError if the
    extra is not installed or the scheduler does not answer."""
    return DaskExecutor(checked(spec)[len(DASK):])


class DaskExecutor:
    """The workers of a Dask scheduler (`distributed`'s Client). Maps are cut into chunks of
    consecutive items, `TASKS_PER_WORKER` per worker; the scheduler hands each to a free worker and
    gives a chunk whose worker died to another (the engine's retry). Results come back in order."""

    started = False  # files go through `map` (see `runner._results`)
    local = False

    def __init__(self, address: str) -> None:
        try:
            from distributed import Client
        except ImportError:
            from codemods.extras import install_command

            raise ExecutorError(f"--executor dask://{address} needs Dask's `distributed`, which is not installed: "
                                f"{install_command('dask')}") from None
        self.address = address
        try:
            self._client = Client(f"tcp://{address}", timeout=CONNECT_TIMEOUT_S, set_as_default=False)
        except (OSError, TimeoutError) as error:
            raise ExecutorError(f"--executor dask://{address}: no Dask scheduler answers there ({error})") from None
        try:
            self._client.wait_for_workers(1, timeout=CONNECT_TIMEOUT_S)
            self._refuse_other_versions()
        except (OSError, TimeoutError) as error:
            self._client.close()
            raise ExecutorError(f"--executor dask://{address}: the scheduler has no worker ({error})") from None
        except ExecutorError:
            self._client.close()
            raise
        self.jobs = max(1, sum(self._client.nthreads().values()))
        self._contexts: dict[str, object] = {}  # see `_scattered`
        self.project: Optional[Context] = None
        self._owners: dict[str, str] = {}  # a module a chunk was about -> the worker that did it (see `map`)

    def _refuse_other_versions(self) -> None:
        """A worker that runs another jax-codemod (or Python, or libcst) could give other findings:
        the run stops and names it (the cache's fingerprint of the tool, compared). A worker that
        joins later is refused by the first chunk it answers (see `map`)."""
        from codemods.engine import cache

        self._refuse(self._client.run(cache.tool_fingerprint))

    def _refuse(self, fingerprints: "dict[str, str]") -> None:
        """ExecutorError naming the workers (address -> their tool fingerprint) that run another tool."""
        from codemods.engine import cache

        other = sorted(worker for worker, fingerprint in fingerprints.items() if fingerprint != cache.tool_fingerprint())
        if other:
            raise ExecutorError(f"--executor dask://{self.address}: the workers {', '.join(other)} run another "
                                "jax-codemod, Python or libcst than this one; install the same on every node")

    def map(self, function: Callable, items: list, context: Optional[Context] = None,
            about: "Optional[list[Optional[str]]]" = None) -> Iterator:
        """Each chunk is named by what it holds and the tool that computes it (`function`'s name and a
        hash of the chunk, the context's key and the tool's fingerprint: an item names a file by its
        path and the hash of its bytes), so that the scheduler computes once what two drivers ask of
        it at once, and the name says on Dask's dashboard what a task is. Each answer carries the
        fingerprint of the tool that made it. `context` goes to every worker once (Dask's
        `scatter`, kept for the maps after) rather than with each chunk. `about`: the module each
        item is about (by default, an item that is a str names one): items about modules an earlier
        chunk did go, in chunks of their own, to the worker that did them (see `_submit`). The chunks
        are submitted now, their answers read as the results are iterated: a map handed out early
        runs while the driver waits for other work (the rules of the files the link does not read,
        while it runs: `runner._prepare`)."""
        about = about if about is not None else [about_module(item) for item in items]
        size = max(1, -(-len(items) // (self.jobs * TASKS_PER_WORKER)))
        groups: dict[Optional[str], list[int]] = {}
        for position, name in enumerate(about):
            groups.setdefault(self._owners.get(name) if name is not None else None, []).append(position)
        chunks = [(part, self._submit(function, [items[position] for position in part], context, owner))
                  for owner, positions in groups.items()
                  for part in (positions[start:start + size] for start in range(0, len(positions), size))]
        return self._in_order(chunks, len(items), about)

    def _in_order(self, chunks: "list[tuple[list[int], object]]", count: int,
                  about: "list[Optional[str]]") -> Iterator:
        """The results of a map's submitted `chunks` (positions, task), in the items' order."""
        where = {position: (number, offset) for number, (part, _) in enumerate(chunks)
                 for offset, position in enumerate(part)}
        answers: dict[int, list] = {}
        try:
            for position in range(count):
                number, offset = where[position]
                if number not in answers:
                    part, chunk = chunks[number]
                    answers[number] = self._answers(chunk, [about[position] for position in part])
                yield answers[number][offset]
        finally:  # the chunks the driver stopped before reading; none once the client closed (a map
            # dropped at the run's end: the scheduler forgot the client's chunks)
            unread = [chunk for number, (_, chunk) in enumerate(chunks) if number not in answers]
            if unread and self._client.status == "running":
                self._client.cancel(unread)

    def map_owned(self, function: Callable[[list[str]], list], names: list[str], context: Optional[Context] = None,
                  size: int = 64) -> list:
        """`function(chunk)` of chunks of at most `size` of the modules `names`, each chunk in the
        worker that did its modules in an earlier map (as the local pool's `map_owned`); the
        results, one for each name, in the order of `names`."""
        groups: dict[Optional[str], list[str]] = {}
        for name in names:
            groups.setdefault(self._owners.get(name), []).append(name)
        chunks = [share[start:start + size] for share in groups.values() for start in range(0, len(share), size)]
        found = {name: result for chunk, results in zip(chunks, self.map(function, chunks, context,
                                                                         [chunk[0] for chunk in chunks]))
                 for name, result in zip(chunk, results)}
        return [found[name] for name in names]

    def owner(self, names: "Iterable[str]") -> Optional[str]:
        """The worker that did the most of the modules `names` in the maps so far (None: none did any)."""
        owners = Counter(self._owners[name] for name in names if name in self._owners)
        return owners.most_common(1)[0][0] if owners else None

    def owns(self, worker: Optional[str], name: str) -> bool:
        """Whether `worker` did the module `name` in a map so far."""
        return worker is not None and self._owners.get(name) == worker

    def task(self, function: Callable, item: object, context: Optional[Context] = None,
             on: Optional[str] = None) -> "Answer":
        """`function(item)` as one task (the link), its answer to be asked for when needed; `on`: the
        worker it goes to, unless that one is gone or busy while another idles (see `_submit`)."""
        return Answer(self, self._submit(function, [item], context, on))

    def _submit(self, function: Callable, chunk: list, context: Optional[Context], on: Optional[str] = None) -> object:
        """The chunk as a task. `on`: the worker that holds what the chunk reads (its modules' parses),
        asked for loosely (`allow_other_workers`): the scheduler hands it to another where that one
        is gone, and Dask's work stealing moves it to an idle worker, so that affinity costs no
        balance and no retry."""
        from codemods.engine import cache

        ours = cache.tool_fingerprint() + (context.key if context is not None else "")
        placed = {"workers": [on], "allow_other_workers": True} if on is not None else {}
        return self._client.submit(_each, function, chunk, self._scattered(context), key=_named(function, chunk, ours),
                                   **placed)

    def _answers(self, chunk, about: "list[Optional[str]]" = ()) -> list:
        """A chunk's results, from a worker that runs this tool (ExecutorError where it cannot read the
        files, or where the cluster lost it); the modules it was `about` are that worker's from now."""
        from distributed import KilledWorker

        try:
            worker, fingerprint, results = chunk.result()
        except NotShared as error:
            raise ExecutorError(f"--executor dask://{self.address}: a worker cannot read {error}; the workers read the "
                                "files at the driver's paths: run them where the checkout (or a shared filesystem) is "
                                "at the same path") from None
        except (KilledWorker, OSError) as error:  # a chunk killed its workers again and again; the scheduler lost
            raise ExecutorError(f"--executor dask://{self.address}: the cluster lost the run ({type(error).__name__}: "
                                f"{error}); nothing was written") from None
        self._refuse({worker: fingerprint})
        for name in about:
            if name is not None:
                self._owners[name] = worker
        return results

    def _scattered(self, context: Optional[Context]) -> object:
        """The context as the tasks name it: in every worker's memory, once a run."""
        if context is None:
            return None
        if context.key not in self._contexts:
            self._contexts[context.key] = self._client.scatter(context, broadcast=True, hash=False)
        return self._contexts[context.key]

    def close(self, cancel: bool = False) -> None:
        self._client.close()  # the scheduler forgets what this client had queued, whatever `cancel` says

    def __enter__(self) -> "DaskExecutor":
        return self

    def __exit__(self, kind, *_) -> None:
        self.close(cancel=kind is not None)


class Answer:
    """The answer of one task (`DaskExecutor.task`), as a future gives it (`result()`)."""

    def __init__(self, executor: DaskExecutor, chunk: object) -> None:
        self._executor, self._chunk = executor, chunk

    def result(self) -> object:
        return self._executor._answers(self._chunk)[0]


def _named(function: Callable, chunk: list, fingerprint: str) -> str:
    """A chunk's name on the scheduler: `function`'s name and a hash of the chunk as it is sent, with
    the tool's fingerprint (equal names: equal work. Dask's own `tokenize` took 0.8-1.1 s for the
    rules' 374 items of the kernel packages, which it walks object by object; their pickle, 9 ms)."""
    import cloudpickle

    return f"{function.__name__}-{hashlib.sha256(cloudpickle.dumps((function, chunk, fingerprint))).hexdigest()}"


def _each(function: Callable, items: list, context: Optional[Context] = None) -> tuple[str, str, list]:
    """One chunk of a map, in a worker: its results, with the worker's address and tool fingerprint."""
    from distributed import get_worker

    from codemods.engine import cache

    with _collector_paused():
        if context is not None:
            context.enter()
        return get_worker().address, cache.tool_fingerprint(), [function(item) for item in items]


# The chunks running in this worker's threads, and whether the collector ran before the first (see
# `_collector_paused`).
_RUNNING = 0
_RUNNING_LOCK = threading.Lock()
_COLLECTING = True


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """A chunk runs with the cyclic collector paused, as a local run builds its project index
    (`runner._keep_for_the_run`): the worker's index of the run (with the parses it keeps for the
    rules) only grows, and the collections a chunk's allocations set off rescanned it, a sixth of
    the worker's CPU on the trees (docs/executors.md). After the chunk its young cycles are
    collected and what survives is frozen: no later collection scans it again (`runner`'s cluster
    project unfreezes it when the next run's index replaces it)."""
    global _RUNNING, _COLLECTING
    with _RUNNING_LOCK:
        _RUNNING += 1
        if _RUNNING == 1:
            _COLLECTING = gc.isenabled()
            gc.disable()
    try:
        yield
    finally:
        with _RUNNING_LOCK:
            _RUNNING -= 1
            if _RUNNING == 0:  # (the last of a worker's threads to finish: none is building now)
                gc.collect(0)
                gc.freeze()
                if _COLLECTING:
                    gc.enable()
