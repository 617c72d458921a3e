"""codemods/analysis/kept_summaries.py, tested directly: the summaries a project state keeps are read
only when one is asked for, and written back as read where none changed."""

from __future__ import annotations

import marshal

from codemods.analysis.kept_summaries import KeptSummaries

DATA = {"pkg.a": ("pkg.a", {}, {}, (), (), (), ()), "pkg.b": ("pkg.b", {}, {}, (), (), (), ("pkg.a",))}
KEPT = KeptSummaries({"pkg.a": b"A", "pkg.b": b"B"}, marshal.dumps(DATA))


def test_a_summary_is_read_from_the_blob_and_none_where_none_is_kept() -> None:
    kept = KeptSummaries(KEPT.hashes, KEPT.blob)
    assert kept.data("pkg.b") == DATA["pkg.b"] and kept.data("pkg.c") is None
    for blob in (b"", b"\x00garbage", marshal.dumps([1, 2])):
        assert KeptSummaries({"pkg.a": b"A"}, blob).data("pkg.a") is None


def test_nothing_new_writes_the_blob_back_as_read_without_reading_it() -> None:
    kept = KeptSummaries(KEPT.hashes, KEPT.blob)
    again = kept.updated({"pkg.a": b"A"}, {})
    assert again.blob is kept.blob and again.hashes == {"pkg.a": b"A"} and kept._data is None


def test_a_new_summary_is_written_with_the_kept_ones_and_its_hash() -> None:
    new = ("pkg.b", {}, {}, (), (), (), ())
    again = KeptSummaries(KEPT.hashes, KEPT.blob).updated({"pkg.a": b"A", "pkg.b": b"B2"}, {"pkg.b": new})
    assert again.hashes == {"pkg.a": b"A", "pkg.b": b"B2"}
    assert marshal.loads(again.blob) == {"pkg.a": DATA["pkg.a"], "pkg.b": new}
    assert again == KeptSummaries({"pkg.a": b"A", "pkg.b": b"B2"})  # the hashes say what it holds
