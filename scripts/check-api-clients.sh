#!/usr/bin/env bash
# What an app team does with Schemas/openapi.yaml, run by `make test`:
#   0. every example validates against its schema (scripts/check_openapi_examples.py);
#      the Swift client is generated ahead of time, with no diagnostic allowed, by
#      scripts/generate-api-client.sh, and TallyAPIClientTests checks it is current and runs it;
#   1. openapi-python-client generates a client (every operation generated) that passes
#      `mypy --strict`;
#   2. schemathesis runs against a live `tally serve` on a seeded ledger: no 5xx and no
#      response that breaks its schema (a bounded number of examples per operation).
# The tools are the versions scripts/api-tools.sh pins, in their own virtual environment
# (installed by scripts/setup.sh, shared by the machine's checkouts; $TALLY_API_TOOLS).
set -euo pipefail
SWIFT=${SWIFT:-swift}
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/api-tools.sh"
tools=$API_TOOLS
examples=${API_CHECK_EXAMPLES:-5}
for tool in openapi-python-client mypy schemathesis; do
    [ -x "$tools/bin/$tool" ] || { echo "check-api-clients: $tools/bin/$tool is missing; run scripts/setup.sh" >&2; exit 1; }
done
work=$(mktemp -d)
server=""
cleanup() {
    if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then kill -TERM "$server"; wait "$server" || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

echo "check-api-clients: the typed events of Schemas/openapi.yaml against Schemas/events"
python3 "$root/scripts/openapi-events.py" --check

echo "check-api-clients: every example against its schema"
python3 "$root/scripts/check_openapi_examples.py" "$root/Schemas/openapi.yaml"

echo "check-api-clients: generating the Python client"
"$tools/bin/openapi-python-client" generate --path "$root/Schemas/openapi.yaml" --output-path "$work/tally_client" --meta none \
    > "$work/generate.log" 2>&1 || { cat "$work/generate.log" >&2; exit 1; }
if grep -q "will not be generated" "$work/generate.log"; then
    echo "check-api-clients: operations the generator left out:" >&2
    grep -A2 "will not be generated" "$work/generate.log" >&2
    exit 1
fi
echo "check-api-clients: mypy --strict on the generated client"
(cd "$work" && "$tools/bin/mypy" --strict --cache-dir "$work/.mypy_cache" tally_client)

echo "check-api-clients: schemathesis against tally serve"
# `tally serve` runs the tally-serve executable: start it directly. `swift build --build-tests`
# (the build `make test` made: a no-op then) builds it with the settings of the test build;
# `swift build --product tally-serve` would compile Hummingbird again with other settings.
# TALLY_BUILT: the caller built (`make test`, which runs this beside the suite).
[ -n "${TALLY_BUILT:-}" ] || $SWIFT build --build-tests --quiet
bin="$($SWIFT build --show-bin-path)/tally-serve"
admin="tally-api-check-$RANDOM$RANDOM$RANDOM"
TALLY_ADMIN_KEY="$admin" "$bin" --data "$work/data" --port 0 --rate-limit 100000 --log-level error > "$work/serve.log" 2>&1 &
server=$!
base=""
for _ in $(seq 1 600); do
    base=$(sed -n 's/^listening on \(http:\/\/[^ ]*\)$/\1/p' "$work/serve.log")
    [ -n "$base" ] && break
    kill -0 "$server" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
    sleep 0.1
done
[ -n "$base" ] || { echo "check-api-clients: tally serve did not start" >&2; cat "$work/serve.log" >&2; exit 1; }
call() { # METHOD PATH BODY: a seeding request that must succeed
    local status
    status=$(curl -s -o "$work/reply" -w '%{http_code}' -X "$1" -H "Authorization: Bearer $admin" -H "Idempotency-Key: seed-$RANDOM$RANDOM" \
        -H 'Content-Type: application/json' --data "$3" "$base$2")
    case "$status" in 2*) ;; *) echo "check-api-clients: seeding $1 $2 answered $status: $(cat "$work/reply")" >&2; exit 1 ;; esac
}
ledger=api-check
call POST /ledgers '{"id":"api-check","name":"API check","base_currency":"USD","time_zone":"Europe/London"}'
call POST /ledgers/$ledger/wealth/main/deposits '{"amount":"250.00","external_id":"bank-1"}'
call POST /ledgers/$ledger/wealth/main/round-ups '{"enabled":true}'
call POST /ledgers/$ledger/wealth/main/purchases '{"amount":"3.40","merchant":"Cafe"}'
call POST /ledgers/$ledger/transactions '{"payee":"Employer","category":"general","amount":"3000.00","date":"2026-01-15","id":"pay-1"}'
call POST /ledgers/$ledger/transactions '{"payee":"Market","category":"groceries","amount":"-120.00","date":"2026-01-20","id":"market-1"}'
call POST /ledgers/$ledger/budgets '{"category":"groceries","month":"2026-01","maximum":"400.00"}'
call POST /ledgers/$ledger/reference-balance '{"amount":"2000.00"}'
call POST /ledgers/$ledger/pots '{"id":"holiday","name":"Holiday","target":"1500.00"}'
call POST /ledgers/$ledger/pots/holiday/additions '{"amount":"300.00"}'
call POST /ledgers/$ledger/recurring '{"id":"rent","payee":"Landlord","category":"bills","amount":"-900.00","day_of_month":1,"start_month":"2026-01"}'
call POST /ledgers/$ledger/envelope-accounts '{"account":"Assets:Bank","currency":"USD","opening_balance":"1000.00"}'
call POST /ledgers/$ledger/envelopes '{"id":"food","name":"Food","interval":"monthly","budgeted":"400.00"}'
call POST /ledgers/$ledger/challenges '{"id":"year","template":"52_week","unit":"1.00"}'
call POST /ledgers/$ledger/assets '{"id":"flat","name":"Flat","category":"property","type":"real_estate","currency":"USD"}'
call POST /ledgers/$ledger/assets/flat/valuations '{"value":"250000.00"}'
call POST /ledgers/$ledger/liabilities '{"id":"mortgage","name":"Mortgage","category":"mortgage","currency":"USD"}'
call POST /ledgers/$ledger/liabilities/mortgage/valuations '{"value":"180000.00"}'
call POST /ledgers/$ledger/fx-rates '{"base":"EUR","quote":"USD","rate":"1.25"}'

cat > "$work/schemathesis.toml" <<EOF
[parameters]
"path.ledger" = "$ledger"
EOF
# Operations that end the seeded ledger or make others from uploads are left out; every
# other operation is called with generated input, valid and not.
# Run from the scratch directory: schemathesis keeps its state in the working directory.
# An NDJSON upload is sent as text (scripts/schemathesis_hooks.py).
(cd "$work" && SCHEMATHESIS_HOOKS="$root/scripts/schemathesis_hooks.py" "$tools/bin/schemathesis" --config-file "$work/schemathesis.toml" run "$root/Schemas/openapi.yaml" --url "$base" \
    -H "Authorization: Bearer $admin" --checks not_a_server_error,response_schema_conformance \
    --phases examples,fuzzing --max-examples "$examples" --seed 36 --no-color --generation-database none \
    --exclude-operation-id deleteLedger --exclude-operation-id restoreLedger --exclude-operation-id eraseSubject \
    --exclude-operation-id streamEvents --request-timeout 30 --workers 4)
echo "check-api-clients: passed"
