#!/usr/bin/env python3
"""Checks the repository's Markdown and its references to documents (docs/conventions.md, "Docs").

    scripts/check_links.py [--root DIR]

1. Every relative link in the Markdown files (README.md, CHANGELOG.md, docs/, Benchmarks/,
   Schemas/, Examples/) names a file that exists, and a `#fragment` names a heading of it.
2. No file under version control names a design document that lives outside the
   repository (the architecture, domain and style notes the project began from): their
   content is in docs/ now.

Prints each problem as `FILE: what is wrong` and exits 1 if there is any.
"""
import argparse
import os
import re
import subprocess
import sys

MARKDOWN_ROOTS = ["README.md", "CHANGELOG.md", "docs", "Benchmarks", "Schemas", "Examples"]
# Spelled in parts so that this script does not name them itself.
OUTSIDE_DOCUMENTS = ["DESIGN" + ".md", "DOMAIN" + ".md", "STYLE" + ".md"]


def markdown_files(root):
    for entry in MARKDOWN_ROOTS:
        path = os.path.join(root, entry)
        if os.path.isfile(path):
            yield path
        for directory, subdirectories, files in os.walk(path):
            subdirectories[:] = [d for d in subdirectories if not d.startswith(".")]
            for name in files:
                if name.endswith(".md"):
                    yield os.path.join(directory, name)


def anchors(path):
    """GitHub's anchors for the headings of a Markdown file."""
    result = set()
    in_code = False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            in_code = not in_code
        match = None if in_code else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if match:
            text = match.group(1).strip().lower()
            text = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
            result.add(text)
    return result


def check_links(root):
    problems = []
    for path in sorted(set(markdown_files(root))):
        text = open(path, encoding="utf-8").read()
        text = re.sub(r"```.*?```", "", text, flags=re.S)
        text = re.sub(r"`[^`\n]*`", "", text)
        for match in re.finditer(r"\]\(([^)\s]+)\)", text):
            link = match.group(1)
            if re.match(r"^[a-z]+:", link):
                continue
            target, _, fragment = link.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(path), target)) if target else path
            name = os.path.relpath(path, root)
            if not os.path.exists(resolved):
                problems.append(f"{name}: link to {link}: no such file")
            elif fragment and resolved.endswith(".md") and fragment not in anchors(resolved):
                problems.append(f"{name}: link to {link}: no such heading")
    return problems


def check_outside_documents(root):
    listed = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True, check=True).stdout
    problems = []
    for name in listed.decode().split("\0"):
        path = os.path.join(root, name)
        if not name or not os.path.isfile(path):
            continue
        try:
            text = open(path, encoding="utf-8").read()
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            for document in OUTSIDE_DOCUMENTS:
                if document in line:
                    problems.append(f"{name}:{number}: names {document}, which is not in the repository (cite docs/ instead)")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    root = os.path.abspath(parser.parse_args().root)
    problems = check_links(root) + check_outside_documents(root)
    for problem in problems:
        print(problem)
    print(f"check-links: {len(problems)} problem(s)", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
