"""A fuzz target per loader: whatever text comes in, it is read and can be written back, or it is
refused with an `AbyssError` that can itself be written.

Every loader a stranger's text reaches -- `loads_state`, `loads_view`, `loads_action`,
`loads_variant`, `Record.from_json`, `apply_events`, `parse_notation`, the protocol's
`read_message` and `judge`, and `parse_json` -- is fed real documents mutated by Hypothesis (a
field replaced by any JSON value, dropped, added, its name or a string holding a lone surrogate),
their text cut and spliced, and arbitrary JSON, as `str` and as UTF-8 `bytes`. A document that
loads must be written back by its writer as UTF-8 text that loads to the same value (rule 10.5:
nothing is accepted that cannot be written). Short runs in CI (the `ci` profile); many more with
`HYPOTHESIS_PROFILE=thorough`.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

import abyss_rules as ar
from abyss_rules.codec import action_to_dict, parse_json, state_to_dict, view_to_dict
from abyss_rules.notation import parse_notation, to_notation
from abyss_rules.protocol import judge, read_message
from abyss_rules.public_table import PublicTable, apply_events


def _played(seed: int, length: int) -> tuple[list[ar.State], list[ar.Action]]:
    rng = random.Random(seed)
    variant = ar.Variant.short().replace(rows=2, cols=3, max_rounds=2)
    states, actions = [ar.new_game(3, variant, seed=seed)], []
    while len(actions) < length and not states[-1].is_over:
        actions.append(rng.choice(ar.legal_actions(states[-1])))
        states.append(ar.apply(states[-1], actions[-1]))
    return states, actions


STATES, ACTIONS = _played(1, 60)
SAMPLES = [STATES[0], STATES[7], STATES[len(STATES) // 2], STATES[-1], ar.new_game(2, seed=9)]
AFTER, EVENTS = ar.apply_with_events(STATES[7], ACTIONS[7])
TABLE = PublicTable.from_view(ar.view(STATES[7], 1))

DOCUMENTS: dict[str, list[Any]] = {
    "state": [state_to_dict(s) for s in SAMPLES],
    "view": [view_to_dict(ar.view(s, p)) for s in SAMPLES for p in (None, 0)],
    "action": [action_to_dict(a, seq=3, request_id="r-1") for a in ar.legal_actions(STATES[7])[:3]],
    "variant": [ar.Variant.short().replace(rows=2, cols=3).to_dict(), ar.Variant.standard().to_dict()],
    "record": [ar.Record.start(seed=3).with_actions(ar.Flip(0, 0, 0), ar.Flip(1, 1, 1)).with_names(
        ["a", "b"]).to_dict()],
    "events": [json.loads(ar.dumps_events(EVENTS, action=ACTIONS[7], seq=AFTER.seq))],
}

LONE = st.sampled_from(["\ud800", "\udbff", "\udc00", "\udfff"])
TEXT = st.text(max_size=8) | st.builds(lambda a, b, c: a + b + c, st.text(max_size=3), LONE,
                                       st.text(max_size=3))
JSON: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**60), 2**60) | st.integers() | TEXT
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=12,
)


@st.composite
def mutated(draw: st.DrawFn, kind: str) -> Any:
    """A real document of `kind`, with up to three of its values, names or fields changed."""
    doc = json.loads(json.dumps(draw(st.sampled_from(DOCUMENTS[kind]))))
    for _ in range(draw(st.integers(1, 3))):
        parent, key = doc, None
        while True:  # walk down to a random container
            children = list(parent.items()) if isinstance(parent, dict) else list(enumerate(parent)) \
                if isinstance(parent, list) else []
            if not children:
                break
            key, child = draw(st.sampled_from(children))
            if not isinstance(child, (dict, list)) or not child or draw(st.booleans()):
                break
            parent = child
        if key is None:
            continue
        change = draw(st.sampled_from(["replace", "drop", "add", "rename"]))
        if change == "replace":
            parent[key] = draw(JSON)
        elif change == "drop":
            del parent[key]
        elif isinstance(parent, dict):
            name = draw(TEXT)
            parent[name] = parent.pop(key) if change == "rename" else draw(JSON)
        else:
            parent.insert(key, draw(JSON))
    return doc


@st.composite
def texts(draw: st.DrawFn, kind: str) -> str | bytes:
    """Text a loader of `kind` may be given: a mutated document, spliced text, or any JSON."""
    how = draw(st.sampled_from(["mutated", "spliced", "any"]))
    if how == "any":
        doc = draw(JSON)
    else:
        doc = draw(mutated(kind)) if how == "mutated" else draw(st.sampled_from(DOCUMENTS[kind]))
    text = json.dumps(doc, ensure_ascii=draw(st.booleans()))
    if how == "spliced":
        start = draw(st.integers(0, len(text)))
        end = draw(st.integers(start, min(len(text), start + 12)))
        text = text[:start] + draw(st.text(max_size=6) | LONE | st.sampled_from(['"', "\\ud800", "}", ","])) \
            + text[end:]
    if draw(st.booleans()):
        return text.encode("utf-8", "surrogatepass")  # a raw lone surrogate is then not UTF-8
    return text


def _writable(error: ar.AbyssError) -> None:
    json.dumps(error.to_dict(), ensure_ascii=False).encode("utf-8")


def round_trips(load: Callable[[Any], Any], dump: Callable[[Any], str], data: str | bytes) -> None:
    try:
        value = load(data)
    except ar.AbyssError as error:
        _writable(error)
        return
    text = dump(value)
    text.encode("utf-8")  # accepted text can be written back ...
    assert load(text) == value  # ... and read again


@given(texts("state"))
def test_loads_state(data: str | bytes) -> None:
    round_trips(ar.loads_state, ar.dumps_state, data)


@given(texts("view"))
def test_loads_view(data: str | bytes) -> None:
    round_trips(ar.loads_view, ar.dumps_view, data)


@given(texts("action"))
def test_loads_action_and_read_message(data: str | bytes) -> None:
    round_trips(ar.loads_action, ar.dumps_action, data)
    try:
        message = read_message(data)
    except ar.AbyssError as error:
        _writable(error)
    else:
        again = read_message(ar.dumps_action(message.action, seq=message.seq, request_id=message.request_id))
        assert again == message


@given(texts("variant"))
def test_loads_variant(data: str | bytes) -> None:
    round_trips(ar.loads_variant, ar.dumps_variant, data)


@given(texts("record"))
def test_record_from_json(data: str | bytes) -> None:
    round_trips(ar.Record.from_json, ar.Record.to_json, data)


@given(texts("events"))
def test_apply_events(data: str | bytes) -> None:
    try:
        table = apply_events(TABLE, data)
    except ar.AbyssError as error:
        _writable(error)
    else:
        assert table.seq == TABLE.seq + 1


@given(st.text(max_size=30) | st.sampled_from(["0f12", "15x10.3", "1d", "0f1\ud800"]) | st.binary(max_size=8))
def test_parse_notation(text: Any) -> None:
    round_trips(parse_notation, to_notation, text)


@given(texts("action") | st.sampled_from(["0f00", "1d", "0f\ud800"]))
def test_judge_answers_every_message_with_a_writable_verdict(data: str | bytes) -> None:
    verdict, accepted = judge(STATES[0], data, notation=True)
    sent = json.loads(verdict.to_json().encode("utf-8"))
    assert sent["legal"] is verdict.legal is (accepted is not None)


@given(st.one_of(texts("state"), texts("view"), JSON.map(json.dumps)))
def test_parse_json(data: str | bytes) -> None:
    try:
        value = parse_json(data)
    except ar.AbyssError as error:
        _writable(error)
    else:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
