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

# One build serves every check: the suite runs its test bundle directly (not through
# `swift test`, which would hold the build folder's lock), with the OpenAPI, API-client,
# example-embedder, docs and engine-alone checks beside it (scripts/suite-and-checks.sh).
test: setup
	$(SWIFT) build --build-tests
	SWIFT=$(SWIFT) scripts/suite-and-checks.sh

clean:
	rm -rf .build Examples/*/.build
