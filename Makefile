# Two commands do all set-up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_RUN := $(VENV)/.installed-run
STAMP_DEV := $(VENV)/.installed-dev

.PHONY: demo test lint bench clean

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "tracedrill needs Python 3.11+")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP_RUN): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(STAMP_DEV): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@ $(STAMP_RUN)

demo: $(STAMP_RUN)  ## a solo drill in the terminal, on the embedded SQLite database
	$(BIN)/tracedrill play $(DEMO_ARGS)

test: $(STAMP_DEV)  ## install with dev extras and run the whole suite, one worker per core
	$(BIN)/python -m pytest -q -n auto --dist worksteal

lint: $(STAMP_DEV)
	$(BIN)/ruff check bot tests benchmarks
	$(BIN)/mypy

bench: $(STAMP_DEV)
	$(BIN)/python benchmarks/bench_scenarios.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
