#!/usr/bin/env bash
# The last step of `make test`: the suite, and beside it the checks (the OpenAPI document,
# the API clients against a live `tally serve`, the example embedder's tour and crash run,
# the docs check, the engine-alone check).
#
# The suite is the test bundle that `swift build --build-tests` made, run as `swift test`
# runs it (`--testing-library swift-testing`; the package has no XCTest cases) but without
# SwiftPM around it: `swift test` holds the build folder's lock while it runs, which would
# keep the docs and engine-alone checks (SwiftPM commands; they compile nothing after the
# build) from running beside it. The other checks use the build as it is (TALLY_BUILT=1:
# they do not call `swift build` themselves).
#
# The bundle runs as three processes, each a part of the suites of about the same CPU: the
# products' suites A to M; the CLI's; the rest (the products' N to Z, the engine, the log, the
# service, the API client and any target added later).
# One process runs its tests on as many threads as the machine has cores, and a test that
# waits (a durable commit's fdatasync, a round trip to PostgreSQL, a server's answer, a
# process it started) leaves its core idle: on the 2-core machine one process kept the
# cores 84 % busy (225 s for 380 s of CPU), three keep them 97 % busy (195 s for 379 s).
# Each part's output is printed when it ends, the checks' output last; the script fails if
# a part of the suite or a check failed. `swift test` runs the whole suite in one process.
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
    . scripts/api-tools.sh
    "$API_TOOLS/bin/python" -m openapi_spec_validator Schemas/openapi.yaml
    scripts/check-api-clients.sh
    scripts/examples.sh
    scripts/check-docs.sh
    scripts/check-engine-alone.sh
) > "$log" 2>&1 &
checks=$!

# The parts, by suite name: a suite neither pattern names runs in the last part.
parts=('^TallyTests\.[A-M]' '^TallyCLITests\.')
declare -A part_log part_name
logs=()
trap 'rm -f "$log" "${logs[@]}"' EXIT
# Starts the bundle on the suites its options select (NAME OPTION...), its output to a file of
# its own, printed when it ends.
start_part() {
    local name=$1 output
    shift
    output=$(mktemp)
    logs+=("$output")
    "$bundle" --testing-library swift-testing "$@" > "$output" 2>&1 &
    part_log[$!]=$output
    part_name[$!]=$name
}
start_part "the suites matching ${parts[0]}" --filter "${parts[0]}"
start_part "the suites matching ${parts[1]}" --filter "${parts[1]}"
start_part "the other suites (the products' N to Z, the engine's, the log's, the service's, the API client's)" \
    --skip "${parts[0]}" --skip "${parts[1]}"
echo "suite-and-checks: the suite runs as three processes; each one's output follows when it ends"

suite=0
# part_log holds the parts still running: one ends, its output is printed, it leaves the map.
while [ "${#part_log[@]}" -gt 0 ]; do
    wait -n -p ended "${!part_log[@]}"
    status=$?
    echo "--- ${part_name[$ended]} (exit $status) ---"
    cat "${part_log[$ended]}"
    [ "$status" -eq 0 ] || { echo "suite-and-checks: ${part_name[$ended]} failed (exit $status)" >&2; suite=1; }
    unset "part_log[$ended]"
done
wait "$checks"
checked=$?

echo "--- the checks run beside the suite (the OpenAPI document, the API clients, the example embedder, the docs, the engine alone) ---"
cat "$log"
[ "$suite" -eq 0 ] || echo "suite-and-checks: the suite failed" >&2
[ "$checked" -eq 0 ] || echo "suite-and-checks: a check failed (exit $checked; its output is above)" >&2
[ "$suite" -eq 0 ] && [ "$checked" -eq 0 ]
