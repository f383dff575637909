# vxsynth: the two commands a newcomer needs are `make run` and `make test`.
# Both install missing Debian packages first (scripts/install-deps), then build.

BUILD ?= build
JOBS ?= $(shell nproc)
PY ?= /usr/bin/python3
CMAKE_FLAGS ?=
ifeq ($(CI),true)
CMAKE_FLAGS += -DVXSYNTH_WERROR=ON
endif
VXSYNTH := $(BUILD)/vxsynth

# What `make run` needs: the CLI (with the embedded simulator and the kernel toolchain's
# divergence pass) and the Vortex runtime; every test binary and benchmark is `make test`'s.
RUN_TARGETS := vxsynth vortex_rt_device

.PHONY: all deps configure build build-run run demo test test-gpu test-mutants bench clean

all: build

deps:
	@scripts/install-deps

configure: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) > $(BUILD).configure.log 2>&1 || (cat $(BUILD).configure.log; exit 1)

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

build-run: configure
	@cmake --build $(BUILD) -j $(JOBS) --target $(RUN_TARGETS)

# The main job on the embedded default: the locked VX-Robotics suite on the embedded simulator,
# then its table (scripts/main-job, docs/suite.md).
run: build-run
	@scripts/main-job $(VXSYNTH)

# The older tour: signatures, a distance, regression programs, generated seed pairs.
demo: build
	@scripts/main-job $(VXSYNTH) --demo

# Everything but the device tests (label exactly `gpu`), then the Python tests; the closing lines
# say how many tests were skipped and why (scripts/run-tests).
test: build
	@scripts/run-tests $(BUILD) $(JOBS) $(PY)

# GPU tests (CTest label gpu). On the GPU machine, which has no package registry, an existing
# build tree (made on a development machine and copied along) is used as it is: docs/gpu.md.
# Fails without a working device or when a device test is skipped. CTEST_ARGS=--verbose keeps
# the passing tests' output (the equivalence tables of the device tests).
test-gpu:
	@if [ -f $(BUILD)/CMakeCache.txt ] && command -v nvidia-smi >/dev/null 2>&1; then \
	  echo "test-gpu: GPU machine: using the existing build in $(BUILD)"; \
	else $(MAKE) --no-print-directory build; fi
	@scripts/gpu-ctest $(BUILD) $(CTEST_ARGS)

# Mutation testing (not in CI: about 25 minutes on 2 cores the first time, its scratch build
# included): the curated mutants of tests/mutation/mutants.toml, each built and tested in a
# scratch copy (BUILD-mutants/), caught or survived, and the mutation score (docs/development.md).
test-mutants: deps
	@$(PY) scripts/test-mutants --build $(BUILD) --jobs $(JOBS) $(MUTANTS_ARGS)

bench: build
	@scripts/run-bench $(BUILD)

clean:
	rm -rf $(BUILD) $(BUILD).configure.log
