# insightlab: the two commands of the README, plus lint and bench.
#   make run   install into .venv, seed the demo database if missing, start the backend
#   make test  install into .venv with the test extras, run the whole suite (notebooks included)

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
DB     ?= demo.db
HOST   ?= 127.0.0.1
PORT   ?= 8000
STAMP  := $(VENV)/.installed
LINTED := $(wildcard local_backend toolkit tests benchmarks docs/*.py)
NOTEBOOKS := $(wildcard notebooks/*.ipynb)
NBVAL  := $(if $(NOTEBOOKS),--nbval --nbval-sanitize-with notebooks/sanitize.cfg $(NOTEBOOKS))

.PHONY: run test lint bench install clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(PY) -m local_backend demo --db $(DB) --host $(HOST) --port $(PORT)
	$(PY) -m local_backend serve --db $(DB) --host $(HOST) --port $(PORT)

test: $(STAMP)
	$(PY) -m pytest tests $(NBVAL)

lint: $(STAMP)
	$(PY) -m ruff check $(LINTED)
	$(PY) -m ruff format --check $(LINTED)

bench: $(STAMP)
	$(PY) -m pip install -q -e '.[bench]'
	$(PY) benchmarks/run_all.py

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .ruff_cache
