#!/usr/bin/env bash
# Fails when a public symbol of the library modules has no doc comment (docs/conventions.md, "Docs").
#
#   scripts/check-docs.sh                        # TallyLog TallyLogTesting TallyEngine TallyProducts TallyService
#   scripts/check-docs.sh TallyLog TallyEngine   # only these
#
# Asks SwiftPM for the modules' symbol graphs (`swift package dump-symbol-graph`, which
# builds in .build with the same settings as `swift build`, so after `swift build --build-tests` it
# compiles nothing and takes seconds), then scripts/check_docs.py lists every public
# symbol without a doc comment as `MODULE: KIND PATH (FILE:LINE)`, prints a count per
# module and exits 1 if any (2 if a module's symbol graph is missing). A module that fails
# to build fails the check, and so does a broken Markdown link (checked before building).
set -euo pipefail

cd "$(dirname "$0")/.."
# First the cheap part: links between the Markdown files, and no reference to documents
# outside the repository (scripts/check_links.py).
python3 scripts/check_links.py --root "$PWD"
SWIFT="${SWIFT:-swift}"
if [ "$#" -gt 0 ]; then
    MODULES=("$@")
else
    MODULES=(TallyLog TallyLogTesting TallyEngine TallyProducts TallyService)
fi

echo "check-docs: symbol graphs of ${MODULES[*]} (swift package dump-symbol-graph)" >&2
# The package's manifests are read from the build folder's own cache (`--manifest-cache
# local`), which `make test`'s build fills: with the shared cache this command compiled and
# linked every package's manifest again on each run (35 of them: 17 s, 22 s of CPU, against 5 s).
OUTPUT=$("$SWIFT" package --manifest-cache local dump-symbol-graph --minimum-access-level public 2>&1) || { echo "$OUTPUT" >&2; exit 1; }
SYMBOLS=$(echo "$OUTPUT" | sed -n 's/^Files written to //p' | tail -n 1)
if [ -z "$SYMBOLS" ] || [ ! -d "$SYMBOLS" ]; then
    echo "$OUTPUT" >&2
    echo "check-docs: swift package dump-symbol-graph named no directory of symbol graphs" >&2
    exit 2
fi

python3 scripts/check_docs.py --root "$PWD" "$SYMBOLS" "${MODULES[@]}"
