# Two commands do all set-up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_RUN := $(VENV)/.installed-run
STAMP_DEV := $(VENV)/.installed-dev

.PHONY: demo test lint bench clean lock

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "tracedrill needs Python 3.11+")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Dependencies come from the hash-pinned locks (what CI tested); the project itself is installed on top of them.
$(STAMP_RUN): pyproject.toml requirements.lock | $(BIN)/python
	$(BIN)/pip install --quiet --require-hashes -r requirements.lock
	$(BIN)/pip install --quiet --no-deps -e .
	touch $@

$(STAMP_DEV): pyproject.toml requirements-dev.lock | $(BIN)/python
	$(BIN)/pip install --quiet --require-hashes -r requirements-dev.lock
	$(BIN)/pip install --quiet --no-deps -e .
	touch $@ $(STAMP_RUN)

lock: | $(BIN)/python  ## refresh both locks after changing pyproject.toml's dependencies
	$(BIN)/pip install --quiet uv
	$(BIN)/uv pip compile pyproject.toml --python-version 3.11 --generate-hashes --no-header -q -o requirements.lock
	$(BIN)/uv pip compile pyproject.toml --extra dev --python-version 3.11 --generate-hashes --no-header -q \
		-o requirements-dev.lock

demo: $(STAMP_RUN)  ## a solo drill in the terminal, on the embedded SQLite database
	$(BIN)/tracedrill play $(DEMO_ARGS)

test: $(STAMP_DEV)  ## install with dev extras and run the whole suite, one worker per core
	$(BIN)/python -m pytest -q -n auto --dist worksteal

lint: $(STAMP_DEV)  ## style, complexity and types: what CI checks before the suite
	$(BIN)/ruff format --check bot tests benchmarks docs
	$(BIN)/ruff check bot tests benchmarks docs
	$(BIN)/mypy

bench: $(STAMP_DEV)
	$(BIN)/python benchmarks/bench_scenarios.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
