"""What every offline setting shares: the item, seeded disjoint splits, resource parsing.

A setting makes its items from a seed alone (no hub, data from installed packages). The
item (`tether.systems.compile.setting.Item`) carries its gold answers in `data` for scoring, but
the observation a harness sees is built by the setting from the rest of `data` and the
enabled resources only: gold never enters it (tests check this for every setting).
"""

from __future__ import annotations

import hashlib
import io
import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from typing import Any

import numpy as np

from tether.errors import ConfigError
from tether.systems.compile.setting import DEFAULT_SIZES, SPLITS, Item
from tether.systems.compile.settings import page_worker

__all__ = [
    "DEFAULT_SIZES",
    "SPLITS",
    "ImageMemo",
    "Item",
    "answers_of",
    "resolve_sizes",
    "make_splits",
    "new_observation",
    "rng_for",
    "item_id",
    "check_resources",
    "int_option",
    "png_bytes",
    "cut",
]


def new_item(
    item_id: str, question: str, answers: tuple[str, ...], split: str, **payload: Any
) -> Item:
    """An item in `tether.systems.compile.setting.Item` form: gold under `data["answers"]`, read
    only by `score` and `gold`; the rest of `data` is host-side (how to render the image,
    what the linker sees)."""
    return Item(item_id, question, {"answers": list(answers), "split": split, **payload})


def answers_of(item: Item) -> tuple[str, ...]:
    return tuple(item.data["answers"])


def resolve_sizes(sizes: Mapping[str, int] | None) -> dict[str, int]:
    """Split sizes with the defaults filled in; unknown split names are an error."""
    out = dict(DEFAULT_SIZES)
    for key, value in (sizes or {}).items():
        if key not in DEFAULT_SIZES:
            raise ConfigError(f"unknown split {key!r}", hint=f"splits are {', '.join(SPLITS)}")
        if int(value) < 0:
            raise ConfigError(f"split {key!r} has a negative size {value}")
        out[key] = int(value)
    return out


def make_splits(make_item: Callable[[int, str, int], Item], seed: int,
                sizes: Mapping[str, int] | None) -> dict[str, list[Item]]:
    """Every split's items, `make_item(seed, split, index)` for each index of its size."""
    n = resolve_sizes(sizes)
    return {s: [make_item(seed, s, i) for i in range(n[s])] for s in SPLITS}


def new_observation(setting: str, item: Item, resources: Mapping[str, Any],
                    offered: tuple[str, ...]) -> dict[str, Any]:
    """What every observation starts from (the item's id and question), once `resources`
    are known to be among those `setting` offers."""
    check_resources(setting, resources, offered)
    return {"item_id": item.item_id, "question": item.question}


def rng_for(setting: str, seed: int, *parts: int | str) -> np.random.Generator:
    """An independent generator per (setting, seed, parts): item k of a split does not
    depend on how many items the split has, so a larger split extends a smaller one."""
    digest = hashlib.sha256(repr((setting, int(seed), *parts)).encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "big"))


def item_id(setting: str, seed: int, split: str, index: int) -> str:
    return f"{setting}-{seed}-{split}-{index:04d}"


def check_resources(setting: str, resources: Mapping[str, Any], offered: tuple[str, ...]) -> None:
    """A resource the setting does not offer is a harness mistake, not something to ignore."""
    unknown = sorted(set(resources) - set(offered))
    if unknown:
        raise ConfigError(
            f"setting {setting!r} offers no resource {', '.join(map(repr, unknown))}",
            hint=f"{setting} offers: {', '.join(offered) or 'none'}",
        )


def int_option(spec: Any, key: str, default: int) -> int:
    """`{"max_chars": 2000}` -> 2000; `true` -> the default."""
    if isinstance(spec, Mapping) and key in spec:
        return int(spec[key])
    return default


def png_bytes(image: Any) -> bytes:
    """A PIL image as PNG bytes; PIL's encoder is deterministic for equal pixels.

    zlib level 1: a page encodes about 4x faster than at PIL's default level 6 for
    about 8% more bytes, and a remote student's item waits for its page before its call
    (PNG is lossless: the pixels, and what OCR reads of them, are the same)."""
    buf = io.BytesIO()
    image.save(buf, format="PNG", optimize=False, compress_level=1)
    return buf.getvalue()


class ImageMemo:
    """Images drawn for this process (here, or ahead of their calls in the helper process:
    `draw_ahead`), by the JSON of everything the drawing depends on (as
    OcrEngine.text_of keys its texts), least recently used dropped past `max_bytes`.
    A compile shows a remote student the same page under every proposal it scores, and
    its teacher's examples read the OCR of pages scoring drew already: each is drawn
    once. A thread asking for a page another thread is drawing waits for that drawing
    (a compile draws the next items' pages ahead of their calls, compiler/pool.py); if
    that drawing fails, the waiting thread draws the page itself and meets the error."""

    def __init__(self, max_bytes: int = 64 << 20) -> None:
        self.max_bytes = max_bytes
        self.draws = 0  # images drawn (memo misses)
        self._images: OrderedDict[str, bytes] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()
        self._drawing: dict[str, threading.Event] = {}  # pages being drawn, by key

    @staticmethod
    def _key(source: Any) -> str:
        return hashlib.sha256(json.dumps(source, sort_keys=True, default=str)
                              .encode("utf-8")).hexdigest()

    def draw_ahead(self, source: Any, fn: Callable[..., bytes], *args: Any) -> None:
        """Start drawing `fn(*args)` (the page `source` names) in the helper process
        (page_worker.py) unless it is memoized or on its way; returns at once. A `get` of
        it meanwhile waits for that drawing; one that failed there is drawn again by
        `get` (which meets the error). Without a helper, nothing is drawn ahead."""
        key = self._key(source)
        with self._lock:
            if key in self._images or key in self._drawing:
                return
            done = self._drawing[key] = threading.Event()
        future = None
        try:  # outside the lock: the request may wait for room in the helper's pipe
            future = page_worker.submit(fn, *args)
        finally:
            if future is None:  # no helper (or the request failed): drawn when asked for
                with self._lock:
                    self._drawing.pop(key, None)
                done.set()
        if future is None:
            return

        def landed(future: Future[bytes]) -> None:
            image = None if future.cancelled() or future.exception() else future.result()
            with self._lock:
                if isinstance(image, bytes):
                    self._keep(key, image)
                self._drawing.pop(key, None)
            done.set()

        future.add_done_callback(landed)

    def get(self, source: Any, draw: Callable[[], bytes]) -> bytes:
        key = self._key(source)
        with self._lock:
            hit = self._hit(key)
            if hit is not None:
                return hit
            drawing = self._drawing.get(key)
            if drawing is None:
                self._drawing[key] = threading.Event()
        if drawing is not None:  # another thread draws it: its bytes, once it has them
            drawing.wait()
            with self._lock:
                hit = self._hit(key)
            return hit if hit is not None else self._draw(key, draw)
        try:
            return self._draw(key, draw)
        finally:
            with self._lock:
                self._drawing.pop(key).set()

    def _hit(self, key: str) -> bytes | None:
        hit = self._images.get(key)
        if hit is not None:
            self._images.move_to_end(key)
        return hit

    def _draw(self, key: str, draw: Callable[[], bytes]) -> bytes:
        image = draw()
        with self._lock:
            self._keep(key, image)
        return image

    def _keep(self, key: str, image: bytes) -> None:
        """A drawn image into the memo (the lock held)."""
        self.draws += 1
        if key not in self._images:
            self._images[key] = image
            self._size += len(image)
        while self._size > self.max_bytes and self._images:
            self._size -= len(self._images.popitem(last=False)[1])


def cut(text: str, max_chars: int) -> str:
    """Cut evidence text to a budget (the harness decides the budget, not the setting)."""
    return text if len(text) <= max_chars else text[: max(0, max_chars)]
