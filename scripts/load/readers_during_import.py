#!/usr/bin/env python3
"""Readers during an import: every answer a reader gives is the state of a committed prefix.

Generates a journal CSV of ROWS rows, starts `tally import FILE.csv --batch-size B` on a
fresh store, and while it runs keeps READERS reader threads each looping over three read
commands, every one a `tally` process of its own:

- `tally balances --format csv`: the answer must equal the balances after some prefix of
  the file's rows (the prefix balances are computed here from the CSV, in integer cents;
  each prefix's state is hashed, so an answer is matched to its prefix in O(1));
- `tally audit ACCOUNT --format csv` (once the reader has seen the account's first row
  committed: before, the account does not exist): its K rows must be the account's first
  K rows of the file and its last running balance their sum;
- `tally log --from S --limit 5 --json`: the tail as far as the reader has seen (S past
  the newest prefix it matched); every event printed must be the file's row at that
  sequence number (ledger_created is event 1, row N event N+2).

Every reader must exit 0. A reader's balances answers must also move forward only: a
later answer never matches an earlier prefix than one it saw before. Prints a summary
(JSON on the last line) and exits 0 when every check held, 1 otherwise.

    swift build -c release --product tally
    scripts/load/readers_during_import.py --tally .build/release/tally --rows 200000 --readers 8
"""

import argparse
import collections
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time

ACCOUNTS = ["Expenses:Food", "Expenses:Rent", "Expenses:Travel", "Expenses:Fun", "Assets:Savings",
            "Income:Salary", "Liabilities:Card"]
COUNTERS = ["Assets:Checking", "Assets:Checking", "Assets:Cash"]
AUDITED = "Expenses:Travel"


def journal(path, rows, seed):
    """Writes the CSV; returns each row's (account, counter_account, cents)."""
    generator = random.Random(seed)
    moves = []
    with open(path, "w") as file:
        file.write("date,account,counter_account,amount,currency,payee,category,external_id\n")
        for row in range(rows):
            # Row 0 moves the audited account: `tally audit` refuses an account that has not moved yet.
            account, counter = AUDITED if row == 0 else generator.choice(ACCOUNTS), generator.choice(COUNTERS)
            cents = generator.randint(-20000, 50000) or 1
            amount = ("-" if cents < 0 else "") + f"{abs(cents) // 100}.{abs(cents) % 100:02d}"
            day, month = 1 + row % 28, 1 + (row // 28) % 12
            file.write(f"2025-{month:02d}-{day:02d},{account},{counter},{amount},USD,\"Payee, {row}\",Cat,load-{row}\n")
            moves.append((account, counter, cents))
    return moves


def term(account, cents):
    """One balance's share of a state's hash; a zero balance (not printed) adds nothing."""
    if cents == 0:
        return 0
    digest = hashlib.blake2b(f"{account}|USD|{cents}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little")


class Prefixes:
    """The balances after every prefix of the rows, as a hash per state (sum of terms mod 2^64)."""

    def __init__(self, moves):
        balances = collections.defaultdict(int)
        state = 0
        self.by_hash = {0: 0}
        self.audited = [0]  # the audited account's balance after its first K rows
        for index, (account, counter, cents) in enumerate(moves):
            for name, delta in ((account, cents), (counter, -cents)):
                state = (state - term(name, balances[name]) + term(name, balances[name] + delta)) % 2**64
                balances[name] += delta
                if name == AUDITED:
                    self.audited.append(balances[name])
            self.by_hash.setdefault(state, index + 1)
        self.final = state

    def match(self, csv):
        """The prefix whose balances `balances --format csv` printed, or None."""
        return self.by_hash.get(self.state(csv))

    @staticmethod
    def state(csv):
        lines = csv.splitlines()
        if not lines or lines[0] != "account,currency,balance":
            return None
        state = 0
        for line in lines[1:]:
            account, currency, balance = line.rsplit(",", 2)
            if currency != "USD":
                return None
            state = (state + term(account, cents(balance))) % 2**64
        return state


def cents(text):
    negative = text.startswith("-")
    units, _, fraction = text.lstrip("-").partition(".")
    value = int(units) * 100 + int((fraction + "00")[:2])
    return -value if negative else value


class Reader(threading.Thread):
    def __init__(self, number, tally, store, moves, prefixes, done, seed):
        super().__init__(daemon=True)
        self.number = number
        self.tally, self.store, self.moves, self.prefixes, self.done = tally, store, moves, prefixes, done
        self.random = random.Random(seed)
        self.invocations = collections.Counter()
        self.failures = []
        self.matched = []
        self.newest = 0

    def run(self):
        commands = ["balances", "audit", "log"]
        offset = self.number % 3
        while not self.done.is_set():
            command = commands[offset % 3]
            offset += 1
            if command == "audit" and self.newest == 0:
                command = "balances"  # the audited account has moved once a prefix with row 0 is seen
            self.invocations[command] += 1
            try:
                getattr(self, command)()
            except Exception as error:  # a check's own bug must show, not stop the thread
                self.failures.append(f"{command}: {type(error).__name__}: {error}")

    def tally_run(self, *arguments):
        result = subprocess.run([self.tally, *arguments, "--store", self.store], capture_output=True, text=True)
        if result.returncode != 0:
            self.failures.append(f"`{' '.join(arguments)}` exited {result.returncode}: {result.stderr.strip()[:300]}")
            return None
        return result.stdout

    def balances(self):
        output = self.tally_run("balances", "--format", "csv")
        if output is None:
            return
        prefix = self.prefixes.match(output)
        if prefix is None:
            self.failures.append(f"balances match no prefix of the import: {output[:300]}")
        elif prefix < self.newest:
            self.failures.append(f"balances went back from the prefix of {self.newest} rows to {prefix}")
        else:
            self.newest = prefix
            self.matched.append(prefix)

    def audit(self):
        output = self.tally_run("audit", AUDITED, "--format", "csv")
        if output is None:
            return
        rows = output.splitlines()[1:]
        if len(rows) >= len(self.prefixes.audited):
            self.failures.append(f"audit {AUDITED} printed {len(rows)} rows; the file has {len(self.prefixes.audited) - 1}")
            return
        last = cents(rows[-1].split(",")[-1]) if rows else 0
        if last != self.prefixes.audited[len(rows)]:
            self.failures.append(f"audit {AUDITED}: {len(rows)} rows ending at {last}, but the first {len(rows)} "
                                 f"rows of the file sum to {self.prefixes.audited[len(rows)]}")

    def log(self):
        first = max(2, self.newest + 2 - self.random.randint(0, 4))
        output = self.tally_run("log", "--from", str(first), "--limit", "5", "--json")
        if output is None:
            return
        for line in output.splitlines():
            event = json.loads(line)
            row = event["seq"] - 2
            if row < 0 or row >= len(self.moves) or event["type"] != "journal_entry_posted" \
                    or event["data"].get("external_id") != f"load-{row}":
                self.failures.append(f"log printed event {event['seq']} that is not row {row} of the file: {line[:200]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tally", default=".build/release/tally")
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--readers", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=1000, help="rows per durable commit of the import")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--workdir", default=None, help="where the store and the CSV go (default: a new temporary directory)")
    arguments = parser.parse_args()
    seed = arguments.seed if arguments.seed is not None else random.SystemRandom().randrange(2**32)
    tally = os.path.abspath(arguments.tally)
    workdir = arguments.workdir or tempfile.mkdtemp(prefix="tally-load-")
    os.makedirs(workdir, exist_ok=True)
    store, path = os.path.join(workdir, "store"), os.path.join(workdir, "journal.csv")
    print(f"readers during an import: seed {seed}, {arguments.rows} rows, {arguments.readers} readers, "
          f"batch {arguments.batch_size}, tally {tally}, work {workdir}", flush=True)

    moves = journal(path, arguments.rows, seed)
    prefixes = Prefixes(moves)
    shutil.rmtree(store, ignore_errors=True)
    subprocess.run([tally, "init", "--store", store, "--time-zone", "UTC", "--base-currency", "USD"],
                   check=True, capture_output=True)

    done = threading.Event()
    readers = [Reader(number, tally, store, moves, prefixes, done, seed + number) for number in range(arguments.readers)]
    started = time.monotonic()
    importer = subprocess.Popen([tally, "import", path, "--store", store, "--progress", "none",
                                 "--batch-size", str(arguments.batch_size)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for reader in readers:
        reader.start()
    _, import_errors = importer.communicate()
    import_seconds = time.monotonic() - started
    done.set()
    for reader in readers:
        reader.join()

    failures = [failure for reader in readers for failure in reader.failures]
    if importer.returncode != 0:
        failures.append(f"the import exited {importer.returncode}: {import_errors.strip()[:300]}")
    # After the import, the answer is the whole file.
    final = subprocess.run([tally, "balances", "--format", "csv", "--store", store], capture_output=True, text=True)
    if final.returncode != 0 or Prefixes.state(final.stdout) != prefixes.final:
        failures.append("after the import the balances are not those of the whole file")
    invocations = collections.Counter()
    for reader in readers:
        invocations.update(reader.invocations)
    matched = [prefix for reader in readers for prefix in reader.matched]
    summary = {
        "rows": arguments.rows, "readers": arguments.readers, "batch_size": arguments.batch_size, "seed": seed,
        "import_exit": importer.returncode, "import_seconds": round(import_seconds, 1),
        "invocations": dict(invocations), "invocations_total": sum(invocations.values()),
        "failures": len(failures),
        "balances_matched": len(matched), "distinct_prefixes_matched": len(set(matched)),
        "prefixes_inside_import": len({prefix for prefix in matched if 0 < prefix < arguments.rows}),
        "prefixes_not_at_a_commit": len([prefix for prefix in matched
                                         if prefix % arguments.batch_size and prefix != arguments.rows]),
    }
    for failure in failures[:20]:
        print(f"FAIL {failure}", flush=True)
    print(json.dumps(summary), flush=True)
    ok = not failures
    if ok and arguments.workdir is None:
        shutil.rmtree(workdir, ignore_errors=True)
    elif not ok:
        print(f"readers during an import: FAILED with seed {seed}; store kept in {workdir}", file=sys.stderr)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
