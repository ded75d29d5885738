# Tally: the two commands a new machine needs are `make demo` and `make test`.
SWIFT ?= swift
STORE ?= .tally

.PHONY: setup build release demo test clean

setup:
	@scripts/setup.sh

build: setup
	$(SWIFT) build

# Optimised binaries: tally and tally-serve (`tally serve` runs the second).
release: setup
	$(SWIFT) build -c release --product tally
	$(SWIFT) build -c release --product tally-serve

# A debug build of tally alone (no HTTP service): the quickest way to the tour, and
# `make test` then reuses every module it compiled.
demo: setup
	$(SWIFT) build --product tally
	$$($(SWIFT) build --show-bin-path)/tally demo --store $(STORE) --replace

# One build serves every check below: the docs check (symbol graphs of the modules built
# here) and the engine-alone check (the package's description and the build's own import
# check) use it first, since `swift test` holds the build folder while it runs; then the suite,
# with the OpenAPI, API-client and example-embedder checks beside it (scripts/suite-and-checks.sh).
test: setup
	$(SWIFT) build --build-tests
	SWIFT=$(SWIFT) scripts/check-docs.sh
	SWIFT=$(SWIFT) scripts/check-engine-alone.sh
	SWIFT=$(SWIFT) scripts/suite-and-checks.sh

clean:
	rm -rf .build Examples/*/.build
