# Two commands for a new user (see README.md):
#   make play   set up (first time only) and play on the board, or on the virtual board
#   make test   set up (first time only) and run the whole test suite
# Everything installs into .venv inside the repository; nothing system-wide.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev
ARGS   ?=

.PHONY: play test setup lint format clean bench

play: $(STAMP)
	$(BIN)/zuni play $(ARGS)

test: $(DEV_STAMP)
	sh tools/ensure_browser.sh
	sh tools/ensure_speech.sh
	sh tools/ensure_mosquitto.sh
	sh tools/ensure_kicad.sh
	# Three workers on two cores: the end-to-end tests mostly wait on real-time
	# timers (debounce, commit, link resends), not on the CPU.
	$(BIN)/python -m pytest -n 3 $(ARGS)

setup: $(DEV_STAMP)

# Re-run the install whenever the dependency list or this file changes. The steps are
# in tools/make.py (the venv and the project for play; for the tests also the dev
# extras and the Pico stubs apart from site-packages), which also stands in for make
# where there is none (Windows: README). `make play` installs only what playing needs.
$(STAMP): pyproject.toml Makefile tools/make.py
	$(PYTHON) tools/make.py setup --force

$(DEV_STAMP): pyproject.toml Makefile tools/make.py
	$(PYTHON) tools/make.py setup --dev --force

lint: $(DEV_STAMP)
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

format: $(DEV_STAMP)
	$(BIN)/ruff format . && $(BIN)/ruff check --fix .

clean:
	rm -rf $(VENV) build *.egg-info host/*.egg-info .pytest_cache .mypy_cache .ruff_cache
