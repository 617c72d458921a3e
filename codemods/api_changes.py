"""JAX API changes that break user code: the table the JAX1xx upgrade rules read.

One row per change, with the releases that decide whether it applies: the first release with the
replacement, the one that deprecated the old spelling and the one that removed it, and where that
was read (jax's changelogs, its `_deprecations` tables, the released wheels). A row applies to a
target release when the replacement exists there and the old spelling is deprecated or gone; when
the project declares the lowest jax it supports (`jax>=0.4.30` in `project.dependencies`), the
replacement must exist there too, or the fix would break the oldest supported install.

`jax-codemod probe` checks every row against the installed jax (tests/test_api_changes.py fails on
a disagreement), as it checks the capability table: a claim about jax is tested against jax.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Optional, Sequence

from codemods.capabilities import Version
from codemods.engine.rule import code_order


class Change(str, enum.Enum):
    """What the rewrite of a row does."""

    RENAME = "rename"  # every reference to the old name becomes one to the new name
    IMPORT = "import move"  # only the import changes: `from jax.config import config` -> `from jax import config`
    ARGUMENTS = "arguments"  # the call itself is rewritten: its callee and how its arguments are passed
    ATTRIBUTE = "attribute"  # an attribute of any object (its type is not known): an unsafe fix
    MANUAL = "manual"  # a person must migrate: the finding names the migration


# What a row's `superseded` means unless it says otherwise: the replacement warns from that release.
DEPRECATED_TOO = "is deprecated too"


_RAISED_IN = re.compile(r"^(?P<error>\w+Error) in [\w.]+ \((?P<message>.+)\)$")  # "TypeError in pallas_call (...)"

@dataclass(frozen=True)
class ApiChange:
    code: str
    name: str  # the rule's name, as `--select` and `jax-codemod rules` know it
    old: tuple[str, ...]  # the old spellings, as qualified names (or `.attr` for an attribute of any object)
    new: Optional[str]  # the replacement, a qualified name (for ARGUMENTS: the new callee)
    change: Change
    since: Version  # the first release with the replacement
    deprecated: Optional[Version]  # the first release whose old spelling warns
    removed: Optional[Version]  # the first release whose old spelling fails
    source: str  # where these facts were read
    # What `from <module> import <old>` becomes when it must keep working under the same name
    # (`from jax import tree_map` -> `from jax.tree_util import tree_map`), if not `new`.
    import_as: Optional[str] = None
    modules: tuple[str, ...] = ()  # modules whose `import m` is itself the old spelling (`import jax.config`)
    annotations_only: bool = False  # the replacement is right in type annotations only (elsewhere: manual)
    words: tuple[bytes, ...] = ()  # the prefilter's words, where the old names' last parts are not them

    def prefilter_words(self) -> tuple[bytes, ...]:
        """Words one of which any file with a reference holds (with "jax", unless an attribute row)."""
        return self.words or tuple(sorted({old.rsplit(".", 1)[-1].lstrip(".").encode() for old in self.old}))
    migration: str = ""  # MANUAL: what a person does; otherwise what the fix does not cover
    # The first release that deprecates the replacement too: from there the rewrite would trade one
    # warning for another, so the finding is [manual] and names the migration.
    superseded: Optional[Version] = None
    superseded_as: str = DEPRECATED_TOO  # what the replacement became there (DEPRECATED_TOO: it warns)
    # How the old spelling fails once removed; where that changed, by release ((first, how), ...).
    failure: "str | tuple[tuple[Version, str], ...]" = "AttributeError"
    # The first release with the old spelling (None: older than any floor the table serves). A floor
    # below it runs neither spelling, so it holds no fix back.
    old_since: Optional[Version] = None
    # What the fix writes, in words, where that is not the replacement's name (a new argument order).
    replacement: str = ""
    # Older spellings of the replacement that no release up to the newest read retires, each with the
    # first release read to have it: where the floor predates `since`, the fix writes the first one
    # the floor has (`jax.tree_util.tree_map` for `jax.tree.map` under `jax>=0.3.0`).
    also: tuple[tuple[str, Version], ...] = ()
    # `new` is a module the old names moved to under their own names (`jax.core.Jaxpr` ->
    # `jax.extend.core.Jaxpr`): one row for a module's members that moved together.
    moves_members: bool = False
    # The old spelling is a call that passes one of these keywords (`jax.jit(f, backend=...)`): the
    # name itself stays, so a fix that writes it lands on no retired name.
    keywords: tuple[str, ...] = ()

    def replacement_of(self, old: str, spelling: Optional[str] = None) -> Optional[str]:
        """What replaces the old spelling `old`: `spelling` (by default `new`), or, for a row that
        moves members, `old`'s own name under it."""
        spelling = self.new if spelling is None else spelling
        if spelling is None or not self.moves_members:
            return spelling
        return f"{spelling}.{old.rpartition('.')[2]}"

    def migration_for(self, old: str) -> str:
        """`migration` for a reference to `old`, less the steps for the row's other names: a row of
        two modules whose migration is a step each (`jax.linear_util -> jax.extend.linear_util;
        jax.prng -> jax.extend.random`) tells a file that uses one of them that one's step."""
        names = tuple(dict.fromkeys((*self.modules, *self.old)))

        def under(name: str, text: str) -> bool:
            return text == name or text.startswith((name + ".", name + " "))

        mine = next((name for name in names if under(name, old)), None)
        steps = self.migration.split("; ")
        kept = [step for step in steps if not any(under(name, step) for name in names if name != mine)]
        return "; ".join(kept) if mine is not None and kept else self.migration

    def spellings(self, *releases: Optional[Version]) -> tuple[Optional[str], ...]:
        """The replacement's spellings that every one of `releases` (the floor, the target; None:
        not known) and each release after it has, best first (`new` None: a migration a person
        makes, there from `since`)."""
        candidates = ((self.new, self.since), *self.also)
        return tuple(name for name, since in candidates if all(r is None or r >= since for r in releases))

    def failure_on(self, version: Version) -> str:
        """How the old spelling fails on `version` (a removed one)."""
        if isinstance(self.failure, str):
            return self.failure
        return next((how for first, how in reversed(self.failure) if version >= first), self.failure[0][1])

    @property
    def raised_later(self) -> Optional[str]:
        """The exception line of an old spelling that fails in a call it is handed to (JAX173's BlockSpec,
        in pallas_call: "TypeError: 'function' object is not iterable"): the traceback then names that
        call's line, not the old spelling's. None where the failure is the spelling's own."""
        stated = isinstance(self.failure, str) and _RAISED_IN.match(self.failure)
        return f"{stated['error']}: {stated['message']}" if stated else None

    def applies(self, target: Optional[Version], floor: Optional[Version] = None) -> bool:
        """On the target release the replacement exists and the old spelling is deprecated or gone;
        and a spelling of the replacement exists on the lowest release the project supports."""
        if target is None:
            return False
        retired = [v for v in (self.deprecated, self.removed) if v is not None]
        if not retired or target < min(retired) or not self.spellings(target):
            return False
        return bool(self.spellings(target, floor)) or (floor is not None and self.old_since is not None
                                                       and floor < self.old_since)

    def state(self, version: Version) -> str:
        """What the old spelling does on `version`: "works", "warns" or "fails" (the probe's claim)."""
        if self.removed is not None and version >= self.removed:
            return "fails"
        if self.deprecated is not None and version >= self.deprecated:
            return "warns"
        return "works"


_TREE = "jax/__init__.py _deprecations: tree_map warns from 0.4.26 (the others earlier), all fail from 0.6.0"
_NUMPY = "jax/numpy/__init__.py _deprecations (read in the released wheels)"
_PALLAS = "docs/pallas/CHANGELOG.md and jax/experimental/pallas/*.py _deprecations (read in the released wheels)"


# The oldest release whose source was read (its sdist: no jaxlib for it installs here); a `since`
# of it says "there already".
_OLDEST_READ: Version = (0, 3, 0)


def _tree(code: str, old: str, new: str, deprecated: Version) -> ApiChange:
    return ApiChange(code, f"jax-{old.replace('_', '-')}", (f"jax.{old}",), f"jax.tree.{new}", Change.RENAME,
                     since=(0, 4, 25), deprecated=deprecated, removed=(0, 6, 0), source=_TREE,
                     import_as=f"jax.tree_util.{old}", also=((f"jax.tree_util.{old}", _OLDEST_READ),))


def _rename(code: str, name: str, old: tuple[str, ...], new: str, since: Version, deprecated: Optional[Version],
            removed: Optional[Version], source: str, **more) -> ApiChange:
    return ApiChange(code, name, old, new, Change.RENAME, since, deprecated, removed, source, **more)


def _members(code: str, name: str, module: str, members: tuple[str, ...], deprecated: Optional[Version],
             removed: Optional[Version], source: str, migration: str) -> ApiChange:
    """Members a module that stays lost (jax.interpreters.xla.xe): a person migrates."""
    return ApiChange(code, name, tuple(f"{module}.{member}" for member in members), None, Change.MANUAL,
                     since=_OLDEST_READ, deprecated=deprecated, removed=removed, source=source, migration=migration)


def _gone(code: str, name: str, modules: tuple[str, ...], deprecated: Optional[Version], removed: Version, source: str,
          migration: str, members_fail_from: Optional[Version] = None, module_gone: Optional[Version] = None) -> ApiChange:
    """Removed modules: their import and every member a person migrates. Where the members went
    first (`members_fail_from`), the module's import fails from `module_gone`."""
    failure: "str | tuple[tuple[Version, str], ...]" = "ModuleNotFoundError"
    if members_fail_from is not None and module_gone is not None:
        failure = ((members_fail_from, "AttributeError"), (module_gone, "ModuleNotFoundError"))
    return ApiChange(code, name, modules, None, Change.MANUAL, modules=modules, since=_OLDEST_READ, deprecated=deprecated,
                     removed=removed, source=source, migration=migration, failure=failure)


# Versions below were read in the released wheels of every jax from 0.4.20 to 0.12.0.1 (where a
# changelog says otherwise, the wheels win); the probe re-checks them against the installed jax.
# In code order; grouped by topic below.
TABLE: tuple[ApiChange, ...] = tuple(sorted((
    # -- pytrees: the jax.tree_* aliases --
    _tree("JAX101", "tree_map", "map", (0, 4, 26)),
    _tree("JAX102", "tree_leaves", "leaves", (0, 4, 20)),
    _tree("JAX103", "tree_structure", "structure", (0, 4, 20)),
    _tree("JAX104", "tree_flatten", "flatten", (0, 4, 20)),
    _tree("JAX105", "tree_unflatten", "unflatten", (0, 4, 20)),
    _tree("JAX106", "tree_transpose", "transpose", (0, 4, 20)),
    _rename("JAX107", "jax-tree-multimap", ("jax.tree_multimap", "jax.tree_util.tree_multimap"), "jax.tree.map",
            (0, 4, 25), (0, 3, 5), (0, 3, 16), "CHANGELOG 0.3.16 (removed)", import_as="jax.tree_util.tree_map",
            also=(("jax.tree_util.tree_map", _OLDEST_READ),)),
    _rename("JAX108", "jax-treedef-is-leaf", ("jax.treedef_is_leaf",), "jax.tree_util.treedef_is_leaf",
            _OLDEST_READ, (0, 4, 20), (0, 6, 0), _TREE),
    # -- configuration and backends --
    ApiChange("JAX110", "jax-config-module", ("jax.config.config",), "jax.config", Change.IMPORT, modules=("jax.config",),
              since=_OLDEST_READ, deprecated=(0, 4, 20), removed=(0, 4, 25), failure="ImportError",
              source="jax/config.py: `from jax.config import config` warns from 0.4.20 and fails from 0.4.25; "
                     "`import jax.config` warns from 0.4.25 and fails from 0.4.29 (jax.config is an object)"),
    ApiChange("JAX111", "experimental-enable-x64", ("jax.experimental.enable_x64", "jax.experimental.disable_x64"),
              "jax.enable_x64", Change.ARGUMENTS, since=(0, 8, 0), deprecated=(0, 8, 0), removed=(0, 9, 0),
              source="jax/experimental/__init__.py _deprecations 0.8.0 (deprecated), 0.9.0 (removed)"),
    _rename("JAX112", "xla-bridge-get-backend", ("jax.lib.xla_bridge.get_backend",), "jax.extend.backend.get_backend",
            (0, 4, 32), (0, 4, 32), (0, 8, 0), "jax/lib/xla_bridge.py _deprecations 0.4.32, 0.8.0",
            failure="ModuleNotFoundError"),
    _rename("JAX113", "xla-bridge-default-backend", ("jax.lib.xla_bridge.default_backend",), "jax.default_backend",
            _OLDEST_READ, (0, 4, 32), (0, 4, 38), "jax/lib/xla_bridge.py _deprecations 0.4.32, 0.4.38",
            failure="ModuleNotFoundError"),
    _rename("JAX109", "xla-bridge-get-compile-options", ("jax.lib.xla_bridge.get_compile_options",),
            "jax.extend.backend.get_compile_options", (0, 7, 0), (0, 7, 0), (0, 8, 0),
            "jax/lib/xla_bridge.py _deprecations 0.7.0, 0.8.0; jax/extend/backend.py has it from the 0.7.0 wheel",
            failure="ModuleNotFoundError"),
    # -- transformations and types --
    _rename("JAX114", "ad-checkpoint-checkpoint", ("jax.ad_checkpoint.checkpoint",), "jax.checkpoint", _OLDEST_READ,
            (0, 8, 2), (0, 10, 0), "jax/ad_checkpoint.py _deprecations 0.8.2, 0.10.0"),
    _rename("JAX115", "ad-checkpoint-remat", ("jax.ad_checkpoint.remat",), "jax.remat", _OLDEST_READ,
            (0, 8, 2), (0, 10, 0), "jax/ad_checkpoint.py _deprecations 0.8.2, 0.10.0"),
    _rename("JAX116", "experimental-mutable-array", ("jax.experimental.mutable_array", "jax.array_ref"),
            "jax.new_ref", (0, 7, 2), (0, 8, 0), (0, 9, 0), "jax/__init__.py and jax/experimental/__init__.py "
            "_deprecations 0.8.0, 0.9.0"),
    _rename("JAX117", "experimental-mutable-array-type", ("jax.experimental.MutableArray", "jax.ArrayRef"), "jax.Ref",
            (0, 7, 2), (0, 8, 0), (0, 9, 0), "jax/__init__.py and jax/experimental/__init__.py _deprecations "
            "0.8.0, 0.9.0"),
    _rename("JAX118", "random-key-array", ("jax.random.KeyArray", "jax.random.PRNGKeyArray"), "jax.Array",
            (0, 4, 1), (0, 4, 16), (0, 4, 24), "CHANGELOG 0.4.16 (deprecated), 0.4.24 (removed)",
            migration="an isinstance() check needs jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key), not "
                      "jax.Array: only annotations are rewritten", annotations_only=True,
            also=(("jax.numpy.ndarray", _OLDEST_READ),)),  # jax.Array's name in jax.numpy from 0.4.1
    _rename("JAX119", "nn-normalize", ("jax.nn.normalize",), "jax.nn.standardize", (0, 4, 0), (0, 4, 21),
            (0, 4, 29), "jax/nn/__init__.py _deprecations 0.4.21, 0.4.29"),
    # jax.core's public names that moved to jax.extend.core, in three waves (the wheels'
    # jax/core.py _deprecations and jax/extend/core/__init__.py, 0.4.20 to 0.12.0.1)
    ApiChange("JAX122", "core-to-extend-core", tuple(f"jax.core.{name}" for name in (
                  "Jaxpr", "JaxprEqn", "Literal", "Primitive", "Token", "Var", "jaxpr_as_fun")),
              "jax.extend.core", Change.RENAME, since=(0, 4, 28), deprecated=(0, 4, 38), removed=(0, 6, 0),
              moves_members=True, source="jax/core.py _deprecations 0.4.38, finalized 0.6.0; jax/extend/core has "
              "them from the 0.4.28 wheel"),
    # The first wave's ClosedJaxpr, a row of its own: from 0.11.0 jax.extend.core.ClosedJaxpr is Jaxpr
    # itself (jax/_src/core.py: `ClosedJaxpr = Jaxpr`, and `Jaxpr.jaxpr` returns self; 0.10.2 still has
    # the class), so `isinstance(x, ClosedJaxpr): recurse(x.jaxpr)` never ends there (dm-haiku's
    # jaxpr_info, bench/TRIAL_2026-12-06.md B5): a rename is right only for targets before 0.11.0.
    _rename("JAX137", "core-closed-jaxpr", ("jax.core.ClosedJaxpr",), "jax.extend.core.ClosedJaxpr", (0, 4, 28),
            (0, 4, 38), (0, 6, 0), "jax/core.py _deprecations 0.4.38, finalized 0.6.0; jax/_src/core.py of the "
            "0.11.0, 0.11.1, 0.11.2 and 0.12.0 wheels: ClosedJaxpr = Jaxpr",
            superseded=(0, 11, 0), superseded_as="is Jaxpr itself",
            migration="every Jaxpr is a ClosedJaxpr there and its .jaxpr is itself: an isinstance() test is always "
                      "true and code that recurses into .jaxpr never ends; test for jax.extend.core.Jaxpr and read "
                      "its consts and eqns directly"),
    ApiChange("JAX123", "core-to-extend-core-0-8", tuple(f"jax.core.{name}" for name in (
                  "AbstractToken", "TraceTag", "set_current_trace", "subjaxprs", "mapped_aval", "unmapped_aval",
                  "take_current_trace")),
              "jax.extend.core", Change.RENAME, since=(0, 10, 0), deprecated=(0, 8, 2), removed=(0, 10, 0),
              moves_members=True, source="jax/core.py _deprecations 0.8.2, finalized 0.10.0; jax/extend/core has "
              "them all from the 0.10.0 wheel (mapped_aval from 0.9.0, take_current_trace from 0.9.2)"),
    ApiChange("JAX124", "core-to-extend-core-0-10", tuple(f"jax.core.{name}" for name in (
                  "DebugInfo", "DropVar", "Effect", "Effects", "InconclusiveDimensionOperation", "JaxprTypeError",
                  "check_jaxpr", "concrete_or_error", "find_top_trace", "gensym", "get_opaque_trace_state",
                  "jaxprs_in_params", "new_jaxpr_eqn", "no_effects", "primal_dtype_to_tangent_dtype", "valid_jaxtype")),
              "jax.extend.core", Change.RENAME, since=(0, 10, 0), deprecated=(0, 10, 0), removed=(0, 11, 0),
              moves_members=True, source="jax/core.py _deprecations 0.10.0, finalized 0.11.0; jax/extend/core has "
              "them from the 0.10.0 wheel"),
    _rename("JAX126", "core-get-aval", ("jax.core.get_aval",), "jax.typeof", (0, 5, 3), (0, 8, 2), (0, 10, 0),
            "jax/core.py _deprecations 0.8.2, finalized 0.10.0; jax.typeof in the 0.5.3 wheel (0.5.1 and 0.5.2 "
            "not read)"),
    ApiChange("JAX120", "device-buffer", (".device_buffer",), ".addressable_data(0)", Change.ATTRIBUTE,
              since=(0, 4, 1), deprecated=(0, 4, 22), removed=(0, 4, 27),
              source="CHANGELOG 0.4.22 (deprecated), 0.4.27 (removed)"),
    ApiChange("JAX121", "device-buffers", (".device_buffers",), ".addressable_shards", Change.ATTRIBUTE,
              since=(0, 4, 1), deprecated=(0, 4, 22), removed=(0, 4, 27),
              source="CHANGELOG 0.4.22 (deprecated), 0.4.27 (removed)"),
    # -- layouts: two renames at once in 0.7.0 (Layout -> Format, then DeviceLocalLayout -> Layout) --
    ApiChange("JAX125", "layout-renames", ("jax.experimental.layout.DeviceLocalLayout",),
              "jax.experimental.layout.Layout", Change.RENAME, since=(0, 7, 0), deprecated=None, removed=(0, 7, 0),
              source="jax/_src/layout.py at the 0.6.2 and 0.7.0 tags: DeviceLocalLayout became Layout, and the old "
                     "Layout became Format, in one release without a deprecation",
              migration="the old Layout becomes Format in the same fix: one rename alone would change what "
                        "Layout means"),
    *(ApiChange(code, f"layout-attribute-{old.replace('_', '-')}", (f".{old}",), f".{new}", Change.ATTRIBUTE,
                since=(0, 7, 0), deprecated=None, removed=(0, 7, 0), source="CHANGELOG 0.7.0")
      for code, old, new in (("JAX127", "device_local_layout", "layout"), ("JAX128", "input_layouts", "input_formats"),
                             ("JAX129", "output_layouts", "output_formats"))),
    # -- sharding --
    ApiChange("JAX130", "pjit", ("jax.experimental.pjit.pjit",), "jax.jit", Change.ARGUMENTS,
              since=(0, 4, 0), deprecated=(0, 8, 0), removed=None,
              source="jax/experimental/pjit.py: warns from 0.8.0 (jax.jit takes its shardings as keywords only "
                     "from 0.6.0)"),
    _rename("JAX131", "pjit-with-sharding-constraint", ("jax.experimental.pjit.with_sharding_constraint",),
            "jax.lax.with_sharding_constraint", (0, 4, 0), (0, 4, 16), (0, 4, 24),
            "jax/experimental/pjit.py _deprecations 0.4.16, 0.4.24"),
    ApiChange("JAX132", "experimental-shard-map", ("jax.experimental.shard_map.shard_map",), "jax.shard_map",
              Change.ARGUMENTS, since=(0, 6, 1), deprecated=(0, 8, 0), removed=None,
              source="jax/experimental/shard_map.py: warns from 0.8.0, kept as a legacy API; jax.shard_map "
                     "takes mesh, in_specs and out_specs as keywords, and check_vma for check_rep"),
    _rename("JAX133", "sharding-use-mesh", ("jax.sharding.use_mesh",), "jax.set_mesh", (0, 7, 1), None, (0, 7, 1),
            "jax/sharding.py: removed in 0.7.1 without a deprecation; jax.set_mesh since 0.7.1"),
    ApiChange("JAX134", "mesh-context-manager", ("with Mesh",), "jax.set_mesh", Change.MANUAL,
              since=(0, 7, 1), deprecated=(0, 10, 1), removed=None, source="CHANGELOG 0.10.1",
              words=(b"Mesh", b"mesh", b"make_mesh"),  # `m = jax.make_mesh(...)` then `with m:`
              migration="`with mesh:` -> `with jax.set_mesh(mesh):`; set_mesh also sets the abstract mesh "
                        "(jax.sharding.get_abstract_mesh()) that explicit-sharding code reads"),
    ApiChange("JAX135", "positional-sharding", ("jax.sharding.PositionalSharding", "jax.sharding.GSPMDSharding"),
              "jax.sharding.NamedSharding", Change.MANUAL, since=(0, 4, 0), deprecated=(0, 6, 0), removed=(0, 7, 0),
              source="jax/sharding.py _deprecations 0.6.0, 0.7.0",
              migration="build a jax.sharding.Mesh and use jax.sharding.NamedSharding(mesh, PartitionSpec(...))"),
    ApiChange("JAX136", "pmap-sharding", ("jax.sharding.PmapSharding",), "jax.sharding.NamedSharding",
              Change.MANUAL, since=(0, 4, 0), deprecated=(0, 8, 1), removed=(0, 10, 0),
              source="jax/sharding.py _deprecations 0.8.1; gone in 0.10.0",
              migration="use jax.sharding.NamedSharding over a Mesh (see jax's pmap migration guide)"),
    # -- numpy and nn --
    ApiChange("JAX140", "jnp-clip-a-min", ("jax.numpy.clip",), "jax.numpy.clip", Change.ARGUMENTS,
              since=(0, 4, 27), deprecated=(0, 4, 27), removed=(0, 10, 0), failure="TypeError",
              source="jax/_src/numpy: a=, a_min=, a_max= warn from 0.4.27 and fail from 0.10.0",
              # by position, `jnp.clip(x, lo, hi)` runs from 0.3.0 (clip(a, a_min, a_max)) to 0.12
              also=(("jax.numpy.clip", _OLDEST_READ),)),
    _rename("JAX141", "jnp-round-underscore", ("jax.numpy.round_",), "jax.numpy.round", _OLDEST_READ, (0, 4, 32),
            (0, 4, 38), _NUMPY),
    _rename("JAX142", "jnp-row-stack", ("jax.numpy.row_stack",), "jax.numpy.vstack", _OLDEST_READ, (0, 4, 20),
            (0, 4, 24), _NUMPY),
    _rename("JAX143", "jnp-trapz", ("jax.numpy.trapz",), "jax.numpy.trapezoid", (0, 4, 26), (0, 4, 20),
            (0, 4, 24), _NUMPY),
    _rename("JAX144", "jnp-fix", ("jax.numpy.fix",), "jax.numpy.trunc", _OLDEST_READ, (0, 9, 0), (0, 10, 0), _NUMPY),
    _rename("JAX145", "jnp-product", ("jax.numpy.product",), "jax.numpy.prod", _OLDEST_READ, (0, 4, 12), (0, 4, 16),
            _NUMPY),
    _rename("JAX146", "jnp-cumproduct", ("jax.numpy.cumproduct",), "jax.numpy.cumprod", _OLDEST_READ, (0, 4, 12),
            (0, 4, 16), _NUMPY),
    _rename("JAX147", "jnp-sometrue", ("jax.numpy.sometrue",), "jax.numpy.any", _OLDEST_READ, (0, 4, 12), (0, 4, 16),
            _NUMPY),
    _rename("JAX148", "jnp-alltrue", ("jax.numpy.alltrue",), "jax.numpy.all", _OLDEST_READ, (0, 4, 12), (0, 4, 16),
            _NUMPY),
    _rename("JAX149", "jnp-device-array", ("jax.numpy.DeviceArray",), "jax.Array", (0, 4, 1), (0, 4, 7), (0, 4, 14),
            _NUMPY, migration="an isinstance() check: isinstance(x, jax.Array) also holds for tracers",
            annotations_only=True, also=(("jax.numpy.ndarray", _OLDEST_READ),)),
    # -- Pallas --
    ApiChange("JAX150", "pallas-dot", ("jax.experimental.pallas.dot",), "jax.numpy.dot", Change.ARGUMENTS,
              since=(0, 4, 0), deprecated=(0, 10, 2), removed=(0, 11, 2),
              source="jax/experimental/pallas/__init__.py _deprecations: warns from 0.10.2, fails from 0.11.2",
              migration="in Triton kernels: jax.experimental.pallas.triton.dot"),
    _rename("JAX151", "tpu-compiler-params", ("jax.experimental.pallas.tpu.TPUCompilerParams",),
            "jax.experimental.pallas.tpu.CompilerParams", (0, 6, 2), (0, 6, 2), (0, 7, 2), _PALLAS,
            old_since=(0, 4, 32)),  # absent from the 0.4.31 wheel's jax/experimental/pallas/tpu.py
    _rename("JAX152", "tpu-memory-space", ("jax.experimental.pallas.tpu.TPUMemorySpace",),
            "jax.experimental.pallas.tpu.MemorySpace", (0, 6, 2), (0, 6, 2), (0, 7, 2), _PALLAS),
    _rename("JAX153", "triton-compiler-params", ("jax.experimental.pallas.triton.TritonCompilerParams",),
            "jax.experimental.pallas.triton.CompilerParams", (0, 6, 2), (0, 6, 2), (0, 7, 2), _PALLAS),
    _rename("JAX154", "tpu-any", ("jax.experimental.pallas.tpu.ANY",), "jax.experimental.pallas.ANY", (0, 4, 34),
            (0, 8, 2), (0, 10, 0), _PALLAS),
    _rename("JAX155", "tpu-delay", ("jax.experimental.pallas.tpu.delay",), "jax.experimental.pallas.delay",
            (0, 8, 1), (0, 8, 1), (0, 10, 0), _PALLAS),
    _rename("JAX156", "tpu-kernel-type", ("jax.experimental.pallas.tpu.KernelType",),
            "jax.experimental.pallas.tpu.CoreType", (0, 9, 1), (0, 9, 1), (0, 10, 2), _PALLAS),
    _rename("JAX157", "tpu-host", ("jax.experimental.pallas.tpu.HOST",), "jax.experimental.pallas.HOST", (0, 7, 0),
            (0, 10, 2), (0, 11, 2), _PALLAS),
    # Members of pltpu.MemorySpace that left the enum without a deprecation (an enum member cannot
    # warn): where JAX152's `pltpu.TPUMemorySpace.ANY` lands on a target past them (`landing`).
    _rename("JAX167", "tpu-memory-space-any", ("jax.experimental.pallas.tpu.MemorySpace.ANY",),
            "jax.experimental.pallas.ANY", (0, 4, 34), None, (0, 8, 2),
            "jax/_src/pallas/mosaic/core.py: MemorySpace.ANY in the 0.6.2 to 0.8.1 wheels, not in 0.8.2's"),
    _rename("JAX168", "tpu-memory-space-host", ("jax.experimental.pallas.tpu.MemorySpace.HOST",),
            "jax.experimental.pallas.HOST", (0, 7, 0), None, (0, 10, 2),
            "jax/_src/pallas/mosaic/core.py: MemorySpace.HOST in the 0.7.0 to 0.10.1 wheels, not in 0.10.2's"),
    *(_rename(code, f"tpu-{name.replace('_', '-').lower()}", (f"jax.experimental.pallas.tpu.{name}",),
              f"jax.experimental.pallas.{name}", (0, 6, 0), (0, 10, 0), (0, 11, 0), _PALLAS)
      for code, name in (("JAX158", "semaphore_read"), ("JAX159", "semaphore_signal"), ("JAX160", "semaphore_wait"))),
    _rename("JAX169", "tpu-semaphore", ("jax.experimental.pallas.tpu.semaphore",), "jax.experimental.pallas.semaphore",
            (0, 6, 0), (0, 10, 0), (0, 11, 0), _PALLAS + "; both are jax._src.pallas.core.semaphore"),
    _rename("JAX161", "tpu-deviceidtype", ("jax.experimental.pallas.tpu.DeviceIdType",),
            "jax.experimental.pallas.DeviceIdType", (0, 6, 0), (0, 10, 0), (0, 11, 0),
            _PALLAS + "; pl.DeviceIdType and device_id_type= warn from 0.12.0 (jax/_src/pallas/primitives.py)",
            superseded=(0, 12, 0),
            migration="drop device_id_type=DeviceIdType.MESH (the default); for LOGICAL, pass the device's "
                      "mesh coordinates as device_id"),
    *(_rename(code, f"pallas-{name.replace('_', '-')}", (f"jax.experimental.pallas.{name}",),
              f"jax.experimental.pallas.triton.{name}", (0, 7, 1), (0, 7, 1), (0, 9, 0), _PALLAS)
      for code, name in (("JAX162", "atomic_add"), ("JAX163", "atomic_max"), ("JAX164", "atomic_min"),
                         ("JAX165", "atomic_xchg"), ("JAX166", "atomic_cas"))),
    ApiChange("JAX138", "jit-backend-device", ("jax.jit",), None, Change.MANUAL, since=_OLDEST_READ,
              deprecated=(0, 4, 20), removed=None, keywords=("backend", "device"), words=(b"backend", b"device"),
              failure="DeprecationWarning (it still runs)",
              source="jax/_src/pjit.py: 'backend and device argument on jit is deprecated' in every wheel from 0.4.20 "
                     "(the oldest read) to 0.12.0.1",
              migration="drop backend=/device= and put the inputs where they should run: jax.device_put(x, "
                        "jax.local_devices(backend='cpu')[0]) (jax's own message)"),
    ApiChange("JAX139", "pallas-atomic-bitwise", tuple(f"jax.experimental.pallas.{name}" for name in (
                  "atomic_and", "atomic_or", "atomic_xor")), "jax.experimental.pallas.triton", Change.RENAME,
              since=(0, 7, 1), deprecated=(0, 7, 1), removed=(0, 9, 0), moves_members=True, source=_PALLAS),
    ApiChange("JAX170", "tpu-repeat", ("jax.experimental.pallas.tpu.repeat",), "jax.numpy.tile", Change.ARGUMENTS,
              since=(0, 4, 0), deprecated=(0, 9, 1), removed=(0, 10, 2), source=_PALLAS),
    ApiChange("JAX171", "pallas-load-store", ("jax.experimental.pallas.load", "jax.experimental.pallas.store"),
              None, Change.ARGUMENTS, since=(0, 4, 0), deprecated=(0, 7, 1), removed=(0, 9, 0), source=_PALLAS,
              migration="a masked load or store: jax.experimental.pallas.triton.load(ref.at[idx], mask=...) / "
                        "store(ref.at[idx], value, mask=...) in Triton kernels (since 0.7.1)"),
    ApiChange("JAX172", "compiler-params-dict", ("compiler_params=dict",),
              "jax.experimental.pallas.tpu.CompilerParams", Change.ARGUMENTS, since=(0, 6, 2), deprecated=None,
              removed=(0, 6, 1), words=(b"compiler_params",), failure=(((0, 6, 1), "ValueError"), ((0, 9, 1), "TypeError")),
              source=_PALLAS),
    ApiChange("JAX173", "block-spec-argument-order", ("jax.experimental.pallas.BlockSpec",),
              "jax.experimental.pallas.BlockSpec", Change.ARGUMENTS, since=(0, 4, 31), deprecated=(0, 4, 31),
              removed=(0, 4, 35), failure="TypeError in pallas_call ('function' object is not iterable)",
              replacement="pl.BlockSpec's new argument order (block_shape, index_map)", source=_PALLAS),
    # -- removed modules and semantic changes: a person migrates --
    ApiChange("JAX190", "host-callback", ("jax.experimental.host_callback",), None, Change.MANUAL,
              modules=("jax.experimental.host_callback",),
              since=(0, 4, 0), deprecated=(0, 4, 26), removed=(0, 4, 35),
              failure=(((0, 4, 35), "NotImplementedError"), ((0, 8, 0), "ModuleNotFoundError")), source="CHANGELOG 0.4.26, 0.4.35, 0.8.0",
              migration="id_tap/id_print -> jax.debug.callback/jax.debug.print; call -> jax.pure_callback or "
                        "jax.experimental.io_callback"),
    ApiChange("JAX191", "make-mesh-axis-types", ("jax.make_mesh",), None, Change.MANUAL,
              since=(0, 5, 0), deprecated=(0, 8, 1), removed=(0, 9, 0), failure="a different default (Explicit axes)",
              source="jax/_src/sharding_impls.py: make_mesh warns without axis_types from 0.8.1; the default is "
                     "Explicit from 0.9.0",
              migration="pass axis_types=(jax.sharding.AxisType.Auto,) * len(axis_names) to keep the old "
                        "behaviour, or adopt explicit sharding"),
    # Found by bench/peers.py in chex 0.1.85's own suite (bench/UPGRADE_SWEEP.md): removed, no mechanical
    # replacement, so [manual] rather than silence.
    ApiChange("JAX192", "device-put-sharded", ("jax.device_put_sharded",), None, Change.MANUAL,
              since=(0, 4, 1), deprecated=(0, 8, 1), removed=(0, 10, 0), source="CHANGELOG 0.8.1, 0.10.0",
              migration="jax.device_put(jnp.stack(shards), NamedSharding(mesh, P('x'))), or "
                        "jax.make_array_from_single_device_arrays (docs: migrate_pmap, drop-in replacements)"),
    ApiChange("JAX193", "device-put-replicated", ("jax.device_put_replicated",), None, Change.MANUAL,
              since=(0, 4, 1), deprecated=(0, 8, 1), removed=(0, 10, 0), source="CHANGELOG 0.8.1, 0.10.0",
              migration="jax.device_put(jnp.stack([x] * len(devices)), NamedSharding(mesh, P('x'))) (docs: "
                        "migrate_pmap, drop-in replacements)"),
    ApiChange("JAX194", "jax-util", tuple(f"jax.util.{name}" for name in (
                  "safe_map", "safe_zip", "unzip2", "unzip3", "split_list", "partition_list", "cache", "memoize",
                  "weakref_lru_cache", "wraps", "curry", "toposort", "HashableFunction", "subvals", "split_dict",
                  "concatenate", "tuple_insert", "tuple_delete", "prod")) + ("jax.util",),  # and any other member
              None, Change.MANUAL, modules=("jax.util",), since=(0, 4, 1), deprecated=(0, 6, 0), removed=(0, 7, 0),
              failure=(((0, 7, 0), "AttributeError"), ((0, 8, 0), "ModuleNotFoundError")),
              source="CHANGELOG 0.6.0 (deprecated), 0.7.0 (members removed), 0.8.0 (module removed)",
              migration="jax.util was internal: copy the helper into your code (unzip2: tuple(map(list, zip(*xs))); "
                        "safe_map/safe_zip: map/zip(..., strict=True))"),
    # -- members of emptied modules and removed modules (issue 49, item 3: dm-haiku 0.0.12 fails to
    # import on jax 0.12 at jax.interpreters.xla.xe): versions read in the `_deprecations` tables and
    # file lists of the wheels 0.4.20 to 0.12.0.1, each module imported on 0.4.13, 0.4.30, 0.6.2,
    # 0.10.2 and 0.12.0.1 (docs/upgrading-jax.md, "Removed and emptied modules") --
    # jax.core's tracing internals before the 'stackless' rewrite: read as jax_core.X by dm-haiku 0.0.10
    # (base.py, dot.py; bench/TRIAL_2026-12-06.md B4). There in the 0.4.30 wheel, gone in 0.6.2's.
    _members("JAX100", "core-stackless-internals", "jax.core",
             ("thread_local_state", "cur_sublevel", "new_main", "new_base_main", "find_cur_trace"), None, (0, 4, 36),
             "CHANGELOG 0.4.36 (the stackless tracing rewrite: removed without deprecation); imported on 0.4.30 and "
             "0.6.2", "the trace stack is gone: jax.extend.core.get_opaque_trace_state() stands for what "
             "cur_sublevel()/thread_local_state identified; new_main/new_base_main have no successor (write a "
             "custom_jvp/custom_vjp or a jax.extend.core.Primitive instead)"),
    _members("JAX180", "interpreters-xla-lib-aliases", "jax.interpreters.xla", ("xb", "xc", "xe"), (0, 4, 31),
             (0, 4, 36), "jax/interpreters/xla.py _deprecations: added in the 0.4.31 wheel, finalized in 0.4.36's",
             "xb -> jax.extend.backend (get_backend); xc and xe were jaxlib's xla_client and xla_extension, with no "
             "public successor: XlaRuntimeError -> jax.errors.JaxRuntimeError, Device -> jax.Device"),
    _members("JAX181", "interpreters-xla-translations", "jax.interpreters.xla",
             ("translations", "register_translation", "backend_specific_translations", "xla_destructure",
              "TranslationRule", "TranslationContext", "XlaOp"), (0, 4, 20), (0, 4, 29),
             "jax/interpreters/xla.py _deprecations: warn in the 0.4.20 wheel (the oldest read), finalized in 0.4.29's",
             "XLA translation rules are gone: register an MLIR lowering with jax.interpreters.mlir.register_lowering "
             "(a custom call: jax.ffi)"),
    _members("JAX182", "interpreters-xla-abstractify", "jax.interpreters.xla", ("abstractify", "pytype_aval_mappings"),
             (0, 5, 0), (0, 7, 0), "jax/interpreters/xla.py _deprecations 0.5.0 (deprecated), 0.7.0 (finalized)",
             "abstractify(x) -> jax.typeof(x) (jax.core.get_aval(x) before jax 0.5.3); pytype_aval_mappings has no "
             "public successor"),
    _members("JAX183", "interpreters-xla-canonicalize-dtype", "jax.interpreters.xla", ("canonicalize_dtype",),
             (0, 7, 0), (0, 8, 0), "jax/interpreters/xla.py _deprecations 0.7.0 (deprecated), 0.8.0 (finalized)",
             "it canonicalized values: for a dtype, jax.dtypes.canonicalize_dtype; to check for a valid jax input, "
             "jax.core.valid_jaxtype"),
    _members("JAX184", "interpreters-pxla-pmap", "jax.interpreters.pxla",
             ("MapTracer", "PmapExecutable", "parallel_callable", "shard_args", "xla_pmap_p", "Chunked", "NoSharding",
              "Replicated", "ShardedAxis", "ShardingSpec", "Unstacked", "spec_to_indices"), (0, 8, 2), (0, 10, 0),
             "jax/interpreters/pxla.py _deprecations 0.8.2 (deprecated), finalized in the 0.10.0 wheel",
             "pmap's internals: use jax.shard_map, or jax.jit with a NamedSharding (jax's pmap migration guide); "
             "ShardingSpec indices -> sharding.devices_indices_map(shape)"),
    _members("JAX185", "interpreters-pxla-internals", "jax.interpreters.pxla",
             ("ArrayMapping", "Index", "MeshAxisName", "MeshExecutable", "are_hlo_shardings_equal",
              "array_mapping_to_axis_resources", "global_aval_to_result_handler", "global_result_handlers",
              "is_hlo_sharding_replicated", "op_sharding_to_indices"), (0, 8, 2), (0, 11, 0),
             "jax/interpreters/pxla.py _deprecations 0.8.2 (deprecated), finalized in the 0.11.0 wheel",
             "internals with no public successor: jax.sharding (NamedSharding, PartitionSpec) for what they described, "
             "or copy the helper"),
    _members("JAX186", "interpreters-pxla-thread-resources", "jax.interpreters.pxla",
             ("thread_resources", "MeshComputation", "global_avals_to_results_handler"), (0, 8, 2), None,
             "jax/interpreters/pxla.py _deprecations 0.8.2; still deprecated in 0.12.0.1",
             "pxla.thread_resources.env.physical_mesh -> jax.sharding.get_abstract_mesh() inside jax.set_mesh(mesh) "
             "(CHANGELOG 0.8.2); MeshComputation and global_avals_to_results_handler are internal"),
    _gone("JAX187", "lib-xla-client", ("jax.lib.xla_client", "jax.lib.xla_extension"), (0, 4, 35), (0, 8, 0),
          "jax/lib/xla_client.py and xla_extension.py _deprecations from 0.4.35 and 0.6.0, every member finalized by "
          "0.8.0, the files gone from 0.9.0",
          "XlaRuntimeError -> jax.errors.JaxRuntimeError, Device -> jax.Device, FftType -> jax.lax.FftType, ArrayImpl "
          "-> jax.Array; the rest (Client, OpSharding, HloSharding, ...) has no public successor",
          members_fail_from=(0, 8, 0), module_gone=(0, 9, 0)),
    _gone("JAX188", "linear-util-prng", ("jax.linear_util", "jax.prng"), (0, 4, 16), (0, 4, 24), "CHANGELOG 0.4.16, "
          "0.4.24; gone from the 0.4.25 wheel", "jax.linear_util -> jax.extend.linear_util; jax.prng -> jax.extend.random"),
    _gone("JAX189", "experimental-maps", ("jax.experimental.maps",), (0, 4, 26), (0, 4, 31),
          "CHANGELOG 0.4.26 (warns on import), 0.4.31 (deleted)",
          "xmap -> jax.shard_map (or jax.vmap(spmd_axis_name=...)); maps.Mesh -> jax.sharding.Mesh"),
    _gone("JAX174", "experimental-export", ("jax.experimental.export",), (0, 4, 30), (0, 4, 36),
          "jax/experimental/export/__init__.py _deprecations in the 0.4.30 wheel; the package gone from 0.4.36",
          "-> jax.export (export.export, symbolic_shape, ...; lowering_platforms= -> platforms=)"),
    _gone("JAX175", "experimental-array-api", ("jax.experimental.array_api",), (0, 4, 32), (0, 5, 0),
          "CHANGELOG 0.4.32 (warns on import), 0.5.0 (removed)", "jax.numpy is the array API namespace"),
    _gone("JAX176", "extend-ffi", ("jax.extend.ffi",), (0, 5, 0), (0, 7, 0),
          "jax/extend/ffi.py _deprecations 0.5.0, finalized 0.7.0; the file gone from 0.8.0",
          "-> jax.ffi (ffi_call, ffi_lowering, include_dir, pycapsule)", members_fail_from=(0, 7, 0),
          module_gone=(0, 8, 0)),
    _gone("JAX177", "pallas-gpu-module", ("jax.experimental.pallas.gpu",), (0, 4, 34), (0, 6, 1),
          "docs/pallas/CHANGELOG.md 0.4.34; the module gone from the 0.6.1 wheel",
          "the Triton backend's module: jax.experimental.pallas.triton"),
    _gone("JAX178", "experimental-shard", ("jax.experimental.shard",), None, (0, 7, 0),
          "jax/experimental/shard.py in the 0.5.3 to 0.6.2 wheels, gone from 0.7.0 (CHANGELOG 0.7.0)",
          "reshard, auto_axes, explicit_axes -> jax.sharding.reshard / auto_axes / explicit_axes"),
    _gone("JAX179", "cloud-tpu-init", ("jax.cloud_tpu_init",), (0, 8, 1), (0, 11, 0),
          "CHANGELOG 0.8.1 (warns on import); gone from the 0.11.0 wheel",
          "delete the call: jax initializes Cloud TPU itself"),
    _gone("JAX196", "experimental-x64-context", ("jax.experimental.x64_context",), (0, 8, 0), (0, 10, 0),
          "jax/experimental/x64_context.py _deprecations from 0.8.0; the file gone from 0.10.0",
          "enable_x64() / disable_x64() -> jax.enable_x64(True) / jax.enable_x64(False) (jax >= 0.8.0)"),
    ApiChange("JAX198", "dlpack-to-dlpack", ("jax.dlpack.to_dlpack",), None, Change.MANUAL, since=_OLDEST_READ,
              deprecated=(0, 6, 0), removed=(0, 7, 0), source="jax/dlpack.py _deprecations 0.6.0, finalized 0.7.0",
              migration="hand the jax.Array itself to the consumer's from_dlpack (it implements __dlpack__): "
                        "torch.utils.dlpack.from_dlpack(x), np.from_dlpack(x)"),
    ApiChange("JAX199", "random-shuffle", ("jax.random.shuffle",), None, Change.MANUAL, since=_OLDEST_READ,
              deprecated=(0, 4, 25), removed=(0, 4, 31),
              source="jax/random.py _deprecations: warns in the 0.4.25 wheel (CHANGELOG 0.4.21), finalized in 0.4.31's",
              migration="jax.random.shuffle(key, x, axis) -> jax.random.permutation(key, x, axis, independent=True)"),
    _gone("JAX197", "experimental-attrs", ("jax.experimental.attrs",), None, (0, 7, 0),
          "jax/experimental/attrs.py in the 0.4.25 to 0.6.2 wheels, gone from 0.7.0",
          "no successor: state in jax.Ref (jax.new_ref) where it fits"),
    # Every other use of the module (chex's fake.py reads `jax.lib.xla_bridge._backends`): JAX112 and
    # JAX113 fix the two members with a public replacement; the outer name matches those rows first.
    ApiChange("JAX195", "xla-bridge-module", ("jax.lib.xla_bridge",), None, Change.MANUAL,
              modules=("jax.lib.xla_bridge",), since=(0, 4, 0), deprecated=(0, 4, 32), removed=(0, 8, 0),
              failure="ModuleNotFoundError", source="jax/lib/xla_bridge.py: 0.4.30 exports "
              "_backends, xla_client and get_compile_options; 0.6.2 only get_compile_options and the deprecated "
              "get_backend; the module is gone from 0.8.0 (CHANGELOG 0.8.0)",
              migration="get_backend -> jax.extend.backend.get_backend, default_backend -> jax.default_backend; "
                        "the private members (_backends, xla_client) have no public replacement: chex 0.1.92 reads "
                        "jax._src.xla_bridge._backends, which can change in any release"),
    # -- JAX1000 on: the JAX1xx rows continued, once JAX100-JAX199 were taken (docs/upgrading-jax.md, "Codes") --
    ApiChange("JAX1000", "xla-computation", ("jax.xla_computation",), "jax.jit", Change.ARGUMENTS, since=(0, 4, 13),
              deprecated=(0, 4, 30), removed=(0, 4, 34),
              source="jax/__init__.py _deprecations: warns in the 0.4.30 wheel, gone from the 0.6.2 wheel (CHANGELOG "
                     "0.4.30: deprecated, 0.4.34: removed); the replacement read in the 0.4.13 wheel, the oldest "
                     "installed here",
              replacement="jax.jit(f).lower(*args).compiler_ir('hlo')",
              migration="The fix is unsafe: the HLO is jax.jit's (module jit_<f>, a single result not in a tuple). "
                        "A keyword of the old call is left to a person: backend=B -> jax.jit(f).trace(*args)"
                        ".lower(lowering_platforms=(B,)).compiler_ir('hlo'); static_argnums and donate_argnums go to "
                        "jax.jit; return_shape=True -> lowered.out_info; axis_env, in_parts, out_parts, tuple_args "
                        "and instantiate_const_outputs have no replacement."),
), key=lambda row: code_order(row.code)))


def retiring(name: str, target: Version) -> tuple[ApiChange, ...]:
    """The rows that retire `name` (or a name it starts with: `pltpu.MemorySpace` in
    `pltpu.MemorySpace.ANY`) by `target`."""
    return tuple(dict.fromkeys(row for row in TABLE for old in row.old if (name == old or name.startswith(old + "."))
                               and row.state(target) != "works" and not row.keywords))


def landing(new: str, members: Sequence[str], target: Version, floor: Optional[Version] = None) -> tuple[str, int]:
    """Where a fix that writes `new`, read with the attributes `members` after it, lands on
    `target`: through each rename that target and floor apply to the name written or to one it
    starts with (`pltpu.TPUMemorySpace.ANY` -> `pltpu.MemorySpace.ANY` -> `pl.ANY` from jax 0.8.2),
    in the spelling the floor has too. Returns the spelling and how many of `members` it took in (`.ANY`: 1)."""
    head, tail, took = new.split("."), list(members), 0
    for _ in TABLE:  # each step follows one row: a cycle in the table ends here
        written = head + tail
        step = next(((row, old) for row in TABLE if row.change is Change.RENAME and row.applies(target)
                     and row.spellings(floor, target) and (row.superseded is None or target < row.superseded)
                     for old in (o.split(".") for o in row.old) if written[:len(old)] == old), None)
        if step is None:
            break
        row, old = step
        beyond = max(0, len(old) - len(head))  # members the old spelling takes in
        spelling = row.replacement_of(".".join(old), row.spellings(floor, target)[0])
        assert spelling is not None
        head, tail, took = spelling.split(".") + head[len(old):], tail[beyond:], took + beyond
    return ".".join(head), took
