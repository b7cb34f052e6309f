# Two commands for a new user (see README.md):
#   make play   set up (first time only) and play on the board, or on the virtual board
#   make test   set up (first time only) and run the whole test suite
# Everything installs into .venv inside the repository; nothing system-wide.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STUBS  := $(VENV)/pico-stubs
STAMP  := $(VENV)/.installed
ARGS   ?=
# setuptools' editable install tells, as a warning, how it finds the packages (their
# folders are mapped: host/, firmware/lib/); a new user need not read it at every setup.
QUIET_BUILD := PYTHONWARNINGS=ignore::UserWarning:setuptools.command.editable_wheel

.PHONY: play test setup lint format clean bench

play: $(STAMP)
	$(BIN)/zuni play $(ARGS)

test: $(STAMP)
	sh tools/ensure_browser.sh
	# Three workers on two cores: the end-to-end tests mostly wait on real-time
	# timers (debounce, commit, link resends), not on the CPU.
	$(BIN)/python -m pytest -n 3 $(ARGS)

setup: $(STAMP)

# Re-run the install whenever the dependency list or this file changes.
$(STAMP): pyproject.toml Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(QUIET_BUILD) $(BIN)/python -m pip install --quiet -e '.[dev]'
	# The Pico stubs shadow CPython's stdlib, so they live apart from the venv's
	# site-packages and only the firmware type check looks at them.
	rm -rf $(STUBS)
	$(BIN)/python -m pip install --quiet --no-deps --target $(STUBS) \
		'micropython-rp2-rpi_pico-stubs>=1.29,<1.30' 'micropython-stdlib-stubs>=1.29,<1.30'
	touch $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff format . && $(BIN)/ruff check --fix .

clean:
	rm -rf $(VENV) build *.egg-info host/*.egg-info .pytest_cache .mypy_cache .ruff_cache
