#!/usr/bin/env bash
# Peer comparison: "balance of every account at date D" in Tally, ledger-cli, hledger and
# beancount, on the same synthetic household journal of N transactions.
#
#   Benchmarks/compare/run.sh N            # e.g. 100000 or 1000000
#
# Then Tally's own rows against a yardstick timed in the same run (issue 12): `tally import`
# into a fresh store against ledger's balance, `tally rebuild` against the CLI's decode of the
# whole log (`tally log --type pot_created`, which prints nothing here), the store's bytes
# against the CSV's, and `tally balances --as-of` against `tally --version` (whole processes).
#
# Environment: SEED (42), AS_OF (2016-06-30, the middle of the journal's twenty years),
# RUNS (timed runs per tool, and of import, rebuild and decode, 3; the median is reported),
# PEERS (the peers to time, "ledger hledger beancount"; ledger is required),
# OPEN_RUNS (interleaved runs of `tally --version` and `tally balances`, 20), WORK (scratch
# directory, $TMPDIR/tally-compare-N), EXTERNAL_IDS (yes; no: the Tally CSV's external_id
# column left empty, so that every row is keyed by its content, as a bank export without ids is). Installs the peers in PEERS from Debian packages when
# missing (root or sudo). Fails (exit 1) when any tool's balances differ from the
# generator's own sums, printing the difference.
set -euo pipefail

N="${1:?usage: Benchmarks/compare/run.sh N (number of transactions, e.g. 100000)}"
[[ "$N" =~ ^[0-9]+$ ]] && (( N >= 2 )) || { echo "run.sh: N must be a whole number of at least 2, not '$N'" >&2; exit 2; }
SEED="${SEED:-42}"
AS_OF="${AS_OF:-2016-06-30}"
RUNS="${RUNS:-3}"
OPEN_RUNS="${OPEN_RUNS:-20}"
PEERS="${PEERS:-ledger hledger beancount}"
[[ " $PEERS " == *" ledger "* ]] || { echo "run.sh: PEERS must include ledger (the import's yardstick), not '$PEERS'" >&2; exit 2; }
for p in $PEERS; do
    [[ "$p" == ledger || "$p" == hledger || "$p" == beancount ]] || { echo "run.sh: PEERS: '$p' is not ledger, hledger or beancount" >&2; exit 2; }
done
peer() { [[ " $PEERS " == *" $1 "* ]]; }
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
WORK="${WORK:-${TMPDIR:-/tmp}/tally-compare-$N}"
NEXT_DAY="$(date -u -d "$AS_OF + 1 day" +%F)"

say() { echo "run.sh: $*" >&2; }

# 1. The peers asked for and the timing tool, from Debian packages when missing.
missing=()
command -v ledger >/dev/null || missing+=(ledger)
peer hledger && ! command -v hledger >/dev/null && missing+=(hledger)
peer beancount && ! command -v bean-query >/dev/null && missing+=(beancount)
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
case "${EXTERNAL_IDS:-yes}" in
yes) ;;
no)
    say "leaving the CSV's external_id column empty: every row keyed by its content"
    python3 -c '
import csv, sys
rows = csv.reader(open(sys.argv[1], newline=""))
out = csv.writer(open(sys.argv[2], "w", newline=""), lineterminator="\n")
for number, row in enumerate(rows):
    out.writerow(row if number == 0 else row[:-1] + [""])
' "$WORK/household.csv" "$WORK/household-no-ids.csv"
    mv "$WORK/household-no-ids.csv" "$WORK/household.csv"
    ;;
*) echo "run.sh: EXTERNAL_IDS must be yes or no, not '${EXTERNAL_IDS}'" >&2; exit 2 ;;
esac

# time_once NAME COMMAND...: runs COMMAND once (stdout to $WORK/out/NAME.txt), appends
# "seconds peak_kib" to $WORK/out/NAME.times.
time_once() {
    local name="$1"
    shift
    local start="$EPOCHREALTIME"
    if ! /usr/bin/time -f "%M" -o "$WORK/out/$name.mem" "$@" >"$WORK/out/$name.txt" 2>"$WORK/out/$name.err"; then
        say "$name failed:"
        cat "$WORK/out/$name.err" >&2
        exit 1
    fi
    local end="$EPOCHREALTIME"
    echo "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }') $(tail -n 1 "$WORK/out/$name.mem")" >>"$WORK/out/$name.times"
}

# time_runs NAME RUNS COMMAND...: runs COMMAND RUNS times, a fresh $WORK/out/NAME.times.
time_runs() {
    local name="$1" runs="$2"
    shift 2
    : >"$WORK/out/$name.times"
    for ((run = 1; run <= runs; run++)); do
        time_once "$name" "$@"
    done
}

# Import into a fresh store each run (init not timed): durable batches, read models current at
# the end. The last run's store answers every question below. Each import is followed by
# ledger's balance, its yardstick: this machine's speed drifts from minute to minute, and a
# ratio of runs made minutes apart drifted with it (0.49x to 0.73x for one binary in a day).
say "tally: import into a fresh store, each followed by ledger's balance ($RUNS runs)"
: >"$WORK/out/tally-import.times"
: >"$WORK/out/ledger.times"
for ((run = 1; run <= RUNS; run++)); do
    rm -rf "$WORK/store"
    "$TALLY" init --store "$WORK/store" --name "Household" --base-currency USD --time-zone UTC >/dev/null
    time_once tally-import "$TALLY" import "$WORK/household.csv" --store "$WORK/store" --progress none
    time_once ledger ledger -f "$WORK/household.journal" --end "$NEXT_DAY" balance --flat --no-total \
        --balance-format '%(account)|%(scrub(display_total))\n'
done
# bytes FILE...: the apparent size of what exists, in bytes.
bytes() { local total=0 f; for f in "$@"; do [[ -e "$f" ]] && total=$((total + $(du -sb "$f" | cut -f1))); done; echo "$total"; }
csv_bytes="$(bytes "$WORK/household.csv")"
log_bytes="$(bytes "$WORK/store/log")"
readmodel_bytes="$(bytes "$WORK/store/readmodels.sqlite" "$WORK/store/readmodels.sqlite-wal" "$WORK/store/readmodels.sqlite-shm")"
store_bytes="$(bytes "$WORK/store")"
# The same file again into that store: every row is already there (a resumed or repeated
# import), so each batch's keys are found, their first events read back and compared, and
# nothing is appended.
say "tally: import the same file again, every row already imported ($RUNS runs)"
time_runs tally-reimport "$RUNS" "$TALLY" import "$WORK/household.csv" --store "$WORK/store" --progress none
grep -q "events appended: 0 " "$WORK/out/tally-reimport.txt" || { say "the repeated import appended events:"; cat "$WORK/out/tally-reimport.txt" >&2; exit 1; }
say "tally: balances --as-of $AS_OF ($RUNS runs)"
time_runs tally "$RUNS" "$TALLY" balances --store "$WORK/store" --as-of "$AS_OF" --format csv
peer hledger && say "hledger ($RUNS runs)" && time_runs hledger "$RUNS" hledger -f "$WORK/household.journal" balance -e "$NEXT_DAY" --flat --no-total -O csv
peer beancount && say "beancount ($RUNS runs)" && time_runs beancount "$RUNS" bean-query -f csv "$WORK/household.beancount" \
    "SELECT account, sum(position) AS balance WHERE date <= $AS_OF GROUP BY account ORDER BY account"

# Tally against itself: the whole process of a question against the whole process of
# `--version` (interleaved), the CLI's decode of the whole log (every event read and decoded,
# none printed: the journal has no pot_created) and `tally rebuild` (all read models folded
# again, then asked the same question).
say "tally: --version and balances interleaved ($OPEN_RUNS runs each)"
: >"$WORK/out/tally-version.times"
: >"$WORK/out/tally-open.times"
for ((run = 1; run <= OPEN_RUNS; run++)); do
    time_once tally-version "$TALLY" --version
    time_once tally-open "$TALLY" balances --store "$WORK/store" --as-of "$AS_OF" --format csv
done
say "tally: decode the whole log ($RUNS runs)"
time_runs tally-decode "$RUNS" "$TALLY" log --store "$WORK/store" --type pot_created
[[ ! -s "$WORK/out/tally-decode.txt" ]] || { say "tally log --type pot_created printed events; the decode row needs a type the journal lacks"; exit 1; }
say "tally: rebuild ($RUNS runs)"
time_runs tally-rebuild "$RUNS" "$TALLY" rebuild --store "$WORK/store" --progress none
events="$(sed -n 's/^Rebuilt read models: \([0-9]*\) events.*/\1/p' "$WORK/out/tally-rebuild.txt")"
[[ -n "$events" ]] || { say "cannot read the event count from: $(cat "$WORK/out/tally-rebuild.txt")"; exit 1; }
rebuilt_readmodel_bytes="$(bytes "$WORK/store/readmodels.sqlite" "$WORK/store/readmodels.sqlite-wal" "$WORK/store/readmodels.sqlite-shm")"
time_runs tally-rebuilt 1 "$TALLY" balances --store "$WORK/store" --as-of "$AS_OF" --format csv

# 4. Every tool must print exactly the generator's balances (Tally also after the rebuild).
status=0
for tool in tally $PEERS tally-rebuilt; do
    python3 "$HERE/normalize.py" "${tool%-rebuilt}" <"$WORK/out/$tool.txt" >"$WORK/out/$tool.csv"
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
    tally*) echo "tally ($(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown))" ;;
    ledger) ledger --version | head -n 1 | awk '{ print "ledger " $2 }' | tr -d , ;;
    hledger) hledger --version | awk '{ print $1 " " $2 }' | tr -d , ;;
    beancount) echo "beancount $(bean-query --version 2>&1 | awk '{ print $2 }')" ;;
    esac
}
echo
echo "Balance of every account ($accounts accounts) as of $AS_OF, $N transactions, seed $SEED, $(date -u +%F), $(nproc) cores"
echo "Tally and $PEERS printed the same balances as the generator's own sums (Tally also after its rebuild)."
echo
printf '| %-38s | %-22s | %-26s | %-14s | %-15s |\n' "command" "tool" "wall s, median (min-max)" "peak RSS MiB" "time / Tally's"
printf '|%s|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..40})" "$(printf -- '-%.0s' {1..24})" "$(printf -- '-%.0s' {1..28})" "$(printf -- '-%.0s' {1..16})" "$(printf -- '-%.0s' {1..17})"
for name in tally $PEERS; do
    med="$(column_of "$name" 1 | median)"
    low="$(column_of "$name" 1 | sort -n | head -n 1)"
    high="$(column_of "$name" 1 | sort -n | tail -n 1)"
    mem="$(column_of "$name" 2 | median)"
    case "$name" in
    tally) what="tally balances --as-of (indexed store)" ;;
    ledger) what="ledger balance --end" ;;
    hledger) what="hledger balance -e" ;;
    beancount) what="bean-query SELECT ... GROUP BY" ;;
    esac
    ratio="$(awk -v a="$med" -v b="$tally_median" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "n/a" }')"
    printf '| %-38s | %-22s | %-26s | %-14s | %-15s |\n' "$what" "$(version_of "$name")" "$med ($low-$high)" \
        "$(awk -v k="$mem" 'BEGIN { printf "%.0f", k / 1024 }')" "$ratio"
done

# 6. Tally's writes and opening, each against its yardstick from this same run (issue 12).
ledger_median="$(column_of ledger 1 | median)"
row() { # WHAT NAME YARDSTICK_NAME TARGET_TEXT: median (min-max), MiB, rate, ratio to the yardstick's median
    local what="$1" name="$2" yard="$3" target="$4" count="$5" unit="$6"
    local med low high mem ymed
    med="$(column_of "$name" 1 | median)"
    low="$(column_of "$name" 1 | sort -n | head -n 1)"
    high="$(column_of "$name" 1 | sort -n | tail -n 1)"
    mem="$(column_of "$name" 2 | median)"
    ymed="$(column_of "$yard" 1 | median)"
    printf '| %-44s | %-24s | %-8s | %-18s | %-22s | %-18s |\n' "$what" "$med ($low-$high)" \
        "$(awk -v k="$mem" 'BEGIN { printf "%.0f", k / 1024 }')" \
        "$(awk -v n="$count" -v t="$med" -v u="$unit" 'BEGIN { if (n == "" || t <= 0) print "-"; else printf "%.0f %s", n / t, u }')" \
        "$(awk -v a="$med" -v b="$ymed" -v y="$yard" -v n="$name" 'BEGIN { if (n == y) print "-"; else if (b > 0) printf "%.2fx %s", a / b, y; else print "n/a" }')" "$target"
}
echo
echo "Tally's writes and opening, $N rows ($events events), yardsticks from the same run"
echo
printf '| %-44s | %-24s | %-8s | %-18s | %-22s | %-18s |\n' "command" "wall s, median (min-max)" "RSS MiB" "rate" "time / yardstick's" "target"
printf '|%s|%s|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..46})" "$(printf -- '-%.0s' {1..26})" "$(printf -- '-%.0s' {1..10})" "$(printf -- '-%.0s' {1..20})" "$(printf -- '-%.0s' {1..24})" "$(printf -- '-%.0s' {1..20})"
row "tally import, fresh store, durable" tally-import ledger "<= 0.50x ledger" "$N" "rows/s"
row "tally import again, every row skipped" tally-reimport ledger "-" "$N" "rows/s"
row "tally log --type pot_created (decode all)" tally-decode tally-decode "yardstick" "$events" "events/s"
row "tally rebuild (all read models)" tally-rebuild tally-decode ">= 1M events/s" "$events" "events/s"
row "tally --version" tally-version tally-version "yardstick" "" ""
row "tally balances --as-of (whole process)" tally-open tally-version "<= 3x at 10M events" "" ""
echo
echo "rebuild rate / decode rate: $(awk -v r="$(column_of tally-rebuild 1 | median)" -v d="$(column_of tally-decode 1 | median)" 'BEGIN { printf "%.1f%%", 100 * d / r }') (goal >= 25%)"
echo "import time / ledger balance time: $(awk -v a="$(column_of tally-import 1 | median)" -v b="$ledger_median" 'BEGIN { printf "%.2fx", a / b }') (goal <= 0.50x);" \
    "each import against the ledger run after it: $(paste -d ' ' <(column_of tally-import 1) <(column_of ledger 1) | awk '{ print $1 / $2 }' | sort -g \
        | awk '{ r[NR] = $1 } END { printf "median %.2fx (%.2f-%.2f)", (NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2), r[1], r[NR] }')"
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }
echo "store after import: $(mib "$store_bytes") = log $(mib "$log_bytes") + read models $(mib "$readmodel_bytes") (+ $(( store_bytes - log_bytes - readmodel_bytes )) bytes of other files);" \
    "CSV $(mib "$csv_bytes"): store / CSV = $(awk -v a="$store_bytes" -v b="$csv_bytes" 'BEGIN { printf "%.2fx", a / b }') (goal <= 0.50x)," \
    "log / CSV = $(awk -v a="$log_bytes" -v b="$csv_bytes" 'BEGIN { printf "%.2fx", a / b }');" \
    "per event: log $(( log_bytes / events )) B, read models $(( readmodel_bytes / events )) B; read models after rebuild $(mib "$rebuilt_readmodel_bytes")"
