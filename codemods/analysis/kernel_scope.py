"""Which code runs inside a Pallas kernel body.

Only kernel bodies go through the Mosaic lowerings that reject per-operand precision and accuracy
hints; the same call outside a kernel is honoured by XLA and must not change. A function is a kernel
body when it is handed to a kernel launcher (call or decorator form, directly, through a variable,
through `functools.partial`, or as what a kernel factory returns), and so is every function such a
body refers to in the same module.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Callable, Iterable, Iterator, Mapping, Optional

from codemods.analysis.flow.flow_facts import NO_FLOW, Backends, FlowFacts
from codemods.analysis.kernel_backends import (  # (the rules and the link read them from here too)
    BACKEND_MODULES, BACKEND_NAMES, BACKEND_WORDS, LAUNCHERS, MOSAIC_GPU, MOSAIC_TPU, TRITON, LaunchBackends,
    describe_backends,
)
from codemods.analysis.module import FUNCTIONS, MAX_ALIAS_DEPTH, Binding, FunctionNode, ModuleIndex, ordered_arguments
from codemods.analysis.names import PARTIAL, Argument, find_arg, value_of
from codemods.analysis.value_containers import constant_index
from codemods.analysis.value_graph import Bound, Foreign, ForeignResult, Function, Mapping, Sequence, Unknown
from codemods.analysis.value_flow import ValueFlow

# Every kernel launcher lives under jax.experimental.pallas: a file without this word launches no kernel.
KERNEL_MARKER = b"pallas"
# A parameter named as kernel bodies name their refs (`x_ref`, `o_refs`): a function that takes one
# and whose launch the analysis did not find may still run in a kernel, launched in a way it does
# not follow (`importlib`, a table of launchers, ...): a [manual] note says so
# (`_MaybeKernels.find_unlaunched_bodies`).
# On bytes: a def with such a parameter (defaults and annotations nested two calls deep at most),
# in code that passes a precision or an accuracy by keyword (what such a note can be about).
REF_PARAMETER = re.compile(rb"\bdef[ \t]+\w+[ \t]*\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*?\w_refs?\b")
HINT_KEYWORD = re.compile(rb"\b(?:precision|accuracy)[ \t]*=")
# The same in a module's text: without it, a module's scope is not worked out for that note alone
# (a wall passed by position only, `lax.dot_general(a, b, dims, PAIR)`, gets no such note).
_HINT_IN_TEXT = re.compile(HINT_KEYWORD.pattern.decode())
NO_LAUNCH_FOUND = "takes refs as kernel bodies do, and no launch of it was found"
_BODY_KEYWORDS = ("kernel", "body", "f")


@dataclass
class KernelScope:
    """The answer for one module: kernel bodies, and how to find the one enclosing a call."""

    module: ModuleIndex
    flow: Optional[ValueFlow] = None  # the module's value flow, which found them
    kernels: dict[FunctionNode, str] = field(default_factory=dict)  # body -> why it is one
    # The backends each kernel body (and each function it calls) may be lowered for.
    backends: dict[FunctionNode, Backends] = field(default_factory=dict)
    # Functions that kernels call but that plain XLA code uses too: rewriting them would change
    # the XLA path, so transforms report their calls instead.
    shared: set[FunctionNode] = field(default_factory=set)
    used_plainly: set[FunctionNode] = field(default_factory=set)  # those of them plain code here uses
    direct: set[FunctionNode] = field(default_factory=set)  # bodies handed to a launcher (not helpers)
    # Module-level values (partials of ops) that kernels in other modules call: their backends, and
    # whether plain XLA code elsewhere calls them too.
    foreign_uses: dict[Binding, tuple[Backends, bool]] = field(default_factory=dict)
    # What launches run that is another module's (`pl.pallas_call(kernels.body)`): the mention that
    # reads it, why, the backends, and BODY, or FACTORY for what calling it returns (`kernels.make(...)`).
    # One entry per mention, with the backends of every launch that reaches it.
    foreign_bodies: list[tuple[ast.AST, str, Backends, str]] = field(default_factory=list)
    # Launches whose body the analysis cannot resolve (`getattr(...)`, a value it does not follow):
    # the launch, why, and the backends it reaches. The rules say so instead of passing silently.
    unresolved: list[tuple[ast.AST, str, Backends]] = field(default_factory=list)
    # Launches whose body it took for a function (of this module or another, which the project index
    # follows): the whole-program link's word that it cannot follow one is not the rules' to repeat.
    resolved: set[ast.AST] = field(default_factory=set)
    # When a launch's body cannot be resolved: the functions it may be (not kernels already, not
    # proven plain XLA code: called by name only), with what they call, and that launch (its site,
    # None for another module's launch, whose description is then the reason).
    maybe_kernels: dict[FunctionNode, tuple[Optional[ast.AST], str, Backends]] = field(default_factory=dict)
    # Keywords a partial binds on another module's kernel body (`partial(kernels.body, precision=PAIR)`),
    # or that a call of its factory passes (`kernels.make(precision=PAIR)`), BOUND; or that kernel code
    # passes on to another module's function (`ops.mm(a, b, precision=precision)`), PASSED: the keyword,
    # the mention of what takes it, the backends, and which. The value runs in that kernel. One entry per
    # keyword and mention, however many launches reach it.
    foreign_keywords: list[tuple[ast.keyword, ast.AST, Backends, str]] = field(default_factory=list)
    # Functions that pass a parameter on as a kernel body (`def run(body): pl.pallas_call(body, ...)`),
    # with that parameter and the backends the launch reaches: launchers of their own.
    launch_helpers: dict[FunctionNode, tuple[ast.arg, Backends]] = field(default_factory=dict)
    # Module-level partials of a launcher (`tpu_call = functools.partial(pl.pallas_call, ...)`): the
    # body's position in their calls, its keyword, and the backends they reach. Launchers too.
    partial_launchers: dict[str, tuple[Optional[int], str, Backends]] = field(default_factory=dict)
    # functools.partial(body, ...) calls that bind a kernel's arguments, for value resolution.
    partial_bindings: dict[FunctionNode, list[ast.Call]] = field(default_factory=dict)
    # Values `functools.partial(kernel, ...)` binds a kernel's parameters to, with the kernel's
    # backends: a function handed so (`partial(kernel, epilogue=finish)`) runs where the kernel runs.
    handed: dict[ast.expr, Backends] = field(default_factory=dict)
    # Kernel bodies whose launch passes `compiler_params` as a dict (`dict(mosaic=...)`), a spelling
    # jax >= 0.10.2 rejects ("unhashable type: 'dict'"); and kernel bodies (with every function they
    # call) launched with `plgpu.CompilerParams(approx_math=True)`, where Mosaic GPU approximates
    # rsqrt, sqrt, tanh, exp, log, sin, cos, ... Read by the rules (JAX001, JAX002) to say so.
    dict_compiler_params: set[FunctionNode] = field(default_factory=set)
    approx_math: set[FunctionNode] = field(default_factory=set)

    def shared_with(self, names: frozenset[str]) -> set[FunctionNode]:
        """`shared` where plain code elsewhere uses the functions named `names` (ModuleFacts.shared)."""
        unlocal = {_unlocal(name) for name in names}
        return self.used_plainly | {function for function in self.kernels if function not in self.direct
                                    and qualified_name(self.module, function) in unlocal}

    def kernel_of(self, node: ast.AST) -> Optional[FunctionNode]:
        """The kernel body `node` (a call, a name or an attribute) runs in (itself or an enclosing
        function), if any."""
        while isinstance(node, ast.Attribute):
            node = node.value
        function = self.module.enclosing.get(node)
        while function is not None:
            if function in self.kernels:
                return function
            function = self.module.function_parent.get(function)
        return None

    def backends_of(self, node: ast.AST) -> Backends:
        """The backends the kernel around `node` may be lowered for (empty outside kernels); for a
        value bound to a name (`exp_hi = functools.partial(lax.exp, ...)`), also those of every
        kernel that uses the name: that is where it runs."""
        found: Backends = frozenset()
        seen, pending = {node}, [node]
        while pending:  # a name rebound from itself (`s = s if c else t`) uses its own value: a cycle
            node = pending.pop()
            kernel = self.kernel_of(node)
            found |= self.backends.get(kernel, frozenset()) if kernel is not None else frozenset()
            binding = self.module.binding_of_value(node)
            if binding in self.foreign_uses:
                found |= self.foreign_uses[binding][0]
            fresh = [use for use in self.uses_of(node) if use not in seen]
            seen.update(fresh)
            pending += fresh
        return found

    def uses_of(self, node: ast.AST) -> list[ast.AST]:
        """The loads of the name `node` is bound to by `name = node`; in a class body, also the
        `Class.name` and `self.name` attributes that read it."""
        binding = self.module.binding_of_value(node)
        if binding is None:
            return []
        if binding.scope.kind != "class":
            return list(binding.references)
        owner = binding.scope.node
        uses: list[ast.AST] = list(binding.references)
        for mentions in self.module.mentions.values():
            for mention in mentions:
                if isinstance(mention, ast.Attribute) and mention.attr == binding.name \
                        and isinstance(mention.value, ast.Name) and owner in classes_read(self.module, mention.value):
                    uses.append(mention)
        return uses

    def used_outside_kernels(self, node: ast.AST) -> list[ast.AST]:
        """Loads of the name `node` is bound to that sit outside kernel bodies (plain XLA code), when
        kernels use it too: a rewrite of `node` would change both."""
        uses = self.uses_of(node)
        outside = [use for use in uses if self.kernel_of(use) is None]
        binding = self.module.binding_of_value(node)
        if binding in self.foreign_uses:  # used in other modules: their kernels, maybe their plain code
            _, shared_elsewhere = self.foreign_uses[binding]
            return outside or ([node] if shared_elsewhere else [])
        return outside if len(outside) < len(uses) else []


@dataclass(frozen=True)
class ModuleFacts:
    """What the rest of the project says about one module (codemods/analysis/project/): which of
    its top-level functions other modules launch as kernel bodies or call from kernels, which of
    those plain XLA code elsewhere uses too, and the launch helpers other modules define."""

    kernels: tuple[tuple[str, Backends, str, str], ...] = ()  # (def name, backends, why, one of ROLES)
    shared: frozenset[str] = frozenset()
    launchers: tuple[tuple[str, Optional[int], str, Backends], ...] = ()  # (qualified name, position, keyword, backends)
    # Its imports of a name that a project module imports from outside the project (`ops.py`: `from
    # jax import lax`; here `from pkg.ops import lax`): (the import as its index spells it, `jax.lax`).
    through: tuple[tuple[str, str], ...] = ()
    # Its top-level constants that other modules read otherwise than as a Mosaic TPU kernel's
    # precision: (name, those modules). Rewriting one would change what they read.
    read_elsewhere: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # The functions it imports from other modules that hand a parameter to a kernel of theirs as its
    # precision (`def matmul(x, w, precision=None)` whose kernel closes over it, or binds it by
    # `functools.partial(kernel, precision=precision)`): (the name it calls them by, the parameter's
    # position and keyword, the kernel's backends, whether code there that is no kernel's precision
    # reads it too). What a call here passes for it is a kernel's precision (see precision_wrappers).
    precision_wrappers: tuple[tuple[str, Optional[int], str, Backends, bool], ...] = ()
    # What the whole-program value flow says of its followed calls and of the literals it writes
    # that reach another module's kernels (codemods/analysis/flow/link.py).
    flow: FlowFacts = NO_FLOW
    # Where another module of the project may turn jax_enable_x64 on (process-wide): (module, line).
    x64_elsewhere: tuple = ()

    @property
    def holds_kernels(self) -> bool:
        """Kernels run here without the module saying pallas: its functions are launched or called
        from kernels elsewhere, it launches its own through another module's launcher, it writes
        a value that reaches another module's kernel, or the link runs one of its followed calls in
        a kernel (a helper reached as `getattr(ops, "name")`) or one of its functions there."""
        return bool(self.kernels or self.launchers or self.precision_wrappers or self.flow.origins
                    or any(sink.backends or sink.maybe for sink in self.flow.sinks) or self.flow.kernels)

    def with_flow_kernels(self) -> "ModuleFacts":
        """These facts with the functions the link says other modules' launches and kernel code run
        (`FlowFacts.kernels`) as kernels, but for those the index's search placed already (a MAYBE
        stays one): what the rules that follow no call (JAX004-JAX008) read. The index searches who
        launches a function only where it holds a call JAX001-JAX003 fix; those rules keep its facts
        and the link's answers at their calls."""
        known = {name for name, *_ in self.kernels}
        added = [(name, backends, why, role) for name, backends, why, role, _ in self.flow.kernels if name not in known]
        if not added:
            return self
        shared = {name for name, _, _, _, plain in self.flow.kernels if plain and name not in known}
        return replace(self, kernels=tuple(sorted((*self.kernels, *added))), shared=self.shared | shared)


NO_FACTS = ModuleFacts()
# What another module does with a function: hands it to a launcher, calls it from a kernel, or
# launches what it returns (a kernel factory).
BODY, HELPER, FACTORY = "body", "helper", "factory"
# A top-level def that a launch of another module may run, whose body that module's analysis cannot
# resolve (`getattr(bodies, name)`, `from bodies import *`): what fails in a kernel there is [manual].
MAYBE = "maybe"
# How a value reaches another module's kernel code (KernelScope.foreign_keywords): bound on its body
# or passed to its factory, passed on by kernel code, or handed to a function that gives it to its
# kernel as the precision (WRAPPED; SHARED where code there that is no kernel's precision reads it too).
BOUND, PASSED, WRAPPED, SHARED = "bound", "passed", "wrapped", "shared"


_LAUNCHER_NAMES = frozenset(name.rsplit(".", 1)[-1] for name in LAUNCHERS)
# A launch a function may run in, though no launch of it is resolved: its site, why, its backends.
_Launch = tuple[Optional[ast.AST], str, Backends]


def find_kernels(module: ModuleIndex, facts: ModuleFacts = NO_FACTS) -> KernelScope:
    """The module's kernels, once per parse and what of the facts a scope reads (a scope is read,
    never changed): its kernels, shared names, launch helpers and precision wrappers, not the link's
    answers. The project index asks with no facts, the rules with theirs: where no kernel of it is
    another module's, the names it shares with plain code elsewhere are read by `shared` alone,
    and the index's scope serves with that set worked out again. Kept on the parse: an edit's new
    parse asks anew."""
    key = (facts.kernels, facts.launchers, facts.precision_wrappers, facts.shared)
    scope = module.kernel_scopes.get(key)
    if scope is None:
        same = None if facts.kernels else next(
            (found for found_key, found in module.kernel_scopes.items() if found_key[:3] == key[:3]), None)
        if same is not None:
            shared = same.shared_with(facts.shared)
            scope = same if shared == same.shared else replace(same, shared=shared)
        elif not facts.kernels and not facts.launchers and not facts.precision_wrappers \
                and not _names_a_launcher(module) and not _may_be_unlaunched(module):
            scope = KernelScope(module)  # nothing launches here, nothing elsewhere launches its code, nothing looks launched
        else:
            scope = _KernelFinder(module, facts).result
        module.kernel_scopes[key] = scope
    return scope


def _may_be_unlaunched(module: ModuleIndex) -> bool:
    """Whether the module may define a function whose launch is not found that holds a call that
    fails in a kernel (see `_MaybeKernels.find_unlaunched_bodies`): one that takes refs, in code that
    passes a precision or an accuracy by keyword (as the rules' byte gate asks)."""
    return _HINT_IN_TEXT.search(module.text) is not None and any(
        names_refs(function) for function in module.function_parent if not isinstance(function, ast.Lambda))


def _names_a_launcher(module: ModuleIndex) -> bool:
    """Whether any name or attribute the module reads ends in a launcher's name (or an import binds
    one under another name): the value flow is built only where a launch can be."""
    if any(binding.imported.rsplit(".", 1)[-1] in _LAUNCHER_NAMES for binding in module.imports
           if binding.imported is not None):
        return True
    return any((mention.attr if mention.__class__ is ast.Attribute else mention.id) in _LAUNCHER_NAMES  # type: ignore[union-attr]
               for mentions in module.mentions.values() for mention in mentions)


class _KernelFinder:
    """Finds a module's kernels (KernelScope): the bodies its launches (and other modules' facts) run,
    what they call, with the backends each may run on; then, by their parts, what reaches other modules
    (_ForeignReach), what may run in a launch it cannot resolve (_MaybeKernels) and which kernel code
    plain XLA code uses too (_PlainUses)."""

    def __init__(self, module: ModuleIndex, facts: ModuleFacts) -> None:
        self.module = module
        self.result = KernelScope(module)
        self._computed_calls: Optional[dict[Optional[FunctionNode], list[ast.Call]]] = None  # see _called_through_values
        self._helpers = helpers = {name: (position, keyword, launched)
                                   for name, position, keyword, launched in facts.launchers}
        specs = {name: (spec.body_position, _BODY_KEYWORDS) for name, spec in LAUNCHERS.items()}
        specs.update({name: (position, (keyword,)) for name, (position, keyword, _) in helpers.items()})
        self.flow = self.result.flow = flow = ValueFlow(module, specs)
        self._backends = LaunchBackends(module)
        self._foreign = _ForeignReach(module, flow, self.result)
        self._maybe = _MaybeKernels(module, flow, self.result, self._functions_named)
        handed_to, uncertain = self._take(self._launch_entries(facts))
        self._spread(handed_to, facts)
        plain = _PlainUses(module, self.result)
        self.result.used_plainly = {f for f in self.result.kernels
                                    if f not in self.result.direct and plain.used_outside_kernels(f)}
        self.result.shared = self.result.shared_with(facts.shared)
        self._spread_approx_math()
        self._find_partial_launchers()
        self._foreign.find_foreign_calls()
        self._foreign.find_wrapper_calls(facts)
        for function, launch in uncertain:  # (a kernel found another way stays one)
            self._maybe.may_run([function], launch)
        if self.result.unresolved:
            self._maybe.find_maybe_kernels()
        self._maybe.find_foreign_maybe_kernels(facts)
        self._maybe.find_unlaunched_bodies(facts)

    def _launch_entries(self, facts: ModuleFacts) -> list[tuple[frozenset, str, Backends, tuple[ast.Call, ...],
                                                                Optional[ast.AST], object]]:
        """What each launch of this module runs, and each function other modules launch or call from
        kernels (`facts.kernels`): the values of its body, why, the backends, the calls that configure
        the launch, where, and the key of the flow that holds the body (None for what other modules launch)."""
        module, flow, helpers = self.module, self.flow, self._helpers
        entries: list[tuple[frozenset, str, Backends, tuple[ast.Call, ...], Optional[ast.AST], object]] = []
        for launch in flow.launches:
            short = launch.launcher.rsplit(".", 1)[-1]
            site = launch.site
            if launch.launcher in helpers:
                launched, why = helpers[launch.launcher][2], f"passed to {short}"
            else:
                launched = self._backends.of_launch(launch.launcher, list(launch.calls))
                mapped = isinstance(site, ast.Call) and isinstance(site.func, ast.Name) and site.func.id == "map"
                why = f"decorated with {short}" if isinstance(site, FUNCTIONS) else \
                    f"{'mapped by' if mapped else 'passed to'} {short}"
            entries.append((flow.of(launch.body), why, launched, launch.calls, site, launch.body))
        for name, launched, why, role in facts.kernels:  # launched or called from kernels in other modules
            if role == MAYBE:
                continue  # not known to be kernel code: see _MaybeKernels.find_foreign_maybe_kernels
            owner, _, member = name.partition(".")
            for binding in module.module_scope.bindings.get(owner, ()) if member else ():  # `Holder.kernel`
                if isinstance(binding.node, ast.ClassDef):
                    values = flow.of(("member", binding.node, member)) | flow.of(("bound", binding.node, member))
                    entries.append((frozenset(_contents(flow, values)), why, launched, (), None, None))
            for function in _local_defs(module, name) if "<locals>" in name else ():  # `make.<locals>.body`
                values = flow.of(("return", function)) if role == FACTORY else frozenset({Function(function)})
                entries.append((values, why, launched, (), None, None))  # type: ignore[arg-type]
            for binding in module.module_scope.bindings.get(name, ()):
                if isinstance(binding.node, FUNCTIONS):
                    values = flow.of(("return", binding.node)) if role == FACTORY else frozenset({Function(binding.node)})
                    entries.append((values, why, launched, (), None, None))  # type: ignore[arg-type]
                elif binding.value is not None:
                    # `k = body`, `BODIES = [body]`: what the value holds is launched (or called) there
                    values = flow.of(binding)
                    if role == FACTORY:
                        values = frozenset(made for function, _ in flow.functions(values)
                                           for made in flow.of(("return", function)))
                    entries.append((frozenset(_contents(flow, values)), why, launched, (), None, None))
                    if role == HELPER:  # `exp_hi = functools.partial(...)` another module's kernels call
                        self.result.foreign_uses[binding] = (launched, name in facts.shared)
        return entries

    def _take(self, entries: list) -> tuple[dict[ast.expr, str], list[tuple[FunctionNode, _Launch]]]:
        """Each entry's functions are kernels (another module's body, a launch helper's parameter, an
        unresolved body are noted as such): with the kernel each handed function is passed to, and the
        functions read at an index the analysis cannot read (see _MaybeKernels.at_an_unknown_index)."""
        module, flow = self.module, self.flow
        kernels, backends = self.result.kernels, self.result.backends
        handed: dict[ast.expr, Backends] = self.result.handed
        handed_to: dict[ast.expr, str] = {}  # the kernel a handed function is passed to, for its reason
        uncertain: list[tuple[FunctionNode, _Launch]] = []  # see _MaybeKernels.at_an_unknown_index
        for values, why, launched, calls, site, body in entries:
            leaves = list(flow.leaves(values))
            unknown_index = self._maybe.at_an_unknown_index(body)
            parameters = flow.parameters_into(body) if body is not None else []
            for param in parameters:  # a launch helper: what its callers pass is a kernel body
                helper = module.parent[module.parent[param]]
                known = self.result.launch_helpers.get(helper)  # type: ignore[arg-type]
                self.result.launch_helpers[helper] = (param, launched | (known[1] if known else frozenset()))  # type: ignore[index]
            if not leaves and not parameters and body is not None:
                self.result.unresolved.append((site, "its body is not a value this analysis follows", launched))
            for leaf, partials in leaves:
                for partial in partials:  # `partial(body, epilogue=finish)`: finish runs where body runs
                    for argument in ordered_arguments(partial)[1:]:
                        if not isinstance(argument, ast.Starred):
                            handed[value_of(argument)] = handed.get(value_of(argument), frozenset()) | launched
                            if isinstance(leaf, (Function, Bound)):
                                handed_to.setdefault(value_of(argument), _label(leaf.node))
                if isinstance(leaf, (Function, Bound)) and unknown_index and not partials and not takes_refs(leaf.node):
                    uncertain.append((leaf.node, (site, unknown_index, launched)))
                elif isinstance(leaf, (Function, Bound)):
                    function = leaf.node
                    if site is not None:
                        self.result.resolved.add(site)
                    kernels.setdefault(function, why + self._through(site, leaf))
                    self._note_launch(function, calls)
                    backends[function] = backends.get(function, frozenset()) | launched
                    self._bind_partials(function, partials)
                elif isinstance(leaf, (Foreign, ForeignResult)):  # another module's: the project index follows it
                    if site is not None:
                        self.result.resolved.add(site)
                    role = FACTORY if isinstance(leaf, ForeignResult) else BODY
                    self._foreign.reaches(self.result.foreign_bodies, (leaf.mention, role),
                                          (leaf.mention, why, launched, role))
                    made = module.parent.get(leaf.mention) if role == FACTORY else None  # `make(precision=...)`
                    calls = [*partials, *([made] if isinstance(made, ast.Call) and made.func is leaf.mention else [])]
                    for keyword in [keyword for call in calls for keyword in call.keywords if keyword.arg is not None]:
                        self._foreign.reaches(self.result.foreign_keywords, (keyword, leaf.mention, BOUND),
                                              (keyword, leaf.mention, launched, BOUND))
                elif isinstance(leaf, Unknown) and site is not None:
                    self.result.unresolved.append((site, leaf.reason, launched))
        return handed_to, uncertain

    def _spread(self, handed_to: dict[ast.expr, str], facts: ModuleFacts) -> None:
        """What kernels call and the functions handed to them are kernel code, each with every backend
        a kernel that reaches it may run on; the bodies handed to a launcher are the direct ones."""
        module, flow = self.module, self.flow
        kernels, backends, handed = self.result.kernels, self.result.backends, self.result.handed
        direct = set(kernels)
        pending = sorted(direct, key=_source_order, reverse=True)  # popped first to last: each note names the same kernel every run
        for value, launched in list(handed.items()):  # handed to a kernel (of this module or another)
            for function, partials in flow.functions(flow.of(value)):
                kernel = f" ({handed_to[value]})" if value in handed_to else ""
                kernels.setdefault(function, f"passed to a kernel body{kernel}")
                backends[function] = backends.get(function, frozenset()) | launched
                pending.append(function)
        while pending:  # until every function a kernel reaches carries every backend it may run on
            kernel = pending.pop()
            reached = [function for inner in module.functions_within(kernel)
                       for mention in module.mentions.get(inner, ()) for function in self._functions_named(mention)]
            reached += self._called_through_values(kernel)
            for function in reached:
                before = backends.get(function, frozenset())
                if function not in kernels:
                    kernels[function] = f"called from a kernel body ({_label(kernel)})"
                if function not in direct and not backends[kernel] <= before:
                    backends[function] = before | backends[kernel]
                    pending.append(function)
        helpers = {_unlocal(name) for name, _, _, role in facts.kernels if role == HELPER}
        direct -= {f for f in direct if qualified_name(module, f) in helpers}
        self.result.direct = direct

    def _through(self, site: Optional[ast.AST], body: "Function | Bound") -> str:
        """` through run` when the launch at `site` is in a launch helper whose parameter took `body`."""
        helper = self.module.enclosing.get(site) if site is not None else None
        while helper is not None:
            arguments = helper.args
            for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs):
                if body in self.flow.of(self.flow.binding_of(arg)):
                    return f" through {_label(helper)}"
            helper = self.module.function_parent.get(helper)
        return ""

    def _bind_partials(self, function: FunctionNode, partials: tuple[ast.Call, ...]) -> None:
        bindings = self.result.partial_bindings.setdefault(function, [])
        for partial in partials:
            if partial not in bindings:  # a partial a kernel names twice is still one binding
                bindings.append(partial)

    def _find_partial_launchers(self) -> None:
        """Module-level partials that leave the body unbound, and plain aliases (`call = tpu_call`),
        of a launcher (`tpu_call = functools.partial(pl.pallas_call, ...)`) or of a launcher defined
        here (`defined_launchers`) or imported (`run_f32 = functools.partial(tpu_call, ...)`):
        launchers too, for the modules that import them."""
        own = defined_launchers(self.result)
        for name, bindings in self.module.module_scope.bindings.items():
            for binding in bindings:
                partial = binding.value
                if isinstance(partial, ast.Name | ast.Attribute):  # `call = tpu_call`
                    spec = self._launch_spec(partial, [], own)
                    if spec is not None:
                        self.result.partial_launchers[name] = spec
                    continue
                if not (isinstance(partial, ast.Call) and self.module.callee(partial, PARTIAL) and partial.args
                        and _first_is_positional(partial)):
                    continue
                spec = self._launch_spec(value_of(partial.args[0]), [partial], own)
                bound = len(partial.args) - 1
                if spec is None or (spec[0] is not None and bound > spec[0]) \
                        or any(keyword.arg == spec[1] for keyword in partial.keywords):
                    continue  # not a launcher, or one whose body is bound already
                position, keyword, launched = spec
                self.result.partial_launchers[name] = (None if position is None else position - bound, keyword, launched)

    def _launch_spec(self, target: ast.expr, configuring: list[ast.Call], own: dict[str, tuple[Optional[int], str, Backends]]
                     ) -> Optional[tuple[Optional[int], str, Backends]]:
        """Where the launcher `target` names takes its body (position, keyword) and the backends it
        reaches: jax's (configured by the partial in `configuring`, if any), a launcher this module
        defines, or an imported one."""
        launcher = self.module.matching_name(target, LAUNCHERS)
        if launcher is not None:
            spec = LAUNCHERS[launcher]
            return None if spec.body_position is None else \
                (spec.body_position, spec.body_keyword, self._backends.of_launch(launcher, configuring))
        if isinstance(target, ast.Name) and target.id in own:
            return own[target.id]
        helper = self.module.matching_name(target, self._helpers)
        return self._helpers[helper] if helper is not None else None

    def _note_launch(self, function: FunctionNode, launch: Iterable[ast.Call]) -> None:
        """What the launch's compiler params say beyond the backend, for the rules (JAX001, JAX002)."""
        as_dict, approx_math = self._backends.compiler_params_spelling(launch)
        if as_dict:
            self.result.dict_compiler_params.add(function)
        if approx_math:
            self.result.approx_math.add(function)

    def _spread_approx_math(self) -> None:
        """What an approx_math kernel calls runs under approx_math too."""
        pending = list(self.result.approx_math)
        while pending:
            for inner in self.module.functions_within(pending.pop()):
                for mention in self.module.mentions.get(inner, ()):
                    for function in self._functions_named(mention):
                        if function in self.result.kernels and function not in self.result.approx_math:
                            self.result.approx_math.add(function)
                            pending.append(function)

    # -- what a kernel calls --

    def _functions_named(self, mention: ast.AST) -> Iterator[FunctionNode]:
        """Functions a name or `obj.attr` inside a kernel may call: the functions its value may be,
        through partials; an attribute also by its last name (`obj.helper`, a def of this module)."""
        for function, partials in self.flow.functions(self.flow.of(mention)):
            self._bind_partials(function, partials)
            yield function
        if isinstance(mention, ast.Attribute):
            scope = self.module.scope_of.get(mention)
            for binding in scope.lookup(mention.attr) if scope is not None else ():
                if isinstance(binding.node, FUNCTIONS):
                    yield binding.node  # type: ignore[misc]

    def _called_through_values(self, kernel: FunctionNode) -> list[FunctionNode]:
        """Functions a kernel calls through a container or a call's result (`OPS["mm"](a, b)`,
        `HELPERS[0](a)`, `pick("mm")(a, b)`), as the value flow reads them."""
        if self._computed_calls is None:  # such calls by the function they are in, once per module
            self._computed_calls = {}
            for call in self.module.calls:
                if call.func.__class__ in (ast.Subscript, ast.Call):
                    self._computed_calls.setdefault(self.module.enclosing.get(call), []).append(call)
        found = []
        for inner in self.module.functions_within(kernel) if self._computed_calls else ():
            for call in self._computed_calls.get(inner, ()):
                for function, partials in self.flow.functions(self.flow.of(call.func)):
                    self._bind_partials(function, partials)
                    found.append(function)
        return found


class _ForeignReach:
    """What of a module's kernels reaches other modules: another module's body or factory a launch
    runs, the keywords bound on it, and what kernel code passes on to another module's function or
    precision wrapper (KernelScope.foreign_bodies, foreign_keywords), each entry once."""

    def __init__(self, module: ModuleIndex, flow: ValueFlow, result: KernelScope) -> None:
        self.module, self.flow, self.result = module, flow, result
        self._entries: dict[tuple[int, tuple], int] = {}  # (list, key) -> index there (reaches)

    def find_foreign_calls(self) -> None:
        """Keywords kernel code passes on to another module's function (`ops.mm(a, b, precision=p)`)
        that are not written there (a parameter, a name): the value, set in this module, runs in that
        function, in this kernel. (Which module it is, a library or the project, is not known here.)"""
        for call in self.module.calls:
            kernel = self.result.kernel_of(call)
            if kernel is None or not call.keywords:
                continue
            for value in self.flow.of(call.func):
                if isinstance(value, (Foreign, ForeignResult)):
                    self.result.foreign_keywords += [
                        (keyword, value.mention, self.result.backends.get(kernel, frozenset()), PASSED)
                        for keyword in call.keywords if keyword.arg is not None and isinstance(keyword.value, ast.Name)]
                    break

    def find_wrapper_calls(self, facts: ModuleFacts) -> None:
        """What its calls pass to another module's precision wrapper (`ops.matmul(x, w,
        precision=PAIR)`, or a partial of it, see ModuleFacts.precision_wrappers): the value runs in
        that module's kernel. An argument passed by position (`ops.matmul(x, w, PAIR)`) is given as
        the keyword it stands for, a node of its own around the argument (the rules read the value,
        where it is written)."""
        wrappers = {name: (position, keyword, launched, plain)
                    for name, position, keyword, launched, plain in facts.precision_wrappers}
        for call in self.module.calls if wrappers else ():
            applied = self.module.applied(call, wrappers)
            if applied is None:
                continue
            name, mention, shift = applied
            position, keyword, launched, plain = wrappers[name]
            passed = find_arg(call, None if position is None else position + shift, (keyword,))
            if passed is None:
                continue
            passed = passed if isinstance(passed, ast.keyword) else ast.keyword(arg=keyword, value=passed)
            how = SHARED if plain else WRAPPED
            self.reaches(self.result.foreign_keywords, (passed, mention, how), (passed, mention, launched, how))

    def reaches(self, found: list, key: tuple, entry: tuple) -> None:
        """Add `entry` (its backends third) to `found` (foreign_bodies, foreign_keywords) once per `key`:
        another module's body, or a keyword bound on it, that several launch sites reach (a loop variable
        that two `pallas_call`s take) is one entry, with the backends of every such launch. An entry per
        launch was a finding per launch for the same keyword (JAX001, JAX002), and its edit made twice."""
        index = self._entries.get((id(found), key))
        if index is None:
            self._entries[(id(found), key)] = len(found)
            found.append(entry)
        else:
            known = found[index]
            found[index] = (*known[:2], known[2] | entry[2], *known[3:])

class _MaybeKernels:
    """Functions that may run in a kernel though no launch of them is resolved (KernelScope.maybe_kernels):
    what an unresolved launch may run, what another module's such launch may, functions that take refs
    and whose launch is not found, with what they call (`functions_named`: the functions a mention may be)."""

    def __init__(self, module: ModuleIndex, flow: ValueFlow, result: KernelScope,
                 functions_named: Callable[[ast.AST], Iterator[FunctionNode]]) -> None:
        self.module, self.flow, self.result = module, flow, result
        self._functions_named = functions_named

    def at_an_unknown_index(self, body: object) -> str:
        """Why a launch's body, read from a tuple or list at an index the analysis cannot read
        (`IMPLEMENTATIONS[mode]`), may not be each element: "" if it is not so read. Such an element
        that takes no refs (`reference(x, w)`, plain XLA code beside the body) is then not taken for
        kernel code, which a safe fix would change, but for code the launch may run (a [manual] note)."""
        if not isinstance(body, ast.Subscript) or isinstance(body.slice, ast.Slice) \
                or constant_index(body.slice) is not None \
                or not any(isinstance(value, Sequence) for value in self.flow.of(body.value)):
            return ""
        return f"`{self.module.segment(body)}` reads a tuple or list at an index this analysis cannot read"

    def find_maybe_kernels(self) -> None:
        """The functions an unresolved launch may run: any whose value is taken (passed, stored,
        returned), any never named that takes refs as kernel bodies do (`getattr` may reach it), and
        what they call. A function only ever called by name is plain code unless such a one calls it."""
        module, kernels = self.module, self.result.kernels
        pending = []
        for function in module.function_parent:
            if function in kernels or isinstance(function, ast.Lambda):
                continue
            binding = self.flow.binding_of(function)
            references = binding.references if binding is not None else []
            if not references and takes_refs(function) or any(
                    not (isinstance(module.parent.get(r), ast.Call) and module.parent[r].func is r) for r in references):
                pending.append(function)
        self.may_run(pending, self.result.unresolved[0])

    def find_unlaunched_bodies(self, facts: ModuleFacts) -> None:
        """Functions that take refs as kernel bodies do (`x_ref`) but are neither kernel code nor
        reached by an unresolved launch: no launch of them was found, here or in the modules that
        import this one. A launch the analysis does not follow may run them, so they may run in any
        Mosaic kernel, with what they call: never silently plain code. One the link says a launch
        of another module whose body it cannot resolve may run (a body nested in a factory, reached
        by `getattr(kern, name)()`: `FlowFacts.kernels`' MAYBE) is said so, not "no launch found"."""
        module, kernels = self.module, self.result.kernels
        lost = {_unlocal(name): (None, why, launched) for name, launched, why, role, _ in facts.flow.kernels
                if role == MAYBE}
        unlaunched: list[FunctionNode] = []
        for function in module.function_parent:
            if isinstance(function, ast.Lambda) or not names_refs(function):
                continue
            outer: Optional[FunctionNode] = function
            while outer is not None and outer not in kernels and outer not in self.result.maybe_kernels:
                outer = module.function_parent.get(outer)
            if outer is None:  # not within known or possible kernel code
                unlaunched.append(function)
        for function in unlaunched:
            self.may_run([function], lost.get(qualified_name(module, function) or "") or
                         (None, f"`{function.name}` {NO_LAUNCH_FOUND}", frozenset({MOSAIC_TPU, MOSAIC_GPU})))

    def find_foreign_maybe_kernels(self, facts: ModuleFacts) -> None:
        """The functions a launch of another module may run, whose body that module's analysis
        cannot resolve (`getattr(bodies, name)`, a star import; see MAYBE): with what they call."""
        for name, launched, why, role in facts.kernels:
            if role == MAYBE:
                functions = _local_defs(self.module, name) if "." in name else [
                    binding.node for binding in self.module.module_scope.bindings.get(name, ())
                    if isinstance(binding.node, FUNCTIONS)]
                self.may_run(functions, (None, why, launched))

    def may_run(self, functions: list[FunctionNode], launch: _Launch) -> None:
        """`functions` (not kernels) may run in the unresolved `launch`, and so may what they call."""
        pending = list(functions)
        while pending:
            function = pending.pop()
            if function in self.result.maybe_kernels or function in self.result.kernels:
                continue
            self.result.maybe_kernels[function] = launch
            pending += [called for inner in self.module.functions_within(function)
                        for mention in self.module.mentions.get(inner, ()) for called in self._functions_named(mention)]

class _PlainUses:
    """Whether kernel code is used by plain XLA code too (KernelScope.shared): then rewriting it would
    change the XLA path."""

    def __init__(self, module: ModuleIndex, result: KernelScope) -> None:
        self.module, self.result = module, result

    def used_outside_kernels(self, function: FunctionNode) -> bool:
        if isinstance(function, ast.Lambda):  # `project = lambda ...`: the uses of that name
            binding = self.module.binding_of_value(function)
            bindings = [binding] if binding is not None else []
        else:
            scope = self.module.scope_of_definition(function)
            bindings = [b for b in scope.bindings.get(function.name, ()) if b.node is function] if scope else []
        return self._used_plainly(bindings, MAX_ALIAS_DEPTH)

    def _used_plainly(self, bindings: list[Binding], depth: int) -> bool:
        """Whether a reference to one of `bindings` sits outside kernels. Handing a function to a
        kernel is no such use, and an alias (`contract = project`) is used where its own name is."""
        for binding in bindings:
            for reference in binding.references:
                if reference in self.result.handed or self._inside_kernel(self.module.enclosing.get(reference)):
                    continue
                alias = self.module.binding_of_value(self._outermost_container(reference))
                if alias is None or depth == 0 or self._used_plainly([alias], depth - 1):
                    return True
        return False

    def _outermost_container(self, reference: ast.AST) -> ast.AST:
        """The literal that holds `reference` as an element (`DOTS = {"hi": _dot_hi}`, nested too), or
        `reference` itself: a table of helpers is used where its name is, not where it is written."""
        node, holder = reference, self.module.parent.get(reference)
        while isinstance(holder, (ast.List, ast.Tuple, ast.Set)) or (
                isinstance(holder, ast.Dict) and any(node is value for value in holder.values)):
            node, holder = holder, self.module.parent.get(holder)
        return node

    def _inside_kernel(self, function: Optional[FunctionNode]) -> bool:
        while function is not None:
            if function in self.result.kernels:
                return True
            function = self.module.function_parent.get(function)
        return False


def classes_read(module: ModuleIndex, name: ast.Name) -> list[ast.ClassDef]:
    """The classes `name` may be: the class itself, or the first parameter (`self`, `cls`) of one
    of its methods."""
    found = []
    for binding in module.bindings(name):
        if isinstance(binding.node, ast.ClassDef):
            found.append(binding.node)
        elif binding.is_parameter:
            function = module.parent[module.parent[binding.node]]
            arguments = [*function.args.posonlyargs, *function.args.args]
            owner = module.parent.get(function)
            if arguments and arguments[0] is binding.node and isinstance(owner, ast.ClassDef):
                found.append(owner)
    return found


def _contents(flow: ValueFlow, values: Iterable) -> Iterator:
    """The values and, through containers (`BODIES = [a, b]`, `{"a": a}`), what they hold."""
    pending, seen = list(values), set()
    while pending:
        value = pending.pop()
        if value in seen:
            continue
        seen.add(value)
        yield value
        if isinstance(value, Sequence):
            pending += flow.of(("elements", value.origin))
        elif isinstance(value, Mapping):
            pending += flow.of(("values", value.origin))


def takes_refs(function: FunctionNode) -> bool:
    """A signature a kernel body has: refs (`x_ref`, `o_ref`, `*refs`) or any number of arguments."""
    arguments = function.args
    named = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    return arguments.vararg is not None or any("ref" in arg.arg.lower() for arg in named)


def defined_launchers(scope: KernelScope) -> dict[str, tuple[Optional[int], str, Backends]]:
    """The launchers a module defines at its top level, by the name an importer calls them by, as its
    kernel scope found them: defs that launch a parameter (`def run(body, x)`), lambdas bound to a
    name (`run = lambda body, x: ...`, annotated or not), classes whose `__init__` does (`Runner(body)`), static and
    class methods (`Launch.run(body)`), methods of a module-level instance (`LAUNCHER = Launch()`,
    `LAUNCHER.run(body)`), defs that return a def that launches its first parameter (a decorator
    factory). Each with where a call passes the body (position, keyword) and the backends it
    reaches; a decorator factory is configured first (`with_grid(g)(body)`, as
    `pl.kernel(mesh=...)`): no position, no keyword."""
    found: dict[str, tuple[Optional[int], str, Backends]] = {}
    index = scope.module
    for function, (param, launched) in scope.launch_helpers.items():
        position = position_of(function, param)
        holder = index.parent.get(function)
        at_top = isinstance(index.parent.get(holder), ast.Module)
        if isinstance(function, ast.Lambda):
            targets = holder.targets if isinstance(holder, ast.Assign) else \
                [holder.target] if isinstance(holder, ast.AnnAssign) else []  # `run: Callable = lambda ...`
            if at_top and len(targets) == 1 and isinstance(targets[0], ast.Name):
                found[targets[0].id] = (position, param.arg, launched)
        elif isinstance(holder, ast.Module):
            found[function.name] = (position, param.arg, launched)
        elif isinstance(holder, ast.ClassDef) and at_top:
            bound = None if position is None else position - 1  # `self` or `cls`, passed by Python
            if function.name == "__init__":
                found[holder.name] = (bound, param.arg, launched)
            elif _decorated(function, "staticmethod"):
                found[f"{holder.name}.{function.name}"] = (position, param.arg, launched)
            elif _decorated(function, "classmethod"):
                found[f"{holder.name}.{function.name}"] = (bound, param.arg, launched)
            else:
                for instance in _instances(index, holder.name):
                    found[f"{instance}.{function.name}"] = (bound, param.arg, launched)
        elif position == 0 and _returns_it(holder, function) and at_top:
            found[holder.name] = (None, "", launched)  # type: ignore[union-attr]
    return found


def precision_wrappers(scope: KernelScope, positional: Mapping[str, int] = MappingProxyType({})
                       ) -> dict[str, tuple[Optional[int], str, Backends, bool]]:
    """The module's top-level defs (not kernels) that hand one of their parameters to a kernel of
    theirs as its precision: the kernel closes over it (`precision=precision` in a nested def) or a
    partial binds it (`functools.partial(kernel, precision=precision)`). Each with the parameter's
    position and keyword, the kernels' backends, and whether code that is no Mosaic TPU kernel's
    precision reads the parameter too (then a fix where a caller writes the value would change it).
    `positional`: the ops that take a precision by position, by name, with the number of arguments
    that reaches it (`lax.dot_general(x, w, dims, precision)`)."""
    index, flow = scope.module, scope.flow
    found: dict[str, tuple[Optional[int], str, Backends, bool]] = {}
    for call in index.calls if flow is not None else ():
        kernel = scope.kernel_of(call)
        taken = precision_taken(call, positional) if kernel is not None else None
        if not isinstance(taken, ast.Name):
            continue
        for param in _wrapper_parameters(scope, taken):
            wrapper = index.parent[index.parent[param]]
            if not isinstance(index.parent.get(wrapper), ast.Module) or wrapper in scope.kernels:
                continue
            known = found.get(wrapper.name)  # type: ignore[union-attr]
            launched = scope.backends.get(kernel, frozenset())  # type: ignore[arg-type]
            launched |= known[2] if known else frozenset()
            binding = flow.binding_of(param)  # type: ignore[union-attr]
            plain = any(not _a_kernel_precision(scope, reference, positional) for reference in binding.references) \
                if binding else True
            found[wrapper.name] = (position_of(wrapper, param), param.arg, launched,  # type: ignore[union-attr]
                                   plain or bool(known and known[3]))
    return found


def precision_taken(call: ast.Call, positional: Mapping[str, int]) -> Optional[ast.expr]:
    """The precision a call passes: `precision=...`, or an op's argument at its precision's position."""
    for keyword in call.keywords:
        if keyword.arg == "precision":
            return keyword.value
    needed = positional.get(call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", ""))
    return call.args[needed - 1] if needed is not None and len(call.args) >= needed \
        and not any(isinstance(arg, ast.Starred) for arg in call.args[:needed]) else None


def _wrapper_parameters(scope: KernelScope, value: ast.Name) -> list[ast.arg]:
    """The parameters `value` (a kernel's precision) reads: its own function's, or, for a kernel's
    parameter, those a `functools.partial(kernel, name=<parameter>)` binds it to."""
    index = scope.module
    found = []
    for binding in index.bindings(value):
        if not binding.is_parameter:
            continue
        function = index.parent[index.parent[binding.node]]
        if function not in scope.kernels:
            found.append(binding.node)
            continue
        for partial in scope.partial_bindings.get(function, ()):  # type: ignore[arg-type]
            found += [bound.node for keyword in partial.keywords if keyword.arg == binding.name
                      and isinstance(keyword.value, ast.Name)
                      for bound in index.bindings(keyword.value) if bound.is_parameter]
    return found


def _a_kernel_precision(scope: KernelScope, reference: ast.Name, positional: Mapping[str, int]) -> bool:
    """The precision of a call in a kernel Mosaic TPU may lower, or a keyword of a partial that binds
    a kernel's parameter (`functools.partial(kernel, precision=<reference>)`)."""
    parent = scope.module.parent.get(reference)
    call = scope.module.parent.get(parent) if isinstance(parent, ast.keyword) else parent
    if not isinstance(call, ast.Call):
        return False
    if isinstance(parent, ast.keyword) and any(call in partials for partials in scope.partial_bindings.values()):
        return True
    kernel = scope.kernel_of(call)
    return precision_taken(call, positional) is reference and kernel is not None \
        and MOSAIC_TPU in scope.backends.get(kernel, frozenset())


def _decorated(function: FunctionNode, decorator: str) -> bool:
    return any(isinstance(d, ast.Name) and d.id == decorator for d in function.decorator_list)  # type: ignore[union-attr]


def _instances(index: ModuleIndex, class_name: str) -> list[str]:
    """The module-level names bound to an instance of the module's class `class_name` (`LAUNCHER = Launch()`)."""
    return [name for name, bindings in index.module_scope.bindings.items()
            if any(isinstance(b.value, ast.Call) and isinstance(b.value.func, ast.Name) and b.value.func.id == class_name
                   for b in bindings)]


def _returns_it(holder: Optional[ast.AST], function: FunctionNode) -> bool:
    """Whether the def `holder` returns its nested def `function` by name (`return deco`)."""
    return isinstance(holder, ast.FunctionDef | ast.AsyncFunctionDef) and any(
        isinstance(statement, ast.Return) and isinstance(statement.value, ast.Name)
        and statement.value.id == function.name for statement in holder.body)  # type: ignore[union-attr]


def names_refs(function: FunctionNode) -> bool:
    """A parameter named as kernel bodies name their refs (`x_ref`, `o_refs`: see REF_PARAMETER)."""
    arguments = function.args
    named = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg]
    return any(arg is not None and arg.arg.endswith(("_ref", "_refs")) and arg.arg not in ("_ref", "_refs")
               for arg in named)


def position_of(function: FunctionNode, param: ast.arg) -> Optional[int]:
    """Where a parameter stands among the function's positional ones (None: keyword-only, `*args`)."""
    positional = [*function.args.posonlyargs, *function.args.args]
    return positional.index(param) if param in positional else None


def argument_for(call: ast.Call, function: FunctionNode, param: ast.arg) -> Optional[Argument]:
    """What a call of `function` passes for `param`, by position or keyword (None: it leaves it out)."""
    return find_arg(call, position_of(function, param), (param.arg,))


def passed_for(module: ModuleIndex, function: FunctionNode, param: ast.arg) -> list[ast.expr]:
    """What this module's calls of `function` by its name pass for `param` (`helper(x, P.HIGH)`), each
    call once, in `references_to`'s order (a call that leaves it out passes nothing)."""
    calls = [call for reference in module.references_to(function)
             if isinstance(call := module.parent.get(reference), ast.Call) and call.func is reference]
    return [value_of(argument) for call in calls if (argument := argument_for(call, function, param)) is not None]


def default_value(function: FunctionNode, param: ast.arg) -> Optional[ast.expr]:
    """The default of a parameter, if it has one."""
    arguments = function.args
    position = position_of(function, param)
    if position is not None:
        index = position - (len(arguments.posonlyargs) + len(arguments.args) - len(arguments.defaults))
        return arguments.defaults[index] if index >= 0 else None
    if param in arguments.kwonlyargs:
        return arguments.kw_defaults[arguments.kwonlyargs.index(param)]
    return None


def _first_is_positional(call: ast.Call) -> bool:
    return ordered_arguments(call)[0] is call.args[0]


def qualified_name(module: ModuleIndex, function: FunctionNode) -> Optional[str]:
    """The dotted path of the scopes that define `function` in `module` (`Block.kernel`, `make.body`):
    the summary's qualified name without its `<locals>` (None for a lambda)."""
    if isinstance(function, ast.Lambda):
        return None
    names, scope = [function.name], module.scope_of_definition(function)
    while scope is not None and scope.kind != "module":
        names.append(scope.node.name)  # type: ignore[attr-defined]  (a def or a class: no def is in a lambda)
        scope = scope.parent
    return ".".join(reversed(names))


def _unlocal(qualified: str) -> str:
    return qualified.replace(".<locals>.", ".")


def _local_defs(module: ModuleIndex, qualified: str) -> list[FunctionNode]:
    """The defs the summary names `qualified` (`make.<locals>.body`, `Block.kernel`): a body nested in
    a function that another module launches (a factory's, a closure's), a method a launch may run."""
    path = _unlocal(qualified)
    return [function for function in module.function_parent if qualified_name(module, function) == path]


def _label(function: FunctionNode) -> str:
    return "lambda" if isinstance(function, ast.Lambda) else function.name


def _source_order(function: FunctionNode) -> tuple[int, int]:
    return function.lineno, function.col_offset
