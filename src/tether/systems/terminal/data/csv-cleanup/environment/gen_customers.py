"""Deterministic messy customer CSV: whitespace, case, bad emails, duplicates, blanks."""

import random

rng = random.Random(7)
first = ["Ana", "Ben", "Chloé", "Dev", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jun", "Kai", "Lea"]
last = ["Ng", "Ortiz", "Park", "Quinn", "Rossi", "Sato", "Tan", "Ueda", "Vale", "Wu"]
countries = ["de", "FR", " us", "jp ", "Br", "in"]
rows, emails = ["id,name,email,country"], []
for i in range(1, 301):
    if i % 41 == 0:
        rows.append("   " if i % 2 else "")
        continue
    name = f"{rng.choice(first)} {rng.choice(last)}"
    user = name.lower().replace(" ", ".").replace("é", "e") + str(rng.randint(1, 60))
    kind = rng.random()
    if kind < 0.08:
        email = rng.choice([f"{user}@mail", f"{user}mail.com", "@x.org", f"{user}@.com",
                            f"{user}@mail.", f"{user} @mail.com", f"{user}@@mail.com"])
    elif kind < 0.2 and emails:
        email = rng.choice(emails).upper() if rng.random() < 0.5 else rng.choice(emails)
    else:
        email = f"{user}@{rng.choice(['mail.com', 'post.de', 'example.org'])}"
        emails.append(email)
    pad = " " * rng.randint(0, 2)
    rows.append(f"{i},{pad}{name}{pad},{pad}{email},{rng.choice(countries)}")
print("\n".join(rows))
