# The two commands of the README. Both bootstrap first (idempotent).
VENV ?= .venv
PY := $(VENV)/bin/python
OUT ?= runs/demo

.PHONY: bootstrap harness-venvs demo test test-fast test-harnesses test-realapps test-ray lint bench clean

bootstrap:
	@VENV=$(VENV) bash scripts/bootstrap.sh

# Inspect, lmms-eval and AgentLab, each in its own venv under .harness-venvs/ (the harness tests use them)
harness-venvs: bootstrap
	$(PY) scripts/harness_venv.py inspect lmms-eval agentlab

demo: bootstrap
	$(VENV)/bin/webgauge demo --out $(OUT)

# Three pytest-xdist workers on two cores (TEST_WORKERS=0: one process); each test file runs on one
# worker, with its own Chromium (tests/conftest.py). docs/performance.md, "Test suite", compares 2 and 3.
TEST_WORKERS ?= 3
XDIST := $(if $(filter-out 0,$(TEST_WORKERS)),-n $(TEST_WORKERS) --dist loadgroup)

# Everything but the third-party harness runs, which need venvs of their own (make test-harnesses).
test: bootstrap
	$(PY) -m pytest -q -p no:cacheprovider $(XDIST) -m "not browsergym and not harness and not realapps"

# Every test that needs no browser; a browser test without the `browser` mark fails here, naming the mark.
test-fast: bootstrap
	WEBGAUGE_TEST_TIER=fast $(PY) -m pytest -q -p no:cacheprovider $(XDIST) -m "not browser and not slow and not browsergym and not harness and not realapps"

# Real apps: install, build seeds 0-9, resets and oracles, and every entry point (CLI run/tasks/sweep/safety/
# package/verify, gym ids) on their families (REALAPPS=roundup: one app; needs PyPI, and apt for mediawiki).
REALAPPS ?= roundup mediawiki oscar
test-realapps: bootstrap
	PY=$(PY) bash scripts/ci_realapps.sh $(REALAPPS)

# Ray clusters of several `ray start` nodes on loopback: a two-node run equals the local one, a killed node
# loses nothing (a few minutes; make test leaves them out)
test-ray: bootstrap
	$(PY) -m pytest -q -p no:cacheprovider -m raycluster tests/run

# lmms-eval's CLI, Inspect (mockllm/model and webgauge/random, offline), an AgentLab study, BrowserGym's
# agreement run and the docs' harness commands, each from its own venv (built on first use; needs PyPI).
# Two workers, one test file each at a time: BrowserGym's agreement run (the longest file, mostly waiting on
# its browser) beside the others (HARNESS_WORKERS=0: one process).
HARNESS_WORKERS ?= 2
test-harnesses: harness-venvs
	$(PY) -m pytest -q -p no:cacheprovider $(if $(filter-out 0,$(HARNESS_WORKERS)),-n $(HARNESS_WORKERS) --dist loadfile) -m "browsergym or harness"

# ruff (pyflakes, pycodestyle, isort, bugbear, pyupgrade) and mypy, both configured in pyproject.toml
lint: bootstrap
	$(PY) -m ruff check src tests bench
	$(PY) -m mypy

# every bench script in turn; the [bench] extra (uvicorn, for the episode-server comparison) first (needs PyPI)
bench: bootstrap
	$(PY) -m pip install -q -e ".[bench]"
	@for b in bench/*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

clean:
	rm -rf runs .pytest_cache
