#!/usr/bin/env python3
"""Reads at 1k and 20k events over HTTP (issue 36, item 8); not a test.

Starts `tally serve` (TALLY, default the debug build's) on a free port in a temp data
directory, makes one ledger of SMALL and one of LARGE events (wealth deposits an hour apart,
imported as NDJSON), then times REPEATS requests of each read an app screen makes:
balances, the wealth summary, and a 10-row audit page from the middle of the wallet
account (reached by following cursors). Prints the median and p90 per read and ledger, and
the ratio large/small: a read that costs what it returns has a ratio near 1.

    TALLY=.build/release/tally SMALL=1000 LARGE=20000 scripts/load/read_scaling.py
"""
import datetime, json, os, socket, statistics, subprocess, sys, tempfile, time, urllib.request

TALLY = os.environ.get("TALLY", ".build/debug/tally")
SMALL = int(os.environ.get("SMALL", "1000"))
LARGE = int(os.environ.get("LARGE", "20000"))
REPEATS = int(os.environ.get("REPEATS", "200"))
ADMIN = "read-scaling-admin-key-0123456789"
START = datetime.datetime(2023, 1, 1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(port, method, path, body=None, headers=None):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method, data=body)
    req.add_header("Authorization", f"Bearer {ADMIN}")
    for name, value in (headers or {}).items():
        req.add_header(name, value)
    with urllib.request.urlopen(req, timeout=600) as response:
        return response.status, response.read()


def deposits(events):
    lines = []
    for index in range(events):
        at = (START + datetime.timedelta(hours=index)).strftime("%Y-%m-%dT%H:%M:%SZ")
        lines.append(json.dumps({"effective_at": at, "type": "deposit_received", "version": 2, "entity": "wealth:main",
                                 "idempotency_key": f"d{index}",
                                 "data": {"account": "main", "amount": {"amount": "100.00", "currency": "USD"}, "source": "bank_transfer"}}))
    return ("\n".join(lines) + "\n").encode()


def timed(port, path, repeats):
    samples = []
    for repeat in range(repeats):
        started = time.perf_counter()
        if path.endswith("/deposits"):
            # A write answers with the account as known when it was recorded.
            body = json.dumps({"amount": "5.00"}).encode()
            status, _ = request(port, "POST", path, body, {"Content-Type": "application/json", "Idempotency-Key": f"t{repeat}"})
        else:
            status, _ = request(port, "GET", path)
        samples.append((time.perf_counter() - started) * 1000)
        assert status in (200, 201), path
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.9)]


def main():
    port = free_port()
    data = tempfile.mkdtemp(prefix="tally-read-scaling.")
    env = dict(os.environ, TALLY_ADMIN_KEY=ADMIN)
    server = subprocess.Popen([TALLY, "serve", "--data", data, "--port", str(port), "--rate-limit", "100000", "--log-level", "warning"],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):
            try:
                request(port, "GET", "/health")
                break
            except OSError:
                time.sleep(0.05)
        results = {}
        for events in (SMALL, LARGE):
            ledger = f"l{events}"
            request(port, "POST", "/ledgers", json.dumps({"id": ledger}).encode(), {"Content-Type": "application/json"})
            status, body = request(port, "POST", f"/ledgers/{ledger}/imports/events", deposits(events))
            head = json.loads(request(port, "GET", f"/ledgers/{ledger}")[1])["head"]["sequence"]
            # The audit page from the middle: follow cursors a quarter of the way in.
            cursor, remaining = None, max(1, head // 4)
            while remaining > 0:
                limit = min(1000, remaining)
                query = f"cursor={cursor}" if cursor else "target=Wealth:main:Wallet"
                page = json.loads(request(port, "GET", f"/ledgers/{ledger}/audit?{query}&limit={limit}")[1])
                cursor, remaining = page["next_cursor"], remaining - limit
                assert cursor, "the wallet holds fewer changes than a quarter of the ledger"
            reads = {
                "balances": f"/ledgers/{ledger}/balances",
                "wealth summary": f"/ledgers/{ledger}/wealth/main",
                "audit page of 10": f"/ledgers/{ledger}/audit?cursor={cursor}&limit=10",
                "deposit and answer": f"/ledgers/{ledger}/wealth/main/deposits",
            }
            results[events] = {name: timed(port, path, REPEATS) for name, path in reads.items()}
            print(f"{events} requested, head {head}", file=sys.stderr)
        print(f"{'read':<20} {'median ' + str(SMALL):>14} {'median ' + str(LARGE):>14} {'p90 ' + str(LARGE):>12} {'ratio':>7}")
        for name in results[SMALL]:
            small, large = results[SMALL][name], results[LARGE][name]
            print(f"{name:<20} {small[0]:>12.2f}ms {large[0]:>12.2f}ms {large[1]:>10.2f}ms {large[0] / small[0]:>7.2f}")
    finally:
        server.terminate()
        server.wait()
        subprocess.run(["rm", "-rf", data])


if __name__ == "__main__":
    main()
