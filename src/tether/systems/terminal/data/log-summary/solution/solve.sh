#!/bin/bash
cat > /tmp/summarize.py <<'PY'
import json
import re
from collections import Counter

LINE = re.compile(r'^(\S+) \S+ \S+ \[[^\]]+\] "([A-Z]+) (\S+) [^"]+" (\d{3}) (\d+|-)$')
valid, malformed = [], 0
with open("/app/logs/access.log") as fh:
    for line in fh.read().splitlines():
        if not line.strip():
            continue
        m = LINE.match(line)
        if m:
            valid.append(m.groups())
        else:
            malformed += 1
paths = Counter(p.split("?", 1)[0] for _, _, p, _, _ in valid)
top = sorted(paths.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
summary = {
    "total_requests": len(valid),
    "malformed_lines": malformed,
    "unique_ips": len({v[0] for v in valid}),
    "status_counts": dict(Counter(v[3] for v in valid)),
    "bytes_total": sum(0 if v[4] == "-" else int(v[4]) for v in valid),
    "top_paths": [[p, c] for p, c in top],
}
with open("/app/summary.json", "w") as fh:
    json.dump(summary, fh, indent=2)
PY
python3 /tmp/summarize.py
