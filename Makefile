# The two set-up commands of README.rst: `make run` and `make test`. Both install what is
# missing first: a virtualenv with the package, and Chromium from the distribution's packages.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
ARGS ?=
PYTEST_ARGS ?=

.PHONY: run test lint bench chromium icu browserless widgets openclaw-client install install-test install-bench man clean sandbox-images

run: install chromium
	$(VENV)/bin/clawd-browser serve $(ARGS)

test: install-test chromium browserless widgets openclaw-client lint
	$(PY) -m pytest $(PYTEST_ARGS)

lint: install-test
	$(VENV)/bin/ruff check clawd tests bench

bench: install-bench chromium browserless widgets
	$(PY) bench/latency.py
	$(PY) bench/snapshot.py
	$(PY) bench/load.py
	$(PY) bench/strict.py
	$(PY) bench/webfetch.py
	$(PY) bench/pool.py
	$(PY) bench/relay.py
	$(PY) bench/actionability.py
	$(PY) bench/agent_steps.py
	$(PY) bench/webmcp.py
	$(PY) bench/routing.py
	$(PY) bench/recording.py

install: $(STAMP)

$(STAMP): setup.cfg setup.py | icu
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

# PyICU (the Unicode confusables skeleton the untrusted-content wrapping folds look-alikes by)
# builds against the system's ICU: its headers, pkg-config and a C++ compiler, from the
# distribution when missing (macOS: brew install icu4c pkg-config, icu4c's lib/pkgconfig on
# PKG_CONFIG_PATH).
icu:
	@if pkg-config --exists icu-i18n 2>/dev/null && command -v c++ >/dev/null; then :; \
	elif command -v apt-get >/dev/null; then \
	    SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	    $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	        $$SUDO apt-get install -y -qq libicu-dev pkg-config g++; \
	else echo "install ICU's headers, pkg-config and a C++ compiler (PyICU builds on them)" >&2; exit 1; fi

# The Browserless pool the pool tests and bench/pool.py run (npm, into a cache outside the tree;
# tests/support/browserless.py says where). Instant when it is there; without npm the tests skip.
browserless: install-test
	@if command -v npm >/dev/null; then $(PY) -m tests.support.browserless install; \
	else echo "npm is missing: the Browserless pool tests will be skipped" >&2; fi

# The real widget libraries of the widget zoo (tests/site/zoo/, bench/actionability.py): npm,
# pinned, into a cache outside the tree (tests/support/widgets.py says where). Instant when they
# are there; without npm the zoo's tests skip.
widgets: install-test
	@if command -v npm >/dev/null; then $(PY) -m tests.support.widgets install; \
	else echo "npm is missing: the widget zoo tests will be skipped" >&2; fi

# OpenClaw's own published client (clawdbot, pinned, with Node 22 from the npm registry) that
# tests/compat/test_openclaw_client.py drives against clawd: npm, into a cache outside the tree
# (tests/support/openclaw_client.py says where and why each pin). Instant when it is there;
# without npm those tests skip.
openclaw-client: install-test
	@if command -v npm >/dev/null; then $(PY) -m tests.support.openclaw_client install; \
	else echo "npm is missing: the OpenClaw client tests will be skipped" >&2; fi

# The sandbox browser image (DESIGN.md §14; needs a Docker daemon): built once, reused after.
sandbox-images: install
	$(VENV)/bin/clawd-browser sandbox build

man: install
	$(PY) -m clawd.docs.manpages man/

clean:
	rm -rf $(VENV) build *.egg-info
