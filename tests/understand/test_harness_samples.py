"""What the harness adapters hand a no-network guesser: every allowed answer is an answer.

`allowed_answers(q)` is what `--model webgauge/random` draws from under Inspect. Property, over
every question of a real benchmark and every allowed answer: the suite's parser accepts it (so a
random answer is scored, never "did not parse"), and for closed tasks the list is exactly the
question's options (UI groups; one relation per pair for position, each relation once).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

pytestmark = pytest.mark.browser


def test_every_allowed_answer_parses(bench):
    from webgauge.understand.adapters.samples import allowed_answers
    from webgauge.understand.export import read_questions
    from webgauge.understand.labeller import UI_GROUPS
    from webgauge.understand.parsers import parse_answer
    from webgauge.understand.relations import RELATIONS

    root, _ = bench
    questions = sorted(read_questions(root), key=lambda q: q.id)
    assert {q.task for q in questions} >= {"position", "ui_group", "color", "safety", "form_fill"}

    @given(st.data())
    def prop(data):
        q = data.draw(st.sampled_from(questions))
        allowed = allowed_answers(q, root)
        assert allowed, q.id
        answer = data.draw(st.sampled_from(allowed))
        assert parse_answer(q.task, answer, q) is not None, (q.id, answer)
        if q.task == "ui_group":
            assert allowed == list(UI_GROUPS)
        if q.task == "position":
            assert len(allowed) == len(RELATIONS) == len(set(allowed))
            assert all(len(a.splitlines()) == len(q.target) for a in allowed)

    prop()
