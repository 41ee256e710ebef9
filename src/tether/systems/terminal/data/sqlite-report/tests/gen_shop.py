"""Deterministic shop database (argv: path); the verifier rebuilds the same one."""

import random
import sqlite3
import sys

rng = random.Random(11)
db = sqlite3.connect(sys.argv[1])
db.executescript("""
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT NOT NULL);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers,
                     amount_cents INTEGER NOT NULL, status TEXT NOT NULL);
""")
countries = ["DE", "FR", "US", "JP", "BR", "NL", "SE"]
for cid in range(1, 121):
    db.execute("INSERT INTO customers VALUES (?, ?, ?)",
               (cid, f"customer-{cid}", rng.choice(countries)))
db.execute("INSERT INTO customers VALUES (121, 'customer-121', 'IS')")  # never paid
for oid in range(1, 901):
    cid = 121 if oid % 150 == 0 else rng.randint(1, 120)
    status = "refunded" if cid == 121 else rng.choice(["paid"] * 6 + ["pending", "refunded"])
    db.execute("INSERT INTO orders VALUES (?, ?, ?, ?)",
               (oid, cid, rng.randint(199, 250000), status))
db.commit()
db.close()
