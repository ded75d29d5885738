#!/usr/bin/env python3
"""Checks that the engine stands alone: the log and the engine, and their tests, need
nothing of the products, the CLI or the HTTP service (docs/testing.md, "The engine alone").

Reads the package description SwiftPM prints (`swift package dump-package`, JSON, given
as the first argument or on standard input) and checks, for every engine target
(`TallyLog`, `TallyEngine`, their C modules, their tests and test helpers):

1. its declared dependencies, followed through the package's own targets, reach only
   engine targets, and products of only the packages the engine is allowed (GRDB.swift,
   swift-crypto);
2. every `import` in its sources names a module it may import: a system module, an engine
   target it depends on (directly or not), or a product of an allowed package it declares.

The build's own check (`swift build --explicit-target-dependency-import-check error`, in
`make test`) refuses an import of one of the package's targets that is not declared; the
second check above also covers modules of other packages, which that one does not. With
both, the engine's test modules compile with no product module present, so the one
`swift test` that runs every suite runs the engine's suites as an embedder of the engine
alone would.

Usage: check_engine_alone.py [--root DIR] [PACKAGE_JSON]   (standard library only)
Exits 1 listing every violation as `TARGET: what (FILE:LINE)`.
"""

import argparse
import json
import os
import re
import sys

ENGINE = {
    "CLZ4", "CLibPQ", "TallyLog", "TallyLogTesting", "TallyEngine",
    "TallyLogTests", "TallyEngineTests", "TallyTestSupport", "PostgresTestSupport",
    # The example embedder's sources (Examples/MerchantTags), compiled in the package's build.
    "MerchantTagsExample",
}
# The packages an embedder of the engine resolves (besides swift-crypto's own swift-asn1).
ALLOWED_PACKAGES = {"GRDB.swift", "swift-crypto"}
# Modules of those packages that come with a product the engine declares: GRDB's SQLite.
COMES_WITH = {"GRDB": {"GRDBSQLite"}}
# Modules of the toolchain and the platform, importable by any target.
SYSTEM = {
    "Swift", "Foundation", "FoundationEssentials", "FoundationInternationalization",
    "FoundationNetworking", "Dispatch", "Synchronization", "Glibc", "Musl", "Darwin",
    "_Concurrency", "Testing", "XCTest", "os", "CoreFoundation",
}
IMPORT = re.compile(
    r"^\s*(?:@[\w()]+\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?"
    r"import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?([A-Za-z_][\w]*)"
)


def dependencies(target):
    """(kind, name, package) of each declared dependency; package is None for a target."""
    for dependency in target.get("dependencies", []):
        (kind, value), = dependency.items()
        if kind == "product":
            yield "product", value[0], value[1]
        else:  # byName or target: a target of this package (or a product named alike)
            yield "target", value[0], None


def sources_of(root, target):
    base = "Tests" if target["type"] == "test" or target["name"].endswith("Support") else "Sources"
    directory = target.get("path") or os.path.join(base, target["name"])
    directory = os.path.join(root, directory)
    if not os.path.isdir(directory):
        # A target whose sources are not where SwiftPM looks would be checked as empty.
        raise SystemExit(f"check-engine-alone: no sources of {target['name']} at {directory}")
    for folder, _, files in os.walk(directory):
        for name in sorted(files):
            if name.endswith(".swift"):
                yield os.path.join(folder, name)


def check(package, root):
    targets = {target["name"]: target for target in package["targets"]}
    missing = sorted(ENGINE - targets.keys())
    if missing:
        return [f"no target {name} in Package.swift" for name in missing]
    problems = []
    for name in sorted(ENGINE):
        # 1. The closure of its declared dependencies.
        reachable, products, stack = set(), set(), [name]
        while stack:
            for kind, dependency, owner in dependencies(targets[stack.pop()]):
                if kind == "product":
                    products.add(dependency)
                    if owner not in ALLOWED_PACKAGES:
                        problems.append(f"{name}: depends on {dependency} of {owner}, a package the engine may not use")
                elif dependency in targets and dependency not in reachable:
                    reachable.add(dependency)
                    stack.append(dependency)
                    if dependency not in ENGINE:
                        problems.append(f"{name}: depends on {dependency}, which is not part of the engine")
        # 2. Its imports.
        allowed = SYSTEM | reachable | products | {name}
        allowed |= {module for product in products for module in COMES_WITH.get(product, ())}
        if targets[name]["type"] == "system":
            continue
        for path in sources_of(root, targets[name]):
            with open(path, encoding="utf-8") as file:
                for number, line in enumerate(file, 1):
                    match = IMPORT.match(line)
                    if match and match.group(1) not in allowed:
                        where = os.path.relpath(path, root)
                        problems.append(f"{name}: imports {match.group(1)}, which it does not depend on ({where}:{number})")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=".", help="the package's directory")
    parser.add_argument("package", nargs="?", help="`swift package dump-package` output (default: stdin)")
    arguments = parser.parse_args()
    text = open(arguments.package, encoding="utf-8").read() if arguments.package else sys.stdin.read()
    problems = check(json.loads(text), arguments.root)
    for problem in problems:
        print(f"check-engine-alone: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"check-engine-alone: {len(ENGINE)} engine targets depend on and import nothing of the products, CLI or service", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
