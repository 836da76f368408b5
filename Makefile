# navkit: `make demo` and `make test` set everything up on a fresh machine.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.navkit-installed
PYTEST := $(BIN)/python -m pytest

.PHONY: setup demo test test-heavy bench lint typecheck clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test,bench,dev]"
	touch $(STAMP)

setup: $(STAMP)

## demo: path queries on a bundled Moving AI map and the example levels; PNGs in out/
demo: $(STAMP)
	$(BIN)/python examples/demo.py --out out

## test: the whole suite except the `heavy` marker (every Moving AI line; see test-heavy)
test: $(STAMP)
	$(PYTEST) -m "not heavy" -q

## test-heavy: every scenario line of every Moving AI file
test-heavy: $(STAMP)
	$(PYTEST) -m heavy -q

## bench: navkit against pyastar2d, tcod, python-pathfinding, networkx, scikit-image
bench: $(STAMP)
	$(BIN)/navkit bench

lint: $(STAMP)
	$(BIN)/ruff check navkit tests examples benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy

clean:
	rm -rf $(VENV) out build *.egg-info .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
