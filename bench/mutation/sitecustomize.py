"""Copied to mutants/sitecustomize.py by pytest_plugin.py, for `make mutants` only.

Tests that run the tool in a subprocess put the checkout on PYTHONPATH; under mutmut that is
mutants/, so this file runs first in each such child. During mutmut's stats pass
(MUTANT_UNDER_TEST=stats) the child's trampolines would record the functions they reach in the
child's memory, where mutmut never sees them, and through mutmut's config loader, which fails in
the test's temporary folder. Here each function reached is written instead to
mutants/.mutmut-child-stats/<pid>.txt, once per process; pytest_plugin.py hands the names to
mutmut as hits of the test that ran. Otherwise (mutants, clean runs) this does nothing, and a
child runs the mutant named by the MUTANT_UNDER_TEST it inherited.
"""

import os

if os.environ.get("MUTANT_UNDER_TEST") == "stats":
    try:
        import mutmut.mutation.trampoline as _trampoline
    except ImportError:
        pass
    else:
        _folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), ".mutmut-child-stats")
        _seen: set = set()

        def _record_trampoline_hit(name: str, caller: object = None) -> None:
            if name in _seen:
                return
            _seen.add(name)
            os.makedirs(_folder, exist_ok=True)
            with open(os.path.join(_folder, f"{os.getpid()}.txt"), "a", encoding="utf-8") as f:
                f.write(name + "\n")

        _trampoline.record_trampoline_hit = _record_trampoline_hit
