PY ?= python3
VENV ?= .venv
BIN = $(VENV)/bin
DB ?= var/lawgraph.db
HOST ?= 127.0.0.1
PORT ?= 8000
CHROMIUM ?= /usr/bin/chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: install install-test compiled browser ingest run serve test lint bench clean

$(BIN)/python:
	@echo "Creating $(VENV) (a few seconds)"
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

install: $(BIN)/python
	@echo "Installing lawgraph and its dependencies into $(VENV) (1-2 minutes the first time, seconds after)"
	$(BIN)/pip install -q -e .
	@$(MAKE) -s compiled
	@$(BIN)/lawgraph dictionaries || echo "Continuing without the dictionary index: an ingest works, only slower"

install-test: $(BIN)/python
	@echo "Installing lawgraph with its test tools into $(VENV) (1-2 minutes the first time, seconds after)"
	$(BIN)/pip install -q -e '.[test]'
	@$(MAKE) -s compiled
	@$(BIN)/lawgraph dictionaries || echo "Continuing without the dictionary index: an ingest works, only slower"

# The package's bytecode, written once (an editable install leaves it to the first import,
# and an environment with PYTHONDONTWRITEBYTECODE would compile every module in every run).
compiled:
	$(BIN)/python -m compileall -q ingest store graph api web

ingest: install
	$(BIN)/lawgraph ingest --db $(DB)

run: ingest
	$(BIN)/lawgraph serve --db $(DB) --host $(HOST) --port $(PORT)

serve: run

# Debian's Chromium for the browser tests (Playwright drives it by its executable path).
$(CHROMIUM):
	$(SUDO) apt-get update -q
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q chromium

browser: $(CHROMIUM)

test: install-test $(CHROMIUM)
	$(BIN)/ruff check ingest store graph api web tests bench
	$(BIN)/mypy
	$(BIN)/python -m pytest -q

lint: install-test
	$(BIN)/ruff check ingest store graph api web tests bench
	$(BIN)/ruff format --check ingest store graph api web tests bench
	$(BIN)/mypy

bench: install-test ingest
	$(BIN)/python bench/ingest_speed.py
	$(BIN)/python bench/align_cost.py
	$(BIN)/python bench/align.py --db $(DB)
	$(BIN)/python bench/citations.py
	$(BIN)/python bench/search.py --db $(DB)
	$(BIN)/python bench/serve.py --db $(DB)
	$(BIN)/python bench/render.py --db $(DB)

clean:
	rm -rf $(VENV) var *.egg-info
