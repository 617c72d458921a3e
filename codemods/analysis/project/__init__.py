"""The project as a set of modules: kernel bodies, helpers and launchers that live in different files.

Real kernel packages define a body in `kernels.py`, its helpers in `ops/math.py` and launch it with
`pl.pallas_call` in `api.py`. Each file is still analysed on its own (in parallel, cached); what the
rest of the project says about it travels as `ModuleFacts`: "your `body` is launched for Mosaic
TPU", "your `act` is called from a kernel, and plain XLA code calls it too", "`pkg.launch.run`
passes its first argument on as a kernel body".

The search is driven by need and runs backwards. Only a module that passes a rule's prefilter can
have a finding; in it, only a top-level def or value whose own source passes the prefilter can
need a fix (a "needy" name). For each needy name the index asks who uses it: the modules of the
project whose words include the name and a part of the module's dotted name (a word index, built
once per module that imports the project), parsed on demand. A use inside a kernel (local to
that module, or launched there) gives the backends; a use inside another function asks the same
question of that function; a use in plain code marks the name as shared with XLA. A module that
needs none of this is never parsed here, so a tree with no kernel code costs a byte scan.

A run's answers outlive it (`state()`, `restore()`): each module's facts are kept with what they
were computed from, module by module, and part by part of each module: its whole code, or only its
imports, its top-level names, its launch helpers or whether it says a word. An edit is checked
against those parts alone; the facts it cannot have changed are reused, the others computed
again, so a one-line change in a large tree costs the modules it touches, not the project.

The answer depends on the project and the module alone, never on which files a run processes:
one file, a shard or a PR's files get the facts the whole run gets. Names from a C extension or an
installed package, a module that does not parse, a relative import above the root and an import
cycle yield nothing more; the rest proceeds.

The package, one part per module (each a class over the shared state of base.py, joined in
index.py): modules.py (module names, the parts facts depend on), scan.py (tests on bytes and bare
syntax trees), words.py (the word table and its searches), resolution.py (names across modules),
kernel_land.py (where kernels may run, launch helpers), usage.py (who uses a name, and how),
facts.py (one module's facts), flow.py (the whole-program link's place: its scope, summaries and
kept answers), state.py (what a run keeps for the next), workers.py (what worker processes work out).
"""

from codemods.analysis.project.index import ProjectIndex, facts_of
from codemods.analysis.project.modules import Usage, module_name
from codemods.analysis.project.state import ProjectState
from codemods.analysis.project.workers import summarise_here, summarised_here, take_joined

__all__ = ["ProjectIndex", "ProjectState", "Usage", "facts_of", "module_name", "summarise_here", "summarised_here",
           "take_joined"]
