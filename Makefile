# The two commands of the README. Both bootstrap first (idempotent).
VENV ?= .venv
PY := $(VENV)/bin/python
OUT ?= runs/demo

.PHONY: bootstrap harness-venvs demo test lint bench clean

bootstrap:
	@VENV=$(VENV) bash scripts/bootstrap.sh

# Inspect and lmms-eval, each in its own venv under .harness-venvs/ (the harness tests use them)
harness-venvs: bootstrap
	$(PY) scripts/harness_venv.py inspect lmms-eval

demo: bootstrap
	$(VENV)/bin/webgauge demo --out $(OUT)

test: bootstrap
	$(PY) -m pytest -q -p no:cacheprovider

# ruff (pyflakes, pycodestyle, isort, bugbear, pyupgrade) and mypy, both configured in pyproject.toml
lint: bootstrap
	$(PY) -m ruff check src tests bench
	$(PY) -m mypy

bench: bootstrap
	@for b in bench/*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

clean:
	rm -rf runs .pytest_cache
