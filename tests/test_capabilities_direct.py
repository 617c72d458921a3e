"""codemods/capabilities.py called directly, in the test's process: version parsing and lookup, spans,
and the table's answers (precisions, rejected accuracy hints, what does not lower) for known and
unknown releases.

Written for mutation testing (issue 35, item 3; docs/testing.md): each test checks exact values.
Nothing here imports jax.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from codemods import capabilities
from codemods.capabilities import (
    DEFAULT_HIGHEST, EVERY_LEVEL, Level, Span, accuracy_rejected, accuracy_rejected_anywhere, format_version,
    installed_jax_version, installed_version, lowered_precisions, not_lowered, parse_version)

GPU_ALWAYS = {"rsqrt", "tanh", "logistic", "exp", "exp2", "sin", "cos", "log"}
TPU_ALWAYS = {"rsqrt", "sqrt", "exp", "exp2", "logistic", "sin", "cos", "tan", "tanh", "log", "log1p"}


# parse_version


@pytest.mark.parametrize(("text", "version"), [
    ("0.12.0.1", (0, 12, 0, 1)),
    (" 0.4.30\n", (0, 4, 30)),
    ("0.11.0rc1", (0, 11, 0)),
    ("0.5.0.dev2", (0, 5, 0)),
    ("0.11rc1.3", (0, 11)),
    ("1.x.2", (1,)),
    ("7", (7,)),
    ("12.34", (12, 34)),
    ("1.2.", (1, 2)),
    ("010.2", (10, 2)),
])
def test_parse_version(text: str, version: tuple) -> None:
    assert parse_version(text) == version


@pytest.mark.parametrize("text", ["", "abc", "v1.2", ".1", " "])
def test_parse_version_refuses_what_starts_with_no_number(text: str) -> None:
    with pytest.raises(ValueError) as raised:
        parse_version(text)
    assert str(raised.value) == f"not a jax version: {text!r}"


# format_version


def test_format_version() -> None:
    assert format_version(None) == "unknown"
    assert format_version((0, 4, 30)) == "0.4.30"
    assert format_version((1,)) == "1"


# installed_version


def test_installed_version_reads_the_first_dist_info_on_the_path(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir(), second.mkdir()
    (first / "jaxlib-0.4.1.dist-info").mkdir()
    (first / "jax-0.4-2.dist-info").mkdir()  # a dash in the version: not this pattern
    (first / "jax-0.4.2.dist-info.old").mkdir()  # the whole name must match
    (first / "xjax-0.4.2.dist-info").mkdir()
    (second / "JAX-0.4.3.dist-info").mkdir()  # case folded
    (tmp_path / "a-file").write_text("")
    monkeypatch.setattr(sys, "path", [str(tmp_path / "missing"), str(tmp_path / "a-file"), str(first), str(second)])
    assert installed_version("jax") == "0.4.3"
    (first / "jax-0.4.2.dist-info").mkdir()
    assert installed_version("jax") == "0.4.2"
    assert installed_version("Jax") == "0.4.2"
    assert installed_version("numpy") is None


def test_installed_version_escapes_the_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "zopeXinterface-1.0.dist-info").mkdir()
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    assert installed_version("zope.interface") is None
    (tmp_path / "zope.interface-2.0.dist-info").mkdir()
    assert installed_version("zope.interface") == "2.0"


def test_an_empty_path_entry_is_the_current_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "jax-0.9.1.dist-info").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [""])
    assert installed_version("jax") == "0.9.1"


def test_installed_version_with_nothing_on_the_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "path", [])
    assert installed_version("jax") is None


# installed_jax_version


@pytest.mark.parametrize(("dist_info", "metadata_says", "version"), [
    ("0.4.30", "9.9", (0, 4, 30)),  # the dist-info folder wins: metadata is not asked
    ("0.11.0rc1", None, (0, 11, 0)),
    ("not-a-version", "0.4.30", None),
    (None, "0.5.0", (0, 5, 0)),
    (None, "junk", None),
    (None, None, None),
])
def test_installed_jax_version(dist_info, metadata_says, version, monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib import metadata

    asked: list = []

    def answer(name: str) -> str:
        asked.append(name)
        if metadata_says is None:
            raise metadata.PackageNotFoundError(name)
        return metadata_says

    looked_up: list = []
    monkeypatch.setattr(capabilities, "installed_version", lambda name: looked_up.append(name) or dist_info)
    monkeypatch.setattr(metadata, "version", answer)
    assert installed_jax_version() == version
    assert looked_up == ["jax"]
    assert asked == ([] if dist_info is not None else ["jax"])


# Span


def test_span_contains() -> None:
    span = Span((0, 11, 1), (0, 12))
    assert [span.contains(v) for v in [(0, 11), (0, 11, 0), (0, 11, 1), (0, 11, 1, 5), (0, 11, 9), (0, 12),
                                        (0, 12, 0), (1,)]] == [False, False, True, True, True, False, False, False]
    assert Span().contains((0,)) and Span().contains((99,))
    assert Span(since=(0, 5)).contains((0, 5)) and not Span(since=(0, 5)).contains((0, 4, 9))
    assert Span(until=(0, 5)).contains((0, 4, 9)) and not Span(until=(0, 5)).contains((0, 5))


def test_known_versions() -> None:
    assert capabilities._known_versions() == [(0,), (0, 11, 1), (0, 11, 2), (0, 12, 0)]


# lowered_precisions


@pytest.mark.parametrize(("backend", "op", "version", "levels"), [
    ("mosaic_tpu", "dot", (0, 10, 2), DEFAULT_HIGHEST),
    ("mosaic_tpu", "dot", (0, 11, 0), DEFAULT_HIGHEST),
    ("mosaic_tpu", "dot", (0, 11, 1), EVERY_LEVEL),
    ("mosaic_tpu", "dot", (0, 12, 0, 1), EVERY_LEVEL),
    ("mosaic_tpu", "dot", None, DEFAULT_HIGHEST),  # what every release accepts
    ("mosaic_tpu", "conv", (0, 11, 0), None),  # no lowering before 0.11.1
    ("mosaic_tpu", "conv", (0, 11, 1), DEFAULT_HIGHEST),
    ("mosaic_tpu", "conv", None, DEFAULT_HIGHEST),
    ("cudnn", "lstm", (0, 4), frozenset({Level.HIGH, Level.HIGHEST})),
    ("cudnn", "lstm", None, frozenset({Level.HIGH, Level.HIGHEST})),
    ("triton", "dot", None, EVERY_LEVEL),
    ("triton", "dot", (0, 10, 2), EVERY_LEVEL),
    ("triton", "conv", (0, 12), None),
    ("triton", "conv", None, None),
    ("mosaic_gpu", "dot", None, None),
    ("mosaic_gpu", "dot", (0, 12), None),
])
def test_lowered_precisions(backend: str, op: str, version, levels) -> None:
    assert lowered_precisions(backend, op, version) == levels


def test_lowered_precisions_of_an_unknown_pair_raises() -> None:
    with pytest.raises(KeyError):
        lowered_precisions("mosaic_tpu", "lstm", None)


# accuracy_rejected, accuracy_rejected_anywhere


@pytest.mark.parametrize(("backend", "version", "names"), [
    ("mosaic_gpu", (0, 10, 2), GPU_ALWAYS),
    ("mosaic_gpu", (0, 11, 1), GPU_ALWAYS),
    ("mosaic_gpu", (0, 11, 2), GPU_ALWAYS | {"sqrt", "log2"}),
    ("mosaic_gpu", None, GPU_ALWAYS | {"sqrt", "log2"}),  # the union over the releases
    ("mosaic_tpu", (0, 11, 1), TPU_ALWAYS),
    ("mosaic_tpu", (0, 12, 0, 1), TPU_ALWAYS | {"log2"}),
    ("mosaic_tpu", None, TPU_ALWAYS | {"log2"}),
    ("triton", None, set()),
    ("triton", (0, 12), set()),
])
def test_accuracy_rejected(backend: str, version, names: set) -> None:
    assert accuracy_rejected(backend, version) == frozenset(names)


def test_accuracy_rejected_anywhere() -> None:
    assert accuracy_rejected_anywhere((0, 11, 1)) == frozenset(GPU_ALWAYS | TPU_ALWAYS)
    assert accuracy_rejected_anywhere((0, 11, 2)) == frozenset(GPU_ALWAYS | TPU_ALWAYS | {"log2"})
    assert accuracy_rejected_anywhere(None) == frozenset(GPU_ALWAYS | TPU_ALWAYS | {"log2"})


def test_accuracy_rejected_of_an_unknown_backend_raises() -> None:
    with pytest.raises(KeyError):
        accuracy_rejected("cudnn", None)


# not_lowered


@pytest.mark.parametrize(("backend", "version", "names"), [
    ("mosaic_gpu", (0, 10, 2), {"cbrt", "expm1", "tan", "log1p", "sqrt"}),
    ("mosaic_gpu", (0, 11, 1), {"cbrt", "expm1", "tan", "log1p", "sqrt"}),
    ("mosaic_gpu", (0, 11, 2), {"cbrt", "expm1", "tan", "log1p"}),
    ("mosaic_gpu", (0, 12, 0), {"cbrt", "expm1", "tan", "log1p", "erfc"}),
    ("mosaic_gpu", None, {"cbrt", "expm1", "tan", "log1p"}),  # what no release lowers
    ("mosaic_tpu", (0, 11, 9), {"cbrt", "expm1"}),
    ("mosaic_tpu", (0, 12, 0, 1), {"cbrt", "expm1", "erfc"}),
    ("mosaic_tpu", None, {"cbrt", "expm1"}),
    ("triton", None, set()),  # not in the table: everything lowers
    ("triton", (0, 12), set()),
])
def test_not_lowered(backend: str, version, names: set) -> None:
    assert not_lowered(backend, version) == frozenset(names)


def test_the_answers_are_frozensets() -> None:
    assert type(not_lowered("mosaic_gpu", None)) is frozenset
    assert type(accuracy_rejected("triton", None)) is frozenset
    assert type(accuracy_rejected_anywhere(None)) is frozenset


def test_os_is_used_for_listing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """An entry that cannot be listed (a file, a folder without permission) is skipped, not fatal."""
    listed: list = []

    def listdir(entry):
        listed.append(entry)
        if entry == "bad":
            raise PermissionError(entry)
        return ["jax-1.2.3.dist-info"]

    monkeypatch.setattr(os, "listdir", listdir)
    monkeypatch.setattr(sys, "path", ["bad", "", "good"])
    assert installed_version("jax") == "1.2.3"
    assert listed == ["bad", "."]


@pytest.mark.parametrize("op, dtype, version, levels", [
    # A bfloat16 operand compiles at DEFAULT only, on every release, though the lowering takes more.
    ("dot", "bfloat16", (0, 10, 2), {Level.DEFAULT}),
    ("dot", "bfloat16", (0, 12, 0, 1), {Level.DEFAULT}),
    ("dot", "bfloat16", None, {Level.DEFAULT}),
    # A dtype with no row compiles what lowers.
    ("dot", "float32", (0, 10, 2), DEFAULT_HIGHEST),
    ("dot", "float32", (0, 12, 0, 1), EVERY_LEVEL),
    ("conv", "bfloat16", (0, 12, 0, 1), DEFAULT_HIGHEST),
    # What does not lower does not compile either.
    ("conv", "bfloat16", (0, 10, 2), None),
])
def test_compiled_precisions(op: str, dtype: str, version, levels) -> None:
    compiled = capabilities.compiled_precisions("mosaic_tpu", op, dtype, version)
    assert compiled == (None if levels is None else frozenset(levels))


def test_compiled_precisions_keeps_what_lowers_when_no_row_is_in_its_span(monkeypatch: pytest.MonkeyPatch) -> None:
    """A dtype row for other releases says nothing of this one: what lowers stands."""
    monkeypatch.setattr(capabilities, "COMPILED_FOR_DTYPE", {
        ("mosaic_tpu", "dot", "bfloat16"): [(Span(since=(0, 11)), capabilities.DEFAULT_ONLY)]})
    assert capabilities.compiled_precisions("mosaic_tpu", "dot", "bfloat16", (0, 10, 2)) == DEFAULT_HIGHEST
    assert capabilities.compiled_precisions("mosaic_tpu", "dot", "bfloat16", (0, 11, 0)) == {Level.DEFAULT}


def test_narrow_rejected_joins_the_lowering_and_the_compiler_rows(monkeypatch):
    """int8 ops fail in Mosaic's compiler (addition) or already in the lowering (max reductions); int16
    addition and uint8 abs compile (TPU v5e, jax 0.10.2); a release outside a row's span is not covered
    by it, and an unknown release gets every row."""
    from codemods import capabilities
    from codemods.capabilities import Span, narrow_rejected

    assert {"add", "shift", "compare", "reduce_max"} <= narrow_rejected("mosaic_tpu", "int8", (0, 12, 0, 1))
    assert "add" not in narrow_rejected("mosaic_tpu", "int16", (0, 12, 0, 1))
    assert narrow_rejected("mosaic_tpu", "int16", None) == {"shift", "maximum", "minimum", "reduce_max", "reduce_min"}
    assert "abs" not in narrow_rejected("mosaic_tpu", "uint8", None)
    assert narrow_rejected("triton", "int8", None) == frozenset()
    monkeypatch.setitem(capabilities.NARROW_COMPILED_REJECTED, ("mosaic_tpu", "int8"),
                        [(Span(until=(0, 11)), frozenset({"add"}))])
    assert "add" in narrow_rejected("mosaic_tpu", "int8", (0, 10, 2))
    assert "add" not in narrow_rejected("mosaic_tpu", "int8", (0, 12, 0, 1))
    assert "add" in narrow_rejected("mosaic_tpu", "int8", None)
