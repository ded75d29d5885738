#!/usr/bin/env bash
# Checks that the engine stands alone: TallyLog and TallyEngine, their tests and test
# helpers, depend on and import nothing of the products, the CLI or the HTTP service, so an
# embedder of the engine builds and tests it with none of those present. Two checks, both
# cheap after `swift build --build-tests` (they compile nothing):
#
# 1. scripts/check_engine_alone.py reads the package as SwiftPM describes it (`swift package
#    dump-package`, JSON: no parsing of Package.swift) and follows every engine target's
#    declared dependencies and every `import` in its sources.
# 2. The build itself refuses a target's import of a target it does not declare
#    (`--explicit-target-dependency-import-check error`), for every target of the package.
#    `make test` builds with that flag (scripts/test.sh) and sets TALLY_IMPORTS_CHECKED, so
#    this half is then not run again.
#
# The engine's suites run with every other suite in `swift test`; with both checks holding,
# their modules are compiled against the engine alone.
set -euo pipefail

cd "$(dirname "$0")/.."
SWIFT="${SWIFT:-swift}"

"$SWIFT" package dump-package | python3 scripts/check_engine_alone.py --root "$PWD"

# TALLY_IMPORTS_CHECKED: the caller's build already ran with the flag and succeeded
# (scripts/test.sh, so `make test`).
if [ -n "${TALLY_IMPORTS_CHECKED:-}" ]; then
    echo "check-engine-alone: every target imports only what it declares (the build checked it)" >&2
    exit 0
fi
echo "check-engine-alone: swift build --build-tests --explicit-target-dependency-import-check error" >&2
if ! OUTPUT=$("$SWIFT" build --build-tests --explicit-target-dependency-import-check error 2>&1); then
    echo "$OUTPUT" | grep -E "error:" >&2 || echo "$OUTPUT" | tail -n 20 >&2
    echo "check-engine-alone: a target imports a target it does not declare (above)" >&2
    exit 1
fi
if echo "$OUTPUT" | grep -E "imports another target" >&2; then
    exit 1
fi
echo "check-engine-alone: every target imports only what it declares" >&2
