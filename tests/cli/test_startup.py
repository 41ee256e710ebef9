"""tether.cli.startup: a command's start out of the cycle collector's way."""

import gc
import subprocess
import sys

import pytest

from tether.cli import start_up


def test_the_collector_is_off_for_the_start_and_back_on_after() -> None:
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    kept = [object() for _ in range(10)]  # alive at the end of the start
    with start_up():
        assert not gc.isenabled()
        kept.append([kept])
    assert gc.isenabled()
    assert gc.get_freeze_count() > frozen  # what the start loaded, out of its sight
    gc.unfreeze()


def test_a_start_that_fails_puts_the_collector_back_and_freezes_nothing() -> None:
    frozen = gc.get_freeze_count()
    with pytest.raises(RuntimeError), start_up():
        raise RuntimeError("bad config")
    assert gc.isenabled() and gc.get_freeze_count() == frozen


def test_a_collector_switched_off_before_stays_off() -> None:
    gc.disable()
    try:
        with start_up():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()


STARTED = """
import sys
from tether.cli import start_up
with start_up():
    import openai
    client = openai.OpenAI(api_key="k", base_url="http://127.0.0.1:9/v1")
    inside = "aiohttp" in sys.modules
import openai._vendor.httpx_aiohttp  # importable again after the start
print(inside, "aiohttp" in sys.modules, type(client.chat).__name__)
"""


def test_the_sdks_aiohttp_transport_is_not_loaded_in_the_start() -> None:
    pytest.importorskip("aiohttp")  # installed with the ray, inspect and datasets extras
    done = subprocess.run([sys.executable, "-c", STARTED], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True", "Chat"]


def test_outside_a_start_the_sdk_imports_as_it_is() -> None:
    pytest.importorskip("aiohttp")
    done = subprocess.run([sys.executable, "-c", "import sys, openai; "
                           "print('aiohttp' in sys.modules)"], capture_output=True, text=True,
                          timeout=120)
    assert done.stdout.strip() == "True", done.stderr
