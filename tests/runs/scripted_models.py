"""Callables for `scripted:tests.runs.scripted_models:fn` specs (test doubles, not models)."""

import os
import time
from pathlib import Path

from tether.models.base import text_of
from tether.models.errors import ModelError

#: Names a file of words, one a line: a call whose prompt ends in a listed word waits
#: until the file no longer lists it (or is gone). Crash tests use it to hold chosen
#: trials in flight for exactly as long as they need, with no clock in the test.
HOLD_ENV = "TETHER_TEST_HOLD"


def held(word: str) -> bool:
    path = os.environ.get(HOLD_ENV)
    if not path:
        return False
    try:
        return word in Path(path).read_text().split()
    except FileNotFoundError:
        return False


def wait_while_held(word: str) -> None:
    while held(word):
        time.sleep(0.01)


def echo_word(messages, info):
    """Answers with the prompt's last word, the call's seed and sample index.

    A prompt ending in `model-down` raises ModelError (a failing backend), so runner
    tests get `error` trials without a network. A word listed in the HOLD_ENV file is
    answered only once it is released.
    """
    word = text_of(messages[-1]).split()[-1]
    if word == "model-down":
        raise ModelError("scripted backend is down")
    wait_while_held(word)
    return f"{word} seed={info.params.seed} sample={info.sample_index}"


#: the hold word of `bash_agent`: its reply after TURNS_BEFORE_HOLD turns waits on it
AGENT_HOLD = "agent-turn"
TURNS_BEFORE_HOLD = 3


def bash_agent(messages, info):
    """A bash agent's replies: `echo turn K` for the first turns, then the finish marker.

    The reply after TURNS_BEFORE_HOLD turns waits while AGENT_HOLD is held, so a test
    can kill the trial with exactly that many turns done.
    """
    from tether.systems.terminal.agent.actions import FINISH_MARKER

    if info.call_number >= TURNS_BEFORE_HOLD:
        wait_while_held(AGENT_HOLD)
        return f"Done.\n```bash\necho {FINISH_MARKER}\n```"
    return f"Next.\n```bash\necho turn {info.call_number + 1}\n```"
