"""Probe lists for tests/test_probe_isolated.py, named to `probe.observe` as "probe_fakes:FUNCTION" and so
built again in each child process: rows whose attempts kill their process as libtpu's compiler does.

Each attempt writes its case to the file $PROBE_FAKES_LOG first, so a test sees which rows ran, and in
which process (the parent's pid is $PROBE_FAKES_PARENT)."""

from __future__ import annotations

import os
import sys

from codemods import probe

# What libtpu printed on a TPU v5e (jax 0.10.2) before it aborted: glog's fatal line, then its trace.
LIBTPU_ABORT = ("I1207 07:40:57.100000    4242 tpu_compiler.cc:100] compiling\n"
                "F1207 07:40:57.123456    4242 llo_builder.cc:244] Signedness cannot be inferred\n"
                "*** Check failure stack trace: ***\n    @     0x7f00deadbeef  (unknown)\n")


def _tried(case: str) -> None:
    with open(os.environ["PROBE_FAKES_LOG"], "a") as log:
        log.write(f"{case}\n")


def _in_a_child() -> bool:
    return os.getpid() != int(os.environ["PROBE_FAKES_PARENT"])


def _row(case: str, attempt, believed: str) -> probe.Probe:
    def tried():
        _tried(case)
        return attempt()

    return probe.Probe("fake", "op", case, tried, probe.PRECISION_REJECTION, probe.UNSUPPORTED,
                       lambda version: believed)


def _aborts():
    sys.stderr.write(LIBTPU_ABORT)
    sys.stderr.flush()
    os.abort()


def _exits():
    os._exit(3)


def _raises():
    raise ValueError("Unsupported dot precision: HIGH")


def rows() -> list[probe.Probe]:
    """Two rows that kill their process (a signal after a fatal line; an exit status, silently)."""
    return [_row("first", lambda: None, probe.ACCEPTED), _row("aborts", _aborts, probe.ABORTED),
            _row("raises", _raises, probe.REJECTED), _row("exits", _exits, probe.ABORTED),
            _row("last", lambda: None, probe.ACCEPTED)]


def dies_before_a_row() -> list[probe.Probe]:
    """A child that dies while it lists the rows: no row began."""
    if _in_a_child():
        os.abort()
    return rows()


def in_another_order() -> list[probe.Probe]:
    return rows()[::-1] if _in_a_child() else rows()


def real_then_aborts() -> list[probe.Probe]:
    """The real list is built (in the parent too), its first two rows lowered, then one that aborts."""
    return probe.probes()[:2] + [_row("aborts", _aborts, probe.ABORTED)]
