#!/usr/bin/env python3
"""Crash harness: kill `tally` with SIGKILL at random moments and check what survives.

Each round starts one writer on a store and kills it (SIGKILL) after a random delay:

- import:   `tally import FILE.csv --progress json --batch-size B`; every
            `{"committed_seq": N}` line the process printed before it died is an
            acknowledged commit.
- deposits: a stream of `tally wealth deposit AMOUNT --external-id ID --json`, one
            process per deposit; a deposit whose process exited 0 is acknowledged.
- append:   `tally append - --batch-size B` fed NDJSON on standard input; atomic
            batches, acknowledged when the process exits 0.

After the kill the round checks, in this order:

1. the log is intact (`tally verify --json`: no log problem, no undecodable event;
   read models may lag the log right after a kill, and are counted, not failed);
2. no acknowledged event is lost: the head (`tally stats --json`) is at or past the
   last acknowledged sequence, and every acknowledged deposit's id is in the log;
3. commits are atomic: an append left whole batches only, in input order;
4. the read models catch up: `tally balances --format json` succeeds, then
   `tally verify --json` is fully ok (checkpoints at the head, books balance);
5. re-running the same work completes without duplicates (the import lands every
   row exactly once, the deposits each once), and `tally verify` is ok again.

Seeded: the seed is printed first and repeats the run's choices (the kill moments
depend on timing, so a failure is reproduced by the seed plus the store it leaves).
Exit status 0 when every check held, 1 otherwise. Usage:

    scripts/crash/crash_harness.py --tally .build/debug/tally --kills 1000 --seed 42
"""

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time


class Failure(Exception):
    """A check that did not hold: the harness counts it and keeps the store for inspection."""


class Harness:
    def __init__(self, tally, workdir, seed, rows, rounds_per_store, verbose):
        self.tally = tally
        self.workdir = workdir
        self.seed = seed
        self.random = random.Random(seed)
        self.rows = rows
        self.rounds_per_store = rounds_per_store
        self.verbose = verbose
        self.store = None
        self.store_index = 0
        self.round = 0
        self.duration = {"import": 0.5, "deposits": 1.0, "append": 0.3}
        self.counts = {
            "kills": 0,
            "kills_import": 0,
            "kills_deposits": 0,
            "kills_append": 0,
            "finished_before_kill": 0,
            "acknowledged_events": 0,
            "lost_acknowledged_events": 0,
            "log_verify_failures": 0,
            "verify_failures_after_catch_up": 0,
            "read_models_behind_after_kill": 0,
            "torn_batches": 0,
            "duplicates_after_rerun": 0,
            "rerun_failures": 0,
            "other_failures": 0,
        }
        self.failures = []

    # -- running tally ---------------------------------------------------------------

    def run(self, *arguments, stdin=None, check=True):
        command = [self.tally, *arguments, "--store", self.store]
        result = subprocess.run(command, input=stdin, capture_output=True, text=True)
        if check and result.returncode != 0:
            raise Failure(f"`{' '.join(command)}` exited {result.returncode}: {result.stderr.strip()[:500]}")
        return result

    def head(self):
        return int(json.loads(self.run("stats", "--json").stdout)["events"])

    def verify(self):
        result = self.run("verify", "--json", check=False)
        try:
            report = json.loads(result.stdout)
        except ValueError:
            raise Failure(f"verify printed no JSON (exit {result.returncode}): {result.stderr.strip()[:500]}")
        return report

    def log_events(self, first):
        output = self.run("log", "--json", "--from", str(first)).stdout
        return [json.loads(line) for line in output.splitlines() if line.strip()]

    def new_store(self):
        self.store_index += 1
        self.store = os.path.join(self.workdir, f"store-{self.store_index}")
        shutil.rmtree(self.store, ignore_errors=True)
        subprocess.run([self.tally, "init", "--store", self.store, "--name", "crash", "--base-currency", "USD",
                        "--time-zone", "UTC"], check=True, capture_output=True)

    # -- inputs ----------------------------------------------------------------------

    def journal_csv(self, tag, rows):
        path = os.path.join(self.workdir, f"journal-{tag}.csv")
        accounts = ["Expenses:Food", "Expenses:Rent", "Expenses:Travel", "Assets:Savings"]
        with open(path, "w") as file:
            file.write("date,account,counter_account,amount,currency,payee,category,external_id\n")
            for row in range(rows):
                day = 1 + row % 28
                month = 1 + (row // 28) % 12
                amount = f"{self.random.randint(1, 50000) // 100}.{self.random.randint(0, 99):02d}"
                # Every fifth row has no external id: its key is the file's digest and line.
                external = "" if row % 5 == 4 else f"{tag}-{row}"
                file.write(f"2025-{month:02d}-{day:02d},{self.random.choice(accounts)},Assets:Checking,{amount},USD,"
                           f"\"Payee, {row}\",Cat,{external}\n")
        return path

    def append_ndjson(self, tag, count):
        lines = []
        for index in range(count):
            lines.append(json.dumps({
                "type": "journal_entry_posted", "version": 1, "effective_at": "2025-03-01T00:00:00Z",
                "idempotency_key": f"append:{tag}:{index}",
                "data": {"account": "Expenses:Append", "counter_account": "Assets:Checking",
                         "amount": {"amount": "1.25", "currency": "USD"}, "payee": f"append {index}"},
            }))
        return "\n".join(lines) + "\n"

    # -- one round -------------------------------------------------------------------

    def kill_after(self, process, delay):
        deadline = time.monotonic() + delay
        while time.monotonic() < deadline:
            if process.poll() is not None:
                return False
            time.sleep(0.001)
        if process.poll() is not None:
            return False
        process.send_signal(signal.SIGKILL)
        process.wait()
        return True

    def round_import(self, tag):
        rows = self.random.randint(self.rows // 2, self.rows)
        batch = self.random.choice([1, 7, 50, 200])
        path = self.journal_csv(tag, rows)
        base = self.head()
        command = [self.tally, "import", path, "--store", self.store, "--progress", "json", "--batch-size", str(batch)]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        started = time.monotonic()
        killed = self.kill_after(process, self.random.uniform(0, self.duration["import"] * 1.2))
        stdout, stderr = process.communicate()
        if not killed:
            self.note_duration("import", time.monotonic() - started)
            if process.returncode != 0:
                raise Failure(f"import exited {process.returncode} without a kill: {stderr.strip()[:500]}")
        acknowledged = 0
        for line in stdout.splitlines():
            if line.startswith("{"):
                acknowledged = max(acknowledged, int(json.loads(line)["committed_seq"]))
        self.after_kill(killed, "import", acknowledged, base)
        # The re-run resumes: every row lands exactly once.
        result = subprocess.run(command[:-4] + ["--progress", "none", "--batch-size", str(batch)],
                                 capture_output=True, text=True)
        if result.returncode != 0:
            self.counts["rerun_failures"] += 1
            raise Failure(f"re-running the import exited {result.returncode}: {result.stderr.strip()[:500]}")
        head = self.head()
        if head != base + rows:
            self.counts["duplicates_after_rerun"] += abs(head - base - rows)
            raise Failure(f"after the re-run the log holds {head - base} new events for {rows} rows")
        self.expect_verified("after the re-run")

    def round_deposits(self, tag):
        count = self.random.randint(3, 12)
        base = self.head()
        deadline = time.monotonic() + self.random.uniform(0, self.duration["deposits"] * 1.2)
        acknowledged_ids, acknowledged = [], 0
        started = time.monotonic()
        killed = False
        attempted = 0
        amounts = []
        for index in range(count):
            external = f"{tag}-{index}"
            attempted = index + 1
            amounts.append(f"{self.random.randint(1, 999)}.{self.random.randint(0, 99):02d}")
            command = [self.tally, "wealth", "deposit", amounts[-1],
                       "--external-id", external, "--json", "--store", self.store]
            process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            killed = self.kill_after(process, max(0.0, deadline - time.monotonic()))
            stdout, stderr = process.communicate()
            if killed:
                break
            if process.returncode != 0:
                raise Failure(f"deposit {external} exited {process.returncode} without a kill: {stderr.strip()[:500]}")
            acknowledged_ids.append(external)
            for event in json.loads(stdout)["events"]:
                acknowledged = max(acknowledged, int(event["seq"]))
        if not killed:
            self.note_duration("deposits", time.monotonic() - started)
        self.after_kill(killed, "deposits", acknowledged, base)
        present = self.deposit_ids(base)
        lost = [identifier for identifier in acknowledged_ids if identifier not in present]
        if lost:
            self.counts["lost_acknowledged_events"] += len(lost)
            raise Failure(f"acknowledged deposits missing from the log: {lost}")
        # The re-run (the same deposits: a repeat of a key with other input is a conflict)
        # records each deposit once: the ones already in the log are recognised by their key.
        for index in range(attempted):
            external = f"{tag}-{index}"
            self.run("wealth", "deposit", amounts[index], "--external-id", external, "--json")
        ids = self.deposit_ids(base, all_occurrences=True)
        duplicates = len(ids) - len(set(ids))
        if duplicates or len(set(ids)) != attempted:
            self.counts["duplicates_after_rerun"] += max(duplicates, 1)
            raise Failure(f"after the re-run the log holds deposits {sorted(ids)} for {attempted} ids")
        self.expect_verified("after the re-run")

    def deposit_ids(self, base, all_occurrences=False):
        ids = []
        for event in self.log_events(base + 1):
            if event["type"] == "deposit_received":
                ids.append(event["data"].get("external_id"))
        return ids if all_occurrences else set(ids)

    def round_append(self, tag):
        count = self.random.randint(20, 400)
        batch = self.random.choice([1, 10, 64])
        base = self.head()
        command = [self.tally, "append", "-", "--batch-size", str(batch), "--store", self.store]
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        process.stdin.write(self.append_ndjson(tag, count))
        process.stdin.close()
        started = time.monotonic()
        killed = self.kill_after(process, self.random.uniform(0, self.duration["append"] * 1.2))
        stdout, stderr = process.stdout.read(), process.stderr.read()
        process.wait()
        acknowledged = 0
        if not killed:
            self.note_duration("append", time.monotonic() - started)
            if process.returncode != 0:
                raise Failure(f"append exited {process.returncode} without a kill: {stderr.strip()[:500]}")
            acknowledged = base + count
        self.after_kill(killed, "append", acknowledged, base)
        events = self.log_events(base + 1)
        keys = [event.get("idempotency_key") for event in events]
        expected = [f"append:{tag}:{index}" for index in range(len(events))]
        if keys != expected or (len(events) % batch != 0 and len(events) != count):
            self.counts["torn_batches"] += 1
            raise Failure(f"the append left {len(events)} events (batch {batch} of {count}) that are not whole batches in order")

    def after_kill(self, killed, mode, acknowledged, base):
        """Checks 1, 2 and 4: an intact log, every acknowledged event there, read models catching up."""
        if killed:
            self.counts["kills"] += 1
            self.counts[f"kills_{mode}"] += 1
        else:
            self.counts["finished_before_kill"] += 1
        if acknowledged:
            self.counts["acknowledged_events"] += acknowledged - base
        report = self.verify()
        log_problems = [problem for problem in report["problems"] if "read model" not in problem and "projector" not in problem]
        if not report["ok"]:
            if log_problems:
                self.counts["log_verify_failures"] += 1
                raise Failure(f"verify right after the kill: {log_problems}")
            self.counts["read_models_behind_after_kill"] += 1
        head = self.head()
        if head < acknowledged:
            self.counts["lost_acknowledged_events"] += acknowledged - head
            raise Failure(f"the log ends at {head} but {acknowledged} was acknowledged")
        self.run("balances", "--format", "json")
        self.expect_verified("after the read models caught up")

    def expect_verified(self, when):
        report = self.verify()
        if not report["ok"]:
            self.counts["verify_failures_after_catch_up"] += 1
            raise Failure(f"verify {when}: {report['problems']}")

    def note_duration(self, mode, seconds):
        # Kill moments are drawn over the time a run takes: learn it from runs that finished.
        self.duration[mode] = 0.7 * self.duration[mode] + 0.3 * seconds

    # -- the run ---------------------------------------------------------------------

    def run_all(self, kills):
        print(f"crash harness: seed {self.seed}, {kills} kills, tally {self.tally}, work {self.workdir}", flush=True)
        started = time.monotonic()
        attempts = 0
        while self.counts["kills"] < kills and attempts < kills * 4:
            attempts += 1
            if self.store is None or self.round % self.rounds_per_store == 0:
                self.new_store()
            self.round += 1
            mode = self.random.choice(["import", "import", "deposits", "append"])
            tag = f"r{self.round}"
            specific = ("lost_acknowledged_events", "log_verify_failures", "verify_failures_after_catch_up",
                        "torn_batches", "duplicates_after_rerun", "rerun_failures")
            before = [self.counts[key] for key in specific]
            try:
                getattr(self, f"round_{mode}")(tag)
            except Failure as failure:
                if before == [self.counts[key] for key in specific]:
                    self.counts["other_failures"] += 1
                message = f"round {self.round} ({mode}, store {self.store}): {failure}"
                self.failures.append(message)
                print(f"FAIL {message}", flush=True)
                self.store = None
                continue
            if self.verbose or self.round % 50 == 0:
                print(f"round {self.round}: {self.counts['kills']} kills, "
                      f"{self.counts['lost_acknowledged_events']} lost acknowledged events, "
                      f"{len(self.failures)} failures ({time.monotonic() - started:.0f} s)", flush=True)
        self.counts["seconds"] = round(time.monotonic() - started, 1)
        self.counts["seed"] = self.seed
        self.counts["failures"] = len(self.failures)
        print(json.dumps(self.counts), flush=True)
        return not self.failures and self.counts["kills"] >= kills


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tally", default=".build/debug/tally", help="the tally binary")
    parser.add_argument("--kills", type=int, default=20, help="how many SIGKILLs to deliver")
    parser.add_argument("--seed", type=int, default=None, help="the seed (default: random, printed)")
    parser.add_argument("--rows", type=int, default=600, help="the most rows in one import")
    parser.add_argument("--rounds-per-store", type=int, default=25, help="rounds before a fresh store")
    parser.add_argument("--workdir", default=None, help="where stores go (default: a new temporary directory)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory even when every check held")
    parser.add_argument("--verbose", action="store_true")
    arguments = parser.parse_args()
    seed = arguments.seed if arguments.seed is not None else random.SystemRandom().randrange(2**32)
    workdir = arguments.workdir or tempfile.mkdtemp(prefix="tally-crash-")
    os.makedirs(workdir, exist_ok=True)
    harness = Harness(os.path.abspath(arguments.tally), workdir, seed, arguments.rows, arguments.rounds_per_store,
                      arguments.verbose)
    ok = harness.run_all(arguments.kills)
    if ok and not arguments.keep and arguments.workdir is None:
        shutil.rmtree(workdir, ignore_errors=True)
    elif not ok:
        print(f"crash harness: FAILED with seed {seed}; stores kept in {workdir}", file=sys.stderr)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
