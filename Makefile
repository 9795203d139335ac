# SosoAPI Research. Every target creates .venv and installs what it needs, no more:
# `make install` the product as a deployment runs it: its own dependencies with the
# extractor's fallback and PostgreSQL's driver (`pipx install '.[trafilatura,postgres]'`);
# `make demo` adds the `demo` extra (trustme, for its loopback HTTPS origin), `make test`
# and `make lint` the `test` extra, `make bench` the `bench` extra.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
DEMO_STAMP := $(VENV)/.demo-stamp
TEST_STAMP := $(VENV)/.test-stamp
BENCH_STAMP := $(VENV)/.bench-stamp

PYWB := .venv-pywb/.installed-stamp
# Every venv is made and filled by scripts/venv_install.py: with uv (in .uv/, `make uv`)
# where it could be installed, pip's configuration translated for it; else with pip.
INSTALL := $(PYTHON) scripts/venv_install.py
UV_STAMP := .uv/.installed-stamp

# Bytecode caches (__pycache__, gitignored) are written even where the environment asks
# not to (PYTHONDONTWRITEBYTECODE=1): without them every pytest process, each xdist worker
# included, compiled and assertion-rewrote every test module on every run, 3.7 s of CPU a
# process (docs/testing.md, "The budget").
unexport PYTHONDONTWRITEBYTECODE

.PHONY: install uv node-tools demo test test-fast coverage lint format bench docs clean pywb

# uv, from PyPI, into .uv/ (not into a venv: `make install` stays the product alone). If
# it cannot be installed, the stamp still marks the attempt and pip installs instead.
$(UV_STAMP):
	rm -rf .uv .uv.part
	$(PYTHON) -m pip install -q --root-user-action=ignore --target .uv.part 'uv>=0.9,<1' \
		&& mv .uv.part .uv || echo "uv could not be installed: pip installs instead" >&2
	mkdir -p .uv && touch $(UV_STAMP)

uv: $(UV_STAMP)

$(STAMP): pyproject.toml $(UV_STAMP)
	$(INSTALL) $(VENV) -q -e '.[trafilatura,postgres]'
	touch $(STAMP)

$(DEMO_STAMP): $(STAMP)
	$(INSTALL) $(VENV) -q -e '.[demo]'
	touch $(DEMO_STAMP)

$(TEST_STAMP): $(STAMP)
	$(INSTALL) $(VENV) -q -e '.[test]'
	touch $(TEST_STAMP)

$(BENCH_STAMP): $(TEST_STAMP)
	$(INSTALL) $(VENV) -q -e '.[bench]'
	touch $(BENCH_STAMP)

install: $(STAMP)

# pywb, which the replay test opens exported corpora with, in its own virtualenv: it pulls
# in brotlipy, whose `brotli` module would shadow the brotli package egress decodes with.
# Only `make test` needs it; `make install` stays the product's own dependencies.
$(PYWB): $(UV_STAMP)
	$(INSTALL) .venv-pywb -q 'pywb>=2.10,<3'
	touch $(PYWB)

pywb: $(PYWB)

# The pinned Node MCP clients the tests drive sosoapi with, into .node-tools/ (needs npm).
node-tools:
	scripts/install-node-tools.sh

demo: $(DEMO_STAMP)
	$(BIN)/python scripts/demo.py

# The docs' generated parts, part of their routine: the review console's screenshots
# (docs/console/*.png, from a seeded `sosoapi serve` in /usr/bin/chromium). The words the
# docs share with the code are checked by tests instead (tests/research/test_search_rules_text.py,
# tests/research/test_passages_text.py, tests/mcp/test_guidance.py).
docs: $(TEST_STAMP)
	$(BIN)/python scripts/console_screenshots.py

lint: $(TEST_STAMP)
	$(BIN)/ruff check src tests bench scripts
	$(BIN)/ruff format --check src tests bench scripts
	$(BIN)/mypy src

format: $(TEST_STAMP)
	$(BIN)/ruff format src tests bench scripts
	$(BIN)/ruff check --fix src tests bench scripts

# Tiers (docs/testing.md). `make test-fast`: units and in-process behaviour on SQLite, no
# server or CLI process, for the inner loop. `make test`: lint and everything on both
# stores and every transport, in two pytest runs side by side with lint: most tests on
# $(TEST_WORKERS) workers (phase 1; a module's tests stay on one worker, where they share its
# servers), and the `exclusive` ones (load, faults, lease timing) on two workers of their
# own: they mostly wait (leases running out, servers starting), and a file's tests stay on
# one worker, so the two 100-client tests never overlap. Each run prints its slowest
# tests; order is random (pytest-randomly: `--randomly-seed=N` repeats an order,
# `-p no:randomly` keeps it).
# `make coverage`: branch coverage of the same run, subprocesses included (not in `test`).
WORKERS ?= 3
# make test's phase 1 on one worker more: its servers, browsers and Node clients wait, and
# once the exclusive run beside it was done three workers left the cores 5-80% idle
# (docs/testing.md, "Three at once, and uv"). test-fast's units only compute: $(WORKERS).
TEST_WORKERS ?= 4
FAST := -m "not slow and not exclusive and not postgres" --ignore=tests/surfaces \
	--ignore=tests/scale --ignore=tests/test_install.py --ignore=tests/test_demo.py \
	--ignore=tests/archive/test_replay.py --ignore=tests/api/test_http_api.py
test-fast: $(TEST_STAMP)
	$(BIN)/pytest -q -n $(WORKERS) $(FAST) --durations=15

# The set-up runs as two chains side by side, whatever -j the caller gave: .venv and its
# `test` extra on one, .venv-pywb on the other (it needs nothing of .venv). Then lint, the
# `exclusive` tests and phase 1 run side by side (scripts/test-phases.sh): phase 1 live,
# the other two's output after it; any failure fails the target once all three are done.
test:
	@$(MAKE) --no-print-directory -j2 --output-sync=target $(TEST_STAMP) pywb
	scripts/test-phases.sh $(TEST_WORKERS)

coverage: $(TEST_STAMP) $(PYWB)
	rm -f .coverage .coverage.*
	$(BIN)/pytest -q -n $(WORKERS) --dist loadfile -m "not exclusive" --cov --cov-report=
	$(BIN)/pytest -q -n 2 --dist loadfile -m exclusive --cov --cov-append --cov-report=term:skip-covered

bench: $(BENCH_STAMP)
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) .venv-pywb .uv .uv.part .pytest_cache .ruff_cache .hypothesis .demo .node-tools .coverage .coverage.*
