#!/usr/bin/env bash
# The last step of `make test`: the suite, and beside it the checks (the OpenAPI document,
# the API clients against a live `tally serve`, the example embedder's tour and crash run,
# the docs check, the engine-alone check). The suite keeps both cores busy for most of its
# run, but not all of it: its last minute is a few long stories, and a check is mostly
# waiting on a server, on Python or on SwiftPM's planning. Run one after the other, the
# checks take about 63 s (37 s the first three, 26 s the docs and engine-alone checks); run
# beside it, they fill its idle core.
#
# The suite is the test bundle that `swift build --build-tests` made, run as `swift test`
# runs it (`--testing-library swift-testing`; the package has no XCTest cases) but without
# SwiftPM around it: `swift test` holds the build folder's lock while it runs, which would
# keep the docs and engine-alone checks (SwiftPM commands; they compile nothing after the
# build) from running beside it. The other checks use the build as it is (TALLY_BUILT=1:
# they do not call `swift build` themselves).
#
# The checks' output is kept apart and printed after the suite's, so that neither interleaves
# with the other; the script fails if the suite or any check failed.
set -uo pipefail
cd "$(dirname "$0")/.."
SWIFT="${SWIFT:-swift}"

bundle="$("$SWIFT" build --show-bin-path)/TallyPackageTests.xctest"
if [ ! -x "$bundle" ]; then
    echo "suite-and-checks: no test bundle at $bundle: run \`swift build --build-tests\` first" >&2
    exit 2
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
(
    set -e
    export TALLY_BUILT=1 SWIFT
    python3 -m openapi_spec_validator Schemas/openapi.yaml
    scripts/check-api-clients.sh
    scripts/examples.sh
    scripts/check-docs.sh
    scripts/check-engine-alone.sh
) > "$log" 2>&1 &
checks=$!

"$bundle" --testing-library swift-testing
suite=$?
wait "$checks"
checked=$?

echo "--- the checks run beside the suite (the OpenAPI document, the API clients, the example embedder, the docs, the engine alone) ---"
cat "$log"
[ "$suite" -eq 0 ] || echo "suite-and-checks: the suite failed (exit $suite)" >&2
[ "$checked" -eq 0 ] || echo "suite-and-checks: a check failed (exit $checked; its output is above)" >&2
[ "$suite" -eq 0 ] && [ "$checked" -eq 0 ]
