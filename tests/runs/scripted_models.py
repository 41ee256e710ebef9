"""Callables for `scripted:tests.runs.scripted_models:fn` specs (test doubles, not models)."""

from tether.models.base import text_of
from tether.models.errors import ModelError


def echo_word(messages, info):
    """Answers with the prompt's last word, the call's seed and sample index.

    A prompt ending in `model-down` raises ModelError (a failing backend), so runner
    tests get `error` trials without a network.
    """
    word = text_of(messages[-1]).split()[-1]
    if word == "model-down":
        raise ModelError("scripted backend is down")
    return f"{word} seed={info.params.seed} sample={info.sample_index}"
