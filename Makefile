# Two commands do all set-up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_RUN := $(VENV)/.installed-run
STAMP_DEV := $(VENV)/.installed-dev
UV_VERSION := 0.13.9
UV := $(BIN)/uv
# The machine's trust store, as pip uses it (uv's bundled roots miss a registry proxy's or a company's CA), and
# pip's index when one is set in the environment (uv reads neither pip.conf nor PIP_INDEX_URL).
UV_PIP := $(UV) pip --system-certs
ifdef PIP_INDEX_URL
export UV_DEFAULT_INDEX ?= $(PIP_INDEX_URL)
endif

.PHONY: demo test lint bench clean lock

# uv installs the locks: the same hash-checked packages as pip, in ~5 s instead of ~30 s on this machine.
$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "tracedrill needs Python 3.11+")'
	$(PYTHON) -m venv $(VENV)

$(UV): | $(BIN)/python
	$(BIN)/python -m pip install --quiet uv==$(UV_VERSION)

# Dependencies come from the hash-pinned locks (what CI tested); the project itself is installed on top of them.
# Where uv cannot reach the registry, pip installs the same hash-checked locks (slower, same result).
$(STAMP_RUN): pyproject.toml requirements.lock | $(UV)
	$(UV_PIP) install --python $(BIN)/python --quiet --require-hashes -r requirements.lock \
		|| $(BIN)/pip install --quiet --require-hashes -r requirements.lock
	$(UV_PIP) install --python $(BIN)/python --quiet --no-deps -e . || $(BIN)/pip install --quiet --no-deps -e .
	touch $@

$(STAMP_DEV): pyproject.toml requirements-dev.lock | $(UV)
	$(UV_PIP) install --python $(BIN)/python --quiet --require-hashes -r requirements-dev.lock \
		|| $(BIN)/pip install --quiet --require-hashes -r requirements-dev.lock
	$(UV_PIP) install --python $(BIN)/python --quiet --no-deps -e . || $(BIN)/pip install --quiet --no-deps -e .
	touch $@ $(STAMP_RUN)

lock: | $(UV)  ## refresh both locks after changing pyproject.toml's dependencies
	$(UV_PIP) compile pyproject.toml --python-version 3.11 --generate-hashes --no-header -q -o requirements.lock
	$(UV_PIP) compile pyproject.toml --extra dev --python-version 3.11 --generate-hashes --no-header -q \
		-o requirements-dev.lock

demo: $(STAMP_RUN)  ## a solo drill in the terminal, on the embedded SQLite database
	$(BIN)/tracedrill play $(DEMO_ARGS)

# One worker more than cores: a third of the tests' summed wall time (125 of 360 s) is waiting — replica polls,
# ack deadlines, the fenced analysis worker, servers started as processes — and a third worker's CPU fills it.
TEST_WORKERS ?= $(shell $(PYTHON) -c 'import os; print((os.cpu_count() or 1) + 1)')

test: $(STAMP_DEV)  ## install with dev extras and run the whole suite, one worker more than cores
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist worksteal

lint: $(STAMP_DEV)  ## style, complexity and types: what CI checks before the suite
	$(BIN)/ruff format --check bot tests benchmarks docs
	$(BIN)/ruff check bot tests benchmarks docs
	$(BIN)/mypy

bench: $(STAMP_DEV)
	$(BIN)/python benchmarks/bench_scenarios.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
