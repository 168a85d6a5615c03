# The README commands: `make demo`, `make test` and `make check` (the quick loop). Everything
# else is CMake.
# `make build` never installs packages; `make deps` does (it lists them first), and `make demo`
# and `make test` run it before building, for the whole set-up on a fresh Debian machine.
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps build build-asan demo test test-fast test-asan check clean

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

build-asan: $(SETUP)
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DHETUNE_SANITIZE=ON >/dev/null || $(NODEPS)
	@cmake --build $(ASAN_BUILD) -j $(JOBS)

demo: deps build
	@./scripts/demo.sh $(BUILD)/hetune

# Every test, then every test again under AddressSanitizer and UndefinedBehaviorSanitizer.
test: deps test-fast test-asan

test-fast: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The quick loop while working: every module, about two minutes (tests/CMakeLists.txt, label
# check); no set-up, no sanitized pass.
check: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L check

test-asan: build-asan
	@cd $(ASAN_BUILD) && ctest --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
