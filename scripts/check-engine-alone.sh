#!/usr/bin/env bash
# Builds the engine and runs its tests with no product module present (issue 11's first
# "done means"): copies CLZ4, CLibPQ, TallyLog, TallyEngine, their tests and the engine's test
# helpers into a scratch package whose manifest names nothing else, then `swift test` there.
# The scratch build directory is kept between runs (TALLY_ENGINE_ALONE_SCRATCH, default
# /tmp/tally-engine-alone); the copied sources are laid anew each time.
set -euo pipefail

cd "$(dirname "$0")/.."
SWIFT="${SWIFT:-swift}"
SCRATCH="${TALLY_ENGINE_ALONE_SCRATCH:-/tmp/tally-engine-alone}"
PACKAGE="$SCRATCH/package"

rm -rf "$PACKAGE"
mkdir -p "$PACKAGE/Sources" "$PACKAGE/Tests"
for module in CLZ4 CLibPQ TallyLog TallyEngine; do cp -R "Sources/$module" "$PACKAGE/Sources/"; done
for tests in TallyEngineTests TallyTestSupport PostgresTestSupport; do cp -R "Tests/$tests" "$PACKAGE/Tests/"; done
# The throwaway PostgreSQL cluster of the suites that run on both log backends.
mkdir -p "$PACKAGE/scripts" && cp -R scripts/postgres "$PACKAGE/scripts/"
# The manifest: the root one's engine targets and dependencies, nothing of the products.
python3 - "$PACKAGE/Package.swift" <<'PY'
import re, sys
text = open("Package.swift").read()
keep = {"CLZ4", "CLibPQ", "TallyLog", "TallyEngine", "TallyTestSupport", "PostgresTestSupport", "TallyEngineTests"}
head, targets = text.split("    targets: [", 1)
products = re.sub(r'        \.(library|executable)\(name: "(?!TallyLog"|TallyEngine")[^\n]*\n', "", head)
products = re.sub(r'\s*\.package\(url: "https://github.com/(apple/swift-argument-parser|swiftlang/swift-docc-plugin|hummingbird-project/[^"]+|swift-server/[^"]+|apple/swift-(log|metrics|nio)[^"]*)"[^\n]*', "", products)
blocks = re.findall(r'(        (?://[^\n]*\n        )*\.(?:target|testTarget|systemLibrary|executableTarget)\((?:.|\n)*?\n        \),?\n)', targets)
chosen = [b for b in blocks if re.search(r'name: "([^"]+)"', b).group(1) in keep]
missing = keep - {re.search(r'name: "([^"]+)"', b).group(1) for b in chosen}
if missing:
    sys.exit(f"check-engine-alone: no target {sorted(missing)} in Package.swift")
for block in chosen:
    name = re.search(r'name: "([^"]+)"', block).group(1)
    for dependency in re.findall(r'"((?:Tally|Postgres)[A-Za-z]*)"', block.split("dependencies:", 1)[-1]):
        if dependency not in keep:
            sys.exit(f"check-engine-alone: {name} depends on {dependency}, which is not the engine")
open(sys.argv[1], "w").write(products + "    targets: [\n" + "".join(chosen) + "    ]\n)\n")
PY
echo "check-engine-alone: swift test in $PACKAGE (no TallyProducts, Tally or TallyCLI)" >&2
"$SWIFT" test --package-path "$PACKAGE" --scratch-path "$SCRATCH/build" 2>&1 | tail -n 3
