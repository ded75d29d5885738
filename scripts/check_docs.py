#!/usr/bin/env python3
"""Lists every public symbol of the given modules that has no doc comment.

Reads the JSON symbol graphs SwiftPM extracts from the built modules (`swift package
dump-symbol-graph`; see scripts/check-docs.sh), prints one line per undocumented symbol,

    MODULE: KIND PATH (FILE:LINE)

then a count per module, and exits 1 when any symbol is undocumented (2 when a module's
symbol graph is missing).

Checked: every symbol whose access level is `public` or `open`, enum cases included, in
the module's own graph (`TallyEngine.symbols.json`) and in those of its extensions to
other modules (`TallyEngine@Swift.symbols.json`), declared in the module's own sources
(`Sources/MODULE/`: a module that re-exports another, `@_exported import TallyLog`, has
the other's symbols in its graph, and they are checked with that module). Not checked:
symbols the compiler
synthesized (members a type gets from a protocol extension, `!=` from `Equatable`),
implicit declarations (no source location: memberwise and Codable initializers), and
implementations of a protocol requirement, whose documentation inherits the
requirement's (`description` of `CustomStringConvertible`, `entity` of `EventPayload`);
an implementation of a requirement of a checked module that is itself undocumented is
listed, as the requirement is.

Usage: check_docs.py [--root DIR] [--sources DIR] SYMBOL_GRAPH_DIR MODULE...
(standard library only)
"""

import argparse
import glob
import json
import os
import sys
import urllib.parse
import urllib.request


def load(path):
    with open(path, encoding="utf-8") as file:
        return json.load(file)


def graphs_of(directory, module):
    """The paths of the module's own graph and of its extensions' graphs; None when missing.

    The compiler writes a module's graphs when it compiles the module, and leaves a file
    whose content has not changed as it is; a graph of extensions that have all since been
    removed stays behind until the build directory is removed (its symbols are skipped when
    their source file is gone).
    """
    main = os.path.join(directory, module + ".symbols.json")
    if not os.path.exists(main):
        return None
    return [main] + sorted(glob.glob(os.path.join(glob.escape(directory), module + "@*.symbols.json")))


def documented(symbol):
    comment = symbol.get("docComment")
    return bool(comment) and any(line.get("text", "").strip() for line in comment.get("lines", []))


def source_path(uri):
    return os.path.realpath(urllib.request.url2pathname(urllib.parse.urlparse(uri).path))


def relative(path, root):
    rel = os.path.relpath(path, root)
    return path if rel.startswith("..") else rel


def requirements_of(graphs):
    """Precise id of every protocol requirement declared in these graphs -> documented?"""
    requirements = {}
    for graph in graphs:
        symbols = {symbol["identifier"]["precise"]: symbol for symbol in graph["symbols"]}
        for relation in graph["relationships"]:
            if relation["kind"] in ("requirementOf", "optionalRequirementOf") and relation["source"] in symbols:
                requirements[relation["source"]] = documented(symbols[relation["source"]])
    return requirements


def undocumented(module, graphs, requirements, root, sources):
    """The lines listing the module's undocumented symbols, and how many public symbols it has.

    `sources` is the module's source directory, or None to take every symbol as the module's.
    """
    seen = set()
    found = []
    public = 0
    for graph in graphs:
        # The requirements each symbol implements: a member that witnesses a requirement
        # names it as `sourceOrigin`; a protocol extension's default implementation names it
        # as the target of `defaultImplementationOf`.
        implemented = {}
        for relation in graph["relationships"]:
            if relation["kind"] == "memberOf" and "sourceOrigin" in relation:
                implemented.setdefault(relation["source"], []).append(relation["sourceOrigin"]["identifier"])
            elif relation["kind"] == "defaultImplementationOf":
                implemented.setdefault(relation["source"], []).append(relation["target"])

        for symbol in graph["symbols"]:
            precise = symbol["identifier"]["precise"]
            if symbol.get("accessLevel") not in ("public", "open") or precise in seen:
                continue
            if "::SYNTHESIZED::" in precise or symbol["kind"]["identifier"] == "swift.extension":
                continue
            location = symbol.get("location")
            if location is None:
                continue  # implicit: memberwise and Codable initializers, raw-value inits
            path = source_path(location["uri"])
            if sources is not None and not path.startswith(sources + os.sep):
                continue  # another module's, re-exported
            if not os.path.exists(path):
                continue  # a stale graph's: the file is gone
            seen.add(precise)
            public += 1
            if documented(symbol):
                continue
            # A requirement of another module (the standard library's, GRDB's) is documented there.
            if any(requirements.get(requirement, True) for requirement in implemented.get(precise, [])):
                continue
            kind = symbol["kind"]["identifier"].removeprefix("swift.")
            file = relative(path, root)
            line = location["position"]["line"] + 1
            found.append((file, line, f"{module}: {kind} {'.'.join(symbol['pathComponents'])} ({file}:{line})"))
    found.sort()
    return [entry[2] for entry in found], public


def main():
    parser = argparse.ArgumentParser(description="List public symbols without a doc comment.")
    parser.add_argument("--root", default=os.getcwd(), help="print paths relative to this directory (default: the current one)")
    parser.add_argument("--sources", default="Sources", help="the directory of one folder of sources per module, relative to --root (default: Sources)")
    parser.add_argument("directory", help="the directory holding the .symbols.json files")
    parser.add_argument("modules", nargs="+", help="the modules to check")
    arguments = parser.parse_args()
    arguments.root = os.path.realpath(arguments.root)

    graphs = {}
    missing = []
    for module in arguments.modules:
        paths = graphs_of(arguments.directory, module)
        if paths is None:
            missing.append(module)
        else:
            graphs[module] = [load(path) for path in paths]
    requirements = requirements_of([graph for module in graphs for graph in graphs[module]])

    counts = []
    for module in arguments.modules:
        if module not in graphs:
            continue
        sources = os.path.realpath(os.path.join(arguments.root, arguments.sources, module))
        lines, public = undocumented(module, graphs[module], requirements, arguments.root, sources if os.path.isdir(sources) else None)
        for line in lines:
            print(line)
        counts.append((module, len(lines), public))
    print()
    for module, count, public in counts:
        print(f"{module}: {count} of {public} public symbols without documentation")
    for module in missing:
        print(f"{module}: no symbol graph in {arguments.directory} (did the module build?)")
    if missing:
        return 2
    return 1 if any(count for _, count, _ in counts) else 0


if __name__ == "__main__":
    sys.exit(main())
