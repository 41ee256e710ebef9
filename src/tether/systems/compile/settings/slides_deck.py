"""Slide decks for the `slides` setting: a seeded deck spec and its rendering.

A deck is a company's annual review: a title slide, an agenda, a leadership slide, two or
three metric tables per year for two consecutive years (the same rows and wording on both
years' slides, so each table's twin is a near-topic distractor), and prose slides on
nearby topics (outlook, risks, customers) that mention the same metrics without values.
8 to 20 slides. The spec is plain JSON; rendering (PIL, the pinned fonts, a light blur and
noise, on some decks a loss of resolution) is a pure function of one slide's spec.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from tether.systems.compile.settings.docs_render import FONTS

SIZE = (480, 270)  # 16:9, small enough for tesseract at about 0.2 s a slide

COMPANY_HEADS = ("Aurora", "Beacon", "Crestline", "Driftwood", "Evergreen", "Foxglove",
                 "Highmark", "Ironbridge", "Juniper", "Keystone", "Lumen", "Meridian")
COMPANY_TAILS = ("Analytics", "Robotics", "Foods", "Energy", "Health", "Mobility",
                 "Software", "Materials")
FIRST_NAMES = ("Maria", "Daniel", "Aisha", "Tomas", "Priya", "Kenji", "Laura", "Omar",
               "Grace", "Viktor", "Nadia", "Samuel")
LAST_NAMES = ("Lopez", "Fischer", "Okoye", "Berg", "Sharma", "Tanaka", "Rossi", "Haddad",
              "Kim", "Novak", "Petrov", "Mensah")
DEPARTMENTS = ("Sales", "Marketing", "Engineering", "Finance", "Operations", "Support",
               "Research")
REGIONS = ("North", "South", "East", "West", "Central")
#: (metric, unit shown in the slide title, value range)
METRICS = (
    ("Revenue", "$K", (400, 9000)),
    ("Operating costs", "$K", (300, 7000)),
    ("New customers", "", (40, 2500)),
    ("Support tickets", "", (100, 6000)),
    ("Website visits", "K", (50, 3000)),
)
PROSE = {
    "Market outlook": ("Demand is expected to grow next year", "Competition is rising in {r}",
                       "{m} remains our main focus", "Pricing pressure in {r} and {r2}"),
    "Risks": ("Supply delays could affect {r}", "Currency swings affect {m}",
              "Hiring remains slow in {d}", "New regulation expected next year"),
    "Customer feedback": ("Customers in {r} asked for faster delivery",
                          "Satisfaction improved in {r2}", "{d} response times improved",
                          "More self-service requested"),
    "Next steps": ("Expand the {d} team", "Review {m} targets for {r}",
                   "Open a second office in {r2}", "Report progress next quarter"),
    "Product roadmap": ("Launch the new platform in {r}", "Retire legacy products",
                        "{d} to own the beta programme", "Improve {m} reporting"),
    "Highlights": ("{m} grew in most regions", "A record year for {d}",
                   "{r} was the fastest growing region", "Three new partners signed"),
}
BACKGROUNDS = ((255, 255, 255), (246, 246, 238), (236, 242, 250), (250, 240, 232))
ACCENTS = ((30, 60, 120), (120, 30, 40), (20, 100, 70), (70, 70, 70))


def company_names() -> list[str]:
    return [f"{h} {t}" for h in COMPANY_HEADS for t in COMPANY_TAILS]


def person_names() -> list[str]:
    return [f"{f} {la}" for f in FIRST_NAMES for la in LAST_NAMES]


def grouped(value: int) -> str:
    """How a value is printed on a slide: thousands grouped with commas."""
    return f"{value:,}"


def _pick(rng: np.random.Generator, seq: tuple, n: int) -> list:
    return [seq[int(i)] for i in rng.choice(len(seq), size=n, replace=False)]


def make_deck(rng: np.random.Generator) -> dict[str, Any]:
    """A deck spec: `slides` is a list of {kind, title, lines | rows}; `facts` holds what
    the questions are made from (tables and leaders), host-side only."""
    company = f"{COMPANY_HEADS[rng.integers(len(COMPANY_HEADS))]} "
    company += COMPANY_TAILS[rng.integers(len(COMPANY_TAILS))]
    year = int(rng.integers(2018, 2025))
    years = [year, year + 1]
    regions = _pick(rng, REGIONS, int(rng.integers(3, 6)))
    metrics = _pick(rng, METRICS, int(rng.integers(2, 4)))
    tables = []
    for metric, unit, (lo, hi) in metrics:
        base = {r: int(rng.integers(lo, hi)) for r in regions}
        for y in years:
            # the second year moves each value by -25%..+35%, never to the same value
            values = {r: base[r] if y == year else
                      max(lo // 2, int(base[r] * rng.uniform(0.75, 1.35)) + 1) for r in regions}
            tables.append({"metric": metric, "unit": unit, "year": y, "values": values})
    depts = _pick(rng, DEPARTMENTS, 4)
    names = _pick(rng, tuple(person_names()), 4)
    leaders = dict(zip(depts, names, strict=True))

    slides: list[dict[str, Any]] = [
        {"kind": "title", "title": f"{company}", "lines": [f"Annual review {years[1]}",
                                                           "Board meeting"]},
    ]
    body: list[dict[str, Any]] = []
    for t in tables:
        unit = f" ({t['unit']})" if t["unit"] else ""
        body.append({"kind": "table", "title": f"{t['metric']} by region, {t['year']}{unit}",
                     "rows": [[r, grouped(v)] for r, v in t["values"].items()]})
    body.append({"kind": "leaders", "title": "Leadership team",
                 "lines": [f"{n} - Head of {d}" for d, n in leaders.items()]})
    n_slides = int(rng.integers(8, 21))
    n_prose = max(0, n_slides - 2 - len(body))
    topics = list(PROSE)
    for k in range(n_prose):
        topic = topics[int(rng.integers(len(topics)))]
        fill = {"r": regions[int(rng.integers(len(regions)))],
                "r2": regions[int(rng.integers(len(regions)))],
                "m": metrics[int(rng.integers(len(metrics)))][0].lower(),
                "d": depts[int(rng.integers(len(depts)))]}
        lines = [s.format(**fill) for s in _pick(rng, PROSE[topic], 3)]
        lines = [line[0].upper() + line[1:] for line in lines]
        body.append({"kind": "prose", "title": topic if k < len(topics) else f"{topic} (cont.)",
                     "lines": lines})
    order = rng.permutation(len(body))
    body = [body[int(i)] for i in order]
    agenda = {"kind": "agenda", "title": "Agenda",
              "lines": list(dict.fromkeys(s["title"].split(",")[0].split(" (")[0]
                                          for s in body))[:7]}
    slides += [agenda, *body]
    style = {
        "font": ("sans", "serif", "narrow")[int(rng.integers(3))],
        "background": int(rng.integers(len(BACKGROUNDS))),
        "accent": int(rng.integers(len(ACCENTS))),
        "blur": round(float(rng.uniform(0.2, 0.7)), 2),
        "noise": round(float(rng.uniform(2.0, 9.0)), 1),
        "scale": round(float(rng.choice([1.0, 1.0, 0.8, 0.7])), 2),
        "noise_seed": int(rng.integers(2**31)),
    }
    return {
        "company": company,
        "years": years,
        "regions": regions,
        "tables": tables,
        "leaders": leaders,
        "slides": slides,
        "style": style,
    }


def render_slide(slide: dict[str, Any], style: dict[str, Any], index: int) -> Image.Image:
    """One slide: an accent title bar, then bullets or a two-column table."""
    w, h = SIZE
    bg = BACKGROUNDS[style["background"]]
    accent = ACCENTS[style["accent"]]
    image = Image.new("RGB", SIZE, bg)
    draw = ImageDraw.Draw(image)
    path = FONTS[style["font"]]
    title_font = ImageFont.truetype(path, 22 if slide["kind"] != "title" else 30)
    body_font = ImageFont.truetype(path, 17)
    if slide["kind"] == "title":
        draw.text((30, 90), slide["title"], font=title_font, fill=accent)
        for i, line in enumerate(slide["lines"]):
            draw.text((30, 140 + 28 * i), line, font=body_font, fill=(40, 40, 40))
    else:
        draw.rectangle((0, 0, w, 44), fill=accent)
        draw.text((18, 10), slide["title"], font=title_font, fill=(255, 255, 255))
        if slide["kind"] == "table":
            for i, (label, value) in enumerate(slide["rows"]):
                y = 60 + 36 * i
                draw.text((60, y), label, font=body_font, fill=(30, 30, 30))
                vw = draw.textlength(value, font=body_font)
                draw.text((320 - vw, y), value, font=body_font, fill=(30, 30, 30))
                draw.line((50, y + 28, 340, y + 28), fill=(190, 190, 190), width=1)
        else:
            for i, line in enumerate(slide["lines"]):
                draw.text((30, 62 + 30 * i), f"- {line}", font=body_font, fill=(30, 30, 30))
    draw.text((w - 30, h - 22), str(index + 1), font=body_font, fill=(120, 120, 120))
    if style["scale"] < 1.0:
        small = (int(w * style["scale"]), int(h * style["scale"]))
        bilinear = Image.Resampling.BILINEAR
        image = image.resize(small, bilinear).resize(SIZE, bilinear)
    image = image.filter(ImageFilter.GaussianBlur(style["blur"]))
    noise = np.random.default_rng([style["noise_seed"], index]).normal(
        0.0, style["noise"], (h, w, 1))
    pixels = np.clip(np.asarray(image, dtype=np.float64) + noise, 0, 255).astype(np.uint8)
    return Image.fromarray(pixels, mode="RGB")


def contact_sheet(slides: list[Image.Image], columns: int = 4) -> Image.Image:
    """The whole deck as one image (half-size thumbnails), the item's image for a VLM."""
    tw, th = SIZE[0] // 2, SIZE[1] // 2
    rows = (len(slides) + columns - 1) // columns
    sheet = Image.new("RGB", (columns * tw + (columns + 1) * 4, rows * th + (rows + 1) * 4),
                      (90, 90, 90))
    for i, slide in enumerate(slides):
        r, c = divmod(i, columns)
        sheet.paste(slide.resize((tw, th), Image.Resampling.BILINEAR),
                    (4 + c * (tw + 4), 4 + r * (th + 4)))
    return sheet
