#!/usr/bin/env bash
# Runs one libFuzzer target for a given time: Fuzz/run.sh TARGET SECONDS [libFuzzer options...]
#
# TARGET is a file name in Fuzz/Targets/ without .swift: EventDecoder, FrameReader,
# EventJSONImport, JournalCSVImport. The seed corpus is Fuzz/Corpus/TARGET (read only);
# what the run learns goes to .build-fuzz/corpus/TARGET, crashes to .build-fuzz/findings/TARGET.
# Builds the target first when it is missing (Fuzz/build.sh). Exits non-zero on a finding.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
target="${1:?usage: Fuzz/run.sh TARGET SECONDS [libFuzzer options...]}"
seconds="${2:?usage: Fuzz/run.sh TARGET SECONDS [libFuzzer options...]}"
shift 2
binary="$root/.build-fuzz/bin/$target"
[ -x "$binary" ] || "$root/Fuzz/build.sh" "$target"
work="$root/.build-fuzz/corpus/$target"
findings="$root/.build-fuzz/findings/$target"
mkdir -p "$work" "$findings"
dictionary=()
[ -f "$root/Fuzz/Dictionaries/$target.dict" ] && dictionary=(-dict="$root/Fuzz/Dictionaries/$target.dict")
echo "fuzz: $target for $seconds s; corpus $work + Fuzz/Corpus/$target; findings in $findings" >&2
exec "$binary" "$work" "$root/Fuzz/Corpus/$target" "${dictionary[@]}" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -artifact_prefix="$findings/" -print_final_stats=1 "$@"
