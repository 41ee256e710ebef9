"""The teacher's prompts: round 0, the one-shot comparator, reflection A and B.

Every prompt starts with the runtime manual (compile/manual/, versioned) and the
setting's description. What each adds (the paper's Tables 15, 22 and 25):

- round 0: the observation on 3 probe items with every resource enabled, and the bare
  student's probe score;
- one-shot (Table 22): the manual and the setting's name and resources only (no probe
  score, no examples);
- reflection A: the latest proposal (accepted or not) with its verdict and probe report,
  paired traces against the proposal before it, and the round history with probe
  scores, the incumbent marked; the incumbent is not supplied separately;
- reflection B: the incumbent as full JSON with its hash and its probe report, the latest
  rejection with a compact paired report against the incumbent, the history (parent /
  proposal / incumbent hashes, changed components, probe scores, decisions), and the
  request for one coherent mechanism change; returning the incumbent unchanged is allowed.

Nothing here takes a validation or test item or score: the functions are given probe
reports and round records, and `history_table` reads only the probe column. A test
scans every recorded prompt for validation and test items and scores.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Sequence
from typing import Any

from tether.systems.compile.manual import runtime_manual
from tether.systems.compile.setting import Item, Setting

__all__ = ["TRACE_REQUEST_KEY", "changed_components", "history_table", "oneshot_prompt",
           "reflection_a_prompt", "reflection_b_prompt", "round0_prompt", "setting_text"]

TRACE_REQUEST_KEY = "request_trace"
_EXAMPLE_CHARS = 600

_ANSWER = ("Reply with one complete `tether-harness/1` JSON document for setting "
           "\"{setting}\", in a ```json fence or bare. Only the JSON counts.")
_TRACE_OFFER = ("Before proposing you may ask, once, for the full trace of one more probe "
                "item: reply with only {\"request_trace\": \"ITEM_ID\"} and you will get "
                "it, then propose.")


def resources_of(setting: Setting) -> dict[str, Any]:
    """Every resource the setting offers, with default options (the examples' view)."""
    own = getattr(setting, "hooks_only_resources", None)
    if callable(own):
        return dict(own())
    return {name: True for name in getattr(setting, "offered_resources", ())}


def setting_text(setting: Setting) -> str:
    """The setting's description: what it is, its resources, its metric."""
    module = inspect.getmodule(type(setting))
    about = ""  # a bundled setting's module docstring describes it; others: the class's
    if module is not None and module.__name__.startswith("tether.systems.compile.settings."):
        about = inspect.getdoc(module) or ""
    own = inspect.getdoc(type(setting)) or ""
    described = getattr(setting, "description", None)
    if isinstance(described, str) and described.strip():
        about, own = described.strip(), ""  # the setting says what it is itself
    metric = getattr(setting, "metric_text", None) or (
        "graded (ANLS: partial credit for near matches)"
        if getattr(setting, "aggregation", "") == "mean_score" else "pass/fail per item")
    resources = json.dumps(resources_of(setting), sort_keys=True)
    return (f"## The setting: {setting.name}\n{about}\n{own}\n\n"
            f"Resources it offers (enable them under \"resources\"): {resources}\n"
            f"Metric: {metric}.").strip()


def _examples(setting: Setting, items: Sequence[Item]) -> str:
    resources = resources_of(setting)
    blocks = []
    for item in items[:3]:
        obs = _cut_values(setting.observation(item, resources))
        blocks.append("```json\n" + json.dumps(obs, indent=1, ensure_ascii=False) + "\n```")
    return ("## The observation on 3 probe items (every resource enabled)\n"
            + "\n".join(blocks))


def _cut_values(value: Any) -> Any:
    if isinstance(value, str):
        return value if len(value) <= _EXAMPLE_CHARS else value[:_EXAMPLE_CHARS] + "..."
    if isinstance(value, list):
        return [_cut_values(v) for v in value]
    if isinstance(value, dict):
        return {k: _cut_values(v) for k, v in value.items()}
    return value


def place(round_: int, attempt: int = 1) -> str:
    """The prompt's first line: where in the build the call is (the replies are keyed
    by it, and a scripted teacher reads it)."""
    return f"# Harness compilation: round {round_}, attempt {attempt}"


def round0_prompt(setting: Setting, probe_items: Sequence[Item], bare_probe: float,
                  n_probe: int, note: str = "", attempt: int = 1) -> str:
    parts = [place(0, attempt), runtime_manual(), setting_text(setting),
             _examples(setting, probe_items),
             "## The bare student\nThe bare harness (the plain question, no resources, no "
             f"hooks) scores {bare_probe:.3f} on the probe split ({n_probe} items).",
             "## Your task\nWrite a harness that makes this student score higher: decide "
             "which work code does (retrieve, measure, parse) and which the student does. "
             + _ANSWER.format(setting=setting.name)]
    if note:
        parts.append(note)
    return "\n\n".join(parts)


def oneshot_prompt(setting: Setting) -> str:
    resources = json.dumps(resources_of(setting), sort_keys=True)
    return "\n\n".join([
        "# Harness compilation: one-shot", runtime_manual(),
        f"## The setting: {setting.name}\nResources it offers: {resources}",
        "## Your task\n" + _ANSWER.format(setting=setting.name)])


def changed_components(before: dict[str, Any] | None, after: dict[str, Any]) -> list[str]:
    """Top-level parts (prompts.X, hooks.X, decode, resources, answer_mode) that differ."""
    before = before or {}
    out = []
    for key in ("prompts", "hooks"):
        a, b = before.get(key) or {}, after.get(key) or {}
        out += [f"{key}.{name}" for name in sorted(set(a) | set(b)) if a.get(name) != b.get(name)]
    out += [key for key in ("decode", "resources", "answer_mode")
            if before.get(key) != after.get(key)]
    return out


def history_table(rounds: Sequence[dict[str, Any]], incumbent: str, *,
                  full: bool = False) -> str:
    """The rounds so far, probe scores only; `*` marks the incumbent. `full` (protocol
    B) adds the parent and incumbent hashes and the changed components."""
    head = "round | proposal | admissible | probe | decision"
    if full:
        head = "round | parent | proposal | incumbent after | changed | probe | decision"
    lines = [head]
    for r in rounds:
        mark = "*" if r.get("hash") and r.get("hash") == incumbent else ""
        probe = f"{r['probe']:.3f}" if r.get("probe") is not None else "-"
        name = f"{r['round']}" + (f".{r['restart']}" if r.get("restart") else "")
        proposal = (r.get("hash") or "-")[:12] + mark
        if full:
            lines.append(f"{name} | {(r.get('parent') or '-')[:12]} | {proposal} | "
                         f"{(r.get('incumbent') or '-')[:12]} | "
                         f"{', '.join(r.get('changed') or []) or '-'} | {probe} | "
                         f"{r['decision']}")
        else:
            admissible = {True: "yes", False: "no", None: "-"}[r.get("admissible")]
            lines.append(f"{name} | {proposal} | {admissible} | {probe} | {r['decision']}")
    return "\n".join(lines)


def _report_text(report: dict[str, Any] | None) -> str:
    if report is None:
        return "(not scored)"
    return "```json\n" + json.dumps(report, indent=1, ensure_ascii=False) + "\n```"


def _doc_text(document: dict[str, Any]) -> str:
    return "```json\n" + json.dumps(document, indent=1, ensure_ascii=False) + "\n```"


def _verdict_text(record: dict[str, Any]) -> str:
    if record.get("admissible") is False:
        return "Inadmissible (never scored):\n" + "\n".join(
            f"- {v['check']}: {v['detail']}" for v in record.get("violations") or [])
    return "Admissible."


def reflection_a_prompt(setting: Setting, latest: dict[str, Any], latest_doc: dict[str, Any],
                        latest_report: dict[str, Any] | None, paired: dict[str, Any] | None,
                        rounds: Sequence[dict[str, Any]], incumbent: str, round_: int, *,
                        withheld: bool = False) -> str:
    """`withheld`: the latest proposal was refused for hard-coded answers and is not
    shown again (answer_audit.py); `latest_doc` and its report are the incumbent's."""
    head = f"## The latest proposal (round {latest['round']}, hash {latest['hash']})\n"
    if withheld:
        parts = [place(round_), runtime_manual(), setting_text(setting),
                 head + "Not shown again: a proposal refused for hard-coded answers is never "
                 "echoed.\n" + _verdict_text(latest),
                 f"## The incumbent (hash {incumbent}), to edit instead\n" + _doc_text(latest_doc),
                 "## The incumbent's probe report\n" + _report_text(latest_report)]
    else:
        parts = [place(round_), runtime_manual(), setting_text(setting),
                 head + _doc_text(latest_doc) + "\n" + _verdict_text(latest),
                 "## Its probe report\n" + _report_text(latest_report)]
    if paired is not None:
        parts.append("## Paired traces against the preceding proposal (probe items where "
                     "they differ)\n" + _report_text(paired))
    parts += ["## Round history (probe scores; * marks the incumbent, the harness deployed "
              "now)\n" + history_table(rounds, incumbent),
              "## Your task\nEdit the "
              + ("incumbent" if withheld else "latest proposal")
              + " to fix what its probe report shows. "
              + _TRACE_OFFER + " " + _ANSWER.format(setting=setting.name)]
    return "\n\n".join(parts)


def reflection_b_prompt(setting: Setting, incumbent_doc: dict[str, Any], incumbent: str,
                        incumbent_report: dict[str, Any] | None,
                        rejection: dict[str, Any] | None, rejection_paired: dict[str, Any] | None,
                        rounds: Sequence[dict[str, Any]], round_: int) -> str:
    parts = [place(round_), runtime_manual(), setting_text(setting),
             f"## The incumbent (hash {incumbent})\n" + _doc_text(incumbent_doc),
             "## The incumbent's probe report\n" + _report_text(incumbent_report)]
    if rejection is not None:
        text = (f"## The latest rejected proposal (round {rejection['round']}, hash "
                f"{rejection.get('hash') or '-'}): {rejection['decision']}\n"
                + _verdict_text(rejection))
        if rejection_paired is not None:
            text += ("\nCompact paired report against the incumbent on probe items:\n"
                     + _report_text(rejection_paired))
        parts.append(text)
    parts += ["## History\n" + history_table(rounds, incumbent, full=True),
              "## Your task\nMake ONE coherent mechanism change to the incumbent. Before the "
              "JSON, state in a few lines: the change; its evidence (probe items above); its "
              "denominator (how many probe items it can affect); one way it could regress. "
              "If no change is supported by the evidence, return the incumbent unchanged. "
              + _TRACE_OFFER + " " + _ANSWER.format(setting=setting.name)]
    return "\n\n".join(parts)


def trace_answer(prompt: str, item_id: str, trace: dict[str, Any] | None) -> str:
    """The prompt again, with the requested probe trace (or why there is none)."""
    if trace is None:
        body = f"There is no probe item {item_id!r}; only probe items can be traced."
    else:
        body = _report_text(trace)
    return (prompt + f"\n\n## The probe trace you asked for ({item_id})\n" + body
            + "\nNow propose: " + _ANSWER.format(setting="the same setting"))
