"""The project index as one object: each of its parts (a class of its own module) reads the state
they share (base.py), so the engine asks one index for a module's facts and the link's answers."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from codemods.analysis.kernel_scope import NO_FACTS, ModuleFacts
from codemods.analysis.project.facts import FactsSearch
from codemods.analysis.project.flow import LinkedFlow
from codemods.analysis.project.kernel_land import KernelLand
from codemods.analysis.project.resolution import NameResolution
from codemods.analysis.project.state import KeptState
from codemods.analysis.project.usage import UsageSearch
from codemods.analysis.project.words import WordIndex
from codemods.analysis.project.workers import WorkerSummary


class ProjectIndex(KeptState, WorkerSummary, LinkedFlow, FactsSearch, UsageSearch, KernelLand, NameResolution, WordIndex):
    """Cross-module facts for the files of one project, computed on demand (main process)."""


def facts_of(index: Optional[ProjectIndex], path: Path) -> ModuleFacts:
    """What the project says about the module at `path`; nothing where the run keeps no index (no
    kernel-scoped rule runs, or not under --scope kernels: see `runner.project_index`)."""
    return index.facts(path) if index is not None else NO_FACTS
