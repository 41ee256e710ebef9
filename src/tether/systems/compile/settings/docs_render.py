"""Invoices and receipts for the `docs` setting: a seeded document spec and its rendering.

A spec is plain JSON (vendor, dates, numbered lines, money fields with distractors such as
subtotal, tax, amount paid and change). The renderer draws it with PIL in the pinned fonts
(Debian's fonts-dejavu-core and fonts-liberation), then blurs, rotates and adds noise so OCR
makes real mistakes. Rendering is a pure function of the spec.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from tether.systems.compile.settings.noisy_png import noisy_png_bytes

FONTS = {
    "sans": "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "serif": "/usr/share/fonts/truetype/liberation/LiberationSerif-Regular.ttf",
    "mono": "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
    "narrow": "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
}

VENDOR_HEADS = (
    "Northwind",
    "Bluebird",
    "Cedar Point",
    "Harbor",
    "Summit",
    "Maple Leaf",
    "Granite",
    "Silverline",
    "Redwood",
    "Lakeside",
    "Pioneer",
    "Orchard",
    "Copperfield",
    "Brightwater",
)
VENDOR_TAILS = (
    "Office Supply",
    "Hardware",
    "Traders",
    "Bakery",
    "Electronics",
    "Print Shop",
    "Garden Center",
    "Coffee House",
    "Logistics",
    "Stationers",
)
SUFFIXES = ("Co.", "Ltd.", "Inc.", "LLC")
STREETS = ("Oak St", "Market Ave", "Station Rd", "Mill Lane", "River Dr", "King St", "Elm Way")
CITIES = ("Springfield", "Riverton", "Fairview", "Milton", "Ashford", "Clayton", "Dover")
CUSTOMERS = ("J. Alvarez", "M. Chen", "P. Okafor", "S. Novak", "R. Patel", "L. Moreau")
PRODUCTS = (
    "Paper A4 box",
    "Stapler",
    "Ink cartridge",
    "USB cable",
    "Desk lamp",
    "Notebook",
    "Coffee beans 1kg",
    "Croissant",
    "Hammer",
    "Screws 100pc",
    "Paint 2L",
    "Garden hose",
    "Printer toner",
    "Envelope pack",
    "Marker set",
    "Extension cord",
    "Flower pot",
    "Bagel",
    "Batteries AA",
    "Label tape",
)
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
# Several wordings per field, as on real documents; "Items Total" is a distractor for
# any rule that looks for the word "total".
TOTAL_LABELS = ("TOTAL", "Grand Total", "Amount Due", "Total Due", "Balance Due", "To Pay")
TAX_LABELS = ("Tax", "VAT", "GST", "Sales Tax")
SUBTOTAL_LABELS = ("Subtotal", "Net Amount", "Items Total", "Sub-total")


def vendor_names() -> list[str]:
    """The setting's inventory: every vendor a document can name (without suffix)."""
    return [f"{h} {t}" for h in VENDOR_HEADS for t in VENDOR_TAILS]


def money(value: float, symbol: str) -> str:
    return f"{symbol}{value:,.2f}"


def _date(rng: np.random.Generator) -> tuple[int, int, int]:
    return int(rng.integers(2019, 2026)), int(rng.integers(1, 13)), int(rng.integers(1, 29))


def format_date(ymd: tuple[int, int, int], style: int) -> str:
    y, m, d = ymd
    if style == 0:
        return f"{y:04d}-{m:02d}-{d:02d}"
    if style == 1:
        return f"{m:02d}/{d:02d}/{y:04d}"
    return f"{d} {MONTHS[m - 1]} {y}"


def make_spec(rng: np.random.Generator) -> dict[str, Any]:
    """A random invoice or receipt with consistent arithmetic."""
    kind = "invoice" if rng.random() < 0.5 else "receipt"
    vendor = f"{VENDOR_HEADS[rng.integers(len(VENDOR_HEADS))]} "
    vendor += VENDOR_TAILS[rng.integers(len(VENDOR_TAILS))]
    suffix = SUFFIXES[rng.integers(len(SUFFIXES))]
    symbol = "$" if rng.random() < 0.7 else ""
    style = int(rng.integers(3))
    issued = _date(rng)
    due = (issued[0], issued[1] % 12 + 1, min(issued[2] + int(rng.integers(0, 3)), 28))
    picks = rng.choice(len(PRODUCTS), size=int(rng.integers(2, 6)), replace=False)
    lines: list[dict[str, Any]] = []
    for k in picks:
        qty = int(rng.integers(1, 13))
        unit = round(float(rng.uniform(0.8, 180.0)), 2)
        lines.append(
            {"name": PRODUCTS[int(k)], "qty": qty, "unit": unit, "amount": round(qty * unit, 2)}
        )
    subtotal = round(sum(line["amount"] for line in lines), 2)
    rate = float(rng.choice([5.0, 6.5, 8.0, 10.0, 20.0]))
    tax = round(subtotal * rate / 100, 2)
    shipping = (
        round(float(rng.uniform(4, 30)), 2) if kind == "invoice" and rng.random() < 0.5 else 0.0
    )
    total = round(subtotal + tax + shipping, 2)
    paid = round(total + float(rng.choice([0.0, 0.5, 5.0, 10.0, 20.0, 50.0])), 2)
    return {
        "kind": kind,
        "vendor": vendor,
        "suffix": suffix,
        "street": f"{int(rng.integers(1, 999))} {STREETS[rng.integers(len(STREETS))]}",
        "city": CITIES[rng.integers(len(CITIES))],
        "phone": f"({int(rng.integers(200, 999))}) {int(rng.integers(200, 999))}-"
        f"{int(rng.integers(1000, 9999))}",
        "number": f"{'INV' if kind == 'invoice' else 'R'}-{int(rng.integers(10000, 99999))}",
        "date": format_date(issued, style),
        "due": format_date(due, style),
        "customer": CUSTOMERS[rng.integers(len(CUSTOMERS))],
        "symbol": symbol,
        "lines": lines,
        "subtotal": subtotal,
        "tax_rate": rate,
        "tax": tax,
        "shipping": shipping,
        "total": total,
        "total_label": TOTAL_LABELS[rng.integers(len(TOTAL_LABELS))],
        "tax_label": TAX_LABELS[rng.integers(len(TAX_LABELS))],
        "subtotal_label": SUBTOTAL_LABELS[rng.integers(len(SUBTOTAL_LABELS))],
        "paid": paid,
        "change": round(paid - total, 2),
        "font": ("sans", "serif", "mono", "narrow")[rng.integers(4)],
        "font_px": int(rng.integers(13, 16)),
        "blur": round(float(rng.uniform(0.3, 0.9)), 2),
        "angle": round(float(rng.uniform(-2.0, 2.0)), 2),
        "noise": round(float(rng.uniform(4.0, 14.0)), 1),
        "noise_seed": int(rng.integers(2**31)),
    }


def text_lines(spec: dict[str, Any]) -> list[tuple[str, str]]:
    """The document as (left, right) text pairs, top to bottom; right may be empty."""
    s = spec["symbol"]
    rows: list[tuple[str, str]] = [
        (f"{spec['vendor']} {spec['suffix']}", ""),
        (f"{spec['street']}, {spec['city']}", ""),
        (f"Tel: {spec['phone']}", ""),
        ("", ""),
    ]
    if spec["kind"] == "invoice":
        rows += [
            ("INVOICE", ""),
            ("Invoice No:", spec["number"]),
            ("Invoice Date:", spec["date"]),
            ("Due Date:", spec["due"]),
            ("Bill To:", spec["customer"]),
            ("", ""),
            ("Description  Qty x Unit", "Amount"),
        ]
    else:
        rows += [
            ("Receipt #", spec["number"]),
            ("Date:", spec["date"]),
            ("", ""),
        ]
    for line in spec["lines"]:
        rows.append(
            (f"{line['name']}  {line['qty']} x {line['unit']:.2f}", money(line["amount"], s))
        )
    rows += [
        ("", ""),
        (spec["subtotal_label"], money(spec["subtotal"], s)),
        (f"{spec['tax_label']} ({spec['tax_rate']:g}%)", money(spec["tax"], s)),
    ]
    if spec["shipping"]:
        rows.append(("Shipping", money(spec["shipping"], s)))
    rows.append((spec["total_label"], money(spec["total"], s)))
    if spec["kind"] == "receipt":
        rows += [("Cash", money(spec["paid"], s)), ("Change", money(spec["change"], s))]
    else:
        rows += [("Amount Paid", money(spec["paid"] if spec["paid"] <= spec["total"] else 0.0, s))]
    rows.append(("Thank you for your business!", ""))
    return rows


def render_png(spec: dict[str, Any]) -> bytes:
    """The page as the PNG a student is shown (a module-level function: the helper
    process draws it, settings/page_worker.py), encoded for its noise
    (settings/noisy_png.py)."""
    return noisy_png_bytes(render(spec))


def render(spec: dict[str, Any]) -> Image.Image:
    """Draw, blur, rotate and add noise; a grayscale page a few hundred pixels wide."""
    font = ImageFont.truetype(FONTS[spec["font"]], spec["font_px"])
    rows = text_lines(spec)
    line_h = int(spec["font_px"] * 1.5)
    width = 440
    height = 24 + line_h * len(rows)
    page = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(page)
    for i, (left, right) in enumerate(rows):
        y = 12 + i * line_h
        if left:
            draw.text((14, y), left, font=font, fill=0)
        if right:
            w = draw.textlength(right, font=font)
            draw.text((width - 14 - w, y), right, font=font, fill=0)
    page = page.filter(ImageFilter.GaussianBlur(spec["blur"]))
    page = page.rotate(spec["angle"], resample=Image.Resampling.BICUBIC, expand=True, fillcolor=255)
    return add_noise(page, spec["noise"], spec["noise_seed"])


def add_noise(page: Image.Image, sigma: float, seed: int) -> Image.Image:
    """A grayscale page plus seeded Gaussian noise (standard deviation `sigma`), clipped
    to 0-255: clip(page + noise), added and clipped in the noise's own array (no two more
    page-sized arrays: a helper draws a page per call of a compile, page_worker.py)."""
    noise = np.random.default_rng(seed).normal(0.0, sigma, page.size[::-1])
    noise += np.asarray(page)
    np.clip(noise, 0, 255, out=noise)
    return Image.fromarray(noise.astype(np.uint8), mode="L")
