#!/usr/bin/env bash
# The last step of `make test`: the suite, and beside it the checks that need no SwiftPM
# command (the OpenAPI document, the API clients against a live `tally serve`, the example
# embedder's tour and crash run). The suite keeps both cores busy for most of its run, but
# not all of it: its last minute is a few long stories, and a check is mostly waiting on a
# server or on Python. Run one after the other, the checks added about 65 s to the suite's
# time; run beside it, they fill its idle core.
#
# `swift test` holds the build folder's lock while it runs, so what builds (or plans a build)
# comes before this script: `swift build --build-tests`, the docs check, the engine-alone
# check. The checks here use that build as it is (TALLY_BUILT=1: they do not call
# `swift build` themselves).
#
# The checks' output is kept apart and printed after the suite's, so that neither interleaves
# with the other; the script fails if the suite or any check failed.
set -uo pipefail
cd "$(dirname "$0")/.."
SWIFT="${SWIFT:-swift}"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
(
    set -e
    export TALLY_BUILT=1 SWIFT
    python3 -m openapi_spec_validator Schemas/openapi.yaml
    scripts/check-api-clients.sh
    scripts/examples.sh
) > "$log" 2>&1 &
checks=$!

"$SWIFT" test --skip-build
suite=$?
wait "$checks"
checked=$?

echo "--- the checks run beside the suite (the OpenAPI document, the API clients, the example embedder) ---"
cat "$log"
[ "$suite" -eq 0 ] || echo "suite-and-checks: the suite failed (exit $suite)" >&2
[ "$checked" -eq 0 ] || echo "suite-and-checks: a check failed (exit $checked; its output is above)" >&2
[ "$suite" -eq 0 ] && [ "$checked" -eq 0 ]
