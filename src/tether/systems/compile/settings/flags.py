"""`flags`, an InfoSeek-like setting: a perturbed flag, a question about its country.

The query image is one of flagpy's 195 flags, cropped, rotated, colour-cast, blurred and
noised. A linker ranks the whole inventory by image distance (a small RGB thumbnail,
cosine similarity) and hands a harness its top 3 with similarities and pycountry cards
(resource `cards`, `{"budget_chars": N}` per card). The perturbations are strong enough that
the linker's top 1 is wrong on a real share of items (about half), so picking among the
candidates, or abstaining, is real work. Metric: relaxed exact match.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

import numpy as np
from PIL import Image, ImageFilter

from tether.systems.compile.settings.base import (
    Item,
    answers_of,
    cut,
    int_option,
    item_id,
    make_splits,
    new_item,
    new_observation,
    png_bytes,
    rng_for,
)
from tether.systems.compile.settings.flags_data import card, facts, flags
from tether.systems.compile.settings.metrics import relaxed_exact_match

NAME = "flags"
DEFAULT_CARD_CHARS = 560
TOP_K = 3
_THUMB = (24, 12)

QUESTIONS = {
    "alpha_3": "What is the ISO 3166-1 alpha-3 code of the country whose flag is shown?",
    "numeric": "What is the ISO 3166-1 numeric code of the country whose flag is shown?",
    "official_name": "What is the official name of the country whose flag is shown?",
    "currency": "What is the currency of the country whose flag is shown?",
}


def perturb(flag: np.ndarray, params: Mapping[str, Any]) -> Image.Image:
    """The query image: a crop of the flag, rotated, colour-cast, blurred and noised."""
    h, w = flag.shape[:2]
    x0, y0, cw, ch = params["crop"]
    box = (int(x0 * w), int(y0 * h), int((x0 + cw) * w), int((y0 + ch) * h))
    image = Image.fromarray(flag, mode="RGB").crop(box).resize((128, 64), Image.Resampling.BILINEAR)
    image = image.rotate(params["angle"], resample=Image.Resampling.BILINEAR,
                         fillcolor=(128, 128, 128))
    px = np.asarray(image, dtype=np.float64) * np.asarray(params["gain"])
    px = px + np.asarray(params["offset"])
    px = px + np.random.default_rng(params["noise_seed"]).normal(0, params["noise"], px.shape)
    image = Image.fromarray(np.clip(px, 0, 255).astype(np.uint8), mode="RGB")
    return image.filter(ImageFilter.GaussianBlur(params["blur"]))


def _thumb(image: Image.Image) -> np.ndarray:
    v = np.asarray(image.convert("RGB").resize(_THUMB, Image.Resampling.BILINEAR), dtype=np.float64)
    v = v.reshape(-1) - v.mean()
    return v / (np.linalg.norm(v) + 1e-9)


@cache
def _inventory_matrix() -> tuple[tuple[str, ...], np.ndarray]:
    codes = tuple(code for code, _ in flags())
    return codes, np.stack([_thumb(Image.fromarray(arr, mode="RGB")) for _, arr in flags()])


def _fold(text: str) -> str:
    return " ".join("".join(ch if ch.isalnum() else " " for ch in text.casefold()).split())


@cache
def _name_index() -> dict[str, str]:
    """Folded name, official name, alpha-2 and alpha-3 -> the country's alpha-2 code."""
    index: dict[str, str] = {}
    for code, _ in flags():
        f = facts(code)
        for key in (f["name"], f["official_name"], f["alpha_2"], f["alpha_3"]):
            index.setdefault(_fold(key), code)
    return index


def link(image: Image.Image, k: int = TOP_K) -> list[tuple[str, float]]:
    """The linker: the k inventory flags most similar to the image, best first."""
    codes, matrix = _inventory_matrix()
    sims = matrix @ _thumb(image)
    order = np.argsort(-sims, kind="stable")[:k]
    return [(codes[i], round(float(sims[i]), 4)) for i in order]


class FlagsSetting:
    """Perturbed flagpy flags, a thumbnail linker, pycountry cards."""

    name = NAME
    offered_resources: tuple[str, ...] = ("cards",)
    #: the observation field each resource fills (prompt_fields.py reads it)
    resource_fields = {"cards": "candidates"}

    def make_item(self, seed: int, split: str, index: int) -> Item:
        rng = rng_for(NAME, seed, split, index)
        inventory = flags()
        code = inventory[int(rng.integers(len(inventory)))][0]
        f = facts(code)
        kinds = [k for k in QUESTIONS if k != "currency" or "currency" in f]
        kind = kinds[int(rng.integers(len(kinds)))]
        if kind == "currency":
            answers: tuple[str, ...] = (f["currency"], f["currency_code"])
        elif kind == "official_name":
            answers = tuple(dict.fromkeys((f["official_name"], f["name"])))
        else:
            answers = (f[kind],)
        cw, ch = float(rng.uniform(0.45, 0.95)), float(rng.uniform(0.45, 0.95))
        params = {
            "crop": [
                round(float(rng.uniform(0, 1 - cw)), 3),
                round(float(rng.uniform(0, 1 - ch)), 3),
                round(cw, 3),
                round(ch, 3),
            ],
            "angle": round(float(rng.uniform(-15, 15)), 1),
            "gain": [round(float(g), 3) for g in rng.uniform(0.7, 1.3, 3)],
            "offset": [round(float(o), 1) for o in rng.uniform(-35, 35, 3)],
            "noise": round(float(rng.uniform(8, 35)), 1),
            "blur": round(float(rng.uniform(0.5, 1.5)), 2),
            "noise_seed": int(rng.integers(2**31)),
        }
        return new_item(
            item_id(NAME, seed, split, index),
            QUESTIONS[kind],
            answers,
            split,
            **{"code": code, "kind": kind, "perturb": params},
        )

    def splits(self, seed: int, sizes: Mapping[str, int] | None = None) -> dict[str, list[Item]]:
        return make_splits(self.make_item, seed, sizes)

    def _image(self, item: Item) -> Image.Image:
        arr = dict(flags())[item.data["code"]]
        return perturb(arr, item.data["perturb"])

    def image(self, item: Item) -> bytes:
        return png_bytes(self._image(item))

    def observation(self, item: Item, resources: Mapping[str, Any]) -> dict[str, Any]:
        obs = new_observation(NAME, item, resources, self.offered_resources)
        if resources.get("cards") is not None and resources.get("cards") is not False:
            budget = int_option(resources["cards"], "budget_chars", DEFAULT_CARD_CHARS)
            obs["candidates"] = [
                {"name": facts(code)["name"], "similarity": sim, "card": cut(card(code), budget)}
                for code, sim in link(self._image(item))
            ]
        return obs

    def lookup(self, name: str, resources: Mapping[str, Any]) -> dict[str, Any] | None:
        """A student-named lookup (the `generate` intervention): the inventory entry whose
        name, official name or ISO code the student named (case, spacing and punctuation
        folded; no fuzzy match: a misnamed country finds nothing), as a candidate with
        its card cut to the harness's `cards.budget_chars`; None when nothing matches."""
        code = _name_index().get(_fold(name))
        if code is None:
            return None
        spec = resources.get("cards") or {}
        budget = int_option(spec, "budget_chars", DEFAULT_CARD_CHARS)
        return {"name": facts(code)["name"], "similarity": 1.0, "card": cut(card(code), budget)}

    def linker_top1_correct(self, item: Item) -> bool:
        return link(self._image(item), 1)[0][0] == item.data["code"]

    def score(self, answer: str, item: Item) -> float:
        return relaxed_exact_match(answer, answers_of(item))

    def gold(self, item: Item) -> list[str]:
        return list(answers_of(item))

    def inventory(self) -> list[str]:
        """Country names and ISO codes: what a harness must not hard-code."""
        out: list[str] = []
        for code, _ in flags():
            f = facts(code)
            out += [f["name"], f["official_name"], f["alpha_2"], f["alpha_3"]]
        return list(dict.fromkeys(out))

    def public_vocabulary(self) -> list[str]:
        return []

    def hooks_only_resources(self) -> dict[str, Any]:
        return {"cards": {"budget_chars": DEFAULT_CARD_CHARS}}

    def hooks_only_answer(self, obs: Mapping[str, Any]) -> str:
        return top1_rule(str(obs["question"]), obs.get("candidates") or [])


_CARD_FIELD = {
    "alpha-3": "ISO alpha-3",
    "numeric": "ISO numeric",
    "official name": "Official name",
    "currency": "Currency",
}


def top1_rule(question: str, candidates: list[Mapping[str, Any]]) -> str:
    """The best rule with no student: trust the linker's top 1 and copy the asked field
    from its card. This is the `flags` hooks-only baseline."""
    if not candidates:
        return ""
    q = question.lower()
    label = next((v for k, v in _CARD_FIELD.items() if k in q), None)
    for line in str(candidates[0].get("card", "")).splitlines():
        if label and line.startswith(label + ":"):
            value = line.split(":", 1)[1].strip()
            return value.split(" (")[0] if label == "Currency" else value
    return ""
