"""Built-in bots: players that choose their actions from a [`View`][abyss_rules.View] alone.

A bot is anything with a `choose(view) -> Action` method (the [`Bot`][abyss_rules.bots.Bot]
protocol). It is handed the public view of its own seat (rule 8.3) -- never the
[`State`][abyss_rules.State], so it cannot see a face-down card or the draw pile (rule 8.2) --
and must return one of `view.legal_actions`.

Three bots come with the library (their measured strength is on the Bots page of the docs):

| bot | how it plays |
|---|---|
| [`RandomBot`][abyss_rules.bots.RandomBot] | a uniformly random legal action (a seeded `random.Random`) |
| [`GreedyBot`][abyss_rules.bots.GreedyBot] | one-step greedy on the expected score of its own grid, with a fixed guess (the deck's mean) for every face-down card |
| [`CountingBot`][abyss_rules.bots.CountingBot] | the same search, but it counts cards: the unseen cards are the deck minus every public card (rule 8.1), which gives the odds of the next draw; it also weighs what its discards give the next player and the risk of the closer penalty (rule 6.5) |

Examples:
    >>> import abyss_rules as ar
    >>> from abyss_rules.bots import GreedyBot
    >>> state = ar.new_game(players=2, seed=5)
    >>> action = GreedyBot().choose(ar.view(state, 0))
    >>> action in ar.legal_actions(state)
    True
"""  # noqa: E501  (the table's rows)

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import ClassVar, Final, Protocol, runtime_checkable

from .actions import Action, DiscardDrawn, Draw, Flip, PlaceDrawn, TakeDiscard
from .errors import BotError, Code
from .state import Phase
from .views import View

__all__ = [
    "BOTS",
    "Bot",
    "BotError",
    "BotFactory",
    "CountingBot",
    "GreedyBot",
    "RandomBot",
    "make_bot",
]


@runtime_checkable
class Bot(Protocol):
    """What a player program must provide: `choose(view) -> Action`.

    `view` is the bot's own [`View`][abyss_rules.View] (public facts only, rule 8.3); the
    bot must return one of `view.legal_actions`. A bot may keep state between calls (the
    built-in ones need none). [`play_game`][abyss_rules.play_game] and the command line
    only ever hand bots views.

    Examples:
        >>> class FirstLegal:
        ...     def choose(self, view):
        ...         return view.legal_actions[0]
        >>> isinstance(FirstLegal(), Bot)
        True
    """

    def choose(self, view: View) -> Action:
        """The action to play in `view` (one of `view.legal_actions`)."""
        ...


BotFactory = Callable[[int], Bot]
"""Makes a fresh bot from an integer seed; every built-in bot class is one (`RandomBot(seed)`)."""




def _no_action(bot: object, view: object) -> BotError:
    if not isinstance(view, View):
        return BotError(Code.BOT_CANNOT_ACT, f"{type(bot).__name__}.choose needs a View, got "
                                            f"{type(view).__name__}")
    return BotError(
        Code.BOT_CANNOT_ACT,
        f"seat {view.viewer} has no legal action in this view (phase {view.phase.value}); "
        "ask a bot only for a seat that is to act",
    )


class RandomBot:
    """Plays a uniformly random legal action: the baseline.

    Its choices come from a `random.Random` seeded with `seed`, so the same seed and the
    same views give the same actions.

    Args:
        seed: The seed of its random choices; `None` seeds them from the operating system.

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.new_game(players=2, seed=1)
        >>> RandomBot(7).choose(ar.view(state, 1)) == RandomBot(7).choose(ar.view(state, 1))
        True
    """

    name: ClassVar[str] = "random"
    """The name the registry [`BOTS`][abyss_rules.bots.BOTS] and the command line know it by."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self._rng = random.Random(seed)

    def choose(self, view: View) -> Action:
        """A uniformly random action of `view.legal_actions`.

        Raises:
            BotError: `view` is not a [`View`][abyss_rules.View] or lists no legal
                action (code `bot_cannot_act`).
        """
        if not isinstance(view, View) or not view.legal_actions:
            raise _no_action(self, view)
        return self._rng.choice(view.legal_actions)

    def __repr__(self) -> str:
        return f"RandomBot(seed={self.seed!r})"


# ---------------------------------------------------------------------------
# The expected-score model shared by GreedyBot and CountingBot
# ---------------------------------------------------------------------------

Column = tuple[int | None, ...]
"""One column of a grid, top row first: a face-up value, or `None` for a face-down card."""


class _Odds:
    """A multiset of unseen card values: the odds of what a face-down card (or the next draw) is."""

    __slots__ = ("counts", "total", "mean", "_all_equal", "_hidden_column")

    def __init__(self, counts: dict[int, int]) -> None:
        self.counts = {v: c for v, c in counts.items() if c > 0}
        self.total = sum(self.counts.values())
        self.mean = sum(v * c for v, c in self.counts.items()) / self.total if self.total else 0.0
        self._all_equal: dict[tuple[int, int], float] = {}
        self._hidden_column: dict[int, float] = {}

    def all_equal(self, value: int, k: int) -> float:
        """The chance that `k` unseen cards (drawn without replacement) are all `value`."""
        key = (value, k)
        found = self._all_equal.get(key)
        if found is None:
            c, n, found = self.counts.get(value, 0), self.total, 1.0
            for i in range(k):
                found *= max(c - i, 0) / (n - i) if n - i > 0 else 0.0
            self._all_equal[key] = found
        return found

    def hidden_column(self, k: int) -> float:
        """The expected score of a column of `k` face-down cards (swallowing included)."""
        found = self._hidden_column.get(k)
        if found is None:
            found = k * self.mean - sum(self.all_equal(w, k) * k * w for w in self.counts)
            self._hidden_column[k] = found
        return found


class _Model:
    """Expected scores of grids under some odds, from one view (rules 4.1, 4.3, 6.4).

    A column's expected score is the expected sum of its cards minus the
    expected sum when it ends up swallowed (all its cards equal).
    """

    __slots__ = ("view", "odds", "rows", "cols", "swallow_weight", "columns", "_cache", "_best")

    def __init__(self, view: View, odds: _Odds) -> None:
        self.view = view
        self.odds = odds
        self.rows = view.variant.rows
        self.cols = view.variant.cols
        # Without swallowing at the final reveal, a column only goes if flipped during play.
        self.swallow_weight = 1.0 if view.variant.swallow_on_final_reveal else 0.5
        self.columns: list[list[Column | None]] = [self._columns(p) for p in range(view.players)]
        self._cache: dict[Column, float] = {}
        self._best: dict[tuple[int, int], float] = {}

    def _columns(self, seat: int) -> list[Column | None]:
        grid = self.view.grids[seat]
        out: list[Column | None] = []
        for c in range(self.cols):
            spaces = range(c, self.rows * self.cols, self.cols)
            if grid.swallowed[c]:
                out.append(None)
            else:
                out.append(tuple(grid.cards[s] if grid.face_up[s] else None for s in spaces))
        return out

    def value(self, column: Column | None) -> float:
        """The expected score of `column` (0 for a swallowed one)."""
        if column is None:
            return 0.0
        found = self._cache.get(column)
        if found is None:
            found = self._cache[column] = self._value(column)
        return found

    def _value(self, column: Column) -> float:
        hidden = column.count(None)
        if hidden == 0:
            first = column[0]
            return 0.0 if column.count(first) == len(column) else float(sum(column))  # type: ignore[arg-type]
        odds = self.odds
        if hidden == len(column):
            w = self.swallow_weight
            return w * odds.hidden_column(hidden) + (1 - w) * hidden * odds.mean
        known = [v for v in column if v is not None]
        total = sum(known)
        expected = total + hidden * odds.mean
        first = known[0]
        if known.count(first) == len(known):  # the hidden cards may match and swallow the column
            expected -= self.swallow_weight * odds.all_equal(first, hidden) * (total + hidden * first)
        return expected

    def grid_value(self, seat: int) -> float:
        """The expected round score of `seat`'s grid."""
        return sum(self.value(col) for col in self.columns[seat])

    def hidden(self, seat: int) -> int:
        """How many face-down cards `seat` has."""
        return sum(col.count(None) for col in self.columns[seat] if col is not None)

    @staticmethod
    def put(column: Column, row: int, value: int) -> Column:
        """`column` with a face-up `value` at `row`."""
        return column[:row] + (value,) + column[row + 1:]

    def place_gain(self, seat: int, row: int, col: int, value: int) -> float:
        """How much placing a face-up `value` at `(row, col)` lowers `seat`'s expected score."""
        column = self.columns[seat][col]
        if column is None:
            return float("-inf")
        return self.value(column) - self.value(self.put(column, row, value))

    def best_place_gain(self, seat: int, value: int) -> float:
        """The best `place_gain` of `value` over `seat`'s remaining spaces."""
        key = (seat, value)
        found = self._best.get(key)
        if found is not None:
            return found
        best = float("-inf")
        for column in self.columns[seat]:
            if column is None:
                continue
            before = self.value(column)
            for row in range(self.rows):
                gain = before - self.value(self.put(column, row, value))
                if gain > best:
                    best = gain
        self._best[key] = best
        return best

    def draw_gain(self, seat: int) -> float:
        """The expected gain of drawing for `seat`: place the card if it helps, else discard it."""
        odds = self.odds
        if not odds.total:
            return 0.0
        return sum(c * max(0.0, self.best_place_gain(seat, v)) for v, c in odds.counts.items()) / odds.total


def _deck_counts(view: View) -> dict[int, int]:
    return dict(view.variant.deck)


def _unseen_counts(view: View) -> dict[int, int]:
    """The deck minus every card a player can see: face-up cards, the discard pile, the drawn card."""
    counts = _deck_counts(view)
    seen: list[int] = list(view.discard_pile)
    if view.drawn is not None:
        seen.append(view.drawn)
    for grid in view.grids:
        seen.extend(v for v, up in zip(grid.cards, grid.face_up, strict=True) if up and v is not None)
    for v in seen:
        if counts.get(v, 0) > 0:
            counts[v] -= 1
    return counts


class _Planner:
    """Scores every legal action of one view and picks the best (used by GreedyBot and CountingBot)."""

    def __init__(self, bot: _ModelBot, view: View) -> None:
        self.bot = bot
        self.view = view
        self.me: int = view.viewer  # type: ignore[assignment]  # checked by the caller
        counts = _unseen_counts(view) if bot.counts_cards else _deck_counts(view)
        self.model = _Model(view, _Odds(counts))
        self.hurry = view.turns >= bot.patience * view.players
        self.my_hidden = self.model.hidden(self.me)
        self.my_value = self.model.grid_value(self.me)
        self._opponents: list[float] | None = None
        self._next_draw_gain: float | None = None
        self._feed: dict[int, float] = {}
        self._flip: tuple[int, int] | None = None

    # -- the three phases --------------------------------------------------

    def choose(self) -> Action:
        view = self.view
        if view.phase is Phase.OPENING:
            return self.flip_choice([a for a in view.legal_actions if isinstance(a, Flip)])
        if view.phase is Phase.DRAWN:
            assert view.drawn is not None
            return max(self.drawn_options(view.drawn), key=lambda pair: pair[0])[1]
        return self.turn_choice()

    def turn_choice(self) -> Action:
        view = self.view
        top = view.top_discard
        takes: list[tuple[float, Action]] = []
        draw: Draw | None = None
        flips: list[Flip] = []
        for a in view.legal_actions:
            if isinstance(a, TakeDiscard) and top is not None:
                if not self.hurry or self.reveals(a):
                    takes.append((self.place_score(a.row, a.col, top), a))
            elif isinstance(a, Draw):
                draw = a
            elif isinstance(a, Flip):
                flips.append(a)
        best_take = max(takes, key=lambda o: o[0], default=None)
        if not self.bot.counts_cards and draw is not None:
            # GreedyBot: take the discard only when it clearly helps, else draw (and decide then).
            if best_take is not None and best_take[0] >= self.bot.take_threshold:
                return best_take[1]
            return draw
        options = [best_take] if best_take is not None else []
        if draw is not None:
            options.append((self.draw_value(), draw))
        if flips:
            flip = self.flip_choice(flips)
            options.append((self.flip_score(discarded=None), flip))
        if not options:  # in a hurry with nothing that reveals a card: any take will do
            return self.view.legal_actions[0]
        return max(options, key=lambda o: o[0])[1]

    def drawn_options(self, card: int) -> list[tuple[float, Action]]:
        """Every (score, action) worth comparing in the drawn phase, `card` in hand."""
        options: list[tuple[float, Action]] = []
        flips: list[tuple[int, int]] = []
        for a in self.view.legal_actions:
            if isinstance(a, PlaceDrawn):
                if not self.hurry or self.reveals(a):
                    options.append((self.place_score(a.row, a.col, card), a))
            elif isinstance(a, DiscardDrawn):
                flips.append((a.row, a.col))
        if flips:
            row, col = self.flip_space(flips)
            options.append((self.flip_score(discarded=card), DiscardDrawn(self.me, row, col)))
        if not options:  # in a hurry with no face-down card left: place it where it helps most
            options = [(self.place_score(a.row, a.col, card), a)
                       for a in self.view.legal_actions if isinstance(a, PlaceDrawn)]
        return options

    def draw_value(self) -> float:
        """The expected score of drawing: the best drawn-phase option, averaged over the odds."""
        odds = self.model.odds
        if not odds.total:
            return 0.0
        total = 0.0
        spaces = [
            (row, col)
            for col, column in enumerate(self.model.columns[self.me]) if column is not None
            for row in range(self.model.rows)
            if not self.hurry or column[row] is None
        ]
        for value, count in odds.counts.items():
            best = max((self.place_score(row, col, value) for row, col in spaces), default=float("-inf"))
            if self.my_hidden:
                best = max(best, self.flip_score(discarded=value))
            total += count * best
        return total / odds.total

    # -- scoring one action --------------------------------------------------

    def place_score(self, row: int, col: int, card: int) -> float:
        """Placing `card` at `(row, col)`: the gain, minus the closer risk and what it feeds."""
        model, me = self.model, self.me
        column = model.columns[me][col]
        assert column is not None
        after = model.put(column, row, card)
        gain = model.value(column) - model.value(after)
        score = gain
        if column[row] is None and self.my_hidden == 1:
            score -= self.closing_cost(self.my_value - gain)
        if self.bot.feed_weight:
            swallowed = None not in after and len(set(after)) == 1
            gift = card if swallowed else column[row]  # what the next player could take
            if gift is not None:
                score -= self.feed_cost(gift)
        return score

    def flip_score(self, discarded: int | None) -> float:
        """Flipping a face-down card (after discarding `discarded`, if any): no gain on average,
        plus a small bonus for what it tells (a known card can be replaced to more effect)."""
        score = self.bot.flip_bonus
        if self.my_hidden == 1:
            score -= self.closing_cost(self.my_value)
        if discarded is not None and self.bot.feed_weight:
            score -= self.feed_cost(discarded)
        return score

    def reveals(self, action: Action) -> bool:
        """Whether `action` targets one of the bot's face-down cards."""
        if isinstance(action, Draw):
            return False
        column = self.model.columns[self.me][action.col]
        return column is not None and column[action.row] is None

    def closing_cost(self, my_score: float) -> float:
        """The expected extra points of closing now with `my_score` (the penalty, rule 6.5)."""
        if self.hurry or my_score <= 0 or self.view.closer is not None:
            return 0.0  # (someone else already closed: this is a last turn, rule 6.2)
        multiplier = self.view.variant.closer_multiplier
        others = self.opponent_estimates()
        if multiplier == 1 or not others:
            return 0.0
        if min(others) <= my_score + self.bot.closing_margin:
            return (multiplier - 1) * my_score
        return 0.0

    def opponent_estimates(self) -> list[float]:
        """Each other seat's expected score (CountingBot: after one last turn, rule 6.2)."""
        if self._opponents is None:
            model = self.model
            out = []
            for seat in range(self.view.players):
                if seat == self.me:
                    continue
                estimate = model.grid_value(seat)
                if self.bot.counts_cards:
                    estimate -= model.draw_gain(seat)
                out.append(estimate)
            self._opponents = out
        return self._opponents

    def feed_cost(self, card: int) -> float:
        """How much leaving `card` on the discard pile helps the next player (more than a draw)."""
        found = self._feed.get(card)
        if found is not None:
            return found
        view = self.view
        nxt = (self.me + 1) % view.players
        cost = 0.0
        if nxt != self.me and nxt != view.closer:
            if self._next_draw_gain is None:
                self._next_draw_gain = self.model.draw_gain(nxt)
            gain = self.model.best_place_gain(nxt, card) - self._next_draw_gain
            cost = self.bot.feed_weight * gain if gain > 0 else 0.0
        self._feed[card] = cost
        return cost

    # -- which card to flip --------------------------------------------------

    def flip_space(self, spaces: list[tuple[int, int]]) -> tuple[int, int]:
        """The face-down space to turn: in the column with the most face-up cards (then the first).

        Turning a card where the rest of its column is known tells the most
        about that column (rule 4.1): a pair can become a swallow.
        """
        columns = self.model.columns[self.me]

        def known(space: tuple[int, int]) -> int:
            column = columns[space[1]]
            return 0 if column is None else sum(v is not None for v in column)

        return max(spaces, key=lambda space: (known(space), -space[1], -space[0]))

    def flip_choice(self, flips: list[Flip]) -> Flip:
        row, col = self.flip_space([(a.row, a.col) for a in flips])
        return next(a for a in flips if (a.row, a.col) == (row, col))


class _ModelBot:
    """Common code of the bots that search on the expected-score model."""

    name: ClassVar[str] = "model"
    counts_cards: ClassVar[bool] = False
    feed_weight: ClassVar[float] = 0.0
    closing_margin: ClassVar[float] = 0.0
    take_threshold: ClassVar[float] = 1.0
    flip_bonus: ClassVar[float] = 0.5
    patience: ClassVar[int] = 30
    """After `patience * players` turns in a round, only moves that reveal a card (so rounds end)."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed  # accepted for a uniform factory signature; these bots use no randomness

    def choose(self, view: View) -> Action:
        """The best action of `view.legal_actions` by the bot's model (see the class docs).

        Raises:
            BotError: `view` is not a [`View`][abyss_rules.View], is a spectator's, or lists
                no legal action (code `bot_cannot_act`).
        """
        if not isinstance(view, View) or not view.legal_actions or view.viewer is None:
            raise _no_action(self, view)
        return _Planner(self, view).choose()

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class GreedyBot(_ModelBot):
    """One-step greedy: keeps low cards, builds columns, avoids a doubled close.

    It guesses every face-down card at the deck's mean (about 5.07 with the standard
    deck) and scores its grid column by column, counting the chance that a column's
    face-down cards match its face-up ones (a swallowed column scores 0, rules 4.1, 4.3).
    On its turn it takes the discard when that lowers its expected score by at least 1,
    placing it where it helps most (on a high card, on a face-down card, or completing a
    column); otherwise it draws, then places the drawn card where it helps, or discards it
    and flips a face-down card when nothing helps (in the column it knows most about). It
    does not close the round (rule 6.1) when another player already shows a score at or
    below its own, since the closer's score would be doubled (rule 6.5).

    Every round ends: after `30 x players` turns in a round it only makes moves that turn
    one of its face-down cards up. Its opening flips are the two top cards of its first
    column.

    Args:
        seed: Accepted so that the class is a [`BotFactory`][abyss_rules.bots.BotFactory];
            unused (the bot is deterministic: the same view gives the same action).

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.new_game(players=2, seed=2)
        >>> bot = GreedyBot()
        >>> while not state.is_over:
        ...     seat = state.to_act[0]
        ...     state = ar.apply(state, bot.choose(ar.view(state, seat)))
        >>> state.is_over, max(state.totals) >= 100
        (True, True)
    """

    name: ClassVar[str] = "greedy"
    """The name the registry [`BOTS`][abyss_rules.bots.BOTS] and the command line know it by."""
    closing_margin: ClassVar[float] = 1.0


class CountingBot(_ModelBot):
    """Counts cards: plays the odds of the unseen cards, weighs its discards and the closer risk.

    The unseen cards are the deck minus every public card: the face-up cards of all
    grids, the discard pile since the last reshuffle and a drawn card (rules 5.3, 8.1).
    They give the expected value of a face-down card and of the next draw, and the chance
    that a column's face-down cards match. On its turn it compares taking the discard (at
    its best place), drawing (the best choice for every card it could draw, averaged over
    the odds) and flipping, and plays the best. It charges each move for the card it
    leaves on the discard pile, by how much more that card would help the next player
    than a draw, and it closes the round only when its score cannot be doubled by its
    estimate of the others' scores after their last turn (rules 6.2, 6.5). The same
    end-of-round safety as [`GreedyBot`][abyss_rules.bots.GreedyBot].

    Args:
        seed: Accepted so that the class is a [`BotFactory`][abyss_rules.bots.BotFactory];
            unused (the bot is deterministic: the same view gives the same action).

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.new_game(players=2, variant=ar.Variant.short(), seed=2)
        >>> bot = CountingBot()
        >>> while not state.is_over:
        ...     seat = state.to_act[0]
        ...     state = ar.apply(state, bot.choose(ar.view(state, seat)))
        >>> state.is_over, len(state.history)
        (True, 1)
    """

    name: ClassVar[str] = "counting"
    """The name the registry [`BOTS`][abyss_rules.bots.BOTS] and the command line know it by."""
    counts_cards: ClassVar[bool] = True
    feed_weight: ClassVar[float] = 0.5
    closing_margin: ClassVar[float] = 0.0


BOTS: Final[Mapping[str, type[RandomBot] | type[GreedyBot] | type[CountingBot]]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "counting": CountingBot,
}
"""The built-in bots by name; each class is a [`BotFactory`][abyss_rules.bots.BotFactory]
(`BOTS["greedy"](seed)`)."""


def make_bot(name: str, seed: int | None = None) -> Bot:
    """A built-in bot by name.

    Args:
        name: `"random"`, `"greedy"` or `"counting"` (the keys of
            [`BOTS`][abyss_rules.bots.BOTS]).
        seed: The bot's seed (only [`RandomBot`][abyss_rules.bots.RandomBot] uses it).

    Returns:
        A new bot.

    Raises:
        BotError: No built-in bot has that name (code `unknown_bot`).

    Examples:
        >>> make_bot("random", seed=3)
        RandomBot(seed=3)
    """
    factory = BOTS.get(name) if isinstance(name, str) else None
    if factory is None:
        raise BotError(Code.UNKNOWN_BOT, f"no built-in bot {name!r}; choose one of: {', '.join(BOTS)}")
    return factory(seed)
