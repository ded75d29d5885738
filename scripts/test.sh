#!/usr/bin/env bash
# `make test`: one build, then the suite with the checks beside it.
#
# 1. What the build links against (scripts/setup.sh build), if missing, while the packages resolve.
# 2. The build (`swift build --build-tests`), with what the tests run installed beside it, from
#    the end of step 1 (scripts/setup.sh tests: PostgreSQL, Chromium, the API checks' Python
#    tools; apt-get cannot run twice at once, so not sooner). On a fresh machine that set-up
#    takes about 20 s of CPU; the build needs none of it, so it does not wait for it.
#    The build refuses an import of a package target that the importing target does not
#    declare (`--explicit-target-dependency-import-check error`): the engine-alone check's
#    second half, done by the build that compiles the modules (the flag changes no compile
#    command, so `swift build` and `swift test` reuse what this build made). The manifests
#    it reads are cached in the build folder (`--manifest-cache local`), where the docs
#    check's `swift package dump-symbol-graph` finds them (scripts/check-docs.sh).
# 3. scripts/suite-and-checks.sh: the test bundle, with the OpenAPI document, the API
#    clients, the example embedder, the docs and the engine alone checked beside it.
set -uo pipefail
cd "$(dirname "$0")/.."
SWIFT="${SWIFT:-swift}"

# The packages resolve (on a fresh clone: checked out from the mirror, 35 manifests compiled;
# about 15 s, less than one core busy) while what the build links against is installed; what
# the tests run is installed from then on, beside the rest of the resolution and the build.
"$SWIFT" package --manifest-cache local resolve &
resolving=$!
scripts/setup.sh build || exit 1

setup_log=$(mktemp)
trap 'rm -f "$setup_log"' EXIT
nice -n 5 scripts/setup.sh tests > "$setup_log" 2>&1 &
setup=$!

if wait "$resolving"; then
    "$SWIFT" build --build-tests --explicit-target-dependency-import-check error --manifest-cache local
    built=$?
else
    echo "test: the packages did not resolve" >&2
    built=1
fi
wait "$setup"
installed=$?
cat "$setup_log" >&2
# `exec` below ends this shell without its EXIT trap: the log goes now.
rm -f "$setup_log"
[ "$installed" -eq 0 ] || { echo "test: scripts/setup.sh tests failed (exit $installed; its output is above)" >&2; exit 1; }
[ "$built" -eq 0 ] || { echo "test: the build failed (exit $built)" >&2; exit 1; }

SWIFT="$SWIFT" TALLY_IMPORTS_CHECKED=1 exec scripts/suite-and-checks.sh
