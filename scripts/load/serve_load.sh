#!/usr/bin/env bash
# The load run of `tally serve` (issue 13), on loopback only; not a test. It builds `tally`
# and scripts/load/ServeLoad in release, starts `tally serve` on a free port in a temp data
# directory, then:
#   1. mixed: 100 ledgers, 64 concurrent clients mixing commands and queries for 60 s;
#   2. single: one ledger, 64 clients posting deposits for 10 s over HTTP;
#   3. stops the server (SIGTERM) and checks every ledger's balances against a full replay
#      of its log;
#   4. library: the same deposits through the library's async API, in-process, 10 s.
# Environment: LEDGERS (100), CLIENTS (64), LOAD_SECONDS (60), SINGLE_SECONDS (10)
# (not SECONDS: bash counts the seconds since the shell started in it).
set -euo pipefail
cd "$(dirname "$0")/../.."
LEDGERS="${LEDGERS:-100}"
CLIENTS="${CLIENTS:-64}"
SECONDS_MIXED="${LOAD_SECONDS:-60}"
SINGLE_SECONDS="${SINGLE_SECONDS:-10}"

swift build -c release --product tally >&2
swift build -c release --product tally-serve >&2  # `tally serve` runs it
TALLY="$(swift build -c release --show-bin-path)/tally"
(cd scripts/load/ServeLoad && swift build -c release >&2)
LOAD="$(cd scripts/load/ServeLoad && swift build -c release --show-bin-path)/serve-load"

WORK="$(mktemp -d /tmp/tally-serve-load.XXXXXX)"
ADMIN="load-admin-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
TALLY_ADMIN_KEY="$ADMIN" "$TALLY" serve --data "$WORK/data" --host 127.0.0.1 --port 0 \
    --rate-limit 100000 --open-ledgers 128 --log-level warning > "$WORK/serve.out" 2>&1 &
SERVER=$!
trap 'kill -TERM $SERVER 2>/dev/null || true' EXIT
PORT=""
for _ in $(seq 1 100); do
    PORT="$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$WORK/serve.out" | grep -o '[0-9]*$' || true)"
    [ -n "$PORT" ] && break
    sleep 0.1   # waiting for the server to print its port
done
[ -n "$PORT" ] || { cat "$WORK/serve.out"; echo "the server did not start" >&2; exit 1; }
echo "tally serve on 127.0.0.1:$PORT, data in $WORK/data ($(nproc) cores)"

"$LOAD" mixed --port "$PORT" --admin-key "$ADMIN" --ledgers "$LEDGERS" --clients "$CLIENTS" --seconds "$SECONDS_MIXED"
"$LOAD" single --port "$PORT" --admin-key "$ADMIN" --clients "$CLIENTS" --seconds "$SINGLE_SECONDS"

kill -TERM "$SERVER"
wait "$SERVER" || true
trap - EXIT
"$LOAD" verify --data "$WORK/data"
"$LOAD" library --dir "$WORK/library" --clients "$CLIENTS" --seconds "$SINGLE_SECONDS"
rm -rf "$WORK"
