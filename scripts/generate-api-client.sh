#!/usr/bin/env bash
# Regenerates the Swift client of Schemas/openapi.yaml that TallyAPIClientTests runs
# (Tests/TallyAPIClientTests/Generated/), ahead of time, as swift-openapi-generator's docs
# describe: run it after a change of Schemas/openapi.yaml or of
# Tests/TallyAPIClientTests/openapi-generator-config.yaml, and commit what it writes.
# `make test` compiles none of the generator: GeneratedClientTests compares the digests this
# script writes in each generated file's header with the document and the configuration,
# and fails with the command to run.
#
# 1. swift-openapi-generator (the version scripts/openapi-generator/Package.swift pins; built
#    there on first use, or $OPENAPI_GENERATOR) generates the whole document's types, client
#    and server stubs with no diagnostic at all: a warning is a schema the generator skipped,
#    a field an app would lack.
# 2. It generates the types and the client of the operations the suites call (`filter:` in
#    the configuration) into Tests/TallyAPIClientTests/Generated/, each file headed by the
#    digests of its inputs.
set -euo pipefail
SWIFT=${SWIFT:-swift}
root=$(cd "$(dirname "$0")/.." && pwd)
spec="$root/Schemas/openapi.yaml"
config="$root/Tests/TallyAPIClientTests/openapi-generator-config.yaml"
out="$root/Tests/TallyAPIClientTests/Generated"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

generator=${OPENAPI_GENERATOR:-}
if [ -z "$generator" ]; then
    echo "generate-api-client: building swift-openapi-generator (scripts/openapi-generator)" >&2
    "$SWIFT" build --package-path "$root/scripts/openapi-generator" --product swift-openapi-generator >&2
    generator="$("$SWIFT" build --package-path "$root/scripts/openapi-generator" --show-bin-path)/swift-openapi-generator"
fi
[ -x "$generator" ] || { echo "generate-api-client: $generator is not an executable" >&2; exit 1; }

echo "generate-api-client: the whole document's types, client and server stubs, no diagnostic allowed" >&2
printf 'generate: [types, client, server]\naccessModifier: internal\nnamingStrategy: idiomatic\n' > "$work/whole.yaml"
"$generator" generate "$spec" --config "$work/whole.yaml" --output-directory "$work/whole" \
    --diagnostics-output-path "$work/diagnostics.yaml" > "$work/whole.log" 2>&1 \
    || { cat "$work/whole.log" >&2; exit 1; }
if grep -q "severity" "$work/diagnostics.yaml" 2>/dev/null; then
    echo "generate-api-client: swift-openapi-generator's diagnostics:" >&2
    cat "$work/diagnostics.yaml" >&2
    exit 1
fi
[ -s "$work/whole/Client.swift" ] && [ -s "$work/whole/Server.swift" ] \
    || { echo "generate-api-client: no Swift client or server generated" >&2; exit 1; }

echo "generate-api-client: the suites' types and client into ${out#"$root"/}" >&2
# The header GeneratedClientTests reads: one line per input, `// input: PATH sha256 HEX`.
spec_digest=$(sha256sum "$spec" | cut -d' ' -f1)
config_digest=$(sha256sum "$config" | cut -d' ' -f1)
"$generator" generate "$spec" --config "$config" --output-directory "$work/client" \
    --additional-file-comment "Ahead of time by scripts/generate-api-client.sh from these inputs (GeneratedClientTests checks them):" \
    --additional-file-comment "input: Schemas/openapi.yaml sha256 $spec_digest" \
    --additional-file-comment "input: Tests/TallyAPIClientTests/openapi-generator-config.yaml sha256 $config_digest" \
    > "$work/client.log" 2>&1 || { cat "$work/client.log" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"
# Files the configuration's modes leave empty are not kept.
find "$work/client" -name '*.swift' -size +0 -exec cp {} "$out/" \;
echo "generate-api-client: $(ls "$out" | wc -l) files written; commit them with the change" >&2
