#!/usr/bin/env python3
"""Turns one tool's "balance of every account" output into account,currency,balance CSV.

usage: normalize.py {tally|ledger|hledger|beancount} < OUTPUT > NORMALISED.csv

Every balance becomes a plain decimal with two places (both currencies of the synthetic
household have two), zero balances are dropped, rows are sorted byte-wise. An account that
holds several currencies gives one row per currency. Anything that does not parse stops the
script with a message naming the tool and the line: a comparison must fail loudly.
"""
import csv
import sys
from decimal import Decimal

def fail(tool, line, why):
    sys.exit(f"normalize.py: {tool}: cannot read line {line!r}: {why}")

def amounts(tool, text, line):
    """'1.00 USD, -2.00 EUR' or '1.00 USD' -> [(currency, Decimal)]"""
    result = []
    for part in text.replace("\n", ",").split(","):
        part = part.strip()
        if not part:
            continue
        pieces = part.split()
        if len(pieces) != 2:
            fail(tool, line, f"expected 'NUMBER CURRENCY', found {part!r}")
        result.append((pieces[1], Decimal(pieces[0])))
    return result

def main():
    tool = sys.argv[1] if len(sys.argv) == 2 else sys.exit(__doc__)
    rows = []
    lines = sys.stdin.read().splitlines()
    if tool == "tally":
        reader = csv.reader(lines)
        if next(reader, None) != ["account", "currency", "balance"]:
            fail(tool, lines[:1], "the header is not account,currency,balance")
        rows = [(account, currency, Decimal(balance)) for account, currency, balance in reader]
    elif tool == "ledger":
        for line in lines:
            if "|" not in line:
                fail(tool, line, "expected ACCOUNT|AMOUNTS")
            account, text = line.split("|", 1)
            rows += [(account, currency, amount) for currency, amount in amounts(tool, text, line)]
    elif tool in ("hledger", "beancount"):
        reader = csv.reader(lines)
        header = next(reader, None)
        if header is None or [field.strip() for field in header] != ["account", "balance"]:
            fail(tool, lines[:1], "the header is not account,balance")
        for record in reader:
            account, text = record[0].strip(), ",".join(record[1:])
            rows += [(account, currency, amount) for currency, amount in amounts(tool, text, record)]
    else:
        sys.exit(__doc__)
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["account", "currency", "balance"])
    for account, currency, amount in sorted(rows, key=lambda row: (row[0].encode(), row[1].encode())):
        if amount != 0:
            out.writerow([account, currency, f"{amount.quantize(Decimal('0.01'))}"])

main()
