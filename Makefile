# insightlab: the two commands of the README, plus the notebooks in a browser, lint and bench.
#   make run           install into .venv, seed the demo database if missing, start the backend
#   make test          install into .venv with the test extras, run the whole suite (notebooks included)
#   make test-fast     the suite without the notebooks and the tests that start a real server, the backend or
#                      the ClickHouse HTTP shim (for working)
#   make lab           install JupyterLab into .venv and open the example notebooks in it
#   make test-browser  run every notebook in JupyterLab in Chromium and drive the builders (needs chromium)
#   make bench         every benchmark; scale_bench.py at 1M, 5M and 20M events, on chdb at 5M and 20M
#                      (hours, and ~40 GB in /tmp)

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
DB     ?= demo.db
HOST   ?= 127.0.0.1
PORT   ?= 8000
STAMP  := $(VENV)/.installed
BROWSER_STAMP := $(VENV)/.installed-browser
LAB_PORT ?= 8888
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)
LINTED := $(wildcard local_backend toolkit tests benchmarks docs/*.py)
NOTEBOOKS := $(wildcard notebooks/*.ipynb)
NBVAL  := $(if $(NOTEBOOKS),--nbval --nbval-sanitize-with notebooks/sanitize.cfg $(NOTEBOOKS))
# one test process per core (pytest-xdist); a file's tests stay in one process (a notebook's cells share a kernel,
# a module's fixture may be a live server)
WORKERS ?= $(shell $(PYTHON) -c "import os; print(len(os.sched_getaffinity(0)))")
PARALLEL := -n $(WORKERS) --dist loadfile
# schemathesis names every operation's test alike, and pytest-xdist then runs one operation of the 77: its file
# runs in a process of its own beside the others, its report printed at the end
SCHEMA_TEST := tests/backend/web/test_schemathesis.py
SCHEMA_LOG  := $(VENV)/schema-test.log
define beside_schema_test
	@$(PY) -m pytest -p no:xdist $(SCHEMA_TEST) > $(SCHEMA_LOG) 2>&1 & schema=$$!; trap 'kill $$schema' INT TERM; \
	echo "$(PY) -m pytest $(PARALLEL) $(1) --ignore=$(SCHEMA_TEST)"; \
	$(PY) -m pytest $(PARALLEL) $(1) --ignore=$(SCHEMA_TEST); suite=$$?; \
	wait $$schema; schema_status=$$?; echo "== $(SCHEMA_TEST), run beside the rest =="; tail -n 8 $(SCHEMA_LOG); \
	test $$suite -eq 0 && test $$schema_status -eq 0
endef

.PHONY: run test test-fast test-browser lab lint bench install clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

$(BROWSER_STAMP): pyproject.toml | $(STAMP)
	$(PY) -m pip install -q -e '.[test,browser]'
	touch $(BROWSER_STAMP)

install: $(STAMP)

run: $(STAMP)
	$(PY) -m local_backend demo --db $(DB) --host $(HOST) --port $(PORT)
	$(PY) -m local_backend serve --db $(DB) --host $(HOST) --port $(PORT)

# the browser tests need JupyterLab and Chromium and take minutes: test-browser runs them, test does not
test: $(STAMP)
	$(call beside_schema_test,tests --ignore=tests/browser $(NBVAL))

test-fast: $(STAMP)
	$(call beside_schema_test,tests --ignore=tests/browser -m 'not browser and not slow and not live')

test-browser: $(BROWSER_STAMP)
	$(PY) -m pytest tests/browser -m browser

lab: $(BROWSER_STAMP)
	$(VENV)/bin/jupyter lab --notebook-dir=notebooks --ServerApp.ip=$(HOST) --ServerApp.port=$(LAB_PORT) $(ROOT_FLAG)

lint: $(STAMP)
	$(PY) -m ruff check $(LINTED) $(NOTEBOOKS)
	$(PY) -m ruff format --check $(LINTED)

bench: $(STAMP)
	$(PY) -m pip install -q -e '.[bench]'
	$(PY) benchmarks/run_all.py --scale-sizes 1000000 5000000 20000000 --chdb-sizes 5000000 20000000

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .ruff_cache
