#!/usr/bin/env python3
"""Crash harness: kill `tally` with SIGKILL at random moments and check what survives.

Each round starts a writer on a store (or, in a concurrent round, several) and kills it
(SIGKILL) after a random delay. The modes (`--modes`, default all of them):

- import:   `tally import FILE.csv --progress json --batch-size B`; every
            `{"committed_seq": N}` line the process printed before it died is an
            acknowledged commit.
- deposits: a stream of `tally wealth deposit AMOUNT --external-id ID --json`, one
            process per deposit; a deposit whose process exited 0 is acknowledged.
- append:   `tally append - --batch-size B` fed NDJSON on standard input; atomic
            batches, acknowledged when the process exits 0.
- rebuild:  `tally rebuild` of a store of a few thousand events; nothing is acknowledged,
            but the log must not change and the store must reopen with the balances it
            had before.
- concurrent: several worker processes (this script with --worker) issue durable commands
            at once, each with an idempotency key (`tally wealth deposit`, `tally pot
            create`, `tally append -`), retrying while another writer holds the lock, and
            record each command whose process exited 0 (its output) in a file; a reader
            worker loops over `tally verify` and `tally balances`, each of which must exit 0.
            Every worker (and the tally it runs) is killed at the same random moment.
- server:   (with --postgres) a stream of deposits as in `deposits`, but the PostgreSQL
            server is killed (SIGKILL) at a random moment instead of `tally`, then restarted;
            a deposit whose process exited 0 is acknowledged, one that failed because the
            server went away is not, and every acknowledged one must be in the log once.
- embedder: the example embedder (Examples/MerchantTags, `--merchant-tags PATH`; drawn only
            when it is given), whose own event type (`merchant_tagged`) and read model
            (`merchant_tags`) `tally` cannot read: on a store of its own (`merchant-tags init`),
            `merchant-tags load STORE --count N --seed S --concurrency C`, N tag commands C at
            a time through the async API; every `{"ack": KEY, "seq": [...]}` line printed before
            the kill is an acknowledged command (every tenth command is refused by design).

The fault modes (issue 34) damage a store instead of killing a process, one fault a round:

- bitflip:  a byte in the body of a frame in the middle of the log is flipped (not the
            last frame); a deposit is then made (acknowledged or refused), `verify` must
            find the damage, `repair --yes` must keep every frame but the damaged one, and
            afterwards every acknowledged event is in the log at its sequence number with its
            idempotency key, except exactly the damaged frame's events, which `verify` names
            as lost (`lost_events`).
- truncate: the read models are deleted and bytes are cut off the end of the log (a few
            up to a whole frame or more); `verify` must exit 1 naming the events cut off, a
            writer must refuse (the next one would reuse their sequence numbers), and
            `repair --yes` then accepts the shorter log and the store works again.
- keyfile:  the subject key file (`SUBJECTS`) is deleted or one character of a key is
            changed (with --encrypt, sometimes the store's `KEYS` instead); `verify` must
            exit 1 (keys missing or a damaged file, never "intact"), `export` must refuse and
            write no "[erased" text, no file of the store may change, and with the file put
            back the store verifies again.
- fulldisk: a deposit runs under a file size limit (RLIMIT_FSIZE, SIGXFSZ ignored: a write
            past it fails as on a full disk) drawn around the log's size; a deposit that
            exited 0 is acknowledged and must be in the log; then, without the limit, the
            store reopens and verifies, and the same deposit run again (its key) leaves it in
            the log exactly once.

Concurrent writer processes are the `concurrent` mode. A fault counts toward `--kills`
like a kill (`faults` and `faults_<mode>` in the report).

After the kill the round checks, in this order:

1. the log is intact (`tally verify --json`: no log problem, no undecodable event;
   read models may lag the log right after a kill, and are counted, not failed);
2. no acknowledged event is lost: the head (`tally stats --json`) is at or past the
   last acknowledged sequence, and every acknowledged deposit's id is in the log;
3. commits are atomic: an append left whole batches only, in input order;
4. the store reopens and its read models catch up: `tally balances` succeeds, then
   `tally verify --json` is fully ok (checkpoints at the head, books balance);
5. re-running the same work completes without duplicates (the import lands every
   row exactly once, the deposits each once), and `tally verify` is ok again;
6. rebuild: the log's head is unchanged and the balances equal those before the kill;
   concurrent: every acknowledged command's events are in the log at the sequence numbers
   it printed, re-running it with its key says "already applied" and appends nothing, the
   reader saw no failure, and the balances equal those of a fresh `tally rebuild`.

The embedder mode makes the same checks with the example's own commands (`tally` is not run,
and `--tally` is not needed when it is the only mode): `merchant-tags check` is the first
process to open the store after the kill (it verifies the log as the kill left it, opens the
store, which catches the read models up, compares the read model and the balances with a
fresh rebuild and verifies again); `merchant-tags dump-tags` lists the log's tags: every
acknowledged command's tag is there at the sequence number it printed, with its account and
merchant, no refused command's key is, and the read model equals the tags folded from the
log; re-running a few acknowledged keys with `merchant-tags tag` says "already applied" and
appends nothing; re-running the whole load records every key once (those already in the log
say "already applied" at the sequence numbers they printed); and the balances are those
`init` left (tags move no money).

With `--postgres DIR` (a cluster made by `scripts/postgres/cluster.sh start DIR`), every store
is a ledger on that server (`--store postgresql://…?ledger=crash-SEED-N`, read models under the
work directory): the same rounds and checks, against the log on PostgreSQL.

Seeded: the seed is printed first and repeats the run's choices (the kill moments
depend on timing, so a failure is reproduced by the seed plus the store it leaves).
Exit status 0 when every check held, 1 otherwise. Usage:

    scripts/crash/crash_harness.py --tally .build/release/tally --kills 1000 --seed 42
    scripts/crash/crash_harness.py --modes rebuild,concurrent --kills 10
    scripts/crash/crash_harness.py --modes embedder --kills 200 \\
        --merchant-tags Examples/MerchantTags/.build/release/merchant-tags
"""

import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time


class Failure(Exception):
    """A check that did not hold: the harness counts it and keeps the store for inspection."""


class Harness:
    TALLY_MODES = ("import", "deposits", "append", "rebuild", "concurrent", "bitflip", "truncate", "keyfile", "fulldisk")
    FAULT_MODES = ("bitflip", "truncate", "keyfile", "fulldisk")
    MODES = TALLY_MODES + ("embedder", "server")

    def __init__(self, tally, workdir, seed, rows, rounds_per_store, verbose, modes=TALLY_MODES, workers=3,
                 merchant_tags=None, postgres=None):
        self.tally = tally
        # The cluster directory of a run on PostgreSQL (its `url` file names the server).
        self.postgres = postgres
        self.merchant_tags = merchant_tags
        self.embedder_store = None
        self.embedder_stores = 0
        self.embedder_rounds = 0
        self.embedder_balances = None
        self.workdir = workdir
        self.seed = seed
        self.random = random.Random(seed)
        self.rows = rows
        self.rounds_per_store = rounds_per_store
        self.verbose = verbose
        self.modes = list(modes)
        self.workers = workers
        self.store = None
        self.store_index = 0
        self.round = 0
        self.duration = {"import": 0.5, "deposits": 1.0, "append": 0.3, "rebuild": 0.3, "concurrent": 1.5, "embedder": 0.5,
                         "server": 1.0}
        self.counts = {
            "kills": 0,
            "kills_import": 0,
            "kills_deposits": 0,
            "kills_append": 0,
            "kills_rebuild": 0,
            "kills_concurrent": 0,
            "kills_embedder": 0,
            "kills_server": 0,
            "faults": 0,
            "faults_bitflip": 0,
            "faults_truncate": 0,
            "faults_keyfile": 0,
            "faults_fulldisk": 0,
            "lost_to_named_damage": 0,
            "damage_not_detected": 0,
            "writes_on_damaged_log": 0,
            "store_changed_by_refusal": 0,
            "fulldisk_refused": 0,
            "fulldisk_acknowledged": 0,
            "processes_killed": 0,
            "finished_before_kill": 0,
            "acknowledged_events": 0,
            "acknowledged_commands": 0,
            "lost_acknowledged_events": 0,
            "reopen_failures": 0,
            "balances_changed_by_rebuild": 0,
            "repeats_not_already_applied": 0,
            "reader_failures": 0,
            "read_model_differs_from_log": 0,
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
        if self.postgres:
            with open(os.path.join(self.postgres, "url")) as file:
                self.store = f"{file.read().strip()}?ledger=crash-{self.seed}-{self.store_index}"
        else:
            self.store = os.path.join(self.workdir, f"store-{self.store_index}")
            shutil.rmtree(self.store, ignore_errors=True)
        # With --encrypt, TALLY_KEY_FILE (set in main) is inherited by every tally this harness runs.
        encrypt = ["--encrypt"] if os.environ.get("TALLY_CRASH_ENCRYPT") == "1" else []
        subprocess.run([self.tally, "init", "--store", self.store, "--name", "crash", "--base-currency", "USD",
                        "--time-zone", "UTC", *encrypt], check=True, capture_output=True)

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
                # Every fifth row has no external id: its key is its content and occurrence. The
                # payee names the round, so that two rounds on one store never write the same
                # content (which is the same row by design, and a re-run would rightly skip it).
                external = "" if row % 5 == 4 else f"{tag}-{row}"
                file.write(f"2025-{month:02d}-{day:02d},{self.random.choice(accounts)},Assets:Checking,{amount},USD,"
                           f"\"Payee {tag}, {row}\",Cat,{external}\n")
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

    def cluster(self, command):
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "postgres", "cluster.sh")
        subprocess.run(["bash", script, command, self.postgres], check=True, capture_output=True)

    def round_server(self, tag):
        """Deposits while the PostgreSQL server is killed at a random moment and restarted."""
        if not self.postgres:
            raise Failure("the server mode needs --postgres DIR")
        count = self.random.randint(3, 12)
        base = self.head()
        kill_at = time.monotonic() + self.random.uniform(0, self.duration["server"] * 1.2)
        acknowledged_ids, acknowledged, amounts = [], 0, []
        killed = False
        attempted = 0
        started = time.monotonic()
        for index in range(count):
            external = f"{tag}-{index}"
            attempted = index + 1
            amounts.append(f"{self.random.randint(1, 999)}.{self.random.randint(0, 99):02d}")
            command = [self.tally, "wealth", "deposit", amounts[-1], "--external-id", external, "--json", "--store", self.store]
            process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            while process.poll() is None:
                if not killed and time.monotonic() >= kill_at:
                    self.cluster("kill")
                    killed = True
                time.sleep(0.001)
            stdout, stderr = process.communicate()
            if process.returncode == 0:
                acknowledged_ids.append(external)
                for event in json.loads(stdout)["events"]:
                    acknowledged = max(acknowledged, int(event["seq"]))
            elif not killed:
                raise Failure(f"deposit {external} exited {process.returncode} with the server up: {stderr.strip()[:500]}")
            if killed:
                break
        if not killed:
            self.note_duration("server", time.monotonic() - started)
            self.cluster("kill")
        self.cluster("restart")
        self.counts["kills"] += 1
        self.counts["kills_server"] += 1
        self.counts["acknowledged_events"] += max(acknowledged - base, 0)
        self.after_kill(None, "server", acknowledged, base, events=0)
        present = self.deposit_ids(base)
        lost = [identifier for identifier in acknowledged_ids if identifier not in present]
        if lost:
            self.counts["lost_acknowledged_events"] += len(lost)
            raise Failure(f"acknowledged deposits missing from the log after the server's crash: {lost}")
        for index in range(attempted):
            self.run("wealth", "deposit", amounts[index], "--external-id", f"{tag}-{index}", "--json")
        ids = self.deposit_ids(base, all_occurrences=True)
        if len(ids) != len(set(ids)) or len(set(ids)) != attempted:
            self.counts["duplicates_after_rerun"] += max(len(ids) - len(set(ids)), 1)
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

    def round_rebuild(self, tag):
        # A store of a few thousand events, so that the kill can land inside the fold.
        base = self.head()
        if base < self.rows * 5:
            path = self.journal_csv(tag, self.rows * 5)
            self.run("import", path, "--progress", "none", "--batch-size", "1000")
            base = self.head()
        before = self.reopen()
        command = [self.tally, "rebuild", "--progress", "none", "--store", self.store]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        started = time.monotonic()
        killed = self.kill_after(process, self.random.uniform(0, self.duration["rebuild"] * 1.2))
        stdout, stderr = process.communicate()
        if not killed:
            self.note_duration("rebuild", time.monotonic() - started)
            if process.returncode != 0:
                raise Failure(f"rebuild exited {process.returncode} without a kill: {stderr.strip()[:500]}")
        # Every event the store held before the rebuild was acknowledged; none may go, none may come.
        self.after_kill(killed, "rebuild", 0, base)
        head = self.head()
        if head != base:
            self.counts["lost_acknowledged_events"] += max(0, base - head)
            raise Failure(f"the log held {base} events before the rebuild and {head} after")
        after = self.reopen()
        if after != before:
            self.counts["balances_changed_by_rebuild"] += 1
            raise Failure(f"the balances changed across the killed rebuild:\n{before}\n---\n{after}")

    def round_concurrent(self, tag):
        base = self.head()
        acks = [os.path.join(self.workdir, f"acks-{tag}-{index}.ndjson") for index in range(self.workers + 1)]
        processes = []
        for index, path in enumerate(acks):
            role = "reader" if index == self.workers else "writer"
            command = [sys.executable, os.path.abspath(__file__), "--worker", role, "--tally", self.tally,
                       "--workdir", self.store, "--worker-tag", f"{tag}w{index}", "--worker-acks", path,
                       "--seed", str(self.random.randrange(2**32))]
            processes.append(subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                              start_new_session=True))
        time.sleep(self.random.uniform(0.05, self.duration["concurrent"] * 1.2))
        # Everyone at once: each worker's process group holds the worker and the tally it runs.
        for process in processes:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for process in processes:
            process.wait()
        records = []
        for path in acks:
            if not os.path.exists(path):  # a worker killed before it opened its file acknowledged nothing
                continue
            with open(path) as file:
                records += [json.loads(line) for line in file.read().split("\n")[:-1] if line]
            os.remove(path)
        failures = [record for record in records if "failure" in record]
        if failures:
            self.counts["reader_failures"] += len(failures)
            raise Failure(f"{len(failures)} command(s) failed beside the writers: {failures[:3]}")
        acknowledged = [record for record in records if "events" in record]
        sequences = [event["seq"] for record in acknowledged for event in record["events"]]
        self.counts["acknowledged_commands"] += len(acknowledged)
        self.after_kill(len(processes), "concurrent", max(sequences, default=0), base, events=len(sequences))
        self.check_acknowledged(acknowledged, base)
        self.check_repeats(acknowledged)
        # The read models, caught up event by event, hold what a fresh fold of the log gives.
        caught_up = self.reopen()
        self.run("rebuild", "--progress", "none")
        if self.reopen() != caught_up:
            self.counts["balances_changed_by_rebuild"] += 1
            raise Failure("the balances caught up after the kill differ from those of a fresh rebuild")
        self.expect_verified("after the rebuild")

    def check_acknowledged(self, acknowledged, base):
        """Every acknowledged command's events are in the log, where it said, as it said."""
        logged = {event["seq"]: event for event in self.log_events(base + 1)}
        lost = []
        for record in acknowledged:
            for event in record["events"]:
                found = logged.get(event["seq"])
                if found is None or found["type"] != event["type"] or found.get("data") != event.get("data"):
                    lost.append((record["key"], event["seq"], event["type"]))
        if lost:
            self.counts["lost_acknowledged_events"] += len(lost)
            raise Failure(f"{len(lost)} acknowledged events are not in the log as acknowledged: {lost[:5]}")

    def check_repeats(self, acknowledged):
        """Each acknowledged command again, with its key: already applied, nothing appended."""
        head = self.head()
        for record in acknowledged:
            result = subprocess.run(record["argv"] + ["--store", self.store], input=record.get("stdin"),
                                    capture_output=True, text=True)
            if result.returncode != 0 or not Worker.already_applied(record["kind"], result.stdout):
                self.counts["repeats_not_already_applied"] += 1
                raise Failure(f"repeating {record['key']} exited {result.returncode}: {result.stdout.strip()[:300]} "
                              f"{result.stderr.strip()[:300]}")
        if self.head() != head:
            self.counts["duplicates_after_rerun"] += self.head() - head
            raise Failure(f"repeating the acknowledged commands appended {self.head() - head} events")

    # -- the embedder (Examples/MerchantTags) -------------------------------------------

    def merchant(self, *arguments, check=True):
        command = [self.merchant_tags, *[str(argument) for argument in arguments]]
        result = subprocess.run(command, capture_output=True, text=True)
        if check and result.returncode != 0:
            raise Failure(f"`{' '.join(command)}` exited {result.returncode}: {result.stderr.strip()[:500]}")
        return result

    def new_embedder_store(self):
        self.embedder_stores += 1
        self.embedder_store = os.path.join(self.workdir, f"embedder-store-{self.embedder_stores}")
        shutil.rmtree(self.embedder_store, ignore_errors=True)
        self.merchant("init", self.embedder_store)
        self.embedder_balances = self.embedder_check("after init", False)["balances"]

    def embedder_check(self, when, killed):
        """`merchant-tags check`: verify, open (catching the read models up), compare with a rebuild, verify."""
        result = self.merchant("check", self.embedder_store, check=False)
        if result.returncode != 0:
            message = result.stderr.strip()[:800]
            counter = ("log_verify_failures" if "verify before opening" in message
                       else "balances_changed_by_rebuild" if "after rebuild" in message
                       else "verify_failures_after_catch_up" if "verify after" in message or "not at the head" in message
                       else "reopen_failures")
            self.counts[counter] += 1
            raise Failure(f"merchant-tags check {when} exited {result.returncode}: {message}")
        report = json.loads(result.stdout)
        if killed and report["read_models_were_behind"]:
            self.counts["read_models_behind_after_kill"] += 1
        return report

    def embedder_tags(self):
        """The log's tags (`merchant-tags dump-tags`): the head, and key → the tags with that key."""
        dump = json.loads(self.merchant("dump-tags", self.embedder_store).stdout)
        by_key = {}
        for tag in dump["tags"]:
            by_key.setdefault(tag["key"], []).append(tag)
        return dump, by_key

    def round_embedder(self, tag):
        if self.embedder_store is None or self.embedder_rounds % self.rounds_per_store == 0:
            self.new_embedder_store()
        self.embedder_rounds += 1
        count = self.random.randint(20, 200)
        seed = self.random.randrange(2**31)
        concurrency = self.random.choice([1, 4, 8, 16])
        load = ["load", self.embedder_store, "--count", count, "--seed", seed, "--concurrency", concurrency]
        process = subprocess.Popen([self.merchant_tags, *map(str, load)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        started = time.monotonic()
        killed = self.kill_after(process, self.random.uniform(0, self.duration["embedder"] * 1.2))
        stdout, stderr = process.communicate()
        if not killed:
            self.note_duration("embedder", time.monotonic() - started)
            if process.returncode != 0:
                raise Failure(f"merchant-tags load exited {process.returncode} without a kill: {stderr.strip()[:500]}")
        # Each line is one write: a line without its newline was never printed whole, and is no acknowledgement.
        lines = [json.loads(line) for line in stdout.split("\n")[:-1] if line]
        acknowledged = [line for line in lines if "ack" in line]
        refused = [line["refused"] for line in lines if "refused" in line]
        self.counts["acknowledged_commands"] += len(acknowledged)
        self.after_embedder_kill(killed, acknowledged, refused)
        self.embedder_repeats(load, count, seed, acknowledged)

    def after_embedder_kill(self, killed, acknowledged, refused):
        """Checks 1, 2 and 4 with the example's commands, and the read model against the log."""
        if killed:
            self.counts["kills"] += 1
            self.counts["kills_embedder"] += 1
            self.counts["processes_killed"] += 1
        else:
            self.counts["finished_before_kill"] += 1
        self.counts["acknowledged_events"] += sum(len(line["seq"]) for line in acknowledged)
        report = self.embedder_check("after the kill", killed)
        dump, by_key = self.embedder_tags()
        lost = []
        for line in acknowledged:
            logged = by_key.get(line["ack"], [])
            if [(tag["seq"], tag["account"], tag["merchant"]) for tag in logged] != \
                    [(seq, line["account"], line["merchant"]) for seq in line["seq"]]:
                lost.append((line["ack"], line["seq"], logged))
        if lost or dump["head"] < max((seq for line in acknowledged for seq in line["seq"]), default=0):
            self.counts["lost_acknowledged_events"] += max(len(lost), 1)
            raise Failure(f"{len(lost)} acknowledged commands are not in the log as acknowledged "
                          f"(head {dump['head']}): {lost[:5]}")
        appended_by_refused = [key for key in refused if key in by_key]
        if appended_by_refused:
            raise Failure(f"refused commands have events in the log: {appended_by_refused[:5]}")
        self.expect_read_model_of_log(report, dump)

    def expect_read_model_of_log(self, report, dump):
        """The read model the store caught up to is the log's tags folded in order; tags move no money."""
        merchants, counts = {}, {}
        for tag in sorted(dump["tags"], key=lambda tag: tag["seq"]):
            merchants[tag["account"]] = tag["merchant"]
            counts[tag["merchant"]] = counts.get(tag["merchant"], 0) + 1
        if report["head"] != dump["head"] or report["merchants"] != merchants or report["tag_counts"] != counts:
            self.counts["read_model_differs_from_log"] += 1
            raise Failure(f"the read model at {report['head']} ({report['merchants']}, {report['tag_counts']}) is not "
                          f"the log's tags folded to {dump['head']} ({merchants}, {counts})")
        if report["balances"] != self.embedder_balances:
            raise Failure(f"tags moved money: balances {report['balances']}, after init {self.embedder_balances}")

    def embedder_repeats(self, load, count, seed, acknowledged):
        """Check 5: acknowledged keys again say "already applied"; the whole load again records each key once."""
        head = self.embedder_tags()[0]["head"]
        for line in self.random.sample(acknowledged, min(3, len(acknowledged))):
            result = self.merchant("tag", self.embedder_store, line["account"], line["merchant"], "--key", line["ack"], check=False)
            answer = json.loads(result.stdout) if result.returncode == 0 else {}
            if answer.get("already_applied") is not True or answer.get("seq") != line["seq"]:
                self.counts["repeats_not_already_applied"] += 1
                raise Failure(f"repeating {line['ack']} exited {result.returncode}: {result.stdout.strip()[:300]} "
                              f"{result.stderr.strip()[:300]}")
        if self.embedder_tags()[0]["head"] != head:
            self.counts["duplicates_after_rerun"] += 1
            raise Failure("repeating acknowledged tags appended events")
        rerun = self.merchant(*load)
        answers = {line.get("ack"): line for line in map(json.loads, rerun.stdout.splitlines())}
        for line in acknowledged:
            again = answers.get(line["ack"], {})
            if again.get("already_applied") is not True or again.get("seq") != line["seq"]:
                self.counts["repeats_not_already_applied"] += 1
                raise Failure(f"re-running the load: {line['ack']} was acknowledged at {line['seq']}, now {again}")
        dump, by_key = self.embedder_tags()
        keys = [f"load-{seed}-{index}" for index in range(count)]
        expected = {key: 0 if index % 10 == 9 else 1 for index, key in enumerate(keys)}
        found = {key: len(by_key.get(key, [])) for key in keys}
        if found != expected:
            self.counts["duplicates_after_rerun"] += sum(abs(found[key] - expected[key]) for key in keys)
            raise Failure(f"after re-running the load: {[(key, found[key]) for key in keys if found[key] != expected[key]][:5]}")
        self.expect_read_model_of_log(self.embedder_check("after the re-run", False), dump)

    def after_kill(self, killed, mode, acknowledged, base, events=None):
        """Checks 1, 2 and 4: an intact log, every acknowledged event there, read models catching up."""
        if killed is None:
            pass  # counted by the round (a server kill)
        elif killed:
            self.counts["kills"] += 1
            self.counts[f"kills_{mode}"] += 1
            self.counts["processes_killed"] += 1 if killed is True else killed
        else:
            self.counts["finished_before_kill"] += 1
        if events is not None:
            self.counts["acknowledged_events"] += events
        elif acknowledged:
            self.counts["acknowledged_events"] += acknowledged - base
        report = self.verify()
        log_problems = [problem for problem in report["problems"] if "read model" not in problem and "projector" not in problem]
        if not report["ok"] and log_problems:
            self.counts["log_verify_failures"] += 1
            raise Failure(f"verify right after the kill: {log_problems}")
        # Behind is a note, not a failure (verify's "ok" holds): count the stores the kill left behind.
        read_models = report.get("read_models")
        if killed is not False and (not report["ok"] or read_models is None or read_models["needs_recovery"] \
                       or any(projector["state"] != "at_head" for projector in read_models["projectors"])):
            self.counts["read_models_behind_after_kill"] += 1
        head = self.head()
        if head < acknowledged:
            self.counts["lost_acknowledged_events"] += acknowledged - head
            raise Failure(f"the log ends at {head} but {acknowledged} was acknowledged")
        self.reopen()
        self.expect_verified("after the read models caught up")

    # -- faults (issue 34) ------------------------------------------------------------

    def fault_store(self, deposits):
        """A fresh store (files only) with `deposits` acknowledged deposits, one frame each."""
        self.new_store()
        for index in range(deposits):
            self.run("wealth", "deposit", f"{self.random.randint(1, 999)}.00", "--external-id", f"f{self.round}-{index}", "--json")

    def segments(self):
        directory = os.path.join(self.store, "log")
        return sorted(os.path.join(directory, name) for name in os.listdir(directory) if name.endswith(".tlog"))

    @staticmethod
    def frames(path):
        """(offset, first sequence, count, stored body length) of each whole frame of a segment."""
        import struct
        with open(path, "rb") as file:
            data = file.read()
        offset, frames = 64, []
        while offset + 88 <= len(data):
            first, = struct.unpack_from("<Q", data, offset + 8)
            count, = struct.unpack_from("<I", data, offset + 16)
            stored, = struct.unpack_from("<I", data, offset + 24)
            if offset + 88 + stored > len(data):
                break
            frames.append((offset, first, count, stored))
            offset += 88 + stored
        return frames

    def acknowledged_events(self):
        """Every event of the log by sequence number: (type, idempotency key)."""
        return {int(event["seq"]): (event["type"], event.get("idempotency_key")) for event in self.log_events(1)}

    def snapshot(self):
        files = {}
        for root, _, names in os.walk(self.store):
            for name in names:
                path = os.path.join(root, name)
                if name == "LOCK" or "readmodels" in name:
                    continue
                with open(path, "rb") as file:
                    files[os.path.relpath(path, self.store)] = file.read()
        return files

    def count_fault(self, mode):
        self.counts["faults"] += 1
        self.counts[f"faults_{mode}"] += 1

    def round_bitflip(self, tag):
        self.fault_store(self.random.randint(4, 10))
        before = self.acknowledged_events()
        segment = self.segments()[-1]
        frames = self.frames(segment)
        # A frame in the middle: never the first (ledger_created alone) nor the last.
        offset, first, count, stored = frames[self.random.randint(1, len(frames) - 2)]
        with open(segment, "r+b") as file:
            position = offset + 88 + self.random.randrange(stored)
            file.seek(position)
            byte = file.read(1)[0]
            file.seek(position)
            file.write(bytes([byte ^ (1 << self.random.randrange(8))]))
        self.count_fault("bitflip")
        damaged = set(range(first, first + count))
        # A writer after the flip: acknowledged or refused, never silently lost.
        result = self.run("wealth", "deposit", "1.00", "--external-id", f"{tag}-after", "--json", check=False)
        if result.returncode == 0:
            for event in json.loads(result.stdout)["events"]:
                before[int(event["seq"])] = (event["type"], event.get("idempotency_key"))
        report = self.verify()
        if report["ok"]:
            self.counts["damage_not_detected"] += 1
            raise Failure(f"verify says intact after a flipped byte in events {first}…{first + count - 1}")
        repaired = subprocess.run([self.tally, "repair", "--yes", "--store", self.store], capture_output=True, text=True)
        if repaired.returncode != 0:
            raise Failure(f"repair --yes exited {repaired.returncode}: {repaired.stderr.strip()[:500]}")
        report = self.verify()
        if not report["ok"]:
            self.counts["verify_failures_after_catch_up"] += 1
            raise Failure(f"verify after the repair: {report['problems']}")
        named = set()
        for low, high in report.get("lost_events", []):
            named.update(range(low, high + 1))
        after = self.acknowledged_events()
        missing = sorted(sequence for sequence in before if sequence not in after and sequence not in damaged)
        changed = sorted(sequence for sequence in before if sequence in after and after[sequence] != before[sequence])
        if missing or changed:
            self.counts["lost_acknowledged_events"] += len(missing) + len(changed)
            raise Failure(f"after the repair, acknowledged events missing {missing} or changed {changed} (damaged {first}…{first + count - 1})")
        if named != damaged:
            raise Failure(f"verify names {sorted(named)} as lost, the damaged frame held {sorted(damaged)}")
        self.counts["lost_to_named_damage"] += len(damaged)
        self.counts["acknowledged_events"] += len(before)
        self.reopen()
        self.store = None  # the next round starts a fresh store

    def round_truncate(self, tag):
        self.fault_store(self.random.randint(3, 8))
        before = self.acknowledged_events()
        head = max(before)
        for path in os.listdir(self.store):
            if path.startswith("readmodels.sqlite"):
                os.remove(os.path.join(self.store, path))
        segment = self.segments()[-1]
        frames = self.frames(segment)
        size = os.path.getsize(segment)
        # From a few bytes up to the last two frames and a bit.
        last = frames[-2][0] if len(frames) > 2 else frames[-1][0]
        cut = self.random.randint(1, max(1, size - last + 5))
        with open(segment, "r+b") as file:
            file.truncate(size - cut)
        self.count_fault("truncate")
        kept = {first + index for _, first, count, stored in self.frames(segment) for index in range(count)}
        cut_events = sorted(sequence for sequence in before if sequence not in kept)
        report = self.verify()
        if report["ok"] or report.get("exit_status") != 1:
            self.counts["damage_not_detected"] += 1
            raise Failure(f"verify says {report.get('status')} after {cut} bytes were cut off the log (events {cut_events})")
        text = " ".join(report["problems"])
        if cut_events and f"{cut_events[0]}…{head}" not in text and f"event {head}" not in text:
            raise Failure(f"verify does not name the events cut off ({cut_events[0]}…{head}): {text[:300]}")
        result = self.run("wealth", "deposit", "1.00", "--external-id", f"{tag}-after", "--json", check=False)
        if result.returncode == 0:
            self.counts["writes_on_damaged_log"] += 1
            raise Failure(f"a deposit was acknowledged on a log cut short (events {cut_events} cut): {result.stdout[:300]}")
        repaired = subprocess.run([self.tally, "repair", "--yes", "--store", self.store], capture_output=True, text=True)
        if repaired.returncode != 0:
            raise Failure(f"repair --yes exited {repaired.returncode}: {repaired.stderr.strip()[:500]}")
        after = self.acknowledged_events()
        missing = sorted(sequence for sequence in before if sequence not in after and sequence not in cut_events)
        if missing:
            self.counts["lost_acknowledged_events"] += len(missing)
            raise Failure(f"after the repair, events {missing} are missing though only {cut_events} were cut")
        self.counts["lost_to_named_damage"] += len(cut_events)
        self.counts["acknowledged_events"] += len(before)
        self.run("wealth", "deposit", "1.00", "--external-id", f"{tag}-repaired", "--json")
        self.expect_verified("after the repair of a log cut short")
        self.store = None

    def round_keyfile(self, tag):
        self.fault_store(2)
        self.run("import", self.journal_csv(tag, 5))
        subjects = os.path.join(self.store, "SUBJECTS")
        keys = os.path.join(self.store, "KEYS")
        encrypted = os.path.exists(keys)
        target = keys if encrypted and self.random.random() < 0.3 else subjects
        with open(target, "rb") as file:
            original = file.read()
        if target == subjects and self.random.random() < 0.4:
            os.remove(target)
            kind = "deleted"
        else:
            text = original.decode()
            field = '"wrapped"' if target == keys else '"key"'
            starts = [match.end() for match in re.finditer(field + r'\s*:\s*"', text)]
            if not starts:
                raise Failure(f"no {field} in {target}")
            at = self.random.choice(starts) + self.random.randint(0, 20)
            replacement = "A" if text[at] != "A" else "B"
            with open(target, "w") as file:
                file.write(text[:at] + replacement + text[at + 1:])
            kind = "changed"
        self.count_fault("keyfile")
        before = self.snapshot()
        report = self.run("verify", "--json", check=False)
        if report.returncode == 0:
            self.counts["damage_not_detected"] += 1
            raise Failure(f"verify exits 0 with {os.path.basename(target)} {kind}: {report.stdout[:300]}")
        exported = self.run("export", check=False)
        if exported.returncode == 0 or "[erased" in exported.stdout:
            self.counts["damage_not_detected"] += 1
            raise Failure(f"export with {os.path.basename(target)} {kind} exited {exported.returncode}, "
                          f"{'with' if '[erased' in exported.stdout else 'without'} erased text")
        listed = self.run("erase", "--list", check=False)
        if listed.returncode == 0:
            self.counts["damage_not_detected"] += 1
            raise Failure(f"erase --list exits 0 with {os.path.basename(target)} {kind}: {listed.stdout[:300]}")
        if self.snapshot() != before:
            self.counts["store_changed_by_refusal"] += 1
            raise Failure(f"a refused command changed the store's files ({os.path.basename(target)} {kind})")
        with open(target, "wb") as file:
            file.write(original)
        os.chmod(target, 0o600)
        self.expect_verified(f"with {os.path.basename(target)} put back")
        self.store = None

    def round_fulldisk(self, tag):
        if self.store is None or self.random.random() < 0.2:
            self.fault_store(self.random.randint(1, 4))
        import resource
        segment = self.segments()[-1]
        limit = max(4096, os.path.getsize(segment) + self.random.randint(-256, 2048))
        if self.random.random() < 0.5:
            # The read models' write-ahead log emptied: the commit rewrites it from its start.
            import sqlite3
            connection = sqlite3.connect(os.path.join(self.store, "readmodels.sqlite"))
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            connection.close()

        def limited():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

        base = self.head()
        external = f"{tag}-full"
        amount = f"{self.random.randint(1, 999)}.00"
        result = subprocess.run([self.tally, "wealth", "deposit", amount, "--external-id", external, "--json", "--store", self.store],
                                capture_output=True, text=True, preexec_fn=limited)
        self.count_fault("fulldisk")
        acknowledged = result.returncode == 0
        self.counts["fulldisk_acknowledged" if acknowledged else "fulldisk_refused"] += 1
        self.reopen()
        self.expect_verified("after a full disk")
        present = self.deposit_ids(base, all_occurrences=True)
        if acknowledged and external not in present:
            self.counts["lost_acknowledged_events"] += 1
            raise Failure(f"deposit {external} exited 0 on a full disk but is not in the log")
        if acknowledged:
            self.counts["acknowledged_events"] += len(json.loads(result.stdout)["events"])
        self.run("wealth", "deposit", amount, "--external-id", external, "--json")
        present = self.deposit_ids(base, all_occurrences=True)
        if present.count(external) != 1:
            self.counts["duplicates_after_rerun"] += 1
            raise Failure(f"after the re-run the log holds deposit {external} {present.count(external)} times")

    def reopen(self):
        """The first command after a kill opens the store and catches its read models up: its balances."""
        result = self.run("balances", "--format", "csv", check=False)
        if result.returncode != 0:
            self.counts["reopen_failures"] += 1
            raise Failure(f"the store did not reopen after the kill: balances exited {result.returncode}: {result.stderr.strip()[:500]}")
        return result.stdout

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
        tally = f", tally {self.tally}" if set(self.modes) != {"embedder"} else ""
        merchant_tags = f", merchant-tags {self.merchant_tags}" if "embedder" in self.modes else ""
        print(f"crash harness: seed {self.seed}, {kills} kills{tally}{merchant_tags}, work {self.workdir}", flush=True)
        started = time.monotonic()
        attempts = 0
        while self.counts["kills"] + self.counts["faults"] < kills and attempts < kills * 4:
            attempts += 1
            if (self.store is None or self.round % self.rounds_per_store == 0) and set(self.modes) != {"embedder"}:
                self.new_store()
            self.round += 1
            mode = self.random.choice(self.modes)
            tag = f"r{self.round}"
            specific = ("lost_acknowledged_events", "log_verify_failures", "verify_failures_after_catch_up",
                        "damage_not_detected", "writes_on_damaged_log", "store_changed_by_refusal",
                        "torn_batches", "duplicates_after_rerun", "rerun_failures", "reopen_failures",
                        "balances_changed_by_rebuild", "repeats_not_already_applied", "reader_failures",
                        "read_model_differs_from_log")
            before = [self.counts[key] for key in specific]
            try:
                getattr(self, f"round_{mode}")(tag)
            except Failure as failure:
                if before == [self.counts[key] for key in specific]:
                    self.counts["other_failures"] += 1
                store = self.embedder_store if mode == "embedder" else self.store
                message = f"round {self.round} ({mode}, store {store}): {failure}"
                self.failures.append(message)
                print(f"FAIL {message}", flush=True)
                self.store = None
                self.embedder_store = None
                continue
            if self.verbose or self.round % 50 == 0:
                print(f"round {self.round}: {self.counts['kills']} kills, {self.counts['faults']} faults, "
                      f"{self.counts['lost_acknowledged_events']} lost acknowledged events, "
                      f"{len(self.failures)} failures ({time.monotonic() - started:.0f} s)", flush=True)
        self.counts["seconds"] = round(time.monotonic() - started, 1)
        self.counts["seed"] = self.seed
        self.counts["failures"] = len(self.failures)
        print(json.dumps(self.counts), flush=True)
        return not self.failures and self.counts["kills"] + self.counts["faults"] >= kills


class Worker:
    """One process of a concurrent round (`--worker writer|reader`), run until it is killed.

    A writer issues durable commands, each with an idempotency key of its own, and retries one
    while another writer holds the lock (that refusal appends nothing); every command whose
    process exited 0 is one line of its file: kind, key, argv, stdin and the events it printed.
    A reader loops over `tally verify --json` and `tally balances`; any exit but 0 is a line
    `{"failure": …}`. Lines are written whole, one `write` each.
    """

    def __init__(self, tally, store, tag, acks, seed):
        self.tally = tally
        self.store = store
        self.tag = tag
        self.random = random.Random(seed)
        self.acks = os.open(acks, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)

    def record(self, fields):
        os.write(self.acks, (json.dumps(fields) + "\n").encode())

    def run(self, argv, stdin=None):
        return subprocess.run(argv + ["--store", self.store], input=stdin, capture_output=True, text=True)

    def writer(self):
        for index in range(1_000_000):
            key = f"{self.tag}:{index}"
            kind = self.random.choice(["deposit", "deposit", "pot", "append"])
            stdin = None
            if kind == "deposit":
                amount = f"{self.random.randint(1, 999)}.{self.random.randint(0, 99):02d}"
                argv = [self.tally, "wealth", "deposit", amount, "--idempotency-key", key, "--json"]
            elif kind == "pot":
                argv = [self.tally, "pot", "create", f"pot-{self.tag}-{index}", "--target", "100.00",
                        "--idempotency-key", key, "--json"]
            else:
                argv = [self.tally, "append", "-"]
                stdin = "".join(json.dumps({
                    "type": "journal_entry_posted", "version": 1, "effective_at": "2025-04-01T00:00:00Z",
                    "idempotency_key": f"{key}:{line}",
                    "data": {"account": "Expenses:Concurrent", "counter_account": "Assets:Checking",
                             "amount": {"amount": f"{self.random.randint(1, 99)}.50", "currency": "USD"},
                             "payee": f"{key} {line}"},
                }) + "\n" for line in range(self.random.randint(1, 3)))
            while True:
                result = self.run(argv, stdin)
                if result.returncode == 0 or "another writer holds" not in result.stderr:
                    break
                time.sleep(self.random.uniform(0, 0.01))
            if result.returncode != 0:
                self.record({"failure": f"{key} ({kind}) exited {result.returncode}: {result.stderr.strip()[:300]}"})
                continue
            self.record({"kind": kind, "key": key, "argv": argv, "stdin": stdin,
                         "events": self.events(kind, result.stdout, stdin)})

    def events(self, kind, stdout, stdin):
        """The events a command printed it appended: seq, type and data."""
        if kind != "append":
            return [{"seq": event["seq"], "type": event["type"], "data": event.get("data")}
                    for event in json.loads(stdout)["events"]]
        # `Appended N events from - in 1 commit: seq F-L`, in the order of its input.
        match = re.search(r"seq (\d+)(?:-(\d+))?", stdout.splitlines()[0])
        first = int(match.group(1))
        lines = [json.loads(line) for line in stdin.splitlines()]
        return [{"seq": first + offset, "type": line["type"], "data": line["data"]} for offset, line in enumerate(lines)]

    @staticmethod
    def already_applied(kind, stdout):
        if kind == "append":
            return "nothing appended" in stdout and "already recorded" in stdout
        return json.loads(stdout)["already_applied"] is True

    def reader(self):
        while True:
            for argv in ([self.tally, "verify", "--json"], [self.tally, "balances", "--format", "csv"]):
                result = self.run(argv)
                if result.returncode != 0:
                    self.record({"failure": f"`{' '.join(argv[1:])}` beside the writers exited {result.returncode}: "
                                            f"{result.stdout.strip()[:300]} {result.stderr.strip()[:300]}"})


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tally", default=".build/debug/tally", help="the tally binary (not run by the embedder mode)")
    parser.add_argument("--merchant-tags", default=None,
                        help="the example embedder's binary (Examples/MerchantTags): enables the embedder mode")
    parser.add_argument("--kills", type=int, default=20, help="how many SIGKILLs to deliver")
    parser.add_argument("--seed", type=int, default=None, help="the seed (default: random, printed)")
    parser.add_argument("--rows", type=int, default=600, help="the most rows in one import")
    parser.add_argument("--rounds-per-store", type=int, default=25, help="rounds before a fresh store")
    parser.add_argument("--workdir", default=None, help="where stores go (default: a new temporary directory)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory even when every check held")
    parser.add_argument("--modes", default=None,
                        help="the modes to draw rounds from, comma-separated (a mode named twice is drawn twice as often); "
                             f"default {','.join(Harness.TALLY_MODES)}, and embedder when --merchant-tags is given")
    parser.add_argument("--workers", type=int, default=3, help="writer processes in a concurrent round (and one reader)")
    parser.add_argument("--postgres", default=None,
                        help="a cluster directory made by scripts/postgres/cluster.sh start DIR: stores are ledgers on it "
                             "(and the server mode kills and restarts it)")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--encrypt", action="store_true",
                        help="encrypted stores (init --encrypt, a key file in the work directory via TALLY_KEY_FILE)")
    parser.add_argument("--worker", choices=["writer", "reader"], help=argparse.SUPPRESS)
    parser.add_argument("--worker-tag", help=argparse.SUPPRESS)
    parser.add_argument("--worker-acks", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.worker:
        worker = Worker(arguments.tally, arguments.workdir, arguments.worker_tag, arguments.worker_acks, arguments.seed)
        getattr(worker, arguments.worker)()
        return
    default_modes = Harness.MODES if arguments.merchant_tags else Harness.TALLY_MODES
    modes = [mode for mode in (arguments.modes or ",".join(default_modes)).split(",") if mode]
    unknown = [mode for mode in modes if mode not in Harness.MODES]
    if unknown or not modes:
        parser.error(f"--modes: unknown {unknown}; choose from {', '.join(Harness.MODES)}")
    if "embedder" in modes and not arguments.merchant_tags:
        parser.error("--modes embedder needs --merchant-tags PATH, the example embedder's binary "
                     "(swift build --package-path Examples/MerchantTags; see Examples/MerchantTags/README.md)")
    merchant_tags = os.path.abspath(arguments.merchant_tags) if arguments.merchant_tags else None
    if merchant_tags and not os.access(merchant_tags, os.X_OK):
        parser.error(f"--merchant-tags: {merchant_tags} is not an executable")
    seed = arguments.seed if arguments.seed is not None else random.SystemRandom().randrange(2**32)
    workdir = arguments.workdir or tempfile.mkdtemp(prefix="tally-crash-")
    os.makedirs(workdir, exist_ok=True)
    if arguments.encrypt:
        os.environ["TALLY_CRASH_ENCRYPT"] = "1"
        os.environ["TALLY_KEY_FILE"] = os.path.join(os.path.abspath(workdir), "crash.key")
    postgres = os.path.abspath(arguments.postgres) if arguments.postgres else None
    if "server" in modes and not postgres:
        parser.error("--modes server needs --postgres DIR (a cluster made by scripts/postgres/cluster.sh start DIR)")
    if postgres:
        # Every tally this harness runs keeps its read models in the work directory.
        os.environ["TALLY_READ_MODELS"] = os.path.join(os.path.abspath(workdir), "read-models")
    harness = Harness(os.path.abspath(arguments.tally), workdir, seed, arguments.rows, arguments.rounds_per_store,
                      arguments.verbose, modes, arguments.workers, merchant_tags, postgres)
    ok = harness.run_all(arguments.kills)
    if ok and not arguments.keep and arguments.workdir is None:
        shutil.rmtree(workdir, ignore_errors=True)
    elif not ok:
        print(f"crash harness: FAILED with seed {seed}; stores kept in {workdir}", file=sys.stderr)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
