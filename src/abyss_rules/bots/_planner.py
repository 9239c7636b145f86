"""How the bots choose: the one-step planner of GreedyBot, CountingBot and ExpertBot.

`abyss_rules.bots.GreedyBot` and `abyss_rules.bots.CountingBot` (and `ExpertBot`, its weights
tuned) plan one step on the expected-score model (`abyss_rules.bots._model`) and the tables each
variant keeps (`abyss_rules.bots._tables`): a `Planner` scores every legal action of the view
and plays the best.

Everything here reads a `View` only (rule 8.3): face-up values, the discard pile, the
drawn card, whose turn it is. Nothing else reaches a bot.

Examples:
    >>> import abyss_rules as ar
    >>> from abyss_rules.bots import CountingBot, GreedyBot
    >>> state = ar.new_game(players=2, seed=5)
    >>> choose(GreedyBot(), ar.view(state, 0)) == choose(CountingBot(), ar.view(state, 0))
    True
"""

from __future__ import annotations

from operator import sub
from typing import Any, Final, Protocol

from .._grid import Grid
from ..actions import Action, DiscardDrawn, Flip
from ..state import Phase
from ..views import View
from ._model import NEG_INF
from ._tables import GridInfo, Layout, Placing, Tables, flip_space, tables_of

__all__: list[str] = []  # private: the bots module is the public face


class Params(Protocol):
    """The knobs of a model bot (the class attributes of `bots._ModelBot`)."""

    @property
    def counts_cards(self) -> bool: ...
    @property
    def feed_weight(self) -> float: ...
    @property
    def closing_margin(self) -> float: ...
    @property
    def take_threshold(self) -> float: ...
    @property
    def flip_bonus(self) -> float: ...
    @property
    def patience(self) -> int: ...


_OPENING: Final = Phase.OPENING
_DRAWN: Final = Phase.DRAWN
# (the phases as constants: an enum member read from its class costs a lookup every time)


def choose(bot: Params, view: View) -> Action:
    """The action `bot` plays in `view` (the caller has checked that `view` is a seat's view
    with legal actions): the `Planner`'s, which scores every legal action."""
    return Planner(bot, view).choose()


def _discard(info: GridInfo, layout: Layout) -> DiscardDrawn:
    """The discard of the drawn card that flips the space `flip_space` picks."""
    row, col = _flip_space(info, layout.discard_spaces, layout.discards)
    return layout.discard_at[row, col]


def _flip_space(info: GridInfo, spaces: tuple[int, ...], pairs: list[tuple[int, int]]) -> tuple[int, int]:
    """`flip_space` over `pairs` (the `(row, col)` of `spaces`): kept on the grid
    (`GridInfo.flip`) when they are every face-down space, as the engine lists them."""
    if spaces == info.down():
        return info.flip()
    return flip_space(info.shapes, pairs)


def _hurry(bot: Params, view: View) -> bool:
    """Whether the round has lasted long enough (`patience` turns per player) for the bot to
    reveal a card with every move."""
    return view.turns >= bot.patience * view.players


_CHECKED: Final[dict[int, object]] = {}
"""The grids, discard piles and variants `unreadable` has checked, by identity (the views of a
game share them: each is checked once; the entry holds it), and each variant's card values."""
_VALUES: Final[dict[int, frozenset[int]]] = {}


def unreadable(view: View) -> str | None:
    """Why the planner cannot read `view`, or `None`: the fields it reads must be of their types
    and every card it shows a card of its variant's deck. A view from `abyss_rules.view` always
    is; a hand-made one is checked here (the model bots check every view before they plan), so
    that the planner itself needs no guard. A grid or a discard pile already checked (the same
    object) is not checked again."""
    v: Any = view  # (read untyped: the compiled module would refuse a field of another type itself)
    grids, pile = v.grids, v.discard_pile
    if type(v.legal_actions) is not tuple or type(pile) is not tuple or type(grids) is not tuple \
            or type(v.turns) is not int or type(v.viewer) is not int:
        return "a field is not of its type (a list for a tuple, a str for an int...)"
    checked = _CHECKED
    if len(checked) >= 4096:
        checked.clear()
    variant = v.variant
    if checked.get(id(variant)) is not variant:
        _VALUES[id(variant)] = frozenset(value for value, _ in variant.deck)
        checked[id(variant)] = variant
    values = _VALUES[id(variant)]
    grid: Any
    for grid in grids:
        if checked.get(id(grid)) is grid:
            continue
        if not isinstance(grid, Grid):
            return "a grid is not a Grid of tuples"
        fields: Any = grid  # (read untyped, as the view)
        cards = fields.cards
        if type(cards) is not tuple or type(fields.face_up) is not tuple \
                or type(fields.swallowed) is not tuple:
            return "a grid is not a Grid of tuples"
        if not values.issuperset([c for c in cards if c is not None]):
            return "a grid shows a card its variant's deck has not"
        checked[id(grid)] = grid
    if checked.get(id(pile)) is not pile:
        if not values.issuperset(pile):
            return "the discard pile holds a card its variant's deck has not"
        checked[id(pile)] = pile
    if v.drawn is not None and v.drawn not in values:
        return "the drawn card is not a card of its variant's deck"
    return None


class Planner:
    """Scores every legal action of one view and picks the best (for GreedyBot and CountingBot)."""

    __slots__ = (
        "_bests",
        "_feed",
        "_my_gains",
        "_opponents",
        "bot",
        "closing_margin",
        "counts_cards",
        "feed_weight",
        "flip_bonus",
        "grids",
        "hurry",
        "index",
        "info",
        "me",
        "mine",
        "model",
        "my_hidden",
        "tables",
        "take_threshold",
        "view",
    )

    def __init__(self, bot: Params, view: View, tables: Tables | None = None) -> None:
        self.bot = bot
        # (the bot's knobs, read once)
        self.counts_cards: bool = bot.counts_cards
        self.feed_weight: float = bot.feed_weight
        self.closing_margin: float = bot.closing_margin
        self.take_threshold: float = bot.take_threshold
        self.flip_bonus: float = bot.flip_bonus
        self.view = view
        self.me: int = view.viewer  # type: ignore[assignment]  # checked by the caller
        self.tables = tables = tables_of(view.variant) if tables is None else tables
        self.index = tables.index
        self.grids: list[GridInfo] | None = None
        if self.counts_cards:
            self.grids = [tables.grid(g) for g in view.grids]
            self.info = self.grids[self.me]
            self.model = tables.unseen_model(view, self.grids)
        else:
            self.info = tables.grid(view.grids[self.me])
            self.model = tables.deck_model
        self.hurry = _hurry(bot, view)
        self.mine = self.info.shapes
        self.my_hidden = self.info.hidden
        self._opponents: list[float] | None = None
        self._feed: list[float] | None = None
        self._my_gains: list[tuple[list[float], ...] | None] | None = None
        self._bests: list[float] | None = None
        """The draw's best score of placing each card value on the bot's columns, with neither
        the closer risk nor the hurry to adjust (`Model.best_scores`): kept by `draw_value`."""

    @property
    def my_value(self) -> float:
        """The expected score of the bot's grid (needed only when a move may close the round)."""
        return self.info.value(self.model)

    # -- the three phases --------------------------------------------------

    def choose(self) -> Action:
        view = self.view
        layout = self.tables.layout(view.legal_actions)
        phase = view.phase
        if phase is _OPENING:
            return self.flip_choice(layout)
        if phase is _DRAWN:
            assert view.drawn is not None
            return self.drawn_choice(layout, view.drawn)
        return self.turn_choice(layout)

    def turn_choice(self, layout: Layout) -> Action:
        """The best of taking the discard (at its best place), drawing and flipping, in that
        order: the first best wins (GreedyBot takes only a clear gain, else draws)."""
        top = self.view.top_discard
        draw = layout.draw
        if not self.counts_cards and draw is not None:
            # GreedyBot: take the discard only when it clearly helps, else draw (and decide then).
            best_take = None if top is None else self.best_place(layout.takes, layout.take_spaces, top)
            if best_take is not None and best_take[0] >= self.take_threshold:
                return best_take[1]
            return draw
        draw_score = self.draw_value() if draw is not None else NEG_INF  # (first: it keeps the bests)
        chosen: Action | None = None
        score = NEG_INF
        take_kept = False
        if top is not None:
            kept = self.kept_take(layout, top)
            if kept is not None:
                chosen, score, take_kept = layout.takes[0][0], kept, True
            else:
                best_take = self.best_place(layout.takes, layout.take_spaces, top)
                if best_take is not None:
                    score, chosen = best_take
        if draw is not None and (chosen is None or draw_score > score):
            chosen, score, take_kept = draw, draw_score, False
        if layout.flips:
            flip_score = self.flip_score(discarded=None)
            if chosen is None or flip_score > score:
                chosen, take_kept = self.flip_choice(layout), False
        if chosen is None:  # in a hurry with nothing that reveals a card: any take will do
            return self.view.legal_actions[0]
        if take_kept:  # (the take wins: its move, found now)
            best_take = self.best_place(layout.takes, layout.take_spaces, top)  # type: ignore[arg-type]
            assert best_take is not None
            return best_take[1]
        return chosen

    def kept_take(self, layout: Layout, top: int) -> float | None:
        """The best take's score read from the draw's value-by-value bests (`draw_value` keeps
        them), or `None` when it has none: the takes are every remaining space in index order,
        so the best take is the best placement of the top card on the same classes, scored with
        the same operations (no closer risk, no hurry, the same feed costs)."""
        bests = self._bests
        if bests is None or not layout.takes:
            return None
        spaces, remaining = layout.take_spaces, self.info.remaining
        if spaces is remaining or spaces == remaining:
            return bests[self.index[top]]
        return None

    def drawn_choice(self, layout: Layout, card: int) -> Action:
        """The best of placing `card` and discarding it to flip a card; placing wins a tie."""
        best = self.best_place(layout.places, layout.place_spaces, card)
        if layout.discards:
            flip = self.flip_score(discarded=card)
            if best is None or flip > best[0]:
                return _discard(self.info, layout)
        if best is None:  # in a hurry with no face-down card left: place it where it helps most
            best = self.best_place(layout.places, layout.place_spaces, card, hurry=False)
            assert best is not None
        return best[1]

    def best_place(self, moves: list[tuple[Action, int, int]], spaces: tuple[int, ...], card: int,
                   hurry: bool | None = None) -> tuple[float, Action] | None:
        """The best of `moves` (takes or places of `card` on `spaces`, their spaces in index
        order; only those revealing a card in a hurry), the first in their order on a tie;
        `None` if there is none.

        A move's score is its gain, less the closer risk on a face-down card when it is the
        bot's last one, less what the card it leaves on the discard pile feeds the next player.
        The moves of one class of one column (see `ColumnClass`) score the same, so each class
        is scored once, at its first move (`classes_of`).
        """
        hurry = self.hurry if hurry is None else hurry
        model, mine, i = self.model, self.mine, self.index[card]
        lists = self.my_gains() if model.deck else None  # (the deck's model keeps them)
        closing = self.my_hidden == 1
        feed = self.feed_costs() if self.feed_weight else None
        placings = self.classes_of(moves, spaces)
        columns = self.info.placings()
        slot = -1
        if lists is not None and feed is None and not closing and placings is columns.classes:
            # (then the scores are the deck's gains alone: the best depends on the columns, the
            # card and the hurry only, and is kept with the columns' placings)
            slot = 2 * i + (1 if hurry else 0)
            kept = columns.deck_best[slot]
            if kept is not None:
                return None if kept[1] < 0 else (kept[0], moves[kept[1]][0])
        best, found = NEG_INF, -1
        for at, col, c in placings:
            shape = mine[col]
            assert shape is not None
            cls = shape.classes[c]
            if hurry and not cls.hidden:
                continue
            gain = lists[col][c][i] if lists is not None else model.class_gain_at(  # type: ignore[index]
                model.value(shape), cls, i)
            score = gain
            if closing and cls.hidden:
                score -= self.closing_cost(self.my_value - gain)
            if feed is not None:
                gift = cls.gift_index[i]
                if gift >= 0:
                    score -= feed[gift]
            if found < 0 or score > best:
                best, found = score, at
        if slot >= 0:
            columns.deck_best[slot] = (best, found)
        return None if found < 0 else (best, moves[found][0])

    def classes_of(self, moves: list[tuple[Action, int, int]], spaces: tuple[int, ...]) -> list[Placing]:
        """Each class of each of the bot's columns that `moves` (on `spaces`) reach, once, as
        `(position of its first move, column, class)`, in the order of those moves: kept on
        the grid (`GridInfo.placings`) when the moves are every remaining space in index order,
        as the engine lists them."""
        info = self.info
        if spaces is info.remaining or spaces == info.remaining:
            return info.placings().classes
        mine, cols = self.mine, self.tables.cols
        seen: set[int] = set()
        out = []
        for at, (_, row, col) in enumerate(moves):
            c = mine[col].row_class[row]  # type: ignore[union-attr]
            if (key := c * cols + col) not in seen:  # (one int per column and class)
                seen.add(key)
                out.append((at, col, c))
        return out

    def draw_value(self) -> float:
        """The expected score of drawing: the best drawn-phase option, averaged over the odds.

        For every card value at once: each class of the bot's spaces (see `ColumnClass`) gives
        a list of scores by value, and the best is taken value by value: by the model
        (`Model.best_scores`, which skips the lists that cannot reach the best) when every list
        is a class's gains less the feed costs, else here (`_adjusted_bests`).
        """
        model = self.model
        odds = model.odds
        if not odds.total:
            return 0.0
        feed = self.feed_costs() if self.feed_weight else None
        if not self.hurry and self.my_hidden != 1:  # (every class's list is its gains less feed)
            bests = self._bests = model.best_scores(self.mine, feed)
        else:
            bests = self._adjusted_bests(feed)
        positive, counts = odds.positive, odds.positive_counts
        hidden = self.my_hidden
        flip = self.flip_bonus
        if hidden == 1:
            flip -= self.closing_cost(self.my_value)
        # 0.0 + count * best, value by value, in order; with a face-down card, the best of
        # placing and discarding to flip (max(b, f) is b unless f > b)
        total = 0.0
        for j in range(len(positive)):
            i = positive[j]
            best = bests[i]
            if hidden:
                f = flip if feed is None else flip - feed[i]
                if f > best:
                    best = f
            total += counts[j] * best
        return total / odds.total

    # -- scoring one action --------------------------------------------------

    def _adjusted_bests(self, feed: list[float] | None) -> list[float]:
        """`Model.best_scores` of the bot's columns with the closer risk taken off a face-down
        card's scores when it is the last one, and only face-down cards in a hurry: every
        class's list, then the best value by value."""
        lists: list[list[float]] = []
        for shape, gains_of in zip(self.mine, self.my_gains(), strict=True):
            if shape is None or gains_of is None:
                continue
            for cls, gains in zip(shape.classes, gains_of, strict=True):
                if self.hurry and not cls.hidden:
                    continue
                scores = gains
                if cls.hidden and self.my_hidden == 1:
                    closing, mine = self.closing_cost, self.my_value
                    scores = [g - closing(mine - g) for g in scores]
                if feed is not None and cls.gifted:  # less what the card left there feeds
                    if cls.all_gifted:
                        scores = list(map(sub, scores, map(feed.__getitem__, cls.gift_index)))
                    else:
                        scores = list(scores)
                        for i in cls.gifted:
                            scores[i] -= feed[cls.gift_index[i]]
                lists.append(scores)
        if not lists:
            return [NEG_INF] * len(self.index)
        return list(map(max, *lists)) if len(lists) > 1 else lists[0]

    def my_gains(self) -> list[tuple[list[float], ...] | None]:
        """`Model.gains` of each of the bot's columns (`None` for a swallowed one)."""
        if self._my_gains is None:
            self._my_gains = self.model.grid_gains(self.mine)
        return self._my_gains

    def flip_score(self, discarded: int | None) -> float:
        """Flipping a face-down card (after discarding `discarded`, if any): no gain on average,
        plus a small bonus for what it tells (a known card can be replaced to more effect)."""
        score = self.flip_bonus
        if self.my_hidden == 1:
            score -= self.closing_cost(self.my_value)
        if discarded is not None and self.feed_weight:
            score -= self.feed_costs()[self.index[discarded]]
        return score

    def closing_cost(self, my_score: float) -> float:
        """The expected extra points of closing now with `my_score` (the penalty, rule 6.5)."""
        if self.hurry or my_score <= 0 or self.view.closer is not None:
            return 0.0  # (someone else already closed: this is a last turn, rule 6.2)
        multiplier = self.view.variant.closer_multiplier
        others = self.opponent_estimates()
        if multiplier == 1 or not others:
            return 0.0
        if min(others) <= my_score + self.closing_margin:
            return (multiplier - 1) * my_score
        return 0.0

    def seats(self) -> list[GridInfo]:
        """Every seat's grid as the planner reads it."""
        if self.grids is None:
            self.grids = [self.tables.grid(g) for g in self.view.grids]
        return self.grids

    def opponent_estimates(self) -> list[float]:
        """Each other seat's expected score (CountingBot: after one last turn, rule 6.2)."""
        if self._opponents is None:
            model = self.model
            out = []
            for seat, info in enumerate(self.seats()):
                if seat == self.me:
                    continue
                estimate = info.value(model)
                if self.counts_cards:
                    estimate -= model.draw_gain(model.best_gains(info.shapes))
                out.append(estimate)
            self._opponents = out
        return self._opponents

    def feed_costs(self) -> list[float]:
        """For each card value, how much leaving it on the discard pile helps the next player
        (more than a draw would)."""
        if self._feed is None:
            view = self.view
            nxt = (self.me + 1) % view.players  # (rule 6.2: nobody takes it after the closer)
            if nxt != self.me and nxt != view.closer:
                self._feed = self.model.feed(self.seats()[nxt].shapes, self.feed_weight)
            else:
                self._feed = self.tables.no_feed
        return self._feed

    # -- which card to flip --------------------------------------------------

    def flip_choice(self, layout: Layout) -> Flip:
        """The flip of the space `flip_space` picks among the legal flips."""
        row, col = _flip_space(self.info, layout.flip_spaces, layout.flip_pairs)
        return layout.flip_at[row, col]
