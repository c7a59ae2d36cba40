# Set-up is automatic: every target below creates .venv on first use.
# torch comes from the CPU wheel (torch==2.13.0); an unpinned torch would pull CUDA builds.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
TORCH  ?= torch==2.13.0
STAMP  := $(VENV)/.installed
unexport PYTHONDONTWRITEBYTECODE

.PHONY: setup test test-ray mutation lint format demo bench clean

setup: $(STAMP)

# --no-compile: pip would byte-compile every module of every package, about half the set-up time
# and most of it torch modules that nothing imports. Python compiles what is imported instead, on
# first use, and keeps what it compiled for the next process: the targets below start many
# (pytest workers, process pools, the CLI), so a PYTHONDONTWRITEBYTECODE in the caller's
# environment, which would make each of them compile everything it imports afresh, is dropped.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet --no-compile "$(TORCH)"
	$(PY) -m pip install --quiet --no-compile -e ".[dev]"
	touch $(STAMP)

# One pytest worker per core, at most TEST_WORKERS; tests that must share one process carry
# an xdist_group mark (--dist loadgroup keeps each group on one worker).
TEST_WORKERS ?= 8

test: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m pytest -n auto --maxprocesses $(TEST_WORKERS) --dist loadgroup

# The Ray backend against a real local cluster (installs the `ray` extra first).
test-ray: $(STAMP)
	$(PY) -m pip install --quiet -e ".[ray]"
	$(PY) -m pytest tests/simulations/test_sweeps_ray.py

# Mutation score of the exact core, the verifier and the experiment rules (installs the
# `mutation` extra; not part of `make test`: about an hour on 2 cores). MODULES="a.py b.py"
# runs some of them (keys of MODULES in benchmarks/mutation.py); MUTATION_ARGS=--again
# re-tests the last survivors only. Writes benchmarks/results/mutation.md.
mutation: $(STAMP)
	$(PY) -m pip install --quiet -e ".[mutation]"
	$(PY) benchmarks/mutation.py $(MODULES) $(MUTATION_ARGS)

lint: $(STAMP)
	$(PY) -m ruff check .

format: $(STAMP)
	$(PY) -m ruff format .
	$(PY) -m ruff check --fix .

demo: $(STAMP)
	$(VENV)/bin/ccx tour
	$(PY) -m ccx.demo

bench: $(STAMP)
	$(PY) benchmarks/exact_methods.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
