#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/Targets/ into .build-fuzz/bin/.
#
# The package's modules are built once by SwiftPM on their own scratch path
# (.build-fuzz), with coverage instrumentation for libFuzzer (-sanitize=fuzzer),
# AddressSanitizer and -enable-testing (the targets reach internal entry points
# with @testable import). Each target is then one swiftc link of its file against
# those objects; nothing in Package.swift changes. Usage: Fuzz/build.sh [TARGET...]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
scratch="$root/.build-fuzz"
swift_flags=(-Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing -Xswiftc -O)
swift build --scratch-path "$scratch" --target Tally "${swift_flags[@]}" >&2
build="$(cd -P "$scratch/debug" && pwd)"
modules="$build/Modules"
[ -d "$modules" ] || modules="$build"
mkdir -p "$scratch/bin"

# Every object of the library modules and their dependencies (not the CLI, not tests).
objects=()
while IFS= read -r object; do objects+=("$object"); done < <(
    find "$build" -name '*.o' -path '*.build/*' \
        ! -path '*/TallyCLI.build/*' ! -path '*Tests.build/*' ! -path '*/TallyPackage*' ! -path '*/ArgumentParser*' \
        ! -path '*CryptoExtras.build/*' ! -path '*/SwiftASN1.build/*' | sort)
# C module maps the Swift modules import (CLZ4, GRDB's SQLite shim, BoringSSL shims).
module_maps=()
while IFS= read -r map; do module_maps+=(-Xcc "-fmodule-map-file=$map"); done < <(
    find "$root/Sources" "$scratch/checkouts" -name module.modulemap 2>/dev/null | sort)
includes=()
while IFS= read -r dir; do includes+=(-Xcc "-I$dir"); done < <(
    find "$scratch/checkouts" -type d -name include 2>/dev/null | sort)

targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
    for file in "$root"/Fuzz/Targets/*.swift; do targets+=("$(basename "$file" .swift)"); done
fi
for target in "${targets[@]}"; do
    echo "fuzz: linking $target" >&2
    swiftc -sanitize=fuzzer,address -parse-as-library -O -g \
        -I "$modules" "${module_maps[@]}" "${includes[@]}" \
        "$root/Fuzz/Targets/$target.swift" "${objects[@]}" \
        -lsqlite3 -llz4 -lstdc++ \
        -o "$scratch/bin/$target" 2> >(grep -v "Cannot export local symbol" >&2)
done
