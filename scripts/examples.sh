#!/usr/bin/env bash
# Builds and runs the example embedders (Examples/*), each its own Swift package with its
# own .build, on the engine as it is in this checkout. `make test` runs it after
# `swift test`; a failed check in an example fails it.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT="${SWIFT:-swift}"

package=Examples/MerchantTags
echo "examples: building $package" >&2
"$SWIFT" build --quiet --package-path "$package" -c debug --product merchant-tags
bin="$("$SWIFT" build --package-path "$package" -c debug --show-bin-path)"
"$bin/merchant-tags"
