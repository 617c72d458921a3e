# Two commands for users: `make demo` and `make test`. Both work on a fresh machine: each
# creates its virtualenv and installs what it needs (libcst, typer; jax + pytest for tests).

PYTHON_NEWEST ?= python3.12
PYTHON_OLDEST ?= python3.11
JAX_NEWEST ?= 0.12.0.1
JAX_OLDEST ?= 0.10.2
VENV := .venv
VENV_OLDEST := .venv-jax$(JAX_OLDEST)
# Releases the JAX1xx goldens' original code is run on, where its old spellings still worked
# (tests/test_upgrades_jax.py): jax only, no jax-codemod (it runs the golden files alone).
# 0.4.13 (the oldest jaxlib the index has for Python 3.11) proves the fixes a floor below 0.4.25 gets.
PROOF_RELEASES ?= 0.4.13 0.4.30 0.6.2
# What an old release needs beside it (0.4.13 predates numpy 2 and ml_dtypes 0.5); numpy<2.1 otherwise.
PROOF_PINS_0.4.13 := 'numpy<2' 'ml_dtypes<0.5' 'scipy<1.14'
PROOF_VENVS := $(foreach release,$(PROOF_RELEASES),.venv-jax$(release)/.proof-installed)
PYTEST_ARGS ?=
# pytest-xdist: the tests run in one worker per core (TEST_JOBS=0: in pytest's own process); a
# worker that runs out of tests takes some of the other's (worksteal), so that neither idles at
# the end while the other finishes a file of slow tests.
TEST_JOBS ?= auto
XDIST := -n $(TEST_JOBS) --dist worksteal

.PHONY: demo test test-newest test-oldest test-fast

$(VENV)/.installed: pyproject.toml
	$(PYTHON_NEWEST) -m venv $(VENV)
	$(VENV)/bin/python -m pip install -q --upgrade pip
	$(VENV)/bin/python -m pip install -q -e .
	touch $@

# The dask extra too: tests/test_executors.py runs the same trees on a local Dask cluster (it
# skips, and says so, where `distributed` is missing).
$(VENV)/.test-installed: $(VENV)/.installed
	$(VENV)/bin/python -m pip install -q -e '.[test,dask]' 'jax==$(JAX_NEWEST)'
	touch $@

$(VENV_OLDEST)/.test-installed: pyproject.toml
	$(PYTHON_OLDEST) -m venv $(VENV_OLDEST)
	$(VENV_OLDEST)/bin/python -m pip install -q --upgrade pip
	$(VENV_OLDEST)/bin/python -m pip install -q -e '.[test,dask]' 'jax==$(JAX_OLDEST)'
	touch $@

.venv-jax%/.proof-installed:
	$(PYTHON_OLDEST) -m venv .venv-jax$*
	.venv-jax$*/bin/python -m pip install -q 'jax==$*' 'jaxlib==$*' $(or $(PROOF_PINS_$*),'numpy<2.1') absl-py
	touch $@

# Dry run over the bundled broken kernels: prints the diff it would apply (exit 1 = changes pending).
# The demo venv has no jax, so the target is named (without one the JAX1xx rules cannot run: exit 2).
demo: $(VENV)/.installed
	$(VENV)/bin/jax-codemod --jax-version $(JAX_NEWEST) examples/ || [ $$? -eq 1 ]

# The whole suite on the newest jax, then again on the oldest supported release. The virtualenvs
# the newest run needs are built first, side by side, and the oldest release's while the newest
# run's tests start: pip waits on the index and the disk as much as on a core.
test:
	$(MAKE) -j3 $(VENV)/.test-installed $(PROOF_VENVS)
	$(MAKE) -j2 test-newest $(VENV_OLDEST)/.test-installed
	$(MAKE) test-oldest

test-newest: $(VENV)/.test-installed $(PROOF_VENVS)
	$(VENV)/bin/python -m pytest $(XDIST) $(PYTEST_ARGS)

test-oldest: $(VENV_OLDEST)/.test-installed $(PROOF_VENVS)
	$(VENV_OLDEST)/bin/python -m pytest $(XDIST) $(PYTEST_ARGS)

# The edit loop: the newest release only, without the tests that execute jax or build virtualenvs.
test-fast: $(VENV)/.test-installed
	$(VENV)/bin/python -m pytest $(XDIST) -m "not jax and not slow" $(PYTEST_ARGS)

# Wheels for the GPU machine, which has no network: tests/gpu/README.md.
.PHONY: gpu-wheels tpu-wheels
gpu-wheels:
	PYTHON=$(PYTHON_NEWEST) tests/gpu/fetch_wheels.sh

# Wheels for the TPU machine (Python 3.11, no network): tests/tpu/README.md.
tpu-wheels:
	PYTHON=$(PYTHON_OLDEST) PY_VERSION=3.11 WHEELS=.whl-tpu EXTRA_PINS=absl-py==2.5.1 tests/gpu/fetch_wheels.sh

# Not part of `make test`: runs the installed tool over pinned JAX ecosystem packages (PyPI needed
# once; cached in bench/.corpus/sweep/) and checks crashes, idempotence, compile() and structure.
# Writes bench/SWEEP.md; exit 1 on a tool bug. bench/sweep.py --help for options. Then the JAX1xx
# upgrade rules over the same packages: old spellings before and after, each one left reported
# [manual], outputs compiled, a second run idempotent (bench/upgrade_sweep.py, bench/UPGRADE_SWEEP.md).
# Last, three old releases' own test suites (chex 0.1.85, optax 0.1.7, jraph 0.0.6) on the newest
# jax, before and after the JAX1xx rewrite, compared per test (bench/peers.py; its section of
# bench/UPGRADE_SWEEP.md; exit 1 while a failure caused by a removed jax name remains after the
# rewrite at a line the tool does not report [manual], or a test that passed before fails after).
.PHONY: sweep
sweep: $(VENV)/.test-installed
	$(VENV)/bin/python bench/sweep.py
	$(VENV)/bin/python bench/upgrade_sweep.py
	$(VENV)/bin/python bench/inject.py
	JAX_CODEMOD_PROPERTY_EXAMPLES=1000 $(VENV)/bin/python -m pytest -q tests/test_flow_property.py tests/test_warm_equals_cold.py
	$(VENV)/bin/python bench/peers.py

# Not part of `make test`: mutation testing (mutmut, pinned in pyproject.toml's `mutants` extra) of
# the analysis, the rules, the capability table and the engine ([tool.mutmut] in pyproject.toml).
# Results are kept in mutants/ and reused: a rerun tests only the functions that changed. Then the
# score per module (bench/mutation_score.py; --survivors lists them, --diffs DIR writes their
# diffs). Hours on one core: a surviving mutant runs every test that reaches its function.
# MUTANTS='codemods.engine.cache.*' runs some mutants only; MUTANTS_JOBS=N runs N at a time.
# MUTANTS_TESTS='tests/test_a.py tests/test_b.py::test_c' gives mutmut only the tests whose id
# starts with one of these (bench/mutation/pytest_plugin.py): a module's run then costs its tests,
# not the whole suite's stats pass, and its score is a lower bound of the whole suite's.
MUTANTS ?=
MUTANTS_JOBS ?= 1
MUTANTS_TESTS ?=
.PHONY: mutants
$(VENV)/.mutants-installed: $(VENV)/.test-installed
	$(VENV)/bin/python -m pip install -q -e '.[test,mutants]' 'jax==$(JAX_NEWEST)'
	touch $@

# MUTANTS_SAMPLE=N runs a seeded random sample of N mutants instead (bench/mutation_sample.py): the
# whole set takes about 27 hours on two cores; the score then comes with its 95% interval. With MUTANTS,
# the sample is drawn from the mutants it names (MUTANTS_SAMPLE=60 MUTANTS='codemods.engine.patches.*').
MUTANTS_SAMPLE ?=
MUTANTS_SEED ?= 18
mutants: $(VENV)/.mutants-installed $(PROOF_VENVS)
ifeq ($(MUTANTS_SAMPLE),)
	MUTANTS_TESTS='$(MUTANTS_TESTS)' JAX_CODEMOD_PROOF_ROOT=$(CURDIR) $(VENV)/bin/mutmut run --max-children $(MUTANTS_JOBS) $(MUTANTS)
else
	$(VENV)/bin/python bench/mutation_sample.py --generate
	MUTANTS_TESTS='$(MUTANTS_TESTS)' JAX_CODEMOD_PROOF_ROOT=$(CURDIR) $(VENV)/bin/mutmut run --max-children $(MUTANTS_JOBS) $$($(VENV)/bin/python bench/mutation_sample.py $(MUTANTS_SAMPLE) --seed $(MUTANTS_SEED) $(foreach glob,$(MUTANTS),--only '$(glob)'))
endif
	$(VENV)/bin/python bench/mutation_score.py
