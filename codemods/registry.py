"""The transforms the tool knows, and choosing among them by code or name."""

from __future__ import annotations

from typing import Iterable, Sequence

from codemods.accuracy_hints import AccuracyHints
from codemods.base import JaxCodemod
from codemods.bf16_lstm import Bf16Lstm
from codemods.per_operand_precision import PerOperandPrecision

TRANSFORMS: tuple[type[JaxCodemod], ...] = (PerOperandPrecision, AccuracyHints, Bf16Lstm)


def _lookup(key: str) -> type[JaxCodemod]:
    for transform in TRANSFORMS:
        if key.upper() == transform.CODE or key.lower() == transform.NAME:
            return transform
    known = ", ".join(f"{t.CODE} ({t.NAME})" for t in TRANSFORMS)
    raise KeyError(f"unknown transform {key!r}; known: {known}")


def select(include: Iterable[str] = (), exclude: Iterable[str] = ()) -> Sequence[type[JaxCodemod]]:
    """`--select`/`--ignore`: codes or names, comma-separated or repeated. Raises KeyError."""
    split = lambda keys: [k.strip() for key in keys for k in key.split(",") if k.strip()]  # noqa: E731
    chosen = {_lookup(k) for k in split(include)} or set(TRANSFORMS)
    dropped = {_lookup(k) for k in split(exclude)}
    return [t for t in TRANSFORMS if t in chosen and t not in dropped]
