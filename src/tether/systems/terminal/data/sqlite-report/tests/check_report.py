"""Rebuild the database and compare /app/report.csv with the expected report."""

import sqlite3
import subprocess
import sys

subprocess.run(["python3", "/tests/gen_shop.py", "/tmp/shop.db"], check=True)
db = sqlite3.connect("/tmp/shop.db")
rows = db.execute("""
    SELECT c.country, COUNT(DISTINCT c.id), SUM(o.amount_cents)
    FROM orders o JOIN customers c ON c.id = o.customer_id
    WHERE o.status = 'paid' GROUP BY c.country
""").fetchall()
rows.sort(key=lambda r: (-r[2], r[0]))
want = "country,customers,revenue\n" + "".join(
    f"{country},{n},{cents // 100}.{cents % 100:02d}\n" for country, n, cents in rows)
try:
    got = open("/app/report.csv").read()
except OSError as exc:
    print(f"cannot read /app/report.csv: {exc}")
    sys.exit(1)
if got.rstrip("\n") != want.rstrip("\n"):
    print("report.csv differs. expected:\n" + want + "got:\n" + got[:2000])
    sys.exit(1)
