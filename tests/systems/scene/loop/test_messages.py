"""Modality per role: what a role is shown, and a text-only model refused images up front."""

from __future__ import annotations

import pytest

from tether.errors import ConfigError
from tether.systems.scene.loop.messages import resolve_modality
from tether.testing.scripted_models import ScriptedModel


class ContextDouble:
    """Test double of TrialContext: only model(role), the one thing resolve_modality reads."""

    def __init__(self, model) -> None:
        self._model = model

    def model(self, role: str):
        return self._model


def _model(accepts_images: bool | None) -> ScriptedModel:
    model = ScriptedModel(lambda m, i: "ok")
    if accepts_images is not None:
        model.accepts_images = accepts_images  # as a backend that declares it
    return model


def test_a_text_only_model_asked_for_images_is_refused_before_the_run_with_the_hint() -> None:
    model = _model(False)
    with pytest.raises(ConfigError) as err:
        resolve_modality(ContextDouble(model), "verifier", "image")
    assert "takes no images" in str(err.value) and ";modality=text" in err.value.hint


@pytest.mark.parametrize(("declared", "requested", "expected"), [
    (False, "auto", "text"), (True, "auto", "image"), (None, "auto", "text"),  # scripted
    (False, "text", "text"), (True, "image", "image"),
])
def test_modality_resolution(declared, requested, expected) -> None:
    assert resolve_modality(ContextDouble(_model(declared)), "generator", requested) == expected


def test_a_scripted_double_is_text_only_unless_it_says_it_takes_images() -> None:
    # a double is held to its declaration like any model: none is asked for images
    with pytest.raises(ConfigError, match="takes no images"):
        resolve_modality(ContextDouble(ScriptedModel(lambda m, i: "ok")), "judge", "image")
    vlm = ScriptedModel(lambda m, i: "ok", accepts_images=True)
    assert resolve_modality(ContextDouble(vlm), "judge", "image") == "image"
