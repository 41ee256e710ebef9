#!/bin/bash
cat > /app/wordfreq.py <<'PY'
import re
import sys
from collections import Counter


def main(argv):
    n, path = 10, None
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "-n":
            value = args.pop(0) if args else ""
            if not value.isdigit() or int(value) < 1:
                print("error: N must be a positive integer", file=sys.stderr)
                return 2
            n = int(value)
        else:
            path = a
    if path is None:
        text = sys.stdin.read()
    else:
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except OSError:
            print(f"error: cannot read {path}", file=sys.stderr)
            return 1
    counts = Counter(re.findall(r"[a-z]+", text.lower()))
    for word, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]:
        print(f"{count} {word}")
    return 0


sys.exit(main(sys.argv[1:]))
PY
