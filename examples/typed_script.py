"""A user's script, fully typed: it passes `mypy --strict` against the installed package.

    mypy --strict examples/typed_script.py && python examples/typed_script.py

`tests/test_typed_script.py` checks both, and that mypy does catch a mistake in such a script:
the package ships `py.typed`, its functions and documents are typed (`ar.Code`, the documents'
TypedDicts), so a misspelt key, a wrong type or a name imported from the wrong place is found
before the script runs. The game comes from the package itself; the rest from its modules.
"""

import random

import abyss_rules as ar
from abyss_rules.bots import GreedyBot
from abyss_rules.codec import state_to_dict, view_to_dict
from abyss_rules.documents import CardRevealedDict, StateDocument, VerdictDocument, ViewDocument
from abyss_rules.events import CardRevealed
from abyss_rules.notation import to_notation
from abyss_rules.pictures import to_svg
from abyss_rules.protocol import validate
from abyss_rules.simulation import GameResult, play_game


def play(seed: int) -> list[int]:
    state: ar.State = ar.new_game(players=2, variant="short", seed=seed)
    rng = random.Random(seed)
    while not state.is_over:
        actions: list[ar.Action] = list(ar.legal_actions(state))
        state = ar.apply(state, rng.choice(actions))
    return list(state.totals)


def refused(state: ar.State) -> ar.Code | None:
    try:
        ar.apply(state, ar.Draw(0))
    except ar.AbyssError as error:
        code: ar.Code = error.code
        rule: str | None = error.rule
        return code if rule is not None else None
    return None


def documents(state: ar.State) -> tuple[int, str, bool]:
    view: ViewDocument = view_to_dict(ar.view(state, 0))
    saved: StateDocument = state_to_dict(state)
    verdict: VerdictDocument = validate(state, b"0f00").to_dict()
    return view["draw_pile_size"], saved["format"], verdict["legal"]


def features(seed: int) -> tuple[int, str, str, int]:
    result: GameResult = play_game([GreedyBot(), "random"], variant="short", seed=seed)
    flip = ar.Flip(0, 0, 0)
    after, events = ar.apply_with_events(ar.new_game(players=2, seed=seed), flip)
    revealed = [event for event in events if isinstance(event, CardRevealed)]
    first: CardRevealedDict = {"type": "card_revealed", "seat": revealed[0].seat, "row": 0, "col": 0,
                               "value": revealed[0].value, "cause": "opening_flip"}
    text: str = ar.dumps_events(events, action=flip, seq=after.seq)
    picture: str = to_svg(ar.view(after, 0))
    return len(result.actions), to_notation(flip), picture[:4], text.count(first["type"])


if __name__ == "__main__":
    print(play(1), refused(ar.new_game(players=2, seed=4)), documents(ar.new_game(players=2, seed=1)),
          features(2))
