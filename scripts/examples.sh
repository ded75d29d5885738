#!/usr/bin/env bash
# Builds and runs the example embedders (Examples/*), each its own Swift package with its
# own .build, on the engine as it is in this checkout. `make test` runs it after
# `swift test`; a failed check in an example fails it, and so does a failed check of the
# short crash run at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT="${SWIFT:-swift}"

package=Examples/MerchantTags
echo "examples: building $package" >&2
"$SWIFT" build --quiet --package-path "$package" -c debug --product merchant-tags
bin="$("$SWIFT" build --package-path "$package" -c debug --show-bin-path)"
"$bin/merchant-tags"

# An embedder of the engine builds only what it uses: the engine, the log, GRDB and
# swift-crypto. A module of the products, the CLI or the HTTP service (Hummingbird, NIO)
# compiled for it fails the check.
built=$(cd "$bin" && for module in *.build; do
    if [ -n "$(find "$module" -name '*.o' -print -quit)" ]; then echo "${module%.build}"; fi
done)
unexpected=$(echo "$built" | grep -E '^(TallyProducts|Tally|TallyService|TallyCLI|Hummingbird.*|NIO.*|ArgumentParser|ServiceLifecycle|Prometheus|AsyncHTTPClient)$' || true)
if [ -n "$unexpected" ]; then
    echo "examples: the engine's embedder compiled modules it does not use: $(echo $unexpected)" >&2
    exit 1
fi
echo "examples: $package compiled $(echo "$built" | wc -l) modules: $(echo $built)" >&2

# A short crash run of the example's own event type and read model: SIGKILLs of
# `merchant-tags load`, each followed by the harness's checks (scripts/crash/crash_harness.py,
# mode embedder; Examples/MerchantTags/README.md). The stores go in a temporary directory,
# removed when every check held.
echo "examples: crash harness, mode embedder" >&2
"${PYTHON:-python3}" scripts/crash/crash_harness.py --merchant-tags "$bin/merchant-tags" --modes embedder \
    --kills 5 --seed 20261125
