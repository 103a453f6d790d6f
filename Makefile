# dumbbell: the two commands a fresh machine needs (Python 3.11+, pip, Rust).
#   make demo   set up, then reproduce E1 (dctcp-queue) at quick scale
#   make test   set up, then the Rust core tests and the Python tests
#   make fuzz   the scenario fuzzers with a long budget (see below)
# `make setup` is idempotent: it re-installs Python packages only when
# requirements.txt changed and rebuilds the extension only when Rust sources,
# Cargo files, pyproject.toml or the profile-guided build's training runs
# (tools/pgo) changed.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
DEPS_STAMP := $(VENV)/.deps-stamp
EXT_STAMP  := $(VENV)/.ext-stamp
RUST_INPUTS := $(shell find crates -name '*.rs' -o -name Cargo.toml) $(wildcard crates/dumbbell-kmod/shim/*.c crates/dumbbell-kmod/shim/include/*.h) Cargo.toml Cargo.lock pyproject.toml
DEMO_OUT ?= out/dctcp-queue

.PHONY: setup demo test rust-test py-test chromium linux-source tshark fuzz clean

setup:
	@ls python/dumbbell/_native*.so >/dev/null 2>&1 || rm -f $(EXT_STAMP)
	@$(MAKE) --no-print-directory $(EXT_STAMP)

$(PY):
	$(PYTHON) -m venv $(VENV)

$(DEPS_STAMP): requirements.txt | $(PY)
	$(PY) -m pip install --quiet -r requirements.txt
	@touch $@

# `maturin develop` builds the native module in release mode, copies it into
# python/dumbbell/ and installs the package into the venv in editable mode
# (Python sources are used in place: editing them needs no rebuild).
# tools/pgo/build.sh runs it with profile-guided optimisation (trained on the
# experiments' runs, tools/pgo/training.jsonl: same results, 1.1-1.25x
# faster); DUMBBELL_PGO=0 make setup builds without it, which is quicker.
$(EXT_STAMP): $(DEPS_STAMP) $(RUST_INPUTS) tools/pgo/build.sh tools/pgo/train.py tools/pgo/training.jsonl
	tools/pgo/build.sh $(VENV)
	@touch $@

demo: setup
	$(VENV)/bin/dumbbell reproduce dctcp-queue --out $(DEMO_OUT)
	@echo
	@echo "E1 results (ours beside the paper's):"
	@echo "  table:   $(DEMO_OUT)/rows.csv  $(DEMO_OUT)/rows.parquet  $(DEMO_OUT)/paper.csv"
	@echo "  figures: $(DEMO_OUT)/*.png"

test: setup rust-test py-test

rust-test:
	cargo test -p dumbbell-core
	cargo test -p dumbbell-kmod

# The Python tests run on every core (pytest-xdist): each test file goes
# whole to one worker (`--dist loadfile`), so a file's module-level state
# (the fuzzer's census, a reproduction's cached result) stays in one
# process. PYTEST_WORKERS=0 runs them in this process, one after another.
PYTEST_WORKERS ?= logical
py-test: setup chromium linux-source tshark
	$(PY) -m pytest -W error $(if $(filter 0,$(PYTEST_WORKERS)),,-n $(PYTEST_WORKERS) --dist loadfile)

# The HTML report's test opens it in headless Chromium (Debian's package).
# Installed here when missing and we are root with apt-get; elsewhere the test
# is skipped and says why.
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian's chromium for the report's browser test"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null; \
	  else \
	    echo "chromium is missing and cannot be installed here (needs root and apt-get): the report's browser test will be skipped"; \
	  fi; }

# The packet-capture test reads the pcap files with tshark (Debian's
# package). Installed here when missing and we are root with apt-get;
# elsewhere that test is skipped and says why.
tshark:
	@command -v tshark >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian's tshark for the packet-capture test"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends tshark >/dev/null; \
	  else \
	    echo "tshark is missing and cannot be installed here (needs root and apt-get): the packet-capture tshark test will be skipped"; \
	  fi; }

# The kernel-module tests compare Linux 6.12's own congestion controls
# (net/ipv4/tcp_*.c, from Debian's linux-source-6.12) with dumbbell's ports.
# Installed here when missing and we are root with apt-get; elsewhere those
# tests are skipped and say why. Nothing of the kernel enters the repository.
linux-source:
	@ls /usr/src/linux-source-6.12.tar.* >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian's linux-source-6.12 for the kernel-module comparison tests"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends linux-source-6.12 >/dev/null; \
	  else \
	    echo "linux-source-6.12 is missing and cannot be installed here (needs root and apt-get): the kernel-module comparison tests will be skipped"; \
	  fi; }

# The fuzzers with a long budget (CI runs a short one inside `make test`):
# 5 000 mutated scenarios through the Python API and 20 000 core documents.
# A case that breaks the rule is kept: in tests/fuzz_cases.jsonl (Python; a
# case that killed the process is adopted on the next run) and in
# crates/dumbbell-core/tests/fuzz.proptest-regressions (core). Budgets:
# FUZZ_EXAMPLES, FUZZ_CASES.
FUZZ_EXAMPLES ?= 5000
FUZZ_CASES ?= 20000
fuzz: setup
	DUMBBELL_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) DUMBBELL_FUZZ_SAVE=1 $(PY) -m pytest -W error -s tests/test_fuzz.py
	PROPTEST_CASES=$(FUZZ_CASES) cargo test -p dumbbell-core --test fuzz -- --nocapture

clean:
	rm -f $(EXT_STAMP) python/dumbbell/_native*.so
