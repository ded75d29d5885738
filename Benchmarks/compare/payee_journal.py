#!/usr/bin/env python3
# A journal CSV for `tally import` with 200 distinct payees and 7 categories (seeded, 42):
# the shape of the outside figure of issue 31 (sealed payee text), without building the
# release generator. Usage: payee_journal.py ROWS OUT.csv [--no-ids] (--no-ids: the external_id
# column left empty, every row keyed by its content, as a bank export without ids is)
import random, sys, datetime
n = int(sys.argv[1]); out = sys.argv[2]; rnd = random.Random(42)
no_ids = sys.argv[3:] == ["--no-ids"]
kinds = [("Expenses:Groceries","Groceries"),("Expenses:Dining","Dining Out"),("Expenses:Transport","Transportation"),
         ("Expenses:Bills","Bills"),("Expenses:Fun","Entertainment"),("Expenses:Shopping","Shopping"),("Expenses:Care","Personal Care")]
payees = [f"{w} {s} #{i}" for i,(w,s) in enumerate((rnd.choice(["Fresh","Corner","City","Joe's","Pizza","Noodle","Cafe","Fuel","Power &","Water","Fiber","Mobile","Cinema","Book","Online"]),
          rnd.choice(["Market","Grocer","Diner","Palace","Bar","Luna","Stop","Light","Works","Internet","Co","City","Nook","Shop"])) for _ in range(200))]
start = datetime.date(2006,1,1)
with open(out,"w") as f:
    f.write("date,account,counter_account,amount,currency,payee,category,external_id\n")
    f.write(f"{start},Assets:Checking,Equity:OpeningBalances,5000.00,USD,Opening balance,Opening,\n")
    for i in range(n-1):
        d = start + datetime.timedelta(days=i*7300//n)
        acct, cat = rnd.choice(kinds)
        cents = rnd.randint(100, 30000)
        ext = f"bank-42-{i}" if rnd.random() < 0.8 else ""
        if no_ids: ext = ""
        f.write(f"{d},{acct},Assets:Checking,{cents//100}.{cents%100:02d},USD,{rnd.choice(payees)},{cat},{ext}\n")
