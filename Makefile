PY ?= python3
VENV ?= .venv
BIN = $(VENV)/bin
DB ?= var/lawgraph.db
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install install-test ingest run serve test lint bench clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

install: $(BIN)/python
	$(BIN)/pip install -q -e .

install-test: $(BIN)/python
	$(BIN)/pip install -q -e '.[test]'

ingest: install
	$(BIN)/lawgraph ingest --db $(DB)

run: ingest
	$(BIN)/lawgraph serve --db $(DB) --host $(HOST) --port $(PORT)

serve: run

test: install-test
	$(BIN)/ruff check ingest graph api web tests bench
	$(BIN)/python -m pytest -q

lint: install-test
	$(BIN)/ruff check ingest graph api web tests bench
	$(BIN)/ruff format --check ingest graph api web tests bench

bench: install
	$(BIN)/python bench/ingest_speed.py

clean:
	rm -rf $(VENV) var *.egg-info
