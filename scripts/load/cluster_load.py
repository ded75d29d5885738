#!/usr/bin/env python3
"""Aggregate durable commands/s over many ledgers served by `tally serve` nodes (not a test).

Starts a throwaway PostgreSQL cluster (scripts/postgres/cluster.sh), N `tally serve` nodes
sharing it (`--postgres URL --node node-I`), creates the ledgers (ledger I through node
I mod N, which then holds it), and runs CLIENTS concurrent HTTP/1.1 keep-alive clients for
SECONDS, each posting deposits (`POST /ledgers/ID/wealth/main/deposits`, an Idempotency-Key
each) to a random ledger at the node that holds it. It prints the aggregate commands/s and
the latency p50/p99, then stops the nodes and checks that every acknowledged deposit (201)
is in its ledger's log, once: the sum of the ledgers' deposits equals the acknowledged count,
and `tally verify` passes on each ledger.

With --files it runs the same load against one node whose ledgers are files (`--data` only),
the yardstick of the same machine.

    scripts/load/cluster_load.py --tally .build/release/tally --ledgers 100 --nodes 2 --clients 64 --seconds 20
    scripts/load/cluster_load.py --tally .build/release/tally --ledgers 100 --files

Every process runs on this machine's cores, the load generator included: the figure is the
machine's, not one node's.
"""
import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLUSTER = os.path.join(ROOT, "scripts", "postgres", "cluster.sh")
ADMIN_KEY = "cluster-load-admin-" + os.urandom(12).hex()


class Node:
    """One `tally serve` process, on a free loopback port."""

    def __init__(self, tally, data, postgres=None, name=None):
        command = [tally, "serve", "--data", data, "--host", "127.0.0.1", "--port", "0", "--log-level", "warning",
                   "--rate-limit", "10000000", "--open-ledgers", "256"]
        if postgres:
            command += ["--postgres", postgres, "--node", name]
        os.makedirs(data, exist_ok=True)
        self.log = open(data + ".log", "a")
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=self.log, text=True,
                                        env=dict(os.environ, TALLY_ADMIN_KEY=ADMIN_KEY))
        line = ""
        deadline = time.monotonic() + 60
        while "listening on http://" not in line:
            line = self.process.stdout.readline()
            if (not line and self.process.poll() is not None) or time.monotonic() > deadline:
                sys.exit(f"cluster_load: a node did not start; see {data}.log")
        self.port = int(line.strip().split("listening on ")[1].split()[0].rsplit(":", 1)[1])
        threading.Thread(target=self.process.stdout.read, daemon=True).start()

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


class Connection:
    """A keep-alive HTTP/1.1 connection; one request at a time."""

    def __init__(self, port):
        self.port = port
        self.reader = None
        self.writer = None

    async def send(self, method, path, body=None, idempotency_key=None):
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        payload = json.dumps(body).encode() if body is not None else b""
        head = (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {ADMIN_KEY}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n")
        if idempotency_key:
            head += f"Idempotency-Key: {idempotency_key}\r\n"
        self.writer.write(head.encode() + b"\r\n" + payload)
        await self.writer.drain()
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionError("the server closed the connection")
        status = int(status_line.split()[1])
        length, chunked, close = 0, False, False
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode().partition(":")
            name, value = name.strip().lower(), value.strip()
            if name == "content-length":
                length = int(value)
            elif name == "transfer-encoding" and "chunked" in value.lower():
                chunked = True
            elif name == "connection" and value.lower() == "close":
                close = True
        if chunked:
            data = b""
            while True:
                size = int((await self.reader.readline()).strip(), 16)
                if size == 0:
                    await self.reader.readline()
                    break
                data += await self.reader.readexactly(size)
                await self.reader.readline()
        else:
            data = await self.reader.readexactly(length) if length else b""
        if close:
            self.writer.close()
            self.writer = None
        return status, data


async def create_ledgers(nodes, count):
    ledgers = []
    for index in range(count):
        node = index % len(nodes)
        ledger = f"household-{index}"
        connection = Connection(nodes[node].port)
        status, data = await connection.send("POST", "/ledgers", {"id": ledger})
        if status != 201:
            sys.exit(f"cluster_load: creating {ledger}: {status} {data[:300]!r}")
        connection.writer.close()
        ledgers.append((node, ledger))
    return ledgers


async def load(nodes, ledgers, clients, seconds, seed):
    deadline = time.monotonic() + seconds
    latencies, statuses, acknowledged = [], {}, {}
    failures = [0]

    async def client(number):
        generator = random.Random(seed * 1000 + number)
        connections = [Connection(node.port) for node in nodes]
        sequence = 0
        while time.monotonic() < deadline:
            sequence += 1
            node, ledger = ledgers[generator.randrange(len(ledgers))]
            begun = time.monotonic()
            try:
                status, _ = await connections[node].send(
                    "POST", f"/ledgers/{ledger}/wealth/main/deposits", {"amount": "1.00"}, f"load-{number}-{sequence}")
            except (OSError, ConnectionError, asyncio.IncompleteReadError, ValueError):
                failures[0] += 1
                connections[node] = Connection(nodes[node].port)
                continue
            latencies.append(time.monotonic() - begun)
            statuses[status] = statuses.get(status, 0) + 1
            if status == 201:
                acknowledged[ledger] = acknowledged.get(ledger, 0) + 1

    started = time.monotonic()
    await asyncio.gather(*(client(number) for number in range(clients)))
    elapsed = time.monotonic() - started
    return latencies, statuses, acknowledged, failures[0], elapsed


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))] if ordered else 0.0


def check(tally, stores, acknowledged):
    """Every acknowledged deposit is in its ledger, once, and every ledger verifies."""
    lost = duplicated = unverified = 0
    for ledger, arguments in stores.items():
        verified = subprocess.run([tally, "verify"] + arguments, capture_output=True, text=True)
        if verified.returncode != 0:
            unverified += 1
            print(f"  {ledger}: verify failed: {verified.stderr.strip()[:300]}")
        balances = subprocess.run([tally, "balances", "--format", "csv"] + arguments, capture_output=True, text=True)
        deposited = 0
        for line in balances.stdout.splitlines():
            parts = line.split(",")
            if parts[0] == "External:Deposits":
                units, _, cents = parts[2].lstrip("-").partition(".")
                if cents.strip("0"):
                    sys.exit(f"cluster_load: {ledger} holds deposits other than whole units: {parts[2]}")
                deposited = int(units)   # the load deposits 1.00 each: whole units count them
        expected = acknowledged.get(ledger, 0)
        if deposited < expected:
            lost += expected - deposited
        elif deposited > expected:
            duplicated += deposited - expected   # a deposit whose 201 the load never read
    return lost, duplicated, unverified


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tally", default=os.path.join(ROOT, ".build", "release", "tally"))
    parser.add_argument("--ledgers", type=int, default=100)
    parser.add_argument("--nodes", type=int, default=2)
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--files", action="store_true", help="one node whose ledgers are files, no PostgreSQL")
    parser.add_argument("--keep", action="store_true")
    arguments = parser.parse_args()
    seed = arguments.seed if arguments.seed is not None else random.randrange(1 << 31)
    print(f"cluster_load: seed {seed}")
    work = tempfile.mkdtemp(prefix="tally-cluster-load-")
    os.chmod(work, 0o755)
    cluster = os.path.join(work, "postgres")
    nodes = []
    try:
        if arguments.files:
            nodes = [Node(arguments.tally, os.path.join(work, "files"))]
            url = None
        else:
            url = subprocess.run(["bash", CLUSTER, "start", cluster], capture_output=True, text=True, check=True).stdout.split()[-1]
            nodes = [Node(arguments.tally, os.path.join(work, f"node-{index}"), url, f"node-{index}") for index in range(arguments.nodes)]
        ledgers = asyncio.run(create_ledgers(nodes, arguments.ledgers))
        latencies, statuses, acknowledged, failures, elapsed = asyncio.run(
            load(nodes, ledgers, arguments.clients, arguments.seconds, seed))
        where = "files, 1 node" if arguments.files else f"PostgreSQL, {len(nodes)} nodes"
        total = sum(acknowledged.values())
        print(f"{where}: {arguments.ledgers} ledgers, {arguments.clients} clients, {elapsed:.1f} s: "
              f"{total} deposits acknowledged = {total / elapsed:,.0f} commands/s; "
              f"latency p50 {percentile(latencies, 0.5) * 1000:.1f} ms, p99 {percentile(latencies, 0.99) * 1000:.1f} ms")
        print(f"  by status: {dict(sorted(statuses.items()))}; transport failures: {failures}")
        for node in nodes:
            node.stop()
        if arguments.files:
            stores = {ledger: ["--store", os.path.join(work, "files", "ledgers", ledger)] for _, ledger in ledgers}
        else:
            stores = {ledger: ["--store", f"{url}?ledger={ledger}", "--read-models", os.path.join(work, "check")]
                      for _, ledger in ledgers}
        lost, duplicated, unverified = check(arguments.tally, stores, acknowledged)
        print(f"  check: {lost} acknowledged deposits lost, {duplicated} unacknowledged ones present, "
              f"{unverified} ledgers failing verify")
        if lost or unverified:
            sys.exit(1)
    finally:
        for node in nodes:
            if node.process.poll() is None:
                node.process.kill()
        if not arguments.files:
            subprocess.run(["bash", CLUSTER, "stop", cluster], capture_output=True)
        if not arguments.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
