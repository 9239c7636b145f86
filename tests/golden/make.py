"""Golden files of whole games: every JSON document the engine writes, byte for byte.

Each game below is played from its seed by a seeded chooser (it picks among the legal
actions sorted by notation, so it depends on which actions are legal, not on the order
`legal_actions` lists them in). For every game, ``tests/golden/<name>.txt`` holds one
document per line, each line ``<tag> <text>``:

* ``variant`` -- the variant document; ``record`` / ``record_redacted`` -- the record
  of the whole game, full (sealed, with seed, decks and final hash) and redacted;
* ``state N`` -- the state document of the state numbered ``N`` (its ``seq``), then
  ``hash N`` -- its `state_hash`, and ``view N S`` -- the view of seat ``S`` (``-``: a
  spectator) for every seat;
* ``action N`` -- the action document (with ``seq`` the state it was made in, ``N - 1``)
  that led to state ``N``, and ``events N`` -- the events document of that action.

``tests/golden/cli/<name>.txt`` holds what ``abyss-rules replay`` prints for the full
record (the narration of the command line).

``tests/golden/playthroughs/<name>.txt`` is the same game for a person to read, for the games
in `PLAYTHROUGHS`: per step, the whole table as text (hidden cards shown in brackets), the
piles, the legal actions in notation, the action taken and the events it made, in words.

``tests/test_golden.py`` rebuilds all of it in memory and compares bytes: any change of
any byte of any document (or of the narration) fails it. When a change is *meant* to
change documents (for example the `rules_version` bump), regenerate the files from the
repository's root and review the diff::

    python -m tests.golden.make          # rewrites every golden text file
    git diff --stat tests/golden/
"""

from __future__ import annotations

import io
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import abyss_rules as ar
from abyss_rules.cli import main as cli_main
from abyss_rules.codec import state_hash
from abyss_rules.notation import to_notation
from abyss_rules.pictures import action_words, event_words

HERE = Path(__file__).resolve().parent
CLI_DIR = HERE / "cli"
PLAY_DIR = HERE / "playthroughs"

# name -> (players, variant fields, seed, explicit deck orders or None, chooser seed, share of draws).
# Between them they set every Variant field away from its default somewhere, with 2 to 6 players.
_SMALL_DECK: Any = ((0, 4), (1, 4), (5, 4))  # 12 cards: 2 players of 2x2 leave 3 to draw, so it reshuffles
GAMES: dict[str, tuple[int, dict[str, Any], int, tuple[tuple[int, ...], ...] | None, int, float]] = {
    # The standard grid (3x4), one round (the `short` preset), 2 players.
    "short_2p": (2, {"name": "short", "max_rounds": 1}, 7, None, 1, 0.3),
    # 4 players on 2x2 grids; the previous closer opens; a threefold closer penalty; no target score.
    "previous_closer_4p": (4, {"name": "previous-closer", "rows": 2, "cols": 2,
                               "opener": "previous_closer", "closer_multiplier": 3, "target_score": None,
                               "max_rounds": 2}, 11, None, 2, 0.3),
    # 3 players on 3x2 grids, no flip turns, no swallowing at the final reveal, no opening flips,
    # a stalling cap that ends every round.
    "no_flip_3p": (3, {"name": "no-flip", "rows": 3, "cols": 2, "initial_flips": 0, "flip_turn": False,
                       "swallow_on_final_reveal": False, "max_turns_per_round": 12, "target_score": 100,
                       "max_rounds": 2}, 23, None, 3, 0.3),
    # A tiny deck that runs out (reshuffles), the top discard reshuffled too, explicit deck orders
    # for the first two rounds, no closer penalty.
    "reshuffle_2p": (2, {"name": "reshuffle", "rows": 2, "cols": 2, "deck": _SMALL_DECK, "max_players": 2,
                         "reshuffle_keeps_top": False, "closer_multiplier": 1, "target_score": 25,
                         "max_rounds": 4, "min_players": 2, "initial_flips": 1},
                     5, ((5, 0, 1, 5, 0, 1, 5, 0, 1, 5, 0, 1), (0, 0, 0, 0, 1, 1, 1, 1, 5, 5, 5, 5)), 4, 0.7),
    # The same tiny deck keeping the top discard at a reshuffle; one player may play alone.
    "keep_top_1p": (1, {"name": "solo", "rows": 2, "cols": 2, "deck": _SMALL_DECK, "min_players": 1,
                        "max_players": 2, "max_rounds": 2, "target_score": None}, 8, None, 5, 0.9),
    # 6 players on 2x2 grids, three opening flips each, one round.
    "six_players": (6, {"name": "long", "rows": 2, "cols": 2, "target_score": 60, "max_rounds": 1,
                        "initial_flips": 3}, 31, None, 6, 0.2),
}


def _choose(rng: random.Random, state: ar.State, draws: float) -> ar.Action:
    """A legal action: a draw with probability `draws` when one is legal, else any, uniformly."""
    actions = sorted(ar.legal_actions(state), key=to_notation)
    if rng.random() < draws:
        for action in actions:
            if isinstance(action, ar.Draw):
                return action
    return rng.choice(actions)


def record_of(name: str) -> ar.Record:
    """The sealed record of game `name`, played by the seeded chooser."""
    players, fields, seed, decks, chooser, draws = GAMES[name]
    variant = ar.Variant(**fields)
    record = ar.Record.start(players, variant, seed, decks=decks)
    rng = random.Random(chooser)
    state = record.initial_state()
    actions = []
    while not state.is_over:
        action = _choose(rng, state, draws)
        actions.append(action)
        state = ar.apply(state, action)
    return record.with_actions(*actions).sealed()


def _views(state: ar.State) -> Iterator[str]:
    for seat in [*range(len(state.totals)), None]:
        yield f"view {state.seq} {'-' if seat is None else seat} {ar.dumps_view(ar.view(state, seat))}"


def documents(name: str) -> str:
    """The golden text of game `name` (see the module docs)."""
    record = record_of(name)
    lines = [f"variant {ar.dumps_variant(record.variant)}",
             f"record {record.to_json()}",
             f"record_redacted {record.redact().to_json()}"]
    state = record.initial_state()
    lines += [f"state 0 {ar.dumps_state(state)}", f"hash 0 {state_hash(state)}", *_views(state)]
    for action in record.actions:
        after, events = ar.apply_with_events(state, action)
        n = after.seq
        lines += [f"action {n} {ar.dumps_action(action, seq=state.seq)}",
                  f"events {n} {ar.dumps_events(events, action=action, seq=n)}",
                  f"state {n} {ar.dumps_state(after)}", f"hash {n} {state_hash(after)}", *_views(after)]
        state = after
    return "\n".join(lines) + "\n"


def narration(name: str) -> str:
    """What `abyss-rules replay -` prints for the full record of game `name`."""
    out, err = io.StringIO(), io.StringIO()
    status = cli_main(["replay", "-"], stdin=io.StringIO(record_of(name).to_json()), stdout=out, stderr=err)
    return f"exit {status}\n{out.getvalue()}{err.getvalue()}"


# The games written out step by step for a person: few and short, so that they are read.
PLAYTHROUGHS = ("short_2p", "previous_closer_4p", "reshuffle_2p")


def _cell(grid: ar.Grid, space: int) -> str:
    """A space as five characters: a face-up value, a face-down one in brackets, `--` swallowed."""
    if grid.swallowed[space]:
        return "   --"
    value = grid.cards[space]
    return f"{value:>4} " if grid.face_up[space] else f"{f'({value})':>5}"


def _table(state: ar.State) -> list[str]:
    """Every seat's grid, one line per row, seats side by side (rows and columns from 0)."""
    grids = [state.grid(p) for p in range(state.players)]
    width = 5 * grids[0].cols
    lines = ["    " + "   ".join(f"seat {p}".center(width) for p in range(len(grids)))]
    for r in range(grids[0].rows):
        cells = ["".join(_cell(g, r * g.cols + c) for c in range(g.cols)) for g in grids]
        lines.append(f"{r:>2}  " + "   ".join(cells))
    return [line.rstrip() for line in lines]


def _step(state: ar.State) -> list[str]:
    to_act = " ".join(map(str, state.to_act)) or "-"
    drawn = "-" if state.drawn is None else str(state.drawn)
    lines = [f"phase {state.phase.value}, round {state.round}, to act {to_act}, seq {state.seq}, "
             f"totals {' '.join(map(str, state.totals))}", *_table(state),
             f"draw pile {len(state.draw_pile)}"
             + (f" (top {state.draw_pile[0]})" if state.draw_pile else "")
             + f"; discard pile {' '.join(map(str, state.discard_pile)) or '-'}; drawn {drawn}"]
    legal = sorted(to_notation(a) for a in ar.legal_actions(state))
    lines.append(f"legal ({len(legal)}): {' '.join(legal) if legal else '-'}")
    return lines


def playthrough(name: str) -> str:
    """Game `name` step by step, for a person to read (see the module docs)."""
    record = record_of(name)
    players, _, seed, _, _, _ = GAMES[name]
    lines = [f"# {name}: {players} players, seed {seed}, variant {ar.dumps_variant(record.variant)}", ""]
    state = record.initial_state()
    for action in record.actions:
        lines += _step(state)
        state, events = ar.apply_with_events(state, action)
        lines.append(f"action {to_notation(action)}: {action_words(action)}")
        lines += [f"  {type(event).__name__}: {event_words(event)}" for event in events]
        lines.append("")
    lines += _step(state)
    lines.append(f"game over: winners {' '.join(map(str, state.winners))}")
    return "\n".join(lines) + "\n"


def expected_files() -> dict[Path, str]:
    """Every golden file and its text, built in memory."""
    files: dict[Path, str] = {}
    for name in GAMES:
        files[HERE / f"{name}.txt"] = documents(name)
        files[CLI_DIR / f"{name}.txt"] = narration(name)
    for name in PLAYTHROUGHS:
        files[PLAY_DIR / f"{name}.txt"] = playthrough(name)
    return files


def main() -> int:
    CLI_DIR.mkdir(exist_ok=True)
    PLAY_DIR.mkdir(exist_ok=True)
    for path, text in expected_files().items():
        old = path.read_text(encoding="utf-8") if path.exists() else None
        if old != text:
            path.write_text(text, encoding="utf-8", newline="\n")
            print(f"wrote {path.relative_to(HERE.parent.parent)} ({len(text.encode())} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
