"""Callables for `scripted:module:fn` specs used by the tests."""

from tether.models.base import text_of


def echo_last(messages, info):
    return f"echo: {text_of(messages[-1])}"
