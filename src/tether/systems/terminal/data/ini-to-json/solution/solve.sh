#!/bin/bash
cat > /tmp/convert.py <<'PY'
import json
import re


def convert(value):
    if re.fullmatch(r"-?\d+", value):
        return int(value)
    if value.lower() in ("true", "false"):
        return value.lower() == "true"
    return value


sections, current = {}, None
with open("/app/settings.ini") as fh:
    for raw in fh:
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {})
            continue
        key, _, value = line.partition("=")
        current[key.strip()] = convert(value.strip())
defaults = sections.pop("DEFAULT", {})
for body in sections.values():
    for key, value in defaults.items():
        body.setdefault(key, value)
with open("/app/settings.json", "w") as fh:
    json.dump(sections, fh, indent=2)
PY
python3 /tmp/convert.py
