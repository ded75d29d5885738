# Tally: the two commands a new machine needs are `make demo` and `make test`.
SWIFT ?= swift
STORE ?= .tally

.PHONY: setup build release demo test clean

setup:
	@scripts/setup.sh

build:
	@scripts/setup.sh build
	$(SWIFT) build

# Optimised binaries: tally and tally-serve (`tally serve` runs the second).
release:
	@scripts/setup.sh build
	$(SWIFT) build -c release --product tally
	$(SWIFT) build -c release --product tally-serve

# A debug build of tally alone (no HTTP service): the quickest way to the tour, and
# `make test` then reuses every module it compiled.
demo:
	@scripts/setup.sh build
	$(SWIFT) build --product tally
	$$($(SWIFT) build --show-bin-path)/tally demo --store $(STORE) --replace

# One build serves every check (scripts/test.sh): what the tests run is installed beside the
# build; the suite then runs its test bundle directly (not through `swift test`, which would
# hold the build folder's lock), with the OpenAPI, API-client, example-embedder, docs and
# engine-alone checks beside it (scripts/suite-and-checks.sh).
test:
	SWIFT=$(SWIFT) scripts/test.sh

clean:
	rm -rf .build Examples/*/.build
