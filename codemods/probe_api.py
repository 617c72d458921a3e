"""`jax-codemod probe`, its second table: check the API-change table against the installed jax.

Each row of `codemods.api_changes.TABLE` claims what its old spelling does on a release ("works",
"warns" or "fails", and how it fails) and from which release its replacement exists. Claims rot
as jax moves, so this reaches every old name as user code does (`from <module> import <name>`:
the module imported, the name read from it; a module path imported whole) with warnings recorded,
and sets what it observes next to `row.state(<installed jax>)`; each replacement must resolve from
`row.since` on. Any DeprecationWarning on the way counts as "warns": that is what the user sees.

What is no name (an attribute of any object, a `with mesh:` block, a call's arguments such as
`jnp.clip(x, a_min=0)`) is checked by a small call of its own (CALL_CHECKS), each a fraction of a
second on a CPU. A row with an old spelling that nothing here can observe is reported "not
probed" with the reason: agreement is claimed only for what was observed.
"""

from __future__ import annotations

import functools
import importlib
import re
import sys
import warnings
from dataclasses import asdict, dataclass
from typing import Callable, Optional, Sequence

from codemods import api_changes
from codemods.api_changes import DEPRECATED_TOO, ApiChange
from codemods.capabilities import Version, format_version, parse_version

WORKS, WARNS, FAILS = "works", "warns", "fails"
NOT_PROBED = "not probed"


class _Unobservable(Exception):
    """What the attempt should observe has already happened in this process."""


class _Changed(Exception):
    """Raised by a call check whose old spelling still runs but no longer means what it did (a
    changed default): the old behaviour is gone, as if it failed."""


@dataclass(frozen=True)
class Check:
    code: str
    case: str  # what was tried: a qualified name, or the code that ran
    attempt: Callable[[], object]  # raises what jax raises
    replacement: bool  # True: the replacement (must work from row.since on); False: the old spelling


@dataclass(frozen=True)
class Observation:
    check: Check
    outcome: str  # WORKS, WARNS, FAILS or NOT_PROBED
    detail: str  # the warning or the error (its first line); why not probed
    errors: tuple[str, ...] = ()  # the exception's class and its bases, matched against row.failure


@dataclass(frozen=True)
class Row:
    code: str
    case: str
    observed: str
    believed: str
    agree: bool
    detail: str


@dataclass(frozen=True)
class Report:
    jax_version: str
    rows: tuple[Row, ...]

    @property
    def disagreements(self) -> tuple[Row, ...]:
        return tuple(row for row in self.rows if not row.agree)

    @property
    def agree(self) -> bool:
        return not self.disagreements

    @property
    def not_probed(self) -> tuple[Row, ...]:
        return tuple(row for row in self.rows if row.observed == NOT_PROBED)


# --- the call checks --------------------------------------------------------------------------

def _one_device_mesh():
    import jax
    import numpy as np

    return jax.sharding.Mesh(np.array(jax.devices()[:1]), ("x",))


def _vector():
    import jax.numpy as jnp

    return jnp.arange(8.0)


def _clip_old():
    import jax.numpy as jnp

    jnp.clip(_vector(), a_min=0.0)


def _clip_new():
    import jax.numpy as jnp

    jnp.clip(_vector(), min=0.0, max=1.0)


def _x64(enabled: bool):
    def attempt():
        import jax
        import jax.numpy as jnp

        with jax.enable_x64(enabled):
            dtype = jnp.zeros((), jnp.int64).dtype
        if (dtype == jnp.int64) != enabled:
            raise AssertionError(f"inside jax.enable_x64({enabled}) an int64 array is {dtype}")

    return attempt


def _jit_in_shardings():
    import jax

    jax.jit(lambda x: x * 2, in_shardings=None)(_vector())


def _jit_backend():
    import jax

    jax.jit(lambda x: x * 2, backend="cpu")(_vector())


def _lowered_hlo():
    import jax

    return jax.jit(lambda x: x * 2).lower(_vector()).compiler_ir("hlo").as_hlo_text()


def _shard_map():
    import jax
    from jax.sharding import PartitionSpec

    spec = PartitionSpec("x")
    jax.shard_map(lambda x: x * 2, mesh=_one_device_mesh(), in_specs=spec, out_specs=spec)(_vector())


def _with_mesh():
    with _one_device_mesh():
        pass


def _set_mesh():
    import jax

    with jax.set_mesh(_one_device_mesh()):
        pass


def _attribute(name: str):
    return lambda: getattr(_vector(), name)


def _addressable_data():
    _vector().addressable_data(0)


def _make_mesh_default():
    """Old code relied on Auto axes when it passed no axis_types; Explicit is a changed meaning."""
    import jax

    types = getattr(jax.make_mesh((1,), ("x",)), "axis_types", None)
    if types and all(kind.name == "Explicit" for kind in types):
        raise _Changed(f"jax.make_mesh without axis_types makes {tuple(k.name for k in types)} axes")


def _layout_old_meaning():
    """The old Layout was a device-local layout with a sharding (Format's job from 0.7.0 on)."""
    from jax.experimental import layout

    try:
        layout.Layout(sharding=None)
    except TypeError as error:
        raise _Changed(f"Layout(sharding=None): {error}: Layout is the former DeviceLocalLayout") from None


@functools.lru_cache(maxsize=None)
def _compiled():
    import jax

    return jax.jit(lambda x: x * 2).lower(_vector()).compile()


def _compiled_attribute(path: str):
    return lambda: functools.reduce(getattr, path.split("."), _compiled())


def _pallas_lower(**options):
    """Lower (for the interpreter: no TPU needed, nothing compiled) a copy kernel: pallas_call reads
    its block specs while tracing and hashes its compiler params while lowering."""
    import jax
    import jax.numpy as jnp
    from jax.experimental import pallas as pl

    def body(x_ref, o_ref):
        o_ref[...] = x_ref[...]

    block = jax.ShapeDtypeStruct((8, 128), jnp.float32)
    jax.jit(pl.pallas_call(body, out_shape=block, interpret=True, **options)).lower(block)


def _block_specs(swapped: bool):
    def attempt():
        from jax.experimental import pallas as pl

        def index_map(i):
            return (i, 0)

        spec = pl.BlockSpec(index_map, (8, 128)) if swapped else pl.BlockSpec((8, 128), index_map)
        _pallas_lower(grid=(1,), in_specs=[spec], out_specs=pl.BlockSpec((8, 128), index_map))

    return attempt


def _compiler_params(as_dict: bool):
    def attempt():
        from jax.experimental.pallas import tpu as pltpu

        _pallas_lower(compiler_params=dict(mosaic=dict()) if as_dict else pltpu.CompilerParams())

    return attempt


# code -> (case, attempt, replacement). A row listed here has its old spelling checked by these
# calls only: its `old` entries are no names, or names that stay (jnp.clip) while a use changes.
CALL_CHECKS: dict[str, tuple[tuple[str, Callable[[], object], bool], ...]] = {
    "JAX111": (("with jax.enable_x64(True): int64", _x64(True), True),
               ("with jax.enable_x64(False): int32", _x64(False), True)),
    "JAX120": (("jnp.arange(8.0).device_buffer", _attribute("device_buffer"), False),
               ("jnp.arange(8.0).addressable_data(0)", _addressable_data, True)),
    "JAX121": (("jnp.arange(8.0).device_buffers", _attribute("device_buffers"), False),
               ("jnp.arange(8.0).addressable_shards", _attribute("addressable_shards"), True)),
    "JAX125": (("Layout(sharding=None) (the old meaning)", _layout_old_meaning, False),
               ("jax.experimental.layout.Format (replacement)", lambda: _reach("jax.experimental.layout.Format")(), True)),
    "JAX127": (("compiled.output_formats.device_local_layout", _compiled_attribute("output_formats.device_local_layout"),
                False),
               ("compiled.output_formats.layout", _compiled_attribute("output_formats.layout"), True)),
    "JAX128": (("compiled.input_layouts", _compiled_attribute("input_layouts"), False),
               ("compiled.input_formats", _compiled_attribute("input_formats"), True)),
    "JAX129": (("compiled.output_layouts", _compiled_attribute("output_layouts"), False),
               ("compiled.output_formats", _compiled_attribute("output_formats"), True)),
    "JAX130": (("jax.jit(f, in_shardings=None)(x)", _jit_in_shardings, True),),
    "JAX138": (("jax.jit(f, backend='cpu')(x)", _jit_backend, False),),
    "JAX132": (("jax.shard_map(f, mesh=, in_specs=, out_specs=)(x), 1 device", _shard_map, True),),
    "JAX134": (("with Mesh(devices, ('x',)):", _with_mesh, False),
               ("with jax.set_mesh(mesh):", _set_mesh, True)),
    "JAX140": (("jnp.clip(x, a_min=0.0)", _clip_old, False),
               ("jnp.clip(x, min=0.0, max=1.0)", _clip_new, True)),
    "JAX172": (("pallas_call(compiler_params=dict(mosaic={}))", _compiler_params(True), False),
               ("pallas_call(compiler_params=pltpu.CompilerParams())", _compiler_params(False), True)),
    "JAX173": (("pallas_call(in_specs=[BlockSpec(index_map, (8, 128))])", _block_specs(True), False),
               ("pallas_call(in_specs=[BlockSpec((8, 128), index_map)])", _block_specs(False), True)),
    "JAX191": (("jax.make_mesh((1,), ('x',)) without axis_types", _make_mesh_default, False),),
    "JAX1000": (("jax.jit(f).lower(x).compiler_ir('hlo').as_hlo_text()", _lowered_hlo, True),),
}
# Rows whose old spelling a call observes: their old names stay in jax (jnp.clip, BlockSpec,
# make_mesh), so reaching such a name only shows that it is still there, as the calls need.
# JAX125's call checks the meaning `Layout` had; its old name, DeviceLocalLayout, is gone.
_CALLS_OWN_THE_OLD_SPELLING = {code for code, checks in CALL_CHECKS.items()
                               if code != "JAX125" and any(not replacement for _, _, replacement in checks)}


# --- reaching names ---------------------------------------------------------------------------

def _reach(qualified: str) -> Callable[[], object]:
    """`from a.b import c` as user code writes it: import `a.b`, read `c`.

    jax's module `__getattr__` for deprecated names is a functools.cache: it warns on the first
    access in a process only. Its cache is cleared first, so the warning shows however often the
    name was reached before (by the user's code under test, or an earlier probe)."""

    def attempt():
        parent, _, name = qualified.rpartition(".")
        try:
            module = importlib.import_module(parent)
        except ModuleNotFoundError as error:  # `pltpu.MemorySpace.ANY`: a member of a class, not of a module
            owner, _, member = parent.rpartition(".")
            if error.name != parent or not owner or not isinstance(getattr(importlib.import_module(owner), member, None), type):
                raise
            module = _reach(parent)()
        getattr(getattr(module, "__getattr__", None), "cache_clear", lambda: None)()
        return getattr(module, name)

    return attempt


def _import(qualified: str, old_spelling: bool) -> Callable[[], object]:
    """`import a.b.c`. A module warns when it is first imported only: if the old spelling was
    imported before the probe, what its import does cannot be seen again."""

    def attempt():
        if old_spelling and qualified in sys.modules:
            raise _Unobservable(f"{qualified} was imported before the probe: its import-time warnings "
                                "cannot be seen again (run `jax-codemod probe` in a fresh process)")
        return importlib.import_module(qualified)

    return attempt


def _qualified(name: Optional[str]) -> bool:
    return bool(name) and name.startswith("jax.")


def checks(row: ApiChange) -> list[Check]:
    """What to try for a row: its old spellings, then its replacements."""
    found = []
    for old in row.old:
        if old in row.modules:
            found.append(Check(row.code, f"import {old}", _import(old, True), False))
        elif _qualified(old):
            if row.code in _CALLS_OWN_THE_OLD_SPELLING:
                found.append(Check(row.code, f"{old} (the name stays)", _reach(old), True))
            else:
                found.append(Check(row.code, old, _reach(old), False))
    found += [Check(row.code, f"import {module}", _import(module, True), False)
              for module in row.modules if module not in row.old]
    for case, attempt, replacement in CALL_CHECKS.get(row.code, ()):
        found.append(Check(row.code, case, attempt, replacement))
    targets = [*(row.replacement_of(old) for old in row.old), row.import_as, *(name for name, _ in row.also)]
    found += [Check(row.code, f"{name} (replacement)", _reach(name), True)
              for name in dict.fromkeys(targets) if _qualified(name) and name not in row.old]
    return found


def _unobservable(row: ApiChange, found: Sequence[Check]) -> Optional[str]:
    """Why no check observes the row's old spelling, or None when one does."""
    if any(not check.replacement for check in found):
        return None
    return (f"no check observes {', '.join(row.old)}: not a qualified name or module, and no call "
            "check in codemods/probe_api.py CALL_CHECKS")


# --- observing --------------------------------------------------------------------------------

def _first_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0][:200] if lines else ""


def _run(check: Check) -> Observation:
    """Try once with every warning recorded; classify how it ended."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            check.attempt()
        except _Changed as changed:
            return Observation(check, FAILS, str(changed))
        except _Unobservable as unobservable:
            return Observation(check, NOT_PROBED, str(unobservable))
        except Exception as error:  # noqa: BLE001 - how it fails is the observation
            names = tuple(kind.__name__ for kind in type(error).__mro__ if issubclass(kind, Exception))
            return Observation(check, FAILS, f"{type(error).__name__}: {_first_line(str(error))}", names)
    deprecations = [w for w in caught if issubclass(w.category, DeprecationWarning)]
    if deprecations:
        return Observation(check, WARNS, f"DeprecationWarning: {_first_line(str(deprecations[0].message))}")
    return Observation(check, WORKS, "")


def observe(table: Optional[Sequence[ApiChange]] = None) -> list[Observation]:
    """Try every row's checks (api_changes.TABLE's, read at call time, unless `table` is given) with
    the installed jax, imported first with its own warnings unrecorded."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        importlib.import_module("jax")  # its import-time warnings are not the rows'

    observations = []
    for row in api_changes.TABLE if table is None else table:
        found = checks(row)
        observations += [_run(check) for check in found]
        reason = _unobservable(row, found)
        if reason:
            observations.append(Observation(Check(row.code, " / ".join(row.old), lambda: None, False),
                                            NOT_PROBED, reason))
    return observations


# --- comparing --------------------------------------------------------------------------------

def _fails_as_claimed(errors: tuple[str, ...], failure: str) -> bool:
    """The exception (or one of its bases: ModuleNotFoundError is an ImportError) is named in the
    row's `failure`; a row that fails without an exception (a changed default) has none to name."""
    return not errors or any(re.search(rf"\b{name}\b", failure) for name in errors)


def _compare_one(observation: Observation, row: ApiChange, version: Version) -> Row:
    check = observation.check
    observed, detail = observation.outcome, observation.detail
    if observed == NOT_PROBED:
        return Row(check.code, check.case, observed, row.state(version), True, detail)
    if check.replacement:
        if version < row.since:
            return Row(check.code, check.case, NOT_PROBED, "-", True,
                       f"jax {format_version(version)} predates the replacement (since "
                       f"{format_version(row.since)}): the table claims nothing here")
        # A replacement works, until a release deprecates it in its turn (the row's `superseded`); one
        # superseded otherwise (JAX137's ClosedJaxpr, Jaxpr itself from 0.11.0) still resolves quietly.
        deprecated = row.superseded is not None and version >= row.superseded and row.superseded_as == DEPRECATED_TOO
        believed = WARNS if deprecated else WORKS
        return Row(check.code, check.case, observed, believed, observed == believed, detail)
    believed = row.state(version)
    agree = observed == believed
    if agree and observed == FAILS and not _fails_as_claimed(observation.errors, row.failure_on(version)):
        agree = False
        detail = f"{detail}; the table says it fails with {row.failure_on(version)}"
    return Row(check.code, check.case, observed, believed, agree, detail)


def compare(observations: Sequence[Observation], jax_version: str,
            table: Optional[Sequence[ApiChange]] = None) -> Report:
    """Set the observations next to what the rows (api_changes.TABLE's, read at call time, unless
    `table` is given) claim for `jax_version`; one report row per observation, in order."""
    version = parse_version(jax_version)
    rows_by_code = {row.code: row for row in (api_changes.TABLE if table is None else table)}
    return Report(jax_version, tuple(_compare_one(observation, rows_by_code[observation.check.code], version)
                                     for observation in observations))


# --- reporting --------------------------------------------------------------------------------

def render_text(report: Report) -> str:
    header = ("code", "case", "observed", "believed", "")
    cells = [header] + [
        (row.code, row.case, row.observed, row.believed,
         "unchecked" if row.observed == NOT_PROBED else "ok" if row.agree else "MISMATCH")
        for row in report.rows
    ]
    widths = [max(len(line[i]) for line in cells) for i in range(len(header))]
    lines = [f"jax {report.jax_version}: observed API vs codemods/api_changes.py", ""]
    lines += ["  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in cells]
    lines += ["", describe_disagreements(report)]
    lines += describe_not_probed(report)
    return "\n".join(lines)


def describe_not_probed(report: Report) -> list[str]:
    return [f"{row.code} {row.case}: not probed: {row.detail}" for row in report.not_probed]


def describe_disagreements(report: Report) -> str:
    wrong = report.disagreements
    if not wrong:
        unseen = len(report.not_probed)
        return f"All {len(report.rows)} API rows agree" + (f" ({unseen} of them not probed)." if unseen else ".")
    lines = [f"MISMATCH: {len(wrong)} of {len(report.rows)} API rows disagree; "
             f"update codemods/api_changes.py for jax {report.jax_version}:"]
    lines += [f"  {row.code} {row.case}: observed {row.observed}, believed {row.believed}"
              + (f" ({row.detail})" if row.detail else "") for row in wrong]
    return "\n".join(lines)


def report_to_dict(report: Report) -> dict:
    return {"agree": report.agree, "not_probed": describe_not_probed(report),
            "rows": [asdict(row) for row in report.rows]}

