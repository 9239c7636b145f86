"""A user's script, fully typed: it passes `mypy --strict` against the installed package.

    mypy --strict examples/typed_script.py && python examples/typed_script.py

`tests/test_typed_script.py` checks both, and that mypy does catch a mistake in such a script:
the package ships `py.typed`, its functions and documents are typed (`ar.Code`, the documents'
TypedDicts), so a misspelt key or a wrong type is found before the script runs.
"""

import random

import abyss_rules as ar


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
    view: ar.ViewDocument = ar.view_to_dict(ar.view(state, 0))
    saved: ar.StateDocument = ar.state_to_dict(state)
    verdict: ar.VerdictDocument = ar.validate(state, b"0f00").to_dict()
    return view["draw_pile_size"], saved["format"], verdict["legal"]


if __name__ == "__main__":
    print(play(1), refused(ar.new_game(players=2, seed=4)), documents(ar.new_game(players=2, seed=1)))
