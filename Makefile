# The two commands of README.md, and a few more for development.
#   make run    install dependencies, build, start the daemon on its embedded defaults
#   make test   install dependencies, build, run every test
#   make package  the Debian package (CPack, cmake/packaging.cmake) in build/$(PACKAGE_PRESET)/package/
# Both use CMake presets (CMakePresets.json) with Ninja; JOBS (the build's) defaults to the
# core count, TEST_JOBS (ctest's) to twice that.

JOBS ?= $(shell nproc)
# Most tests wait (on daemons, agents, Chromium, PostgreSQL) far more than they compute,
# so ctest runs twice as many as there are cores; the timing tests run alone (RUN_SERIAL).
TEST_JOBS ?= $(shell echo $$(( $$(nproc) * 2 )))
# `make run` builds optimised and only what it runs: the binary, its plugins and tools (the
# serve preset: no tests, no benchmarks). `make test` builds everything at -O0 (debug
# preset), which compiles in well under half the time and keeps -Werror on.
RUN_PRESET ?= serve
BENCH_PRESET ?= default
TEST_PRESET ?= debug
LISTEN ?= ws://127.0.0.1:4773/
# `make package` builds what `make run` builds.
PACKAGE_PRESET ?= serve

# With no definitions of their own yet, new users get the example config dir.
USER_CONFIG := $(or $(AGENTRY_CONFIG_DIR),$(if $(XDG_CONFIG_HOME),$(XDG_CONFIG_HOME)/agentry,$(HOME)/.config/agentry))
RUN_CONFIG := $(if $(wildcard $(USER_CONFIG)),$(USER_CONFIG),$(CURDIR)/config)

.PHONY: run test deps agents web web-tests asan bench clean package

deps:
	./scripts/install-deps.sh

# build-<preset>: configure and build one preset.
build-%: deps
	cmake --preset $*
	cmake --build --preset $* -j $(JOBS)

# The dashboard (web/ -> web/dist, served from AGENTRY_WEB_DIR). Without npm it says so
# and the daemon serves a page explaining how to build it.
web: deps
	./scripts/build-web.sh

# The dashboard and the browser tests' packages (tests/browser).
web-tests: deps
	./scripts/build-web.sh --tests

run: build-$(RUN_PRESET) web
	@echo "definitions from $(RUN_CONFIG)"
	AGENTRY_CONFIG_DIR="$(RUN_CONFIG)" AGENTRY_WEB_DIR="$(CURDIR)/web/dist" \
	  ./scripts/run-daemon.sh build/$(RUN_PRESET)/bin/agentry $(LISTEN) "$(RUN_CONFIG)" "$(CURDIR)/config"

# The end-to-end tests drive the real agent CLIs: install their pinned versions first.
# Exit 2 (npm or its registry unreachable) and 3 (no build for this machine) have
# already printed a loud banner; those tests then skip, each saying why.
# The tests' scratch files go to a tmpfs when there is one with room (scripts/test-tmpdir.sh).
test: build-$(TEST_PRESET) agents web-tests
	TMPDIR="$$(./scripts/test-tmpdir.sh)" ctest --preset $(TEST_PRESET) -j $(TEST_JOBS) || { ./scripts/failed-tests-digest.sh build/$(TEST_PRESET); exit 1; }

agents:
	@./scripts/install-agents.sh; rc=$$?; \
	  if [ $$rc -eq 2 ] || [ $$rc -eq 3 ]; then echo "make: continuing without the agent CLIs (their tests will skip)"; \
	  elif [ $$rc -ne 0 ]; then exit $$rc; fi

# The .deb: the binary, plugins, dashboard (web/dist), example config and the systemd user
# unit, built from only the targets it holds (docs/operations.md).
package: deps web
	cmake --preset $(PACKAGE_PRESET)
	cmake --build --preset $(PACKAGE_PRESET) -j $(JOBS) --target agentry_package_contents
	cd build/$(PACKAGE_PRESET) && cpack --config CPackConfig.cmake
	@ls -1 build/$(PACKAGE_PRESET)/package/*.deb

asan:
	$(MAKE) test TEST_PRESET=asan

# The figures with goals as one table beside this machine's ceilings (benchmarks/README.md;
# BENCH_QUICK=1 for a quick look). Every program in turn: scripts/run-benchmarks.sh --all.
bench: build-$(BENCH_PRESET)
	./scripts/run-benchmarks.sh build/$(BENCH_PRESET)

clean:
	rm -rf build
