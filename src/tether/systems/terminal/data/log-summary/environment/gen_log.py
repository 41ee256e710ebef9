"""Deterministic access log (same seed, same log): valid lines plus malformed ones."""

import random

rng = random.Random(20240312)
ips = [f"198.51.100.{i}" for i in range(1, 40)] + [f"203.0.113.{i}" for i in range(1, 25)]
paths = ["/", "/index.html", "/about", "/search", "/api/items", "/api/items/7", "/login",
         "/static/app.js", "/static/site.css", "/favicon.ico"]
statuses = [200] * 12 + [301, 302, 304, 404, 404, 500]
methods = ["GET"] * 8 + ["POST", "HEAD"]
lines = []
for i in range(1800):
    if i % 97 == 13:
        lines.append(rng.choice(["garbage line", "- - [bad] \"\"", "198.51.100.3 - - [x]"]))
        continue
    path = rng.choice(paths)
    if path == "/search":
        path += f"?q=term{rng.randint(1, 50)}"
    size = "-" if rng.random() < 0.05 else str(rng.randint(0, 20000))
    minute, sec = divmod(i, 60)
    lines.append(
        f'{rng.choice(ips)} - - [12/Mar/2024:10:{minute % 60:02d}:{sec:02d} +0000] '
        f'"{rng.choice(methods)} {path} HTTP/1.1" {rng.choice(statuses)} {size}'
    )
    if i % 400 == 399:
        lines.append("")
print("\n".join(lines))
