#!/usr/bin/env bash
# Fails when a public symbol of the library modules has no doc comment (docs/conventions.md, "Docs").
#
#   scripts/check-docs.sh                        # TallyLog TallyEngine TallyProducts TallyService
#   scripts/check-docs.sh TallyLog TallyEngine   # only these
#
# Builds the modules with the compiler emitting their symbol graphs, in a build directory
# of its own (TALLY_DOCS_SCRATCH, default /tmp/tally-docs-build; never .build, which other
# builds use; remove it to start afresh), then scripts/check_docs.py lists every public
# symbol without a doc comment as `MODULE: KIND PATH (FILE:LINE)`, prints a count per
# module and exits 1 if any (2 if a module's symbol graph is missing). A module that fails
# to build fails the check, and so does a broken Markdown link (checked before building).
set -euo pipefail

cd "$(dirname "$0")/.."
# First the cheap part: links between the Markdown files, and no reference to documents
# outside the repository (scripts/check_links.py).
python3 scripts/check_links.py --root "$PWD"
SWIFT="${SWIFT:-swift}"
SCRATCH="${TALLY_DOCS_SCRATCH:-/tmp/tally-docs-build}"
SYMBOLS="$SCRATCH/symbol-graphs"
if [ "$#" -gt 0 ]; then
    MODULES=("$@")
else
    MODULES=(TallyLog TallyEngine TallyProducts TallyService)
fi

mkdir -p "$SYMBOLS"
# Graphs are written when a module compiles; an unchanged module keeps the ones it wrote.
for module in "${MODULES[@]}"; do
    echo "check-docs: building $module (symbol graphs in $SYMBOLS)" >&2
    "$SWIFT" build --scratch-path "$SCRATCH" --target "$module" \
        -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$SYMBOLS" >&2
done

python3 scripts/check_docs.py --root "$PWD" "$SYMBOLS" "${MODULES[@]}"
