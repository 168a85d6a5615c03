# The README commands: `make demo`, `make test` and `make check` (the quick loop). Everything
# else is CMake.
# `make build` never installs packages; `make deps` does (it lists them first), and `make demo`
# and `make test` run it before building, for the whole set-up on a fresh Debian machine.
BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
# make fuzz: seconds per target, the targets (fuzz/CMakeLists.txt), and more libFuzzer flags.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= spec expr kt replay npy store
FUZZ_FLAGS   ?=
# Where the targets write their input files (kt, replay, npy, store): memory when there is
# some, which doubled the store target's executions per second.
FUZZ_TMPDIR  ?= $(if $(wildcard /dev/shm),/dev/shm,/tmp)
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
# ctest's slots: two for each test that works, one for a test that mostly waits
# (tests/CMakeLists.txt, PROCESSORS): 3*JOBS/2 working tests at once, so that one test's
# waits leave no core idle, and one waiting beside them (docs/development.md).
CTEST_JOBS  = $(shell echo $$((3 * $(JOBS) + 1)))

.PHONY: all deps build build-asan demo test test-fast test-asan check fuzz clean

all: build

deps:
	@./scripts/install-deps.sh

# The set-up goes first only for the goals that promise it (ordered even under make -j).
SETUP := $(if $(filter demo test test-fast test-asan,$(MAKECMDGOALS)),deps)
NODEPS = { echo "make: cmake failed: 'make deps' installs what is missing" \
	"('scripts/install-deps.sh --list' lists it)" >&2; exit 1; }

build: $(SETUP)
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null || $(NODEPS)
	@cmake --build $(BUILD) -j $(JOBS)

# The sanitized tests share the plain build's binary cache (tests/CMakeLists.txt,
# HETUNE_TEST_CACHE_DIR): after `make test-fast` they load the kernels it built. Built at
# -O1, as the sanitizers' own documentation advises: at -O0 the instrumented loops of the
# slowest tests took twice the CPU (unit/test_space_enum 53.4 -> 25.9 s, cli/lock_load_eval
# 50.0 -> 33.5 s; docs/development.md).
build-asan: $(SETUP)
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O1" \
		-DHETUNE_SANITIZE=ON \
		-DHETUNE_TEST_CACHE_DIR=$(abspath $(BUILD))/test-cache >/dev/null || $(NODEPS)
	@cmake --build $(ASAN_BUILD) -j $(JOBS)

demo: deps build
	@./scripts/demo.sh $(BUILD)/hetune

# Every test, then every test again under AddressSanitizer and UndefinedBehaviorSanitizer.
test: deps test-fast test-asan

# Within `make test`, the sanitized build is made while the plain tests run, at the lowest
# priority (nice 19: it takes the processor time the tests leave idle, as they wait on
# workers, locks and time limits, and little from them), into $(ASAN_BUILD)/make.log; a failure
# of it is shown and fails the goal once the plain tests are done.
test-fast: build
	@$(if $(filter test,$(MAKECMDGOALS)),mkdir -p $(ASAN_BUILD); \
	nice -n 19 $(MAKE) --no-print-directory build-asan >$(ASAN_BUILD)/make.log 2>&1 & asan=$$!;) \
	status=0; (cd $(BUILD) && ctest --output-on-failure -j $(CTEST_JOBS)) || status=$$?; \
	$(if $(filter test,$(MAKECMDGOALS)),wait $$asan || { cat $(ASAN_BUILD)/make.log >&2; \
	echo "make: the sanitized build failed ($(ASAN_BUILD)/make.log)" >&2; exit 1; };) \
	exit $$status

# The quick loop while working: every module, about two minutes (tests/CMakeLists.txt, label
# check); no set-up, no sanitized pass.
check: build
	@cd $(BUILD) && ctest --output-on-failure -j $(CTEST_JOBS) -L check

# Within `make test` (make -j too), after the plain pass, whose kernels it then loads, and
# whose recipe made the sanitized build.
test-asan: $(if $(filter test,$(MAKECMDGOALS)),test-fast,build-asan)
	@cd $(ASAN_BUILD) && ctest --output-on-failure -j $(CTEST_JOBS)

# libFuzzer (clang), one target after another for FUZZ_SECONDS each, in one process (one
# core; -jobs would fork workers and send their output to fuzz-N.log files): what it
# finds is left as $(FUZZ_BUILD)/findings/<target>/crash-* and stops the run (exit 1). Each
# target's corpus grows in $(FUZZ_BUILD)/corpus/<target>, seeded from fuzz/corpus/<target>
# (which stays as it is: a crasher goes there by hand, with its fix). docs/development.md.
fuzz:
	@CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHETUNE_FUZZ=ON \
		-DHETUNE_TESTS=OFF -DHETUNE_BENCH=OFF -DHETUNE_EXAMPLES=OFF -DHETUNE_INSTALL=OFF \
		>/dev/null || { echo "make: cmake failed: HETUNE_FUZZ needs clang" >&2; exit 1; }
	@cmake --build $(FUZZ_BUILD) -j $(JOBS) --target $(addprefix fuzz-,$(FUZZ_TARGETS))
	@set -e; for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_BUILD)/corpus/$$t $(FUZZ_BUILD)/findings/$$t; \
		echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
		TMPDIR=$(FUZZ_TMPDIR) $(FUZZ_BUILD)/fuzz/fuzz-$$t -max_total_time=$(FUZZ_SECONDS) \
			-print_final_stats=1 -timeout=25 -artifact_prefix=$(FUZZ_BUILD)/findings/$$t/ \
			$$(test -f fuzz/$$t.dict && echo -dict=fuzz/$$t.dict) $(FUZZ_FLAGS) \
			$(FUZZ_BUILD)/corpus/$$t fuzz/corpus/$$t 2>$(FUZZ_BUILD)/findings/$$t/log \
			|| { tail -40 $(FUZZ_BUILD)/findings/$$t/log; exit 1; }; \
		grep -E "stat::number_of_executed_units|stat::new_units_added" \
			$(FUZZ_BUILD)/findings/$$t/log; \
	done

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
