"""`shapes`, a BLINK-like perception setting on the `easy-vqa` package's images.

Each item is one easy-vqa image and one of its questions (shape, colour, yes/no). The
image is degraded deterministically (distractor strokes behind the shape, a colour cast,
noise, blur, sometimes a patch of background over part of the shape) so that
measurements no longer settle every question. The strokes (on 90% of the items) are
thin lines in palette colours other than the shape's: a viewer sees one shape and some
scribbles, while the whole-image measurements (colour shares, fill of the bounding box,
aspect) mix the two, so a rule over the signals alone stays well below the ceiling
(hooks-only 0.77 without them, 0.515 with them, on 200 test items of seed 0).
Resource: `signals`, numpy measurements of the degraded image (colour-mask fractions per
named colour, area, fill of the bounding box, aspect, second-moment eccentricity). A rule
over the signals may emit a verdict or defer. Metric: accuracy.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from tether.systems.compile.settings.base import (
    SPLITS,
    Item,
    answers_of,
    item_id,
    new_item,
    new_observation,
    png_bytes,
    resolve_sizes,
    rng_for,
)
from tether.systems.compile.settings.metrics import accuracy

NAME = "shapes"

# easy-vqa draws in these exact colours (measured on its clean images).
PALETTE: dict[str, tuple[int, int, int]] = {
    "red": (255, 0, 0),
    "green": (0, 255, 0),
    "blue": (0, 0, 255),
    "yellow": (255, 255, 0),
    "teal": (0, 128, 128),
    "brown": (165, 42, 42),
    "gray": (128, 128, 128),
    "black": (0, 0, 0),
}
SHAPES = ("circle", "rectangle", "triangle")
#: share of items with distractor strokes (2-5 thin lines in other palette colours)
STROKE_SHARE = 0.9


@cache
def _data_dir() -> Path:
    import easy_vqa  # the data ships inside the package: data/{train,test}/...

    return Path(easy_vqa.__file__).parent / "data"


@cache
def _questions() -> dict[str, list[tuple[str, str, int]]]:
    out = {}
    for part in ("test", "train"):
        rows = json.loads((_data_dir() / part / "questions.json").read_text())
        out[part] = [(str(q), str(a), int(i)) for q, a, i in rows]
    return out


@cache
def _pool() -> tuple[tuple[str, int], ...]:
    """Every (part, image id) that has questions, in a fixed order."""
    seen: dict[tuple[str, int], None] = {}
    for part, rows in _questions().items():
        for _, _, image in rows:
            seen[(part, image)] = None
    return tuple(seen)


@cache
def _by_image() -> dict[tuple[str, int], list[tuple[str, str]]]:
    out: dict[tuple[str, int], list[tuple[str, str]]] = {}
    for part, rows in _questions().items():
        for q, a, image in rows:
            out.setdefault((part, image), []).append((q, a))
    return out


def _shape_colour(pixels: np.ndarray) -> str:
    """The palette colour of the clean image's shape (its most common exact colour)."""
    flat = pixels.reshape(-1, 3)
    return max(PALETTE, key=lambda name: int((flat == PALETTE[name]).all(axis=1).sum()))


def add_strokes(image: Image.Image, strokes: list[list[int]]) -> Image.Image:
    """Distractor lines drawn behind the shape: each stroke `[x0, y0, x1, y1, width,
    pick]` takes the `pick`-th palette colour other than the shape's and the background's
    nearest; the shape's own pixels (and its anti-aliased edge) are put back on top."""
    clean = np.asarray(image.convert("RGB"))
    background = np.median(np.stack([clean[0, 0], clean[0, -1], clean[-1, 0],
                                     clean[-1, -1]]), axis=0)
    shape_mask = np.abs(clean.astype(np.int64) - background).sum(axis=2) > 30
    own = _shape_colour(clean)
    others = [n for n in PALETTE if n != own]
    out = image.convert("RGB")
    draw = ImageDraw.Draw(out)
    for x0, y0, x1, y1, width, pick in strokes:
        draw.line([(x0, y0), (x1, y1)], fill=PALETTE[others[pick % len(others)]], width=width)
    pixels = np.asarray(out).copy()
    pixels[shape_mask] = clean[shape_mask]
    return Image.fromarray(pixels, mode="RGB")


def degrade(image: Image.Image, params: Mapping[str, Any]) -> Image.Image:
    """The item's degradation, a pure function of its parameters."""
    if params.get("strokes"):
        image = add_strokes(image, params["strokes"])
    pixels = np.asarray(image.convert("RGB"), dtype=np.float64)
    if params["patch"]:
        x0, y0, w, h = params["patch"]
        pixels[y0 : y0 + h, x0 : x0 + w] = pixels[0, 0]
    gain = np.asarray(params["gain"])
    offset = np.asarray(params["offset"])
    pixels = pixels * gain + offset
    rng = np.random.default_rng(params["noise_seed"])
    pixels = pixels + rng.normal(0.0, params["noise"], pixels.shape)
    out = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8), mode="RGB")
    return out.filter(ImageFilter.GaussianBlur(params["blur"]))


def measure(image: Image.Image) -> dict[str, Any]:
    """Signals: foreground by distance from the corner colour, then colour-mask fractions
    and shape moments of that foreground."""
    px = np.asarray(image.convert("RGB"), dtype=np.float64)
    corners = np.stack([px[0, 0], px[0, -1], px[-1, 0], px[-1, -1]])
    background = np.median(corners, axis=0)
    distance = np.abs(px - background).sum(axis=2)
    mask = distance > 90
    area = int(mask.sum())
    signals: dict[str, Any] = {
        "background_rgb": [round(float(v), 1) for v in background],
        "area_fraction": round(area / mask.size, 4),
    }
    if area < 5:
        signals.update(
            {
                "colour_fractions": {},
                "fill_ratio": 0.0,
                "aspect": 0.0,
                "eccentricity": 0.0,
                "mean_rgb": [],
                "touches_border": False,
            }
        )
        return signals
    fg = px[mask]
    names = list(PALETTE)
    ref = np.asarray([PALETTE[n] for n in names], dtype=np.float64)
    nearest = np.argmin(((fg[:, None, :] - ref[None]) ** 2).sum(axis=2), axis=1)
    counts = np.bincount(nearest, minlength=len(names)) / len(fg)
    ys, xs = np.nonzero(mask)
    h = ys.max() - ys.min() + 1
    w = xs.max() - xs.min() + 1
    cov = np.cov(np.stack([xs, ys]).astype(np.float64))
    eig = np.sort(np.linalg.eigvalsh(cov))
    signals.update(
        {
            "colour_fractions": {n: round(float(c), 3) for n, c in zip(names, counts, strict=True)},
            "mean_rgb": [round(float(v), 1) for v in fg.mean(axis=0)],
            "fill_ratio": round(area / float(h * w), 3),
            "aspect": round(float(w) / float(h), 3),
            "eccentricity": round(float(np.sqrt(1 - eig[0] / eig[1])) if eig[1] > 0 else 0.0, 3),
            "touches_border": bool(
                ys.min() == 0
                or xs.min() == 0
                or ys.max() == px.shape[0] - 1
                or xs.max() == px.shape[1] - 1
            ),
        }
    )
    return signals


class ShapesSetting:
    """easy-vqa images, degraded; signals by numpy."""

    name = NAME
    offered_resources: tuple[str, ...] = ("signals",)

    def make_item(self, seed: int, split: str, index: int) -> Item:
        pool = _pool()
        # A seeded permutation of all images, dealt round-robin to the splits, so the
        # splits never share an image and item k does not depend on the split sizes.
        order = rng_for(NAME, seed, "order").permutation(len(pool))
        part, image = pool[int(order[index * len(SPLITS) + SPLITS.index(split)])]
        rng = rng_for(NAME, seed, split, index)
        questions = _by_image()[(part, image)]
        # easy-vqa is three quarters yes/no, most of them "no"; asking the open colour and
        # shape questions more often keeps the base rate of a guess low.
        open_q = [qa for qa in questions if qa[1] not in ("yes", "no")]
        if open_q and rng.random() < 0.6:
            questions = open_q
        question, answer = questions[int(rng.integers(len(questions)))]
        patch = None
        if rng.random() < 0.4:
            w, h = int(rng.integers(10, 24)), int(rng.integers(10, 24))
            patch = [int(rng.integers(0, 64 - w)), int(rng.integers(0, 64 - h)), w, h]
        strokes = []
        if rng.random() < STROKE_SHARE:
            for _ in range(int(rng.integers(2, 6))):
                x0, y0, x1, y1 = (int(v) for v in rng.integers(0, 64, 4))
                strokes.append([x0, y0, x1, y1, int(rng.integers(2, 4)),
                                int(rng.integers(0, len(PALETTE) - 1))])
        params = {
            "strokes": strokes,
            "gain": [round(float(g), 3) for g in rng.uniform(0.45, 1.3, 3)],
            "offset": [round(float(o), 1) for o in rng.uniform(-50, 50, 3)],
            "noise": round(float(rng.uniform(15, 45)), 1),
            "blur": round(float(rng.uniform(0.3, 1.4)), 2),
            "patch": patch,
            "noise_seed": int(rng.integers(2**31)),
        }
        return new_item(
            item_id(NAME, seed, split, index),
            question,
            (answer,),
            split,
            **{"part": part, "image": image, "degrade": params},
        )

    def splits(self, seed: int, sizes: Mapping[str, int] | None = None) -> dict[str, list[Item]]:
        n = resolve_sizes(sizes)
        if sum(n.values()) > len(_pool()):
            raise ValueError(f"shapes has {len(_pool())} images, asked for {sum(n.values())}")
        return {s: [self.make_item(seed, s, i) for i in range(n[s])] for s in SPLITS}

    def _image(self, item: Item) -> Image.Image:
        p = item.data
        clean = Image.open(_data_dir() / p["part"] / "images" / f"{p['image']}.png")
        return degrade(clean, p["degrade"])

    def image(self, item: Item) -> bytes:
        return png_bytes(self._image(item))

    def observation(self, item: Item, resources: Mapping[str, Any]) -> dict[str, Any]:
        obs = new_observation(NAME, item, resources, self.offered_resources)
        if resources.get("signals"):
            obs["signals"] = measure(self._image(item))
        return obs

    def score(self, answer: str, item: Item) -> float:
        return accuracy(answer, answers_of(item))

    def gold(self, item: Item) -> list[str]:
        return list(answers_of(item))

    def inventory(self) -> list[str]:
        return [*SHAPES, *PALETTE]

    def public_vocabulary(self) -> list[str]:
        """The answer options the task names: easy-vqa's answers.txt."""
        text = (_data_dir() / "answers.txt").read_text()
        return [a.strip() for a in text.splitlines() if a.strip()]

    def hooks_only_resources(self) -> dict[str, Any]:
        return {"signals": True}

    def hooks_only_answer(self, obs: Mapping[str, Any]) -> str:
        return signal_rule(str(obs["question"]), obs.get("signals", {}))


def rule_shape(signals: Mapping[str, Any]) -> str:
    fill = float(signals.get("fill_ratio", 0.0))
    if fill > 0.88:
        return "rectangle"
    return "circle" if fill > 0.64 else "triangle"


def rule_colour(signals: Mapping[str, Any]) -> str:
    fractions: dict[str, float] = signals.get("colour_fractions") or {}
    return max(fractions, key=lambda c: fractions[c]) if fractions else ""


def signal_rule(question: str, signals: Mapping[str, Any]) -> str:
    """The best simple verdict rule: the dominant colour mask and a fill-ratio shape
    classifier, negation handled. This is the `shapes` hooks-only baseline."""
    words = question.lower().replace("?", "").split()
    colour, shape = rule_colour(signals), rule_shape(signals)
    if (
        words[:2] == ["what", "shape"]
        or "shape" in words
        and words[0] == "what"
        and "color" not in words
    ):
        return shape
    if "color" in words:
        return colour
    asked_colour = next((w for w in words if w in PALETTE), None)
    asked_shape = next((w for w in words if w in SHAPES), None)
    present = True
    if asked_colour:
        present = present and asked_colour == colour
    if asked_shape:
        present = present and asked_shape == shape
    negated = "not" in words or "no" in words
    return "yes" if present != negated else "no"
