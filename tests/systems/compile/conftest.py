"""Shared helpers of the compile tests: a harness builder and scripted students."""

from __future__ import annotations

from typing import Any

import pytest

from tether.systems.compile.harness import SCHEMA, Harness
from tether.systems.compile.setting import Item
from tether.systems.compile.settings.toy import ToySetting


def make_harness(**fields: Any) -> Harness:
    doc: dict[str, Any] = {"schema": SCHEMA, "setting": "toy",
                           "prompts": {"answer": "{question}"}}
    doc.update(fields)
    return Harness.model_validate(doc)


class RecordingStudent:
    """Test double: replies with a fixed text (or a function of the prompt), records calls."""

    def __init__(self, reply: Any = "ok") -> None:
        self.reply = reply
        self.prompts: list[str] = []
        self.images: list[bytes | None] = []

    def __call__(self, prompt: str, image: bytes | None) -> str:
        self.prompts.append(prompt)
        self.images.append(image)
        return self.reply(prompt) if callable(self.reply) else self.reply


class PictureToy(ToySetting):
    """Test double: the toy setting with an image and linker candidates with cards."""

    def image(self, item: Item) -> bytes | None:
        return b"\x89PNG-toy"

    def observation(self, item: Item, resources: Any) -> dict[str, Any]:
        obs = super().observation(item, resources)
        if resources.get("cards"):
            obs["candidates"] = [{"name": "A", "similarity": 0.9,
                                  "card": "Name: A\nPopulation: 3\nMotto: none"}]
        return obs


@pytest.fixture(scope="session")
def toy() -> ToySetting:
    return ToySetting()


@pytest.fixture(scope="session")
def items(toy: ToySetting) -> list[Item]:
    return toy.splits(0, {"probe": 10, "validation": 5, "test": 5})["probe"]
