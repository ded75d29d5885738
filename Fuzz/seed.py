#!/usr/bin/env python3
"""Seeds Fuzz/Corpus/ from real files: a `tally demo` store, a journal import, deposits.

Usage: Fuzz/seed.py [--tally .build/debug/tally]   (run Fuzz/build.sh EventDecoder first)

- EventJSONImport:  lines of `tally log --json`, up to three per event type.
- EventDecoder:     binary payloads from the log (written by the EventDecoder binary itself,
                    which knows the catalog's type order; see TALLY_FUZZ_SEED_STORE).
- FrameReader:      single frames (mode byte 0) and segment bodies cut at frame boundaries
                    (mode byte 1), read straight from the segment files.
- JournalCSVImport: small journal CSVs: quotes, CRLF, a byte order mark, rows without ids.
"""
import argparse
import json
import os
import shutil
import struct
import subprocess
import tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
corpus = os.path.join(root, "Fuzz", "Corpus")


def target_dir(name):
    path = os.path.join(corpus, name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tally", default=os.path.join(root, ".build", "debug", "tally"))
    arguments = parser.parse_args()
    work = tempfile.mkdtemp(prefix="tally-seed-")
    store = os.path.join(work, "demo")
    tally = lambda *a, **k: subprocess.run([arguments.tally, *a, "--store", store], check=True, capture_output=True, text=True, **k)
    subprocess.run([arguments.tally, "demo", "--store", store, "--replace"], check=True, capture_output=True)
    csv = os.path.join(work, "journal.csv")
    with open(csv, "w") as file:
        file.write("date,account,counter_account,amount,currency,payee,category,external_id\n")
        for row in range(40):
            file.write(f"2025-{1 + row % 12:02d}-{1 + row % 28:02d},Expenses:Food,Assets:Checking,{row}.{row % 100:02d},USD,"
                       f"\"Payee \"\"{row}\"\", Inc.\",Food,{'' if row % 4 == 3 else f'ext-{row}'}\n")
    tally("import", csv, "--progress", "none")
    for index in range(3):
        tally("wealth", "deposit", f"{100 + index}.00", "--external-id", f"seed-{index}")

    # JSON events: up to three per type.
    json_dir = target_dir("EventJSONImport")
    per_type = {}
    for line in tally("log", "--json").stdout.splitlines():
        kind = json.loads(line)["type"]
        count = per_type.get(kind, 0)
        if count < 3:
            per_type[kind] = count + 1
            with open(os.path.join(json_dir, f"{kind}-{count}.json"), "w") as file:
                file.write(line)

    # Frames and segment bodies.
    frame_dir = target_dir("FrameReader")
    log = os.path.join(store, "log")
    frames = 0
    for name in sorted(os.listdir(log)):
        if not name.endswith(".tlog"):
            continue
        data = open(os.path.join(log, name), "rb").read()
        offset, boundaries = 64, []
        while offset + 88 <= len(data):
            stored = struct.unpack_from("<I", data, offset + 24)[0]
            end = offset + 88 + stored
            if frames < 60 and end - offset <= 8192:
                with open(os.path.join(frame_dir, f"frame-{frames}"), "wb") as file:
                    file.write(b"\x00" + data[offset:end])
                frames += 1
            boundaries.append(end)
            offset = end
        for index, end in enumerate(boundaries[:12]):
            with open(os.path.join(frame_dir, f"segment-{name[:-5].lstrip('0')}-{index}"), "wb") as file:
                file.write(b"\x01" + data[64:end])

    # Binary payloads, through the EventDecoder binary.
    decoder = os.path.join(root, ".build-fuzz", "bin", "EventDecoder")
    if os.access(decoder, os.X_OK):
        decoder_dir = target_dir("EventDecoder")
        environment = dict(os.environ, TALLY_FUZZ_SEED_STORE=store, TALLY_FUZZ_SEED_OUT=decoder_dir)
        subprocess.run([decoder], env=environment, check=True)
    else:
        print("EventDecoder not built: run Fuzz/build.sh EventDecoder, then this again")

    # Journal CSVs.
    csv_dir = target_dir("JournalCSVImport")
    lines = open(csv).read().splitlines()
    samples = {
        "journal-40-rows.csv": "\n".join(lines) + "\n",
        "journal-crlf.csv": "\r\n".join(lines[:6]) + "\r\n",
        "journal-bom.csv": "\ufeff" + "\n".join(lines[:4]),
        "journal-header-only.csv": lines[0] + "\n",
        "journal-multiline.csv": lines[0] + "\n2025-02-03,Liabilities:Card,Income:Salary,-1.50,EUR,\"two\nlines\",,x\n\n"
                                 "2025-02-04,Assets:Broker,Equity:Opening,10,VEA,,,\n",
    }
    for name, text in samples.items():
        with open(os.path.join(csv_dir, name), "w", newline="") as file:
            file.write(text)
    shutil.rmtree(work, ignore_errors=True)
    for name in sorted(os.listdir(corpus)):
        print(f"{name}: {len(os.listdir(os.path.join(corpus, name)))} seeds")


if __name__ == "__main__":
    main()
