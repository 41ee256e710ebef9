"""Admissibility: each check has a failing and a passing case."""

from __future__ import annotations

import pytest

from tether.systems.compile.admissibility import SMOKE_ITEMS, check_harness, shuffled
from tether.systems.compile.answer_audit import REFUSAL, _literals as hook_texts, audit_texts
from tether.systems.compile.harness import SCHEMA
from tether.systems.compile.hook_ast import check_hook_sources
from tether.systems.compile.setting import fitted_sizes, get_setting, item_count, setting_names

PLAIN_PROMPT = ("Read the question carefully and answer it briefly.\n"
                "Question: {question}\nReply with the answer only, in a few words.")
PLAIN_PARSE = '''import re

def parse(text, item):
    # keep what follows "answer is" or "Answer:", else the first line
    match = re.search(r"answer(?:\\s+is|\\s*:)\\s*(.+)", text, re.IGNORECASE)
    line = match.group(1) if match else text.strip().split("\\n")[0]
    return line.strip().rstrip(".")
'''
ROUTE = '''def route(obs, state):
    if state["calls"]:
        return {"done": True}
    return {"call_student": {"prompt": "answer", "vars": {}, "image": True}}
'''


def doc(setting: str = "toy", **fields):
    base = {"schema": SCHEMA, "setting": setting, "prompts": {"answer": PLAIN_PROMPT},
            "hooks": {"parse": PLAIN_PARSE, "route": ROUTE}}
    base.update(fields)
    return base


def checks(report):
    return [v.check for v in report.violations]


@pytest.mark.parametrize("name", setting_names())
def test_a_plain_english_prompt_and_parser_are_admissible_on_every_setting(name):
    setting = get_setting(name)
    report = check_harness(doc(name), setting)
    assert report.violations == [] and report.admissible
    # ten probe items, or the whole probe split of a setting too small for ten (toy: 5)
    probe = fitted_sizes(item_count(setting))["probe"]
    assert len(report.smoke) == min(SMOKE_ITEMS, probe) > 0


# --- 1. schema and sizes ---------------------------------------------------------------

@pytest.mark.parametrize(("fields", "needle"), [
    ({"bogus": 1}, "`bogus`: extra inputs"),
    ({"prompts": {"answer": "x" * 8001}}, "8001 characters"),
    ({"hooks": {"parse": PLAIN_PARSE + "#" * 20_000}}, "characters in all"),
    ({"decode": {"max_tokens": 1025}}, "max_tokens: 1025"),
    ({"prompts": {"answer": "{question!r}"}}, "prompts.answer: stray"),
    ({"setting": "other"}, "the harness is for 'other'"),
    ({"prompts": {"think": "{question}"}, "hooks": {"parse": PLAIN_PARSE}}, "no 'answer' prompt"),
])
def test_schema_and_sizes(toy, fields, needle):
    report = check_harness(doc(**fields), toy)
    assert checks(report) and set(checks(report)) == {"schema"}
    assert any(needle in v.detail for v in report.violations), report.violations



def test_a_deployment_may_name_another_setting_and_run_without_gold(toy):
    """`named_setting=False`: another setting's harness is checked on this one (a
    deployment's rows decide by their fields); `gold=False`: the checks that need gold
    answers do not run, and the report says which did."""
    other = doc("jsonl:/somewhere/else.jsonl")
    assert checks(check_harness(other, toy)) == ["schema"]
    full = check_harness(other, toy, named_setting=False)
    assert full.admissible and full.checks == ["schema", "hooks", "hardcoded", "smoke",
                                               "determinism"]
    bare = check_harness(other, toy, named_setting=False, gold=False)
    assert bare.admissible and bare.checks == ["schema", "hooks"] and bare.smoke == []
    assert bare.to_json()["checks"] == ["schema", "hooks"]
    gold = doc(prompts={"answer": "{question} (Paris?)"})  # an inventory name: hardcoded
    assert checks(check_harness(gold, toy, gold=False)) == []
    assert checks(check_harness(gold, toy)) == ["hardcoded"]

def test_schema_passes_at_the_limits(toy):
    report = check_harness(doc(prompts={"answer": "{question}" + "x" * 7990},
                               decode={"max_tokens": 1024}), toy)
    assert report.admissible, report.violations


UNKNOWN_FIELD_ROUTE = '''def route(obs, state):
    if state["calls"]:
        return {"done": True}
    names = ("tip",)
    vars_ = {}
    for name in names:
        vars_[name] = "be brief"
    return {"call_student": {"prompt": "answer", "vars": vars_}}
'''


@pytest.mark.parametrize(("fields", "needle"), [
    # a field no observation has: reported statically, before any smoke run
    ({"prompts": {"answer": "{question} {context}"}}, "prompts.answer: unknown field {context}"),
    # a resource's field named without enabling the resource
    ({"prompts": {"answer": "{hint} {question}"}}, "unknown field {hint}"),
    # without a route hook only observation fields can fill a prompt
    ({"prompts": {"answer": "{tip} {question}"}, "hooks": {"parse": PLAIN_PARSE}},
     "no route hook to set vars"),
])
def test_a_prompt_naming_an_unknown_field_is_a_static_violation(toy, fields, needle):
    report = check_harness(doc(**fields), toy)
    assert checks(report) == ["schema"] and needle in report.violations[0].detail
    assert report.smoke == []  # found without running anything


def test_observation_fields_of_enabled_resources_and_route_vars_are_known(toy):
    enabled = doc(prompts={"answer": "{hint} {question} ({item_id})"},
                  resources={"hint": True})
    assert check_harness(enabled, toy).violations == []
    by_route = doc(prompts={"answer": "{question} ({tip})"},
                   hooks={"parse": PLAIN_PARSE, "route": UNKNOWN_FIELD_ROUTE})
    assert check_harness(by_route, toy).violations == []


def test_flags_cards_fill_the_candidates_field():
    from tether.systems.compile.prompt_fields import observation_fields

    flags = get_setting("flags")
    assert observation_fields(flags, {"cards": {"budget_chars": 300}}) == {
        "item_id", "question", "candidates"}
    assert observation_fields(flags, {"cards": False}) == {"item_id", "question"}


def test_not_a_harness_has_no_hash(toy):
    report = check_harness(["not", "an", "object"], toy)
    assert report.hash is None and checks(report) == ["schema"]


# --- 2. hook AST whitelist ---------------------------------------------------------------

@pytest.mark.parametrize(("source", "needle"), [
    ("import os\ndef parse(text, item):\n    return text\n", "import of 'os'"),
    ("from subprocess import run\ndef parse(text, item):\n    return text\n", "import from"),
    ("from . import x\ndef parse(text, item):\n    return text\n", "import from '.'"),
    ("def parse(text, item):\n    return eval(text)\n", "use of 'eval'"),
    ("def parse(text, item):\n    return getattr(text, 'strip')()\n", "use of 'getattr'"),
    ("def parse(text, item):\n    return open('f').read()\n", "use of 'open'"),
    ("def parse(text, item):\n    return text.__class__.__name__\n", "attribute '__class__'"),
    ("def parse(text, item):\n    return __builtins__\n", "name '__builtins__'"),
    ("def parse(text):\n    return text\n", "parse must be def parse(text, item)"),
    ("def parse(text, item, extra=1):\n    return text\n", "parse must be"),
    ("def parse(*args):\n    return ''\n", "parse must be"),
    ("def helper(text, item):\n    return text\n", "no top-level def parse"),
    ("def parse(text, item):\n    return text\ndef route(obs, state):\n    return {}\n",
     "another hook's name"),
    ("def parse(text, item) return", "syntax error"),
    # ways around the names above: module internals, builtins, names built from text,
    # format-string attribute access, code that runs where a reader does not look
    ("import collections\ndef parse(text, item):\n"
     "    return collections._sys.modules['os'].name\n", "attribute '_sys'"),
    ("from collections import _sys\ndef parse(text, item):\n    return text\n",
     "imported name '_sys'"),
    ("def parse(text, item):\n    return builtins.eval(text)\n", "attribute 'eval'"),
    ("import collections\ndef parse(text, item):\n    return collections.builtins\n",
     "attribute 'builtins'"),
    ("def parse(text, item):\n    return operator.attrgetter('__imp' + 'ort__')(text)\n",
     "attribute 'attrgetter'"),
    ("import string\ndef parse(text, item):\n"
     "    return string.Formatter().get_field('0.x', [text], {})\n", "attribute 'Formatter'"),
    ("def parse(text, item):\n    return '{0.__class__}'.format(text)\n",
     "format string whose fields read attributes"),
    ("def parse(text, item):\n    return '{0:{1.real}}'.format(text, 3)\n",
     "format string whose fields read attributes"),
    ("def parse(text, item):\n    return str.format('{0}', text)\n",
     "'.format' on something other than a string literal"),
    ("def parse(text, item):\n    return '{0}'.format_map(item)\n", "attribute 'format_map'"),
    ("def deco(f):\n    return f\n@deco\ndef parse(text, item):\n    return text\n",
     "decorator on 'parse'"),
    ("def parse(text, item):\n    f = lambda x=len(text): x\n    return str(f())\n",
     "a lambda with default values"),
    ("import json\ndef parse(text, item):\n    json.seen = 1\n    return text\n",
     "assignment to an attribute of the imported 'json'"),
])
def test_hook_whitelist_rejects(toy, source, needle):
    problems = check_hook_sources({"parse": source})
    assert any(needle in p for p in problems), problems
    assert checks(check_harness(doc(hooks={"parse": source}), toy)) == ["hooks"] * len(problems)


def test_hook_whitelist_accepts_the_allowed_modules():
    source = ("import re, math, json, string, difflib, unicodedata\n"
              "from collections import Counter\nimport itertools as it\n"
              "def parse(text, item):\n    return Counter(re.findall(r'\\w+', text)).most_common(1)"
              "[0][0] if text else ''\n")
    assert check_hook_sources({"parse": source, "route": ROUTE}) == []


def test_hook_whitelist_accepts_plain_format_strings_and_lambdas():
    source = ("def parse(text, item):\n    key = lambda s: -len(s)\n"
              "    words = sorted(text.split(), key=key)\n"
              "    return '{0} {1[0]} {n:>3}'.format(text, words, n=len(words))\n")
    assert check_hook_sources({"parse": source, "route": ROUTE}) == []


# --- 3. no hard-coded answers --------------------------------------------------------------

@pytest.mark.parametrize(("fields", "needle"), [
    ({"prompts": {"answer": "{question} Hint: it may be Paris."}}, "'paris' (inventory entity"),
    ({"hooks": {"route": ROUTE, "parse": PLAIN_PARSE.replace(
        'return line.strip().rstrip(".")', 'return "Tokyo" if "Japan" in line else line')}},
     "hooks.parse line"),
    ({"hooks": {"route": ROUTE, "parse": "def parse(text, item):\n    return 'siraP'[::-1]\n"}},
     "'paris' (inventory entity"),
])
def test_hardcoded_answers_are_found(toy, fields, needle):
    report = check_harness(doc(**fields), toy)
    assert "hardcoded" in checks(report)
    assert any(needle in (v.finding or v.detail) for v in report.violations), report.violations


def test_the_teacher_is_told_the_rule_never_the_term_its_place_or_its_item(toy):
    splits = toy.splits(0, {"probe": 10, "validation": 5, "test": 5})
    probe_gold = {g for i in splits["probe"] for g in toy.gold(i)}
    held = next(g for i in splits["validation"] for g in toy.gold(i)
                if g not in probe_gold and not g.isdigit())
    report = check_harness(doc(prompts={"answer": PLAIN_PROMPT + f" e.g. {held}"}), toy,
                           sizes={"probe": 10, "validation": 5, "test": 5})
    [v] = report.violations
    assert v.check == "hardcoded" and v.detail == REFUSAL
    assert held.casefold() in v.finding and "prompts.answer" in v.finding


def test_short_numbers_are_not_answers_by_themselves():
    terms = {"3": "gold answer of docs-0-validation-0001", "R-23551": "gold", "1,204.50": "g"}
    assert audit_texts([("p", r"Answer in 1 to 3 words. \d{3}")], terms, exempt=[]) == []
    assert len(audit_texts([("p", "R-23551 or 1,204.50")], terms, exempt=[])) == 2
    source = "def parse(text, item):\n    return 'R-' + str(23550+1)\n"
    assert audit_texts(hook_texts(source), terms, exempt=[])


def test_on_docs_short_numbers_pass_and_a_folded_receipt_number_is_caught():
    from tether.systems.compile.answer_audit import audit_findings
    from tether.systems.compile.harness import Harness

    docs = get_setting("docs")
    splits = docs.splits(0, {"probe": 50, "validation": 50, "test": 0})
    known = [*splits["probe"], *splits["validation"]]
    golds = {g for i in known for g in docs.gold(i)}
    assert "3" in golds  # the case in point: a gold answer that is a short number
    words = Harness.model_validate(doc("docs", prompts={
        "answer": "{question}\nAnswer in 1 to 3 words. Amounts look like \\d{3}.\\d\\d."}))
    assert audit_findings(words, docs, known) == []
    number = next(g for i in splits["validation"] for g in docs.gold(i) if g.startswith("R-"))
    digits = int(number.removeprefix("R-"))
    folded = Harness.model_validate(doc("docs", hooks={
        "route": ROUTE,
        "parse": f"def parse(text, item):\n    return 'R-' + str({digits - 1}+1)\n"}))
    [finding] = audit_findings(folded, docs, known)
    assert finding.term.casefold() == number.casefold()


def test_short_codes_count_only_as_standalone_upper_case_tokens():
    terms = {"IN": "inventory", "NO": "inventory", "CAN": "inventory", "India": "inventory"}
    prose = [("p", "In India? no. You can answer in English. INDIANA")]
    found = audit_texts(prose, terms, exempt=[])
    assert found == ["p: contains 'india' (inventory)"]
    assert len(audit_texts([("p", "Answer IN or NO (CAN).")], terms, exempt=[])) == 3


def test_public_vocabulary_is_exempt():
    terms = {"yes": "gold answer of x", "Paris": "inventory"}
    assert audit_texts([("p", "Answer yes or no.")], terms, exempt=["Yes", "no"]) == []
    assert audit_texts([("p", "Answer yes or no.")], terms, exempt=[]) != []


def test_whole_words_only():
    terms = {"Lima": "inventory", "Oslo": "inventory"}
    assert audit_texts([("p", "climate, Oslonian, limarine")], terms, exempt=[]) == []
    assert audit_texts([("p", "to oslo.")], terms, exempt=[]) == ["p: contains 'oslo' (inventory)"]


# --- 4. smoke run -----------------------------------------------------------------------------
# The toy setting's 20 items fit default sizes as 5 / 5 / 10; these tests ask for a probe
# split of ten, the smoke run's full size, to test its thresholds (at most 2 in 10 ...).
TEN = {"probe": 10, "validation": 5, "test": 5}

def test_smoke_fails_on_too_many_hook_errors(toy):
    crashing = "def parse(text, item):\n    return text[1000]\n"
    report = check_harness(doc(hooks={"route": ROUTE, "parse": crashing}), toy, sizes=TEN)
    assert checks(report) == ["smoke"] and "hook errors on 10 of 10" in report.violations[0].detail


def test_smoke_tolerates_two_hook_errors_in_ten(toy):
    # items are picked by a checksum of their id (an id names a country: hard-coded)
    probe = toy.splits(0, TEN)["probe"]
    sums = sorted(sum(map(ord, i.item_id)) for i in probe)
    assert len(set(sums)) == 10

    def failing_on(n):
        return (f"def parse(text, item):\n    if sum(map(ord, item['item_id'])) in {sums[:n]!r}:\n"
                "        raise ValueError('x')\n    return text\n")
    two = check_harness(doc(hooks={"route": ROUTE, "parse": failing_on(2)}), toy, sizes=TEN)
    assert two.admissible
    report = check_harness(doc(hooks={"route": ROUTE, "parse": failing_on(3)}), toy, sizes=TEN)
    assert checks(report) == ["smoke"] and "3 of 10" in report.violations[0].detail


def test_smoke_fails_on_half_empty_answers(toy):
    probe = toy.splits(0, TEN)["probe"]
    assert sum(toy.gold(i)[0].isdigit() for i in probe) == 7  # 7 sums, 3 capitals
    digits_only = "def parse(text, item):\n    return text if text.isdigit() else ''\n"
    letters_only = "def parse(text, item):\n    return '' if text.isdigit() else text\n"
    digits = check_harness(doc(hooks={"route": ROUTE, "parse": digits_only}), toy, sizes=TEN)
    assert digits.admissible
    report = check_harness(doc(hooks={"route": ROUTE, "parse": letters_only}), toy, sizes=TEN)
    assert checks(report) == ["smoke"] and "empty answers on 7 of 10" in report.violations[0].detail
    abstain = "def route(obs, state):\n    return {'abstain': True}\n"
    assert checks(check_harness(doc(hooks={"route": abstain}), toy, sizes=TEN)) == ["smoke"]


# --- 5. determinism ----------------------------------------------------------------------------

def test_state_kept_in_an_imported_module_is_refused(toy):
    # a counter hidden in an imported module is refused by the policy (and could not
    # carry anyway: each hook call runs in a fork that keeps nothing, test_runtime.py)
    leaky = ("import json\ndef parse(text, item):\n    if not hasattr(json, 'seen'):\n"
             "        json.seen = []\n    json.seen.append(1)\n"
             "    return text + str(len(json.seen))\n")
    report = check_harness(doc(hooks={"route": ROUTE, "parse": leaky}), toy)
    assert checks(report) == ["hooks"]


def _aslr() -> bool:
    try:
        return open("/proc/sys/kernel/randomize_va_space").read().strip() != "0"
    except OSError:
        return False


@pytest.mark.skipif(not _aslr(), reason="needs address-space randomisation")
def test_determinism_runs_a_fresh_worker_in_shuffled_order(toy):
    # id(len) is fixed within one process (and its forks) and differs between
    # processes (address-space randomisation): the same-worker pass cannot see it
    per_process = "def parse(text, item):\n    return text + str(id(len) % 1000003)\n"
    report = check_harness(doc(hooks={"route": ROUTE, "parse": per_process}), toy)
    assert checks(report) == ["determinism"]
    assert "a fresh worker, shuffled order" in report.violations[0].detail


def test_the_shuffled_order_is_neither_the_given_one_nor_its_reverse(toy):
    probe = toy.splits(0, {"probe": 50, "validation": 50, "test": 200})["probe"][:10]
    for seed in range(20):
        order = shuffled(probe, seed)
        assert sorted(i.item_id for i in order) == sorted(i.item_id for i in probe)
        assert order not in (probe, probe[::-1])


def test_determinism_passes_a_pure_hook(toy):
    pure = "def parse(text, item):\n    return text + str(len(item['question']))\n"
    assert check_harness(doc(hooks={"route": ROUTE, "parse": pure}), toy).admissible


def test_without_sizes_a_small_data_setting_is_split_as_a_compile_splits_it(tmp_path):
    """12 rows: the fitted 3 / 3 / 6, so a validation item's gold in a prompt is reported
    as held-out (not named to the teacher), as the compile that made the harness saw it."""
    import json

    from tether.systems.compile.setting import fitted_sizes

    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps({"id": f"r{k}", "question": f"Where does ferry {k} go?",
                                        "answer": f"Quux{k}vale"}) + "\n" for k in range(12)))
    setting = get_setting(f"jsonl:{path}")
    held = setting.splits(0, fitted_sizes(12))["validation"][0]
    gold = setting.gold(held)[0]
    report = check_harness(doc(setting.name, prompts={"answer": PLAIN_PROMPT + f" e.g. {gold}"}),
                           setting)
    [v] = report.violations
    assert v.check == "hardcoded" and gold.casefold() in v.finding.casefold()
    assert gold.casefold() not in v.detail.casefold() and held.item_id not in v.detail
