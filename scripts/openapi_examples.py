#!/usr/bin/env python3
"""Writes real examples into Schemas/openapi.yaml: a household's story run against a live
`tally serve`, each call's request body and answer kept as the operation's examples.

Every command and read of the story is made over HTTP with the admin key; its request body
(JSON, or a file sent as it is: a journal CSV, an NDJSON file of events) and its answer
(the operation's first 2xx: JSON, or the text of an NDJSON export, its first lines) become
the `example:` of the operation's request and response media types that have none yet. Examples already in the
document are left as they are (a hand-written one stays), unless --replace names the
operation. The document is edited line by line in its own layout (a media type at its
indentation, `schema:` below it), so nothing else in the file moves.
`scripts/check_openapi_examples.py` (run by `make test`) validates every example against its
schema, so an answer that drifts from the document fails there.

Usage: TALLY_URL=http://127.0.0.1:PORT TALLY_ADMIN_KEY=KEY scripts/openapi_examples.py [--replace ID ...]
       (standard library and PyYAML; the server's data directory should be new)
"""

import argparse
import hashlib
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import yaml

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
DOCUMENT = os.path.join(ROOT, "Schemas", "openapi.yaml")
L = "/ledgers/smiths"


class Raw:
    """A body sent as it is, a file upload (a journal CSV, an NDJSON file), with its media type."""

    def __init__(self, media, text):
        self.media, self.text = media, text


JOURNAL = """date,account,counter_account,amount,currency,payee,category,external_id
2026-01-21,Expenses:Books,Assets:Bank:Current,18.99,GBP,Bookshop,Books,stmt-0121-1
2026-01-22,Expenses:Travel,Assets:Bank:Current,42.50,GBP,Rail company,Travel,stmt-0122-1
"""

EVENTS = """{"effective_at":"2026-01-23T00:00:00Z","type":"fx_rate_set","version":1,"entity":"fx:EUR/GBP","idempotency_key":"rates-2026-01-23-eur","data":{"base":"EUR","quote":"GBP","rate":"0.8571"}}
{"effective_at":"2026-01-23T00:00:00Z","type":"fx_rate_set","version":1,"entity":"fx:CHF/GBP","idempotency_key":"rates-2026-01-23-chf","data":{"base":"CHF","quote":"GBP","rate":"0.9102"}}
"""

# The story: (operationId, method, path, JSON body or None). Commands need their resources
# first, so the order is the household's.
STORY = [
    ("getHealth", "GET", "/health", None),
    ("createLedger", "POST", "/ledgers", {"id": "smiths", "name": "The Smiths", "base_currency": "GBP", "time_zone": "Europe/London"}),
    ("createKey", "POST", f"{L}/keys", {"scopes": ["read", "write"]}),
    ("listKeys", "GET", f"{L}/keys", None),
    ("getLedger", "GET", f"{L}", None),
    ("depositWealth", "POST", f"{L}/wealth/main/deposits", {"amount": "250.00", "external_id": "bank-tx-881", "effective_at": "2026-01-02"}),
    ("setWealthSplitRule", "POST", f"{L}/wealth/main/split-rule", {"spend_weight": 70, "invest_weight": 30, "effective_at": "2026-01-02"}),
    ("setWealthRoundUps", "POST", f"{L}/wealth/main/round-ups", {"enabled": True, "effective_at": "2026-01-02"}),
    ("purchaseWealth", "POST", f"{L}/wealth/main/purchases", {"amount": "3.40", "merchant": "Corner Cafe", "effective_at": "2026-01-03"}),
    ("withdrawWealth", "POST", f"{L}/wealth/main/withdrawals", {"amount": "20.00", "destination": "Current account", "effective_at": "2026-01-04"}),
    ("amendWealthEntry", "POST", f"{L}/wealth/main/entries/{{purchase}}/amendments", {"amount": "3.60", "merchant": "Corner Cafe"}),
    ("reverseWealthEntry", "POST", f"{L}/wealth/main/entries/{{withdrawal}}/reversals", {}),
    ("pauseWealthAutomation", "POST", f"{L}/wealth/main/automation/pause", {"effective_at": "2026-01-05"}),
    ("resumeWealthAutomation", "POST", f"{L}/wealth/main/automation/resume", {"effective_at": "2026-01-06"}),
    ("freezeWealthCard", "POST", f"{L}/wealth/main/card/freeze", {"effective_at": "2026-01-07"}),
    ("unfreezeWealthCard", "POST", f"{L}/wealth/main/card/unfreeze", {"effective_at": "2026-01-08"}),
    ("getWealthSummary", "GET", f"{L}/wealth/main?as_of=2026-01-31", None),
    ("setReferenceBalance", "POST", f"{L}/reference-balance", {"amount": "2000.00"}),
    ("createPot", "POST", f"{L}/pots", {"id": "holiday", "name": "Holiday", "target": "1500.00"}),
    ("addToPot", "POST", f"{L}/pots/holiday/additions", {"amount": "300.00"}),
    ("withdrawFromPot", "POST", f"{L}/pots/holiday/withdrawals", {"amount": "50.00"}),
    ("listPots", "GET", f"{L}/pots", None),
    ("createPot", "POST", f"{L}/pots", {"id": "car", "name": "Car", "target": "4000.00"}),
    ("deletePot", "POST", f"{L}/pots/car/deletion", {}),
    ("setBudget", "POST", f"{L}/budgets", {"category": "groceries", "month": "2026-01", "maximum": "400.00"}),
    ("recordTransaction", "POST", f"{L}/transactions", {"payee": "Green Grocer", "category": "groceries", "amount": "-42.10", "date": "2026-01-05", "id": "tx-1"}),
    ("recordTransaction", "POST", f"{L}/transactions", {"payee": "Employer", "category": "general", "amount": "3000.00", "date": "2026-01-15", "id": "pay-1"}),
    ("amendTransaction", "POST", f"{L}/transactions/tx-1/amendments", {"amount": "-45.10"}),
    ("recategoriseTransaction", "POST", f"{L}/transactions/tx-1/category", {"category": "dining_out"}),
    ("getTransaction", "GET", f"{L}/transactions/tx-1", None),
    ("recordTransaction", "POST", f"{L}/transactions", {"payee": "Typo", "category": "general", "amount": "-1.00", "date": "2026-01-16", "id": "tx-typo"}),
    ("deleteTransaction", "POST", f"{L}/transactions/tx-typo/deletion", {}),
    ("recordTransaction", "POST", f"{L}/transactions", {"payee": "Typo", "category": "general", "amount": "-2.00", "date": "2026-01-16", "id": "tx-typo-2"}),
    ("deleteTransactionResource", "DELETE", f"{L}/transactions/tx-typo-2", {}),
    ("setBudget", "POST", f"{L}/budgets", {"category": "lifestyle", "month": "2026-01", "maximum": "50.00"}),
    ("deleteBudget", "POST", f"{L}/budgets/deletion", {"category": "lifestyle", "month": "2026-01"}),
    ("getBudgetOverview", "GET", f"{L}/budgets/overview?month=2026-01", None),
    ("connectBank", "POST", f"{L}/banks", {"id": "monzo", "name": "Monzo", "consent_expires": "2026-12-31"}),
    ("renewBankConsent", "POST", f"{L}/banks/monzo/consent", {"expires_on": "2027-03-31"}),
    ("importBankTransaction", "POST", f"{L}/banks/monzo/transactions", {"external_id": "monzo-77", "payee": "Corner Shop", "category": "groceries", "amount": "-12.50", "date": "2026-01-20"}),
    ("connectBank", "POST", f"{L}/banks", {"id": "oldbank", "name": "Old Bank"}),
    ("disconnectBank", "POST", f"{L}/banks/oldbank/disconnection", {}),
    ("defineRecurring", "POST", f"{L}/recurring", {"id": "rent", "payee": "Landlord", "category": "bills", "amount": "-900.00", "day_of_month": 1, "start_month": "2026-01"}),
    ("generateRecurring", "POST", f"{L}/recurring-generations", {"month": "2026-01"}),
    ("defineRecurring", "POST", f"{L}/recurring", {"id": "gym", "payee": "Gym", "category": "lifestyle", "amount": "-30.00", "day_of_month": 5, "start_month": "2026-01"}),
    ("removeRecurring", "POST", f"{L}/recurring/gym/removal", {}),
    ("openEnvelopeAccount", "POST", f"{L}/envelope-accounts", {"account": "Assets:Bank", "currency": "GBP", "opening_balance": "1000.00", "effective_at": "2026-01-01"}),
    ("openEnvelopeAccount", "POST", f"{L}/envelope-accounts", {"account": "Assets:Savings", "currency": "GBP", "opening_balance": "500.00", "effective_at": "2026-01-01"}),
    ("createEnvelope", "POST", f"{L}/envelopes", {"id": "food", "name": "Food", "interval": "monthly", "budgeted": "400.00", "start_date": "2026-01-01"}),
    ("changeEnvelopeBudget", "POST", f"{L}/envelopes/food/budget", {"budgeted": "450.00", "effective_at": "2026-01-01"}),
    ("fundEnvelope", "POST", f"{L}/envelopes/food/fundings", {"amount": "450.00", "effective_at": "2026-01-01"}),
    ("setEnvelopeRollover", "POST", f"{L}/envelopes/food/rollover", {"policy": "carry_forward", "effective_at": "2026-01-01"}),
    ("recordEnvelopeTransaction", "POST", f"{L}/envelope-transactions", {"id": "et-1", "account": "Assets:Bank", "amount": "-40.00", "envelope": "food", "payee": "Market", "effective_at": "2026-01-05"}),
    ("amendEnvelopeTransaction", "POST", f"{L}/envelope-transactions/et-1/amendments", {"amount": "-42.00"}),
    ("recordEnvelopeTransaction", "POST", f"{L}/envelope-transactions", {"id": "et-2", "account": "Assets:Bank", "amount": "-5.00", "envelope": "food", "payee": "Mistake", "effective_at": "2026-01-06"}),
    ("reverseEnvelopeTransaction", "POST", f"{L}/envelope-transactions/et-2/reversals", {}),
    ("transferBetweenEnvelopeAccounts", "POST", f"{L}/envelope-transfers", {"id": "tr-1", "from": "Assets:Bank", "to": "Assets:Savings", "amount": "100.00", "effective_at": "2026-01-07"}),
    ("listEnvelopes", "GET", f"{L}/envelopes?as_of=2026-01-31", None),
    ("getEnvelopeAccountsTotal", "GET", f"{L}/envelope-accounts/total?as_of=2026-01-31", None),
    ("createEnvelope", "POST", f"{L}/envelopes", {"id": "gifts", "name": "Gifts", "interval": "one_time", "budgeted": "100.00", "start_date": "2026-01-01"}),
    ("deleteEnvelope", "POST", f"{L}/envelopes/gifts/deletion", {"effective_at": "2026-01-10"}),
    ("createEnvelope", "POST", f"{L}/envelopes", {"id": "fun", "name": "Fun", "interval": "monthly", "budgeted": "60.00", "start_date": "2026-01-01"}),
    ("deleteEnvelopeResource", "DELETE", f"{L}/envelopes/fun", {"effective_at": "2026-01-10"}),
    ("openEnvelopeAccount", "POST", f"{L}/envelope-accounts", {"account": "Assets:Old", "currency": "GBP", "effective_at": "2026-01-01"}),
    ("closeEnvelopeAccount", "POST", f"{L}/envelope-accounts/Assets:Old/closure", {"effective_at": "2026-01-02"}),
    ("startChallenge", "POST", f"{L}/challenges", {"id": "year", "template": "52_week", "unit": "1.00", "name": "52 weeks"}),
    ("completeChallengeStep", "POST", f"{L}/challenges/year/steps", {"step": 1}),
    ("declareCommodity", "POST", f"{L}/commodities", {"code": "VWRL", "scale": 4}),
    ("addAsset", "POST", f"{L}/assets", {"id": "flat", "name": "Flat", "category": "property", "type": "real_estate", "currency": "GBP", "country": "GB", "effective_at": "2026-01-01"}),
    ("recordValuation", "POST", f"{L}/assets/flat/valuations", {"value": "250000.00", "effective_at": "2026-01-10"}),
    ("recordValuation", "POST", f"{L}/assets/flat/valuations", {"value": "255000.00", "source": "override", "effective_at": "2026-01-11"}),
    ("clearValuationOverride", "POST", f"{L}/assets/flat/valuation-override/clearance", {"effective_at": "2026-01-12"}),
    ("tagAsset", "POST", f"{L}/assets/flat/tags", {"country": "GB", "sector": "real_estate"}),
    ("renameAsset", "POST", f"{L}/assets/flat/name", {"name": "Home"}),
    ("addAsset", "POST", f"{L}/assets", {"id": "isa", "name": "ISA", "category": "investments", "type": "stock_etf", "currency": "USD", "symbol": "VWRL", "effective_at": "2026-01-01"}),
    ("setAssetPosition", "POST", f"{L}/assets/isa/position", {"quantity": "12.5", "symbol": "VWRL", "cost_basis": "1200.00", "effective_at": "2026-01-02"}),
    ("quotePrice", "POST", f"{L}/prices", {"symbol": "VWRL", "price": "104.1234", "currency": "USD", "effective_at": "2026-01-15"}),
    ("setFXRate", "POST", f"{L}/fx-rates", {"base": "USD", "quote": "GBP", "rate": "0.79", "effective_at": "2026-01-01"}),
    ("setReminder", "POST", f"{L}/reminders", {"id": "revalue", "asset": "flat", "due_date": "2026-07-01", "note": "Ask the agent"}),
    ("completeReminder", "POST", f"{L}/reminders/revalue/completion", {}),
    ("addLiability", "POST", f"{L}/liabilities", {"id": "mortgage", "name": "Mortgage", "category": "mortgage", "currency": "GBP", "linked_asset": "flat", "effective_at": "2026-01-01"}),
    ("recordLiabilityValuation", "POST", f"{L}/liabilities/mortgage/valuations", {"value": "180000.00", "effective_at": "2026-01-10"}),
    ("addAsset", "POST", f"{L}/assets", {"id": "bike", "name": "Bike", "category": "other", "type": "custom", "currency": "GBP", "effective_at": "2026-01-01"}),
    ("removeAsset", "POST", f"{L}/assets/bike/removal", {"effective_at": "2026-01-20"}),
    ("addAsset", "POST", f"{L}/assets", {"id": "car", "name": "Car", "category": "other", "type": "custom", "currency": "GBP", "effective_at": "2026-01-01"}),
    ("deleteAssetResource", "DELETE", f"{L}/assets/car", {"effective_at": "2026-01-20"}),
    ("addLiability", "POST", f"{L}/liabilities", {"id": "card", "name": "Credit card", "category": "credit_card", "currency": "GBP", "effective_at": "2026-01-01"}),
    ("removeLiability", "POST", f"{L}/liabilities/card/removal", {"effective_at": "2026-01-20"}),
    ("addLiability", "POST", f"{L}/liabilities", {"id": "loan", "name": "Loan", "category": "loan", "currency": "GBP", "effective_at": "2026-01-01"}),
    ("deleteLiabilityResource", "DELETE", f"{L}/liabilities/loan", {"effective_at": "2026-01-20"}),
    ("createPot", "POST", f"{L}/pots", {"id": "gift", "name": "Gift", "target": "100.00"}),
    ("deletePotResource", "DELETE", f"{L}/pots/gift", {}),
    ("defineRecurring", "POST", f"{L}/recurring", {"id": "paper", "payee": "Newsagent", "category": "lifestyle", "amount": "-12.00", "day_of_month": 3, "start_month": "2026-02"}),
    ("deleteRecurringResource", "DELETE", f"{L}/recurring/paper", {}),
    ("setDueSoonDays", "POST", f"{L}/settings/due-soon-days", {"days": 5}),
    ("setPageSize", "POST", f"{L}/settings/page-size", {"rows": 25}),
    ("setPriceStaleness", "POST", f"{L}/settings/price-staleness", {"seconds": 86400}),
    ("getBalances", "GET", f"{L}/balances?as_of=2026-01-31", None),
    ("getNetWorth", "GET", f"{L}/net-worth?as_of=2026-01-31", None),
    ("listAudit", "GET", f"{L}/audit?target=pot:holiday&limit=2", None),
    ("listLog", "GET", f"{L}/log?limit=2", None),
    ("listNotifications", "GET", f"{L}/notifications?as_of=2026-01-31", None),
    ("getChart", "GET", f"{L}/charts/networth?from=2026-01-01&to=2026-03-31", None),
    ("createWebhook", "POST", f"{L}/webhooks", {"url": "http://127.0.0.1:9/hooks/tally", "kinds": ["budget_overspent"]}),
    ("listWebhooks", "GET", f"{L}/webhooks", None),
    # Groceries over their 400.00 for January: a budget_overspent notification, so a delivery.
    ("recordTransaction", "POST", f"{L}/transactions", {"payee": "Cash and Carry", "category": "groceries", "amount": "-412.80", "date": "2026-01-25", "id": "tx-big"}),
    ("listWebhookDeliveries", "GET", f"{L}/webhooks/{{webhook}}/deliveries", None),
    ("redeliverWebhookDelivery", "POST", f"{L}/webhooks/{{webhook}}/deliveries/{{delivery}}/redeliver", {}),
    ("getRecurringStatus", "GET", f"{L}/recurring-status?month=2026-01&as_of=2026-01-31", None),
    ("getXRay", "GET", f"{L}/xray?as_of=2026-01-31", None),
    ("setBaseCurrency", "POST", f"{L}/base-currency", {"currency": "GBP", "effective_at": "2026-01-01"}),
    ("importJournal", "POST", f"{L}/imports/journal", Raw("text/csv", JOURNAL)),
    ("importEvents", "POST", f"{L}/imports/events", Raw("application/x-ndjson", EVENTS)),
    ("exportLedger", "GET", f"{L}/export", None),
    ("setRoundUpIncrement", "POST", f"{L}/settings/round-up-increment", {"currency": "JPY", "increment": "100"}),
    ("getChart", "GET", f"{L}/charts/networth?from=2026-01-01&to=2026-03-31", None, "image/svg+xml"),
    ("getDashboard", "GET", f"{L}/dashboard?as_of=2026-01-31", None),
    ("streamEvents", "GET", f"{L}/events?after=104", None),
    ("getMetrics", "GET", "/metrics", None),
]
# A text answer's example shows its first lines (the whole log, page or metrics would fill
# pages); an SVG chart is shown whole.
TEXT_LINES = {"exportLedger": 3, "getDashboard": 12, "getMetrics": 8}
# Server-Sent Events never end: the example is the stream's opening and its first events.
STREAM_EVENTS = 2


def call(base, key, method, path, body, accept=None, again=False):
    """(status, answer): the answer parsed when it is JSON, else its text. `again` sends the
    command once more under a new idempotency key (a repeat that may change nothing)."""
    if isinstance(body, Raw):
        data, media = body.text.encode(), body.media
    else:
        data, media = (None if body is None else json.dumps(body).encode()), "application/json"
    request = urllib.request.Request(base + urllib.parse.quote(path, safe="/?=&:"), data=data, method=method)
    request.add_header("Authorization", f"Bearer {key}")
    if data is not None:
        request.add_header("Content-Type", media)
        signed = body.text if isinstance(body, Raw) else json.dumps(body, sort_keys=True)
        digest = hashlib.sha256(f"{method} {path} {signed}".encode()).hexdigest()[:32]
        request.add_header("Idempotency-Key", f"example-{digest}" + ("-again" if again else ""))
    if accept:
        request.add_header("Accept", accept)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            if response.headers.get_content_type() == "text/event-stream":
                return response.status, first_events(response)
            text = response.read()
            if response.headers.get_content_type() == "application/json":
                return response.status, json.loads(text or b"null")
            return response.status, text.decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(errors="replace")


def first_events(response):
    """The opening of an event stream up to the end of its STREAM_EVENTS-th event."""
    lines, events = [], 0
    while events < STREAM_EVENTS:
        line = response.readline().decode()
        if not line:
            break
        lines.append(line)
        if line.startswith("data:"):
            events += 1
    return "".join(lines)


def first_delivery(base, key, path):
    """The deliveries answer once it lists one: the dispatcher queues a delivery for each new
    notification shortly after the command that caused it."""
    deadline = time.monotonic() + 30
    while True:
        status, answer = call(base, key, "GET", path, None)
        if not 200 <= status < 300:
            raise SystemExit(f"openapi-examples: GET {path} answered {status}: {answer}")
        if answer["deliveries"]:
            return status, answer
        if time.monotonic() > deadline:
            raise SystemExit(f"openapi-examples: no delivery queued within 30 s: {answer}")
        time.sleep(0.1)  # polling the server for the dispatcher's queue


def entry_seq(result, event_type):
    """The sequence number of the command's event of `event_type` (a wealth entry's id)."""
    for event in result.get("events", []):
        if event.get("type") == event_type:
            return str(event["seq"])
    raise SystemExit(f"openapi-examples: no {event_type} in {result}")


def run_story(base, key):
    """{operationId: {"request": body, STATUS: answer}}: the first call of each operation, and
    for a command the answer to sending it again under a new key when that changed nothing
    (its 200)."""
    examples, names, commands = {}, {}, []
    for operation, method, path, body, *accept in STORY:
        path = path.format(**names)
        if operation == "listWebhookDeliveries":
            status, answer = first_delivery(base, key, path)
        else:
            status, answer = call(base, key, method, path, body, *accept)
        if not 200 <= status < 300:
            raise SystemExit(f"openapi-examples: {operation} {method} {path} answered {status}: {answer}")
        if operation == "purchaseWealth":
            names["purchase"] = entry_seq(answer, "purchase_made")
        elif operation == "withdrawWealth":
            names["withdrawal"] = entry_seq(answer, "withdrawal_made")
        elif operation == "createWebhook":
            names["webhook"] = answer["id"]
        elif operation == "listWebhookDeliveries":
            names["delivery"] = answer["deliveries"][0]["id"]
        if isinstance(answer, str) and operation in TEXT_LINES:
            answer = "".join(answer.splitlines(keepends=True)[:TEXT_LINES[operation]])
        kind = "text" if isinstance(answer, str) else "json"
        if operation not in examples:
            examples[operation] = {"request": {"text" if isinstance(body, Raw) else "json": body}}
            if method in ("POST", "DELETE") and body is not None and not isinstance(body, Raw):
                commands.append((operation, method, path, body))
        examples[operation].setdefault(str(status), {}).setdefault(kind, answer)
    # Repeats after the whole story, so that no first answer above depends on them.
    for operation, method, path, body in commands:
        status, answer = call(base, key, method, path, body, again=True)
        if status == 200:
            examples[operation].setdefault("200", {}).setdefault("json", answer)
    return examples


def flow(value):
    """A value as one line of YAML flow (JSON, which YAML reads as it is)."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def insert(lines, examples, replace):
    """The document's lines with an `example:` under each media type of the operations in
    `examples` that has none (or, for `replace`, instead of the one it has): JSON as one line
    of flow, a file or a text answer as a block scalar."""
    out, index = [], 0
    path = method = operation = None
    section = None  # "request" or the response status
    written = set()
    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        indent = len(line) - len(line.lstrip(" "))
        if indent == 0 and stripped:
            path = method = operation = section = None  # past `paths:` (components)
        elif indent == 2 and stripped.startswith("/") and stripped.endswith(":"):
            path, method, operation = stripped[:-1], None, None
        elif path and indent == 4 and stripped[:-1] in ("get", "post", "put", "delete", "patch") and stripped.endswith(":"):
            method, operation, section = stripped[:-1], None, None
        elif method and indent == 6 and stripped.startswith("operationId: "):
            operation = stripped[len("operationId: "):]
        elif method and indent == 6 and stripped == "requestBody:":
            section = "request"
        elif method and indent == 8 and stripped.endswith(":") and stripped[:-1].strip("'\"").isdigit():
            section = stripped[:-1].strip("'\"")
        out.append(line)
        index += 1
        # The media type of an operation with an example to write (JSON, or the file a Raw
        # body sends, or the text a non-JSON answer is): its schema line next.
        media_indent = 10 if section == "request" else 12
        if (operation in examples and section and indent == media_indent and stripped.endswith(":")
                and (section == "request" or section.startswith("2"))):
            media = stripped[:-1]
            kinds = examples[operation].get(section, {})
            value = kinds.get("json") if media == "application/json" else kinds.get("text")
            if isinstance(value, Raw):
                value = value.text if value.media == media else None
            if value is None or media == "application/octet-stream":
                continue
            key = (operation, section, media)
            # The following lines of this media type (deeper than it).
            block = []
            while index < len(lines) and (len(lines[index]) - len(lines[index].lstrip(" "))) > indent:
                block.append(lines[index])
                index += 1
            has_example = any(l.strip().startswith(("example:", "examples:")) for l in block)
            if has_example and operation in replace:
                block = without_example(block)
                has_example = False
            if not has_example and key not in written:
                if isinstance(value, str):
                    block.append(" " * (indent + 2) + "example: |")
                    block += [(" " * (indent + 4) + text) if text else "" for text in value.splitlines()]
                else:
                    block.append(" " * (indent + 2) + "example: " + flow(value))
                written.add(key)
            out.extend(block)
    return out


def without_example(block):
    """A media type's lines without its `example:` (one line of flow, or a block scalar and
    the deeper lines that are its text)."""
    kept, index = [], 0
    while index < len(block):
        line = block[index]
        index += 1
        if not line.strip().startswith("example:"):
            kept.append(line)
            continue
        if line.rstrip().endswith("|"):
            depth = len(line) - len(line.lstrip(" "))
            while index < len(block) and (not block[index].strip() or len(block[index]) - len(block[index].lstrip(" ")) > depth):
                index += 1
    return kept


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replace", nargs="*", default=[], help="operations whose examples are written anew")
    arguments = parser.parse_args()
    base, key = os.environ["TALLY_URL"], os.environ["TALLY_ADMIN_KEY"]
    examples = run_story(base, key)
    with open(DOCUMENT, encoding="utf-8") as file:
        lines = file.read().split("\n")
    updated = insert(lines, examples, set(arguments.replace))
    with open(DOCUMENT, "w", encoding="utf-8") as file:
        file.write("\n".join(updated))
    print(f"openapi-examples: {len(updated) - len(lines)} examples written from {len(examples)} operations", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
