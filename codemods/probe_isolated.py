"""Rows of `jax-codemod probe` run in child processes, so that an attempt that kills its process costs
its row, not the table: on a TPU, libtpu's compiler aborts on some kernels (SIGABRT, "Signedness cannot
be inferred", capabilities.DEBUG_PRINT_UNFORMATTED_ABORTS), and no Python `except` sees that.

A child runs the rows from a start index on and says, one JSON line each (flushed), the row it begins
and how that row ended. When a child dies, the row it began and did not end is ABORTED and a new child
resumes at the next row: each child starts further on, so no row is tried twice and the loop ends.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
from typing import Callable, TextIO

ABORTED = "aborted"  # the process died during the attempt: a signal, or a non-zero exit
# glog's line for a fatal check in libtpu: "F1207 07:40:57.123456  4242 llo_builder.cc:244] Signedness ..."
FATAL_LINE = re.compile(r"^F\d{4} [^\]]*\] (.+)$", re.MULTILINE)


class ProbeProcessDied(RuntimeError):
    """A child ended outside any row (its imports, say): no row to blame, so no table either."""


def observe(names: list[str], command: list[str]) -> list[tuple[str, str]]:
    """(outcome, detail) of each row, run by `command + [start]` as `serve` runs them."""
    seen: list[tuple[str, str]] = []
    while len(seen) < len(names):
        start = len(seen)
        done = subprocess.run([*command, str(start)], capture_output=True, text=True)
        begun = None
        for line in done.stdout.splitlines():
            message = json.loads(line)
            if "begin" not in message:
                seen.append((message["outcome"], message["detail"]))
                begun = None
            elif message["begin"] == names[len(seen)]:
                begun = message["begin"]
            else:  # parent and child listed the rows in different orders: an answer would be misplaced
                raise ProbeProcessDied(f"the probe's process began {message['begin']!r}, "
                                       f"expected {names[len(seen)]!r}")
        if begun is not None:
            seen.append((ABORTED, why_it_died(done.returncode, done.stderr)))
        elif len(seen) < len(names):
            raise ProbeProcessDied(f"the probe's process ended before row {len(seen)} ({names[len(seen)]}) "
                                   f"began: {why_it_died(done.returncode, done.stderr)}")
    return seen


def why_it_died(returncode: int, stderr: str) -> str:
    """The last fatal line of its stderr (else its last line), and the signal or exit status."""
    fatal = FATAL_LINE.findall(stderr)
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    said = fatal[-1].strip() if fatal else lines[-1] if lines else ""
    how = _signal_name(-returncode) if returncode < 0 else f"exit status {returncode}"
    return f"{said[:160]} ({how})" if said else how


def _signal_name(number: int) -> str:
    """SIGABRT, or `signal 40` for one Python has no name for (a real-time signal)."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def serve(names: list[str], attempt: Callable[[int], tuple[str, str]], start: int) -> None:
    """The child's side: rows `start`.. in order. The answers go to the stdout it was given; anything
    else printed there (jax, libtpu) goes to stderr instead, so it cannot break a line."""
    channel: TextIO = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    for index in range(start, len(names)):
        _say(channel, {"begin": names[index]})
        outcome, detail = attempt(index)
        _say(channel, {"outcome": outcome, "detail": detail})


def _say(channel: TextIO, message: dict[str, str]) -> None:
    channel.write(json.dumps(message) + "\n")
    channel.flush()  # said before the next attempt can kill the process
