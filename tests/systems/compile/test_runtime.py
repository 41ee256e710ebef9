"""The runtime on one item: routing, parsing, limits, and who is at fault."""

from __future__ import annotations

import pytest

from tether.models.errors import ServerError
from tether.systems.compile.runtime import HarnessRuntime, HookRunner, score_outcome

from .conftest import PictureToy, RecordingStudent, make_harness


def run(harness, item, student, setting=None, **kw):
    from tether.systems.compile.settings.toy import ToySetting
    with HarnessRuntime(harness, setting or ToySetting(), **kw) as rt:
        return rt.run_item(item, student)


def test_without_hooks_one_answer_call_and_strip(toy, items):
    item = items[0]
    student = RecordingStudent(lambda p: f"  {toy.gold(item)[0]}\n")
    outcome = run(make_harness(), item, student)
    assert student.prompts == [item.question]
    assert outcome.status == "answered" and outcome.answer == toy.gold(item)[0]
    assert outcome.calls == [{"prompt": "answer", "reply": f"  {toy.gold(item)[0]}\n"}]
    assert score_outcome(toy, item, outcome) == 1.0
    assert outcome.hook_trace == []


def test_route_calls_the_student_in_turn_and_parse_reads_the_last_reply(items):
    route = '''
def route(obs, state):
    n = len(state["calls"])
    if n == 0:
        return {"call_student": {"prompt": "think", "vars": {"tip": "be brief"}}}
    if n == 1:
        return {"call_student": {"prompt": "answer", "vars": {"draft": state["calls"][0]["reply"]}}}
    return {"done": True}
'''
    parse = "import re\ndef parse(text, item):\n    return re.sub(r'^Answer: ', '', text).strip()\n"
    harness = make_harness(prompts={"think": "{question} ({tip})", "answer": "{draft}!"},
                           hooks={"route": route, "parse": parse})
    replies = iter(["draft one", "Answer: final"])
    student = RecordingStudent(lambda p: next(replies))
    outcome = run(harness, items[0], student)
    assert student.prompts == [f"{items[0].question} (be brief)", "draft one!"]
    assert (outcome.status, outcome.answer, outcome.step_limit) == ("answered", "final", False)
    assert [t["hook"] for t in outcome.hook_trace] == ["route", "route", "route", "parse"]


def test_done_before_any_call_is_a_hook_error(items):
    route = "def route(obs, state):\n    return {'done': True}\n"
    outcome = run(make_harness(hooks={"route": route}), items[0], RecordingStudent())
    assert outcome.status == "hook_error" and "done before" in outcome.error


def test_verdict_skips_parse_and_defer_forbids_it(items):
    route = "def route(obs, state):\n    return {'verdict': 'Paris'}\n"
    parse = "def parse(text, item):\n    raise ValueError('never called')\n"
    student = RecordingStudent()
    verdict = run(make_harness(answer_mode="verdict", hooks={"route": route, "parse": parse}),
                  items[0], student)
    assert (verdict.status, verdict.answer, verdict.calls) == ("verdict", "Paris", [])
    assert student.prompts == []
    deferred = run(make_harness(answer_mode="defer", hooks={"route": route}), items[0], student)
    assert deferred.status == "hook_error" and "defer" in deferred.error


def test_suggest_hands_the_verdict_to_the_student(items):
    route = "def route(obs, state):\n    return {'verdict': 'Paris'}\n"
    harness = make_harness(answer_mode="suggest", hooks={"route": route},
                           prompts={"answer": "{question} Suggested: {suggestion}"})
    student = RecordingStudent("Lyon")
    outcome = run(harness, items[0], student)
    assert student.prompts == [f"{items[0].question} Suggested: Paris"]
    assert (outcome.status, outcome.answer) == ("answered", "Lyon")


def test_abstain_answers_nothing(toy, items):
    route = "def route(obs, state):\n    return {'abstain': True}\n"
    outcome = run(make_harness(hooks={"route": route}), items[0], RecordingStudent())
    assert (outcome.status, outcome.answer) == ("abstain", "")
    assert score_outcome(toy, items[0], outcome) == 0.0


def test_at_most_max_steps_student_calls(items):
    route = "def route(obs, state):\n    return {'call_student': {'prompt': 'answer'}}\n"
    student = RecordingStudent(lambda p: str(len(student.prompts)))
    outcome = run(make_harness(hooks={"route": route}), items[0], student)
    assert len(student.prompts) == 4 and outcome.step_limit
    assert outcome.answer == "4"  # the last reply stands
    assert len([t for t in outcome.hook_trace if t["hook"] == "route"]) == 5


@pytest.mark.parametrize(("route", "needle"), [
    ("def route(obs, state):\n    raise KeyError('boom')\n", "raised (KeyError"),
    ("def route(obs, state):\n    while True:\n        pass\n", "timeout"),
    ("def route(obs, state):\n    return 'answer'\n", "exactly one of"),
    ("def route(obs, state):\n    return {'call_student': {'prompt': 'other'}}\n",
     "unknown prompt"),
    ("def route(obs, state):\n    return {'call_student': {'prompt': 'answer', 'x': 1}}\n",
     "unknown keys"),
    ("def route(obs, state):\n    return {'verdict': 3}\n", "malformed"),
    # the call_student body's schema: strict types, no coercion of a hook's value
    ("def route(obs, state):\n    return {'call_student': {'prompt': 5}}\n",
     "call_student prompt: Input should be a valid string"),
    ("def route(obs, state):\n    return {'call_student': {'prompt': 'answer', "
     "'vars': ['/etc/passwd']}}\n", "call_student vars: Input should be a valid dictionary"),
    ("def route(obs, state):\n    return {'call_student': {'prompt': 'answer', "
     "'image': 'yes'}}\n", "call_student image: Input should be a valid boolean"),
    ("def route(obs, state) syntax error", "load"),
])
def test_a_faulty_route_makes_a_hook_error_scored_wrong(toy, items, route, needle):
    outcome = run(make_harness(answer_mode="verdict", hooks={"route": route}), items[0],
                  RecordingStudent(), hooks=None)
    assert outcome.status == "hook_error" and needle in outcome.error
    assert outcome.answer is None and score_outcome(toy, items[0], outcome) == 0.0


def test_hook_deadline_is_per_call(items):
    slow = "import time\ndef parse(text, item):\n    time.sleep(0.3)\n    return text\n"
    harness = make_harness(hooks={"parse": slow})
    with HookRunner(harness, deadline_s=0.1) as hooks:
        outcome = run(harness, items[0], RecordingStudent(), hooks=hooks)
    assert outcome.status == "hook_error" and "timeout" in outcome.error
    assert run(harness, items[0], RecordingStudent("x")).answer == "x"  # 2 s default


def test_a_missing_template_field_is_a_hook_error(items):
    outcome = run(make_harness(prompts={"answer": "{question} {ocr}"}), items[0],
                  RecordingStudent())
    assert outcome.status == "hook_error" and "no value for {ocr}" in outcome.error


def test_parse_must_return_a_string(items):
    parse = "def parse(text, item):\n    return 42\n"
    outcome = run(make_harness(hooks={"parse": parse}), items[0], RecordingStudent())
    assert outcome.status == "hook_error" and "must return a string" in outcome.error


def test_parse_sees_the_observation_not_gold(items):
    parse = "def parse(text, item):\n    return ','.join(sorted(item))\n"
    outcome = run(make_harness(hooks={"parse": parse}, resources={"hint": True}), items[0],
                  RecordingStudent())
    assert outcome.answer == "hint,item_id,question"


def test_text_students_get_no_image_and_image_students_do(items):
    route = "def route(obs, state):\n    if state['calls']:\n        return {'verdict': 'x'}\n" \
            "    return {'call_student': {'prompt': 'answer', 'image': True}}\n"
    harness = make_harness(answer_mode="verdict", hooks={"route": route})
    text_student, vlm = RecordingStudent(), RecordingStudent()
    assert run(harness, items[0], text_student, setting=PictureToy()).student_modality == "text"
    run(harness, items[0], vlm, setting=PictureToy(), student_modality="image")
    assert text_student.images == [None] and vlm.images == [b"\x89PNG-toy"]


def test_select_lines_chooses_the_card_lines_the_student_sees(items):
    select = "def select_lines(card, question):\n    return [l for l in card.splitlines() " \
             "if l.startswith('Population')]\n"
    harness = make_harness(resources={"cards": True}, hooks={"select_lines": select},
                           prompts={"answer": "{candidates}"})
    student = RecordingStudent()
    run(harness, items[0], student, setting=PictureToy())
    assert "Population: 3" in student.prompts[0] and "Motto" not in student.prompts[0]


def test_a_hook_counting_items_gives_the_same_result_in_any_order(items):
    counter = "seen = []\ndef route(obs, state):\n    seen.append(obs['item_id'])\n" \
              "    return {'verdict': str(len(seen)) + ':' + str(hash('salt') % 1000)}\n"
    harness = make_harness(answer_mode="verdict", hooks={"route": counter})
    from tether.systems.compile.settings.toy import ToySetting
    with HarnessRuntime(harness, ToySetting()) as rt:
        forward = {i.item_id: rt.run_item(i, RecordingStudent()).answer for i in items}
        backward = {i.item_id: rt.run_item(i, RecordingStudent()).answer
                    for i in reversed(items)}
    assert forward == backward
    assert len({a.split(":")[0] for a in forward.values()}) == 1  # always "1"


def test_student_api_failure_is_an_infra_error_never_scored(toy, items):
    def failing(prompt, image):
        raise ServerError("503 from the endpoint")
    outcome = run(make_harness(), items[0], failing)
    assert outcome.status == "infra_error" and "ServerError" in outcome.error
    assert score_outcome(toy, items[0], outcome) is None


def test_sandbox_failure_is_an_infra_error(toy, items):
    harness = make_harness(hooks={"parse": "def parse(text, item):\n    return text\n"})
    hooks = HookRunner(harness)
    hooks.close()  # a closed worker raises SandboxError: the sandbox's fault
    outcome = run(harness, items[0], RecordingStudent(), hooks=hooks)
    assert outcome.status == "infra_error" and "sandbox" in outcome.error
    assert score_outcome(toy, items[0], outcome) is None


def test_junk_on_the_reply_channel_is_a_hook_error_scored_zero(toy, items):
    # the hook's process can write the reply fd: what arrives there is the hook's doing
    junk = ("import os, sys\ndef parse(text, item):\n"
            "    os.write(int(sys.argv[1]), b'junk\\n')\n    return text\n")
    outcome = run(make_harness(hooks={"parse": junk}), items[0], RecordingStudent())
    assert outcome.status == "hook_error" and "protocol" in outcome.error
    assert score_outcome(toy, items[0], outcome) == 0.0


@pytest.mark.parametrize(("write", "needle"), [
    # a reply nested past any recursion limit must not crash the host
    ("os.write(int(sys.argv[1]), b'[' * 100000 + b']' * 100000 + b'\\n')", "protocol"),
    ("os.write(int(sys.argv[1]), b'\"' + b'x' * 300000 + b'\"\\n')", "reply over 262144 bytes"),
])
def test_hostile_replies_are_hook_errors(toy, items, write, needle):
    hook = f"import os, sys\ndef parse(text, item):\n    {write}\n    return text\n"
    outcome = run(make_harness(hooks={"parse": hook}), items[0], RecordingStudent())
    assert outcome.status == "hook_error" and needle in outcome.error, outcome.error
    assert score_outcome(toy, items[0], outcome) == 0.0


def test_a_large_or_deep_return_value_is_a_hook_error(items):
    big = "def parse(text, item):\n    return 'x' * 300000\n"
    outcome = run(make_harness(hooks={"parse": big}), items[0], RecordingStudent())
    assert outcome.status == "hook_error" and "reply over" in outcome.error
    deep = ("def route(obs, state):\n    v = 1\n    for _ in range(100):\n        v = [v]\n"
            "    return {'verdict': v}\n")
    outcome = run(make_harness(answer_mode="verdict", hooks={"route": deep}), items[0],
                  RecordingStudent())
    assert outcome.status == "hook_error" and "nested deeper" in outcome.error


# --- the hook worker's bounds (real bwrap) --------------------------------------------------

def test_state_hidden_in_sys_modules_does_not_reach_the_next_call(items):
    # the runtime does not read the AST policy: the fork each call runs in is what holds
    hidden = ("import sys\ndef route(obs, state):\n"
              "    seen = sys.modules.setdefault('hidden_counter', [])\n"
              "    seen.append(1)\n    return {'verdict': 'Paris' if len(seen) > 3 else 'x'}\n")
    harness = make_harness(answer_mode="verdict", hooks={"route": hidden})
    from tether.systems.compile.settings.toy import ToySetting
    with HarnessRuntime(harness, ToySetting()) as rt:
        answers = [rt.run_item(i, RecordingStudent()).answer for i in items * 3]
    assert set(answers) == {"x"}


def test_processes_a_hook_starts_end_with_its_call(items):
    import time
    import uuid

    from tests.sandbox.conftest import processes_matching
    from tether.systems.compile.settings.toy import ToySetting
    token = f"tok{uuid.uuid4().hex[:10]}"
    forker = ("import subprocess\ndef parse(text, item):\n"
              f"    subprocess.Popen(['setsid', 'sh', '-c', 'sleep 1000; : {token}'])\n"
              f"    subprocess.Popen(['sh', '-c', '(sleep 1000; : {token}) &'])\n"
              "    return text\n")
    harness = make_harness(hooks={"parse": forker})
    with HarnessRuntime(harness, ToySetting()) as rt:
        for item in items[:2]:
            assert rt.run_item(item, RecordingStudent()).status == "answered"
            deadline = time.monotonic() + 10  # SIGKILLed already; a poll for the reaping
            while processes_matching(token) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert not processes_matching(token)
        worker = rt.hooks._worker
        assert worker is not None and worker.strays_killed >= 4 and worker.starts == 1


@pytest.mark.skipif(__import__("os").geteuid() != 0, reason="mounting a quota needs root")
def test_a_hook_filling_its_disk_is_a_hook_error(toy, items):
    from tether.systems.compile.runtime import HOOK_DISK_MB
    # files just under the 1 MB file limit: only the disk quota stops them
    filler = ("def parse(text, item):\n    for i in range(100):\n"
              "        with open(f'f{i}', 'wb') as fh:\n"
              "            fh.write(b'x' * ((1 << 20) - 1))\n    return text\n")
    harness = make_harness(hooks={"parse": filler})
    hooks = HookRunner(harness)
    assert hooks._worker is not None and hooks._worker.disk_quota_mb == HOOK_DISK_MB
    workdir = hooks._worker.workdir
    with HarnessRuntime(harness, toy, hooks=hooks) as rt:
        outcome = rt.run_item(items[0], RecordingStudent())
        used = sum(p.stat().st_size for p in workdir.iterdir())
    assert outcome.status == "hook_error" and "No space left" in outcome.error, outcome.error
    assert score_outcome(toy, items[0], outcome) == 0.0
    assert used <= HOOK_DISK_MB << 20
    assert not workdir.exists()  # unmounted and removed with the worker


def test_each_hook_call_starts_from_a_clean_work_dir(items):
    # a call leaves a file, a dir it made unreadable and a deep tree behind; the next call
    # must see none of them (before: calls 1-4 saw 0, 1, 2, 3 earlier calls' files)
    parse = ("import os\n"
             "def parse(text, item):\n"
             "    seen = sorted(os.listdir('.'))\n"
             "    n = len(seen)\n"
             "    open(f'left{n}.txt', 'w').write('x')\n"
             "    os.makedirs(f'deep{n}/' + '/'.join(['d'] * 50))\n"
             "    os.mkdir(f'locked{n}')\n"
             "    os.chmod(f'locked{n}', 0)\n"
             "    return ','.join(seen) or 'empty'\n")
    harness = make_harness(hooks={"parse": parse})
    with HookRunner(harness) as hooks:
        seen = [hooks.call("parse", "text", {}) for _ in range(4)]
    assert seen == ["empty"] * 4
