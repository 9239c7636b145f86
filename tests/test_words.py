"""The words of the game (abyss_rules.pictures._words): one wording of the events, for the CLI and pages."""

from __future__ import annotations

import pytest

import abyss_rules as ar
from abyss_rules import _event_types as ev
from abyss_rules.pictures import _pages as pages
from abyss_rules.pictures._words import (
    a_card,
    action_words,
    caption_words,
    closing_words,
    event_words,
    game_over_words,
    opener_words,
    round_scores_words,
    turn_words,
)
from abyss_rules.simulation import play_game


def test_the_replay_page_and_the_narration_share_one_wording() -> None:
    assert pages.event_words is event_words


@pytest.mark.parametrize(("value", "words"), [(8, "an 8"), (11, "an 11"), (18, "an 18"), (83, "an 83"),
                                              (800, "an 800"), (7, "a 7"), (-2, "a -2"), (0, "a 0")])
def test_a_card_takes_the_article_of_its_value(value: int, words: str) -> None:
    assert a_card(value) == words


@pytest.mark.parametrize(("events", "words"), [
    ([ev.CardRevealed(1, 0, 2, 7, "opening_flip")], "seat 1 flips (0,2): 7"),
    ([ev.CardRevealed(0, 2, 1, 12, "flip")], "seat 0 flips (2,1): 12"),
    ([ev.CardPlaced(0, 1, 1, -2, "discard"), ev.CardDiscarded(0, 9, "replaced", 1, 1, was_face_down=False)],
     "seat 0 takes the -2 from the discard pile and places it on (1,1), discarding 9"),
    ([ev.CardPlaced(1, 0, 0, 8, "drawn"), ev.CardDiscarded(1, 3, "replaced", 0, 0, was_face_down=True)],
     "seat 1 draws an 8 and places it on (0,0), discarding a face-down 3"),
    ([ev.CardDiscarded(2, 11, "drawn", None, None, False), ev.CardRevealed(2, 1, 3, 4, "discard_drawn"),
      ev.ColumnSwallowed(2, 3, 4, 3, final_reveal=False)],
     "seat 2 draws an 11, discards it and flips (1,3): 4; column 3 (3 x 4) is swallowed"),
    ([ev.Reshuffled(40, 5), ev.CardDrawn(0, 6)], "seat 0 draws"),
])
def test_turn_words_tell_an_action_from_its_events(events: list[ev.Event], words: str) -> None:
    assert turn_words(events) == words


def test_turn_words_leave_the_final_reveal_swallows_to_the_end_of_the_round() -> None:
    events = [ev.CardRevealed(0, 0, 0, 5, "flip"), ev.RoundClosed(0), ev.FinalReveal(((1, 0, 0, 2),)),
              ev.ColumnSwallowed(1, 0, 2, 3, final_reveal=True)]
    assert turn_words(events) == "seat 0 flips (0,0): 5"


def test_turn_words_need_a_card_that_moved() -> None:
    for words in (turn_words, caption_words):
        with pytest.raises(ar.PictureError, match="no card was moved") as refused:
            words([ev.OpeningDone(1)])
        assert refused.value.code == "invalid_picture" and isinstance(refused.value, ValueError)


@pytest.mark.parametrize("call, error", [
    (lambda: action_words(None), ar.MalformedActionError),  # type: ignore[arg-type]
    (lambda: action_words("0d"), ar.MalformedActionError),  # type: ignore[arg-type]
    (lambda: event_words(None), ar.ArgumentError),  # type: ignore[arg-type]
    (lambda: event_words({"type": "card_drawn"}), ar.ArgumentError),  # type: ignore[arg-type]
    (lambda: caption_words(None), ar.ArgumentError),  # type: ignore[arg-type]
    (lambda: caption_words("x"), ar.ArgumentError),  # type: ignore[arg-type]
    (lambda: caption_words([ev.CardDrawn(1, 7), "x"]), ar.ArgumentError),  # type: ignore[list-item]
    (lambda: turn_words(iter([ev.CardDrawn(1, 7)])), ar.ArgumentError),  # type: ignore[arg-type]
])
def test_the_words_refuse_what_is_not_an_action_or_events(call: object, error: type) -> None:
    with pytest.raises(error) as refused:
        call()  # type: ignore[operator]
    assert isinstance(refused.value, ar.AbyssError) and isinstance(refused.value, TypeError)


def test_the_words_of_a_real_game_are_told_for_every_action() -> None:
    game = play_game(["random", "greedy"], "short", seed=7, keep_states=True)
    assert game.states is not None
    for state, action in zip(game.states, game.actions, strict=False):
        _, events = ar.apply_with_events(state, action)
        assert turn_words(events).startswith(f"seat {action.player} ")
        assert all(event_words(event) for event in events)


@pytest.mark.rule("2.3", "2.4")
def test_opener_words_say_which_step_chose_the_opener() -> None:
    assert opener_words("sum", (8, 4)) == "opening flips 8 + 4 = 12, the highest sum"
    assert opener_words("lowest_seat", (6, 2)) == ("opening flips 6 + 2 = 8, tied on the sum and the highest "
                                                   "card; lowest seat")
    assert opener_words("previous_closer", (1, 2)) == "it closed the previous round"
    assert opener_words("no_flips", ()) == "no opening flips: seat 0 opens"


@pytest.mark.rule("6.5")
def test_round_scores_words_explain_the_closer_penalty() -> None:
    v = ar.Variant.standard()
    assert round_scores_words(ev.RoundScored(1, (5, 9), (5, 9), False, 0, False, (5, 9)), v) == \
        "seat 0: 5 (closer, strictly lowest: no penalty); seat 1: 9"
    assert round_scores_words(ev.RoundScored(1, (-1, -3), (-1, -3), False, 0, False, (-1, -3)), v) == \
        "seat 0: -1 (closer, no penalty); seat 1: -3"


def test_closing_and_game_over_words() -> None:
    assert closing_words(ev.RoundClosed(2)).startswith("seat 2 has no face-down card left")
    assert game_over_words(ev.GameOver((0, 2), (40, 52, 40)), 1, lambda p: f"seat {p} (bot)") == \
        "Game over after 1 round. Shared win: seat 0 (bot), seat 2 (bot) with 40 points each."


# -- captions: what one action did ------------------------------------------------------------------

@pytest.mark.parametrize(("events", "words"), [
    ([ev.CardPlaced(2, 2, 1, 5, "discard"), ev.CardDiscarded(2, 9, "replaced", 2, 1, was_face_down=True),
      ev.ColumnSwallowed(2, 1, 5, 3, final_reveal=False)],
     "seat 2 took the 5 from the discard pile and placed it on (2,1), replacing a face-down 9; "
     "column 1 swallowed: three 5s"),
    ([ev.CardPlaced(1, 0, 0, 8, "drawn"), ev.CardDiscarded(1, 3, "replaced", 0, 0, was_face_down=False)],
     "seat 1 placed the drawn 8 on (0,0), replacing a 3"),
    ([ev.CardDiscarded(2, 11, "drawn", None, None, False), ev.CardRevealed(2, 1, 3, 4, "discard_drawn"),
      ev.RoundClosed(2)],
     "seat 2 discarded the drawn 11 and flipped (1,3): a 4; seat 2 closed the round"),
    ([ev.CardRevealed(1, 0, 2, 8, "opening_flip"), ev.OpeningDone(1)],
     "seat 1 flipped (0,2) in the opening: an 8; seat 1 opens the round"),
    ([ev.CardDrawn(0, -2)], "seat 0 drew a -2"),
    ([ev.CardDrawn(0, 4), ev.Reshuffled(draw_pile_size=40, top_discard=3)],
     "seat 0 drew a 4; the discards were shuffled into a new draw pile of 40"),
    ([ev.CardRevealed(0, 0, 0, 1, "flip"), ev.FinalReveal(((1, 0, 3, 7), (1, 1, 3, 7), (1, 2, 3, 7))),
      ev.ColumnSwallowed(1, 3, 7, 3, final_reveal=True),
      ev.RoundScored(1, (10, 4), (20, 4), True, 0, False, (20, 4)), ev.GameOver((1,), (20, 4))],
     "seat 0 flipped (0,0): a 1; seat 1's column 3 swallowed at the final reveal: three 7s; "
     "round 1 scored: seat 0 20, seat 1 4; game over: seat 1 wins"),
])
def test_caption_words_say_what_happened(events: list[ev.Event], words: str) -> None:
    assert caption_words(events) == words


def test_every_action_of_real_games_has_a_caption_from_its_events() -> None:
    swallowed = 0
    # (Seed 7 of the standard rules swallows columns: the first picture of the docs' home page.)
    for variant, seed in [("short", 0), ("short", 1), ("standard", 7)]:
        result = play_game(["greedy", "counting", "greedy"], variant, seed, keep_states=True)
        assert result.states is not None
        for before, action in zip(result.states, result.actions, strict=False):
            _, events = ar.apply_with_events(before, action)
            caption = caption_words(events)
            assert caption.startswith(f"seat {action.player} ")
            swallowed += "swallowed" in caption
            assert ("swallowed" in caption) == any(isinstance(e, ev.ColumnSwallowed) for e in events)
    assert swallowed
    with pytest.raises(ValueError, match="no card was moved"):
        caption_words([ev.OpeningDone(0)])
