"""The reference cleaning, shared by the verifier (fed the regenerated input)."""

import csv
import io


def valid_email(e):
    if " " in e or e.count("@") != 1:
        return False
    user, domain = e.split("@")
    return bool(user) and "." in domain[1:-1]


def clean(text):
    lines = text.splitlines()
    report = {"input_rows": 0, "blank_lines": 0, "invalid_email": 0, "duplicates": 0}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(lines[0].strip().split(","))
    seen = set()
    for line in lines[1:]:
        report["input_rows"] += 1
        if not line.strip():
            report["blank_lines"] += 1
            continue
        rid, name, email, country = (f.strip() for f in next(csv.reader([line])))
        email, country = email.lower(), country.upper()
        if not valid_email(email):
            report["invalid_email"] += 1
            continue
        if email in seen:
            report["duplicates"] += 1
            continue
        seen.add(email)
        writer.writerow([rid, name, email, country])
    report["output_rows"] = len(seen)
    return out.getvalue(), report
