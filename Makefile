# The two set-up commands of README.rst: `make run` and `make test`. Both install what is
# missing first: a virtualenv with the package, and Chromium from the distribution's packages.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
ARGS ?=
PYTEST_ARGS ?=

.PHONY: run test lint bench chromium install install-test install-bench man clean

run: install chromium
	$(VENV)/bin/clawd-browser serve $(ARGS)

test: install-test chromium lint
	$(PY) -m pytest $(PYTEST_ARGS)

lint: install-test
	$(VENV)/bin/ruff check clawd tests bench

bench: install-bench chromium
	$(PY) bench/latency.py
	$(PY) bench/snapshot.py
	$(PY) bench/load.py
	$(PY) bench/strict.py
	$(PY) bench/webfetch.py
	$(PY) bench/relay.py

install: $(STAMP)

$(STAMP): setup.cfg setup.py
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e .
	touch $(STAMP)

install-test: install
	$(PY) -m pip install -q -e '.[test,mcp]'

install-bench: install-test
	$(PY) -m pip install -q -e '.[bench]'

# Chromium from the distribution when no Chromium-family browser is on the machine.
chromium:
	@if command -v chromium >/dev/null || command -v chromium-browser >/dev/null \
	    || command -v google-chrome >/dev/null || command -v google-chrome-stable >/dev/null; then :; \
	elif command -v apt-get >/dev/null; then \
	    SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	    $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium; \
	else echo "install Chromium (or set browser.executablePath)" >&2; exit 1; fi

man: install
	$(PY) -m clawd.docs.manpages man/

clean:
	rm -rf $(VENV) build *.egg-info
