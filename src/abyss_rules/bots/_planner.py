"""How the bots choose: the one-step planner of GreedyBot and CountingBot.

`abyss_rules.bots.GreedyBot` and
`abyss_rules.bots.CountingBot` plan one step on the
expected-score model (`abyss_rules.bots._model`) and the
tables each variant keeps (`abyss_rules.bots._tables`).

Everything here reads a `View` only (rule 8.3): face-up values, the discard pile, the
drawn card, whose turn it is. Nothing else reaches a bot.

**Where the time goes.** What does not depend on the odds -- a column's shape, a grid's
columns, the legal actions by kind -- is computed once per variant and kept. GreedyBot's odds
(the whole deck) never change, so each column shape keeps its best gain and first row for
every card and most of its decisions are the best of a few kept rows (`choose`); an opening
flip needs no odds at all. CountingBot's odds change with every card that turns up, so its
take-or-draw and place-or-discard are scored afresh (`_counting`): the unseen model is found
from kept counts, the next player's feed costs and its own value of a draw are the
value-by-value best over the column classes that can reach it (`Model.best_scores`), and one
value per class where one card matters (the drawn card, the top of the discard pile). Moves
that may close the round, and a round's hurry, go through a `Planner`: the same decisions,
scored the long way.

Examples:
    >>> import abyss_rules as ar
    >>> from abyss_rules.bots import CountingBot, GreedyBot
    >>> state = ar.new_game(players=2, seed=5)
    >>> choose(GreedyBot(), ar.view(state, 0)) == choose(CountingBot(), ar.view(state, 0))
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import reduce
from itertools import repeat
from operator import add, mul, sub
from typing import Final, Protocol

from ..actions import Action, DiscardDrawn, Flip
from ..state import Phase
from ..views import View
from ._model import NEG_INF, Model, Shape
from ._tables import GridInfo, Layout, Tables, flip_space, tables_of

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
_TURN: Final = Phase.TURN
_DRAWN: Final = Phase.DRAWN


def deck_lookups_apply(bot: Params) -> bool:
    """Whether GreedyBot's look-ups (`choose`) score as the `Planner` does for `bot`, whatever the
    position they are used in (no move can close the round).

    Exactly when `bot` does not count cards (its model is the whole deck's, whose gains the
    tables keep) and gives no weight to feeding the next player (`feed_weight == 0`: a move's
    score is its plain gain, with nothing taken off for the card it leaves on the discard
    pile). `take_threshold`, `flip_bonus` and `patience` (the hurry) are read by the look-ups as
    by the Planner; `closing_margin` only matters for a move that may close the round, which
    the look-ups leave to the Planner.
    """
    return not bot.counts_cards and bot.feed_weight == 0.0


def counting_shortcut_applies(bot: Params) -> bool:
    """Whether CountingBot's shortcut (`_counting`) scores as the Planner does for `bot` (in a
    position where no move can close the round and without hurry, which `_counting` checks).

    Exactly when `bot` counts cards (its model is of the unseen cards) and weighs feeding the
    next player (`feed_weight != 0`: the shortcut takes the feed costs off every score as the
    Planner does; with no weight the Planner adds none, and the shortcut is not used).
    `flip_bonus` is read by both; `take_threshold` is GreedyBot's only; `closing_margin` and
    `patience` matter only with closer risk or hurry, which the shortcut leaves to the Planner.
    """
    return bot.counts_cards and bot.feed_weight != 0.0


def choose(bot: Params, view: View) -> Action:
    """The action `bot` plays in `view` (the caller has checked that `view` is a seat's view
    with legal actions).

    The common cases are decided here: an opening flip (the bot's grid alone decides it,
    whatever the bot's settings: the Planner's opening flip is `flip_space` too), the turns of
    a bot for which `deck_lookups_apply` when no move can close the round (the deck's odds
    never change, so every gain is a look-up), and those of a bot for which
    `counting_shortcut_applies` in the same case (`_counting`). Everything else goes to a
    `Planner`; a property test compares every shortcut with a Planner that takes none, over
    random bot settings and positions.
    """
    tables = tables_of(view.variant)
    phase = view.phase
    if phase is _OPENING:
        info = tables.grid(view.grids[view.viewer])  # type: ignore[index]
        if info.hidden:
            # The kept flip is the best face-down space of the grid (`flip_space` over all of
            # them), so it is the best of any legal flips that include it.
            row, col = info.flip()
            for a in view.legal_actions:
                if type(a) is Flip and a.row == row and a.col == col:
                    return a
    elif deck_lookups_apply(bot):
        info = tables.grid(view.grids[view.viewer])  # type: ignore[index]
        if info.hidden > 1:  # (no move closes the round, rule 6.1)
            layout = tables.layout(view.legal_actions)
            hurry = _hurry(bot, view)
            remaining = info.remaining
            if phase is _TURN and layout.draw is not None:
                pile = view.discard_pile
                if not pile:
                    return layout.draw
                top = pile[0]
                if layout.take_spaces is remaining or layout.take_spaces == remaining:
                    best, where = info.best_space(tables.deck_model, tables.index[top], hurry)
                    if where >= 0 and best >= bot.take_threshold:
                        return layout.takes[remaining.index(where)][0]
                    return layout.draw
            elif phase is _DRAWN and layout.discards and (layout.place_spaces is remaining
                                                          or layout.place_spaces == remaining):
                best, where = info.best_space(tables.deck_model, tables.index[view.drawn], hurry)  # type: ignore[index]
                if layout.discard_spaces == info.down():
                    if where < 0 or bot.flip_bonus > best:
                        return _discard(info, layout, everywhere=True)
                    return layout.places[remaining.index(where)][0]
    elif counting_shortcut_applies(bot) and (found := _counting(bot, view, tables, phase)) is not None:
        return found
    return Planner(bot, view, tables).choose()


def _counting(bot: Params, view: View, tables: Tables, phase: Phase) -> Action | None:
    """A card-counting bot's take-or-draw and place-or-discard when no move can close the
    round (its grid has two face-down cards or more) and it is not in a hurry: the Planner's
    scores, in the same operations, from what the unseen model keeps (gains per column, the
    next player's feed costs); `None` for any other case (then the Planner decides)."""
    me: int = view.viewer  # type: ignore[assignment]  # checked by the caller
    grids = [tables.grid(g) for g in view.grids]
    info = grids[me]
    if info.hidden < 2 or _hurry(bot, view):
        return None
    model = tables.unseen_model(view, grids)
    feed = _feed_costs(bot, view, tables, grids, model)
    layout = tables.layout(view.legal_actions)
    index = tables.index
    if phase is _DRAWN:
        i = index[view.drawn]  # type: ignore[index]
        best = _best_move(layout.places, layout.place_spaces, info, model, i, feed)
        if layout.discards and (best is None or bot.flip_bonus - feed[i] > best[0]):
            return _discard(info, layout)
        return None if best is None else best[1]
    draw, bests = (0.0, None) if layout.draw is None else _draw_value(bot.flip_bonus, model, info, feed)
    # The options in order, the first best winning (as max() keeps it): take, draw, flip.
    kind, best_score, take, t = None, NEG_INF, None, -1
    top = view.top_discard
    if top is not None and layout.takes:
        t, spaces = index[top], layout.take_spaces
        if bests is not None and (spaces is info.remaining or spaces == info.remaining):
            # (the best take's score is the best score of placing the top card, which the draw's
            # value has: the same classes, the same operations; its move is found if it wins)
            kind, best_score = "take", bests[t]
        elif (take := _best_move(layout.takes, layout.take_spaces, info, model, t, feed)) is not None:
            kind, best_score = "take", take[0]
    if layout.draw is not None and (kind is None or draw > best_score):
        kind, best_score = "draw", draw
    if layout.flips and (kind is None or bot.flip_bonus > best_score):
        kind = "flip"  # (the flip's score: its bonus, nothing is discarded)
    if kind == "take":
        if take is None:
            take = _best_move(layout.takes, layout.take_spaces, info, model, t, feed)
        return take[1] if take is not None else None
    if kind == "draw":
        return layout.draw
    if kind == "flip":
        return _flip_of(info.shapes, layout.flips)
    return None


def _feed_costs(bot: Params, view: View, tables: Tables, grids: list[GridInfo], model: Model) -> list[float]:
    """For each card value, how much leaving it on the discard pile helps the next player (more
    than a draw would, `Model.feed`); all 0.0 when nobody takes it next (the next seat is the
    bot's own or the closer's, rule 6.2)."""
    me: int = view.viewer  # type: ignore[assignment]  # checked by the caller
    nxt = (me + 1) % view.players
    if nxt != me and nxt != view.closer:
        return model.feed(grids[nxt].shapes, bot.feed_weight)
    return tables.no_feed


def _discard(info: GridInfo, layout: Layout, everywhere: bool = False) -> DiscardDrawn:
    """The discard of the drawn card that flips the space `flip_space` picks (the one kept on
    `info` when every face-down space may be flipped, as the caller may know: `everywhere`)."""
    if everywhere or layout.discard_spaces == info.down():
        row, col = info.flip()
    else:
        row, col = flip_space(info.shapes, layout.discards)
    return layout.discard_at[row, col]


def _hurry(bot: Params, view: View) -> bool:
    """Whether the round has lasted long enough (`patience` turns per player) for the bot to
    reveal a card with every move."""
    return view.turns >= bot.patience * view.players


def _flip_of(shapes: tuple[Shape | None, ...], flips: Sequence[Flip]) -> Flip:
    """The flip of `flips` on the space `flip_space` picks."""
    row, col = flip_space(shapes, [(a.row, a.col) for a in flips])
    return next(a for a in flips if (a.row, a.col) == (row, col))


def _best_move(moves: list[tuple[Action, int, int]], spaces: tuple[int, ...], info: GridInfo, model: Model,
               i: int, feed: list[float]) -> tuple[float, Action] | None:
    """`Planner.best_place` without closer risk or hurry: the first best of `moves` (placing
    card `i` on `spaces`, in their order), each scored by its gain less what the card it leaves
    feeds the next player.

    A move of a class already scored (same column, same class) scores the same and cannot
    beat the first one, so each class is scored once: when the moves are every remaining space
    in index order (as in a turn without hurry), class by class from the columns' kept first
    rows, the lowest space winning a tie (the first in the moves' order).
    """
    remaining, shapes = info.remaining, info.shapes
    if spaces is remaining or spaces == remaining:
        best, where, cols = NEG_INF, -1, len(shapes)
        for col, shape in enumerate(shapes):
            if shape is None:
                continue
            before = model.value(shape)
            for cls, row in shape.firsts:
                score = model.class_gain_at(before, cls, i)
                gift = cls.gift_index[i]
                if gift >= 0:
                    score -= feed[gift]
                if score > best or (score == best and row * cols + col < where):
                    best, where = score, row * cols + col
        return None if where < 0 else (best, moves[remaining.index(where)][0])
    found: tuple[float, Action] | None = None
    done = set()
    for a, row, col in moves:
        shape = shapes[col]
        c = shape.row_class[row]  # type: ignore[union-attr]
        if (key := c * len(shapes) + col) in done:  # (one int per column and class)
            continue
        done.add(key)
        cls = shape.classes[c]  # type: ignore[union-attr]
        score = model.class_gain_at(model.value(shape), cls, i)
        gift = cls.gift_index[i]
        if gift >= 0:
            score -= feed[gift]
        if found is None or score > found[0]:
            found = (score, a)
    return found


def _draw_value(flip_bonus: float, model: Model, info: GridInfo,
                feed: list[float]) -> tuple[float, list[float] | None]:
    """`Planner.draw_value` without closer risk or hurry, for a grid with a face-down card, and
    the best score of placing each card value (`Model.best_scores` with `feed`; `None` when no
    card is unseen)."""
    odds = model.odds
    if not odds.total:
        return 0.0, None
    bests = model.best_scores(info.shapes, feed)
    # count * max(best, flip), value by value, where flip is discarding the card and flipping
    # (max(b, f) is b unless f > b); added up from 0.0 in order, as a loop adds them (a value
    # without a card adds 0.0, as the flip is finite, which changes no sum from 0.0)
    products = [c * (f if (f := flip_bonus - g) > b else b)
                for c, b, g in zip(odds.by_index, bests, feed, strict=True)]
    total: float = reduce(add, products, 0.0)
    return total / odds.total, bests


class Planner:
    """Scores every legal action of one view and picks the best (for GreedyBot and CountingBot)."""

    __slots__ = (
        "_feed",
        "_my_gains",
        "_opponents",
        "bot",
        "grids",
        "hurry",
        "index",
        "info",
        "me",
        "mine",
        "model",
        "my_hidden",
        "shortcuts",
        "tables",
        "view",
    )

    def __init__(self, bot: Params, view: View, tables: Tables | None = None, shortcuts: bool = True) -> None:
        self.bot = bot
        self.shortcuts = shortcuts
        """Whether `best_place` may take its shortcuts (`False`: every move is scored, the long way)."""
        self.view = view
        self.me: int = view.viewer  # type: ignore[assignment]  # checked by the caller
        self.tables = tables = tables_of(view.variant) if tables is None else tables
        self.index = tables.index
        self.grids: list[GridInfo] | None = None
        if bot.counts_cards:
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

    @property
    def my_value(self) -> float:
        """The expected score of the bot's grid (needed only when a move may close the round)."""
        return self.info.value(self.model)

    # -- the three phases --------------------------------------------------

    def choose(self) -> Action:
        view = self.view
        layout = self.tables.layout(view.legal_actions)
        if view.phase is Phase.OPENING:
            return self.flip_choice(layout.flips)
        if view.phase is Phase.DRAWN:
            assert view.drawn is not None
            return self.drawn_choice(layout, view.drawn)
        return self.turn_choice(layout)

    def turn_choice(self, layout: Layout) -> Action:
        top = self.view.top_discard
        best_take = None if top is None else self.best_place(layout.takes, layout.take_spaces, top)
        draw = layout.draw
        if not self.bot.counts_cards and draw is not None:
            # GreedyBot: take the discard only when it clearly helps, else draw (and decide then).
            if best_take is not None and best_take[0] >= self.bot.take_threshold:
                return best_take[1]
            return draw
        options = [best_take] if best_take is not None else []
        if draw is not None:
            options.append((self.draw_value(), draw))
        if layout.flips:
            flip = self.flip_choice(layout.flips)
            options.append((self.flip_score(discarded=None), flip))
        if not options:  # in a hurry with nothing that reveals a card: any take will do
            return self.view.legal_actions[0]
        return max(options, key=lambda o: o[0])[1]

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
                   hurry: bool | None = None, shortcut: bool = True) -> tuple[float, Action] | None:
        """The best of `moves` (takes or places of `card`; only those revealing a card in a
        hurry), the first in their order on a tie; `None` if there is none.

        When a score is the plain gain (no closer risk, no feeding) and the moves are every
        remaining space in index order, the best is found column by column from kept
        per-column bests (`GridInfo.best_space`); `shortcut=False` (or a Planner made with
        `shortcuts=False`) scores every move. The shortcuts are taken only under the settings
        they state (`_best_gain`, `_one_down`), checked here: the bot's `feed_weight` is 0
        and the moves are every remaining space in index order.
        """
        hurry = self.hurry if hurry is None else hurry
        if shortcut and self.shortcuts and not self.bot.feed_weight and spaces == self.info.remaining:
            # Plain gains on every remaining space in index order: the best column by column.
            if self.my_hidden != 1 or (hurry and self.hurry):
                # (in a hurry only the one face-down card counts, with no closer risk)
                return self._best_gain(moves, card, hurry)
            if not hurry and self.model.deck:
                return self._one_down(moves, card)
        best: tuple[float, Action] | None = None
        mine, i = self.mine, self.index[card]
        kept: dict[int, float] = {}  # (without the lists: one value per column and class)
        cols = self.tables.cols
        lists = self.my_gains() if self.model.deck else None  # (the deck's model keeps them)
        closing = self.my_hidden == 1
        feed = self.feed_costs() if self.bot.feed_weight else None
        for a, row, col in moves:
            shape = mine[col]
            assert shape is not None
            hidden = shape.column[row] is None
            if hurry and not hidden:
                continue
            # The score of placing `card` at (row, col): the gain, minus the closer risk and
            # what it feeds the next player (the card it leaves on the discard pile).
            c = shape.row_class[row]
            if lists is not None:
                gain = lists[col][c][i]  # type: ignore[index]
            elif (gain := kept.get(key := c * cols + col)) is None:
                gain = kept[key] = self.model.gain_at(shape, c, i)
            score = gain
            if hidden and closing:
                score -= self.closing_cost(self.my_value - gain)
            if feed is not None:
                gift = shape.classes[c].gift_index[i]
                if gift >= 0:
                    score -= feed[gift]
            if best is None or score > best[0]:
                best = (score, a)
        return best

    def _one_down(self, moves: list[tuple[Action, int, int]], card: int) -> tuple[float, Action] | None:
        """`best_place` of `card` on every remaining space in index order with one face-down
        card, not in a hurry, under the deck's model (`model.deck`, a bot that does not count
        cards), with `feed_weight` 0; any `closing_margin` (the closer risk is computed by
        `closing_cost`, as the long way does): the face-down card's score is its gain less
        the closer risk, which is never negative (rule 6.5: a multiplier of at least 1), and a
        face-up card's is its gain. When the best gain is on a face-up card (the first space
        with it), no score beats or ties it before it; else the face-down card's score is
        compared with the best face-up gain (`GridInfo.best_face_up`), the first space winning a tie."""
        info, i = self.info, self.index[card]
        top, where = info.best_space(self.model, i, False)
        if where < 0:
            return None
        remaining = info.remaining
        if info.shown[where] is not None:
            return top, moves[remaining.index(where)][0]
        score = top - self.closing_cost(self.my_value - top)
        gain, space = info.best_face_up(self.model, i)
        if space >= 0 and (gain > score or (gain == score and space < where)):
            return gain, moves[remaining.index(space)][0]
        return score, moves[remaining.index(where)][0]

    def _best_gain(self, moves: list[tuple[Action, int, int]], card: int,
                   hurry: bool) -> tuple[float, Action] | None:
        """`best_place` of `card` on every remaining space in index order when every score is
        the plain gain: the bot's `feed_weight` is 0 (nothing is taken off for feeding) and no
        move carries closer risk -- the bot has other than one face-down card, or it is in a
        hurry (`closing_cost` is then 0; `hurry` and `self.hurry` both). Any model, any other
        setting. The first best gain, from the per-column bests kept on the grid
        (`GridInfo.best_space`), among face-down spaces only in a hurry."""
        info = self.info
        best, where = info.best_space(self.model, self.index[card], hurry)
        if where < 0:
            return None
        return best, moves[info.remaining.index(where)][0]

    def draw_value(self) -> float:
        """The expected score of drawing: the best drawn-phase option, averaged over the odds.

        For every card value at once: each class of the bot's spaces (see `ColumnClass`) gives
        a list of scores by value, and the best is taken value by value.
        """
        model = self.model
        odds, index = model.odds, self.index
        if not odds.total:
            return 0.0
        feed = self.feed_costs() if self.bot.feed_weight else None
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
            bests = [NEG_INF] * len(index)
        else:
            bests = list(map(max, *lists)) if len(lists) > 1 else lists[0]
        chosen = [bests[i] for i in odds.positive]
        if self.my_hidden:
            flip = self.bot.flip_bonus
            if self.my_hidden == 1:
                flip -= self.closing_cost(self.my_value)
            flips = repeat(flip) if feed is None else map(flip.__sub__, [feed[i] for i in odds.positive])
            chosen = list(map(max, chosen, flips))
        # 0.0 + count * best, value by value (in order, as a loop adds them)
        total: float = reduce(add, map(mul, odds.positive_counts, chosen), 0.0)
        return total / odds.total

    # -- scoring one action --------------------------------------------------

    def my_gains(self) -> list[tuple[list[float], ...] | None]:
        """`Model.gains` of each of the bot's columns (`None` for a swallowed one)."""
        if self._my_gains is None:
            gains = self.model.gains
            self._my_gains = [None if s is None else gains(s) for s in self.mine]
        return self._my_gains

    def flip_score(self, discarded: int | None) -> float:
        """Flipping a face-down card (after discarding `discarded`, if any): no gain on average,
        plus a small bonus for what it tells (a known card can be replaced to more effect)."""
        score = self.bot.flip_bonus
        if self.my_hidden == 1:
            score -= self.closing_cost(self.my_value)
        if discarded is not None and self.bot.feed_weight:
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
        if min(others) <= my_score + self.bot.closing_margin:
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
                if self.bot.counts_cards:
                    estimate -= model.draw_gain(model.best_gains(info.shapes))
                out.append(estimate)
            self._opponents = out
        return self._opponents

    def feed_costs(self) -> list[float]:
        """For each card value, how much leaving it on the discard pile helps the next player
        (more than a draw would)."""
        if self._feed is None:
            self._feed = _feed_costs(self.bot, self.view, self.tables, self.seats(), self.model)
        return self._feed

    # -- which card to flip --------------------------------------------------

    def flip_choice(self, flips: list[Flip]) -> Flip:
        return _flip_of(self.mine, flips)
