# Tally: the two commands a new machine needs are `make demo` and `make test`.
SWIFT ?= swift
STORE ?= .tally

.PHONY: setup build release demo test clean

setup:
	@scripts/setup.sh

build: setup
	$(SWIFT) build

release: setup
	$(SWIFT) build -c release --product tally

demo: release
	$$($(SWIFT) build -c release --show-bin-path)/tally demo --store $(STORE) --replace

test: setup
	$(SWIFT) test
	python3 -m openapi_spec_validator Schemas/openapi.yaml
	SWIFT=$(SWIFT) scripts/check-api-clients.sh
	SWIFT=$(SWIFT) scripts/examples.sh
	SWIFT=$(SWIFT) scripts/check-docs.sh
	SWIFT=$(SWIFT) scripts/check-engine-alone.sh

clean:
	rm -rf .build Examples/*/.build
