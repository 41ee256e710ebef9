"""Recompute the summary from a fresh copy of the log and compare exactly."""

import json
import re
import subprocess
import sys
from collections import Counter

LINE = re.compile(r'^(\S+) \S+ \S+ \[[^\]]+\] "([A-Z]+) (\S+) [^"]+" (\d{3}) (\d+|-)$')
log = subprocess.run(["python3", "/tests/gen_log.py"], capture_output=True, text=True,
                     check=True).stdout
valid, malformed = [], 0
for line in log.splitlines():
    if not line.strip():
        continue
    m = LINE.match(line)
    if m:
        valid.append(m.groups())
    else:
        malformed += 1
paths = Counter(p.split("?", 1)[0] for _, _, p, _, _ in valid)
expected = {
    "total_requests": len(valid),
    "malformed_lines": malformed,
    "unique_ips": len({ip for ip, *_ in valid}),
    "status_counts": dict(Counter(s for *_, s, _ in valid)),
    "bytes_total": sum(0 if b == "-" else int(b) for *_, b in valid),
    "top_paths": [[p, c] for p, c in sorted(paths.items(), key=lambda kv: (-kv[1], kv[0]))[:3]],
}
try:
    with open("/app/summary.json") as fh:
        got = json.load(fh)
except (OSError, ValueError) as exc:
    print(f"cannot read /app/summary.json: {exc}")
    sys.exit(1)
bad = [k for k in expected if got.get(k) != expected[k]]
extra = sorted(set(got) - set(expected)) if isinstance(got, dict) else ["not an object"]
for k in bad:
    print(f"{k}: got {got.get(k)!r}")
if extra:
    print(f"unexpected keys: {extra}")
sys.exit(1 if bad or extra else 0)
