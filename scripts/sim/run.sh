#!/usr/bin/env bash
# Deterministic fault simulation, the long run (issue 10, item 9).
#
#   scripts/sim/run.sh SEEDS [FIRST_SEED]
#
# Runs SEEDS seeds from FIRST_SEED (default 1) of both simulators, in a release build:
# the log simulator (LogSimulationTests: a LogWriter on a SimulatedDisk) and the ledger
# simulator (LedgerSimulationTests: random commands through the Ledger API, the log on a
# SimulatedDisk, the read models on the real disk). Each shard prints one line of figures
# (seeds run, crashes simulated, faults injected, acknowledged records checked, failures),
# then the script prints their sum. A failing seed is printed with the steps that led to
# it and replays exactly (LogSimulator(seed:) / LedgerSimulator(seed:)).
# Exit status 0 when every seed held.
#
# Environment: LEDGER_SEEDS overrides SEEDS for the ledger simulator (about 100x slower);
# JOBS (default 1) splits each simulator's seeds into that many processes run at once;
# SCRATCH (default .build-sim) is the release build directory. REMOTE_SEEDS (default SEEDS / 10)
# sets the seeds of the PostgreSQL backend's simulator (RemoteLogSimulationTests: lost commit
# acknowledgements and fenced writers at the LogWriting interface, under the Ledger API).
set -euo pipefail
cd "$(dirname "$0")/../.."
seeds=${1:?usage: scripts/sim/run.sh SEEDS [FIRST_SEED]}
first=${2:-1}
ledger_seeds=${LEDGER_SEEDS:-$seeds}
remote_seeds=${REMOTE_SEEDS:-$(( seeds / 10 > 0 ? seeds / 10 : 1 ))}
jobs=${JOBS:-1}
scratch=${SCRATCH:-.build-sim}

swift build -c release --scratch-path "$scratch" -Xswiftc -enable-testing --build-tests >/dev/null
binary=$(ls -d "$scratch"/release/*.xctest | head -1)
output=$(mktemp -d)
trap 'rm -rf "$output"' EXIT

# run NAME FILTER VARIABLE COUNT: JOBS shards over COUNT seeds from FIRST, then the sum of their figures.
run() {
    local name=$1 filter=$2 variable=$3 count=$4 started=$SECONDS
    local size=$(( (count + jobs - 1) / jobs )) start=$first shard=0 pids=()
    while (( start < first + count )); do
        local this=$(( start + size <= first + count ? size : first + count - start ))
        env "$variable=$this" TALLY_SIM_FIRST_SEED="$start" \
            "$binary" --testing-library swift-testing --filter "$filter" >"$output/$name.$shard" 2>&1 &
        pids+=($!)
        start=$(( start + this )); shard=$(( shard + 1 ))
    done
    local failed=0
    for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
    grep -h -E "^(log|ledger|remote log) simulation:" "$output/$name".* || true
    grep -h -E "seed [0-9]+:" "$output/$name".* | head -20 || true
    # The sum: every shard's line has the same words, so add the numbers position by position.
    grep -h -E "^(log|ledger|remote log) simulation:" "$output/$name".* | awk -v name="$name" '
        { n = 0; line = $0
          while (match(line, /[0-9]+/)) { n++; sum[n] += substr(line, RSTART, RLENGTH); line = substr(line, RSTART + RLENGTH) }
          template = $0; count = n }
        END { out = template; result = ""; i = 0
              while (match(out, /[0-9]+/)) { i++; result = result substr(out, 1, RSTART - 1) sum[i]; out = substr(out, RSTART + RLENGTH) }
              print "total " result out }'
    echo "$name: seeds $first…$((first + count - 1)) in $jobs process(es), $((SECONDS - started)) s"
    return $failed
}
status=0
run log "LogSimulationTests/shortRun" TALLY_SIM_SEEDS "$seeds" || status=1
run ledger "LedgerSimulationTests/shortRun" TALLY_SIM_LEDGER_SEEDS "$ledger_seeds" || status=1
run remote "RemoteLogSimulationTests/shortRun" TALLY_SIM_REMOTE_SEEDS "$remote_seeds" || status=1
exit $status
