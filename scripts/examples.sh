#!/usr/bin/env bash
# Runs the example embedder, Examples/MerchantTags, on the engine as it is in this checkout.
# `make test` runs it beside the suite (scripts/suite-and-checks.sh); a failed check in the
# example fails it, and so does a failed check of the short crash run at the end.
#
# The example is a package of its own (what an embedder reads and builds:
# `swift run --package-path Examples/MerchantTags merchant-tags`), and the same sources are
# the target MerchantTagsExample of Tally's package, so the one build of `make test` compiles
# them with nothing compiled twice. That target sees the engine's public API only
# (`packageAccess: false`), and scripts/check-engine-alone.sh checks that it depends on and
# imports nothing of the products, the CLI or the service: what an embedder of the engine
# compiles. Here, cheaply:
#   1. the example's own package resolves only the packages an embedder of the engine needs
#      (without Tally's `Tools` trait: none of Hummingbird, swift-nio, the argument parser...);
#   2. the example runs its tour, checking every answer;
#   3. a short crash run of the example's own event type and read model.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT="${SWIFT:-swift}"

package=Examples/MerchantTags
echo "examples: the packages $package resolves" >&2
# Tally itself is named by its directory's name (a path dependency's identity).
tally=$(basename "$PWD" | tr '[:upper:]' '[:lower:]')
listed=$("$SWIFT" package --package-path "$package" show-dependencies --format flatlist 2>&1) \
    || { echo "$listed" >&2; echo "examples: $package does not resolve" >&2; exit 1; }
resolved=$(echo "$listed" | grep -vE ' ' | sort -u | grep -vxF "$tally")
unexpected=$(echo "$resolved" | grep -vxE 'grdb\.swift|swift-crypto|swift-asn1' || true)
if [ -n "$unexpected" ]; then
    echo "examples: the engine's embedder resolves packages it does not use: $(echo $unexpected)" >&2
    exit 1
fi
echo "examples: $package resolves $(echo $resolved)" >&2

# Built by `swift build --build-tests` (a no-op then; skipped when the caller built and set
# TALLY_BUILT, as `make test` does: it built the package before the suite and this check).
[ -n "${TALLY_BUILT:-}" ] || "$SWIFT" build --build-tests --quiet
bin="$("$SWIFT" build --show-bin-path)/MerchantTagsExample"
echo "examples: $package's tour" >&2
"$bin"

# SIGKILLs of `merchant-tags load`, each followed by the harness's checks
# (scripts/crash/crash_harness.py, mode embedder; Examples/MerchantTags/README.md). The stores
# go in a temporary directory, removed when every check held.
echo "examples: crash harness, mode embedder" >&2
"${PYTHON:-python3}" scripts/crash/crash_harness.py --merchant-tags "$bin" --modes embedder \
    --kills 5 --seed 20261125
