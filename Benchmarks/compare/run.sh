#!/usr/bin/env bash
# Peer comparison: "balance of every account at date D" in Tally, ledger-cli, hledger and
# beancount, on the same synthetic household journal of N transactions.
#
#   Benchmarks/compare/run.sh N            # e.g. 100000 or 1000000
#
# Environment: SEED (42), AS_OF (2016-06-30, the middle of the journal's twenty years),
# RUNS (timed runs per tool, 3; the median is reported), WORK (scratch directory,
# $TMPDIR/tally-compare-N). Installs ledger, hledger and beancount from Debian packages when
# missing (root or sudo). Fails (exit 1) when any tool's balances differ from the
# generator's own sums, printing the difference.
set -euo pipefail

N="${1:?usage: Benchmarks/compare/run.sh N (number of transactions, e.g. 100000)}"
[[ "$N" =~ ^[0-9]+$ ]] && (( N >= 2 )) || { echo "run.sh: N must be a whole number of at least 2, not '$N'" >&2; exit 2; }
SEED="${SEED:-42}"
AS_OF="${AS_OF:-2016-06-30}"
RUNS="${RUNS:-3}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
WORK="${WORK:-${TMPDIR:-/tmp}/tally-compare-$N}"
NEXT_DAY="$(date -u -d "$AS_OF + 1 day" +%F)"

say() { echo "run.sh: $*" >&2; }

# 1. Peers and the timing tool, from Debian packages when missing.
missing=()
command -v ledger >/dev/null || missing+=(ledger)
command -v hledger >/dev/null || missing+=(hledger)
command -v bean-query >/dev/null || missing+=(beancount)
[[ -x /usr/bin/time ]] || missing+=(time)
if (( ${#missing[@]} > 0 )); then
    say "installing ${missing[*]}"
    sudo_cmd=""
    [[ "$(id -u)" -eq 0 ]] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi
"$ROOT/scripts/setup.sh"

# 2. Tally and the journal generator, release builds.
say "building tally and household-journal (release)"
swift build -c release --package-path "$ROOT" --product tally >&2
swift build -c release --package-path "$ROOT/Benchmarks" --product household-journal >&2
TALLY="$(swift build -c release --package-path "$ROOT" --show-bin-path)/tally"
GENERATE="$(swift build -c release --package-path "$ROOT/Benchmarks" --show-bin-path)/household-journal"

# 3. The same journal for every tool, and the balances they must all print.
rm -rf "$WORK"
mkdir -p "$WORK/out"
say "generating $N transactions (seed $SEED) in $WORK"
"$GENERATE" --transactions "$N" --seed "$SEED" --as-of "$AS_OF" --out "$WORK"

# time_runs NAME RUNS COMMAND...: runs COMMAND RUNS times (stdout to $WORK/out/NAME.txt),
# appends "seconds peak_kib" per run to $WORK/out/NAME.times.
time_runs() {
    local name="$1" runs="$2"
    shift 2
    : >"$WORK/out/$name.times"
    for ((run = 1; run <= runs; run++)); do
        local start="$EPOCHREALTIME"
        if ! /usr/bin/time -f "%M" -o "$WORK/out/$name.mem" "$@" >"$WORK/out/$name.txt" 2>"$WORK/out/$name.err"; then
            say "$name failed:"
            cat "$WORK/out/$name.err" >&2
            exit 1
        fi
        local end="$EPOCHREALTIME"
        echo "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }') $(tail -n 1 "$WORK/out/$name.mem")" >>"$WORK/out/$name.times"
    done
}

say "tally: import once"
"$TALLY" init --store "$WORK/store" --name "Household" --base-currency USD --time-zone UTC >/dev/null
time_runs tally-import 1 "$TALLY" import "$WORK/household.csv" --store "$WORK/store" --progress none
say "tally: balances --as-of $AS_OF ($RUNS runs)"
time_runs tally "$RUNS" "$TALLY" balances --store "$WORK/store" --as-of "$AS_OF" --format csv
say "ledger ($RUNS runs)"
time_runs ledger "$RUNS" ledger -f "$WORK/household.journal" --end "$NEXT_DAY" balance --flat --no-total \
    --balance-format '%(account)|%(scrub(display_total))\n'
say "hledger ($RUNS runs)"
time_runs hledger "$RUNS" hledger -f "$WORK/household.journal" balance -e "$NEXT_DAY" --flat --no-total -O csv
say "beancount ($RUNS runs)"
time_runs beancount "$RUNS" bean-query -f csv "$WORK/household.beancount" \
    "SELECT account, sum(position) AS balance WHERE date <= $AS_OF GROUP BY account ORDER BY account"

# 4. Every tool must print exactly the generator's balances.
status=0
for tool in tally ledger hledger beancount; do
    python3 "$HERE/normalize.py" "$tool" <"$WORK/out/$tool.txt" >"$WORK/out/$tool.csv"
    if ! diff -u "$WORK/expected.csv" "$WORK/out/$tool.csv" >"$WORK/out/$tool.diff"; then
        say "MISMATCH: $tool's balances differ from the expected ones (- expected, + $tool):"
        cat "$WORK/out/$tool.diff" >&2
        status=1
    fi
done
(( status == 0 )) || { say "FAILED: the tools do not agree; see $WORK/out"; exit 1; }
accounts=$(($(wc -l <"$WORK/expected.csv") - 1))

# 5. The table: median wall seconds (min-max), peak memory, ratio to Tally.
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
column_of() { awk -v c="$2" '{ print $c }' "$WORK/out/$1.times"; }
tally_median="$(column_of tally 1 | median)"
version_of() {
    case "$1" in
    tally|tally-import) echo "tally ($(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown))" ;;
    ledger) ledger --version | head -n 1 | awk '{ print "ledger " $2 }' | tr -d , ;;
    hledger) hledger --version | awk '{ print $1 " " $2 }' | tr -d , ;;
    beancount) echo "beancount $(bean-query --version 2>&1 | awk '{ print $2 }')" ;;
    esac
}
echo
echo "Balance of every account ($accounts accounts) as of $AS_OF, $N transactions, seed $SEED, $(date -u +%F), $(nproc) cores"
echo "All four tools printed the same balances as the generator's own sums."
echo
printf '| %-38s | %-22s | %-26s | %-14s | %-15s |\n' "command" "tool" "wall s, median (min-max)" "peak RSS MiB" "time / Tally's"
printf '|%s|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..40})" "$(printf -- '-%.0s' {1..24})" "$(printf -- '-%.0s' {1..28})" "$(printf -- '-%.0s' {1..16})" "$(printf -- '-%.0s' {1..17})"
for name in tally ledger hledger beancount tally-import; do
    med="$(column_of "$name" 1 | median)"
    low="$(column_of "$name" 1 | sort -n | head -n 1)"
    high="$(column_of "$name" 1 | sort -n | tail -n 1)"
    mem="$(column_of "$name" 2 | median)"
    case "$name" in
    tally) what="tally balances --as-of (indexed store)" ;;
    ledger) what="ledger balance --end" ;;
    hledger) what="hledger balance -e" ;;
    beancount) what="bean-query SELECT ... GROUP BY" ;;
    tally-import) what="tally import (once, not in ratios)" ;;
    esac
    ratio="$(awk -v a="$med" -v b="$tally_median" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "n/a" }')"
    [[ "$name" == tally-import ]] && ratio="-"
    printf '| %-38s | %-22s | %-26s | %-14s | %-15s |\n' "$what" "$(version_of "$name")" "$med ($low-$high)" \
        "$(awk -v k="$mem" 'BEGIN { printf "%.0f", k / 1024 }')" "$ratio"
done
