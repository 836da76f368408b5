# navkit: `make demo` and `make test` set everything up on a fresh machine.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.navkit-installed
PYTEST := $(BIN)/python -m pytest

.PHONY: setup chromium demo test test-heavy fuzz bench bench-mesh bench-avoidance bench-jps-plus docs docs-api docs-pictures lint typecheck clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[all,test,bench,dev,docs]"
	touch $(STAMP)

setup: $(STAMP)

## chromium: Debian's browser for the viewer's browser tests (Playwright downloads nothing);
## installed where it can be (root and apt-get), else those tests report skipped
chromium:
	@test -x /usr/bin/chromium || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update && apt-get install -y chromium; \
	  else \
	    echo "note: no /usr/bin/chromium and no root to install it: the browser tests will be skipped"; \
	  fi; }

## demo: path queries on a bundled Moving AI map and the example levels, then a
## crowd of 60 NPCs crossing an interior whose door closes mid-run (and again with ORCA
## local avoidance), a two-floor tavern (a path up the stairs, a crowd climbing and
## descending), then the same interior on a navigation mesh (exact paths, the crowd
## on the mesh); PNGs in out/
demo: $(STAMP)
	$(BIN)/navkit warmup grid jps sim floors
	$(BIN)/python examples/demo.py --out out
	$(BIN)/navkit path navkit/examples/interior.json --from -2,9 --to 24,4 --png out/interior_path.png
	$(BIN)/navkit path navkit/examples/outdoor.json --from 2,20 --to 58,12 --png out/outdoor_path.png
	$(BIN)/navkit sim navkit/examples/scenes/interior_crowd.json --ticks 1500 --png out/interior_crowd.png
	$(BIN)/navkit sim navkit/examples/scenes/interior_crowd.json --ticks 1500 --avoidance orca --png out/interior_crowd_orca.png
	$(BIN)/navkit path navkit/examples/tavern.json --from 1,0,1 --to 16.5,3.2,2 --png out/tavern_path.png
	$(BIN)/python examples/tavern_crowd.py --out out
	$(BIN)/navkit warmup mesh
	$(BIN)/navkit mesh navkit/examples/interior.json -o out/interior_mesh.npz --png out/interior_mesh.png
	$(BIN)/navkit path navkit/examples/interior.json --mesh --from -2,9 --to 24,4 --png out/interior_mesh_path.png
	$(BIN)/navkit sim navkit/examples/scenes/interior_crowd_mesh.json --ticks 1500 --png out/interior_crowd_mesh.png

## test: the whole suite except the `heavy` marker (every Moving AI line; see test-heavy);
## the kernels compile first, with a progress bar (navkit warmup).
## NAVKIT_REQUIRE_BROWSER=1 (CI sets it) fails instead of skipping without Chromium.
test: $(STAMP) chromium
	$(BIN)/navkit warmup
	$(PYTEST) -m "not heavy" -q

## test-heavy: every scenario line of every Moving AI file
test-heavy: $(STAMP) chromium
	$(PYTEST) -m heavy -q

## fuzz: a time-bounded fuzz campaign over every reader, query, the simulation and the viewer
## (FUZZ_SECONDS, default 600; FUZZ_SEED, default from the clock; `make test` runs a fixed
## 5,000-case sample); prints the outcome table and a repro line per failure signature
fuzz: $(STAMP)
	$(BIN)/navkit warmup
	$(BIN)/python -m tests.fuzz --no-warmup

## bench: navkit against pyastar2d, tcod, python-pathfinding, networkx, scikit-image
## (the other benchmarks: navkit bench jps|hpa|flow|level|sim)
bench: $(STAMP)
	$(BIN)/navkit bench

## bench-mesh: navigation meshes against extremitypathfinder, pyvisgraph, pynavmesh and
## navkit's grid (docs/navmesh.md); extremitypathfinder goes in with --no-deps (its numpy<2
## pin would downgrade numpy; it runs on numpy 2)
bench-mesh: $(STAMP)
	$(BIN)/python -m pip install --quiet --no-deps "extremitypathfinder==2.7.2"
	$(BIN)/navkit warmup mesh
	$(BIN)/navkit bench mesh

## bench-avoidance: the simulation's ORCA avoidance against pyrvo (RVO2), same agents
bench-avoidance: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[avoidance-peers]"
	$(BIN)/navkit bench avoidance

## bench-jps-plus: JPS+ (offline jump tables) against JPS, A* and the optimal Python peers
bench-jps-plus: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[jps-peers]"
	$(BIN)/navkit bench jps-plus

## docs: the documentation site (mkdocs-material + mkdocstrings, API from docstrings) into
## site/; any warning fails it (--strict); no network needed
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m mkdocs build --strict

## docs-api: rewrite docs/reference/*.md, the API reference as plain Markdown readable in
## the tree (tests/test_api_pages.py fails while they are stale)
docs-api: $(STAMP)
	$(BIN)/python docs/make_api_pages.py

## docs-pictures: redraw docs/images/site_*.png with navkit itself (deterministic)
docs-pictures: $(STAMP)
	$(BIN)/navkit warmup grid jps flow sim mesh
	$(BIN)/python docs/make_pictures.py

## lint: ruff, line length 100 included
lint: $(STAMP)
	$(BIN)/ruff check navkit tests examples benchmarks

## typecheck: mypy on everything outside navkit/_kernels (the kernels are untyped numba code)
typecheck: $(STAMP)
	$(BIN)/mypy

clean:
	rm -rf $(VENV) out build site *.egg-info .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
