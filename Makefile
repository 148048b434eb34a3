# The two commands of README.md, and a few more for development.
#   make run    install dependencies, build, start the daemon on its embedded defaults
#   make test   install dependencies, build, run every test
# Both use CMake presets (CMakePresets.json) with Ninja; JOBS defaults to the core count.

JOBS ?= $(shell nproc)
PRESET ?= default
BUILD_DIR := build/$(PRESET)
LISTEN ?= ws://127.0.0.1:4773/

# With no definitions of their own yet, new users get the example config dir.
USER_CONFIG := $(or $(AGENTRY_CONFIG_DIR),$(if $(XDG_CONFIG_HOME),$(XDG_CONFIG_HOME)/agentry,$(HOME)/.config/agentry))
RUN_CONFIG := $(if $(wildcard $(USER_CONFIG)),$(USER_CONFIG),$(CURDIR)/config)

.PHONY: run test build deps configure asan bench clean

deps:
	./scripts/install-deps.sh

configure: deps
	cmake --preset $(PRESET)

build: configure
	cmake --build --preset $(PRESET) -j $(JOBS)

run: build
	@echo "definitions from $(RUN_CONFIG)"
	AGENTRY_CONFIG_DIR="$(RUN_CONFIG)" $(BUILD_DIR)/bin/agentry serve --listen $(LISTEN)

test: build
	ctest --preset $(PRESET) -j $(JOBS)

asan:
	$(MAKE) test PRESET=asan

bench: build
	./scripts/run-benchmarks.sh $(BUILD_DIR)

clean:
	rm -rf build
