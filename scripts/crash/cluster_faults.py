#!/usr/bin/env python3
"""Fault runs against a real PostgreSQL: the log's server connections, writers and service nodes.

Each round puts load on one ledger and injects one kind of fault (`--modes`, default all):

- terminate:   a stream of `tally wealth deposit … --external-id ID` processes on a ledger while
               another connection ends the writers' backends (`pg_terminate_backend`) at random
               moments, several times a round, some in the middle of a commit.
- two-writers: two streams of deposit processes on one ledger at once, drawing their ids from
               one shared list in different orders (a repeat of an id is the same command, so an
               id lands once), and one writer process killed (SIGKILL) at a random moment.
- node-stop:   two `tally serve` nodes sharing the database; HTTP deposits go to the ledger's
               holder, which is stopped (SIGSTOP) past its lease (10 s) while a request is in
               flight; the other node takes the ledger over and accepts writes; then SIGCONT:
               the old node's write is refused by the epoch (or was done before the stop), and
               the old node no longer accepts writes of its own.
- node-kill:   the same two nodes; the holder is killed (SIGKILL) under HTTP load; the time from
               the kill to the first write the other node accepts is measured; the killed node is
               started again for the next round.
- standby:     a primary with a synchronous streaming standby (scripts/postgres/cluster.sh
               standby); deposits go through one libpq URI naming both servers
               (target_session_attrs=read-write); the primary is killed (SIGKILL) at a random
               moment and the standby promoted; the deposits go on on it. The next round makes a
               new standby of the new primary.

After every round: every acknowledged command (a deposit whose process exited 0, an HTTP 2xx)
is in the log exactly once (by its external id, which is also its idempotency key) at the
sequence numbers it was acknowledged with (a fork would put another event there), the log has
no gap, `tally verify` exits 0 (chain and read models), and the ledger's head row agrees with the
log. Then every attempted command is sent again with its key: each id is then in the log once.

Seeded: the seed is printed first and repeats the run's choices (the fault moments depend on
timing). Exit status 0 when every check held, 1 otherwise. The figures are printed as JSON at
the end (faults per mode, acknowledged, lost, duplicates, forks, failover times). Usage:

    scripts/crash/cluster_faults.py --tally .build/debug/tally --rounds 40 --seed 7
    scripts/crash/cluster_faults.py --modes node-kill,node-stop --rounds 10
"""

import argparse
import http.client
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

MODES = ("terminate", "two-writers", "node-stop", "node-kill", "standby")
ADMIN_KEY = "cluster-faults-admin-key-shared-by-every-node"
LEASE_SECONDS = 10
SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "postgres", "cluster.sh")


class Failure(Exception):
    """A check that did not hold."""


def cluster(*arguments):
    result = subprocess.run(["bash", SCRIPT, *arguments], capture_output=True, text=True)
    if result.returncode != 0:
        raise Failure(f"cluster.sh {' '.join(arguments)} failed: {result.stderr.strip()[:500]}")
    return result.stdout.strip()


def port_of(url):
    return url.rsplit(":", 1)[1].split("/")[0]


def psql(url, sql):
    result = subprocess.run(["psql", url, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql],
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise Failure(f"psql {sql!r}: {result.stderr.strip()[:300]}")
    return result.stdout.strip()


class Node:
    """A `tally serve` node on the shared database."""

    def __init__(self, tally, name, data, postgres):
        self.name = name
        environment = dict(os.environ, TALLY_ADMIN_KEY=ADMIN_KEY)
        self.log = open(os.path.join(data + ".log"), "a")
        os.makedirs(data, exist_ok=True)
        self.process = subprocess.Popen(
            [tally, "serve", "--data", data, "--port", "0", "--postgres", postgres, "--node", name, "--log-level", "warning",
             "--rate-limit", "100000"],
            stdout=subprocess.PIPE, stderr=self.log, text=True, env=environment)
        line = ""
        deadline = time.monotonic() + 60
        while "listening on http://" not in line and time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line and self.process.poll() is not None:
                raise Failure(f"node {name} did not start (exit {self.process.returncode})")
        self.address = line.strip().split("listening on ")[1].split()[0]
        self.port = int(self.address.rsplit(":", 1)[1])
        threading.Thread(target=self.process.stdout.read, daemon=True).start()

    def signal(self, number):
        if self.process.poll() is None:
            os.kill(self.process.pid, number)

    def stop(self):
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGCONT)
            os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()
        self.log.close()


def request(address, method, path, body=None, key=None, timeout=30):
    """One HTTP request, redirects not followed: (status, location, body) or (None, None, error)."""
    host, port = address.split("//")[1].rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=timeout)
    headers = {"Authorization": f"Bearer {ADMIN_KEY}", "Content-Type": "application/json"}
    if key:
        headers["Idempotency-Key"] = key
    try:
        connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
        response = connection.getresponse()
        return response.status, response.getheader("Location"), response.read().decode()
    except (OSError, http.client.HTTPException) as error:
        return None, None, str(error)
    finally:
        connection.close()


class Run:
    def __init__(self, tally, workdir, seed, verbose):
        self.tally = tally
        self.workdir = workdir
        self.seed = seed
        self.random = random.Random(seed)
        self.verbose = verbose
        self.primary_dir = os.path.join(workdir, "pg")
        self.url = None
        self.ledgers = 0
        self.counts = {mode: {"rounds": 0, "faults": 0, "acknowledged": 0, "attempted": 0, "lost": 0, "duplicates": 0,
                              "forks": 0, "failed_rounds": 0} for mode in MODES}
        self.counts["node-stop"]["old_node_writes_refused"] = 0
        self.counts["terminate"]["backends_terminated"] = 0
        self.failover_seconds = {"node-stop": [], "node-kill": [], "standby": []}
        self.failures = []
        self.nodes = []
        self.standby_pair = None

    def note(self, text):
        if self.verbose:
            print(text, flush=True)

    # -- tally and checks ---------------------------------------------------------------

    def new_ledger(self, url, init=True):
        self.ledgers += 1
        ledger = f"faults-{self.seed}-{self.ledgers}"
        store = f"{url}?ledger={ledger}&application_name={ledger}"
        if "?" in url:
            store = f"{url}&ledger={ledger}&application_name={ledger}"
        if init:
            self.tally_run("init", "--name", "faults", "--base-currency", "USD", "--time-zone", "UTC", store=store)
        return ledger, store

    def tally_run(self, *arguments, store, check=True):
        result = subprocess.run([self.tally, *arguments, "--store", store], capture_output=True, text=True)
        if check and result.returncode != 0:
            raise Failure(f"`tally {' '.join(arguments)}` exited {result.returncode}: {result.stderr.strip()[:500]}")
        return result

    def deposit(self, store, external, amount):
        """A deposit process; returns (acknowledged sequence numbers or None, the process's stderr)."""
        result = subprocess.run([self.tally, "wealth", "deposit", amount, "--external-id", external, "--json", "--store", store],
                                capture_output=True, text=True)
        if result.returncode != 0:
            return None, result.stderr
        return [int(event["seq"]) for event in json.loads(result.stdout)["events"]], ""

    def check(self, mode, store, url, ledger, acknowledged, attempted, repeat=None):
        """The checks of every round. `acknowledged`: id → sequence numbers; `attempted`: id → amount;
        `repeat(id, amount)` sends a command again with its key (default: a `tally` process)."""
        counts = self.counts[mode]
        counts["acknowledged"] += len(acknowledged)
        counts["attempted"] += len(attempted)
        events = [json.loads(line) for line in self.tally_run("log", "--json", store=store).stdout.splitlines() if line.strip()]
        sequences = [int(event["seq"]) for event in events]
        if sequences != list(range(1, len(sequences) + 1)):
            raise Failure(f"the log's sequence numbers have a gap: {sequences[:5]}…{sequences[-5:]}")
        by_sequence = {int(event["seq"]): event for event in events}
        deposits = [event["data"].get("external_id") for event in events if event["type"] == "deposit_received"]
        present = {identifier: deposits.count(identifier) for identifier in set(deposits)}
        lost = [identifier for identifier in acknowledged if identifier not in present]
        duplicates = [identifier for identifier, count in present.items() if count > 1]
        forks = []
        for identifier, numbers in acknowledged.items():
            first = by_sequence.get(numbers[0]) if numbers else None
            if first is None or first["type"] != "deposit_received" or first["data"].get("external_id") != identifier:
                forks.append((identifier, numbers[0] if numbers else None))
        head = int(psql(url, f"SELECT head_sequence FROM tally_ledgers WHERE ledger = '{ledger}'"))
        if head != len(sequences):
            forks.append(("head row", head))
        counts["lost"] += len(lost)
        counts["duplicates"] += len(duplicates)
        counts["forks"] += len(forks)
        if lost or duplicates or forks:
            raise Failure(f"lost {lost[:5]}, twice {duplicates[:5]}, not where acknowledged {forks[:5]}")
        verify = self.tally_run("verify", store=store, check=False)
        if verify.returncode != 0:
            raise Failure(f"tally verify exited {verify.returncode}: {(verify.stdout + verify.stderr).strip()[:500]}")
        # Every attempted command again, with its key: each lands once.
        for identifier, amount in attempted.items():
            error = repeat(identifier, amount) if repeat else self.deposit(store, identifier, amount)[1]
            if error:
                raise Failure(f"the repeat of {identifier} failed: {error.strip()[:300]}")
        again = [json.loads(line) for line in self.tally_run("log", "--json", store=store).stdout.splitlines() if line.strip()]
        ids = [event["data"].get("external_id") for event in again if event["type"] == "deposit_received"]
        if sorted(ids) != sorted(set(ids)) or set(ids) != set(attempted):
            counts["duplicates"] += max(len(ids) - len(set(ids)), 1)
            raise Failure(f"after the repeats the log holds {len(ids)} deposits ({len(set(ids))} ids) for {len(attempted)} ids")
        if self.tally_run("verify", store=store, check=False).returncode != 0:
            raise Failure("tally verify failed after the repeats")

    def amount(self):
        return f"{self.random.randint(1, 999)}.{self.random.randint(0, 99):02d}"

    # -- modes ----------------------------------------------------------------------------

    def round_terminate(self, tag):
        ledger, store = self.new_ledger(self.url)
        attempted, acknowledged = {}, {}
        count = self.random.randint(8, 20)
        plan = [(f"{tag}-{index}", self.amount()) for index in range(count)]
        done = threading.Event()

        def writer():
            for external, amount in plan:
                attempted[external] = amount
                numbers, _ = self.deposit(store, external, amount)
                if numbers is not None:
                    acknowledged[external] = numbers
            done.set()

        thread = threading.Thread(target=writer)
        thread.start()
        terminations = 0
        attempts = 0
        while not done.is_set():
            time.sleep(self.random.uniform(0.005, 0.15))
            ended = psql(self.url, f"SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity "
                                   f"WHERE application_name = '{ledger}'")
            attempts += 1
            terminations += int(ended or 0)
        thread.join()
        # A fault is a backend of the ledger's writers actually ended.
        self.counts["terminate"]["faults"] += terminations
        self.counts["terminate"]["backends_terminated"] += terminations
        self.note(f"  terminate: {terminations} backends ended in {attempts} attempts, {len(acknowledged)}/{count} acknowledged")
        self.check("terminate", store, self.url, ledger, acknowledged, attempted)

    def round_two_writers(self, tag):
        ledger, store = self.new_ledger(self.url)
        ids = [(f"{tag}-{index}", self.amount()) for index in range(self.random.randint(6, 14))]
        orders = [list(ids), list(ids)]
        self.random.shuffle(orders[1])
        attempted = dict(ids)
        acknowledged = {}
        lock = threading.Lock()
        processes = [None, None]
        kill_at = time.monotonic() + self.random.uniform(0.05, 1.0)
        victim = self.random.randint(0, 1)
        killed = threading.Event()

        def writer(index):
            for external, amount in orders[index]:
                process = subprocess.Popen(
                    [self.tally, "wealth", "deposit", amount, "--external-id", external, "--json", "--store", store],
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                processes[index] = process
                stdout, _ = process.communicate()
                if process.returncode == 0:
                    numbers = [int(event["seq"]) for event in json.loads(stdout)["events"]]
                    with lock:
                        if external in acknowledged and acknowledged[external][0] != numbers[0]:
                            raise Failure(f"{external} acknowledged at {acknowledged[external]} and at {numbers}")
                        acknowledged.setdefault(external, numbers)

        threads = [threading.Thread(target=writer, args=(index,)) for index in (0, 1)]
        for thread in threads:
            thread.start()
        while any(thread.is_alive() for thread in threads):
            if not killed.is_set() and time.monotonic() >= kill_at:
                process = processes[victim]
                if process is not None and process.poll() is None:
                    process.kill()
                    killed.set()
            time.sleep(0.002)
        for thread in threads:
            thread.join()
        self.counts["two-writers"]["faults"] += 1 if killed.is_set() else 0
        self.note(f"  two writers: {'a writer killed' if killed.is_set() else 'done before the kill'}, {len(acknowledged)} acknowledged")
        self.check("two-writers", store, self.url, ledger, acknowledged, attempted)

    def ensure_nodes(self):
        if len(self.nodes) == 2 and all(node.process.poll() is None for node in self.nodes):
            return
        for index, name in enumerate(("node-a", "node-b")):
            if index < len(self.nodes) and self.nodes[index].process.poll() is None:
                continue
            node = Node(self.tally, name, os.path.join(self.workdir, name), self.url)
            if index < len(self.nodes):
                self.nodes[index] = node
            else:
                self.nodes.append(node)

    def http_deposit(self, address, ledger, external, amount, timeout=30):
        return request(address, "POST", f"/ledgers/{ledger}/wealth/main/deposits",
                       {"amount": amount, "external_id": external}, key=external, timeout=timeout)

    @staticmethod
    def sequences_of(body):
        try:
            return [int(event["seq"]) for event in json.loads(body)["events"]]
        except (ValueError, KeyError, TypeError):
            return []

    def node_ledger(self, holder):
        """A new ledger, created through `holder` (which then holds it)."""
        self.ledgers += 1
        ledger = f"nodes-{self.seed}-{self.ledgers}"
        status, _, body = request(holder.address, "POST", "/ledgers",
                                  {"id": ledger, "name": "Faults", "base_currency": "USD", "time_zone": "UTC"})
        if status != 201:
            raise Failure(f"creating {ledger} through {holder.name}: {status} {body[:300]}")
        return ledger, f"{self.url}?ledger={ledger}"

    def deposit_until_accepted(self, node, ledger, tag, attempted, acknowledged, deadline):
        """One deposit sent to `node` again and again (its key makes that one command) until the
        node accepts it rather than redirecting to the old holder; returns when, or None."""
        external, amount = f"{tag}-after", self.amount()
        attempted[external] = amount
        while time.monotonic() < deadline:
            status, _, body = self.http_deposit(node.address, ledger, external, amount, timeout=10)
            if status in (200, 201):
                acknowledged[external] = self.sequences_of(body)
                return time.monotonic()
            time.sleep(0.05)
        return None

    def http_repeat(self, node, ledger):
        """Sends a command again through `node`, following one redirect; returns an error or ''."""
        def repeat(external, amount):
            address = node.address
            for _ in range(3):
                status, location, body = self.http_deposit(address, ledger, external, amount)
                if status == 307 and location:
                    address = location.split("/ledgers/")[0]
                    continue
                return "" if status in (200, 201) else f"{status} {body[:300]}"
            return "redirected again and again"
        return repeat

    def start_load(self, holder, ledger, tag, attempted, acknowledged, outcomes, workers=4, timeout=10):
        """HTTP deposits to `holder` from several threads until the returned event is set. Each
        worker stops at its first request without an answer (the holder killed); `outcomes`
        gets (id, status, time answered) of every answered one."""
        stop = threading.Event()
        lock = threading.Lock()

        def load(worker):
            index = 0
            while not stop.is_set():
                external, amount = f"{tag}-w{worker}-{index}", self.amount()
                index += 1
                with lock:
                    attempted[external] = amount
                status, _, body = self.http_deposit(holder.address, ledger, external, amount, timeout=timeout)
                with lock:
                    outcomes.append((external, status, time.monotonic()))
                    if status in (200, 201):
                        acknowledged[external] = self.sequences_of(body)
                if status is None:
                    return

        threads = [threading.Thread(target=load, args=(worker,)) for worker in range(workers)]
        for thread in threads:
            thread.start()
        return stop, threads

    def round_node_stop(self, tag):
        self.ensure_nodes()
        holder, other = self.nodes if self.random.random() < 0.5 else self.nodes[::-1]
        ledger, store = self.node_ledger(holder)
        attempted, acknowledged, outcomes = {}, {}, []
        # Load on the holder; the requests in flight when it stops wait (long timeouts) and are
        # answered by it after SIGCONT, when another node holds the ledger.
        stop, workers = self.start_load(holder, ledger, tag, attempted, acknowledged, outcomes, timeout=120)
        time.sleep(self.random.uniform(0.2, 1.0))
        holder.signal(signal.SIGSTOP)
        stopped = time.monotonic()
        stop.set()
        self.counts["node-stop"]["faults"] += 1
        accepted = self.deposit_until_accepted(other, ledger, tag, attempted, acknowledged, stopped + LEASE_SECONDS + 30)
        if accepted is None:
            holder.signal(signal.SIGCONT)
            raise Failure(f"{other.name} never took {ledger} over from the stopped {holder.name}")
        self.failover_seconds["node-stop"].append(accepted - stopped)
        # The new holder writes; then the old one goes on, its requests in flight with it.
        for index in range(self.random.randint(1, 4)):
            external, amount = f"{tag}-new-{index}", self.amount()
            attempted[external] = amount
            status, _, body = self.http_deposit(other.address, ledger, external, amount)
            if status not in (200, 201):
                raise Failure(f"deposit {external} on the new holder {other.name}: {status} {body[:300]}")
            acknowledged[external] = self.sequences_of(body)
        # Requests sent to the stopped node now wait in its socket's queue: it answers them after
        # SIGCONT with its old epoch, and must not write them.
        queued = []
        for index in range(self.random.randint(2, 5)):
            external, amount = f"{tag}-queued-{index}", self.amount()
            attempted[external] = amount

            def send(external=external, amount=amount):
                status, _, body = self.http_deposit(holder.address, ledger, external, amount, timeout=120)
                outcomes.append((external, status, time.monotonic()))
                if status in (200, 201):
                    acknowledged[external] = self.sequences_of(body)

            queued.append(threading.Thread(target=send))
            queued[-1].start()
        time.sleep(0.3)
        resumed = time.monotonic()
        holder.signal(signal.SIGCONT)
        for worker in workers + queued:
            worker.join()
        after = [(external, status) for external, status, when in outcomes if when >= resumed]
        refused = [external for external, status in after if status not in (200, 201)]
        self.counts["node-stop"]["old_node_writes_refused"] += len(refused)
        # The old holder writes nothing of its own any more.
        probe, amount = f"{tag}-probe", self.amount()
        attempted[probe] = amount
        status, location, body = self.http_deposit(holder.address, ledger, probe, amount)
        if status in (200, 201):
            raise Failure(f"the old holder {holder.name} accepted a write after {other.name} took {ledger} over: {body[:200]}")
        self.note(f"  node-stop: {holder.name} stopped, {other.name} accepted after {accepted - stopped:.2f} s; "
                  f"{len(after)} requests answered by the old holder after SIGCONT, {len(refused)} refused; probe {status}")
        self.check("node-stop", store, self.url, ledger, acknowledged, attempted, self.http_repeat(other, ledger))

    def round_node_kill(self, tag):
        self.ensure_nodes()
        holder, other = self.nodes if self.random.random() < 0.5 else self.nodes[::-1]
        ledger, store = self.node_ledger(holder)
        attempted, acknowledged, outcomes = {}, {}, []
        stop, workers = self.start_load(holder, ledger, tag, attempted, acknowledged, outcomes)
        time.sleep(self.random.uniform(0.3, 2.0))
        holder.signal(signal.SIGKILL)
        killed = time.monotonic()
        holder.process.wait()
        self.counts["node-kill"]["faults"] += 1
        stop.set()
        for worker in workers:
            worker.join()
        accepted = self.deposit_until_accepted(other, ledger, tag, attempted, acknowledged, killed + LEASE_SECONDS + 30)
        if accepted is None:
            raise Failure(f"{other.name} never took {ledger} over from the killed {holder.name}")
        self.failover_seconds["node-kill"].append(accepted - killed)
        self.note(f"  node-kill: {holder.name} killed, {other.name} accepted after {accepted - killed:.2f} s, {len(acknowledged)} acknowledged")
        self.check("node-kill", store, self.url, ledger, acknowledged, attempted, self.http_repeat(other, ledger))

    def ensure_standby(self):
        if self.standby_pair:
            return
        primary = os.path.join(self.workdir, "standby-1")
        standby = os.path.join(self.workdir, "standby-2")
        cluster("start", primary)
        cluster("standby", primary, standby)
        self.standby_pair = [primary, standby]

    def round_standby(self, tag):
        self.ensure_standby()
        primary, standby = self.standby_pair
        primary_url, standby_url = open(os.path.join(primary, "url")).read().strip(), open(os.path.join(standby, "url")).read().strip()
        both = f"postgresql://tally@127.0.0.1:{port_of(primary_url)},127.0.0.1:{port_of(standby_url)}/postgres?target_session_attrs=read-write"
        ledger, store = self.new_ledger(both)
        attempted, acknowledged = {}, {}
        count = self.random.randint(8, 16)
        kill_after = self.random.uniform(0.2, 2.0)
        state = {"promoted_at": None, "first_after": None}

        def writer():
            for index in range(count):
                external, amount = f"{tag}-{index}", self.amount()
                attempted[external] = amount
                numbers, _ = self.deposit(store, external, amount)
                if numbers is not None:
                    acknowledged[external] = numbers
                    if state["promoted_at"] is not None and state["first_after"] is None:
                        state["first_after"] = time.monotonic()

        thread = threading.Thread(target=writer)
        started = time.monotonic()
        thread.start()
        while thread.is_alive() and time.monotonic() - started < kill_after:
            time.sleep(0.005)
        cluster("kill", primary)
        killed = time.monotonic()
        cluster("promote", standby)
        state["promoted_at"] = time.monotonic()
        self.counts["standby"]["faults"] += 1
        thread.join()
        if state["first_after"] is None:
            # The load ended before the promotion: one more deposit measures the failover.
            external, amount = f"{tag}-after", self.amount()
            attempted[external] = amount
            numbers, error = self.deposit(store, external, amount)
            if numbers is None:
                raise Failure(f"no deposit accepted on the promoted standby: {error.strip()[:300]}")
            acknowledged[external] = numbers
            state["first_after"] = time.monotonic()
        self.failover_seconds["standby"].append(state["first_after"] - killed)
        self.note(f"  standby: primary killed, promoted after {state['promoted_at'] - killed:.2f} s, {len(acknowledged)}/{len(attempted)} acknowledged")
        self.check("standby", store, standby_url, ledger, acknowledged, attempted)
        # The promoted standby is the next round's primary, with a new standby where the old primary was.
        cluster("stop", primary)
        cluster("standby", standby, primary)
        self.standby_pair = [standby, primary]

    # -- the run ---------------------------------------------------------------------------

    def run(self, modes, rounds):
        self.url = cluster("start", self.primary_dir)
        try:
            for number in range(1, rounds + 1):
                mode = modes[(number - 1) % len(modes)]
                tag = f"s{self.seed}r{number}"
                self.note(f"round {number} ({mode})")
                self.counts[mode]["rounds"] += 1
                try:
                    getattr(self, "round_" + mode.replace("-", "_"))(tag)
                except Failure as failure:
                    self.counts[mode]["failed_rounds"] += 1
                    self.failures.append(f"round {number} ({mode}, seed {self.seed}): {failure}")
                    print(f"FAILED round {number} ({mode}): {failure}", flush=True)
        finally:
            for node in self.nodes:
                node.stop()
            cluster("stop", self.primary_dir)
            for directory in self.standby_pair or []:
                cluster("stop", directory)

    def figures(self):
        def timeline(values):
            if not values:
                return None
            return {"count": len(values), "min": round(min(values), 2), "median": round(statistics.median(values), 2),
                    "max": round(max(values), 2)}
        used = {mode: counts for mode, counts in self.counts.items() if counts["rounds"]}
        totals = {key: sum(counts[key] for counts in used.values())
                  for key in ("rounds", "faults", "acknowledged", "lost", "duplicates", "forks", "failed_rounds")}
        return {"seed": self.seed, "modes": used, "totals": totals,
                "failover_seconds": {mode: timeline(values) for mode, values in self.failover_seconds.items() if values},
                "failures": self.failures}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tally", default=".build/debug/tally")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--rounds", type=int, default=len(MODES) * 4, help="rounds in all, the modes taken in turn")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--workdir", default=None)
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    parser.add_argument("--verbose", action="store_true")
    arguments = parser.parse_args()
    modes = [mode.strip() for mode in arguments.modes.split(",") if mode.strip()]
    for mode in modes:
        if mode not in MODES:
            parser.error(f"unknown mode {mode!r}: choose from {', '.join(MODES)}")
    seed = arguments.seed if arguments.seed is not None else random.SystemRandom().randrange(1, 2**31)
    print(f"seed {seed}", flush=True)
    workdir = arguments.workdir or tempfile.mkdtemp(prefix="tally-cluster-faults-")
    os.makedirs(workdir, exist_ok=True)
    # cluster.sh runs the server as `postgres` when this runs as root: it must reach the directory.
    os.chmod(workdir, 0o755)
    os.environ["TALLY_READ_MODELS"] = os.path.join(workdir, "read-models")
    run = Run(os.path.abspath(arguments.tally), workdir, seed, arguments.verbose)
    try:
        run.run(modes, arguments.rounds)
    finally:
        figures = run.figures()
        print(json.dumps(figures, indent=2), flush=True)
        if not arguments.keep and not run.failures:
            shutil.rmtree(workdir, ignore_errors=True)
    sys.exit(1 if run.failures else 0)


if __name__ == "__main__":
    main()
