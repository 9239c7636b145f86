"""What an action caused: events a server can animate or log without diffing states.

`apply_with_events` applies an action like `apply` and also returns the
*events* it caused, in the
order they happened:

| event | when | rules |
|---|---|---|
| `Reshuffled` | a draw found the draw pile empty: the discards became the pile | 5.1, 5.2 |
| `CardDrawn` | the drawn card (public once drawn) | 3.4 |
| `CardPlaced` | a card was placed on a space (from the discard or drawn) | 3.3, 3.5 |
| `CardDiscarded` | a card went onto the discard pile: a replaced card or the drawn card | 3.6, 3.8 |
| `CardRevealed` | a face-down card was turned over by an action | 2.1, 3.6, 3.7 |
| `ColumnSwallowed` | a column of equal face-up cards was swallowed | 4.1-4.3 |
| `OpeningDone` | the last opening flip was made: the opener plays | 2.3, 2.4 |
| `RoundClosed` | a player ended an action with no face-down card | 6.1 |
| `FinalReveal` | the round ended: every face-down card turned over | 6.3 |
| `RoundScored` | the round's scores (the round just added to `state.history`) | 6.4-7.1 |
| `NewRound` | the next round was dealt (sizes and the public top discard) | 1.4 |
| `GameOver` | the game ended | 7.2-7.4 |

Events hold only facts that are public once the action is made (rule 8.1):
a value appears only when the card has just been turned face up, drawn,
placed or discarded; the deal of a new round names no card but the one that
opens the discard pile. So the events of an action may be sent to every
client, like views.

Every event is a frozen value with a `TYPE` string and a `to_dict()` method. The `events`
document of an action is written by `abyss_rules.dumps_events` and
`abyss_rules.codec.events_to_dict`; its `TypedDict`s (`EventsDocument`, and `CardDrawnDict`
and the others for each event) are in `abyss_rules.documents`.

The events come from the rule functions themselves: each one reports what it does as it
does it (see `abyss_rules.rules`), so no event is worked out a second time from the states
before and after. The classes are defined in `abyss_rules._event_types`, below the rules.

Examples:
    >>> import abyss_rules as ar
    >>> from abyss_rules.events import CardRevealed
    >>> state = ar.new_game(players=2, seed=3)
    >>> state, events = ar.apply_with_events(state, ar.Flip(0, 1, 2))
    >>> events
    (CardRevealed(seat=0, row=1, col=2, value=5, cause='opening_flip'),)
    >>> events[0] == CardRevealed(seat=0, row=1, col=2, value=5, cause="opening_flip")
    True
    >>> events[0].to_dict()
    {'type': 'card_revealed', 'seat': 0, 'row': 1, 'col': 2, 'value': 5, 'cause': 'opening_flip'}
"""

from __future__ import annotations

from . import _event_types as event_types
from ._event_types import *  # noqa: F403 - every event class, re-exported: the list is event_types.__all__
from .rules._engine import apply_with_events

__all__ = ["apply_with_events"]
__all__ += event_types.__all__
